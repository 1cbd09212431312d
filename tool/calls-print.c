/* profdb callers / callees: the text table and the JSON (profdb-calls/2).
 * The columns follow `top`'s: one per metric, a percentage beside the
 * first when it combines by sum, numbers with thousands separators unless
 * --plain, names shortened unless --wide. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "format.h"
#include "names.h"

/* The label of call site @p site, its bytes as stored, whole in a new
 * buffer (the caller frees it), as a string in *@p out; NULL when out of
 * memory. */
static char *site_label(const calls *k, uint32_t site, profdb_str *out)
{
	static const char unknown[] = "an unknown site";
	profdb_context c;
	if (site != PROFDB_NONE && profdb_context_get(k->rep.db, site, &c) == 0)
		return context_label_bytes_new(&c, out);
	char *buf = strdup(unknown);
	if (buf)
		*out = (profdb_str){buf, sizeof unknown - 1};
	return buf;
}

/* "name (file) [module]" (names_function_where) as people read it
 * (names_show), whole in a new buffer with room for @p more bytes after
 * it (the caller frees it); NULL when out of memory. */
static char *function_where_shown(profdb_str name, profdb_str file, profdb_str module,
                                  size_t more, names_buf *b)
{
	b->n = names_function_where_size(name, file, module) + more;
	if (!(b->p = malloc(b->n)))
		return NULL;
	b->len = names_function_where(name, file, module, b->p, b->n);
	names_show(b->p, b->len);
	return b->p;
}

/* Row @p rw's name as people read it: its function, " at SITE" with
 * --sites, " (nested call)" for a call inside a cycle; whole in a new
 * buffer (the caller frees it), NULL when out of memory. */
static char *row_name(const calls *k, const row *rw)
{
	static const char nested[] = " (nested call)";
	const part *p = &k->parts[rw->first];
	profdb_str site_str = {NULL, 0};
	char *site = NULL;
	names_buf b;
	if (k->sites && !(site = site_label(k, p->site, &site_str)))
		return NULL;
	if (function_where_shown(p->name, p->file, p->module,
	                         sizeof " at " + site_str.len + sizeof nested, &b)) {
		if (site) {
			names_put(&b, " at ", 4);
			names_put(&b, site, site_str.len);
			names_show(b.p, b.len);
		}
		if (rw->nested)
			names_put(&b, nested, sizeof nested - 1);
	}
	free(site);
	return b.p;
}

/* The rows of section @p s: [*first, *end) of k->rows, and how many of
 * them are shown (-n, --min-percent). */
static size_t section_rows(const calls *k, size_t s, size_t *first, size_t *end)
{
	size_t i = *first = *end;
	for (; i < k->n_rows && k->parts[k->rows[i].first].section == s; i++)
		;
	*end = i;
	size_t shown = 0;
	for (i = *first; i < *end; i++, shown++) {
		double v = k->rows[i].cost[0];
		if (k->o.count && shown == k->o.count)
			break;
		if (k->o.min_percent_given && report_has_percent(&k->rep, 0) &&
		    !(report_percent(&k->rep, 0, v) >= k->o.min_percent))
			break;
	}
	return shown;
}

/* "inclusive 360 (77.42%), exclusive 300" of the first metric. */
static void put_section_values(const calls *k, const section *sec)
{
	char buf[64];
	const char *sep = "";
	if (!isnan(sec->inc[0])) {
		fmt_value(buf, sizeof buf, sec->inc[0], k->o.plain);
		printf(" inclusive %s", buf);
		if (report_has_percent(&k->rep, 0))
			printf(" (%.2f%%)", report_percent(&k->rep, 0, sec->inc[0]));
		sep = ",";
	}
	if (!isnan(sec->exc[0])) {
		fmt_value(buf, sizeof buf, sec->exc[0], k->o.plain);
		printf("%s exclusive %s", sep, buf);
	}
}

typedef struct widths {
	int calls, id, metric[64];
	size_t nm;
} widths;

/* @return 0 or TOOL_OOM. */
static int measure(const calls *k, size_t first, size_t shown, widths *w)
{
	char buf[64];
	w->nm = k->rep.n < 64 ? k->rep.n : 64;   /* more than a terminal holds: cut */
	w->calls = 5;
	w->id = 2;
	for (size_t m = 0; m < w->nm; m++) {
		int cw = report_column_width(&k->rep, m);
		if (cw < 0)
			return TOOL_OOM;
		w->metric[m] = cw < 6 ? 6 : cw;
	}
	for (size_t i = first; i < first + shown; i++) {
		const row *rw = &k->rows[i];
		int l = (int)fmt_value(buf, sizeof buf, (double)rw->count, k->o.plain);
		w->calls = rw->has_count && l > w->calls ? l : w->calls;
		l = snprintf(buf, sizeof buf, "%" PRIu32 "+", k->parts[rw->first].other);
		w->id = l > w->id ? l : w->id;
		for (size_t m = 0; m < w->nm; m++) {
			l = (int)fmt_value(buf, sizeof buf, rw->cost[m], k->o.plain);
			w->metric[m] = l > w->metric[m] ? l : w->metric[m];
		}
	}
	return 0;
}

/* One row; its name shortened to @p width columns unless --wide.
 * @return 0 or TOOL_OOM. */
static int print_row(const calls *k, const row *rw, const widths *w, size_t width,
                     uint32_t *ids)
{
	char buf[64], shortname[1024];
	char *name = row_name(k, rw);
	if (!name)
		return TOOL_OOM;
	if (rw->has_count)
		fmt_value(buf, sizeof buf, (double)rw->count, k->o.plain);
	fmt_put(rw->has_count ? buf : "-", w->calls);
	printf("  ");
	for (size_t m = 0; m < w->nm; m++) {
		fmt_value(buf, sizeof buf, rw->cost[m], k->o.plain);
		fmt_put(buf, w->metric[m]);
		printf("  ");
		if (m == 0 && report_has_percent(&k->rep, 0) && isnan(rw->cost[0]))
			printf("%7s  ", "-");
		else if (m == 0 && report_has_percent(&k->rep, 0))
			printf("%6.2f%%  ", report_percent(&k->rep, 0, rw->cost[0]));
	}
	size_t nids = calls_row_contexts(k, rw, ids);
	snprintf(buf, sizeof buf, "%" PRIu32 "%s", ids[0], nids > 1 ? "+" : "");
	fmt_put(buf, w->id);
	if (!k->o.wide)
		fmt_shorten(name, width, shortname, sizeof shortname);
	printf("  %s\n", k->o.wide ? name : shortname);
	free(name);
	return 0;
}

/* The first line: what is shown, of which function (the query as
 * given), from which profiles. @return 0 or TOOL_OOM. */
static int print_head(const calls *k, const char *dir)
{
	static const char what[] = " of : calls and their inclusive cost, by call site";
	size_t n = strlen(dir) + strlen(k->query) + sizeof what;
	char *head = malloc(n);
	if (!head)
		return TOOL_OOM;
	snprintf(head, n, "%s of %s: calls and their inclusive cost%s", dir, k->query,
	         k->sites ? ", by call site" : "");
	int r = report_describe(&k->rep, head);
	free(head);
	return r < 0 ? TOOL_OOM : 0;
}

/* A section's rows under their column heads. @return 0 or TOOL_OOM. */
static int print_rows(const calls *k, size_t first, size_t end, size_t shown, uint32_t *ids)
{
	widths w;
	if (measure(k, first, shown, &w) < 0)
		return TOOL_OOM;
	int prefix = w.calls + 2 + w.id + 2;
	fmt_put("calls", w.calls);
	printf("  ");
	for (size_t m = 0; m < w.nm; m++) {
		if (report_put_column(&k->rep, m, w.metric[m]) < 0)
			return TOOL_OOM;
		printf("  ");
		prefix += w.metric[m] + 2;
		if (m == 0 && report_has_percent(&k->rep, 0)) {
			printf("%7s  ", "%");
			prefix += 9;
		}
	}
	fmt_put("id", w.id);
	printf("  %s\n", k->callees ? "callee" : "caller");
	size_t width = (size_t)(100 - prefix > 30 ? 100 - prefix : 30);
	for (size_t i = first; i < first + shown; i++)
		if (print_row(k, &k->rows[i], &w, width, ids) < 0)
			return TOOL_OOM;
	if (end - first > shown && (!k->o.count || shown < k->o.count))
		printf("  ... %zu more below %g%%\n", end - first - shown, k->o.min_percent);
	else if (end - first > shown)
		printf("  ... %zu more (-n 0 shows all)\n", end - first - shown);
	return 0;
}

/* One section: its function, its values, its rows. @return 0 or TOOL_OOM. */
static int print_section(const calls *k, size_t s, size_t *first, size_t *end, uint32_t *ids)
{
	const char *dir = k->callees ? "callees" : "callers";
	const section *sec = &k->sec[s];
	size_t shown = section_rows(k, s, first, end);
	names_buf name;
	if (!function_where_shown(sec->name, sec->file, sec->module, 0, &name))
		return TOOL_OOM;
	printf("\n%s of %s", dir, name.p);
	free(name.p);
	if (sec->n_ctx == 1)
		printf(" (context %" PRIu32 "):", sec->ctx[0]);
	else
		printf(" (%zu contexts):", sec->n_ctx);
	put_section_values(k, sec);
	putchar('\n');
	if (*first == *end) {
		printf("  (no %s recorded)\n", dir);
		return 0;
	}
	return print_rows(k, *first, *end, shown, ids);
}

int calls_print_text(const calls *k)
{
	uint32_t *ids = malloc((k->n_parts ? k->n_parts : 1) * sizeof *ids);
	if (!ids)
		return TOOL_OOM;
	int r = print_head(k, k->callees ? "callees" : "callers");
	if (r == 0 && k->fold)
		printf("note: names folded (Callgrind's --separate-callers and recursion suffixes); "
		       "the calls of variants that call one another overlap, so their costs may add "
		       "up to more than the total\n");
	size_t first, end = 0;
	for (size_t s = 0; r == 0 && s < k->n_sec; s++)
		r = print_section(k, s, &first, &end, ids);
	free(ids);
	return r;
}

/* ---- JSON ---------------------------------------------------------------------- */

static void put_json_ids(const uint32_t *ids, size_t n)
{
	printf("[");
	for (size_t i = 0; i < n; i++)
		printf("%s%" PRIu32, i ? ", " : "", ids[i]);
	printf("]");
}

static void put_json_function(profdb_str name, profdb_str file, profdb_str module)
{
	printf("\"name\": ");
	put_json_str(stdout, name);
	printf(", \"file\": ");
	put_json_str(stdout, file);
	printf(", \"module\": ");
	put_json_str(stdout, module);
}

static void put_json_percent(const calls *k, size_t m, double v)
{
	if (report_has_percent(&k->rep, m) && !isnan(v))
		put_json_double(report_percent(&k->rep, m, v));
	else
		printf("null");
}

/* "KEY": [v per metric] (null for NaN), or percentages with @p pct. */
static void put_json_list(const calls *k, const char *key, const double *v, int pct)
{
	printf(", \"%s\": [", key);
	for (size_t m = 0; m < k->rep.n; m++) {
		printf("%s", m ? ", " : "");
		if (pct)
			put_json_percent(k, m, v[m]);
		else
			put_json_value(v[m]);
	}
	printf("]");
}

/* @return 0 or TOOL_OOM. */
static int put_json_row(const calls *k, const row *rw, uint32_t *ids)
{
	const part *p = &k->parts[rw->first];
	printf("{");
	put_json_function(p->name, p->file, p->module);
	printf(", \"contexts\": ");
	put_json_ids(ids, calls_row_contexts(k, rw, ids));
	printf(", \"site\": ");
	if (!k->sites || p->site == PROFDB_NONE) {
		printf("null");
	} else {
		profdb_str label;
		char *buf = site_label(k, p->site, &label);
		if (!buf)
			return TOOL_OOM;
		printf("{\"context\": %" PRIu32 ", \"label\": ", p->site);
		put_json_str(stdout, label);
		printf("}");
		free(buf);
	}
	printf(", \"calls\": ");
	if (rw->has_count)
		printf("%" PRIu64, rw->count);
	else
		printf("null");
	printf(", \"edges\": %zu, \"nested\": %s, \"value\": ", rw->n,
	       rw->nested ? "true" : "false");
	put_json_value(rw->cost[0]);
	printf(", \"percent\": ");
	put_json_percent(k, 0, rw->cost[0]);
	put_json_list(k, "values", rw->cost, 0);
	put_json_list(k, "percents", rw->cost, 1);
	printf("}");
	return 0;
}

static void put_json_section(const calls *k, const section *sec)
{
	put_json_function(sec->name, sec->file, sec->module);
	printf(", \"contexts\": ");
	put_json_ids(sec->ctx, sec->n_ctx);
	printf(", \"inclusive\": ");
	put_json_value(sec->inc[0]);
	printf(", \"exclusive\": ");
	put_json_value(sec->exc[0]);
	printf(", \"percent\": ");
	put_json_percent(k, 0, sec->inc[0]);
	put_json_list(k, "inclusives", sec->inc, 0);
	put_json_list(k, "exclusives", sec->exc, 0);
}

int calls_print_json(const calls *k)
{
	uint32_t *ids = malloc((k->n_parts ? k->n_parts : 1) * sizeof *ids);
	if (!ids || report_describe_json(&k->rep, "profdb-calls/2") < 0) {
		free(ids);
		return TOOL_OOM;
	}
	printf(", \"direction\": \"%s\", \"query\": ", k->callees ? "callees" : "callers");
	put_json_cstr(stdout, k->query);
	printf(", \"by_site\": %s, \"functions\": [", k->sites ? "true" : "false");
	size_t first, end = 0;
	int r = 0;
	for (size_t s = 0; r == 0 && s < k->n_sec; s++) {
		size_t shown = section_rows(k, s, &first, &end);
		printf("%s\n {", s ? "," : "");
		put_json_section(k, &k->sec[s]);
		printf(", \"rows\": [");
		for (size_t i = first; r == 0 && i < first + shown; i++) {
			printf("%s\n  ", i > first ? "," : "");
			r = put_json_row(k, &k->rows[i], ids);
		}
		printf("%s], \"more\": %zu}", shown ? "\n " : "", end - first - shown);
	}
	if (r == 0)
		printf("\n]}\n");
	free(ids);
	return r;
}
