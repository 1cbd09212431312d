/* Growable arrays and the hash index (table-internal.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core-internal.h"
#include "table-internal.h"

int profdb__grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap >= 16 ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return profdb__fail(-ENOMEM, "table of %zu elements too large", need);
		nc *= 2;
	}
	if (elem && nc > SIZE_MAX / elem)
		return profdb__fail(-ENOMEM, "table of %zu elements too large", need);
	void *q = profdb__realloc_big(*arr, *cap * elem, nc * elem);
	if (!q)
		return profdb__fail(-ENOMEM, "out of memory (table of %zu elements)", nc);
	*arr = q;
	*cap = nc;
	return 0;
}

/* The size from which a table asks for huge pages. */
#define BIG ((size_t)4 << 20)
/* The size of a huge page where the system has them at that size
 * (x86-64; arm64 with 4 KiB pages). Elsewhere the alignment costs
 * address space only. */
#define HUGE ((size_t)2 << 20)

void *profdb__realloc_huge(void *p, size_t old, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	/* Aligned on a huge page and a whole number of them, so that none of
	 * the block shares a huge page with another allocation: malloc's
	 * block would start and end inside one, and its head and tail (up to
	 * 4 MiB) would be 4 KiB faults. */
	size_t whole = (bytes + HUGE - 1) & ~(HUGE - 1);
	void *q;
	if (whole < bytes)
		return NULL;   /* (no block is that long) */
	if (bytes < ((size_t)1 << 20))
		return realloc(p, bytes);
	if (posix_memalign(&q, HUGE, whole) != 0)
		return NULL;
	(void)madvise(q, whole, MADV_HUGEPAGE);   /* a hint: errors change nothing */
	if (p) {
		/* the pages the copy writes, mapped in one call */
		profdb__prefault_write(q, old < bytes ? old : bytes);
		memcpy(q, p, old < bytes ? old : bytes);
	}
	free(p);
	return q;
#else
	(void)old;
	return realloc(p, bytes);
#endif
}

void *profdb__realloc_big(void *p, size_t old, size_t bytes)
{
	return bytes < BIG ? realloc(p, bytes) : profdb__realloc_huge(p, old, bytes);
}

void *profdb__carve(void **const out[], const size_t size[], size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		size_t a = (size[i] + 63) & ~(size_t)63;   /* each on a cache line */
		if (a < size[i] || total + a < total)
			return NULL;
		total += a;
	}
	char *block = profdb__realloc_huge(NULL, 0, total ? total : 1);
	if (!block)
		return NULL;
	for (size_t i = 0, off = 0; i < n; i++) {
		*out[i] = block + off;
		off += (size[i] + 63) & ~(size_t)63;
	}
	return block;
}

void profdb__advise_big(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (!p || bytes < BIG)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);   /* a hint: errors change nothing */
#else
	(void)p, (void)bytes;
#endif
}

void profdb__radix_pairs(profdb__sort_pair **a, profdb__sort_pair **tmp, size_t n,
                         uint32_t *count)
{
	const unsigned bits = 11;
	const uint64_t mask = PROFDB_RADIX_SIZE - 1;
	if (n < 2)
		return;
	uint64_t differ = 0;
	for (size_t i = 1; i < n; i++)
		differ |= (*a)[i].key ^ (*a)[0].key;
	for (unsigned shift = 0; shift < 64 && (differ >> shift) != 0; shift += bits) {
		if (((differ >> shift) & mask) == 0)
			continue;   /* every key has these bits */
		const profdb__sort_pair *src = *a;
		profdb__sort_pair *dst = *tmp;
		memset(count, 0, PROFDB_RADIX_SIZE * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(src[i].key >> shift) & mask]++;
		uint32_t at = 0;
		for (size_t d = 0; d < PROFDB_RADIX_SIZE; d++) {
			uint32_t c = count[d];
			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & mask]++] = src[i];
		*a = dst;
		*tmp = (profdb__sort_pair *)(uintptr_t)src;
	}
}

uint64_t profdb__hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = UINT64_C(1469598103934665603) ^ seed;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * UINT64_C(1099511628211);
	return profdb__mix64(h);
}

static int alloc_slots(profdb__hindex *h, size_t n)
{
	h->slot = calloc(n, sizeof *h->slot);
	if (!h->slot)
		return profdb__fail(-ENOMEM, "out of memory (hash index of %zu slots)", n);
	h->mask = n - 1;
	return 0;
}

int profdb__hindex_init(profdb__hindex *h, size_t expected)
{
	size_t n = 16;
	h->used = 0;
	h->slot = NULL;
	while (n / 2 < expected) {
		if (n > SIZE_MAX / (2 * sizeof *h->slot))
			return profdb__fail(-ENOMEM, "hash index for %zu keys too large", expected);
		n *= 2;
	}
	return alloc_slots(h, n);
}

void profdb__hindex_free(profdb__hindex *h)
{
	free(h->slot);
	h->slot = NULL;
	h->mask = h->used = 0;
}

int profdb__hindex_added(profdb__hindex *h, profdb__hash_fn hash, const void *ctx)
{
	if (++h->used <= (h->mask + 1) / 2)
		return 0;
	size_t n = h->mask + 1;
	if (n > SIZE_MAX / (2 * sizeof *h->slot))
		return profdb__fail(-ENOMEM, "hash index too large");
	profdb__hindex g = {NULL, 0, 0};
	int r = alloc_slots(&g, 2 * n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		uint32_t e1 = h->slot[i];
		if (!e1)
			continue;
		size_t j = (size_t)hash(ctx, e1 - 1) & g.mask;
		while (g.slot[j])
			j = (j + 1) & g.mask;
		g.slot[j] = e1;
	}
	free(h->slot);
	h->slot = g.slot;
	h->mask = g.mask;
	return 0;
}

#define TMAP_FIRST 4096u

int profdb__tmap_init(profdb__tmap *m)
{
	if (m->slot)
		return 0;
	if (!(m->slot = calloc(TMAP_FIRST, sizeof *m->slot)))
		return profdb__fail(-ENOMEM, "out of memory (hash index of %u slots)", TMAP_FIRST);
	m->mask = TMAP_FIRST - 1;
	m->used = 0;
	return 0;
}

int profdb__tmap_added(profdb__tmap *m)
{
	uint32_t n = m->mask + 1;
	if (++m->used <= n / 8 * 7)
		return 0;
	if (n > UINT32_MAX / 2)
		return profdb__fail(-ENOMEM, "hash index too large");
	profdb__tslot *g = calloc((size_t)2 * n, sizeof *g);
	if (!g)
		return profdb__fail(-ENOMEM, "out of memory (hash index of %zu slots)", (size_t)2 * n);
	/* 7/16 full from the start, hashed all over: every page of it is
	 * written, so they are mapped in one call, not a fault each */
	profdb__prefault_write(g, (size_t)2 * n * sizeof *g);
	uint32_t mask = 2 * n - 1;
	for (uint32_t i = 0; i < n; i++) {
		if (!m->slot[i].row1)
			continue;
		uint32_t j = m->slot[i].tag & mask;
		while (g[j].row1)
			j = (j + 1) & mask;
		g[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = g;
	m->mask = mask;
	return 0;
}

void profdb__tmap_free(profdb__tmap *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
}
