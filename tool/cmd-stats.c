/* profdb stats: statistics over profiles per (context, metric), and the
 * check of those statistics against hpcprof's stored summaries
 * (--check-summary). doc/model.md ("Statistics over profiles") defines the
 * numbers; doc/TOOL.md the output. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static const char stats_usage[] =
	"usage: profdb stats [-m METRIC]... [--profiles SEL] [--threads N] [--json|--csv] PATH\n"
	"       profdb stats --check-summary [--threads N] [--json] PATH\n"
	"Statistics over profiles, per context and metric: count (profiles with a\n"
	"stored value), n (profiles selected), sum, min, max, mean, population\n"
	"standard deviation, imbalance (max/mean), imbalance_pct ((max-mean)/max)\n"
	"and the profiles holding the min and the max. For a metric that adds, a\n"
	"selected profile without a value counts as 0 in mean, stddev and\n"
	"imbalance.\n"
	"  -m, --metric M       a metric name or id (repeatable; default: every\n"
	"                       metric with stored values)\n"
	"  -p, --profiles SEL   profile indices and ranges (\"0-15,32\") and identity\n"
	"                       conditions (\"rank=0-3,thread=0\"); default: every\n"
	"                       non-summary profile\n"
	"  -t, --threads N      worker threads (default 0: one per core; 1: sequential)\n"
	"  --json               one object of schema profdb-stats/2\n"
	"  --csv                one row per (context, metric)\n"
	"  --check-summary      HPCToolkit 4.0: compare with the summary profile hpcprof\n"
	"                       stored; exit 1 when a disagreement has no documented\n"
	"                       reason\n";

static void jnum(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	put_number(stdout, n, 1);
}

static void cnum(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	put_number(stdout, n, 0);
}

/* ---- --check-summary ------------------------------------------------------ */

static void print_issue_json(const profdb_summary_issue *is)
{
	printf("{\"context\": %" PRIu32 ", \"statistic_id\": %" PRIu32 ", \"metric\": %" PRIu32
	       ", \"statistic\": ", is->context, is->statistic_id, is->metric);
	put_json_str(stdout, is->statistic);
	printf(", \"missing\": %s, \"stored\": ", is->missing ? "true" : "false");
	if (is->missing)
		printf("null");
	else
		jnum(is->stored);
	printf(", \"expected\": ");
	jnum(is->expected);
	printf(", \"bound\": ");
	jnum(is->bound);
	printf(", \"terms\": %" PRIu64 ", \"reason\": \"%s\"}", is->terms,
	       profdb_summary_reason_name(is->reason));
}

static void print_issue_text(const profdb_summary_issue *is)
{
	printf("  context %" PRIu32 " statistic %" PRIu32 " (", is->context, is->statistic_id);
	put_text(stdout, is->statistic);
	printf(" of metric %" PRIu32 "): ", is->metric);
	if (is->missing)
		printf("not stored");
	else
		cnum(is->stored), printf(" stored");
	printf(", profdb ");
	cnum(is->expected);
	printf(" over %" PRIu64 " values: %s\n", is->terms, profdb_summary_reason_name(is->reason));
}

static void print_counts(const profdb_summary_counts *n, int json)
{
	if (json) {
		printf("{\"schema\": \"profdb-stats-check/2\", \"summary_profile\": %" PRIu32
		       ", \"stored\": %" PRIu64 ", \"checked\": %" PRIu64 ", \"agree\": %" PRIu64
		       ", \"explained\": %" PRIu64 ", \"unexplained\": %" PRIu64
		       ", \"unchecked\": %" PRIu64 ", \"unknown_ids\": %" PRIu64
		       ", \"missing\": %" PRIu64 ", \"missing_explained\": %" PRIu64
		       ", \"missing_unchecked\": %" PRIu64 ", \"issues\": [",
		       n->summary, n->stored, n->checked, n->agree, n->explained, n->unexplained,
		       n->unchecked, n->unknown_ids, n->missing, n->missing_explained,
		       n->missing_unchecked);
		return;
	}
	printf("summary profile %" PRIu32 ": %" PRIu64 " stored values, %" PRIu64
	       " under statistic ids checked\n", n->summary, n->stored, n->checked);
	printf("agree within the bound: %" PRIu64 "\n", n->agree);
	printf("disagree, documented hpcprof defect: %" PRIu64 "\n", n->explained);
	printf("disagree, unexplained: %" PRIu64 "\n", n->unexplained);
	printf("differ, unchecked (lex_aware at a loop, not recomputed): %" PRIu64 "\n",
	       n->unchecked);
	printf("stored under no statistic id: %" PRIu64 "\n", n->unknown_ids);
	printf("thread values without a summary value: %" PRIu64 " (%" PRIu64
	       " explained, %" PRIu64 " unchecked)\n", n->missing, n->missing_explained,
	       n->missing_unchecked);
}

/* The library's check (profdb_summary_check_new), printed. */
static int check_summary(const char *path, unsigned threads, int json)
{
	profdb *db;
	profdb_summary_check *res;
	profdb_summary_counts n;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	int r = profdb_summary_check_new(&res, db, threads);
	if (r == -ENOTSUP) {
		fprintf(stderr, "%s: stats: %s: --check-summary needs an HPCToolkit 4.0 database with a "
		        "summary profile\n", tool_prog, path);
		profdb_close(db);
		return EXIT_INPUT;
	}
	if (r < 0) {
		r = tool_fail(path);
		profdb_close(db);
		return r;
	}
	profdb_summary_check_counts(res, &n);
	print_counts(&n, json);
	for (uint64_t i = 0; i < n.issues; i++) {
		profdb_summary_issue is;
		profdb_summary_check_issue_at(res, i, &is);
		if (json) {
			printf("%s\n ", i ? "," : "");
			print_issue_json(&is);
		} else {
			print_issue_text(&is);
		}
	}
	if (json)
		printf("\n]}\n");
	int status = n.unexplained ||
	             n.missing > n.missing_explained + n.missing_unchecked ? EXIT_INPUT : 0;
	profdb_summary_check_free(res);
	profdb_close(db);
	return status;
}

/* ---- the statistics -------------------------------------------------------- */

void stats_print_row(const profdb_stat *s, uint64_t n, const char *label, int json, int csv)
{
	static const char *const names[] = {"sum", "min", "max", "mean", "stddev", "imbalance",
	                                    "imbalance_pct"};
	const double v[] = {s->sum, s->min, s->max, s->mean, s->stddev, s->imbalance,
	                    s->imbalance_pct};
	if (json) {
		printf("{\"context\": %" PRIu32 ", \"metric\": %" PRIu32 ", \"count\": %" PRIu64
		       ", \"n\": %" PRIu64, s->context, s->metric, s->count, n);
		for (size_t i = 0; i < 7; i++) {
			printf(", \"%s\": ", names[i]);
			jnum(v[i]);
		}
		printf(", \"min_profile\": %" PRIu32 ", \"max_profile\": %" PRIu32 "}", s->min_profile,
		       s->max_profile);
		return;
	}
	if (csv) {
		printf("%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, s->context, s->metric,
		       s->count, n);
		for (size_t i = 0; i < 7; i++) {
			putchar(',');
			cnum(v[i]);
		}
		printf(",%" PRIu32 ",%" PRIu32 "\n", s->min_profile, s->max_profile);
		return;
	}
	printf("%6" PRIu32 " %6" PRIu64 " %6" PRIu64, s->metric, s->count, n);
	for (size_t i = 0; i < 5; i++)
		put_table_value(stdout, v[i], 13);
	printf(" %9.3f %7.2f%% %6" PRIu32 " %6" PRIu32 "  %s\n", s->imbalance,
	       100 * s->imbalance_pct, s->min_profile, s->max_profile, label);
}

/* @return 0 or TOOL_OOM. */
static int print_row(const profdb *db, const profdb_stat *s, uint64_t n, int json, int csv)
{
	profdb_context c;
	char unknown[32], *label = NULL;
	if (json || csv) {   /* only the text table shows the label */
		stats_print_row(s, n, "", json, csv);
		return 0;
	}
	if (profdb_context_get(db, s->context, &c) == 0) {
		if (!(label = context_label_new(&c)))
			return TOOL_OOM;
	} else {
		snprintf(unknown, sizeof unknown, "context %" PRIu32, s->context);
	}
	stats_print_row(s, n, label ? label : unknown, json, csv);
	free(label);
	return 0;
}

void stats_print_columns(int csv, const char *first)
{
	if (csv)
		printf("%s,metric,count,n,sum,min,max,mean,stddev,imbalance,imbalance_pct,"
		       "min_profile,max_profile\n", first);
	else
		printf("%s%6s %6s %6s %13s %13s %13s %13s %13s %9s %8s %6s %6s  %s%s\n",
		       tool_sgr(TOOL_HEADER), "metric", "count", "n", "sum", "min", "max", "mean",
		       "stddev", "imbalance", "imb%", "min@", "max@", first, tool_sgr(TOOL_RESET));
}

int stats_print(const char *path, profdb *db, const profdb_stats *st, const uint32_t *profiles,
                int64_t n_profiles, int json, int csv)
{
	int64_t n = profdb_stats_count(st), sel = profdb_stats_profiles(st);
	if (json) {
		profdb_about ab;
		profdb_get_about(db, &ab);   /* the format survives a damaged title */
		printf("{\"schema\": \"profdb-stats/2\", \"format\": \"%s\", \"profiles\": [",
		       profdb_format_name(ab.format));
		for (int64_t i = 0; i < n_profiles; i++)
			printf("%s%" PRIu32, i ? ", " : "", profiles[i]);
		printf("], \"rows\": [");
	} else if (csv) {
		stats_print_columns(1, "context");
	} else {
		printf("%s: %" PRId64 " profiles, %" PRId64 " (context, metric) rows\n", path,
		       n_profiles, n);
		stats_print_columns(0, "context");
	}
	for (int64_t i = 0; i < n; i++) {
		profdb_stat s;
		int e = profdb_stats_at(st, (uint64_t)i, &s);
		if (e == 0 && json)
			printf("%s\n ", i ? "," : "");
		if (e < 0 || (e = print_row(db, &s, (uint64_t)(sel > 0 ? sel : 0), json, csv)) < 0)
			return tool_fail_status(path, e);
	}
	if (json)
		printf("\n]}\n");
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profiles", required_argument, NULL, 'p'},
		{"threads", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'c'}, {"check-summary", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	const char *metrics[64], *sel = NULL;
	size_t n_metrics = 0;
	uint32_t threads = 0;
	int json = 0, csv = 0, check = 0, c;
	while ((c = tool_getopt(argc, argv, "m:p:t:h", lo)) != -1) {
		switch (c) {
		case 'm':
			if (n_metrics == 64)
				return tool_usage_fail(argv[0], "at most 64 metrics (-m)");
			metrics[n_metrics++] = optarg;
			break;
		case 'p': sel = optarg; break;
		case 't':
			if (opt_u32("--threads", optarg, &threads))
				return EXIT_USAGE;
			break;
		case 'j': json = 1; break;
		case 'c': csv = 1; break;
		case 's': check = 1; break;
		case 'h': fputs(stats_usage, stdout); return 0;
		default: return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	if (json && csv)
		return tool_usage_fail(argv[0], "--json and --csv exclude each other");
	if (check && (csv || n_metrics || sel))
		return tool_usage_fail(argv[0], "--check-summary takes no -m, --profiles or --csv");
	const char *path = argv[optind];
	if (check)
		return check_summary(path, threads, json);

	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	uint32_t ids[64], *profiles = NULL;
	profdb_stats *st = NULL;
	int status = EXIT_INPUT;
	for (size_t i = 0; i < n_metrics; i++) {
		profdb_metric m;
		int r = profdb_metric_find(db, metrics[i], &m);
		if (r < 0) {
			/* an unknown name is a bad option value (exit 2), as in top */
			if (r == -ENOENT)
				status = tool_usage_fail("stats", "%s: no metric named or numbered '%s' "
				                         "(see 'profdb metrics')", path, metrics[i]);
			else
				status = tool_fail(path);
			goto out;
		}
		ids[i] = m.id;
	}
	int64_t n = profdb_profiles_select(db, sel, NULL, 0);
	if (n < 0 || !(profiles = malloc(((size_t)n + 1) * sizeof *profiles))) {
		if (n < 0 && sel)
			status = tool_usage_fail("stats", "--profiles: %s", profdb_error_message());
		else
			tool_fail_status(path, n < 0 ? (int)n : TOOL_OOM);
		goto out;
	}
	n = profdb_profiles_select(db, sel, profiles, (size_t)n);
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	o.profiles = profiles;
	o.n_profiles = (size_t)n;
	o.metrics = n_metrics ? ids : NULL;
	o.n_metrics = n_metrics;
	o.threads = threads;
	if (profdb_stats_new(&st, db, &o) < 0) {
		tool_fail(path);
		goto out;
	}
	status = stats_print(path, db, st, profiles, n, json, csv);
out:
	profdb_stats_free(st);
	free(profiles);
	profdb_close(db);
	return status;
}
