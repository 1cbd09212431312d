/* Unit tests of the lower bounds of lib/core/search-internal.h on
 * hand-built arrays: empty (NULL), one element, runs of duplicates, keys
 * below and above every element, sub-ranges, and each index checked
 * against a linear scan. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>

#include "core/search-internal.h"

TestSuite(search, .timeout = 10);

/* The first i in [lo, hi) with a[i] >= key, by a scan. */
static size_t linear_u32(const uint32_t *a, size_t lo, size_t hi, uint32_t key)
{
	while (lo < hi && a[lo] < key)
		lo++;
	return lo;
}

typedef struct rec {
	uint64_t pad;
	uint32_t id;
	uint16_t other;
} rec;

static int id_before(const void *ctx, size_t i)
{
	const uint32_t *k = ctx;
	return k[1 + i] < k[0];   /* k[0] the key, then the array */
}

static int id_not_after(const void *ctx, size_t i)
{
	const uint32_t *k = ctx;
	return k[1 + i] <= k[0];
}

Test(search, empty_and_null)
{
	cr_assert_eq(profdb__lower_u32(NULL, 0, 0, 7), 0);
	cr_assert_eq(profdb__lower_u64(NULL, 0, 0, 7), 0);
	cr_assert_eq(profdb__lower_u32_field(NULL, sizeof(rec), offsetof(rec, id), 0, 0, 7), 0);
	cr_assert_eq(profdb__lower_bound(0, 0, NULL, id_before), 0);
	uint32_t a[] = {1, 2, 3};
	cr_assert_eq(profdb__lower_u32(a, 2, 2, 0), 2, "an empty sub-range answers its start");
}

Test(search, one_element)
{
	uint32_t a[] = {5};
	cr_assert_eq(profdb__lower_u32(a, 0, 1, 4), 0);
	cr_assert_eq(profdb__lower_u32(a, 0, 1, 5), 0);
	cr_assert_eq(profdb__lower_u32(a, 0, 1, 6), 1);
	uint64_t b[] = {UINT64_MAX};
	cr_assert_eq(profdb__lower_u64(b, 0, 1, UINT64_MAX), 0);
	cr_assert_eq(profdb__lower_u64(b, 0, 1, 0), 0);
}

Test(search, duplicates_take_the_first)
{
	uint32_t a[] = {1, 3, 3, 3, 3, 8, 8, 9};
	cr_assert_eq(profdb__lower_u32(a, 0, 8, 3), 1);
	cr_assert_eq(profdb__lower_u32(a, 0, 8, 8), 5);
	cr_assert_eq(profdb__lower_u32(a, 0, 8, 4), 5, "absent: where it would go");
	uint64_t b[] = {2, 2, 2, 2};
	cr_assert_eq(profdb__lower_u64(b, 0, 4, 2), 0);
	cr_assert_eq(profdb__lower_u64(b, 0, 4, 3), 4);
}

Test(search, all_less_and_all_greater)
{
	uint32_t a[] = {10, 20, 30, 40, 50};
	cr_assert_eq(profdb__lower_u32(a, 0, 5, 51), 5, "every element below the key: hi");
	cr_assert_eq(profdb__lower_u32(a, 0, 5, UINT32_MAX), 5);
	cr_assert_eq(profdb__lower_u32(a, 0, 5, 0), 0, "every element above the key: lo");
	cr_assert_eq(profdb__lower_u32(a, 1, 4, 0), 1);
	cr_assert_eq(profdb__lower_u32(a, 1, 4, 45), 4, "a sub-range never reads past hi");
}

Test(search, every_key_against_a_scan)
{
	uint32_t a[] = {0, 0, 2, 4, 4, 4, 7, 9, 9, 12, UINT32_MAX};
	size_t n = sizeof a / sizeof *a;
	uint64_t b[sizeof a / sizeof *a];
	rec r[sizeof a / sizeof *a];
	uint32_t ctx[1 + sizeof a / sizeof *a];
	for (size_t i = 0; i < n; i++) {
		b[i] = (uint64_t)a[i] << 20;
		r[i] = (rec){~(uint64_t)0, a[i], 0xffff};
		ctx[1 + i] = a[i];
	}
	for (size_t lo = 0; lo <= n; lo++)
		for (size_t hi = lo; hi <= n; hi++)
			for (uint32_t key = 0; key < 14; key++) {
				size_t want = linear_u32(a, lo, hi, key);
				cr_assert_eq(profdb__lower_u32(a, lo, hi, key), want,
				             "u32 [%zu, %zu) key %u", lo, hi, key);
				cr_assert_eq(profdb__lower_u64(b, lo, hi, (uint64_t)key << 20), want);
				cr_assert_eq(profdb__lower_u32_field(r, sizeof *r, offsetof(rec, id), lo,
				                                     hi, key), want);
				ctx[0] = key;
				cr_assert_eq(profdb__lower_bound(lo, hi, ctx, id_before), want);
				/* "before or equal": the upper bound, the first element above */
				size_t up = want;
				while (up < hi && a[up] == key)
					up++;
				cr_assert_eq(profdb__lower_bound(lo, hi, ctx, id_not_after), up);
			}
}
