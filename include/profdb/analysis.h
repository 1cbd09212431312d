/* profdb/analysis.h — numbers combined: profile selections, statistics over
 * profiles, call edges and the three views (top-down, bottom-up, flat).
 *
 * Compiles alone as C11 (-pedantic) and as C++. Every combination follows
 * the metric's rule (profdb_metric.combine, profdb/query.h); doc/model.md
 * ("Combining numbers") names each rule, its reference tool and the
 * summation order. The conventions (return codes, threads, lifetimes) are
 * those of profdb/common.h.
 */
#ifndef PROFDB_ANALYSIS_H
#define PROFDB_ANALYSIS_H

#include "query.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- profile selections ------------------------------------------------- */

/** Select profiles by a textual selection.
 *
 *  @p spec is NULL or "" for every non-summary profile. Otherwise it is a
 *  comma-separated list of terms:
 *   - a profile index ("7") or an inclusive range of indices ("0-15");
 *   - "KIND=LIST": profiles whose identity (profdb_profile_identity) has
 *     an entry of that kind whose value is in LIST, a comma-separated list
 *     of values and ranges; the numbers and ranges after "KIND=" belong to
 *     that kind until the next "KIND=" ("rank=0-3,8,thread=0").
 *  Indices and ranges before the first "KIND=" form one condition (the
 *  union); each kind is another condition; a profile is selected when it
 *  meets every condition. KIND is everything before the '=' (any text
 *  without ',' or '=': "gpu-stream=7" selects by the kind "gpu-stream"),
 *  so every kind the library names can be selected. Kind names compare
 *  ASCII case-insensitively, and a blank, control character, ',', '=' or
 *  '"' in a stored kind name compares as '_' (as `profdb profiles` prints
 *  it). Summary profiles are selected only by index.
 *
 *  @param out  receives the selected indices, ascending; at most @p cap of
 *              them (NULL when @p cap is 0: only count).
 *  @return the number of selected profiles (may exceed @p cap; 0 when
 *  nothing matches), -EINVAL (NULL @p db; a syntax error, a range that
 *  goes down, an index past the last profile, or a kind no profile has,
 *  each described by profdb_error_message()), or what reading the profile
 *  table met (-EBADMSG, -ENODATA, -ENOMEM). Thread-safe. @since 0.10 */
PROFDB_EXPORT int64_t profdb_profiles_select(const profdb *db, const char *spec, uint32_t *out,
                                             size_t cap);

/* ---- the default metric ------------------------------------------------- */

/** The metric to show when the caller names none: the one `profdb top`,
 *  the views, the converters, the Python module and profdb-mpi use.
 *
 *  Only metrics read from stored values count (not summary statistics,
 *  not derived metrics), and only those with a non-zero stored value in
 *  one of their scopes (profdb_metric_has_values(); a format that cannot
 *  list its values: profdb_metric.has_data). Time comes first, by what
 *  the name says it measures, in this order: CPUTIME, REALTIME,
 *  (perf::)cpu-clock, (perf::)task-clock, time, GPUOP, cycles,
 *  cpu-cycles, PAPI_TOT_CYC, Ir (a trailing " (unit)" ignored, names
 *  compared ASCII case-insensitively); then any metric whose unit, or
 *  whose name's " (unit)", is a time unit (s, sec, ms, us, ns, ...); then
 *  any metric. Within each step the format's order (profdb_metric_at)
 *  decides. An hpcrun measurement and the HPCToolkit database made from
 *  it therefore pick the same quantity whenever both record it.
 *
 *  *out is the first metric of that quantity in the format's order (for
 *  HPCToolkit its point metric; profdb_inclusive()/profdb_exclusive() give
 *  the other scopes through its exclusive_id and inclusive_id).
 *  @return 0, -EINVAL (NULL argument), -ENOENT (no metric has a non-zero
 *  value; *out zeroed), or what reading the values met (-EBADMSG,
 *  -ENODATA, -EFBIG, -ENOMEM). Lifetime: the strings of *out stay valid
 *  until profdb_close(). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_metric_default(const profdb *db, profdb_metric *out);

/* ---- statistics over profiles ------------------------------------------- */

/** What profdb_stats_new() computes. Start from PROFDB_STATS_OPTIONS_INIT
 *  (or zero it and set @c size); fields grow at the end as in
 *  profdb_options. @since 0.10 */
typedef struct profdb_stats_options {
	size_t size;                /**< sizeof(profdb_stats_options) */
	/** The profiles (indices, any order, no duplicates); NULL: every
	 *  non-summary profile (profdb_profiles_select(db, NULL, ...)). */
	const uint32_t *profiles;
	size_t n_profiles;
	/** The metric ids whose stored values are combined; NULL: every metric
	 *  that has stored values in a non-summary profile. */
	const uint32_t *metrics;
	size_t n_metrics;
	/** Worker threads: 0 = one per online core, 1 = the calling thread
	 *  only. Results depend on the thread count only through the summation
	 *  order (doc/model.md, "Statistics over profiles"). */
	unsigned threads;
	/** Partial statistics to continue (@since 0.11): the fold of each
	 *  (context, metric) starts from the accumulator given for it here
	 *  instead of from nothing, so statistics over profiles A then B,
	 *  computed over A (exported with profdb_stats_accs()) and then over B
	 *  with start = A's accumulators, are bit for bit those over A and B in
	 *  one call. Sorted by metric id, then context id; each metric among
	 *  the selected ones; every profile they name before the first
	 *  selected profile. NULL: start from nothing. */
	const struct profdb_stats_acc *start;
	size_t n_start;
	/** How many profiles @p start was folded over (@since 0.12): they
	 *  count among the selected profiles (profdb_stats_profiles()). */
	uint64_t start_profiles;
} profdb_stats_options;

/** The default statistics options. @since 0.10 */
#define PROFDB_STATS_OPTIONS_INIT \
	{ sizeof(profdb_stats_options), PROFDB__NULL, 0, PROFDB__NULL, 0, 0, PROFDB__NULL, 0, 0 }

/** The statistics of one (context, metric) over the selected profiles.
 *  Values are taken as doubles (profdb_number_to_double). count, sum, min,
 *  max and their profiles are over the profiles that store a value there.
 *  For a metric that adds (PROFDB_COMBINE_SUM), mean, stddev and the
 *  imbalance are over all n selected profiles (profdb_stats_profiles()),
 *  a selected profile without a value counting as 0, as Scalasca and
 *  CubeGUI count a location without a value; for any other metric they
 *  are over the count profiles with a value (doc/model.md, "Statistics
 *  over profiles"). @since 0.10 */
typedef struct profdb_stat {
	uint32_t context;           /**< context id */
	uint32_t metric;            /**< metric id, as stored */
	uint64_t count;             /**< profiles with a stored value */
	double sum;                 /**< in ascending profile order (1 thread) */
	double min, max;            /**< over the stored values */
	double mean;                /**< sum / n (adding metrics), else sum / count */
	double stddev;              /**< population standard deviation, over the same */
	/** top / mean, top = max, or 0 when a selected profile without a value
	 *  counts and max < 0 (NaN when mean is 0) */
	double imbalance;
	double imbalance_pct;       /**< (top - mean) / top (NaN when top is 0) */
	uint32_t min_profile;       /**< lowest profile index holding min */
	uint32_t max_profile;       /**< lowest profile index holding max */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_stat;

/** The result of profdb_stats_new() (opaque). @since 0.10 */
typedef struct profdb_stats profdb_stats;

/** Statistics over profiles: one pass over the selected profiles' stored
 *  values (their profile views), in parallel over profiles.
 *  @param ret   receives the result; NULL on failure.
 *  @param opts  NULL for the defaults.
 *  @return 0; -EINVAL (NULL @p ret or @p db, bad options, a profile index
 *  or metric id out of range, a duplicate profile); -EFBIG (the
 *  accumulators, O(contexts x metrics), would exceed options.max_memory);
 *  -ENOMEM; what reading the values met (-EBADMSG, -ENODATA, -ECANCELED
 *  from the progress callback, ...). Lifetime: free it with
 *  profdb_stats_free() before profdb_close(@p db). Thread-safe on @p db;
 *  the result is read-only and may be shared by threads. @since 0.10 */
PROFDB_EXPORT int profdb_stats_new(profdb_stats **ret, const profdb *db,
                                   const profdb_stats_options *opts);
/** n, the number of profiles the statistics are over: those selected
 *  (plus options.start_profiles); for a result of profdb_stats_from_accs()
 *  the n it was given, or 0 when none was (every row then over its
 *  count). @return n (>= 0), -EINVAL (NULL @p s). Thread-safe.
 *  @since 0.12 */
PROFDB_EXPORT int64_t profdb_stats_profiles(const profdb_stats *s);
/** Number of rows: (context, metric) pairs with count > 0.
 *  @return the count (>= 0), -EINVAL (NULL @p s). Thread-safe. @since 0.10 */
PROFDB_EXPORT int64_t profdb_stats_count(const profdb_stats *s);
/** Row @p index (0 .. count-1). Rows are sorted by metric id, then context
 *  id. @return 0, -EINVAL (NULL argument), -ENOENT (@p index out of range).
 *  Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_stats_at(const profdb_stats *s, uint64_t index, profdb_stat *out);
/** The row of (@p context, @p metric), by binary search.
 *  @return 1 (found), 0 (no stored value there; *out zeroed, count 0),
 *  -EINVAL (NULL argument). Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_stats_get(const profdb_stats *s, uint32_t context, uint32_t metric,
                                   profdb_stat *out);
/** The rows of one metric as a view over the result's memory: key =
 *  context id (U32, strictly increasing), value = the double at
 *  @p field_offset in profdb_stat (offsetof(profdb_stat, sum), ...; one of
 *  the double fields), stride sizeof(profdb_stat).
 *  @return 0 (an empty view for a metric without rows), -EINVAL (NULL
 *  argument, @p field_offset not a double field). Lifetime: valid until
 *  profdb_stats_free(). Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_stats_view(const profdb_stats *s, uint32_t metric, size_t field_offset,
                                    profdb_view *out);
/** Free a result; NULL is a no-op. @since 0.10 */
PROFDB_EXPORT void profdb_stats_free(profdb_stats *s);

/* ---- partial statistics: export, continue, merge -------------------------- */
/*
 * What a row of statistics is made of before it is finished, so statistics
 * can be computed in parts (other processes, other machines, other runs)
 * and combined: profdb_stats_accs() exports a result's accumulators,
 * profdb_stats_options.start continues a fold from them (exact: the same
 * bits as one pass), profdb_stats_acc_merge() combines two parts computed
 * independently (Chan, Golub and LeVeque's pairwise update of the mean and
 * M2; the sum then differs from the one-pass left fold only by the order of
 * the additions, within the bound of doc/model.md), profdb_stats_acc_add()
 * adds one value, and profdb_stats_from_accs() finishes a list into a
 * result. doc/model.md ("Statistics in parts") has the rules.
 */

/** The state of one (context, metric) of statistics in progress. A plain
 *  value in host byte order (104 bytes, no padding): it may be copied,
 *  sent and stored as bytes between machines of the same byte order.
 *  @since 0.11 */
typedef struct profdb_stats_acc {
	uint32_t context;           /**< context id (or any key the caller chooses) */
	uint32_t metric;            /**< metric id */
	uint64_t count;             /**< values so far (>= 1 in a valid state) */
	double sum;                 /**< their sum, in the order they came */
	double mean;                /**< Welford's running mean */
	double m2;                  /**< sum of squared deviations from the mean */
	double min, max;            /**< extremes of the non-NaN values */
	uint32_t first_profile;     /**< profile (or run) of the first value */
	/** Lowest profile holding min (max); PROFDB_NONE: every value was NaN. */
	uint32_t min_profile, max_profile;
	/** Zero; room for fields of later versions (32-bit words, so the
	 *  struct keeps no padding byte). */
	uint32_t reserved[9];
} profdb_stats_acc;

/** The accumulators of a result's rows, in row order (by metric id, then
 *  context id).
 *  @param out  receives at most @p cap of them (NULL when @p cap is 0).
 *  @return the number of rows (may exceed @p cap), -EINVAL (NULL @p s, or
 *  NULL @p out with @p cap > 0). Thread-safe. @since 0.11 */
PROFDB_EXPORT int64_t profdb_stats_accs(const profdb_stats *s, profdb_stats_acc *out,
                                        size_t cap);
/** A result made of accumulators: each finished as profdb_stats_new()
 *  finishes its own (mean = sum / count, stddev = sqrt(m2 / count), ...).
 *  @param accs  sorted by metric id, then context id, no duplicate, every
 *               count >= 1; copied.
 *  @return 0; -EINVAL (NULL @p ret, NULL @p accs with @p n > 0, unsorted,
 *  a duplicate, a count of 0); -ENOMEM. Lifetime: free it with
 *  profdb_stats_free(); it holds no database. Thread-safe. @since 0.11 */
PROFDB_EXPORT int profdb_stats_from_accs(profdb_stats **ret, const profdb_stats_acc *accs,
                                         size_t n);
/** profdb_stats_from_accs() for accumulators folded over @p n_profiles
 *  selected profiles in all: the rows of a metric of @p db that adds
 *  (PROFDB_COMBINE_SUM) are finished as profdb_stats_new() finishes them,
 *  a selected profile without a value counting as 0 in mean, stddev and
 *  the imbalance; other metrics over their count.
 *  @param db  the database whose metric ids the accumulators name; only
 *             read during the call.
 *  @return 0; -EINVAL (as profdb_stats_from_accs(), NULL @p db, a count
 *  above @p n_profiles, a metric @p db does not have); -ENOMEM. Lifetime:
 *  free it with profdb_stats_free(); it holds no database. Thread-safe.
 *  @since 0.12 */
PROFDB_EXPORT int profdb_stats_from_accs_over(profdb_stats **ret, const profdb_stats_acc *accs,
                                              size_t n, const profdb *db, uint64_t n_profiles);
/** Fold value @p v of profile (or run) @p profile into @p acc, as
 *  profdb_stats_new() does: after every value already in @p acc. A zeroed
 *  accumulator is the empty state (set its context and metric yourself).
 *  @return 0, -EINVAL (NULL @p acc). Thread-safe on distinct
 *  accumulators. @since 0.11 */
PROFDB_EXPORT int profdb_stats_acc_add(profdb_stats_acc *acc, double v, uint32_t profile);
/** Merge @p later into @p into: the statistics of both sets of values,
 *  when every profile of @p later comes after every profile of @p into
 *  (so ties of min and max keep @p into's holder). count, min, max and
 *  their profiles are exact; mean and m2 follow Chan et al.'s pairwise
 *  update; sum = into.sum + later.sum. An empty side (count 0) leaves the
 *  other unchanged.
 *  @return 0, -EINVAL (NULL argument, or both non-empty with a different
 *  context or metric). Thread-safe on distinct accumulators. @since 0.11 */
PROFDB_EXPORT int profdb_stats_acc_merge(profdb_stats_acc *into, const profdb_stats_acc *later);

/* ---- statistics against the summaries a format stores --------------------- */
/*
 * HPCToolkit 4.0 databases store, in a summary profile, hpcprof's
 * statistics of each metric over the thread profiles (sum, min, max, count,
 * sum of squares). profdb_summary_check_new() recomputes each stored value
 * with hpcprof's own rule (count, sum, min and max over the profiles with
 * a value) from the thread profiles' values and compares: a sum within
 * 2*gamma(n-1)*sum|v| (gamma(k) = k*u/(1-k*u), u = 2^-53: the bound of two
 * summation orders), min, max and count exactly. A disagreement is tested
 * against hpcprof's documented defects (doc/FORMATS.md, "Statistics
 * against hpcprof's summaries"); a lex_aware value at a loop context,
 * which holds the loop's own body that the thread values do not give, is
 * reported as unchecked, never as a defect.
 */

/** Why a stored summary value and profdb's statistic disagree. @since 0.12 */
typedef enum profdb_summary_reason {
	PROFDB_SUMMARY_UNEXPLAINED = 0,      /**< no documented reason */
	PROFDB_SUMMARY_SQUARE_STORES_SUM = 1,/**< "($$^2)" holds sum(v), not sum(v^2) */
	/** "1" counts the profiles with the metric in any scope */
	PROFDB_SUMMARY_COUNT_ANY_SCOPE = 2,
	/** not a defect: a lex_aware value at a loop context, not recomputed */
	PROFDB_SUMMARY_UNCHECKED_LOOP = 3,
	PROFDB_SUMMARY_MIN_ZERO_UNSET = 4,   /**< min: a zero value reads as "unset" */
	PROFDB_SUMMARY_ZERO_NOT_STORED = 5   /**< a zero result is never stored */
} profdb_summary_reason;

/** The name of a reason ("none", "hpcprof-square-stores-sum",
 *  "hpcprof-count-any-scope", "unchecked-lex-aware-loop",
 *  "hpcprof-min-zero-unset", "hpcprof-zero-not-stored"); "none" for a
 *  value out of range. Lifetime: static. Thread-safe. @since 0.12 */
PROFDB_EXPORT const char *profdb_summary_reason_name(profdb_summary_reason reason);

/** A stored summary value that disagrees (missing = 0), or the thread
 *  values of a (context, metric) whose statistic is not stored
 *  (missing = 1). @since 0.12 */
typedef struct profdb_summary_issue {
	uint32_t context;           /**< context id */
	uint32_t statistic_id;      /**< the metric id in the summary profile */
	uint32_t metric;            /**< the metric id it summarises */
	int missing;
	/** "sum", "min", "max", "sum of squares", "count", or COMBINE(FORMULA) */
	profdb_str statistic;
	double stored;              /**< NaN when missing */
	double expected;            /**< profdb's statistic; NaN without thread values */
	double bound;               /**< the tolerance applied */
	uint64_t terms;             /**< thread values combined */
	profdb_summary_reason reason;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_summary_issue;

/** What a check found, as counts. @since 0.12 */
typedef struct profdb_summary_counts {
	uint32_t summary;           /**< the summary profile's index */
	uint64_t stored;            /**< values stored in the summary profile */
	uint64_t checked;           /**< ... under a statistic id: every one is checked */
	uint64_t agree;             /**< within the bound */
	uint64_t explained;         /**< disagreements with a documented defect */
	uint64_t unexplained;
	/** lex_aware values at loop contexts that differ: neither agreement nor
	 *  a defect */
	uint64_t unchecked;
	uint64_t unknown_ids;       /**< stored under an id that is no statistic id */
	uint64_t missing;           /**< thread values without their summary value */
	uint64_t missing_explained;
	uint64_t missing_unchecked; /**< ... of a lex_aware statistic at a loop context */
	uint64_t issues;            /**< profdb_summary_check_issue_at() rows */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_summary_counts;

/** The result of profdb_summary_check_new() (opaque). @since 0.12 */
typedef struct profdb_summary_check profdb_summary_check;

/** Check every value of @p db's summary profile against the thread
 *  profiles, and every statistic the thread values have against a stored
 *  value.
 *  @param ret      receives the result; NULL on failure.
 *  @param threads  worker threads of the statistics (as
 *                  profdb_stats_options.threads).
 *  @return 0; -EINVAL (NULL argument); -ENOTSUP (the format stores no
 *  summary statistics, or @p db has no summary profile); -ENOMEM; what
 *  reading the metadata or the values met (-ENOENT without meta.db,
 *  -EBADMSG, ...). Lifetime: free it with profdb_summary_check_free()
 *  before profdb_close(@p db) (its strings live in @p db). Thread-safe on
 *  @p db; the result is read-only and may be shared by threads.
 *  @since 0.12 */
PROFDB_EXPORT int profdb_summary_check_new(profdb_summary_check **ret, const profdb *db,
                                           unsigned threads);
/** The counts of a check. @return 0, -EINVAL (NULL argument).
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_summary_check_counts(const profdb_summary_check *c,
                                              profdb_summary_counts *out);
/** Issue @p index (0 .. counts.issues-1): the disagreements in the order
 *  of the summary profile's values, then the missing values by statistic
 *  id and context.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (out of range). Lifetime:
 *  the statistic's name lives until profdb_summary_check_free().
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_summary_check_issue_at(const profdb_summary_check *c, uint64_t index,
                                                profdb_summary_issue *out);
/** Free a result; NULL is a no-op. @since 0.12 */
PROFDB_EXPORT void profdb_summary_check_free(profdb_summary_check *c);

/* ---- a metric's combination rule ------------------------------------------ */

/** Two values of a metric combined by its rule @p rule: the sum, the
 *  minimum or the maximum; a NaN operand stands for "no value" and yields
 *  the other; a rule that does not combine (PROFDB_COMBINE_NONE) yields
 *  @p a. Thread-safe. @since 0.12 */
PROFDB_EXPORT double profdb_combine_pair(profdb_combine rule, double a, double b);
/** 1 when the values of a metric add up (PROFDB_COMBINE_SUM), so that a
 *  total and percentages of it mean something; 0 otherwise.
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_combine_adds(profdb_combine rule);
/** 1 when values of a metric combine at all (sum, min or max); 0 for a
 *  rate, a mean or a derived value (PROFDB_COMBINE_NONE).
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_combine_ok(profdb_combine rule);
/** The rule's short name: "sum", "min", "max" or "none" (as `profdb info`
 *  and the JSON outputs print it). A static string. Thread-safe.
 *  @since 0.12 */
PROFDB_EXPORT const char *profdb_combine_name(profdb_combine rule);
/** "minimum" or "maximum" for a rule that keeps one extreme value, NULL
 *  for the others. A static string. Thread-safe. @since 0.12 */
PROFDB_EXPORT const char *profdb_combine_extreme(profdb_combine rule);

/* ---- functions: identity and groups -------------------------------------- */
/*
 * A function is identified by (module, file, full name): the name as the
 * format stores it, never cut, with only the suffixes a format appends to
 * a function's name for one of its contexts removed (Callgrind's recursion
 * level "f'2" and separate-callers parts "f'caller'caller"). Every
 * front-end and converter that groups contexts by function uses this
 * identity; doc/model.md ("Combining numbers", functions) gives the rule
 * and how a group's inclusive value is computed.
 */

/** The identity of a function. The strings point into the database and
 *  live until profdb_close(). @since 0.12 */
typedef struct profdb_function_id {
	profdb_str name;            /**< full name, format suffixes removed */
	profdb_str file;            /**< source file ("" when unknown) */
	profdb_str module;          /**< load module or object ("" when unknown) */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_function_id;

/** The function a context name of @p db stands for: for Callgrind the
 *  name up to the first apostrophe that valgrind appended (outside
 *  brackets, not a quoted word of a demangled name: doc/model.md), for the
 *  other formats @p name itself.
 *  @return a prefix of @p name (pointing into it); @p name when @p db is
 *  NULL. Thread-safe. @since 0.12 */
PROFDB_EXPORT profdb_str profdb_function_fold(const profdb *db, profdb_str name);

/** The identity of the function of context @p context.
 *  @return 0; -EINVAL (NULL argument); -ENOENT (no such context, or a
 *  context that is not a FUNCTION context or has no name); what reading
 *  the context met. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_function_identity(const profdb *db, uint32_t context,
                                           profdb_function_id *out);

/** The inclusive values of groups of contexts (functions grouped by
 *  profdb_function_identity(), or any grouping of the caller's), computed
 *  from the call graph collapsed to the groups: a group's inclusive value
 *  is the exclusive values of its members plus the costs of the calls
 *  from its members to contexts outside the group (profdb_edge_inclusive), so
 *  a member called inside another member (a recursion level, a recursive
 *  call path) is not counted again. Along one call path only the members
 *  up to the first call that leaves the group count (the later ones are
 *  inside that call's cost); a member that is not a FUNCTION context (code
 *  outside any function) adds its inclusive value.
 *  @param group_of  the group of each context id below @p n_contexts
 *                   (PROFDB_NONE: no group); ids at or past @p n_contexts
 *                   belong to no group (ids need not be dense).
 *  @param profile   a profile index, or PROFDB_NONE: the non-summary
 *                   profiles summed in ascending order (each value first).
 *  @param metric    a metric id (any scope of the quantity) whose rule is
 *                   SUM.
 *  @param out       receives @p n_groups values (every group index in
 *                   @p group_of is below @p n_groups); a group without
 *                   members gets 0.
 *  Summation order: per group, its members' values in ascending context
 *  id, then the leaving calls in edge order (profdb_edge_at).
 *  @return 0; -EINVAL (NULL argument, a group index not below
 *  @p n_groups); -ENOTSUP (a metric whose rule
 *  is not SUM, or without an exclusive and inclusive scope); -ENOENT (a
 *  profile or metric out of range); -ENOMEM; what reading the values and
 *  the edges met. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_group_inclusive(const profdb *db, const uint32_t *group_of,
                                         size_t n_contexts, uint32_t profile, uint32_t metric,
                                         double *out, size_t n_groups);

/** The cycles of the groups' call graph that profdb_group_inclusive()
 *  keeps together: on a format that stores a call graph (Callgrind), each
 *  strongly connected component of two or more groups whose members call
 *  each other (KCachegrind's `<cycle N>` when the groups are functions).
 *  A cycle's inclusive value is profdb_group_inclusive() of a grouping
 *  that puts its members' contexts in one group. On a calling-context
 *  tree there are none.
 *  @param group_of    as for profdb_group_inclusive().
 *  @param cycle_of    receives @p n_groups entries: the cycle (0, 1, ...
 *                     numbered in the order of their lowest group index)
 *                     of each group, PROFDB_NONE for a group in no cycle.
 *  @return the number of cycles; -EINVAL (NULL argument, a group index not
 *  below @p n_groups); -ENOMEM; what reading the edges met. Thread-safe.
 *  @since 0.12 */
PROFDB_EXPORT int64_t profdb_group_cycles(const profdb *db, const uint32_t *group_of,
                                          size_t n_contexts, uint32_t *cycle_of,
                                          size_t n_groups);

/* ---- the functions of a call graph -------------------------------------- */
/*
 * A format that stores a call graph of functions (Callgrind), not call
 * paths, has a table of functions, each one FUNCTION context of the
 * common interface, with its self cost per profile stored once. Reading
 * it by index spares a front-end the walk of the context tree and a
 * search per value; the values are those profdb_exclusive() gives for the
 * function's context.
 */

/** A function of a call graph. The strings point into the database and
 *  live until profdb_close(). @since 0.12 */
typedef struct profdb_graph_function {
	uint32_t context;           /**< its FUNCTION context */
	profdb_str name;            /**< the name as stored, format suffixes kept
	                                 ("f'2"; profdb_function_fold() removes them) */
	profdb_str file;            /**< source file ("" when unknown) */
	profdb_str module;          /**< load module or object ("" when unknown) */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_graph_function;

/** Number of functions of @p db's call graph.
 *  @return the count (>= 0); -EINVAL (NULL @p db); -ENOTSUP (the format
 *  stores call paths: HPCToolkit, hpcrun, Cube); what reading the graph
 *  met. Thread-safe. @since 0.12 */
PROFDB_EXPORT int64_t profdb_graph_function_count(const profdb *db);

/** Function @p index (0 .. count-1), in the format's order.
 *  @return 0; -EINVAL (NULL argument); -ENOTSUP (no call graph); -ENOENT
 *  (@p index out of range). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_graph_function_at(const profdb *db, uint32_t index,
                                           profdb_graph_function *out);

/** The self cost of function @p function (an index of
 *  profdb_graph_function_at()) for metric @p metric in @p profile,
 *  or summed over every profile (@p profile = PROFDB_NONE; integer costs,
 *  exact): what profdb_exclusive() gives for its context (in one profile).
 *  @return 1 (a non-zero cost, u64), 0 (none; *out of type NONE);
 *  -EINVAL (NULL argument); -ENOTSUP (no call graph); -ENOENT (function,
 *  profile or metric out of range). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_graph_exclusive(const profdb *db, uint32_t profile, uint32_t function,
                                         uint32_t metric, profdb_number *out);

/* ---- call edges ---------------------------------------------------------- */

/** A call from one function (context) to another. @since 0.10 */
typedef struct profdb_edge {
	uint32_t caller;            /**< context id of the calling function (or the root) */
	uint32_t callee;            /**< context id of the called function */
	/** The context of the call site (a line or instruction of the caller),
	 *  PROFDB_NONE when the format records none. */
	uint32_t site;
	int has_count;              /**< 1 when the format records call counts */
	uint64_t count;             /**< calls, summed over profiles (0 when !has_count) */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_edge;

/** Number of call edges: Callgrind's calls (one per caller, callee and
 *  call site); in the tree formats one per context called from its parent
 *  (relation CALL or INLINED), from the nearest enclosing function.
 *  @return the count (>= 0), -EINVAL (NULL @p db), or what building the
 *  tree met. Thread-safe. @since 0.10 */
PROFDB_EXPORT int64_t profdb_edge_count(const profdb *db);
/** Edge @p index (0 .. count-1); edges are sorted by caller, then callee,
 *  then site. @return 0, -EINVAL (NULL argument), -ENOENT (out of range),
 *  or what building the tree met. Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_edge_at(const profdb *db, uint64_t index, profdb_edge *out);
/** The inclusive cost of edge @p edge (an index of profdb_edge_at()) for
 *  @p metric in @p profile
 *  (PROFDB_NONE: combined over the non-summary profiles by the metric's
 *  rule, in ascending profile order). Callgrind: the calls= lines' cost
 *  (u64), per profile or summed; the tree formats: profdb_inclusive() of
 *  the callee (doc/model.md, "Call edges").
 *  @return 1 (a cost: Callgrind, the edge has calls in that profile, even
 *  of cost 0), 0 (none; *out cleared), -EINVAL, -ENOENT (edge, profile
 *  or metric out of range), -ENOTSUP (a metric that does not combine),
 *  or what reading the values met. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_edge_inclusive(const profdb *db, uint32_t profile, uint64_t edge,
                                        uint32_t metric, profdb_number *out);

/* The edges of some contexts. The functions above build every edge of
 * the database on first use; on Callgrind with line contexts that decodes
 * every calling function's text for its call sites. An edge set holds the
 * edges of a few contexts only (a function's contexts, say), and reads
 * what those need: on Callgrind the text of the contexts' callers (into)
 * or of their own functions (out of), no other. */

/** Which edges of its contexts profdb_edge_set_new() takes. @since 1.1 */
typedef enum profdb_edge_side {
	/** The calls into the contexts: the edges whose callee is one. */
	PROFDB_EDGES_INTO = 0,
	/** The calls out of them: the edges whose caller is one (a function,
	 *  or the root), or whose call site is one (a line or instruction). */
	PROFDB_EDGES_OUT_OF = 1
} profdb_edge_side;

/** The edges of some contexts (opaque, read-only, shareable by threads).
 *  @since 1.1 */
typedef struct profdb_edge_set profdb_edge_set;

/** The edges of the contexts @p contexts (@p n_contexts ids, in any order,
 *  repeats allowed) on side @p side: exactly the edges of profdb_edge_at()
 *  that the side selects for any of them, each once, in the same order
 *  (caller, callee, site), with the same counts and inclusive costs
 *  (profdb_edge_set_inclusive() answers what profdb_edge_inclusive() does
 *  for the same edge). No contexts: an empty set.
 *  @return 0; -EINVAL (NULL @p ret or @p db, NULL @p contexts with
 *  @p n_contexts > 0, @p side not a profdb_edge_side); -ENOENT (a context
 *  out of range); -EFBIG (the edges need more than options.max_memory);
 *  -ENOMEM; what reading the calls and call sites met. Lifetime: free it
 *  with profdb_edge_set_free() before profdb_close(@p db); @p contexts is
 *  not kept. Thread-safe on @p db. @since 1.1 */
PROFDB_EXPORT int profdb_edge_set_new(profdb_edge_set **ret, const profdb *db,
                                      const uint32_t *contexts, size_t n_contexts,
                                      profdb_edge_side side);
/** Number of edges in @p set. @return the count (>= 0), -EINVAL (NULL
 *  @p set). Thread-safe. @since 1.1 */
PROFDB_EXPORT int64_t profdb_edge_set_count(const profdb_edge_set *set);
/** Edge @p index (0 .. count-1) of @p set.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (out of range).
 *  Thread-safe. @since 1.1 */
PROFDB_EXPORT int profdb_edge_set_at(const profdb_edge_set *set, uint64_t index,
                                     profdb_edge *out);
/** The inclusive cost of edge @p index of @p set for @p metric in
 *  @p profile (PROFDB_NONE: combined as profdb_edge_inclusive() combines
 *  it). @return as profdb_edge_inclusive(). Thread-safe. @since 1.1 */
PROFDB_EXPORT int profdb_edge_set_inclusive(const profdb_edge_set *set, uint32_t profile,
                                            uint64_t index, uint32_t metric,
                                            profdb_number *out);
/** Free an edge set; NULL is a no-op. @since 1.1 */
PROFDB_EXPORT void profdb_edge_set_free(profdb_edge_set *set);

/* ---- the three views: top-down, bottom-up, flat ---------------------------- */
/*
 * A profdb_tree is one of the three views hpcviewer shows, built once from
 * a database for a few metrics and a set of profiles. Node ids are dense
 * (0 is the root), assigned in an order that depends only on the input and
 * the options; children are ordered by the first metric's inclusive value
 * (a min or max metric: its exclusive value, the node's own), heaviest
 * first, ties by id of what they stand for. doc/model.md ("The
 * three views") defines each view, its recursion rule and its treatment of
 * inlined code.
 *  - TOP_DOWN: the calling-context tree. For Callgrind, which stores a call
 *    graph and not call paths, the call edges expanded from the root with
 *    each child scaled by its parent's share of the caller's inclusive cost
 *    (an approximation, as gprof2dot's), recursion cut and marked, nodes
 *    under the cut-off folded into one "<other>" child per parent.
 *  - BOTTOM_UP: one root per function with its cost summed over every
 *    context where it appears (a recursive function counted once per
 *    path); a node's children are its callers, shown below the functions
 *    that have a self cost (the others are leaves, which keeps the view
 *    linear in the input plus its size on deep call chains).
 *  - FLAT: load module -> file -> function -> loop -> line.
 */

/** Which view. @since 0.10 */
typedef enum profdb_tree_kind {
	PROFDB_TREE_TOP_DOWN = 0,
	PROFDB_TREE_BOTTOM_UP = 1,
	PROFDB_TREE_FLAT = 2
} profdb_tree_kind;

/** What profdb_tree_new() builds. Start from PROFDB_TREE_OPTIONS_INIT;
 *  fields grow at the end as in profdb_options. @since 0.10 */
typedef struct profdb_tree_options {
	size_t size;                /**< sizeof(profdb_tree_options) */
	profdb_tree_kind kind;
	/** The metrics (ids of any scope of each quantity; at least one). */
	const uint32_t *metrics;
	size_t n_metrics;
	/** The profiles whose values are combined by each metric's rule; NULL:
	 *  the summary profile where the format stores one for the metric,
	 *  else every non-summary profile. */
	const uint32_t *profiles;
	size_t n_profiles;
	/** Nodes whose inclusive value of the first metric is below this
	 *  fraction of the total are folded into their parent's "<other>"
	 *  node (Callgrind's expanded top-down and bottom-up views always;
	 *  other views and formats only when > 0). 0: the default, 0.001 for
	 *  Callgrind's expanded views, nothing folded elsewhere. */
	double cutoff;
} profdb_tree_options;

/** The default tree options (top-down, no metric yet). @since 0.10 */
#define PROFDB_TREE_OPTIONS_INIT \
	{ sizeof(profdb_tree_options), PROFDB_TREE_TOP_DOWN, PROFDB__NULL, 0, PROFDB__NULL, 0, 0.0 }

/** What a view node stands for. @since 0.10 */
typedef enum profdb_node_type {
	PROFDB_NODE_ROOT = 0,         /**< the whole program */
	PROFDB_NODE_MODULE = 1,       /**< a load module (flat view) */
	PROFDB_NODE_FILE = 2,         /**< a source file (flat view) */
	PROFDB_NODE_FUNCTION = 3,
	PROFDB_NODE_LOOP = 4,
	PROFDB_NODE_LINE = 5,
	PROFDB_NODE_INSTRUCTION = 6,
	PROFDB_NODE_OTHER = 7,        /**< what the cut-off folded */
	PROFDB_NODE_UNKNOWN = 8
} profdb_node_type;

/** Node flags. @since 0.10 */
enum {
	/** Recursion: the path already holds this function; not expanded. */
	PROFDB_NODE_RECURSIVE = 1u << 0
};

/** A node of a view. @since 0.10 */
typedef struct profdb_node {
	uint32_t id, parent, first_child, next_sibling, depth;
	profdb_node_type type;
	uint32_t flags;             /**< PROFDB_NODE_* */
	/** A context this node stands for (top-down: its context; bottom-up
	 *  and flat: the first context, by id, of its function, loop or line);
	 *  PROFDB_NONE for the root, modules, files and "<other>". */
	uint32_t context;
	profdb_str name;            /**< function, module or file name; "<other>" */
	profdb_str file;
	uint64_t line;
	profdb_str module;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_node;

/** A built view (opaque, read-only, shareable by threads). @since 0.10 */
typedef struct profdb_tree profdb_tree;

/** Build a view.
 *  @return 0; -EINVAL (NULL argument, no metric, bad options, an id or
 *  index out of range); -ENOTSUP (a metric whose values do not combine
 *  over the chosen profiles, or that has neither scope); -EFBIG (more
 *  nodes than options.max_memory allows); -ENOMEM; what reading the
 *  values met. Lifetime: free it with profdb_tree_free() before
 *  profdb_close(@p db); strings live until profdb_close(). Thread-safe on
 *  @p db. @since 0.10 */
PROFDB_EXPORT int profdb_tree_new(profdb_tree **ret, const profdb *db,
                                  const profdb_tree_options *opts);
/** Number of nodes. @return the count (>= 1), -EINVAL. Thread-safe. @since 0.10 */
PROFDB_EXPORT int64_t profdb_tree_count(const profdb_tree *t);
/** Node @p id (0 .. count-1; 0 is the root).
 *  @return 0, -EINVAL (NULL argument), -ENOENT (out of range).
 *  Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_tree_get(const profdb_tree *t, uint32_t id, profdb_node *out);
/** The values of node @p id for metric number @p k of the options.
 *  @param inclusive  receives the inclusive value (may be NULL).
 *  @param exclusive  receives the exclusive value (may be NULL).
 *  @return 0, -EINVAL, -ENOENT (@p id or @p k out of range). Thread-safe.
 *  @since 0.10 */
PROFDB_EXPORT int profdb_tree_values(const profdb_tree *t, uint32_t id, size_t k,
                                     double *inclusive, double *exclusive);
/** Free a view; NULL is a no-op. @since 0.10 */
PROFDB_EXPORT void profdb_tree_free(profdb_tree *t);

/* ---- matching two databases ------------------------------------------------ */
/*
 * The correspondence between the top-down views (profdb_tree_new,
 * PROFDB_TREE_TOP_DOWN) of two databases of the same program, of any two
 * formats: nodes are matched by their call path (the function, file and
 * line names along the path from the root, never ids), metrics by name.
 * doc/model.md ("Matching two databases") gives the exact key of each node
 * type and what happens to duplicate siblings, unmatched paths, inlined
 * code and recursion-marked nodes. The result is a list of rows, one per
 * call path present in either view, in pre-order of the union of the two
 * trees; a row holds a node of A, of B, or of both.
 */

/** What profdb_match_new() matches. Start from PROFDB_MATCH_OPTIONS_INIT;
 *  fields grow at the end as in profdb_options. @since 0.10 */
typedef struct profdb_match_options {
	size_t size;                /**< sizeof(profdb_match_options) */
	/** The metrics of A (names or decimal ids, as profdb_metric_find());
	 *  NULL: every metric name both databases have (doc/model.md). */
	const char *const *metrics_a;
	/** The metrics of B paired with metrics_a, same count; NULL: B's metric
	 *  named as each metric of A is. */
	const char *const *metrics_b;
	size_t n_metrics;
	/** The profiles combined on each side (as profdb_tree_options.profiles;
	 *  NULL: the view's default). */
	const uint32_t *profiles_a;
	size_t n_profiles_a;
	const uint32_t *profiles_b;
	size_t n_profiles_b;
	/** profdb_tree_options.cutoff of both views (0: the view's default). */
	double cutoff;
} profdb_match_options;

/** The default matching options. @since 0.10 */
#define PROFDB_MATCH_OPTIONS_INIT \
	{ sizeof(profdb_match_options), PROFDB__NULL, PROFDB__NULL, 0, PROFDB__NULL, 0, \
	  PROFDB__NULL, 0, 0.0 }

/** One row: a call path and its node in each view. @since 0.10 */
typedef struct profdb_pair {
	/** Node ids in profdb_match_tree(m, 0) and (m, 1); PROFDB_NONE on the
	 *  side that lacks the path (the row is only in the other). */
	uint32_t a, b;
	uint32_t parent;            /**< row of the parent path; PROFDB_NONE for row 0 */
	uint32_t depth;             /**< 0 for row 0 (the two roots) */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_pair;

/** The values of a row for one matched metric; 0 on the side that lacks
 *  the path, NaN where the format cannot give the scope. @since 0.10 */
typedef struct profdb_pair_values {
	double inclusive_a, exclusive_a;
	double inclusive_b, exclusive_b;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_pair_values;

/** Sizes of a match. @since 0.10 */
typedef struct profdb_match_counts {
	uint64_t metrics;           /**< matched metrics */
	uint64_t rows;              /**< matched + only_a + only_b */
	uint64_t matched;           /**< rows with a node on both sides */
	uint64_t only_a, only_b;    /**< rows with a node on one side only */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_match_counts;

/** The result of profdb_match_new() (opaque). @since 0.10 */
typedef struct profdb_match profdb_match;

/** Match the top-down views of @p a and @p b.
 *  @param ret   receives the result; NULL on failure.
 *  @param opts  NULL for the defaults.
 *  @return 0; -EINVAL (NULL argument, bad options); -ENOENT (a metric
 *  either side does not have, or no metric name in common, described by
 *  profdb_error_message()); what profdb_tree_new() returns for either view
 *  (-ENOTSUP, -EFBIG, ...); -EFBIG (the correspondence, 112 bytes per
 *  node of both views while it is built, would exceed the smaller options.max_memory of the two
 *  handles); -ENOMEM. Lifetime: free it with profdb_match_free() before
 *  closing either handle (the views' strings live in them). Thread-safe
 *  on @p a and @p b; the result is read-only and may be shared by threads.
 *  @since 0.10 */
PROFDB_EXPORT int profdb_match_new(profdb_match **ret, const profdb *a, const profdb *b,
                                   const profdb_match_options *opts);
/** Number of rows (>= 1: row 0 pairs the two roots), -EINVAL (NULL @p m).
 *  Thread-safe. @since 0.10 */
PROFDB_EXPORT int64_t profdb_match_count(const profdb_match *m);
/** Row @p row (0 .. count-1), in pre-order of the union of the two trees.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (out of range). Thread-safe.
 *  @since 0.10 */
PROFDB_EXPORT int profdb_match_at(const profdb_match *m, uint64_t row, profdb_pair *out);
/** The values of row @p row for matched metric number @p k.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (@p row or @p k out of
 *  range). Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_match_values(const profdb_match *m, uint64_t row, size_t k,
                                      profdb_pair_values *out);
/** Matched metric number @p k: its id in A and in B (either may be NULL).
 *  @return 0, -EINVAL (NULL @p m), -ENOENT (@p k out of range).
 *  Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_match_metric(const profdb_match *m, size_t k, uint32_t *id_a,
                                      uint32_t *id_b);
/** The view of side @p side (0: A, 1: B), for profdb_tree_get() and
 *  profdb_tree_values() (its metric k is matched metric k).
 *  @return the view, NULL when @p m is NULL or @p side is not 0 or 1.
 *  Lifetime: owned by @p m. Thread-safe. @since 0.10 */
PROFDB_EXPORT const profdb_tree *profdb_match_tree(const profdb_match *m, int side);
/** The row holding node @p node of side @p side (0: A, 1: B).
 *  @return 0, -EINVAL (NULL argument, bad @p side), -ENOENT (no such node).
 *  Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_match_row(const profdb_match *m, int side, uint32_t node,
                                   uint64_t *row);
/** The sizes of a match. @return 0, -EINVAL (NULL argument). Thread-safe.
 *  @since 0.10 */
PROFDB_EXPORT int profdb_match_counts_get(const profdb_match *m, profdb_match_counts *out);
/** Free a result; NULL is a no-op. @since 0.10 */
PROFDB_EXPORT void profdb_match_free(profdb_match *m);

/** The call-path key of top-down view node @p node: bytes that are equal
 *  for two nodes of two views (of any databases and formats) exactly when
 *  profdb_match_new() would pair them, so a set of many databases can be
 *  matched by comparing keys. The root's key is empty (roots always
 *  pair); below it, one component per level from the root down:
 *  the node type (1 byte), then name, file and module (each a 4-byte
 *  big-endian length and the bytes), the line or offset (8 bytes,
 *  big-endian) and the occurrence of that key among the earlier siblings
 *  in view order (4 bytes, big-endian), the fields of doc/model.md
 *  ("Matching two databases", the path key). A parent's key is a prefix
 *  of its children's, so memcmp order puts a path before its extensions.
 *  @param db    the database @p t was built from.
 *  @param buf   receives at most @p cap bytes of the key (NULL when @p cap
 *               is 0: only measure).
 *  @return the key's length in bytes (may exceed @p cap), -EINVAL (NULL
 *  @p db or @p t, NULL @p buf with @p cap > 0), -ENOENT (@p node out of range). Thread-safe. @since 0.11 */
PROFDB_EXPORT int64_t profdb_tree_path_key(const profdb *db, const profdb_tree *t,
                                           uint32_t node, void *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_ANALYSIS_H */
