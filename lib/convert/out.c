/* The buffered writer every converter writes through. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/dtoa-internal.h"
#include "convert-internal.h"

void profdb__cv_init(profdb__cv_out *o, profdb_write_fn write, void *userdata)
{
	o->write = write;
	o->userdata = userdata;
	o->err = 0;
	o->len = 0;
}

int profdb__cv_flush(profdb__cv_out *o)
{
	if (!o->err && o->len) {
		int r = o->write(o->buf, o->len, o->userdata);
		if (r < 0)
			o->err = r;
	}
	o->len = 0;
	return o->err;
}

void profdb__cv_put(profdb__cv_out *o, const void *data, size_t len)
{
	const unsigned char *p = data;
	while (len && !o->err) {
		if (o->len == sizeof o->buf)
			profdb__cv_flush(o);
		size_t n = sizeof o->buf - o->len;
		if (n > len)
			n = len;
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		p += n;
		len -= n;
	}
}

void profdb__cv_puts(profdb__cv_out *o, const char *s) { profdb__cv_put(o, s, strlen(s)); }

void profdb__cv_putc(profdb__cv_out *o, char c)
{
	if (o->len == sizeof o->buf)
		profdb__cv_flush(o);
	if (!o->err)
		o->buf[o->len++] = (unsigned char)c;
}

const char profdb__cv_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

unsigned char *profdb__cv_room(profdb__cv_out *o, size_t n)
{
	if (o->err || n > sizeof o->buf)
		return NULL;
	if (sizeof o->buf - o->len < n)
		profdb__cv_flush(o);
	return o->err ? NULL : o->buf + o->len;
}

void profdb__cv_u64(profdb__cv_out *o, uint64_t v)
{
	unsigned char *q = profdb__cv_room(o, PROFDB__CV_U64_MAX);
	if (q)
		o->len += profdb__cv_fmt_u64((char *)q, v);
}

void profdb__cv_double(profdb__cv_out *o, double v)
{
	char tmp[PROFDB__NUMBER_MAX];
	profdb__cv_put(o, tmp, profdb__fmt_double(tmp, v));   /* shortest round-trip */
}

size_t profdb__cv_utf8_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0];
	size_t n = c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (!n || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;         /* overlong, surrogate, past U+10FFFF */
	return n;
}

void profdb__cv_json_str(profdb__cv_out *o, profdb_str s)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	size_t i = 0, run = 0;
	profdb__cv_putc(o, '"');
	while (i < s.len) {
		unsigned c = p[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			run++, i++;
			continue;
		}
		profdb__cv_put(o, p + i - run, run);
		run = 0;
		if (c >= 0x80) {
			size_t n = profdb__cv_utf8_len(p + i, s.len - i);
			if (n)
				profdb__cv_put(o, p + i, n), i += n;
			else
				profdb__cv_puts(o, "\\ufffd"), i++;
			continue;
		}
		char esc[8];
		switch (c) {
		case '"': profdb__cv_puts(o, "\\\""); break;
		case '\\': profdb__cv_puts(o, "\\\\"); break;
		case '\n': profdb__cv_puts(o, "\\n"); break;
		case '\t': profdb__cv_puts(o, "\\t"); break;
		case '\r': profdb__cv_puts(o, "\\r"); break;
		default:
			snprintf(esc, sizeof esc, "\\u%04x", c);
			profdb__cv_puts(o, esc);
		}
		i++;
	}
	profdb__cv_put(o, p + i - run, run);
	profdb__cv_putc(o, '"');
}
