/* Per-thread error messages and warnings. Handles are shared between threads,
 * so error details cannot live in them: each thread has its own buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core-internal.h"

static _Thread_local char message[512];

int profdb__fail(int code, const char *fmt, ...)
{
	/* Format into a local buffer first: callers may pass the current
	 * message (profdb__message()) as an argument to extend it, and
	 * vsnprintf's source and destination must not overlap. */
	char buf[sizeof message];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	memcpy(message, buf, sizeof message);
	return code;
}

const char *profdb__message(void)
{
	return message;
}

void profdb__set_message(const char *msg)
{
	size_t n = msg ? strnlen(msg, sizeof message - 1) : 0;
	if (n)
		memmove(message, msg, n); /* msg may be the message itself */
	message[n] = 0;
}

PROFDB_EXPORT const char *profdb_error_message(void)
{
	return message;
}

PROFDB_EXPORT uint32_t profdb_version_number(void)
{
	return PROFDB_VERSION_NUMBER;
}

void profdb__warn(const profdb_options *opts, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	if (!opts || !opts->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	opts->warn(buf, opts->warn_userdata);
}

void profdb__options_copy(profdb_options *dst, const profdb_options *src)
{
	memset(dst, 0, sizeof *dst);
	if (!src)
		return;
	size_t n = src->size < sizeof *dst ? src->size : sizeof *dst;
	memcpy(dst, src, n);
	dst->size = sizeof *dst;
}
