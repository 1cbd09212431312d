/* profdb diff A B: two databases of the same program compared call path by
 * call path. The library pairs the top-down views (profdb_match_new,
 * doc/model.md "Matching two databases"); this file picks the metric on
 * each side, ranks the rows by the absolute difference of the exclusive
 * value (of the inclusive one with --inclusive) and prints them.
 *
 * Exclusive is the default rank because an inclusive difference repeats
 * itself on every caller up to the root: the rows of one changed function
 * would fill the screen with its ancestors, whereas exclusive rows point
 * at the code whose own cost changed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "report.h"

static const char diff_usage[] =
	"usage: profdb diff [-m METRIC | -m A:B] [--profiles SEL | --profiles SA:SB]\n"
	"                   [--inclusive] [-n N] [--json | --csv] A B\n"
	"Two databases of the same program (any formats) compared call path by call\n"
	"path: exclusive and inclusive values in A and B, B - A and B / A, rows\n"
	"ranked by |B - A|. Paths found on one side only are marked - (only in A)\n"
	"and + (only in B); the other side counts 0.\n"
	"  -m, --metric M     metric name or id in both (default: A's default metric,\n"
	"                     found in B by name); A:B when the names differ\n"
	"  --profiles SEL     profiles combined on both sides (profdb_profiles_select\n"
	"                     syntax: 0-3,rank=1); SA:SB for different selections\n"
	"                     (default: the summary profile, else all combined)\n"
	"  --inclusive        rank by the inclusive difference (default: exclusive)\n"
	"  --exclusive        rank by the exclusive difference\n"
	"  -n N               show the N largest differences (default 20, 0: all)\n"
	"  --json             one object of schema profdb-diff/2\n"
	"  --csv              one line per call path\n";

typedef struct side {
	const char *path;
	profdb *db;
	profdb_metric metric;
	const char *sel;            /* --profiles part, NULL: the view's default */
	uint32_t *profiles;
	size_t n_profiles;
} side;

typedef struct drow {
	double key;                 /* |B - A| of the ranked value; -1 for NaN */
	uint32_t row;
} drow;

static int cmp_drow(const void *pa, const void *pb)
{
	const drow *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

/* ---- metrics and profiles ---------------------------------------------------- */

static int find_both(side *s, const char *ka, const char *kb)
{
	return profdb_metric_find(s[0].db, ka, &s[0].metric) == 0 &&
	       profdb_metric_find(s[1].db, kb, &s[1].metric) == 0;
}

/* B's metric of A's name and kind (the scopes share a name), if any. */
static int same_kind(const profdb *b, const profdb_metric *a, profdb_metric *out)
{
	int64_t n = profdb_metric_count(b);
	for (int64_t i = 0; i < n; i++)
		if (profdb_metric_at(b, (uint32_t)i, out) == 0 && out->kind == a->kind &&
		    out->name.len == a->name.len && !memcmp(out->name.ptr, a->name.ptr, a->name.len))
			return 0;
	return -ENOENT;
}

/* The metric of @p db that profdb_metric_find() finds by @p name, every
 * byte of it: a name that holds a NUL is not a C string, and finds none.
 * @return 0, 1 (none) or TOOL_OOM. */
static int find_by_name(const profdb *db, profdb_str name, profdb_metric *out)
{
	if (name.len && memchr(name.ptr, '\0', name.len))
		return 1;
	char *key = malloc(name.len + 1);
	if (!key)
		return TOOL_OOM;
	if (name.len)
		memcpy(key, name.ptr, name.len);
	key[name.len] = '\0';
	int r = profdb_metric_find(db, key, out);
	free(key);
	return r < 0;
}

/* -m: a name both sides have, else "A:B" split at the first ':' that gives
 * a metric on each side (metric names may hold ':'). */
static int pick_metrics(side *s, const char *arg)
{
	if (!arg) {
		int r = profdb_metric_default(s[0].db, &s[0].metric);
		if (r == -ENOENT) {
			fprintf(stderr, "%s: %s: the database has no metrics\n", tool_prog, s[0].path);
			return EXIT_INPUT;
		}
		if (r < 0)
			return tool_fail(s[0].path);
		if (same_kind(s[1].db, &s[0].metric, &s[1].metric) == 0)
			return 0;
		if ((r = find_by_name(s[1].db, s[0].metric.name, &s[1].metric)) <= 0)
			return r < 0 ? tool_fail_status(s[1].path, r) : 0;
		fprintf(stderr, "%s: %s: no metric named '", tool_prog, s[1].path);
		put_text(stderr, s[0].metric.name);
		fprintf(stderr, "' (the default metric of %s); name both with -m A:B\n", s[0].path);
		return EXIT_USAGE;
	}
	if (find_both(s, arg, arg))
		return 0;
	size_t len = strlen(arg);
	char *buf = malloc(len + 1);
	if (!buf)
		return tool_fail(s[0].path);
	for (size_t i = 0; i < len; i++) {
		if (arg[i] != ':')
			continue;
		memcpy(buf, arg, len + 1);
		buf[i] = 0;
		if (find_both(s, buf, buf + i + 1)) {
			free(buf);
			return 0;
		}
	}
	free(buf);
	fprintf(stderr, "%s: -m: '%s' names no metric of both %s and %s (see 'profdb metrics'; "
	        "A:B when the names differ)\n", tool_prog, arg, s[0].path, s[1].path);
	return EXIT_USAGE;
}

static int select_profiles(side *s)
{
	if (!s->sel)
		return 0;
	int64_t n = profdb_profiles_select(s->db, s->sel, NULL, 0);
	if (n >= 0 && !(s->profiles = malloc(((size_t)n + 1) * sizeof *s->profiles)))
		return tool_fail(s->path);
	if (n > 0)
		n = profdb_profiles_select(s->db, s->sel, s->profiles, (size_t)n);
	if (n < 0) {
		fprintf(stderr, "%s: --profiles: %s: %s\n", tool_prog, s->path, profdb_error_message());
		return EXIT_USAGE;
	}
	if (n == 0) {
		fprintf(stderr, "%s: --profiles: %s: '%s' selects no profile\n", tool_prog, s->path,
		        s->sel);
		return EXIT_USAGE;
	}
	s->n_profiles = (size_t)n;
	return 0;
}

/* ---- labels ---------------------------------------------------------------------- */

/* Node @p id's whole label, its bytes as stored, in a new buffer (the
 * caller frees it) of *len bytes and a NUL; NULL when out of memory. */
static char *node_label(const profdb *db, const profdb_tree *t, uint32_t id, size_t *len)
{
	profdb_node n;
	profdb_context c;
	int got = profdb_tree_get(t, id, &n) == 0;
	int ctx = got && n.context != PROFDB_NONE && profdb_context_get(db, n.context, &c) == 0;
	size_t cap = (ctx ? context_label_size(&c) : got ? n.name.len + 2 : 2) +
	             sizeof " (recursive)";
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	names_buf b = {buf, cap, 0};
	if (!got)
		names_put(&b, "?", 1);
	else if (ctx)
		b.len = context_label_bytes(&c, buf, cap);
	else
		names_put_str(&b, n.name);
	if (got && (n.flags & PROFDB_NODE_RECURSIVE))
		names_put_str(&b, str_of(" (recursive)"));
	*len = b.len;
	return buf;
}

/* The labels of a row's path from below the roots down to the row itself
 * (row 0: the root's own label), through @p put. */
typedef struct diff_out {
	side *s;
	const profdb_match *m;
	int json, csv, inclusive;
} diff_out;

static char *row_label(const diff_out *o, const profdb_pair *p, size_t *len)
{
	int sb = p->a == PROFDB_NONE;
	return node_label(o->s[sb].db, profdb_match_tree(o->m, sb), sb ? p->b : p->a, len);
}

/* The path of @p row, whole: JSON prints an array of labels and returns
 * "", otherwise a new string of the labels joined by " > ". NULL when out
 * of memory. The caller frees it. */
static char *row_path(const diff_out *o, uint32_t row)
{
	uint32_t *chain = NULL;
	size_t n = 0, cap = 0;
	profdb_pair p;
	uint32_t depth = profdb_match_at(o->m, row, &p) == 0 ? p.depth : 0;
	for (uint32_t r = row; profdb_match_at(o->m, r, &p) == 0; r = p.parent) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			uint32_t *nc = realloc(chain, cap * sizeof *nc);
			if (!nc) {
				free(chain);
				return NULL;
			}
			chain = nc;
		}
		if (r != 0 || row == 0)
			chain[n++] = r;
		if (p.parent == PROFDB_NONE || n > (size_t)depth + 1)
			break;   /* a root, or deeper than the row: a link that goes round */
	}
	char *out = NULL;
	size_t len = 0;
	FILE *f = o->json ? stdout : open_memstream(&out, &len);
	if (f && o->json)
		fputc('[', f);
	for (size_t i = n; f && i-- > 0;) {
		profdb_match_at(o->m, chain[i], &p);
		size_t label_len;
		char *label = row_label(o, &p, &label_len);
		profdb_str name = label ? (profdb_str){label, label_len} : str_of("?");
		fputs(i + 1 < n ? (o->json ? ", " : " > ") : "", f);
		if (o->json)
			put_json_str(f, name);
		else
			put_text(f, name);
		free(label);
	}
	free(chain);
	if (o->json) {
		fputc(']', stdout);
		out = calloc(1, 1);
	} else if (f) {
		fclose(f);
	}
	return out;
}

/* ---- printing -------------------------------------------------------------------- */

static void text_num(double v, int w)
{
	if (isnan(v))
		printf("%*s", w, "-");
	else
		put_table_value(stdout, v, w);
}

static void text_ratio(double a, double b)
{
	if (a == 0 || isnan(a) || isnan(b))
		printf(" %8s", "-");
	else
		printf(" %8.4g", b / a);
}

static void json_scope(const char *name, double a, double b)
{
	printf(", \"%s\": {\"a\": ", name);
	put_json_double(a);
	printf(", \"b\": ");
	put_json_double(b);
	printf(", \"diff\": ");
	put_json_double(b - a);
	printf(", \"ratio\": ");
	if (a == 0 || isnan(a) || isnan(b))
		printf("null");
	else
		put_json_double(b / a);
	printf("}");
}

static void csv_num(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	put_number(stdout, n, 0);
}

static void csv_scope(double a, double b)
{
	csv_num(a);
	putchar(',');
	csv_num(b);
	putchar(',');
	csv_num(b - a);
	putchar(',');
	if (!(a == 0 || isnan(a) || isnan(b)))
		csv_num(b / a);
}

static const char *in_name(const profdb_pair *p)
{
	return p->a == PROFDB_NONE ? "b" : p->b == PROFDB_NONE ? "a" : "both";
}

static void json_id(const char *key, uint32_t v)
{
	if (v == PROFDB_NONE)
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %" PRIu32, key, v);
}

static uint32_t context_of(const profdb_match *m, int sd, uint32_t node)
{
	profdb_node n;
	if (node == PROFDB_NONE || profdb_tree_get(profdb_match_tree(m, sd), node, &n) < 0)
		return PROFDB_NONE;
	return n.context;
}

static void print_row(const diff_out *o, uint32_t row, int first)
{
	profdb_pair p;
	profdb_pair_values v;
	profdb_match_at(o->m, row, &p);
	profdb_match_values(o->m, row, 0, &v);
	if (o->json) {
		printf("%s\n {\"row\": %" PRIu32, first ? "" : ",", row);
		json_id("parent_row", p.parent);
		printf(", \"in\": \"%s\"", in_name(&p));
		json_id("node_a", p.a);
		json_id("node_b", p.b);
		json_id("context_a", context_of(o->m, 0, p.a));
		json_id("context_b", context_of(o->m, 1, p.b));
		printf(", \"depth\": %" PRIu32 ", \"path\": ", p.depth);
		free(row_path(o, row));
		json_scope("exclusive", v.exclusive_a, v.exclusive_b);
		json_scope("inclusive", v.inclusive_a, v.inclusive_b);
		printf("}");
		return;
	}
	char *whole = row_path(o, row);
	const char *path = whole ? whole : "";   /* out of memory: an empty path */
	if (o->csv) {
		printf("%s,", in_name(&p));
		csv_scope(v.exclusive_a, v.exclusive_b);
		putchar(',');
		csv_scope(v.inclusive_a, v.inclusive_b);
		printf(",%" PRIu32 ",", p.depth);
		put_csv_str(stdout, str_of(path));
		putchar('\n');
		free(whole);
		return;
	}
	text_num(v.exclusive_a, 14);
	text_num(v.exclusive_b, 15);
	text_num(v.exclusive_b - v.exclusive_a, 15);
	text_ratio(v.exclusive_a, v.exclusive_b);
	text_num(v.inclusive_a, 15);
	text_num(v.inclusive_b, 15);
	text_num(v.inclusive_b - v.inclusive_a, 15);
	text_ratio(v.inclusive_a, v.inclusive_b);
	/* Long paths keep their end: the row's own code and its callers. */
	size_t len = strlen(path), keep = 100;
	const char *shown = path;
	if (len > keep) {
		const char *cut = strstr(path + len - keep, " > ");
		shown = cut ? cut : path + len - keep;
	}
	printf("  %c %s%s\n", p.a == PROFDB_NONE ? '+' : p.b == PROFDB_NONE ? '-' : ' ',
	       shown != path ? "..." : "", shown);
	free(whole);
}

static void json_side(const side *s)
{
	profdb_about ab;
	profdb_get_about(s->db, &ab);
	printf("{\"path\": ");
	put_json_cstr(stdout, s->path);
	printf(", \"format\": \"%s\", \"metric\": {\"id\": %" PRIu32 ", \"name\": ",
	       profdb_format_name(ab.format), s->metric.id);
	put_json_str(stdout, s->metric.name);
	printf(", \"kind\": \"%s\", \"combine\": \"%s\"}, \"profiles\": ",
	       metric_kind_name(s->metric.kind), combine_name(s->metric.combine));
	if (!s->sel) {
		printf("null}");
		return;
	}
	printf("[");
	for (size_t i = 0; i < s->n_profiles; i++)
		printf("%s%" PRIu32, i ? ", " : "", s->profiles[i]);
	printf("]}");
}

static void text_side(char name, const side *s)
{
	profdb_about ab;
	profdb_get_about(s->db, &ab);
	printf("%c: %s (%s), metric ", name, s->path, profdb_format_name(ab.format));
	put_text(stdout, s->metric.name);
	printf(" (id %" PRIu32 ", %s), ", s->metric.id, metric_kind_name(s->metric.kind));
	if (s->sel)
		printf("profiles %s (%zu)\n", s->sel, s->n_profiles);
	else
		printf("default profiles (the summary where stored, else all combined by %s)\n",
		       combine_name(s->metric.combine));
}

static void print_header(const diff_out *o, const profdb_match_counts *c)
{
	const char *rank = o->inclusive ? "inclusive" : "exclusive";
	if (o->json) {
		printf("{\"schema\": \"profdb-diff/2\", \"a\": ");
		json_side(&o->s[0]);
		printf(", \"b\": ");
		json_side(&o->s[1]);
		printf(", \"rank\": \"%s\", \"counts\": {\"matched\": %" PRIu64 ", \"only_a\": %" PRIu64
		       ", \"only_b\": %" PRIu64 "}, \"rows\": [", rank, c->matched, c->only_a,
		       c->only_b);
		return;
	}
	if (o->csv) {
		printf("in,exclusive_a,exclusive_b,exclusive_diff,exclusive_ratio,inclusive_a,"
		       "inclusive_b,inclusive_diff,inclusive_ratio,depth,path\n");
		return;
	}
	text_side('A', &o->s[0]);
	text_side('B', &o->s[1]);
	printf("call paths: %" PRIu64 " in both, %" PRIu64 " only in A (-), %" PRIu64
	       " only in B (+); ranked by |B - A| of the %s value\n", c->matched, c->only_a,
	       c->only_b, rank);
	printf("%14s %14s %14s %8s %14s %14s %14s %8s    %s\n", "exclusive A", "exclusive B",
	       "B - A", "B / A", "inclusive A", "inclusive B", "B - A", "B / A", "call path");
}

/* ---- the command ----------------------------------------------------------------- */

/* Is @p row ranked? Not when its context is nested in its parent's code (a
 * loop or a line of a function): the function's exclusive value covers it,
 * so the same change would be listed again at each level. */
static int ranked(const diff_out *o, uint32_t row)
{
	profdb_pair p;
	profdb_node n;
	profdb_context c;
	if (profdb_match_at(o->m, row, &p) < 0)
		return 0;
	int sb = p.a == PROFDB_NONE;
	if (p.parent == PROFDB_NONE ||
	    profdb_tree_get(profdb_match_tree(o->m, sb), sb ? p.b : p.a, &n) < 0 ||
	    n.context == PROFDB_NONE || profdb_context_get(o->s[sb].db, n.context, &c) < 0)
		return 1;
	return c.relation != PROFDB_RELATION_LEXICAL;
}

static int rank_and_print(diff_out *o, uint32_t limit)
{
	int64_t n = profdb_match_count(o->m);
	profdb_match_counts c;
	drow *rows = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *rows);
	if (n < 0 || profdb_match_counts_get(o->m, &c) < 0 || !rows) {
		free(rows);
		return tool_fail(o->s[0].path);
	}
	/* A format without the exclusive scope ranks by the inclusive one. */
	profdb_pair_values v0;
	profdb_match_values(o->m, 0, 0, &v0);
	if (!o->inclusive && (isnan(v0.exclusive_a) || isnan(v0.exclusive_b)))
		o->inclusive = 1;
	size_t nr = 0;
	for (int64_t i = 0; i < n; i++) {
		profdb_pair_values v;
		if (!ranked(o, (uint32_t)i))
			continue;
		profdb_match_values(o->m, (uint64_t)i, 0, &v);
		double d = o->inclusive ? v.inclusive_b - v.inclusive_a : v.exclusive_b - v.exclusive_a;
		rows[nr++] = (drow){isnan(d) ? -1 : fabs(d), (uint32_t)i};
	}
	qsort(rows, nr, sizeof *rows, cmp_drow);
	print_header(o, &c);
	size_t shown = limit && limit < nr ? limit : nr;
	for (size_t i = 0; i < shown; i++)
		print_row(o, rows[i].row, i == 0);
	if (o->json)
		printf("\n]}\n");
	free(rows);
	return 0;
}

static int parse_diff(int argc, char **argv, const char **metric, const char **profiles,
                      diff_out *o, uint32_t *limit)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profiles", required_argument, NULL, 'p'},
		{"inclusive", no_argument, NULL, 'i'}, {"exclusive", no_argument, NULL, 'e'},
		{"json", no_argument, NULL, 'j'}, {"csv", no_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	int c, r;
	while ((c = tool_getopt(argc, argv, ":m:n:h", lo)) != -1) {
		switch (c) {
		case 'm': *metric = optarg; break;
		case 'p': *profiles = optarg; break;
		case 'n':
			if ((r = opt_u32("-n", optarg, limit)) != 0)
				return r;
			break;
		case 'i': o->inclusive = 1; break;
		case 'e': o->inclusive = 0; break;
		case 'j': o->json = 1; break;
		case 'c': o->csv = 1; break;
		case 'h': fputs(diff_usage, stdout); return -1;
		default: return EXIT_USAGE;   /* tool_getopt() said why */
		}
	}
	if (o->json && o->csv)
		return tool_usage_fail("diff", "--json and --csv exclude each other");
	if (optind + 2 != argc)
		return tool_usage_fail("diff", "two databases needed, A and B (see 'profdb diff --help')");
	return 0;
}

/* --profiles SEL for both, or SA:SB. */
static int split_profiles(side *s, const char *arg, char **own)
{
	const char *colon = arg ? strchr(arg, ':') : NULL;
	s[0].sel = s[1].sel = arg;
	*own = NULL;
	if (colon) {
		if (!(*own = strndup(arg, (size_t)(colon - arg)))) {
			fprintf(stderr, "%s: diff: out of memory\n", tool_prog);
			return EXIT_INPUT;
		}
		s[0].sel = *own;
		s[1].sel = colon + 1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	const char *metric = NULL, *profiles = NULL;
	uint32_t limit = 20;
	side s[2];
	memset(s, 0, sizeof s);
	diff_out o = {s, NULL, 0, 0, 0};
	int r = parse_diff(argc, argv, &metric, &profiles, &o, &limit);
	if (r)
		return r < 0 ? 0 : r;
	char *sel_a = NULL;   /* SA of --profiles SA:SB */
	s[0].path = argv[optind];
	s[1].path = argv[optind + 1];
	/* The top-down view shows no Callgrind lines: skip reading them. */
	tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	profdb_match *m = NULL;
	if ((r = split_profiles(s, profiles, &sel_a)) || (r = tool_open(s[0].path, &s[0].db)) ||
	    (r = tool_open(s[1].path, &s[1].db)) ||
	    (r = pick_metrics(s, metric)) || (r = select_profiles(&s[0])) ||
	    (r = select_profiles(&s[1])))
		goto out;
	char na[sizeof "4294967295"], nb[sizeof "4294967295"];   /* the metrics' ids */
	snprintf(na, sizeof na, "%" PRIu32, s[0].metric.id);
	snprintf(nb, sizeof nb, "%" PRIu32, s[1].metric.id);
	const char *ka[1] = {na}, *kb[1] = {nb};
	profdb_match_options mo = PROFDB_MATCH_OPTIONS_INIT;
	mo.metrics_a = ka;
	mo.metrics_b = kb;
	mo.n_metrics = 1;
	mo.profiles_a = s[0].profiles;
	mo.n_profiles_a = s[0].n_profiles;
	mo.profiles_b = s[1].profiles;
	mo.n_profiles_b = s[1].n_profiles;
	if (profdb_match_new(&m, s[0].db, s[1].db, &mo) < 0) {
		fprintf(stderr, "%s: diff %s %s: %s\n", tool_prog, s[0].path, s[1].path,
		        profdb_error_message());
		r = EXIT_INPUT;
		goto out;
	}
	o.m = m;
	r = rank_and_print(&o, limit);
out:
	profdb_match_free(m);
	free(sel_a);
	for (int i = 0; i < 2; i++) {
		free(s[i].profiles);
		profdb_close(s[i].db);
	}
	return r;
}
