/* The three views of the formats that store a calling-context tree
 * (HPCToolkit 4.0, pre-release, hpcrun, Cube): doc/model.md "The three
 * views" defines them; this file follows it.
 *
 * Every view starts from one pre-order walk of the context tree with each
 * context's inclusive and exclusive values combined over the plan's
 * profiles (profdb_inclusive/profdb_exclusive, so each format's own rule
 * applies per profile: hpcprof's stored scopes, CubeLib's per-location
 * aggregation, hpcrun's computed sums; a backend that computes a scope
 * along the tree gives it for every context in one pass, scoped_all). A
 * context is a *frame* when it stands for a function activation: a
 * FUNCTION context, or any other non-root context entered by a call
 * (hpcrun's call sites) or at the top. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/table-internal.h"
#include "tree-internal.h"

/* What the views read of a context (a deep tree has millions: the links
 * and the rest of profdb_context are left out). */
typedef struct cctx {
	uint32_t id;
	uint8_t type;         /* profdb_context_type */
	uint8_t has_offset;
	profdb_str function, file, module;
	uint64_t line, offset;
} cctx;

typedef struct cinfo {
	cctx c;
	uint32_t parent;      /* index of the parent context, PROFDB_NONE for a root */
	uint32_t end;         /* one past the last index of the subtree */
	uint32_t frame;       /* nearest frame, the context itself included */
	uint32_t up;          /* frames: the nearest frame strictly above */
	uint32_t fnode;       /* flat view: the node it is attributed to */
	uint8_t is_frame;
} cinfo;

typedef struct cwalk {
	tbuild *b;
	cinfo *ci;
	size_t n;
	double *cv;           /* 2 * nm per context: inclusive, exclusive */
	double *total;        /* nm: the roots' inclusive values combined */
	/* flat view: the module and file nodes of the last frame, by the
	 * strings' views (consecutive frames mostly share both) */
	profdb_str last_module, last_file;
	uint32_t last_mod_node, last_file_node;
} cwalk;

static void cwalk_free(cwalk *w)
{
	free(w->ci);
	free(w->cv);
	free(w->total);
}

static int is_frame(const profdb_context *c)
{
	if (c->type == PROFDB_CTX_FUNCTION)
		return 1;
	if (c->type == PROFDB_CTX_ROOT)
		return 0;
	return c->relation == PROFDB_RELATION_CALL || c->relation == PROFDB_RELATION_INLINED ||
	       c->parent == PROFDB_NONE;
}

/* The tree in pre-order with subtree ends, frames and parents. */
static int collect(cwalk *w)
{
	const profdb *db = w->b->db;
	int64_t count = profdb_context_count(db);
	uint32_t cur;
	if (count < 0)
		return (int)count;
	int r = profdb_context_root(db, &cur);
	if (r == -ENOENT || count == 0)
		return 0;
	if (r < 0)
		return r;
	uint64_t need = (uint64_t)count * (sizeof(cinfo) + 2 * sizeof(uint32_t) +
	                                   2 * w->b->nm * sizeof(double));
	if (need > w->b->t->limit)
		return profdb__fail(-EFBIG, "tree: %" PRId64 " contexts need %" PRIu64 " bytes, more "
		                    "than profdb_options.max_memory", count, need);
	w->ci = malloc((size_t)count * sizeof *w->ci);
	/* the open ancestors and their next siblings */
	uint32_t *path = malloc((size_t)count * 2 * sizeof *path), *next_of = path + count;
	if (!w->ci || !path) {
		free(path);
		return profdb__fail(-ENOMEM, "tree: out of memory (%" PRId64 " contexts)", count);
	}
	profdb__advise_big(w->ci, (size_t)count * sizeof *w->ci);
	size_t sp = 0, n = 0;
	for (;;) {
		if (n >= (uint64_t)count) {
			r = profdb__fail(-EBADMSG, "tree: the context links visit more than the %" PRId64
			                 " contexts counted", count);
			break;
		}
		cinfo *x = &w->ci[n];
		profdb_context c;
		if ((r = profdb_context_get(db, cur, &c)) < 0)
			break;
		x->c = (cctx){c.id, (uint8_t)c.type, c.has_offset != 0, c.function, c.file, c.module,
		              c.line, c.offset};
		x->parent = sp ? path[sp - 1] : PROFDB_NONE;
		x->is_frame = (uint8_t)is_frame(&c);
		x->frame = x->is_frame ? (uint32_t)n : x->parent == PROFDB_NONE ? PROFDB_NONE
		         : w->ci[x->parent].frame;
		x->up = x->parent == PROFDB_NONE ? PROFDB_NONE : w->ci[x->parent].frame;
		x->fnode = PROFDB_NONE;
		uint32_t j = (uint32_t)n++;
		if (c.first_child != PROFDB_NONE) {
			next_of[sp] = c.next_sibling;
			path[sp++] = j;
			cur = c.first_child;
			continue;
		}
		w->ci[j].end = (uint32_t)n;
		cur = c.next_sibling;
		while (cur == PROFDB_NONE && sp) {
			cur = next_of[--sp];
			w->ci[path[sp]].end = (uint32_t)n;
		}
		if (cur == PROFDB_NONE)
			break;
	}
	free(path);
	w->n = n;
	return r;
}

/* One context's value of metric @p pl combined over its profiles; *found:
 * some profile stores (or computes) one. */
static int ctx_value(const profdb *db, const tplan *pl, uint32_t ctx, int inclusive, double *out,
                     int *found)
{
	double acc = 0;
	int first = 1;
	for (size_t i = 0; i < pl->n_profiles; i++) {
		profdb_number x;
		int r = (inclusive ? profdb_inclusive : profdb_exclusive)(db, pl->profiles[i], ctx,
		                                                          pl->metric, &x);
		if (r < 0)
			return r;
		if (r == 0)
			continue;   /* no value there: contributes nothing (not a zero) */
		acc = profdb__tcomb(pl->rule, acc, profdb_number_to_double(x), first);
		first = 0;
	}
	*out = acc;
	*found = !first;
	return 0;
}

/* A context without any inclusive value while its subtree has some (the
 * pre-release writer stores nothing at call sites, which hpcviewer merges
 * with the frame they call) takes its children's combined inclusive value;
 * elsewhere such a context is 0 and so are its children. */
static void fill_missing(cwalk *w, const uint8_t *found)
{
	size_t nm = w->b->nm;
	for (size_t i = w->n; i-- > 0;)
		for (size_t k = 0; k < nm; k++) {
			if (found[i * nm + k] || !w->b->plan[k].has_inc)
				continue;
			double acc = 0;
			int first = 1;
			for (size_t j = i + 1; j < w->ci[i].end; j = w->ci[j].end) {
				acc = profdb__tcomb(w->b->plan[k].rule, acc, w->cv[j * 2 * nm + k], first);
				first = 0;
			}
			w->cv[i * 2 * nm + k] = acc;
		}
}

/* Metric k's scope at every context combined over the plan's profiles,
 * from the backend's one pass over the tree (scoped_all: Cube computes an
 * exclusive metric's inclusive values along the call tree, which one call
 * per context would redo for every subtree and location), a chunk of
 * profiles at a time so the buffer stays small; the profiles are combined
 * in the same ascending order as ctx_value() does. @return 1 done, 0 not
 * possible (no such pass, too big, or it failed: ask per context). */
static int at_once(cwalk *w, size_t k, int inclusive, uint8_t *found)
{
	const profdb *db = w->b->db;
	const tplan *pl = &w->b->plan[k];
	size_t nm = w->b->nm, slot = inclusive ? k : nm + k;
	int64_t nc = profdb_context_count(db);
	if (!db->be->scoped_all || nc <= 0 || pl->n_profiles == 0)
		return 0;
	uint64_t col = (uint64_t)nc * (sizeof(double) + 1), budget = w->b->t->limit / 4;
	if (budget > ((uint64_t)32 << 20))
		budget = (uint64_t)32 << 20;
	if (col > budget)
		return 0;
	size_t chunk = (size_t)(budget / col);
	chunk = chunk < pl->n_profiles ? chunk : pl->n_profiles;
	double *buf = malloc((size_t)col * chunk);
	uint8_t *first = malloc(w->n + 1);
	if (!buf || !first) {
		free(buf);
		free(first);
		return 0;
	}
	uint8_t *fbuf = (uint8_t *)(buf + (size_t)nc * chunk);
	memset(first, 1, w->n + 1);
	int ok = 1;
	for (size_t a = 0; ok && a < pl->n_profiles; a += chunk) {
		size_t np = pl->n_profiles - a < chunk ? pl->n_profiles - a : chunk;
		if (db->be->scoped_all(db->impl, pl->metric, inclusive, pl->profiles + a, np, buf,
		                       fbuf) < 0) {
			ok = 0;
			break;
		}
		for (size_t i = 0; i < w->n; i++) {
			size_t c = w->ci[i].c.id;
			double *acc = &w->cv[i * 2 * nm + slot];
			if (c >= (uint64_t)nc) {
				ok = 0;
				break;
			}
			for (size_t j = 0; j < np; j++)
				if (fbuf[c * np + j]) {
					*acc = profdb__tcomb(pl->rule, *acc, buf[c * np + j], first[i]);
					first[i] = 0;
				}
		}
	}
	for (size_t i = 0; ok && i < w->n; i++) {
		if (first[i])
			w->cv[i * 2 * nm + slot] = 0;   /* nothing there, as ctx_value says */
		if (found)
			found[i * nm + k] = !first[i];
	}
	free(buf);
	free(first);
	return ok;
}

static int values(cwalk *w)
{
	size_t nm = w->b->nm;
	w->cv = malloc(w->n * 2 * nm * sizeof *w->cv + 1);
	w->total = calloc(nm, sizeof *w->total);
	uint8_t *found = malloc(w->n * nm + 1);
	if (!w->cv || !w->total || !found) {
		free(found);
		return profdb__fail(-ENOMEM, "tree: out of memory (%zu contexts)", w->n);
	}
	profdb__advise_big(w->cv, w->n * 2 * nm * sizeof *w->cv);
	for (size_t i = 0; i < w->n; i++)
		for (size_t k = 0; k < nm; k++) {
			w->cv[i * 2 * nm + k] = w->cv[i * 2 * nm + nm + k] = NAN;
			found[i * nm + k] = 1;
		}
	int r = 0;
	for (size_t k = 0; r == 0 && k < nm; k++) {
		const tplan *pl = &w->b->plan[k];
		for (int inclusive = 1; r == 0 && inclusive >= 0; inclusive--) {
			if (!(inclusive ? pl->has_inc : pl->has_exc))
				continue;
			size_t slot = inclusive ? k : nm + k;
			if (at_once(w, k, inclusive, inclusive ? found : NULL))
				continue;
			for (size_t i = 0; r == 0 && i < w->n; i++) {
				int f;
				r = ctx_value(w->b->db, pl, w->ci[i].c.id, inclusive, &w->cv[i * 2 * nm + slot],
				              &f);
				if (inclusive)
					found[i * nm + k] = (uint8_t)f;
			}
		}
	}
	if (r < 0) {
		free(found);
		return r;
	}
	fill_missing(w, found);
	free(found);
	for (size_t k = 0; k < nm; k++) {
		int first = 1;
		for (size_t i = 0; i < w->n; i = w->ci[i].end) {   /* the roots */
			w->total[k] = profdb__tcomb(w->b->plan[k].rule, w->total[k], w->cv[i * 2 * nm + k],
			                            first);
			first = 0;
		}
		if (!w->b->plan[k].has_inc)
			w->total[k] = NAN;
	}
	return 0;
}

static profdb_node_type node_type(profdb_context_type t)
{
	switch (t) {
	case PROFDB_CTX_ROOT: return PROFDB_NODE_ROOT;
	case PROFDB_CTX_FUNCTION: return PROFDB_NODE_FUNCTION;
	case PROFDB_CTX_LOOP: return PROFDB_NODE_LOOP;
	case PROFDB_CTX_LINE: return PROFDB_NODE_LINE;
	case PROFDB_CTX_INSTRUCTION: return PROFDB_NODE_INSTRUCTION;
	default: return PROFDB_NODE_UNKNOWN;
	}
}

static tproto ctx_proto(const cctx *c, profdb_node_type type)
{
	tproto p = profdb__tree_proto(type, c->id);
	p.name = c->function;
	p.file = c->file;
	p.line = c->line;
	p.module = c->module;
	return p;
}

/* Node 0 of a view that has no context of its own: inclusive = the total,
 * exclusive = 0 (NaN where the format has no such scope). */
static int synthetic_root(cwalk *w)
{
	tproto p = profdb__tree_proto(PROFDB_NODE_ROOT, PROFDB_NONE);
	p.name = profdb__str("<program root>");
	uint32_t id;
	int r = profdb__tree_add(w->b->t, PROFDB_NONE, &p, &id);
	for (size_t k = 0; r == 0 && k < w->b->nm; k++) {
		profdb__tinc(w->b->t, 0)[k] = w->total[k];
		profdb__texc(w->b->t, 0)[k] = w->b->plan[k].has_exc ? 0 : NAN;
	}
	return r;
}

static void set_values(cwalk *w, uint32_t node, size_t i)
{
	memcpy(profdb__tinc(w->b->t, node), w->cv + i * 2 * w->b->nm, 2 * w->b->nm * sizeof(double));
}

/* ---- top-down ---------------------------------------------------------------------- */

static int top_down(cwalk *w)
{
	profdb_tree *t = w->b->t;
	uint32_t *nid = malloc(w->n * sizeof *nid + 1);
	if (!nid)
		return profdb__fail(-ENOMEM, "tree: out of memory");
	int r = 0;
	size_t roots = 0;
	for (size_t i = 0; i < w->n; i++)
		roots += w->ci[i].parent == PROFDB_NONE;
	/* A format's own single root (type ROOT) is node 0; several roots, or
	 * one that is code, hang below a synthetic node 0. */
	int own = roots == 1 && w->ci[0].c.type == PROFDB_CTX_ROOT;
	profdb__tree_reserve(t, w->n + 1);
	if (!own)
		r = synthetic_root(w);
	for (size_t i = 0; r == 0 && i < w->n; i++) {
		const cinfo *x = &w->ci[i];
		tproto p = ctx_proto(&x->c, node_type(x->c.type));
		uint32_t parent = x->parent != PROFDB_NONE ? nid[x->parent] : own ? PROFDB_NONE : 0;
		if ((r = profdb__tree_add(t, parent, &p, &nid[i])) == 0)
			set_values(w, nid[i], i);
	}
	free(nid);
	return r;
}

/* ---- flat -------------------------------------------------------------------------- */

/* The same string view (the same node key: a module or file node found
 * for one is the node of the other). */
static int same_view(profdb_str a, profdb_str b)
{
	return a.ptr == b.ptr && a.len == b.len;
}

/* The flat node a context is attributed to (created on first use). */
static int flat_node(cwalk *w, size_t i, uint32_t *out)
{
	profdb_tree *t = w->b->t;
	const cinfo *x = &w->ci[i];
	int r, created;
	*out = PROFDB_NONE;
	if (x->c.type == PROFDB_CTX_ROOT || x->frame == PROFDB_NONE)
		return 0;   /* an entry point, or code outside every function */
	if (!x->is_frame) {
		uint32_t parent = w->ci[x->parent].fnode;
		if (parent == PROFDB_NONE)
			return 0;
		tproto p = ctx_proto(&x->c, node_type(x->c.type));
		p.name = profdb__str(NULL);
		p.off = x->c.has_offset ? x->c.offset : 0;
		if (x->c.type == PROFDB_CTX_LOOP || x->c.type == PROFDB_CTX_LINE)
			p.module = profdb__str(NULL);
		return profdb__tree_child(t, parent, &p, out, &created);
	}
	if (!same_view(w->last_module, x->c.module) || !same_view(w->last_file, x->c.file) ||
	    w->last_file_node == PROFDB_NONE) {
		tproto m = profdb__tree_proto(PROFDB_NODE_MODULE, PROFDB_NONE);
		m.name = m.module = x->c.module;
		if ((r = profdb__tree_child(t, 0, &m, &w->last_mod_node, &created)) < 0)
			return r;
		tproto f = profdb__tree_proto(PROFDB_NODE_FILE, PROFDB_NONE);
		f.name = f.file = x->c.file;
		f.module = x->c.module;
		if ((r = profdb__tree_child(t, w->last_mod_node, &f, &w->last_file_node,
		                            &created)) < 0)
			return r;
		w->last_module = x->c.module;
		w->last_file = x->c.file;
	}
	uint32_t file = w->last_file_node;
	tproto fn = ctx_proto(&x->c, PROFDB_NODE_FUNCTION);
	fn.line = 0;   /* identity: (module, file, name); anonymous ones by address */
	fn.off = x->c.function.len == 0 && x->c.has_offset ? x->c.offset : 0;
	return profdb__tree_child(t, file, &fn, out, &created);
}

/* Combine @p v into node @p id's slot @p k (once-per-node "first" in @p seen). */
static void add_to(tbuild *b, double *slot, size_t k, double v, int first)
{
	*slot = profdb__tcomb(b->plan[k].rule, *slot, v, first);
}

/* The flat view; also the function identities of the bottom-up view. */
static int flat(cwalk *w)
{
	tbuild *b = w->b;
	profdb_tree *t = b->t;
	size_t nm = b->nm;
	/* a node per context, a root and a few modules and files: exact for a
	 * chain, an upper guess where functions share nodes (pages never used
	 * are never touched) */
	profdb__tree_reserve(t, w->n + w->n / 8 + 64);
	int r = synthetic_root(w);
	w->last_file_node = PROFDB_NONE;
	uint32_t *cnt = NULL, *stack = malloc(w->n * sizeof *stack + 1);
	uint8_t *seen_inc = NULL, *seen_exc = NULL;
	if (r < 0 || !stack) {
		free(stack);
		return r < 0 ? r : profdb__fail(-ENOMEM, "tree: out of memory");
	}
	size_t sp = 0, cap = 0;
	for (size_t i = 0; i < w->n; i++) {
		while (sp && w->ci[stack[sp - 1]].end <= i) {   /* leave finished subtrees */
			for (uint32_t x = w->ci[stack[--sp]].fnode; x != 0; x = t->nodes[x].parent)
				cnt[x]--;
		}
		if ((r = flat_node(w, i, &w->ci[i].fnode)) < 0)
			break;
		uint32_t fn = w->ci[i].fnode;
		if (t->n > cap) {   /* per-node counters grow with the nodes */
			size_t nc = t->cap;
			uint32_t *c2 = realloc(cnt, nc * sizeof *c2);
			uint8_t *s1 = c2 ? realloc(seen_inc, nc) : NULL, *s2 = s1 ? realloc(seen_exc, nc) : NULL;
			if (c2)
				cnt = c2;
			if (s1)
				seen_inc = s1;
			if (!s2) {
				r = profdb__fail(-ENOMEM, "tree: out of memory");
				break;
			}
			seen_exc = s2;
			memset(cnt + cap, 0, (nc - cap) * sizeof *cnt);
			memset(seen_inc + cap, 0, nc - cap);
			memset(seen_exc + cap, 0, nc - cap);
			cap = nc;
		}
		if (fn == PROFDB_NONE)
			continue;
		const double *v = w->cv + i * 2 * nm;
		for (size_t k = 0; k < nm; k++)
			add_to(b, &profdb__texc(t, fn)[k], k, v[nm + k], !seen_exc[fn]);
		seen_exc[fn] = 1;
		if (w->ci[i].c.id < t->nodes[fn].context)   /* it stands for its lowest id */
			t->nodes[fn].context = w->ci[i].c.id;
		/* Inclusive once per path: only where no enclosing context on the
		 * current path is attributed to the same node or below it. */
		for (uint32_t x = fn; x != 0; x = t->nodes[x].parent) {
			if (cnt[x]++ == 0) {
				for (size_t k = 0; k < nm; k++)
					add_to(b, &profdb__tinc(t, x)[k], k, v[k], !seen_inc[x]);
				seen_inc[x] = 1;
			}
		}
		stack[sp++] = (uint32_t)i;
	}
	/* Modules, files and the root: exclusive = their children's combined. */
	for (size_t x = t->n; r == 0 && x-- > 0;) {
		tnode *n = &t->nodes[x];
		if (n->type != PROFDB_NODE_MODULE && n->type != PROFDB_NODE_FILE && x != 0)
			continue;
		int first = 1;
		for (uint32_t c = n->first_child; c != PROFDB_NONE; c = t->nodes[c].next_sibling) {
			for (size_t k = 0; k < nm; k++)
				add_to(b, &profdb__texc(t, (uint32_t)x)[k], k, profdb__texc(t, c)[k], first);
			first = 0;
		}
		for (size_t k = 0; k < nm; k++)
			if (!b->plan[k].has_inc)
				profdb__tinc(t, (uint32_t)x)[k] = NAN;
	}
	for (size_t k = 0; r == 0 && k < nm; k++)
		profdb__tinc(t, 0)[k] = w->total[k];
	free(cnt);
	free(seen_inc);
	free(seen_exc);
	free(stack);
	return r;
}

/* ---- bottom-up ----------------------------------------------------------------------- */

/* One frame of a function with self cost climbing its caller chain. */
typedef struct bitem {
	uint32_t node;        /* the bottom-up node the item belongs to */
	uint32_t fid;         /* the flat function node of cur */
	uint32_t cur;         /* the frame reached along the caller chain */
	uint32_t leaf;        /* the frame of the root function the chain started at */
	uint32_t seen;        /* the lowest frame above cur whose function is on the
	                         path already (PROFDB_NONE: none) */
	int rec;              /* cur's function was on the path already */
} bitem;

static int cmp_bitem(const void *a, const void *b)
{
	const bitem *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->fid != y->fid)
		return x->fid < y->fid ? -1 : 1;
	return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* A node for the function @p fid of the flat tree @p ft below @p parent. */
static int bu_node(cwalk *w, const profdb_tree *ft, uint32_t parent, uint32_t fid, uint32_t *id)
{
	tproto p = profdb__tree_proto_of(ft, fid);
	p.off = fid;
	return profdb__tree_add(w->b->t, parent, &p, id);
}

/* The callers of one group of items [a, e) (same node, same function,
 * hence the same answer to "recursive"): their values (inclusive once per
 * path: a leaf inside another leaf of the group adds nothing). */
static int bu_group(cwalk *w, const profdb_tree *ft, bitem *it, size_t a, size_t e)
{
	profdb_tree *t = w->b->t;
	size_t nm = w->b->nm;
	uint32_t id;
	int r = bu_node(w, ft, it[a].node, it[a].fid, &id);
	if (r < 0)
		return r;
	t->nodes[id].flags = it[a].rec ? PROFDB_NODE_RECURSIVE : 0;
	uint32_t end = 0;
	int first_inc = 1;
	for (size_t j = a; j < e; j++) {
		const double *v = w->cv + (size_t)it[j].leaf * 2 * nm;
		int outer = it[j].leaf >= end;
		if (outer)
			end = w->ci[it[j].leaf].end;
		for (size_t k = 0; k < nm; k++) {
			add_to(w->b, &profdb__texc(t, id)[k], k, v[nm + k], j == a);
			if (outer)
				add_to(w->b, &profdb__tinc(t, id)[k], k, v[k], first_inc);
		}
		first_inc &= !outer;
		it[j].node = id;
	}
	return 0;
}

/* same[i]: the nearest frame above frame i attributed to the same function
 * (PROFDB_NONE: none), in one pre-order pass: last[f] is the innermost open
 * frame of function f, restored when the frame's subtree is left. */
static int same_above(cwalk *w, size_t n_fn, uint32_t *same)
{
	uint32_t *last = malloc(n_fn * sizeof *last + 1), *open = malloc(w->n * sizeof *open + 1);
	if (!last || !open) {
		free(last);
		free(open);
		return profdb__fail(-ENOMEM, "tree: out of memory");
	}
	for (size_t f = 0; f < n_fn; f++)
		last[f] = PROFDB_NONE;
	size_t sp = 0;
	for (size_t i = 0; i < w->n; i++) {
		while (sp && w->ci[open[sp - 1]].end <= i) {
			uint32_t x = open[--sp];
			last[w->ci[x].fnode] = same[x];
		}
		same[i] = PROFDB_NONE;
		if (!w->ci[i].is_frame || w->ci[i].fnode == PROFDB_NONE)
			continue;
		same[i] = last[w->ci[i].fnode];
		last[w->ci[i].fnode] = (uint32_t)i;
		open[sp++] = (uint32_t)i;
	}
	free(last);
	free(open);
	return 0;
}

/* Does flat function node @p x have a self cost (exclusive value not 0 in
 * some metric; one the format cannot give counts as one)? */
static int has_self(const profdb_tree *ft, uint32_t x)
{
	const double *exc = ft->val + (size_t)x * 2 * ft->nm + ft->nm;
	for (size_t k = 0; k < ft->nm; k++)
		if (exc[k] != 0)
			return 1;
	return 0;
}

/* Every item moves to the frame above it; those that reach the top or a
 * frame outside every function leave. Items are ancestors' frames in
 * pre-order, so of two frames above cur the lower has the larger index:
 * cur's function recurs iff the lowest already-seen frame above is up. */
static size_t bu_climb(cwalk *w, const uint32_t *same, bitem *it, size_t n)
{
	size_t m = 0;
	for (size_t j = 0; j < n; j++) {
		uint32_t up = w->ci[it[j].cur].up;
		if (up == PROFDB_NONE || w->ci[up].fnode == PROFDB_NONE)
			continue;
		bitem x = it[j];
		x.cur = up;
		x.fid = w->ci[up].fnode;
		x.rec = x.seen == up;
		if (same[up] != PROFDB_NONE && (x.seen == PROFDB_NONE || same[up] > x.seen))
			x.seen = same[up];
		it[m++] = x;
	}
	return m;
}

static int bottom_up(cwalk *w)
{
	tbuild *b = w->b;
	profdb_tree *t = b->t, ft;
	memset(&ft, 0, sizeof ft);
	ft.nm = t->nm;
	ft.limit = t->limit;
	b->t = &ft;
	int r = flat(w);
	b->t = t;
	bitem *it = NULL;
	uint32_t *root_of = NULL, *same = NULL;
	profdb__tree_reserve(t, w->n + w->n / 8 + 64);   /* a guess, as flat() */
	if (r == 0 && (r = synthetic_root(w)) == 0) {
		memcpy(profdb__texc(t, 0), profdb__texc(&ft, 0), t->nm * sizeof(double));
		it = malloc(w->n * sizeof *it + 1);
		root_of = malloc(ft.n * sizeof *root_of + 1);
		same = malloc(w->n * sizeof *same + 1);
		if (!it || !root_of || !same)
			r = profdb__fail(-ENOMEM, "tree: out of memory");
	}
	if (r == 0)
		r = same_above(w, ft.n, same);
	for (uint32_t x = 0; r == 0 && x < ft.n; x++) {
		root_of[x] = PROFDB_NONE;
		if (ft.nodes[x].type == PROFDB_NODE_FUNCTION && (r = bu_node(w, &ft, 0, x, &root_of[x])) == 0)
			memcpy(profdb__tinc(t, root_of[x]), profdb__tinc(&ft, x), 2 * t->nm * sizeof(double));
	}
	/* Only the functions with a self cost show their callers: a chain of n
	 * frames with cost at its end then has 2n nodes, not n(n+1)/2. */
	size_t n = 0;
	for (size_t i = 0; r == 0 && i < w->n; i++) {
		uint32_t fn = w->ci[i].fnode;
		if (w->ci[i].is_frame && fn != PROFDB_NONE && has_self(&ft, fn))
			it[n++] = (bitem){root_of[fn], fn, (uint32_t)i, (uint32_t)i, same[i], 0};
	}
	/* One level of callers at a time. */
	while (r == 0 && n) {
		size_t m = bu_climb(w, same, it, n);
		if (m > 1)   /* qsort(NULL, 0, ...) is undefined */
			qsort(it, m, sizeof *it, cmp_bitem);
		n = 0;
		for (size_t a = 0, e; r == 0 && a < m; a = e) {
			for (e = a + 1; e < m && it[e].node == it[a].node && it[e].fid == it[a].fid; e++)
				;
			if ((r = bu_group(w, &ft, it, a, e)) == 0 && !it[a].rec)
				for (size_t j = a; j < e; j++)
					it[n++] = it[j];
		}
	}
	free(it);
	free(root_of);
	free(same);
	profdb__tree_release(&ft);
	return r;
}

int profdb__tree_build_ctx(tbuild *b)
{
	cwalk w;
	memset(&w, 0, sizeof w);
	w.b = b;
	int r = collect(&w);
	if (r == 0)
		r = values(&w);
	if (r == 0)
		r = b->kind == PROFDB_TREE_TOP_DOWN ? top_down(&w)
		  : b->kind == PROFDB_TREE_FLAT ? flat(&w) : bottom_up(&w);
	cwalk_free(&w);
	return r;
}
