/* Statistics in parts (profdb/analysis.h, doc/model.md "Statistics in
 * parts"): profdb_stats_accs, options.start, profdb_stats_acc_add,
 * profdb_stats_acc_merge and profdb_stats_from_accs, on generated
 * HPCToolkit 4.0 databases whose values are drawn from small pools so that
 * ties of min and max, NaN, infinities, values that round (1e16 next to
 * 0.5) and empty profiles all occur. The reference is always one
 * profdb_stats_new() over every profile:
 *  - a fold continued with `start` gives the same bits, at every split
 *    point, in two and three parts, with an empty part;
 *  - parts merged with acc_merge agree exactly on count, min, max and
 *    their profiles, and on sum and mean within 2 gamma_{n-1} sum|v|;
 *  - acc_add is the pass's fold, value by value;
 *  - from_accs finishes exactly as the pass does and refuses bad lists. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "writer.h"

TestSuite(stats_parts);

/* ---- a generated database --------------------------------------------------- */

enum { NP = 14, NCTX = 9, NMET = 2 };   /* profiles 1..NP; context ids 0..NCTX-1 */

/* Metric 0 "T": finite values only, magnitudes far apart so that the
 * order of the additions shows; metric 1 "U": NaN, infinities and ties. */
static const double pool_t[] = {1, 2, 2, 3, -1, 0.5, 1e16, 1e-3, 7, 3};
static const double pool_u[] = {1, 1, NAN, INFINITY, -INFINITY, 4, 4, -2, NAN, 0};

typedef struct gen {
	tw_blob b[TW_NFILES];
	profdb *db;
	/* value[p][c][m], present[p][c][m]: what the database stores */
	double value[NP + 1][NCTX][NMET];
	int present[NP + 1][NCTX][NMET];
} gen;

static const tw_scope scopes[] = {{"execution", 2, 255}};
static const tw_propagation props_t[] = {{0, 0}}, props_u[] = {{0, 1}};
static const tw_metric metrics[] = {{"T", 1, props_t, 0, NULL}, {"U", 1, props_u, 0, NULL}};
static const tw_function functions[] = {{"main", -1, 0, -1, 0}};
static const tw_context contexts[] = {
	{1, -1, 1, 0, -1, -1, 0, -1, 0, 0, 1, NULL},
	{2, 0, 1, 0, 0, -1, 0, -1, 0, 0, 0, NULL},
	{3, 1, 0, 1, -1, -1, 0, -1, 0, 1, 0, NULL},
	{4, 2, 0, 2, -1, -1, 0, -1, 0, 1, 0, NULL},
};

/* Profiles 3, 8 and 13 store nothing (empty parts at some splits). */
static int empty_profile(int p)
{
	return p % 5 == 3;
}

static void gen_open(gen *g, uint64_t seed)
{
	static tw_value vals[NP + 1][NCTX * NMET];
	static tw_id ids[NP + 1][2];
	tw_profile profiles[NP + 1];
	tc_rng r = {seed};
	memset(g, 0, sizeof *g);
	profiles[0] = (tw_profile){1, 0, NULL, 0, NULL};
	for (int p = 1; p <= NP; p++) {
		size_t n = 0;
		for (int c = 0; c < NCTX && !empty_profile(p); c++)
			for (int m = 0; m < NMET; m++) {
				if (tc_below(&r, 10) < 4)
					continue;
				double v = m == 0 ? pool_t[tc_below(&r, 10)] : pool_u[tc_below(&r, 10)];
				g->value[p][c][m] = v;
				g->present[p][c][m] = 1;
				vals[p][n++] = (tw_value){(uint32_t)c, (uint16_t)m, v};
			}
		ids[p][0] = (tw_id){1, 1, 0, 0x7f000001};
		ids[p][1] = (tw_id){3, 0, (uint32_t)p, (uint64_t)p};
		profiles[p] = (tw_profile){0, 2, ids[p], n, vals[p]};
	}
	tw_hpctk4 d;
	memset(&d, 0, sizeof d);
	d.title = "stats parts";
	d.n_scopes = 1;
	d.scopes = scopes;
	d.n_metrics = NMET;
	d.metrics = metrics;
	d.n_functions = 1;
	d.functions = functions;
	d.n_contexts = 4;
	d.contexts = contexts;
	d.n_profiles = NP + 1;
	d.profiles = profiles;
	d.no_trace = 1;
	cr_assert_eq(tw_hpctk4_write(&d, g->b), 0);
	profdb_input in[] = {{"meta.db", g->b[TW_META].data, g->b[TW_META].size},
	                     {"profile.db", g->b[TW_PROFILE].data, g->b[TW_PROFILE].size},
	                     {"cct.db", g->b[TW_CCT].data, g->b[TW_CCT].size}};
	cr_assert_eq(profdb_open_inputs(&g->db, in, 3, NULL), 0, "%s", profdb_error_message());
}

static void gen_close(gen *g)
{
	profdb_close(g->db);
	for (int i = 0; i < TW_NFILES; i++)
		tw_blob_free(&g->b[i]);
}

static const uint32_t all_metrics[] = {0, 1};

/* Statistics over profiles lo..hi-1 (1-based profile indices), continuing
 * from @p start. An empty range is an empty, non-NULL selection. */
static profdb_stats *part(const gen *g, uint32_t lo, uint32_t hi, const profdb_stats_acc *start,
                          size_t n_start, unsigned threads)
{
	uint32_t prof[NP + 1];
	for (uint32_t p = lo; p < hi; p++)
		prof[p - lo] = p;
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	o.profiles = prof;
	o.n_profiles = hi - lo;
	o.metrics = all_metrics;
	o.n_metrics = NMET;
	o.threads = threads;
	o.start = start;
	o.n_start = n_start;
	o.start_profiles = lo - 1;   /* profiles 1 .. lo-1 came before */
	profdb_stats *s;
	int r = profdb_stats_new(&s, g->db, &o);
	cr_assert_eq(r, 0, "profiles %u..%u: %d %s", lo, hi, r, profdb_error_message());
	return s;
}

/* A result's accumulators (malloc'ed; *n gets the count). */
static profdb_stats_acc *accs_of(const profdb_stats *s, size_t *n)
{
	int64_t k = profdb_stats_accs(s, NULL, 0);
	cr_assert_geq(k, 0);
	profdb_stats_acc *a = malloc(((size_t)k + 1) * sizeof *a);
	cr_assert_not_null(a);
	cr_assert_eq(profdb_stats_accs(s, a, (size_t)k), k);
	*n = (size_t)k;
	return a;
}

/* Both results hold the same rows and accumulators, bit for bit. */
static void expect_same_bits(const profdb_stats *got, const profdb_stats *want, const char *what)
{
	int64_t n = profdb_stats_count(want);
	cr_assert_eq(profdb_stats_count(got), n, "%s: %lld rows, want %lld", what,
	             (long long)profdb_stats_count(got), (long long)n);
	for (int64_t i = 0; i < n; i++) {
		profdb_stat a, b;
		cr_assert_eq(profdb_stats_at(got, (uint64_t)i, &a), 0);
		cr_assert_eq(profdb_stats_at(want, (uint64_t)i, &b), 0);
		cr_assert(memcmp(&a, &b, sizeof a) == 0,
		          "%s: row %lld (context %u, metric %u) differs: sum %.17g/%.17g stddev "
		          "%.17g/%.17g min@%u/%u", what, (long long)i, b.context, b.metric, a.sum, b.sum,
		          a.stddev, b.stddev, a.min_profile, b.min_profile);
	}
	size_t na, nb;
	profdb_stats_acc *aa = accs_of(got, &na), *ab = accs_of(want, &nb);
	cr_assert_eq(na, nb);
	cr_assert(na == 0 || memcmp(aa, ab, na * sizeof *aa) == 0, "%s: accumulators differ", what);
	free(aa);
	free(ab);
}

/* ---- options.start: the same bits as one pass ------------------------------------ */

Test(stats_parts, start_continues_bit_for_bit)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		gen g;
		gen_open(&g, seed);
		profdb_stats *whole = part(&g, 1, NP + 1, NULL, 0, 1);
		cr_assert_gt(profdb_stats_count(whole), 10);
		/* every split point, the empty first and second parts included */
		for (uint32_t k = 1; k <= NP + 1; k++) {
			profdb_stats *a = part(&g, 1, k, NULL, 0, 1);
			size_t n;
			profdb_stats_acc *acc = accs_of(a, &n);
			profdb_stats *b = part(&g, k, NP + 1, acc, n, 1 + k % 3);
			char what[64];
			snprintf(what, sizeof what, "seed %llu, split at %u", (unsigned long long)seed, k);
			expect_same_bits(b, whole, what);
			profdb_stats_free(a);
			profdb_stats_free(b);
			free(acc);
		}
		/* three parts: the middle one starts from the first, the last from
		 * the middle (as profdb-mpi --fixed-order chains its ranks) */
		for (uint32_t k = 1; k <= NP; k += 3)
			for (uint32_t j = k; j <= NP + 1; j += 2) {
				profdb_stats *a = part(&g, 1, k, NULL, 0, 1);
				size_t na, nb;
				profdb_stats_acc *aa = accs_of(a, &na);
				profdb_stats *b = part(&g, k, j, aa, na, 2);
				profdb_stats_acc *ab = accs_of(b, &nb);
				profdb_stats *c = part(&g, j, NP + 1, ab, nb, 1);
				expect_same_bits(c, whole, "three parts");
				profdb_stats_free(a);
				profdb_stats_free(b);
				profdb_stats_free(c);
				free(aa);
				free(ab);
			}
		profdb_stats_free(whole);
		gen_close(&g);
	}
}

Test(stats_parts, start_is_checked)
{
	gen g;
	gen_open(&g, 7);
	profdb_stats *a = part(&g, 1, 6, NULL, 0, 1);
	size_t n;
	profdb_stats_acc *acc = accs_of(a, &n);
	cr_assert_gt(n, 2);
	uint32_t later[] = {6, 7, 8}, early[] = {1, 6};
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	profdb_stats *s = (profdb_stats *)1;
	o.profiles = later;
	o.n_profiles = 3;
	o.metrics = all_metrics;
	o.n_metrics = NMET;
	o.start = acc;
	o.n_start = n;
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), 0, "%s", profdb_error_message());
	profdb_stats_free(s);
	/* n_start without start */
	o.start = NULL;
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), -EINVAL);
	cr_assert_null(s);
	o.start = acc;
	/* a profile of the start at or after the first selected profile */
	o.profiles = early;
	o.n_profiles = 2;
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "before the first selected profile"), "%s",
	          profdb_error_message());
	o.profiles = later;
	o.n_profiles = 3;
	/* a metric that is not selected */
	o.n_metrics = 1;
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "not selected"), "%s", profdb_error_message());
	o.n_metrics = NMET;
	/* out of order, repeated, a count of 0 */
	profdb_stats_acc *bad = malloc(n * sizeof *bad);
	cr_assert_not_null(bad);
	o.start = bad;
	memcpy(bad, acc, n * sizeof *bad);
	bad[0] = acc[1];
	bad[1] = acc[0];
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "out of order"), "%s", profdb_error_message());
	memcpy(bad, acc, n * sizeof *bad);
	bad[1] = acc[0];
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), -EINVAL);
	memcpy(bad, acc, n * sizeof *bad);
	bad[1].count = 0;
	cr_assert_eq(profdb_stats_new(&s, g.db, &o), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "count 0"), "%s", profdb_error_message());
	free(bad);
	free(acc);
	profdb_stats_free(a);
	gen_close(&g);
}

/* ---- acc_merge: within the bound of doc/model.md ----------------------------------- */

/* 2 gamma_{n-1} sum|v| of (ctx, metric) over every profile (doc/model.md). */
static double sum_bound(const gen *g, uint32_t ctx, uint32_t m, uint64_t n)
{
	const double u = 0x1p-53;
	double abs_sum = 0;
	for (int p = 1; p <= NP; p++)
		if (g->present[p][ctx][m])
			abs_sum += fabs(g->value[p][ctx][m]);
	double k = (double)(n ? n - 1 : 0);
	return 2 * (k * u / (1 - k * u)) * abs_sum;
}

static int same_or_near(double a, double b, double bound)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b || fabs(a - b) <= bound;
}

/* Merge the sorted lists @p a and @p b (b's profiles after a's) into @p out. */
static size_t merge_lists(const profdb_stats_acc *a, size_t na, const profdb_stats_acc *b,
                          size_t nb, profdb_stats_acc *out)
{
	size_t i = 0, j = 0, n = 0;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1
		        : a[i].metric != b[j].metric ? (a[i].metric < b[j].metric ? -1 : 1)
		        : (a[i].context > b[j].context) - (a[i].context < b[j].context);
		if (c < 0) {
			out[n++] = a[i++];
		} else if (c > 0) {
			out[n++] = b[j++];
		} else {
			out[n] = a[i++];
			cr_assert_eq(profdb_stats_acc_merge(&out[n++], &b[j++]), 0, "%s",
			             profdb_error_message());
		}
	}
	return n;
}

static void expect_merged(const gen *g, const profdb_stats *got, const profdb_stats *want,
                          const char *what)
{
	int64_t n = profdb_stats_count(want);
	cr_assert_eq(profdb_stats_count(got), n, "%s", what);
	for (int64_t i = 0; i < n; i++) {
		profdb_stat a, b;
		profdb_stats_at(got, (uint64_t)i, &a);
		profdb_stats_at(want, (uint64_t)i, &b);
		/* exact */
		cr_assert_eq(a.context, b.context, "%s", what);
		cr_assert_eq(a.metric, b.metric, "%s", what);
		cr_assert_eq(a.count, b.count, "%s", what);
		cr_assert(memcmp(&a.min, &b.min, sizeof a.min) == 0, "%s: row %lld min %g, want %g", what,
		          (long long)i, a.min, b.min);
		cr_assert(memcmp(&a.max, &b.max, sizeof a.max) == 0, "%s: row %lld max", what,
		          (long long)i);
		cr_assert_eq(a.min_profile, b.min_profile, "%s: row %lld min_profile", what, (long long)i);
		cr_assert_eq(a.max_profile, b.max_profile, "%s: row %lld max_profile", what, (long long)i);
		/* within the bound */
		double bound = sum_bound(g, b.context, b.metric, b.count);
		cr_assert(same_or_near(a.sum, b.sum, bound), "%s: row %lld sum %.17g, want %.17g (bound "
		          "%g)", what, (long long)i, a.sum, b.sum, bound);
		cr_assert(same_or_near(a.mean, b.mean, bound / (double)b.count), "%s: row %lld mean",
		          what, (long long)i);
		double mag = fmax(fabs(b.min), fabs(b.max));
		cr_assert(same_or_near(a.stddev, b.stddev, 1e-9 * mag), "%s: row %lld stddev %.17g, "
		          "want %.17g", what, (long long)i, a.stddev, b.stddev);
	}
	/* first_profile is exact too */
	size_t na, nb;
	profdb_stats_acc *aa = accs_of(got, &na), *ab = accs_of(want, &nb);
	for (size_t i = 0; i < na; i++)
		cr_assert_eq(aa[i].first_profile, ab[i].first_profile, "%s", what);
	free(aa);
	free(ab);
}

Test(stats_parts, merge_within_the_bound)
{
	int rounded = 0;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		gen g;
		gen_open(&g, seed);
		profdb_stats *whole = part(&g, 1, NP + 1, NULL, 0, 1);
		for (uint32_t k = 1; k <= NP + 1; k++) {
			profdb_stats *a = part(&g, 1, k, NULL, 0, 1), *b = part(&g, k, NP + 1, NULL, 0, 1);
			size_t na, nb;
			profdb_stats_acc *aa = accs_of(a, &na), *ab = accs_of(b, &nb);
			profdb_stats_acc *m = malloc((na + nb + 1) * sizeof *m);
			cr_assert_not_null(m);
			size_t n = merge_lists(aa, na, ab, nb, m);
			profdb_stats *got;
			cr_assert_eq(profdb_stats_from_accs_over(&got, m, n, g.db, NP), 0, "%s",
			             profdb_error_message());
			expect_merged(&g, got, whole, "two parts merged");
			/* the summation order did change something somewhere */
			for (int64_t i = 0; i < profdb_stats_count(whole); i++) {
				profdb_stat x, y;
				profdb_stats_at(got, (uint64_t)i, &x);
				profdb_stats_at(whole, (uint64_t)i, &y);
				rounded += !isnan(x.sum) && x.sum != y.sum;
			}
			profdb_stats_free(got);
			profdb_stats_free(a);
			profdb_stats_free(b);
			free(aa);
			free(ab);
			free(m);
		}
		profdb_stats_free(whole);
		gen_close(&g);
	}
	/* 1e16 + 0.5 + ... rounds differently in another order: the bound was
	 * exercised, not only exact equality. */
	cr_assert_gt(rounded, 0);
}

static profdb_stats_acc acc_of(uint32_t ctx, uint32_t m, const double *v, const uint32_t *p,
                               size_t n)
{
	profdb_stats_acc a;
	memset(&a, 0, sizeof a);
	a.context = ctx;
	a.metric = m;
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(profdb_stats_acc_add(&a, v[i], p[i]), 0);
	return a;
}

Test(stats_parts, merge_edges)
{
	static const double va[] = {NAN, 3, 1}, vb[] = {1, 5, 5};
	static const uint32_t pa[] = {1, 2, 3}, pb[] = {4, 5, 6};
	profdb_stats_acc a = acc_of(2, 0, va, pa, 3), b = acc_of(2, 0, vb, pb, 3), e, x;
	/* ties keep the earlier holder: min 1 at profile 3 (not 4) */
	x = a;
	cr_assert_eq(profdb_stats_acc_merge(&x, &b), 0);
	cr_assert_eq(x.count, 6);
	cr_assert_eq(x.min, 1);
	cr_assert_eq(x.min_profile, 3);
	cr_assert_eq(x.max, 5);
	cr_assert_eq(x.max_profile, 5);
	cr_assert_eq(x.first_profile, 1);
	cr_assert(isnan(x.sum) && isnan(x.m2));
	/* an empty side leaves the other unchanged */
	memset(&e, 0, sizeof e);
	x = a;
	cr_assert_eq(profdb_stats_acc_merge(&x, &e), 0);
	cr_assert(memcmp(&x, &a, sizeof x) == 0);
	x = e;
	cr_assert_eq(profdb_stats_acc_merge(&x, &b), 0);
	cr_assert(memcmp(&x, &b, sizeof x) == 0);
	/* all NaN on one side: the other's extremes */
	static const double nan2[] = {NAN, NAN};
	profdb_stats_acc n = acc_of(2, 0, nan2, pa, 2);
	cr_assert_eq(n.min_profile, PROFDB_NONE);
	x = n;
	cr_assert_eq(profdb_stats_acc_merge(&x, &b), 0);
	cr_assert_eq(x.min_profile, 4);
	cr_assert_eq(x.max_profile, 5);
	cr_assert_eq(x.first_profile, 1);
	profdb_stats_acc n2 = acc_of(2, 0, nan2, pb, 2);
	x = n;
	cr_assert_eq(profdb_stats_acc_merge(&x, &n2), 0);
	cr_assert_eq(x.min_profile, PROFDB_NONE);
	cr_assert_eq(x.count, 4);
	/* finite values: Chan et al. agrees with the one pass */
	static const double f1[] = {2, 4, 4}, f2[] = {4, 5, 5, 7, 9};
	static const double all[] = {2, 4, 4, 4, 5, 5, 7, 9};
	static const uint32_t pall[] = {1, 2, 3, 4, 5, 6, 7, 8};
	profdb_stats_acc s1 = acc_of(1, 1, f1, pall, 3), s2 = acc_of(1, 1, f2, pall + 3, 5);
	profdb_stats_acc one = acc_of(1, 1, all, pall, 8);
	cr_assert_eq(profdb_stats_acc_merge(&s1, &s2), 0);
	cr_assert_eq(s1.sum, one.sum);
	cr_assert_float_eq(s1.mean, 5, 1e-15);
	cr_assert_float_eq(s1.m2, one.m2, 1e-12);
	cr_assert_float_eq(s1.m2, 32, 1e-12);   /* population variance 4 */
	/* errors */
	x = a;
	b.context = 3;
	cr_assert_eq(profdb_stats_acc_merge(&x, &b), -EINVAL);
	cr_assert(memcmp(&x, &a, sizeof x) == 0);
	b.context = 2;
	b.metric = 1;
	cr_assert_eq(profdb_stats_acc_merge(&x, &b), -EINVAL);
	cr_assert_eq(profdb_stats_acc_merge(NULL, &b), -EINVAL);
	cr_assert_eq(profdb_stats_acc_merge(&x, NULL), -EINVAL);
}

/* ---- acc_add: the pass's fold -------------------------------------------------------- */

/* Bit for bit, except that any NaN equals any NaN: the two are compiled
 * apart (stats.c, stats-run.c), and which operand's NaN an addition keeps
 * (x86 keeps the first's; the sign of inf - inf is the default NaN's) may
 * change when the compiler swaps the operands of a commutative +, as gcc
 * -O2 with the sanitizers does. */
static int same_bits_or_nan(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static int same_acc(const profdb_stats_acc *a, const profdb_stats_acc *b)
{
	return a->context == b->context && a->metric == b->metric && a->count == b->count &&
	       same_bits_or_nan(a->sum, b->sum) && same_bits_or_nan(a->mean, b->mean) &&
	       same_bits_or_nan(a->m2, b->m2) && same_bits_or_nan(a->min, b->min) &&
	       same_bits_or_nan(a->max, b->max) && a->first_profile == b->first_profile &&
	       a->min_profile == b->min_profile && a->max_profile == b->max_profile &&
	       memcmp(a->reserved, b->reserved, sizeof a->reserved) == 0;
}

Test(stats_parts, acc_add_is_the_pass)
{
	gen g;
	gen_open(&g, 11);
	profdb_stats *whole = part(&g, 1, NP + 1, NULL, 0, 2);
	size_t n;
	profdb_stats_acc *acc = accs_of(whole, &n);
	for (size_t i = 0; i < n; i++) {
		profdb_stats_acc a;
		memset(&a, 0, sizeof a);
		a.context = acc[i].context;
		a.metric = acc[i].metric;
		for (uint32_t p = 1; p <= NP; p++)
			if (g.present[p][a.context][a.metric])
				profdb_stats_acc_add(&a, g.value[p][a.context][a.metric], p);
		cr_assert(same_acc(&a, &acc[i]), "context %u metric %u: sum %.17g/%.17g m2 %.17g/%.17g",
		          a.context, a.metric, a.sum, acc[i].sum, a.m2, acc[i].m2);
	}
	free(acc);
	profdb_stats_free(whole);
	gen_close(&g);
}

Test(stats_parts, acc_add_values)
{
	profdb_stats_acc a;
	memset(&a, 0, sizeof a);
	cr_assert_eq(profdb_stats_acc_add(NULL, 1, 0), -EINVAL);
	cr_assert_neq(profdb_error_message()[0], 0);
	/* NaN first: counted and summed, never an extreme */
	cr_assert_eq(profdb_stats_acc_add(&a, NAN, 4), 0);
	cr_assert_eq(a.count, 1);
	cr_assert_eq(a.first_profile, 4);
	cr_assert_eq(a.min_profile, PROFDB_NONE);
	cr_assert_eq(a.max_profile, PROFDB_NONE);
	profdb_stats_acc_add(&a, 3, 5);
	cr_assert_eq(a.min, 3);
	cr_assert_eq(a.max, 3);
	cr_assert_eq(a.min_profile, 5);
	cr_assert_eq(a.max_profile, 5);
	profdb_stats_acc_add(&a, 3, 6);   /* a tie keeps profile 5 */
	profdb_stats_acc_add(&a, -1, 7);
	profdb_stats_acc_add(&a, 8, 9);
	profdb_stats_acc_add(&a, 8, 10);
	cr_assert_eq(a.count, 6);
	cr_assert(isnan(a.sum));
	cr_assert_eq(a.min, -1);
	cr_assert_eq(a.min_profile, 7);
	cr_assert_eq(a.max, 8);
	cr_assert_eq(a.max_profile, 9);
	cr_assert_eq(a.first_profile, 4);
	/* finite: Welford's mean and M2 */
	memset(&a, 0, sizeof a);
	static const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	for (uint32_t i = 0; i < 8; i++)
		profdb_stats_acc_add(&a, v[i], i);
	cr_assert_eq(a.sum, 40);
	cr_assert_eq(a.mean, 5);
	cr_assert_float_eq(a.m2, 32, 1e-12);
	cr_assert_eq(a.min_profile, 0);
	cr_assert_eq(a.max_profile, 7);
	cr_assert_eq(memcmp(a.reserved, (uint32_t[9]){0}, sizeof a.reserved), 0);
	/* finished: stddev 2 */
	profdb_stats *s;
	profdb_stat row;
	cr_assert_eq(profdb_stats_from_accs(&s, &a, 1), 0);
	cr_assert_eq(profdb_stats_get(s, 0, 0, &row), 1);
	cr_assert_eq(row.mean, 5);
	cr_assert_float_eq(row.stddev, 2, 1e-12);
	cr_assert_eq(row.imbalance, 9.0 / 5);
	profdb_stats_free(s);
}

/* ---- from_accs, stats_accs ------------------------------------------------------------- */

Test(stats_parts, from_accs_finishes_as_the_pass)
{
	gen g;
	gen_open(&g, 3);
	profdb_stats *whole = part(&g, 1, NP + 1, NULL, 0, 1);
	size_t n;
	profdb_stats_acc *acc = accs_of(whole, &n);
	profdb_stats *again;
	cr_assert_eq(profdb_stats_from_accs_over(&again, acc, n, g.db, NP), 0, "%s",
	             profdb_error_message());
	expect_same_bits(again, whole, "from_accs_over(accs(s))");
	cr_assert_eq(profdb_stats_profiles(again), NP);
	cr_assert_eq(profdb_stats_profiles(whole), NP);
	/* without the selection's size, every row is over its count */
	profdb_stats *own;
	cr_assert_eq(profdb_stats_from_accs(&own, acc, n), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_stats_profiles(own), 0);
	int fewer = 0;
	for (size_t i = 0; i < n; i++) {
		profdb_stat x, y;
		profdb_stats_at(own, i, &x);
		profdb_stats_at(whole, i, &y);
		cr_assert(isnan(x.sum) || x.mean == x.sum / (double)x.count);
		fewer += x.count < NP && !isnan(x.sum) && x.sum != 0;
		cr_assert(!(x.count < NP && !isnan(x.sum) && x.sum != 0) || x.mean != y.mean);
	}
	cr_assert_gt(fewer, 0);
	profdb_stats_free(own);
	/* a count above the profiles, no database */
	cr_assert_eq(profdb_stats_from_accs_over(&own, acc, n, g.db, 1), -EINVAL);
	cr_assert_eq(profdb_stats_from_accs_over(&own, acc, n, NULL, NP), -EINVAL);
	/* lookups and views work on it as on the pass's result */
	for (uint32_t m = 0; m < NMET; m++) {
		profdb_view va, vb;
		cr_assert_eq(profdb_stats_view(again, m, offsetof(profdb_stat, max), &va), 0);
		cr_assert_eq(profdb_stats_view(whole, m, offsetof(profdb_stat, max), &vb), 0);
		cr_assert_eq(va.count, vb.count);
		cr_assert_gt(va.count, 0);
		cr_assert(memcmp(va.base, vb.base, va.count * va.stride) == 0);
	}
	profdb_stat r;
	cr_assert_eq(profdb_stats_get(again, acc[n - 1].context, acc[n - 1].metric, &r), 1);
	cr_assert_eq(r.count, acc[n - 1].count);
	profdb_stats_free(again);
	/* an empty list is an empty result */
	cr_assert_eq(profdb_stats_from_accs(&again, NULL, 0), 0);
	cr_assert_eq(profdb_stats_count(again), 0);
	profdb_stats_free(again);
	/* refused: unsorted, a duplicate, a count of 0, NULL arguments */
	cr_assert_gt(n, 3);
	profdb_stats *bad = (profdb_stats *)1;
	profdb_stats_acc *wrong = malloc(n * sizeof *wrong);
	cr_assert_not_null(wrong);
	memcpy(wrong, acc, n * sizeof *wrong);
	wrong[1] = acc[2];
	wrong[2] = acc[1];
	cr_assert_eq(profdb_stats_from_accs(&bad, wrong, n), -EINVAL);
	cr_assert_null(bad);
	cr_assert(strstr(profdb_error_message(), "out of order"), "%s", profdb_error_message());
	memcpy(wrong, acc, n * sizeof *wrong);
	wrong[2] = acc[1];
	cr_assert_eq(profdb_stats_from_accs(&bad, wrong, n), -EINVAL);
	memcpy(wrong, acc, n * sizeof *wrong);
	wrong[n - 1].count = 0;
	cr_assert_eq(profdb_stats_from_accs(&bad, wrong, n), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "count 0"), "%s", profdb_error_message());
	free(wrong);
	/* the other metric sorts after: metric 1 context 0 after metric 0 context 8 is fine, the
	 * reverse is not */
	profdb_stats_acc two[2] = {acc[0], acc[0]};
	two[0].count = two[1].count = 1;
	two[0].metric = 0;
	two[0].context = 8;
	two[1].metric = 1;
	two[1].context = 0;
	cr_assert_eq(profdb_stats_from_accs(&bad, two, 2), 0);
	profdb_stats_free(bad);
	cr_assert_eq(profdb_stats_from_accs(&bad, (profdb_stats_acc[]){two[1], two[0]}, 2), -EINVAL);
	cr_assert_eq(profdb_stats_from_accs(NULL, acc, 1), -EINVAL);
	cr_assert_eq(profdb_stats_from_accs(&bad, NULL, 1), -EINVAL);
	free(acc);
	profdb_stats_free(whole);
	gen_close(&g);
}

Test(stats_parts, accs_cap_and_count)
{
	gen g;
	gen_open(&g, 5);
	profdb_stats *s = part(&g, 1, NP + 1, NULL, 0, 1);
	int64_t n = profdb_stats_count(s);
	cr_assert_gt(n, 4);
	cr_assert_eq(profdb_stats_accs(s, NULL, 0), n);
	/* a short buffer: the count, and only cap records written */
	profdb_stats_acc buf[4];
	memset(buf, 0xa5, sizeof buf);
	cr_assert_eq(profdb_stats_accs(s, buf, 2), n);
	unsigned char fill[sizeof *buf];
	memset(fill, 0xa5, sizeof fill);
	cr_assert(memcmp(&buf[2], fill, sizeof fill) == 0, "wrote past cap");
	cr_assert(memcmp(&buf[3], fill, sizeof fill) == 0, "wrote past cap");
	/* the records are the rows' own, in row order */
	for (int i = 0; i < 2; i++) {
		profdb_stat r;
		profdb_stats_at(s, (uint64_t)i, &r);
		cr_assert_eq(buf[i].context, r.context);
		cr_assert_eq(buf[i].metric, r.metric);
		cr_assert_eq(buf[i].count, r.count);
		cr_assert(memcmp(&buf[i].sum, &r.sum, sizeof r.sum) == 0);
		cr_assert_eq(buf[i].min_profile, r.min_profile);
		cr_assert_eq(memcmp(buf[i].reserved, (uint32_t[9]){0}, sizeof buf[i].reserved), 0);
	}
	/* a bigger buffer than needed: n records */
	profdb_stats_acc *big = calloc((size_t)n + 5, sizeof *big);
	cr_assert_eq(profdb_stats_accs(s, big, (size_t)n + 5), n);
	cr_assert_eq(big[n].count, 0);
	free(big);
	cr_assert_eq(profdb_stats_accs(NULL, NULL, 0), -EINVAL);
	cr_assert_eq(profdb_stats_accs(s, NULL, 1), -EINVAL);
	cr_assert_eq(sizeof(profdb_stats_acc), 104);
	profdb_stats_free(s);
	gen_close(&g);
}

TC_MAIN
