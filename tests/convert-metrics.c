/* profdb-convert-metrics: every metric of one database through the folded
 * writer in one process, for convert_json_check.py (one process per file
 * instead of one `profdb convert` and one `profdb tree` per metric).
 *
 *   profdb-convert-metrics PATH
 *
 * Prints JSON lines: first {"profiles": [...]} (the non-summary profiles,
 * the order speedscope writes them in), then one line per metric that
 * should convert (combine sum, stored data with a non-zero value, neither
 * a summary statistic nor derived):
 *   {"id", "name", "rc", "error", "negative", "integral", "lines", "bad",
 *    "sum", "total", "excess"}
 * rc and error: profdb_convert()'s; negative: a stored value of the
 * metric's quantity is below 0 (looked for only when refused); lines and
 * sum: the folded lines and their weights added up (exactly for integral
 * metrics, as an integer; compensated double sum otherwise); bad: weights
 * that are not an integer (integral metrics) or not > 0; total: node 0's
 * inclusive value of the top-down view, scaled as the weights; excess: the
 * view holds a node whose children add up to more than itself. The checks
 * themselves are the script's. Exit 0, or 1 when the database cannot be
 * read. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb/profdb.h"

/* The folded text, read as it streams: only each line's last word (the
 * weight) is kept. */
typedef struct weights {
	int integral;
	char word[64];
	size_t len;
	int overlong;
	uint64_t lines, bad;
	uint64_t isum;               /* integral */
	double dsum, comp;           /* Kahan */
} weights;

static void take(weights *w)
{
	w->word[w->len < sizeof w->word ? w->len : sizeof w->word - 1] = 0;
	w->lines++;
	char *end;
	if (w->integral) {
		int digits = w->len > 0 && !w->overlong;
		for (size_t i = 0; digits && i < w->len; i++)
			digits = w->word[i] >= '0' && w->word[i] <= '9';
		if (!digits) {
			w->bad++;
			return;
		}
		w->isum += strtoull(w->word, NULL, 10);
		return;
	}
	double v = strtod(w->word, &end);
	if (w->overlong || end == w->word || *end || !(v > 0)) {
		w->bad++;
		return;
	}
	double y = v - w->comp, t = w->dsum + y;
	w->comp = (t - w->dsum) - y;
	w->dsum = t;
}

static int on_write(const void *data, size_t len, void *ud)
{
	weights *w = ud;
	const char *p = data;
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\n') {
			take(w);
			w->len = 0, w->overlong = 0;
		} else if (p[i] == ' ') {
			w->len = 0, w->overlong = 0;
		} else if (w->len + 1 < sizeof w->word) {
			w->word[w->len++] = p[i];
		} else {
			w->overlong = 1;
		}
	}
	return 0;
}

static void put_str(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);   /* bytes, not UTF-8: names are only shown */
		else
			putchar(c);
	}
	putchar('"');
}

/* Is any stored value of @p m's quantity negative? */
static int negative(const profdb *db, const profdb_metric *m)
{
	profdb_values *it;
	profdb_entry e;
	int r, neg = 0;
	if (profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0) < 0)
		return 0;
	while (!neg && (r = profdb_values_next(it, &e)) > 0)
		if (e.metric == m->id || e.metric == m->inclusive_id || e.metric == m->exclusive_id)
			neg = profdb_number_to_double(e.value) < 0;
	profdb_values_free(it);
	return neg;
}

/* The top-down view's total (scaled) and whether some node's children add
 * up to more than it. */
static int view_total(const profdb *db, const profdb_metric *m, double *total, int *excess)
{
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	profdb_tree *t;
	o.metrics = &m->id, o.n_metrics = 1;
	int r = profdb_tree_new(&t, db, &o);
	if (r < 0)
		return r;
	int64_t n = profdb_tree_count(t);
	double *sub = calloc((size_t)n + 1, sizeof *sub), inc;
	if (!sub) {
		profdb_tree_free(t);
		return -ENOMEM;
	}
	for (int64_t i = 1; i < n; i++) {
		profdb_node nd;
		if (profdb_tree_get(t, (uint32_t)i, &nd) == 0 &&
		    profdb_tree_values(t, (uint32_t)i, 0, &inc, NULL) == 0)
			sub[nd.parent] += inc;
	}
	*excess = 0;
	for (int64_t i = 0; i < n; i++)
		if (profdb_tree_values(t, (uint32_t)i, 0, &inc, NULL) == 0 &&
		    sub[i] > inc * (1 + 1e-12) + 1e-300)
			*excess = 1;
	profdb_tree_values(t, 0, 0, &inc, NULL);
	*total = isnan(inc) ? 0 : inc * (m->scale > 0 ? m->scale : 1);
	free(sub);
	profdb_tree_free(t);
	return 0;
}

static void one(const profdb *db, const profdb_metric *m)
{
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	double scale = m->scale > 0 ? m->scale : 1;
	weights w;
	memset(&w, 0, sizeof w);
	w.integral = (m->type == PROFDB_TYPE_U64 || m->type == PROFDB_TYPE_I64) &&
	             scale == floor(scale) && scale < 9007199254740992.0;
	o.metrics = &m->id, o.n_metrics = 1;
	int rc = profdb_convert(db, &o, on_write, &w);
	const char *err = rc < 0 ? profdb_error_message() : "";
	printf("{\"id\": %" PRIu32 ", \"name\": ", m->id);
	put_str(m->name.ptr, m->name.len);
	printf(", \"rc\": %d, \"error\": ", rc);
	put_str(err, strlen(err));
	printf(", \"negative\": %d, \"integral\": %d", rc < 0 ? negative(db, m) : 0, w.integral);
	double total = 0;
	int excess = 0, tr = rc < 0 ? 0 : view_total(db, m, &total, &excess);
	printf(", \"lines\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"sum\": ", w.lines, w.bad);
	if (w.integral)
		printf("%" PRIu64, w.isum);
	else
		printf("%.17g", w.dsum);
	printf(", \"total\": %.17g, \"excess\": %d, \"tree_rc\": %d}\n", total, excess, tr);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: profdb-convert-metrics PATH\n", stderr);
		return 2;
	}
	profdb *db;
	int r = profdb_open(&db, argv[1], NULL);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], profdb_error_message());
		return 1;
	}
	int64_t np = profdb_profiles_select(db, NULL, NULL, 0);
	uint32_t *sel = np > 0 ? malloc((size_t)np * sizeof *sel) : NULL;
	printf("{\"profiles\": [");
	if (sel && profdb_profiles_select(db, NULL, sel, (size_t)np) == np)
		for (int64_t i = 0; i < np; i++)
			printf("%s%" PRIu32, i ? ", " : "", sel[i]);
	printf("]}\n");
	free(sel);
	int64_t n = profdb_metric_count(db);
	int status = n < 0;
	for (int64_t i = 0; i < n; i++) {
		profdb_metric m;
		if (profdb_metric_at(db, (uint32_t)i, &m) < 0) {
			fprintf(stderr, "%s: metric %" PRId64 ": %s\n", argv[1], i, profdb_error_message());
			status = 1;
			continue;
		}
		if (m.combine != PROFDB_COMBINE_SUM || !m.has_data || m.kind == PROFDB_METRIC_SUMMARY ||
		    m.kind == PROFDB_METRIC_DERIVED || profdb_metric_has_values(db, m.id) != 1)
			continue;
		one(db, &m);
		fflush(stdout);
	}
	if (n < 0)
		fprintf(stderr, "%s: %s\n", argv[1], profdb_error_message());
	profdb_close(db);
	return status;
}
