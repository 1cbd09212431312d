/* The cache of decoded line rows (line-cache.c), shared by the threads
 * of a handle and read without a lock or an atomic write: each function
 * has a slot, a sequence number and where its entry is, and a read
 * checks the number before and after it (a seqlock's read). lines.c
 * decodes the functions and writes their entries in the layout below. */
#ifndef PROFDB_CALLGRIND_LINE_CACHE_H
#define PROFDB_CALLGRIND_LINE_CACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A row's position. */
typedef struct cgl_key {
	uint64_t line, instr;
	uint32_t src;
} cgl_key;

/* An entry is 64-bit words: 2 header words (rows | entries << 32;
 * has_instr | fn << 32), 3 per row (line, instruction, file | first entry
 * << 32) and 1 + n_events per entry (profile, costs); row k's entries end
 * where row k + 1's begin, the last row's at the entry count. */
#define CGL_HDR_WORDS 2u
#define CGL_ROW_WORDS 3u

static inline uint64_t cgl_entry_words(uint64_t rows, uint64_t entries, size_t ne)
{
	return CGL_HDR_WORDS + CGL_ROW_WORDS * rows + entries * (1 + ne);
}

static inline uint64_t cgl_ld(const _Atomic uint64_t *w)
{
	return atomic_load_explicit(w, memory_order_relaxed);
}

static inline void cgl_st(_Atomic uint64_t *w, uint64_t v)
{
	atomic_store_explicit(w, v, memory_order_relaxed);
}


/* What a read asks of a row (k, and p: a profile, or CGL_ROW_ONLY for the
 * position alone; e: an event, or CGL_ALL_EVENTS) and what it gets. */
#define CGL_ROW_ONLY UINT32_MAX
#define CGL_ALL_EVENTS UINT32_MAX

typedef struct cgl_read {
	uint32_t k, p, e;
	uint64_t *cost;     /* n_events values (CGL_ALL_EVENTS) or one, when found */
	uint32_t n_rows;
	int has_instr, found;
	cgl_key key;
} cgl_read;

enum { CGL_READ_OK, CGL_READ_NO_ROW, CGL_READ_TORN };


/* A function's place in the cache. */
typedef struct cgl_slot {
	_Atomic uint64_t seq;     /* even; odd while "where" changes (under lock) */
	_Atomic uint64_t where;   /* its entry: 0 none, else region and word */
} cgl_slot;

/* Memory the entries are written to, freed at close only. */
typedef struct cgl_region {
	_Atomic uint64_t *w;
	uint64_t n;               /* words */
} cgl_region;

/* Each region at least twice the last: never this many. */
#define CGL_REGIONS 48

/* What readers read comes first, the regions keeping it away from the
 * cache lines that every addition writes (the lock and the fields after
 * it). */
typedef struct cgl_cache {
	cgl_slot *slot;           /* one per function */
	size_t ne;                /* costs per entry */
	/* reg[n_reg - 1] is the ring the entries are in, oldest first from
	 * word tail: [tail, head), or once wrapped [tail, wrap) and [0, head);
	 * each region is written once (under the lock) before a slot names it */
	cgl_region reg[CGL_REGIONS];
	pthread_mutex_t lock;     /* adding and evicting entries; the fields below */
	uint32_t n_reg;
	uint64_t tail, head, wrap, wrapped;
	uint64_t bytes, budget, n_entries;
	uint64_t first_ring;      /* words of the first ring */
} cgl_cache;

/* A read's first half: the slot of a function as it was. */
typedef struct cgl_snap {
	uint64_t seq, where;
	uint32_t fn;
} cgl_snap;

/* An empty cache of @p n_slots functions, at most @p budget bytes of
 * entries of @p ne costs each, whose first ring (allocated at first use)
 * is @p first words, or the budget's when that is less: what every entry
 * of the text could take, so that a small text's ring is small. 0 or
 * -ENOMEM (no message). */
int profdb__cgc_init(cgl_cache *c, uint32_t n_slots, uint64_t budget, uint64_t first, size_t ne);
void profdb__cgc_free(cgl_cache *c);

/* The reads, inline: each caller's own copy keeps its cgl_read in
 * registers and drops what it does not ask for. */

/* Row q->k of the entry at @p w, which has @p avail words before its
 * region ends. Every index is checked against what was read before it,
 * so words another thread is rewriting (the reader checks the slot's
 * sequence number afterwards and drops the answer) never lead the read
 * out of the region: CGL_READ_TORN when they do not fit together. */
static inline int cgl_read_entry(const _Atomic uint64_t *w, uint64_t avail, size_t ne,
                                 cgl_read *q)
{
	if (avail < CGL_HDR_WORDS)
		return CGL_READ_TORN;
	uint64_t h = cgl_ld(&w[0]), rest = avail - CGL_HDR_WORDS;
	uint32_t rows = (uint32_t)h, entries = (uint32_t)(h >> 32);
	/* products of 32-bit numbers: no overflow, and no division */
	if ((uint64_t)CGL_ROW_WORDS * rows > rest)
		return CGL_READ_TORN;
	rest -= (uint64_t)CGL_ROW_WORDS * rows;
	if ((uint64_t)entries * (1 + (uint64_t)ne) > rest)
		return CGL_READ_TORN;
	q->n_rows = rows;
	q->has_instr = (int)(cgl_ld(&w[1]) & 1);
	if (q->k >= rows)
		return CGL_READ_NO_ROW;
	const _Atomic uint64_t *row = w + CGL_HDR_WORDS + (size_t)CGL_ROW_WORDS * q->k;
	uint64_t at = cgl_ld(&row[2]);
	q->key.line = cgl_ld(&row[0]);
	q->key.instr = cgl_ld(&row[1]);
	q->key.src = (uint32_t)at;
	uint32_t from = (uint32_t)(at >> 32);
	uint32_t to = q->k + 1 < rows ? (uint32_t)(cgl_ld(&row[CGL_ROW_WORDS + 2]) >> 32) : entries;
	if (from > to || to > entries)
		return CGL_READ_TORN;
	q->found = 0;
	if (q->p == CGL_ROW_ONLY)
		return CGL_READ_OK;
	const _Atomic uint64_t *ent = w + CGL_HDR_WORDS + (size_t)CGL_ROW_WORDS * rows +
	                              (size_t)from * (1 + ne);
	/* A row's entries ascend by profile (lines.c, merge()): a row of a
	 * function in many parts is searched by halves, or asking every
	 * profile of it would cost the square of their count. (Words being
	 * rewritten only mislead the search within [from, to).) */
	while (to - from > 8) {
		uint32_t mid = from + (to - from) / 2;
		if (cgl_ld(&ent[(size_t)(mid - from) * (1 + ne)]) < q->p) {
			ent += (size_t)(mid - from) * (1 + ne);
			from = mid;
		} else {
			to = mid + 1;
		}
	}
	for (uint32_t i = from; i < to; i++, ent += 1 + ne) {
		if (cgl_ld(&ent[0]) != q->p)
			continue;
		q->found = 1;
		if (q->e == CGL_ALL_EVENTS)
			for (size_t e = 0; e < ne; e++)
				q->cost[e] = cgl_ld(&ent[1 + e]);
		else
			q->cost[0] = q->e < ne ? cgl_ld(&ent[1 + q->e]) : 0;
		break;
	}
	return CGL_READ_OK;
}

/* A slot's "where": 0, or the region's index + 1 above CGL_WHERE_SHIFT and
 * the entry's first word below. */
#define CGL_WHERE_SHIFT 48
#define CGL_WHERE_OFF (((uint64_t)1 << CGL_WHERE_SHIFT) - 1)

/* A read from the cache, without writing anything shared: the slot's
 * sequence number and place (cgl_snap_take(): 1, or 0 when the function
 * has no entry), the entry's words there, the number again
 * (cgl_snap_read()). cgl_cache_read(): both, 1 read or 0 not. */
static inline int cgl_snap_take(const cgl_cache *c, uint32_t fn, cgl_snap *s)
{
	const cgl_slot *slot = &c->slot[fn];
	s->fn = fn;
	s->seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
	/* acquire: the region and the words it points to are seen as written */
	s->where = atomic_load_explicit(&slot->where, memory_order_acquire);
	return !(s->seq & 1) && s->where;
}

/* Row q->k of the entry of snapshot @p s: 1 answered; 0 not (with
 * @p check, when the slot changed since the snapshot: the words read may
 * then be another entry's, and the answer is dropped). */
static inline int cgl_snap_read(const cgl_cache *c, const cgl_snap *s, int check, cgl_read *q)
{
	const cgl_region *r = &c->reg[(s->where >> CGL_WHERE_SHIFT) - 1];
	uint64_t off = s->where & CGL_WHERE_OFF;
	int got = off <= r->n ? cgl_read_entry(r->w + off, r->n - off, c->ne, q) : CGL_READ_TORN;
	/* the words above are read before the number is read again */
	atomic_thread_fence(memory_order_acquire);
	if (check && atomic_load_explicit(&c->slot[s->fn].seq, memory_order_relaxed) != s->seq)
		return 0;
	return got != CGL_READ_TORN;
}

static inline int cgl_cache_read(const cgl_cache *c, uint32_t fn, cgl_read *q)
{
	cgl_snap s;
	return cgl_snap_take(c, fn, &s) && cgl_snap_read(c, &s, 1, q);
}

/* Function @p fn's entry, @p n words that @p write writes from @p src,
 * added (unless another thread was quicker, or there is no memory for
 * it) and row q->k read from the cache's entry under the lock:
 * CGL_READ_OK, CGL_READ_NO_ROW, or CGL_READ_TORN when the cache holds no
 * entry of the function. */
typedef void (*cgl_write_fn)(const void *src, _Atomic uint64_t *w);
int profdb__cgc_insert_and_read(cgl_cache *c, uint32_t fn, uint64_t n, cgl_write_fn write,
                                const void *src, cgl_read *q);

/* What the cache holds (bytes, entries) and its budget. */
void profdb__cgc_usage(cgl_cache *c, uint64_t *bytes, uint64_t *budget, uint64_t *entries);

#endif
