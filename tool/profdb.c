/* profdb — command-line front end.
 *
 * Subcommands: info, metrics, tree, top, value, trace. This version reads
 * HPCToolkit 4.0 databases through the library's low-level HPCToolkit API;
 * the other formats join when the common query interface lands (doc/TOOL.md).
 *
 * Exit status: 0 ok, 1 bad input, 2 bad usage. Numbers never depend on the
 * locale: the program never calls setlocale, so printf stays in "C". */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <profdb/profdb.h>

#define EXIT_INPUT 1
#define EXIT_USAGE 2

static const char *prog = "profdb";

static int fail_input(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, profdb_error_message());
	return EXIT_INPUT;
}

static void print_warning(const char *message, void *userdata)
{
	(void)userdata;
	fprintf(stderr, "%s: warning: %s\n", prog, message);
}

static int open_db(const char *path, profdb_hpctk **db)
{
	profdb_options o = {sizeof o, 0, print_warning, NULL};
	if (profdb_hpctk_open(db, path, &o) < 0)
		return fail_input(path);
	return 0;
}

/* ---- metric selection ---------------------------------------------------- */

/* What the values of a report are: ids for inclusive and exclusive values in
 * the profile they are read from. */
typedef struct selection {
	uint32_t metric;           /* raw metric index */
	const char *name;
	int profile;               /* -1: aggregate over profiles */
	int use_summary;           /* aggregate = summary profile (stat ids) */
	int has_inc, has_exc;
	uint32_t inc_id, exc_id;   /* prop ids, or stat ids with use_summary */
} selection;

static int find_scope(profdb_hpctk *db, uint32_t m, uint8_t type, const char *name,
                      int summary, uint32_t *id)
{
	profdb_hpctk_metric md;
	profdb_hpctk_metric_get(db, m, &md);
	uint32_t n = summary ? md.n_summaries : md.n_props;
	for (uint32_t i = 0; i < n; i++) {
		const char *scope;
		uint8_t st;
		if (summary) {
			profdb_hpctk_summary s;
			profdb_hpctk_metric_summary(db, m, i, &s);
			if (s.combine != PROFDB_COMBINE_SUM || strcmp(s.formula, "$$") != 0)
				continue;
			scope = s.scope, st = s.scope_type, *id = s.stat_metric_id;
		} else {
			profdb_hpctk_prop p;
			profdb_hpctk_metric_prop(db, m, i, &p);
			scope = p.scope, st = p.scope_type, *id = p.prop_metric_id;
		}
		if (strcmp(scope, name) == 0 || (type != PROFDB_SCOPE_UNKNOWN && st == type &&
		                                 type != PROFDB_SCOPE_TRANSITIVE))
			return 1;
	}
	return 0;
}

static int select_metric(profdb_hpctk *db, const char *arg, int profile, selection *sel)
{
	int n = profdb_hpctk_metric_count(db);
	if (n < 0)
		return fail_input("metrics");
	if (n == 0) {
		fprintf(stderr, "%s: the database has no metrics\n", prog);
		return EXIT_INPUT;
	}
	memset(sel, 0, sizeof *sel);
	sel->profile = profile;
	if (arg) {
		char *end;
		unsigned long v = strtoul(arg, &end, 10);
		int found = 0;
		if (*arg && !*end && v < (unsigned long)n) {
			sel->metric = (uint32_t)v;
			found = 1;
		}
		for (int i = 0; i < n && !found; i++) {
			profdb_hpctk_metric md;
			profdb_hpctk_metric_get(db, (uint32_t)i, &md);
			if (strcmp(md.name, arg) == 0) {
				sel->metric = (uint32_t)i;
				found = 1;
			}
		}
		if (!found) {
			fprintf(stderr, "%s: no metric named or numbered '%s' (see 'profdb metrics')\n",
			        prog, arg);
			return EXIT_USAGE;
		}
	}
	profdb_hpctk_metric md;
	profdb_hpctk_metric_get(db, sel->metric, &md);
	sel->name = md.name;
	if (profile < 0) {
		profdb_hpctk_profile p0;
		sel->use_summary = profdb_hpctk_profile_count(db) > 0 &&
		                   profdb_hpctk_profile_get(db, 0, &p0) == 0 && p0.is_summary;
	}
	int summary = sel->use_summary;
	sel->has_inc = find_scope(db, sel->metric, PROFDB_SCOPE_EXECUTION, "execution", summary,
	                          &sel->inc_id);
	sel->has_exc = find_scope(db, sel->metric, PROFDB_SCOPE_UNKNOWN, "function", summary,
	                          &sel->exc_id);
	if (!sel->has_inc && !sel->has_exc)
		sel->has_exc = find_scope(db, sel->metric, PROFDB_SCOPE_POINT, "point", summary,
		                          &sel->exc_id);
	return 0;
}

/* Value of a context for one id: from one profile, the summary profile, or
 * summed over all non-summary profiles in profile order (through cct.db). */
static double value_of(profdb_hpctk *db, const selection *sel, uint32_t ctx, uint32_t id)
{
	double v = 0;
	if (sel->profile >= 0 || sel->use_summary) {
		uint32_t p = sel->profile >= 0 ? (uint32_t)sel->profile : 0;
		return profdb_hpctk_value(db, p, ctx, id, &v) == 1 ? v : 0;
	}
	profdb_hpctk_plane plane;
	profdb_hpctk_run run;
	double sum = 0;
	if (profdb_hpctk_context_plane(db, ctx, &plane) == 0 &&
	    profdb_hpctk_plane_find(&plane, id, &run) == 1)
		for (uint64_t i = 0; i < run.count; i++) {
			profdb_hpctk_run_at(&run, i, NULL, &v);
			sum += v;
		}
	return sum;
}

/* ---- naming contexts ----------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void context_name(profdb_hpctk *db, const profdb_hpctk_context *c, char *buf, size_t n)
{
	const char *file = NULL, *module = NULL;
	profdb_hpctk_function f;
	if (c->file != PROFDB_NONE)
		profdb_hpctk_file_path(db, c->file, &file, NULL);
	if (c->module != PROFDB_NONE)
		profdb_hpctk_module_path(db, c->module, &module);
	switch (c->lexical_type) {
	case PROFDB_LEX_ROOT:
		snprintf(buf, n, "<program root>");
		return;
	case PROFDB_LEX_ENTRY:
		snprintf(buf, n, "<%s>", c->entry_name ? c->entry_name : "entry point");
		return;
	case PROFDB_LEX_FUNCTION:
		if (c->function != PROFDB_NONE && profdb_hpctk_function_get(db, c->function, &f) == 0) {
			if (f.name)
				snprintf(buf, n, "%s%s", c->relation == PROFDB_REL_INLINED_CALL ? "[I] " : "",
				         f.name);
			else if (f.module != PROFDB_NONE &&
			         profdb_hpctk_module_path(db, f.module, &module) == 0)
				snprintf(buf, n, "<unknown function> %s+0x%" PRIx64, base_name(module),
				         f.offset);
			else
				snprintf(buf, n, "<anonymous function>");
		} else
			snprintf(buf, n, "<unknown function>");
		return;
	case PROFDB_LEX_LOOP:
		snprintf(buf, n, "loop at %s:%" PRIu32, file ? base_name(file) : "?", c->line);
		return;
	case PROFDB_LEX_LINE:
		snprintf(buf, n, "%s:%" PRIu32, file ? base_name(file) : "?", c->line);
		return;
	case PROFDB_LEX_INSTRUCTION:
		snprintf(buf, n, "%s+0x%" PRIx64, module ? base_name(module) : "?", c->offset);
		return;
	default:
		snprintf(buf, n, "<context type %u>", c->lexical_type);
	}
}

/* ---- info ---------------------------------------------------------------- */

static void json_string(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static const char *const file_names[PROFDB_HPCTK_NFILES] = {"meta.db", "profile.db", "cct.db",
                                                            "trace.db"};

static int cmd_info(int argc, char **argv)
{
	int json = 0, c;
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
	                                   {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	while ((c = getopt_long(argc, argv, "jh", lo, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else {
			printf("usage: profdb info [--json] PATH\n"
			       "Format, version, title, counts and file sizes of a database.\n");
			return c == 'h' ? 0 : EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: profdb info [--json] PATH\n");
		return EXIT_USAGE;
	}
	const char *path = argv[optind];
	profdb_hpctk *db;
	if (open_db(path, &db))
		return EXIT_INPUT;

	const char *title = "";
	int64_t contexts = 0, profiles = 0, traces = 0;
	uint64_t values = 0, samples = 0, metrics = 0;
	uint8_t major = 4, minor = 0;
	int r = 0;
	if (profdb_hpctk_has(db, PROFDB_HPCTK_META)) {
		profdb_hpctk_version(db, PROFDB_HPCTK_META, &major, &minor);
		if ((r = profdb_hpctk_title(db, &title, NULL)) < 0 ||
		    (contexts = profdb_hpctk_context_count(db)) < 0 ||
		    (r = profdb_hpctk_metric_count(db)) < 0)
			goto bad;
		/* Distinct propagated metric ids: what thread profiles and cct.db use. */
		uint8_t seen[65536 / 8] = {0};
		for (int m = 0; m < r; m++) {
			profdb_hpctk_metric md;
			profdb_hpctk_metric_get(db, (uint32_t)m, &md);
			for (uint32_t i = 0; i < md.n_props; i++) {
				profdb_hpctk_prop p;
				profdb_hpctk_metric_prop(db, (uint32_t)m, i, &p);
				if (!(seen[p.prop_metric_id / 8] & (1u << (p.prop_metric_id % 8)))) {
					seen[p.prop_metric_id / 8] |= (uint8_t)(1u << (p.prop_metric_id % 8));
					metrics++;
				}
			}
		}
		r = 0;
	}
	if (profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE)) {
		profiles = profdb_hpctk_profile_count(db);
		for (int64_t p = 0; p < profiles; p++) {
			profdb_hpctk_plane pl;
			if ((r = profdb_hpctk_profile_plane(db, (uint32_t)p, &pl)) < 0)
				goto bad;
			values += pl.n_values;
		}
	}
	if (profdb_hpctk_has(db, PROFDB_HPCTK_TRACE)) {
		traces = profdb_hpctk_trace_count(db);
		for (int64_t t = 0; t < traces; t++) {
			profdb_hpctk_trace tr;
			if ((r = profdb_hpctk_trace_get(db, (uint32_t)t, &tr)) < 0)
				goto bad;
			samples += tr.count;
		}
	}
	const char *layout = profdb_hpctk_get_layout(db) == PROFDB_HPCTK_DEVSTAGE
	                         ? "hpctoolkit-4.0-devstage" : "hpctoolkit-4.0";
	if (json) {
		printf("{\"schema\": \"profdb-info/1\", \"format\": \"%s\", \"version\": \"%u.%u\", "
		       "\"title\": ", layout, major, minor);
		json_string(title);
		printf(", \"profiles\": %" PRId64 ", \"contexts\": %" PRId64 ", \"metrics\": %" PRIu64
		       ", \"values\": %" PRIu64 ", \"traces\": %" PRId64 ", \"samples\": %" PRIu64
		       ", \"files\": {", profiles, contexts, metrics, values, traces, samples);
	} else {
		printf("format:    %s\nversion:   %u.%u\ntitle:     %s\n", layout, major, minor, title);
		printf("profiles:  %" PRId64 "\ncontexts:  %" PRId64 "\nmetrics:   %" PRIu64
		       "\nvalues:    %" PRIu64 "\ntraces:    %" PRId64 "\nsamples:   %" PRIu64 "\n",
		       profiles, contexts, metrics, values, traces, samples);
	}
	int first = 1;
	struct stat st;
	int isdir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		if (!profdb_hpctk_has(db, (profdb_hpctk_file)f))
			continue;
		char full[4096];
		snprintf(full, sizeof full, "%s/%s", path, file_names[f]);
		long long size = stat(isdir ? full : path, &st) == 0 ? (long long)st.st_size : -1;
		if (json)
			printf("%s\"%s\": %lld", first ? "" : ", ", file_names[f], size);
		else
			printf("%-10s %lld bytes\n", file_names[f], size);
		first = 0;
	}
	if (json)
		printf("}}\n");
	profdb_hpctk_close(db);
	return 0;
bad:
	fail_input(path);
	profdb_hpctk_close(db);
	return EXIT_INPUT;
}

/* ---- metrics ------------------------------------------------------------- */

static const char *scope_type_name(uint8_t t)
{
	switch (t) {
	case PROFDB_SCOPE_POINT: return "point";
	case PROFDB_SCOPE_EXECUTION: return "execution";
	case PROFDB_SCOPE_TRANSITIVE: return "transitive";
	case PROFDB_SCOPE_CUSTOM: return "custom";
	default: return "unknown";
	}
}

static const char *combine_name(uint8_t c)
{
	return c == PROFDB_COMBINE_SUM ? "sum" : c == PROFDB_COMBINE_MIN ? "min"
	     : c == PROFDB_COMBINE_MAX ? "max" : "unknown";
}

static int cmd_metrics(int argc, char **argv)
{
	if (argc != 2 || argv[1][0] == '-') {
		printf("usage: profdb metrics PATH\nMetrics with their propagation scopes and "
		       "summary statistics.\n");
		return argc == 2 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? EXIT_USAGE
		       : argc == 2 ? 0 : EXIT_USAGE;
	}
	profdb_hpctk *db;
	if (open_db(argv[1], &db))
		return EXIT_INPUT;
	int n = profdb_hpctk_metric_count(db);
	if (n < 0) {
		fail_input(argv[1]);
		profdb_hpctk_close(db);
		return EXIT_INPUT;
	}
	printf("%4s  %-32s %-12s %-10s %7s  %s\n", "#", "metric", "scope", "kind", "id", "summary");
	for (int m = 0; m < n; m++) {
		profdb_hpctk_metric md;
		profdb_hpctk_metric_get(db, (uint32_t)m, &md);
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop p;
			profdb_hpctk_metric_prop(db, (uint32_t)m, i, &p);
			printf("%4d  %-32s %-12s %-10s %7u ", m, md.name, p.scope,
			       scope_type_name(p.scope_type), p.prop_metric_id);
			for (uint32_t k = 0; k < md.n_summaries; k++) {
				profdb_hpctk_summary s;
				profdb_hpctk_metric_summary(db, (uint32_t)m, k, &s);
				if (strcmp(s.scope, p.scope) == 0)
					printf(" %s(%s)=#%u", combine_name(s.combine), s.formula,
					       s.stat_metric_id);
			}
			printf("\n");
		}
	}
	profdb_hpctk_close(db);
	return 0;
}

/* ---- tree and top -------------------------------------------------------- */

typedef struct report_opts {
	const char *metric;
	int profile;
	int depth;
	double min_percent;
	int count;
	int inclusive;
	int by_function;
} report_opts;

static int parse_report(int argc, char **argv, report_opts *o, const char *usage, int top)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profile", required_argument, NULL, 'p'},
		{"depth", required_argument, NULL, 'd'}, {"min-percent", required_argument, NULL, 'P'},
		{"inclusive", no_argument, NULL, 'i'}, {"exclusive", no_argument, NULL, 'e'},
		{"by", required_argument, NULL, 'b'}, {"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	int c;
	char *end;
	memset(o, 0, sizeof *o);
	o->profile = -1;
	o->depth = -1;
	o->count = 20;
	o->by_function = 0;
	while ((c = getopt_long(argc, argv, top ? "m:n:p:h" : "m:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': o->metric = optarg; break;
		case 'n':
			o->count = (int)strtol(optarg, &end, 10);
			if (*end || o->count < 0)
				goto usage;
			break;
		case 'p':
			o->profile = (int)strtol(optarg, &end, 10);
			if (*end || o->profile < 0)
				goto usage;
			break;
		case 'd':
			o->depth = (int)strtol(optarg, &end, 10);
			if (*end || o->depth < 0)
				goto usage;
			break;
		case 'P':
			o->min_percent = strtod(optarg, &end);
			if (*end)
				goto usage;
			break;
		case 'i': o->inclusive = 1; break;
		case 'e': o->inclusive = 0; break;
		case 'b':
			if (strcmp(optarg, "function") == 0)
				o->by_function = 1;
			else if (strcmp(optarg, "context") == 0)
				o->by_function = 0;
			else
				goto usage;
			break;
		case 'h':
			printf("%s", usage);
			return -1;
		default:
			goto usage;
		}
	}
	if (optind + 1 == argc)
		return 0;
usage:
	fprintf(stderr, "%s", usage);
	return EXIT_USAGE;
}

static double percent(double v, double total)
{
	return total != 0 ? 100.0 * v / total : 0;
}

static double total_of(profdb_hpctk *db, const selection *sel)
{
	/* The global context (id 0) holds the whole program's inclusive cost. */
	return sel->has_inc ? value_of(db, sel, 0, sel->inc_id) : 0;
}

static void describe(const selection *sel)
{
	if (sel->profile >= 0)
		printf("metric: %s, profile %d\n", sel->name, sel->profile);
	else
		printf("metric: %s, %s\n", sel->name,
		       sel->use_summary ? "summary profile (sum over threads)"
		                        : "sum over all profiles");
}

static const char tree_usage[] =
	"usage: profdb tree [-m METRIC] [--profile P] [--depth N] [--min-percent P] PATH\n"
	"The calling-context tree with inclusive and exclusive values and percentages.\n";

static int cmd_tree(int argc, char **argv)
{
	report_opts o;
	int r = parse_report(argc, argv, &o, tree_usage, 0);
	if (r)
		return r < 0 ? 0 : r;
	profdb_hpctk *db;
	selection sel;
	if (open_db(argv[optind], &db))
		return EXIT_INPUT;
	if ((r = select_metric(db, o.metric, o.profile, &sel)) != 0) {
		profdb_hpctk_close(db);
		return r;
	}
	profdb_hpctk_walk *w;
	if (profdb_hpctk_walk_new(db, &w) < 0) {
		r = fail_input(argv[optind]);
		profdb_hpctk_close(db);
		return r;
	}
	double total = total_of(db, &sel);
	describe(&sel);
	printf("%14s %7s %14s %7s  %s\n", "inclusive", "%", "exclusive", "%", "context");
	profdb_hpctk_context c;
	uint32_t depth, skip_below = UINT32_MAX;
	while ((r = profdb_hpctk_walk_next(w, &c, &depth)) > 0) {
		if (depth > skip_below)
			continue;
		skip_below = UINT32_MAX;
		double inc = sel.has_inc ? value_of(db, &sel, c.id, sel.inc_id) : 0;
		double exc = sel.has_exc ? value_of(db, &sel, c.id, sel.exc_id) : 0;
		if ((o.depth >= 0 && depth > (uint32_t)o.depth) ||
		    (o.min_percent > 0 && percent(inc, total) < o.min_percent)) {
			skip_below = depth;   /* hide this subtree */
			continue;
		}
		char name[512];
		context_name(db, &c, name, sizeof name);
		printf("%14.6g %6.2f%% %14.6g %6.2f%%  %*s%s\n", inc, percent(inc, total), exc,
		       percent(exc, total), (int)(2 * (depth > 60 ? 60 : depth)), "", name);
	}
	if (r < 0)
		fail_input(argv[optind]);
	profdb_hpctk_walk_free(w);
	profdb_hpctk_close(db);
	return r < 0 ? EXIT_INPUT : 0;
}

typedef struct row {
	double value;
	uint32_t key;   /* context id or function index */
	uint32_t ctx;   /* a representative context */
} row;

static int cmp_row(const void *a, const void *b)
{
	double x = ((const row *)a)->value, y = ((const row *)b)->value;
	if (x != y)
		return x < y ? 1 : -1;
	return ((const row *)a)->key < ((const row *)b)->key ? -1 : 1;
}

static const char top_usage[] =
	"usage: profdb top [-m METRIC] [-n N] [--inclusive|--exclusive] [--by function|context]\n"
	"                  [--profile P] PATH\n"
	"The hottest contexts (or functions) with values and percentages of the total.\n"
	"Default: first metric, exclusive, by context, summary profile (else the sum over\n"
	"profiles), 20 rows.\n";

static int cmd_top(int argc, char **argv)
{
	report_opts o;
	int r = parse_report(argc, argv, &o, top_usage, 1);
	if (r)
		return r < 0 ? 0 : r;
	profdb_hpctk *db;
	selection sel;
	if (open_db(argv[optind], &db))
		return EXIT_INPUT;
	if ((r = select_metric(db, o.metric, o.profile, &sel)) != 0) {
		profdb_hpctk_close(db);
		return r;
	}
	int64_t n = profdb_hpctk_context_count(db);
	profdb_hpctk_walk *w;
	if (n < 0 || profdb_hpctk_walk_new(db, &w) < 0) {
		r = fail_input(argv[optind]);
		profdb_hpctk_close(db);
		return r;
	}
	int nf = profdb_hpctk_function_count(db);
	row *rows = calloc((size_t)n + 1 + (size_t)(nf > 0 ? nf : 0), sizeof *rows);
	/* Inclusive by function counts each function once per call path: a
	 * context below another context of the same function (recursion) adds
	 * nothing new, as in hpcviewer's flat view. */
	uint32_t *fn_stack = calloc((size_t)n + 2, sizeof *fn_stack);
	if (!rows || !fn_stack) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(EXIT_INPUT);
	}
	size_t nrows = 0;
	int want_inc = o.inclusive && sel.has_inc;
	uint32_t id = want_inc ? sel.inc_id : sel.exc_id;
	if (!want_inc && !sel.has_exc)
		id = sel.inc_id;
	if (o.by_function)
		for (int f = 0; f < nf; f++)
			rows[f] = (row){0, (uint32_t)f, PROFDB_NONE};
	profdb_hpctk_context c;
	uint32_t depth;
	while ((r = profdb_hpctk_walk_next(w, &c, &depth)) > 0) {
		fn_stack[depth] = c.lexical_type == PROFDB_LEX_FUNCTION ? c.function : PROFDB_NONE;
		if (c.lexical_type == PROFDB_LEX_ROOT)
			continue;
		double v = value_of(db, &sel, c.id, id);
		if (!o.by_function) {
			if (v != 0)
				rows[nrows++] = (row){v, c.id, c.id};
			continue;
		}
		if (c.lexical_type != PROFDB_LEX_FUNCTION || c.function == PROFDB_NONE)
			continue;
		int recursive = 0;
		for (uint32_t d = 1; want_inc && d < depth && !recursive; d++)
			recursive = fn_stack[d] == c.function;
		if (!recursive) {
			rows[c.function].value += v;
			rows[c.function].ctx = c.id;
		}
	}
	if (o.by_function)
		nrows = (size_t)nf;
	qsort(rows, nrows, sizeof *rows, cmp_row);
	double total = total_of(db, &sel);
	describe(&sel);
	printf("%14s %7s  %s\n", want_inc ? "inclusive" : "exclusive", "%",
	       o.by_function ? "function" : "context");
	for (size_t i = 0; i < nrows && i < (size_t)o.count; i++) {
		char name[512];
		if (rows[i].value == 0)
			break;
		if (o.by_function) {
			profdb_hpctk_function f;
			profdb_hpctk_function_get(db, rows[i].key, &f);
			snprintf(name, sizeof name, "%s", f.name ? f.name : "<anonymous function>");
		} else {
			profdb_hpctk_context_by_id(db, rows[i].ctx, &c);
			context_name(db, &c, name, sizeof name);
		}
		printf("%14.6g %6.2f%%  %s\n", rows[i].value, percent(rows[i].value, total), name);
	}
	free(rows);
	free(fn_stack);
	profdb_hpctk_walk_free(w);
	profdb_hpctk_close(db);
	return 0;
}

/* ---- value and trace ----------------------------------------------------- */

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int cmd_value(int argc, char **argv)
{
	static const struct option lo[] = {
		{"profile", required_argument, NULL, 'p'}, {"context", required_argument, NULL, 'c'},
		{"metric", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	static const char usage[] = "usage: profdb value --profile P --context C --metric M PATH\n"
	                            "One stored value (M is the metric id stored in that profile).\n";
	uint32_t p = 0, ctx = 0, m = 0;
	int have = 0, c;
	while ((c = getopt_long(argc, argv, "p:c:m:h", lo, NULL)) != -1) {
		uint32_t *dst = c == 'p' ? &p : c == 'c' ? &ctx : c == 'm' ? &m : NULL;
		if (c == 'h') {
			printf("%s", usage);
			return 0;
		}
		if (!dst || parse_u32(optarg, dst) < 0) {
			fprintf(stderr, "%s", usage);
			return EXIT_USAGE;
		}
		have |= c == 'p' ? 1 : c == 'c' ? 2 : 4;
	}
	if (have != 7 || optind + 1 != argc) {
		fprintf(stderr, "%s", usage);
		return EXIT_USAGE;
	}
	profdb_hpctk *db;
	double v;
	if (open_db(argv[optind], &db))
		return EXIT_INPUT;
	int r = profdb_hpctk_value(db, p, ctx, m, &v);
	if (r < 0)
		fail_input(argv[optind]);
	else if (r == 0)
		printf("(no value stored)\n");
	else
		printf("%.17g\n", v);
	profdb_hpctk_close(db);
	return r < 0 ? EXIT_INPUT : 0;
}

static int cmd_trace(int argc, char **argv)
{
	static const struct option lo[] = {
		{"profile", required_argument, NULL, 'p'}, {"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	static const char usage[] = "usage: profdb trace [--profile P] [--from T] [--to T] PATH\n"
	                            "Trace samples (time in ns, context id), by profile.\n";
	long long prof = -1;
	uint64_t from = 0, to = UINT64_MAX;
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "p:f:t:h", lo, NULL)) != -1) {
		if (c == 'h') {
			printf("%s", usage);
			return 0;
		}
		errno = 0;
		unsigned long long v = strtoull(optarg, &end, 10);
		if (c == '?' || *end || errno || !*optarg) {
			fprintf(stderr, "%s", usage);
			return EXIT_USAGE;
		}
		if (c == 'p')
			prof = (long long)v;
		else if (c == 'f')
			from = v;
		else
			to = v;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s", usage);
		return EXIT_USAGE;
	}
	profdb_hpctk *db;
	if (open_db(argv[optind], &db))
		return EXIT_INPUT;
	if (!profdb_hpctk_has(db, PROFDB_HPCTK_TRACE)) {
		fprintf(stderr, "%s: %s has no traces (no trace.db)\n", prog, argv[optind]);
		profdb_hpctk_close(db);
		return EXIT_INPUT;
	}
	int64_t n = profdb_hpctk_trace_count(db);
	int r = 0;
	printf("%8s %20s %10s\n", "profile", "time_ns", "context");
	for (int64_t i = 0; i < n && r >= 0; i++) {
		profdb_hpctk_trace t;
		uint64_t first, last;
		if ((r = profdb_hpctk_trace_get(db, (uint32_t)i, &t)) < 0)
			break;
		if (prof >= 0 && t.profile != (uint64_t)prof)
			continue;
		profdb_hpctk_trace_window(&t, from, to, &first, &last);
		if (to == UINT64_MAX)
			last = t.count;
		for (uint64_t k = first; k < last; k++) {
			uint64_t time;
			uint32_t ctx;
			profdb_hpctk_trace_at(&t, k, &time, &ctx);
			printf("%8" PRIu32 " %20" PRIu64 " %10" PRIu32 "\n", t.profile, time, ctx);
		}
	}
	if (r < 0)
		fail_input(argv[optind]);
	profdb_hpctk_close(db);
	return r < 0 ? EXIT_INPUT : 0;
}

/* ---- main ---------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"info", cmd_info, "format, version, counts and file sizes"},
	{"metrics", cmd_metrics, "the metric list"},
	{"top", cmd_top, "the hottest contexts or functions"},
	{"tree", cmd_tree, "the calling-context tree with values"},
	{"value", cmd_value, "one stored value"},
	{"trace", cmd_trace, "trace samples"},
};

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: profdb COMMAND [OPTIONS] PATH\n\nCommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\nPATH is an HPCToolkit 4.0 database directory or one of its *.db files.\n"
	             "'profdb COMMAND --help' describes each command. Exit status: 0 ok,\n"
	             "1 bad input, 2 bad usage.\n");
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout, 0);
	if (!strcmp(argv[1], "--version")) {
		printf("profdb %s\n", PROFDB_VERSION_STRING);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			int r = commands[i].fn(argc - 1, argv + 1);
			if (fflush(stdout) != 0)
				return EXIT_INPUT;
			return r;
		}
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	return usage(stderr, EXIT_USAGE);
}
