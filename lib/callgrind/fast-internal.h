/* Callgrind: the numbers, cost lines and call and jump targets of the
 * fast paths, shared by the scanner's (fast.c) and the detail decoder's
 * (detail.c, copy-lines.c). They read lines that a '\n' ends before the text does, so
 * a '\n' stops every scan: no bounds check per byte. They accept what
 * profdb__cg_u64() and profdb__cg_subpos() accept, less (long numbers);
 * what they refuse is left to those.
 *
 * A cost of two to seven digits is read as one 64-bit word where the
 * caller's bound says that the 8 bytes from its first digit are readable
 * (fast_dec_word(): the digits found and converted without a loop over
 * them; a longer run goes through fast_dec(), so both take the same
 * numbers and give the same values). Such a load passes the line's '\n',
 * so the bound is the end of the readable text (fast_cost_line()'s @p end:
 * the mapping's end, or what a streamed text holds so far), never its
 * last '\n'; near that end, and where FAST_WORD is 0 (a big-endian
 * machine, or PROFDB_CG_BYTES_ONLY defined, which the tests use to check
 * that path), the bytes are read one by one. */
#ifndef PROFDB_CALLGRIND_FAST_INTERNAL_H
#define PROFDB_CALLGRIND_FAST_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "callgrind-internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    !defined(PROFDB_CG_BYTES_ONLY)
#define FAST_WORD 1
#else
#define FAST_WORD 0
#endif

#define FAST static inline __attribute__((always_inline))

/* Whether a "\r\n" is at @p q: a line end wherever a '\n' is one (the
 * general paths drop a CR before the '\n'). q[1] is read only after a CR,
 * which comes before the line's '\n'. */
FAST int fast_crlf(const char *q)
{
	return q[0] == '\r' && q[1] == '\n';
}

/* Whether a line starting with @p c is a cost line (a position first). */
FAST int cost_start(char c)
{
	return cg_is_digit(c) || c == '+' || c == '-' || c == '*';
}

/* A decimal of 1 to 19 digits (cannot overflow) at *qp. */
FAST int fast_dec(const char **qp, uint64_t *out)
{
	const char *q = *qp, *d0 = q;
	uint64_t x = 0;
	unsigned d;
	while ((d = (unsigned)(unsigned char)*q - '0') <= 9) {
		x = x * 10 + d;
		q++;
	}
	if (q == d0 || q - d0 > 19)
		return 0;
	*out = x;
	*qp = q;
	return 1;
}

/* The value of the @p len (1 to 8) decimal digits at @p p, whose 8 bytes
 * are readable, on a little-endian machine: the digits moved to the top
 * of the word (the first one, most significant, in the lowest byte of
 * them; zeros below), then pairs, quads and octets of digits combined by
 * multiply-adds that cannot carry into the next group. */
FAST uint64_t fast_swar8(const char *p, unsigned len)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
	w = (w << (8 * (8 - len))) & 0x0F0F0F0F0F0F0F0Full;
	w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFull;
	w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFull;
	return (w * 10000 + (w >> 32)) & 0xFFFFFFFFull;
}

/* fast_dec() where the 8 bytes at *qp are readable (FAST_WORD only): a
 * run of 1 to 7 digits is found in one word (a byte is a digit when, xor
 * '0', it is at most 9: bit 7 of each other byte is set by adding 0x76 to
 * its low 7 bits, or is set already) and converted by fast_swar8(); a
 * longer one is left to fast_dec(). A byte loop's exit, which depends on
 * the data, costs more than these few operations. */
FAST int fast_dec_word(const char **qp, uint64_t *out)
{
	const char *q = *qp;
	uint64_t w;
	memcpy(&w, q, sizeof w);
	w ^= 0x3030303030303030ull;
	uint64_t other = (((w & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull) | w) &
	                 0x8080808080808080ull;
	if (!other)
		return fast_dec(qp, out);
	unsigned len = (unsigned)__builtin_ctzll(other) >> 3;
	if (!len)
		return 0;
	*out = fast_swar8(q, len);
	*qp = q + len;
	return 1;
}

/* fast_dec(), in one word where the text from *@p qp to @p end has 8
 * bytes. */
FAST int fast_dec_to(const char **qp, const char *end, uint64_t *out)
{
#if FAST_WORD
	if (end - *qp >= 8)
		return fast_dec_word(qp, out);
#else
	(void)end;
#endif
	return fast_dec(qp, out);
}

/* A subposition at *qp relative to @p last: decimal (at most 19 digits),
 * 0x hex (at most 16; not after + or - when @p dec_rel), +N, -N or '*'.
 * The caller checks what follows. */
FAST int fast_subpos(const char **qp, uint64_t last, uint64_t *out, const int dec_rel)
{
	const char *q = *qp;
	char sign = *q;
	if (sign == '*') {
		*out = last;
		*qp = q + 1;
		return 1;
	}
	if (sign == '+' || sign == '-')
		q++;
	uint64_t x = 0;
	/* one digit, not "0x" (so q[1] exists): most relative ones, +3, -2 */
	unsigned d0 = (unsigned)(unsigned char)q[0] - '0';
	if (d0 <= 9 && (unsigned)(unsigned char)q[1] - '0' > 9 && (q[1] | 0x20) != 'x') {
		x = d0;
		q++;
	} else if (q[0] == '0' && (q[1] | 0x20) == 'x') {  /* q[0] is not the '\n' */
		if (dec_rel && q != *qp)
			return 0;
		const char *h0 = q += 2;
		for (;;) {
			unsigned char ch = (unsigned char)*q;
			unsigned d = ch - '0';
			if (d > 9) {
				d = (unsigned)(ch | 0x20) - 'a';
				if (d > 5)
					break;
				d += 10;
			}
			x = x << 4 | d;
			q++;
		}
		if (q == h0 || q - h0 > 16)
			return 0;
	} else if (!fast_dec(&q, &x)) {
		return 0;
	}
	if (sign == '+') {
		if (__builtin_add_overflow(last, x, out))
			return 0;
	} else if (sign == '-') {
		if (x > last)
			return 0;
		*out = last - x;
	} else {
		*out = x;
	}
	*qp = q;
	return 1;
}

/* Where a cost line's values go besides the caller's array: add(ctx, k,
 * x) adds cost @p x of column @p k, or returns 0 with nothing added when
 * the sum does not fit; undo(ctx, k, x) takes an added one back. Each
 * caller passes its own always-inline functions, which the reader's code
 * compiled for that caller calls directly. */
typedef struct {
	int (*add)(void *ctx, uint32_t k, uint64_t x);
	void (*undo)(void *ctx, uint32_t k, uint64_t x);
	void *ctx;
} fast_sink;

/* Takes back the first @p k costs of the cost line at @p s that
 * fast_cost_line() added to @p sink, read again from the text (the same
 * bytes give the same values), so that the line's reader keeps no copy
 * of them. Out of line: only a line refused after some of its costs
 * were added (a sum that does not fit, a hex cost, a line too long)
 * comes here. */
static __attribute__((noinline, cold, unused)) void
fast_cost_undo(const char *s, const char *end, uint32_t n_pos, const uint64_t np[CG_NPOS],
               uint32_t k, const fast_sink *sink)
{
	const char *q = s;
	uint64_t t, x = 0;
	fast_subpos(&q, np[0], &t, 0);
	if (n_pos > 1) {
		q++;
		fast_subpos(&q, np[1], &t, 0);
	}
	for (uint32_t i = 0; i < k; i++) {
		while (cg_is_space(*q))
			q++;
		fast_dec_to(&q, end, &x);
		sink->undo(sink->ctx, i, x);
	}
}

/* How fast_cost_line() reads: a "\r\n" ends a line too; a relative
 * subposition is decimal (callgrind_annotate's reading: "+0x10" is refused). */
#define FAST_CRLF 1
#define FAST_DEC_REL 2

/* A cost line at @p s that a '\n' ends, or "\r\n" when @p flags has
 * FAST_CRLF (the text ends with a '\n', so no read passes it):
 * subpositions relative to @p np separated by one blank, then at most
 * @p n_cols decimal costs of at most 19 digits, each after blanks, and
 * blanks; at most @p max_len bytes.
 * Returns the line's '\n' with its positions in @p np and its costs
 * added to @p sink, or, without one, in @p v (*nv of them); NULL for any
 * other line or a sum that does not fit, with nothing changed, which the
 * caller's general path reads (and reports what is wrong). The text
 * before @p end is readable (a cost's digits are read in words before
 * end - 8; pass @p s to read them byte by byte). One reader for the scan
 * (fast.c: a sink adding into a row), the detail (detail.c: no sink) and
 * the copy (copy-lines.c: a sink adding into the detail's sums),
 * each compiled with its own constant @p sink, @p max_len and @p flags.
 * Every cost goes to the sink, a 0 too: a branch on the value would be
 * mispredicted where the cheap add is not. With a sink the costs are not
 * stored: a store a cost, and the index into @p v, would lengthen the
 * loop that the scan spends most of its time in. */
FAST const char *fast_cost_line(const char *s, const char *end, uint64_t max_len,
                                uint32_t n_pos, uint32_t n_cols, uint64_t np[CG_NPOS],
                                uint64_t *v, uint32_t *nv, const fast_sink *sink,
                                const int flags)
{
	const char *q = s;
	const int crlf = flags & FAST_CRLF, dec_rel = flags & FAST_DEC_REL;
	uint64_t t0, t1 = 0;
	_Static_assert(CG_NPOS == 2, "one or two positions");
	if (!fast_subpos(&q, np[0], &t0, dec_rel))
		return NULL;
	if (n_pos > 1) {
		if (!cg_is_space(*q))
			return NULL;
		q++;
		if (!fast_subpos(&q, np[1], &t1, dec_rel))
			return NULL;
	}
	uint32_t k = 0;
	for (;;) {
		unsigned d;
		uint64_t x;
		if (q[0] == ' ' && (d = (unsigned)(unsigned char)q[1] - '0') <= 9 &&
		    (q[2] == ' ' || q[2] == '\n')) {  /* most costs: one blank, one digit */
			if (k >= n_cols)
				goto undo;
			x = d;
			q += 2;
		} else {
			if (*q == '\n')
				break;
			if (!cg_is_space(*q)) {
				if (!crlf || !fast_crlf(q))
					goto undo;
				q++;
				break;
			}
			do
				q++;
			while (cg_is_space(*q));
			if (*q == '\n')
				break;  /* trailing blanks */
			if (k >= n_cols || !fast_dec_to(&q, end, &x)) {
				if (!crlf || !fast_crlf(q))   /* (fast_dec_to() moves nothing on failure) */
					goto undo;
				q++;
				break;
			}
		}
		if (sink) {
			if (!sink->add(sink->ctx, k, x))
				goto undo;
		} else {
			v[k] = x;
		}
		k++;
	}
	if ((uint64_t)(q - s) > max_len)
		goto undo;
	np[0] = t0;
	np[1] = n_pos > 1 ? t1 : np[1];
	if (!sink)
		*nv = k;
	return q;
undo:
	if (sink && k)
		fast_cost_undo(s, end, n_pos, np, k, sink);
	return NULL;
}

/* The value of calls=, jump= or jcnd= at @p q (after the '='): a decimal
 * count, or count/count where @p slash (jcnd=; its other form, and a
 * slash elsewhere, are left to the general paths), then blanks and at
 * most @p n_pos subpositions relative to @p last, which go to @p tgt (the
 * ones not given stay @p last's), and the line end: '\n', or "\r\n" when
 * @p crlf. Returns the line's '\n', with the count in *@p a and the
 * second count (or the first again) in *@p b; NULL for any other form. */
FAST const char *fast_target(const char *q, int slash, uint32_t n_pos,
                             const uint64_t last[CG_NPOS], uint64_t tgt[CG_NPOS], uint64_t *a,
                             uint64_t *b, const int crlf)
{
	uint64_t x, y;
	if (!fast_dec(&q, &x))
		return NULL;
	if (*q == '/') {
		q++;
		if (!slash || !fast_dec(&q, &y))
			return NULL;
	} else if (slash) {
		return NULL;
	} else {
		y = x;
	}
	tgt[0] = last[0];
	tgt[1] = last[1];
	for (uint32_t c = 0;; c++) {
		if (*q != '\n' && !cg_is_space(*q)) {
			if (!crlf || !fast_crlf(q))
				return NULL;
			q++;
			break;
		}
		while (cg_is_space(*q))
			q++;
		if (*q == '\n')
			break;
		if (c >= n_pos || !fast_subpos(&q, last[c], &tgt[c], 0)) {
			if (!crlf || !fast_crlf(q))   /* (fast_subpos() moves nothing when it fails) */
				return NULL;
			q++;
			break;
		}
	}
	*a = x;
	*b = y;
	return q;
}

#endif
