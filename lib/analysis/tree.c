/* The three views (profdb/analysis.h; doc/model.md "The three views"):
 * options, the per-metric plan (which profiles, which rule), the node store
 * and the final order. The builders are tree-ctx.c (formats that store a
 * calling-context tree) and tree-cg.c (Callgrind). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/table-internal.h"
#include "query/hints-internal.h"
#include "tree-internal.h"

/* ---- the node store --------------------------------------------------------- */

tproto profdb__tree_proto(profdb_node_type type, uint32_t context)
{
	tproto p;
	memset(&p, 0, sizeof p);
	p.type = (uint8_t)type;
	p.context = context;
	p.name = p.file = p.module = profdb__str(NULL);
	return p;
}

tproto profdb__tree_proto_of(const profdb_tree *t, uint32_t id)
{
	const tnode *n = &t->nodes[id];
	tproto p;
	memset(&p, 0, sizeof p);
	p.context = n->context;
	p.type = n->type;
	p.flags = n->flags;
	p.line = n->line;
	p.off = n->off;
	p.name = profdb__tstr(t, n->name);
	p.file = profdb__tstr(t, n->file);
	p.module = profdb__tstr(t, n->module);
	return p;
}

void profdb__tree_release(profdb_tree *t)
{
	free(t->nodes);
	free(t->val);
	free(t->slots);
	free(t->strs);
	free(t->str_slots);
}

static uint64_t str_slot_hash(profdb_str s)
{
	return profdb__mix64((uint64_t)(uintptr_t)s.ptr ^ profdb__mix64(s.len));
}

static int str_rehash(profdb_tree *t)
{
	size_t ns = t->n_str_slots ? 2 * t->n_str_slots : 256;
	uint32_t *sl = calloc(ns, sizeof *sl);
	if (!sl)
		return profdb__fail(-ENOMEM, "tree: out of memory (string index of %zu slots)", ns);
	for (size_t i = 0; i < t->n_strs; i++) {
		size_t k = str_slot_hash(t->strs[i]) & (ns - 1);
		while (sl[k])
			k = (k + 1) & (ns - 1);
		sl[k] = (uint32_t)i + 1;
	}
	free(t->str_slots);
	t->str_slots = sl;
	t->n_str_slots = ns;
	return 0;
}

/* The id of string @p s in the table: each distinct view (pointer and
 * length: the readers' strings live as long as the database) once.
 * @p recent: the id this field had last (consecutive nodes mostly share
 * their file and module), tried before the index. */
static int intern(profdb_tree *t, profdb_str s, uint32_t *recent, uint32_t *id)
{
	int r;
	if (*recent < t->n_strs && t->strs[*recent].ptr == s.ptr && t->strs[*recent].len == s.len) {
		*id = *recent;
		return 0;
	}
	if (2 * (t->n_strs + 1) > t->n_str_slots && (r = str_rehash(t)) < 0)
		return r;
	size_t k = str_slot_hash(s) & (t->n_str_slots - 1);
	for (; t->str_slots[k]; k = (k + 1) & (t->n_str_slots - 1)) {
		const profdb_str *x = &t->strs[t->str_slots[k] - 1];
		if (x->ptr == s.ptr && x->len == s.len) {
			*id = *recent = t->str_slots[k] - 1;
			return 0;
		}
	}
	if (t->n_strs == t->cap_strs) {
		size_t nc = t->cap_strs ? 2 * t->cap_strs : 64;
		/* the table and its index (at most half full) within max_memory */
		if (nc >= UINT32_MAX || (uint64_t)nc * (sizeof(profdb_str) + 4 * sizeof(uint32_t)) >
		                        t->limit)
			return profdb__fail(-EFBIG, "tree: %zu distinct strings would exceed "
			                    "profdb_options.max_memory (%" PRIu64 " bytes)", nc, t->limit);
		profdb_str *ns = realloc(t->strs, nc * sizeof *ns);
		if (!ns)
			return profdb__fail(-ENOMEM, "tree: out of memory (%zu strings)", nc);
		t->strs = ns;
		t->cap_strs = nc;
	}
	t->strs[t->n_strs] = s;
	*id = *recent = (uint32_t)t->n_strs++;
	t->str_slots[k] = *id + 1;
	return 0;
}

static uint64_t node_bytes(size_t nm)
{
	return sizeof(tnode) + 2 * nm * sizeof(double) + 2 * sizeof(tslot);
}

/* Room for @p nc nodes (nc >= t->n); @p full: the builder will make
 * about that many (profdb__realloc_huge). */
static int resize(profdb_tree *t, size_t nc, int full)
{
	void *(*to)(void *, size_t, size_t) = full ? profdb__realloc_huge : profdb__realloc_big;
	tnode *nn = to(t->nodes, t->n * sizeof *nn, nc * sizeof *nn);
	if (!nn)
		return profdb__fail(-ENOMEM, "tree: out of memory (%zu nodes)", nc);
	t->nodes = nn;
	double *nv = to(t->val, t->n * 2 * t->nm * sizeof *nv, nc * 2 * t->nm * sizeof *nv);
	if (!nv)
		return profdb__fail(-ENOMEM, "tree: out of memory (%zu nodes)", nc);
	t->val = nv;
	t->cap = nc;
	return 0;
}

void profdb__tree_reserve(profdb_tree *t, size_t n)
{
	if (n > t->cap && n < UINT32_MAX && (uint64_t)n * node_bytes(t->nm) <= t->limit)
		(void)resize(t, n, 1);   /* advisory: profdb__tree_add reports what fails */
}

int profdb__tree_intern(profdb_tree *t, profdb_str s, int field, uint32_t *id)
{
	return intern(t, s, &t->recent[field], id);
}

int profdb__tree_add(profdb_tree *t, uint32_t parent, const tproto *proto, uint32_t *id)
{
	uint32_t str[3];
	int r;
	if ((r = intern(t, proto->name, &t->recent[0], &str[0])) < 0 ||
	    (r = intern(t, proto->file, &t->recent[1], &str[1])) < 0 ||
	    (r = intern(t, proto->module, &t->recent[2], &str[2])) < 0)
		return r;
	return profdb__tree_add_ids(t, parent, proto, str, id);
}

int profdb__tree_add_ids(profdb_tree *t, uint32_t parent, const tproto *proto,
                         const uint32_t str[3], uint32_t *id)
{
	int r;
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 256;
		if (nc >= UINT32_MAX || (uint64_t)nc * node_bytes(t->nm) > t->limit) {
			if (t->n + 1 >= UINT32_MAX || (uint64_t)(t->n + 1) * node_bytes(t->nm) > t->limit)
				return profdb__fail(-EFBIG, "tree: more than %zu nodes would exceed "
				                    "profdb_options.max_memory (%" PRIu64 " bytes)", t->n,
				                    t->limit);
			nc = t->n + 1 + t->n / 8;
			if ((uint64_t)nc * node_bytes(t->nm) > t->limit)
				nc = (size_t)(t->limit / node_bytes(t->nm));
		}
		if ((r = resize(t, nc, 0)) < 0)
			return r;
	}
	uint32_t i = (uint32_t)t->n++;
	tnode *n = &t->nodes[i];
	memset(n, 0, sizeof *n);
	n->context = proto->context;
	n->type = proto->type;
	n->flags = proto->flags;
	n->line = proto->line;
	n->off = proto->off;
	n->name = str[0];
	n->file = str[1];
	n->module = str[2];
	n->parent = parent;
	n->first_child = n->next_sibling = n->last_child = PROFDB_NONE;
	n->depth = parent == PROFDB_NONE ? 0 : t->nodes[parent].depth + 1;
	if (parent != PROFDB_NONE) {
		tnode *p = &t->nodes[parent];
		if (p->last_child == PROFDB_NONE)
			p->first_child = i;
		else
			t->nodes[p->last_child].next_sibling = i;
		p->last_child = i;
	}
	memset(profdb__tinc(t, i), 0, 2 * t->nm * sizeof(double));
	*id = i;
	return 0;
}

static int str_eq(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static uint64_t str_hash(uint64_t h, profdb_str s)
{
	for (size_t i = 0; i < s.len; i++)
		h = (h ^ (unsigned char)s.ptr[i]) * 0x100000001b3ull;
	return profdb__mix64(h ^ s.len);
}

static uint64_t key_hash(uint32_t parent, const tproto *p)
{
	uint64_t h = profdb__mix64(((uint64_t)parent << 8) ^ p->type);
	h = str_hash(h, p->name);
	h = str_hash(h, p->file);
	h = str_hash(h, p->module);
	return profdb__mix64(h ^ p->line ^ profdb__mix64(p->off));
}

/* Does stored node @p a have the identity of @p b? */
static int same_key(const profdb_tree *t, const tnode *a, const tproto *b)
{
	return a->type == b->type && a->line == b->line && a->off == b->off &&
	       str_eq(profdb__tstr(t, a->name), b->name) && str_eq(profdb__tstr(t, a->file), b->file) &&
	       str_eq(profdb__tstr(t, a->module), b->module);
}

static int rehash(profdb_tree *t)
{
	size_t ns = t->n_slots ? 2 * t->n_slots : 1024;
	tslot *s = calloc(ns, sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "tree: out of memory (index of %zu slots)", ns);
	for (size_t j = 0; j < t->n_slots; j++) {
		if (!t->slots[j].node)
			continue;
		size_t k = t->slots[j].hash & (ns - 1);
		while (s[k].node)
			k = (k + 1) & (ns - 1);
		s[k] = t->slots[j];
	}
	free(t->slots);
	t->slots = s;
	t->n_slots = ns;
	return 0;
}

int profdb__tree_child(profdb_tree *t, uint32_t parent, const tproto *proto, uint32_t *id,
                       int *created)
{
	int r;
	*created = 0;
	/* sized by the keyed nodes only: the flat view of a big Callgrind
	 * profile adds millions of line leaves without a key */
	if (2 * (t->n_keyed + 1) > t->n_slots && (r = rehash(t)) < 0)
		return r;
	uint32_t h = (uint32_t)(key_hash(parent, proto) >> 32);
	size_t k = h & (t->n_slots - 1);
	for (; t->slots[k].node; k = (k + 1) & (t->n_slots - 1)) {
		const tnode *n = &t->nodes[t->slots[k].node - 1];
		if (t->slots[k].hash == h && n->parent == parent && same_key(t, n, proto)) {
			*id = t->slots[k].node - 1;
			return 0;
		}
	}
	if ((r = profdb__tree_add(t, parent, proto, id)) < 0)
		return r;
	t->slots[k] = (tslot){*id + 1, h};
	t->n_keyed++;
	*created = 1;
	return 0;
}

double profdb__tree_key(const tbuild *b, uint32_t id)
{
	/* A min or max metric ranks a node by its own value: the minimum of a
	 * subtree says nothing about where the subtree's cost is. */
	const tplan *pl = &b->plan[0];
	int own = !pl->has_inc ||
	          (pl->has_exc && (pl->rule == PROFDB_COMBINE_MIN || pl->rule == PROFDB_COMBINE_MAX));
	double v = own ? profdb__texc(b->t, id)[0] : profdb__tinc(b->t, id)[0];
	return isnan(v) ? -INFINITY : v;
}

/* ---- the cut-off and the final order ----------------------------------------- */

/* Children below @p thr (first metric) of every node become one "<other>"
 * leaf per parent carrying their combined inclusive value. */
static int fold(tbuild *b, double thr)
{
	profdb_tree *t = b->t;
	size_t n0 = t->n;
	for (uint32_t i = 0; i < n0; i++) {
		uint32_t keep_last = PROFDB_NONE, other = PROFDB_NONE;
		for (uint32_t c = t->nodes[i].first_child; c != PROFDB_NONE;) {
			uint32_t next = t->nodes[c].next_sibling;
			if (profdb__tree_key(b, c) >= thr) {
				if (keep_last == PROFDB_NONE)
					t->nodes[i].first_child = c;
				else
					t->nodes[keep_last].next_sibling = c;
				keep_last = c;
			} else {
				int r, first = other == PROFDB_NONE;
				if (first) {
					tproto p = profdb__tree_proto(PROFDB_NODE_OTHER, PROFDB_NONE);
					p.name = profdb__str("<other>");
					if ((r = profdb__tree_add(t, PROFDB_NONE, &p, &other)) < 0)
						return r;
				}
				for (size_t k = 0; k < b->nm; k++) {
					double *o = profdb__tinc(t, other), v = profdb__tinc(t, c)[k];
					o[k] = profdb__tcomb(b->plan[k].rule, o[k], v, first);
					profdb__texc(t, other)[k] = o[k];
				}
			}
			c = next;
		}
		if (keep_last == PROFDB_NONE)
			t->nodes[i].first_child = PROFDB_NONE;
		else
			t->nodes[keep_last].next_sibling = PROFDB_NONE;
		t->nodes[i].last_child = keep_last;
		if (other != PROFDB_NONE) {
			t->nodes[other].parent = i;
			t->nodes[other].depth = t->nodes[i].depth + 1;
			if (keep_last == PROFDB_NONE)
				t->nodes[i].first_child = other;
			else
				t->nodes[keep_last].next_sibling = other;
			t->nodes[i].last_child = other;
		}
	}
	return 0;
}

typedef struct skey {
	double key;
	const tnode *n;
	const profdb_str *strs;   /* the tree's strings */
	uint32_t id;
} skey;

static int cmp_str(profdb_str a, profdb_str b)
{
	size_t m = a.len < b.len ? a.len : b.len;
	int c = m ? memcmp(a.ptr, b.ptr, m) : 0;
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int cmp_skey(const void *pa, const void *pb)
{
	const skey *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->n->context != b->n->context)
		return a->n->context < b->n->context ? -1 : 1;
	int c = cmp_str(a->strs[a->n->name], b->strs[b->n->name]);
	if (!c)
		c = cmp_str(a->strs[a->n->file], b->strs[b->n->file]);
	if (!c)
		c = cmp_str(a->strs[a->n->module], b->strs[b->n->module]);
	if (c)
		return c;
	if (a->n->line != b->n->line)
		return a->n->line < b->n->line ? -1 : 1;
	if (a->n->off != b->n->off)
		return a->n->off < b->n->off ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* A sibling list this long is sorted by its keys with a radix sort first
 * (the bottom-up view's root has a child per function: 80,000 on a big
 * Callgrind profile), then each run of equal keys by cmp_skey. */
#define SORT_RADIX_MIN 256

/* @p key as an unsigned number whose ascending order is the heaviest-first
 * order of cmp_skey's first step (keys are never NaN; -0 == +0). */
static uint64_t descending_bits(double key)
{
	uint64_t u;
	key = key == 0 ? 0 : key;
	memcpy(&u, &key, sizeof u);
	u = u >> 63 ? ~u : u | (UINT64_C(1) << 63);
	return ~u;
}

typedef struct sorter {
	skey *kids, *out;               /* the list, and room for its sorted copy */
	profdb__sort_pair *pairs, *tmp;
	uint32_t *count;                /* PROFDB_RADIX_SIZE */
} sorter;

/* Sort @p nk siblings in s->kids into the order of cmp_skey, a total order
 * (the last step is the node id), so any correct sort gives the same list.
 * @return the sorted list (s->kids or s->out). */
static skey *sort_kids(sorter *s, size_t nk)
{
	if (nk < SORT_RADIX_MIN || !s->pairs) {
		if (nk > 1)   /* qsort(NULL, 0, ...) is undefined */
			qsort(s->kids, nk, sizeof *s->kids, cmp_skey);
		return s->kids;
	}
	for (size_t j = 0; j < nk; j++)
		s->pairs[j] = (profdb__sort_pair){descending_bits(s->kids[j].key), (uint32_t)j};
	profdb__sort_pair *p = s->pairs, *t = s->tmp;
	profdb__radix_pairs(&p, &t, nk, s->count);
	for (size_t j = 0; j < nk; j++)
		s->out[j] = s->kids[p[j].at];
	for (size_t j = 0, e; j < nk; j = e) {   /* ties: the rest of cmp_skey */
		for (e = j + 1; e < nk && p[e].key == p[j].key; e++)
			;
		if (e - j > 1)
			qsort(s->out + j, e - j, sizeof *s->out, cmp_skey);
	}
	return s->out;
}

/* Pre-order of the nodes reachable from 0, children sorted: map[old id] =
 * new id (PROFDB_NONE: not reachable). Every node's children are sorted
 * first, in the order of the ids (children lie near their parent in the
 * store, so this reads the nodes about in memory order), into one array of
 * child lists; the pre-order then walks that array, not the nodes (taking
 * the nodes in pre-order reads them all over the store: a cache and TLB
 * miss per node of the bottom-up view's 82,000 roots). The sort buffers
 * hold one sibling list, so they are sized by the widest node. */
static int preorder(tbuild *b, uint32_t *map, size_t *n_out)
{
	profdb_tree *t = b->t;
	size_t wide = 1, total = 0;
	uint32_t *first = malloc((t->n + 1) * sizeof *first);   /* node i's list: first[i] .. */
	if (!first)
		return profdb__fail(-ENOMEM, "tree: out of memory (%zu nodes)", t->n);
	for (size_t i = 0; i < t->n; i++) {
		size_t nk = 0;
		for (uint32_t c = t->nodes[i].first_child; c != PROFDB_NONE; c = t->nodes[c].next_sibling)
			nk++;
		first[i] = (uint32_t)total;
		total += nk;
		wide = nk > wide ? nk : wide;
	}
	first[t->n] = (uint32_t)total;
	uint32_t *lists, *stack;
	sorter s;
	int radix = wide >= SORT_RADIX_MIN;   /* else qsort alone */
	void **const out[] = {(void **)&lists,  (void **)&stack,  (void **)&s.kids, (void **)&s.out,
	                      (void **)&s.pairs, (void **)&s.tmp, (void **)&s.count};
	const size_t size[] = {total * sizeof *lists, t->n * sizeof *stack, wide * sizeof *s.kids,
	                       radix ? wide * sizeof *s.out : 0,
	                       radix ? wide * sizeof *s.pairs : 0,
	                       radix ? wide * sizeof *s.tmp : 0,
	                       radix ? PROFDB_RADIX_SIZE * sizeof *s.count : 0};
	void *work = profdb__carve(out, size, sizeof size / sizeof *size);
	int r = 0;
	if (!work) {
		r = profdb__fail(-ENOMEM, "tree: out of memory (%zu nodes)", t->n);
		goto out;
	}
	if (!radix)
		s.pairs = NULL;
	for (size_t i = 0; i < t->n; i++) {
		size_t nk = 0;
		for (uint32_t c = t->nodes[i].first_child; c != PROFDB_NONE; c = t->nodes[c].next_sibling)
			s.kids[nk++] = (skey){profdb__tree_key(b, c), &t->nodes[c], t->strs, c};
		const skey *sorted = sort_kids(&s, nk);
		for (size_t j = 0; j < nk; j++)
			lists[first[i] + j] = sorted[j].id;
		map[i] = PROFDB_NONE;
	}
	size_t sp = 0, k = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		map[i] = (uint32_t)k++;
		for (uint32_t j = first[i + 1]; j-- > first[i];)
			stack[sp++] = lists[j];
	}
	*n_out = k;
out:
	free(first);
	free(work);
	return r;
}

static void swap_nodes(profdb_tree *t, uint32_t a, uint32_t b)
{
	tnode x = t->nodes[a];
	t->nodes[a] = t->nodes[b];
	t->nodes[b] = x;
	double *va = profdb__tinc(t, a), *vb = profdb__tinc(t, b);
	for (size_t k = 0; k < 2 * t->nm; k++) {
		double v = va[k];
		va[k] = vb[k];
		vb[k] = v;
	}
}

/* Move every node to its new id map[old] in place (PROFDB_NONE: dropped),
 * so the renumbering needs 8 bytes per node rather than a second copy of
 * the nodes: each swap puts one node at its final place for good, since
 * map is one-to-one. */
static void permute(profdb_tree *t, uint32_t *map)
{
	for (size_t j = 0; j < t->n; j++)
		while (map[j] != PROFDB_NONE && map[j] != j) {
			uint32_t d = map[j];
			swap_nodes(t, (uint32_t)j, d);
			map[j] = map[d];
			map[d] = d;
		}
}

static int finish(tbuild *b)
{
	profdb_tree *t = b->t;
	int r;
	if (b->cutoff > 0) {
		double thr = b->cutoff * fabs(profdb__tree_key(b, 0));
		if ((r = fold(b, thr)) < 0)
			return r;
	}
	free(t->slots);   /* the find-or-create indexes are done with */
	t->slots = NULL;
	t->n_slots = t->n_keyed = 0;
	free(t->str_slots);
	t->str_slots = NULL;
	t->n_str_slots = 0;
	uint32_t *map = malloc(t->n * sizeof *map + 1);
	size_t n = 0;
	if (!map)
		r = profdb__fail(-ENOMEM, "tree: out of memory (%zu nodes)", t->n);
	else
		r = preorder(b, map, &n);
	if (r == 0) {
		/* Parents to new ids first (a reachable node's parent is reachable);
		 * the child links are rebuilt below, in the new order. */
		for (size_t i = 0; i < t->n; i++)
			if (map[i] != PROFDB_NONE && t->nodes[i].parent != PROFDB_NONE)
				t->nodes[i].parent = map[t->nodes[i].parent];
		permute(t, map);
		for (size_t i = 0; i < n; i++) {
			tnode *d = &t->nodes[i];
			d->parent = i == 0 ? PROFDB_NONE : d->parent;
			d->first_child = d->next_sibling = d->last_child = PROFDB_NONE;
			d->depth = d->parent == PROFDB_NONE ? 0 : t->nodes[d->parent].depth + 1;
			if (d->parent != PROFDB_NONE) {
				tnode *p = &t->nodes[d->parent];
				if (p->last_child == PROFDB_NONE)
					p->first_child = (uint32_t)i;
				else
					t->nodes[p->last_child].next_sibling = (uint32_t)i;
				p->last_child = (uint32_t)i;
			}
		}
		t->n = n;
		/* Give back what the builder reserved beyond the view (a failed
		 * shrink keeps the larger block, which is still valid). */
		tnode *nn = realloc(t->nodes, (n ? n : 1) * sizeof *nn);
		double *nv = realloc(t->val, (n ? n : 1) * 2 * t->nm * sizeof *nv);
		if (nn)
			t->nodes = nn;
		if (nv)
			t->val = nv;
		if (nn || nv)
			t->cap = n;
	}
	free(map);
	return r;
}

/* ---- the plan ------------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Does @p p answer for metric @p m (inclusive or exclusive)? 1, 0 (-ENOTSUP), < 0. */
static int probe(const profdb *db, uint32_t p, uint32_t root, uint32_t m, int inclusive)
{
	profdb_number x;
	int r = (inclusive ? profdb_inclusive : profdb_exclusive)(db, p, root, m, &x);
	return r == -ENOTSUP ? 0 : r < 0 ? r : 1;
}

/* The profiles of metric @p k: the options', else the summary profile when
 * it answers for the metric, else every non-summary profile. */
static int plan_profiles(const profdb *db, const profdb_tree_options *o, uint32_t root,
                         int have_root, tplan *pl)
{
	int64_t np = profdb_profile_count(db);
	if (np < 0)
		return (int)np;
	pl->profiles = malloc(((size_t)np + (o->profiles ? o->n_profiles : 0)) * sizeof(uint32_t) + 1);
	if (!pl->profiles)
		return profdb__fail(-ENOMEM, "tree: out of memory");
	int r;
	if (o->profiles) {
		for (size_t i = 0; i < o->n_profiles; i++) {
			if (o->profiles[i] >= (uint64_t)np)
				return profdb__fail(-EINVAL, "profdb_tree_new: no profile %" PRIu32
				                    " (%" PRId64 " profiles)", o->profiles[i], np);
			pl->profiles[i] = o->profiles[i];
		}
		pl->n_profiles = o->n_profiles;
		if (pl->n_profiles > 1)   /* qsort(NULL, 0, ...) is undefined */
			qsort(pl->profiles, pl->n_profiles, sizeof(uint32_t), cmp_u32);
		for (size_t i = 1; i < pl->n_profiles; i++)
			if (pl->profiles[i] == pl->profiles[i - 1])
				return profdb__fail(-EINVAL, "profdb_tree_new: profile %" PRIu32
				                    " given twice", pl->profiles[i]);
		return 0;
	}
	pl->n_profiles = 0;
	for (uint32_t p = 0; p < (uint64_t)np; p++) {
		profdb_profile pr;
		if ((r = profdb_profile_at(db, p, &pr)) < 0)
			return r;
		if (!pr.is_summary) {
			pl->profiles[pl->n_profiles++] = p;
			continue;
		}
		int inc = have_root ? probe(db, p, root, pl->metric, 1) : 1;
		int exc = have_root ? probe(db, p, root, pl->metric, 0) : 1;
		if (inc < 0 || exc < 0)
			return inc < 0 ? inc : exc;
		if (inc || exc) {   /* the format's own statistic: use it alone */
			pl->profiles[0] = p;
			pl->n_profiles = 1;
			return 0;
		}
	}
	return 0;
}

static int make_plan(const profdb *db, const profdb_tree_options *o, tplan *plan)
{
	uint32_t root = 0;
	int r = profdb_context_root(db, &root), have_root = r == 0;
	if (r < 0 && r != -ENOENT)
		return r;
	for (size_t k = 0; k < o->n_metrics; k++) {
		tplan *pl = &plan[k];
		profdb_metric m;
		pl->metric = o->metrics[k];
		if ((r = profdb_metric_get(db, pl->metric, &m)) < 0)
			return r == -ENOENT ? profdb__fail(-EINVAL, "profdb_tree_new: no metric %" PRIu32,
			                                   pl->metric) : r;
		pl->rule = m.combine;
		if ((r = plan_profiles(db, o, root, have_root, pl)) < 0)
			return r;
		if (pl->rule == PROFDB_COMBINE_NONE && pl->n_profiles > 1)
			return profdb__fail(-ENOTSUP, "profdb_tree_new: metric %" PRIu32 " (%.*s) does "
			                    "not combine over %zu profiles", pl->metric, (int)m.name.len,
			                    m.name.ptr, pl->n_profiles);
		pl->has_inc = pl->has_exc = 1;
		if (have_root && pl->n_profiles) {
			if ((r = probe(db, pl->profiles[0], root, pl->metric, 1)) < 0)
				return r;
			pl->has_inc = r;
			if ((r = probe(db, pl->profiles[0], root, pl->metric, 0)) < 0)
				return r;
			pl->has_exc = r;
		}
		if (!pl->has_inc && !pl->has_exc)
			return profdb__fail(-ENOTSUP, "profdb_tree_new: metric %" PRIu32 " (%.*s) has "
			                    "neither inclusive nor exclusive values", pl->metric,
			                    (int)m.name.len, m.name.ptr);
	}
	return 0;
}

/* ---- the API -------------------------------------------------------------------- */

int profdb_tree_new(profdb_tree **ret, const profdb *db, const profdb_tree_options *in)
{
	if (ret)
		*ret = NULL;
	if (!ret || !db || !in)
		return profdb__fail(-EINVAL, "profdb_tree_new: NULL argument");
	/* A caller built against an older header passes a smaller struct: the
	 * fields it lacks keep their defaults, as for every options struct. */
	profdb_tree_options opt = PROFDB_TREE_OPTIONS_INIT;
	const profdb_tree_options *o = &opt;
	int r = profdb__options_take(&opt, sizeof opt, in, "profdb_tree_new",
	                             "PROFDB_TREE_OPTIONS_INIT");
	if (r < 0)
		return r;
	if (!o->metrics || o->n_metrics == 0 || o->n_metrics > 4096 ||
	    (o->profiles == NULL && o->n_profiles) || (o->profiles && o->n_profiles == 0) ||
	    (unsigned)o->kind > PROFDB_TREE_FLAT || !(o->cutoff >= 0 && o->cutoff < 1))
		return profdb__fail(-EINVAL, "profdb_tree_new: bad options (metrics, profiles, "
		                    "kind or cutoff)");
	profdb_tree *t = calloc(1, sizeof *t);
	tplan *plan = calloc(o->n_metrics, sizeof *plan);
	if (!t || !plan) {
		free(t);
		free(plan);
		return profdb__fail(-ENOMEM, "tree: out of memory");
	}
	t->nm = o->n_metrics;
	t->limit = db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	tbuild b = {db, t, plan, o->n_metrics, o->kind, o->cutoff};
	r = make_plan(db, o, plan);
	if (r == 0)
		r = profdb__call_graph(db) ? profdb__tree_build_cg(&b) : profdb__tree_build_ctx(&b);
	if (r == 0 && t->n == 0) {
		tproto p = profdb__tree_proto(PROFDB_NODE_ROOT, PROFDB_NONE);
		uint32_t id;
		r = profdb__tree_add(t, PROFDB_NONE, &p, &id);
	}
	if (r == 0)
		r = finish(&b);
	for (size_t k = 0; k < o->n_metrics; k++)
		free(plan[k].profiles);
	free(plan);
	if (r < 0) {
		profdb_tree_free(t);
		return r;
	}
	*ret = t;
	return 0;
}

int64_t profdb_tree_count(const profdb_tree *t)
{
	if (!t)
		return profdb__fail(-EINVAL, "profdb_tree_count: NULL tree");
	return (int64_t)t->n;
}

int profdb_tree_get(const profdb_tree *t, uint32_t id, profdb_node *o)
{
	if (!t || !o)
		return profdb__fail(-EINVAL, "profdb_tree_get: NULL argument");
	if (id >= t->n)
		return profdb__fail(-ENOENT, "profdb_tree_get: no node %" PRIu32 " (%zu nodes)", id,
		                    t->n);
	const tnode *n = &t->nodes[id];
	memset(o, 0, sizeof *o);
	o->id = id;
	o->parent = n->parent;
	o->first_child = n->first_child;
	o->next_sibling = n->next_sibling;
	o->depth = n->depth;
	o->type = (profdb_node_type)n->type;
	o->flags = n->flags;
	o->context = n->context;
	o->name = profdb__tstr(t, n->name);
	o->file = profdb__tstr(t, n->file);
	o->line = n->line;
	o->module = profdb__tstr(t, n->module);
	return 0;
}

int profdb_tree_values(const profdb_tree *t, uint32_t id, size_t k, double *i, double *e)
{
	if (!t)
		return profdb__fail(-EINVAL, "profdb_tree_values: NULL tree");
	if (id >= t->n || k >= t->nm)
		return profdb__fail(-ENOENT, "profdb_tree_values: no node %" PRIu32 " or metric "
		                    "number %zu (%zu nodes, %zu metrics)", id, k, t->n, t->nm);
	const double *v = t->val + (size_t)id * 2 * t->nm;
	if (i)
		*i = v[k];
	if (e)
		*e = v[t->nm + k];
	return 0;
}

void profdb_tree_free(profdb_tree *t)
{
	if (!t)
		return;
	profdb__tree_release(t);
	free(t);
}
