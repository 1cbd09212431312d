/* Line and instruction contexts (lines.h): a function's rows decoded on
 * first use and kept in a cache of at most CGL_BUDGET bytes (a quarter of
 * max_memory when that is less), so memory stays bounded whatever the
 * file, and a scan that goes through the functions once per profile
 * decodes each function once, not once per profile, while they fit.
 *
 * Threads: any number read the cache at once without a lock. Each
 * function has a slot: the entry (its decoded rows) and one atomic word,
 * a flag "entry present", a flag "read since the last eviction round" and
 * the count of readers holding the entry. A reader adds one to the word
 * (acquire): if the flag says present, the entry stays alive until the
 * reader takes its one back (release); else it takes its one back at once
 * and decodes. Entries are added and evicted under one mutex, which only
 * threads that decoded take: an entry is filled, then published by adding
 * "present" to the word (release); an eviction is a compare-and-swap of
 * the word from exactly "present" (no reader, not read since the last
 * round) to 0, so it never frees what a reader holds, and no reader can
 * take an entry once that swap is done (its add then sees no "present").
 * A slot is never freed before the handle, so the add is always on live
 * memory. Eviction goes round the entries oldest first and gives one
 * that was read since its last turn, or is held, another round (a second
 * chance, close to least recently used without readers writing a shared
 * list); the cache can exceed its budget by the entries being read at
 * that moment. Decoding happens outside the mutex: two threads may decode
 * the same function at once, and the second result is dropped. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines-internal.h"
#include "scan-internal.h"

/* At most this many threads count the rows (profdb__cgl_totals). */
#define CG_COUNT_THREADS 8u

#define CGL_BUDGET ((uint64_t)4 << 20)

typedef struct cgl_key {
	uint64_t line, instr;
	uint32_t src;
} cgl_key;

/* The rows of one function over every profile. */
typedef struct cgl_fn {
	uint32_t fn, n_rows;
	int has_instr;
	/* in the block after this header (entry_new) */
	cgl_key *key;       /* n_rows, sorted by line, instruction, file */
	uint32_t *first;    /* n_rows + 1: row k's entries are [first[k], first[k + 1]) */
	uint32_t *prof;     /* per entry: its profile (ascending within a row) */
	uint64_t *cost;     /* per entry: n_events costs */
	uint64_t bytes;     /* the block's size */
	struct cgl_fn *prev, *next;   /* the eviction round, newest first (under lock) */
} cgl_fn;

/* A slot's word: the entry is there, read since its last turn, readers. */
#define SLOT_PRESENT ((uint64_t)1 << 63)
#define SLOT_READ ((uint64_t)1 << 62)

typedef struct cgl_slot {
	_Atomic uint64_t word;
	cgl_fn *d;          /* written under lock before "present" is added */
} cgl_slot;

struct cg_lines {
	const profdb_cg *cg;
	uint32_t *base;     /* n_fns + 1 ids */
	cgl_slot *slot;     /* n_fns + 1 */
	pthread_mutex_t lock;   /* adding and evicting entries; the fields below */
	cgl_fn *head, *tail;
	uint64_t bytes, budget, n_entries;
	profdb__once totals_once;
	uint64_t n_rows, n_values;
};

int profdb__cgl_new(cg_lines **out, const profdb_cg *cg)
{
	*out = NULL;
	uint64_t id = (uint64_t)cg->n_fns + 1;
	for (uint32_t f = 0; f < cg->n_fns; f++)
		id += cg->fns[f].n_body;
	if (id >= PROFDB_NONE) {
		profdb__warn(&cg->opts, "callgrind: %" PRIu64 " cost lines do not fit 32-bit context "
		             "ids; functions have no line/instruction children", id);
		return 0;
	}
	cg_lines *l = calloc(1, sizeof *l);
	if (!l || !(l->base = malloc(((size_t)cg->n_fns + 1) * sizeof *l->base)) ||
	    !(l->slot = calloc((size_t)cg->n_fns + 1, sizeof *l->slot))) {
		if (l)
			free(l->base);
		free(l);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	l->cg = cg;
	uint64_t limit = cg->opts.max_memory ? cg->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	l->budget = limit / 4 < CGL_BUDGET ? limit / 4 : CGL_BUDGET;
	uint32_t b = cg->n_fns + 1;
	for (uint32_t f = 0; f < cg->n_fns; f++) {
		l->base[f] = b;
		b += cg->fns[f].n_body;
	}
	l->base[cg->n_fns] = b;
	for (uint32_t f = 0; f <= cg->n_fns; f++)
		atomic_init(&l->slot[f].word, 0);
	pthread_mutex_init(&l->lock, NULL);
	profdb__once_init(&l->totals_once);
	*out = l;
	return 0;
}

void profdb__cgl_free(cg_lines *l)
{
	if (!l)
		return;
	while (l->head) {
		cgl_fn *d = l->head;
		l->head = d->next;
		free(d);
	}
	free(l->slot);
	pthread_mutex_destroy(&l->lock);
	profdb__once_destroy(&l->totals_once);
	free(l->base);
	free(l);
}

static int has_self(const profdb_cg *cg, uint32_t fn)
{
	const uint64_t *c = cg->self + (size_t)fn * cg->n_events;
	for (uint32_t e = 0; e < cg->n_events; e++)
		if (c[e])
			return 1;
	return 0;
}

uint32_t profdb__cgl_first_child(const cg_lines *l, uint32_t fn)
{
	/* Rows add up to the self cost, so a non-zero self cost means at
	 * least one non-zero row, and a zero one means none. */
	if (!l || fn >= l->cg->n_fns || !has_self(l->cg, fn))
		return PROFDB_NONE;
	return l->base[fn];
}

/* ---- decoding ------------------------------------------------------------ */

/* A non-zero row of one profile's detail, before the profiles are merged. */
typedef struct tmp_row {
	cgl_key key;
	uint32_t prof;
	const uint64_t *self;   /* in the profile's detail, alive until the merge is done */
} tmp_row;

static int cmp_tmp(const void *a, const void *b)
{
	const tmp_row *x = a, *y = b;
	if (x->key.line != y->key.line)
		return x->key.line < y->key.line ? -1 : 1;
	if (x->key.instr != y->key.instr)
		return x->key.instr < y->key.instr ? -1 : 1;
	if (x->key.src != y->key.src)
		return x->key.src < y->key.src ? -1 : 1;
	return x->prof < y->prof ? -1 : x->prof > y->prof;
}

static int nonzero(const uint64_t *c, uint32_t n)
{
	for (uint32_t e = 0; e < n; e++)
		if (c[e])
			return 1;
	return 0;
}

static int same_key(const cgl_key *a, const cgl_key *b)
{
	return a->line == b->line && a->instr == b->instr && a->src == b->src;
}

/* The non-zero rows of @p det (profile @p p), appended to *t. */
static int add_rows(const profdb_cg *cg, const profdb_cg_detail *det, uint32_t p, tmp_row **t,
                    uint32_t *n, size_t *cap)
{
	int64_t nl = profdb_cg_detail_line_count(det);
	for (int64_t i = 0; i < nl; i++) {
		cgl_key key;
		const uint64_t *self;
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		if (!nonzero(self, cg->n_events))
			continue;   /* a position-only line, or zero costs */
		int r = profdb__cg_grow((void **)t, cap, (uint64_t)*n + 1, sizeof **t);
		if (r < 0)
			return r;
		(*t)[(*n)++] = (tmp_row){key, p, self};
	}
	return 0;
}

/* The detail of each profile of function @p fn, in profile order, and
 * whether one of them has an instruction column. */
typedef struct fn_details {
	profdb_cg_detail **det;
	uint32_t *prof;
	uint32_t n;
	size_t cap;
	int has_instr;
} fn_details;

static void details_free(fn_details *x)
{
	for (uint32_t i = 0; i < x->n; i++)
		profdb_cg_detail_free(x->det[i]);
	free(x->det);
	free(x->prof);
}

static int details(const profdb_cg *cg, uint32_t fn, fn_details *x)
{
	int r = 0;
	memset(x, 0, sizeof *x);
	/* The profiles of the function: its blocks are in text order and
	 * profiles are numbered in text order, so they come ascending, each
	 * one a run of blocks; one pass over the list decodes them all. */
	uint32_t last = PROFDB_NONE;
	if ((r = profdb__cg_blocks(cg)) < 0)
		return r;
	for (uint32_t s = cg->blk_first[fn]; s != CG_EMPTY && r == 0;) {
		uint32_t p = profdb__cg_blk_profile(cg, s);
		if (last != PROFDB_NONE && p <= last)
			return profdb__fail(-EBADMSG, "callgrind: internal error: the blocks of function %"
			                    PRIu32 " are not in profile order", fn);
		last = p;
		size_t cap = x->cap;
		if ((r = profdb__cg_grow((void **)&x->det, &x->cap, (uint64_t)x->n + 1,
		                         sizeof *x->det)) < 0)
			return r;
		if (cap != x->cap) {
			uint32_t *q = realloc(x->prof, x->cap * sizeof *q);
			if (!q)
				return profdb__fail(-ENOMEM, "callgrind: out of memory");
			x->prof = q;
		}
		if ((r = profdb__cg_detail_run(cg, fn, &s, &x->det[x->n])) < 0)
			return r;
		x->prof[x->n++] = p;
		for (uint32_t c = 0; c < cg->profiles[p].n_pos; c++)
			x->has_instr |= cg->profiles[p].pos_kind[c] == CG_POS_INSTR;
	}
	return r;
}

/* An entry of function @p fn with room for @p rows rows and @p n
 * entries of @p ne costs, in one block: the header, then the keys, costs,
 * row starts and profiles (falling alignment, no padding). */
static cgl_fn *entry_new(uint32_t fn, uint32_t rows, uint32_t n, size_t ne)
{
	size_t cost, rest = sizeof(cgl_fn) + (size_t)rows * sizeof(cgl_key) +
	                    ((size_t)rows + 1 + n) * sizeof(uint32_t);
	if (profdb__cg_bytes(n, ne, sizeof(uint64_t), &cost) < 0 || cost > SIZE_MAX - rest)
		return NULL;
	cgl_fn *d = malloc(rest + cost);
	if (!d)
		return NULL;
	char *at = (char *)(d + 1);
	*d = (cgl_fn){.fn = fn, .bytes = rest + cost};
	d->key = (cgl_key *)(void *)at;
	at += (size_t)rows * sizeof *d->key;
	d->cost = (uint64_t *)(void *)at;
	at += cost;
	d->first = (uint32_t *)(void *)at;
	d->prof = d->first + rows + 1;
	return d;
}

/* Function @p fn (its self cost is non-zero, so n_events > 0) from the
 * detail of its one profile: the non-zero rows, copied once. */
static int from_one(const profdb_cg *cg, uint32_t fn, const fn_details *x, cgl_fn **out)
{
	size_t ne = cg->n_events;
	const profdb_cg_detail *det = x->det[0];
	int64_t nl = profdb_cg_detail_line_count(det);
	cgl_key key;
	const uint64_t *self;
	uint32_t rows = 0;
	for (int64_t i = 0; i < nl; i++) {
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		rows += nonzero(self, cg->n_events);
	}
	cgl_fn *d = entry_new(fn, rows, rows, ne);
	if (!d)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	d->has_instr = x->has_instr;
	for (int64_t i = 0; i < nl; i++) {
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		if (!nonzero(self, cg->n_events))
			continue;   /* a position-only line, or zero costs */
		d->key[d->n_rows] = key;
		d->prof[d->n_rows] = x->prof[0];
		memcpy(d->cost + (size_t)d->n_rows * ne, self, ne * sizeof *d->cost);
		d->first[d->n_rows] = d->n_rows;
		d->n_rows++;
	}
	d->first[d->n_rows] = d->n_rows;
	*out = d;
	return 0;
}

/* Function @p fn (its self cost is non-zero, so n_events > 0) merged from
 * its details: by position, each cost copied once. */
static int merge(const profdb_cg *cg, uint32_t fn, const fn_details *x, cgl_fn **out)
{
	size_t ne = cg->n_events;
	tmp_row *t = NULL;
	uint32_t n = 0;
	size_t cap = 0;
	int r = 0;
	cgl_fn *d = NULL;
	*out = NULL;
	if (x->n == 1)
		r = from_one(cg, fn, x, &d);
	else {
		/* room for every row at once (the zero ones are left out) */
		uint64_t all = 0;
		for (uint32_t i = 0; i < x->n; i++)
			all += (uint64_t)profdb_cg_detail_line_count(x->det[i]);
		if (all)
			r = profdb__cg_grow((void **)&t, &cap, all, sizeof *t);
		for (uint32_t i = 0; i < x->n && r == 0; i++)
			r = add_rows(cg, x->det[i], x->prof[i], &t, &n, &cap);
	}
	if (r < 0 || d)
		goto out;
	/* by key, then profile */
	if (n > 1)
		qsort(t, n, sizeof *t, cmp_tmp);
	uint32_t rows = 0;
	for (uint32_t i = 0; i < n; i++)
		rows += i == 0 || !same_key(&t[i].key, &t[i - 1].key);
	if (!(d = entry_new(fn, rows, n, ne))) {
		r = profdb__fail(-ENOMEM, "callgrind: out of memory");
		goto out;
	}
	d->has_instr = x->has_instr;
	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 || !same_key(&t[i].key, &t[i - 1].key)) {
			d->key[d->n_rows] = t[i].key;
			d->first[d->n_rows++] = i;
		}
		d->prof[i] = t[i].prof;
		memcpy(d->cost + (size_t)i * ne, t[i].self, ne * sizeof *d->cost);
	}
	d->first[d->n_rows] = n;
out:
	free(t);
	if (r == 0 && d->n_rows == 0)   /* the self cost says otherwise */
		r = profdb__fail(-EBADMSG, "callgrind: function %" PRIu32 " has a self cost but no "
		                 "line rows", fn);
	if (r < 0) {
		free(d);
		return r;
	}
	*out = d;
	return 0;
}

/* Decode function @p fn: its details, merged. */
static int decode(const profdb_cg *cg, uint32_t fn, cgl_fn **out)
{
	fn_details x;
	*out = NULL;
	int r = details(cg, fn, &x);
	if (r == 0)
		r = merge(cg, fn, &x, out);
	details_free(&x);
	return r;
}

/* ---- the cache ------------------------------------------------------------- */

static void lru_unlink(cg_lines *l, cgl_fn *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		l->head = d->next;
	if (d->next)
		d->next->prev = d->prev;
	else
		l->tail = d->prev;
	d->prev = d->next = NULL;
}

static void lru_push(cg_lines *l, cgl_fn *d)
{
	d->prev = NULL;
	d->next = l->head;
	if (l->head)
		l->head->prev = d;
	else
		l->tail = d;
	l->head = d;
}

/* The entry of function @p fn held for the caller (unpin() lets it go),
 * or NULL when it is not in the cache. No lock. */
static const cgl_fn *pin(cg_lines *l, uint32_t fn)
{
	cgl_slot *s = &l->slot[fn];
	uint64_t w = atomic_fetch_add_explicit(&s->word, 1, memory_order_acquire);
	if (!(w & SLOT_PRESENT)) {
		atomic_fetch_sub_explicit(&s->word, 1, memory_order_release);
		return NULL;
	}
	if (!(w & SLOT_READ))   /* once per round, not a write per read */
		atomic_fetch_or_explicit(&s->word, SLOT_READ, memory_order_relaxed);
	return s->d;
}

static void unpin(cg_lines *l, uint32_t fn)
{
	atomic_fetch_sub_explicit(&l->slot[fn].word, 1, memory_order_release);
}

/* Over budget: the oldest entries go, each that was read since its last
 * turn or is held now getting another round; at most two rounds (the
 * first clears every mark), so a cache whose entries are all held stays
 * over budget until they are let go. Lock held. */
static void evict(cg_lines *l)
{
	for (uint64_t n = 2 * l->n_entries; l->bytes > l->budget && n > 0; n--) {
		cgl_fn *v = l->tail;
		cgl_slot *s = &l->slot[v->fn];
		uint64_t w = SLOT_PRESENT;
		lru_unlink(l, v);
		if (atomic_compare_exchange_strong_explicit(&s->word, &w, 0, memory_order_acquire,
		                                            memory_order_relaxed)) {
			l->bytes -= v->bytes;
			l->n_entries--;
			free(v);
			continue;
		}
		if (w & SLOT_READ)
			atomic_fetch_and_explicit(&s->word, ~SLOT_READ, memory_order_relaxed);
		lru_push(l, v);
	}
}

/* Function @p fn decoded, held for the caller (unpin()). */
static int pin_decoded(cg_lines *l, uint32_t fn, const cgl_fn **out)
{
	if ((*out = pin(l, fn)))
		return 0;
	cgl_fn *d;
	int r = decode(l->cg, fn, &d);
	if (r < 0)
		return r;
	cgl_slot *s = &l->slot[fn];
	pthread_mutex_lock(&l->lock);
	/* "present" changes only under the lock: stable here */
	if (atomic_load_explicit(&s->word, memory_order_relaxed) & SLOT_PRESENT) {
		/* another thread was quicker: its copy (not evicted while the
		 * lock is held), held before the lock is let go */
		atomic_fetch_add_explicit(&s->word, 1, memory_order_acquire);
		free(d);
		*out = s->d;
	} else {
		s->d = d;
		atomic_fetch_add_explicit(&s->word, SLOT_PRESENT + 1, memory_order_release);
		lru_push(l, d);
		l->bytes += d->bytes;
		l->n_entries++;
		evict(l);   /* never the new entry: it is held */
		*out = d;
	}
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* The function owning @p id and the index of @p id in its range. */
static int owner(const cg_lines *l, uint32_t id, uint32_t *fn, uint32_t *k)
{
	uint32_t nf = l->cg->n_fns;
	if (id < l->base[0] || id >= l->base[nf])
		return profdb__fail(-ENOENT, "callgrind: no context %" PRIu32, id);
	/* the last function with base <= id (base[nf] > id: one before nf) */
	profdb_view v = profdb__cg_u32_view(l->base, (uint64_t)nf + 1, sizeof *l->base, 0);
	uint64_t lo = 0;
	if (profdb_view_in_effect(&v, id, &lo) != 1)
		return profdb__fail(-ENOENT, "callgrind: no context %" PRIu32, id);
	*fn = (uint32_t)lo;
	*k = id - l->base[lo];
	return 0;
}

int profdb__cgl_owner(const cg_lines *l, uint32_t id, uint32_t *fn, uint32_t *k)
{
	return owner(l, id, fn, k);
}

static int no_row(uint32_t id, uint32_t fn, uint32_t n)
{
	return profdb__fail(-ENOENT, "callgrind: no context %" PRIu32 " (function %" PRIu32
	                    " has %" PRIu32 " line/instruction rows)", id, fn, n);
}

/* The function a thread read last: a guess checked against the ids
 * before it is used (ids of one handle or another alike), so the walks
 * that read a function's rows one after another find its owner without
 * a binary search. */
static _Thread_local uint32_t last_fn;

/* The decoded function owning row @p id, held for the caller (unpin()),
 * and the row's index. */
static int pin_row(cg_lines *l, uint32_t id, const cgl_fn **d, uint32_t *k)
{
	uint32_t fn = last_fn;
	int r;
	if (!l)
		return profdb__fail(-ENOENT, "callgrind: no context %" PRIu32, id);
	if (fn < l->cg->n_fns && id >= l->base[fn] && id < l->base[fn + 1]) {
		*k = id - l->base[fn];
	} else {
		if ((r = owner(l, id, &fn, k)) < 0)
			return r;
		last_fn = fn;
	}
	if (!(*d = pin(l, fn))) {
		if (profdb__cgl_first_child(l, fn) == PROFDB_NONE)
			return no_row(id, fn, 0);
		if ((r = pin_decoded(l, fn, d)) < 0)
			return r;
	}
	if (*k < (*d)->n_rows)
		return 0;
	uint32_t n = (*d)->n_rows;
	unpin(l, fn);
	return no_row(id, fn, n);
}

void profdb__cgl_usage(cg_lines *l, uint64_t *bytes, uint64_t *budget, uint64_t *entries)
{
	pthread_mutex_lock(&l->lock);
	*bytes = l->bytes;
	*budget = l->budget;
	*entries = l->n_entries;
	pthread_mutex_unlock(&l->lock);
}

int profdb__cgl_row(cg_lines *l, uint32_t id, cgl_row *out)
{
	const cgl_fn *d;
	uint32_t k;
	int r = pin_row(l, id, &d, &k);
	if (r < 0)
		return r;
	*out = (cgl_row){d->fn, k, d->key[k].src, d->key[k].line, d->key[k].instr, d->has_instr,
	                 k + 1 == d->n_rows};
	unpin(l, d->fn);
	return 0;
}

/* The entry of profile @p p in row @p k of @p d, or -1. */
static int64_t entry_of(const cgl_fn *d, uint32_t k, uint32_t p)
{
	for (uint32_t i = d->first[k]; i < d->first[k + 1]; i++)
		if (d->prof[i] == p)
			return i;
	return -1;
}

int profdb__cgl_cost(cg_lines *l, uint32_t id, uint32_t p, uint64_t *out)
{
	const cgl_fn *d;
	uint32_t k;
	int r = pin_row(l, id, &d, &k);
	if (r < 0)
		return r;
	size_t ne = l->cg->n_events;
	int64_t i = entry_of(d, k, p);
	if (i >= 0)
		memcpy(out, d->cost + (size_t)i * ne, ne * sizeof *out);
	else
		memset(out, 0, ne * sizeof *out);
	unpin(l, d->fn);
	return i >= 0;
}

int profdb__cgl_value(cg_lines *l, uint32_t id, uint32_t p, uint32_t e, uint64_t *out)
{
	const cgl_fn *d;
	uint32_t k;
	int r = pin_row(l, id, &d, &k);
	if (r < 0)
		return r;
	int64_t i = entry_of(d, k, p);
	*out = i >= 0 ? d->cost[(size_t)i * l->cg->n_events + e] : 0;
	unpin(l, d->fn);
	return i >= 0;
}

/* The rows of a function in one profile, straight from its detail: the
 * rows merge() would make (one entry each), without copying them. */
static int each_of_one(const cg_lines *l, uint32_t fn, const fn_details *x, cgl_visit_fn visit,
                       void *ud)
{
	const profdb_cg *cg = l->cg;
	const profdb_cg_detail *det = x->det[0];
	int64_t nl = profdb_cg_detail_line_count(det);
	int64_t last = -1;   /* the last non-zero row */
	cgl_key key;
	const uint64_t *self;
	for (int64_t i = nl; i-- > 0 && last < 0;) {
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		if (nonzero(self, cg->n_events))
			last = i;
	}
	if (last < 0)   /* the self cost says otherwise */
		return profdb__fail(-EBADMSG, "callgrind: function %" PRIu32 " has a self cost but no "
		                    "line rows", fn);
	uint32_t k = 0;
	int r = 0;
	for (int64_t i = 0; i <= last && r >= 0; i++) {
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		if (!nonzero(self, cg->n_events))
			continue;
		cgl_row row = {fn, k, key.src, key.line, key.instr, x->has_instr, i == last};
		r = visit(ud, l->base[fn] + k, &row, 1, &x->prof[0], self);
		k++;
	}
	return r;
}

int profdb__cgl_each(const cg_lines *l, uint32_t fn, cgl_visit_fn visit, void *ud)
{
	if (profdb__cgl_first_child(l, fn) == PROFDB_NONE)
		return 0;
	fn_details x;
	cgl_fn *d = NULL;
	int r = details(l->cg, fn, &x);
	if (r >= 0 && x.n == 1) {
		r = each_of_one(l, fn, &x, visit, ud);
		details_free(&x);
		return r < 0 ? r : 0;
	}
	if (r >= 0)
		r = merge(l->cg, fn, &x, &d);
	details_free(&x);
	size_t ne = l->cg->n_events;
	for (uint32_t k = 0; r >= 0 && d && k < d->n_rows; k++) {
		cgl_row row = {fn, k, d->key[k].src, d->key[k].line, d->key[k].instr, d->has_instr,
		               k + 1 == d->n_rows};
		uint32_t at = d->first[k];
		r = visit(ud, l->base[fn] + k, &row, d->first[k + 1] - at, d->prof + at,
		          d->cost + (size_t)at * ne);
	}
	free(d);
	return r < 0 ? r : 0;
}

/* The rows and non-zero values of functions [from, to), each decoded
 * here and dropped (not through the cache: a count visits every function
 * once, and would only churn it). */
typedef struct count_range {
	const cg_lines *l;
	uint32_t from, to;
	uint64_t rows, values;
	int r;
	char msg[512];   /* the message of r < 0 (messages are per thread) */
} count_range;

/* A row of a count: every stored value of it that is not zero. */
static int count_row(void *ud, uint32_t id, const cgl_row *row, uint32_t n,
                     const uint32_t *profiles, const uint64_t *costs)
{
	count_range *c = ud;
	size_t nv = (size_t)n * c->l->cg->n_events;
	(void)id, (void)row, (void)profiles;
	c->rows++;
	for (size_t i = 0; i < nv; i++)
		c->values += costs[i] != 0;
	return 0;
}

static void *count_fns(void *arg)
{
	count_range *c = arg;
	for (uint32_t fn = c->from; fn < c->to; fn++)
		if ((c->r = profdb__cgl_each(c->l, fn, count_row, c)) < 0) {
			snprintf(c->msg, sizeof c->msg, "%s", profdb__message());
			break;
		}
	return NULL;
}

/* Every function counted, on as many threads as the scan of the text
 * used (the ranges split the cost lines evenly); the counts add up the
 * same in any order. The first error in function order is returned. */
static int count_all(void *arg)
{
	cg_lines *l = arg;
	const profdb_cg *cg = l->cg;
	uint64_t size = 0, body = 0;
	for (uint32_t i = 0; i < cg->n_files; i++)
		size += cg->files[i].size;
	unsigned n = profdb__cgs_threads(cg, size);
	count_range c[CG_COUNT_THREADS];
	pthread_t th[CG_COUNT_THREADS];
	int started[CG_COUNT_THREADS] = {0};
	if (n > CG_COUNT_THREADS)
		n = CG_COUNT_THREADS;
	if (cg->n_fns < 2 * n)
		n = 1;
	int r = n > 1 ? profdb__cg_blocks(cg) : 0;   /* once, before the threads */
	if (r < 0)
		return r;
	for (uint32_t f = 0; f < cg->n_fns; f++)
		body += cg->fns[f].n_body;
	/* range k ends where the cost lines so far reach (k + 1) / n */
	uint64_t got = 0;
	uint32_t fn = 0;
	for (unsigned k = 0; k < n; k++) {
		uint64_t want = k + 1 == n ? UINT64_MAX : body / n * (k + 1);
		c[k] = (count_range){l, fn, fn, 0, 0, 0, {0}};
		while (fn < cg->n_fns && got < want)
			got += cg->fns[fn++].n_body;
		c[k].to = fn;
	}
	for (unsigned k = 1; k < n; k++)
		started[k] = pthread_create(&th[k], NULL, count_fns, &c[k]) == 0;
	count_fns(&c[0]);
	for (unsigned k = 1; k < n; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			count_fns(&c[k]);   /* a thread that cannot start: its range here */
	}
	for (unsigned k = 0; k < n; k++) {
		if (c[k].r < 0) {
			profdb__set_message(c[k].msg);
			return c[k].r;
		}
		l->n_rows += c[k].rows;
		l->n_values += c[k].values;
	}
	return 0;
}

int profdb__cgl_totals(cg_lines *l, uint64_t *rows, uint64_t *values)
{
	*rows = *values = 0;
	if (!l)
		return 0;
	int r = profdb__once_run(&l->totals_once, count_all, l);
	if (r < 0)
		return r;
	*rows = l->n_rows;
	*values = l->n_values;
	return 0;
}

int profdb__cgl_next_id(cg_lines *l, uint32_t id, uint32_t p, uint32_t *next)
{
	uint32_t fn = 0, k = 0;
	*next = PROFDB_NONE;
	if (!l)
		return 0;
	if (id != PROFDB_NONE) {
		int r = owner(l, id, &fn, &k);
		if (r < 0)
			return r;
		k++;
	}
	for (; fn < l->cg->n_fns; fn++, k = 0) {
		if (profdb__cgl_first_child(l, fn) == PROFDB_NONE)
			continue;
		if (p != PROFDB_CG_ALL && profdb__cg_find_row(l->cg, p, fn) == CG_EMPTY)
			continue;
		if (k > 0) {
			const cgl_fn *d;
			int r = pin_decoded(l, fn, &d);
			if (r < 0)
				return r;
			uint32_t n = d->n_rows;
			unpin(l, fn);
			if (k >= n)
				continue;
		}
		*next = l->base[fn] + k;
		return 0;
	}
	return 0;
}
