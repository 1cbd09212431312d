/* Growable arrays and an open-addressing hash index: the two containers
 * every decoder builds its tables with (lib/core/table.c). */
#ifndef PROFDB_CORE_TABLE_INTERNAL_H
#define PROFDB_CORE_TABLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Make *arr hold at least @p need elements of @p elem bytes. *cap (in
 * elements) doubles from 16 or more; the size product is checked for
 * overflow. Returns 0 or -ENOMEM with a message. *arr is unchanged on
 * failure. */
int profdb__grow(void **arr, size_t *cap, size_t need, size_t elem);

/* Ask for huge pages (2 MiB, where the system has them) inside the block
 * [p, p + bytes) of a table that is about to be written in full: on a
 * virtual machine the first touch of each 4 KiB page is a fault costing
 * about 10 us, a fifth of a deep tree's whole run, and one 2 MiB fault
 * replaces 512 of them. Blocks under 4 MiB are left alone (their peak
 * memory would grow by up to a huge page for little gain). profdb__grow
 * does it for the tables it grows. A hint: nothing changes on failure. */
void profdb__advise_big(void *p, size_t bytes);
/* realloc(@p p, @p bytes) for a table of @p old bytes, the new block
 * a profdb__realloc_huge() one when it is big (4 MiB or more). */
void *profdb__realloc_big(void *p, size_t old, size_t bytes);
/* realloc(@p p, @p bytes) for a table of @p old bytes that is about to be
 * written in full: from 1 MiB, a new block aligned on a huge page, a whole
 * number of them long and advised for them (its last huge page is
 * resident as a whole once touched), the old bytes copied. Freed with
 * free(). NULL (@p p unchanged) when out of memory. */
void *profdb__realloc_huge(void *p, size_t old, size_t bytes);
/* Work arrays that live and die together and are written in full, in one
 * profdb__realloc_huge() block: one allocation, and where the system has
 * huge pages, a page fault per 2 MiB of them all rather than one per
 * 4 KiB page of each. Array i, of @p size[i] bytes, starts on a 64-byte
 * boundary at *out[i] (not zeroed). Returns the block, which free()
 * releases with every array in it; NULL when out of memory. */
void *profdb__carve(void **const out[], const size_t size[], size_t n);

/* A 64-bit finaliser (MurmurHash3's fmix64): spreads every input bit over
 * the whole word, so a table can take the low bits. */
static inline uint64_t profdb__mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

/* FNV-1a over bytes, finished by profdb__mix64. */
uint64_t profdb__hash_bytes(const void *p, size_t n, uint64_t seed);

/* A stable LSD radix sort of (key, index) pairs, 11 bits a pass, skipping
 * the bits every key shares: for the long sibling lists that qsort's
 * indirect comparisons make slow. */
#define PROFDB_RADIX_SIZE (1u << 11)

typedef struct profdb__sort_pair {
	uint64_t key;
	uint32_t at;        /* the record's index */
} profdb__sort_pair;

/* Sort *a (n pairs; *tmp as large) by key, ascending and stably; *a and
 * *tmp are swapped whenever a pass moves the pairs. @p count: room for
 * PROFDB_RADIX_SIZE counters. */
void profdb__radix_pairs(profdb__sort_pair **a, profdb__sort_pair **tmp, size_t n,
                         uint32_t *count);

/* An index from keys to entry numbers (uint32_t) of a table the caller
 * owns: the index stores only entry + 1 per slot (0 = empty), and asks the
 * caller to hash and compare entries. Linear probing, at most half full. */
typedef struct profdb__hindex {
	uint32_t *slot;
	size_t mask;        /* slots - 1 (a power of two) */
	size_t used;
} profdb__hindex;

/* Hash of entry @p e, and does entry @p e have key @p key. */
typedef uint64_t (*profdb__hash_fn)(const void *ctx, uint32_t e);
typedef int (*profdb__eq_fn)(const void *ctx, uint32_t e, const void *key);

int profdb__hindex_init(profdb__hindex *h, size_t expected);
void profdb__hindex_free(profdb__hindex *h);

/* The slot of the entry with @p key (hash @p hash): *slot is entry + 1, or
 * 0 when the key is absent, in which case storing entry + 1 there inserts
 * it (then call profdb__hindex_added). */
static inline uint32_t *profdb__hindex_slot(const profdb__hindex *h, uint64_t hash,
                                            profdb__eq_fn eq, const void *ctx,
                                            const void *key)
{
	for (size_t i = (size_t)hash & h->mask;; i = (i + 1) & h->mask)
		if (!h->slot[i] || eq(ctx, h->slot[i] - 1, key))
			return &h->slot[i];
}

/* Count an insertion; doubles the index (rehashing through @p hash) when it
 * is half full. 0 or -ENOMEM. */
int profdb__hindex_added(profdb__hindex *h, profdb__hash_fn hash, const void *ctx);

/* An index like profdb__hindex with a 32-bit hash tag in every slot. A
 * probe compares tags in place and reads an entry only when its tag
 * matches (once, nearly always), where profdb__hindex reads an entry, a
 * cache miss into a large table, at every probe: for tables looked up at
 * almost every line of a big input (the Callgrind scan's names, functions
 * and call rows). A slot's position comes from its tag, so growing reads
 * no entries. Up to 7/8 full: probes that compare tags in adjacent slots
 * stay cheap at that load. */
typedef struct profdb__tslot {
	uint32_t row1;      /* entry + 1; 0: empty */
	uint32_t tag;
} profdb__tslot;

typedef struct profdb__tmap {
	profdb__tslot *slot;
	uint32_t mask, used;
} profdb__tmap;

/* The slot of the entry with key @p key and tag @p tag: row1 is its
 * entry + 1, or 0 when absent; then set row1 and tag, and call
 * profdb__tmap_added. */
static inline profdb__tslot *profdb__tmap_slot(const profdb__tmap *m, uint32_t tag,
                                               profdb__eq_fn eq, const void *ctx,
                                               const void *key)
{
	for (uint32_t i = tag & m->mask;; i = (i + 1) & m->mask) {
		profdb__tslot *s = &m->slot[i];
		if (!s->row1 || (s->tag == tag && eq(ctx, s->row1 - 1, key)))
			return s;
	}
}

/* An empty index (idempotent); count an insertion (doubles the index past
 * 7/8); free. 0 or -ENOMEM. */
int profdb__tmap_init(profdb__tmap *m);
int profdb__tmap_added(profdb__tmap *m);
void profdb__tmap_free(profdb__tmap *m);

#endif
