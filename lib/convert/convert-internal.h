/* The converters (profdb/convert.h): one file per output format, on a
 * shared buffered writer. doc/CONVERT.md says what each writes. */
#ifndef PROFDB_CONVERT_INTERNAL_H
#define PROFDB_CONVERT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/core-internal.h"
#include "profdb/convert.h"

/* A 64 KiB output buffer in front of the caller's write callback. The
 * first error sticks: later puts are no-ops and profdb__cv_flush() returns it. */
typedef struct profdb__cv_out {
	profdb_write_fn write;
	void *userdata;
	int err;
	size_t len;
	unsigned char buf[64 * 1024];
} profdb__cv_out;

void profdb__cv_init(profdb__cv_out *o, profdb_write_fn write, void *userdata);
void profdb__cv_put(profdb__cv_out *o, const void *data, size_t len);
void profdb__cv_puts(profdb__cv_out *o, const char *s);
void profdb__cv_putc(profdb__cv_out *o, char c);
void profdb__cv_u64(profdb__cv_out *o, uint64_t v);
/* The decimal digits of @p v at @p dst (room for PROFDB__CV_U64_MAX):
 * how many. Two digits per division; inline, as the Callgrind writer
 * formats a dozen values a line, most of them below 100. */
#define PROFDB__CV_U64_MAX 20u
extern const char profdb__cv_digit_pairs[201];   /* "00" .. "99" */
static inline size_t profdb__cv_fmt_u64(char *dst, uint64_t v)
{
	if (v < 10) {
		*dst = (char)('0' + v);
		return 1;
	}
	if (v < 100) {
		memcpy(dst, profdb__cv_digit_pairs + 2 * v, 2);
		return 2;
	}
	size_t digits = 1;
	uint64_t x = v;
	for (; x >= 10000; x /= 10000)
		digits += 4;
	digits += (x >= 10) + (x >= 100) + (x >= 1000);
	char *q = dst + digits;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--q = profdb__cv_digit_pairs[d + 1];
		*--q = profdb__cv_digit_pairs[d];
	}
	if (v >= 10) {
		*--q = profdb__cv_digit_pairs[v * 2 + 1];
		*--q = profdb__cv_digit_pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	return digits;
}
/* @p n bytes of room at the end of the buffer (n at most its size), to
 * fill and then count in o->len: NULL after an error. Many small pieces
 * written this way check for room once. */
unsigned char *profdb__cv_room(profdb__cv_out *o, size_t n);
/* A double that reads back bit for bit (strtod); the caller handles
 * non-finite values, which neither JSON nor the text formats can carry. */
void profdb__cv_double(profdb__cv_out *o, double v);
/* A JSON string literal of @p s: quotes, escapes, control characters as
 * \u00XX, invalid UTF-8 bytes as U+FFFD. */
void profdb__cv_json_str(profdb__cv_out *o, profdb_str s);
/* The length of the valid UTF-8 sequence at @p p (1..4 bytes), 0 when
 * invalid (overlong, a surrogate, past U+10FFFF, cut by @p left). */
size_t profdb__cv_utf8_len(const unsigned char *p, size_t left);
/* Send what is buffered; returns the sticky error (0 when none). */
int profdb__cv_flush(profdb__cv_out *o);

/* The writers. @opts is validated and complete (size == sizeof). */
int profdb__convert_folded(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o);
int profdb__convert_speedscope(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o);
int profdb__convert_chrome(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o);
int profdb__convert_callgrind(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o);
int profdb__convert_pprof(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o);
int profdb__convert_svg(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o);
int profdb__convert_timeline(const profdb *db, const profdb_convert_options *opts,
                             profdb__cv_out *o);

#endif /* PROFDB_CONVERT_INTERNAL_H */
