/* The hpcrun backend of the common query interface (lib/query/backend.h):
 * a set of .hpcrun/.hpctrace files seen as one database. Everything is read
 * through the reader's public API (lib/hpcrun/api.c), which bounds-checks
 * every byte; this file never touches the mapping. doc/model.md ("hpcrun
 * measurements") is the normative description; in short:
 *
 *  - profiles: the reader's profiles, in its order (file name, epoch).
 *  - metrics: the profiles' metric tables merged by (name, integer/real),
 *    in order of first appearance; id = index. Each profile maps its own
 *    metric indices to merged ids.
 *  - contexts: the per-profile CCTs merged into one tree as hpcprof does:
 *    a merged node is keyed by (merged parent, load-module NAME, offset),
 *    because lm ids are per file. Ids are dense from 1 in order of first
 *    appearance (profiles in order, each tree in pre-order). Built lazily
 *    and once, bounded by max_memory.
 *  - values: the stored raw values (dense files: non-zero bit patterns),
 *    inclusive values summed up the merged tree per profile.
 *  - traces: the .hpctrace records, cct ids mapped to merged contexts.
 *
 * Duplicates: when one profile holds two metrics with the same key, or two
 * sibling nodes with the same key (hpcrun does not write either), the k-th
 * of them merges with the k-th of the other profiles. So a merged entry
 * stands for at most one entry of each profile: every stored value stays
 * addressable, nothing is summed, and a context's inclusive value for a
 * profile covers exactly that profile's subtree. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcrun-internal.h"
#include "../core/backend-internal.h"

#define NONE PROFDB_NONE

/* ---- the handle ----------------------------------------------------------- */

/* A merged context; index = id, slot 0 unused. Links are ids, 0 = none. */
typedef struct hq_node {
	uint64_t offset;
	uint32_t parent, first_child, next_sibling, depth;
	uint32_t module;              /* index in hq.modules */
} hq_node;

/* A load module as the merge key sees it: by name when the load map has
 * the node's lm id, else by the id (0: hpcrun's placeholder nodes). */
typedef struct hq_module {
	profdb_str name;              /* into the mapping; empty when missing */
	uint32_t missing;             /* 0 named; 1 + lm id when not in the load map */
} hq_module;

typedef struct hq_metric {
	profdb_str name, description;
	int is_real;
} hq_metric;

typedef struct hq_ident {
	profdb_str kind;
	uint64_t value;
} hq_ident;

typedef struct hq_profile {
	int has_file, dense;
	uint32_t n_metrics;
	uint32_t *metric;             /* own metric index -> merged id */
	uint64_t *metric_sorted;      /* merged id << 32 | own index, ascending */
	int metric_monotone;          /* own order is merged order */
	size_t name_at, name_len, ident_at;
	uint32_t n_ident;
	/* set by the tree build */
	int broken;                   /* tolerant mode: tree rejected, reads as empty */
	uint32_t n_nodes;
	uint32_t *merged;             /* node index -> merged id */
	uint64_t *by_merged;          /* merged id << 32 | node index, ascending */
	/* inclusive table, n_nodes x n_metrics (own indices), built on first use */
	profdb__once incl_once;
	uint64_t *incl;
} hq_profile;

typedef struct hq {
	profdb_hpcrun *h;
	profdb_options opts;
	char version[8];
	profdb_str title;
	uint32_t n_profiles;
	hq_profile *prof;
	hq_metric *metrics;
	uint32_t n_metrics;
	uint32_t max_own_metrics;     /* cursor buffer size */
	hq_ident *ident;
	char *names;
	profdb__once tree_once;
	hq_node *nodes;
	uint32_t n_nodes, first_root;
	hq_module *modules;
	uint32_t n_modules;
	profdb__once count_once;
	int64_t n_values;
} hq;

static profdb_str view(const char *p, size_t len)
{
	profdb_str s = {"", 0};
	if (p && len) {
		s.ptr = p;
		s.len = len;
	}
	return s;
}

static uint64_t max_memory(const hq *q)
{
	return q->opts.max_memory ? q->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
}

/* ---- hashing: open addressing over entry indices ----------------------------- */

/* The table starts small and doubles when half full: sized for the upper
 * bound (every profile node) it would be mostly empty when the trees
 * overlap, and every probe would miss the cache. */
typedef uint64_t (*hq_hash)(const void *ctx, uint32_t entry);

typedef struct hq_tab {
	uint32_t *slot;               /* entry + 1, 0 = empty */
	uint64_t mask, used;
	hq_hash hash;                 /* of an entry, for growing */
	const void *ctx;
} hq_tab;

typedef int (*hq_eq)(const void *ctx, uint32_t entry, const void *key);

/* Slots of a table holding @p n entries: at least twice as many (so
 * probes stay short and the table never fills). */
static uint64_t tab_cap(uint64_t n)
{
	uint64_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	return cap;
}

static int tab_alloc(hq_tab *t, uint64_t cap)
{
	t->mask = cap - 1;
	t->slot = cap <= SIZE_MAX / sizeof *t->slot ? calloc((size_t)cap, sizeof *t->slot) : NULL;
	return t->slot ? 0 : profdb__fail(-ENOMEM, "out of memory (hash table of %" PRIu64
	                                  " slots)", cap);
}

static int tab_init(hq_tab *t, hq_hash hash, const void *ctx)
{
	t->used = 0;
	t->hash = hash;
	t->ctx = ctx;
	return tab_alloc(t, 16);
}

/* Count an entry just stored in an empty slot; grow when half full (slot
 * pointers from before are then stale). */
static int tab_added(hq_tab *t)
{
	if (++t->used * 2 <= t->mask + 1)
		return 0;
	uint32_t *old = t->slot;
	uint64_t n = t->mask + 1;
	int r = tab_alloc(t, 2 * n);
	if (r < 0) {
		t->slot = old;
		t->mask = n - 1;
		return r;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!old[i])
			continue;
		uint64_t k = t->hash(t->ctx, old[i] - 1) & t->mask;
		while (t->slot[k])
			k = (k + 1) & t->mask;
		t->slot[k] = old[i];
	}
	free(old);
	return 0;
}

/* The slot of the entry equal to @p key, or the empty slot it would take. */
static uint32_t *tab_slot(const hq_tab *t, uint64_t hash, hq_eq eq, const void *ctx,
                          const void *key)
{
	for (uint64_t i = hash & t->mask;; i = (i + 1) & t->mask)
		if (!t->slot[i] || eq(ctx, t->slot[i] - 1, key))
			return &t->slot[i];
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

static uint64_t hash_str(profdb_str s, uint64_t seed)
{
	uint64_t h = UINT64_C(1469598103934665603) ^ seed;
	for (size_t i = 0; i < s.len; i++)
		h = (h ^ (unsigned char)s.ptr[i]) * UINT64_C(1099511628211);
	return mix64(h);
}

static int str_eq(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
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
	return m->is_real == k->is_real && str_eq(m->name, k->name);
}

static uint32_t metric_create(void *arg)
{
	metric_new *a = arg;
	uint32_t id = a->q->n_metrics++;
	hq_metric *m = &a->q->metrics[id];
	m->name = view(a->m->name, a->m->name_len);
	m->description = view(a->m->description, a->m->description_len);
	m->is_real = a->m->is_real;
	a->chain->next[id] = a->chain->claim[id] = NONE;
	return id;
}


/* Map profile @p p's metric table onto the merged list. */
static int map_metrics(hq *q, hq_tab *t, hq_chain *c, uint32_t p)
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
		int r = profdb_hpcrun_metric_get(q->h, p, i, &m);
		if (r < 0)
			return r;
		metric_key k = {view(m.name, m.name_len), m.is_real};
		uint32_t *slot = tab_slot(t, metric_hash(k.name, k.is_real), metric_eq, q, &k);
		metric_new a = {q, c, &m};
		int fresh = !*slot;
		uint32_t id = chain_take(c, slot, p, metric_create, &a);
		if (fresh && (r = tab_added(t)) < 0)
			return r;
		pr->metric[i] = id;
		pr->metric_sorted[i] = (uint64_t)id << 32 | i;
		if (i && id < pr->metric[i - 1])
			pr->metric_monotone = 0;
	}
	qsort(pr->metric_sorted, pr->n_metrics, sizeof *pr->metric_sorted,
	      profdb__hpcrun_cmp_u64);
	return 0;
}

static int merge_metrics(hq *q)
{
	uint64_t total = 0;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_hpcrun_profile pr;
		int r = profdb_hpcrun_profile_get(q->h, p, &pr);
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
	if (total >= NONE)
		return profdb__fail(-EFBIG, "%" PRIu64 " metric descriptors: more than 32-bit ids",
		                    total);
	q->metrics = malloc((size_t)(total ? total : 1) * sizeof *q->metrics);
	hq_tab t = {NULL, 0, 0, NULL, NULL};
	hq_chain c = {NULL, NULL, NULL};
	int r = q->metrics ? 0 : profdb__fail(-ENOMEM, "out of memory");
	if (r == 0)
		r = tab_init(&t, metric_hash_of, q);
	if (r == 0)
		r = chain_init(&c, total);
	for (uint32_t p = 0; r == 0 && p < q->n_profiles; p++)
		r = map_metrics(q, &t, &c, p);
	free(t.slot);
	chain_free(&c);
	return r;
}

/* ---- profile names and identity (at open) -------------------------------------------- */

typedef struct hq_text {
	char *p;
	size_t len, cap;
} hq_text;

static int text_add(hq_text *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (b->len + n + 1 > cap)
			cap *= 2;
		char *g = realloc(b->p, cap);
		if (!g)
			return profdb__fail(-ENOMEM, "out of memory");
		b->p = g;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

typedef struct ident_build {
	hq_ident *v;
	size_t n, cap;
} ident_build;

static int ident_add(ident_build *b, profdb_str kind, uint64_t value)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		hq_ident *g = realloc(b->v, cap * sizeof *g);
		if (!g)
			return profdb__fail(-ENOMEM, "out of memory");
		b->v = g;
		b->cap = cap;
	}
	b->v[b->n].kind = kind;
	b->v[b->n++].value = value;
	return 0;
}

/* The 04.00 id-tuple kinds (hpcrun's IDTUPLE_* numbering). */
static profdb_str kind_word(const profdb_hpcrun_id *id)
{
	static const char *const words[8] = {"summary", "node", "rank", "thread", "gpu-device",
	                                     "gpu-context", "gpu-stream", "core"};
	if (id->kind < 8)
		return profdb__str(words[id->kind]);
	if (id->kind_name_len)
		return view(id->kind_name, id->kind_name_len);
	return profdb__str("unknown");
}

/* One "kind value" word pair of a profile name; nodes (host ids) in hex. */
static int name_word(hq_text *t, int first, const char *kind, size_t klen, uint64_t v,
                     int hex)
{
	char num[32];
	int n = snprintf(num, sizeof num, hex ? " 0x%" PRIx64 : " %" PRIu64, v);
	int r = 0;
	if (!first)
		r = text_add(t, " ", 1);
	if (r == 0)
		r = text_add(t, kind, klen);
	return r < 0 ? r : text_add(t, num, (size_t)n);
}

/* Identity from the 04.00 id tuple: the logical index when the element's
 * interpretation says it is valid (bit 15: logic-global or logic-only),
 * else the physical one (a NODE's host id). */
static int tuple_identity(hq *q, uint32_t p, uint32_t n_ids, ident_build *ib, hq_text *t)
{
	for (uint32_t i = 0; i < n_ids; i++) {
		profdb_hpcrun_id id;
		int r = profdb_hpcrun_id_get(q->h, p, i, &id);
		if (r < 0)
			return r;
		uint64_t v = (id.interpretation & 2) ? id.logical : id.physical;
		profdb_str kind = kind_word(&id);
		if ((r = ident_add(ib, kind, v)) < 0 ||
		    (r = name_word(t, i == 0, kind.ptr, kind.len, v, id.kind == 1)) < 0)
			return r;
	}
	return 0;
}

/* Identity from the file name fields that are present (not -1). The name
 * says rank and thread only: node and pid rarely tell threads apart. */
static int name_identity(const profdb_hpcrun_profile *pr, ident_build *ib, hq_text *t)
{
	static const char *const kinds[4] = {"rank", "thread", "node", "pid"};
	const int64_t v[4] = {pr->rank, pr->thread, pr->host_id, pr->pid};
	int words = 0, r;
	for (int k = 0; k < 4; k++) {
		if (v[k] < 0)
			continue;
		if ((r = ident_add(ib, profdb__str(kinds[k]), (uint64_t)v[k])) < 0)
			return r;
		if (k < 2 && (r = name_word(t, !words++, kinds[k], strlen(kinds[k]),
		                            (uint64_t)v[k], 0)) < 0)
			return r;
	}
	return 0;
}

static int profile_identity(hq *q, uint32_t p, ident_build *ib, hq_text *t)
{
	profdb_hpcrun_profile pr;
	hq_profile *hp = &q->prof[p];
	int r = profdb_hpcrun_profile_get(q->h, p, &pr);
	if (r < 0)
		return r;
	size_t start = t->len;
	hp->ident_at = ib->n;
	r = pr.n_ids ? tuple_identity(q, p, pr.n_ids, ib, t) : name_identity(&pr, ib, t);
	if (r == 0 && pr.n_epochs > 1) {
		r = ident_add(ib, profdb__str("epoch"), pr.epoch);
		if (r == 0)
			r = name_word(t, t->len == start, "epoch", 5, pr.epoch, 0);
	}
	if (r == 0 && t->len == start) {
		/* nothing to say who it is: the file name */
		const char *stem = pr.name && pr.name[0] ? pr.name : "profile";
		r = text_add(t, stem, strlen(stem));
	}
	if (r < 0)
		return r;
	hp->n_ident = (uint32_t)(ib->n - hp->ident_at);
	hp->name_at = start;
	hp->name_len = t->len - start;
	return 0;
}

static int build_identities(hq *q)
{
	ident_build ib = {NULL, 0, 0};
	hq_text t = {NULL, 0, 0};
	int r = 0;
	for (uint32_t p = 0; r == 0 && p < q->n_profiles; p++)
		r = profile_identity(q, p, &ib, &t);
	q->ident = ib.v;
	q->names = t.p;
	return r;
}

/* Version of the .hpcrun files ("" for trace files only) and the program
 * name from the first profile's header as the title. */
static void describe(hq *q)
{
	uint8_t ma, mi;
	if (profdb_hpcrun_version(q->h, &ma, &mi) >= 0)
		snprintf(q->version, sizeof q->version, "%02u.%02u", ma, mi);
	q->title = view(NULL, 0);
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_hpcrun_profile pr;
		if (!q->prof[p].has_file || profdb_hpcrun_profile_get(q->h, p, &pr) < 0)
			continue;
		profdb_hpcrun_attr a;
		for (uint32_t i = 0; i < pr.n_attrs; i++)
			if (profdb_hpcrun_attr_get(q->h, p, i, &a) == 0 && a.name_len == 12 &&
			    memcmp(a.name, "program-name", 12) == 0) {
				q->title = view(a.value, a.value_len);
				return;
			}
		return;
	}
}

/* ---- the merged context tree (lazy, once) --------------------------------------------- */

typedef struct node_key {
	uint32_t parent, module;
	uint64_t offset;
} node_key;

typedef struct merge {
	hq *q;
	hq_tab nodes, modules;
	hq_chain chain;
	uint32_t *last_child;         /* per merged node, for appending in order */
	uint32_t last_root;
	uint32_t *modmap;             /* own load-map index -> hq.modules */
	uint64_t modules_cap;
	const node_key *key;          /* of the node being created */
} merge;

static uint64_t node_hash(const node_key *k)
{
	return mix64(k->offset ^ mix64((uint64_t)k->parent << 32 | k->module));
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
	return a->missing == b->missing && str_eq(a->name, b->name);
}

/* The interned index of a module (by name, or by missing lm id). */
static int intern_module(merge *m, hq_module key, uint32_t *out)
{
	hq *q = m->q;
	uint32_t *slot = tab_slot(&m->modules, hash_str(key.name, key.missing), module_eq, q, &key);
	if (!*slot) {
		if (q->n_modules >= m->modules_cap)
			return profdb__fail(-EBADMSG, "more load modules than the load maps declare");
		q->modules[q->n_modules] = key;
		*slot = ++q->n_modules;
		*out = *slot - 1;
		return tab_added(&m->modules);
	}
	*out = *slot - 1;
	return 0;
}

static int map_modules(merge *m, uint32_t p, uint32_t n_modules)
{
	for (uint32_t i = 0; i < n_modules; i++) {
		profdb_hpcrun_module mod;
		int r = profdb_hpcrun_module_get(m->q->h, p, i, &mod);
		if (r < 0)
			return r;
		hq_module key = {view(mod.name, mod.name_len), 0};
		/* lm id 0 is hpcrun's "no module" (placeholder nodes), never a name */
		if (mod.id == 0)
			key = (hq_module){view(NULL, 0), 1};
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
	else if ((r = intern_module(m, (hq_module){view(NULL, 0), 1u + nd->lm_id}, &k.module)) < 0)
		return r;
	uint32_t *slot = tab_slot(&m->nodes, node_hash(&k), node_eq, q, &k);
	int fresh = !*slot;
	m->key = &k;
	pr->merged[nd->index] = chain_take(&m->chain, slot, p, node_create, m);
	return fresh ? tab_added(&m->nodes) : 0;
}

/* Walk profile @p p's tree in pre-order (children in record order). */
static int merge_profile(merge *m, uint32_t p)
{
	hq *q = m->q;
	hq_profile *pr = &q->prof[p];
	profdb_hpcrun_node nd;
	profdb_hpcrun_profile info;
	int r = profdb_hpcrun_profile_get(q->h, p, &info);
	if (r < 0 || (r = map_modules(m, p, info.n_modules)) < 0)
		return r;
	uint32_t i = 0;
	for (; i < pr->n_nodes; i++) {   /* the first root in record order */
		if ((r = profdb_hpcrun_node_get(q->h, p, i, &nd)) < 0)
			return r;
		if (nd.parent == NONE)
			break;
	}
	uint64_t seen = 0;
	while (i < pr->n_nodes && seen < pr->n_nodes) {
		if ((r = profdb_hpcrun_node_get(q->h, p, i, &nd)) < 0 || (r = visit(m, p, &nd)) < 0)
			return r;
		seen++;
		if (nd.first_child != NONE) {
			i = nd.first_child;
			continue;
		}
		while (nd.next_sibling == NONE && nd.parent != NONE)
			if ((r = profdb_hpcrun_node_get(q->h, p, nd.parent, &nd)) < 0)
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
		int r = profdb_hpcrun_profile_get(q->h, p, &info);
		if (r < 0)
			return r;
		int64_t n = profdb_hpcrun_node_count(q->h, p);
		if (n < 0 && (q->opts.flags & PROFDB_OPEN_TOLERANT)) {
			profdb__warn(&q->opts, "%s (tolerant mode: profile %" PRIu32 " reads as empty)",
			             profdb_error_message(), p);
			pr->broken = 1;
			continue;
		}
		if (n < 0)
			return (int)n;
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
	       tab_cap(nodes) * 6 + modules * (sizeof(hq_module) + 4) + tab_cap(modules) * 6;
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
	uint64_t need = tree_bytes(total, modules), limit = max_memory(q);
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
		r = tab_init(&m.nodes, node_hash_of, q);
	if (r == 0)
		r = tab_init(&m.modules, module_hash_of, q);
	if (r == 0)
		r = chain_init(&m.chain, total + 1);
	if (r == 0)
		r = alloc_profile_maps(q);
	if (r == 0)
		memset(&q->nodes[0], 0, sizeof q->nodes[0]);
	for (uint32_t p = 0; r == 0 && p < q->n_profiles; p++)
		if (q->prof[p].has_file && !q->prof[p].broken)
			r = merge_profile(&m, p);
	free(m.nodes.slot);
	free(m.modules.slot);
	chain_free(&m.chain);
	free(m.last_child);
	free(m.modmap);
	if (r == 0 && q->n_nodes < total) {   /* give back what merging saved */
		hq_node *g = realloc(q->nodes, ((size_t)q->n_nodes + 1) * sizeof *g);
		if (g)
			q->nodes = g;
	}
	return r;
}

static int tree_ready(const hq *q)
{
	return profdb__once_run((profdb__once *)&q->tree_once, build_tree, (void *)q);
}

/* ---- lookups ---------------------------------------------------------------------------- */

static int usable(const hq_profile *pr)
{
	return pr->has_file && !pr->broken;
}

static profdb_number number(const hq *q, uint32_t metric, uint64_t bits)
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

/* Profile, merged context and merged metric in range, tree built. */
static int check_ids(const hq *q, uint32_t p, uint32_t c, uint32_t m)
{
	int r = tree_ready(q);
	if (r < 0)
		return r;
	if (p >= q->n_profiles)
		return profdb__fail(-ENOENT, "hpcrun: no profile %" PRIu32 " (%" PRIu32 " profiles)", p,
		                    q->n_profiles);
	if (c == 0 || c > q->n_nodes)
		return profdb__fail(-ENOENT, "hpcrun: no context %" PRIu32 " (ids 1 to %" PRIu32 ")", c,
		                    q->n_nodes);
	if (m >= q->n_metrics)
		return profdb__fail(-ENOENT, "hpcrun: no metric %" PRIu32 " (%" PRIu32 " metrics)", m,
		                    q->n_metrics);
	return 0;
}

/* The profile's node and own metric index for (c, m): 1, or 0 when the
 * profile has no such node or metric. */
static int locate(const hq *q, uint32_t p, uint32_t c, uint32_t m, uint32_t *node,
                  uint32_t *own)
{
	const hq_profile *pr = &q->prof[p];
	if (!usable(pr))
		return 0;
	*own = profdb__hpcrun_search(pr->metric_sorted, pr->n_metrics, m);
	*node = profdb__hpcrun_search(pr->by_merged, pr->n_nodes, c);
	return *own != NONE && *node != NONE;
}

/* ---- the common interface: description ------------------------------------------------- */

static int q_about(const void *impl, profdb_about *out)
{
	const hq *q = impl;
	out->format = PROFDB_FORMAT_HPCRUN;
	out->version = profdb__str(q->version);
	out->title = q->title;
	return 0;
}

/* Stored values: every sparse pair, the non-zero dense cells. */
static int count_values(void *arg)
{
	hq *q = arg;
	int64_t total = 0;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		if (!usable(&q->prof[p]))
			continue;
		for (uint32_t i = 0; i < q->prof[p].n_nodes; i++) {
			profdb_hpcrun_run run;
			int r = profdb_hpcrun_values(q->h, p, i, &run);
			if (r < 0)
				return r;
			if (!run.dense) {
				total += (int64_t)run.count;
				continue;
			}
			for (uint64_t k = 0; k < run.count; k++) {
				uint64_t bits;
				profdb_hpcrun_run_at(&run, k, NULL, &bits);
				total += bits != 0;
			}
		}
	}
	q->n_values = total;
	return 0;
}

static int q_counts(const void *impl, profdb_counts *out)
{
	const hq *q = impl;
	int r = tree_ready(q);
	if (r < 0 || (r = profdb__once_run((profdb__once *)&q->count_once, count_values,
	                                   (void *)q)) < 0)
		return r;
	memset(out, 0, sizeof *out);
	out->profiles = q->n_profiles;
	out->contexts = q->n_nodes;
	out->metrics = q->n_metrics;
	out->values = q->n_values;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_hpcrun_trace t;
		if ((r = profdb_hpcrun_trace_get(q->h, p, &t)) < 0)
			return r;
		out->traces += r;
		out->samples += r ? (int64_t)t.count : 0;
	}
	return 0;
}

/* ---- metrics ------------------------------------------------------------------------------ */

static int64_t q_metric_count(const void *impl)
{
	return ((const hq *)impl)->n_metrics;
}

static int q_metric_at(const void *impl, uint32_t index, profdb_metric *out)
{
	const hq *q = impl;
	if (index >= q->n_metrics)
		return profdb__fail(-ENOENT, "hpcrun: no metric %" PRIu32 " (%" PRIu32 " metrics)",
		                    index, q->n_metrics);
	const hq_metric *m = &q->metrics[index];
	memset(out, 0, sizeof *out);
	out->id = index;
	out->name = m->name;
	out->unit = profdb__str(NULL);
	out->description = m->description;
	out->kind = PROFDB_METRIC_POINT;
	out->statistic = profdb__str(NULL);
	out->type = m->is_real ? PROFDB_TYPE_F64 : PROFDB_TYPE_U64;
	/* one stored scope (raw); profdb_inclusive sums it up the tree */
	out->exclusive_id = out->inclusive_id = index;
	out->has_data = 1;
	return 0;
}

/* ---- contexts ----------------------------------------------------------------------------- */

static int64_t q_context_count(const void *impl)
{
	const hq *q = impl;
	int r = tree_ready(q);
	return r < 0 ? r : (int64_t)q->n_nodes;
}

static int q_context_root(const void *impl, uint32_t *id)
{
	const hq *q = impl;
	int r = tree_ready(q);
	if (r < 0)
		return r;
	if (q->n_nodes == 0)
		return profdb__fail(-ENOENT, "hpcrun: the calling-context tree is empty");
	*id = q->first_root;
	return 0;
}

static uint32_t link_id(uint32_t id)
{
	return id ? id : NONE;
}

static int q_context_get(const void *impl, uint32_t id, profdb_context *out)
{
	const hq *q = impl;
	int r = tree_ready(q);
	if (r < 0)
		return r;
	if (id == 0 || id > q->n_nodes)
		return profdb__fail(-ENOENT, "hpcrun: no context %" PRIu32 " (ids 1 to %" PRIu32 ")", id,
		                    q->n_nodes);
	const hq_node *n = &q->nodes[id];
	const hq_module *mod = &q->modules[n->module];
	memset(out, 0, sizeof *out);
	out->id = id;
	out->parent = link_id(n->parent);
	out->first_child = link_id(n->first_child);
	out->next_sibling = link_id(n->next_sibling);
	out->depth = n->depth;
	out->relation = n->parent ? PROFDB_RELATION_CALL : PROFDB_RELATION_NONE;
	out->type = mod->missing == 1 ? PROFDB_CTX_UNKNOWN : PROFDB_CTX_INSTRUCTION;
	out->function = out->file = profdb__str(NULL);
	out->module = mod->name;
	out->offset = n->offset;
	out->has_offset = 1;
	out->in_tree = 1;
	return 0;
}

/* ---- profiles ----------------------------------------------------------------------------- */

static int64_t q_profile_count(const void *impl)
{
	return ((const hq *)impl)->n_profiles;
}

static int check_profile(const hq *q, uint32_t p)
{
	if (p >= q->n_profiles)
		return profdb__fail(-ENOENT, "hpcrun: no profile %" PRIu32 " (%" PRIu32 " profiles)", p,
		                    q->n_profiles);
	return 0;
}

static int q_profile_get(const void *impl, uint32_t index, profdb_profile *out)
{
	const hq *q = impl;
	int r = check_profile(q, index);
	if (r < 0)
		return r;
	const hq_profile *pr = &q->prof[index];
	memset(out, 0, sizeof *out);
	out->index = index;
	out->is_summary = 0;
	out->name = view(q->names + pr->name_at, pr->name_len);
	out->n_identity = pr->n_ident;
	return 0;
}

static int q_profile_identity(const void *impl, uint32_t index, uint32_t i, profdb_str *kind,
                              uint64_t *value)
{
	const hq *q = impl;
	int r = check_profile(q, index);
	if (r < 0)
		return r;
	const hq_profile *pr = &q->prof[index];
	if (i >= pr->n_ident)
		return profdb__fail(-ENOENT, "hpcrun: profile %" PRIu32 " has %" PRIu32 " identity "
		                    "entries", index, pr->n_ident);
	*kind = q->ident[pr->ident_at + i].kind;
	*value = q->ident[pr->ident_at + i].value;
	return 0;
}

/* ---- values ------------------------------------------------------------------------------- */

static int q_value(const void *impl, uint32_t p, uint32_t c, uint32_t m, profdb_number *out)
{
	const hq *q = impl;
	uint32_t node, own;
	uint64_t bits;
	int r = check_ids(q, p, c, m);
	if (r < 0)
		return r;
	if (!locate(q, p, c, m, &node, &own))
		return 0;
	if ((r = profdb_hpcrun_value(q->h, p, node, own, &bits)) <= 0)
		return r;
	/* a dense file stores every cell: its zeros are "not stored" */
	if (q->prof[p].dense && bits == 0)
		return 0;
	*out = number(q, m, bits);
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
		profdb_hpcrun_run run;
		int r = profdb_hpcrun_node_get(q->h, p, i, &nd);
		if (r < 0 || (r = profdb_hpcrun_values(q->h, p, i, &run)) < 0)
			return r;
		parent[i] = nd.parent;
		for (uint64_t k = 0; k < run.count; k++) {
			uint32_t m;
			uint64_t bits;
			profdb_hpcrun_run_at(&run, k, &m, &bits);
			v[(uint64_t)i * pr->n_metrics + m] = bits;
		}
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
	uint64_t n = pr->n_nodes, nm = pr->n_metrics, limit = max_memory(q);
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

static int q_scoped(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
                    profdb_number *out)
{
	const hq *q = impl;
	if (!inclusive)
		return q_value(impl, p, c, m, out);
	uint32_t node, own;
	int r = check_ids(q, p, c, m);
	if (r < 0)
		return r;
	if (!locate(q, p, c, m, &node, &own))
		return 0;
	const hq_profile *pr = &q->prof[p];
	incl_arg a = {q, p};
	if ((r = profdb__once_run((profdb__once *)&pr->incl_once, build_incl, &a)) < 0)
		return r;
	uint64_t bits = pr->incl[(uint64_t)node * pr->n_metrics + own];
	/* -0.0 is zero too */
	if ((q->metrics[m].is_real ? bits << 1 : bits) == 0)
		return 0;
	*out = number(q, m, bits);
	return 1;
}

/* ---- the cursor --------------------------------------------------------------------------- */

typedef struct hq_pair {
	uint32_t metric;              /* merged id */
	uint64_t bits;
} hq_pair;

/* The values of one (profile, node), in merged metric order. */
typedef struct hq_cursor {
	uint32_t profile, context;
	uint32_t n, at;
	hq_pair e[];
} hq_cursor;

static int cmp_pair(const void *a, const void *b)
{
	uint32_t x = ((const hq_pair *)a)->metric, y = ((const hq_pair *)b)->metric;
	return (x > y) - (x < y);
}

static int fill(const hq *q, hq_cursor *c, uint32_t p, uint32_t node, uint32_t ctx)
{
	const hq_profile *pr = &q->prof[p];
	profdb_hpcrun_run run;
	int r = profdb_hpcrun_values(q->h, p, node, &run);
	if (r < 0)
		return r;
	c->profile = p;
	c->context = ctx;
	c->n = c->at = 0;
	for (uint64_t k = 0; k < run.count && c->n < pr->n_metrics; k++) {
		uint32_t m;
		uint64_t bits;
		profdb_hpcrun_run_at(&run, k, &m, &bits);
		if (run.dense && bits == 0)
			continue;
		c->e[c->n].metric = pr->metric[m];
		c->e[c->n++].bits = bits;
	}
	if (!pr->metric_monotone)
		qsort(c->e, c->n, sizeof *c->e, cmp_pair);
	return 0;
}

static int q_cursor_begin(const void *impl, profdb__cursor *cur)
{
	const hq *q = impl;
	int r = tree_ready(q);
	if (r < 0)
		return r;
	memset(cur->pos, 0, sizeof cur->pos);
	if (cur->scan == PROFDB_SCAN_PROFILE) {
		if ((r = check_profile(q, cur->key)) < 0)
			return r;
		cur->pos[0] = cur->key;
	} else if (cur->scan == PROFDB_SCAN_CONTEXT) {
		if (cur->key == 0 || cur->key > q->n_nodes)
			return profdb__fail(-ENOENT, "hpcrun: no context %" PRIu32 " (ids 1 to %" PRIu32
			                    ")", cur->key, q->n_nodes);
	} else if (cur->scan != PROFDB_SCAN_ALL) {
		return profdb__fail(-EINVAL, "hpcrun: unknown scan %d", (int)cur->scan);
	}
	size_t cap = q->max_own_metrics ? q->max_own_metrics : 1;
	cur->priv = calloc(1, sizeof(hq_cursor) + cap * sizeof(hq_pair));
	return cur->priv ? 0 : profdb__fail(-ENOMEM, "out of memory");
}

/* Load the next (profile, node) with values into the buffer: 1, or 0 at
 * the end. pos[0] = profile, pos[1] = position in its by_merged list. */
static int advance(const hq *q, profdb__cursor *cur, hq_cursor *c)
{
	for (;;) {
		uint32_t p = (uint32_t)cur->pos[0];
		if (p >= q->n_profiles || (cur->scan == PROFDB_SCAN_PROFILE && p != cur->key))
			return 0;
		const hq_profile *pr = &q->prof[p];
		uint32_t node = NONE, ctx = cur->key;
		if (cur->scan == PROFDB_SCAN_CONTEXT) {
			cur->pos[0]++;
			if (usable(pr))
				node = profdb__hpcrun_search(pr->by_merged, pr->n_nodes, ctx);
		} else if (usable(pr) && cur->pos[1] < pr->n_nodes) {
			uint64_t e = pr->by_merged[cur->pos[1]++];
			node = (uint32_t)e;
			ctx = (uint32_t)(e >> 32);
		} else {
			cur->pos[0]++;
			cur->pos[1] = 0;
		}
		if (node == NONE)
			continue;
		int r = fill(q, c, p, node, ctx);
		if (r < 0 || c->n)
			return r < 0 ? r : 1;
	}
}

static int q_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out)
{
	const hq *q = impl;
	hq_cursor *c = cur->priv;
	if (c->at == c->n) {
		int r = advance(q, cur, c);
		if (r <= 0)
			return r;
	}
	const hq_pair *e = &c->e[c->at++];
	out->profile = c->profile;
	out->context = c->context;
	out->metric = e->metric;
	out->value = number(q, e->metric, e->bits);
	return 1;
}

static void q_cursor_free(const void *impl, profdb__cursor *cur)
{
	(void)impl;
	free(cur->priv);
	cur->priv = NULL;
}

/* ---- traces ------------------------------------------------------------------------------- */

/* The profile's trace: 1, or 0 when it has none (t zeroed). */
static int trace_of(const hq *q, uint32_t p, profdb_hpcrun_trace *t)
{
	int r = check_profile(q, p);
	return r < 0 ? r : profdb_hpcrun_trace_get(q->h, p, t);
}

static int64_t q_trace_length(const void *impl, uint32_t p)
{
	profdb_hpcrun_trace t;
	int r = trace_of(impl, p, &t);
	return r < 0 ? r : r ? (int64_t)t.count : 0;
}

/* A record's cct id is a node id of the same profile's CCT; one that names
 * no node (a trace-only profile) maps to context 0, which is no context. */
static int q_trace_at(const void *impl, uint32_t p, uint64_t i, profdb_sample *out)
{
	const hq *q = impl;
	profdb_hpcrun_trace t;
	uint32_t cct, node;
	int r = trace_of(q, p, &t);
	if (r == 0)
		return profdb__fail(-ENOENT, "hpcrun: profile %" PRIu32 " has no trace", p);
	if (r < 0 || (r = profdb_hpcrun_trace_at(&t, i, &out->time_ns, &cct, NULL)) < 0 ||
	    (r = tree_ready(q)) < 0)
		return r;
	out->context = 0;
	if (!usable(&q->prof[p]))
		return 0;
	if ((r = profdb_hpcrun_node_find(q->h, p, cct, &node)) < 0)
		return r;
	if (r == 1)
		out->context = q->prof[p].merged[node];
	return 0;
}

static int q_trace_seek(const void *impl, uint32_t p, uint64_t time, uint64_t *index)
{
	profdb_hpcrun_trace t;
	uint64_t last;
	int r = trace_of(impl, p, &t);
	if (r < 0)
		return r;
	*index = 0;
	return r ? profdb_hpcrun_trace_window(&t, time, UINT64_MAX, index, &last) : 0;
}

/* ---- opening ------------------------------------------------------------------------------ */

static void q_close(void *impl)
{
	hq *q = impl;
	if (!q)
		return;
	for (uint32_t p = 0; q->prof && p < q->n_profiles; p++) {
		hq_profile *pr = &q->prof[p];
		free(pr->metric);
		free(pr->metric_sorted);
		free(pr->merged);
		free(pr->by_merged);
		free(pr->incl);
		profdb__once_destroy(&pr->incl_once);
	}
	free(q->prof);
	free(q->metrics);
	free(q->ident);
	free(q->names);
	free(q->nodes);
	free(q->modules);
	profdb__once_destroy(&q->tree_once);
	profdb__once_destroy(&q->count_once);
	profdb_hpcrun_close(q->h);
	free(q);
}

static int wrap(void **impl, profdb_hpcrun *h, const profdb_options *opts)
{
	hq *q = calloc(1, sizeof *q);
	if (!q) {
		profdb_hpcrun_close(h);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	q->h = h;
	profdb__options_copy(&q->opts, opts);
	profdb__once_init(&q->tree_once);
	profdb__once_init(&q->count_once);
	int64_t np = profdb_hpcrun_profile_count(h);
	int r = np < 0 ? (int)np : 0;
	if (r == 0 && np >= NONE)
		r = profdb__fail(-EFBIG, "%" PRId64 " hpcrun profiles: more than 32-bit indices", np);
	if (r == 0) {
		q->prof = calloc((size_t)(np ? np : 1), sizeof *q->prof);
		if (!q->prof)
			r = profdb__fail(-ENOMEM, "out of memory");
	}
	if (r == 0) {
		q->n_profiles = (uint32_t)np;
		for (uint32_t p = 0; p < q->n_profiles; p++)
			profdb__once_init(&q->prof[p].incl_once);
		r = merge_metrics(q);
	}
	if (r == 0)
		r = build_identities(q);
	if (r < 0) {
		q_close(q);
		return r;
	}
	describe(q);
	*impl = q;
	return 0;
}

static int q_open_path(void **impl, const char *path, const profdb_options *opts)
{
	profdb_hpcrun *h;
	*impl = NULL;
	int r = profdb_hpcrun_open(&h, path, opts);
	return r < 0 ? r : wrap(impl, h, opts);
}

static int name_ends(const char *name, const char *suffix)
{
	size_t n = name ? strlen(name) : 0, s = strlen(suffix);
	return n >= s && strcmp(name + n - s, suffix) == 0;
}

static int hpcrun_name(const char *name)
{
	return name_ends(name, ".hpcrun") || name_ends(name, ".hpctrace");
}

/* The two magics; or, for a file named like one, the "HPCRUN-" prefix, so
 * that a damaged file gets the reader's precise message. */
static int q_sniff(const unsigned char *head, size_t n, const char *name)
{
	if (n >= 18 && (memcmp(head, "HPCRUN-profile____", 18) == 0 ||
	                memcmp(head, "HPCRUN-trace______", 18) == 0))
		return 1;
	return hpcrun_name(name) && n >= 7 && memcmp(head, "HPCRUN-", 7) == 0;
}

/* Inputs that are neither hpcrun bytes nor named .hpcrun/.hpctrace (a .log
 * or all.lm given along) are left out, as in a directory. */
static int q_open_inputs(void **impl, const profdb_input *in, size_t n,
                         const profdb_options *opts)
{
	*impl = NULL;
	profdb_blob *blobs = calloc(n ? n : 1, sizeof *blobs);
	const char **names = calloc(n ? n : 1, sizeof *names);
	if (!blobs || !names) {
		free(blobs);
		free(names);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *head = in[i].data ? in[i].data : (const unsigned char *)"";
		const char *base = in[i].name ? strrchr(in[i].name, '/') : NULL;
		base = base ? base + 1 : in[i].name;
		if (!q_sniff(head, in[i].data ? in[i].size : 0, base) && !hpcrun_name(base))
			continue;
		blobs[k] = (profdb_blob){in[i].data, in[i].size};
		names[k++] = in[i].name;
	}
	profdb_hpcrun *h;
	int r = profdb_hpcrun_open_mem(&h, blobs, names, k, opts);
	free(blobs);
	free(names);
	return r < 0 ? r : wrap(impl, h, opts);
}

static const void *q_native(const void *impl)
{
	return ((const hq *)impl)->h;
}

const profdb__backend profdb__hpcrun_backend = {
	.format = PROFDB_FORMAT_HPCRUN,
	.sniff = q_sniff,
	.open_path = q_open_path,
	.open_inputs = q_open_inputs,
	.close = q_close,
	.about = q_about,
	.counts = q_counts,
	.metric_count = q_metric_count,
	.metric_at = q_metric_at,
	.metric_get = q_metric_at,
	.context_count = q_context_count,
	.context_root = q_context_root,
	.context_get = q_context_get,
	.profile_count = q_profile_count,
	.profile_get = q_profile_get,
	.profile_identity = q_profile_identity,
	.value = q_value,
	.scoped = q_scoped,
	.cursor_begin = q_cursor_begin,
	.cursor_next = q_cursor_next,
	.cursor_free = q_cursor_free,
	.trace_length = q_trace_length,
	.trace_at = q_trace_at,
	.trace_seek = q_trace_seek,
	.native = q_native,
};
