/* A group's inclusive value from the call graph collapsed to groups
 * (profdb_group_inclusive, profdb/analysis.h; doc/model.md "Combining
 * numbers", functions).
 *
 * Two passes. On a calling-context tree a pre-order walk marks the
 * members that count: along a path, a member of group G counts when no member of G is
 * above it, or when every context between it and the nearest member of G
 * above it that counts is nested code (relation LEXICAL: loops, lines) —
 * a direct recursion. A member below a call that left G is inside that
 * call's cost. Then each group sums the exclusive values of its counting
 * members and the costs of the call edges from them to contexts outside
 * the group. On Callgrind every function hangs below the root, so every
 * member counts and the calls between "f" and "f'2" are what stays inside
 * the group; on a calling-context tree the result is the inclusive value
 * of the outermost members, as hpcviewer's flat view gives it. Where the
 * format stores a call graph (Callgrind: where a function context sits in
 * the tree says nothing of the paths to it) every member counts.
 *
 * A call graph loses the call paths: when f calls g and g calls f again,
 * f's call of g holds the inner f, which would count twice. So the calls
 * between the counting members of the groups in one cycle of the groups'
 * call graph (a strongly connected component) stay inside, as KCachegrind
 * gives a cycle member its self cost and its calls leaving the cycle. On a
 * calling-context tree an inner member below a call does not count, so
 * nothing counts twice there and no cycle is sought. */
#include <stdlib.h>
#include <string.h>

#include "core/table-internal.h"
#include "query/hints-internal.h"
#include "query/query-internal.h"
#include "profdb/analysis.h"

typedef struct walk_state {
	const uint32_t *group_of;
	size_t n, n_groups;
	unsigned char *counts;      /* per context id below n: a counting member */
	uint32_t *on_path;          /* per group: members above the current context */
	uint32_t *stack, *tail;     /* per depth: context id, open counting group */
	size_t cap_stack, cap_tail;
} walk_state;

/* Room for depth @p d in both per-depth arrays. */
static int grow(walk_state *w, size_t d)
{
	if (profdb__grow((void **)&w->stack, &w->cap_stack, d + 1, sizeof *w->stack) < 0 ||
	    profdb__grow((void **)&w->tail, &w->cap_tail, d + 1, sizeof *w->tail) < 0)
		return profdb__fail(-ENOMEM, "profdb_group_inclusive: out of memory");
	return 0;
}

/* Context @p c at depth @p d of the walk: is it a counting member? */
static uint32_t group(const walk_state *w, uint32_t id)
{
	return id < w->n ? w->group_of[id] : PROFDB_NONE;
}

static void visit(walk_state *w, const profdb_context *c, size_t d)
{
	uint32_t above = d ? w->tail[d - 1] : PROFDB_NONE;
	uint32_t g = group(w, c->id);
	w->stack[d] = c->id;
	if (g != PROFDB_NONE) {
		int counts = w->on_path[g] == 0 || above == g;
		w->counts[c->id] = (unsigned char)counts;
		w->tail[d] = counts ? g : PROFDB_NONE;
	} else {
		w->tail[d] = d && c->relation == PROFDB_RELATION_LEXICAL ? above : PROFDB_NONE;
	}
}

static void leave(walk_state *w, size_t d)
{
	uint32_t g = group(w, w->stack[d]);
	if (g != PROFDB_NONE)
		w->on_path[g]--;
}

/* The pre-order walk; guarded against links that loop. */
static int mark(const profdb *db, walk_state *w)
{
	uint32_t id;
	int64_t nc = profdb_context_count(db);
	int r = nc < 0 ? (int)nc : profdb_context_root(db, &id);
	size_t d = 0, steps = 0, limit = 2 * (size_t)nc + 16;
	profdb_context c;
	if (r == -ENOENT)
		return 0;   /* no tree: nothing counts */
	if (r < 0 || (r = profdb_context_get(db, id, &c)) < 0 || (r = grow(w, 0)) < 0)
		return r;
	for (;;) {
		if (++steps > limit)
			return profdb__fail(-EBADMSG, "profdb_group_inclusive: the context links "
			                    "loop (context %u)", (unsigned)id);
		visit(w, &c, d);
		uint32_t next = c.first_child;
		if (next != PROFDB_NONE) {
			if (group(w, id) != PROFDB_NONE)
				w->on_path[group(w, id)]++;
			if ((r = grow(w, ++d)) < 0)
				return r;
		} else {
			for (next = c.next_sibling; next == PROFDB_NONE && d > 0; ++steps) {
				if ((r = profdb_context_get(db, w->stack[--d], &c)) < 0)
					return r;
				leave(w, d);
				next = c.next_sibling;
			}
			if (next == PROFDB_NONE)
				return 0;
		}
		if ((r = profdb_context_get(db, id = next, &c)) < 0)
			return r;
	}
}

/* Value @p get (profdb_exclusive or profdb_inclusive) of context @p ctx:
 * in @p profile, or summed over the non-summary profiles @p all. */
static int value_of(const profdb *db, int (*get)(const profdb *, uint32_t, uint32_t, uint32_t,
                                                 profdb_number *),
                    uint32_t ctx, uint32_t profile, const uint32_t *all, size_t n_all,
                    uint32_t metric, double *out)
{
	profdb_number v;
	int r;
	*out = 0;
	if (profile != PROFDB_NONE) {
		r = get(db, profile, ctx, metric, &v);
		if (r > 0)
			*out = profdb_number_to_double(v);
		return r < 0 ? r : 0;
	}
	for (size_t i = 0; i < n_all; i++) {
		if ((r = get(db, all[i], ctx, metric, &v)) < 0)
			return r;
		if (r > 0)
			*out += profdb_number_to_double(v);
	}
	return 0;
}

/* A call graph's function context's exclusive value (context fn + 1):
 * its self cost row from the backend's graph table, which is what
 * profdb_exclusive reads for it, without fetching the context or a call
 * per value (an absent value is a zero in the row, and adding +0 to a
 * sum that starts at +0 changes nothing). */
static int graph_self(const profdb *db, uint32_t fn, uint32_t profile, const uint32_t *all,
                      size_t n_all, uint32_t metric, double *out)
{
	const uint64_t *row;
	int r;
	*out = 0;
	for (size_t i = 0; i < (profile != PROFDB_NONE ? 1 : n_all); i++) {
		if ((r = db->be->graph->self(db->impl, profile != PROFDB_NONE ? profile : all[i], fn,
		                             &row)) < 0)
			return r;
		*out += (double)row[metric];
	}
	return 0;
}

/* The non-summary profiles, for PROFDB_NONE. */
static int profiles_of(const profdb *db, uint32_t **out, size_t *n)
{
	int64_t np = profdb_profile_count(db);
	*out = NULL;
	*n = 0;
	if (np < 0)
		return (int)np;
	if (!(*out = malloc(((size_t)np + 1) * sizeof **out)))
		return profdb__fail(-ENOMEM, "profdb_group_inclusive: out of memory");
	for (int64_t p = 0; p < np; p++) {
		profdb_profile pr;
		int r = profdb_profile_at(db, (uint32_t)p, &pr);
		if (r < 0)
			return r;
		if (!pr.is_summary)
			(*out)[(*n)++] = (uint32_t)p;
	}
	return 0;
}

/* The groups' call graph: an edge G -> H for each call from a member of
 * G to a member of another group H, in compressed rows (first[G] ..
 * first[G + 1] into to[]). */
typedef struct group_graph {
	size_t *first;
	uint32_t *to;
} group_graph;

static int counting_group(const walk_state *w, uint32_t id)
{
	return id < w->n && w->counts[id] ? (int)1 : 0;
}

/* The call edges the sums read. On a call graph, the backend's calls of
 * one function to another summed over their call sites
 * (profdb__graph_table.call): a group needs no call site, and the sites
 * of profdb_edge_at would cost a decode of every calling function. A
 * group's sum is the same either way: the site edges of one caller and
 * callee add up to the backend's call (the same integers), and the
 * graph of groups has the same arcs. Elsewhere the edges of
 * profdb_edge_at. */
static int64_t edge_count(const profdb *db)
{
	return profdb__call_graph(db) ? db->be->graph->call_count(db->impl) : profdb_edge_count(db);
}

static int edge_ends(const profdb *db, int64_t i, uint32_t *caller, uint32_t *callee)
{
	if (profdb__call_graph(db)) {
		profdb__graph_call c;
		int r = db->be->graph->call(db->impl, PROFDB_NONE, (uint32_t)i, &c);
		*caller = r < 0 ? PROFDB_NONE : c.caller + 1;   /* function fn is context fn + 1 */
		*callee = r < 0 ? PROFDB_NONE : c.callee + 1;
		return r < 0 ? r : 0;
	}
	profdb_edge e;
	int r = profdb_edge_at(db, (uint64_t)i, &e);
	*caller = e.caller;
	*callee = e.callee;
	return r;
}

/* Edge @p i's inclusive cost of @p metric in @p profile: 1 and *out, 0
 * when it has none there, < 0. */
static int edge_cost(const profdb *db, uint32_t profile, int64_t i, uint32_t metric, double *out)
{
	if (profdb__call_graph(db)) {
		profdb__graph_call c;
		int64_t nm = profdb_metric_count(db);
		if (nm < 0)
			return (int)nm;
		if (metric >= nm)
			return profdb__fail(-ENOENT, "profdb_group_inclusive: no metric %u",
			                    (unsigned)metric);
		int r = db->be->graph->call(db->impl, profile, (uint32_t)i, &c);
		if (r < 0)
			return r;
		*out = (double)c.costs[metric];
		return 1;
	}
	profdb_number cost;
	int r = profdb_edge_inclusive(db, profile, (uint64_t)i, metric, &cost);
	if (r > 0)
		*out = profdb_number_to_double(cost);
	return r;
}

static int build_graph(const profdb *db, const walk_state *w, int64_t ne, group_graph *gg)
{
	int r = 0;
	size_t ng = w->n_groups;
	gg->first = calloc(ng + 2, sizeof *gg->first);
	gg->to = malloc(((size_t)ne + 1) * sizeof *gg->to);
	if (!gg->first || !gg->to)
		return profdb__fail(-ENOMEM, "profdb_group_inclusive: out of memory");
	for (int pass = 0; pass < 2; pass++) {
		for (int64_t i = 0; i < ne; i++) {
			uint32_t caller, callee;
			if ((r = edge_ends(db, i, &caller, &callee)) < 0)
				return r;
			if (!counting_group(w, caller) || !counting_group(w, callee) ||
			    w->group_of[caller] == w->group_of[callee])
				continue;

			uint32_t g = w->group_of[caller];
			if (pass == 0)
				gg->first[g + 2]++;
			else
				gg->to[gg->first[g + 1]++] = w->group_of[callee];
		}
		for (size_t g = 0; pass == 0 && g < ng; g++)
			gg->first[g + 2] += gg->first[g + 1];
	}
	return 0;
}

/* Tarjan's strongly connected components of the groups' call graph,
 * without recursion: scc[G] is G's component. */
static int components(const group_graph *gg, size_t ng, uint32_t *scc)
{
	uint32_t *index = malloc((ng + 1) * sizeof *index), *low = malloc((ng + 1) * sizeof *low);
	uint32_t *stack = malloc((ng + 1) * sizeof *stack), *call = malloc((ng + 1) * sizeof *call);
	size_t *pos = malloc((ng + 1) * sizeof *pos);
	unsigned char *on = calloc(ng + 1, 1);
	int r = index && low && stack && call && pos && on ? 0 :
	        profdb__fail(-ENOMEM, "profdb_group_inclusive: out of memory");
	uint32_t next = 0, n_scc = 0;
	size_t sp = 0;
	for (size_t g = 0; r == 0 && g < ng; g++)
		index[g] = PROFDB_NONE;
	for (size_t root = 0; r == 0 && root < ng; root++) {
		if (index[root] != PROFDB_NONE)
			continue;
		size_t depth = 0;
		call[depth] = (uint32_t)root;
		pos[depth] = gg->first[root];
		index[root] = low[root] = next++;
		stack[sp++] = (uint32_t)root;
		on[root] = 1;
		while (r == 0) {
			uint32_t v = call[depth];
			if (pos[depth] < gg->first[v + 1]) {
				uint32_t u = gg->to[pos[depth]++];
				if (index[u] == PROFDB_NONE) {
					call[++depth] = u;
					pos[depth] = gg->first[u];
					index[u] = low[u] = next++;
					stack[sp++] = u;
					on[u] = 1;
				} else if (on[u] && index[u] < low[v]) {
					low[v] = index[u];
				}
				continue;
			}
			if (low[v] == index[v]) {
				uint32_t u;
				do {
					u = stack[--sp];
					on[u] = 0;
					scc[u] = n_scc;
				} while (u != v);
				n_scc++;
			}
			if (depth == 0)
				break;
			uint32_t parent = call[--depth];
			if (low[v] < low[parent])
				low[parent] = low[v];
		}
	}
	free(index);
	free(low);
	free(stack);
	free(call);
	free(pos);
	free(on);
	return r;
}

/* The sums, once the counting members are marked: a call counts for its
 * caller's group unless it enters a counting member of the same group or
 * of a group in the same cycle of the groups' call graph. */
static int sum_groups(const profdb *db, const walk_state *w, uint32_t profile,
                      const uint32_t *all, size_t n_all, uint32_t metric, double *out)
{
	int r = 0;
	int64_t nf = profdb__call_graph(db) ? db->be->graph->function_count(db->impl) : 0;
	if (nf < 0)
		return (int)nf;
	for (uint32_t id = 0; id < w->n; id++) {
		if (!w->counts[id])
			continue;
		profdb_context c;
		double v;
		if (id >= 1 && id <= nf) {   /* a function of the call graph */
			if ((r = graph_self(db, id - 1, profile, all, n_all, metric, &v)) < 0)
				return r;
			out[w->group_of[id]] += v;
			continue;
		}
		if ((r = profdb_context_get(db, id, &c)) < 0 ||
		    (r = value_of(db, c.type == PROFDB_CTX_FUNCTION ? profdb_exclusive : profdb_inclusive,
		                  id, profile, all, n_all, metric, &v)) < 0)
			return r;
		out[w->group_of[id]] += v;
	}
	int64_t ne = edge_count(db);
	if (ne < 0)
		return (int)ne;
	group_graph gg = {NULL, NULL};
	uint32_t *scc = malloc((w->n_groups + 1) * sizeof *scc);
	if (!scc)
		r = profdb__fail(-ENOMEM, "profdb_group_inclusive: out of memory");
	for (size_t g = 0; r == 0 && g < w->n_groups; g++)
		scc[g] = (uint32_t)g;   /* a tree: no cycles to fear (see above) */
	if (r == 0 && profdb__call_graph(db) && (r = build_graph(db, w, ne, &gg)) == 0)
		r = components(&gg, w->n_groups, scc);
	for (int64_t i = 0; r == 0 && i < ne; i++) {
		uint32_t caller, callee;
		double cost = 0;
		if ((r = edge_ends(db, i, &caller, &callee)) < 0)
			break;
		if (!counting_group(w, caller) ||
		    (counting_group(w, callee) && scc[w->group_of[callee]] == scc[w->group_of[caller]]))
			continue;
		if ((r = edge_cost(db, profile, i, metric, &cost)) > 0)
			out[w->group_of[caller]] += cost;
		r = r < 0 ? r : 0;
	}
	free(gg.first);
	free(gg.to);
	free(scc);
	return r < 0 ? r : 0;
}

static int check_groups(const profdb *db, const uint32_t *group_of, size_t n_contexts,
                        const void *out, size_t n_groups, const char *who)
{
	if (!db || (!group_of && n_contexts) || (!out && n_groups))
		return profdb__fail(-EINVAL, "%s: NULL argument", who);
	for (size_t i = 0; i < n_contexts; i++)
		if (group_of[i] != PROFDB_NONE && group_of[i] >= n_groups)
			return profdb__fail(-EINVAL, "%s: context %zu in group %u of %zu", who, i,
			                    (unsigned)group_of[i], n_groups);
	return 0;
}

static int check(const profdb *db, const uint32_t *group_of, size_t n_contexts,
                 uint32_t metric, const double *out, size_t n_groups)
{
	int r = check_groups(db, group_of, n_contexts, out, n_groups, "profdb_group_inclusive");
	if (r < 0)
		return r;
	profdb_metric m;
	if ((r = profdb_metric_get(db, metric, &m)) < 0)
		return r;
	if (m.combine != PROFDB_COMBINE_SUM)
		return profdb__fail(-ENOTSUP, "profdb_group_inclusive: metric %.*s is not summed, "
		                    "a group has no inclusive value of it", (int)m.name.len,
		                    m.name.ptr);
	return 0;
}

int profdb_group_inclusive(const profdb *db, const uint32_t *group_of, size_t n_contexts,
                           uint32_t profile, uint32_t metric, double *out, size_t n_groups)
{
	int r = check(db, group_of, n_contexts, metric, out, n_groups);
	if (r < 0)
		return r;
	if (profile != PROFDB_NONE &&
	    (r = profdb__query_check_profile(db, profile, "profdb_group_inclusive")) < 0)
		return r;
	for (size_t g = 0; g < n_groups; g++)
		out[g] = 0;
	walk_state w = {group_of, n_contexts, n_groups, calloc(n_contexts + 1, 1),
	                calloc(n_groups + 1, sizeof *w.on_path), NULL, NULL, 0, 0};
	uint32_t *all = NULL;
	size_t n_all = 0;
	if (!w.counts || !w.on_path)
		r = profdb__fail(-ENOMEM, "profdb_group_inclusive: out of memory");
	for (size_t i = 0; r == 0 && profdb__call_graph(db) && i < n_contexts; i++)
		w.counts[i] = group_of[i] != PROFDB_NONE;
	if (r == 0 && (profdb__call_graph(db) || (r = mark(db, &w)) == 0) &&
	    (profile != PROFDB_NONE || (r = profiles_of(db, &all, &n_all)) == 0))
		r = sum_groups(db, &w, profile, all, n_all, metric, out);
	free(all);
	free(w.counts);
	free(w.on_path);
	free(w.stack);
	free(w.tail);
	return r;
}

/* The components of two or more groups, numbered by their lowest group. */
static int64_t number_cycles(const uint32_t *scc, size_t ng, uint32_t *cycle_of)
{
	uint32_t *size = calloc(ng + 1, sizeof *size), *number = malloc((ng + 1) * sizeof *number);
	int64_t n = 0;
	if (!size || !number)
		n = profdb__fail(-ENOMEM, "profdb_group_cycles: out of memory");
	for (size_t g = 0; n == 0 && g < ng; g++) {
		size[scc[g]]++;
		number[g] = PROFDB_NONE;
	}
	for (size_t g = 0; n >= 0 && g < ng; g++) {
		uint32_t c = scc[g];
		if (size[c] > 1 && number[c] == PROFDB_NONE)
			number[c] = (uint32_t)n++;
		cycle_of[g] = size[c] > 1 ? number[c] : PROFDB_NONE;
	}
	free(size);
	free(number);
	return n;
}

int64_t profdb_group_cycles(const profdb *db, const uint32_t *group_of, size_t n_contexts,
                            uint32_t *cycle_of, size_t n_groups)
{
	int r = check_groups(db, group_of, n_contexts, cycle_of, n_groups, "profdb_group_cycles");
	if (r < 0)
		return r;
	for (size_t g = 0; g < n_groups; g++)
		cycle_of[g] = PROFDB_NONE;
	int64_t ne = profdb__call_graph(db) ? edge_count(db) : 0;
	if (ne <= 0)
		return ne;
	walk_state w = {group_of, n_contexts, n_groups, calloc(n_contexts + 1, 1), NULL, NULL, NULL,
	                0, 0};
	group_graph gg = {NULL, NULL};
	uint32_t *scc = malloc((n_groups + 1) * sizeof *scc);
	int64_t n = w.counts && scc ? 0 : profdb__fail(-ENOMEM, "profdb_group_cycles: out of memory");
	for (size_t i = 0; n == 0 && i < n_contexts; i++)
		w.counts[i] = group_of[i] != PROFDB_NONE;
	if (n == 0 && (n = build_graph(db, &w, ne, &gg)) == 0 &&
	    (n = components(&gg, n_groups, scc)) == 0)
		n = number_cycles(scc, n_groups, cycle_of);
	free(gg.first);
	free(gg.to);
	free(scc);
	free(w.counts);
	return n;
}
