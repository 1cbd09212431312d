/* The Callgrind cost-line reader of the fast paths (lib/callgrind/
 * fast-internal.h: fast_cost_line()), checked line by line against a
 * reference reader of the same grammar written here, both ways it reads
 * a cost: in one 64-bit word where 8 bytes are readable (the text's end
 * far enough) and byte by byte (the text's end at the line's start, as
 * for a text's last bytes). Boundary lines (lengths around 8, 16 and 32
 * bytes, 7-, 8-, 19- and 20-digit costs, hex and relative positions,
 * "\r\n", blanks, tabs, too many columns, sums that reach 2^32 - 1 in a
 * narrow row or overflow 64 bits) and many random ones, each placed at
 * the end of a buffer of its exact size (a load past it is an ASan
 * error) and inside a longer text. The same file built with
 * PROFDB_CG_BYTES_ONLY (cg-fast-line-bytes) checks the byte reader alone,
 * as a machine without the word reader has it. A text whose last cost
 * line ends at the end of its buffer is also scanned and decoded whole
 * through the library. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind/fast-internal.h"
#include "common.h"

/* ---- a sink with the scan's rules (lib/callgrind/fast.c, cost_add) ---- */

typedef struct {
	int narrow;            /* 32-bit cells whose sums stay below CG_WIDE */
	uint32_t n32[CG_MAX_EVENTS];
	uint64_t n64[CG_MAX_EVENTS];
} row;

static inline __attribute__((always_inline)) int row_add(void *ctx, uint32_t k, uint64_t x)
{
	row *r = ctx;
	if (r->narrow) {
		uint64_t sum = (uint64_t)r->n32[k] + x;
		if (sum >= CG_WIDE)
			return 0;
		r->n32[k] = (uint32_t)sum;
	} else if (__builtin_add_overflow(r->n64[k], x, &r->n64[k])) {
		r->n64[k] -= x;
		return 0;
	}
	return 1;
}

static inline __attribute__((always_inline)) void row_undo(void *ctx, uint32_t k, uint64_t x)
{
	row *r = ctx;
	if (r->narrow)
		r->n32[k] -= (uint32_t)x;
	else
		r->n64[k] -= x;
}

/* ---- the reference: the grammar of fast_cost_line(), one rule a step ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_dig(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (is_dig(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A run of 1 to @p max digits of base @p base at s[*i]. */
static int ref_num(const char *s, size_t *i, unsigned base, unsigned max, uint64_t *out)
{
	size_t j = *i;
	uint64_t x = 0;
	int d;
	while ((d = base == 16 ? hexval(s[j]) : is_dig(s[j]) ? s[j] - '0' : -1) >= 0) {
		x = x * base + (uint64_t)d;   /* (wraps past max digits: refused below) */
		j++;
	}
	if (j == *i || j - *i > max)
		return 0;
	*out = x;
	*i = j;
	return 1;
}

/* '*', [+-] then a hex ("0x", at most 16 digits) or decimal (at most 19) */
static int ref_subpos(const char *s, size_t *i, uint64_t last, uint64_t *out)
{
	size_t j = *i;
	char sign = s[j];
	uint64_t x;
	if (sign == '*') {
		*out = last;
		*i = j + 1;
		return 1;
	}
	if (sign == '+' || sign == '-')
		j++;
	if (s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
		j += 2;
		if (!ref_num(s, &j, 16, 16, &x))
			return 0;
	} else if (!ref_num(s, &j, 10, 19, &x)) {
		return 0;
	}
	if (sign == '+' && x > UINT64_MAX - last)
		return 0;
	if (sign == '-' && x > last)
		return 0;
	*out = sign == '+' ? last + x : sign == '-' ? last - x : x;
	*i = j;
	return 1;
}

/* The line at @p s: the offset of its '\n', or -1 when refused. */
static long ref_line(const char *s, uint64_t max_len, uint32_t n_pos, uint32_t n_cols,
                     uint64_t np[2], uint64_t *v, uint32_t *nv, row *r, int crlf)
{
	size_t i = 0;
	uint64_t t0, t1 = np[1];
	uint32_t k = 0;
	if (!ref_subpos(s, &i, np[0], &t0))
		return -1;
	if (n_pos > 1) {
		if (!is_blank(s[i]))
			return -1;
		i++;
		if (!ref_subpos(s, &i, np[1], &t1))
			return -1;
	}
	for (;;) {
		if (s[i] == '\n' || (crlf && s[i] == '\r' && s[i + 1] == '\n'))
			break;
		if (!is_blank(s[i]))
			return -1;
		while (is_blank(s[i]))
			i++;
		if (s[i] == '\n' || (crlf && s[i] == '\r' && s[i + 1] == '\n'))
			break;
		if (k >= n_cols || !ref_num(s, &i, 10, 19, &v[k]))
			return -1;
		k++;
	}
	if (s[i] == '\r')
		i++;
	if (i > max_len)
		return -1;
	if (r) {   /* every sum must fit, else nothing changes */
		row t = *r;
		for (uint32_t c = 0; c < k; c++) {
			if (t.narrow ? (uint64_t)t.n32[c] + v[c] >= CG_WIDE
			             : v[c] > UINT64_MAX - t.n64[c])
				return -1;
			if (t.narrow)
				t.n32[c] += (uint32_t)v[c];
			else
				t.n64[c] += v[c];
		}
		memcpy(r->n32, t.n32, sizeof t.n32);
		memcpy(r->n64, t.n64, sizeof t.n64);
	}
	np[0] = t0;
	np[1] = t1;
	*nv = k;
	return (long)i;
}

/* ---- the reader, compiled as its two callers compile it ---- */

static const char *read_sink(const char *s, const char *end, uint64_t max_len, uint32_t n_pos,
                             uint32_t n_cols, uint64_t np[2], uint64_t *v, uint32_t *nv,
                             row *r, int crlf)
{
	const fast_sink sink = {.add = row_add, .undo = row_undo, .ctx = r};
	return crlf ? fast_cost_line(s, end, max_len, n_pos, n_cols, np, v, nv, &sink, 1)
	            : fast_cost_line(s, end, max_len, n_pos, n_cols, np, v, nv, &sink, 0);
}

static const char *read_plain(const char *s, const char *end, uint64_t max_len, uint32_t n_pos,
                              uint32_t n_cols, uint64_t np[2], uint64_t *v, uint32_t *nv,
                              int crlf)
{
	return crlf ? fast_cost_line(s, end, max_len, n_pos, n_cols, np, v, nv, NULL, 1)
	            : fast_cost_line(s, end, max_len, n_pos, n_cols, np, v, nv, NULL, 0);
}

typedef struct {
	uint32_t n_pos, n_cols;
	uint64_t max_len;
	uint64_t np[2];       /* the positions before the line */
	uint64_t start;       /* every cell of the row before the line */
	int narrow, crlf;
} setup;

/* One way of reading @p line (ending with its '\n'), placed at the end of
 * a buffer of its exact size when @p at_end, else followed by more text:
 * the reader with the word path (end = the buffer's end) or without (end
 * = the line's start), with and without a sink, must give what the
 * reference gives. Returns whether the line was taken. */
static int check_placed(const char *line, size_t len, const setup *u, int at_end, int words)
{
	size_t cap = at_end ? len : len + 64;
	char *buf = malloc(cap);
	cr_assert(buf);
	memcpy(buf, line, len);
	if (!at_end)
		memset(buf + len, '7', cap - len);   /* digits: a load past the '\n' sees more */
	const char *end = words ? buf + cap : buf;

	uint64_t rv[CG_MAX_EVENTS], fv[CG_MAX_EVENTS];
	uint32_t rn = 0, fn = 0;
	uint64_t rp[2] = {u->np[0], u->np[1]}, fp[2] = {u->np[0], u->np[1]};
	long want = ref_line(buf, u->max_len, u->n_pos, u->n_cols, rp, rv, &rn, NULL, u->crlf);
	const char *got = read_plain(buf, end, u->max_len, u->n_pos, u->n_cols, fp, fv, &fn,
	                             u->crlf);
	cr_assert_eq(got ? got - buf : -1, want, "line \"%.*s\" (words %d, at end %d)",
	             (int)len - 1, line, words, at_end);
	if (got) {
		cr_assert_eq(fp[0], rp[0], "line \"%.*s\"", (int)len - 1, line);
		cr_assert_eq(fp[1], rp[1], "line \"%.*s\"", (int)len - 1, line);
		cr_assert_eq(fn, rn, "line \"%.*s\"", (int)len - 1, line);
		for (uint32_t k = 0; k < rn; k++)
			cr_assert_eq(fv[k], rv[k], "line \"%.*s\" cost %u", (int)len - 1, line, k);
	} else {
		cr_assert_eq(fp[0], u->np[0]);
		cr_assert_eq(fp[1], u->np[1]);
	}

	/* with a sink: the same answer, and the row as the reference leaves it */
	row *rr = calloc(2, sizeof *rr), *fr = rr + 1;
	cr_assert(rr);
	rr->narrow = fr->narrow = u->narrow;
	for (uint32_t k = 0; k < CG_MAX_EVENTS; k++) {
		rr->n32[k] = fr->n32[k] = (uint32_t)u->start;
		rr->n64[k] = fr->n64[k] = u->start;
	}
	rp[0] = fp[0] = u->np[0];
	rp[1] = fp[1] = u->np[1];
	want = ref_line(buf, u->max_len, u->n_pos, u->n_cols, rp, rv, &rn, rr, u->crlf);
	got = read_sink(buf, end, u->max_len, u->n_pos, u->n_cols, fp, fv, &fn, fr, u->crlf);
	cr_assert_eq(got ? got - buf : -1, want, "line \"%.*s\" with a sink (words %d, at end %d)",
	             (int)len - 1, line, words, at_end);
	cr_assert_eq(fp[0], rp[0]);
	cr_assert_eq(fp[1], rp[1]);
	cr_assert(!memcmp(fr->n32, rr->n32, sizeof fr->n32) && !memcmp(fr->n64, rr->n64, sizeof fr->n64),
	          "line \"%.*s\": the row differs", (int)len - 1, line);
	free(rr);
	free(buf);
	return want >= 0;
}

/* @p line read every way; returns whether it was taken. */
static int check_line(const char *line, const setup *u)
{
	size_t len = strlen(line);
	cr_assert(len > 0 && line[len - 1] == '\n');
	int taken = check_placed(line, len, u, 1, 1);
	cr_assert_eq(check_placed(line, len, u, 0, 1), taken);
	cr_assert_eq(check_placed(line, len, u, 1, 0), taken);
	cr_assert_eq(check_placed(line, len, u, 0, 0), taken);
	return taken;
}

static const setup two_pos = {.n_pos = 2, .n_cols = 13, .max_len = CG_MAX_LINE,
                              .np = {1000, 50}, .narrow = 1};

/* ---- tests ---- */

Test(cg_fast_line, word_path_is_built_where_expected)
{
#if defined(PROFDB_CG_BYTES_ONLY)
	cr_assert_eq(FAST_WORD, 0);
#elif defined(__x86_64__) || defined(__aarch64__)
	cr_assert_eq(FAST_WORD, 1);
#else
	cr_assert(FAST_WORD == 0 || FAST_WORD == 1);
#endif
}

Test(cg_fast_line, words_of_every_length)
{
	/* 1 to 8 digits, every digit in every place, leading zeros */
	char buf[32];
	for (unsigned len = 1; len <= 8; len++)
		for (unsigned d = 0; d <= 9; d++)
			for (unsigned at = 0; at < len; at++) {
				memset(buf, '0' + (char)((d + 3) % 10), sizeof buf);
				buf[at] = (char)('0' + d);
				uint64_t want = 0;
				for (unsigned i = 0; i < len; i++)
					want = want * 10 + (uint64_t)(buf[i] - '0');
				cr_assert_eq(fast_swar8(buf, len), want, "len %u digit %u at %u", len, d, at);
			}
	const char *nums[] = {"0 ", "9\n", "10 ", "99\n", "1234567 ", "9999999\n", "0000001 ",
	                      "12345678 ", "99999999\n", "123456789012 ", "18446744073709551615\n"};
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
		memset(buf, ' ', sizeof buf);
		memcpy(buf, nums[i], strlen(nums[i]));
		const char *q = buf;
		uint64_t x = 0;
		int ok = fast_dec_word(&q, &x);
		cr_assert_eq(ok, strlen(nums[i]) - 1 <= 19, "%s", nums[i]);
		if (ok) {
			cr_assert_eq(x, strtoull(nums[i], NULL, 10), "%s", nums[i]);
			cr_assert_eq(q, buf + strlen(nums[i]) - 1);
		}
	}
	/* no digit, or a byte just outside '0'..'9' or above 0x7F first */
	const char *none[] = {" 1", "/1", ":1", "\x80" "1", "\xb0" "1", "\xff" "1", "\n1"};
	for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
		memset(buf, '1', sizeof buf);
		memcpy(buf, none[i], strlen(none[i]));
		const char *q = buf;
		uint64_t x = 7;
		cr_assert_eq(fast_dec_word(&q, &x), 0, "case %zu", i);
		cr_assert_eq(q, buf);
		cr_assert_eq(x, 7);
	}
	/* a run ends at any byte that is not a digit */
	for (unsigned c = 0; c < 256; c++) {
		if (c >= '0' && c <= '9')
			continue;
		memcpy(buf, "1234", 4);
		buf[4] = (char)c;
		memcpy(buf + 5, "567", 3);
		const char *q = buf;
		uint64_t x;
		cr_assert(fast_dec_word(&q, &x));
		cr_assert_eq(x, 1234, "byte %u", c);
		cr_assert_eq(q, buf + 4);
	}
}

Test(cg_fast_line, boundary_lines)
{
	static const char *lines[] = {
		"+7 * 1 0 0 0 0 0 0 0 0 1\n",
		"0x2e350 29 1 1 0 1 0 0 1\n",
		"+3 0 6 0 0 0 0 0 0 0 0 6\n",
		"* 0 322 56 42 0 0 0 0 0 0 70\n",
		"* *\n",
		"+1 *\n",
		"+1 * 5\n",
		/* lines of 15 to 17, 31 to 33 bytes with the '\n' */
		"+1 * 1234567 1\n",
		"+1 * 12345678 1\n",
		"+1 * 123456789 1\n",
		"+1 * 1 2 3 4 5 6 7 8 9 10 1\n",
		"+1 * 1 2 3 4 5 6 7 8 9 10 11\n",
		"+1 * 1 2 3 4 5 6 7 8 9 10 11 \n",
		"+1 * 1234567 1234567 1234567 12\n",
		"+1 * 1234567 1234567 1234567 123\n",
		"+1 * 1234567 1234567 12345678 123\n",
		/* 7, 8, 19 and 20 digits; leading zeros */
		"* * 1234567\n",
		"* * 12345678\n",
		"* * 9999999999999999999\n",
		"* * 18446744073709551615\n",
		"* * 99999999999999999999\n",
		"* * 0000000000000000001\n",
		"* * 00000000000000000001\n",
		"* * 007 0000042\n",
		/* positions: hex, relative, long, overflowing, below 0 */
		"0x0 0x1 1\n",
		"0xffffffffffffffff 0 1\n",
		"0x10000000000000000 0 1\n",
		"0X1A * 2\n",
		"0x * 2\n",
		"+0x10 -0x2 3\n",
		"+18446744073709551615 * 1\n",
		"-1000 -50 1\n",
		"-1001 * 1\n",
		"1234567890123456789 * 1\n",
		"12345678901234567890 * 1\n",
		"5x * 1\n",
		/* blanks and tabs */
		"* *  1   2\n",
		"* *\t1\t2\t\n",
		"* * 1 2   \n",
		"* *\t\n",
		"*\t* 1\n",
		"*  * 1\n",
		" * * 1\n",
		"* * 1a\n",
		"* * 1 a\n",
		"* * 12a 1\n",
		"* * -1\n",
		"* * +1\n",
		/* carriage returns */
		"* * 1 2\r\n",
		"* * 12 345\r\n",
		"* * 1 2 \r\n",
		"* *\r\n",
		"* * 1\r2\n",
		"* * 12\r 3\n",
		/* columns: 13 is the limit here */
		"* * 1 2 3 4 5 6 7 8 9 10 11 12 13\n",
		"* * 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n",
		"* * 1 2 3 4 5 6 7 8 9 1 1 1 1 1\n",
		"* * 1 2 3 4 5 6 7 8 9 10 11 12 13 \n",
		/* sums near a narrow cell's limit (the row starts at 0 here) */
		"* * 4294967294\n",
		"* * 4294967295\n",
		"* * 1 4294967295\n",
	};
	for (int crlf = 0; crlf <= 1; crlf++)
		for (int narrow = 0; narrow <= 1; narrow++)
			for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
				setup u = two_pos;
				u.crlf = crlf;
				u.narrow = narrow;
				check_line(lines[i], &u);
			}
	setup u = two_pos;
	cr_assert(check_line("+7 * 1 0 0 0 0 0 0 0 0 1\n", &u));
	cr_assert(check_line("* * 1234567 12345678 123456789 99 4294967294\n", &u));
	cr_assert(!check_line("* * 99999999999999999999\n", &u));
	cr_assert(!check_line("* * 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n", &u));
	cr_assert(!check_line("* * 4294967295\n", &u));   /* reaches CG_WIDE in a narrow row */
	u.narrow = 0;
	cr_assert(check_line("* * 4294967295\n", &u));
	cr_assert(check_line("* * 1234567 12345678 123456789 9999999999999999999\n", &u));
	u.crlf = 1;
	cr_assert(check_line("* * 12 345\r\n", &u));
	u.crlf = 0;
	cr_assert(!check_line("* * 12 345\r\n", &u));
}

Test(cg_fast_line, sums_at_the_limits)
{
	const char *lines[] = {"* * 1 1 1\n", "* * 0 9 0\n", "* * 12345678 0 1\n",
	                       "* * 9999999999999999999 1\n", "* * 0 0 0\n"};
	const uint64_t starts[] = {0, 1, CG_WIDE - 2, CG_WIDE - 1, CG_WIDE - 12345679,
	                           UINT64_MAX - 1, UINT64_MAX - 9999999999999999999ull};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		for (size_t j = 0; j < sizeof starts / sizeof *starts; j++)
			for (int narrow = 0; narrow <= 1; narrow++) {
				if (narrow && starts[j] >= CG_WIDE)
					continue;   /* a narrow cell is below CG_WIDE */
				setup u = two_pos;
				u.narrow = narrow;
				u.start = starts[j];
				check_line(lines[i], &u);
			}
}

Test(cg_fast_line, one_position_and_no_columns)
{
	setup u = two_pos;
	u.n_pos = 1;
	cr_assert(check_line("+3 1 22 333\n", &u));
	cr_assert(check_line("0x10 4444444\n", &u));
	cr_assert(!check_line("+3 * 1\n", &u));
	u.n_cols = 0;
	cr_assert(check_line("+3\n", &u));
	cr_assert(check_line("+3   \n", &u));
	cr_assert(!check_line("+3 1\n", &u));
	u.max_len = 4;
	u.n_cols = 2;
	cr_assert(check_line("+3 1\n", &u));
	cr_assert(!check_line("+3 12\n", &u));
}

/* ---- random lines ---- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(next_rand() % n);
}

/* A decimal of @p digits digits (leading zeros at times). */
static size_t put_dec(char *o, unsigned digits)
{
	for (unsigned i = 0; i < digits; i++)
		o[i] = (char)('0' + (i == 0 && pick(4) ? 1 + pick(9) : pick(10)));
	return digits;
}

static size_t put_pos(char *o)
{
	size_t n = 0;
	switch (pick(8)) {
	case 0:
		o[n++] = '*';
		return n;
	case 1:
		n += (size_t)sprintf(o, "0x%" PRIx64, next_rand() >> pick(64));
		return n;
	case 2:
	case 3:
		o[n++] = pick(2) ? '+' : '-';
		n += put_dec(o + n, 1 + (pick(8) ? 0 : pick(4)));
		return n;
	default:
		return put_dec(o, 1 + pick(pick(6) ? 3 : 21));
	}
}

/* A cost line of the common shapes, at times with one defect. */
static size_t random_line(char *o, int crlf)
{
	size_t n = put_pos(o);
	o[n++] = ' ';
	n += put_pos(o + n);
	unsigned costs = pick(4) ? pick(5) : pick(16);
	for (unsigned c = 0; c < costs; c++) {
		o[n++] = pick(16) ? ' ' : '\t';
		if (!pick(16))
			o[n++] = ' ';
		unsigned r = pick(16);
		n += put_dec(o + n, r < 9 ? 1 : r < 13 ? 2 + pick(3) : r < 15 ? 5 + pick(5) : 10 + pick(12));
	}
	if (!pick(10))
		o[n++] = pick(2) ? ' ' : '\t';
	if (!pick(40))   /* a defect */
		o[pick((unsigned)n) ] = "ax\r-+*\x80 "[pick(8)];
	if (crlf)
		o[n++] = '\r';
	o[n++] = '\n';
	o[n] = 0;
	return n;
}

Test(cg_fast_line, random_lines)
{
	char line[512];
	unsigned taken = 0, total = 0;
	for (int crlf = 0; crlf <= 1; crlf++)
		for (unsigned i = 0; i < 40000; i++) {
			setup u = two_pos;
			u.crlf = crlf || !pick(8);
			u.narrow = (int)pick(2);
			u.n_cols = pick(8) ? 13 : 1 + pick(4);
			u.np[0] = next_rand() >> pick(64);
			u.np[1] = pick(2) ? 0 : next_rand();
			u.start = u.narrow ? (pick(8) ? pick(1000) : CG_WIDE - 1 - pick(100000))
			                   : (pick(8) ? pick(1000) : UINT64_MAX - pick(100000));
			random_line(line, crlf && pick(8));
			taken += (unsigned)check_line(line, &u);
			total++;
		}
	/* most lines must be taken, else the comparisons say little */
	cr_assert_gt(taken, total / 2, "%u of %u taken", taken, total);
}

/* ---- through the library: the text's last cost line at its buffer's end ---- */

Test(cg_fast_line, last_line_at_the_buffer_end)
{
	/* costs of 1 to 12 digits, so that a word at the last one's digits
	 * would pass the end; every length of the last line's tail */
	for (unsigned tail = 1; tail <= 12; tail++) {
		char text[1024];
		int n = snprintf(text, sizeof text,
		                 "events: A B\nfl=a.c\nfn=f\n1 1234567 1\n+1 12345678 22\n");
		uint64_t want_a = 1234567 + 12345678, want_b = 1 + 22, x = 0;
		for (unsigned i = 0; i < tail; i++)
			x = x * 10 + (i % 9) + 1;
		n += snprintf(text + n, sizeof text - (size_t)n, "+1 3 %" PRIu64 "\n", x);
		want_a += 3;
		want_b += x;
		char *buf = malloc((size_t)n);
		cr_assert(buf);
		memcpy(buf, text, (size_t)n);
		profdb_cg *cg = NULL;
		cr_assert_eq(profdb_cg_open_mem(&cg, buf, (size_t)n, NULL), 0, "%s",
		             profdb_error_message());
		cr_assert_eq(profdb_cg_function_count(cg), 1);
		const uint64_t *self = NULL;
		cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, 0, &self), 1);
		cr_assert_eq(self[0], want_a, "tail %u", tail);
		cr_assert_eq(self[1], want_b, "tail %u", tail);
		profdb_cg_detail *d = NULL;
		cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 0), 0, "%s",
		             profdb_error_message());
		cr_assert_eq(profdb_cg_detail_line_count(d), 3);
		profdb_cg_line l;
		cr_assert_eq(profdb_cg_detail_line_at(d, 2, &l), 0);
		cr_assert_eq(l.line, 3);
		cr_assert_eq(l.self[0], 3, "tail %u", tail);
		cr_assert_eq(l.self[1], x, "tail %u", tail);
		profdb_cg_detail_free(d);
		profdb_cg_close(cg);
		free(buf);
	}
}
