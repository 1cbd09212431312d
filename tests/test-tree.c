/* The three views (profdb_tree_*, profdb/analysis.h; doc/model.md "The three
 * views"): hand-built inputs with known values for every view (the writer's
 * HPCToolkit sample, a Callgrind profile with recursion, the writer's Cube
 * sample under min/max rules), and every real sample of every format: no
 * child above its parent (within 4 ulps) in any view of a metric that adds
 * up, and the bottom-up and flat roots equal to the top-down total. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb-config.h"
#include "common.h"
#include "fixtures-hpctk4.h"
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif

TestSuite(tree, .timeout = 300);
TestSuite(tree_real, .timeout = 900);

static profdb_tree *build(const profdb *db, profdb_tree_kind kind, uint32_t metric, double cutoff)
{
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	o.kind = kind;
	o.metrics = &metric;
	o.n_metrics = 1;
	o.cutoff = cutoff;
	profdb_tree *t = NULL;
	int r = profdb_tree_new(&t, db, &o);
	cr_assert_eq(r, 0, "tree_new(kind %d, metric %u): %d %s", kind, metric, r,
	             profdb_error_message());
	return t;
}

static double inc_of(const profdb_tree *t, uint32_t id)
{
	double v;
	cr_assert_eq(profdb_tree_values(t, id, 0, &v, NULL), 0);
	return v;
}

static double exc_of(const profdb_tree *t, uint32_t id)
{
	double v;
	cr_assert_eq(profdb_tree_values(t, id, 0, NULL, &v), 0);
	return v;
}

/* At every node of a top-down view of a metric that adds up, the
 * exclusive value and the children's inclusive values add up to at most
 * the inclusive value (4 ulps of slack per term). */
static void check_fits(const profdb_tree *t)
{
	int64_t n = profdb_tree_count(t);
	for (int64_t i = 0; i < n; i++) {
		profdb_node a;
		cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &a), 0);
		double inc = inc_of(t, (uint32_t)i), sum = exc_of(t, (uint32_t)i), mag = fabs(sum);
		int terms = 1;
		for (uint32_t c = a.first_child; c != PROFDB_NONE;) {
			profdb_node ch;
			cr_assert_eq(profdb_tree_get(t, c, &ch), 0);
			sum += inc_of(t, c);
			mag += fabs(inc_of(t, c));
			terms++;
			c = ch.next_sibling;
		}
		if (!isnan(inc) && !isnan(sum))
			cr_assert_leq(sum, inc + 4 * terms * DBL_EPSILON * mag,
			              "node %" PRId64 ": exclusive + children %.17g > inclusive %.17g", i,
			              sum, inc);
	}
}

/* The first node (pre-order) below @p from named @p name (and type). */
static uint32_t find(const profdb_tree *t, uint32_t from, const char *name, profdb_node_type type)
{
	int64_t n = profdb_tree_count(t);
	profdb_node nd, top;
	cr_assert_eq(profdb_tree_get(t, from, &top), 0);
	for (int64_t i = from + 1; i < n; i++) {
		cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &nd), 0);
		if (nd.depth <= top.depth)
			break;
		if (nd.type == type && nd.name.len == strlen(name) &&
		    memcmp(nd.name.ptr, name, nd.name.len) == 0)
			return (uint32_t)i;
	}
	cr_assert_fail("no node %s below %u", name, from);
	return 0;
}

/* Structure: ids in pre-order, links consistent, children heaviest first
 * by inclusive value, or with @p own (a min or max metric) by their own,
 * exclusive value. */
static void check_shape_by(const profdb_tree *t, int own)
{
	int64_t n = profdb_tree_count(t);
	cr_assert_geq(n, 1);
	for (int64_t i = 0; i < n; i++) {
		profdb_node a;
		cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &a), 0);
		cr_assert_eq(a.id, (uint32_t)i);
		if (i == 0)
			cr_assert_eq(a.parent, PROFDB_NONE);
		else
			cr_assert_lt(a.parent, (uint32_t)i);
		if (a.first_child != PROFDB_NONE)
			cr_assert_eq(a.first_child, (uint32_t)i + 1);
		if (a.next_sibling != PROFDB_NONE) {
			profdb_node s;
			cr_assert_eq(profdb_tree_get(t, a.next_sibling, &s), 0);
			cr_assert_eq(s.parent, a.parent);
			double x = own ? exc_of(t, (uint32_t)i) : inc_of(t, (uint32_t)i);
			double y = own ? exc_of(t, a.next_sibling) : inc_of(t, a.next_sibling);
			if (!isnan(x) && !isnan(y))
				cr_assert_geq(x, y, "siblings %u %u out of order", a.id, s.id);
		}
	}
	profdb_node x;
	cr_assert_eq(profdb_tree_get(t, (uint32_t)n, &x), -ENOENT);
	cr_assert_eq(profdb_tree_values(t, 0, 1, NULL, NULL), -ENOENT);
}

static void check_shape(const profdb_tree *t)
{
	check_shape_by(t, 0);
}

/* ---- HPCToolkit: the writer's sample ------------------------------------------------ */

#ifdef HAVE_TEST_WRITER
/* Top-down = the context tree below a synthetic root (two entry points);
 * values = the summary profile's statistics (CPUTIME, writer.h's table). */
Test(tree, hpctk_top_down)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
	profdb_tree *t = build(db, PROFDB_TREE_TOP_DOWN, 1, 0);
	check_shape(t);
	cr_assert_eq(profdb_tree_count(t), 15);   /* 14 tree contexts + the root */
	profdb_node n;
	cr_assert_eq(profdb_tree_get(t, 0, &n), 0);
	cr_assert_eq(n.context, PROFDB_NONE);
	cr_assert_eq(n.type, PROFDB_NODE_ROOT);
	cr_assert_eq(inc_of(t, 0), 5.375);
	cr_assert_eq(profdb_tree_get(t, 1, &n), 0);
	cr_assert_eq(n.context, 1);   /* <main thread>, the heavier entry */
	uint32_t m = find(t, 1, "main", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, m), 5.25);
	cr_assert_eq(exc_of(t, m), 1.5);
	uint32_t h = find(t, m, "helper", PROFDB_NODE_FUNCTION);   /* inlined: its own node */
	cr_assert_eq(inc_of(t, h), 0.5);
	/* One thread's profile instead of the summary. */
	uint32_t p = 2;
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	uint32_t metric = 1;
	o.metrics = &metric;
	o.n_metrics = 1;
	o.profiles = &p;
	o.n_profiles = 1;
	profdb_tree *t2;
	cr_assert_eq(profdb_tree_new(&t2, db, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(inc_of(t2, 0), 1.625);
	profdb_tree_free(t2);
	p = 9;
	cr_assert_eq(profdb_tree_new(&t2, db, &o), -EINVAL);
	cr_assert_null(t2);
	profdb_tree_free(t);
	profdb_close(db);
	tc_hpctk4_free(&f);
}

/* Bottom-up: one root per function, callers below; flat: module, file,
 * function, loop, line, inclusive once per path. */
Test(tree, hpctk_bottom_up_and_flat)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
	profdb_tree *t = build(db, PROFDB_TREE_BOTTOM_UP, 1, 0);
	check_shape(t);
	cr_assert_eq(inc_of(t, 0), 5.375);
	uint32_t c = find(t, 0, "compute", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, c), 3.75);
	cr_assert_eq(exc_of(t, c), 3);
	uint32_t cm = find(t, c, "main", PROFDB_NODE_FUNCTION);   /* compute's caller */
	cr_assert_eq(inc_of(t, cm), 3.75);
	uint32_t h = find(t, 0, "helper", PROFDB_NODE_FUNCTION);
	uint32_t hc = find(t, h, "compute", PROFDB_NODE_FUNCTION);   /* inlined into compute */
	cr_assert_eq(inc_of(t, hc), 0.5);
	find(t, hc, "main", PROFDB_NODE_FUNCTION);
	profdb_tree_free(t);

	t = build(db, PROFDB_TREE_FLAT, 1, 0);
	check_shape(t);
	cr_assert_eq(inc_of(t, 0), 5.375);
	cr_assert_eq(exc_of(t, 0), 5.375);   /* every cost sits in a function */
	uint32_t mod = find(t, 0, "/usr/bin/sample", PROFDB_NODE_MODULE);
	cr_assert_eq(inc_of(t, mod), 5.25);   /* main's, once: compute is inside it */
	cr_assert_eq(exc_of(t, mod), 4.5);    /* main 1.5 + compute 3 */
	uint32_t fl = find(t, mod, "/src/sample.c", PROFDB_NODE_FILE);
	c = find(t, fl, "compute", PROFDB_NODE_FUNCTION);
	cr_assert_eq(exc_of(t, c), 3);
	uint32_t util = find(t, 0, "src/util.h", PROFDB_NODE_FILE);   /* the inlined helper's file */
	cr_assert_eq(inc_of(t, find(t, util, "helper", PROFDB_NODE_FUNCTION)), 0.5);
	profdb_tree_free(t);

	/* A cut-off folds what is below it into one <other> per parent. */
	t = build(db, PROFDB_TREE_BOTTOM_UP, 1, 0.2);
	check_shape(t);
	uint32_t o = find(t, 0, "<other>", PROFDB_NODE_OTHER);
	cr_assert_eq(inc_of(t, o), 0.5 + 0.25 + 0.125);
	profdb_tree_free(t);
	profdb_close(db);
	tc_hpctk4_free(&f);
}
#endif

/* ---- Callgrind: a call graph with recursion ------------------------------------------- */

static const char cg_text[] =
	"# callgrind format\nversion: 1\npositions: line\nevents: Ir\nfl=t.c\n"
	"fn=main\n1 10\ncfn=A\ncalls=2 10\n2 600\ncfn=B\ncalls=1 20\n3 390\n"
	"fn=A\n10 400\ncfn=C\ncalls=1 30\n11 200\n"
	"fn=B\n20 90\ncfn=C\ncalls=1 30\n21 300\n"
	"fn=C\n30 500\ncfn=C\ncalls=1 30\n31 100\n"
	"totals: 1000\n";

static profdb *open_cg(void)
{
	return tc_open_mem("callgrind.out.1", cg_text, sizeof cg_text - 1);
}

/* child = edge x node(parent) / inclusive(parent); C -> C is cut and marked. */
Test(tree, callgrind_top_down)
{
	profdb *db = open_cg();
	profdb_tree *t = build(db, PROFDB_TREE_TOP_DOWN, 0, 0);
	check_shape(t);
	cr_assert_eq(profdb_tree_count(t), 6, "%" PRId64 " nodes", profdb_tree_count(t));   /* no C -> C (below) */
	profdb_node n;
	cr_assert_eq(profdb_tree_get(t, 0, &n), 0);
	cr_assert_eq(n.context, 0);   /* Callgrind's own root */
	cr_assert_eq(inc_of(t, 0), 1000);
	uint32_t m = find(t, 0, "main", PROFDB_NODE_FUNCTION);
	uint32_t a = find(t, m, "A", PROFDB_NODE_FUNCTION);
	uint32_t b = find(t, m, "B", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, a), 600);
	cr_assert_eq(exc_of(t, a), 400);
	uint32_t ac = find(t, a, "C", PROFDB_NODE_FUNCTION), bc = find(t, b, "C", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, ac), 200);
	cr_assert_eq(exc_of(t, ac), 200);
	cr_assert_eq(inc_of(t, bc), 300);
	/* C's whole cost is its own (Callgrind collapses the cycle), so the
	 * recursive call C -> C (edge cost 100, scaled 40) holds nothing its
	 * parent's self cost does not: scaled to 0 and left out. */
	cr_assert_eq(profdb_tree_get(t, ac, &n), 0);
	cr_assert_eq(n.first_child, PROFDB_NONE, "a recursive child claiming C's self cost");
	check_fits(t);
	profdb_tree_free(t);

	/* cut-off 5% (50): the recursive call under A's C (40) would be folded
	 * into "<other>", which fits in nothing either. */
	t = build(db, PROFDB_TREE_TOP_DOWN, 0, 0.05);
	check_shape(t);
	check_fits(t);
	ac = find(t, find(t, find(t, 0, "main", PROFDB_NODE_FUNCTION), "A", PROFDB_NODE_FUNCTION),
	          "C", PROFDB_NODE_FUNCTION);
	cr_assert_eq(profdb_tree_get(t, ac, &n), 0);
	cr_assert_eq(n.first_child, PROFDB_NONE);
	profdb_tree_free(t);
	profdb_close(db);
}

Test(tree, callgrind_bottom_up_and_flat)
{
	profdb *db = open_cg();
	profdb_tree *t = build(db, PROFDB_TREE_BOTTOM_UP, 0, 0);
	check_shape(t);
	cr_assert_eq(inc_of(t, 0), 1000);
	cr_assert_eq(exc_of(t, 0), 1000);
	uint32_t c = find(t, 0, "C", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, c), 500);
	uint32_t ca = find(t, c, "A", PROFDB_NODE_FUNCTION), cb = find(t, c, "B", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, ca), 200);
	cr_assert_eq(inc_of(t, cb), 300);
	cr_assert_eq(inc_of(t, find(t, ca, "main", PROFDB_NODE_FUNCTION)), 200);
	profdb_node n;
	uint32_t cc = find(t, c, "C", PROFDB_NODE_FUNCTION);
	cr_assert_eq(profdb_tree_get(t, cc, &n), 0);
	cr_assert_eq(n.flags, PROFDB_NODE_RECURSIVE);
	profdb_tree_free(t);

	t = build(db, PROFDB_TREE_FLAT, 0, 0);
	check_shape(t);
	uint32_t fl = find(t, 0, "t.c", PROFDB_NODE_FILE);
	cr_assert_eq(inc_of(t, fl), 1000);
	cr_assert_eq(exc_of(t, fl), 1000);
	uint32_t a = find(t, fl, "A", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, a), 600);
	cr_assert_eq(exc_of(t, a), 400);
	cr_assert_eq(profdb_tree_get(t, a + 1, &n), 0);
	cr_assert_eq(n.type, PROFDB_NODE_LINE);
	cr_assert_eq(n.line, 10);
	cr_assert_eq(exc_of(t, a + 1), 400);
	profdb_tree_free(t);
	profdb_close(db);
}

/* A sibling list of hundreds of nodes (the bottom-up root of a big profile
 * has one per function) is in the same order as a short one: heaviest
 * first, ties by context id. 300 functions that main calls, with costs
 * that repeat (ties), all above the default cut-off, and one zero-cost
 * function that stays out. */
static void check_siblings(const profdb_tree *t, uint32_t parent, size_t want)
{
	profdb_node p, a, b;
	cr_assert_eq(profdb_tree_get(t, parent, &p), 0);
	size_t n = 0;
	for (uint32_t c = p.first_child; c != PROFDB_NONE; c = a.next_sibling, n++) {
		cr_assert_eq(profdb_tree_get(t, c, &a), 0);
		if (a.next_sibling == PROFDB_NONE)
			continue;
		cr_assert_eq(profdb_tree_get(t, a.next_sibling, &b), 0);
		double x = inc_of(t, c), y = inc_of(t, a.next_sibling);
		cr_assert(x > y || (x == y && a.context < b.context),
		          "siblings %u (context %u, %g) and %u (context %u, %g) out of order", c,
		          a.context, x, a.next_sibling, b.context, y);
	}
	cr_assert_eq(n, want, "%zu children, not %zu", n, want);
}

Test(tree, callgrind_wide_sibling_lists)
{
	enum { N = 300 };
	size_t cap = 64 * N + 256, len = 0;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	len += (size_t)snprintf(text + len, cap - len, "# callgrind format\nversion: 1\n"
	                        "positions: line\nevents: Ir\nfl=t.c\nfn=main\n1 1\n");
	uint64_t total = 1;
	for (int i = 0; i <= N; i++) {   /* f300 costs nothing */
		unsigned cost = i == N ? 0 : (unsigned)(i * 7 % 13) + 3;
		len += (size_t)snprintf(text + len, cap - len, "cfn=f%d\ncalls=1 %d\n%d %u\n", i,
		                        10 + i, 2 + i, cost);
		total += cost;
	}
	for (int i = 0; i <= N; i++)
		len += (size_t)snprintf(text + len, cap - len, "fn=f%d\n%d %u\n", i, 10 + i,
		                        i == N ? 0 : (unsigned)(i * 7 % 13) + 3);
	len += (size_t)snprintf(text + len, cap - len, "totals: %" PRIu64 "\n", total);
	cr_assert_lt(len, cap);
	profdb *db = tc_open_mem("callgrind.out.wide", text, len);
	profdb_tree *t = build(db, PROFDB_TREE_TOP_DOWN, 0, 0);
	check_shape(t);
	check_siblings(t, find(t, 0, "main", PROFDB_NODE_FUNCTION), N);
	profdb_tree_free(t);
	t = build(db, PROFDB_TREE_BOTTOM_UP, 0, 0);
	check_shape(t);
	check_siblings(t, 0, N + 1);   /* main and the functions with a cost */
	/* the heaviest first: main, then the cost 15 functions by context id */
	profdb_node n;
	cr_assert_eq(profdb_tree_get(t, 1, &n), 0);
	cr_assert(n.name.len == 4 && memcmp(n.name.ptr, "main", 4) == 0);
	profdb_tree_free(t);
	profdb_close(db);
	free(text);
}

/* Only a function with a self cost shows its callers: A (no self cost)
 * is a leaf, while C's callers go through A up to main. */
Test(tree, callgrind_bottom_up_callers_of_self_cost)
{
	static const char text[] =
		"# callgrind format\nversion: 1\npositions: line\nevents: Ir\nfl=t.c\n"
		"fn=main\n1 10\ncfn=A\ncalls=1 10\n2 200\n"
		"fn=A\ncfn=C\ncalls=1 30\n11 200\n"
		"fn=C\n30 200\ntotals: 210\n";
	profdb *db = tc_open_mem("callgrind.out.2", text, sizeof text - 1);
	profdb_tree *t = build(db, PROFDB_TREE_BOTTOM_UP, 0, 0);
	check_shape(t);
	profdb_node n;
	uint32_t a = find(t, 0, "A", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, a), 200);
	cr_assert_eq(exc_of(t, a), 0);
	cr_assert_eq(profdb_tree_get(t, a, &n), 0);
	cr_assert_eq(n.first_child, PROFDB_NONE, "callers of a function without self cost");
	uint32_t ca = find(t, find(t, 0, "C", PROFDB_NODE_FUNCTION), "A", PROFDB_NODE_FUNCTION);
	cr_assert_eq(inc_of(t, ca), 200);
	cr_assert_eq(inc_of(t, find(t, ca, "main", PROFDB_NODE_FUNCTION)), 200);
	profdb_tree_free(t);
	profdb_close(db);
}

/* A caller built against an older header passes a smaller options struct:
 * the fields it does not know keep their defaults, and unknown trailing
 * bytes must be zero. */
Test(tree, options_of_another_size)
{
	profdb *db = open_cg();
	uint32_t m = 0;
	struct {
		profdb_tree_options o;
		unsigned char tail[16];
	} big;
	memset(&big, 0, sizeof big);
	profdb_tree_options def = PROFDB_TREE_OPTIONS_INIT;
	big.o = def;
	big.o.metrics = &m;
	big.o.n_metrics = 1;
	big.o.cutoff = 5.0;   /* out of range, but past an older caller's struct */
	big.o.size = offsetof(profdb_tree_options, cutoff);
	profdb_tree *t = NULL;
	cr_assert_eq(profdb_tree_new(&t, db, &big.o), 0, "%s", profdb_error_message());
	cr_assert_gt(profdb_tree_count(t), 0);
	profdb_tree_free(t);
	big.o.cutoff = 0;
	big.o.size = sizeof big;   /* a newer caller: zero bytes past the fields */
	cr_assert_eq(profdb_tree_new(&t, db, &big.o), 0, "%s", profdb_error_message());
	profdb_tree_free(t);
	big.tail[3] = 1;
	cr_assert_eq(profdb_tree_new(&t, db, &big.o), -EINVAL);
	cr_assert_null(t);
	big.o.size = 2;
	cr_assert_eq(profdb_tree_new(&t, db, &big.o), -EINVAL);
	profdb_close(db);
}

Test(tree, bad_arguments)
{
	profdb *db = open_cg();
	profdb_tree *t = (profdb_tree *)1;
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	cr_assert_eq(profdb_tree_new(&t, db, &o), -EINVAL);   /* no metric */
	cr_assert_null(t);
	uint32_t m = 7;
	o.metrics = &m;
	o.n_metrics = 1;
	cr_assert_eq(profdb_tree_new(&t, db, &o), -EINVAL);   /* no such metric */
	m = 0;
	o.cutoff = 1.5;
	cr_assert_eq(profdb_tree_new(&t, db, &o), -EINVAL);
	o.cutoff = 0;
	o.kind = (profdb_tree_kind)7;
	cr_assert_eq(profdb_tree_new(&t, db, &o), -EINVAL);
	cr_assert_eq(profdb_tree_new(NULL, db, &o), -EINVAL);
	cr_assert_eq(profdb_tree_count(NULL), -EINVAL);
	profdb_tree_free(NULL);
	/* max_memory bounds the nodes. */
	profdb_close(db);
	profdb_options lo = PROFDB_OPTIONS_INIT;
	lo.max_memory = 4096;
	profdb_input in = {"callgrind.out.1", cg_text, sizeof cg_text - 1};
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, &lo), 0, "%s", profdb_error_message());
	o.kind = PROFDB_TREE_FLAT;
	int r = profdb_tree_new(&t, db, &o);
	cr_assert(r == -EFBIG || r == 0, "%d", r);
	if (r == 0)
		profdb_tree_free(t);
	profdb_close(db);
}

/* ---- Cube: min and max over locations ------------------------------------------------- */

#if defined(HAVE_TEST_WRITER) && defined(PROFDB_HAVE_CUBE)
/* The per-location inclusive value (CubeLib's rule, profdb_inclusive)
 * combined across locations by min or max. */
static double over_locations(const profdb *db, uint32_t ctx, uint32_t metric, int max)
{
	double acc = 0;
	int first = 1;
	for (uint32_t p = 0; p < profdb_profile_count(db); p++) {
		profdb_number x;
		int r = profdb_inclusive(db, p, ctx, metric, &x);
		cr_assert_geq(r, 0, "%s", profdb_error_message());
		if (r == 0)
			continue;
		double v = profdb_number_to_double(x);
		acc = first ? v : max ? fmax(acc, v) : fmin(acc, v);
		first = 0;
	}
	return acc;
}

Test(tree, cube_min_max)
{
	tw_blob b;
	cr_assert_eq(tw_cube_write(&b, 0, NULL), 0);
	profdb *db = tc_open_mem("sample.cubex", b.data, b.size);
	profdb_metric m;
	cr_assert_eq(profdb_metric_get(db, 1, &m), 0);
	cr_assert_eq(m.combine, PROFDB_COMBINE_MIN, "mintime is a MINDOUBLE metric");
	{
		int max = 0;
		profdb_tree *t = build(db, PROFDB_TREE_TOP_DOWN, 1, 0);   /* mintime */
		check_shape_by(t, 1);
		int64_t n = profdb_tree_count(t);
		for (int64_t i = 1; i < n; i++) {
			profdb_node nd;
			cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &nd), 0);
			cr_assert_eq(inc_of(t, (uint32_t)i), over_locations(db, nd.context, 1, max),
			             "node %" PRId64, i);
		}
		/* node 0 (two root cnodes) takes the min/max of the roots too */
		double r0 = over_locations(db, 3, 1, max), r1 = over_locations(db, 2, 1, max);
		cr_assert_eq(inc_of(t, 0), max ? fmax(r0, r1) : fmin(r0, r1));
		profdb_tree_free(t);
	}
	profdb_close(db);
	tw_blob_free(&b);
}
#endif

/* ---- every real sample ------------------------------------------------------------------- */

/* a <= b within 4 ulps of b. */
static int le_4ulp(double a, double b)
{
	double lim = b;
	for (int i = 0; i < 4; i++)
		lim = nextafter(lim, INFINITY);
	return a <= lim;
}

/* Child <= parent for the inclusive values of a view of a metric that adds
 * up and has no negative value; returns the number of nodes checked. */
static int64_t check_child_le_parent(const profdb_tree *t, const char *what)
{
	int64_t n = profdb_tree_count(t);
	for (int64_t i = 0; i < n; i++)
		if (inc_of(t, (uint32_t)i) < 0 || exc_of(t, (uint32_t)i) < 0)
			return 0;   /* a negative cost (a counter's correction): no order */
	for (int64_t i = 1; i < n; i++) {
		profdb_node nd;
		cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &nd), 0);
		double c = inc_of(t, (uint32_t)i), p = inc_of(t, nd.parent);
		if (isnan(c) || isnan(p))
			continue;
		cr_assert(le_4ulp(c, p), "%s: node %" PRId64 " (%.*s) %.17g above its parent %u %.17g",
		          what, i, (int)nd.name.len, nd.name.ptr, c, nd.parent, p);
	}
	return n;
}

static int str_is(profdb_str s, const char *c)
{
	return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0;
}

/* The metric a tree is built for, as `profdb tree` picks it: inclusive or
 * exclusive, with data, whose summary (if any) is a sum; *additive: the
 * values add up (a count or a min is not checked for order). */
static int pick_metric(const profdb *db, uint32_t *out, profdb_combine *rule, int *additive)
{
	int64_t n = profdb_metric_count(db);
	for (int pass = 0; pass < 3; pass++)
		for (int64_t i = 0; i < n; i++) {
			profdb_metric m;
			cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &m), 0);
			int scoped = m.kind == PROFDB_METRIC_INCLUSIVE || m.kind == PROFDB_METRIC_EXCLUSIVE;
			int sum = m.statistic.len == 0 || str_is(m.statistic, "sum");
			if (!m.has_data || (pass < 2 && !scoped) || (pass < 1 && !sum))
				continue;
			profdb_tree *t;
			profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
			o.metrics = &m.id;
			o.n_metrics = 1;
			o.kind = PROFDB_TREE_FLAT;
			if (profdb_tree_new(&t, db, &o) == 0) {
				profdb_tree_free(t);
				*out = m.id;
				*rule = m.combine;
				*additive = *rule == PROFDB_COMBINE_SUM && sum;
				return 1;
			}
		}
	return 0;
}

/* Samples this build cannot read (-ENOTSUP: gzip without zlib, Cube
 * without expat, ...), so that a folder of them skips, not fails. */
static int unreadable;

static int check_sample(const char *path)
{
	profdb *db;
	int r = profdb_open(&db, path, NULL);
	if (r < 0) {
		unreadable += r == -ENOTSUP;
		cr_log_info("%s: does not open (%s)", path, profdb_error_message());
		return 0;
	}
	uint32_t m;
	profdb_combine rule;
	int additive;
	if (!pick_metric(db, &m, &rule, &additive)) {
		cr_log_info("%s: no metric to build a view of", path);
		profdb_close(db);
		return 0;
	}
	double total = 0;
	int64_t nodes[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++) {
		profdb_tree *t = build(db, (profdb_tree_kind)k, m, 0);
		char what[4200];
		snprintf(what, sizeof what, "%s view %d metric %u", path, k, m);
		nodes[k] = profdb_tree_count(t);
		if (additive)
			check_child_le_parent(t, what);
		/* Callgrind's expanded view: self cost and calls add up to at most
		 * the inclusive cost (elsewhere a function's exclusive value may
		 * hold its loops and lines, which are children too) */
		if (additive && k == PROFDB_TREE_TOP_DOWN && profdb_get_cg(db))
			check_fits(t);
		double root = inc_of(t, 0);
		if (k == 0)
			total = root;
		else if (additive && !isnan(total))
			cr_assert_eq(root, total, "%s: root %.17g, top-down total %.17g", what, root, total);
		profdb_tree_free(t);
	}
	cr_log_info("%s: metric %u, %" PRId64 " / %" PRId64 " / %" PRId64 " nodes", path, m,
	            nodes[0], nodes[1], nodes[2]);
	profdb_close(db);
	return 1;
}

/* ---- the values of a view equal the per-context scopes ------------------------------- */

/* What a context's scope combined over @p profiles is, asked the slow way:
 * profdb_inclusive/profdb_exclusive per profile, combined in ascending
 * profile order by @p rule (a missing value takes no part). *found: some
 * profile has one; *out = 0 when none does. */
static int per_context(const profdb *db, const uint32_t *profiles, size_t np, uint32_t ctx,
                       uint32_t metric, profdb_combine rule, int inclusive, double *out)
{
	double acc = 0;
	int found = 0;
	for (size_t i = 0; i < np; i++) {
		profdb_number x;
		int r = (inclusive ? profdb_inclusive : profdb_exclusive)(db, profiles[i], ctx, metric,
		                                                          &x);
		if (r == -ENOTSUP)
			return r;
		cr_assert_geq(r, 0, "context %u metric %u: %s", ctx, metric, profdb_error_message());
		if (r == 0)
			continue;
		double v = profdb_number_to_double(x);
		acc = !found ? v : rule == PROFDB_COMBINE_MIN ? (v < acc ? v : acc)
		    : rule == PROFDB_COMBINE_MAX ? (v > acc ? v : acc) : acc + v;
		found = 1;
	}
	*out = acc;
	return found;
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* Every context node of the top-down view of @p metric over @p profiles
 * holds, bit for bit, the per-context combination of its scopes (the view
 * asks a backend for all contexts in one pass where it can: Cube). The
 * inclusive value of a context where no profile has one is left out (the
 * view gives it its children's). Returns the nodes compared. */
static int64_t check_scopes(const profdb *db, uint32_t metric, profdb_combine rule,
                            const uint32_t *profiles, size_t np, const char *path)
{
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	o.metrics = &metric;
	o.n_metrics = 1;
	o.profiles = profiles;
	o.n_profiles = np;
	profdb_tree *t;
	if (profdb_tree_new(&t, db, &o) < 0)
		return 0;   /* a metric that cannot make a view (derived, no scope) */
	int64_t n = profdb_tree_count(t), checked = 0;
	for (int64_t i = 0; i < n; i++) {
		profdb_node nd;
		cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &nd), 0);
		if (nd.context == PROFDB_NONE)
			continue;
		double inc = inc_of(t, (uint32_t)i), exc = exc_of(t, (uint32_t)i), want;
		int f = per_context(db, profiles, np, nd.context, metric, rule, 1, &want);
		cr_assert(f <= 0 || same_bits(inc, want), "%s metric %u context %u: inclusive %.17g, "
		          "per context %.17g", path, metric, nd.context, inc, want);
		if (f == -ENOTSUP)
			cr_assert(isnan(inc), "%s metric %u: no inclusive scope, yet %.17g", path, metric,
			          inc);
		f = per_context(db, profiles, np, nd.context, metric, rule, 0, &want);
		cr_assert(f == -ENOTSUP ? isnan(exc) : same_bits(exc, want), "%s metric %u context %u: "
		          "exclusive %.17g, per context %.17g", path, metric, nd.context, exc, want);
		checked++;
	}
	profdb_tree_free(t);
	return checked;
}

/* Every metric with data, over all profiles (when the metric combines),
 * the last profile alone and the first three. */
static int check_sample_scopes(const char *path)
{
	profdb *db;
	if (profdb_open(&db, path, NULL) < 0) {
		unreadable += 1;
		return 0;
	}
	int64_t nmet = profdb_metric_count(db), np = profdb_profile_count(db), checked = 0;
	uint32_t *all = malloc(((size_t)np + 1) * sizeof *all);
	cr_assert_not_null(all);
	for (int64_t p = 0; p < np; p++)
		all[p] = (uint32_t)p;
	for (int64_t i = 0; np > 0 && i < nmet; i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &m), 0);
		if (!m.has_data)
			continue;
		if (m.combine != PROFDB_COMBINE_NONE)
			checked += check_scopes(db, m.id, m.combine, all, (size_t)np, path);
		checked += check_scopes(db, m.id, m.combine, all + np - 1, 1, path);
		if (m.combine != PROFDB_COMBINE_NONE && np >= 3)
			checked += check_scopes(db, m.id, m.combine, all, 3, path);
	}
	free(all);
	cr_log_info("%s: %" PRId64 " context nodes equal to their per-context scopes", path, checked);
	profdb_close(db);
	return checked > 0;
}

static void check_scope_dirs(const char *rel)
{
	tc_check_samples(rel, 1, check_sample_scopes, &unreadable);
}

static void check_files(const char *rel)
{
	tc_check_samples(rel, 0, check_sample, &unreadable);
}

static void check_dirs(const char *rel)
{
	tc_check_samples(rel, 1, check_sample, &unreadable);
}

Test(tree_real, hpctoolkit_v4) { check_dirs("hpctoolkit/v4"); }
Test(tree_real, hpctoolkit_devstage) { check_dirs("hpctoolkit/v4-devstage"); }
Test(tree_real, hpctoolkit_prerelease) { check_dirs("hpctoolkit/prerelease"); }
Test(tree_real, hpcrun) { check_dirs("hpctoolkit/hpcrun"); }
#ifdef PROFDB_HAVE_CUBE
Test(tree_real, cube) { check_dirs("cube"); }

/* MetaCG-001: max_time is a MAXDOUBLE metric over 8 locations; the root
 * takes the maximum of the locations' inclusive values (Cube shows 4.3311),
 * not their sum (34.56). */
Test(tree_real, cube_max_time)
{
	char *path = tc_sample_path("cube/MetaCG-001.cubex");
	profdb *db;
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
	profdb_metric m;
	cr_assert_eq(profdb_metric_find(db, "max_time", &m), 0);
	cr_assert_eq(m.combine, PROFDB_COMBINE_MAX);
	profdb_tree *t = build(db, PROFDB_TREE_TOP_DOWN, m.id, 0);
	cr_assert_lt(fabs(inc_of(t, 0) - 4.3311), 5e-5, "root %.17g", inc_of(t, 0));
	profdb_tree_free(t);
	profdb_close(db);
	free(path);
}
#endif
Test(tree_real, scopes_hpctoolkit_v4) { check_scope_dirs("hpctoolkit/v4"); }
Test(tree_real, scopes_hpctoolkit_prerelease) { check_scope_dirs("hpctoolkit/prerelease"); }
Test(tree_real, scopes_hpcrun) { check_scope_dirs("hpctoolkit/hpcrun"); }
#ifdef PROFDB_HAVE_CUBE
Test(tree_real, scopes_cube) { check_scope_dirs("cube"); }
#endif
Test(tree_real, callgrind_valgrind) { check_files("callgrind/valgrind"); }
Test(tree_real, callgrind_public) { check_files("callgrind/public"); }
Test(tree_real, callgrind_edge) { check_files("callgrind/edge"); }
Test(tree_real, callgrind_big) { tc_skip_big_under_asan(); check_files("callgrind/big"); }

TC_MAIN
