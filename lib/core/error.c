/* Per-thread error messages and warnings. Handles are shared between threads,
 * so error details cannot live in them: each thread has its own buffer. */
#include <stdarg.h>
#include <stddef.h>
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

int profdb__tolerate(const profdb_options *opts, int r, atomic_bool *warned,
                     const char *what, ...)
{
	if (!opts || !(opts->flags & PROFDB_OPEN_TOLERANT) || (r != -EBADMSG && r != -ENODATA))
		return r;
	if (warned && atomic_exchange(warned, true))
		return 0;
	char block[160];
	va_list ap;
	va_start(ap, what);
	vsnprintf(block, sizeof block, what, ap);
	va_end(ap);
	profdb__warn(opts, "%s (tolerant mode: %s reads as absent)", profdb__message(), block);
	return 0;
}

/* Every PROFDB_OPEN_* flag this version defines. */
#define KNOWN_FLAGS (PROFDB_OPEN_COPY | PROFDB_OPEN_POPULATE | PROFDB_OPEN_TOLERANT | \
                     PROFDB_OPEN_FUNCTIONS_ONLY)

int profdb__options_check(const profdb_options *o, const char *fn)
{
	if (!o)
		return 0;
	if (o->size < sizeof o->size)
		return profdb__fail(-EINVAL, "%s: profdb_options.size is %zu; set it to "
		                    "sizeof(profdb_options) or start from PROFDB_OPTIONS_INIT",
		                    fn, o->size);
	/* A newer caller's fields this version does not know must be unused. */
	const unsigned char *b = (const unsigned char *)o;
	for (size_t i = sizeof *o; i < o->size; i++)
		if (b[i])
			return profdb__fail(-EINVAL, "%s: profdb_options byte %zu is set, but this "
			                    "version (%s) knows only the first %zu bytes", fn, i,
			                    PROFDB_VERSION_STRING, sizeof *o);
	uint32_t flags = 0;
	if (o->size >= offsetof(profdb_options, flags) + sizeof flags)
		flags = o->flags;
	if (flags & ~(uint32_t)KNOWN_FLAGS)
		return profdb__fail(-EINVAL, "%s: unknown option flags 0x%x", fn,
		                    (unsigned)(flags & ~(uint32_t)KNOWN_FLAGS));
	return 0;
}

int profdb__options_take(void *dst, size_t dst_size, const void *in, const char *fn,
                         const char *init)
{
	if (!in)
		return 0;
	size_t size;
	memcpy(&size, in, sizeof size);
	if (size < sizeof size)
		return profdb__fail(-EINVAL, "%s: options.size %zu is too small (start from %s)", fn,
		                    size, init);
	const unsigned char *b = in;
	for (size_t i = dst_size; i < size; i++)
		if (b[i])
			return profdb__fail(-EINVAL, "%s: options byte %zu (past the fields this "
			                    "library knows) is not zero", fn, i);
	memcpy(dst, in, size < dst_size ? size : dst_size);
	memcpy(dst, &dst_size, sizeof dst_size);
	return 0;
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
