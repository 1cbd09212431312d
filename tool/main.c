/* profdb — command-line front end of the profdb library.
 *
 * Every subcommand works through the common query interface, so it reads
 * every format the library does (HPCToolkit 4.0, pre-release and draft
 * databases, hpcrun measurements, Cube4, Callgrind). doc/TOOL.md and the
 * man page tool/profdb.1 describe the commands. */
#include <string.h>

#include "tool.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"info", cmd_info, "format, version, title, counts and file sizes"},
	{"metrics", cmd_metrics, "the metric list"},
	{"top", cmd_top, "the hottest contexts or functions"},
	{"tree", cmd_tree, "the calling-context tree with values"},
	{"bottom-up", cmd_bottom_up, "each function, then its callers (tree --view bottom-up)"},
	{"flat", cmd_flat, "module, file, function, loop, line (tree --view flat)"},
	{"value", cmd_value, "one stored value"},
	{"trace", cmd_trace, "trace samples"},
	{"dump", cmd_dump, "everything stored, as JSON or CSV"},
	{"stats", cmd_stats, "statistics over profiles per context and metric"},
	{"diff", cmd_diff, "two databases compared call path by call path"},
	{"callers", cmd_callers, "the calls into a function, with counts and costs"},
	{"callees", cmd_callees, "the calls out of a function, with counts and costs"},
	{"profiles", cmd_profiles, "the profiles (threads, ranks, ...) and their identities"},
};

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: profdb COMMAND [OPTIONS] PATH\n\nCommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out,
	        "\nPATH is a database of any supported format: an HPCToolkit database\n"
	        "directory (4.0 or pre-release) or one of its files, an hpcrun measurements\n"
	        "directory or .hpcrun file, a Cube4 .cubex file, a Callgrind profile.\n"
	        "'profdb COMMAND --help' describes each command; every command takes\n"
	        "--json for output of a documented schema. Exit status: 0 ok, 1 bad input,\n"
	        "2 bad usage.\n");
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return tool_finish_output(usage(stdout, 0));
	if (!strcmp(argv[1], "--version")) {
		printf("profdb %s\n", PROFDB_VERSION_STRING);
		return tool_finish_output(0);
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			return tool_finish_output(commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "%s: unknown command '%s'\n", tool_prog, argv[1]);
	return usage(stderr, EXIT_USAGE);
}
