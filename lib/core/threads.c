/* How many threads the library's work may use: the open's
 * profdb_options.threads, read the same way by every part that starts
 * threads of its own. */
#include <unistd.h>

#include "core-internal.h"

unsigned profdb__cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

unsigned profdb__spare_threads(uint32_t threads)
{
	return (threads ? threads : profdb__cores()) - 1;
}
