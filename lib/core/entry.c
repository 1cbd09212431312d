/* Whether a database folder holds a file: the openers of folder formats
 * (HPCToolkit 4.0 and pre-release) skip absent files, and an entry that
 * is there but cannot be followed (a dangling or looping symbolic link, a
 * link into a folder that cannot be searched) must not pass for absent. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core-internal.h"

int profdb__entry_present(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0)
		return 1;
	int e = errno;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return profdb__fail(-e, "%s: a symbolic link that cannot be followed (%s)", path,
		                    strerror(e));
	if (e == ENOENT || e == ENOTDIR)
		return 0;
	return profdb__fail(-e, "%s: %s", path, strerror(e));
}
