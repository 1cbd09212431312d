/* The three views of a Callgrind profile (doc/model.md "The three views",
 * "Callgrind"). Callgrind stores a call graph, not call paths, so the
 * top-down and bottom-up views expand the call edges with gprof2dot's
 * attribution: a child's value is its edge's cost scaled by its parent's
 * share of the function's inclusive cost,
 *     child = edge(A -> B) x node(A) / inclusive(A),
 * never above the parent; a function already on the path (its recursion
 * levels and --separate-callers contexts counting as itself) is cut there
 * (PROFDB_NODE_RECURSIVE), and children below the cut-off are folded into
 * one "<other>" child per parent, which bounds the expansion (full
 * expansion of real profiles exceeds 20 million paths). Everything reads
 * the format's call graph through the backend table (profdb__graph_table,
 * lib/core/backend-internal.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tree-internal.h"
#include "core/search-internal.h"
#include "core/table-internal.h"

typedef struct cgw {
	tbuild *b;
	const profdb__graph_table *g;
	const void *impl;
	uint32_t nf, ne;
	size_t nm;
	double *finc, *fself, *ecost, *total;   /* nf / ne rows of nm values; nm */
	uint32_t *caller, *callee;              /* per edge */
	uint32_t *out_start, *out_edge;         /* edges by caller (CSR) */
	uint32_t *in_start, *in_edge;           /* edges by callee */
	uint32_t *kin;       /* per function: the lowest id of its folded identity */
	uint8_t *onpath;     /* per folded identity (indexed by kin) */
	uint32_t *fstr;      /* per function: its name, file and module in the tree's
	                      * strings (PROFDB_NONE: not interned yet) */
	void *block;         /* the arrays above, in one block (profdb__carve) */
	tproto fn_node;      /* a function node's prototype, but its context */
	double thr;
} cgw;

static void cgw_free(cgw *w)
{
	free(w->block);
}

/* Row @p row (nm values) += the event values of the reader's cost row by
 * the plan's rule. */
static void take(const cgw *w, double *row, const uint64_t *cost, size_t k, int first)
{
	row[k] = profdb__tcomb(w->b->plan[k].rule, row[k], (double)cost[w->b->plan[k].metric], first);
}

/* The value a function's node divides its call costs by: its inclusive
 * cost @p inc, or for a member of a cycle the cycle's @p cyc (every member
 * stands for the whole cycle, whose inner calls count nested frames
 * again), at most the profile's total and at least the self cost. */
static void take_inclusive(const cgw *w, double *row, uint64_t inc, const uint64_t *cyc,
                           uint64_t self, uint64_t tot, size_t k, int first)
{
	uint64_t v = cyc ? *cyc : inc;
	v = v > tot ? tot : v;
	v = v < self ? self : v;
	row[k] = profdb__tcomb(w->b->plan[k].rule, row[k], (double)v, first);
}

/* The profiles of metric k, PROFDB_NONE standing for "all of them, added"
 * (the format's own sums). */
static int all_profiles(const cgw *w, size_t k)
{
	const tplan *pl = &w->b->plan[k];
	return pl->rule == PROFDB_COMBINE_SUM &&
	       (int64_t)pl->n_profiles == profdb_profile_count(w->b->db);
}

static int load_rows(cgw *w)
{
	const profdb__graph_table *g = w->g;
	size_t nm = w->nm;
	int r;
	for (size_t k = 0; k < nm; k++) {
		const tplan *pl = &w->b->plan[k];
		int all = all_profiles(w, k);
		size_t np = all ? 1 : pl->n_profiles;
		for (size_t i = 0; i < np; i++) {
			uint32_t p = all ? PROFDB_NONE : pl->profiles[i];
			const uint64_t *tot, *row, *self, *cyc;
			if ((r = g->totals(w->impl, p, &tot)) < 0)
				return r;
			take(w, w->total, tot, k, i == 0);
			uint32_t m = pl->metric;
			for (uint32_t f = 0; f < w->nf; f++) {
				uint64_t inc, in_cycle;
				if ((r = g->self(w->impl, p, f, &self)) < 0)
					return r;
				if (all && g->inclusive_metric) {   /* this metric's values only */
					if ((r = g->inclusive_metric(w->impl, f, m, &inc, &in_cycle)) < 0)
						return r;
					cyc = &in_cycle;
				} else {
					if ((r = g->inclusive(w->impl, p, f, &row)) < 0 ||
					    (r = g->cycle_inclusive(w->impl, p, f, &cyc)) < 0)
						return r;
					inc = row[m];
					cyc = r > 0 ? cyc + m : NULL;
				}
				take_inclusive(w, w->finc + (size_t)f * nm, inc, r > 0 ? cyc : NULL, self[m],
				               tot[m], k, i == 0);
				take(w, w->fself + (size_t)f * nm, self, k, i == 0);
			}
			for (uint32_t e = 0; e < w->ne; e++) {
				profdb__graph_call c;
				if ((r = g->call(w->impl, p, e, &c)) < 0)
					return r;
				take(w, w->ecost + (size_t)e * nm, c.costs, k, i == 0);
				w->caller[e] = c.caller;
				w->callee[e] = c.callee;
			}
		}
	}
	return 0;
}

/* The edges of @p end (callers or callees: ne of them) grouped by that
 * end, in edge order: the edges of f are edge[start[f] .. start[f + 1]). */
static void group_edges(uint32_t nf, uint32_t ne, const uint32_t *end, uint32_t *start,
                        uint32_t *edge)
{
	memset(start, 0, (nf + 1) * sizeof *start);
	for (uint32_t e = 0; e < ne; e++)
		start[end[e] + 1]++;
	for (uint32_t f = 0; f < nf; f++)
		start[f + 1] += start[f];
	for (uint32_t e = 0; e < ne; e++)
		edge[start[end[e]]++] = e;
	for (uint32_t f = nf; f > 0; f--)
		start[f] = start[f - 1];
	start[0] = 0;
}

/* Edges grouped by callee (in) and, for the top-down view, by caller (out). */
static void index_edges(cgw *w)
{
	group_edges(w->nf, w->ne, w->callee, w->in_start, w->in_edge);
	if (w->out_start)
		group_edges(w->nf, w->ne, w->caller, w->out_start, w->out_edge);
}

/* ---- folded identities -------------------------------------------------------------- */

/* A function and its recursion levels and --separate-callers contexts
 * (f, f'2, f'main) are one function on a call path: (object, file, name
 * folded by profdb_function_fold). */
typedef struct fkey {
	profdb_str object, file, name;
	uint32_t f;
} fkey;

static int str_eq(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* A hash of the bytes of @p s, 8 at a time, after @p h. */
static uint64_t str_hash(profdb_str s, uint64_t h)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	size_t n = s.len;
	h = profdb__mix64(h ^ n);
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * UINT64_C(0x9e3779b97f4a7c15);
		h ^= h >> 29;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * UINT64_C(0x9e3779b97f4a7c15);
	}
	return h;
}

static uint64_t fkey_hash(const fkey *k)
{
	return profdb__mix64(str_hash(k->object, str_hash(k->file, str_hash(k->name, 0))));
}

static uint64_t fkey_hash_at(const void *ctx, uint32_t e)
{
	return fkey_hash(&((const fkey *)ctx)[e]);
}

static int fkey_eq(const void *ctx, uint32_t e, const void *key)
{
	const fkey *a = &((const fkey *)ctx)[e], *b = key;
	return str_eq(a->name, b->name) && str_eq(a->file, b->file) && str_eq(a->object, b->object);
}

/* How many functions ahead fold_identities asks for a name's bytes: the
 * names lie scattered over the mapped text, and reading each only when its
 * turn comes waits for memory once per function. */
#define FOLD_AHEAD 16

/* kin[f]: the lowest function id with f's folded identity (object, file,
 * folded name). The functions are met in id order, so the first of an
 * identity, which the index keeps (one key per identity), is the lowest. */
static int fold_identities(cgw *w)
{
	fkey *k = NULL;
	size_t n = 0, cap = 0;
	profdb__hindex h;
	profdb__native_fn ahead[FOLD_AHEAD];
	int have[FOLD_AHEAD] = {0};
	int r = profdb__hindex_init(&h, 1024);
	if (r < 0)
		return profdb__fail(-ENOMEM, "tree: out of memory");
	for (uint32_t f = 0; f < w->nf && f < FOLD_AHEAD; f++)
		if ((have[f] = w->g->function(w->impl, f, &ahead[f]) == 0) && ahead[f].name.len)
			__builtin_prefetch(ahead[f].name.ptr);
	for (uint32_t f = 0; f < w->nf && r == 0; f++) {
		fkey key = {{0}, {0}, {0}, f};
		uint32_t slot_f = f % FOLD_AHEAD;
		if (have[slot_f]) {
			key.object = ahead[slot_f].object;
			key.file = ahead[slot_f].file;
			key.name = profdb_function_fold(w->b->db, ahead[slot_f].name);
		}
		if (f + FOLD_AHEAD < w->nf) {   /* the slot is free now */
			profdb__native_fn *next = &ahead[slot_f];
			if ((have[slot_f] = w->g->function(w->impl, f + FOLD_AHEAD, next) == 0) &&
			    next->name.len)
				__builtin_prefetch(next->name.ptr);
		}
		uint32_t *slot = profdb__hindex_slot(&h, fkey_hash(&key), fkey_eq, k, &key);
		if (*slot) {
			w->kin[f] = k[*slot - 1].f;
			continue;
		}
		w->kin[f] = f;
		if ((r = profdb__grow((void **)&k, &cap, n + 1, sizeof *k)) < 0)
			break;
		k[n++] = key;
		*slot = (uint32_t)n;
		r = profdb__hindex_added(&h, fkey_hash_at, k);
	}
	profdb__hindex_free(&h);
	free(k);
	return r < 0 ? profdb__fail(-ENOMEM, "tree: out of memory") : 0;
}

static int setup(cgw *w)
{
	int64_t nf = w->g->function_count(w->impl), ne = w->g->call_count(w->impl);
	if (nf < 0 || ne < 0)
		return (int)(nf < 0 ? nf : ne);
	w->nf = (uint32_t)nf;
	w->ne = (uint32_t)ne;
	size_t nm = w->nm;
	uint64_t need = ((uint64_t)nf * 2 + (uint64_t)ne) * nm * 8 + (uint64_t)ne * 16 +
	                (uint64_t)nf * 21;
	if (need > w->b->t->limit)
		return profdb__fail(-EFBIG, "tree: the call graph's tables need %" PRIu64 " bytes, "
		                    "more than profdb_options.max_memory", need);
	/* the edges by caller for the top-down view only, the paths'
	 * identities for the expanded views only: the rest never read them */
	int down = w->b->kind == PROFDB_TREE_TOP_DOWN, expanded = w->b->kind != PROFDB_TREE_FLAT;
	size_t rows = (size_t)nf * nm * sizeof(double), edges = (size_t)ne * sizeof(uint32_t),
	       fns = (size_t)nf * sizeof(uint32_t), edge_costs = (size_t)ne * nm * sizeof(double),
	       totals = nm * sizeof(double);
	void **const out[] = {(void **)&w->finc,      (void **)&w->fself,    (void **)&w->ecost,
	                      (void **)&w->total,     (void **)&w->caller,   (void **)&w->callee,
	                      (void **)&w->in_start,  (void **)&w->in_edge,  (void **)&w->fstr,
	                      (void **)&w->out_start, (void **)&w->out_edge, (void **)&w->onpath,
	                      (void **)&w->kin};
	const size_t size[] = {rows, rows, edge_costs, totals, edges, edges,
	                       fns + sizeof(uint32_t), edges, 3 * fns,
	                       down ? fns + sizeof(uint32_t) : 0, down ? edges : 0,
	                       expanded ? (size_t)nf + 1 : 0, expanded ? fns : 0};
	if (!(w->block = profdb__carve(out, size, sizeof size / sizeof *size)))
		return profdb__fail(-ENOMEM, "tree: out of memory (call graph of %" PRId64
		                    " functions)", nf);
	if (!down)
		w->out_start = w->out_edge = NULL;
	if (!expanded) {
		w->onpath = NULL;
		w->kin = NULL;
	}
	/* (the sums start at 0, as the paths' marks do) */
	memset(w->finc, 0, rows);
	memset(w->fself, 0, rows);
	memset(w->ecost, 0, edge_costs);
	memset(w->total, 0, totals);
	if (expanded)
		memset(w->onpath, 0, (size_t)nf + 1);
	memset(w->fstr, 0xff, (size_t)nf * 3 * sizeof *w->fstr);   /* PROFDB_NONE */
	w->fn_node = profdb__tree_proto(PROFDB_NODE_FUNCTION, PROFDB_NONE);
	int r = load_rows(w);
	if (r == 0)
		index_edges(w);
	return r < 0 || !expanded ? r : fold_identities(w);
}

static tproto fn_proto(const cgw *w, uint32_t f)
{
	profdb__native_fn fn;
	tproto p = profdb__tree_proto(PROFDB_NODE_FUNCTION, f + 1);
	if (w->g->function(w->impl, f, &fn) == 0) {
		p.name = fn.name;
		p.file = fn.file;
		p.module = fn.object;
	}
	return p;
}

/* Add a node of function @p f below @p parent: its strings interned once
 * per function (a function stands in many nodes of the expanded views). */
static int add_fn_node(cgw *w, uint32_t parent, uint32_t f, uint8_t flags, uint32_t *id)
{
	profdb_tree *t = w->b->t;
	uint32_t *str = &w->fstr[(size_t)f * 3];
	int r;
	if (str[0] == PROFDB_NONE) {
		tproto p = fn_proto(w, f);
		if ((r = profdb__tree_intern(t, p.name, 0, &str[0])) < 0 ||
		    (r = profdb__tree_intern(t, p.file, 1, &str[1])) < 0 ||
		    (r = profdb__tree_intern(t, p.module, 2, &str[2])) < 0) {
			str[0] = PROFDB_NONE;
			return r;
		}
	}
	tproto p = w->fn_node;   /* strings unused: given by id */
	p.context = f + 1;
	p.flags = flags;
	return profdb__tree_add_ids(t, parent, &p, str, id);
}

/* x * num / den, 0 when den is 0, never above x (recursion makes Callgrind's
 * edge costs count nested calls more than once). */
static double share(double x, double num, double den)
{
	if (den == 0 || x == 0)
		return 0;
	double v = x * (num / den);
	return v > x ? x : v;
}

/* ---- expansion (top-down and bottom-up) --------------------------------------------- */

typedef struct frame {
	uint32_t node, fn, pos, end, other;
} frame;

typedef struct expand {
	cgw *w;
	frame *st;
	size_t sp, cap;
	uint32_t root_fn;     /* bottom-up: the function whose callers are shown */
	int up;               /* 1: bottom-up (callers), 0: top-down (callees) */
} expand;

/* A child of node @p parent for function @p f with values @p v (nm): folded
 * into the parent's "<other>" (*other, created on first use), or added (and
 * pushed unless recursive). */
static int child(expand *x, uint32_t *other, uint32_t parent, uint32_t f, const double *v)
{
	cgw *w = x->w;
	profdb_tree *t = w->b->t;
	size_t nm = w->nm;
	int r, any = 0;
	uint32_t id;
	for (size_t k = 0; k < nm; k++)
		any |= v[k] != 0;
	if (!(v[0] >= w->thr) || v[0] <= 0) {
		if (!any)
			return 0;
		if (*other == PROFDB_NONE) {
			tproto p = profdb__tree_proto(PROFDB_NODE_OTHER, PROFDB_NONE);
			p.name = profdb__str("<other>");
			if ((r = profdb__tree_add(t, parent, &p, other)) < 0)
				return r;
		}
		/* Recursion makes Callgrind's edge costs count nested calls more
		 * than once, so what is folded may add up to more than the parent:
		 * capped there. */
		for (size_t k = 0; k < nm; k++) {
			double o = profdb__tinc(t, *other)[k] + v[k], p = profdb__tinc(t, parent)[k];
			profdb__tinc(t, *other)[k] = profdb__texc(t, *other)[k] = o > p ? p : o;
		}
		return 0;
	}
	int rec = w->onpath[w->kin[f]];
	if ((r = add_fn_node(w, parent, f, rec ? PROFDB_NODE_RECURSIVE : 0, &id)) < 0)
		return r;
	uint32_t own = x->up ? x->root_fn : f;   /* whose self cost the node shows */
	for (size_t k = 0; k < nm; k++) {
		profdb__tinc(t, id)[k] = v[k];
		profdb__texc(t, id)[k] = share(v[k], w->fself[(size_t)own * nm + k],
		                               w->finc[(size_t)own * nm + k]);
	}
	if (rec)
		return 0;
	if (x->sp == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 64;
		frame *ns = realloc(x->st, nc * sizeof *ns);
		if (!ns)
			return profdb__fail(-ENOMEM, "tree: out of memory");
		x->st = ns;
		x->cap = nc;
	}
	const uint32_t *start = x->up ? w->in_start : w->out_start;
	x->st[x->sp++] = (frame){id, f, start[f], start[f + 1], PROFDB_NONE};
	w->onpath[w->kin[f]] = 1;
	return 0;
}

/* Expand everything pushed so far, depth first. */
static int run(expand *x)
{
	cgw *w = x->w;
	size_t nm = w->nm;
	double *v = malloc(nm * sizeof *v);
	if (!v)
		return profdb__fail(-ENOMEM, "tree: out of memory");
	int r = 0;
	while (r == 0 && x->sp) {
		frame *fr = &x->st[x->sp - 1];
		if (fr->pos == fr->end) {
			w->onpath[w->kin[fr->fn]] = 0;
			x->sp--;
			continue;
		}
		uint32_t e = (x->up ? w->in_edge : w->out_edge)[fr->pos++];
		uint32_t next = x->up ? w->caller[e] : w->callee[e];
		const double *node = profdb__tinc(w->b->t, fr->node);
		for (size_t k = 0; k < nm; k++)
			v[k] = share(node[k], w->ecost[(size_t)e * nm + k], w->finc[(size_t)fr->fn * nm + k]);
		size_t fi = x->sp - 1;
		uint32_t other = fr->other;
		r = child(x, &other, fr->node, next, v);   /* may move the stack */
		x->st[fi].other = other;
	}
	free(v);
	return r;
}

static int root_node(cgw *w, uint32_t context)
{
	tproto p = profdb__tree_proto(PROFDB_NODE_ROOT, context);
	p.name = profdb__str("<program root>");
	uint32_t id;
	int r = profdb__tree_add(w->b->t, PROFDB_NONE, &p, &id);
	for (size_t k = 0; r == 0 && k < w->nm; k++)
		profdb__tinc(w->b->t, 0)[k] = w->total[k];
	return r;
}

/* The entry functions: those no other function calls, then, for a cycle of
 * functions that only call each other, its first member in the order of
 * the root's children in the context tree (heaviest first, doc/model.md
 * "Callgrind"). */
static int entries(cgw *w, uint32_t **out, size_t *n)
{
	uint32_t *ent = malloc((size_t)w->nf * sizeof *ent + 1), *queue = malloc((size_t)w->nf * 4 + 1);
	uint8_t *seen = calloc((size_t)w->nf + 1, 1);
	int r = 0;
	size_t ne = 0, qh = 0, qt = 0;
	if (!ent || !queue || !seen)
		r = profdb__fail(-ENOMEM, "tree: out of memory");
	/* qt: the functions seen; once they are all seen nothing more can be
	 * an entry, so a pass stops there, and when the entry functions reach
	 * every function the context tree the second pass walks (82,000
	 * random reads on a big profile) is not asked for */
	for (int pass = 0; r == 0 && pass < 2 && qt < w->nf; pass++) {
		profdb_context c;
		uint32_t id = PROFDB_NONE;
		if (pass == 1 && w->nf && (r = profdb_context_get(w->b->db, 0, &c)) == 0)
			id = c.first_child;
		for (uint32_t f = 0; r == 0 && f < w->nf && qt < w->nf; f++) {
			uint32_t g = f;
			if (pass == 1) {   /* the context tree's roots, in its order */
				if (id == PROFDB_NONE || (r = profdb_context_get(w->b->db, id, &c)) < 0)
					break;
				g = id - 1;
				id = c.next_sibling;
				if (c.type != PROFDB_CTX_FUNCTION || g >= w->nf)
					continue;
			} else {
				int called = 0;
				for (uint32_t j = w->in_start[g]; j < w->in_start[g + 1]; j++)
					called |= w->caller[w->in_edge[j]] != g;
				if (called)
					continue;
			}
			if (seen[g])
				continue;
			ent[ne++] = g;
			seen[g] = 1;
			for (queue[qt++] = g; qh < qt; qh++)   /* mark what it reaches */
				for (uint32_t j = w->out_start[queue[qh]]; j < w->out_start[queue[qh] + 1]; j++) {
					uint32_t h = w->callee[w->out_edge[j]];
					if (!seen[h]) {
						seen[h] = 1;
						queue[qt++] = h;
					}
				}
		}
	}
	free(queue);
	free(seen);
	if (r < 0) {
		free(ent);
		return r;
	}
	*out = ent;
	*n = ne;
	return 0;
}

/* Cycles: inside a strongly connected part of the call graph (recursion,
 * mutual recursion), Callgrind's call costs count the nested calls again,
 * so the children of a node can claim cost that its self cost and its other
 * children already hold (quicksort'2 calling itself claims all of
 * quicksort'2). Fitting, node by node from the root: first the loose
 * children (cut as recursive, or what the cut-off folded into "<other>")
 * are scaled down, then, if that is not enough, all of them, so that the
 * exclusive value and the children's inclusive values add up to at most
 * the inclusive value; a child is scaled with its whole subtree (the
 * factor is handed down when the child's turn comes), and a loose child
 * left with nothing is unlinked. Node ids grow from parent to child, so
 * one pass in id order sees each parent before its children. */
static int loose(const tnode *n)
{
	return (n->flags & PROFDB_NODE_RECURSIVE) || n->type == PROFDB_NODE_OTHER;
}

static void scale_node(profdb_tree *t, uint32_t c, size_t k, double f, double *factor)
{
	profdb__tinc(t, c)[k] *= f;
	profdb__texc(t, c)[k] *= f;
	factor[(size_t)c * t->nm + k] *= f;
}

static void fit_children(profdb_tree *t, uint32_t i, size_t nm, double *factor)
{
	tnode *nodes = t->nodes;
	for (size_t k = 0; k < nm; k++) {
		double down = factor[(size_t)i * nm + k], held = profdb__texc(t, i)[k], claimed = 0;
		for (uint32_t c = nodes[i].first_child; c != PROFDB_NONE; c = nodes[c].next_sibling) {
			if (down != 1)   /* built from this node's unscaled value */
				scale_node(t, c, k, down, factor);
			*(loose(&nodes[c]) ? &claimed : &held) += profdb__tinc(t, c)[k];
		}
		double room = profdb__tinc(t, i)[k] - held, inc = profdb__tinc(t, i)[k];
		if (claimed > room && claimed > 0)
			for (uint32_t c = nodes[i].first_child; c != PROFDB_NONE; c = nodes[c].next_sibling)
				if (loose(&nodes[c]))
					scale_node(t, c, k, room > 0 ? room / claimed : 0, factor);
		if (!(held > inc) || !(held > profdb__texc(t, i)[k]))
			continue;
		double f = (inc - profdb__texc(t, i)[k]) / (held - profdb__texc(t, i)[k]);
		for (uint32_t c = nodes[i].first_child; c != PROFDB_NONE; c = nodes[c].next_sibling)
			if (!loose(&nodes[c]))
				scale_node(t, c, k, f > 0 ? f : 0, factor);
	}
	uint32_t prev = PROFDB_NONE;
	for (uint32_t c = nodes[i].first_child; c != PROFDB_NONE; c = nodes[c].next_sibling) {
		int empty = loose(&nodes[c]);
		for (size_t k = 0; empty && k < nm; k++)
			empty = profdb__tinc(t, c)[k] == 0;
		if (!empty) {
			prev = c;
			continue;
		}
		if (prev == PROFDB_NONE)
			nodes[i].first_child = nodes[c].next_sibling;
		else
			nodes[prev].next_sibling = nodes[c].next_sibling;
		if (nodes[i].last_child == c)
			nodes[i].last_child = prev;
	}
}

static int fit_tree(profdb_tree *t, size_t nm)
{
	double *factor = malloc(t->n * nm * sizeof *factor + 1);
	if (!factor)
		return profdb__fail(-ENOMEM, "tree: out of memory");
	for (size_t x = 0; x < t->n * nm; x++)
		factor[x] = 1;
	for (uint32_t i = 0; i < t->n; i++)
		fit_children(t, i, nm, factor);
	free(factor);
	return 0;
}

static int top_down(cgw *w)
{
	size_t nm = w->nm, ne;
	uint32_t *ent;
	int r = root_node(w, 0);
	if (r < 0 || (r = entries(w, &ent, &ne)) < 0)
		return r;
	expand x = {w, NULL, 0, 0, 0, 0};
	double *v = calloc(2 * nm, sizeof *v), *scale = v ? v + nm : NULL;
	uint32_t other = PROFDB_NONE;
	if (!v)
		r = profdb__fail(-ENOMEM, "tree: out of memory");
	/* Entry functions may overlap (a cycle's root is called from its own
	 * members); scaled down together when they add up to more than the
	 * total, so that no child exceeds node 0. */
	for (size_t k = 0; r == 0 && k < nm; k++) {
		double sum = 0;
		for (size_t i = 0; i < ne; i++)
			sum += w->finc[(size_t)ent[i] * nm + k];
		scale[k] = sum > w->total[k] && sum > 0 ? w->total[k] / sum : 1;
	}
	for (size_t i = 0; r == 0 && i < ne; i++) {
		for (size_t k = 0; k < nm; k++)
			v[k] = w->finc[(size_t)ent[i] * nm + k] * scale[k];
		if ((r = child(&x, &other, 0, ent[i], v)) == 0)
			r = run(&x);
	}
	free(v);
	free(ent);
	free(x.st);
	if (r == 0)
		r = fit_tree(w->b->t, nm);
	return r;
}

static int bottom_up(cgw *w)
{
	size_t nm = w->nm;
	int r = root_node(w, PROFDB_NONE);
	expand x = {w, NULL, 0, 0, 0, 1};
	/* A node per function and, on big profiles, about as many for the
	 * callers above the cut-off (a guess: growing by doubling copies the
	 * nodes and touches twice the pages) */
	profdb__tree_reserve(w->b->t, (size_t)w->nf * 2 + w->nf / 4 + 64);
	for (size_t k = 0; r == 0 && k < nm; k++)
		for (uint32_t f = 0; f < w->nf; f++)
			profdb__texc(w->b->t, 0)[k] += w->fself[(size_t)f * nm + k];
	for (uint32_t f = 0; r == 0 && f < w->nf; f++) {
		const double *inc = w->finc + (size_t)f * nm, *self = w->fself + (size_t)f * nm;
		int any = 0, own = 0;
		for (size_t k = 0; k < nm; k++) {
			any |= inc[k] != 0 || self[k] != 0;
			own |= self[k] != 0;
		}
		if (!any)
			continue;
		/* Every function is a root (the index of the view); the cut-off
		 * applies to its callers, shown for the functions with a self
		 * cost only (a chain of n calls with cost at its end: 2n nodes,
		 * not n(n+1)/2). */
		uint32_t id;
		if ((r = add_fn_node(w, 0, f, 0, &id)) < 0)
			break;
		memcpy(profdb__tinc(w->b->t, id), inc, nm * sizeof *inc);
		memcpy(profdb__texc(w->b->t, id), self, nm * sizeof *self);
		if (!own)
			continue;
		x.root_fn = f;
		x.st = x.st ? x.st : malloc(64 * sizeof *x.st);
		x.cap = x.st ? (x.cap ? x.cap : 64) : 0;
		if (!x.st) {
			r = profdb__fail(-ENOMEM, "tree: out of memory");
			break;
		}
		x.st[0] = (frame){id, f, w->in_start[f], w->in_start[f + 1], PROFDB_NONE};
		x.sp = 1;
		w->onpath[w->kin[f]] = 1;
		r = run(&x);
	}
	free(x.st);
	return r;
}

/* ---- flat --------------------------------------------------------------------------- */

/* A line's stored self cost in @p profile, metric @p m: 0 when it has
 * none there (as profdb_exclusive finds nothing). Profiles ascend. */
static uint64_t row_cost(const profdb__graph_row *row, uint32_t profile, uint32_t m, size_t nm)
{
	size_t lo = profdb__lower_u32(row->profiles, 0, row->n, profile);
	return lo < row->n && row->profiles[lo] == profile ? row->costs[(size_t)lo * nm + m] : 0;
}

typedef struct flat_walk {
	cgw *w;
	uint32_t fnode;
	profdb_str module;
	size_t n_metrics;
} flat_walk;

/* One line or instruction leaf: its self cost combined over each plan's
 * profiles in the plan's order, as the walk one context at a time does. */
static int flat_row(void *ud, const profdb__graph_row *row)
{
	const flat_walk *fw = ud;
	const cgw *w = fw->w;
	profdb_tree *t = w->b->t;
	tproto p = profdb__tree_proto(row->instruction ? PROFDB_NODE_INSTRUCTION : PROFDB_NODE_LINE,
	                              row->context);
	p.file = row->file;
	p.line = row->line;
	p.module = fw->module;
	p.off = row->instr;
	uint32_t n;
	int r = profdb__tree_add(t, fw->fnode, &p, &n);
	if (r < 0)
		return r;
	for (size_t k = 0; k < w->nm; k++) {
		const tplan *pl = &w->b->plan[k];
		double acc = 0;
		int first = 1;
		if (pl->metric >= fw->n_metrics)
			return profdb__fail(-ENOENT, "tree: no metric %u", pl->metric);
		for (size_t i = 0; i < pl->n_profiles; i++) {
			uint64_t v = row_cost(row, pl->profiles[i], pl->metric, fw->n_metrics);
			if (v) {
				acc = profdb__tcomb(pl->rule, acc, (double)v, first);
				first = 0;
			}
		}
		profdb__tinc(t, n)[k] = profdb__texc(t, n)[k] = acc;
	}
	return 0;
}

/* The line and instruction contexts of function @p f (lines.c), as leaves
 * of its flat node: inclusive = exclusive = the line's self cost combined
 * over the plan's profiles; a function's rows at a time from the graph
 * table when it serves them. */
static int flat_lines(cgw *w, uint32_t f, uint32_t fnode)
{
	const profdb *db = w->b->db;
	profdb_tree *t = w->b->t;
	profdb_context c;
	int r = profdb_context_get(db, f + 1, &c);
	if (r < 0)
		return r;
	int64_t nm = profdb_metric_count(db);
	if (w->g->lines && nm >= 0) {
		flat_walk fw = {w, fnode, c.module, (size_t)nm};
		if ((r = w->g->lines(w->impl, f, flat_row, &fw)) != -ENOTSUP)
			return r;
	}
	for (uint32_t id = c.first_child; id != PROFDB_NONE; id = c.next_sibling) {
		if ((r = profdb_context_get(db, id, &c)) < 0)
			return r;
		if (c.relation != PROFDB_RELATION_LEXICAL)
			break;   /* the callees follow the lines */
		tproto p = profdb__tree_proto(c.type == PROFDB_CTX_INSTRUCTION ? PROFDB_NODE_INSTRUCTION
		                             : PROFDB_NODE_LINE, id);
		p.file = c.file;
		p.line = c.line;
		p.module = c.module;
		p.off = c.offset;
		uint32_t n;
		if ((r = profdb__tree_add(t, fnode, &p, &n)) < 0)
			return r;
		for (size_t k = 0; k < w->nm; k++) {
			const tplan *pl = &w->b->plan[k];
			double acc = 0;
			int first = 1;
			for (size_t i = 0; i < pl->n_profiles; i++) {
				profdb_number x;
				if ((r = profdb_exclusive(db, pl->profiles[i], id, pl->metric, &x)) < 0)
					return r;
				if (r > 0) {
					acc = profdb__tcomb(pl->rule, acc, profdb_number_to_double(x), first);
					first = 0;
				}
			}
			profdb__tinc(t, n)[k] = profdb__texc(t, n)[k] = acc;
		}
	}
	return 0;
}

/* Inclusive of the modules or files (@p grp: each function's group node):
 * what enters a group from outside (calls from functions of other groups,
 * and the entry functions' own inclusive cost), at least its heaviest
 * child's and at most the total. Callgrind has no call paths, so a group
 * entered twice along one path counts twice here (before the clamp). */
static void group_inclusive(cgw *w, const uint32_t *grp)
{
	profdb_tree *t = w->b->t;
	size_t nm = w->nm;
	for (uint32_t f = 0; f < w->nf; f++) {
		double *inc = profdb__tinc(t, grp[f]);
		int called = 0;
		for (uint32_t j = w->in_start[f]; j < w->in_start[f + 1]; j++) {
			uint32_t e = w->in_edge[j];
			called |= w->caller[e] != f;
			if (grp[w->caller[e]] != grp[f])
				for (size_t k = 0; k < nm; k++)
					inc[k] += w->ecost[(size_t)e * nm + k];
		}
		if (!called)
			for (size_t k = 0; k < nm; k++)
				inc[k] += w->finc[(size_t)f * nm + k];
	}
}

static void group_clamp(cgw *w, uint32_t node)
{
	profdb_tree *t = w->b->t;
	double *inc = profdb__tinc(t, node);
	for (size_t k = 0; k < w->nm; k++) {
		for (uint32_t c = t->nodes[node].first_child; c != PROFDB_NONE; c = t->nodes[c].next_sibling)
			if (profdb__tinc(t, c)[k] > inc[k])
				inc[k] = profdb__tinc(t, c)[k];
		if (inc[k] > w->total[k])
			inc[k] = w->total[k];
	}
}

static int flat(cgw *w)
{
	profdb_tree *t = w->b->t;
	size_t nm = w->nm;
	int r = root_node(w, PROFDB_NONE), created;
	uint32_t *mod = malloc((size_t)w->nf * 2 * sizeof *mod + 1), *file = mod ? mod + w->nf : NULL;
	if (r == 0 && !mod)
		r = profdb__fail(-ENOMEM, "tree: out of memory");
	for (uint32_t f = 0; r == 0 && f < w->nf; f++) {
		tproto p = fn_proto(w, f), m = profdb__tree_proto(PROFDB_NODE_MODULE, PROFDB_NONE);
		tproto fl = profdb__tree_proto(PROFDB_NODE_FILE, PROFDB_NONE);
		m.name = m.module = p.module;
		fl.name = fl.file = p.file;
		fl.module = p.module;
		uint32_t id;
		if ((r = profdb__tree_child(t, 0, &m, &mod[f], &created)) < 0 ||
		    (r = profdb__tree_child(t, mod[f], &fl, &file[f], &created)) < 0 ||
		    (r = profdb__tree_add(t, file[f], &p, &id)) < 0)
			break;
		memcpy(profdb__tinc(t, id), w->finc + (size_t)f * nm, nm * sizeof(double));
		memcpy(profdb__texc(t, id), w->fself + (size_t)f * nm, nm * sizeof(double));
		r = flat_lines(w, f, id);
	}
	/* Groups: exclusive = the children's; inclusive as group_inclusive. */
	if (r == 0) {
		group_inclusive(w, file);
		group_inclusive(w, mod);
	}
	for (size_t x = t->n; r == 0 && x-- > 0;) {
		tnode *n = &t->nodes[x];
		if (n->type != PROFDB_NODE_MODULE && n->type != PROFDB_NODE_FILE && x != 0)
			continue;
		for (uint32_t c = n->first_child; c != PROFDB_NONE; c = t->nodes[c].next_sibling)
			for (size_t k = 0; k < nm; k++)
				profdb__texc(t, (uint32_t)x)[k] += profdb__texc(t, c)[k];
		if (x != 0)
			group_clamp(w, (uint32_t)x);
	}
	free(mod);
	return r;
}

int profdb__tree_build_cg(tbuild *b)
{
	cgw w;
	memset(&w, 0, sizeof w);
	w.b = b;
	w.g = b->db->be->graph;
	w.impl = b->db->impl;
	w.nm = b->nm;
	int r = setup(&w);
	if (r == 0) {
		int expanded = b->kind != PROFDB_TREE_FLAT;
		double cut = b->cutoff > 0 ? b->cutoff : expanded ? 0.001 : 0;
		w.thr = expanded ? cut * w.total[0] : 0;
		r = b->kind == PROFDB_TREE_TOP_DOWN ? top_down(&w)
		  : b->kind == PROFDB_TREE_BOTTOM_UP ? bottom_up(&w) : flat(&w);
		if (expanded)
			b->cutoff = 0;   /* folded while expanding */
	}
	cgw_free(&w);
	return r;
}
