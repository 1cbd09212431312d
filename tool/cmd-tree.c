/* profdb tree, bottom-up, flat: one of the three views (profdb_tree_new:
 * top-down, bottom-up, flat), indented, with inclusive and exclusive values
 * of one or several metrics and, for the first metric when it adds up, its
 * percentages of the total (node 0's inclusive value). The library orders
 * siblings (heaviest first) and numbers the nodes in pre-order, so deciding
 * what is shown is two passes over the ids (down for --depth,
 * --min-percent and --focus, up for --match) and printing a third.
 *
 * A big view prints a screenful by default (text only): when none of
 * --depth, --min-percent, -n, --match, --focus is given and more than
 * TREE_SCREEN nodes would show, nodes below 1 % of the total are hidden
 * (metrics with percentages) and at most TREE_SCREEN lines are printed; a
 * note says how many nodes are hidden and how to show them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "names.h"
#include "report.h"

#define TREE_SCREEN 150
#define TREE_DEFAULT_PERCENT 1.0

static const char *const view_names[] = {"top-down", "bottom-up", "flat"};

static const char *type_name(profdb_node_type t)
{
	static const char *const n[] = {"root", "module", "file", "function", "loop", "line",
	                                "instruction", "other", "unknown"};
	return (unsigned)t <= PROFDB_NODE_UNKNOWN ? n[t] : "unknown";
}

typedef struct tree_out {
	report rep;
	report_opts o;
	profdb_tree_kind kind;
	const char *cmd;
	uint32_t depth_limit;
	int depth_given;
	profdb_tree *t;
	int64_t count;        /* nodes */
	int skip_root;
	uint32_t *rdepth;     /* displayed depth of each node; UINT32_MAX: hidden */
	size_t shown, hidden;
	double min_percent;   /* in force (the option or the default) */
	int defaulted;        /* the screenful default applied */
	int capped;           /* the line limit (-n or the screenful's) hid nodes */
	int first;
} tree_out;

/* Node @p n's whole label, its bytes as stored, in a new buffer (the
 * caller frees it) of *len bytes and a NUL; NULL when out of memory. */
static char *label_bytes(const tree_out *o, const profdb_node *n, size_t *len)
{
	profdb_context c;
	int ctx = n->context != PROFDB_NONE && profdb_context_get(o->rep.db, n->context, &c) == 0;
	size_t cap = (ctx ? context_label_size(&c) : n->name.len + 16) + sizeof " (recursive)";
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	names_buf b = {buf, cap, 0};
	buf[0] = '\0';
	if (ctx) {
		b.len = context_label_bytes(&c, buf, cap);
	} else if (n->type == PROFDB_NODE_MODULE || n->type == PROFDB_NODE_FILE) {
		names_put_str(&b, str_of(n->type == PROFDB_NODE_MODULE ? "[module] " : "[file] "));
		names_put_str(&b, n->name.len ? n->name : str_of("?"));
	} else {
		names_put_str(&b, n->name);
	}
	if (n->flags & PROFDB_NODE_RECURSIVE)
		names_put_str(&b, str_of(" (recursive)"));
	*len = b.len;
	return buf;
}

/* label_bytes() as people read it (names_show): what the table prints
 * and --match/--exclude test. */
static char *label(const tree_out *o, const profdb_node *n)
{
	size_t len;
	char *buf = label_bytes(o, n, &len);
	if (buf)
		names_show(buf, len);
	return buf;
}

/* Metric @p k's values at node @p id, scaled as `top` scales them. */
static int node_values(const tree_out *o, uint32_t id, size_t k, double *inc, double *exc)
{
	int r = profdb_tree_values(o->t, id, k, inc, exc);
	*inc *= o->rep.m[k].scale;
	*exc *= o->rep.m[k].scale;
	/* A count that a view apportioned (Callgrind's expanded calls, scaled
	 * by the caller's share) is an estimate: shown as the nearest count in
	 * text, exact in JSON. */
	if (!o->o.json && o->rep.m[k].scale == 1 && (o->rep.m[k].metric.type == PROFDB_TYPE_U64 ||
	                                          o->rep.m[k].metric.type == PROFDB_TYPE_I64)) {
		*inc = nearbyint(*inc);
		*exc = nearbyint(*exc);
	}
	return r;
}

/* ---- what is shown ------------------------------------------------------- */

/* Down the ids (parents before children): depth, percentage, focus and
 * --exclude. rdepth[i] = displayed depth, UINT32_MAX hidden. */
static int mark_down(tree_out *o, double min_percent, uint32_t depth_limit)
{
	double total = o->rep.m[0].total;
	int pct = report_has_percent(&o->rep, 0);
	for (int64_t i = 0; i < o->count; i++) {
		profdb_node n;
		double inc, exc;
		int r = profdb_tree_get(o->t, (uint32_t)i, &n);
		if (r < 0 || (r = node_values(o, (uint32_t)i, 0, &inc, &exc)) < 0)
			return r;
		uint32_t pd = n.parent == PROFDB_NONE ? UINT32_MAX : o->rdepth[n.parent];
		uint32_t d;
		if (o->o.focus >= 0) {
			/* the subtrees of the nodes standing for the focus context */
			if (pd != UINT32_MAX)
				d = pd + 1;
			else
				d = n.context == (uint32_t)o->o.focus ? 0 : UINT32_MAX;
		} else if (i == 0) {
			d = o->skip_root ? UINT32_MAX - 1 : 0;   /* a made-up root: not printed */
		} else {
			d = pd == UINT32_MAX ? UINT32_MAX : pd == UINT32_MAX - 1 ? 0 : pd + 1;
		}
		o->rdepth[i] = d;
		if (d >= UINT32_MAX - 1)
			continue;
		int hide = d > depth_limit ||
		           (min_percent > 0 && pct && !isnan(inc) && 100.0 * inc / total < min_percent);
		if (!hide && o->o.names.has_exclude) {
			char *name = label(o, &n);
			if (!name)
				return TOOL_OOM;
			hide = regexec(&o->o.names.exclude, name, 0, NULL, 0) == 0;
			free(name);
		}
		if (hide)
			o->rdepth[i] = UINT32_MAX;
	}
	return 0;
}

/* --match: keep the matching nodes, the path to them and their subtrees. */
static int mark_match(tree_out *o)
{
	unsigned char *keep = calloc((size_t)o->count, 1);
	if (!keep)
		return TOOL_OOM;
	for (int64_t i = 0; i < o->count; i++) {   /* 1: matches or below a match */
		profdb_node n;
		int r = profdb_tree_get(o->t, (uint32_t)i, &n);
		if (r < 0) {
			free(keep);
			return r;
		}
		if (o->rdepth[i] >= UINT32_MAX - 1)
			continue;
		char *name = label(o, &n);
		if (!name) {
			free(keep);
			return TOOL_OOM;
		}
		keep[i] = regexec(&o->o.names.match, name, 0, NULL, 0) == 0 ||
		          (n.parent != PROFDB_NONE && keep[n.parent]);
		free(name);
	}
	for (int64_t i = o->count - 1; i > 0; i--) {   /* 2: above a match */
		profdb_node n;
		if (profdb_tree_get(o->t, (uint32_t)i, &n) == 0 && keep[i] && n.parent != PROFDB_NONE)
			keep[n.parent] |= 2;
	}
	for (int64_t i = 0; i < o->count; i++)
		if (!keep[i] && o->rdepth[i] < UINT32_MAX - 1)
			o->rdepth[i] = UINT32_MAX;
	free(keep);
	return 0;
}

static size_t count_shown(const tree_out *o)
{
	size_t n = 0;
	for (int64_t i = 0; i < o->count; i++)
		n += o->rdepth[i] < UINT32_MAX - 1;
	return n;
}

/* Decide what is shown: the options, or the screenful default. */
static int decide(tree_out *o)
{
	const report_opts *p = &o->o;
	int r;
	size_t all = (size_t)o->count - (size_t)o->skip_root;
	if (!(o->rdepth = malloc((size_t)o->count * sizeof *o->rdepth)))
		return TOOL_OOM;
	o->min_percent = p->min_percent_given ? p->min_percent : 0;
	int asked = o->depth_given || p->min_percent_given || p->count_given ||
	            filter_any(&p->names) || p->focus >= 0;
	/* Nothing asked, every node is shown: a big view with percentages
	 * goes straight to the screenful's pass (the bottom-up view of a big
	 * Callgrind profile has 170,000 nodes) */
	int screen = !p->json && !asked && all > TREE_SCREEN && report_has_percent(&o->rep, 0);
	if (!screen) {
		if ((r = mark_down(o, o->min_percent, o->depth_limit)) < 0)
			return r;
		if (p->names.has_match && (r = mark_match(o)) < 0)
			return r;
		o->shown = count_shown(o);
	}
	if (screen || (!p->json && !asked && o->shown > TREE_SCREEN)) {
		o->defaulted = 1;
		if (report_has_percent(&o->rep, 0)) {
			o->min_percent = TREE_DEFAULT_PERCENT;
			if ((r = mark_down(o, o->min_percent, o->depth_limit)) < 0)
				return r;
			o->shown = count_shown(o);
		}
	}
	uint64_t cap = o->defaulted ? TREE_SCREEN : p->count_given ? p->count : 0;
	if (cap && o->shown > cap) {
		/* the first nodes in display order; a parent comes before its children */
		size_t n = 0;
		for (int64_t i = 0; i < o->count; i++)
			if (o->rdepth[i] < UINT32_MAX - 1 && n++ >= cap)
				o->rdepth[i] = UINT32_MAX;
		o->shown = (size_t)cap;
		o->capped = 1;
	}
	o->hidden = all - o->shown;
	return 0;
}

/* ---- printing ------------------------------------------------------------ */

static int put_node_json(tree_out *o, const profdb_node *n, uint32_t depth)
{
	double inc, exc;
	profdb_node p;
	int r, has_parent = n->parent != PROFDB_NONE && o->rdepth[n->parent] < UINT32_MAX - 1 &&
	                    profdb_tree_get(o->t, n->parent, &p) == 0;
	size_t len;
	char *name = label_bytes(o, n, &len);
	if (!name)
		return TOOL_OOM;
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
	put_json_str(stdout, (profdb_str){name, len});
	free(name);
	for (int pass = 0; pass < 2; pass++) {
		printf(pass ? "], \"exclusives\": [" : ", \"inclusives\": [");
		for (size_t k = 0; k < o->rep.n; k++) {
			if ((r = node_values(o, n->id, k, &inc, &exc)) < 0)
				return r;
			printf("%s", k ? ", " : "");
			put_json_value(pass ? exc : inc);
		}
	}
	if ((r = node_values(o, n->id, 0, &inc, &exc)) < 0)
		return r;
	printf("], \"inclusive\": ");
	put_json_value(inc);
	printf(", \"exclusive\": ");
	put_json_value(exc);
	printf("}");
	o->first = 0;
	return 0;
}

/* Column widths of the shown nodes: two per metric (inclusive, exclusive). */
static int widths(const tree_out *o, int *w, size_t nm, int *idw)
{
	char buf[64];
	for (size_t k = 0; k < nm; k++) {
		int cw = nm == 1 ? 5 : report_column_width(&o->rep, k);
		if (cw < 0)
			return TOOL_OOM;
		w[2 * k] = w[2 * k + 1] = cw + 4 < 9 ? 9 : cw + 4;
	}
	*idw = 2;
	for (int64_t i = 0; i < o->count; i++) {
		profdb_node n;
		if (o->rdepth[i] >= UINT32_MAX - 1)
			continue;
		for (size_t k = 0; k < nm; k++) {
			double v[2];
			int r = node_values(o, (uint32_t)i, k, &v[0], &v[1]);
			if (r < 0)
				return r;
			for (int j = 0; j < 2; j++) {
				int l = (int)fmt_value(buf, sizeof buf, v[j], o->o.plain);
				w[2 * k + j] = l > w[2 * k + j] ? l : w[2 * k + j];
			}
		}
		if (profdb_tree_get(o->t, (uint32_t)i, &n) == 0 && n.context != PROFDB_NONE) {
			int l = snprintf(buf, sizeof buf, "%" PRIu32, n.context);
			*idw = l > *idw ? l : *idw;
		}
	}
	return 0;
}

/* The head of column @p w wide of metric @p k's @p exclusive values:
 * "inclusive" or "exclusive" of one metric, "NAME (I)" or "NAME (E)" of
 * several; in a new buffer (the caller frees it), NULL when out of memory. */
static char *column_head(const report *rep, size_t k, int exclusive, int w)
{
	if (rep->n == 1)
		return strdup(exclusive ? "exclusive" : "inclusive");
	char *col = report_column_name(rep, k, (size_t)w - 4);
	size_t n = col ? strlen(col) + sizeof " (I)" : 0;
	char *head = col ? malloc(n) : NULL;
	if (head)
		snprintf(head, n, "%s (%s)", col, exclusive ? "E" : "I");
	free(col);
	return head;
}

static int print_text(tree_out *o)
{
	const report *rep = &o->rep;
	size_t nm = rep->n < 32 ? rep->n : 32;
	int w[64], idw, pct = report_has_percent(rep, 0), r;
	char buf[64], shortname[1024];   /* text may shorten; --wide prints whole */
	if ((r = widths(o, w, nm, &idw)) < 0)
		return r;
	int prefix = idw + 2;
	for (size_t k = 0; k < nm; k++) {
		for (int j = 0; j < 2; j++) {
			char *head = column_head(rep, k, j, w[2 * k + j]);
			if (!head)
				return TOOL_OOM;
			fmt_put(head, w[2 * k + j]);
			free(head);
			printf("  ");
			prefix += w[2 * k + j] + 2;
			if (k == 0 && pct) {
				printf("%7s  ", "%");
				prefix += 9;
			}
		}
	}
	fmt_put("id", idw);
	printf("  %s\n", o->kind == PROFDB_TREE_FLAT ? "module / file / function / loop / line"
	       : o->kind == PROFDB_TREE_BOTTOM_UP ? "function / callers" : "context");
	for (int64_t i = 0; i < o->count; i++) {
		profdb_node n;
		uint32_t d = o->rdepth[i];
		if (d >= UINT32_MAX - 1)
			continue;
		if ((r = profdb_tree_get(o->t, (uint32_t)i, &n)) < 0)
			return r;
		for (size_t k = 0; k < nm; k++) {
			double v[2];
			if ((r = node_values(o, (uint32_t)i, k, &v[0], &v[1])) < 0)
				return r;
			for (int j = 0; j < 2; j++) {
				fmt_value(buf, sizeof buf, v[j], o->o.plain);
				fmt_put(buf, w[2 * k + j]);
				printf("  ");
				if (k == 0 && pct && isnan(v[j]))
					printf("%7s  ", "-");
				else if (k == 0 && pct)
					printf("%6.2f%%  ", report_percent(rep, 0, v[j]));
			}
		}
		if (n.context != PROFDB_NONE)
			snprintf(buf, sizeof buf, "%" PRIu32, n.context);
		else
			snprintf(buf, sizeof buf, "-");
		fmt_put(buf, idw);
		int indent = 2 * (int)(d > 30 ? 30 : d);
		char *name = label(o, &n);
		if (!name)
			return TOOL_OOM;
		int room = 100 - prefix - indent;
		fmt_shorten(name, o->o.wide ? sizeof shortname : (size_t)(room > 40 ? room : 40),
		            shortname, sizeof shortname);
		printf("  %*s%s\n", indent, "", o->o.wide ? name : shortname);
		free(name);
	}
	return 0;
}

/* @return 0 or TOOL_OOM. */
static int print_head(const tree_out *o)
{
	char *metric = report_column_name(&o->rep, 0, 200), *head = NULL;
	size_t len;
	FILE *f = metric ? open_memstream(&head, &len) : NULL;
	if (f) {
		fprintf(f, "%s view of %s", view_names[o->kind], metric);
		if (o->o.focus >= 0)
			fprintf(f, ", subtree of context %" PRId64, o->o.focus);
	}
	int e = !f || fclose(f) != 0 || report_describe(&o->rep, head) < 0;
	free(metric);
	free(head);
	if (e)
		return TOOL_OOM;
	if (!o->hidden)
		return 0;
	char why[256] = "";
	size_t wl = 0;
	if (o->min_percent > 0)
		wl += (size_t)snprintf(why + wl, sizeof why - wl, ", below %g%%", o->min_percent);
	if (o->depth_given)
		wl += (size_t)snprintf(why + wl, sizeof why - wl, ", deeper than %" PRIu32,
		                       o->depth_limit);
	if (filter_any(&o->o.names) && wl < sizeof why)
		wl += (size_t)snprintf(why + wl, sizeof why - wl, ", names filtered");
	if (o->o.focus >= 0 && wl < sizeof why)
		wl += (size_t)snprintf(why + wl, sizeof why - wl, ", outside the focus");
	if (o->capped && wl < sizeof why)
		snprintf(why + wl, sizeof why - wl, ", past %zu lines", o->shown);
	char nb[64];
	fmt_value(nb, sizeof nb, (double)o->hidden, o->o.plain);
	printf("note: %s node%s hidden (%s)%s\n", nb, o->hidden == 1 ? "" : "s",
	       why[0] ? why + 2 : "", o->defaulted ? "; --min-percent 0 -n 0 shows all" : "");
	return 0;
}

/* ---- the commands ----------------------------------------------------------- */

static void usage_text(FILE *f, const char *cmd)
{
	if (!cmd)   /* never: but gcc's -O2 -fsanitize=undefined cannot tell */
		cmd = "tree";
	fprintf(f,
	        "usage: profdb %s [-m METRIC[,METRIC...]|all] [--profile P | --profiles SEL]\n"
	        "       %*s %s[--depth N] [--min-percent P] [-n N] [--match RE]\n"
	        "       %*s [--exclude RE] [--focus CONTEXT] [--wide] [--plain] [--raw]\n"
	        "       %*s [--json] PATH\n",
	        cmd, (int)strlen(cmd), "", strcmp(cmd, "tree") ? "" : "[--view V] ",
	        (int)strlen(cmd), "", (int)strlen(cmd), "");
	if (strcmp(cmd, "tree") == 0)
		fputs("One of the three views, indented, with inclusive and exclusive values and\n"
		      "the first metric's percentages of the total (for metrics that add up).\n"
		      "  --view V           top-down (default: the calling-context tree; Callgrind:\n"
		      "                     the call graph expanded), bottom-up (the same as\n"
		      "                     'profdb bottom-up') or flat ('profdb flat')\n", f);
	else if (strcmp(cmd, "bottom-up") == 0)
		fputs("The bottom-up view: every function with its cost over all the contexts\n"
		      "where it appears, then its callers ('profdb tree --view bottom-up').\n", f);
	else
		fputs("The flat view: load module, file, function, loop, line ('profdb tree\n"
		      "--view flat').\n", f);
	fputs("  -m, --metric M     metric names or ids, comma-separated, or 'all'; the\n"
	      "                     first orders the siblings (default: the default\n"
	      "                     metric: time first, doc/model.md)\n"
	      "  -p, --profile P    one profile (default: the summary profile, else all\n"
	      "                     profiles combined by the metric's rule)\n"
	      "  --profiles SEL     combine these profiles ('0-15', 'rank=0-3,thread=0')\n"
	      "  -d, --depth N      show N levels below the roots (default: all)\n"
	      "  --min-percent P    hide subtrees below P% inclusive\n"
	      "  -n N               print at most N nodes (0: all)\n"
	      "  --match RE         only nodes whose name matches RE (POSIX extended), the\n"
	      "                     path to them and their subtrees\n"
	      "  --exclude RE       hide the nodes whose name matches RE, with their subtrees\n"
	      "  --focus CONTEXT    the subtrees of the nodes of context id CONTEXT\n"
	      "  --wide             full names (default: shortened to fit 100 columns)\n"
	      "  --plain            integers without thousands separators\n"
	      "  -r, --raw          hpcrun: the stored sample counts\n"
	      "  --json             one object of schema profdb-tree/2 (every node unless\n"
	      "                     an option hides some)\n"
	      "Without --depth, --min-percent, -n, --match or --focus, a view of more than\n"
	      "150 nodes hides those below 1% and prints 150 lines at most; a note says so.\n",
	      f);
}

/* Options into @p o; @return 0, -1 (help shown) or EXIT_USAGE. */
static int parse_tree(int argc, char **argv, tree_out *o)
{
	static const struct option lo[] = {
		REPORT_LONG_OPTIONS,
		{"depth", required_argument, NULL, 'd'}, {"view", required_argument, NULL, OPT_VIEW},
		{0, 0, 0, 0}};
	int c, e;
	while ((c = tool_getopt(argc, argv, REPORT_SHORT_OPTIONS "d:", lo)) != -1) {
		if ((e = report_option(&o->o, c, optarg)) != 1) {
			if (e)
				return e;
			continue;
		}
		switch (c) {
		case 'd':
			if (opt_u32("--depth", optarg, &o->depth_limit))
				return EXIT_USAGE;
			o->depth_given = 1;
			break;
		case OPT_VIEW:
			if (strcmp(o->cmd, "tree") != 0)
				return tool_usage_fail(o->cmd, "unrecognized option '--view'");
			for (e = 0; e < 3 && strcmp(optarg, view_names[e]); e++)
				;
			if (e == 3)
				return tool_bad_value("--view", optarg, "top-down, bottom-up or flat");
			o->kind = (profdb_tree_kind)e;
			break;
		case 'h': usage_text(stdout, o->cmd); return -1;
		default:
			return EXIT_USAGE;   /* tool_getopt() said why */
		}
	}
	if (o->o.stat != RSTAT_NONE) {
		fprintf(stderr, "%s: %s: --stat is for 'profdb top': a view combines the profiles by "
		        "each metric's rule\n", tool_prog, o->cmd);
		return EXIT_USAGE;
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	return 0;
}

static int build(tree_out *o)
{
	profdb_tree_options opts = PROFDB_TREE_OPTIONS_INIT;
	uint32_t *ids = malloc(o->rep.n * sizeof *ids);
	profdb_node root;
	int r;
	if (!ids)
		return TOOL_OOM;
	for (size_t k = 0; k < o->rep.n; k++)
		ids[k] = o->rep.m[k].metric.id;
	opts.kind = o->kind;
	opts.metrics = ids;
	opts.n_metrics = o->rep.n;
	if (o->rep.m[0].mode == REPORT_ONE) {
		opts.profiles = &o->rep.m[0].profile;
		opts.n_profiles = 1;
	} else if (o->o.profiles) {
		opts.profiles = o->rep.sel;
		opts.n_profiles = o->rep.n_sel;
	}
	r = profdb_tree_new(&o->t, o->rep.db, &opts);
	free(ids);
	if (r < 0 || (r = profdb_tree_get(o->t, 0, &root)) < 0)
		return r;
	if ((o->count = profdb_tree_count(o->t)) < 0)
		return (int)o->count;
	/* A root the view made up (several entry points, Cube's several root
	 * cnodes, the bottom-up and flat views) is not printed: its children
	 * are the roots shown. */
	o->skip_root = root.context == PROFDB_NONE;
	/* Percentages are of node 0's inclusive value (the view's total). */
	for (size_t k = 0; k < o->rep.n; k++) {
		double inc, exc;
		if ((r = node_values(o, 0, k, &inc, &exc)) < 0)
			return r;
		o->rep.m[k].total = isnan(inc) ? 0 : inc;
	}
	return 0;
}

static int run_tree(int argc, char **argv, const char *cmd, profdb_tree_kind kind)
{
	tree_out o;
	memset(&o, 0, sizeof o);
	report_opts_init(&o.o);
	o.o.inclusive = 1;   /* the default metric: one with inclusive values */
	o.cmd = cmd;
	o.kind = kind;
	o.depth_limit = UINT32_MAX;
	o.first = 1;
	int r = parse_tree(argc, argv, &o);
	if (r) {
		filter_free(&o.o.names);
		return r < 0 ? 0 : r;
	}
	/* Only the flat view shows Callgrind's lines. */
	if (o.kind != PROFDB_TREE_FLAT)
		tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	if ((r = report_open(&o.rep, argv[optind], &o.o))) {
		filter_free(&o.o.names);
		return r;
	}
	if ((r = build(&o)) == 0 && (r = decide(&o)) == 0) {
		if (o.o.json) {
			r = report_describe_json(&o.rep, "profdb-tree/2");
			if (r == 0)
				printf(", \"view\": \"%s\", \"hidden\": %zu, \"nodes\": [",
				       view_names[o.kind], o.hidden);
			for (int64_t i = 0; i < o.count && r == 0; i++) {
				profdb_node n;
				if (o.rdepth[i] < UINT32_MAX - 1 &&
				    (r = profdb_tree_get(o.t, (uint32_t)i, &n)) == 0)
					r = put_node_json(&o, &n, o.rdepth[i]);
			}
			if (r == 0)
				printf("\n]}\n");
		} else {
			if ((r = print_head(&o)) == 0)
				r = print_text(&o);
		}
	}
	if (r < 0)
		r = report_fail(&o.rep, r);
	free(o.rdepth);
	profdb_tree_free(o.t);
	filter_free(&o.o.names);
	report_close(&o.rep);
	return r;
}

int cmd_tree(int argc, char **argv)
{
	return run_tree(argc, argv, "tree", PROFDB_TREE_TOP_DOWN);
}

int cmd_bottom_up(int argc, char **argv)
{
	return run_tree(argc, argv, "bottom-up", PROFDB_TREE_BOTTOM_UP);
}

int cmd_flat(int argc, char **argv)
{
	return run_tree(argc, argv, "flat", PROFDB_TREE_FLAT);
}
