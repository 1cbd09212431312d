/* Call edges (profdb/analysis.h; doc/model.md "Call edges"), built once
 * per handle on first use (profdb__once) from the common interface, so
 * that one rule serves every format:
 *
 *  - A format that stores a call graph (Callgrind): one edge per (caller,
 *    callee, call site) of its calls (the calls= lines), read through the
 *    backend table (graph: which functions call; native_records: each
 *    caller's call sites), with the count and the inclusive cost kept per
 *    profile. The call site is the caller's line/instruction context at
 *    the call's position when there is one (a position where the caller
 *    has a self cost), else PROFDB_NONE; the calls of one caller to one
 *    callee without such a context share one edge. A caller without line
 *    contexts (every caller of a PROFDB_OPEN_FUNCTIONS_ONLY open) has no
 *    sites: its edges are the backend's calls (graph.call), read there
 *    and neither decoded nor copied.
 *  - The tree formats store call paths: one edge per context whose
 *    relation to its parent is CALL or INLINED; the caller is its nearest
 *    FUNCTION ancestor (the tree's root when it has none), the site its
 *    parent when that is a LINE or INSTRUCTION. Costs are not copied: an
 *    edge's cost is its callee's profdb_inclusive(). The backend's call
 *    count metric (Cube's "visits") gives the count, summed over
 *    locations.
 *
 * Memory: 24 bytes per edge, plus for a call graph 12 bytes per edge,
 * and for an edge of call sites (4 + 8 x (events + 1)) bytes per profile
 * with calls and 8 x events, counted against options.max_memory (-EFBIG
 * beyond).
 *
 * The edge sets (edge-sets.c) are the edges of some contexts: a call
 * graph's come from the same builder with a pick (profdb__edge_pick),
 * which reads only the callers it needs; a tree format's from this
 * table. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query/hints-internal.h"
#include "query/query-internal.h"
#include "core/search-internal.h"
#include "edges-internal.h"

/* One metric's inclusive values: v[c * n_prof + p], found likewise (what
 * profdb_inclusive() would answer); v NULL: use profdb_inclusive(). */
struct edge_column {
	profdb__once once;
	const struct profdb__edges *x;
	const profdb *db;
	uint32_t metric;
	profdb_combine rule;       /* the metric's rule over profiles */
	int has_rule;              /* 0: ask profdb_metric_get() */
	double *v;
	uint8_t *found;
	int empty;                 /* filled, and no context has a value: v NULL */
};

void profdb__edges_free(struct profdb__edges *x)
{
	if (!x)
		return;
	free(x->e);
	free(x->first);
	free(x->part_profile);
	free(x->part_cost);
	free(x->total);
	free(x->call);
	for (uint32_t m = 0; x->cols && m < x->n_cols; m++) {
		profdb__once_destroy(&x->cols[m].once);
		free(x->cols[m].v);
		free(x->cols[m].found);
	}
	free(x->cols);
	free(x->summary);
	profdb__once_destroy(&x->order_once);
	free(x->by_callee);
	free(x->by_site);
	free(x);
}

struct profdb__edges *profdb__edges_new(void)
{
	struct profdb__edges *x = calloc(1, sizeof *x);
	if (x)
		profdb__once_init(&x->order_once);
	return x;
}

uint64_t profdb__edges_budget(const profdb *db)
{
	return db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
}

int profdb__edges_oom(void)
{
	return profdb__fail(-ENOMEM, "call edges: out of memory");
}

/* Grow *p (elements of @p size) to hold @p need, doubling. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	if (c > SIZE_MAX / size)
		return profdb__edges_oom();
	void *q = realloc(*p, c * size);
	if (!q)
		return profdb__edges_oom();
	*p = q;
	*cap = c;
	return 0;
}

static int cmp_edge(const void *a, const void *b)
{
	const profdb_edge *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static int listed(const uint32_t *a, size_t n, uint32_t v)
{
	size_t i = profdb__lower_u32(a, 0, n, v);
	return i < n && a[i] == v;
}

static int picked(const profdb__edge_pick *p, const profdb_edge *k)
{
	if (p->all)
		return 1;
	if (p->side == PROFDB_EDGES_INTO)
		return listed(p->ctx, p->n_ctx, k->callee);
	return listed(p->ctx, p->n_ctx, k->caller) ||
	       (k->site != PROFDB_NONE && listed(p->ctx, p->n_ctx, k->site));
}

/* ---- a call graph (Callgrind) ------------------------------------------------ */

/* Can @p pk pick an edge of call @p c (whose caller's sites are then
 * read)? Into: the callee is picked; out of: the caller is one of the
 * functions whose calls are read. */
static int may_pick(const profdb__edge_pick *pk, const profdb__graph_call *c)
{
	if (pk->all)
		return 1;
	if (pk->side == PROFDB_EDGES_INTO)
		return listed(pk->ctx, pk->n_ctx, c->callee + 1);
	return listed(pk->fn, pk->n_fn, c->caller + 1);
}

/* One calls= line (summed with the others of its key later), or a call of
 * the backend (call != PROFDB_NONE: every profile's calls of a caller to
 * a callee, whose costs the backend keeps). */
typedef struct cg_call_row {
	profdb_edge key;           /* caller, callee, site; count in key.count */
	uint32_t profile;
	uint32_t call;             /* the backend's call index, or PROFDB_NONE */
	uint64_t cost;             /* index of its ne costs in the row cost buffer */
} cg_call_row;

static int cmp_row(const void *a, const void *b)
{
	const cg_call_row *x = a, *y = b;
	int c = cmp_edge(&x->key, &y->key);
	if (c)
		return c;
	return x->profile < y->profile ? -1 : x->profile > y->profile;
}

/* A line/instruction child of a function: its position and context id. */
typedef struct cg_pos {
	profdb_str file;
	uint64_t line, instr;
	uint32_t id;
} cg_pos;

typedef struct pos_list {
	cg_pos **pos;
	size_t *n, *cap;
} pos_list;

static int add_pos(void *ud, const profdb__graph_row *row)
{
	pos_list *l = ud;
	int r = grow((void **)l->pos, l->cap, *l->n + 1, sizeof **l->pos);
	if (r >= 0)
		(*l->pos)[(*l->n)++] = (cg_pos){row->file, row->line, row->instr, row->context};
	return r;
}

/* The line children of function context @p fctx (the first children of a
 * Callgrind function, before its callees), in *pos: a function's at a
 * time from the graph table when it serves them, else one by one. */
static int line_children(const profdb *db, uint32_t fctx, cg_pos **pos, size_t *n, size_t *cap)
{
	const profdb__graph_table *g = db->be->graph;
	pos_list l = {pos, n, cap};
	*n = 0;
	int r = g && g->lines && fctx > 0 ? g->lines(db->impl, fctx - 1, add_pos, &l) : -ENOTSUP;
	if (r != -ENOTSUP)
		return r;
	*n = 0;
	profdb_context c;
	r = profdb_context_get(db, fctx, &c);
	for (uint32_t id = c.first_child; r == 0 && id != PROFDB_NONE; id = c.next_sibling) {
		if ((r = profdb_context_get(db, id, &c)) < 0)
			break;
		if (c.relation != PROFDB_RELATION_LEXICAL ||
		    (c.type != PROFDB_CTX_LINE && c.type != PROFDB_CTX_INSTRUCTION))
			break;   /* the callees follow the lines */
		if ((r = grow((void **)pos, cap, *n + 1, sizeof **pos)) < 0)
			break;
		(*pos)[(*n)++] = (cg_pos){c.file, c.line, c.offset, id};
	}
	return r;
}

/* The line context at a call's position, PROFDB_NONE when there is none.
 * Lines come sorted by line, then address, then file: a binary search to
 * the first of (line, instr), then the file among the equal ones. */
typedef struct site_key {
	const cg_pos *pos;
	const profdb__native_row *cs;
} site_key;

static int site_before(const void *ctx, size_t i)
{
	const site_key *k = ctx;
	const cg_pos *p = &k->pos[i];
	return p->line < k->cs->line || (p->line == k->cs->line && p->instr < k->cs->instr);
}

static uint32_t site_of(const cg_pos *pos, size_t n, const profdb__native_row *cs)
{
	site_key key = {pos, cs};
	size_t lo = profdb__lower_bound(0, n, &key, site_before);
	for (; lo < n && pos[lo].line == cs->line && pos[lo].instr == cs->instr; lo++)
		if (pos[lo].file.len == cs->file.len &&
		    (cs->file.len == 0 || memcmp(pos[lo].file.ptr, cs->file.ptr, cs->file.len) == 0))
			return pos[lo].id;
	return PROFDB_NONE;
}

typedef struct cg_rows {
	cg_call_row *row;
	size_t n, cap;
	uint64_t *cost;
	size_t n_cost, cap_cost;
} cg_rows;

/* Room for one more row and its @p ne costs. */
static int add_row(cg_rows *t, uint32_t ne)
{
	int r = grow((void **)&t->row, &t->cap, t->n + 1, sizeof *t->row);
	return r < 0 ? r : grow((void **)&t->cost, &t->cap_cost, t->n_cost + ne + 1, sizeof *t->cost);
}

static void put_row(cg_rows *t, profdb_edge k, uint32_t profile, const uint64_t *costs,
                    uint32_t ne)
{
	t->row[t->n++] = (cg_call_row){k, profile, PROFDB_NONE, t->n_cost};
	if (ne)
		memcpy(t->cost + t->n_cost, costs, ne * sizeof *t->cost);
	t->n_cost += ne;
}

/* The call sites of caller function @p fn (every profile) as rows; 1 when
 * the function has no line contexts, so that no call has a site and its
 * rows are the backend's calls (rows_without_sites), 0 when added. */
static int caller_rows(const profdb *db, const profdb__edge_pick *pk, uint32_t fn, uint32_t ne,
                       cg_pos **pos, size_t *cap_pos, cg_rows *t)
{
	const profdb__native_table *nt = db->be->native_records;
	size_t n_pos = 0;
	int r = line_children(db, fn + 1, pos, &n_pos, cap_pos);
	void *d = NULL;
	if (r < 0)
		return r;
	if (n_pos == 0)
		return 1;
	if (!nt)
		return profdb__fail(-ENOTSUP, "call edges: the format gives no call sites");
	if ((r = nt->records_new(db->impl, PROFDB_NONE, fn, &d)) < 0)
		return r;
	int64_t nc = nt->record_count(d, PROFDB__NATIVE_CALL);
	if (nc < 0)
		r = (int)nc;
	for (int64_t i = 0; i < nc && r >= 0; i++) {
		profdb__native_row cs;
		if ((r = nt->record_at(d, PROFDB__NATIVE_CALL, (uint32_t)i, &cs)) < 0)
			break;
		profdb_edge k = {fn + 1, cs.callee + 1, site_of(*pos, n_pos, &cs), 1, cs.count};
		if (!picked(pk, &k))
			continue;
		if ((r = add_row(t, ne)) < 0)
			break;
		put_row(t, k, cs.profile, cs.costs, ne);
	}
	nt->records_free(d);
	return r < 0 ? r : 0;
}

/* The rows of the callers marked in @p bare (no line contexts): without a
 * site, a caller's calls of one callee are one edge, the backend's call
 * (the sums of the calls= lines the records would give), whose counts and
 * costs the backend keeps: its text is not decoded, its costs not copied. */
static int rows_without_sites(const profdb *db, const profdb__edge_pick *pk,
                              const unsigned char *bare, int64_t nf, int64_t nc, cg_rows *t)
{
	const profdb__graph_table *g = db->be->graph;
	for (int64_t i = 0; i < nc; i++) {
		profdb__graph_call c;
		int r = g->call(db->impl, PROFDB_NONE, (uint32_t)i, &c);
		if (r < 0)
			return r;
		if (c.caller >= nf || !bare[c.caller])
			continue;
		profdb_edge k = {c.caller + 1, c.callee + 1, PROFDB_NONE, 1, c.count};
		if (!picked(pk, &k))
			continue;
		if ((r = grow((void **)&t->row, &t->cap, t->n + 1, sizeof *t->row)) < 0)
			return r;
		t->row[t->n++] = (cg_call_row){k, PROFDB_NONE, (uint32_t)i, 0};
	}
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void add_costs(uint64_t *dst, const uint64_t *src, uint32_t ne)
{
	for (uint32_t e = 0; e < ne; e++)
		dst[e] = sat_add(dst[e], src[e]);
}

/* Rows sorted by (edge, profile) into edges and their per-profile parts;
 * a backend's call is an edge without parts (its costs are the backend's). */
static int cg_merge(const profdb *db, cg_rows *t, uint32_t ne, struct profdb__edges *x)
{
	size_t ne_parts = 0, n_edges = 0, n_calls = 0;
	if (t->n > 1)   /* qsort(NULL, 0, ...) is undefined */
		qsort(t->row, t->n, sizeof *t->row, cmp_row);
	for (size_t i = 0; i < t->n; i++) {
		int new_edge = i == 0 || cmp_edge(&t->row[i].key, &t->row[i - 1].key) != 0;
		n_edges += new_edge;
		n_calls += t->row[i].call != PROFDB_NONE;
		ne_parts += t->row[i].call == PROFDB_NONE &&
		            (new_edge || t->row[i].profile != t->row[i - 1].profile);
	}
	uint64_t need = (uint64_t)n_edges * (sizeof *x->e + 8 + 4) +
	                (uint64_t)(n_edges - n_calls) * 8 * (uint64_t)ne +
	                (uint64_t)ne_parts * (4 + 8 * (uint64_t)ne);
	if (need > profdb__edges_budget(db))
		return profdb__fail(-EFBIG, "callgrind: the call edges need %" PRIu64 " bytes, more "
		                    "than profdb_options.max_memory", need);
	x->ne = ne;
	x->e = calloc(n_edges + 1, sizeof *x->e);
	x->first = calloc(n_edges + 1, sizeof *x->first);
	x->part_profile = calloc(ne_parts + 1, sizeof *x->part_profile);
	x->part_cost = calloc(ne_parts * ne + 1, sizeof *x->part_cost);
	/* (the rows of the backend's calls stay untouched: zero pages) */
	x->total = calloc(n_edges * ne + 1, sizeof *x->total);
	x->call = n_calls ? malloc((n_edges + 1) * sizeof *x->call) : NULL;
	if (!x->e || !x->first || !x->part_profile || !x->part_cost || !x->total ||
	    (n_calls && !x->call))
		return profdb__edges_oom();
	size_t k = 0, p = 0;
	for (size_t i = 0; i < t->n; i++) {
		const cg_call_row *w = &t->row[i];
		int new_part = 1;
		if (i == 0 || cmp_edge(&w->key, &t->row[i - 1].key) != 0) {
			x->first[k] = p;
			x->e[k] = w->key;
			x->e[k].count = 0;
			if (x->call)
				x->call[k] = w->call;
			k++;
		} else {
			/* another site of one key in one profile adds to its part */
			new_part = w->profile != t->row[i - 1].profile;
		}
		x->e[k - 1].count = sat_add(x->e[k - 1].count, w->key.count);
		if (w->call != PROFDB_NONE)
			continue;   /* alone in its edge: no other caller has its key */
		if (new_part)
			x->part_profile[p++] = w->profile;
		add_costs(x->part_cost + (p - 1) * ne, t->cost + w->cost, ne);
		add_costs(x->total + (k - 1) * ne, t->cost + w->cost, ne);
	}
	x->first[k] = p;
	x->n = k;
	return 0;
}

/* The edges @p pk picks. A caller's text is decoded (for its call sites)
 * only when one of its calls can be picked: every caller for all edges,
 * the callers of the contexts for the calls into them, the contexts' own
 * functions for the calls out of them. */
int profdb__edges_build_cg(const profdb *db, const profdb__edge_pick *pk, struct profdb__edges *x)
{
	const profdb__graph_table *g = db->be->graph;
	int64_t nf = g->function_count(db->impl), nc = g->call_count(db->impl);
	int64_t ne = profdb_metric_count(db);
	if (nf < 0 || nc < 0 || ne < 0)
		return (int)(nf < 0 ? nf : nc < 0 ? nc : ne);
	unsigned char *calls = calloc((size_t)nf + 1, 1);
	cg_pos *pos = NULL;
	size_t cap_pos = 0;
	cg_rows t = {NULL, 0, 0, NULL, 0, 0};
	int r = calls ? 0 : profdb__edges_oom(), any_bare = 0;
	/* The callers: those functions' call sites are decoded, the others'
	 * text is not read; only a caller without line contexts keeps its
	 * mark, and takes the backend's calls. */
	for (int64_t i = 0; i < nc && r >= 0; i++) {
		profdb__graph_call c;
		if ((r = g->call(db->impl, PROFDB_NONE, (uint32_t)i, &c)) >= 0 && c.caller < nf &&
		    may_pick(pk, &c))
			calls[c.caller] = 1;
	}
	for (int64_t f = 0; f < nf && r >= 0; f++)
		if (calls[f] &&
		    (r = caller_rows(db, pk, (uint32_t)f, (uint32_t)ne, &pos, &cap_pos, &t)) > 0)
			any_bare = 1;
		else
			calls[f] = 0;
	if (r >= 0 && any_bare)
		r = rows_without_sites(db, pk, calls, nf, nc, &t);
	if (r >= 0)
		r = cg_merge(db, &t, (uint32_t)ne, x);
	free(calls);
	free(pos);
	free(t.row);
	free(t.cost);
	return r < 0 ? r : 0;
}

/* ---- the tree formats -------------------------------------------------------- */

/* The walk's state per depth of the current path. */
typedef struct level {
	uint32_t id, next_sibling;
	uint32_t near;             /* nearest FUNCTION at or above, else the tree's root */
	profdb_context_type type;
} level;

typedef struct edge_list {
	profdb_edge *e;
	size_t n, cap;
} edge_list;

/* An edge for context @p c at depth @p d (> 0) of the path @p lv. */
static int tree_edge(const profdb_context *c, const level *lv, size_t d, edge_list *out)
{
	if (c->relation != PROFDB_RELATION_CALL && c->relation != PROFDB_RELATION_INLINED)
		return 0;
	int r = grow((void **)&out->e, &out->cap, out->n + 1, sizeof *out->e);
	if (r < 0)
		return r;
	const level *parent = &lv[d - 1];
	uint32_t site = parent->type == PROFDB_CTX_LINE || parent->type == PROFDB_CTX_INSTRUCTION
	                ? parent->id : PROFDB_NONE;
	out->e[out->n++] = (profdb_edge){parent->near, c->id, site, 0, 0};
	return 0;
}

/* Pre-order walk of every tree from the first root, one edge per CALL or
 * INLINED context. A walk longer than the context count (links that loop)
 * is -EBADMSG, so a damaged tree cannot hang it. */
static int walk_tree(const profdb *db, edge_list *out)
{
	int64_t nctx = profdb_context_count(db);
	uint32_t id;
	if (nctx <= 0)
		return nctx < 0 ? (int)nctx : 0;
	int r = profdb_context_root(db, &id);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	level *lv = NULL;
	size_t cap = 0, d = 0;
	for (int64_t steps = 0; r >= 0; steps++) {
		profdb_context c;
		if (steps > nctx) {
			r = profdb__fail(-EBADMSG, "call edges: the context tree's links loop");
			break;
		}
		if ((r = profdb_context_get(db, id, &c)) < 0 ||
		    (r = grow((void **)&lv, &cap, d + 1, sizeof *lv)) < 0)
			break;
		uint32_t near = c.type == PROFDB_CTX_FUNCTION || d == 0 ? c.id : lv[d - 1].near;
		lv[d] = (level){c.id, c.next_sibling, near, c.type};
		if (d > 0 && (r = tree_edge(&c, lv, d, out)) < 0)
			break;
		if (c.first_child != PROFDB_NONE) {
			id = c.first_child;
			d++;
			continue;
		}
		while (lv[d].next_sibling == PROFDB_NONE && d > 0)
			d--;
		if ((id = lv[d].next_sibling) == PROFDB_NONE)
			break;
	}
	free(lv);
	return r < 0 ? r : 0;
}

/* As an integer count: a stored u64 or i64 as is, an f64 rounded down. */
static uint64_t as_count(profdb_number v)
{
	switch (v.type) {
	case PROFDB_TYPE_U64: return v.as.u64;
	case PROFDB_TYPE_I64: return v.as.i64 > 0 ? (uint64_t)v.as.i64 : 0;
	case PROFDB_TYPE_F64: return v.as.f64 > 0 && v.as.f64 < 1.8e19 ? (uint64_t)v.as.f64 : 0;
	default: return 0;
	}
}

/* A call count per edge from the metric the backend names for it (Cube's
 * "visits": the number of times a cnode was entered), stored at the callee
 * and summed over profiles (a sum of non-negative integers that saturates:
 * the same in any order), one lookup per callee and profile (the tree
 * formats' callees are distinct contexts). Without one the counts stay
 * absent. */
static int call_counts(const profdb *db, profdb_edge *e, size_t n)
{
	profdb_metric m;
	int r = profdb__call_count_metric(db, &m);
	int64_t np = profdb_profile_count(db);
	if (r <= 0 || np < 0)
		return r <= 0 ? r : (int)np;
	for (size_t i = 0; i < n; i++) {
		e[i].has_count = 1;
		for (int64_t p = 0; p < np; p++) {
			profdb_number v;
			if ((r = profdb_value(db, (uint32_t)p, e[i].callee, m.id, &v)) < 0)
				return r;
			if (r > 0)
				e[i].count = sat_add(e[i].count, as_count(v));
		}
	}
	return 0;
}

static int build_tree(const profdb *db, struct profdb__edges *x)
{
	edge_list l = {NULL, 0, 0};
	int r = walk_tree(db, &l);
	uint64_t need = (uint64_t)l.n * sizeof *l.e;
	if (r >= 0 && need > profdb__edges_budget(db))
		r = profdb__fail(-EFBIG, "call edges: %" PRIu64 " bytes, more than "
		                 "profdb_options.max_memory", need);
	if (r >= 0) {
		if (l.n > 1)   /* qsort(NULL, 0, ...) is undefined */
			qsort(l.e, l.n, sizeof *l.e, cmp_edge);
		r = call_counts(db, l.e, l.n);
	}
	if (r < 0) {
		free(l.e);
		return r;
	}
	x->e = l.e;
	x->n = l.n;
	return 0;
}

/* The columns of the inclusive costs when every metric's column fits in
 * COLUMNS_CAP bytes in all (a tree format with scoped_all only). Out of
 * memory: no columns, each cost is read on its own. */
#define COLUMNS_CAP ((uint64_t)64 << 20)

static void plan_columns(const profdb *db, struct profdb__edges *x)
{
	int64_t nm = profdb_metric_count(db), nc = profdb_context_count(db);
	int64_t np = profdb_profile_count(db);
	if (!db->be->scoped_all || nm <= 0 || nc <= 0 || np <= 0 || x->n == 0 ||
	    (uint64_t)nm * (uint64_t)nc * (uint64_t)np * (sizeof(double) + 1) > COLUMNS_CAP ||
	    nm >= UINT32_MAX || nc >= UINT32_MAX || np >= UINT32_MAX)
		return;
	struct edge_column *cols = calloc((size_t)nm, sizeof *cols);
	uint8_t *summary = malloc((size_t)np);
	for (int64_t p = 0; cols && summary && p < np; p++) {
		profdb_profile pr;
		if (profdb_profile_at(db, (uint32_t)p, &pr) < 0) {
			free(summary);
			summary = NULL;
		} else {
			summary[p] = pr.is_summary != 0;
		}
	}
	if (!cols || !summary) {
		free(cols);
		free(summary);
		return;
	}
	x->cols = cols;
	x->summary = summary;
	x->n_cols = (uint32_t)nm;
	x->n_ctx = (uint32_t)nc;
	x->n_prof = (uint32_t)np;
	for (uint32_t m = 0; m < x->n_cols; m++) {
		profdb__once_init(&cols[m].once);
		cols[m].x = x;
		cols[m].db = db;
		cols[m].metric = m;
	}
	/* The rules, by metric id (the metric ids of a backend with
	 * scoped_all are below the count; any other is asked for each time) */
	for (uint32_t k = 0; k < x->n_cols; k++) {
		profdb_metric m;
		if (profdb_metric_at(db, k, &m) == 0 && m.id < x->n_cols &&
		    m.combine != PROFDB_COMBINE_NONE) {
			cols[m.id].rule = m.combine;
			cols[m.id].has_rule = 1;
		}
	}
}

static int any_found(const uint8_t *found, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (found[i])
			return 1;
	return 0;
}

/* Build one column (profdb__once): every profile at once, in the
 * backend's pass. A failure leaves the column empty (v NULL): the costs
 * are then read one by one, with their own errors. */
static int fill_column(void *arg)
{
	struct edge_column *col = arg;
	const struct profdb__edges *x = col->x;
	size_t cells = (size_t)x->n_ctx * x->n_prof;
	uint32_t *profiles = malloc(x->n_prof * sizeof *profiles);
	double *v = malloc(cells * sizeof *v);
	uint8_t *found = malloc(cells);
	int ok = profiles && v && found;
	if (ok) {
		profdb__prefault_write(v, cells * sizeof *v);
		profdb__prefault_write(found, cells);
	}
	for (uint32_t p = 0; ok && p < x->n_prof; p++)
		profiles[p] = p;
	if (ok && col->db->be->scoped_all(col->db->impl, col->metric, 1, profiles, x->n_prof, v,
	                                  found) < 0)
		ok = 0;
	free(profiles);
	/* A column without a single value (a metric stored at other contexts
	 * only) keeps no memory: the next column reuses it, hot in the cache,
	 * instead of touching fresh pages. */
	col->empty = ok && !any_found(found, cells);
	if (!ok || col->empty) {
		free(v);
		free(found);
		return 0;
	}
	col->v = v;
	col->found = found;
	return 0;
}

/* Profile @p p's inclusive value at @p callee for @p metric from its
 * column: 1 and *out, 0 (none), or -1: no column, ask profdb_inclusive(). */
static int column_cost(const struct profdb__edges *x, uint32_t callee, uint32_t p,
                       uint32_t metric, profdb_number *out)
{
	if (!x->cols || metric >= x->n_cols || callee >= x->n_ctx)
		return -1;
	struct edge_column *col = &x->cols[metric];
	(void)profdb__once_run(&col->once, fill_column, col);
	if (col->empty)
		return 0;
	if (!col->v)
		return -1;
	size_t at = (size_t)callee * x->n_prof + p;
	if (!col->found[at])
		return 0;
	out->type = PROFDB_TYPE_F64;   /* scoped_all serves backends of f64 scopes */
	out->as.f64 = col->v[at];
	return 1;
}

/* ---- the public functions ----------------------------------------------------- */

static int build(void *arg)
{
	profdb *db = arg;
	struct profdb__edges *x = profdb__edges_new();
	if (!x)
		return profdb__edges_oom();
	static const profdb__edge_pick every = {1, PROFDB_EDGES_INTO, NULL, 0, NULL, 0};
	int r = profdb__call_graph(db) ? profdb__edges_build_cg(db, &every, x) : build_tree(db, x);
	if (r >= 0 && !x->first)
		plan_columns(db, x);
	if (r < 0) {
		profdb__edges_free(x);
		return r;
	}
	db->edges = x;
	return 0;
}

int profdb__edges_table(const profdb *db, const struct profdb__edges **out)
{
	int r = profdb__once_run((profdb__once *)&db->edges_once, build, (void *)(uintptr_t)db);
	*out = db->edges;
	return r;
}

int64_t profdb_edge_count(const profdb *db)
{
	const struct profdb__edges *x;
	if (!db)
		return profdb__fail(-EINVAL, "profdb_edge_count: NULL database handle");
	int r = profdb__edges_table(db, &x);
	return r < 0 ? r : (int64_t)x->n;
}

int profdb_edge_at(const profdb *db, uint64_t index, profdb_edge *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const struct profdb__edges *x;
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_edge_at: NULL argument");
	int r = profdb__edges_table(db, &x);
	if (r < 0)
		return r;
	if (index >= x->n)
		return profdb__fail(-ENOENT, "profdb_edge_at: no edge %" PRIu64 " (%" PRIu64 " edges)",
		                    index, x->n);
	*out = x->e[index];
	return 0;
}

/* The rule that combines @p metric over profiles: the metric's own
 * (profdb_metric.combine, doc/model.md "Combining numbers"); -ENOTSUP for
 * a metric that does not combine. */
static int rule_of(const profdb *db, uint32_t metric, profdb_combine *rule, const char *who)
{
	profdb_metric m;
	int r = profdb_metric_get(db, metric, &m);
	if (r < 0)
		return r;
	*rule = m.combine;
	if (*rule == PROFDB_COMBINE_NONE)
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " (%.*s) does not combine over "
		                    "profiles", who, metric, (int)m.name.len, m.name.ptr);
	return 0;
}

/* acc op= v by @p rule; integers stay integers while every value is one of
 * the same type, otherwise the result is f64. */
static void combine(profdb_number *acc, profdb_number v, profdb_combine rule, int first)
{
	if (first) {
		*acc = v;
		return;
	}
	if (acc->type == v.type && v.type == PROFDB_TYPE_U64) {
		uint64_t a = acc->as.u64, b = v.as.u64;
		acc->as.u64 = rule == PROFDB_COMBINE_SUM ? a + b
		              : rule == PROFDB_COMBINE_MIN ? (a < b ? a : b) : (a > b ? a : b);
		return;
	}
	if (acc->type == v.type && v.type == PROFDB_TYPE_I64) {
		int64_t a = acc->as.i64, b = v.as.i64;
		acc->as.i64 = rule == PROFDB_COMBINE_SUM ? (int64_t)((uint64_t)a + (uint64_t)b)
		              : rule == PROFDB_COMBINE_MIN ? (a < b ? a : b) : (a > b ? a : b);
		return;
	}
	double a = profdb_number_to_double(*acc), b = profdb_number_to_double(v);
	acc->type = PROFDB_TYPE_F64;
	acc->as.f64 = rule == PROFDB_COMBINE_SUM ? a + b
	              : rule == PROFDB_COMBINE_MIN ? (b < a ? b : a) : (b > a ? b : a);
}

/* A tree format: the callee's inclusive value, in one profile or combined
 * over the non-summary profiles in ascending profile order. */
static int tree_cost(const profdb *db, const struct profdb__edges *x, uint32_t callee,
                     uint32_t profile, uint32_t metric, profdb_number *out, const char *who)
{
	if (profile != PROFDB_NONE) {
		int r = column_cost(x, callee, profile, metric, out);
		return r >= 0 ? r : profdb_inclusive(db, profile, callee, metric, out);
	}
	profdb_combine rule;
	int r = 0;
	if (x->cols && metric < x->n_cols && x->cols[metric].has_rule)
		rule = x->cols[metric].rule;
	else
		r = rule_of(db, metric, &rule, who);
	int64_t np = profdb_profile_count(db);
	if (r < 0 || np < 0)
		return r < 0 ? r : (int)np;
	int any = 0;
	for (int64_t p = 0; p < np; p++) {
		profdb_profile pr;
		profdb_number v;
		if (x->summary && p < x->n_prof)
			pr.is_summary = x->summary[p];
		else if ((r = profdb_profile_at(db, (uint32_t)p, &pr)) < 0)
			return r;
		if (pr.is_summary)
			continue;
		memset(&v, 0, sizeof v);
		if ((r = column_cost(x, callee, (uint32_t)p, metric, &v)) < 0 &&
		    (r = profdb_inclusive(db, (uint32_t)p, callee, metric, &v)) < 0)
			return r;
		if (r == 0)
			continue;   /* no value: contributes nothing, not a zero */
		combine(out, v, rule, !any);
		any = 1;
	}
	return any;
}

/* A call graph: the calls' inclusive cost in one profile (a binary search
 * in the edge's parts, or the backend's call) or summed over all. */
static int cg_cost(const profdb *db, const struct profdb__edges *x, uint64_t i, uint32_t profile,
                   uint32_t metric, profdb_number *out, const char *who)
{
	if (metric >= x->ne)
		return profdb__fail(-ENOENT, "%s: no metric %" PRIu32 " (%" PRIu32 " events)", who,
		                    metric, x->ne);
	const uint64_t *c = NULL;
	if (x->call && x->call[i] != PROFDB_NONE) {
		profdb__graph_call gc;
		int r = db->be->graph->call(db->impl, profile, x->call[i], &gc);
		if (r < 0)
			return r;
		c = r > 0 ? gc.costs : NULL;
	} else if (profile == PROFDB_NONE) {
		c = x->total + i * x->ne;
	} else {
		size_t lo = profdb__lower_u32(x->part_profile, x->first[i], x->first[i + 1], profile);
		if (lo < x->first[i + 1] && x->part_profile[lo] == profile)
			c = x->part_cost + lo * x->ne;
	}
	if (!c)
		return 0;   /* no such calls in that profile */
	out->type = PROFDB_TYPE_U64;
	out->as.u64 = c[metric];
	return 1;
}

/* Edge @p i of table @p x (a call graph's own, else @p tree, the
 * handle's table of a tree format, whose columns serve the costs) for
 * @p who: what profdb_edge_inclusive() answers. */
int profdb__edges_inclusive(const profdb *db, const struct profdb__edges *x,
                            const struct profdb__edges *tree, uint64_t i, uint32_t profile,
                            uint32_t metric, profdb_number *out, const char *who)
{
	memset(out, 0, sizeof *out);
	out->type = PROFDB_TYPE_NONE;
	if (i >= x->n)
		return profdb__fail(-ENOENT, "%s: no edge %" PRIu64 " (%" PRIu64 " edges)", who, i,
		                    x->n);
	int r = 0;
	if (profile != PROFDB_NONE && (r = profdb__query_check_profile(db, profile, who)) < 0)
		return r;
	r = x->first ? cg_cost(db, x, i, profile, metric, out, who)
	             : tree_cost(db, tree, x->e[i].callee, profile, metric, out, who);
	if (r <= 0) {
		memset(out, 0, sizeof *out);
		out->type = PROFDB_TYPE_NONE;
	}
	return r;
}

int profdb_edge_inclusive(const profdb *db, uint32_t profile, uint64_t index, uint32_t metric,
                          profdb_number *out)
{
	const struct profdb__edges *x;
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_edge_inclusive: NULL argument");
	memset(out, 0, sizeof *out);
	out->type = PROFDB_TYPE_NONE;
	int r = profdb__edges_table(db, &x);
	if (r < 0)
		return r;
	return profdb__edges_inclusive(db, x, x, index, profile, metric, out, "profdb_edge_inclusive");
}
