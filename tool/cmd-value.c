/* profdb value, profdb trace. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "tool.h"

static const char value_usage[] =
	"usage: profdb value --profile P --context C --metric M [--json] PATH\n"
	"One stored value, exactly as stored: integers in decimal, floating point\n"
	"with 17 significant digits (reads back bit-for-bit). P is the profile index,\n"
	"C the context id, M the metric id or name (see 'profdb metrics').\n"
	"--json prints one object of schema profdb-value/2 (value null when absent).\n";

int cmd_value(int argc, char **argv)
{
	static const struct option lo[] = {
		{"profile", required_argument, NULL, 'p'}, {"context", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'm'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	uint32_t p = 0, ctx = 0;
	const char *metric = NULL;
	int have = 0, json = 0, c;
	while ((c = getopt_long(argc, argv, "p:c:m:jh", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs(value_usage, stdout);
			return 0;
		}
		if (c == 'j') {
			json = 1;
			continue;
		}
		if (c == 'm')
			metric = optarg;
		else if ((c != 'p' && c != 'c') || parse_u32(optarg, c == 'p' ? &p : &ctx) < 0)
			return tool_usage_error(value_usage);
		have |= c == 'p' ? 1 : c == 'c' ? 2 : 4;
	}
	if (have != 7 || optind + 1 != argc)
		return tool_usage_error(value_usage);
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	profdb_metric m;
	profdb_number v;
	int r = profdb_metric_find(db, metric, &m);
	if (r == -ENOENT) {
		fprintf(stderr, "%s: %s: no metric named or numbered '%s' (see 'profdb metrics')\n",
		        tool_prog, path, metric);
		profdb_close(db);
		return EXIT_USAGE;
	}
	if (r >= 0)
		r = profdb_value(db, p, ctx, m.id, &v);
	if (r < 0) {
		r = tool_fail(path);
	} else if (json) {
		printf("{\"schema\": \"profdb-value/2\", \"profile\": %" PRIu32 ", \"context\": %" PRIu32
		       ", \"metric\": %" PRIu32 ", \"type\": \"%s\", \"value\": ", p, ctx, m.id,
		       number_type_name(r ? v.type : PROFDB_TYPE_NONE));
		if (r)
			put_number(stdout, v, 1);
		else
			printf("null");
		printf("}\n");
		r = 0;
	} else if (r == 0) {
		printf("(no value stored)\n");
		r = 0;
	} else {
		put_number(stdout, v, 0);
		putchar('\n');
		r = 0;
	}
	profdb_close(db);
	return r;
}

static const char trace_usage[] =
	"usage: profdb trace [--profile P] [--from T] [--to T] [--json] PATH\n"
	"Trace samples: profile index, time in ns, context id; samples with\n"
	"FROM <= time < TO, of every profile with a trace or only of profile P.\n"
	"--json prints one object of schema profdb-trace/2.\n";

int cmd_trace(int argc, char **argv)
{
	static const struct option lo[] = {
		{"profile", required_argument, NULL, 'p'}, {"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	int64_t only = -1;
	uint64_t from = 0, to = UINT64_MAX, v;
	int c, have_to = 0, json = 0, first_out = 1;
	while ((c = getopt_long(argc, argv, "p:f:t:jh", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs(trace_usage, stdout);
			return 0;
		}
		if (c == 'j') {
			json = 1;
			continue;
		}
		if ((c != 'p' && c != 'f' && c != 't') || parse_u64(optarg, &v) < 0 ||
		    (c == 'p' && v > UINT32_MAX))
			return tool_usage_error(trace_usage);
		if (c == 'p')
			only = (int64_t)v;
		else if (c == 'f')
			from = v;
		else
			to = v, have_to = 1;
	}
	if (optind + 1 != argc)
		return tool_usage_error(trace_usage);
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	int64_t np = profdb_profile_count(db);
	int r = np < 0 ? (int)np : 0;
	if (r == 0 && only >= np) {
		fprintf(stderr, "%s: %s: no profile %" PRId64 " (the database has %" PRId64 ")\n",
		        tool_prog, path, only, np);
		profdb_close(db);
		return EXIT_USAGE;
	}
	int header = 0;
	for (int64_t p = only >= 0 ? only : 0; r == 0 && p < (only >= 0 ? only + 1 : np); p++) {
		int64_t n = profdb_trace_length(db, (uint32_t)p);
		if (n == -ENOTSUP) {
			profdb_about a;
			profdb_get_about(db, &a);
			tool_progress_done();
			fprintf(stderr, "%s: %s: %s profiles have no traces\n", tool_prog, path,
			        profdb_format_name(a.format));
			profdb_close(db);
			return EXIT_INPUT;
		}
		if (n < 0) {
			r = (int)n;
			break;
		}
		if (!header) {
			if (json)
				printf("{\"schema\": \"profdb-trace/2\", \"samples\": [");
			else
				printf("%8s %20s %10s\n", "profile", "time_ns", "context");
			header = 1;
		}
		uint64_t first = 0, last = (uint64_t)n;
		if ((from && (r = profdb_trace_seek(db, (uint32_t)p, from, &first)) < 0) ||
		    (have_to && (r = profdb_trace_seek(db, (uint32_t)p, to, &last)) < 0))
			break;
		r = 0;
		for (uint64_t i = first; i < last; i++) {
			profdb_sample s;
			if ((r = profdb_trace_at(db, (uint32_t)p, i, &s)) < 0)
				break;
			if (json)
				printf("%s\n [%" PRId64 ", %" PRIu64 ", %" PRIu32 "]", first_out ? "" : ",",
				       p, s.time_ns, s.context);
			else
				printf("%8" PRId64 " %20" PRIu64 " %10" PRIu32 "\n", p, s.time_ns, s.context);
			first_out = 0;
		}
	}
	if (r < 0)
		r = tool_fail(path);
	else if (json)
		printf("%s]}\n", header ? "\n" : "{\"schema\": \"profdb-trace/2\", \"samples\": [");
	profdb_close(db);
	return r;
}
