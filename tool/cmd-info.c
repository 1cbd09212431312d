/* profdb info, profdb metrics. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


#include "tool.h"

enum { INFO_CHECK = 1, INFO_VALUES = 2 };

/* Parses "[--json] PATH" for info and metrics (and --check, --values where
 * @p check is not NULL: bit 1 and bit 2). @return 0 ok, -1 help shown,
 * EXIT_USAGE. */
static int parse_json_path(int argc, char **argv, const char *usage, int *json, int *check)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
	                                   {"check", no_argument, NULL, 'k'},
	                                   {"values", no_argument, NULL, 'v'},
	                                   {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	int c;
	*json = 0;
	if (check)
		*check = 0;
	while ((c = tool_getopt(argc, argv, "h", lo)) != -1) {
		if (c == 'j')
			*json = 1;
		else if (c == 'k' && check)
			*check |= INFO_CHECK;
		else if (c == 'v' && check)
			*check |= INFO_VALUES;
		else if (c == 'h') {
			fputs(usage, stdout);
			return -1;
		} else
			return EXIT_USAGE;
	}
	return optind + 1 == argc ? 0 : tool_args_error(argc, argv);
}

/* ---- file sizes ----------------------------------------------------------- */

typedef struct file_size {
	char *name;
	long long size;
} file_size;

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const file_size *)a)->name, ((const file_size *)b)->name);
}

/* Whether the library read file @p name of the folder: the files it lists
 * (profdb_file_name), or every file when the format lists none. */
static int was_read(const profdb *db, const char *name)
{
	profdb_str f;
	int r = profdb_file_name(db, 0, &f);
	if (r == -ENOTSUP)
		return 1;
	for (size_t i = 1; r == 0; i++) {
		if (strlen(name) == f.len && memcmp(name, f.ptr, f.len) == 0)
			return 1;
		r = profdb_file_name(db, i, &f);
	}
	return 0;
}

/* The files that make up an input, with their sizes. */
typedef struct file_list {
	file_size *v;
	size_t n, cap;
} file_list;

static void file_list_free(file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
}

/* Appends (@p name, its size) to @p l. @return 0 or TOOL_OOM. */
static int add_file(file_list *l, const char *name, long long size)
{
	if (l->n == l->cap) {
		size_t c = l->cap ? 2 * l->cap : 8;
		file_size *nv = realloc(l->v, c * sizeof *nv);
		if (!nv)
			return TOOL_OOM;
		l->v = nv;
		l->cap = c;
	}
	if (!(l->v[l->n].name = strdup(name)))
		return TOOL_OOM;
	l->v[l->n++].size = size;
	return 0;
}

/* The files of the folder of the file @p path that the library read with
 * it (a Callgrind thread set or dump series), in the library's order.
 * @return 0 or TOOL_OOM. */
static int list_group(const profdb *db, const char *path, file_list *l)
{
	const char *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path) + 1 : 0;
	profdb_str f;
	for (size_t i = 0; profdb_file_name(db, i, &f) == 0; i++) {
		char full[4096];   /* PATH_MAX: a longer path has no stat() either */
		struct stat st;
		if (snprintf(full, sizeof full, "%.*s%.*s", dlen, path, (int)f.len, f.ptr) >=
		            (int)sizeof full ||
		    stat(full, &st) != 0)
			continue;
		if (add_file(l, full + dlen, (long long)st.st_size) < 0)
			return TOOL_OOM;
	}
	return 0;
}

/* The files that make up the input: the file itself (or the files the
 * library read with it), or the regular files of the directory that the
 * library read. @return 0 or TOOL_OOM. */
static int list_files(const profdb *db, const char *path, file_list *l)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		profdb_str f;
		if (profdb_file_name(db, 0, &f) != -ENOTSUP)
			return list_group(db, path, l);
		const char *b = strrchr(path, '/');
		return add_file(l, b ? b + 1 : path, (long long)st.st_size);
	}
	DIR *d = opendir(path);
	struct dirent *e;
	int r = 0;
	while (r == 0 && d && (e = readdir(d))) {
		if (!was_read(db, e->d_name))
			continue;
		char full[4096];   /* PATH_MAX: a longer path has no stat() either */
		if (snprintf(full, sizeof full, "%s/%s", path, e->d_name) >= (int)sizeof full ||
		    stat(full, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		r = add_file(l, e->d_name, (long long)st.st_size);
	}
	if (d)
		closedir(d);
	if (l->n)
		qsort(l->v, l->n, sizeof *l->v, cmp_file);
	return r;
}

/* ---- info ----------------------------------------------------------------- */

static const char info_usage[] =
	"usage: profdb info [--json] [--values] [--check] PATH\n"
	"Format, version, title, the counts (profiles, contexts, metrics, values,\n"
	"traces, samples) and the sizes of the files. The counts are those the\n"
	"headers declare where the format has them (HPCToolkit 4.0: no value or\n"
	"sample is read; Callgrind: the contexts and values, which need every\n"
	"function's lines, are unknown). --values counts by reading every value\n"
	"block, trace line and Callgrind cost line, checking their order.\n"
	"--json prints one object of schema profdb-info/2\n"
	"(doc/profdb-info-2.schema.json). --check first validates a whole\n"
	"HPCToolkit database and compares its files with each other (every value\n"
	"read; profdb_check).\n";

/* A count, or what stands for one the headers do not give (-1):
 * "unknown" in text, null in JSON. */
static void put_count(int64_t n, int json)
{
	if (n >= 0)
		printf("%" PRId64, n);
	else
		fputs(json ? "null" : "unknown (--values counts it)", stdout);
}

/* --check: the format's whole validation (HPCToolkit databases). */
static int check_whole(const profdb *db)
{
	int r = profdb_check(db);
	if (r == -ENOTSUP)
		return tool_usage_fail("info", "--check reads HPCToolkit databases only");
	return r;
}

int cmd_info(int argc, char **argv)
{
	int json, check, r = parse_json_path(argc, argv, info_usage, &json, &check);
	if (r)
		return r < 0 ? 0 : r;
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	if ((check & INFO_CHECK) && (r = check_whole(db)) != 0) {
		r = r > 0 ? EXIT_USAGE : tool_fail(path);
		profdb_close(db);
		return r;
	}
	profdb_about about;
	profdb_counts n;
	/* The headers' counts unless asked to read the blocks (--check has
	 * read them already). */
	if (profdb_get_about(db, &about) < 0 ||
	    (check ? profdb_get_counts(db, &n) : profdb_get_header_counts(db, &n)) < 0) {
		r = tool_fail(path);
		profdb_close(db);
		return r;
	}
	tool_progress_done();
	const char *format = profdb_format_name(about.format);
	file_list fl = {NULL, 0, 0};
	if ((r = list_files(db, path, &fl)) < 0) {
		file_list_free(&fl);
		r = tool_fail_status(path, r);
		profdb_close(db);
		return r;
	}
	const file_size *files = fl.v;
	size_t nfiles = fl.n;
	if (json) {
		printf("{\"schema\": \"profdb-info/2\", \"format\": ");
		put_json_cstr(stdout, format);
		printf(", \"version\": ");
		put_json_str(stdout, about.version);
		printf(", \"title\": ");
		put_json_str(stdout, about.title);
		printf(", \"profiles\": %" PRId64 ", \"contexts\": ", n.profiles);
		put_count(n.contexts, 1);
		printf(", \"metrics\": %" PRId64 ", \"values\": ", n.metrics);
		put_count(n.values, 1);
		printf(", \"traces\": %" PRId64 ", \"samples\": %" PRId64 ", \"files\": {", n.traces,
		       n.samples);
		for (size_t i = 0; i < nfiles; i++) {
			printf("%s", i ? ", " : "");
			put_json_cstr(stdout, files[i].name);
			printf(": %lld", files[i].size);
		}
		printf("}}\n");
	} else {
		printf("format:    %s\nversion:   ", format);
		put_text(stdout, about.version);
		printf("\ntitle:     ");
		put_text(stdout, about.title);
		printf("\nprofiles:  %" PRId64 "\ncontexts:  ", n.profiles);
		put_count(n.contexts, 0);
		printf("\nmetrics:   %" PRId64 "\nvalues:    ", n.metrics);
		put_count(n.values, 0);
		printf("\ntraces:    %" PRId64 "\nsamples:   %" PRId64 "\n", n.traces, n.samples);
		/* A measurements directory can hold thousands of files: show a few. */
		long long total = 0;
		for (size_t i = 0; i < nfiles; i++) {
			total += files[i].size;
			if (i < 8)
				printf("%-10s %lld bytes\n", files[i].name, files[i].size);
		}
		if (nfiles > 8)
			printf("... and %zu more files (%zu files, %lld bytes in all)\n", nfiles - 8,
			       nfiles, total);
	}
	file_list_free(&fl);
	profdb_close(db);
	return 0;
}

/* ---- metrics -------------------------------------------------------------- */

const char *combine_name(profdb_combine c)
{
	return profdb_combine_name(c);
}

/* One metric as JSON; has_values < 0 leaves the key out (dump does not
 * pay for the pass over the values). */
static void put_metric_json_values(FILE *f, const profdb_metric *m, int has_values)
{
	fprintf(f, "{\"id\": %" PRIu32 ", \"name\": ", m->id);
	put_json_str(f, m->name);
	fprintf(f, ", \"unit\": ");
	put_json_str(f, m->unit);
	fprintf(f, ", \"description\": ");
	put_json_str(f, m->description);
	fprintf(f, ", \"kind\": \"%s\", \"statistic\": ", metric_kind_name(m->kind));
	put_json_str(f, m->statistic);
	fprintf(f, ", \"type\": \"%s\", \"exclusive_id\": ", number_type_name(m->type));
	if (m->exclusive_id == PROFDB_NONE)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRIu32, m->exclusive_id);
	fprintf(f, ", \"inclusive_id\": ");
	if (m->inclusive_id == PROFDB_NONE)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRIu32, m->inclusive_id);
	fprintf(f, ", \"has_data\": %s, \"combine\": \"%s\", \"period\": %" PRIu64
	        ", \"scale\": ", m->has_data ? "true" : "false", combine_name(m->combine),
	        m->period);
	profdb_number sc = {PROFDB_TYPE_F64, {.f64 = m->scale}};
	put_number(f, sc, 1);
	if (has_values >= 0)
		fprintf(f, ", \"has_values\": %s", has_values ? "true" : "false");
	fprintf(f, "}");
}

void put_metric_json(FILE *f, const profdb_metric *m)
{
	put_metric_json_values(f, m, -1);
}

static const char metrics_usage[] =
	"usage: profdb metrics [--json] PATH\n"
	"The metrics: id, name, what the values mean (inclusive, exclusive, point,\n"
	"summary, derived), value type, the ids of the same quantity's inclusive and\n"
	"exclusive values, the summary statistic, how values combine across profiles\n"
	"(sum, min, max, none: doc/model.md), the scale from a stored value to the\n"
	"value hpcprof shows (hpcrun: the sampling period) and the unit. \"(no values)\"\n"
	"marks a metric without any non-zero stored value.\n";

static void put_id(uint32_t id)
{
	if (id == PROFDB_NONE)
		printf(" %6s", "-");
	else
		printf(" %6" PRIu32, id);
}

int cmd_metrics(int argc, char **argv)
{
	int json, r = parse_json_path(argc, argv, metrics_usage, &json, NULL);
	if (r)
		return r < 0 ? 0 : r;
	const char *path = argv[optind];
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	int64_t n = profdb_metric_count(db);
	if (n < 0) {
		r = tool_fail(path);
		profdb_close(db);
		return r;
	}
	if (json)
		printf("{\"schema\": \"profdb-metrics/2\", \"metrics\": [");
	else
		printf("%s%6s  %-32s %-9s %-4s %6s %6s  %-10s %-7s %10s  %s%s\n", tool_sgr(TOOL_HEADER),
		       "id", "metric", "kind", "type", "incl", "excl", "statistic", "combine", "scale",
		       "unit", tool_sgr(TOOL_RESET));
	for (int64_t i = 0; i < n; i++) {
		profdb_metric m;
		if (profdb_metric_at(db, (uint32_t)i, &m) < 0) {
			r = tool_fail(path);
			break;
		}
		int hv = profdb_metric_has_values(db, m.id);
		if (hv < 0 && hv != -ENOTSUP) {
			r = tool_fail(path);
			break;
		}
		if (json) {
			printf("%s\n  ", i ? "," : "");
			put_metric_json_values(stdout, &m, hv == 1);
			continue;
		}
		printf("%6" PRIu32 "  ", m.id);
		put_text(stdout, m.name);
		printf("%*s %-9s %-4s", m.name.len < 32 ? (int)(32 - m.name.len) : 0, "",
		       metric_kind_name(m.kind), number_type_name(m.type));
		put_id(m.inclusive_id);
		put_id(m.exclusive_id);
		printf("  %-10.*s %-7s ", (int)m.statistic.len, m.statistic.ptr,
		       combine_name(m.combine));
		put_table_value(stdout, m.scale, 10);
		printf("  ");
		put_text(stdout, m.unit);
		printf("%s\n", !m.has_data ? "  (no data)" : hv == 1 ? "" : "  (no values)");
	}
	if (json && !r)
		printf("\n]}\n");
	profdb_close(db);
	return r;
}
