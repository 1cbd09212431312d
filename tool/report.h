/* What `top`, `tree`, `bottom-up` and `flat` show: one or several metrics'
 * inclusive and exclusive values per context, from one profile, the
 * summary profile, a selection of profiles combined by each metric's rule,
 * or a statistic over the selection (--stat). Also the options the four
 * commands share. */
#ifndef PROFDB_TOOL_REPORT_H
#define PROFDB_TOOL_REPORT_H

#include "filter.h"
#include "tool.h"

typedef enum report_mode {
	REPORT_ONE,      /* --profile P */
	REPORT_SUMMARY,  /* the format's summary profile */
	REPORT_SEL,      /* the selected profiles (--profiles, default every
	                    non-summary one) combined by the metric's rule (sum,
	                    min or max), in ascending profile order */
	REPORT_STAT      /* --stat: a statistic over the selection (profdb_stats) */
} report_mode;

typedef enum report_stat {
	RSTAT_NONE, RSTAT_SUM, RSTAT_MEAN, RSTAT_MIN, RSTAT_MAX, RSTAT_STDDEV, RSTAT_IMBALANCE
} report_stat;

/* One metric column. */
typedef struct report_metric {
	profdb_metric metric;
	report_mode mode;
	uint32_t profile;     /* REPORT_ONE: the profile; REPORT_SUMMARY: the summary */
	uint32_t stored;      /* REPORT_STAT: the stored id of the ranked scope */
	int has_inc, has_exc; /* 0 when the format cannot say (-ENOTSUP) */
	double total;         /* the roots' inclusive values, combined by the metric's rule */
	double scale;         /* every value is multiplied by it: the metric's scale, 1 with --raw */
} report_metric;

/* The options the four commands share (report_option()). */
typedef struct report_opts {
	const char *metrics;  /* -m: a name or id, a comma-separated list, "all" */
	int64_t profile;      /* --profile, -1 */
	const char *profiles; /* --profiles SEL, NULL */
	report_stat stat;
	int inclusive;        /* the scope the view ranks by (default metric, --stat) */
	int raw, plain, wide, json;
	uint64_t count;
	int count_given;
	double min_percent;
	int min_percent_given;
	int64_t focus;        /* --focus CONTEXT, -1 */
	filter names;
} report_opts;

typedef struct report {
	profdb *db;
	const char *path;
	const report_opts *o;
	profdb_format format;
	report_metric *m;     /* the metrics, the first ranks */
	size_t n;
	uint32_t *sel;        /* the selected profiles, ascending (REPORT_SEL, REPORT_STAT) */
	size_t n_sel;
	profdb_stats *stats;  /* REPORT_STAT */
	size_t skipped;       /* -m all: metrics left out (no combination over profiles) */
} report;

/* Option codes above the characters, for getopt_long. */
enum {
	OPT_PROFILES = 256, OPT_STAT, OPT_MATCH, OPT_EXCLUDE, OPT_FOCUS, OPT_WIDE, OPT_PLAIN,
	OPT_MIN_PERCENT, OPT_JSON, OPT_UNKNOWN_LINES, OPT_VIEW
};
/* The shared long options, for a command's struct option table. */
#define REPORT_LONG_OPTIONS                                                                 \
	{"metric", required_argument, NULL, 'm'}, {"profile", required_argument, NULL, 'p'},     \
	{"profiles", required_argument, NULL, OPT_PROFILES},                                     \
	{"stat", required_argument, NULL, OPT_STAT}, {"match", required_argument, NULL, OPT_MATCH}, \
	{"exclude", required_argument, NULL, OPT_EXCLUDE},                                       \
	{"focus", required_argument, NULL, OPT_FOCUS}, {"wide", no_argument, NULL, OPT_WIDE},    \
	{"plain", no_argument, NULL, OPT_PLAIN}, {"raw", no_argument, NULL, 'r'},                \
	{"min-percent", required_argument, NULL, OPT_MIN_PERCENT},                              \
	{"json", no_argument, NULL, OPT_JSON}, {"help", no_argument, NULL, 'h'}
/* The shared short options ("m:p:n:rh"; a leading ':' for missing arguments). */
#define REPORT_SHORT_OPTIONS ":m:p:n:rh"

void report_opts_init(report_opts *o);
/* A shared option: @return 0 (handled), 1 (not a shared option), EXIT_USAGE
 * (bad value, message printed). */
int report_option(report_opts *o, int c, const char *arg);
const char *report_stat_name(report_stat s);

/* Opens @p path and sets up the report for the options. @return 0,
 * EXIT_INPUT or EXIT_USAGE (message printed; the database is closed on
 * failure). */
int report_open(report *r, const char *path, const report_opts *o);
void report_close(report *r);
/* Metric @p k's inclusive (inclusive != 0) or exclusive value at @p ctx.
 * @return 0, or a negative errno (message printed by report_fail). */
int report_value(const report *r, size_t k, uint32_t ctx, int inclusive, double *out);
/* tool_fail_status() of the report's input. @return EXIT_INPUT. */
int report_fail(const report *r, int e);
/* "@p headline; SOURCE", SOURCE saying where the values come from
 * ("summary profile", "profile 3 (rank 3 thread 0)", "sum over 135
 * profiles", "mean over 8 profiles"), a line per metric (id, kind, unit,
 * total, its source when another) and the notes (no percentages, hpcrun's
 * scale, hpcrun's missing names). @return 0 or TOOL_OOM (nothing printed). */
int report_describe(const report *r, const char *headline);
/* The same for --json: the "schema" key, the first metric's "metric",
 * "source", "profile" and "total" keys, then "metrics" (every column,
 * "combined" its source), "selection" and "stat", leaving the object
 * open. @return 0 or TOOL_OOM (nothing printed). */
int report_describe_json(const report *r, const char *schema);
/* A double as a JSON number ("nan"/"inf"/"-inf" strings). */
void put_json_double(double v);
/* The same, null for NaN (no value). */
void put_json_value(double v);
/* Does metric @p k have percentages: a sum metric with a non-zero total,
 * not a statistic? */
int report_has_percent(const report *r, size_t k);
/* 100 * v / total of metric @p k; NaN without a percentage. */
double report_percent(const report *r, size_t k, double v);
/* The column header of metric @p k: its name, shortened to @p width
 * columns, in a new buffer (the caller frees it); NULL when out of memory. */
char *report_column_name(const report *r, size_t k, size_t width);
/* The display columns of metric @p k's column head at its usual width (16
 * columns at most); TOOL_OOM when out of memory. */
int report_column_width(const report *r, size_t k);
/* Metric @p k's column head, shortened to and right-aligned in @p w
 * columns, to stdout. @return 0 or TOOL_OOM. */
int report_put_column(const report *r, size_t k, int w);

#endif
