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
	{"convert", cmd_convert, "folded stacks, speedscope, Chrome trace, Callgrind, pprof, SVG"},
};

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: profdb COMMAND [OPTIONS] PATH\n"
	             "       profdb --help | --version\n\nCommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out,
	        "\nPATH is a database of any supported format: an HPCToolkit database\n"
	        "directory (4.0 or pre-release) or one of its files, an hpcrun measurements\n"
	        "directory or .hpcrun file, a Cube4 .cubex file, a Callgrind profile.\n"
	        "'profdb COMMAND --help' (or 'profdb help COMMAND') describes each command;\n"
	        "every command takes --json for output of a documented schema.\n"
	        "  -h, --help         this text\n"
	        "  --version          the version of profdb\n"
	        "  --color[=WHEN]     colour in tables: auto (default: only on a terminal,\n"
	        "                     never with NO_COLOR set), always (also bare --color),\n"
	        "                     never; accepted before or after COMMAND\n"
	        "  --copy             read the input files into memory instead of mapping\n"
	        "                     them, so that a file another program shortens while\n"
	        "                     profdb reads it cannot stop profdb midway; accepted\n"
	        "                     before or after COMMAND\n"
	        "Exit status: 0 ok, 1 bad input, 2 bad usage.\n");
	return status;
}

/* Takes --color[=WHEN] (and --colour) and --copy out of argv wherever
 * they stand before "--", so that every command accepts them without
 * knowing them. @return 0, or EXIT_USAGE for a bad WHEN. */
static int take_globals(int *argc, char **argv)
{
	const char *when = NULL;
	int j = 1;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		size_t n = strncmp(a, "--color", 7) == 0 ? 7 : strncmp(a, "--colour", 8) == 0 ? 8 : 0;
		if (strcmp(a, "--") == 0) {
			while (i < *argc)
				argv[j++] = argv[i++];
			break;
		}
		if (strcmp(a, "--copy") == 0) {
			tool_open_flags |= PROFDB_OPEN_COPY;
			continue;
		}
		if (n && (a[n] == '\0' || a[n] == '=')) {
			when = a[n] ? a + n + 1 : "always";   /* bare --color: always, as ls */
			continue;
		}
		argv[j++] = argv[i];
	}
	argv[j] = NULL;
	*argc = j;
	return tool_color_setup(when);
}

int main(int argc, char **argv)
{
	tool_catch_sigbus(tool_prog);
	if (take_globals(&argc, argv))
		return EXIT_USAGE;
	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2))
		return tool_finish_output(usage(stdout, 0));
	if (!strcmp(argv[1], "--version")) {
		printf("profdb %s\n", PROFDB_VERSION_STRING);
		return tool_finish_output(0);
	}
	/* The command table, one name a line: for the shell completion. */
	if (!strcmp(argv[1], "--commands")) {
		for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
			printf("%s\n", commands[i].name);
		return tool_finish_output(0);
	}
	if (!strcmp(argv[1], "help") && argc == 3) {
		/* "profdb help top" = "profdb top --help" */
		static char help[] = "--help";
		argv[1] = argv[2];
		argv[2] = help;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			return tool_finish_output(commands[i].fn(argc - 1, argv + 1));
	if (argv[1][0] == '-')
		fprintf(stderr, "%s: unrecognized option '%s' (see 'profdb --help')\n", tool_prog,
		        argv[1]);
	else
		fprintf(stderr, "%s: unknown command '%s' (see 'profdb --help')\n", tool_prog,
		        argv[1]);
	return EXIT_USAGE;
}
