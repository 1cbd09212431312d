/* Matching two databases (profdb_match_*, lib/analysis/match.c; doc/model.md
 * "Matching two databases"): two generated HPCToolkit databases of one
 * program with known differences (a changed cost, a call path only in A,
 * one only in B, two siblings with one key), a Callgrind pair, one program
 * written as an HPCToolkit database and as a Callgrind profile, the
 * options and errors, and every real sample matched against itself (every
 * node paired with itself, every difference 0). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb-config.h"
#include "common.h"
#include "writer.h"

TestSuite(match);
TestSuite(match_real, .timeout = 900);

/* ---- a program as an HPCToolkit 4.0 database ------------------------------------------ */

/* A function context: name, caller (index or -1: below the entry point),
 * self and inclusive cost. */
typedef struct fn {
	const char *name;
	int caller;
	double self, incl;
} fn;

enum { MAXFN = 16 };

/* One entry point, one function context per row of @p p (the same name
 * twice makes two contexts of one function), metric "Ir" with a function
 * (exclusive) and an execution (inclusive) scope, a summary profile and one
 * thread holding the same values. */
static profdb *open_hpctk(const fn *p, int n, tw_blob f[TW_NFILES])
{
	static const tw_scope scopes[] = {{"point", 1, 255}, {"function", 3, 0}, {"execution", 2, 255}};
	static const tw_propagation props[] = {{0, 0}, {1, 1}, {2, 2}};
	static const tw_summary sums[] = {{0, "$$", 0, 0}, {1, "$$", 0, 1}, {2, "$$", 0, 2}};
	static const tw_metric metrics[] = {{"Ir", 3, props, 3, sums}};
	static const tw_file files[] = {{"/build/a/prog.c", 0}};
	static tw_function fns[MAXFN];
	static tw_context ctx[MAXFN + 1];
	static tw_value vals[3 * MAXFN + 2];
	cr_assert_leq(n, MAXFN);
	int nf = 0, fidx[MAXFN];
	for (int i = 0; i < n; i++) {   /* one function record per name */
		fidx[i] = -1;
		for (int j = 0; j < nf; j++)
			if (!strcmp(fns[j].name, p[i].name))
				fidx[i] = j;
		if (fidx[i] < 0) {
			fns[nf] = (tw_function){p[i].name, -1, 0, 0, (uint32_t)(10 * nf + 10)};
			fidx[i] = nf++;
		}
	}
	double total = 0;
	for (int i = 0; i < n; i++)
		total += p[i].caller < 0 ? p[i].incl : 0;
	size_t nv = 0;
	memset(ctx, 0, sizeof ctx);
	ctx[0] = (tw_context){.id = 1, .parent = -1, .function = -1, .file = -1, .module = -1,
	                      .entry_point = 1};
	vals[nv++] = (tw_value){1, 2, total};
	vals[nv++] = (tw_value){0, 2, total};
	for (int i = 0; i < n; i++) {
		ctx[i + 1] = (tw_context){.id = (uint32_t)i + 2, .parent = p[i].caller + 1,
		                          .relation = 1, .lexical_type = 0, .function = fidx[i],
		                          .file = 0, .line = fns[fidx[i]].line, .module = -1};
		vals[nv++] = (tw_value){(uint32_t)i + 2, 0, p[i].self};
		vals[nv++] = (tw_value){(uint32_t)i + 2, 1, p[i].self};
		vals[nv++] = (tw_value){(uint32_t)i + 2, 2, p[i].incl};
	}
	static const tw_id ids[] = {{1, 0, 0, 0}, {3, 0, 0, 0}};
	tw_profile profiles[2] = {{1, 0, NULL, nv, vals}, {0, 2, ids, nv, vals}};
	tw_hpctk4 d = {0};
	d.title = "prog";
	d.n_scopes = 3;
	d.scopes = scopes;
	d.n_metrics = 1;
	d.metrics = metrics;
	d.n_files = 1;
	d.files = files;
	d.n_functions = (uint32_t)nf;
	d.functions = fns;
	d.n_contexts = (uint32_t)n + 1;
	d.contexts = ctx;
	d.n_profiles = 2;
	d.profiles = profiles;
	d.no_trace = 1;
	cr_assert_eq(tw_hpctk4_write(&d, f), 0);
	profdb_input in[] = {{"meta.db", f[TW_META].data, f[TW_META].size},
	                     {"profile.db", f[TW_PROFILE].data, f[TW_PROFILE].size},
	                     {"cct.db", f[TW_CCT].data, f[TW_CCT].size}};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, in, 3, NULL), 0, "%s", profdb_error_message());
	return db;
}

static profdb *open_text(const char *text)
{
	profdb_input in = {"callgrind.out.1", text, strlen(text)};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	return db;
}

/* ---- what a row is ---------------------------------------------------------------------- */

typedef struct want {
	const char *name;           /* the node's name (either side) */
	char in;                    /* 'A', 'B' or '=' (both) */
	double exc_a, inc_a, exc_b, inc_b;
} want;

static profdb_str row_name(const profdb_match *m, const profdb_pair *p)
{
	profdb_node n;
	int s = p->a == PROFDB_NONE;
	cr_assert_eq(profdb_tree_get(profdb_match_tree(m, s), s ? p->b : p->a, &n), 0);
	return n.name;
}

static int str_is(profdb_str s, const char *c)
{
	return s.len == strlen(c) && (s.len == 0 || memcmp(s.ptr, c, s.len) == 0);
}

/* Rows 1.. of @p m must be @p w, in order (row 0 is the two roots). */
static void check_rows(const profdb_match *m, const want *w, size_t n)
{
	cr_assert_eq(profdb_match_count(m), (int64_t)n + 1);
	for (size_t i = 0; i < n; i++) {
		profdb_pair p;
		profdb_pair_values v;
		uint64_t row = i + 1;
		cr_assert_eq(profdb_match_at(m, row, &p), 0);
		cr_assert_eq(profdb_match_values(m, row, 0, &v), 0);
		profdb_str name = row_name(m, &p);
		cr_assert(str_is(name, w[i].name), "row %zu: %.*s, want %s", row, (int)name.len,
		          name.ptr, w[i].name);
		char in = p.a == PROFDB_NONE ? 'B' : p.b == PROFDB_NONE ? 'A' : '=';
		cr_assert_eq(in, w[i].in, "row %zu (%s): in %c", row, w[i].name, in);
		cr_assert_eq(v.exclusive_a, w[i].exc_a, "row %zu (%s)", row, w[i].name);
		cr_assert_eq(v.inclusive_a, w[i].inc_a, "row %zu (%s)", row, w[i].name);
		cr_assert_eq(v.exclusive_b, w[i].exc_b, "row %zu (%s)", row, w[i].name);
		cr_assert_eq(v.inclusive_b, w[i].inc_b, "row %zu (%s)", row, w[i].name);
		/* each side's node maps back to its row; the parent row holds the
		 * parent node */
		for (int s = 0; s < 2; s++) {
			uint32_t node = s ? p.b : p.a;
			uint64_t back;
			if (node == PROFDB_NONE)
				continue;
			cr_assert_eq(profdb_match_row(m, s, node, &back), 0);
			cr_assert_eq(back, row);
			profdb_node nd;
			profdb_pair pp;
			cr_assert_eq(profdb_tree_get(profdb_match_tree(m, s), node, &nd), 0);
			cr_assert_eq(profdb_match_at(m, p.parent, &pp), 0);
			cr_assert_eq(s ? pp.b : pp.a, nd.parent, "row %zu side %d", row, s);
			cr_assert_eq(p.depth, pp.depth + 1);
		}
	}
}

static void check_counts(const profdb_match *m, uint64_t matched, uint64_t only_a,
                         uint64_t only_b)
{
	profdb_match_counts c;
	cr_assert_eq(profdb_match_counts_get(m, &c), 0);
	cr_assert_eq(c.metrics, 1);
	cr_assert_eq(c.matched, matched);
	cr_assert_eq(c.only_a, only_a);
	cr_assert_eq(c.only_b, only_b);
	cr_assert_eq(c.rows, matched + only_a + only_b);
}

/* ---- generated pairs ------------------------------------------------------------------- */

/* A: main -> work -> helper, main -> compute, main -> dup twice (50, 20).
 * B: work got cheaper and lost helper, compute dearer, a new fresh, the two
 * dups 45 and 25: the k-th dup (heaviest first) meets the k-th. */
static const fn prog_a[] = {
	{"main", -1, 5, 535}, {"work", 0, 300, 360}, {"helper", 1, 60, 60},
	{"compute", 0, 100, 100}, {"dup", 0, 20, 20}, {"dup", 0, 50, 50},
};
static const fn prog_b[] = {
	{"main", -1, 5, 395}, {"dup", 0, 25, 25}, {"fresh", 0, 40, 40}, {"work", 0, 150, 150},
	{"compute", 0, 130, 130}, {"dup", 0, 45, 45},
};

Test(match, hpctoolkit_pair)
{
	tw_blob fa[TW_NFILES], fb[TW_NFILES];
	profdb *a = open_hpctk(prog_a, 6, fa), *b = open_hpctk(prog_b, 6, fb);
	profdb_match *m;
	cr_assert_eq(profdb_match_new(&m, a, b, NULL), 0, "%s", profdb_error_message());
	uint32_t ia, ib;
	cr_assert_eq(profdb_match_metric(m, 0, &ia, &ib), 0);
	profdb_metric ma;
	cr_assert_eq(profdb_metric_get(a, ia, &ma), 0);
	cr_assert(str_is(ma.name, "Ir"));
	cr_assert_eq(profdb_match_metric(m, 1, NULL, NULL), -ENOENT);
	profdb_pair_values v0;
	cr_assert_eq(profdb_match_values(m, 0, 0, &v0), 0);
	cr_assert_eq(v0.inclusive_a, 535);
	cr_assert_eq(v0.inclusive_b, 395);
	static const want w[] = {
		{"main", '=', 5, 535, 5, 395},
		{"work", '=', 300, 360, 150, 150},
		{"helper", 'A', 60, 60, 0, 0},
		{"compute", '=', 100, 100, 130, 130},
		{"dup", '=', 50, 50, 45, 45},
		{"dup", '=', 20, 20, 25, 25},
		{"fresh", 'B', 0, 0, 40, 40},
	};
	check_rows(m, w, sizeof w / sizeof *w);
	check_counts(m, 6, 1, 1);
	/* the other way round: only-in-A and only-in-B swap */
	profdb_match *r;
	cr_assert_eq(profdb_match_new(&r, b, a, NULL), 0);
	check_counts(r, 6, 1, 1);
	profdb_match_free(r);
	profdb_match_free(m);
	profdb_close(a);
	profdb_close(b);
	for (int i = 0; i < TW_NFILES; i++) {
		tw_blob_free(&fa[i]);
		tw_blob_free(&fb[i]);
	}
}

static const char cg_a[] =
	"events: Ir\n"
	"fl=(1) /home/a/prog.c\n"
	"fn=(1) main\n10 5\n"
	"cfn=(2) work\ncalls=3 20\n11 360\n"
	"cfn=(3) compute\ncalls=1 40\n12 100\n"
	"fn=(2)\n20 300\ncfn=(4) helper\ncalls=3 30\n21 60\n"
	"fn=(3)\n40 100\n"
	"fn=(4)\n30 60\n";
static const char cg_b[] =
	"events: Ir\n"
	"fl=(1) /home/b/prog.c\n"
	"fn=(1) main\n10 5\n"
	"cfn=(2) work\ncalls=3 20\n11 150\n"
	"cfn=(3) compute\ncalls=1 40\n12 130\n"
	"cfn=(5) fresh\ncalls=2 50\n13 40\n"
	"fn=(2)\n20 150\n"
	"fn=(3)\n40 130\n"
	"fn=(5)\n50 40\n";

/* Callgrind's suffixes name one function: "work'2" (a recursion level)
 * and "work'main" (separate callers) pair with "work" by its folded name
 * (profdb_function_fold), as `top` groups them. */
static const char cg_plain[] =
	"events: Ir\nfl=a.c\nfn=main\n1 5\ncfn=work\ncalls=1 2\n1 30\n"
	"cfn=leaf\ncalls=1 3\n1 7\nfn=work\n2 30\nfn=leaf\n3 7\n";
static const char cg_suffixed[] =
	"events: Ir\nfl=a.c\nfn=main\n1 5\ncfn=work'2\ncalls=1 2\n1 40\n"
	"cfn=leaf'main\ncalls=1 3\n1 7\nfn=work'2\n2 40\nfn=leaf'main\n3 7\n";

/* One recursion recorded with two levels (f, f'2 holding the deeper
 * calls) and with three (--separate-recs): f'2 counts as f on the path,
 * so both top-down views stop there and give the same paths. */
static const char cg_levels2[] =
	"events: Ir\nfl=a.c\nfn=main\n1 5\ncfn=f\ncalls=1 2\n1 100\n"
	"fn=f\n2 40\ncfn=f'2\ncalls=1 2\n2 60\nfn=f'2\n2 60\n";
static const char cg_levels3[] =
	"events: Ir\nfl=a.c\nfn=main\n1 5\ncfn=f\ncalls=1 2\n1 100\n"
	"fn=f\n2 40\ncfn=f'2\ncalls=1 2\n2 60\n"
	"fn=f'2\n2 30\ncfn=f'3\ncalls=1 2\n2 30\nfn=f'3\n2 30\n";

/* Pairs of Callgrind profiles matched by "Ir": the rows and counts each
 * must give. */
typedef struct cg_case {
	const char *what, *a, *b;
	const want *rows;
	size_t n_rows;
	uint64_t matched, only_a, only_b;
} cg_case;

/* the file paths differ in their directory only */
static const want pair_rows[] = {
	{"main", '=', 5, 465, 5, 325},
	{"work", '=', 300, 360, 150, 150},
	{"helper", 'A', 60, 60, 0, 0},
	{"compute", '=', 100, 100, 130, 130},
	{"fresh", 'B', 0, 0, 40, 40},
};
static const want suffix_rows[] = {
	{"main", '=', 5, 42, 5, 52},
	{"work", '=', 30, 30, 40, 40},
	{"leaf", '=', 7, 7, 7, 7},
};
static const want level_rows[] = {
	{"main", '=', 5, 105, 5, 105},
	{"f", '=', 40, 100, 40, 100},
	{"f'2", '=', 60, 60, 30, 60},   /* cut as recursive on both sides */
};
#define ROWS(w) w, sizeof w / sizeof *w
static const cg_case cg_cases[] = {
	{"two versions of a program", cg_a, cg_b, ROWS(pair_rows), 4, 1, 1},
	{"suffixes folded", cg_plain, cg_suffixed, ROWS(suffix_rows), 4, 0, 0},
	{"recursion levels folded", cg_levels2, cg_levels3, ROWS(level_rows), 4, 0, 0},
};
#undef ROWS

Test(match, callgrind_pairs)
{
	static const char *const ir[] = {"Ir"};
	for (size_t i = 0; i < sizeof cg_cases / sizeof *cg_cases; i++) {
		const cg_case *c = &cg_cases[i];
		profdb *a = open_text(c->a), *b = open_text(c->b);
		profdb_match *m;
		profdb_match_options o = PROFDB_MATCH_OPTIONS_INIT;
		o.metrics_a = ir;
		o.n_metrics = 1;
		cr_assert_eq(profdb_match_new(&m, a, b, &o), 0, "%s: %s", c->what,
		             profdb_error_message());
		check_rows(m, c->rows, c->n_rows);
		check_counts(m, c->matched, c->only_a, c->only_b);
		profdb_match_free(m);
		profdb_close(a);
		profdb_close(b);
	}
}

/* The program of tests/test-query-equivalence.c in both formats: the same
 * call paths, no difference. */
Test(match, hpctoolkit_and_callgrind)
{
	static const fn prog[] = {
		{"main", -1, 5, 465}, {"work", 0, 300, 360}, {"helper", 1, 60, 60}, {"compute", 0, 100, 100},
	};
	tw_blob f[TW_NFILES];
	profdb *h = open_hpctk(prog, 4, f), *g = open_text(cg_a);
	profdb_match *m;
	cr_assert_eq(profdb_match_new(&m, h, g, NULL), 0, "%s", profdb_error_message());
	static const want w[] = {
		{"main", '=', 5, 465, 5, 465},
		{"work", '=', 300, 360, 300, 360},
		{"helper", '=', 60, 60, 60, 60},
		{"compute", '=', 100, 100, 100, 100},
	};
	check_rows(m, w, sizeof w / sizeof *w);
	check_counts(m, 5, 0, 0);
	profdb_match_free(m);
	profdb_close(h);
	profdb_close(g);
	for (int i = 0; i < TW_NFILES; i++)
		tw_blob_free(&f[i]);
}

Test(match, options_and_errors)
{
	profdb *a = open_text(cg_a), *b = open_text(cg_b);
	profdb_match *m = (profdb_match *)1;
	cr_assert_eq(profdb_match_new(NULL, a, b, NULL), -EINVAL);
	cr_assert_eq(profdb_match_new(&m, NULL, b, NULL), -EINVAL);
	cr_assert_null(m);
	static const char *const nope[] = {"nope"}, *const ir[] = {"Ir"};
	profdb_match_options o = PROFDB_MATCH_OPTIONS_INIT;
	o.metrics_a = nope;
	o.n_metrics = 1;
	cr_assert_eq(profdb_match_new(&m, a, b, &o), -ENOENT);
	cr_assert(strstr(profdb_error_message(), "nope"));
	o.metrics_a = ir;
	o.metrics_b = nope;
	cr_assert_eq(profdb_match_new(&m, a, b, &o), -ENOENT);
	o.metrics_b = NULL;
	o.n_metrics = 0;
	cr_assert_eq(profdb_match_new(&m, a, b, &o), -EINVAL);
	o.n_metrics = 1;
	static const uint32_t bad_profile[] = {7};
	o.profiles_b = bad_profile;
	o.n_profiles_b = 1;
	cr_assert_eq(profdb_match_new(&m, a, b, &o), -EINVAL);
	o.profiles_b = NULL;
	o.n_profiles_b = 0;
	o.size = 1;
	cr_assert_eq(profdb_match_new(&m, a, b, &o), -EINVAL);
	/* no name in common */
	profdb *c = open_text("events: Dr\nfn=main\n1 1\n");
	cr_assert_eq(profdb_match_new(&m, a, c, NULL), -ENOENT);
	/* accessors */
	cr_assert_eq(profdb_match_new(&m, a, b, NULL), 0);
	profdb_pair p;
	profdb_pair_values v;
	uint64_t row;
	cr_assert_eq(profdb_match_at(m, 99, &p), -ENOENT);
	cr_assert_eq(profdb_match_at(NULL, 0, &p), -EINVAL);
	cr_assert_eq(profdb_match_values(m, 0, 1, &v), -ENOENT);
	cr_assert_eq(profdb_match_row(m, 2, 0, &row), -EINVAL);
	cr_assert_eq(profdb_match_row(m, 0, 999, &row), -ENOENT);
	cr_assert_eq(profdb_match_row(m, 1, 0, &row), 0);
	cr_assert_eq(row, 0);
	cr_assert_null(profdb_match_tree(m, 2));
	cr_assert_eq(profdb_match_count(NULL), -EINVAL);
	profdb_match_free(m);
	profdb_match_free(NULL);
	profdb_close(a);
	profdb_close(b);
	profdb_close(c);
}

Test(match, max_memory)
{
	profdb_options opts = PROFDB_OPTIONS_INIT;
	opts.max_memory = 200;
	profdb_input in = {"callgrind.out.1", cg_a, strlen(cg_a)};
	profdb *a, *b = open_text(cg_b);
	if (profdb_open_inputs(&a, &in, 1, &opts) < 0) {   /* too small to open at all */
		profdb_close(b);
		return;
	}
	profdb_match *m;
	cr_assert_eq(profdb_match_new(&m, a, b, NULL), -EFBIG);
	profdb_close(a);
	profdb_close(b);
}

/* ---- every real sample against itself -------------------------------------------------- */

/* Two handles of one sample, every metric name (or the first that builds a
 * view): each node paired with itself, every difference 0 (NaN on both
 * sides where the format cannot give the scope). */
/* Samples this build cannot read (-ENOTSUP: gzip without zlib, Cube
 * without expat, ...), so that a folder of them skips, not fails. */
static int unreadable;

static int check_self(const char *path)
{
	profdb *a, *b;
	int e = profdb_open(&a, path, NULL);
	if (e < 0) {
		unreadable += e == -ENOTSUP;
		return 0;
	}
	cr_assert_eq(profdb_open(&b, path, NULL), 0, "%s", path);
	profdb_match *m;
	int r = profdb_match_new(&m, a, b, NULL);
	if (r == -ENOENT || r == -ENOTSUP) {
		cr_log_info("%s: nothing to match (%s)", path, profdb_error_message());
		profdb_close(a);
		profdb_close(b);
		return 0;
	}
	cr_assert_eq(r, 0, "%s: %s", path, profdb_error_message());
	profdb_match_counts c;
	cr_assert_eq(profdb_match_counts_get(m, &c), 0);
	int64_t n = profdb_tree_count(profdb_match_tree(m, 0));
	cr_assert_eq(c.rows, (uint64_t)n, "%s", path);
	cr_assert_eq(c.only_a + c.only_b, 0, "%s", path);
	for (int64_t i = 0; i < n; i++) {
		profdb_pair p;
		cr_assert_eq(profdb_match_at(m, (uint64_t)i, &p), 0);
		cr_assert_eq(p.a, p.b, "%s: row %" PRId64, path, i);
		for (size_t k = 0; k < c.metrics; k++) {
			profdb_pair_values v;
			cr_assert_eq(profdb_match_values(m, (uint64_t)i, k, &v), 0);
			cr_assert((v.inclusive_a == v.inclusive_b ||
			           (isnan(v.inclusive_a) && isnan(v.inclusive_b))) &&
			          (v.exclusive_a == v.exclusive_b ||
			           (isnan(v.exclusive_a) && isnan(v.exclusive_b))),
			          "%s: row %" PRId64 " metric %zu differs", path, i, k);
		}
	}
	cr_log_info("%s: %" PRIu64 " metrics, %" PRId64 " rows", path, c.metrics, n);
	profdb_match_free(m);
	profdb_close(a);
	profdb_close(b);
	return 1;
}

static void check_files(const char *rel)
{
	tc_check_samples(rel, 0, check_self, &unreadable);
}

static void check_dirs(const char *rel)
{
	tc_check_samples(rel, 1, check_self, &unreadable);
}

/* The self cost of the records of function @p name at recursion level 2
 * and deeper ("name'2", "name'3", ...) in @p db, summed. */
static double deeper_levels_self(const profdb *db, const char *name)
{
	size_t len = strlen(name);
	double sum = 0;
	int64_t n = profdb_graph_function_count(db);
	cr_assert_geq(n, 0);
	for (int64_t i = 0; i < n; i++) {
		profdb_graph_function f;
		profdb_number x;
		cr_assert_eq(profdb_graph_function_at(db, (uint32_t)i, &f), 0);
		if (f.name.len > len + 1 && memcmp(f.name.ptr, name, len) == 0 &&
		    f.name.ptr[len] == '\'' && profdb_graph_exclusive(db, 0, (uint32_t)i, 0, &x) > 0)
			sum += profdb_number_to_double(x);
	}
	return sum;
}

/* A recursion-cut node's exclusive value: the self cost of the record it
 * calls, which 22 (callgrind's default --separate-recs=2) holds for every
 * level from 2 down and 23 for level 2 alone (doc/model.md, "The three
 * views"). The two files agree on the costs: 22's f'2 is the sum of 23's
 * f'2, f'3, ... */
static void check_cut_node(const profdb *a, const profdb *b, const profdb_match *m,
                           uint64_t row, const profdb_pair_values *v)
{
	profdb_pair p;
	profdb_node na, nb;
	profdb_number sa, sb;
	cr_assert_eq(profdb_match_at(m, row, &p), 0);
	cr_assert_eq(profdb_tree_get(profdb_match_tree(m, 0), p.a, &na), 0);
	cr_assert_eq(profdb_tree_get(profdb_match_tree(m, 1), p.b, &nb), 0);
	cr_assert(na.flags & PROFDB_NODE_RECURSIVE, "row %" PRIu64 ": only a cut node differs", row);
	cr_assert(nb.flags & PROFDB_NODE_RECURSIVE, "row %" PRIu64, row);
	cr_assert_eq(profdb_exclusive(a, 0, na.context, 0, &sa), 1);
	cr_assert_eq(profdb_exclusive(b, 0, nb.context, 0, &sb), 1);
	cr_expect_eq(v->exclusive_a, profdb_number_to_double(sa), "row %" PRIu64, row);
	cr_expect_eq(v->exclusive_b, profdb_number_to_double(sb), "row %" PRIu64, row);
	char name[64];
	profdb_str fold = profdb_function_fold(b, nb.name);
	cr_assert_lt(fold.len, sizeof name);
	memcpy(name, fold.ptr, fold.len);
	name[fold.len] = '\0';
	cr_expect_eq(deeper_levels_self(b, name), profdb_number_to_double(sa), "%s", name);
	cr_expect_eq(deeper_levels_self(a, name), profdb_number_to_double(sa), "%s", name);
}

/* The same run recorded with callgrind's default --separate-recs=2 and
 * with --separate-recs=100: every call path is in both, with the same
 * inclusive cost; the exclusive values differ only at recursion-cut nodes,
 * by the recursion levels each file's record there holds. */
Test(match_real, callgrind_separate_recs)
{
	char *pa = tc_sample_path("callgrind/valgrind/22_recursion.out");
	char *pb = tc_sample_path("callgrind/valgrind/23_recursion_seprecs.out");
	profdb *a, *b;
	profdb_match *m;
	cr_assert_eq(profdb_open(&a, pa, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_open(&b, pb, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_match_new(&m, a, b, NULL), 0, "%s", profdb_error_message());
	profdb_match_counts c;
	cr_assert_eq(profdb_match_counts_get(m, &c), 0);
	cr_assert_eq(c.only_a, 0);
	cr_assert_eq(c.only_b, 0);
	cr_assert_gt(c.matched, 50);
	int cut = 0;
	for (uint64_t i = 0; i < c.rows; i++) {
		profdb_pair_values v;
		cr_assert_eq(profdb_match_values(m, i, 0, &v), 0);
		cr_assert_eq(v.inclusive_a, v.inclusive_b, "row %" PRIu64, i);
		if (v.exclusive_a != v.exclusive_b) {
			check_cut_node(a, b, m, i, &v);
			cut++;
		}
	}
	cr_expect_eq(cut, 2, "a'2 below main > a > b, fact'2 below main > fact");
	profdb_match_free(m);
	profdb_close(a);
	profdb_close(b);
	free(pa);
	free(pb);
}

Test(match_real, hpctoolkit_v4) { check_dirs("hpctoolkit/v4"); }
Test(match_real, hpctoolkit_devstage) { check_dirs("hpctoolkit/v4-devstage"); }
Test(match_real, hpctoolkit_prerelease) { check_dirs("hpctoolkit/prerelease"); }
Test(match_real, hpcrun) { check_dirs("hpctoolkit/hpcrun"); }
#ifdef PROFDB_HAVE_CUBE
Test(match_real, cube) { check_dirs("cube"); }
#endif
Test(match_real, callgrind_valgrind) { check_files("callgrind/valgrind"); }
Test(match_real, callgrind_public) { check_files("callgrind/public"); }
Test(match_real, callgrind_edge) { check_files("callgrind/edge"); }
Test(match_real, callgrind_big) { tc_skip_big_under_asan(); check_files("callgrind/big"); }

TC_MAIN
