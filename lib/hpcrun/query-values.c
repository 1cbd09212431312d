/* The hpcrun backend: value lookups (raw and inclusive over the merged
 * tree) and the values cursor. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"
#include "../core/table-internal.h"

/* ---- lookups ---------------------------------------------------------------------------- */

int profdb__hq_usable(const hq_profile *pr)
{
	return pr->has_file && !pr->broken;
}

profdb_number profdb__hq_number(const hq *q, uint32_t metric, uint64_t bits)
{
	profdb_number n;
	if (q->metrics[metric].is_real) {
		n.type = PROFDB_TYPE_F64;
		n.as.f64 = profdb__f64_bits(bits);
	} else {
		n.type = PROFDB_TYPE_U64;
		n.as.u64 = bits;
	}
	return n;
}

/* The profile's node and own metric index for merged context @p c and
 * merged metric @p m, once both are checked (the tree built; lib/query has
 * checked the profile): 1, 0 when the profile has no such node or metric,
 * < 0 for an unknown id or a tree that cannot be built. */
static int hq_locate(const hq *q, uint32_t p, uint32_t c, uint32_t m, uint32_t *node,
                  uint32_t *own)
{
	int r = profdb__hq_tree_ready(q);
	if (r < 0 || (r = profdb__hq_check_context(q, c)) < 0 ||
	    (r = profdb__hq_check_metric(q, m)) < 0)
		return r;
	const hq_profile *pr = &q->prof[p];
	if (!profdb__hq_usable(pr))
		return 0;
	*own = profdb__hpcrun_search(pr->metric_sorted, pr->n_metrics, m);
	*node = profdb__hpcrun_search(pr->by_merged, pr->n_nodes, c);
	return *own != NONE && *node != NONE;
}

/* ---- values ------------------------------------------------------------------------------- */

int profdb__hq_value(const void *impl, uint32_t p, uint32_t c, uint32_t m, profdb_number *out)
{
	const hq *q = impl;
	uint32_t node, own;
	uint64_t bits;
	int r = hq_locate(q, p, c, m, &node, &own);
	if (r <= 0)
		return r;
	if ((r = profdb_hpcrun_value(q->h, p, node, own, &bits)) <= 0)
		return r;
	/* a dense file stores every cell: its zeros are "not stored" */
	if (q->prof[p].dense && bits == 0)
		return 0;
	*out = profdb__hq_number(q, m, bits);
	return 1;
}

typedef struct incl_arg {
	const hq *q;
	uint32_t p;
} incl_arg;

static void add_bits(uint64_t *d, uint64_t s, int real)
{
	if (real) {
		double x = profdb__f64_bits(*d) + profdb__f64_bits(s);
		memcpy(d, &x, 8);
	} else {
		*d += s;   /* mod 2^64 */
	}
}

/* Raw values into @p v (n_nodes x n_metrics) and every node's parent. */
static int load_raw(const hq *q, uint32_t p, uint64_t *v, uint32_t *parent)
{
	const hq_profile *pr = &q->prof[p];
	for (uint32_t i = 0; i < pr->n_nodes; i++) {
		profdb_hpcrun_node nd;
		profdb_view run;
		int r = profdb_hpcrun_node_at(q->h, p, i, &nd);
		if (r < 0 || (r = profdb_hpcrun_values(q->h, p, i, &run)) < 0)
			return r;
		parent[i] = nd.parent;
		PROFDB_VIEW_FOREACH(&run, k)
			v[(uint64_t)i * pr->n_metrics + profdb_view_key(&run, k)] =
				profdb_view_value(&run, k).as.u64;
	}
	return 0;
}

/* Inclusive values of one profile over the merged tree. A child's merged
 * id is always above its parent's (nodes are created parents first), so
 * going down the merged ids finishes every child before its parent; each
 * node adds its children's inclusive values to its raw value in merged-id
 * order, which is the order of the merged tree's child lists. */
static int build_incl(void *arg)
{
	const incl_arg *a = arg;
	const hq *q = a->q;
	hq_profile *pr = &q->prof[a->p];
	uint64_t n = pr->n_nodes, nm = pr->n_metrics, limit = profdb__hq_max_memory(q);
	uint64_t temp = 12 * n;   /* parent and child links */
	if (temp > limit || (nm && n * nm > (limit - temp) / 8))
		return profdb__fail(-EFBIG, "hpcrun profile %" PRIu32 ": the inclusive table (%" PRIu64
		                    " nodes x %" PRIu64 " metrics) is above profdb_options.max_memory %"
		                    PRIu64, a->p, n, nm, limit);
	uint64_t *v = calloc((size_t)(n && nm ? n * nm : 1), 8);
	uint32_t *parent = malloc((size_t)(n ? n : 1) * 4), *first = malloc((size_t)(n ? n : 1) * 4);
	uint32_t *next = malloc((size_t)(n ? n : 1) * 4);
	int r = v && parent && first && next ? load_raw(q, a->p, v, parent)
	                                     : profdb__fail(-ENOMEM, "out of memory");
	if (r == 0) {
		for (uint64_t k = 0; k < n; k++)
			first[k] = NONE;
		for (uint64_t k = n; k-- > 0;) {   /* child lists in ascending merged ids */
			uint32_t x = (uint32_t)pr->by_merged[k];
			if (parent[x] != NONE) {
				next[x] = first[parent[x]];
				first[parent[x]] = x;
			}
		}
		for (uint64_t k = n; k-- > 0;) {
			uint32_t x = (uint32_t)pr->by_merged[k];
			for (uint32_t c = first[x]; c != NONE; c = next[c])
				for (uint64_t m = 0; m < nm; m++)
					add_bits(&v[x * nm + m], v[c * nm + m], q->metrics[pr->metric[m]].is_real);
		}
		pr->incl = v;
		v = NULL;
	}
	free(v);
	free(parent);
	free(first);
	free(next);
	return r;
}

int profdb__hq_scoped(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
                    profdb_number *out)
{
	const hq *q = impl;
	if (!inclusive)
		return profdb__hq_value(impl, p, c, m, out);
	uint32_t node, own;
	int r = hq_locate(q, p, c, m, &node, &own);
	if (r <= 0)
		return r;
	const hq_profile *pr = &q->prof[p];
	incl_arg a = {q, p};
	if ((r = profdb__once_run((profdb__once *)&pr->incl_once, build_incl, &a)) < 0)
		return r;
	uint64_t bits = pr->incl[(uint64_t)node * pr->n_metrics + own];
	/* -0.0 is zero too */
	if ((q->metrics[m].is_real ? bits << 1 : bits) == 0)
		return 0;
	*out = profdb__hq_number(q, m, bits);
	return 1;
}

/* ---- the cursor --------------------------------------------------------------------------- */
/*
 * Order: a profile scan gives (context id, metric id) ascending: the
 * profile's nodes in merged-id order (by_merged), each node's values in
 * merged metric order. A context scan gives (metric id, profile)
 * ascending: the values of every profile for that context are gathered
 * and sorted once. PROFDB_SCAN_ALL is the profile scan of each profile in
 * turn.
 */

typedef struct hq_pair {
	uint32_t metric;              /* merged id */
	uint32_t profile;
	uint64_t bits;
} hq_pair;

/* A buffer of entries of one context: of one (profile, node) for profile
 * scans, of every profile for a context scan. */
typedef struct hq_cursor {
	uint32_t profile, context;
	uint64_t n, at;
	hq_pair e[];
} hq_cursor;

static int cmp_pair(const void *a, const void *b)
{
	const hq_pair *x = a, *y = b;
	if (x->metric != y->metric)
		return (x->metric > y->metric) - (x->metric < y->metric);
	return (x->profile > y->profile) - (x->profile < y->profile);
}

/* Append the values of (profile p, node) to c->e. */
static int append(const hq *q, hq_cursor *c, uint32_t p, uint32_t node)
{
	const hq_profile *pr = &q->prof[p];
	profdb_view run;
	int r = profdb_hpcrun_values(q->h, p, node, &run);
	if (r < 0)
		return r;
	PROFDB_VIEW_FOREACH(&run, k) {
		uint64_t bits = profdb_view_value(&run, k).as.u64;
		uint64_t m = profdb_view_key(&run, k);
		if ((pr->dense && bits == 0) || m >= pr->n_metrics)
			continue;
		c->e[c->n].metric = pr->metric[m];
		c->e[c->n].profile = p;
		c->e[c->n++].bits = bits;
	}
	return 0;
}

static int fill(const hq *q, hq_cursor *c, uint32_t p, uint32_t node, uint32_t ctx)
{
	c->profile = p;
	c->context = ctx;
	c->n = c->at = 0;
	int r = append(q, c, p, node);
	if (r == 0 && !q->prof[p].metric_monotone)
		qsort(c->e, (size_t)c->n, sizeof *c->e, cmp_pair);
	return r;
}

/* Every profile's values of context @p ctx, by (metric, profile). */
static int fill_context(const hq *q, hq_cursor *c, uint32_t ctx)
{
	c->context = ctx;
	c->n = c->at = 0;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		const hq_profile *pr = &q->prof[p];
		uint32_t node = profdb__hq_usable(pr) ? profdb__hq_search(pr->by_merged, pr->n_nodes, ctx) : NONE;
		int r = node == NONE ? 0 : append(q, c, p, node);
		if (r < 0)
			return r;
	}
	qsort(c->e, (size_t)c->n, sizeof *c->e, cmp_pair);
	return 0;
}

int profdb__hq_cursor_begin(const void *impl, profdb__cursor *cur)
{
	const hq *q = impl;
	int r = profdb__hq_tree_ready(q);
	if (r < 0)
		return r;
	memset(cur->pos, 0, sizeof cur->pos);
	uint64_t cap = q->max_own_metrics;
	if (cur->scan == PROFDB_SCAN_PROFILE) {
		cur->pos[0] = cur->key;
	} else if (cur->scan == PROFDB_SCAN_CONTEXT) {
		if ((r = profdb__hq_check_context(q, cur->key)) < 0)
			return r;
		cap = q->total_own_metrics;
		if (cap * sizeof(hq_pair) > profdb__hq_max_memory(q))
			return profdb__fail(-EFBIG, "hpcrun: a context cursor over %" PRIu64 " metric "
			                    "slots is above profdb_options.max_memory", cap);
	}
	cur->priv = calloc(1, sizeof(hq_cursor) + (size_t)(cap ? cap : 1) * sizeof(hq_pair));
	return cur->priv ? 0 : profdb__fail(-ENOMEM, "out of memory");
}

/* Load the next (profile, node) with values into the buffer: 1, or 0 at
 * the end. pos[0] = profile, pos[1] = position in its by_merged list; for
 * a context scan pos[0] = 1 once the context is loaded. */
static int advance(const hq *q, profdb__cursor *cur, hq_cursor *c)
{
	if (cur->scan == PROFDB_SCAN_CONTEXT) {
		if (cur->pos[0]++)
			return 0;
		int r = fill_context(q, c, cur->key);
		return r < 0 ? r : c->n > 0;
	}
	for (;;) {
		uint32_t p = (uint32_t)cur->pos[0];
		if (p >= q->n_profiles || (cur->scan == PROFDB_SCAN_PROFILE && p != cur->key))
			return 0;
		const hq_profile *pr = &q->prof[p];
		if (!profdb__hq_usable(pr) || cur->pos[1] >= pr->n_nodes) {
			cur->pos[0]++;
			cur->pos[1] = 0;
			continue;
		}
		uint64_t e = pr->by_merged[cur->pos[1]++];
		int r = fill(q, c, p, (uint32_t)e, (uint32_t)(e >> 32));
		if (r < 0 || c->n)
			return r < 0 ? r : 1;
	}
}

int profdb__hq_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out)
{
	const hq *q = impl;
	hq_cursor *c = cur->priv;
	if (c->at == c->n) {
		int r = advance(q, cur, c);
		if (r <= 0)
			return r;
	}
	const hq_pair *e = &c->e[c->at++];
	out->profile = e->profile;
	out->context = c->context;
	out->metric = e->metric;
	out->value = profdb__hq_number(q, e->metric, e->bits);
	return 1;
}

void profdb__hq_cursor_free(const void *impl, profdb__cursor *cur)
{
	(void)impl;
	free(cur->priv);
	cur->priv = NULL;
}
