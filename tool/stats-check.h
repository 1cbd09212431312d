/* The check of profdb's statistics against the summaries hpcprof stored in
 * an HPCToolkit 4.0 database (`profdb stats --check-summary`; also
 * compiled into tests/test-stats.c). Public API only: profdb_stats_* for
 * the statistics, profdb/hpctk.h for what each statistic id summarises.
 * doc/FORMATS.md ("Statistics against hpcprof's summaries") explains the
 * bound and the defects below. */
#ifndef PROFDB_TOOL_STATS_CHECK_H
#define PROFDB_TOOL_STATS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <profdb/hpctk.h>
#include <profdb/analysis.h>

/* Why a stored summary disagrees: a documented hpcprof defect, or none. */
typedef enum sc_reason {
	SC_NONE = 0,            /* unexplained */
	SC_SQUARE_STORES_SUM,   /* "($$^2)" holds sum(v), not sum(v^2) */
	SC_COUNT_ANY_SCOPE,     /* "1" counts profiles with the metric in any scope */
	SC_UNCHECKED_LEX_AWARE, /* not a defect: lex_aware at a loop context, whose
	                         * hpcprof rule (the loop's own body) profdb does not
	                         * recompute; counted as unchecked, never as explained */
	SC_MIN_ZERO_UNSET,      /* min: a zero value reads as "unset" */
	SC_ZERO_NOT_STORED      /* a zero result is never stored */
} sc_reason;

/* A disagreement (stat != PROFDB_NONE: a stored summary value) or a
 * (context, propagated metric) with thread values whose statistic @p stat
 * is not stored (missing = 1). */
typedef struct sc_issue {
	uint32_t context, stat, prop;
	int missing;
	char statistic[32];     /* "sum", "min", "max", "sum of squares", "count", or the formula */
	double stored;          /* NaN when missing */
	double expected;        /* profdb's statistic; NaN when there are no thread values */
	double bound;           /* the tolerance applied */
	uint64_t terms;         /* thread values combined */
	sc_reason reason;
} sc_issue;

typedef struct sc_result {
	uint32_t summary;         /* the summary profile's index */
	uint64_t stored;          /* values stored in the summary profile */
	uint64_t checked;         /* ... under a statistic id: every one is checked */
	uint64_t agree;           /* within the bound */
	uint64_t explained;       /* disagreements with a documented reason */
	uint64_t unexplained;
	uint64_t unchecked;       /* lex_aware values at loop contexts that differ from the
	                           * thread values' statistic: not recomputed, so neither
	                           * agreement nor a defect */
	uint64_t unknown_ids;     /* stored under an id that is no statistic id */
	uint64_t missing;         /* thread values without their summary value */
	uint64_t missing_explained;
	uint64_t missing_unchecked; /* ... of a lex_aware statistic at a loop context */
	sc_issue *issues;         /* every disagreement and missing value */
	size_t n_issues, cap;
} sc_result;

/* The name of a reason ("none", "hpcprof-square-stores-sum", ...). */
const char *sc_reason_name(sc_reason r);

/* Check @p db (threads as profdb_stats_options.threads).
 * @return 0, -ENOTSUP (not an HPCToolkit 4.0 database, or no summary
 * profile), or a library error (message in profdb_error_message()). */
int sc_check(const profdb *db, unsigned threads, sc_result *out);
void sc_free(sc_result *r);

#endif
