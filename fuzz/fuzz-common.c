/* See fuzz-common.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "profdb/profdb.h"
/* Internal: profdb__set_message() clears the thread's message. */
#include "core/core-internal.h"

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: invariant violated: %s\n  ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  last profdb message: %s\n", profdb_error_message());
	fflush(stderr);
	abort();
}

int fuzz_documented(int64_t r)
{
	return r == -EINVAL || r == -ENOENT || r == -EBADMSG || r == -ENODATA ||
	       r == -EPROTONOSUPPORT || r == -ENOTSUP || r == -EFBIG || r == -ERANGE ||
	       r == -ECANCELED || r == -ENOMEM || r == -EIO;
}

void fuzz_clear_message(void)
{
	profdb__set_message("");
}

int64_t fuzz_result(int64_t r, const char *call, const char *file, int line)
{
	if (r < 0) {
		const char *m = profdb_error_message();
		if (!fuzz_documented(r))
			fuzz_fail(file, line, call, "returned %" PRId64 " (%s), not a documented errno",
			          r, r >= -4095 ? strerror((int)-r) : "?");
		if (!m || !m[0])
			fuzz_fail(file, line, call, "failed with %" PRId64 " and left no message", r);
	}
	return r;
}
