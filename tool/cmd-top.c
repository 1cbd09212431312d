/* profdb top: the hottest contexts or functions.
 *
 * --by context ranks every tree node except synthetic roots by its value.
 * --by function adds up the function contexts (type "function") of each
 * function name: exclusive values add as they are (a function context's
 * exclusive value already covers its loops and lines); inclusive values
 * count a function once per call path, so a context below another context
 * of the same function (recursion) adds nothing, as in hpcviewer's flat
 * view. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

typedef struct row {
	double value;
	uint32_t ctx;       /* context id (by context) */
	char *name;         /* function name (by function), owned */
} row;

static int cmp_row(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	if (x->name && y->name)
		return strcmp(x->name, y->name);
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/* ---- the best N contexts: a heap with the worst kept row at its root ----- */

static void swap_rows(row *a, row *b)
{
	row t = *a;
	*a = *b;
	*b = t;
}

/* Offer @p r to the heap rows[0..*n) of at most @p cap rows. */
static void heap_offer(row *rows, size_t *n, size_t cap, row r)
{
	size_t i;
	if (*n < cap) {
		rows[i = (*n)++] = r;
		while (i > 0 && cmp_row(&rows[(i - 1) / 2], &rows[i]) < 0) {
			swap_rows(&rows[(i - 1) / 2], &rows[i]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (cmp_row(&r, &rows[0]) >= 0)
		return;   /* no better than the worst kept */
	rows[i = 0] = r;
	for (;;) {
		size_t w = i, a = 2 * i + 1, b = a + 1;
		if (a < *n && cmp_row(&rows[a], &rows[w]) > 0)
			w = a;
		if (b < *n && cmp_row(&rows[b], &rows[w]) > 0)
			w = b;
		if (w == i)
			return;
		swap_rows(&rows[i], &rows[w]);
		i = w;
	}
}

/* ---- function names: an open-addressing table of owned strings ---------- */

typedef struct fn_table {
	row *rows;          /* the functions, in first-seen order */
	size_t n, cap;
	uint32_t *slots;    /* index + 1 into rows, 0 empty */
	size_t nslots;
} fn_table;

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603u;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The row of @p name, created if new; NULL when out of memory. */
static row *fn_lookup(fn_table *t, const char *name)
{
	if (2 * (t->n + 1) > t->nslots) {
		size_t ns = t->nslots ? 2 * t->nslots : 256;
		uint32_t *s = calloc(ns, sizeof *s);
		if (!s)
			return NULL;
		for (size_t i = 0; i < t->n; i++) {
			size_t k = hash_name(t->rows[i].name) & (ns - 1);
			while (s[k])
				k = (k + 1) & (ns - 1);
			s[k] = (uint32_t)(i + 1);
		}
		free(t->slots);
		t->slots = s;
		t->nslots = ns;
	}
	size_t k = hash_name(name) & (t->nslots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->nslots - 1))
		if (strcmp(t->rows[t->slots[k] - 1].name, name) == 0)
			return &t->rows[t->slots[k] - 1];
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64;
		row *nr = realloc(t->rows, nc * sizeof *nr);
		if (!nr)
			return NULL;
		t->rows = nr;
		t->cap = nc;
	}
	row *r = &t->rows[t->n];
	if (!(r->name = strdup(name)))
		return NULL;
	r->value = 0;
	r->ctx = PROFDB_NONE;
	t->slots[k] = (uint32_t)++t->n;
	return r;
}

/* ---- the command ---------------------------------------------------------- */

static const char top_usage[] =
	"usage: profdb top [-m METRIC] [-n N] [--inclusive|--exclusive]\n"
	"                  [--by function|context] [--lines] [--profile P] [--json] PATH\n"
	"The hottest contexts (or functions) with their values and percentages of\n"
	"the total (the roots' inclusive value).\n"
	"  -m, --metric M       metric name or id (default: the first inclusive or\n"
	"                       exclusive metric with data; see 'profdb metrics')\n"
	"  -n N                 rows to show (default 20; 0: all)\n"
	"  -i, --inclusive      rank by inclusive values\n"
	"  -e, --exclusive      rank by exclusive values (default)\n"
	"  -b, --by W           'context' (default) or 'function'\n"
	"  -l, --lines          Callgrind: rank source lines and instructions too (they\n"
	"                       are decoded from the text on demand; by default only\n"
	"                       functions are ranked)\n"
	"  -p, --profile P      one profile (default: the summary profile, else the sum\n"
	"                       over all profiles)\n"
	"  --json               one object of schema profdb-top/1\n";

int cmd_top(int argc, char **argv)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profile", required_argument, NULL, 'p'},
		{"inclusive", no_argument, NULL, 'i'}, {"exclusive", no_argument, NULL, 'e'},
		{"by", required_argument, NULL, 'b'}, {"lines", no_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	const char *metric = NULL;
	int64_t profile = -1;
	uint32_t u, count = 20;
	int inclusive = 0, by_function = 0, json = 0, lines = 0, c;
	uint64_t n_functions = 0;   /* function contexts seen (--by function) */
	while ((c = getopt_long(argc, argv, "m:n:p:ieb:ljh", lo, NULL)) != -1) {
		switch (c) {
		case 'm': metric = optarg; break;
		case 'n':
			if (parse_u32(optarg, &count) < 0)
				return tool_usage_error(top_usage);
			break;
		case 'p':
			if (parse_u32(optarg, &u) < 0)
				return tool_usage_error(top_usage);
			profile = u;
			break;
		case 'i': inclusive = 1; break;
		case 'e': inclusive = 0; break;
		case 'b':
			if (strcmp(optarg, "function") == 0)
				by_function = 1;
			else if (strcmp(optarg, "context") == 0)
				by_function = 0;
			else
				return tool_usage_error(top_usage);
			break;
		case 'l': lines = 1; break;
		case 'j': json = 1; break;
		case 'h': fputs(top_usage, stdout); return 0;
		default: return tool_usage_error(top_usage);
		}
	}
	if (optind + 1 != argc)
		return tool_usage_error(top_usage);

	report rep;
	/* Functions carry the self cost of their lines already; counting the
	 * lines would cost a second pass over a Callgrind text. */
	if (!lines)
		tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	int r = report_open(&rep, argv[optind], metric, profile);
	if (r)
		return r;
	/* Rank by what the format can give; say which in the header. */
	if (inclusive && !rep.has_inc)
		inclusive = 0;
	else if (!inclusive && !rep.has_exc)
		inclusive = 1;

	fn_table fns = {0};
	row *rows = NULL;
	size_t nrows = 0, cap = 0;
	const char **stack = NULL;   /* function name at each depth of the path */
	size_t stack_cap = 0;
	tool_walk w;
	profdb_context ctx;
	if ((r = walk_begin(&w, rep.db)) < 0)
		goto fail;
	while ((r = walk_next(&w, &ctx, 0)) > 0) {
		double v;
		if (ctx.depth >= stack_cap) {
			size_t nc = stack_cap ? 2 * stack_cap : 64;
			while (nc <= ctx.depth)
				nc *= 2;
			const char **ns = realloc(stack, nc * sizeof *ns);
			if (!ns)
				goto oom;
			stack = ns;
			stack_cap = nc;
		}
		stack[ctx.depth] = NULL;
		if (ctx.type == PROFDB_CTX_ROOT)
			continue;
		if (by_function && ctx.type != PROFDB_CTX_FUNCTION)
			continue;
		n_functions += by_function;
		if ((r = report_value(&rep, ctx.id, inclusive, &v)) < 0)
			goto fail;
		if (!by_function) {
			if (v == 0)
				continue;
			if (count) {   /* only the best `count` rows are kept */
				if (!rows && !(rows = malloc(count * sizeof *rows)))
					goto oom;
				heap_offer(rows, &nrows, count, (row){v, ctx.id, NULL});
				continue;
			}
			if (nrows == cap) {
				size_t nc = cap ? 2 * cap : 256;
				row *nr = realloc(rows, nc * sizeof *nr);
				if (!nr)
					goto oom;
				rows = nr;
				cap = nc;
			}
			rows[nrows++] = (row){v, ctx.id, NULL};
			continue;
		}
		/* Group by the function's name; nameless ones by their label. */
		char label[512];
		if (ctx.function.len) {
			snprintf(label, sizeof label, "%.*s", (int)ctx.function.len, ctx.function.ptr);
			for (char *p = label; *p; p++)
				if ((unsigned char)*p < 0x20 || *p == 0x7f)
					*p = '?';
		} else {
			ctx.relation = PROFDB_RELATION_CALL;   /* no "[I] " in the key */
			context_label(&ctx, label, sizeof label);
		}
		row *fr = fn_lookup(&fns, label);
		if (!fr)
			goto oom;
		stack[ctx.depth] = fr->name;
		int recursive = 0;
		for (uint32_t d = 0; inclusive && d < ctx.depth && !recursive; d++)
			recursive = stack[d] == fr->name;
		if (!recursive)
			fr->value += v;
	}
	if (r < 0)
		goto fail;
	if (by_function) {
		rows = fns.rows;
		nrows = fns.n;
		fns.rows = NULL;
		if (n_functions == 0)
			fprintf(stderr, "%s top: %s has no function contexts (no function names are "
			        "stored); try --by context\n", tool_prog, argv[optind]);
	}
	if (nrows)   /* qsort(NULL, 0, ...) is undefined */
		qsort(rows, nrows, sizeof *rows, cmp_row);
	if (json) {
		report_describe_json(&rep, "profdb-top/1");
		printf(", \"value\": \"%s\", \"by\": \"%s\", \"rows\": [",
		       inclusive ? "inclusive" : "exclusive", by_function ? "function" : "context");
	} else {
		report_describe(&rep);
		printf("%14s %7s  %s\n", inclusive ? "inclusive" : "exclusive", "%",
		       by_function ? "function" : "context");
	}
	for (size_t i = 0; i < nrows && (count == 0 || i < count); i++) {
		char name[512];
		if (rows[i].value == 0)
			break;
		if (by_function) {
			snprintf(name, sizeof name, "%s", rows[i].name);
		} else if ((r = profdb_context_get(rep.db, rows[i].ctx, &ctx)) < 0) {
			goto fail;
		} else {
			context_label(&ctx, name, sizeof name);
		}
		if (json) {
			printf("%s\n {\"value\": ", i ? "," : "");
			put_json_double(rows[i].value);
			printf(", \"percent\": ");
			put_json_percent(&rep, rows[i].value);
			if (by_function)
				printf(", \"context\": null, \"name\": ");
			else
				printf(", \"context\": %" PRIu32 ", \"name\": ", rows[i].ctx);
			put_json_cstr(stdout, name);
			printf("}");
			continue;
		}
		put_table_value(stdout, rows[i].value, 14);
		put_percent(&rep, rows[i].value);
		printf("  %s\n", name);
	}
	if (json)
		printf("\n]}\n");
	r = 0;
	goto out;
oom:
	tool_progress_done();
	fprintf(stderr, "%s: out of memory\n", tool_prog);
	r = EXIT_INPUT;
	goto out;
fail:
	r = report_fail(&rep);
out:
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].name);
	for (size_t i = 0; fns.rows && i < fns.n; i++)
		free(fns.rows[i].name);
	free(rows);
	free(fns.rows);
	free(fns.slots);
	free(stack);
	report_close(&rep);
	return r;
}
