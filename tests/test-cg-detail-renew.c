/* A function's detail decoded in the memory of another one
 * (profdb__cg_detail_renew(), the Callgrind writer's recycled records,
 * lib/callgrind/detail.c): whatever the detail held before (more or fewer
 * rows, rows out of order, call sites, jumps), the new one holds exactly
 * what a detail of its own gives. */
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

TC_MAIN
