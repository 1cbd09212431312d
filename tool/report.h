/* What `top` and `tree` show: one metric's inclusive and exclusive values
 * per context, from one profile or aggregated over profiles. */
#ifndef PROFDB_TOOL_REPORT_H
#define PROFDB_TOOL_REPORT_H

#include "tool.h"

typedef enum report_mode {
	REPORT_ONE,      /* --profile P */
	REPORT_SUMMARY,  /* the format's summary profile */
	REPORT_SUM       /* every non-summary profile combined by the metric's rule
	                    (sum, min or max), in profile order */
} report_mode;

typedef struct report {
	profdb *db;
	const char *path;
	profdb_metric metric;
	report_mode mode;
	uint32_t profile;     /* REPORT_ONE: the profile; REPORT_SUMMARY: the summary */
	uint32_t n_profiles;
	int has_inc, has_exc; /* 0 when the format cannot say (-ENOTSUP) */
	double total;         /* the roots' inclusive values, combined by the metric's rule */
	profdb_combine combine; /* the metric's rule (doc/model.md, "Combining numbers") */
	double scale;         /* every value is multiplied by it: the metric's scale, 1 with --raw */
} report;

/* Set by --raw before report_open(): show stored values, not scaled ones. */
extern int report_raw;

/* Opens @p path and sets up the report. @p metric is -m's argument or NULL,
 * @p profile is --profile's or -1. @return 0, EXIT_INPUT or EXIT_USAGE
 * (message printed; the database is closed on failure). */
int report_open(report *r, const char *path, const char *metric, int64_t profile);
void report_close(report *r);
/* The metric report_open() picks without -m (profdb diff uses it too).
 * @return 0, -ENOENT (no metrics) or what reading the metrics met. */
int report_default_metric(profdb *db, profdb_metric *out);
/* The context's inclusive (inclusive != 0) or exclusive value. @return 0, or
 * a negative errno (message printed by report_fail). */
int report_value(const report *r, uint32_t ctx, int inclusive, double *out);
int report_fail(const report *r);
/* "metric: NAME (id N), summary profile" */
void report_describe(const report *r);
/* The same for --json: the "schema" key, then "metric", "source",
 * "profile" and "total" keys, leaving the object open. */
void report_describe_json(const report *r, const char *schema);
/* A double as a JSON number ("nan"/"inf"/"-inf" strings). */
void put_json_double(double v);
/* 100 * v / total; NaN when there is no percentage: the metric does not
 * combine by sum, or the total is 0. */
double report_percent(const report *r, double v);
/* Does the report have percentages at all? */
int report_has_percent(const report *r);
/* " 12.34%" (8 columns), or "       -" without a percentage. */
void put_percent(const report *r, double v);
/* The percentage as JSON: a number, or null without a percentage. */
void put_json_percent(const report *r, double v);

#endif
