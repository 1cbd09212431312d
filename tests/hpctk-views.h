/* Small helpers for the test, fuzz and benchmark programs that walk
 * HPCToolkit 4.0 value planes and trace lines: a plane is the pair of
 * views profdb_hpctk_profile_plane()/profdb_hpctk_context_plane() hand
 * out, a run is profdb_view_run() of it. Everything goes through the
 * public view API (profdb/common.h); nothing here reads the bytes itself.
 * Header-only; include after profdb/profdb.h. */
#ifndef PROFDB_TESTS_HPCTK_VIEWS_H
#define PROFDB_TESTS_HPCTK_VIEWS_H

#include <errno.h>

#include "profdb/profdb.h"

/* A value plane: its index view and its values view. */
typedef struct tv_plane {
	profdb_view index, values;
} tv_plane;

static inline int tv_profile_plane(const profdb_hpctk *db, uint32_t p, tv_plane *pl)
{
	return profdb_hpctk_profile_plane(db, p, &pl->index, &pl->values);
}

static inline int tv_context_plane(const profdb_hpctk *db, uint32_t c, tv_plane *pl)
{
	return profdb_hpctk_context_plane(db, c, &pl->index, &pl->values);
}

/* Index record @p i: its key and its run. */
static inline int tv_plane_at(const tv_plane *pl, uint64_t i, uint32_t *key, profdb_view *run)
{
	if (key)
		*key = 0;
	if (run)
		*run = profdb_view_slice(&pl->values, 0, 0);
	if (i >= pl->index.count)
		return -ENOENT;
	if (key)
		*key = (uint32_t)profdb_view_key(&pl->index, i);
	if (run)
		*run = profdb_view_run(&pl->index, i, &pl->values);
	return 0;
}

/* The run of index key @p key: 1 found, 0 not (run emptied). */
static inline int tv_plane_find(const tv_plane *pl, uint32_t key, profdb_view *run)
{
	uint64_t i;
	if (profdb_view_find(&pl->index, key, &i) != 1) {
		if (run)
			*run = profdb_view_slice(&pl->values, 0, 0);
		return 0;
	}
	if (run)
		*run = profdb_view_run(&pl->index, i, &pl->values);
	return 1;
}

/* Pair @p k of a run, bit-for-bit. */
static inline int tv_run_at(const profdb_view *run, uint64_t k, uint32_t *key, double *v)
{
	if (key)
		*key = 0;
	if (v)
		*v = 0;
	if (k >= run->count)
		return -ENOENT;
	if (key)
		*key = (uint32_t)profdb_view_key(run, k);
	if (v)
		*v = profdb_view_value(run, k).as.f64;
	return 0;
}

/* The value under @p key in a run: 1 found, 0 not. */
static inline int tv_run_find(const profdb_view *run, uint32_t key, double *v)
{
	uint64_t k;
	if (profdb_view_find(run, key, &k) != 1)
		return 0;
	if (v)
		*v = profdb_view_value(run, k).as.f64;
	return 1;
}

/* Sample @p i of a trace line. */
static inline int tv_sample(const profdb_hpctk_trace *t, uint64_t i, uint64_t *time,
                            uint32_t *ctx)
{
	if (time)
		*time = 0;
	if (ctx)
		*ctx = 0;
	if (i >= t->samples.count)
		return -ENOENT;
	if (time)
		*time = profdb_view_key(&t->samples, i);
	if (ctx)
		*ctx = (uint32_t)profdb_view_value(&t->samples, i).as.u64;
	return 0;
}

#endif
