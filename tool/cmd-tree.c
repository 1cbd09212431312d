/* profdb tree: the calling-context tree, indented, with inclusive and
 * exclusive values and their percentages of the total. Siblings are shown
 * by decreasing inclusive value (exclusive when the format has no
 * inclusive values), ties by context id. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char tree_usage[] =
	"usage: profdb tree [-m METRIC] [--profile P] [--depth N] [--min-percent P]\n"
	"                   [--json] PATH\n"
	"The calling-context tree, indented, with inclusive and exclusive values and\n"
	"their percentages of the total (the roots' inclusive value).\n"
	"  -m, --metric M     metric name or id (default: the first inclusive or\n"
	"                     exclusive metric with data; see 'profdb metrics')\n"
	"  -p, --profile P    one profile (default: the summary profile, else the sum\n"
	"                     over all profiles)\n"
	"  -d, --depth N      show N levels below the roots (default: all)\n"
	"  --min-percent P    hide subtrees below P% inclusive\n"
	"  --json             one object of schema profdb-tree/1\n";

static void put_column(const report *r, int have, double v)
{
	if (have) {
		put_table_value(stdout, v, 14);
		put_percent(r, v);
	} else {
		printf("%14s %7s", "-", "-");
	}
}

typedef struct tool_frame {
	uint32_t id;
	double inc;
} tool_frame;

/* Hottest first; ties by id. The stack pops from the end, so sort the
 * other way round. */
static int cmp_frame(const void *a, const void *b)
{
	const tool_frame *x = a, *y = b;
	if (x->inc != y->inc)
		return x->inc < y->inc ? -1 : 1;
	return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

/* Pushes @p first and its next siblings, with their inclusive values. */
static int push_siblings(const report *rep, uint32_t first, tool_frame **stack, size_t *n,
                         size_t *cap)
{
	size_t start = *n;
	int64_t limit = profdb_context_count(rep->db);
	for (uint32_t id = first; id != PROFDB_NONE;) {
		profdb_context c;
		int r;
		if ((int64_t)(*n - start) > limit)
			return -EBADMSG;   /* a sibling chain longer than the tree */
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 256;
			tool_frame *ns = realloc(*stack, nc * sizeof *ns);
			if (!ns)
				return -ENOMEM;
			*stack = ns;
			*cap = nc;
		}
		tool_frame *f = &(*stack)[(*n)++];
		f->id = id;
		f->inc = 0;
		/* Without inclusive values, the exclusive ones order the siblings
		 * (inc is then only a sort key; it is not printed). */
		if ((r = report_value(rep, id, rep->has_inc, &f->inc)) < 0 ||
		    (r = profdb_context_get(rep->db, id, &c)) < 0)
			return r;
		id = c.next_sibling;
	}
	if (*n > start)
		qsort(*stack + start, *n - start, sizeof **stack, cmp_frame);
	return 0;
}

int cmd_tree(int argc, char **argv)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profile", required_argument, NULL, 'p'},
		{"depth", required_argument, NULL, 'd'}, {"min-percent", required_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	const char *metric = NULL;
	int json = 0, first = 1;
	int64_t profile = -1;
	uint32_t u, depth_limit = UINT32_MAX;
	double min_percent = 0;
	int c;
	while ((c = getopt_long(argc, argv, "m:p:d:jh", lo, NULL)) != -1) {
		switch (c) {
		case 'm': metric = optarg; break;
		case 'p':
			if (parse_u32(optarg, &u) < 0)
				return tool_usage_error(tree_usage);
			profile = u;
			break;
		case 'd':
			if (parse_u32(optarg, &depth_limit) < 0)
				return tool_usage_error(tree_usage);
			break;
		case 'P':
			if (parse_percent(optarg, &min_percent) < 0)
				return tool_usage_error(tree_usage);
			break;
		case 'j': json = 1; break;
		case 'h': fputs(tree_usage, stdout); return 0;
		default: return tool_usage_error(tree_usage);
		}
	}
	if (optind + 1 != argc)
		return tool_usage_error(tree_usage);

	report rep;
	int r = report_open(&rep, argv[optind], metric, profile);
	if (r)
		return r;
	/* Depth first with an explicit stack; the children of a node are
	 * pushed sorted, so they print hottest first (as hpcviewer does). */
	tool_frame *stack = NULL;
	size_t n = 0, cap = 0;
	uint32_t id;
	int64_t budget = profdb_context_count(rep.db);
	if (budget < 0 || (r = profdb_context_root(rep.db, &id)) < 0) {
		r = budget < 0 ? (int)budget : r;
		if (r != -ENOENT)
			goto fail;
		id = PROFDB_NONE;   /* an empty tree */
	}
	budget = 2 * budget + 16;   /* far more visits than nodes: the links loop */
	if (json) {
		report_describe_json(&rep, "profdb-tree/1");
		printf(", \"nodes\": [");
	} else {
		report_describe(&rep);
		printf("%14s %7s %14s %7s  %s\n", "inclusive", "%", "exclusive", "%", "context");
	}
	if (id != PROFDB_NONE && (r = push_siblings(&rep, id, &stack, &n, &cap)) < 0)
		goto fail;
	while (n > 0) {
		tool_frame f = stack[--n];
		profdb_context ctx;
		double exc = 0;
		if (--budget < 0) {
			r = -EBADMSG;
			goto fail;
		}
		if ((r = profdb_context_get(rep.db, f.id, &ctx)) < 0 ||
		    (rep.has_exc && (r = report_value(&rep, f.id, 0, &exc)) < 0))
			goto fail;
		if (min_percent > 0 && rep.has_inc && report_percent(&rep, f.inc) < min_percent)
			continue;   /* hide the node and everything below it */
		char name[512];
		context_label(&ctx, name, sizeof name);
		if (json) {
			printf("%s\n {\"context\": %" PRIu32 ", \"parent\": ", first ? "" : ",", ctx.id);
			if (ctx.parent == PROFDB_NONE)
				printf("null");
			else
				printf("%" PRIu32, ctx.parent);
			printf(", \"depth\": %" PRIu32 ", \"name\": ", ctx.depth);
			put_json_cstr(stdout, name);
			printf(", \"inclusive\": ");
			if (rep.has_inc)
				put_json_double(f.inc);
			else
				printf("null");
			printf(", \"exclusive\": ");
			if (rep.has_exc)
				put_json_double(exc);
			else
				printf("null");
			printf("}");
			first = 0;
		} else {
			put_column(&rep, rep.has_inc, f.inc);
			putchar(' ');
			put_column(&rep, rep.has_exc, exc);
			printf("  %*s%s\n", (int)(2 * (ctx.depth > 60 ? 60 : ctx.depth)), "", name);
		}
		if (ctx.depth < depth_limit && ctx.first_child != PROFDB_NONE &&
		    (r = push_siblings(&rep, ctx.first_child, &stack, &n, &cap)) < 0)
			goto fail;
	}
	if (json)
		printf("\n]}\n");
	free(stack);
	report_close(&rep);
	return 0;
fail:
	free(stack);
	if (r == -ENOMEM) {
		tool_progress_done();
		fprintf(stderr, "%s: out of memory\n", tool_prog);
		report_close(&rep);
		return EXIT_INPUT;
	}
	r = report_fail(&rep);
	report_close(&rep);
	return r;
}
