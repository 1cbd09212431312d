/* The callgrind writer (doc/CONVERT.md). */
#include "convert-internal.h"

int profdb__convert_callgrind(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	(void)db, (void)opts, (void)o;
	return profdb__fail(-ENOTSUP, "profdb_convert: the callgrind writer is not built yet");
}
