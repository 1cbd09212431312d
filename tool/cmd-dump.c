/* profdb dump: everything stored, as JSON (schema profdb-dump/2,
 * doc/profdb-dump-2.schema.json) or CSV. The output is streamed: nothing is
 * collected in memory, so a dump of any size runs in constant space.
 *
 * Order: metrics in profdb_metric_at order; contexts depth-first from the
 * roots (parents before children, so len(contexts) == info's "contexts");
 * profiles by index; values as the library's PROFDB_SCAN_ALL cursor gives
 * them (by profile, context, metric); traces by profile, only profiles
 * with at least one sample; call edges in profdb_edge_at order, each with
 * its inclusive cost per profile and combined (doc/model.md "Call
 * edges"). Values may name context ids that have no tree node (HPCToolkit
 * elides some): those are not in "contexts". */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

enum { T_METRICS = 1, T_CONTEXTS = 2, T_PROFILES = 4, T_VALUES = 8, T_TRACES = 16, T_EDGES = 32,
       T_ALL = 63, N_TABLES = 6 };

typedef struct dump {
	profdb *db;
	int json;
	int tables;
	int64_t n_values;   /* for the progress line */
	int progress;       /* stdout is not the terminal the progress goes to */
} dump;

static void put_id_or_null(uint32_t id, int json)
{
	if (id == PROFDB_NONE)
		fputs(json ? "null" : "", stdout);
	else
		printf("%" PRIu32, id);
}

static void csv_header(const dump *d, const char *table, const char *columns)
{
	if (d->tables == T_ALL)
		printf("%s# %s\n", strcmp(table, "metrics") ? "\n" : "", table);
	printf("%s\n", columns);
}

static int dump_metrics(const dump *d)
{
	int64_t n = profdb_metric_count(d->db);
	if (n < 0)
		return (int)n;
	if (d->json)
		printf(",\n\"metrics\": [");
	else
		csv_header(d, "metrics", "id,name,unit,description,kind,statistic,type,"
		                          "exclusive_id,inclusive_id,has_data");
	for (int64_t i = 0; i < n; i++) {
		profdb_metric m;
		int r = profdb_metric_at(d->db, (uint32_t)i, &m);
		if (r < 0)
			return r;
		if (d->json) {
			printf("%s\n ", i ? "," : "");
			put_metric_json(stdout, &m);
			continue;
		}
		printf("%" PRIu32 ",", m.id);
		put_csv_str(stdout, m.name);
		putchar(',');
		put_csv_str(stdout, m.unit);
		putchar(',');
		put_csv_str(stdout, m.description);
		printf(",%s,", metric_kind_name(m.kind));
		put_csv_str(stdout, m.statistic);
		printf(",%s,", number_type_name(m.type));
		put_id_or_null(m.exclusive_id, 0);
		putchar(',');
		put_id_or_null(m.inclusive_id, 0);
		printf(",%d\n", m.has_data ? 1 : 0);
	}
	if (d->json)
		printf("]");
	return 0;
}

static int dump_contexts(const dump *d)
{
	tool_walk w;
	profdb_context c;
	int r, first = 1;
	if ((r = walk_begin(&w, d->db)) < 0)
		return r;
	if (d->json)
		printf(",\n\"contexts\": [");
	else
		csv_header(d, "contexts", "id,parent,depth,relation,type,function,file,line,module,offset");
	while ((r = walk_next(&w, &c, 0)) > 0) {
		if (d->json) {
			printf("%s\n {\"id\": %" PRIu32 ", \"parent\": ", first ? "" : ",", c.id);
			put_id_or_null(c.parent, 1);
			printf(", \"depth\": %" PRIu32 ", \"relation\": \"%s\", \"type\": \"%s\", "
			       "\"function\": ", c.depth, relation_name(c.relation),
			       context_type_name(c.type));
			put_json_str(stdout, c.function);
			printf(", \"file\": ");
			put_json_str(stdout, c.file);
			printf(", \"line\": %" PRIu64 ", \"module\": ", c.line);
			put_json_str(stdout, c.module);
			if (c.has_offset)
				printf(", \"offset\": %" PRIu64 "}", c.offset);
			else
				printf(", \"offset\": null}");
		} else {
			printf("%" PRIu32 ",", c.id);
			put_id_or_null(c.parent, 0);
			printf(",%" PRIu32 ",%s,%s,", c.depth, relation_name(c.relation),
			       context_type_name(c.type));
			put_csv_str(stdout, c.function);
			putchar(',');
			put_csv_str(stdout, c.file);
			printf(",%" PRIu64 ",", c.line);
			put_csv_str(stdout, c.module);
			if (c.has_offset)
				printf(",%" PRIu64 "\n", c.offset);
			else
				printf(",\n");
		}
		first = 0;
	}
	if (r < 0)
		return r;
	if (d->json)
		printf("]");
	return 0;
}

static int dump_profiles(const dump *d)
{
	int64_t n = profdb_profile_count(d->db);
	if (n < 0)
		return (int)n;
	if (d->json)
		printf(",\n\"profiles\": [");
	else
		csv_header(d, "profiles", "index,summary,name,identity");
	for (int64_t i = 0; i < n; i++) {
		profdb_profile p;
		int r = profdb_profile_at(d->db, (uint32_t)i, &p);
		if (r < 0)
			return r;
		if (d->json) {
			printf("%s\n {\"index\": %" PRIu32 ", \"summary\": %s, \"name\": ", i ? "," : "",
			       p.index, p.is_summary ? "true" : "false");
			put_json_str(stdout, p.name);
			printf(", \"identity\": [");
		} else {
			printf("%" PRIu32 ",%d,", p.index, p.is_summary ? 1 : 0);
			put_csv_str(stdout, p.name);
			putchar(',');
		}
		/* CSV: the identity as "kind=value kind=value" in one field. */
		for (uint32_t k = 0; k < p.n_identity; k++) {
			profdb_str kind;
			uint64_t v;
			if ((r = profdb_profile_identity(d->db, (uint32_t)i, k, &kind, &v)) < 0)
				return r;
			if (d->json) {
				printf("%s[", k ? ", " : "");
				put_json_str(stdout, kind);
				printf(", %" PRIu64 "]", v);
			} else {
				printf("%s", k ? " " : "");
				for (size_t j = 0; j < kind.len; j++) {
					char ch = kind.ptr[j];
					putchar(ch == ',' || ch == '"' || ch == ' ' || ch == '=' ||
					        (unsigned char)ch < 0x20 ? '_' : ch);
				}
				printf("=%" PRIu64, v);
			}
		}
		printf(d->json ? "]}" : "\n");
	}
	if (d->json)
		printf("]");
	return 0;
}

/* Rows of the values and edges tables, the hot loops of a dump: built in
 * a buffer of their own and written in large blocks, without printf. */
typedef struct rowbuf {
	char buf[64 * 1024];
	size_t len;
} rowbuf;

/* Room for one more row of at most @p need bytes. */
static char *row_room(rowbuf *b, size_t need)
{
	if (b->len > sizeof b->buf - need) {
		fwrite(b->buf, 1, b->len, stdout);
		b->len = 0;
	}
	return b->buf + b->len;
}

/* A value as format_number writes it, with the value most rows of a dense
 * format hold, an F64 +0, written directly. */
static size_t put_value(char *p, profdb_number v, int json)
{
	if (v.type == PROFDB_TYPE_F64 && v.as.u64 == 0) {
		memcpy(p, "0.0", 4);
		return json ? 3 : 1;
	}
	return format_number(p, v, json);
}

/* The leading ids of a values row, "profile,context," (CSV) or "profile,
 * context, " (JSON): they change far less often than the metric, so a row
 * copies them from here. PREFIX_MAX holds two 10-digit ids and separators;
 * rows copy all PREFIX_MAX bytes, a fixed-size copy. */
enum { PREFIX_MAX = 32 };
typedef struct row_prefix {
	char text[PREFIX_MAX];
	size_t len;
	uint32_t profile, context;
} row_prefix;

static void prefix_set(row_prefix *x, uint32_t profile, uint32_t context, int json)
{
	char *p = x->text;
	p += format_u64(p, profile);
	memcpy(p, ", ", 2);
	p += json ? 2 : 1;
	p += format_u64(p, context);
	memcpy(p, ", ", 2);
	p += json ? 2 : 1;
	x->len = (size_t)(p - x->text);
	x->profile = profile;
	x->context = context;
}

/* One values row at @p p: the bytes written. */
static size_t put_value_row(char *p, const profdb_entry *e, row_prefix *x, int json, int first)
{
	char *start = p;
	if (json) {
		memcpy(p, ",\n [", 4);
		p += first ? 0 : 4;
		if (first)
			memcpy(p, "\n [", 3), p += 3;
	}
	if (first || e->profile != x->profile || e->context != x->context)
		prefix_set(x, e->profile, e->context, json);
	memcpy(p, x->text, PREFIX_MAX);
	p += x->len;
	p += format_u64(p, e->metric);
	memcpy(p, ", ", 2);
	p += json ? 2 : 1;
	p += put_value(p, e->value, json);
	*p++ = json ? ']' : '\n';
	return (size_t)(p - start);
}

/* The values, a block of entries per library call. */
enum { VALUE_BLOCK = 256 };

static int dump_values(const dump *d)
{
	profdb_values *it;
	profdb_entry e[VALUE_BLOCK];
	int64_t r, k = 0;
	if ((r = profdb_values_new(&it, d->db, PROFDB_SCAN_ALL, 0)) < 0)
		return (int)r;
	if (d->json)
		printf(",\n\"values\": [");
	else
		csv_header(d, "values", "profile,context,metric,value");
	rowbuf b = {.len = 0};
	row_prefix x = {.len = 0};
	while ((r = profdb_values_next_block(it, e, VALUE_BLOCK)) > 0) {
		for (int64_t i = 0; i < r; i++, k++) {
			char *p = row_room(&b, PREFIX_MAX + 4 * TOOL_NUMBER_MAX);
			b.len += put_value_row(p, &e[i], &x, d->json, k == 0);
		}
		if (d->progress && (k >> 16) != ((k - r) >> 16))
			tool_progress((uint64_t)k, (uint64_t)(d->n_values > k ? d->n_values : k));
	}
	fwrite(b.buf, 1, b.len, stdout);
	profdb_values_free(it);
	if (r < 0)
		return (int)r;
	if (d->json)
		printf("]");
	return 0;
}

static int dump_traces(const dump *d)
{
	int64_t n = profdb_profile_count(d->db);
	int first = 1;
	if (n < 0)
		return (int)n;
	if (d->json)
		printf(",\n\"traces\": [");
	else
		csv_header(d, "traces", "profile,time_ns,context");
	for (int64_t p = 0; p < n; p++) {
		int64_t len = profdb_trace_length(d->db, (uint32_t)p);
		if (len == -ENOTSUP)
			break;   /* the format has no traces: an empty list */
		if (len < 0)
			return (int)len;
		if (len == 0)
			continue;
		if (d->json)
			printf("%s\n {\"profile\": %" PRId64 ", \"samples\": [", first ? "" : ",", p);
		first = 0;
		for (int64_t i = 0; i < len; i++) {
			profdb_sample s;
			int r = profdb_trace_sample_at(d->db, (uint32_t)p, (uint64_t)i, &s);
			if (r < 0)
				return r;
			if (d->json)
				printf("%s\n  [%" PRIu64 ", %" PRIu32 "]", i ? "," : "", s.time_ns, s.context);
			else
				printf("%" PRId64 ",%" PRIu64 ",%" PRIu32 "\n", p, s.time_ns, s.context);
		}
		if (d->json)
			printf("]}");
	}
	if (d->json)
		printf("]");
	return 0;
}

/* The metrics an edge's cost is given for: one id per quantity, the one
 * profdb_inclusive() reads (the inclusive id, or the metric itself when it
 * has none), leaving out summary statistics and derived metrics. */
static int edge_metric(const profdb_metric *m)
{
	if (m->kind == PROFDB_METRIC_SUMMARY || m->kind == PROFDB_METRIC_DERIVED)
		return 0;
	return m->inclusive_id == m->id || m->inclusive_id == PROFDB_NONE;
}

/* An id, or nothing (CSV) / null (JSON) for PROFDB_NONE. */
static char *put_id(char *p, uint32_t id, int json)
{
	if (id != PROFDB_NONE)
		return p + format_u64(p, id);
	if (json)
		memcpy(p, "null", 4);
	return p + (json ? 4 : 0);
}

/* One cost of edge @p i: [profile, metric, value] (JSON, profile null when
 * combined) or a CSV row: 1, 0 when there is none, < 0. Costs the format
 * cannot give (-ENOTSUP: a metric that does not combine) are left out. */
static int edge_cost(const dump *d, rowbuf *b, uint64_t i, const profdb_edge *e, uint32_t p,
                     uint32_t m, int *first)
{
	profdb_number v;
	int r = profdb_edge_inclusive(d->db, p, i, m, &v);
	if (r <= 0)
		return r;
	char *o = row_room(b, 8 * TOOL_NUMBER_MAX), *start = o;
	if (d->json) {
		if (!*first)
			memcpy(o, ", ", 2), o += 2;
		*o++ = '[';
		o = put_id(o, p, 1);
		memcpy(o, ", ", 2), o += 2;
		o += format_u64(o, m);
		memcpy(o, ", ", 2), o += 2;
	} else {
		o += format_u64(o, e->caller);
		*o++ = ',';
		o += format_u64(o, e->callee);
		*o++ = ',';
		o = put_id(o, e->site, 0);
		*o++ = ',';
		if (e->has_count)
			o += format_u64(o, e->count);
		*o++ = ',';
		o = put_id(o, p, 0);
		*o++ = ',';
		o += format_u64(o, m);
		*o++ = ',';
	}
	o += format_number(o, v, d->json);
	*o++ = d->json ? ']' : '\n';
	b->len += (size_t)(o - start);
	*first = 0;
	return 1;
}

/* Whether some profile is a summary profile: 1, 0, < 0. */
static int has_summary(const dump *d, int64_t np)
{
	for (int64_t p = 0; p < np; p++) {
		profdb_profile pr;
		int r = profdb_profile_at(d->db, (uint32_t)p, &pr);
		if (r < 0 || pr.is_summary)
			return r < 0 ? r : 1;
	}
	return 0;
}

/* Edge @p i's costs for metric @p m: combined first, then each profile.
 * The combined cost is over the non-summary profiles, so without summary
 * profiles no combined cost means no profile has one: those are not asked. */
static int edge_costs(const dump *d, rowbuf *b, uint64_t i, const profdb_edge *e, uint32_t m,
                      int64_t np, int summaries, int *first)
{
	int r = edge_cost(d, b, i, e, PROFDB_NONE, m, first);
	if (r == 0 && !summaries)
		return 0;
	for (int64_t p = 0; p < np && (r >= 0 || r == -ENOTSUP); p++)
		r = edge_cost(d, b, i, e, (uint32_t)p, m, first);
	return r == -ENOTSUP ? 0 : r;
}

/* The ids of the metrics edges have costs for (edge_metric), in metric
 * order: *ids (free it) and the count, or < 0. */
static int64_t edge_metrics(const dump *d, uint32_t **ids)
{
	int64_t nm = profdb_metric_count(d->db), n = 0;
	*ids = NULL;
	if (nm < 0)
		return nm;
	*ids = malloc((size_t)nm * sizeof **ids + 1);
	if (!*ids)
		return TOOL_OOM;
	for (int64_t k = 0; k < nm; k++) {
		profdb_metric m;
		int r = profdb_metric_at(d->db, (uint32_t)k, &m);
		if (r < 0) {
			free(*ids);
			*ids = NULL;
			return r;
		}
		if (edge_metric(&m))
			(*ids)[n++] = m.id;
	}
	return n;
}

static int dump_edges(const dump *d)
{
	int64_t n = profdb_edge_count(d->db), np = profdb_profile_count(d->db);
	if (n < 0 || np < 0)
		return (int)(n < 0 ? n : np);
	int summaries = has_summary(d, np);
	if (summaries < 0)
		return summaries;
	uint32_t *ids;
	int64_t nm = edge_metrics(d, &ids);
	if (nm < 0)
		return (int)nm;
	rowbuf *b = malloc(sizeof *b);
	if (!b) {
		free(ids);
		return TOOL_OOM;
	}
	b->len = 0;
	if (d->json)
		printf(",\n\"edges\": [");
	else
		csv_header(d, "edges", "caller,callee,site,count,profile,metric,cost");
	int r = 0;
	for (int64_t i = 0; i < n && r >= 0; i++) {
		profdb_edge e;
		int first = 1;
		if ((r = profdb_edge_at(d->db, (uint64_t)i, &e)) < 0)
			break;
		if (d->json) {
			char *o = row_room(b, 8 * TOOL_NUMBER_MAX), *start = o;
			o += (size_t)sprintf(o, "%s\n {\"caller\": %" PRIu32 ", \"callee\": %" PRIu32
			                     ", \"site\": ", i ? "," : "", e.caller, e.callee);
			o = put_id(o, e.site, 1);
			if (e.has_count)
				o += (size_t)sprintf(o, ", \"count\": %" PRIu64 ", \"costs\": [", e.count);
			else
				o += (size_t)sprintf(o, ", \"count\": null, \"costs\": [");
			b->len += (size_t)(o - start);
		}
		for (int64_t k = 0; k < nm && r >= 0; k++)
			r = edge_costs(d, b, (uint64_t)i, &e, ids[k], np, summaries, &first);
		if (r >= 0 && d->json) {
			memcpy(row_room(b, 4), "]}", 2);
			b->len += 2;
		}
	}
	fwrite(b->buf, 1, b->len, stdout);
	free(b);
	free(ids);
	if (r < 0)
		return r;
	if (d->json)
		printf("]");
	return 0;
}

static const char dump_usage[] =
	"usage: profdb dump --json|--csv [--table NAME] PATH\n"
	"Everything stored: metrics, contexts, profiles, values, traces and call edges.\n"
	"  --json        one object of schema profdb-dump/2\n"
	"                (doc/profdb-dump-2.schema.json)\n"
	"  --csv         the six tables one after another, each after a line\n"
	"                '# NAME' and a header row\n"
	"  --table NAME  only one table: metrics, contexts, profiles, values,\n"
	"                traces or edges (plain CSV with --csv; with --json the\n"
	"                other keys hold empty lists)\n"
	"Values are [profile, context, metric, value]: integers exact, floating point\n"
	"with the shortest round-trip digits, infinities as \"inf\", \"-inf\", NaN as\n"
	"\"nan(0x7ff800000000beef)\": its 64 bits, sign and payload included.\n"
	"Edges are caller, callee, call site (or empty/null), call count (or\n"
	"empty/null where the format records none) and the callee's inclusive cost\n"
	"per metric: combined over the non-summary profiles (profile empty/null),\n"
	"then per profile.\n";

int cmd_dump(int argc, char **argv)
{
	static const struct option lo[] = {
		{"json", no_argument, NULL, 'j'}, {"csv", no_argument, NULL, 'c'},
		{"table", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	static const char *const names[] = {"metrics", "contexts", "profiles", "values", "traces",
	                                    "edges"};
	int json = -1, tables = T_ALL, c;
	while ((c = tool_getopt(argc, argv, "h", lo)) != -1) {
		switch (c) {
		case 'j':
		case 'c':
			if (json >= 0 && json != (c == 'j'))
				return tool_usage_fail(argv[0], "--json and --csv exclude each other");
			json = c == 'j';
			break;
		case 't':
			tables = 0;
			for (int i = 0; i < N_TABLES; i++)
				if (strcmp(optarg, names[i]) == 0)
					tables = 1 << i;
			if (!tables)
				return tool_bad_value("--table", optarg, "one of metrics, contexts, "
				                      "profiles, values, traces, edges");
			break;
		case 'h': fputs(dump_usage, stdout); return 0;
		default: return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	if (json < 0)
		return tool_usage_fail(argv[0], "--json or --csv is required (see 'profdb dump "
		                       "--help')");
	const char *path = argv[optind];
	dump d = {NULL, json, tables, 0, !isatty(STDOUT_FILENO)};
	if (tool_open(path, &d.db))
		return EXIT_INPUT;
	profdb_about about;
	profdb_counts counts;
	int r = profdb_get_about(d.db, &about);
	if (r >= 0 && (tables & T_VALUES) && profdb_get_counts(d.db, &counts) >= 0)
		d.n_values = counts.values;
	if (r >= 0 && json) {
		printf("{\"schema\": \"profdb-dump/2\", \"format\": ");
		put_json_cstr(stdout, profdb_format_name(about.format));
		printf(", \"version\": ");
		put_json_str(stdout, about.version);
		printf(", \"title\": ");
		put_json_str(stdout, about.title);
	}
	static int (*const parts[])(const dump *) = {dump_metrics, dump_contexts, dump_profiles,
	                                             dump_values, dump_traces, dump_edges};
	for (int i = 0; i < N_TABLES && r >= 0; i++) {
		if (tables & (1 << i))
			r = parts[i](&d);
		else if (json)
			printf(",\n\"%s\": []", names[i]);
	}
	if (r < 0) {
		/* The output is cut short: say so on stderr, exit 1. */
		fflush(stdout);
		r = tool_fail_status(path, r);
	} else {
		if (json)
			printf("\n}\n");
		r = 0;
	}
	profdb_close(d.db);
	return r;
}
