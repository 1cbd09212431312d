/* meta.db Context Tree: decoding of context records, the lazily built id
 * index (which is also the one full validation pass over the tree), child
 * iteration and the depth-first walk.
 *
 * The tree is rooted at the implicit global context (id 0). Below it come
 * the entry points (final layout) or the root contexts (dev-stage). Records
 * are variable-sized and only reachable through their parent's children
 * array, so the index records each node's offset and parent. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctk4-internal.h"

static const profdb__input *meta(const profdb_hpctk *db)
{
	return &db->in[PROFDB_HPCTK_META];
}

static uint64_t ctx_fixed_size(const profdb_hpctk *db)
{
	return db->layout == PROFDB_HPCTK_DEVSTAGE ? HL_CTX_DEV : HL_CTX;
}

/* Decode the record at pos. kind is NODE_ENTRY or NODE_CTX. Fills the
 * children range and the record size. Every field is validated. */
static int decode(const profdb_hpctk *db, uint64_t pos, uint32_t kind, profdb_hpctk_context *c,
                  uint64_t *child_off, uint64_t *child_size, uint64_t *rec_size)
{
	const profdb__input *in = meta(db);
	uint64_t lo = db->context.off, hi = db->context.off + db->context.size;
	const unsigned char *p;
	int r;

	memset(c, 0, sizeof *c);
	c->function = c->file = c->module = PROFDB_NONE;
	c->entry_name = profdb__hpctk_str(NULL);
	c->pos = pos;
	if (kind == NODE_ENTRY) {
		if ((r = profdb__span(in, lo, hi, pos, db->sz_entry, "entry point", &p)) < 0)
			return r;
		*child_size = hl_entry_children_size(p);
		*child_off = hl_entry_children(p);
		c->id = hl_entry_id(p);
		c->entry_point = hl_entry_kind(p);
		c->relation = PROFDB_REL_ENTRY;
		c->lexical_type = PROFDB_LEX_ENTRY;
		*rec_size = db->sz_entry;
		uint64_t name = hl_entry_name(p);
		const char *s;
		if (name && (r = profdb__string(in, db->strings.off, db->strings.off + db->strings.size,
		                                name, "entry point name", &s)) < 0)
			return r;
		if (name)
			c->entry_name = profdb__hpctk_str(s);
		return 0;
	}
	uint64_t fixed = ctx_fixed_size(db);
	if ((r = profdb__span(in, lo, hi, pos, fixed, "context", &p)) < 0)
		return r;
	*child_size = hl_ctx_children_size(p);
	*child_off = hl_ctx_children(p);
	c->id = hl_ctx_id(p);
	uint8_t flags = hl_ctx_flags(p);
	c->relation = hl_ctx_relation(p);
	c->lexical_type = hl_ctx_lexical_type(p);
	unsigned nflex = hl_ctx_n_flex(p);
	if (db->layout == PROFDB_HPCTK_FINAL)
		c->propagation = hl_ctx_propagation(p);
	*rec_size = fixed + HL_FLEX * (uint64_t)nflex;
	unsigned need = (flags & 1) + (flags & 2 ? 2 : 0) + (flags & 4 ? 2 : 0);
	if (nflex < need)
		return profdb__fail(-EBADMSG,
		                    "%s: context %" PRIu32 " at 0x%" PRIx64 " has flags 0x%x but "
		                    "only %u flex words", in->name, c->id, pos, flags, nflex);
	const unsigned char *flex;
	if ((r = profdb__span(in, lo, hi, pos, *rec_size, "context", &flex)) < 0)
		return r;
	flex += fixed;
	if (flags & 1) {
		if ((r = profdb__hpctk_function_index(db, profdb__le64(flex), &c->function)) < 0)
			return r;
		flex += HL_FLEX;
	}
	if (flags & 2) {
		if ((r = profdb__hpctk_file_index(db, profdb__le64(flex), &c->file)) < 0)
			return r;
		c->line = profdb__le32(flex + 8);
		flex += 2 * HL_FLEX;
	}
	if (flags & 4) {
		if ((r = profdb__hpctk_module_index(db, profdb__le64(flex), &c->module)) < 0)
			return r;
		c->offset = profdb__le64(flex + 8);
	}
	return 0;
}

static void root_context(profdb_hpctk_context *c)
{
	memset(c, 0, sizeof *c);
	c->entry_name = profdb__hpctk_str(NULL);
	c->function = c->file = c->module = PROFDB_NONE;
	c->relation = PROFDB_REL_NONE;
	c->lexical_type = PROFDB_LEX_ROOT;
}

/* The empty value of an output context (end of an iteration). */
static void clear_context(profdb_hpctk_context *c)
{
	memset(c, 0, sizeof *c);
	c->entry_name = profdb__hpctk_str(NULL);
}

/* A children range: the state behind profdb_hpctk_children and each level
 * of a walk's stack. */
typedef struct hk_range {
	const profdb_hpctk *db;
	uint64_t next, end;   /* byte range of the records still to visit */
	uint32_t kind;        /* NODE_CTX or NODE_ENTRY */
} hk_range;

/* The children of a node, as a byte range, a record kind and (for entry
 * points) a fixed stride. */
static void top_range(const profdb_hpctk *db, hk_range *it)
{
	if (db->layout == PROFDB_HPCTK_DEVSTAGE) {
		it->next = db->p_entries;
		it->end = db->p_entries + db->sz_entries;
		it->kind = NODE_CTX;
	} else {
		it->next = db->p_entries;
		it->end = db->p_entries + (uint64_t)db->n_entries * db->sz_entry;
		it->kind = NODE_ENTRY;
	}
	if (db->context.size == 0)
		it->next = it->end = 0;
}

static int range_of(const profdb_hpctk *db, const profdb_hpctk_context *c, uint64_t off,
                    uint64_t size, hk_range *it)
{
	it->db = db;
	it->kind = NODE_CTX;
	it->next = it->end = 0;
	if (size == 0)
		return 0;
	int r = profdb__span(meta(db), db->context.off, db->context.off + db->context.size, off,
	                     size, "children array", NULL);
	if (r < 0)
		return profdb__fail(r, "%s (of context %" PRIu32 " at 0x%" PRIx64 ")",
		                    profdb__message(), c->id, c->pos);
	it->next = off;
	it->end = off + size;
	return 0;
}

/* Next record of a children range (no tree validation needed: used by the
 * validation pass itself). */
static int next_raw(hk_range *it, profdb_hpctk_context *out, uint64_t *coff,
                    uint64_t *csize)
{
	uint64_t rec;
	if (it->next >= it->end)
		return 0;
	int r = decode(it->db, it->next, it->kind, out, coff, csize, &rec);
	if (r < 0)
		return r;
	if (rec > it->end - it->next)
		return profdb__fail(-EBADMSG,
		                    "%s: context %" PRIu32 " at 0x%" PRIx64 " (%" PRIu64 " bytes) "
		                    "overruns its sibling array ending at 0x%" PRIx64,
		                    meta(it->db)->name, out->id, it->next, rec, it->end);
	it->next += rec;
	return 1;
}

static int cmp_node(const void *a, const void *b)
{
	uint32_t x = ((const hpctk_node *)a)->id, y = ((const hpctk_node *)b)->id;
	return x < y ? -1 : x > y;
}

/* One pass over the whole tree: decode every record (so later decodes
 * cannot fail), bound the work by the section size (a cycle cannot loop
 * forever), then reject duplicate ids (which is what a cycle or a shared
 * children array produces). */
typedef struct builder {
	hpctk_node *nodes;
	size_t n, cap;
	hk_range *stack;
	uint32_t *parents;
	size_t depth, stack_cap, parents_cap;
} builder;

/* Push the children range of @p c (parent id c->id) on the stack. */
static int push(const profdb_hpctk *db, builder *b, const profdb_hpctk_context *c,
                uint64_t coff, uint64_t csize)
{
	int r;
	if ((r = profdb__grow((void **)&b->stack, &b->stack_cap, b->depth + 1, sizeof *b->stack)) < 0 ||
	    (r = profdb__grow((void **)&b->parents, &b->parents_cap, b->depth + 1,
	                      sizeof *b->parents)) < 0)
		return r;
	if ((r = range_of(db, c, coff, csize, &b->stack[b->depth])) < 0)
		return r;
	b->parents[b->depth++] = c->id;
	return 0;
}

static int visit_all(profdb_hpctk *db, builder *b)
{
	const profdb__input *in = meta(db);
	/* Every record takes at least HL_CTX_DEV bytes of the section. */
	uint64_t max_nodes = db->context.size / HL_CTX_DEV + 1;
	profdb_hpctk_context root;
	int r;
	root_context(&root);
	if ((r = profdb__grow((void **)&b->nodes, &b->cap, 1, sizeof *b->nodes)) < 0 ||
	    (r = push(db, b, &root, 0, 0)) < 0)
		return r;
	b->nodes[b->n++] = (hpctk_node){0, PROFDB_NONE, 0, NODE_ROOT};
	top_range(db, &b->stack[0]);
	while (b->depth > 0) {
		profdb_hpctk_context c;
		uint64_t coff, csize;
		hk_range *top = &b->stack[b->depth - 1];
		uint64_t pos = top->next;
		uint32_t kind = top->kind;
		if ((r = next_raw(top, &c, &coff, &csize)) < 0)
			return r;
		if (r == 0) {
			b->depth--;
			continue;
		}
		if (b->n >= max_nodes)
			return profdb__fail(-EBADMSG,
			                    "%s: context tree at 0x%" PRIx64 " has more nodes than its "
			                    "section can hold: a children array points back into the "
			                    "tree (cycle) near context %" PRIu32 " at 0x%" PRIx64,
			                    in->name, db->context.off, c.id, pos);
		if ((r = profdb__grow((void **)&b->nodes, &b->cap, b->n + 1, sizeof *b->nodes)) < 0)
			return r;
		b->nodes[b->n++] = (hpctk_node){c.id, b->parents[b->depth - 1], pos, kind};
		if (csize > 0 && (r = push(db, b, &c, coff, csize)) < 0)
			return r;
	}
	return 0;
}

static int build(void *arg)
{
	profdb_hpctk *db = arg;
	builder b = {0};
	int r = visit_all(db, &b);
	if (r == 0) {
		qsort(b.nodes, b.n, sizeof *b.nodes, cmp_node);
		for (size_t i = 1; i < b.n && r == 0; i++)
			if (b.nodes[i].id == b.nodes[i - 1].id)
				r = profdb__fail(-EBADMSG,
				                 "%s: context id %" PRIu32 " appears twice in the tree (at 0x%"
				                 PRIx64 " and 0x%" PRIx64 "): duplicate id or cycle",
				                 meta(db)->name, b.nodes[i].id, b.nodes[i - 1].pos,
				                 b.nodes[i].pos);
	}
	if (r == 0) {
		db->nodes = b.nodes;
		db->n_nodes = b.n;
		b.nodes = NULL;
	}
	free(b.nodes);
	free(b.stack);
	free(b.parents);
	return r;
}

static int ensure(const profdb_hpctk *db)
{
	return profdb__hpctk_meta_once(db, db ? &db->tree_once : NULL, build);
}

static const hpctk_node *find(const profdb_hpctk *db, uint32_t id)
{
	profdb_view v = profdb__hpctk_u32_table(db->nodes, db->n_nodes, sizeof *db->nodes);
	uint64_t i;
	return profdb_view_find(&v, id, &i) == 1 ? &db->nodes[i] : NULL;
}

static int node_context(const profdb_hpctk *db, const hpctk_node *n, profdb_hpctk_context *out)
{
	uint64_t coff, csize, rec;
	if (n->kind == NODE_ROOT) {
		root_context(out);
		return 0;
	}
	return decode(db, n->pos, n->kind, out, &coff, &csize, &rec);
}

PROFDB_EXPORT int64_t profdb_hpctk_context_count(const profdb_hpctk *db)
{
	int r = ensure(db);
	return r < 0 ? r : (int64_t)db->n_nodes - 1;
}

PROFDB_EXPORT int profdb_hpctk_root(const profdb_hpctk *db, profdb_hpctk_context *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_root: NULL output");
	root_context(out);
	return 0;
}

/* The node of context @p id, after the tree is built and the output
 * @p out of the accessor @p fn is checked. */
static int node_of(const profdb_hpctk *db, uint32_t id, const void *out, const char *fn,
                   const hpctk_node **n)
{
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "%s: NULL output", fn);
	if (!(*n = find(db, id)))
		return profdb__fail(-ENOENT, "context id %" PRIu32 " is not a node of the tree", id);
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_context_get(const profdb_hpctk *db, uint32_t id,
                                           profdb_hpctk_context *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const hpctk_node *n = NULL;
	int r = node_of(db, id, out, "profdb_hpctk_context_get", &n);
	return r < 0 ? r : node_context(db, n, out);
}

PROFDB_EXPORT int profdb_hpctk_context_parent(const profdb_hpctk *db, uint32_t id,
                                              uint32_t *parent)
{
	const hpctk_node *n = NULL;
	int r = node_of(db, id, parent, "profdb_hpctk_context_parent", &n);
	if (r == 0)
		*parent = n->parent;
	return r;
}

/* The range of the children of @p parent, checked to be one of @p db's nodes. */
static int children_of(const profdb_hpctk *db, const profdb_hpctk_context *parent,
                       hk_range *it)
{
	uint64_t coff, csize, rec;
	profdb_hpctk_context c;
	it->db = db;
	if (parent->lexical_type == PROFDB_LEX_ROOT && parent->pos == 0) {
		top_range(db, it);
		return 0;
	}
	/* Re-decode from the position token so a caller cannot hand us an
	 * arbitrary children range. */
	const hpctk_node *n = find(db, parent->id);
	if (!n || n->pos != parent->pos)
		return profdb__fail(-EINVAL, "context %" PRIu32 " at 0x%" PRIx64
		                    " is not a node of this database", parent->id, parent->pos);
	int r = decode(db, n->pos, n->kind, &c, &coff, &csize, &rec);
	return r < 0 ? r : range_of(db, &c, coff, csize, it);
}

/* The public iterator is private storage that holds an hk_range: callers
 * see no field they could set, and the layout can change behind it. */
_Static_assert(sizeof(hk_range) <= sizeof(profdb_hpctk_children),
               "profdb_hpctk_children is too small for its state");

PROFDB_EXPORT int profdb_hpctk_children_begin(const profdb_hpctk *db,
                                              const profdb_hpctk_context *parent,
                                              profdb_hpctk_children *it)
{
	if (it)
		memset(it, 0, sizeof *it);   /* a failed begin leaves an iterator next refuses */
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!parent || !it)
		return profdb__fail(-EINVAL, "profdb_hpctk_children_begin: NULL argument");
	hk_range range;
	memset(&range, 0, sizeof range);
	if ((r = children_of(db, parent, &range)) < 0)
		return r;
	memcpy(it->state_, &range, sizeof range);
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_children_next(profdb_hpctk_children *it, profdb_hpctk_context *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	uint64_t coff, csize;
	hk_range range;
	memset(&range, 0, sizeof range);
	if (it)
		memcpy(&range, it->state_, sizeof range);
	if (!it || !range.db || !out)
		return profdb__fail(-EINVAL, "profdb_hpctk_children_next: NULL argument, or an "
		                    "iterator profdb_hpctk_children_begin() did not start");
	int r = next_raw(&range, out, &coff, &csize);
	memcpy(it->state_, &range, sizeof range);
	if (r == 0)
		clear_context(out);
	return r;
}

struct profdb_hpctk_walk {
	const profdb_hpctk *db;
	hk_range *stack;
	size_t depth, cap;
	int started;
};

PROFDB_EXPORT int profdb_hpctk_walk_new(profdb_hpctk_walk **ret, const profdb_hpctk *db)
{
	if (ret)
		*ret = NULL;
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_hpctk_walk_new: NULL output");
	int r = ensure(db);
	if (r < 0)
		return r;
	profdb_hpctk_walk *w = calloc(1, sizeof *w);
	if (!w)
		return profdb__fail(-ENOMEM, "out of memory");
	if ((r = profdb__grow((void **)&w->stack, &w->cap, 64, sizeof *w->stack)) < 0) {
		free(w);
		return r;
	}
	w->db = db;
	*ret = w;
	return 0;
}

static int walk_step(profdb_hpctk_walk *w, profdb_hpctk_context *out, uint32_t *depth)
{
	uint64_t coff, csize;
	while (w->depth > 0) {
		int r = next_raw(&w->stack[w->depth - 1], out, &coff, &csize);
		if (r < 0)
			return r;
		if (r == 0) {
			w->depth--;
			continue;
		}
		size_t d = w->depth;
		if (csize > 0) {
			if ((r = profdb__grow((void **)&w->stack, &w->cap, w->depth + 1,
			                      sizeof *w->stack)) < 0 ||
			    (r = range_of(w->db, out, coff, csize, &w->stack[w->depth])) < 0)
				return r;
			w->depth++;
		}
		*depth = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		return 1;
	}
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_walk_next(profdb_hpctk_walk *w, profdb_hpctk_context *out,
                                         uint32_t *depth)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!w || !out || !depth)
		return profdb__fail(-EINVAL, "profdb_hpctk_walk_next: NULL argument");
	if (!w->started) {
		w->started = 1;
		w->stack[0].db = w->db;
		top_range(w->db, &w->stack[0]);
		w->depth = 1;
		root_context(out);
		*depth = 0;
		return 1;
	}
	int r = walk_step(w, out, depth);
	if (r == 0) {
		clear_context(out);
		*depth = 0;
	}
	return r;
}

PROFDB_EXPORT void profdb_hpctk_walk_free(profdb_hpctk_walk *w)
{
	if (!w)
		return;
	free(w->stack);
	free(w);
}
