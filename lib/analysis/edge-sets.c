/* The edges of some contexts (profdb_edge_set_*; doc/model.md "Call
 * edges"): exactly the edges of the handle's table that a side selects
 * for them, read without building that table where it costs: a call
 * graph's set is a table of its own, built by the table's builder from
 * the text of the callers it needs (edges.c); a tree format's set copies
 * its edges from the handle's table, found through two orders of it. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "edges-internal.h"
#include "core/search-internal.h"
#include "core/table-internal.h"
#include "query/hints-internal.h"
#include "query/query-internal.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* @p a (@p n ids) sorted, each once: the count kept. */
static size_t sort_unique(uint32_t *a, size_t n)
{
	size_t k = 0;
	if (n > 1)
		qsort(a, n, sizeof *a, cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || a[i] != a[k - 1])
			a[k++] = a[i];
	return k;
}

/* A call graph's set has a table of its own (the picked edges, built
 * from its callers' text alone); a tree format's set is the handle's
 * table (its costs are the callees' values, its columns the handle's)
 * with the picked edges copied. */
struct profdb_edge_set {
	const profdb *db;
	struct profdb__edges *x;
	const struct profdb__edges *tree;   /* NULL on a call graph */
};

/* Context @p c's function, as a call graph's edges name their callers:
 * the context itself, a line's or an instruction's parent; PROFDB_NONE
 * for the root. */
static uint32_t function_of(const profdb_context *c)
{
	if (c->type == PROFDB_CTX_FUNCTION)
		return c->id;
	if (c->type == PROFDB_CTX_LINE || c->type == PROFDB_CTX_INSTRUCTION)
		return c->parent;
	return PROFDB_NONE;
}

/* The edges' order by @p key (a member of profdb_edge), as indices into
 * x->e, in *out. */
static int order_by(const struct profdb__edges *x, size_t key, uint32_t **out)
{
	size_t n = (size_t)x->n;
	profdb__sort_pair *a = malloc((n + 1) * sizeof *a), *tmp = malloc((n + 1) * sizeof *tmp);
	uint32_t *count = malloc(PROFDB_RADIX_SIZE * sizeof *count);
	int r = a && tmp && count && (*out = malloc((n + 1) * sizeof **out)) ? 0
	                                                                    : profdb__edges_oom();
	for (size_t i = 0; r == 0 && i < n; i++) {
		uint32_t k;
		memcpy(&k, (const unsigned char *)&x->e[i] + key, sizeof k);
		a[i] = (profdb__sort_pair){k, (uint32_t)i};
	}
	if (r == 0) {
		profdb__radix_pairs(&a, &tmp, n, count);   /* stable: indices ascend among equals */
		for (size_t i = 0; i < n; i++)
			(*out)[i] = a[i].at;
	}
	free(a);
	free(tmp);
	free(count);
	return r;
}

typedef struct orders_arg {
	const profdb *db;
	struct profdb__edges *x;
} orders_arg;

static int build_orders(void *arg)
{
	const orders_arg *o = arg;
	struct profdb__edges *x = o->x;
	if (x->n >= UINT32_MAX)
		return profdb__fail(-EFBIG, "call edges: %" PRIu64 " edges, too many to index", x->n);
	uint64_t need = x->n * 2 * (sizeof(uint32_t) + sizeof(profdb__sort_pair));
	if (need > profdb__edges_budget(o->db))
		return profdb__fail(-EFBIG, "call edges: the index of the edges needs %" PRIu64
		                    " bytes, more than profdb_options.max_memory", need);
	int r = order_by(x, offsetof(profdb_edge, callee), &x->by_callee);
	return r < 0 ? r : order_by(x, offsetof(profdb_edge, site), &x->by_site);
}

/* In @p order (indices into x->e, sorted by the u32 member at @p key),
 * the range of the edges whose member is @p v: [*lo, *hi). */
static void order_range(const struct profdb__edges *x, const uint32_t *order, size_t key,
                        uint32_t v, size_t *lo, size_t *hi)
{
	for (int upper = 0; upper < 2; upper++) {
		size_t l = upper ? *lo : 0, h = (size_t)x->n;
		while (l < h) {
			size_t mid = l + (h - l) / 2;
			uint32_t k;
			memcpy(&k, (const unsigned char *)&x->e[order[mid]] + key, sizeof k);
			if (upper ? k <= v : k < v)
				l = mid + 1;
			else
				h = mid;
		}
		*(upper ? hi : lo) = l;
	}
}

/* A tree format's set: the picked edges of the handle's table, found
 * through its orders, in the table's order. */
static int set_tree(const profdb *db, const profdb__edge_pick *pk, profdb_edge_set *s)
{
	const struct profdb__edges *all;
	int r = profdb__edges_table(db, &all);
	if (r < 0)
		return r;
	s->tree = all;
	orders_arg o = {db, (struct profdb__edges *)all};   /* built once, read-only after */
	if ((r = profdb__once_run(&o.x->order_once, build_orders, &o)) < 0)
		return r;
	/* each context's edges by index: into, its callee range; out of, its
	 * caller range (the table is sorted by caller) and its site range */
	uint32_t *at = NULL;
	size_t n = 0, cap = 0;
	for (size_t c = 0; c < pk->n_ctx && r == 0; c++) {
		uint32_t id = pk->ctx[c];
		size_t lo, hi;
		if (pk->side == PROFDB_EDGES_OUT_OF) {
			lo = profdb__lower_u32_field(all->e, sizeof *all->e,
			                             offsetof(profdb_edge, caller), 0, (size_t)all->n, id);
			for (hi = lo; hi < all->n && all->e[hi].caller == id; hi++)
				;
			if ((r = profdb__grow((void **)&at, &cap, n + (hi - lo), sizeof *at)) < 0)
				break;
			for (size_t i = lo; i < hi; i++)
				at[n++] = (uint32_t)i;
		}
		const uint32_t *order = pk->side == PROFDB_EDGES_INTO ? all->by_callee : all->by_site;
		order_range(all, order, pk->side == PROFDB_EDGES_INTO ? offsetof(profdb_edge, callee)
		                                                      : offsetof(profdb_edge, site),
		            id, &lo, &hi);
		if ((r = profdb__grow((void **)&at, &cap, n + (hi - lo), sizeof *at)) < 0)
			break;
		for (size_t i = lo; i < hi; i++)
			at[n++] = order[i];
	}
	if (r == 0)   /* in the table's order, each edge once */
		n = sort_unique(at, n);
	if (r == 0 && !(s->x->e = malloc((n + 1) * sizeof *s->x->e)))
		r = profdb__edges_oom();
	for (size_t i = 0; r == 0 && i < n; i++)
		s->x->e[s->x->n++] = all->e[at[i]];
	free(at);
	return r;
}

/* The picked contexts, checked (each must exist), and on a call graph
 * the functions whose calls the side reads, in *ctx and *fn (the
 * caller frees both). */
static int make_pick(const profdb *db, const uint32_t *contexts, size_t n, profdb_edge_side side,
                     profdb__edge_pick *pk, uint32_t **ctx, uint32_t **fn)
{
	*pk = (profdb__edge_pick){0, side, NULL, 0, NULL, 0};
	*fn = NULL;
	if (!(*ctx = malloc((n + 1) * sizeof **ctx)))
		return profdb__edges_oom();
	if (n)
		memcpy(*ctx, contexts, n * sizeof **ctx);
	pk->ctx = *ctx;
	pk->n_ctx = sort_unique(*ctx, n);
	if (profdb__call_graph(db) && side == PROFDB_EDGES_OUT_OF &&
	    !(*fn = malloc((pk->n_ctx + 1) * sizeof **fn)))
		return profdb__edges_oom();
	for (size_t i = 0; i < pk->n_ctx; i++) {
		profdb_context c;
		int r = profdb_context_get(db, pk->ctx[i], &c);
		if (r < 0)
			return r;
		if (*fn && function_of(&c) != PROFDB_NONE)
			(*fn)[pk->n_fn++] = function_of(&c);
	}
	pk->fn = *fn;
	pk->n_fn = *fn ? sort_unique(*fn, pk->n_fn) : 0;
	return 0;
}

int profdb_edge_set_new(profdb_edge_set **ret, const profdb *db, const uint32_t *contexts,
                        size_t n_contexts, profdb_edge_side side)
{
	if (ret)
		*ret = NULL;
	if (!ret || !db || (!contexts && n_contexts))
		return profdb__fail(-EINVAL, "profdb_edge_set_new: NULL argument");
	if (side != PROFDB_EDGES_INTO && side != PROFDB_EDGES_OUT_OF)
		return profdb__fail(-EINVAL, "profdb_edge_set_new: side %d is not a profdb_edge_side",
		                    (int)side);
	if (n_contexts > UINT32_MAX)
		return profdb__fail(-EINVAL, "profdb_edge_set_new: %zu contexts", n_contexts);
	profdb__edge_pick pk;
	uint32_t *ctx = NULL, *fn = NULL;
	profdb_edge_set *s = NULL;
	int r = make_pick(db, contexts, n_contexts, side, &pk, &ctx, &fn);
	if (r == 0 && (!(s = calloc(1, sizeof *s)) || !(s->x = profdb__edges_new())))
		r = profdb__edges_oom();
	if (r == 0) {
		s->db = db;
		r = profdb__call_graph(db) ? profdb__edges_build_cg(db, &pk, s->x) : set_tree(db, &pk, s);
	}
	free(ctx);
	free(fn);
	if (r < 0) {
		profdb_edge_set_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int64_t profdb_edge_set_count(const profdb_edge_set *set)
{
	if (!set)
		return profdb__fail(-EINVAL, "profdb_edge_set_count: NULL edge set");
	return (int64_t)set->x->n;
}

int profdb_edge_set_at(const profdb_edge_set *set, uint64_t index, profdb_edge *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!set || !out)
		return profdb__fail(-EINVAL, "profdb_edge_set_at: NULL argument");
	if (index >= set->x->n)
		return profdb__fail(-ENOENT, "profdb_edge_set_at: no edge %" PRIu64 " (%" PRIu64
		                    " edges)", index, set->x->n);
	*out = set->x->e[index];
	return 0;
}

int profdb_edge_set_inclusive(const profdb_edge_set *set, uint32_t profile, uint64_t index,
                              uint32_t metric, profdb_number *out)
{
	if (!set || !out)
		return profdb__fail(-EINVAL, "profdb_edge_set_inclusive: NULL argument");
	return profdb__edges_inclusive(set->db, set->x, set->tree, index, profile, metric, out,
	                               "profdb_edge_set_inclusive");
}

void profdb_edge_set_free(profdb_edge_set *set)
{
	if (!set)
		return;
	profdb__edges_free(set->x);
	free(set);
}
