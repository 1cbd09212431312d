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
	return db->layout == PROFDB_HPCTK_DEVSTAGE ? 0x18 : 0x20;
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
	c->pos = pos;
	if (kind == NODE_ENTRY) {
		if ((r = profdb__span(in, lo, hi, pos, db->sz_entry, "entry point", &p)) < 0)
			return r;
		*child_size = profdb__le64(p);
		*child_off = profdb__le64(p + 8);
		c->id = profdb__le32(p + 0x10);
		c->entry_point = profdb__le16(p + 0x14);
		c->relation = PROFDB_REL_ENTRY;
		c->lexical_type = PROFDB_LEX_ENTRY;
		*rec_size = db->sz_entry;
		uint64_t name = profdb__le64(p + 0x18);
		if (name && (r = profdb__string(in, db->strings.off, db->strings.off + db->strings.size,
		                                name, "entry point name", &c->entry_name)) < 0)
			return r;
		return 0;
	}
	uint64_t fixed = ctx_fixed_size(db);
	if ((r = profdb__span(in, lo, hi, pos, fixed, "context", &p)) < 0)
		return r;
	*child_size = profdb__le64(p);
	*child_off = profdb__le64(p + 8);
	c->id = profdb__le32(p + 0x10);
	uint8_t flags = p[0x14];
	c->relation = p[0x15];
	c->lexical_type = p[0x16];
	unsigned nflex = p[0x17];
	if (db->layout == PROFDB_HPCTK_FINAL)
		c->propagation = profdb__le16(p + 0x18);
	*rec_size = fixed + 8 * (uint64_t)nflex;
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
		flex += 8;
	}
	if (flags & 2) {
		if ((r = profdb__hpctk_file_index(db, profdb__le64(flex), &c->file)) < 0)
			return r;
		c->line = profdb__le32(flex + 8);
		flex += 16;
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
	c->function = c->file = c->module = PROFDB_NONE;
	c->relation = PROFDB_REL_NONE;
	c->lexical_type = PROFDB_LEX_ROOT;
}

/* The children of a node, as a byte range, a record kind and (for entry
 * points) a fixed stride. */
static void top_range(const profdb_hpctk *db, profdb_hpctk_children *it)
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
                    uint64_t size, profdb_hpctk_children *it)
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
static int next_raw(profdb_hpctk_children *it, profdb_hpctk_context *out, uint64_t *coff,
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
static int build(void *arg)
{
	profdb_hpctk *db = arg;
	const profdb__input *in = meta(db);
	/* Every record takes at least 0x18 bytes of the section. */
	uint64_t max_nodes = db->context.size / 0x18 + 1;
	uint64_t cap = 64, n = 0, depth = 0, stack_cap = 64;
	hpctk_node *nodes = malloc(cap * sizeof *nodes);
	profdb_hpctk_children *stack = malloc(stack_cap * sizeof *stack);
	uint32_t *parents = malloc(stack_cap * sizeof *parents);
	int r = 0;

	if (!nodes || !stack || !parents) {
		r = profdb__fail(-ENOMEM, "out of memory");
		goto out;
	}
	nodes[n++] = (hpctk_node){0, PROFDB_NONE, 0, NODE_ROOT};
	stack[0].db = db;
	top_range(db, &stack[0]);
	parents[0] = 0;
	depth = 1;
	while (depth > 0) {
		profdb_hpctk_context c;
		uint64_t coff, csize;
		profdb_hpctk_children *top = &stack[depth - 1];
		uint64_t pos = top->next;
		uint32_t kind = top->kind;
		r = next_raw(top, &c, &coff, &csize);
		if (r < 0)
			goto out;
		if (r == 0) {
			depth--;
			continue;
		}
		if (n >= max_nodes) {
			r = profdb__fail(-EBADMSG,
			                 "%s: context tree at 0x%" PRIx64 " has more nodes than its "
			                 "section can hold: a children array points back into the tree "
			                 "(cycle) near context %" PRIu32 " at 0x%" PRIx64,
			                 in->name, db->context.off, c.id, pos);
			goto out;
		}
		if (n == cap) {
			hpctk_node *g = realloc(nodes, 2 * cap * sizeof *nodes);
			if (!g) {
				r = profdb__fail(-ENOMEM, "out of memory");
				goto out;
			}
			nodes = g;
			cap *= 2;
		}
		nodes[n++] = (hpctk_node){c.id, parents[depth - 1], pos, kind};
		if (csize == 0)
			continue;
		if (depth == stack_cap) {
			profdb_hpctk_children *g = realloc(stack, 2 * stack_cap * sizeof *stack);
			uint32_t *h = g ? realloc(parents, 2 * stack_cap * sizeof *parents) : NULL;
			if (g)
				stack = g;
			if (h)
				parents = h;
			if (!g || !h) {
				r = profdb__fail(-ENOMEM, "out of memory");
				goto out;
			}
			stack_cap *= 2;
		}
		if ((r = range_of(db, &c, coff, csize, &stack[depth])) < 0)
			goto out;
		parents[depth] = c.id;
		depth++;
	}
	qsort(nodes, n, sizeof *nodes, cmp_node);
	for (uint64_t i = 1; i < n; i++)
		if (nodes[i].id == nodes[i - 1].id) {
			r = profdb__fail(-EBADMSG,
			                 "%s: context id %" PRIu32 " appears twice in the tree (at 0x%"
			                 PRIx64 " and 0x%" PRIx64 "): duplicate id or cycle",
			                 in->name, nodes[i].id, nodes[i - 1].pos, nodes[i].pos);
			goto out;
		}
	db->nodes = nodes;
	db->n_nodes = n;
	nodes = NULL;
	r = 0;
out:
	free(nodes);
	free(stack);
	free(parents);
	return r;
}

static int ensure(const profdb_hpctk *db)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_META);
	if (r < 0)
		return r;
	profdb_hpctk *mut = (profdb_hpctk *)db;
	return profdb__once_run(&mut->tree_once, build, mut);
}

static const hpctk_node *find(const profdb_hpctk *db, uint32_t id)
{
	uint64_t lo = 0, hi = db->n_nodes;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (db->nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < db->n_nodes && db->nodes[lo].id == id ? &db->nodes[lo] : NULL;
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
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_root: NULL output");
	root_context(out);
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_context_by_id(const profdb_hpctk *db, uint32_t id,
                                             profdb_hpctk_context *out)
{
	int r = ensure(db);
	if (r < 0)
		return r;
	const hpctk_node *n = find(db, id);
	if (!n)
		return profdb__fail(-ENOENT, "context id %" PRIu32 " is not a node of the tree", id);
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_context_by_id: NULL output");
	return node_context(db, n, out);
}

PROFDB_EXPORT int profdb_hpctk_context_parent(const profdb_hpctk *db, uint32_t id,
                                              uint32_t *parent)
{
	int r = ensure(db);
	if (r < 0)
		return r;
	const hpctk_node *n = find(db, id);
	if (!n)
		return profdb__fail(-ENOENT, "context id %" PRIu32 " is not a node of the tree", id);
	if (parent)
		*parent = n->parent;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_children_begin(const profdb_hpctk *db,
                                              const profdb_hpctk_context *parent,
                                              profdb_hpctk_children *it)
{
	uint64_t coff, csize, rec;
	profdb_hpctk_context c;
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!parent || !it)
		return profdb__fail(-EINVAL, "profdb_hpctk_children_begin: NULL argument");
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
	if ((r = decode(db, n->pos, n->kind, &c, &coff, &csize, &rec)) < 0)
		return r;
	return range_of(db, &c, coff, csize, it);
}

PROFDB_EXPORT int profdb_hpctk_children_next(profdb_hpctk_children *it, profdb_hpctk_context *out)
{
	uint64_t coff, csize;
	profdb_hpctk_context tmp;
	if (!it || !it->db)
		return profdb__fail(-EINVAL, "profdb_hpctk_children_next: NULL iterator");
	return next_raw(it, out ? out : &tmp, &coff, &csize);
}

struct profdb_hpctk_walk {
	const profdb_hpctk *db;
	profdb_hpctk_children *stack;
	uint64_t depth, cap;
	int started;
};

PROFDB_EXPORT int profdb_hpctk_walk_new(const profdb_hpctk *db, profdb_hpctk_walk **ret)
{
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_hpctk_walk_new: NULL output");
	profdb_hpctk_walk *w = calloc(1, sizeof *w);
	if (w)
		w->stack = malloc(64 * sizeof *w->stack);
	if (!w || !w->stack) {
		free(w);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	w->db = db;
	w->cap = 64;
	*ret = w;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_walk_next(profdb_hpctk_walk *w, profdb_hpctk_context *out,
                                         uint32_t *depth)
{
	profdb_hpctk_context c;
	uint64_t coff, csize;
	if (!w)
		return profdb__fail(-EINVAL, "profdb_hpctk_walk_next: NULL walker");
	if (!w->started) {
		w->started = 1;
		w->stack[0].db = w->db;
		top_range(w->db, &w->stack[0]);
		w->depth = 1;
		root_context(&c);
		if (out)
			*out = c;
		if (depth)
			*depth = 0;
		return 1;
	}
	while (w->depth > 0) {
		int r = next_raw(&w->stack[w->depth - 1], &c, &coff, &csize);
		if (r < 0)
			return r;
		if (r == 0) {
			w->depth--;
			continue;
		}
		uint64_t d = w->depth;
		if (csize > 0) {
			if (w->depth == w->cap) {
				profdb_hpctk_children *g =
					realloc(w->stack, 2 * w->cap * sizeof *w->stack);
				if (!g)
					return profdb__fail(-ENOMEM, "out of memory");
				w->stack = g;
				w->cap *= 2;
			}
			if ((r = range_of(w->db, &c, coff, csize, &w->stack[w->depth])) < 0)
				return r;
			w->depth++;
		}
		if (out)
			*out = c;
		if (depth)
			*depth = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		return 1;
	}
	return 0;
}

PROFDB_EXPORT void profdb_hpctk_walk_free(profdb_hpctk_walk *w)
{
	if (!w)
		return;
	free(w->stack);
	free(w);
}
