/* Statistics over profiles: the accumulator and the parallel pass
 * (stats-run.c) behind profdb_stats_new() (stats.c).
 *
 * The pass keeps one accumulator per (context row, metric slot), rows
 * dense by context id when the ids are dense enough, else one row per
 * distinct context id (sorted). It is split by CONTEXT range, not by
 * profile: the rows are cut into tiles whose accumulators fit a core's
 * cache, consecutive tiles form stripes, and worker threads take stripes
 * from a shared counter. Every accumulator is therefore updated by one
 * thread, visiting the profiles in ascending index order, whatever the
 * thread count: the results are the sequential ones, bit for bit, and no
 * per-thread copies are merged. */
#ifndef PROFDB_QUERY_STATS_H
#define PROFDB_QUERY_STATS_H

#include "query-internal.h"

/* One (context, metric) accumulator: Welford's running mean and sum of
 * squared deviations for the variance, the plain ascending-order sum for
 * `sum`, and the extremes with the first profile holding them. min_p ==
 * PROFDB_NONE means no non-NaN value yet (min/max are then meaningless). */
typedef struct profdb__acc {
	double sum, mean, m2, min, max;
	uint32_t count;
	uint32_t first_p;    /* the first profile with a value (for all-NaN) */
	uint32_t min_p, max_p;
} profdb__acc;

/* What the pass computed: n_rows x n_slots accumulators, row r standing
 * for context id (ids ? ids[r] : r), slot s for metric metric_ids[s]
 * (ascending). */
typedef struct profdb__stats_pass {
	profdb__acc *acc;
	uint64_t n_rows;
	uint32_t *ids;          /* NULL when rows are dense by context id */
	uint32_t *metric_ids;   /* ascending */
	size_t n_slots;
} profdb__stats_pass;

/* Run the pass over @p profiles (ascending, no duplicates) for the metric
 * ids @p metrics (ascending, no duplicates), on @p threads threads (>= 1).
 * @return 0, -EFBIG (max_memory), -ENOMEM, -ECANCELED, or what reading a
 * profile's view met. On failure *out is left empty. */
int profdb__stats_run(const profdb *db, const uint32_t *profiles, size_t n_profiles,
                      const uint32_t *metrics, size_t n_metrics, unsigned threads,
                      profdb__stats_pass *out);
void profdb__stats_pass_free(profdb__stats_pass *p);

/* The memory limit of @p db (options.max_memory or the default). */
static inline uint64_t profdb__stats_limit(const profdb *db)
{
	return db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
}

#endif
