/* Table formatting: see format.h. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

size_t fmt_value(char *buf, size_t n, double v, int plain)
{
	if (isnan(v))
		return (size_t)snprintf(buf, n, "-");
	if (v != floor(v) || !(fabs(v) < 9007199254740992.0))
		return (size_t)snprintf(buf, n, "%.6g", v);
	/* an integer below 2^53: its digits by division, what "%.0f" prints
	 * (tables print millions of them) */
	char digits[32];
	int len = 0;
	for (uint64_t u = (uint64_t)fabs(v); len == 0 || u; u /= 10)
		digits[len++] = (char)('0' + u % 10);
	/* 2^53 has 16 digits: at most 21 characters with the separators. */
	char grouped[40];
	size_t o = 0;
	if (v < 0)
		grouped[o++] = '-';
	for (int i = 0; i < len; i++) {
		if (!plain && i > 0 && (len - i) % 3 == 0)
			grouped[o++] = ',';
		grouped[o++] = digits[len - 1 - i];
	}
	if (n) {   /* as snprintf: cut to n - 1, the full length returned */
		size_t c = o < n ? o : n - 1;
		memcpy(buf, grouped, c);
		buf[c] = '\0';
	}
	return o;
}

/* Bytes of the character at @p s: a UTF-8 lead byte and its continuation
 * bytes, else one byte (a terminal shows it as one replacement character),
 * so that a column never holds more than four bytes. */
static size_t char_bytes(const char *s)
{
	unsigned char c = (unsigned char)*s;
	size_t n = c < 0xc2 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 1;
	for (size_t i = 1; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

size_t fmt_width(const char *s)
{
	size_t w = 0;
	for (; *s; s += char_bytes(s))
		w++;
	return w;
}

/* Byte offset of display column @p col in @p s (at a character's start). */
static size_t byte_at(const char *s, size_t col)
{
	size_t i = 0;
	for (size_t w = 0; s[i] && w < col; w++)
		i += char_bytes(s + i);
	return i;
}

/* Elide the contents of the bracket pairs @p open/@p close at nesting
 * depth @p level (0 = outermost) in place: "f<a<b>>" at level 0 becomes
 * "f<...>"; empty pairs and pairs holding "..." stay. A close without an
 * open is plain text. @p s and @p out: @p cap bytes each. The text can
 * grow ("f<a>" becomes "f<...>"), by at most two bytes a pair, which a
 * room of three times the name's bytes holds; it is cut (never overrun)
 * beyond @p cap. */
static void elide_level(char *s, char *out, size_t cap, char open, char close, int level)
{
	size_t o = 0;
	int depth = 0, eliding = 0;
	for (const char *p = s; *p && o + 5 < cap; p++) {
		char c = *p;
		int closes = c == close && depth > 0;
		if (closes && --depth == level)
			eliding = 0;
		if (!eliding)
			out[o++] = c;
		if (c != open)
			continue;
		/* a template or parameter list follows a name ("<unknown>" is none) */
		int named = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
		                      (open == '(' && p[-1] == '>'));
		if (depth == level && !eliding && named && p[1] != close &&
		    !(strncmp(p + 1, "...", 3) == 0 && p[4] == close)) {
			memcpy(out + o, "...", 3);
			o += 3;
			eliding = 1;
		}
		depth++;
	}
	out[o] = '\0';
	memcpy(s, out, o + 1);
}

void fmt_shorten(const char *name, size_t width, char *out, size_t cap)
{
	if (width < 8)
		width = 8;
	size_t len = strlen(name);
	if (len < cap && fmt_width(name) <= width) {   /* most names: a copy */
		memcpy(out, name, len + 1);
		return;
	}
	/* The whole name and elide_level()'s room (elide_level); without them
	 * the middle of the name as it is gives way. */
	size_t room = len < SIZE_MAX / 6 - 1 ? 3 * (len + 1) : 0;
	char *work = room ? malloc(2 * room) : NULL;
	const char *s = name;
	if (work) {
		memcpy(work, name, len + 1);
		/* Template and parameter lists hold the bulk of long C++ names. */
		for (int level = 3; level >= 0 && fmt_width(work) > width; level--) {
			elide_level(work, work + room, room, '<', '>', level);
			if (fmt_width(work) > width)
				elide_level(work, work + room, room, '(', ')', level);
		}
		s = work;
	}
	size_t w = fmt_width(s);
	if (w <= width) {
		snprintf(out, cap, "%s", s);
	} else {
		/* The middle gives way: the head says what it is, the tail where. */
		size_t keep = width - 3, head = (keep + 1) / 2, tail = keep - head;
		size_t hb = byte_at(s, head), tb = byte_at(s, w - tail);
		snprintf(out, cap, "%.*s...%s", (int)hb, s, s + tb);
	}
	free(work);
}

char *fmt_shorten_new(const char *name, size_t width)
{
	/* fmt_shorten() writes the name, its elided form (at most three times
	 * the name's bytes, elide_level) or a head and tail of either with
	 * "...": this holds each whole. */
	size_t len = strlen(name);
	if (len > SIZE_MAX / 3 - 2)
		return NULL;
	size_t cap = 3 * (len + 2);
	char *out = malloc(cap);
	if (out)
		fmt_shorten(name, width, out, cap);
	return out;
}

void fmt_put(const char *s, int w)
{
	fmt_line l;
	l.n = 0;
	fmt_line_cell(&l, s, w);
	fmt_line_flush(&l);
}

size_t fmt_percent(char buf[static 16], double p)
{
	if (!(p >= 0 && p < 1e9) || signbit(p))   /* a sign, or long */
		return 0;
	uint64_t q = 0;   /* 100 p rounded; 0 below 0.001 (most lines) */
	if (p >= 0.001) {
		/* p = m * 2^(e - 53), m a 53-bit integer, so 200 p = a / 2^k
		 * with a = 25 m below 2^58 and k = 50 - e in 20..59: 100 p
		 * rounded is (a + 2^k) >> (k + 1), exactly, halfway when no bit
		 * is left over */
		int e;
		double f = frexp(p, &e);
		uint64_t a = 25 * (uint64_t)ldexp(f, 53);
		int k = 50 - e;
		uint64_t t = a + ((uint64_t)1 << k);
		q = t >> (k + 1);
		if ((t & (((uint64_t)1 << (k + 1)) - 1)) == 0 && (q & 1))
			q--;   /* halfway: to the even one */
	}
	char tmp[16], *s = tmp + sizeof tmp;
	*--s = ' ';
	*--s = ' ';
	*--s = '%';
	*--s = (char)('0' + q % 10);
	*--s = (char)('0' + q / 10 % 10);
	*--s = '.';
	q /= 100;   /* below 1e9: 9 digits at most */
	do
		*--s = (char)('0' + q % 10);
	while (q /= 10);
	while (tmp + sizeof tmp - s < 9)   /* "%6.2f": at least 6 wide */
		*--s = ' ';
	size_t n = (size_t)(tmp + sizeof tmp - s);
	memcpy(buf, s, n);
	return n;
}

void fmt_line_flush(fmt_line *l)
{
	fwrite(l->b, 1, l->n, stdout);
	l->n = 0;
}

void fmt_line_put(fmt_line *l, const char *s, size_t n)
{
	if (n > sizeof l->b - l->n) {
		fmt_line_flush(l);
		if (n > sizeof l->b) {
			fwrite(s, 1, n, stdout);
			return;
		}
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void line_blanks(fmt_line *l, int n)
{
	static const char blanks[] = "                                ";
	for (; n > 0; n -= (int)sizeof blanks - 1)
		fmt_line_put(l, blanks, n < (int)sizeof blanks - 1 ? (size_t)n : sizeof blanks - 1);
}

void fmt_line_cell(fmt_line *l, const char *s, int w)
{
	int pad = (w < 0 ? -w : w) - (int)fmt_width(s);
	if (w > 0)
		line_blanks(l, pad);
	fmt_line_put(l, s, strlen(s));
	if (w < 0)
		line_blanks(l, pad);
}

void fmt_line_percent(fmt_line *l, double p)
{
	char buf[400];   /* "%6.2f" of 1.8e308: 309 digits and the decimals */
	size_t n = fmt_percent(buf, p);
	if (!n) {
		int r = snprintf(buf, sizeof buf, "%6.2f%%  ", p);
		n = r < 0 ? 0 : (size_t)r < sizeof buf ? (size_t)r : sizeof buf - 1;
	}
	fmt_line_put(l, buf, n);
}
