/* A function's detail decoded in the memory of another one
 * (profdb__cg_detail_renew(), the Callgrind writer's recycled records,
 * lib/callgrind/detail.c): whatever the detail held before (more or fewer
 * rows, rows out of order, call sites, jumps), the new one holds exactly
 * what a detail of its own gives. And the room a detail of one part
 * takes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "callgrind/detail-internal.h"

/* Three functions unlike each other, in two parts: "big" with rows out of
 * order (a map and a sort), repeated positions, two files, calls and
 * jumps; "small" with a call and no jump; "flat" with one row. */
static const char text[] =
	"# callgrind format\nversion: 1\npart: 1\npositions: instr line\nevents: Ir Dr\n"
	"ob=(1) /bin/app\nfl=(1) big.c\nfn=(1) big\n"
	"0x40 10 5 1\n+8 11 7\n-16 9 3 2\n0x40 10 1\n"
	"fi=(2) inl.h\n0x48 30 4 4\n"
	"cfi=(2)\ncfn=(2) small\ncalls=3 0x90 40\n0x44 12 60 6\n"
	"jump=2 0x60 13\n0x44 12\n"
	"jcnd=1/5 0x30 8\n+4 *\n"
	"fl=(1)\n0x20 5 9 9\n"
	"fl=(2)\nfn=(2)\n0x90 40 30 3\n"
	"cfi=(1)\ncfn=(3) flat\ncalls=1 0x100 50\n+4 41 2 0\n"
	"fl=(1)\nfn=(3)\n0x100 50 2\n"
	"part: 2\n"
	"ob=(1)\nfl=(1)\nfn=(1)\n0x50 20 1 1\n0x40 10 2\n"
	"jump=1 0x40 10\n0x50 20\n"
	"fl=(2)\nfn=(2)\n0x90 40 8\n";

static int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* @p got holds what @p want holds, row for row. */
static void same_detail(const profdb_cg_detail *got, const profdb_cg_detail *want, size_t ne,
                        const char *what)
{
	int64_t n = profdb_cg_detail_line_count(want);
	cr_assert_eq(profdb_cg_detail_line_count(got), n, "%s: lines", what);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_line a, b;
		cr_assert_eq(profdb_cg_detail_line_at(got, i, &a), 0);
		cr_assert_eq(profdb_cg_detail_line_at(want, i, &b), 0);
		cr_assert(same_str(a.file, b.file) && a.line == b.line && a.instr == b.instr,
		          "%s: line %u", what, i);
		for (size_t e = 0; e < ne; e++)
			cr_assert_eq(a.self[e], b.self[e], "%s: line %u event %zu", what, i, e);
	}
	n = profdb_cg_detail_call_count(want);
	cr_assert_eq(profdb_cg_detail_call_count(got), n, "%s: calls", what);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_callsite a, b;
		cr_assert_eq(profdb_cg_detail_call_at(got, i, &a), 0);
		cr_assert_eq(profdb_cg_detail_call_at(want, i, &b), 0);
		cr_assert(a.profile == b.profile && a.callee == b.callee && a.line == b.line &&
		          a.instr == b.instr && same_str(a.file, b.file) && a.count == b.count &&
		          !a.reserved[0] && !a.reserved[1], "%s: call %u", what, i);
		cr_assert_eq(got->calls[i].src, want->calls[i].src);
		for (size_t e = 0; e < ne; e++)
			cr_assert_eq(a.inclusive[e], b.inclusive[e], "%s: call %u event %zu", what, i, e);
	}
	n = profdb_cg_detail_jump_count(want);
	cr_assert_eq(profdb_cg_detail_jump_count(got), n, "%s: jumps", what);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_jump a, b;
		cr_assert_eq(profdb_cg_detail_jump_at(got, i, &a), 0);
		cr_assert_eq(profdb_cg_detail_jump_at(want, i, &b), 0);
		cr_assert(same_str(a.to_file, b.to_file) && same_str(a.to_function, b.to_function),
		          "%s: jump %u", what, i);
		cr_assert(a.from_line == b.from_line && a.from_instr == b.from_instr &&
		          a.to_line == b.to_line && a.to_instr == b.to_instr && a.count == b.count &&
		          a.executed == b.executed && a.conditional == b.conditional &&
		          a.profile == b.profile && !a.reserved[0] && !a.reserved[1],
		          "%s: jump %u", what, i);
	}
}

Test(cg_detail_renew, every_function_in_the_memory_of_every_other)
{
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, text, sizeof text - 1, NULL), 0, "%s",
	             profdb_error_message());
	int64_t nf = profdb_cg_function_count(cg);
	cr_assert_eq(nf, 3);
	size_t ne = 2;
	const uint32_t profiles[] = {PROFDB_CG_ALL, 0, 1};
	int big_seen = 0;
	for (size_t pa = 0; pa < 3; pa++)
		for (uint32_t a = 0; a < nf; a++)
			for (size_t pb = 0; pb < 3; pb++)
				for (uint32_t b = 0; b < nf; b++) {
					profdb_cg_detail *old, *got, *want;
					cr_assert_eq(profdb_cg_detail_new(&old, cg, profiles[pa], a), 0);
					big_seen |= profdb_cg_detail_line_count(old) >= 5 &&
					            profdb_cg_detail_jump_count(old) == 2;
					cr_assert_eq(profdb__cg_detail_renew(&got, cg, profiles[pb], b, old), 0,
					             "%s", profdb_error_message());
					cr_assert_eq(profdb_cg_detail_new(&want, cg, profiles[pb], b), 0);
					char what[64];
					snprintf(what, sizeof what, "%u/%zu in %u/%zu", b, pb, a, pa);
					same_detail(got, want, ne, what);
					/* and once more in the same memory */
					cr_assert_eq(profdb__cg_detail_renew(&got, cg, profiles[pb], b, got), 0);
					same_detail(got, want, ne, what);
					profdb_cg_detail_free(got);
					profdb_cg_detail_free(want);
				}
	cr_assert(big_seen, "the text has the function it was made for");
	profdb_cg_close(cg);
}

/* Rows made in memory that held a longer function's rows, each with
 * costs: "wide" has 300 rows in order with both events; "mixed" 150 rows
 * in order (some with one cost, a 0, or none), then rows of it met again
 * and new rows out of order (the map); "few" 3 rows. Whatever the room
 * held before, a row's costs are its own lines' sums: rows are zeroed as
 * they come, past the 64 zeroed at a time and past the rows a function
 * can have. */
static char *rows_text(void)
{
	size_t cap = 64 * 1024, len = 0;
	char *t = malloc(cap);
	cr_assert_not_null(t);
	len += (size_t)snprintf(t + len, cap - len, "# callgrind format\nversion: 1\n"
	                        "positions: line\nevents: A B\nfl=a.c\nfn=wide\n");
	for (int i = 1; i <= 300; i++)
		len += (size_t)snprintf(t + len, cap - len, "%d %d %d\n", i, 1000 + i, 2000 + i);
	len += (size_t)snprintf(t + len, cap - len, "fn=mixed\n");
	for (int i = 1; i <= 150; i++)   /* line i: A = i, B = 2 i but on every 3rd line */
		len += (size_t)(i % 7 == 0 ? snprintf(t + len, cap - len, "%d\n", i)
		              : i % 3 == 0 ? snprintf(t + len, cap - len, "%d %d %d\n", i, i, 2 * i)
		              : i % 5 == 0 ? snprintf(t + len, cap - len, "%d 0 %d\n", i, 2 * i)
		                           : snprintf(t + len, cap - len, "%d %d\n", i, i));
	for (int i = 140; i >= 100; i -= 4)   /* met again: A += 1000 */
		len += (size_t)snprintf(t + len, cap - len, "%d 1000\n", i);
	for (int i = 199; i > 150; i -= 2)    /* new, out of order: A = i */
		len += (size_t)snprintf(t + len, cap - len, "%d %d\n", i, i);
	len += (size_t)snprintf(t + len, cap - len, "fn=few\n7 1\n8 0 2\n9 3 3\n");
	cr_assert_lt(len, cap);
	return t;
}

/* The costs line @p line of "mixed" must have. */
static void mixed_costs(uint64_t line, uint64_t *a, uint64_t *b)
{
	*a = *b = 0;
	if (line > 150) {
		*a = line;
		return;
	}
	if (line % 7 != 0)
		*a = line % 5 == 0 && line % 3 != 0 ? 0 : line;
	if (line % 7 != 0 && (line % 3 == 0 || line % 5 == 0))
		*b = 2 * line;
	if (line >= 100 && line <= 140 && (140 - line) % 4 == 0)
		*a += 1000;
}

Test(cg_detail_renew, rows_in_memory_that_held_more_rows)
{
	char *rows = rows_text();
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, rows, strlen(rows), NULL), 0, "%s",
	             profdb_error_message());
	profdb_cg_detail *d;
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 0), 0);   /* wide */
	cr_assert_eq(profdb_cg_detail_line_count(d), 300);
	for (int round = 0; round < 2; round++) {
		cr_assert_eq(profdb__cg_detail_renew(&d, cg, PROFDB_CG_ALL, 1, d), 0, "%s",
		             profdb_error_message());
		cr_assert_eq(profdb_cg_detail_line_count(d), 150 + 25);
		for (uint32_t i = 0; i < 175; i++) {
			profdb_cg_line l;
			uint64_t a, b;
			cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
			cr_assert_eq(l.line, i < 150 ? i + 1 : 151 + 2 * (i - 150));
			mixed_costs(l.line, &a, &b);
			cr_assert(l.self[0] == a && l.self[1] == b, "line %" PRIu64 ": %" PRIu64 " %" PRIu64
			          " (want %" PRIu64 " %" PRIu64 ")", l.line, l.self[0], l.self[1], a, b);
		}
		cr_assert_eq(profdb__cg_detail_renew(&d, cg, PROFDB_CG_ALL, 2, d), 0);   /* few */
		const uint64_t want[3][2] = {{1, 0}, {0, 2}, {3, 3}};
		cr_assert_eq(profdb_cg_detail_line_count(d), 3);
		for (uint32_t i = 0; i < 3; i++) {
			profdb_cg_line l;
			cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
			cr_assert(l.line == 7 + i && l.self[0] == want[i][0] && l.self[1] == want[i][1],
			          "few, row %u", i);
		}
		cr_assert_eq(profdb__cg_detail_renew(&d, cg, PROFDB_CG_ALL, 0, d), 0);   /* wide again */
		for (uint32_t i = 0; i < 300; i++) {
			profdb_cg_line l;
			cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
			cr_assert(l.self[0] == 1001 + i && l.self[1] == 2001 + i, "wide, row %u", i);
		}
	}
	profdb_cg_detail_free(d);
	profdb_cg_close(cg);
	free(rows);
}

/* A function or profile that does not exist: the error, and the old
 * detail freed (the ASan build checks that). */
Test(cg_detail_renew, refusals_free_the_old_detail)
{
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, text, sizeof text - 1, NULL), 0);
	profdb_cg_detail *old, *got = (profdb_cg_detail *)1;
	cr_assert_eq(profdb_cg_detail_new(&old, cg, PROFDB_CG_ALL, 0), 0);
	cr_assert_eq(profdb__cg_detail_renew(&got, cg, PROFDB_CG_ALL, 3, old), -ENOENT);
	cr_assert_null(got);
	cr_assert_eq(profdb_cg_detail_new(&old, cg, PROFDB_CG_ALL, 0), 0);
	cr_assert_eq(profdb__cg_detail_renew(&got, cg, 2, 0, old), -ENOENT);
	cr_assert_null(got);
	cr_assert_eq(profdb__cg_detail_renew(&got, cg, 0, 1, NULL), 0);
	cr_assert_gt(profdb_cg_detail_line_count(got), 0);
	profdb_cg_detail_free(got);
	profdb_cg_close(cg);
}

/* A function with blocks in many parts: the detail of one part holds
 * room for about that part's rows, and the detail of every part for all
 * of them (a walk decodes a function part by part, each detail held until
 * they are merged: room for every part's rows in each would make P parts
 * cost P times P). The rows are the part's all the same. */
Test(cg_detail_renew, one_part_of_many_holds_its_own_rows)
{
	enum { PARTS = 64, LINES = 8 };
	char *t = malloc(PARTS * (32 + LINES * 8));
	size_t k = (size_t)sprintf(t, "events: A\n");
	for (int p = 0; p < PARTS; p++) {
		k += (size_t)sprintf(t + k, "part: %d\nfn=(1)%s\n", p + 1, p ? "" : " f");
		for (int l = 1; l <= LINES; l++)
			k += (size_t)sprintf(t + k, "%d %d\n", l, p * LINES + l);
	}
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, t, k, NULL), 0, "%s", profdb_error_message());
	/* room for the rows of every part: LINES per part, of a dline and ne + 1 costs */
	size_t all_rows = (size_t)PARTS * LINES * (sizeof(dline) + 2 * sizeof(uint64_t));
	for (uint32_t p = 0; p < PARTS; p += 21) {
		profdb_cg_detail *d;   /* (profile 0 is the text before "part: 1") */
		cr_assert_eq(profdb_cg_detail_new(&d, cg, p + 1, 0), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_cg_detail_line_count(d), LINES);
		for (uint32_t i = 0; i < LINES; i++) {
			profdb_cg_line l;
			cr_assert_eq(profdb_cg_detail_line_at(d, i, &l), 0);
			cr_assert(l.line == i + 1 && l.self[0] == p * LINES + i + 1, "part %u row %u", p, i);
		}
		cr_assert_lt(profdb__cg_detail_room(d), all_rows / 8, "part %u: %zu bytes", p,
		             profdb__cg_detail_room(d));
		profdb_cg_detail_free(d);
	}
	profdb_cg_close(cg);
	free(t);
}

TC_MAIN
