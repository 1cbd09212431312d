/* The Callgrind scan's indexes by id (fn_by_name, row_of_fn:
 * profdb__cg_reach): every entry up to the highest id reached reads as
 * empty until written, written entries survive the growth, and the room
 * the ids never reach is never written, so a text's peak memory holds
 * what its ids need rather than the next power of two of them. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/prctl.h>
#endif

#include "callgrind/callgrind-internal.h"

typedef struct entry {
	uint32_t a, b, c, d;   /* the size of a cg_fnkey */
} entry;

static int is_empty(const entry *e)
{
	return e->a == CG_EMPTY && e->b == CG_EMPTY && e->c == CG_EMPTY && e->d == CG_EMPTY;
}

Test(cg_scan_index, entries_read_empty_until_written_and_survive_growth)
{
	entry *t = NULL;
	size_t n = 0, room = 0, step = CG_REACH_STEP / sizeof *t;
	/* ids met in the order a text meets names: mostly rising, some again */
	const uint32_t ids[] = {0, 3, 17, 5, 4095, 4096, 100, 70000, 12, 69999, 131071, 131072, 9};
	for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
		uint32_t id = ids[k];
		size_t before = n;
		cr_assert_eq(profdb__cg_reach((void **)&t, &n, &room, id, sizeof *t), 0);
		cr_assert_gt(n, id, "id %" PRIu32 " is past the %zu entries written", id, n);
		cr_assert_leq(n, room);
		size_t want = ((size_t)id / step + 1) * step;
		if (before <= id)   /* written up to the id, rounded up to a step */
			cr_assert_eq(n, want < room ? want : room, "id %" PRIu32 ": %zu entries", id, n);
		else
			cr_assert_eq(n, before, "id %" PRIu32 " already reached", id);
		if (is_empty(&t[id]))
			t[id] = (entry){id, id + 1, id + 2, 0};
	}
	for (size_t i = 0; i < n; i++) {
		int set = 0;
		for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++)
			set |= ids[k] == i;
		if (set)
			cr_assert(t[i].a == i && t[i].b == i + 1 && t[i].c == i + 2 && t[i].d == 0,
			          "entry %zu lost in a growth", i);
		else
			cr_assert(is_empty(&t[i]), "entry %zu is not empty", i);
	}
	free(t);
}

Test(cg_scan_index, an_id_past_the_largest_size_fails)
{
	uint32_t *t = NULL;
	size_t n = 0, room = 0;
	cr_assert_eq(profdb__cg_reach((void **)&t, &n, &room, 10, sizeof *t), 0);
	/* more than the address space on any machine */
	cr_assert_eq(profdb__cg_reach((void **)&t, &n, &room, UINT32_MAX - 2, SIZE_MAX / 4),
	             -ENOMEM);
	cr_assert_gt(n, 10, "the entries written before stay");
	cr_assert_eq(t[10], CG_EMPTY);
	free(t);
}

/* Entries larger than a step are written one at a time. */
Test(cg_scan_index, entries_larger_than_a_step)
{
	const size_t elem = 2 * CG_REACH_STEP;
	unsigned char *t = NULL;
	size_t n = 0, room = 0;
	cr_assert_eq(profdb__cg_reach((void **)&t, &n, &room, 2, elem), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(t[2 * elem + elem - 1], 0xff);
	free(t);
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
/* An index of 2 MiB of room (131 072 entries of 16 bytes) whose ids reach
 * 70 000: the block is mapped on its own (a fixed mmap threshold, so that
 * no freed heap block is reused; no MALLOC_PERTURB_; no transparent huge
 * pages, one of which would map the room with the entries), and mincore() tells
 * that the pages past the entries written, but for the one the last
 * entry ends in, are not in memory. */
Test(cg_scan_index, the_room_past_the_ids_is_not_touched)
{
	cr_assert_eq(mallopt(M_MMAP_THRESHOLD, 64 << 10), 1);
	cr_assert_eq(mallopt(M_PERTURB, 0), 1);
	cr_assert_eq(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
	entry *t = NULL;
	size_t n = 0, room = 0;
	cr_assert_eq(profdb__cg_reach((void **)&t, &n, &room, 65536, sizeof *t), 0);
	cr_assert_eq(profdb__cg_reach((void **)&t, &n, &room, 70000, sizeof *t), 0);
	cr_assert_eq(room, 131072);
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)(t + n) + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	uintptr_t hi = (uintptr_t)(t + room) & ~((uintptr_t)page - 1);
	cr_assert_gt(hi, lo);
	size_t pages = (size_t)(hi - lo) / (size_t)page, resident = 0;
	unsigned char *vec = malloc(pages);
	cr_assert_not_null(vec);
	cr_assert_eq(mincore((void *)lo, hi - lo, vec), 0);
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	cr_assert_eq(resident, 0, "%zu of the %zu pages past the ids are in memory", resident,
	             pages);
	free(t);
}
#endif
#endif
