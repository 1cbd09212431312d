/* Call edges (profdb_edge_*, include/profdb/analysis.h) and "every cost
 * stored once": Callgrind edges on hand-written profiles with
 * known calls= lines (sites, counts, costs per profile and summed, the
 * functions-only open), tree-format edges on the writer's HPCToolkit and
 * Cube samples, and on every real sample of every format the totals
 * invariant (tests/edge-check.c) and the edges: Callgrind's against the
 * format's own call table (profdb_cg_call_get), the tree formats' against
 * an independent reading of the tree. tests/cg_function_check.py checks
 * Callgrind's edges against the calls= lines read by an independent
 * parser. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb-config.h"
#include "common.h"
#include "edge-check.h"
#include "query-check.h"
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif

TestSuite(edges, .timeout = 120);
TestSuite(edges_real, .timeout = 900);

/* main (1) calls a (2) from line 2, where it has a self cost (a site),
 * and from line 3, where it has none; b (3) from line 3; a calls b from
 * line 5 (a site). Part 2 calls a from line 2 again. */
static const char calls_text[] =
	"# callgrind format\n"
	"positions: line\n"
	"part: 1\n"
	"events: Ir Dr\n"
	"fl=(1) prog.c\n"
	"fn=(1) main\n"
	"1 10 1\n"
	"2 3\n"
	"cfn=(2) a\n"
	"calls=1 5\n"
	"2 90 9\n"
	"cfn=(2)\n"
	"calls=2 5\n"
	"3 40 4\n"
	"cfn=(3) b\n"
	"calls=2 6\n"
	"3 45 4\n"
	"fn=(2)\n"
	"5 60 6\n"
	"cfn=(3)\n"
	"calls=4 11\n"
	"5 30 3\n"
	"fn=(3)\n"
	"10 75 7\n"
	"part: 2\n"
	"events: Ir Dr\n"
	"fl=(1)\n"
	"fn=(1)\n"
	"1 1 1\n"
	"cfn=(2)\n"
	"calls=3 5\n"
	"2 7 1\n"
	"fn=(2)\n"
	"5 7 1\n";

static profdb *open_text(const void *text, size_t n, unsigned flags)
{
	profdb_input in = {"callgrind.out.1", text, n};
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = flags;
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, &in, 1, &o);
	cr_assert_eq(r, 0, "open: %d %s", r, profdb_error_message());
	return db;
}

static uint64_t cost(const profdb *db, uint64_t i, uint32_t p, uint32_t m, int want_r)
{
	profdb_number v;
	int r = profdb_edge_inclusive(db, p, i, m, &v);
	cr_assert_eq(r, want_r, "edge %" PRIu64 " profile %" PRIu32 ": %d %s", i, p, r,
	             profdb_error_message());
	if (r == 0) {
		cr_assert_eq(v.type, PROFDB_TYPE_NONE);
		return 0;
	}
	cr_assert_eq(v.type, PROFDB_TYPE_U64);
	return v.as.u64;
}

static void expect_edge(const profdb *db, uint64_t i, uint32_t caller, uint32_t callee,
                        uint32_t site, uint64_t count)
{
	profdb_edge e;
	cr_assert_eq(profdb_edge_at(db, i, &e), 0);
	cr_assert_eq(e.caller, caller, "edge %" PRIu64, i);
	cr_assert_eq(e.callee, callee, "edge %" PRIu64, i);
	cr_assert_eq(e.site, site, "edge %" PRIu64 ": site %" PRIu32, i, e.site);
	cr_assert_eq(e.has_count, 1);
	cr_assert_eq(e.count, count, "edge %" PRIu64, i);
}

/* The line context of function context @p fn at @p line. */
static uint32_t line_of(const profdb *db, uint32_t fn, uint64_t line)
{
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, fn, &c), 0);
	for (uint32_t id = c.first_child; id != PROFDB_NONE; id = c.next_sibling) {
		cr_assert_eq(profdb_context_get(db, id, &c), 0);
		if (c.type == PROFDB_CTX_LINE && c.line == line)
			return id;
	}
	cr_assert_fail("no line %" PRIu64 " below context %" PRIu32, line, fn);
	return PROFDB_NONE;
}

Test(edges, callgrind_sites_counts_costs)
{
	profdb *db = open_text(calls_text, sizeof calls_text - 1, 0);
	uint32_t m2 = line_of(db, 1, 2), a5 = line_of(db, 2, 5);
	cr_assert_eq(profdb_edge_count(db), 4);
	expect_edge(db, 0, 1, 2, m2, 1 + 3);             /* main:2 -> a, both parts */
	expect_edge(db, 1, 1, 2, PROFDB_NONE, 2);        /* main line 3 -> a: no context there */
	expect_edge(db, 2, 1, 3, PROFDB_NONE, 2);
	expect_edge(db, 3, 2, 3, a5, 4);
	/* costs: the calls= lines' inclusive cost per profile, summed for NONE */
	cr_assert_eq(cost(db, 0, 0, 0, 1), 90);
	cr_assert_eq(cost(db, 0, 1, 0, 1), 7);
	cr_assert_eq(cost(db, 0, PROFDB_NONE, 0, 1), 97);
	cr_assert_eq(cost(db, 0, PROFDB_NONE, 1, 1), 10);
	cr_assert_eq(cost(db, 1, 0, 1, 1), 4);
	cr_assert_eq(cost(db, 2, 1, 0, 0), 0);           /* no such calls in part 2 */
	cr_assert_eq(cost(db, 3, 0, 0, 1), 30);
	/* the edges of one (caller, callee) add up to the format's call edge */
	const profdb_cg *cg = profdb_get_cg(db);
	int64_t nc = profdb_cg_call_count(cg);
	for (int64_t k = 0; k < nc; k++) {
		profdb_cg_call call;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)k, &call), 1);
		uint64_t count = 0, ir = 0;
		for (uint64_t i = 0; i < 4; i++) {
			profdb_edge e;
			cr_assert_eq(profdb_edge_at(db, i, &e), 0);
			if (e.caller == call.caller + 1 && e.callee == call.callee + 1) {
				count += e.count;
				ir += cost(db, i, PROFDB_NONE, 0, 1);
			}
		}
		cr_assert_eq(count, call.count);
		cr_assert_eq(ir, call.inclusive[0]);
	}
	profdb_edge e;
	profdb_number v;
	cr_assert_eq(profdb_edge_at(db, 4, &e), -ENOENT);
	cr_assert_eq(profdb_edge_inclusive(db, 2, 0, 0, &v), -ENOENT);   /* no profile 2 */
	cr_assert_eq(profdb_edge_inclusive(db, 0, 0, 2, &v), -ENOENT);   /* no event 2 */
	cr_assert_eq(profdb_edge_inclusive(db, 0, 9, 0, &v), -ENOENT);
	cr_assert_eq(profdb_edge_inclusive(NULL, 0, 0, 0, &v), -EINVAL);
	cr_assert_eq(profdb_edge_inclusive(db, 0, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_edge_at(db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_edge_count(NULL), -EINVAL);
	/* every cost stored once: the lines hold it, the functions do not */
	cr_assert_eq(ec_check_totals(db, "calls_text"), 2);
	cr_assert_eq(profdb_value(db, 0, 1, 0, &v), 0);
	cr_assert_eq(profdb_exclusive(db, 0, 1, 0, &v), 1);
	cr_assert_eq(v.as.u64, 13);
	profdb_close(db);
}

Test(edges, callgrind_functions_only)
{
	profdb *db = open_text(calls_text, sizeof calls_text - 1, PROFDB_OPEN_FUNCTIONS_ONLY);
	cr_assert_eq(profdb_edge_count(db), 3);          /* no line contexts: no sites */
	expect_edge(db, 0, 1, 2, PROFDB_NONE, 1 + 2 + 3);
	expect_edge(db, 1, 1, 3, PROFDB_NONE, 2);
	expect_edge(db, 2, 2, 3, PROFDB_NONE, 4);
	cr_assert_eq(cost(db, 0, 0, 0, 1), 130);
	cr_assert_eq(cost(db, 0, 1, 0, 1), 7);
	cr_assert_eq(cost(db, 0, PROFDB_NONE, 0, 1), 137);
	cr_assert_eq(cost(db, 2, 0, 1, 1), 3);
	cr_assert_eq(cost(db, 2, 1, 0, 0), 0);     /* a calls b in part 1 only */
	/* the functions' self costs are the stored values now */
	profdb_number v;
	cr_assert_eq(profdb_value(db, 0, 1, 0, &v), 1);
	cr_assert_eq(v.as.u64, 13);
	cr_assert_eq(ec_check_totals(db, "calls_text, functions only"), 2);
	profdb_close(db);
}

/* The edges of one context, on each side. */
static void expect_set(const profdb *db, uint32_t ctx, profdb_edge_side side, int64_t n,
                       const uint32_t (*want)[3])
{
	profdb_edge_set *set;
	cr_assert_eq(profdb_edge_set_new(&set, db, &ctx, 1, side), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_edge_set_count(set), n, "context %" PRIu32 " side %d", ctx, (int)side);
	for (int64_t i = 0; i < n; i++) {
		profdb_edge e;
		cr_assert_eq(profdb_edge_set_at(set, (uint64_t)i, &e), 0);
		cr_assert_eq(e.caller, want[i][0], "context %" PRIu32 " edge %" PRId64, ctx, i);
		cr_assert_eq(e.callee, want[i][1], "context %" PRIu32 " edge %" PRId64, ctx, i);
		cr_assert_eq(e.site, want[i][2], "context %" PRIu32 " edge %" PRId64, ctx, i);
	}
	profdb_edge_set_free(set);
}

Test(edges, callgrind_sets)
{
	profdb *db = open_text(calls_text, sizeof calls_text - 1, 0);
	uint32_t m2 = line_of(db, 1, 2), a5 = line_of(db, 2, 5), m1 = line_of(db, 1, 1);
	const uint32_t into_a[][3] = {{1, 2, m2}, {1, 2, PROFDB_NONE}};
	const uint32_t out_of_main[][3] = {{1, 2, m2}, {1, 2, PROFDB_NONE}, {1, 3, PROFDB_NONE}};
	const uint32_t into_b[][3] = {{1, 3, PROFDB_NONE}, {2, 3, a5}};
	const uint32_t at_m2[][3] = {{1, 2, m2}};
	const uint32_t at_a5[][3] = {{2, 3, a5}};
	expect_set(db, 2, PROFDB_EDGES_INTO, 2, into_a);
	expect_set(db, 1, PROFDB_EDGES_OUT_OF, 3, out_of_main);
	expect_set(db, 3, PROFDB_EDGES_INTO, 2, into_b);
	expect_set(db, m2, PROFDB_EDGES_OUT_OF, 1, at_m2);
	expect_set(db, a5, PROFDB_EDGES_OUT_OF, 1, at_a5);
	expect_set(db, m1, PROFDB_EDGES_OUT_OF, 0, NULL);   /* a line without calls */
	expect_set(db, 1, PROFDB_EDGES_INTO, 0, NULL);      /* nobody calls main */
	expect_set(db, 3, PROFDB_EDGES_OUT_OF, 0, NULL);    /* b calls nobody */
	expect_set(db, m2, PROFDB_EDGES_INTO, 0, NULL);     /* a line is no callee */
	expect_set(db, 0, PROFDB_EDGES_INTO, 0, NULL);      /* the root */
	expect_set(db, 0, PROFDB_EDGES_OUT_OF, 0, NULL);
	/* several contexts: each edge once, in the table's order */
	const uint32_t main_a5[] = {a5, 1, a5};
	const uint32_t out_of_both[][3] = {{1, 2, m2}, {1, 2, PROFDB_NONE}, {1, 3, PROFDB_NONE},
	                                   {2, 3, a5}};
	profdb_edge_set *set;
	cr_assert_eq(profdb_edge_set_new(&set, db, main_a5, 3, PROFDB_EDGES_OUT_OF), 0);
	cr_assert_eq(profdb_edge_set_count(set), 4);
	for (uint64_t i = 0; i < 4; i++) {
		profdb_edge e;
		cr_assert_eq(profdb_edge_set_at(set, i, &e), 0);
		cr_assert(e.caller == out_of_both[i][0] && e.callee == out_of_both[i][1] &&
		          e.site == out_of_both[i][2], "edge %" PRIu64, i);
	}
	profdb_edge_set_free(set);
	const uint32_t m2_main[] = {m2, 1};
	cr_assert_eq(profdb_edge_set_new(&set, db, m2_main, 2, PROFDB_EDGES_OUT_OF), 0);
	cr_assert_eq(profdb_edge_set_count(set), 3);   /* main's calls; m2's among them */
	profdb_edge_set_free(set);
	cr_assert_eq(profdb_edge_set_new(&set, db, NULL, 0, PROFDB_EDGES_INTO), 0);
	cr_assert_eq(profdb_edge_set_count(set), 0);
	profdb_edge_set_free(set);
	/* the costs are the table's */
	const uint32_t b = 3;
	cr_assert_eq(profdb_edge_set_new(&set, db, &b, 1, PROFDB_EDGES_INTO), 0);
	profdb_number v;
	cr_assert_eq(profdb_edge_set_inclusive(set, 0, 1, 0, &v), 1);
	cr_assert_eq(v.type, PROFDB_TYPE_U64);
	cr_assert_eq(v.as.u64, 30);
	cr_assert_eq(profdb_edge_set_inclusive(set, 1, 0, 0, &v), 0);   /* none in part 2 */
	cr_assert_eq(v.type, PROFDB_TYPE_NONE);
	cr_assert_eq(profdb_edge_set_inclusive(set, PROFDB_NONE, 0, 1, &v), 1);
	cr_assert_eq(v.as.u64, 4);
	cr_assert_eq(profdb_edge_set_inclusive(set, 0, 2, 0, &v), -ENOENT);   /* no edge 2 */
	cr_assert_eq(profdb_edge_set_inclusive(set, 2, 0, 0, &v), -ENOENT);   /* no profile 2 */
	cr_assert_eq(profdb_edge_set_inclusive(set, 0, 0, 2, &v), -ENOENT);   /* no event 2 */
	cr_assert_eq(profdb_edge_set_inclusive(NULL, 0, 0, 0, &v), -EINVAL);
	cr_assert_eq(profdb_edge_set_inclusive(set, 0, 0, 0, NULL), -EINVAL);
	profdb_edge e;
	cr_assert_eq(profdb_edge_set_at(set, 2, &e), -ENOENT);
	cr_assert_eq(profdb_edge_set_at(set, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_edge_set_at(NULL, 0, &e), -EINVAL);
	cr_assert_eq(profdb_edge_set_count(NULL), -EINVAL);
	profdb_edge_set_free(set);
	profdb_edge_set_free(NULL);
	/* refused: no such context (among others), no such side, NULL */
	const uint32_t bad[] = {1, 999999};
	set = (profdb_edge_set *)&e;
	cr_assert_eq(profdb_edge_set_new(&set, db, bad, 2, PROFDB_EDGES_INTO), -ENOENT);
	cr_assert_null(set);
	cr_assert_eq(profdb_edge_set_new(&set, db, bad, 1, (profdb_edge_side)2), -EINVAL);
	cr_assert_eq(profdb_edge_set_new(&set, NULL, bad, 1, PROFDB_EDGES_INTO), -EINVAL);
	cr_assert_eq(profdb_edge_set_new(NULL, db, bad, 1, PROFDB_EDGES_INTO), -EINVAL);
	cr_assert_eq(profdb_edge_set_new(&set, db, NULL, 1, PROFDB_EDGES_INTO), -EINVAL);
	cr_assert_gt(ec_check_edge_sets(db, 64, "calls_text"), 1);
	profdb_close(db);
}

Test(edges, callgrind_sets_functions_only)
{
	profdb *db = open_text(calls_text, sizeof calls_text - 1, PROFDB_OPEN_FUNCTIONS_ONLY);
	const uint32_t into_b[][3] = {{1, 3, PROFDB_NONE}, {2, 3, PROFDB_NONE}};
	expect_set(db, 3, PROFDB_EDGES_INTO, 2, into_b);
	cr_assert_gt(ec_check_edge_sets(db, 64, "calls_text, functions only"), 1);
	profdb_close(db);
}

/* Threads asking for the edges at once all get the one table. */
static void *count_edges(void *arg)
{
	return (void *)(intptr_t)profdb_edge_count(arg);
}

Test(edges, callgrind_threads)
{
	profdb *db = open_text(calls_text, sizeof calls_text - 1, 0);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, count_edges, db), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		cr_assert_eq(pthread_join(t[i], &r), 0);
		cr_assert_eq((intptr_t)r, 4);
	}
	profdb_close(db);
}

Test(edges, no_calls)
{
	static const char text[] = "events: Ir\nfn=main\n1 5\n";
	profdb *db = open_text(text, sizeof text - 1, 0);
	cr_assert_eq(profdb_edge_count(db), 0);
	profdb_number v;
	cr_assert_eq(profdb_edge_inclusive(db, 0, 0, 0, &v), -ENOENT);
	profdb_close(db);
}

#ifdef HAVE_TEST_WRITER
Test(edges, hpctoolkit_sample)
{
	char dir[] = "/tmp/profdb-edges-XXXXXX";
	cr_assert(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	int64_t n = ec_check_tree_edges(db, INT64_MAX, "hpctk4 sample");
	cr_assert_geq(n, 5, "the sample has calls to main, compute, helper, memcpy, ...");
	cr_assert_gt(ec_check_edge_sets(db, 64, "hpctk4 sample"), 1);
	profdb_edge e;
	for (int64_t i = 0; i < n; i++) {
		cr_assert_eq(profdb_edge_at(db, (uint64_t)i, &e), 0);
		cr_assert_eq(e.has_count, 0, "HPCToolkit records no call counts");
	}
	profdb_close(db);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

#ifdef PROFDB_HAVE_CUBE
Test(edges, cube_sample_visits)
{
	tw_blob t;
	memset(&t, 0, sizeof t);
	cr_assert_eq(tw_cube_write(&t, 0, NULL), 0);
	profdb_input in = {"sample.cubex", t.data, t.size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	int64_t n = ec_check_tree_edges(db, INT64_MAX, "cube sample");
	cr_assert_gt(n, 0);
	profdb_metric visits;
	cr_assert_eq(profdb_metric_find(db, "visits", &visits), 0);
	int64_t np = profdb_profile_count(db);
	for (int64_t i = 0; i < n; i++) {
		profdb_edge e;
		cr_assert_eq(profdb_edge_at(db, (uint64_t)i, &e), 0);
		cr_assert_eq(e.has_count, 1);
		uint64_t want = 0;
		for (int64_t p = 0; p < np; p++) {
			profdb_number v;
			if (profdb_value(db, (uint32_t)p, e.callee, visits.id, &v) == 1)
				want += v.as.u64;
		}
		cr_assert_eq(e.count, want, "edge %" PRId64 ": visits", i);
	}
	cr_assert_gt(ec_check_totals(db, "cube sample"), 0);
	cr_assert_gt(ec_check_edge_sets(db, 64, "cube sample"), 1);
	profdb_close(db);
	tw_blob_free(&t);
}
#endif
#endif

/* ---- every real sample ----------------------------------------------------------- */

/* The first edge at or after (caller, callee), by binary search. */
static uint64_t lower_bound(const profdb *db, uint64_t n, uint32_t caller, uint32_t callee)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		profdb_edge e;
		cr_assert_eq(profdb_edge_at(db, mid, &e), 0);
		if (e.caller < caller || (e.caller == caller && e.callee < callee))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Callgrind: the edges of each (caller, callee) add up to the format's call
 * edge, count and every event, in every profile and summed; sites are line
 * contexts of the caller; no edge is left over. */
static void check_cg_edges(const profdb *db, const char *what)
{
	const profdb_cg *cg = profdb_get_cg(db);
	int64_t n = profdb_edge_count(db), nc = profdb_cg_call_count(cg);
	int64_t ne = profdb_cg_event_count(cg), np = profdb_profile_count(db);
	cr_assert_geq(n, nc, "%s: %s", what, profdb_error_message());
	uint64_t covered = 0;
	for (int64_t k = 0; k < nc; k++) {
		profdb_cg_call call;
		profdb_edge e;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)k, &call), 1);
		uint64_t first = lower_bound(db, (uint64_t)n, call.caller + 1, call.callee + 1), i;
		uint64_t count = 0;
		for (i = first; i < (uint64_t)n; i++) {
			cr_assert_eq(profdb_edge_at(db, i, &e), 0);
			if (e.caller != call.caller + 1 || e.callee != call.callee + 1)
				break;
			cr_assert_eq(e.has_count, 1);
			count += e.count;
			if (e.site != PROFDB_NONE) {
				profdb_context s;
				cr_assert_eq(profdb_context_get(db, e.site, &s), 0);
				cr_assert_eq(s.parent, e.caller, "%s: site outside its caller", what);
			}
		}
		cr_assert_gt(i, first, "%s: call %" PRId64 " (%" PRIu32 " -> %" PRIu32 ") has no edge",
		             what, k, call.caller, call.callee);
		covered += i - first;
		cr_assert_eq(count, call.count, "%s: call %" PRId64 " count", what, k);
		for (int64_t p = -1; p < np; p++) {
			profdb_cg_call pc;
			uint32_t prof = p < 0 ? PROFDB_NONE : (uint32_t)p;
			cr_assert_geq(profdb_cg_call_get(cg, p < 0 ? PROFDB_CG_ALL : prof, (uint32_t)k, &pc), 0);
			for (int64_t m = 0; m < ne; m++) {
				uint64_t sum = 0;
				for (uint64_t j = first; j < i; j++) {
					profdb_number v;
					if (profdb_edge_inclusive(db, prof, j, (uint32_t)m, &v) == 1)
						sum += v.as.u64;
				}
				cr_assert_eq(sum, pc.inclusive[m], "%s: call %" PRId64 " profile %" PRId64
				             " event %" PRId64, what, k, p, m);
			}
		}
	}
	cr_assert_eq(covered, (uint64_t)n, "%s: edges without a call", what);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* 1 checked, 0 not a profile or refused by its reader (its own tests' business). */
static int check_one(const char *path, int64_t *metrics)
{
	profdb *db;
	if (profdb_open(&db, path, NULL) < 0)
		return 0;
	profdb_about about;
	cr_assert_eq(profdb_get_about(db, &about), 0);
	*metrics += ec_check_totals(db, path);
	int64_t n_edges = profdb_edge_count(db);
	if (about.format == PROFDB_FORMAT_CALLGRIND)
		check_cg_edges(db, path);
	else
		ec_check_tree_edges(db, 64, path);
	cr_assert_geq(ec_check_edge_sets(db, 24, path), n_edges > 0);
	profdb_close(db);
	return 1;
}

/* @p need_totals: the folder must have a metric the totals invariant
 * applies to (HPCToolkit's dev-stage and pre-release databases store no
 * point values in thread profiles, so there it may have none). */
static void check_list(char **list, size_t n, const char *rel, int need_totals)
{
	int checked = 0;
	int64_t metrics = 0;
	for (size_t i = 0; i < n; i++)
		if (!ends_with(list[i], ".md") && !ends_with(list[i], ".csv"))
			checked += check_one(list[i], &metrics);
	tc_free_list(list);
	if (checked == 0)
		cr_skip_test("%s: nothing this build opens", rel);
	cr_log_info("%s: %d samples, %" PRId64 " metric totals checked", rel, checked, metrics);
	if (need_totals)
		cr_assert_gt(metrics, 0, "%s: no metric total checked", rel);
}

static void check_dbs(const char *rel, int need_totals)
{
	free(tc_sample_path(rel));   /* skips when absent */
	size_t n;
	char **list = tc_list_dbs(rel, &n);
	check_list(list, n, rel, need_totals);
}

static void check_files(const char *rel)
{
	free(tc_sample_path(rel));
	size_t n;
	char **list = tc_list_files(rel, &n);
	check_list(list, n, rel, 1);
}

/* hpcrun measurements are directories of files, not databases. */
static void check_dirs(const char *rel)
{
	char *root = tc_sample_path(rel);
	DIR *d = opendir(root);
	cr_assert_not_null(d, "%s", root);
	size_t n = 0;
	char **list = calloc(256, sizeof *list);
	struct dirent *e;
	while ((e = readdir(d)) && n < 255)
		if (e->d_name[0] != '.')
			cr_assert(asprintf(&list[n++], "%s/%s", root, e->d_name) >= 0);
	closedir(d);
	free(root);
	check_list(list, n, rel, 1);
}

Test(edges_real, hpctoolkit_v4) { check_dbs("hpctoolkit/v4", 1); }
Test(edges_real, hpctoolkit_devstage) { check_dbs("hpctoolkit/v4-devstage", 0); }
Test(edges_real, hpctoolkit_prerelease) { check_dbs("hpctoolkit/prerelease", 0); }
Test(edges_real, hpctoolkit_xml)
{
#ifndef PROFDB_HAVE_EXPAT
	cr_skip_test("built without expat: experiment.xml cannot be read");
#endif
	/* database folders have no meta.db or profile.db: every folder */
	char *root = tc_sample_path("hpctoolkit/xml");
	DIR *d = opendir(root);
	cr_assert_not_null(d, "%s", root);
	size_t n = 0;
	char **list = calloc(64, sizeof *list);
	struct dirent *e;
	while ((e = readdir(d)) && n < 63)
		if (e->d_name[0] != '.' && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) &&
		    !strstr(e->d_name, ".md"))
			cr_assert(asprintf(&list[n++], "%s/%s", root, e->d_name) >= 0);
	closedir(d);
	free(root);
	check_list(list, n, "hpctoolkit/xml", 0);
}
Test(edges_real, hpcrun) { check_dirs("hpctoolkit/hpcrun"); }
Test(edges_real, cube) { check_files("cube"); }
Test(edges_real, callgrind_edge) { check_files("callgrind/edge"); }
Test(edges_real, callgrind_public) { check_files("callgrind/public"); }
Test(edges_real, callgrind_valgrind) { check_files("callgrind/valgrind"); }
Test(edges_real, callgrind_big) { tc_skip_big_under_asan(); check_files("callgrind/big"); }

TC_MAIN
