/* profdb value (profdb trace is tool/cmd-trace.c). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "tool.h"

static const char value_usage[] =
	"usage: profdb value --profile P --context C --metric M [--json] PATH\n"
	"One stored value, exactly as stored: integers in decimal, floating point\n"
	"with the shortest digits that read back bit-for-bit, NaN with its 64 bits\n"
	"(nan(0x7ff800000000beef)). P is the profile index (see 'profdb dump --csv\n"
	"--table profiles'), C the context id: a tree node or an id with stored\n"
	"values (see 'profdb dump'), M the metric id or name (see 'profdb metrics').\n"
	"An index or id that does not exist is a usage error (exit 2). -p, -c and -m\n"
	"are --profile, --context and --metric.\n"
	"--json prints one object of schema profdb-value/2 (value null when absent).\n";

/* The profile index and the context id name something in @p db, checked
 * one by one so that the usage message names the argument that is wrong
 * (profdb_value() answers -ENOENT for either): profdb_context_get()
 * answers for tree nodes and for ids with values (in_tree = 0).
 * @return 0, EXIT_USAGE (with a message), EXIT_INPUT (reading failed). */
static int check_address(const profdb *db, const char *path, uint32_t p, uint32_t ctx)
{
	int64_t np = profdb_profile_count(db);
	if (np < 0)
		return tool_fail(path);
	if (np == 0)
		return tool_usage_fail("value", "%s: no profile %" PRIu32 " (the database has none)",
		                       path, p);
	if (p >= np)
		return tool_usage_fail("value", "%s: no profile %" PRIu32 " (the database has %" PRId64
		                       " profiles: 0 to %" PRId64 ")", path, p, np, np - 1);
	profdb_context c;
	int r = profdb_context_get(db, ctx, &c);
	if (r == -ENOENT)
		return tool_usage_fail("value", "%s: no context %" PRIu32 " (neither a tree node nor "
		                       "an id with stored values)", path, ctx);
	return r < 0 ? tool_fail(path) : 0;
}

static void print_value(uint32_t p, uint32_t ctx, uint32_t metric, int r, profdb_number v,
                        int json)
{
	if (json) {
		printf("{\"schema\": \"profdb-value/2\", \"profile\": %" PRIu32 ", \"context\": %" PRIu32
		       ", \"metric\": %" PRIu32 ", \"type\": \"%s\", \"value\": ", p, ctx, metric,
		       number_type_name(r ? v.type : PROFDB_TYPE_NONE));
		if (r)
			put_number(stdout, v, 1);
		else
			printf("null");
		printf("}\n");
	} else if (r == 0) {
		printf("(no value stored)\n");
	} else {
		put_number(stdout, v, 0);
		putchar('\n');
	}
}

int cmd_value(int argc, char **argv)
{
	static const struct option lo[] = {
		{"profile", required_argument, NULL, 'p'}, {"context", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'm'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	uint32_t p = 0, ctx = 0;
	const char *metric = NULL;
	int have = 0, json = 0, c;
	while ((c = tool_getopt(argc, argv, "p:c:m:h", lo)) != -1) {
		switch (c) {
		case 'h': fputs(value_usage, stdout); return 0;
		case 'j': json = 1; break;
		case 'm': metric = optarg, have |= 4; break;
		case 'p':
			if (opt_u32("--profile", optarg, &p))
				return EXIT_USAGE;
			have |= 1;
			break;
		case 'c':
			if (opt_u32("--context", optarg, &ctx))
				return EXIT_USAGE;
			have |= 2;
			break;
		default: return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	if (have != 7)
		return tool_usage_fail(argv[0], "missing %s (see 'profdb value --help')",
		                       !(have & 1) ? "--profile" : !(have & 2) ? "--context"
		                                                               : "--metric");
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	profdb_metric m;
	profdb_number v;
	int r = profdb_metric_find(db, metric, &m);
	if (r == -ENOENT) {
		r = tool_usage_fail("value", "%s: no metric named or numbered '%s' (see 'profdb "
		                    "metrics')", path, metric);
	} else if (r < 0) {
		r = tool_fail(path);
	} else if ((r = check_address(db, path, p, ctx)) == 0) {
		r = profdb_value(db, p, ctx, m.id, &v);
		if (r < 0)
			r = tool_fail(path);
		else
			print_value(p, ctx, m.id, r, v, json), r = 0;
	}
	profdb_close(db);
	return r;
}
