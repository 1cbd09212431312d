/* Callgrind scanner: the self-cost rows while the files are scanned.
 *
 * A row is cg_self_stride(n_events) 32-bit cells (row_narrow): the self
 * cost of one function in one profile is mostly far below 2^32 per event,
 * and half the width halves the scan's largest table. A row one of whose
 * sums reaches CG_WIDE moves to the 64-bit table row_wide (n_events a
 * row): its first cell becomes CG_WIDE, its second the index of its wide
 * row (hence a stride of at least two). Sums stay exact: every add is
 * checked against the 32-bit limit, and the add that would pass it is
 * made on 64 bits, with the scan's usual overflow error. At the end of the
 * scan both become the 64-bit table row_cost that the model reads. */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "core/beside-internal.h"
#include "scan-internal.h"

void profdb__cg_self_get(const profdb_cg *cg, uint32_t row, uint64_t *out)
{
	uint32_t ne = cg->n_events;
	const uint64_t *w = cg_self_wide(cg, row);
	if (w) {
		memcpy(out, w, ne * sizeof *out);
		return;
	}
	const uint32_t *c = cg->row_narrow + (size_t)row * cg_self_stride(ne);
	for (uint32_t e = 0; e < ne; e++)
		out[e] = c[e];
}

/* Row @p row moves to the wide table, with the values @p v. */
static int promote(profdb_cg *cg, uint32_t row, const uint64_t *v)
{
	uint32_t ne = cg->n_events;
	int r = profdb__cg_grow((void **)&cg->row_wide, &cg->cap_wide,
	                        ((uint64_t)cg->n_wide + 1) * ne, sizeof *cg->row_wide);
	if (r < 0)
		return r;
	uint32_t *c = cg->row_narrow + (size_t)row * cg_self_stride(ne);
	memcpy(cg->row_wide + (size_t)cg->n_wide * ne, v, ne * sizeof *v);
	c[0] = CG_WIDE;
	c[1] = cg->n_wide++;
	return 0;
}

int profdb__cg_self_put(profdb_cg *cg, uint32_t row, const uint64_t *v)
{
	uint32_t ne = cg->n_events;
	uint64_t *w = cg_self_wide(cg, row);
	if (w) {
		memcpy(w, v, ne * sizeof *v);
		return 0;
	}
	for (uint32_t e = 0; e < ne; e++)
		if (v[e] >= CG_WIDE)
			return promote(cg, row, v);
	uint32_t *c = cg->row_narrow + (size_t)row * cg_self_stride(ne);
	for (uint32_t e = 0; e < ne; e++)
		c[e] = (uint32_t)v[e];
	return 0;
}

/* Bytes of the narrow table for @p cap rows: room for as many 64-bit
 * rows, so that profdb__cg_self_final() turns it into row_cost where it
 * is, with no second table. The room past the narrow rows is address
 * space only: no page of it is touched before then. */
static int narrow_bytes(size_t cap, uint32_t ne, size_t *bytes)
{
	return __builtin_mul_overflow(cap + 1, (size_t)(ne ? ne : 1) * sizeof(uint64_t), bytes)
	               ? -ENOMEM
	               : 0;
}

/* The narrow table for @p cap rows: a new block with the rows made so far
 * (not realloc, which copies the whole block, untouched room included);
 * -ENOMEM without a message. No huge pages while the scan fills it: the
 * narrow rows end in the middle of a 2 MiB page, which would hold up to
 * 2 MiB more than the rows at the scan's peak (profdb__cg_self_final asks
 * for them, for the wider rows). */
static int resize_narrow(profdb_cg *cg, size_t cap)
{
	size_t bytes;
	if (narrow_bytes(cap, cg->n_events, &bytes) < 0)
		return -ENOMEM;
	uint32_t *q = malloc(bytes);
	if (!q)
		return -ENOMEM;
	size_t used = (size_t)cg->n_rows * cg_self_stride(cg->n_events) * sizeof *q;
	if (used) {
		profdb__prefault_write(q, used);   /* (see map_rows) */
		memcpy(q, cg->row_narrow, used);
	}
	free(cg->row_narrow);
	cg->row_narrow = q;
	cg->narrow_mapped = used;
	return 0;
}

/* The narrow rows are written as they are made, into fresh pages; a
 * fault per 4 KiB page costs more than mapping them in by one call
 * (profdb__prefault_write), so the real tables' rows are mapped this far
 * ahead of the last row made, within the block (whose room past the
 * narrow rows is written by the widening anyway). Not a piece's of the
 * parallel scan: their tables are reused, their pages mapped once, and
 * the room ahead would be held by each piece in flight at the peak. */
#define ROWS_AHEAD ((size_t)64 << 10)

/* Row @p n's bytes of the narrow table mapped in. */
static void map_rows(profdb_cg *cg, uint32_t n)
{
	size_t end = ((size_t)n + 1) * cg_self_stride(cg->n_events) * sizeof *cg->row_narrow, bytes;
	if (!cg->rows_ahead || end <= cg->narrow_mapped ||
	    narrow_bytes(cg->cap_rows, cg->n_events, &bytes) < 0)
		return;
	size_t to = end + ROWS_AHEAD < bytes ? end + ROWS_AHEAD : bytes;
	profdb__prefault_write((char *)cg->row_narrow + cg->narrow_mapped, to - cg->narrow_mapped);
	cg->narrow_mapped = to;
}

int profdb__cg_self_new_row(profdb_cg *cg)
{
	size_t old = cg->cap_rows;
	int r = profdb__cg_grow((void **)&cg->rows, &cg->cap_rows, (uint64_t)cg->n_rows + 1,
	                        sizeof *cg->rows);
	if (r < 0)
		return r;
	if (cg->cap_rows != old && resize_narrow(cg, cg->cap_rows) < 0) {
		cg->cap_rows = old;   /* (the row table keeps its larger block) */
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	size_t st = cg_self_stride(cg->n_events);
	map_rows(cg, cg->n_rows);
	memset(cg->row_narrow + (size_t)cg->n_rows * st, 0, st * sizeof *cg->row_narrow);
	return 0;
}

void profdb__cg_self_reserve(profdb_cg *cg, uint64_t want)
{
	size_t old = cg->cap_rows;
	if (want <= old || want >= UINT32_MAX - 1)
		return;
	profdb__cg_reserve((void **)&cg->rows, &cg->cap_rows, want, sizeof *cg->rows);
	if (cg->cap_rows != old && resize_narrow(cg, cg->cap_rows) < 0)
		cg->cap_rows = old;   /* a hint: growing by need reports what fails */
}

int profdb__cg_self_restride(profdb_cg *cg, uint32_t old, uint32_t ne)
{
	size_t so = cg_self_stride(old), sn = cg_self_stride(ne), bytes;
	int r;
	if (narrow_bytes(cg->cap_rows, ne, &bytes) < 0)
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	uint32_t *q = calloc(1, bytes);
	if (!q)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	if (old)   /* (with no events a row holds nothing) */
		for (size_t i = 0; i < cg->n_rows; i++)
			memcpy(q + i * sn, cg->row_narrow + i * so, so * sizeof *q);
	free(cg->row_narrow);
	cg->row_narrow = q;
	cg->narrow_mapped = 0;
	if (cg->n_wide == 0)
		return 0;
	uint64_t *w = NULL;
	size_t cap = 0;
	if ((r = profdb__cg_grow((void **)&w, &cap, (uint64_t)cg->n_wide * ne, sizeof *w)) < 0)
		return r;
	memset(w, 0, (size_t)cg->n_wide * ne * sizeof *w);
	for (size_t i = 0; i < cg->n_wide; i++)
		memcpy(w + i * ne, cg->row_wide + i * old, old * sizeof *w);
	free(cg->row_wide);
	cg->row_wide = w;
	cg->cap_wide = cap;
	return 0;
}

/* The room past the narrow rows, which the 64-bit rows fill, at least
 * this large: mapped in by another thread while this one widens (a
 * thread starts in tens of microseconds; a MiB of fresh pages takes
 * about 0.2 ms). */
#define ROOM_MIN ((size_t)1 << 20)

typedef struct room {
	void *p;
	size_t len;
} room;

static int map_room(void *arg)
{
	room *rm = arg;
	profdb__prefault_write(rm->p, rm->len);
	return 0;
}

int profdb__cg_self_final(profdb_cg *cg)
{
	uint32_t ne = cg->n_events;
	size_t n = cg->n_rows;
	/* In place, from the last row to the first: 64-bit row i lies at or
	 * after narrow row i (the stride is at most 2 ne), so it covers only
	 * narrow rows already read. */
	uint64_t *t = (uint64_t *)(void *)cg->row_narrow, v[CG_MAX_EVENTS];
	size_t narrow = n * cg_self_stride(ne) * sizeof(uint32_t), wide = n * ne * sizeof *t;
#ifdef __GLIBC__
	/* The scan's freed memory (its lookup tables, the pieces' tables)
	 * back to the system before the widening takes 4 bytes more a cell:
	 * glibc keeps freed blocks inside its heaps mapped otherwise. */
	if (n)
		malloc_trim(0);
#endif
	/* the room past the narrow rows, which the 64-bit rows fill */
	if (n && ne)
		profdb__advise_big(t, wide);
	/* Its fresh pages cost more than the widening itself (0.8 of 1.35 ms
	 * on py_full_sc5, 4 MiB): with threads, another one maps them in,
	 * from the first up, while this one widens from the last row down.
	 * Every page of the room is written below, so no more memory is
	 * touched than without it. */
	room rm = {(char *)t + narrow, wide > narrow ? wide - narrow : 0};
	profdb__beside helper;
	profdb__beside_start(&helper, rm.len >= ROOM_MIN && cg->opts.threads != 1 &&
	                     profdb__cores() > 1, 0, map_room, &rm);
	if (ne)
		for (size_t i = n; i-- > 0;) {
			profdb__cg_self_get(cg, (uint32_t)i, v);
			memcpy(t + i * ne, v, ne * sizeof *v);
		}
	else
		memset(t, 0, sizeof *t);
	profdb__beside_join(&helper);
	free(cg->row_wide);
	cg->row_narrow = NULL;
	cg->row_wide = NULL;
	cg->n_wide = 0;
	cg->cap_wide = 0;
	free(cg->row_cost);
	cg->row_cost = t;
	return 0;
}
