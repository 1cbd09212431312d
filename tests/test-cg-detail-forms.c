/* The forms of a block's lines as a function's detail reads them
 * (lib/callgrind/detail.c): the common cost, calls= and jump lines of a
 * text that ends with a '\n' are read on the fast paths, which read no
 * further than a '\n'; a text without a final '\n' is read by the token
 * reader alone. Each text below is decoded both ways (as given, and with
 * a comment after its last '\n') and must give the same rows, call sites
 * and jumps, which are also checked against the values they must have:
 * long and hex numbers (at the fast paths' limits and past them), blanks,
 * tabs and carriage returns, costs beyond the columns, rows met again in
 * and out of order, costs near 2^64; and every kind of line with "\r\n"
 * line ends, which the fast paths read as they read a '\n'. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static profdb_cg *open_text(const char *text, size_t len)
{
	profdb_cg *cg = NULL;
	int r = profdb_cg_open_mem(&cg, text, len, NULL);
	cr_assert_eq(r, 0, "open: %d %s", r, profdb_error_message());
	return cg;
}

static uint32_t fn_named(const profdb_cg *cg, const char *name)
{
	int64_t n = profdb_cg_function_count(cg);
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		if (f.name.len == strlen(name) && !memcmp(f.name.ptr, name, f.name.len))
			return (uint32_t)i;
	}
	cr_assert_fail("no function %s", name);
	return 0;
}

static int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* The details of @p a and @p b hold the same rows, call sites and jumps. */
static void same_detail(const profdb_cg_detail *a, const profdb_cg_detail *b, uint32_t ne)
{
	int64_t n = profdb_cg_detail_line_count(a);
	cr_assert_eq(profdb_cg_detail_line_count(b), n);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_line x, y;
		cr_assert_eq(profdb_cg_detail_line_at(a, i, &x), 0);
		cr_assert_eq(profdb_cg_detail_line_at(b, i, &y), 0);
		cr_assert(x.line == y.line && x.instr == y.instr && same_str(x.file, y.file), "row %u", i);
		for (uint32_t e = 0; e < ne; e++)
			cr_assert_eq(x.self[e], y.self[e], "row %u event %u", i, e);
	}
	n = profdb_cg_detail_call_count(a);
	cr_assert_eq(profdb_cg_detail_call_count(b), n);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_callsite x, y;
		cr_assert_eq(profdb_cg_detail_call_at(a, i, &x), 0);
		cr_assert_eq(profdb_cg_detail_call_at(b, i, &y), 0);
		cr_assert(x.line == y.line && x.instr == y.instr && x.count == y.count &&
		          x.callee == y.callee && same_str(x.file, y.file), "call %u", i);
		for (uint32_t e = 0; e < ne; e++)
			cr_assert_eq(x.inclusive[e], y.inclusive[e], "call %u event %u", i, e);
	}
	n = profdb_cg_detail_jump_count(a);
	cr_assert_eq(profdb_cg_detail_jump_count(b), n);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_jump x, y;
		cr_assert_eq(profdb_cg_detail_jump_at(a, i, &x), 0);
		cr_assert_eq(profdb_cg_detail_jump_at(b, i, &y), 0);
		cr_assert(x.from_line == y.from_line && x.from_instr == y.from_instr &&
		          x.to_line == y.to_line && x.to_instr == y.to_instr && x.count == y.count &&
		          x.executed == y.executed && x.conditional == y.conditional &&
		          same_str(x.to_file, y.to_file) && same_str(x.to_function, y.to_function),
		          "jump %u", i);
	}
}

/* Function @p name of @p text (ending with '\n') decoded on the fast paths
 * and by the token reader: the same detail. Returns the fast one (*cg
 * its handle, to close). */
static profdb_cg_detail *both_ways(const char *text, const char *name, profdb_cg **cg)
{
	size_t len = strlen(text);
	cr_assert(len > 0 && text[len - 1] == '\n');
	char *slow_text = malloc(len + 2);
	cr_assert_not_null(slow_text);
	memcpy(slow_text, text, len);
	memcpy(slow_text + len, "#", 2);   /* a last line without its '\n' */
	profdb_cg *fast = open_text(text, len), *slow = open_text(slow_text, len + 1);
	profdb_cg_detail *a, *b;
	cr_assert_eq(profdb_cg_detail_new(&a, fast, PROFDB_CG_ALL, fn_named(fast, name)), 0, "%s",
	             profdb_error_message());
	cr_assert_eq(profdb_cg_detail_new(&b, slow, PROFDB_CG_ALL, fn_named(slow, name)), 0, "%s",
	             profdb_error_message());
	same_detail(a, b, (uint32_t)profdb_cg_event_count(fast));
	profdb_cg_detail_free(b);
	profdb_cg_close(slow);
	free(slow_text);
	*cg = fast;
	return a;
}

/* Rows @p want (line, instr, then @p ne costs each) of function "f" of
 * @p text, read both ways (both_ways()). */
static void rows_are(const char *text, const uint64_t *want, uint32_t n, uint32_t ne)
{
	profdb_cg *cg;
	profdb_cg_detail *d = both_ways(text, "f", &cg);
	cr_assert_eq(profdb_cg_detail_line_count(d), n);
	for (uint32_t i = 0; i < n; i++) {
		const uint64_t *w = want + (size_t)i * (2 + ne);
		profdb_cg_line l;
		cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
		cr_assert(l.line == w[0] && l.instr == w[1], "row %u: line %" PRIu64 " instr %" PRIu64,
		          i, l.line, l.instr);
		for (uint32_t e = 0; e < ne; e++)
			cr_assert_eq(l.self[e], w[2 + e], "row %u event %u: %" PRIu64, i, e, l.self[e]);
	}
	profdb_cg_detail_free(d);
	profdb_cg_close(cg);
}

Test(cg_detail_forms, numbers_at_the_limits)
{
	/* 19 digits (fast), 20 digits with leading zeros (token reader), 16
	 * hex digits (fast) and 17 with a leading zero (token reader), hex
	 * in upper case, relative positions, '*' */
	const char *text = "events: A B\npositions: instr line\nfn=f\n"
	                   "0x10 3 1234567890123456789 2\n"
	                   "+2 +1 00000000000000000007 9999999999999999999\n"
	                   "0xFFFFFFFFFFFFFFF0 7 1 1\n"
	                   "0x0ffffffffffffffff 8 2\n"
	                   "0X20 -8 3 4\n"
	                   "* * 5 6\n";
	static const uint64_t want[] = {
		0, 0x20, 8, 10,   3, 0x10, 1234567890123456789ULL, 2,
		4, 0x12, 7, 9999999999999999999ULL,   7, 0xFFFFFFFFFFFFFFF0ULL, 1, 1,
		8, 0xffffffffffffffffULL, 2, 0,
	};
	rows_are(text, want, 5, 2);
}

Test(cg_detail_forms, blanks_tabs_and_carriage_returns)
{
	/* one blank, two, a tab between the positions, trailing blanks and
	 * CRs, a blank-only line, costs beyond the columns (warned at open,
	 * ignored), a cost line with no costs */
	const char *text = "events: A B\npositions: instr line\nfn=f\n"
	                   "0x10 3 1 2\r\n"
	                   "+2 +1 4 \t\n"
	                   "+2  * 5 6\n"
	                   "+2\t-1 7 8\n"
	                   "+2 * 1 1 1\n"
	                   "   \n"
	                   "+2 *\n"
	                   "0x10 3\t3  3  \n";
	static const uint64_t want[] = {
		3, 0x10, 4, 5,   3, 0x16, 7, 8,   3, 0x18, 1, 1,   3, 0x1a, 0, 0,
		4, 0x12, 4, 0,   4, 0x14, 5, 6,
	};
	rows_are(text, want, 6, 2);
}

Test(cg_detail_forms, rows_again_in_and_out_of_order)
{
	/* a row met again right after itself, after others (the map), and
	 * in another file; one position column */
	const char *text = "events: A\nfl=a.c\nfn=f\n"
	                   "1 1\n1 2\n2 4\n3 8\n2 16\nfi=b.c\n2 32\nfe=a.c\n1 64\n";
	profdb_cg *cg;
	profdb_cg_detail *d = both_ways(text, "f", &cg);
	cr_assert_eq(profdb_cg_detail_line_count(d), 4);
	uint64_t got[4] = {0};
	for (uint32_t i = 0; i < 4; i++) {
		profdb_cg_line l;
		cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
		int b = l.file.len == 3 && !memcmp(l.file.ptr, "b.c", 3);
		got[b ? 3 : l.line - 1] = l.self[0];
	}
	cr_assert(got[0] == 67 && got[1] == 20 && got[2] == 8 && got[3] == 32,
	          "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, got[0], got[1], got[2], got[3]);
	profdb_cg_detail_free(d);
	profdb_cg_close(cg);
}

/* Rows that come in order, each new (stored into the row as it is made
 * on the fast path, added to by the token reader): 100 rows over three
 * events, with fewer costs than events, zero costs and a line of no
 * cost; the row of a line met again after it adds. */
Test(cg_detail_forms, new_rows_in_order)
{
	char text[8192];
	size_t len = (size_t)snprintf(text, sizeof text, "events: A B C\nfl=a.c\nfn=f\n");
	uint64_t want[100 * 5];
	for (uint32_t i = 0; i < 100; i++) {
		uint64_t a = i % 4 ? i : 0, b = i % 3 ? 2 * i : 0, c = i % 5 ? 0 : 3 * i + 7;
		uint64_t *w = want + (size_t)i * 5;
		w[0] = 10 + i, w[1] = 0, w[2] = a, w[3] = b, w[4] = c;
		len += (size_t)(c ? snprintf(text + len, sizeof text - len, "%u %" PRIu64 " %" PRIu64
		                             " %" PRIu64 "\n", 10 + i, a, b, c)
		              : b ? snprintf(text + len, sizeof text - len, "%u %" PRIu64 " %" PRIu64
		                             "\n", 10 + i, a, b)
		              : a ? snprintf(text + len, sizeof text - len, "%u %" PRIu64 "\n", 10 + i, a)
		                  : snprintf(text + len, sizeof text - len, "%u\n", 10 + i));
		if (i % 9 == 1) {   /* the same line again */
			len += (size_t)snprintf(text + len, sizeof text - len, "%u 1 1 1\n", 10 + i);
			w[2]++, w[3]++, w[4]++;
		}
	}
	cr_assert_lt(len, sizeof text);
	rows_are(text, want, 100, 3);
}

Test(cg_detail_forms, calls_and_jumps)
{
	/* calls= with a count, again at the same place, a blank before the count (token
	 * reader); jump=, jcnd=A/B, the spec's jcnd=EXE COUNT, a target with
	 * fewer columns, relative and '*' targets, a target in
	 * another file and function; cfn=, cfi=, cob= passed over */
	const char *text = "events: A B\npositions: instr line\n"
	                   "ob=o\nfl=a.c\nfn=f\n"
	                   "0x10 3 1\n"
	                   "cob=o\ncfi=a.c\ncfn=g\n"
	                   "calls=2 0x40 9\n+2 +1 5 6\n"
	                   "calls=3 0x40 9\n* * 1\n"
	                   "calls= 4 0x40 9\n+2 * 2 2\n"
	                   "jump=5 0x10 3\n"
	                   "jcnd=2/9 +4 *\n"
	                   "jcnd=9 3 0x30 4\n"
	                   "jump=6 0x18\n"
	                   "jfi=b.c\njfn=h\njump=1 0x50 20\n"
	                   "jump=7 * -1\n"
	                   "+2 * 1 1\n"
	                   "fn=g\n0x40 9 8 8\n"
	                   "fl=b.c\nfn=h\n0x50 20 0 0\n";
	profdb_cg *cg;
	profdb_cg_detail *d = both_ways(text, "f", &cg);
	cr_assert_eq(profdb_cg_detail_call_count(d), 3);
	static const uint64_t calls[3][5] = {   /* line, instr, count, A, B */
		{4, 0x12, 2, 5, 6}, {4, 0x12, 3, 1, 0}, {4, 0x14, 4, 2, 2},
	};
	for (uint32_t i = 0; i < 3; i++) {
		profdb_cg_callsite s;
		cr_assert_eq(profdb_cg_detail_call_at(d, i, &s), 0);
		cr_assert(s.line == calls[i][0] && s.instr == calls[i][1] && s.count == calls[i][2] &&
		          s.inclusive[0] == calls[i][3] && s.inclusive[1] == calls[i][4], "call %u", i);
	}
	cr_assert_eq(profdb_cg_detail_jump_count(d), 6);
	static const uint64_t jumps[6][5] = {   /* to line, to instr, count, executed, cond */
		{3, 0x10, 5, 5, 0}, {4, 0x18, 2, 9, 1}, {4, 0x30, 3, 9, 1},
		{4, 0x18, 6, 6, 0}, {20, 0x50, 1, 1, 0}, {3, 0x14, 7, 7, 0},
	};
	for (uint32_t i = 0; i < 6; i++) {
		profdb_cg_jump j;
		cr_assert_eq(profdb_cg_detail_jump_at(d, i, &j), 0);
		cr_assert(j.to_line == jumps[i][0] && j.to_instr == jumps[i][1] &&
		          j.count == jumps[i][2] && j.executed == jumps[i][3] &&
		          j.conditional == (int)jumps[i][4] && j.from_instr == 0x14 && j.from_line == 4,
		          "jump %u: to %" PRIu64 " %" PRIu64 " count %" PRIu64 " %" PRIu64, i,
		          j.to_line, j.to_instr, j.count, j.executed);
		int far = i == 4;
		cr_assert(same_str(j.to_file, (profdb_str){far ? "b.c" : "a.c", 3}), "jump %u", i);
		cr_assert(same_str(j.to_function, (profdb_str){far ? "h" : "f", 1}), "jump %u", i);
	}
	profdb_cg_detail_free(d);
	profdb_cg_close(cg);
}

Test(cg_detail_forms, costs_near_2_64)
{
	/* rows near 2^64 (sums of lines each below 2^63, over parts), their
	 * sum over the rows 2^64 - 1 */
	const char *text = "events: A\nfn=f\n"
	                   "1 9223372036854775807\n1 9223372036854775798\n"
	                   "part: 2\nevents: A\nfn=f\n2 4\n"
	                   "part: 3\nevents: A\nfn=f\n1 6\n";
	static const uint64_t want[] = {1, 0, UINT64_MAX - 4, 2, 0, 4};
	rows_are(text, want, 2, 1);

	/* A text changed after the open (against the contract) so that a row
	 * passes 2^64: an error naming the line, never a wrapped row. */
	for (int slow = 0; slow < 2; slow++) {
		profdb_cg *cg;
		profdb_cg_detail *d;
		char t[128];
		int n = snprintf(t, sizeof t, "events: A\nfn=f\n1 9000000000000000000\n"
		                              "1 9000000000000000000\n%s", slow ? "#" : "");
		cg = open_text(t, (size_t)n);
		char *second = t + 37;   /* the second cost line: 9.9 * 10^18 */
		cr_assert(!memcmp(second, "1 9000", 6));
		second[3] = '9';
		cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 0), -EBADMSG);
		cr_assert(strstr(profdb_error_message(), "offset 37: line cost overflows 64 bits"), "%s",
		          profdb_error_message());
		profdb_cg_close(cg);
	}
}

/* @p text with each '\n' made "\r\n" (to free). */
static char *crlf_of(const char *text)
{
	size_t n = strlen(text), lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += text[i] == '\n';
	char *out = malloc(n + lines + 1), *q = out;
	cr_assert_not_null(out);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\n')
			*q++ = '\r';
		*q++ = text[i];
	}
	*q = 0;
	return out;
}

Test(cg_detail_forms, crlf_line_ends)
{
	/* every kind of line in a block: cost lines (one-digit costs, long
	 * and hex numbers, relative positions, '*', trailing blanks, no
	 * costs), calls= with its cost line, cfn=, cfi=, cob=, jump= and
	 * jcnd= with whole and short targets and trailing blanks, jfi=,
	 * jfn=, fi=, fe=, comments and blank lines: with "\r\n" line ends the
	 * same detail as with '\n' ones, on the fast paths and on the token
	 * reader (both_ways()) */
	const char *text = "events: A B\npositions: instr line\n"
	                   "ob=o\nfl=a.c\nfn=f\n"
	                   "0x10 3 1 2\n"
	                   "+2 +1 4 \t\n"
	                   "+2 * 1234567890123456789 0x20\n"
	                   "+2 -1 0 7  \n"
	                   "+2 *\n"
	                   "# a comment\n"
	                   "\n"
	                   "cob=o\ncfi=a.c\ncfn=g\n"
	                   "calls=2 0x40 9\n+2 +1 5 6\n"
	                   "calls=3 0x40 9 \n* * 1\n"
	                   "jump=5 0x10 3\n"
	                   "jcnd=2/9 +4 * \n"
	                   "jump=6 0x18\n"
	                   "jfi=b.c\njfn=h\njump=1 0x50 20\n"
	                   "fi=b.c\n+2 * 3 3\n"
	                   "fe=a.c\n+2 * 1\n"
	                   "fn=g\n0x40 9 8 8\n"
	                   "fl=b.c\nfn=h\n0x50 20 0 0\n"
	                   "fl=a.c\nfn=f\n0x10 3 1 1\n";
	char *crlf = crlf_of(text);
	profdb_cg *lf_cg, *crlf_cg;
	profdb_cg_detail *lf = both_ways(text, "f", &lf_cg);
	profdb_cg_detail *cr = both_ways(crlf, "f", &crlf_cg);
	cr_assert_eq(profdb_cg_event_count(crlf_cg), 2);
	same_detail(lf, cr, 2);
	cr_assert_eq(profdb_cg_detail_call_count(cr), 2);
	cr_assert_eq(profdb_cg_detail_jump_count(cr), 4);
	static const uint64_t want[] = {
		3, 0x10, 2, 3,   3, 0x16, 0, 7,   3, 0x18, 0, 0,   4, 0x12, 4, 0,
		4, 0x14, 1234567890123456789ULL, 0x20,   4, 0x1c, 3, 3,   4, 0x1e, 1, 0,
	};
	rows_are(crlf, want, 7, 2);
	profdb_cg_detail_free(lf);
	profdb_cg_detail_free(cr);
	profdb_cg_close(lf_cg);
	profdb_cg_close(crlf_cg);
	free(crlf);
}

/* Rows of one line in and out of address order: each line's rows by
 * instruction, whether they came so (line 6, left as they are) or not
 * (line 5, sorted). */
Test(cg_detail_forms, rows_of_one_line_by_instruction)
{
	const char *text = "events: A\npositions: instr line\nfl=a.c\nfn=f\n"
	                   "0x30 5 1\n0x10 5 2\n0x20 6 3\n0x40 6 4\n0x18 7 5\n";
	profdb_cg *cg;
	profdb_cg_detail *d = both_ways(text, "f", &cg);
	static const uint64_t want[5][3] = {   /* line, instr, A */
		{5, 0x10, 2}, {5, 0x30, 1}, {6, 0x20, 3}, {6, 0x40, 4}, {7, 0x18, 5},
	};
	cr_assert_eq(profdb_cg_detail_line_count(d), 5);
	for (uint32_t i = 0; i < 5; i++) {
		profdb_cg_line l;
		cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
		cr_assert(l.line == want[i][0] && l.instr == want[i][1] && l.self[0] == want[i][2],
		          "row %u: %" PRIu64 " 0x%" PRIx64 " %" PRIu64, i, l.line, l.instr, l.self[0]);
	}
	profdb_cg_detail_free(d);
	profdb_cg_close(cg);
}
