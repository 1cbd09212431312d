/* Line and instruction contexts (lines.h): a function's rows decoded on
 * first use and kept in a cache of at most CGL_BUDGET bytes (a quarter of
 * max_memory when that is less), so memory stays bounded whatever the
 * file, and a scan that goes through the functions once per profile
 * decodes each function once, not once per profile, while they fit.
 *
 * Threads: any number read the cache at once without a lock or an atomic
 * write (line-cache.c); a thread that finds a function not there decodes
 * it outside any lock and offers the entry to the cache: two threads may
 * decode the same function at once, and the second copy is not kept. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines-internal.h"
#include "scan-internal.h"

/* At most this many threads count the rows (profdb__cgl_totals). */
#define CG_COUNT_THREADS 8u

#define CGL_BUDGET ((uint64_t)4 << 20)

/* The rows of one function over every profile. */
typedef struct cgl_fn {
	uint32_t fn, n_rows;
	int has_instr;
	/* in the block after this header (entry_new) */
	cgl_key *key;       /* n_rows, sorted by line, instruction, file */
	uint32_t *first;    /* n_rows + 1: row k's entries are [first[k], first[k + 1]) */
	uint32_t *prof;     /* per entry: its profile (ascending within a row) */
	uint64_t *cost;     /* per entry: n_events costs */
} cgl_fn;

struct cg_lines {
	const profdb_cg *cg;
	uint32_t *base;     /* n_fns + 1 ids */
	cgl_cache cache;    /* a slot per function */
	profdb__once totals_once;
	uint64_t n_rows, n_values;
};

int profdb__cgl_new(cg_lines **out, const profdb_cg *cg)
{
	*out = NULL;
	/* A function's cost lines bound its rows and their entries (one per
	 * row and profile): the cache never holds more than all_words. */
	uint64_t id = (uint64_t)cg->n_fns + 1, all_words = 0;
	for (uint32_t f = 0; f < cg->n_fns; f++) {
		uint32_t n = cg->fns[f].n_body;
		id += n;
		all_words += n ? cgl_entry_words(n, n, cg->n_events) : 0;
	}
	if (id >= PROFDB_NONE) {
		profdb__warn(&cg->opts, "callgrind: %" PRIu64 " cost lines do not fit 32-bit context "
		             "ids; functions have no line/instruction children", id);
		return 0;
	}
	cg_lines *l = calloc(1, sizeof *l);
	uint64_t limit = cg->opts.max_memory ? cg->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	uint64_t budget = limit / 4 < CGL_BUDGET ? limit / 4 : CGL_BUDGET;
	if (!l || !(l->base = malloc(((size_t)cg->n_fns + 1) * sizeof *l->base)) ||
	    profdb__cgc_init(&l->cache, cg->n_fns, budget, all_words, cg->n_events) < 0) {
		if (l)
			free(l->base);
		free(l);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	l->cg = cg;
	uint32_t b = cg->n_fns + 1;
	for (uint32_t f = 0; f < cg->n_fns; f++) {
		l->base[f] = b;
		b += cg->fns[f].n_body;
	}
	l->base[cg->n_fns] = b;
	profdb__once_init(&l->totals_once);
	*out = l;
	return 0;
}

void profdb__cgl_free(cg_lines *l)
{
	if (!l)
		return;
	profdb__cgc_free(&l->cache);
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

void profdb__cgl_prefetch(const cg_lines *l, uint32_t fn)
{
#if defined(__GNUC__) || defined(__clang__)
	if (l && fn < l->cg->n_fns)
		__builtin_prefetch(&l->cache.slot[fn]);
#else
	(void)l, (void)fn;
#endif
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
	*d = (cgl_fn){.fn = fn};
	d->key = (cgl_key *)(void *)at;
	at += (size_t)rows * sizeof *d->key;
	d->cost = (uint64_t *)(void *)at;
	at += cost;
	d->first = (uint32_t *)(void *)at;
	d->prof = d->first + rows + 1;
	return d;
}

/* Function @p fn (its self cost is non-zero, so n_events > 0) merged from
 * its details (two or more; a function of one profile is written from
 * its detail straight: each_of_one(), encode_one()): by position, each
 * cost copied once. */
static int merge(const profdb_cg *cg, uint32_t fn, const fn_details *x, cgl_fn **out)
{
	size_t ne = cg->n_events;
	tmp_row *t = NULL;
	uint32_t n = 0;
	size_t cap = 0;
	int r = 0;
	cgl_fn *d = NULL;
	*out = NULL;
	/* room for every row at once (the zero ones are left out) */
	uint64_t all = 0;
	for (uint32_t i = 0; i < x->n; i++)
		all += (uint64_t)profdb_cg_detail_line_count(x->det[i]);
	if (all)
		r = profdb__cg_grow((void **)&t, &cap, all, sizeof *t);
	for (uint32_t i = 0; i < x->n && r == 0; i++)
		r = add_rows(cg, x->det[i], x->prof[i], &t, &n, &cap);
	if (r < 0)
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

/* ---- the cache (line-cache.c) -------------------------------------------------- */

static uint64_t words_of(const cgl_fn *d, size_t ne)
{
	return cgl_entry_words(d->n_rows, d->first[d->n_rows], ne);
}

/* @p d in words (words_of()), at @p w. */
static void encode(const cgl_fn *d, size_t ne, _Atomic uint64_t *w)
{
	uint32_t entries = d->first[d->n_rows];
	cgl_st(&w[0], d->n_rows | (uint64_t)entries << 32);
	cgl_st(&w[1], (uint64_t)(d->has_instr != 0) | (uint64_t)d->fn << 32);
	_Atomic uint64_t *row = w + CGL_HDR_WORDS;
	for (uint32_t k = 0; k < d->n_rows; k++, row += CGL_ROW_WORDS) {
		cgl_st(&row[0], d->key[k].line);
		cgl_st(&row[1], d->key[k].instr);
		cgl_st(&row[2], d->key[k].src | (uint64_t)d->first[k] << 32);
	}
	for (uint32_t i = 0; i < entries; i++, row += 1 + ne) {
		cgl_st(&row[0], d->prof[i]);
		for (size_t e = 0; e < ne; e++)
			cgl_st(&row[1 + e], d->cost[(size_t)i * ne + e]);
	}
}

/* What an entry is written from: the detail of the function's one
 * profile (x, with rows non-zero rows) or the merge of its details (d). */
typedef struct entry_src {
	const profdb_cg *cg;
	const fn_details *x;
	uint32_t fn, rows;
	const cgl_fn *d;
} entry_src;

static uint64_t src_words(const entry_src *e)
{
	size_t ne = e->cg->n_events;
	return e->d ? words_of(e->d, ne) : cgl_entry_words(e->rows, e->rows, ne);
}

/* @p e in words (src_words()), at @p w; from a detail, its non-zero
 * rows, one entry each, with no copy in between. */
static void encode_src(const void *src, _Atomic uint64_t *w)
{
	const entry_src *e = src;
	const profdb_cg *cg = e->cg;
	size_t ne = cg->n_events;
	if (e->d) {
		encode(e->d, ne, w);
		return;
	}
	const profdb_cg_detail *det = e->x->det[0];
	int64_t nl = profdb_cg_detail_line_count(det);
	uint64_t prof = e->x->prof[0];
	_Atomic uint64_t *row = w + CGL_HDR_WORDS, *ent = row + (size_t)CGL_ROW_WORDS * e->rows;
	cgl_st(&w[0], e->rows | (uint64_t)e->rows << 32);
	cgl_st(&w[1], (uint64_t)(e->x->has_instr != 0) | (uint64_t)e->fn << 32);
	uint32_t k = 0;
	for (int64_t i = 0; i < nl && k < e->rows; i++) {
		cgl_key key;
		const uint64_t *self;
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		if (!nonzero(self, cg->n_events))
			continue;   /* a position-only line, or zero costs */
		cgl_st(&row[0], key.line);
		cgl_st(&row[1], key.instr);
		cgl_st(&row[2], key.src | (uint64_t)k << 32);
		cgl_st(&ent[0], prof);
		for (size_t c = 0; c < ne; c++)
			cgl_st(&ent[1 + c], self[c]);
		row += CGL_ROW_WORDS;
		ent += 1 + ne;
		k++;
	}
}

/* The non-zero rows of the detail of a function's one profile. */
static uint32_t rows_of_one(const profdb_cg *cg, const fn_details *x)
{
	const profdb_cg_detail *det = x->det[0];
	int64_t nl = profdb_cg_detail_line_count(det);
	uint32_t rows = 0;
	for (int64_t i = 0; i < nl; i++) {
		cgl_key key;
		const uint64_t *self;
		profdb__cg_detail_row(det, (uint32_t)i, &key.src, &key.line, &key.instr, &self);
		rows += nonzero(self, cg->n_events);
	}
	return rows;
}

/* Row q->k of function @p fn, which is not in the cache: decoded,
 * offered to the cache and read there (or from a copy of its own when
 * the cache has no memory for it). CGL_READ_OK, CGL_READ_NO_ROW (q->n_rows
 * set) or < 0. */
static int read_decoded(cg_lines *l, uint32_t fn, cgl_read *q)
{
	if (profdb__cgl_first_child(l, fn) == PROFDB_NONE) {
		q->n_rows = 0;
		return CGL_READ_NO_ROW;
	}
	const profdb_cg *cg = l->cg;
	entry_src e = {cg, NULL, fn, 0, NULL};
	cgl_fn *d = NULL;
	fn_details x;
	int r = details(cg, fn, &x);
	if (r == 0 && x.n == 1) {
		e.x = &x;
		if (!(e.rows = rows_of_one(cg, &x)))   /* the self cost says otherwise */
			r = profdb__fail(-EBADMSG, "callgrind: function %" PRIu32 " has a self cost "
			                 "but no line rows", fn);
	} else if (r == 0) {
		r = merge(cg, fn, &x, &d);
		e.d = d;
	}
	if (r == 0 && (r = profdb__cgc_insert_and_read(&l->cache, fn, src_words(&e), encode_src, &e, q)) == CGL_READ_TORN) {
		uint64_t n = src_words(&e);
		_Atomic uint64_t *w = n <= SIZE_MAX / sizeof(uint64_t) ?
		                      malloc((size_t)n * sizeof(uint64_t)) : NULL;
		if (w) {
			encode_src(&e, w);
			r = cgl_read_entry(w, n, cg->n_events, q);
		} else {
			r = profdb__fail(-ENOMEM, "callgrind: out of memory");
		}
		free(w);
	}
	details_free(&x);
	free(d);
	return r;
}

/* Row q->k of function @p fn: from the cache, else decoded. */
static inline int read_row(cg_lines *l, uint32_t fn, cgl_read *q)
{
	if (cgl_cache_read(&l->cache, fn, q))
		return q->k < q->n_rows ? CGL_READ_OK : CGL_READ_NO_ROW;
	return read_decoded(l, fn, q);
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

/* Row @p id read as @p q asks (q->k is set here): its function in *fn. */
static int read_id(cg_lines *l, uint32_t id, cgl_read *q, uint32_t *fn)
{
	int r;
	if (!l)
		return profdb__fail(-ENOENT, "callgrind: no context %" PRIu32, id);
	*fn = last_fn;
	if (*fn < l->cg->n_fns && id >= l->base[*fn] && id < l->base[*fn + 1]) {
		q->k = id - l->base[*fn];
	} else {
		if ((r = owner(l, id, fn, &q->k)) < 0)
			return r;
		last_fn = *fn;
	}
	if ((r = read_row(l, *fn, q)) == CGL_READ_NO_ROW)
		return no_row(id, *fn, q->n_rows);
	return r;
}

void profdb__cgl_usage(cg_lines *l, uint64_t *bytes, uint64_t *budget, uint64_t *entries)
{
	profdb__cgc_usage(&l->cache, bytes, budget, entries);
}

int profdb__cgl_snap(const cg_lines *l, uint32_t fn, cgl_snap *s)
{
	return fn < l->cg->n_fns && cgl_snap_take(&l->cache, fn, s);
}

int profdb__cgl_snap_row(const cg_lines *l, const cgl_snap *s, uint32_t k, int check,
                         cgl_row *out)
{
	cgl_read q = {.k = k, .p = CGL_ROW_ONLY};
	if (!cgl_snap_read(&l->cache, s, check, &q) || k >= q.n_rows)
		return 0;
	*out = (cgl_row){s->fn, k, q.key.src, q.key.line, q.key.instr, q.has_instr,
	                 k + 1 == q.n_rows};
	return 1;
}

int profdb__cgl_row(cg_lines *l, uint32_t id, cgl_row *out)
{
	cgl_read q = {.p = CGL_ROW_ONLY};
	uint32_t fn = 0;
	int r = read_id(l, id, &q, &fn);
	if (r < 0)
		return r;
	*out = (cgl_row){fn, q.k, q.key.src, q.key.line, q.key.instr, q.has_instr,
	                 q.k + 1 == q.n_rows};
	return 0;
}

int profdb__cgl_cost(cg_lines *l, uint32_t id, uint32_t p, uint64_t *out)
{
	cgl_read q = {.p = p, .e = CGL_ALL_EVENTS, .cost = out};
	uint32_t fn;
	int r = read_id(l, id, &q, &fn);
	if (r < 0)
		return r;
	if (!q.found)
		memset(out, 0, l->cg->n_events * sizeof *out);
	return q.found;
}

int profdb__cgl_value(cg_lines *l, uint32_t id, uint32_t p, uint32_t e, uint64_t *out)
{
	cgl_read q = {.p = p, .e = e, .cost = out};
	uint32_t fn;
	int r = read_id(l, id, &q, &fn);
	if (r < 0)
		return r;
	if (!q.found)
		*out = 0;
	return q.found;
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
			cgl_read q = {.k = k, .p = CGL_ROW_ONLY};
			int r = read_row(l, fn, &q);
			if (r < 0)
				return r;
			if (r == CGL_READ_NO_ROW)
				continue;
		}
		*next = l->base[fn] + k;
		return 0;
	}
	return 0;
}
