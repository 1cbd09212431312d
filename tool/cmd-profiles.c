/* profdb profiles: one row per profile (a thread, rank, location, part):
 * index, summary flag, name, identity, trace length and, on request, the
 * number of stored values.
 *
 * The identity is what --profiles selections (profdb_profiles_select)
 * match, so the list is where a user finds the kinds and values to select
 * by. The value count comes from the profile's view (profdb_profile_view):
 * free for HPCToolkit 4.0, one decoding of the values for the formats that
 * materialise them, hence --values. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static const char profiles_usage[] =
	"usage: profdb profiles [--json|--csv] [--profiles SEL] [--values] PATH\n"
	"The profiles: index, summary flag, trace length ('-' for a format without\n"
	"traces), name and identity (kind=value ..., what --profiles selects by).\n"
	"  --profiles SEL  only these profiles: indices and ranges ('0-15'), and\n"
	"                  KIND=LIST terms ('rank=0-3,thread=0'); summary profiles\n"
	"                  only by index (default: every profile, summary included)\n"
	"  --values        also the number of stored values per profile (decodes\n"
	"                  the values of formats that do not index them)\n"
	"  --json          one object of schema profdb-profiles/2\n"
	"  --csv           index,summary,name,identity,trace_length[,values]\n";

enum { OUT_TEXT, OUT_JSON, OUT_CSV };

typedef struct prow {
	profdb_profile p;
	int64_t trace;      /* -1: the format has no traces */
	int64_t values;     /* -1: not asked */
} prow;

/* The identity as "kind=value kind=value"; for CSV and text. */
static int put_identity(const profdb *db, const profdb_profile *p)
{
	for (uint32_t k = 0; k < p->n_identity; k++) {
		profdb_str kind;
		uint64_t v;
		int r = profdb_profile_identity(db, p->index, k, &kind, &v);
		if (r < 0)
			return r;
		if (k)
			putchar(' ');
		for (size_t j = 0; j < kind.len; j++) {
			unsigned char ch = (unsigned char)kind.ptr[j];
			/* The name a --profiles selection accepts (profdb_profiles_select
			 * reads these bytes as '_'), and one CSV field without quoting. */
			int odd = ch < 0x21 || ch == 0x7f || ch == ',' || ch == '"' || ch == '=';
			putchar(odd ? '_' : ch);
		}
		printf("=%" PRIu64, v);
	}
	return 0;
}

static int put_identity_json(const profdb *db, const profdb_profile *p)
{
	printf("[");
	for (uint32_t k = 0; k < p->n_identity; k++) {
		profdb_str kind;
		uint64_t v;
		int r = profdb_profile_identity(db, p->index, k, &kind, &v);
		if (r < 0)
			return r;
		printf("%s[", k ? ", " : "");
		put_json_str(stdout, kind);
		printf(", %" PRIu64 "]", v);
	}
	printf("]");
	return 0;
}

static int get_row(const profdb *db, uint32_t index, int values, prow *out)
{
	int r = profdb_profile_at(db, index, &out->p);
	if (r < 0)
		return r;
	out->trace = profdb_trace_length(db, index);
	if (out->trace == -ENOTSUP)
		out->trace = -1;
	else if (out->trace < 0)
		return (int)out->trace;
	out->values = -1;
	if (values) {
		profdb_view idx, vals;
		r = profdb_profile_view(db, index, &idx, &vals);
		if (r < 0 && r != -ENOTSUP)
			return r;
		out->values = r < 0 ? -1 : (int64_t)vals.count;
	}
	return 0;
}

/* A count, or its absence: "-" (text), null (JSON), empty (CSV). */
static void put_count(int64_t v, int mode, int w)
{
	if (v >= 0)
		printf("%*" PRId64, w, v);
	else if (mode == OUT_JSON)
		printf("null");
	else if (mode == OUT_TEXT)
		printf("%*s", w, "-");
}

static int print_row(const profdb *db, const prow *w, int mode, int values, int first)
{
	const profdb_profile *p = &w->p;
	if (mode == OUT_JSON) {
		printf("%s\n {\"index\": %" PRIu32 ", \"summary\": %s, \"name\": ", first ? "" : ",",
		       p->index, p->is_summary ? "true" : "false");
		put_json_str(stdout, p->name);
		printf(", \"identity\": ");
		int r = put_identity_json(db, p);
		if (r < 0)
			return r;
		printf(", \"trace_length\": ");
		put_count(w->trace, mode, 0);
		printf(", \"values\": ");
		put_count(w->values, mode, 0);
		printf("}");
		return 0;
	}
	if (mode == OUT_CSV) {
		printf("%" PRIu32 ",%d,", p->index, p->is_summary);
		put_csv_str(stdout, p->name);
		putchar(',');
		int r = put_identity(db, p);
		if (r < 0)
			return r;
		putchar(',');
		put_count(w->trace, mode, 0);
		if (values) {
			putchar(',');
			put_count(w->values, mode, 0);
		}
		putchar('\n');
		return 0;
	}
	printf("%6" PRIu32 " %7s ", p->index, p->is_summary ? "yes" : "-");
	put_count(w->trace, mode, 9);
	if (values) {
		putchar(' ');
		put_count(w->values, mode, 12);
	}
	printf("  ");
	put_text(stdout, p->name.len ? p->name : str_of("-"));
	printf("  ");
	if (!p->n_identity)
		putchar('-');
	int r = put_identity(db, p);
	putchar('\n');
	return r;
}

/* The indices to list: @p sel's, or every profile. @return the count or < 0;
 * a bad selection prints its message and returns -EINVAL. */
static int64_t select_profiles(const profdb *db, const char *sel, uint32_t **out)
{
	int64_t n = sel ? profdb_profiles_select(db, sel, NULL, 0) : profdb_profile_count(db);
	if (n < 0)
		return n;
	*out = malloc(((size_t)n + 1) * sizeof **out);
	if (!*out)
		return TOOL_OOM;
	if (sel)
		return profdb_profiles_select(db, sel, *out, (size_t)n);
	for (int64_t i = 0; i < n; i++)
		(*out)[i] = (uint32_t)i;
	return n;
}

static int print_profiles(const profdb *db, const uint32_t *ids, int64_t n, int mode, int values)
{
	if (mode == OUT_JSON) {
		profdb_about a;
		profdb_get_about(db, &a);
		printf("{\"schema\": \"profdb-profiles/2\", \"format\": \"%s\", \"count\": %" PRId64
		       ", \"profiles\": [", profdb_format_name(a.format), profdb_profile_count(db));
	} else if (mode == OUT_CSV) {
		printf("index,summary,name,identity,trace_length%s\n", values ? ",values" : "");
	} else {
		printf("%6s %7s %9s%s  %s  %s\n", "index", "summary", "trace", values ? "       values"
		       : "", "name", "identity");
	}
	for (int64_t i = 0; i < n; i++) {
		prow w;
		int r = get_row(db, ids[i], values, &w);
		if (r == 0)
			r = print_row(db, &w, mode, values, i == 0);
		if (r < 0)
			return r;
	}
	if (mode == OUT_JSON)
		printf("%s]}\n", n ? "\n" : "");
	return 0;
}

int cmd_profiles(int argc, char **argv)
{
	static const struct option lo[] = {
		{"json", no_argument, NULL, 'j'}, {"csv", no_argument, NULL, 'c'},
		{"profiles", required_argument, NULL, 'P'}, {"values", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	int mode = OUT_TEXT, values = 0, c, formats = 0;
	const char *sel = NULL;
	while ((c = tool_getopt(argc, argv, ":h", lo)) != -1) {
		switch (c) {
		case 'j': mode = OUT_JSON; formats++; break;
		case 'c': mode = OUT_CSV; formats++; break;
		case 'P': sel = optarg; break;
		case 'v': values = 1; break;
		case 'h': fputs(profiles_usage, stdout); return 0;
		default: return EXIT_USAGE;   /* tool_getopt() said why */
		}
	}
	if (formats > 1) {
		fprintf(stderr, "%s: profiles: --json and --csv exclude each other\n", tool_prog);
		return EXIT_USAGE;
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	uint32_t *ids = NULL;
	int64_t n = select_profiles(db, sel, &ids);
	int r;
	if (n == -EINVAL && sel) {
		fprintf(stderr, "%s: --profiles: %s\n", tool_prog, profdb_error_message());
		r = EXIT_USAGE;
	} else {
		r = n < 0 ? (int)n : print_profiles(db, ids, n, mode, values);
		if (r < 0)
			r = tool_fail_status(path, r);
	}
	free(ids);
	profdb_close(db);
	return r;
}
