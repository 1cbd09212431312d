/* The hpcrun backend: the profiles' metric tables and CCTs merged into one
 * metric list and one context tree (see query.c for the model). Keys are
 * interned through profdb__hindex; a key met twice in one profile takes
 * the next entry of its chain, so a merged entry stands for at most one
 * entry of each profile. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"
#include "../core/table-internal.h"

/* ---- hashing: profdb__hindex over entry numbers ------------------------------ */

/* The indices start small and double when half full: sized for the upper
 * bound (every profile node) they would be mostly empty when the trees
 * overlap, and every probe would miss the cache. */
static uint64_t hash_str(profdb_str s, uint64_t seed)
{
	return profdb__hash_bytes(s.ptr, s.len, seed);
}

/* Slots an index holding @p n entries ends with, for the memory estimate. */
static uint64_t index_slots(uint64_t n)
{
	uint64_t cap = 16;
	while (cap / 2 < n)
		cap <<= 1;
	return cap;
}

/* Occurrences: the first entry of a key sits in the hash table; when one
 * profile meets the key again it takes the next entry of the key's chain
 * (created on demand). claim/last are only meaningful on first entries. */
typedef struct hq_chain {
	uint32_t *next;               /* next occurrence of the same key, NONE */
	uint32_t *claim;              /* last profile that took the first entry */
	uint32_t *last;               /* entry that profile took last for the key */
} hq_chain;

static int chain_init(hq_chain *c, uint64_t n)
{
	size_t k = (size_t)(n ? n : 1);
	c->next = malloc(k * sizeof *c->next);
	c->claim = malloc(k * sizeof *c->claim);
	c->last = malloc(k * sizeof *c->last);
	return c->next && c->claim && c->last ? 0 : profdb__fail(-ENOMEM, "out of memory");
}

static void chain_free(hq_chain *c)
{
	free(c->next);
	free(c->claim);
	free(c->last);
}

/* The entry profile @p p uses for the key whose table slot is @p slot.
 * @p create makes a new entry (it cannot fail: storage is preallocated). */
static uint32_t chain_take(hq_chain *c, uint32_t *slot, uint32_t p,
                           uint32_t (*create)(void *), void *arg)
{
	uint32_t e;
	if (!*slot) {
		e = create(arg);
		*slot = e + 1;
	} else {
		uint32_t first = *slot - 1;
		if (c->claim[first] != p) {
			c->claim[first] = p;
			c->last[first] = first;
			return first;
		}
		e = c->next[c->last[first]];
		if (e == NONE) {
			e = create(arg);
			c->next[c->last[first]] = e;
		}
		c->last[first] = e;
		return e;
	}
	c->claim[e] = p;
	c->last[e] = e;
	return e;
}

/* ---- metrics (merged at open) ------------------------------------------------------- */

typedef struct metric_key {
	profdb_str name;
	int is_real;
} metric_key;

typedef struct metric_new {
	hq *q;
	hq_chain *chain;
	const profdb_hpcrun_metric *m;
} metric_new;

static uint64_t metric_hash(profdb_str name, int is_real)
{
	return hash_str(name, (uint64_t)is_real);
}

static uint64_t metric_hash_of(const void *ctx, uint32_t e)
{
	const hq_metric *m = &((const hq *)ctx)->metrics[e];
	return metric_hash(m->name, m->is_real);
}

static int metric_eq(const void *ctx, uint32_t e, const void *key)
{
	const hq_metric *m = &((const hq *)ctx)->metrics[e];
	const metric_key *k = key;
	return m->is_real == k->is_real && profdb__hq_str_eq(m->name, k->name);
}

static uint32_t metric_create(void *arg)
{
	metric_new *a = arg;
	uint32_t id = a->q->n_metrics++;
	hq_metric *m = &a->q->metrics[id];
	m->name = a->m->name;
	m->description = a->m->description;
	m->is_real = a->m->is_real;
	m->period = a->m->period;
	m->has_formula = a->m->formula.len != 0;
	a->chain->next[id] = a->chain->claim[id] = NONE;
	return id;
}


/* Map profile @p p's metric table onto the merged list. */
static int map_metrics(hq *q, profdb__hindex *t, hq_chain *c, uint32_t p)
{
	hq_profile *pr = &q->prof[p];
	size_t n = pr->n_metrics ? pr->n_metrics : 1;
	pr->metric = malloc(n * sizeof *pr->metric);
	pr->metric_sorted = malloc(n * sizeof *pr->metric_sorted);
	if (!pr->metric || !pr->metric_sorted)
		return profdb__fail(-ENOMEM, "out of memory");
	pr->metric_monotone = 1;
	for (uint32_t i = 0; i < pr->n_metrics; i++) {
		profdb_hpcrun_metric m;
		int r = profdb_hpcrun_metric_at(q->h, p, i, &m);
		if (r < 0)
			return r;
		metric_key k = {m.name, m.is_real};
		uint32_t *slot = profdb__hindex_slot(t, metric_hash(k.name, k.is_real), metric_eq, q, &k);
		metric_new a = {q, c, &m};
		int fresh = !*slot;
		uint32_t id = chain_take(c, slot, p, metric_create, &a);
		if (fresh && (r = profdb__hindex_added(t, metric_hash_of, q)) < 0)
			return r;
		if (q->metrics[id].period != m.period && q->metrics[id].period) {
			/* One factor cannot scale values sampled at two periods. */
			profdb__warn(&q->opts, "hpcrun: metric \"%.*s\" has period %" PRIu64 " in "
			             "profile %" PRIu32 " and %" PRIu64 " before: no common scale",
			             (int)m.name.len, m.name.ptr, m.period, p, q->metrics[id].period);
			q->metrics[id].period = 0;
		}
		pr->metric[i] = id;
		pr->metric_sorted[i] = (uint64_t)id << 32 | i;
		if (i && id < pr->metric[i - 1])
			pr->metric_monotone = 0;
	}
	qsort(pr->metric_sorted, pr->n_metrics, sizeof *pr->metric_sorted,
	      profdb__hpcrun_cmp_u64);
	return 0;
}

int profdb__hq_merge_metrics(hq *q)
{
	uint64_t total = 0;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_hpcrun_profile pr;
		int r = profdb_hpcrun_profile_at(q->h, p, &pr);
		if (r < 0)
			return r;
		q->prof[p].has_file = pr.has_profile;
		q->prof[p].dense = pr.has_profile && pr.major != 4;
		q->prof[p].n_metrics = pr.n_metrics;
		if (pr.n_metrics > q->max_own_metrics)
			q->max_own_metrics = pr.n_metrics;
		total += pr.n_metrics;
	}
	/* Metric descriptors take dozens of bytes each in the files, so the
	 * total is bounded by the input; ids must still fit 32 bits. */
	q->total_own_metrics = total;
	if (total >= NONE)
		return profdb__fail(-EFBIG, "%" PRIu64 " metric descriptors: more than 32-bit ids",
		                    total);
	q->metrics = malloc((size_t)(total ? total : 1) * sizeof *q->metrics);
	profdb__hindex t = {NULL, 0, 0};
	hq_chain c = {NULL, NULL, NULL};
	int r = q->metrics ? 0 : profdb__fail(-ENOMEM, "out of memory");
	if (r == 0)
		r = profdb__hindex_init(&t, 16);
	if (r == 0)
		r = chain_init(&c, total);
	for (uint32_t p = 0; r == 0 && p < q->n_profiles; p++)
		r = map_metrics(q, &t, &c, p);
	profdb__hindex_free(&t);
	chain_free(&c);
	return r;
}

/* ---- the merged context tree (lazy, once) --------------------------------------------- */

typedef struct node_key {
	uint32_t parent, module;
	uint64_t offset;
} node_key;

typedef struct merge {
	hq *q;
	profdb__hindex nodes, modules;
	hq_chain chain;
	uint32_t *last_child;         /* per merged node, for appending in order */
	uint32_t last_root;
	uint32_t *modmap;             /* own load-map index -> hq.modules */
	uint64_t modules_cap;
	const node_key *key;          /* of the node being created */
} merge;

static uint64_t node_hash(const node_key *k)
{
	return profdb__mix64(k->offset ^ profdb__mix64((uint64_t)k->parent << 32 | k->module));
}

static uint64_t node_hash_of(const void *ctx, uint32_t e)
{
	const hq_node *n = &((const hq *)ctx)->nodes[e];
	node_key k = {n->parent, n->module, n->offset};
	return node_hash(&k);
}

static int node_eq(const void *ctx, uint32_t e, const void *key)
{
	const hq_node *n = &((const hq *)ctx)->nodes[e];
	const node_key *k = key;
	return n->parent == k->parent && n->module == k->module && n->offset == k->offset;
}

static uint32_t node_create(void *arg)
{
	merge *m = arg;
	hq *q = m->q;
	uint32_t id = ++q->n_nodes, parent = m->key->parent;
	hq_node *n = &q->nodes[id];
	n->offset = m->key->offset;
	n->parent = parent;
	n->first_child = n->next_sibling = 0;
	n->module = m->key->module;
	n->depth = parent ? q->nodes[parent].depth + 1 : 0;
	/* children (and roots) in order of creation, so ids ascend along them */
	uint32_t *tail = parent ? &m->last_child[parent] : &m->last_root;
	if (*tail)
		q->nodes[*tail].next_sibling = id;
	else if (parent)
		q->nodes[parent].first_child = id;
	else
		q->first_root = id;
	*tail = id;
	m->last_child[id] = 0;
	m->chain.next[id] = m->chain.claim[id] = NONE;
	return id;
}

static uint64_t module_hash_of(const void *ctx, uint32_t e)
{
	const hq_module *mod = &((const hq *)ctx)->modules[e];
	return hash_str(mod->name, mod->missing);
}

static int module_eq(const void *ctx, uint32_t e, const void *key)
{
	const hq_module *a = &((const hq *)ctx)->modules[e], *b = key;
	return a->missing == b->missing && profdb__hq_str_eq(a->name, b->name);
}

/* The interned index of a module (by name, or by missing lm id). */
static int intern_module(merge *m, hq_module key, uint32_t *out)
{
	hq *q = m->q;
	uint32_t *slot = profdb__hindex_slot(&m->modules, hash_str(key.name, key.missing),
	                                     module_eq, q, &key);
	if (!*slot) {
		if (q->n_modules >= m->modules_cap)
			return profdb__fail(-EBADMSG, "more load modules than the load maps declare");
		q->modules[q->n_modules] = key;
		*slot = ++q->n_modules;
		*out = *slot - 1;
		return profdb__hindex_added(&m->modules, module_hash_of, q);
	}
	*out = *slot - 1;
	return 0;
}

static int map_modules(merge *m, uint32_t p, uint32_t n_modules)
{
	for (uint32_t i = 0; i < n_modules; i++) {
		profdb_hpcrun_module mod;
		int r = profdb_hpcrun_module_at(m->q->h, p, i, &mod);
		if (r < 0)
			return r;
		hq_module key = {mod.name, 0};
		/* lm id 0 is hpcrun's "no module" (placeholder nodes), never a name */
		if (mod.id == 0)
			key = (hq_module){profdb__hq_str(NULL, 0), 1};
		if ((r = intern_module(m, key, &m->modmap[i])) < 0)
			return r;
	}
	return 0;
}

/* Give node @p nd of profile @p p its merged id. Its parent has one: the
 * walk is pre-order. */
static int visit(merge *m, uint32_t p, const profdb_hpcrun_node *nd)
{
	hq *q = m->q;
	hq_profile *pr = &q->prof[p];
	node_key k;
	int r;
	k.parent = nd->parent == NONE ? 0 : pr->merged[nd->parent];
	k.offset = nd->offset;
	if (nd->module != NONE && nd->lm_id != 0)
		k.module = m->modmap[nd->module];
	else if ((r = intern_module(m, (hq_module){profdb__hq_str(NULL, 0), 1u + nd->lm_id},
	                            &k.module)) < 0)
		return r;
	uint32_t *slot = profdb__hindex_slot(&m->nodes, node_hash(&k), node_eq, q, &k);
	int fresh = !*slot;
	m->key = &k;
	pr->merged[nd->index] = chain_take(&m->chain, slot, p, node_create, m);
	return fresh ? profdb__hindex_added(&m->nodes, node_hash_of, q) : 0;
}

/* Walk profile @p p's tree in pre-order (children in record order). */
static int merge_profile(merge *m, uint32_t p)
{
	hq *q = m->q;
	hq_profile *pr = &q->prof[p];
	profdb_hpcrun_node nd;
	profdb_hpcrun_profile info;
	int r = profdb_hpcrun_profile_at(q->h, p, &info);
	if (r < 0 || (r = map_modules(m, p, info.n_modules)) < 0)
		return r;
	uint32_t i = 0;
	for (; i < pr->n_nodes; i++) {   /* the first root in record order */
		if ((r = profdb_hpcrun_node_at(q->h, p, i, &nd)) < 0)
			return r;
		if (nd.parent == NONE)
			break;
	}
	uint64_t seen = 0;
	while (i < pr->n_nodes && seen < pr->n_nodes) {
		if ((r = profdb_hpcrun_node_at(q->h, p, i, &nd)) < 0 || (r = visit(m, p, &nd)) < 0)
			return r;
		seen++;
		if (nd.first_child != NONE) {
			i = nd.first_child;
			continue;
		}
		while (nd.next_sibling == NONE && nd.parent != NONE)
			if ((r = profdb_hpcrun_node_at(q->h, p, nd.parent, &nd)) < 0)
				return r;
		i = nd.next_sibling;
	}
	if (seen != pr->n_nodes)
		return profdb__fail(-EBADMSG, "hpcrun profile %" PRIu32 ": the tree walk reached %"
		                    PRIu64 " of %" PRIu32 " CCT nodes", p, seen, pr->n_nodes);
	for (uint32_t k = 0; k < pr->n_nodes; k++)
		pr->by_merged[k] = (uint64_t)pr->merged[k] << 32 | k;
	qsort(pr->by_merged, pr->n_nodes, sizeof *pr->by_merged, profdb__hpcrun_cmp_u64);
	return 0;
}

/* Validate every profile's tree (the reader's first-use check) and count
 * nodes and modules. Tolerant mode sets a rejected profile aside. */
static int count_nodes(hq *q, uint64_t *nodes, uint64_t *modules, uint32_t *max_modules)
{
	*nodes = *modules = *max_modules = 0;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		hq_profile *pr = &q->prof[p];
		profdb_hpcrun_profile info;
		int r = profdb_hpcrun_profile_at(q->h, p, &info);
		if (r < 0)
			return r;
		int64_t n = profdb_hpcrun_node_count(q->h, p);
		if (n < 0) {
			if ((r = profdb__tolerate(&q->opts, (int)n, NULL, "profile %" PRIu32, p)) < 0)
				return r;
			pr->broken = 1;
			continue;
		}
		pr->n_nodes = (uint32_t)n;
		*nodes += (uint64_t)n;
		*modules += info.n_modules;
		if (info.n_modules > *max_modules)
			*max_modules = info.n_modules;
	}
	return 0;
}

/* Peak bytes of the build at most: nodes (kept), per-profile maps (kept),
 * the hash tables (1.5 times the last size while growing) and the chains
 * (freed at the end). */
static uint64_t tree_bytes(uint64_t nodes, uint64_t modules)
{
	return (nodes + 1) * (sizeof(hq_node) + 4 * sizeof(uint32_t)) + nodes * 12 +
	       index_slots(nodes) * 6 + modules * (sizeof(hq_module) + 4) + index_slots(modules) * 6;
}

static int alloc_profile_maps(hq *q)
{
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		hq_profile *pr = &q->prof[p];
		size_t n = pr->n_nodes ? pr->n_nodes : 1;
		pr->merged = malloc(n * sizeof *pr->merged);
		pr->by_merged = malloc(n * sizeof *pr->by_merged);
		if (!pr->merged || !pr->by_merged)
			return profdb__fail(-ENOMEM, "out of memory (hpcrun profile %" PRIu32 ")", p);
	}
	return 0;
}

static int build_tree(void *arg)
{
	hq *q = arg;
	uint64_t total, modules;
	uint32_t max_modules;
	int r = count_nodes(q, &total, &modules, &max_modules);
	if (r < 0)
		return r;
	/* Missing lm ids are interned too: at most one per u16 value. */
	modules += total < 65536 ? total : 65536;
	uint64_t need = tree_bytes(total, modules), limit = profdb__hq_max_memory(q);
	if (total >= NONE - 1 || need > limit)
		return profdb__fail(-EFBIG, "the merged context tree of %" PRIu64 " hpcrun CCT nodes "
		                    "needs about %" PRIu64 " bytes, above profdb_options.max_memory "
		                    "%" PRIu64, total, need, limit);
	merge m;
	memset(&m, 0, sizeof m);
	m.q = q;
	m.modules_cap = modules;
	q->nodes = malloc((size_t)(total + 1) * sizeof *q->nodes);
	q->modules = malloc((size_t)(modules ? modules : 1) * sizeof *q->modules);
	m.last_child = malloc((size_t)(total + 1) * sizeof *m.last_child);
	m.modmap = malloc((size_t)(max_modules ? max_modules : 1) * sizeof *m.modmap);
	if (!q->nodes || !q->modules || !m.last_child || !m.modmap)
		r = profdb__fail(-ENOMEM, "out of memory (merged context tree)");
	if (r == 0)
		r = profdb__hindex_init(&m.nodes, 16);
	if (r == 0)
		r = profdb__hindex_init(&m.modules, 16);
	if (r == 0)
		r = chain_init(&m.chain, total + 1);
	if (r == 0)
		r = alloc_profile_maps(q);
	if (r == 0)
		memset(&q->nodes[0], 0, sizeof q->nodes[0]);
	for (uint32_t p = 0; r == 0 && p < q->n_profiles; p++)
		if (q->prof[p].has_file && !q->prof[p].broken)
			r = merge_profile(&m, p);
	profdb__hindex_free(&m.nodes);
	profdb__hindex_free(&m.modules);
	chain_free(&m.chain);
	free(m.last_child);
	free(m.modmap);
	if (r == 0 && q->n_nodes < total) {   /* give back what merging saved */
		hq_node *g = realloc(q->nodes, ((size_t)q->n_nodes + 1) * sizeof *g);
		if (g)
			q->nodes = g;
	}
	if (r == 0)
		r = profdb__hq_name_placeholders(q);
	return r;
}

int profdb__hq_tree_ready(const hq *q)
{
	return profdb__once_run((profdb__once *)&q->tree_once, build_tree, (void *)q);
}

