/* A function's identity and a group's inclusive value (profdb/analysis.h,
 * lib/analysis/functions.c and function-groups.c): Callgrind's recursion
 * and separate-callers suffixes folded, names an apostrophe belongs to left
 * whole, other formats' names unchanged; a group's inclusive value from
 * the call graph collapsed to the groups, on hand-written profiles whose
 * answer is known, and on every real Callgrind sample no group above the
 * total (tests/function-groups-check.sh runs `profdb top` for that). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/functions-internal.h"
#include "common.h"
#include "fixtures-hpctk4.h"

TestSuite(functions, .timeout = 60);

static const char tiny_cg[] = "events: Ir\nfn=main\n1 1\n";
static profdb *cg_db;
static char out[256];

static void open_cg(void)
{
	cg_db = tc_open_mem("tiny.out", tiny_cg, sizeof tiny_cg - 1);
}

static void close_cg(void)
{
	profdb_close(cg_db);
}

static profdb_str str(const char *s)
{
	profdb_str r = {s, s ? strlen(s) : 0};
	return r;
}


static const char *fold(const profdb *db, const char *name)
{
	profdb_str r = profdb_function_fold(db, str(name));
	cr_assert(r.ptr == name || r.len == 0, "the fold points into the name");
	snprintf(out, sizeof out, "%.*s", (int)r.len, r.ptr);
	return out;
}

static const char *cg(const char *name)
{
	return fold(cg_db, name);
}

Test(functions, callgrind_suffixes_fold, .init = open_cg, .fini = close_cg)
{
	/* as callgrind writes them (10_sep_callers2.out, 22/23_recursion*.out) */
	cr_expect_str_eq(cg("fact'2"), "fact");
	cr_expect_str_eq(cg("a'17"), "a");
	cr_expect_str_eq(cg("wcschr'_dl_relocate_object'dl_main"), "wcschr");
	cr_expect_str_eq(cg("msort_with_tmp.part.0'2'qsort_r'qsort"), "msort_with_tmp.part.0");
	cr_expect_str_eq(cg("_PyEval_EvalFrameDefault'0x00000000001b2c40'PyEval_EvalCode'run_mod"),
	                 "_PyEval_EvalFrameDefault");
	cr_expect_str_eq(cg("0x0000000000001050'0x00000000000010c0'_dl_call_fini"),
	                 "0x0000000000001050");
	cr_expect_str_eq(cg("(below main)'__libc_start_main@@GLIBC_2.34'(below main)"),
	                 "(below main)");
	cr_expect_str_eq(cg("0x00012C30'2"), "0x00012C30");
	/* a C++ name, then the suffix (googlecode-issue34.callgrind) */
	cr_expect_str_eq(cg("std::_Rb_tree<int, std::less<int> >::_M_erase(std::_Rb_tree_node<int>*)'2"),
	                 "std::_Rb_tree<int, std::less<int> >::_M_erase(std::_Rb_tree_node<int>*)");
	cr_expect_str_eq(cg("X::operator<<(int)'2'main"), "X::operator<<(int)");
	cr_expect_str_eq(cg("X::operator<(X const&)'main"), "X::operator<(X const&)");
	cr_expect_str_eq(cg("X::operator->() const'3"), "X::operator->() const");
	cr_expect_str_eq(cg("X::operator()()'f'g"), "X::operator()()");
	cr_expect_str_eq(cg("f<decltype(a->b)>()'g"), "f<decltype(a->b)>()");
}

Test(functions, apostrophes_of_the_name_stay, .init = open_cg, .fini = close_cg)
{
	const char *keep[] = {
		"main",
		"operator\"\" _x(char const*)",                    /* c++filt's literal operator */
		"void f<(char)39>()",                              /* a char template argument */
		"<method 'add' of 'set' objects>",                 /* gprof2dot's bzr.callgrind */
		"<&'a str as core::fmt::Display>::fmt",            /* a Rust lifetime */
		"core::ptr::drop_in_place<for<'a> fn(&'a u8)>",
		"parse::<'x'>",                                    /* a Rust char constant */
		"ns::'lambda'(int)::operator()(int) const",         /* libc++abi */
		"'quoted'",
		"trailing'",
		"",
	};
	for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
		cr_expect_str_eq(cg(keep[i]), keep[i]);
	/* with a suffix after them, only the suffix goes */
	cr_expect_str_eq(cg("<method 'add' of 'set' objects>'2"), "<method 'add' of 'set' objects>");
	cr_expect_str_eq(cg("ns::'lambda'(int)::operator()(int) const'main"),
	                 "ns::'lambda'(int)::operator()(int) const");
	/* unbalanced brackets never cut inside them, never crash */
	cr_expect_str_eq(cg("f<a'b"), "f<a'b");
	cr_expect_str_eq(cg(">>>x'y"), ">>>x");
	cr_expect_str_eq(cg("operator"), "operator");
	cr_expect_str_eq(cg("operator<"), "operator<");
}

/* profdb_function_fold() cuts most names with a look at the bytes before
 * their first apostrophe and walks the others: on the names that decide
 * which way (an apostrophe first, last, after "::", a bracket or an
 * operator before it) and on random names of such pieces, its cut must be
 * the walk's. */
static int fold_is_walk(const char *name)
{
	size_t len = strlen(name);
	size_t got = profdb_function_fold(cg_db, str(name)).len;
	size_t walk = profdb__callgrind_fold_walk(name, len);
	if (got != walk)   /* (20 000 names: a message for a failure only) */
		cr_expect(0, "\"%s\": the fold keeps %zu bytes, the walk %zu", name, got, walk);
	return got == walk;
}

Test(functions, fold_is_the_walk, .init = open_cg, .fini = close_cg)
{
	const char *names[] = {
		"f'2", "f'", "'f", "''", "'", "f", "", "f''g", "ns::'x", "ns::'lambda'(int)'main",
		":'x", "a:'x", "f(int)'2", "f<a'b", "f<a>'b", "x)'y", "a[1]'b", "a{b}'c",
		"operator'2", "X::operator+'main", "operator<'x", "X::operator->'y", "f'<a'b>'c",
		"sincosf'_dl_relocate_object'dl_main", "__ieee754_pow_fma'pow@@GLIBC_2.29'float_pow",
	};
	size_t same = 0, n_names = sizeof names / sizeof *names;
	for (size_t i = 0; i < n_names; i++)
		same += (size_t)fold_is_walk(names[i]);
	cr_expect_eq(same, n_names);
	cr_expect_eq(profdb_function_fold(cg_db, str("f(int)'2")).len, 6, "the walk's own cut");
	static const char *const piece[] = {
		"a", "f", "_x", "::", ":", "'", "''", "(", ")", "<", ">", "->", "[", "]", "{", "}",
		"operator", "operator<", "operator()", " ", "0x1", "2", "lambda",
	};
	const size_t n_piece = sizeof piece / sizeof *piece;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	char name[128];
	int t = 0;
	for (; t < 20000; t++) {
		size_t len = 0;
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		for (unsigned k = (unsigned)(seed >> 60); k > 0; k--) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			const char *p = piece[(seed >> 33) % n_piece];
			size_t pl = strlen(p);
			if (len + pl >= sizeof name)
				break;
			memcpy(name + len, p, pl);
			len += pl;
		}
		name[len] = '\0';
		if (!fold_is_walk(name))
			break;   /* (one name is enough to show) */
	}
	cr_expect_eq(t, 20000);
}

#ifdef HAVE_TEST_WRITER
Test(functions, other_formats_unchanged)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
	cr_expect_str_eq(fold(db, "fact'2"), "fact'2");
	cr_expect_str_eq(fold(db, "a'b'c"), "a'b'c");
	profdb_close(db);
	tc_hpctk4_free(&f);
}
#endif

Test(functions, null_and_empty, .init = open_cg, .fini = close_cg)
{
	profdb_str none = {NULL, 0};
	cr_expect_eq(profdb_function_fold(cg_db, none).len, 0);
	cr_expect_eq(profdb_function_fold(NULL, str("f'2")).len, 3);
	profdb_function_id id;
	cr_expect_eq(profdb_function_identity(NULL, 1, &id), -EINVAL);
	cr_expect_eq(profdb_function_identity(cg_db, 1, NULL), -EINVAL);
	cr_expect_eq(profdb_function_identity(cg_db, 0, &id), -ENOENT, "the root is no function");
	cr_expect_lt(profdb_function_identity(cg_db, 99, &id), 0);
}

/* main calls f (100 Ir inclusive); f calls its own second recursion level
 * f'2 (80). f and f'2 are one function: 100, not 180 (the total is 110). A
 * name longer than any buffer of the tool keeps every byte. */
static const char rec_cg[] =
	"events: Ir\n"
	"fl=a.c\n"
	"fn=main\n"
	"1 10\n"
	"cfn=f\n"
	"calls=1 2\n"
	"2 100\n"
	"fn=f\n"
	"2 20\n"
	"cfn=f'2\n"
	"calls=1 2\n"
	"3 80\n"
	"fn=f'2\n"
	"2 80\n";

/* The group of each context by identity: equal identities, one group. */
static size_t group_by_identity(const profdb *db, uint32_t *group_of, size_t n,
                                profdb_function_id *ids)
{
	size_t ng = 0;
	for (uint32_t c = 0; c < n; c++) {   /* ids that no context has: no group */
		profdb_function_id id;
		group_of[c] = PROFDB_NONE;
		if (profdb_function_identity(db, c, &id) < 0)
			continue;
		size_t g = 0;
		for (; g < ng; g++)
			if (ids[g].name.len == id.name.len && !memcmp(ids[g].name.ptr, id.name.ptr, id.name.len) &&
			    ids[g].file.len == id.file.len && !memcmp(ids[g].file.ptr, id.file.ptr, id.file.len) &&
			    ids[g].module.len == id.module.len &&
			    !memcmp(ids[g].module.ptr, id.module.ptr, id.module.len))
				break;
		if (g == ng)
			ids[ng++] = id;
		group_of[c] = (uint32_t)g;
	}
	return ng;
}

static double group_named(const profdb_function_id *ids, const double *v, size_t ng, const char *name)
{
	for (size_t g = 0; g < ng; g++)
		if (ids[g].name.len == strlen(name) && !memcmp(ids[g].name.ptr, name, ids[g].name.len))
			return v[g];
	cr_assert_fail("no group %s", name);
	return 0;
}

Test(functions, recursion_levels_are_one_function)
{
	profdb *db = tc_open_mem("rec.out", rec_cg, sizeof rec_cg - 1);
	int64_t n = profdb_context_count(db);
	cr_assert_gt(n, 0);
	uint32_t *group_of = calloc((size_t)n, sizeof *group_of);
	profdb_function_id ids[16];
	double v[16];
	cr_assert_leq(n, 16);
	size_t ng = group_by_identity(db, group_of, (size_t)n, ids);
	cr_expect_eq(ng, 2, "main and f (f'2 folded): %zu groups", ng);
	cr_assert_eq(profdb_group_inclusive(db, group_of, (size_t)n, 0, 0, v, ng), 0, "%s",
	             profdb_error_message());
	cr_expect_eq(group_named(ids, v, ng, "f"), 100.0);
	cr_expect_eq(group_named(ids, v, ng, "main"), 110.0);
	/* over every profile: the same, one profile */
	cr_assert_eq(profdb_group_inclusive(db, group_of, (size_t)n, PROFDB_NONE, 0, v, ng), 0);
	cr_expect_eq(group_named(ids, v, ng, "f"), 100.0);
	/* each function alone: main 110, f 100 with its call of f'2, f'2 80 */
	size_t nf = 0;
	for (uint32_t c = 0; c < n; c++) {
		profdb_context x;
		group_of[c] = PROFDB_NONE;
		if (profdb_context_get(db, c, &x) == 0 && x.type == PROFDB_CTX_FUNCTION)
			group_of[c] = (uint32_t)nf++;
	}
	cr_assert_eq(nf, 3);
	cr_assert_eq(profdb_group_inclusive(db, group_of, (size_t)n, 0, 0, v, nf), 0);
	cr_expect(v[0] == 110 && v[1] == 100 && v[2] == 80, "%g %g %g", v[0], v[1], v[2]);
	/* no context in a group: every group 0 */
	cr_assert_eq(profdb_group_inclusive(db, group_of, 0, 0, 0, v, nf), 0);
	cr_expect(v[0] == 0 && v[1] == 0 && v[2] == 0);
	/* the checks */
	cr_expect_eq(profdb_group_inclusive(db, group_of, (size_t)n, 0, 0, v, 2), -EINVAL,
	             "a group index past n_groups");
	cr_expect_eq(profdb_group_inclusive(db, NULL, (size_t)n, 0, 0, v, nf), -EINVAL);
	cr_expect_lt(profdb_group_inclusive(db, group_of, (size_t)n, 5, 0, v, nf), 0, "no profile 5");
	free(group_of);
	profdb_close(db);
}

/* On a calling-context tree: f -> g -> f (the inner f inside the call to
 * g) and f -> f directly: a group's value is its outermost inclusive. */
#ifdef HAVE_TEST_WRITER
Test(functions, tree_recursion_counts_once)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
	int64_t n = 4 * profdb_context_count(db) + 64;   /* ids need not be dense */
	cr_assert_gt(n, 64);
	uint32_t *group_of = calloc((size_t)n, sizeof *group_of);
	profdb_function_id *ids = calloc((size_t)n, sizeof *ids);
	double *v = calloc((size_t)n, sizeof *v);
	size_t ng = group_by_identity(db, group_of, (size_t)n, ids);
	cr_assert_eq(profdb_group_inclusive(db, group_of, (size_t)n, 0, 0, v, ng), 0, "%s",
	             profdb_error_message());
	/* each group's value is the sum of its members' inclusive values that
	 * have no member of the group above them */
	for (size_t g = 0; g < ng; g++) {
		double want = 0;
		for (uint32_t c = 0; c < n; c++) {
			if (group_of[c] != g)
				continue;
			profdb_context x;
			int above = 0;
			if (profdb_context_get(db, c, &x) < 0)
				continue;
			for (uint32_t p = x.parent; p != PROFDB_NONE && !above; p = x.parent) {
				above = group_of[p] == g;
				cr_assert_eq(profdb_context_get(db, p, &x), 0);
			}
			profdb_number num;
			if (!above && profdb_inclusive(db, 0, c, 0, &num) > 0)
				want += profdb_number_to_double(num);
		}
		cr_expect_eq(v[g], want, "group %.*s: %g, outermost inclusive %g",
		             (int)ids[g].name.len, ids[g].name.ptr, v[g], want);
	}
	free(group_of);
	free(ids);
	free(v);
	profdb_close(db);
	tc_hpctk4_free(&f);
}
#endif

/* ---- the functions of a call graph (lib/analysis/graph.c) ---- */

static const char graph_cg[] =
	"events: Ir Dr\n"
	"ob=a.out\nfl=a.c\nfn=main\n"
	"1 3 1\n"
	"cfn=work\ncalls=2 5\n2 10 4\n"
	"fn=work\n"
	"5 7 2\n6 3 2\n"
	"fn=idle\n7 0 0\n";

Test(functions, graph_table_is_the_exclusive_values)
{
	profdb *db = tc_open_mem("graph.out", graph_cg, sizeof graph_cg - 1);
	cr_assert_eq(profdb_graph_function_count(db), 3);
	const char *names[] = {"main", "work", "idle"};
	const uint64_t self[3][2] = {{3, 1}, {10, 4}, {0, 0}};
	for (uint32_t i = 0; i < 3; i++) {
		profdb_graph_function f;
		profdb_context c;
		cr_assert_eq(profdb_graph_function_at(db, i, &f), 0);
		cr_expect_eq(f.name.len, strlen(names[i]));
		cr_expect_eq(memcmp(f.name.ptr, names[i], f.name.len), 0, "function %u", i);
		cr_expect_eq(f.file.len, 3);
		cr_expect_eq(f.module.len, 5);
		cr_assert_eq(profdb_context_get(db, f.context, &c), 0);
		cr_expect_eq(c.type, PROFDB_CTX_FUNCTION);
		cr_expect_eq(c.function.ptr, f.name.ptr, "its context is the function's");
		for (uint32_t m = 0; m < 2; m++) {
			profdb_number x, y;
			int r = profdb_graph_exclusive(db, PROFDB_NONE, i, m, &x);
			cr_expect_eq(r, self[i][m] != 0, "function %u metric %u", i, m);
			cr_expect_eq(r ? x.as.u64 : 0, self[i][m]);
			cr_expect_eq(profdb_graph_exclusive(db, 0, i, m, &y), r);
			cr_expect_eq(r ? y.as.u64 : 0, self[i][m]);
			cr_expect_eq(profdb_exclusive(db, 0, f.context, m, &y), r, "as profdb_exclusive");
			if (r)
				cr_expect_eq(y.as.u64, x.as.u64);
		}
	}
	profdb_graph_function f;
	profdb_number x;
	cr_expect_eq(profdb_graph_function_at(db, 3, &f), -ENOENT);
	cr_expect_eq(profdb_graph_exclusive(db, PROFDB_NONE, 3, 0, &x), -ENOENT);
	cr_expect_eq(profdb_graph_exclusive(db, PROFDB_NONE, 0, 2, &x), -ENOENT);
	cr_expect_eq(profdb_graph_exclusive(db, 1, 0, 0, &x), -ENOENT);
	cr_expect_eq(x.type, PROFDB_TYPE_NONE);
	cr_expect_eq(profdb_graph_function_at(db, 0, NULL), -EINVAL);
	cr_expect_eq(profdb_graph_exclusive(db, 0, 0, 0, NULL), -EINVAL);
	cr_expect_eq(profdb_graph_function_count(NULL), -EINVAL);
	profdb_close(db);
}

#ifdef HAVE_TEST_WRITER
Test(functions, graph_table_needs_a_call_graph)
{
	tc_hpctk4_files files;
	profdb *db = tc_hpctk4_open(NULL, &files);
	profdb_graph_function f;
	profdb_number x;
	cr_expect_eq(profdb_graph_function_count(db), -ENOTSUP);
	cr_expect_eq(profdb_graph_function_at(db, 0, &f), -ENOTSUP);
	cr_expect_eq(profdb_graph_exclusive(db, PROFDB_NONE, 0, 0, &x), -ENOTSUP);
	profdb_close(db);
	tc_hpctk4_free(&files);
}
#endif
