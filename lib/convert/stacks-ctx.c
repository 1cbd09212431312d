/* The top-down view of one profile at a time, for the writers that write
 * one stack list per profile (speedscope's sampled profiles): the context
 * tree is walked once, and each profile then costs one pass over its
 * stored values and a sort of each node's children. profdb_tree_new() per
 * profile gave the same stacks but looked every value up on its own
 * (135 profiles of hpcviewer's issue-233 database: 700 ms, now a few).
 *
 * This follows lib/analysis/tree-ctx.c's top-down view for one profile and a
 * metric whose inclusive value is stored, which is HPCToolkit 4.0's case
 * (profdb_inclusive() there is the stored value of the inclusive id):
 *  - a context's value is the stored inclusive value; a context with none
 *    while its children have some takes their sum (fill_missing);
 *  - node 0 is the single ROOT context, else a synthetic root over the
 *    roots with their sum;
 *  - children are ordered heaviest first, ties by context id (cmp_skey);
 *  - no cut-off (none applies outside Callgrind).
 * Any other database falls back to profdb_tree_new() (-ENOTSUP). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/hints-internal.h"
#include "stacks-internal.h"

/* A child as the view orders them: heaviest first, ties by context id
 * (lib/analysis/tree.c, cmp_skey; context ids are unique). */
typedef struct kid {
	double key;
	uint32_t ctx, node;
} kid;

struct profdb__cv_ctree {
	const profdb *db;
	uint32_t metric;          /* the stored inclusive id */
	size_t n;                 /* nodes: the contexts in pre-order, after node 0 when synthetic */
	int synthetic;            /* node 0 is no context */
	uint32_t *ctx;            /* per node: context id (PROFDB_NONE: synthetic) */
	uint32_t *kid_start;      /* per node + 1: its children in kids[], in tree order */
	uint32_t *kids;
	uint32_t *frame;          /* per node: frame index, PROFDB_NONE not a frame */
	uint8_t *is_frame, *interned;
	uint32_t *node_of;        /* context id -> node + 1 (0: none) */
	size_t n_ids;
	/* per profile */
	double *inc;
	uint8_t *found;
	uint32_t *first_child, *next_sibling;
	kid *order;               /* scratch: one node's children */
	profdb__cv_metric m;
};

void profdb__cv_ctree_free(profdb__cv_ctree *t)
{
	if (!t)
		return;
	free(t->ctx);
	free(t->kid_start);
	free(t->kids);
	free(t->frame);
	free(t->is_frame);
	free(t->interned);
	free(t->node_of);
	free(t->inc);
	free(t->found);
	free(t->first_child);
	free(t->next_sibling);
	free(t->order);
	free(t);
}

/* Does the top-down view of one profile read the stored inclusive value
 * of @p m? 1, 0 (fall back), < 0. */
static int covered(const profdb *db, const profdb_metric *m)
{
	if (!profdb__inclusive_stored(db) || m->kind == PROFDB_METRIC_SUMMARY ||
	    m->inclusive_id == PROFDB_NONE)
		return 0;
	uint32_t root;
	int r = profdb_context_root(db, &root);
	return r == -ENOENT ? 0 : r < 0 ? r : 1;
}

/* The contexts in pre-order (tree-ctx.c's collect()): ctx[], parents in
 * @p parent, and the roots counted. */
typedef struct collecting {
	profdb__cv_ctree *t;
	uint32_t *parent;
	size_t count, n, roots;
} collecting;

static int collect_one(void *ud, const profdb_context *c, uint32_t parent)
{
	collecting *x = ud;
	profdb__cv_ctree *t = x->t;
	if (x->n >= x->count + t->synthetic)   /* the arrays hold count + 1 */
		return profdb__fail(-EBADMSG, "profdb_convert: the context links visit more than "
		                    "the %zu contexts counted", x->count);
	uint32_t j = (uint32_t)x->n++;
	t->ctx[j] = c->id;
	x->parent[j] = parent != PROFDB_NONE ? parent + (uint32_t)t->synthetic
	             : t->synthetic ? 0 : PROFDB_NONE;
	x->roots += parent == PROFDB_NONE;
	t->is_frame[j] = (uint8_t)(profdb__cv_is_frame(c) && !(j == 0 && c->type == PROFDB_CTX_ROOT));
	return 0;
}

static int collect(profdb__cv_ctree *t, uint32_t *parent, size_t count, size_t *roots)
{
	collecting x = {t, parent, count, (size_t)t->synthetic, 0};
	int r = profdb__cv_preorder(t->db, collect_one, &x);
	t->n = x.n;
	*roots = x.roots;
	return r < 0 ? r : x.n == (size_t)t->synthetic ? -ENOTSUP : 0;
}

/* Children lists (CSR, in tree order) and the context id index. */
static int link(profdb__cv_ctree *t, const uint32_t *parent)
{
	size_t n = t->n;
	uint32_t max_id = 0;
	for (size_t i = t->synthetic; i < n; i++)
		max_id = t->ctx[i] > max_id ? t->ctx[i] : max_id;
	/* Ids are dense in practice; a file whose ids are not gets the view. */
	if (max_id > 8 * (uint64_t)n + 65536)
		return -ENOTSUP;
	t->n_ids = (size_t)max_id + 1;
	t->kid_start = calloc(n + 1, sizeof *t->kid_start);
	t->kids = malloc(n * sizeof *t->kids + 1);
	t->node_of = calloc(t->n_ids, sizeof *t->node_of);
	if (!t->kid_start || !t->kids || !t->node_of)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%zu contexts)", n);
	for (size_t i = 0; i < n; i++)
		if (parent[i] != PROFDB_NONE)
			t->kid_start[parent[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		t->kid_start[i + 1] += t->kid_start[i];
	uint32_t *fill = t->first_child;   /* scratch: next free slot per node */
	memcpy(fill, t->kid_start, n * sizeof *fill);
	for (size_t i = 0; i < n; i++)   /* pre-order: siblings in tree order */
		if (parent[i] != PROFDB_NONE)
			t->kids[fill[parent[i]]++] = (uint32_t)i;
	for (size_t i = t->synthetic; i < n; i++)
		t->node_of[t->ctx[i]] = (uint32_t)i + 1;
	return 0;
}

int profdb__cv_ctree_new(profdb__cv_ctree **out, const profdb *db, const profdb__cv_metric *m)
{
	*out = NULL;
	int r = covered(db, &m->m);
	if (r <= 0)
		return r < 0 ? r : -ENOTSUP;
	int64_t count = profdb_context_count(db);
	if (count < 0)
		return (int)count;
	if (count == 0 || count >= UINT32_MAX - 1)
		return -ENOTSUP;
	profdb__cv_ctree *t = calloc(1, sizeof *t);
	if (!t)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	t->db = db;
	t->metric = m->m.inclusive_id;
	size_t cap = (size_t)count + 1;   /* the contexts and a synthetic root */
	uint32_t *parent = malloc(cap * sizeof *parent);
	t->ctx = malloc(cap * sizeof *t->ctx);
	t->frame = malloc(cap * sizeof *t->frame);
	t->is_frame = calloc(cap, 1);
	t->interned = calloc(cap, 1);
	t->inc = malloc(cap * sizeof *t->inc);
	t->found = malloc(cap);
	t->first_child = malloc(cap * sizeof *t->first_child);
	t->next_sibling = malloc(cap * sizeof *t->next_sibling);
	t->order = malloc(cap * sizeof *t->order);
	t->m = *m;
	if (!parent || !t->ctx || !t->frame || !t->is_frame || !t->interned || !t->inc ||
	    !t->found || !t->first_child || !t->next_sibling || !t->order) {
		r = profdb__fail(-ENOMEM, "profdb_convert: out of memory (%" PRId64 " contexts)", count);
		goto out;
	}
	/* A format's own single root (type ROOT) is node 0; several roots, or
	 * one that is code, hang below a synthetic node 0 (tree-ctx.c). */
	size_t roots;
	if ((r = collect(t, parent, (size_t)count, &roots)) < 0)
		goto out;
	profdb_context c0;
	if ((r = profdb_context_get(db, t->ctx[0], &c0)) < 0)
		goto out;
	if (roots != 1 || c0.type != PROFDB_CTX_ROOT) {
		t->synthetic = 1;
		if ((r = collect(t, parent, (size_t)count, &roots)) < 0)
			goto out;
		t->ctx[0] = PROFDB_NONE;
		parent[0] = PROFDB_NONE;
		t->is_frame[0] = 0;   /* the first walk's root was node 0 */
	}
	r = link(t, parent);
out:
	free(parent);
	if (r < 0) {
		profdb__cv_ctree_free(t);
		return r;
	}
	*out = t;
	return 0;
}

/* ---- one profile ------------------------------------------------------------------- */

/* The stored inclusive values of @p profile, then what fill_missing()
 * gives a node without one: its children's sum (node 0 when synthetic:
 * the roots' sum, the view's total). */
static int load(profdb__cv_ctree *t, uint32_t profile)
{
	profdb_view index, values;
	int r = profdb_profile_view(t->db, profile, &index, &values);
	if (r < 0)
		return r;
	memset(t->found, 0, t->n);
	PROFDB_VIEW_FOREACH(&index, i) {
		uint64_t id = profdb_view_key(&index, i), j;
		uint32_t node = id < t->n_ids ? t->node_of[id] : 0;
		if (!node)
			continue;   /* a value at an id without a node: not in the view */
		profdb_view run = profdb_view_run(&index, i, &values);
		if (run.count && profdb_view_find(&run, t->metric, &j) == 1) {
			t->inc[node - 1] = profdb_number_to_double(profdb_view_value(&run, j));
			t->found[node - 1] = 1;
		}
	}
	for (size_t i = t->n; i-- > 0;) {
		if (t->found[i])
			continue;
		double acc = 0;
		for (uint32_t k = t->kid_start[i]; k < t->kid_start[i + 1]; k++)
			acc = k == t->kid_start[i] ? t->inc[t->kids[k]] : acc + t->inc[t->kids[k]];
		t->inc[i] = acc;
	}
	return 0;
}

static int before(const kid *a, const kid *b)
{
	return a->key != b->key ? a->key > b->key : a->ctx < b->ctx;
}

static int cmp_kids(const void *pa, const void *pb)
{
	const kid *a = pa, *b = pb;
	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

/* Each node's children in the view's order, as first_child/next_sibling. */
static void order(profdb__cv_ctree *t)
{
	kid *o = t->order;
	for (size_t i = 0; i < t->n; i++) {
		uint32_t a = t->kid_start[i], k = t->kid_start[i + 1] - a;
		for (uint32_t x = 0; x < k; x++) {
			uint32_t c = t->kids[a + x];
			o[x] = (kid){isnan(t->inc[c]) ? -INFINITY : t->inc[c], t->ctx[c], c};
		}
		if (k > 16) {
			qsort(o, k, sizeof *o, cmp_kids);
		} else {   /* most nodes have few children: insertion sort */
			for (uint32_t x = 1; x < k; x++) {
				kid v = o[x];
				uint32_t y = x;
				for (; y > 0 && before(&v, &o[y - 1]); y--)
					o[y] = o[y - 1];
				o[y] = v;
			}
		}
		t->first_child[i] = k ? o[0].node : PROFDB_NONE;
		for (uint32_t x = 0; x < k; x++)
			t->next_sibling[o[x].node] = x + 1 < k ? o[x + 1].node : PROFDB_NONE;
	}
	t->next_sibling[0] = PROFDB_NONE;
}

static int ctree_enter(void *ud, uint32_t node, profdb__cv_frames *frames, profdb__cv_snode *out)
{
	profdb__cv_ctree *t = ud;
	out->first_child = t->first_child[node];
	out->inc = t->inc[node];
	out->other = 0;
	out->frame = PROFDB_NONE;
	if (!t->is_frame[node])
		return 0;
	if (!t->interned[node]) {   /* the first profile that reaches it names it */
		profdb_context c;
		int r = profdb_context_get(t->db, t->ctx[node], &c);
		if (r < 0 || (r = profdb__cv_frame_intern(frames, &c, &t->frame[node])) < 0)
			return r;
		t->interned[node] = 1;
	}
	out->frame = t->frame[node];
	return 0;
}

static int ctree_next(void *ud, uint32_t node, uint32_t *sibling)
{
	*sibling = ((const profdb__cv_ctree *)ud)->next_sibling[node];
	return 0;
}

int profdb__cv_ctree_stacks(profdb__cv_ctree *t, uint32_t profile, profdb__cv_frames *frames,
                            const profdb__cv_stack_sink *sink, profdb__cv_weight *total)
{
	int r = load(t, profile);
	if (r < 0)
		return r;
	order(t);
	profdb__cv_source src = {ctree_enter, ctree_next, t, 0, (int64_t)t->n};
	return profdb__cv_walk(&src, &t->m, frames, sink, total);
}
