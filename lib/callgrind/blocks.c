/* Callgrind: the open's blocks (callgrind-internal.h, cg_blk), which
 * detail.c decodes for a function's line/instruction detail.
 *
 * A block costs the open 12 bytes: its function and the offset of its
 * first line. Its end is not kept (detail.c stops where the scanner closed
 * it) nor its profile (blocks and profiles are both in text order). The
 * state at its first line is kept (cg_blkst) only when the decoder could
 * not tell it: when the current file is not the function's own, a jump
 * target is named, or the first line does not give every position
 * absolutely (valgrind writes every function's first line absolutely, so
 * in its files that is rare). The blocks live in chunks of CG_BLK_CHUNK,
 * so the table grows without being copied. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

/* Room for block @p n: a new chunk at each multiple of CG_BLK_CHUNK (a
 * piece's tables reused keep theirs). */
static int blk_room(profdb_cg *cg, uint32_t n)
{
	uint32_t c = n >> CG_BLK_SHIFT;
	if ((n & (CG_BLK_CHUNK - 1)) != 0)
		return 0;
	if (n >= UINT32_MAX - CG_BLK_CHUNK)
		return profdb__fail(-ENOMEM, "callgrind: too many blocks");
	size_t old = cg->cap_blk_chunk;
	if (c >= old) {
		int r = profdb__cg_grow((void **)&cg->blk_chunk, &cg->cap_blk_chunk, (uint64_t)c + 1,
		                        sizeof *cg->blk_chunk);
		if (r < 0)
			return r;
		memset(cg->blk_chunk + old, 0, (cg->cap_blk_chunk - old) * sizeof *cg->blk_chunk);
	}
	if (!cg->blk_chunk[c] && !(cg->blk_chunk[c] = malloc(CG_BLK_CHUNK * sizeof **cg->blk_chunk)))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	return 0;
}

static int blk_add(profdb_cg *cg, uint32_t fn, uint64_t off)
{
	int r = blk_room(cg, cg->n_blks);
	if (r < 0)
		return r;
	uint32_t b = cg->n_blks++;
	cg->blk_chunk[b >> CG_BLK_SHIFT][b & (CG_BLK_CHUNK - 1)] =
		(cg_blk){fn, (uint32_t)off, (uint32_t)(off >> 32)};
	return 0;
}

static int blkst_add(profdb_cg *cg, const cg_blkst *st)
{
	int r = grow((void **)&cg->blkst, &cg->cap_blkst, (uint64_t)cg->n_blkst + 1,
	             sizeof *cg->blkst);
	if (r < 0)
		return r;
	cg->blkst[cg->n_blkst++] = *st;
	return 0;
}

int profdb__cgs_blk_open(parser *ps)
{
	profdb_cg *cg = ps->cg;
	const cg_cur *c = &ps->cur;
	uint32_t src = c->fi != CG_EMPTY ? c->fi : c->fl != CG_EMPTY ? c->fl : 0;
	int r = blk_add(cg, c->func, ps->at.off);
	if (r < 0)
		return r;
	ps->cur.blk = cg->n_blks - 1;
	if (src == cg->fns[c->func].fl && c->jfl == CG_EMPTY && c->jfn == CG_EMPTY &&
	    cg_absolute_positions(ps->at.f->text + ps->at.off, ps->at.f->text + ps->at.f->size,
	                          ps->part.n_pos))
		return 0;
	cg_blkst st = {ps->cur.blk, src, c->jfl, c->jfn, {0}};
	memcpy(st.pos, ps->part.pos, sizeof st.pos);
	return blkst_add(cg, &st);
}

uint32_t profdb__cgs_blk_fn(const profdb_cg *cg, uint32_t b)
{
	return cg_blk_at(cg, b)->fn;
}

static uint32_t map_name(const uint32_t *nmap, uint32_t x)
{
	return x == CG_EMPTY ? x : nmap[x];
}

int profdb__cgs_blk_merge(profdb_cg *cg, const profdb_cg *lc, const uint32_t *fn_map,
                          const uint32_t *name_map)
{
	uint32_t base = cg->n_blks;
	int r;
	for (uint32_t j = 0; j < lc->n_blks; j++) {
		const cg_blk *k = cg_blk_at(lc, j);
		if ((r = blk_add(cg, fn_map[k->fn], cg_blk_off(k))) < 0)
			return r;
	}
	for (uint32_t j = 0; j < lc->n_blkst; j++) {
		cg_blkst st = lc->blkst[j];
		st.blk += base;
		st.src = map_name(name_map, st.src);
		st.jfl = map_name(name_map, st.jfl);
		st.jfn = map_name(name_map, st.jfn);
		if ((r = blkst_add(cg, &st)) < 0)
			return r;
	}
	return 0;
}

void profdb__cgs_blk_clear(profdb_cg *lc)
{
	lc->n_blks = lc->n_blkst = 0;
}

void profdb__cg_blk_free(profdb_cg *cg)
{
	for (size_t c = 0; c < cg->cap_blk_chunk; c++)
		free(cg->blk_chunk[c]);
	free(cg->blk_chunk);
	free(cg->blkst);
	free(cg->blk_next);
	cg->blk_chunk = NULL;
	cg->blkst = NULL;
	cg->blk_next = NULL;
	cg->n_blks = cg->n_blkst = 0;
	cg->cap_blk_chunk = cg->cap_blkst = 0;
}

uint32_t profdb__cg_blk_profile(const profdb_cg *cg, uint32_t b)
{
	uint32_t lo = 0, hi = cg->n_profiles;   /* the last profile with blk_first <= b */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cg->profiles[mid].blk_first <= b)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void profdb__cg_blk_state(const profdb_cg *cg, uint32_t b, cg_blkst *out)
{
	uint32_t lo = 0, hi = cg->n_blkst;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cg->blkst[mid].blk < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < cg->n_blkst && cg->blkst[lo].blk == b) {
		*out = cg->blkst[lo];
		return;
	}
	/* the usual state: the position is given by the first line */
	*out = (cg_blkst){b, cg->fns[cg_blk_at(cg, b)->fn].fl, CG_EMPTY, CG_EMPTY, {0}};
}

/* The chain of each function's blocks, in text order (the first detail
 * request, first-use.c). */
int profdb__cg_blk_chain(profdb_cg *cg)
{
	if (!(cg->blk_next = malloc(((size_t)cg->n_blks + 1) * sizeof *cg->blk_next)))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	for (uint32_t f = 0; f < cg->n_fns; f++)
		cg->blk_first[f] = CG_EMPTY;
	for (uint32_t i = cg->n_blks; i-- > 0;) {
		uint32_t fn = cg_blk_at(cg, i)->fn;
		if (fn >= cg->n_fns)
			return profdb__fail(-EIO, "callgrind: block %" PRIu32 " names no function", i);
		cg->blk_next[i] = cg->blk_first[fn];
		cg->blk_first[fn] = i;
	}
	return 0;
}
