/* profdb-mpi stats --ensemble: the output (rank 0). The reduced list holds
 * call-path keys (profdb_tree_path_key plus the metric's number), not
 * nodes of any one database, so the labels are rebuilt from the keys'
 * fields: the form of `profdb diff`'s labels (context_label), joined by
 * " > " as `profdb diff` joins them. Formats: doc/TOOL.md ("profdb-mpi")
 * and doc/profdb-ensemble-stats-1.schema.json. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool/tool.h"
#include "mpi-internal.h"
#include "tool-mpi.h"

/* Appends @p len bytes of a key's string (control bytes as '?', as
 * context_label does), as much as fits. */
static void put_key_str(char **o, size_t *n, const unsigned char *p, uint32_t len)
{
	for (uint32_t i = 0; i < len && *n > 1; i++, (*n)--)
		*(*o)++ = p[i] < 0x20 || p[i] == 0x7f ? '?' : (char)p[i];
	**o = 0;
}

static void put_fmt(char **o, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void put_fmt(char **o, size_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(*o, *n, fmt, ap);
	va_end(ap);
	size_t adv = w < 0 ? 0 : (size_t)w >= *n ? *n - 1 : (size_t)w;
	*o += adv;
	*n -= adv;
}

static uint64_t be(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

/* A call-path key (less the metric's 4 bytes) as text into @p buf (cut at
 * @p cap bytes); returns its depth (levels below the root). One level is
 * the node type, name, file, module (each a 4-byte length and the bytes),
 * the line or offset and the occurrence among look-alike siblings
 * (doc/model.md, "Matching two databases"); the k-th look-alike (k > 1)
 * gets " #k", which `profdb diff` needs not show (it prints one pair). */
static uint32_t path_label(const unsigned char *k, uint32_t len, char *buf, size_t cap)
{
	char *o = buf;
	size_t n = cap;
	uint32_t depth = 0;
	*o = 0;
	if (len == 0) {
		snprintf(buf, cap, "<program root>");
		return 0;
	}
	for (uint32_t p = 0; p < len; depth++) {
		const unsigned char *s[3];
		uint32_t sl[3];
		unsigned cls = k[p++];
		for (int i = 0; i < 3; i++) {
			sl[i] = (uint32_t)be(k + p, 4);
			s[i] = k + p + 4;
			p += 4 + sl[i];
		}
		uint64_t num = be(k + p, 8), nth = be(k + p + 8, 4);
		p += 12;
		if (depth)
			put_fmt(&o, &n, " > ");
		if (cls == PROFDB_NODE_OTHER) {
			put_fmt(&o, &n, "<other>");
		} else if (cls == PROFDB_NODE_ROOT) {   /* an entry point */
			put_fmt(&o, &n, "<");
			put_key_str(&o, &n, s[0], sl[0]);
			put_fmt(&o, &n, ">");
		} else if (sl[0]) {
			put_key_str(&o, &n, s[0], sl[0]);
		} else if (cls == PROFDB_NODE_LOOP || cls == PROFDB_NODE_LINE) {
			put_fmt(&o, &n, "%s", cls == PROFDB_NODE_LOOP ? "loop at " : "");
			put_key_str(&o, &n, s[1], sl[1]);
			put_fmt(&o, &n, ":%" PRIu64, num);
		} else {
			if (cls == PROFDB_NODE_FUNCTION)
				put_fmt(&o, &n, "<unknown function> ");
			put_key_str(&o, &n, s[2], sl[2]);
			put_fmt(&o, &n, "+0x%" PRIx64, num);
		}
		if (nth)
			put_fmt(&o, &n, " #%" PRIu64, nth + 1);
	}
	return depth;
}

static int cmp_acc(const void *pa, const void *pb)
{
	const profdb_stats_acc *a = pa, *b = pb;
	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	return (a->context > b->context) - (a->context < b->context);
}

static void csv_num(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	put_number(stdout, n, 0);
}

static void csv_text(const char *s)
{
	profdb_str t = {s, strlen(s)};
	put_csv_str(stdout, t);
}

/* The columns of `profdb stats --csv` (context -> path_id), then the
 * metric's name, the path's depth and the path itself, the last two as in
 * `profdb diff --csv`. */
static const char csv_header[] =
	"path_id,metric,count,sum,min,max,mean,stddev,imbalance,imbalance_pct,min_profile,"
	"max_profile,metric_name,depth,path\n";

static void csv_row(const profdb_stat *s, const char *metric, uint32_t depth, const char *label)
{
	const double v[] = {s->sum, s->min, s->max, s->mean, s->stddev, s->imbalance,
	                    s->imbalance_pct};
	printf("%" PRIu32 ",%" PRIu32 ",%" PRIu64, s->context, s->metric, s->count);
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		putchar(',');
		csv_num(v[i]);
	}
	printf(",%" PRIu32 ",%" PRIu32 ",", s->min_profile, s->max_profile);
	csv_text(metric);
	printf(",%" PRIu32 ",", depth);
	csv_text(label);
	putchar('\n');
}

/* A label is cut at LABEL_BYTES - 1 bytes (path_label's buffer). */
#define LABEL_BYTES 4096

/* The paths' labels, back to back (each ends in 0), and their depths.
 * Both grow geometrically: one fixed-size slot per path, grown by one slot
 * at a time, made the output quadratic in the paths (and 4 KiB each). */
typedef struct paths {
	char *text;
	size_t len, cap;
	size_t *off;                /* of each label in text */
	uint32_t *depth;
	size_t n, cap_n;
} paths;

static const char *label_of(const paths *p, size_t i)
{
	return p->text + p->off[i];
}

static int add_path(paths *p, const unsigned char *key, uint32_t len)
{
	char buf[LABEL_BYTES];
	uint32_t depth = path_label(key, len, buf, sizeof buf);
	size_t n = strlen(buf) + 1;
	if (p->n == p->cap_n) {
		size_t cap = p->cap_n ? 2 * p->cap_n : 1024;
		size_t *o = realloc(p->off, cap * sizeof *o);
		if (o)
			p->off = o;
		uint32_t *d = realloc(p->depth, cap * sizeof *d);
		if (d)
			p->depth = d;
		if (!o || !d)
			return -1;
		p->cap_n = cap;
	}
	if (p->cap - p->len < n) {
		size_t cap = p->cap ? 2 * p->cap : 65536;
		while (cap - p->len < n)
			cap *= 2;
		char *t = realloc(p->text, cap);
		if (!t)
			return -1;
		p->text = t;
		p->cap = cap;
	}
	memcpy(p->text + p->len, buf, n);
	p->off[p->n] = p->len;
	p->depth[p->n] = depth;
	p->len += n;
	p->n++;
	return 0;
}

static void print_head(const pm_args *a, const paths *p, size_t n_rows)
{
	if (a->json) {
		printf("{\"schema\": \"profdb-ensemble-stats/1\", \"runs\": [");
		for (size_t i = 0; i < a->n_paths; i++) {
			printf("%s", i ? ", " : "");
			put_json_cstr(stdout, a->paths[i]);
		}
		printf("], \"metrics\": [");
		for (size_t k = 0; k < a->n_metrics; k++) {
			printf("%s", k ? ", " : "");
			put_json_cstr(stdout, a->metrics[k]);
		}
		printf("], \"paths\": [");
		for (size_t i = 0; i < p->n; i++) {
			printf("%s\n ", i ? "," : "");
			put_json_cstr(stdout, label_of(p, i));
		}
		printf("\n], \"rows\": [");
	} else if (a->csv) {
		fputs(csv_header, stdout);
	} else {
		printf("ensemble of %zu runs: %zu call paths, %zu (path, metric) rows; metrics:",
		       a->n_paths, p->n, n_rows);
		for (size_t k = 0; k < a->n_metrics; k++)
			printf(" %zu=%s", k, a->metrics[k]);
		printf("\n");
		stats_print_columns(0, "call path");
	}
}

int pm_print_ensemble(const pm_args *a, const pm_list *l)
{
	profdb_stats_acc *accs = malloc((l->n + 1) * sizeof *accs);
	paths p;
	size_t n = 0, pos = 0;
	const unsigned char *prev = NULL;
	uint32_t prev_len = 0;
	pm_rec r;
	profdb_stats *st = NULL;
	int status = EXIT_INPUT;
	memset(&p, 0, sizeof p);
	if (!accs)
		goto oom;
	/* Path numbers in key order (a path before its extensions). */
	while (pm_list_next(l, &pos, &r)) {
		uint32_t plen = r.klen - 4;
		if (!prev || pm_key_cmp(prev, prev_len, r.key, plen) != 0)
			if (add_path(&p, r.key, plen) < 0)
				goto oom;
		prev = r.key;
		prev_len = plen;
		accs[n] = r.acc;
		accs[n++].context = (uint32_t)(p.n - 1);
	}
	qsort(accs, n, sizeof *accs, cmp_acc);
	if (profdb_stats_from_accs(&st, accs, n) < 0) {
		fprintf(stderr, "profdb-mpi: %s\n", profdb_error_message());
		goto out;
	}
	print_head(a, &p, n);
	for (size_t i = 0; i < n; i++) {
		profdb_stat s;
		profdb_stats_at(st, i, &s);
		const char *label = label_of(&p, s.context);
		if (a->csv) {
			csv_row(&s, a->metrics[s.metric], p.depth[s.context], label);
			continue;
		}
		if (a->json)
			printf("%s\n ", i ? "," : "");
		stats_print_row(&s, s.count, label, a->json, 0);   /* over the runs with the path */
	}
	if (a->json)
		printf("\n]}\n");
	status = 0;
	goto out;
oom:
	fprintf(stderr, "profdb-mpi: out of memory for the output\n");
out:
	profdb_stats_free(st);
	free(accs);
	free(p.text);
	free(p.off);
	free(p.depth);
	return status;
}
