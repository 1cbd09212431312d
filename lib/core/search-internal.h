/* Lower bounds over sorted arrays: the one binary search of lib/. Each
 * returns the first index i in [lo, hi) whose element is not below the key
 * -- hi when every element is below it -- so "found" is `i < hi && a[i] ==
 * key` at the call site, and the index is also where the key would go.
 * Ranges are half-open and may be empty; no element outside [lo, hi) is
 * read, and no pointer is formed from an empty array (a NULL base with
 * lo == hi is fine).
 *
 * The functions are static inline so a hot caller keeps the loop it had:
 * the comparisons inline, the callback of profdb__lower_bound too when it
 * is a static function of the caller. */
#ifndef PROFDB_CORE_SEARCH_H
#define PROFDB_CORE_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* profdb__lower_u32(a, lo, hi, key) and profdb__lower_u64(...): the first
 * i in [lo, hi) with a[i] >= key; @p a ascends there. One body for both
 * element types. */
#define PROFDB__LOWER_OF(name, T) \
	static inline size_t name(const T *a, size_t lo, size_t hi, T key) \
	{ \
		while (lo < hi) { \
			size_t mid = lo + (hi - lo) / 2; \
			if (a[mid] < key) \
				lo = mid + 1; \
			else \
				hi = mid; \
		} \
		return lo; \
	}
PROFDB__LOWER_OF(profdb__lower_u32, uint32_t)
PROFDB__LOWER_OF(profdb__lower_u64, uint64_t)
#undef PROFDB__LOWER_OF

/* The same over the u32 member at byte @p offset of records of @p stride
 * bytes from @p base (an array of structs sorted by that member:
 * profdb__lower_u32_field(rows, sizeof *rows, offsetof(row, id), ...)). */
static inline size_t profdb__lower_u32_field(const void *base, size_t stride, size_t offset,
                                             size_t lo, size_t hi, uint32_t key)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k;
		memcpy(&k, (const unsigned char *)base + mid * stride + offset, sizeof k);
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The generic form: the first i in [lo, hi) for which @p before(ctx, i) is
 * 0. @p before must be 1 on a prefix of [lo, hi) and 0 after it ("element
 * i sorts before the key"); with "sorts before or equal" it gives the upper
 * bound instead. */
static inline size_t profdb__lower_bound(size_t lo, size_t hi, const void *ctx,
                                         int (*before)(const void *ctx, size_t i))
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
