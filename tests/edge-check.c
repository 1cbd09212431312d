/* Every cost stored once, and tree-format call edges (edge-check.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "edge-check.h"
#include "query-check.h"

/* gamma(n) = n u / (1 - n u), u = 2^-53: the bound of a sum of n terms. */
static double gamma_n(double n)
{
	double u = ldexp(1.0, -53);
	return n * u / (1 - n * u);
}

static int is_hpctk(profdb_format f)
{
	return f == PROFDB_FORMAT_HPCTK4 || f == PROFDB_FORMAT_HPCTK_PRE ||
	       f == PROFDB_FORMAT_HPCTK_DRAFT || f == PROFDB_FORMAT_HPCTK_XML;
}

typedef struct total {
	uint32_t id;
	int exact;                 /* every term an integer */
	uint64_t u;                /* integer sum (mod 2^64) */
	double f, abs;             /* floating sum, sum of magnitudes */
	uint64_t n;
} total;

static void add(total *t, profdb_number v)
{
	t->n++;
	if (v.type == PROFDB_TYPE_U64 || v.type == PROFDB_TYPE_I64)
		t->u += v.as.u64;   /* the same bits for i64, mod 2^64 */
	else
		t->exact = 0;
	double d = profdb_number_to_double(v);
	t->f += d;
	t->abs += fabs(d);
}

static int cmp_total(const void *a, const void *b)
{
	const total *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The metric's total: the summary's sum statistic at context 0 (HPCToolkit
 * formats) or the sum over non-summary profiles and roots of the inclusive
 * value. 1 and *t, or 0 when there is none to compare with. */
static int metric_total(const profdb *db, const profdb_metric *m, profdb_format f, total *t)
{
	int64_t np = profdb_profile_count(db);
	memset(t, 0, sizeof *t);
	t->exact = 1;
	for (int64_t p = 0; p < np; p++) {
		profdb_profile pr;
		profdb_number v;
		cr_assert_eq(profdb_profile_at(db, (uint32_t)p, &pr), 0);
		if (is_hpctk(f)) {
			profdb_metric inc;
			if (!pr.is_summary || m->inclusive_id == PROFDB_NONE ||
			    profdb_metric_get(db, m->inclusive_id, &inc) != 0 ||
			    !qc_str_is(inc.statistic, "sum"))
				continue;
			if (profdb_inclusive(db, (uint32_t)p, 0, m->id, &v) != 1)
				return 0;
			add(t, v);
			return 1;
		}
		if (pr.is_summary)
			continue;
		uint32_t root;
		if (profdb_context_root(db, &root) != 0)
			return 0;
		profdb_context c;
		for (; root != PROFDB_NONE; root = c.next_sibling) {
			cr_assert_eq(profdb_context_get(db, root, &c), 0);
			int r = profdb_inclusive(db, (uint32_t)p, root, m->id, &v);
			cr_assert_geq(r, 0, "inclusive: %s", profdb_error_message());
			if (r == 1)
				add(t, v);
		}
	}
	return !is_hpctk(f);
}

/* Is @p profile a summary profile? (profiles are few: a linear cache) */
static int summary_of(const profdb *db, uint32_t profile)
{
	profdb_profile pr;
	cr_assert_eq(profdb_profile_at(db, profile, &pr), 0);
	return pr.is_summary;
}

int ec_check_totals(const profdb *db, const char *what)
{
	profdb_about about;
	cr_assert_eq(profdb_get_about(db, &about), 0);
	int64_t nm = profdb_metric_count(db);
	cr_assert_geq(nm, 0);
	total *want = calloc((size_t)nm + 1, sizeof *want), *got = calloc((size_t)nm + 1, sizeof *got);
	cr_assert(want && got);
	size_t k = 0;
	for (int64_t i = 0; i < nm; i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &m), 0);
		int kind_ok = is_hpctk(about.format) ? m.kind == PROFDB_METRIC_POINT
		              : m.kind == PROFDB_METRIC_POINT || m.kind == PROFDB_METRIC_EXCLUSIVE;
		if (!kind_ok || m.combine != PROFDB_COMBINE_SUM || !metric_total(db, &m, about.format, &want[k]))
			continue;
		want[k].id = got[k].id = m.id;
		got[k].exact = 1;
		k++;
	}
	qsort(want, k, sizeof *want, cmp_total);
	qsort(got, k, sizeof *got, cmp_total);
	int64_t np = profdb_profile_count(db);
	int *summary = calloc((size_t)np + 1, sizeof *summary);
	cr_assert(summary);
	for (int64_t p = 0; p < np; p++)
		summary[p] = summary_of(db, (uint32_t)p);
	profdb_values *it;
	profdb_entry e;
	int r;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0, "%s", profdb_error_message());
	while ((r = profdb_values_next(it, &e)) == 1) {
		total key = {.id = e.metric}, *t = bsearch(&key, got, k, sizeof *got, cmp_total);
		if (t && !summary[e.profile])
			add(t, e.value);
	}
	cr_assert_eq(r, 0, "%s: scan: %s", what, profdb_error_message());
	profdb_values_free(it);
	/* The dev-stage layout (its roots are not entry points) stores point
	 * values for some contexts only: its point sums fall short of the
	 * summary (hpcviewer-quicksilver: 4.7e9 of 7.7e9 cycles), so the rule
	 * is checked on the final layout only. */
	uint32_t root;
	profdb_context rc;
	int devstage = about.format == PROFDB_FORMAT_HPCTK4 && profdb_context_root(db, &root) == 0 &&
	               profdb_context_get(db, root, &rc) == 0 && rc.type != PROFDB_CTX_ROOT;
	int checked = 0;
	for (size_t i = 0; i < k; i++) {
		const total *w = &want[i], *g = &got[i];
		/* no point values in the thread profiles (the pre-release layouts
		 * store the function and execution scopes only): nothing to sum */
		if (is_hpctk(about.format) && (g->n == 0 || devstage))
			continue;
		checked++;
		if (w->exact && g->exact) {
			cr_assert_eq(g->u, w->u, "%s: metric %" PRIu32 ": stored values sum to %" PRIu64
			             ", the total is %" PRIu64, what, w->id, g->u, w->u);
			continue;
		}
		double bound = 2 * gamma_n((double)(g->n + w->n + 1)) * (g->abs > w->abs ? g->abs : w->abs);
		cr_assert_leq(fabs(g->f - w->f), bound, "%s: metric %" PRIu32 ": stored values sum to "
		              "%.17g, the total is %.17g (bound %.3g)", what, w->id, g->f, w->f, bound);
	}
	free(summary);
	free(want);
	free(got);
	return checked;
}

/* ---- tree-format edges --------------------------------------------------------- */

static profdb_context ctx(const profdb *db, uint32_t id)
{
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, id, &c), 0, "context %" PRIu32 ": %s", id,
	             profdb_error_message());
	return c;
}

/* Nearest FUNCTION strictly above @p c, else its tree's root. */
static uint32_t nearest_function(const profdb *db, const profdb_context *c)
{
	profdb_context a = *c;
	for (int guard = 0; a.parent != PROFDB_NONE; guard++) {
		cr_assert_lt(guard, 1 << 24);
		a = ctx(db, a.parent);
		if (a.type == PROFDB_CTX_FUNCTION)
			return a.id;
	}
	return a.id;
}

static void check_cost(const profdb *db, uint64_t i, const profdb_edge *e, int64_t np,
                       int64_t nm, const char *what)
{
	for (int64_t m = 0; m < nm; m++) {
		profdb_metric md;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)m, &md), 0);
		if (md.kind == PROFDB_METRIC_DERIVED || md.kind == PROFDB_METRIC_SUMMARY || md.combine != PROFDB_COMBINE_SUM)
			continue;
		double sum = 0, abs = 0;
		int any = 0;
		for (int64_t p = 0; p < np; p++) {
			profdb_number a, b;
			int ra = profdb_edge_inclusive(db, (uint32_t)p, i, md.id, &a);
			int rb = profdb_inclusive(db, (uint32_t)p, e->callee, md.id, &b);
			cr_assert_eq(ra, rb, "%s: edge %" PRIu64 " profile %" PRId64, what, i, p);
			if (ra == 1)
				cr_assert(qc_same_number(a, b), "%s: edge %" PRIu64 " cost differs", what, i);
			if (ra == 1 && !summary_of(db, (uint32_t)p)) {
				double d = profdb_number_to_double(a);
				sum += d;
				abs += fabs(d);
				any = 1;
			}
		}
		profdb_number t;
		int r = profdb_edge_inclusive(db, PROFDB_NONE, i, md.id, &t);
		cr_assert_eq(r, any, "%s: edge %" PRIu64 " combined: %d %s", what, i, r,
		             profdb_error_message());
		cr_assert_leq(fabs(profdb_number_to_double(t) - sum), 2 * gamma_n((double)np + 1) * abs,
		              "%s: edge %" PRIu64 " metric %" PRIu32 " combined", what, i, md.id);
	}
}

int64_t ec_check_tree_edges(const profdb *db, int64_t max_cost, const char *what)
{
	int64_t n = profdb_edge_count(db), nctx = profdb_context_count(db);
	int64_t np = profdb_profile_count(db), nm = profdb_metric_count(db);
	cr_assert_geq(n, 0, "%s: edges: %s", what, profdb_error_message());
	profdb_edge prev = {0, 0, 0, 0, 0};
	for (int64_t i = 0; i < n; i++) {
		profdb_edge e;
		cr_assert_eq(profdb_edge_at(db, (uint64_t)i, &e), 0);
		if (i)
			cr_assert(prev.caller < e.caller || (prev.caller == e.caller && prev.callee < e.callee),
			          "%s: edges out of order at %" PRId64, what, i);
		profdb_context c = ctx(db, e.callee);
		cr_assert(c.relation == PROFDB_RELATION_CALL || c.relation == PROFDB_RELATION_INLINED,
		          "%s: edge %" PRId64 ": callee %" PRIu32 " is not called", what, i, e.callee);
		cr_assert_eq(e.caller, nearest_function(db, &c), "%s: edge %" PRId64, what, i);
		profdb_context parent = ctx(db, c.parent);
		int line = parent.type == PROFDB_CTX_LINE || parent.type == PROFDB_CTX_INSTRUCTION;
		cr_assert_eq(e.site, line ? parent.id : PROFDB_NONE, "%s: edge %" PRId64, what, i);
		if (!e.has_count)
			cr_assert_eq(e.count, 0);
		if (i < max_cost)
			check_cost(db, (uint64_t)i, &e, np, nm, what);
		prev = e;
	}
	/* As many edges as called contexts in the tree. */
	int64_t called = 0;
	uint32_t id;
	if (nctx > 0 && profdb_context_root(db, &id) == 0) {
		profdb_context c = ctx(db, id);
		for (;;) {
			called += c.relation == PROFDB_RELATION_CALL || c.relation == PROFDB_RELATION_INLINED;
			if (c.first_child != PROFDB_NONE) {
				c = ctx(db, c.first_child);
				continue;
			}
			while (c.next_sibling == PROFDB_NONE && c.parent != PROFDB_NONE)
				c = ctx(db, c.parent);
			if (c.next_sibling == PROFDB_NONE)
				break;
			c = ctx(db, c.next_sibling);
		}
	}
	cr_assert_eq(n, called, "%s: %" PRId64 " edges, %" PRId64 " called contexts", what, n, called);
	profdb_edge e;
	cr_assert_eq(profdb_edge_at(db, (uint64_t)n, &e), -ENOENT);
	return n;
}

/* ---- edge sets ---------------------------------------------------------------- */

static int one_of(const uint32_t *ctx, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ctx[i] == id)
			return 1;
	return 0;
}

static int side_has(profdb_edge_side side, const uint32_t *ctx, size_t n, const profdb_edge *e)
{
	if (side == PROFDB_EDGES_INTO)
		return one_of(ctx, n, e->callee);
	return one_of(ctx, n, e->caller) || (e->site != PROFDB_NONE && one_of(ctx, n, e->site));
}

/* The answers of the table's edge @p gi and the set's edge @p si alike. */
static void same_costs(const profdb *db, const profdb_edge_set *set, uint64_t gi, uint64_t si,
                       const char *what)
{
	int64_t np = profdb_profile_count(db), nm = profdb_metric_count(db);
	uint32_t metrics[2] = {0, nm > 0 ? (uint32_t)(nm - 1) : 0};
	for (int64_t p = -1; p < np && p < 8; p++) {
		uint32_t prof = p < 0 ? PROFDB_NONE : (uint32_t)p;
		for (int k = 0; k < 2 && nm > 0; k++) {
			profdb_number a, b;
			int ra = profdb_edge_inclusive(db, prof, gi, metrics[k], &a);
			int rb = profdb_edge_set_inclusive(set, prof, si, metrics[k], &b);
			cr_assert_eq(ra, rb, "%s: edge %" PRIu64 " profile %" PRId64 " metric %" PRIu32
			             ": %d, in the set %d", what, gi, p, metrics[k], ra, rb);
			cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "%s: edge %" PRIu64 " profile %" PRId64
			             " metric %" PRIu32 ": another value in the set", what, gi, p,
			             metrics[k]);
		}
	}
}

/* The set of the @p nc contexts @p ctx against the table of @p n edges. */
static void check_set(const profdb *db, const uint32_t *ctx, size_t nc, profdb_edge_side side,
                      int64_t n, const char *what)
{
	profdb_edge_set *set;
	int r = profdb_edge_set_new(&set, db, ctx, nc, side);
	cr_assert_eq(r, 0, "%s: set of %" PRIu32 ": %d %s", what, nc ? ctx[0] : 0, r,
	             profdb_error_message());
	int64_t ns = profdb_edge_set_count(set);
	cr_assert_geq(ns, 0);
	uint64_t si = 0;
	for (int64_t gi = 0; gi < n; gi++) {
		profdb_edge g, e;
		cr_assert_eq(profdb_edge_at(db, (uint64_t)gi, &g), 0);
		if (!side_has(side, ctx, nc, &g))
			continue;
		cr_assert_lt(si, (uint64_t)ns, "%s: context %" PRIu32 " side %d: edge %" PRId64
		             " missing from the set", what, ctx[0], (int)side, gi);
		cr_assert_eq(profdb_edge_set_at(set, si, &e), 0);
		cr_assert_eq(memcmp(&g, &e, sizeof g), 0, "%s: context %" PRIu32 " side %d: edge %"
		             PRId64 " differs from the set's %" PRIu64, what, ctx[0], (int)side, gi,
		             si);
		same_costs(db, set, (uint64_t)gi, si, what);
		si++;
	}
	cr_assert_eq(si, (uint64_t)ns, "%s: context %" PRIu32 " side %d: %" PRId64 " edges in the "
	             "set, %" PRIu64 " in the table", what, nc ? ctx[0] : 0, (int)side, ns, si);
	profdb_edge e;
	cr_assert_eq(profdb_edge_set_at(set, (uint64_t)ns, &e), -ENOENT);
	profdb_edge_set_free(set);
}

int ec_check_edge_sets(const profdb *db, int64_t max_ctx, const char *what)
{
	int64_t n = profdb_edge_count(db);
	cr_assert_geq(n, 0, "%s: edges: %s", what, profdb_error_message());
	/* the root (a profile without functions has none), then the three
	 * ends of edges spread over the table, one by one, and all of them
	 * (with repeats) in one set */
	uint32_t all[3 * 64 + 1];
	size_t n_all = 0;
	int checked = 0;
	if (profdb_context_root(db, &all[0]) == 0) {
		check_set(db, all, 1, PROFDB_EDGES_INTO, n, what);
		check_set(db, all, 1, PROFDB_EDGES_OUT_OF, n, what);
		n_all++;
		checked++;
	}
	int64_t step = n / (max_ctx > 3 ? max_ctx / 3 : 1);
	for (int64_t i = 0; i < n && checked < max_ctx && n_all + 3 <= 3 * 64;
	     i += step > 0 ? step : 1) {
		profdb_edge g;
		cr_assert_eq(profdb_edge_at(db, (uint64_t)i, &g), 0);
		uint32_t ends[3] = {g.caller, g.callee, g.site};
		for (int k = 0; k < 3; k++) {
			if (ends[k] == PROFDB_NONE)
				continue;
			check_set(db, &ends[k], 1, PROFDB_EDGES_INTO, n, what);
			check_set(db, &ends[k], 1, PROFDB_EDGES_OUT_OF, n, what);
			all[n_all++] = ends[k];
			checked++;
		}
	}
	check_set(db, all, n_all, PROFDB_EDGES_INTO, n, what);
	check_set(db, all, n_all, PROFDB_EDGES_OUT_OF, n, what);
	check_set(db, NULL, 0, PROFDB_EDGES_INTO, n, what);
	return checked;
}
