/* profdb value (profdb trace is tool/cmd-trace.c). */
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
