/* What every fuzz driver shares: the invariant failure (print, abort), the
 * list of documented error codes, and the checked call.
 *
 * Linked into both driver libraries of fuzz/meson.build (plain and
 * instrumented), so every fuzz executable has it; tests that compile a
 * driver themselves (tests/meson.build) compile this file with it. */
#ifndef PROFDB_FUZZ_COMMON_H
#define PROFDB_FUZZ_COMMON_H

#include <stdint.h>

/* Print "FILE:LINE: invariant violated: COND", the formatted explanation and
 * the thread's last profdb_error_message(), then abort(). The drivers'
 * CHECK macros (FUZZ_CHECK, CG_CHECK, CUBE_CHECK, QUERY_CHECK, ...) call it
 * with their own __FILE__, __LINE__ and #cond. */
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* Is @p r one of the codes include/profdb/common.h documents: -EINVAL,
 * -ENOENT, -EBADMSG, -ENODATA, -EPROTONOSUPPORT, -ENOTSUP, -EFBIG, -ERANGE,
 * -ECANCELED, -ENOMEM or -EIO? The errno values of open(2), fstat(2) and
 * mmap(2) are not accepted: the drivers open memory (the *_open_mem
 * functions and profdb_open_inputs()), never a path. */
int fuzz_documented(int64_t r);

/* Clear the thread's message (so a failing call can be seen to set one). */
void fuzz_clear_message(void);

/* A call's result @p r, checked: when negative it must be documented
 * (fuzz_documented) and have left a non-empty message; otherwise
 * fuzz_fail(file, line, call, ...) with @p call the call's source text. */
int64_t fuzz_result(int64_t r, const char *call, const char *file, int line);

/* Clear the message, make the call, check a failure's code and message.
 * Evaluates to the call's result as int64_t. */
#define FUZZ_CALL(expr) (fuzz_clear_message(), fuzz_result((int64_t)(expr), #expr, __FILE__, __LINE__))

#endif
