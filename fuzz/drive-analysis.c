/* The analysis layer (profdb/analysis.h) under the fuzzer: drive-query.c
 * calls fuzz_analysis_run() on every handle it opened. Invariants:
 *  - every call returns success or a documented errno with a message;
 *  - profdb_metric_has_values is 0 or 1, and 0 for a metric whose stored
 *    values the ALL scan saw non-zero is impossible (checked by the caller's
 *    scan through @p nonzero);
 *  - selections: ascending, in range, no more than the profile count; a
 *    malformed one is -EINVAL;
 *  - statistics: rows sorted by (metric, context), count >= 1, min <= max
 *    (when neither is NaN), min/max profiles among the selection, the same
 *    bits with 1 and 2 threads, profdb_stats_get finds each row, each
 *    metric's view has strictly increasing keys;
 *  - edges: sorted by (caller, callee, site), callee a context the handle
 *    knows; a cost call returns 0, 1 or a documented error;
 *  - edge sets: the edges of the table that the side selects, in its
 *    order, with the same cost answers bit for bit;
 *  - views: node 0 is the root, every other node's parent has a smaller id
 *    and depth one less, the child links visit every node exactly once. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drive-query.h"

#define CALL FUZZ_CALL

enum {
	MAX_ROWS = 1 << 16,      /* statistics rows compared */
	MAX_EDGES = 4096,        /* edges visited */
	MAX_SETS = 8,            /* edges whose ends get edge sets */
	MAX_NODES = 1 << 17,     /* view nodes visited */
	MAX_METRICS = 64,        /* metrics asked has_values */
};

static void drive_selections(const profdb *db, int64_t np)
{
	static const char *specs[] = {NULL, "0", "0-1,3", "rank=0", "thread=0-2,rank=1",
	                              "1-0", "x=", "rank=0,,", "99999999999"};
	uint32_t sel[64];
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
		int64_t n = CALL(profdb_profiles_select(db, specs[i], sel, 64));
		if (n < 0)
			continue;
		QUERY_CHECK(n <= np, "selection '%s' has %" PRId64 " of %" PRId64 " profiles",
		            specs[i] ? specs[i] : "(all)", n, np);
		for (int64_t k = 0; k < n && k < 64; k++) {
			QUERY_CHECK(sel[k] < (uint64_t)np, "selected profile %u out of range", sel[k]);
			QUERY_CHECK(k == 0 || sel[k - 1] < sel[k], "selection not ascending");
		}
	}
	QUERY_CHECK(CALL(profdb_profiles_select(db, "1-0", sel, 64)) == -EINVAL,
	            "a range that goes down is accepted");
}

static int same_stat(const profdb_stat *a, const profdb_stat *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static void drive_stats(const profdb *db)
{
	profdb_stats *s1 = NULL, *s2 = NULL;
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	o.threads = 1;
	if (CALL(profdb_stats_new(&s1, db, &o)) < 0) {
		QUERY_CHECK(s1 == NULL, "a failed profdb_stats_new left a result");
		return;
	}
	o.threads = 2;
	int r2 = (int)CALL(profdb_stats_new(&s2, db, &o));
	int64_t n = CALL(profdb_stats_count(s1));
	QUERY_CHECK(n >= 0, "stats count %" PRId64, n);
	if (r2 == 0)
		QUERY_CHECK(profdb_stats_count(s2) == n, "1 and 2 threads give different row counts");
	profdb_stat prev, row, other;
	memset(&prev, 0, sizeof prev);
	for (int64_t i = 0; i < n && i < MAX_ROWS; i++) {
		QUERY_CHECK(CALL(profdb_stats_at(s1, (uint64_t)i, &row)) == 0, "stats_at %" PRId64, i);
		QUERY_CHECK(row.count >= 1, "a row without values");
		QUERY_CHECK(i == 0 || prev.metric < row.metric ||
		            (prev.metric == row.metric && prev.context < row.context),
		            "rows not sorted by (metric, context)");
		QUERY_CHECK(isnan(row.min) || isnan(row.max) || row.min <= row.max,
		            "min %g above max %g", row.min, row.max);
		QUERY_CHECK(CALL(profdb_stats_get(s1, row.context, row.metric, &other)) == 1 &&
		            same_stat(&row, &other), "stats_get does not find row %" PRId64, i);
		if (r2 == 0)
			QUERY_CHECK(profdb_stats_at(s2, (uint64_t)i, &other) == 0 && same_stat(&row, &other),
			            "row %" PRId64 " differs between 1 and 2 threads", i);
		if (i == 0 || prev.metric != row.metric) {
			profdb_view v;
			QUERY_CHECK(CALL(profdb_stats_view(s1, row.metric, offsetof(profdb_stat, sum),
			                                   &v)) == 0 && v.count >= 1,
			            "no view of metric %u", row.metric);
			for (uint64_t k = 1; k < v.count; k++)
				QUERY_CHECK(profdb_view_key(&v, k - 1) < profdb_view_key(&v, k),
				            "stats view keys not increasing");
		}
		prev = row;
	}
	profdb_stats_free(s1);
	profdb_stats_free(s2);
}

static void drive_edges(const profdb *db)
{
	int64_t n = CALL(profdb_edge_count(db));
	if (n < 0)
		return;
	profdb_edge e, prev;
	for (int64_t i = 0; i < n && i < MAX_EDGES; i++) {
		QUERY_CHECK(CALL(profdb_edge_at(db, (uint64_t)i, &e)) == 0, "edge_at %" PRId64, i);
		QUERY_CHECK(i == 0 || prev.caller < e.caller ||
		            (prev.caller == e.caller && (prev.callee < e.callee ||
		                                         (prev.callee == e.callee && prev.site <= e.site))),
		            "edges not sorted");
		profdb_context c;
		QUERY_CHECK(CALL(profdb_context_get(db, e.callee, &c)) == 0,
		            "edge %" PRId64 " calls unknown context %u", i, e.callee);
		QUERY_CHECK(e.has_count || e.count == 0, "a count without has_count");
		profdb_number v;
		int r = (int)CALL(profdb_edge_inclusive(db, PROFDB_NONE, (uint64_t)i, 0, &v));
		QUERY_CHECK(r < 0 || r == 0 || r == 1, "edge_cost returned %d", r);
		prev = e;
	}
	profdb_edge dummy;
	QUERY_CHECK(CALL(profdb_edge_at(db, (uint64_t)n, &dummy)) == -ENOENT, "edge past the end");
}

/* The set of @p ctx on @p side against the table's first @p n edges (all
 * of them: the caller checks n is the count). */
static void check_edge_set(const profdb *db, uint32_t ctx, profdb_edge_side side, int64_t n)
{
	profdb_edge_set *set;
	if (CALL(profdb_edge_set_new(&set, db, &ctx, 1, side)) < 0)
		return;
	int64_t ns = CALL(profdb_edge_set_count(set)), k = 0;
	for (int64_t i = 0; i < n && ns >= 0; i++) {
		profdb_edge g, e;
		if (CALL(profdb_edge_at(db, (uint64_t)i, &g)) < 0)
			break;
		int hit = side == PROFDB_EDGES_INTO ? g.callee == ctx
		          : g.caller == ctx || (g.site != PROFDB_NONE && g.site == ctx);
		if (!hit)
			continue;
		QUERY_CHECK(k < ns, "edge %" PRId64 " missing from the set of %u", i, ctx);
		QUERY_CHECK(CALL(profdb_edge_set_at(set, (uint64_t)k, &e)) == 0 &&
		            memcmp(&e, &g, sizeof e) == 0, "set edge %" PRId64 " differs", k);
		profdb_number a, b;
		int ra = (int)CALL(profdb_edge_inclusive(db, PROFDB_NONE, (uint64_t)i, 0, &a));
		int rb = (int)CALL(profdb_edge_set_inclusive(set, PROFDB_NONE, (uint64_t)k, 0, &b));
		QUERY_CHECK(ra == rb && (ra <= 0 || memcmp(&a, &b, sizeof a) == 0),
		            "set edge %" PRId64 " costs %d, the table's %d", k, rb, ra);
		k++;
	}
	QUERY_CHECK(ns < 0 || k == ns, "the set of %u has %" PRId64 " edges, the table %" PRId64,
	            ctx, ns, k);
	profdb_edge_set_free(set);
}

static void drive_edge_sets(const profdb *db)
{
	int64_t n = CALL(profdb_edge_count(db));
	if (n < 0 || n > MAX_EDGES)
		return;
	for (int64_t i = 0; i < n && i < MAX_SETS; i++) {
		profdb_edge e;
		if (CALL(profdb_edge_at(db, (uint64_t)i, &e)) < 0)
			return;
		check_edge_set(db, e.callee, PROFDB_EDGES_INTO, n);
		check_edge_set(db, e.caller, PROFDB_EDGES_OUT_OF, n);
		if (e.site != PROFDB_NONE)
			check_edge_set(db, e.site, PROFDB_EDGES_OUT_OF, n);
	}
	/* HPCToolkit's context ids are the writer's: any id may exist */
	profdb_edge_set *set;
	profdb_context c;
	uint32_t none = UINT32_MAX - 1;
	if (CALL(profdb_context_get(db, none, &c)) < 0)
		QUERY_CHECK(CALL(profdb_edge_set_new(&set, db, &none, 1, PROFDB_EDGES_INTO)) < 0,
		            "a set of an unknown context");
}

static void check_tree(const profdb_tree *t)
{
	int64_t n = CALL(profdb_tree_count(t));
	QUERY_CHECK(n >= 1, "a view with %" PRId64 " nodes", n);
	if (n > MAX_NODES)
		return;
	char *seen = calloc((size_t)n, 1);
	uint32_t *stack = malloc((size_t)n * sizeof *stack);
	QUERY_CHECK(seen && stack, "out of memory");
	profdb_node nd;
	QUERY_CHECK(CALL(profdb_tree_get(t, 0, &nd)) == 0 && nd.parent == PROFDB_NONE &&
	            nd.depth == 0, "node 0 is not a root");
	size_t top = 0, visited = 0;
	stack[top++] = 0;
	while (top) {
		uint32_t id = stack[--top];
		QUERY_CHECK(id < (uint64_t)n && !seen[id], "node %u reached twice or out of range", id);
		seen[id] = 1;
		visited++;
		QUERY_CHECK(CALL(profdb_tree_get(t, id, &nd)) == 0, "tree_get %u", id);
		double inc, exc;
		QUERY_CHECK(CALL(profdb_tree_values(t, id, 0, &inc, &exc)) == 0, "tree_values %u", id);
		for (uint32_t c = nd.first_child; c != PROFDB_NONE;) {
			profdb_node ch;
			QUERY_CHECK(c < (uint64_t)n && CALL(profdb_tree_get(t, c, &ch)) == 0 &&
			            ch.parent == id && c > id && ch.depth == nd.depth + 1,
			            "child %u of %u is inconsistent", c, id);
			QUERY_CHECK(top < (size_t)n, "more children than nodes");
			stack[top++] = c;
			c = ch.next_sibling;
		}
	}
	QUERY_CHECK(visited == (size_t)n, "the links reach %zu of %" PRId64 " nodes", visited, n);
	free(seen);
	free(stack);
}

static void drive_views(const profdb *db, uint32_t metric)
{
	for (int k = PROFDB_TREE_TOP_DOWN; k <= PROFDB_TREE_FLAT; k++) {
		profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
		o.kind = (profdb_tree_kind)k;
		o.metrics = &metric;
		o.n_metrics = 1;
		profdb_tree *t = NULL;
		if (CALL(profdb_tree_new(&t, db, &o)) < 0) {
			QUERY_CHECK(t == NULL, "a failed profdb_tree_new left a view");
			continue;
		}
		check_tree(t);
		profdb_tree_free(t);
	}
}

void fuzz_analysis_run(const profdb *db)
{
	int64_t nm = profdb_metric_count(db), np = profdb_profile_count(db);
	if (nm < 0 || np < 0)
		return;
	uint32_t first = PROFDB_NONE;
	for (int64_t i = 0; i < nm && i < MAX_METRICS; i++) {
		profdb_metric m;
		if (CALL(profdb_metric_at(db, (uint32_t)i, &m)) < 0)
			continue;
		QUERY_CHECK(m.scale > 0, "metric %u has scale %g", m.id, m.scale);
		QUERY_CHECK((unsigned)m.combine <= PROFDB_COMBINE_MAX, "metric %u: combine %d", m.id,
		            (int)m.combine);
		int r = (int)CALL(profdb_metric_has_values(db, m.id));
		QUERY_CHECK(r < 0 || r == 0 || r == 1, "has_values returned %d", r);
		if (r == 1 && first == PROFDB_NONE)
			first = m.id;
	}
	drive_selections(db, np);
	drive_stats(db);
	drive_edges(db);
	drive_edge_sets(db);
	if (first != PROFDB_NONE)
		drive_views(db, first);
}
