/* profdb tree: one of the three views (profdb_tree_new: top-down,
 * bottom-up, flat), indented, with inclusive and exclusive values and, for
 * metrics that add up, their percentages of the total (node 0's inclusive
 * value). The library orders siblings (heaviest first) and numbers the
 * nodes in pre-order, so printing is one pass over the ids. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char tree_usage[] =
	"usage: profdb tree [-m METRIC] [--profile P] [--view V] [--depth N]\n"
	"                   [--min-percent P] [--json] PATH\n"
	"One of the three views, indented, with inclusive and exclusive values and\n"
	"their percentages of the total (for metrics that add up).\n"
	"  -m, --metric M     metric name or id (default: the first inclusive or\n"
	"                     exclusive metric with data; see 'profdb metrics')\n"
	"  -p, --profile P    one profile (default: the summary profile, else all\n"
	"                     profiles combined by the metric's rule)\n"
	"  --view V           top-down (default: the calling-context tree; Callgrind:\n"
	"                     the call graph expanded), bottom-up (functions, then\n"
	"                     their callers) or flat (module, file, function, loop,\n"
	"                     line)\n"
	"  -d, --depth N      show N levels below the roots (default: all)\n"
	"  --min-percent P    hide subtrees below P% inclusive\n"
	"  --json             one object of schema profdb-tree/2\n";

static const char *const view_names[] = {"top-down", "bottom-up", "flat"};

static const char *type_name(profdb_node_type t)
{
	static const char *const n[] = {"root", "module", "file", "function", "loop", "line",
	                                "instruction", "other", "unknown"};
	return (unsigned)t <= PROFDB_NODE_UNKNOWN ? n[t] : "unknown";
}

/* Percentages are defined only for metrics that add up. */
static int adds_up(const profdb_metric *m)
{
	return m->combine == PROFDB_COMBINE_SUM;
}

typedef struct tree_out {
	const profdb_tree *t;
	profdb *db;
	double total;         /* for percentages; 0: none */
	int json, first, skip_root;
} tree_out;

static void put_column(const tree_out *o, double v)
{
	if (isnan(v)) {
		printf("%14s %7s", "-", "-");
		return;
	}
	put_table_value(stdout, v, 14);
	if (o->total != 0)
		printf(" %6.2f%%", 100.0 * v / o->total);
	else
		printf(" %7s", "-");
}

static void label(const tree_out *o, const profdb_node *n, char *buf, size_t cap)
{
	profdb_context c;
	if (n->context != PROFDB_NONE && profdb_context_get(o->db, n->context, &c) == 0) {
		context_label(&c, buf, cap);
	} else if (n->type == PROFDB_NODE_MODULE || n->type == PROFDB_NODE_FILE) {
		const char *what = n->type == PROFDB_NODE_MODULE ? "module" : "file";
		if (n->name.len)
			snprintf(buf, cap, "[%s] %.*s", what, (int)n->name.len, n->name.ptr);
		else
			snprintf(buf, cap, "[%s] ?", what);
	} else {
		snprintf(buf, cap, "%.*s", (int)n->name.len, n->name.ptr);
	}
	if (n->flags & PROFDB_NODE_RECURSIVE) {
		size_t l = strlen(buf);
		snprintf(buf + l, cap - l, " (recursive)");
	}
}

static void put_json_value(double v)
{
	if (isnan(v))
		printf("null");
	else
		put_json_double(v);
}

static void put_node(tree_out *o, const profdb_node *n, uint32_t depth, double inc, double exc)
{
	char name[512];
	label(o, n, name, sizeof name);
	if (!o->json) {
		put_column(o, inc);
		putchar(' ');
		put_column(o, exc);
		printf("  %*s%s\n", (int)(2 * (depth > 60 ? 60 : depth)), "", name);
		return;
	}
	profdb_node p;
	int has_parent = n->parent != PROFDB_NONE && !(o->skip_root && n->parent == 0) &&
	                 profdb_tree_get(o->t, n->parent, &p) == 0;
	printf("%s\n {\"node\": %" PRIu32 ", \"parent_node\": ", o->first ? "" : ",", n->id);
	if (has_parent)
		printf("%" PRIu32, n->parent);
	else
		printf("null");
	printf(", \"context\": ");
	if (n->context != PROFDB_NONE)
		printf("%" PRIu32, n->context);
	else
		printf("null");
	printf(", \"parent\": ");
	if (has_parent && p.context != PROFDB_NONE)
		printf("%" PRIu32, p.context);
	else
		printf("null");
	printf(", \"depth\": %" PRIu32 ", \"type\": \"%s\", \"recursive\": %s, \"name\": ", depth,
	       type_name(n->type), n->flags & PROFDB_NODE_RECURSIVE ? "true" : "false");
	put_json_cstr(stdout, name);
	printf(", \"inclusive\": ");
	put_json_value(inc);
	printf(", \"exclusive\": ");
	put_json_value(exc);
	printf("}");
	o->first = 0;
}

/* Every node in id (pre-)order, skipping the subtrees --depth and
 * --min-percent hide. */
static int print_nodes(tree_out *o, uint32_t depth_limit, double min_percent)
{
	int64_t count = profdb_tree_count(o->t);
	uint32_t hide_below = UINT32_MAX;   /* hiding the subtree of a node at this depth */
	for (int64_t i = o->skip_root; i < count; i++) {
		profdb_node n;
		double inc, exc;
		int r = profdb_tree_get(o->t, (uint32_t)i, &n);
		if (r < 0 || (r = profdb_tree_values(o->t, (uint32_t)i, 0, &inc, &exc)) < 0)
			return r;
		if (n.depth > hide_below)
			continue;
		hide_below = UINT32_MAX;
		uint32_t depth = n.depth - (uint32_t)o->skip_root;
		if (depth > depth_limit ||
		    (min_percent > 0 && o->total != 0 && !isnan(inc) && 100.0 * inc / o->total < min_percent)) {
			hide_below = n.depth;
			continue;
		}
		put_node(o, &n, depth, inc, exc);
	}
	return 0;
}

static int parse_view(const char *s, profdb_tree_kind *out)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, view_names[i]) == 0) {
			*out = (profdb_tree_kind)i;
			return 0;
		}
	return -1;
}

int cmd_tree(int argc, char **argv)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profile", required_argument, NULL, 'p'},
		{"depth", required_argument, NULL, 'd'}, {"min-percent", required_argument, NULL, 'P'},
		{"view", required_argument, NULL, 'V'},
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	const char *metric = NULL;
	int json = 0;
	int64_t profile = -1;
	uint32_t u, depth_limit = UINT32_MAX;
	double min_percent = 0;
	profdb_tree_kind kind = PROFDB_TREE_TOP_DOWN;
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
		case 'V':
			if (parse_view(optarg, &kind) < 0)
				return tool_usage_error(tree_usage);
			break;
		case 'j': json = 1; break;
		case 'h': fputs(tree_usage, stdout); return 0;
		default: return tool_usage_error(tree_usage);
		}
	}
	if (optind + 1 != argc)
		return tool_usage_error(tree_usage);

	/* Only the flat view shows Callgrind's lines. */
	if (kind != PROFDB_TREE_FLAT)
		tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	report rep;
	int r = report_open(&rep, argv[optind], metric, profile);
	if (r)
		return r;
	profdb_tree_options opts = PROFDB_TREE_OPTIONS_INIT;
	opts.kind = kind;
	opts.metrics = &rep.metric.id;
	opts.n_metrics = 1;
	if (rep.mode == REPORT_ONE) {
		opts.profiles = &rep.profile;
		opts.n_profiles = 1;
	}
	profdb_tree *t = NULL;
	tree_out o = {NULL, rep.db, 0, json, 1, 0};
	profdb_node root;
	double inc0 = 0;
	if ((r = profdb_tree_new(&t, rep.db, &opts)) < 0 || (r = profdb_tree_get(t, 0, &root)) < 0 ||
	    (r = profdb_tree_values(t, 0, 0, &inc0, NULL)) < 0) {
		profdb_tree_free(t);
		r = report_fail(&rep);
		report_close(&rep);
		return r;
	}
	o.t = t;
	/* A root the view made up (several entry points, Cube's several root
	 * cnodes, the bottom-up and flat views) is not printed: its children
	 * are the roots shown. */
	o.skip_root = root.context == PROFDB_NONE;
	rep.total = isnan(inc0) ? 0 : inc0;
	o.total = adds_up(&rep.metric) ? rep.total : 0;
	if (json) {
		report_describe_json(&rep, "profdb-tree/2");
		printf(", \"view\": \"%s\", \"nodes\": [", view_names[kind]);
	} else {
		report_describe(&rep);
		if (kind != PROFDB_TREE_TOP_DOWN)
			printf("view: %s\n", view_names[kind]);
		printf("%14s %7s %14s %7s  %s\n", "inclusive", "%", "exclusive", "%", "context");
	}
	r = print_nodes(&o, depth_limit, min_percent);
	if (json && r == 0)
		printf("\n]}\n");
	profdb_tree_free(t);
	if (r < 0) {
		r = report_fail(&rep);
		report_close(&rep);
		return r;
	}
	report_close(&rep);
	return 0;
}
