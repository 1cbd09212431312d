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

#include "query/query-internal.h"

/* One (context, metric) accumulator: Welford's running mean and sum of
 * squared deviations for the variance, the plain ascending-order sum for
 * `sum`, and the extremes with the first profile holding them.
 * min_profile == PROFDB_NONE means no non-NaN value yet (min/max are then
 * meaningless). The field names are those of the public profdb_stats_acc,
 * so PROFDB__ACC_ADD below updates both: one copy of the rule. This one is
 * smaller (56 bytes) because the pass keeps contexts x metrics of them. */
typedef struct profdb__acc {
	double sum, mean, m2, min, max;
	uint32_t count;
	uint32_t first_profile;    /* the first profile with a value (for all-NaN) */
	uint32_t min_profile, max_profile;
} profdb__acc;

/* Add value @p v of profile @p p (after every profile already in @p a).
 * A later equal value never replaces the first holder of the min or max;
 * NaN compares false everywhere, so it never becomes a min or max. */
#define PROFDB__ACC_ADD(a, v, p) do {                                           \
	if ((a)->count == 0) {                                                      \
		(a)->count = 1;                                                         \
		(a)->sum = (a)->mean = (v);                                             \
		(a)->m2 = 0;                                                            \
		(a)->first_profile = (p);                                               \
		(a)->min = (a)->max = (v);                                              \
		(a)->min_profile = (a)->max_profile = (v) == (v) ? (p) : PROFDB_NONE;   \
		break;                                                                  \
	}                                                                           \
	(a)->count++;                                                               \
	(a)->sum += (v);                                                            \
	double d_ = (v) - (a)->mean;                                                \
	(a)->mean += d_ / (double)(a)->count;                                       \
	(a)->m2 += d_ * ((v) - (a)->mean);                                          \
	if ((v) < (a)->min) {                                                       \
		(a)->min = (v);                                                         \
		(a)->min_profile = (p);                                                 \
	} else if ((a)->min_profile == PROFDB_NONE && (v) == (v)) {                 \
		(a)->min = (a)->max = (v);                                              \
		(a)->min_profile = (a)->max_profile = (p);                              \
		break;                                                                  \
	}                                                                           \
	if ((v) > (a)->max) {                                                       \
		(a)->max = (v);                                                         \
		(a)->max_profile = (p);                                                 \
	}                                                                           \
} while (0)

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
 * ids @p metrics (ascending, no duplicates), on @p threads threads (>= 1),
 * the fold of each (context, metric) starting from the matching one of the
 * @p n_start accumulators @p start (checked by the caller: sorted, their
 * metrics among @p metrics, their profiles before @p profiles).
 * @return 0, -EFBIG (max_memory), -ENOMEM, -ECANCELED, or what reading a
 * profile's view met. On failure *out is left empty. */
int profdb__stats_run(const profdb *db, const uint32_t *profiles, size_t n_profiles,
                      const uint32_t *metrics, size_t n_metrics, unsigned threads,
                      const profdb_stats_acc *start, size_t n_start, profdb__stats_pass *out);
void profdb__stats_pass_free(profdb__stats_pass *p);

/* The memory limit of @p db (options.max_memory or the default). */
static inline uint64_t profdb__stats_limit(const profdb *db)
{
	return db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
}

#endif
