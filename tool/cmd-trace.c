/* profdb trace: trace samples with times relative to the trace's start and
 * the names of their contexts.
 *
 * The start is the earliest sample of any profile of the database (not of
 * the selected one), so that the times of two profiles compare and
 * --profile does not move the origin. Text shows seconds with nine
 * decimals (exact: integer arithmetic on the stored nanoseconds); the JSON
 * keeps the stored epoch nanoseconds and gives the start beside them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "tool.h"

static const char trace_usage[] =
	"usage: profdb trace [--profile P] [--from T] [--to T] [-n N] [--absolute]\n"
	"                    [--json] PATH\n"
	"Trace samples: profile index, time, context id and the context's name (with\n"
	"its function); samples with FROM <= time < TO, of every profile with a trace\n"
	"or only of profile P. Times are seconds since the trace's start, the\n"
	"earliest sample of any profile (printed in the first line).\n"
	"  -p, --profile P   one profile\n"
	"  -f, --from T      first time shown; -t, --to T: first time not shown.\n"
	"                    T is an integer of nanoseconds or a number with a unit:\n"
	"                    '1.5s', '200ms', '30us', '100ns'; relative to the start\n"
	"                    unless --absolute\n"
	"  -n N              at most N samples of each profile (0: all, the default)\n"
	"  -a, --absolute    times (and --from/--to) in nanoseconds since the epoch,\n"
	"                    as stored\n"
	"  --json            one object of schema profdb-trace/2 (times always as\n"
	"                    stored, in epoch nanoseconds, with the start beside them)\n";

/* A sample's context named: its label and, for code inside a function,
 * the function's name (else an empty one): "sample.c:13 in compute".
 * Their bytes as stored, whole, each with a NUL after it. */
typedef struct sample_name {
	profdb_str label, fn;
	char *label_buf, *fn_buf;   /* owned (sample_name_free) */
} sample_name;

static void sample_name_free(sample_name *s)
{
	free(s->label_buf);
	free(s->fn_buf);
}

/* Context @p id named into @p s (sample_name_free frees it, also after a
 * failure). @return 0 or TOOL_OOM. */
static int sample_name_get(const profdb *db, uint32_t id, sample_name *s)
{
	profdb_context c;
	memset(s, 0, sizeof *s);
	s->fn = str_of("");
	if (profdb_context_get(db, id, &c) < 0) {
		if (!(s->label_buf = malloc(sizeof "<context 4294967295>")))
			return TOOL_OOM;
		snprintf(s->label_buf, sizeof "<context 4294967295>", "<context %" PRIu32 ">", id);
		s->label = str_of(s->label_buf);
		return 0;
	}
	if (!(s->label_buf = context_label_bytes_new(&c, &s->label)))
		return TOOL_OOM;
	if (c.type == PROFDB_CTX_FUNCTION || c.type == PROFDB_CTX_ROOT)
		return 0;
	/* The enclosing function: the nearest function context above. */
	for (int steps = 0; c.parent != PROFDB_NONE && steps < 100000; steps++) {
		if (profdb_context_get(db, c.parent, &c) < 0)
			return 0;
		if (c.type == PROFDB_CTX_FUNCTION) {
			c.relation = PROFDB_RELATION_CALL;
			return (s->fn_buf = context_label_bytes_new(&c, &s->fn)) ? 0 : TOOL_OOM;
		}
	}
	return 0;
}

typedef struct trace_opts {
	int64_t only;           /* --profile, -1: all */
	uint64_t from, to;
	int have_from, have_to, absolute, json;
	uint64_t count;         /* -n */
} trace_opts;

/* The earliest first sample of any profile; @p found 0 when none. */
static int trace_start(const profdb *db, int64_t np, uint64_t *start, int *found)
{
	*found = 0;
	*start = 0;
	for (int64_t p = 0; p < np; p++) {
		profdb_sample s;
		int64_t n = profdb_trace_length(db, (uint32_t)p);
		if (n < 0)
			return (int)n;
		if (n == 0)
			continue;
		int r = profdb_trace_sample_at(db, (uint32_t)p, 0, &s);
		if (r < 0)
			return r;
		if (!*found || s.time_ns < *start)
			*start = s.time_ns;
		*found = 1;
	}
	return 0;
}

/* The context ids the JSON names, for its "contexts" list. */
typedef struct idset {
	uint32_t *ids;
	size_t n, cap;
} idset;

static int idset_add(idset *s, uint32_t id)
{
	if (s->n && s->ids[s->n - 1] == id)
		return 0;   /* runs of one context are common */
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 256;
		uint32_t *ni = realloc(s->ids, nc * sizeof *ni);
		if (!ni)
			return TOOL_OOM;
		s->ids = ni;
		s->cap = nc;
	}
	s->ids[s->n++] = id;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* @return 0 or TOOL_OOM. */
static int print_contexts_json(const profdb *db, idset *s)
{
	if (s->n)
		qsort(s->ids, s->n, sizeof *s->ids, cmp_u32);
	printf("],\n\"contexts\": [");
	for (size_t i = 0, shown = 0; i < s->n; i++) {
		if (i && s->ids[i] == s->ids[i - 1])
			continue;
		sample_name sn;
		if (sample_name_get(db, s->ids[i], &sn) < 0) {
			sample_name_free(&sn);
			return TOOL_OOM;
		}
		printf("%s\n {\"id\": %" PRIu32 ", \"label\": ", shown++ ? "," : "", s->ids[i]);
		put_json_str(stdout, sn.label);
		printf(", \"function\": ");
		if (sn.fn.len)
			put_json_str(stdout, sn.fn);
		else
			printf("null");
		printf("}");
		sample_name_free(&sn);
	}
	printf("%s]}\n", s->n ? "\n" : "");
	return 0;
}

/* One profile's samples in the window. @return 0 or < 0. */
static int print_profile(const profdb *db, uint32_t p, const trace_opts *o, uint64_t start,
                         idset *seen, int *first_out)
{
	int64_t n = profdb_trace_length(db, p);
	if (n < 0)
		return (int)n;
	uint64_t first = 0, last = (uint64_t)n;
	int r;
	if ((o->have_from && (r = profdb_trace_seek(db, p, o->from, &first)) < 0) ||
	    (o->have_to && (r = profdb_trace_seek(db, p, o->to, &last)) < 0))
		return r;
	if (o->count && last > first && last - first > o->count)
		last = first + o->count;
	for (uint64_t i = first; i < last; i++) {
		profdb_sample s;
		if ((r = profdb_trace_sample_at(db, p, i, &s)) < 0)
			return r;
		if (o->json) {
			printf("%s\n [%" PRIu32 ", %" PRIu64 ", %" PRIu32 "]", *first_out ? "" : ",", p,
			       s.time_ns, s.context);
			if ((r = idset_add(seen, s.context)) < 0)
				return r;
		} else {
			sample_name sn;
			if ((r = sample_name_get(db, s.context, &sn)) < 0) {
				sample_name_free(&sn);
				return r;
			}
			if (o->absolute) {
				printf("%8" PRIu32 " %20" PRIu64, p, s.time_ns);
			} else {
				uint64_t d = s.time_ns - start;
				printf("%8" PRIu32 " %10" PRIu64 ".%09" PRIu64, p, d / 1000000000u,
				       d % 1000000000u);
			}
			names_show(sn.label_buf, sn.label.len);
			if (sn.fn_buf)
				names_show(sn.fn_buf, sn.fn.len);
			printf(" %10" PRIu32 "  %s%s%s\n", s.context, sn.label.ptr, sn.fn.len ? " in " : "",
			       sn.fn.ptr);
			sample_name_free(&sn);
		}
		*first_out = 0;
	}
	return 0;
}

/* Options; @return 0, -1 (help shown) or EXIT_USAGE. */
static int parse_trace(int argc, char **argv, trace_opts *o)
{
	static const struct option lo[] = {
		{"profile", required_argument, NULL, 'p'}, {"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'}, {"absolute", no_argument, NULL, 'a'},
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	static const char time_what[] =
		"a time (integer nanoseconds, or a number with s, ms, us or ns)";
	uint32_t u;
	int c;
	while ((c = tool_getopt(argc, argv, ":p:f:t:n:ah", lo)) != -1) {
		switch (c) {
		case 'p':
			if (opt_u32("--profile", optarg, &u))
				return EXIT_USAGE;
			o->only = u;
			break;
		case 'f':
		case 't':
			if (profdb_time_parse(optarg, c == 'f' ? &o->from : &o->to) < 0)
				return tool_bad_value(c == 'f' ? "--from" : "--to", optarg, time_what);
			*(c == 'f' ? &o->have_from : &o->have_to) = 1;
			break;
		case 'n':
			if (opt_u64("-n", optarg, &o->count))
				return EXIT_USAGE;
			break;
		case 'a': o->absolute = 1; break;
		case 'j': o->json = 1; break;
		case 'h': fputs(trace_usage, stdout); return -1;
		default: return EXIT_USAGE;   /* tool_getopt() said why */
		}
	}
	return optind + 1 != argc ? tool_args_error(argc, argv) : 0;
}

static int no_traces(profdb *db, const char *path)
{
	profdb_about a;
	profdb_get_about(db, &a);
	tool_progress_done();
	fprintf(stderr, "%s: %s: %s profiles have no traces\n", tool_prog, path,
	        profdb_format_name(a.format));
	profdb_close(db);
	return EXIT_INPUT;
}

/* start + d, saturating. */
static uint64_t after(uint64_t start, uint64_t d)
{
	return d > UINT64_MAX - start ? UINT64_MAX : start + d;
}

int cmd_trace(int argc, char **argv)
{
	trace_opts o;
	memset(&o, 0, sizeof o);
	o.only = -1;
	int r = parse_trace(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	int64_t np = profdb_profile_count(db);
	r = np < 0 ? (int)np : 0;
	if (r == 0 && o.only >= np) {
		fprintf(stderr, "%s: %s: no profile %" PRId64 " (the database has %" PRId64 ")\n",
		        tool_prog, path, o.only, np);
		profdb_close(db);
		return EXIT_USAGE;
	}
	uint64_t start = 0;
	int found = 0;
	if (r == 0 && (r = trace_start(db, np, &start, &found)) == -ENOTSUP)
		return no_traces(db, path);
	if (r == 0 && !o.absolute) {
		o.from = after(start, o.from);
		o.to = after(start, o.to);
	}
	idset seen = {NULL, 0, 0};
	int first_out = 1;
	if (r == 0 && o.json) {
		printf("{\"schema\": \"profdb-trace/2\", \"start_ns\": ");
		if (found)
			printf("%" PRIu64, start);
		else
			printf("null");
		printf(", \"samples\": [");
	} else if (r == 0) {
		if (found)
			printf("trace start: %" PRIu64 " ns since the epoch\n", start);
		else
			printf("trace start: none (no profile has samples)\n");
		printf("%8s %20s %10s  %s\n", "profile", o.absolute ? "time (ns)" : "time (s)",
		       "context", "name");
	}
	for (int64_t p = o.only >= 0 ? o.only : 0; r == 0 && p < (o.only >= 0 ? o.only + 1 : np);
	     p++)
		r = print_profile(db, (uint32_t)p, &o, start, &seen, &first_out);
	if (r == 0 && o.json)
		r = print_contexts_json(db, &seen);
	if (r < 0)
		r = tool_fail_status(path, r);
	free(seen.ids);
	profdb_close(db);
	return r;
}
