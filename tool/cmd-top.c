/* profdb top: the hottest functions, contexts or source lines.
 *
 * The rows of an exclusive ranking never count a cost twice, so their
 * percentages add up to at most 100 % (doc/model.md, "Combining numbers"):
 *  - by function (the default): the function contexts (type "function")
 *    grouped by function name. A function context's exclusive value covers
 *    its loops and lines (HPCToolkit stores it again at them) but not its
 *    calls nor its inlined callees, which are function contexts of their
 *    own; Cube cnodes and Callgrind functions are disjoint already. Code
 *    outside any function context (hpcrun instructions, HPCToolkit
 *    binaries without hpcstruct) is ranked by its innermost contexts,
 *    grouped by label (module + offset), as hpcviewer's flat view shows
 *    such code.
 *  - by context: the contexts with no lexically nested child (a loop, a
 *    line or an instruction of the same code); a context with one has its
 *    cost stored again below it.
 *  - by line (--lines): the line and instruction contexts with no
 *    lexically nested child.
 * Inclusive values nest by nature: by function a function counts once per
 * call path (a context below another context of the same function adds
 * nothing, as in hpcviewer's flat view); by context or line every context
 * of the kind is ranked. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
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

/* ---- ranking ------------------------------------------------------------- */

enum by { BY_FUNCTION, BY_CONTEXT, BY_LINE };
/* The tool's own allocation failed (not an errno from the library). */
#define TOP_OOM (-0x7fff)
static const char *const by_name[] = {"function", "context", "line"};

typedef struct ranking {
	report rep;
	enum by by;
	int inclusive;
	uint32_t count;
	fn_table fns;
	row *rows;
	size_t nrows, cap;
	const char **stack;   /* function name at each depth of the path */
	unsigned char *in_fn; /* at each depth: inside a function's own code */
	size_t stack_cap;
} ranking;

/* Does @p c have a child nested in its code (relation lexical)? Such a
 * context's exclusive cost is stored again at the child. */
static int has_lexical_child(const profdb *db, const profdb_context *c, int *out)
{
	*out = 0;
	for (uint32_t id = c->first_child; id != PROFDB_NONE;) {
		profdb_context k;
		int r = profdb_context_get(db, id, &k);
		if (r < 0)
			return r;
		if (k.relation == PROFDB_RELATION_LEXICAL) {
			*out = 1;
			return 0;
		}
		id = k.next_sibling;
	}
	return 0;
}

/* Keep context row @p v (the best `count` of them, or all). 0 or TOP_OOM. */
static int keep_context(ranking *k, double v, uint32_t id)
{
	if (k->count) {
		if (!k->rows && !(k->rows = malloc(k->count * sizeof *k->rows)))
			return TOP_OOM;
		heap_offer(k->rows, &k->nrows, k->count, (row){v, id, NULL});
		return 0;
	}
	if (k->nrows == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 256;
		row *nr = realloc(k->rows, nc * sizeof *nr);
		if (!nr)
			return TOP_OOM;
		k->rows = nr;
		k->cap = nc;
	}
	k->rows[k->nrows++] = (row){v, id, NULL};
	return 0;
}

/* Add function context @p c's value to its function's row (code outside
 * any function: to its label's row). */
static int add_function(ranking *k, profdb_context *c, double v)
{
	char label[512];
	if (c->function.len && c->type == PROFDB_CTX_FUNCTION) {
		profdb_about about;
		profdb_get_about(k->rep.db, &about);   /* sets the format even on failure */
		names_key(about.format, c, label, sizeof label);
	} else {   /* nameless: grouped by their label */
		c->relation = PROFDB_RELATION_CALL;   /* no "[I] " in the key */
		context_label(c, label, sizeof label);
	}
	row *fr = fn_lookup(&k->fns, label);
	if (!fr)
		return TOP_OOM;
	k->stack[c->depth] = fr->name;
	int recursive = 0;
	for (uint32_t d = 0; k->inclusive && d < c->depth && !recursive; d++)
		recursive = k->stack[d] == fr->name;
	if (recursive)
		return 0;
	/* A function's contexts combine by the metric's rule: Cube's flat
	 * profile takes the minimum of a MINDOUBLE metric over a region's
	 * cnodes. ctx marks the first value. */
	profdb_combine rule = k->rep.combine;
	if (fr->ctx == PROFDB_NONE || rule == PROFDB_COMBINE_SUM || rule == PROFDB_COMBINE_NONE)
		fr->value = fr->ctx == PROFDB_NONE ? v : fr->value + v;
	else if (rule == PROFDB_COMBINE_MIN ? v < fr->value : v > fr->value)
		fr->value = v;
	fr->ctx = 0;
	return 0;
}

/* Is @p c a row of the ranking? */
static int wanted(ranking *k, const profdb_context *c, int *out)
{
	*out = 0;
	if (c->type == PROFDB_CTX_ROOT)
		return 0;
	if (k->by == BY_FUNCTION && (c->type == PROFDB_CTX_FUNCTION || k->in_fn[c->depth])) {
		*out = c->type == PROFDB_CTX_FUNCTION;
		return 0;
	}
	if (k->by == BY_LINE && c->type != PROFDB_CTX_LINE && c->type != PROFDB_CTX_INSTRUCTION)
		return 0;
	if (k->inclusive) {
		*out = 1;
		return 0;
	}
	int nested, r = has_lexical_child(k->rep.db, c, &nested);
	*out = !nested;
	return r;
}

/* One walk over the tree: the rows of the ranking. 0 or < 0. */
static int rank(ranking *k)
{
	tool_walk w;
	profdb_context ctx;
	int r;
	if ((r = walk_begin(&w, k->rep.db)) < 0)
		return r;
	while ((r = walk_next(&w, &ctx, 0)) > 0) {
		if (ctx.depth >= k->stack_cap) {
			size_t nc = k->stack_cap ? 2 * k->stack_cap : 64;
			while (nc <= ctx.depth)
				nc *= 2;
			const char **ns = realloc(k->stack, nc * sizeof *ns);
			if (ns)
				k->stack = ns;
			unsigned char *nf = realloc(k->in_fn, nc);
			if (nf)
				k->in_fn = nf;
			if (!ns || !nf)
				return TOP_OOM;
			k->stack_cap = nc;
		}
		k->stack[ctx.depth] = NULL;
		/* A function's own code: the function, and what is nested in it
		 * (loops, lines); a call or an inlined call starts other code. */
		k->in_fn[ctx.depth] = ctx.type == PROFDB_CTX_FUNCTION ||
			(ctx.depth > 0 && ctx.relation == PROFDB_RELATION_LEXICAL &&
			 k->in_fn[ctx.depth - 1]);
		int want;
		double v;
		if ((r = wanted(k, &ctx, &want)) < 0)
			return r;
		if (!want)
			continue;
		if ((r = report_value(&k->rep, ctx.id, k->inclusive, &v)) < 0)
			return r;
		if (k->by == BY_FUNCTION) {
			r = add_function(k, &ctx, v);
		} else if (v != 0) {
			r = keep_context(k, v, ctx.id);
		}
		if (r < 0)
			return r;
	}
	if (r == 0 && k->by == BY_FUNCTION) {
		k->rows = k->fns.rows;
		k->nrows = k->fns.n;
		k->fns.rows = NULL;
		k->fns.n = 0;
	}
	return r;
}

/* Print the rows, hottest first. 0 or < 0. */
static int print_rows(ranking *k, int json)
{
	report *rep = &k->rep;
	if (json) {
		report_describe_json(rep, "profdb-top/2");
		printf(", \"value\": \"%s\", \"by\": \"%s\", \"rows\": [",
		       k->inclusive ? "inclusive" : "exclusive", by_name[k->by]);
	} else {
		report_describe(rep);
		printf("%14s %7s  %s\n", k->inclusive ? "inclusive" : "exclusive", "%",
		       by_name[k->by]);
	}
	for (size_t i = 0; i < k->nrows && (k->count == 0 || i < k->count); i++) {
		char name[512];
		profdb_context ctx;
		int r;
		if (k->rows[i].value == 0)
			break;
		if (k->by == BY_FUNCTION)
			snprintf(name, sizeof name, "%s", k->rows[i].name);
		else if ((r = profdb_context_get(rep->db, k->rows[i].ctx, &ctx)) < 0)
			return r;
		else
			context_label(&ctx, name, sizeof name);
		if (json) {
			printf("%s\n {\"value\": ", i ? "," : "");
			put_json_double(k->rows[i].value);
			printf(", \"percent\": ");
			put_json_percent(rep, k->rows[i].value);
			if (k->by == BY_FUNCTION)
				printf(", \"context\": null, \"name\": ");
			else
				printf(", \"context\": %" PRIu32 ", \"name\": ", k->rows[i].ctx);
			put_json_cstr(stdout, name);
			printf("}");
			continue;
		}
		put_table_value(stdout, k->rows[i].value, 14);
		put_percent(rep, k->rows[i].value);
		printf("  %s\n", name);
	}
	if (json)
		printf("\n]}\n");
	return 0;
}

static void ranking_free(ranking *k)
{
	for (size_t i = 0; i < k->nrows; i++)
		free(k->rows[i].name);
	for (size_t i = 0; k->fns.rows && i < k->fns.n; i++)
		free(k->fns.rows[i].name);
	free(k->rows);
	free(k->fns.rows);
	free(k->fns.slots);
	free(k->stack);
	free(k->in_fn);
}

/* ---- the command ---------------------------------------------------------- */

static const char top_usage[] =
	"usage: profdb top [-m METRIC] [-n N] [--inclusive|--exclusive]\n"
	"                  [--by function|context|line] [--lines] [--profile P] [--raw]\n"
	"                  [--json] PATH\n"
	"The hottest functions (or contexts, or source lines) with their values and\n"
	"percentages of the total (the roots' inclusive value). No cost is counted in\n"
	"two rows, so the percentages of an exclusive ranking add up to 100 % at most.\n"
	"  -m, --metric M       metric name or id (default: the first inclusive or\n"
	"                       exclusive metric with a non-zero value; see\n"
	"                       'profdb metrics')\n"
	"  -n N                 rows to show (default 20; 0: all)\n"
	"  -i, --inclusive      rank by inclusive values\n"
	"  -e, --exclusive      rank by exclusive values (default)\n"
	"  -b, --by W           'function' (default; code outside any function by its\n"
	"                       module and offset), 'context' (contexts with no nested\n"
	"                       loop or line) or 'line' (source lines and instructions)\n"
	"  -l, --lines          the same as --by line (Callgrind decodes the lines from\n"
	"                       the text on demand)\n"
	"  -p, --profile P      one profile (default: the summary profile, else all\n"
	"                       profiles combined by the metric's rule: sum, min, max)\n"
	"  -r, --raw            hpcrun: the stored sample counts, not the values times\n"
	"                       the sampling period that hpcprof shows\n"
	"  --json               one object of schema profdb-top/2\n"
	"Percentages are shown only for metrics that combine by sum.\n";

/* Options into @p k; @return 0, -1 (help shown) or EXIT_USAGE. */
static int parse_top(int argc, char **argv, ranking *k, const char **metric, int64_t *profile,
                     int *json, int *by_given)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profile", required_argument, NULL, 'p'},
		{"inclusive", no_argument, NULL, 'i'}, {"exclusive", no_argument, NULL, 'e'},
		{"by", required_argument, NULL, 'b'}, {"lines", no_argument, NULL, 'l'},
		{"raw", no_argument, NULL, 'r'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	uint32_t u;
	int c;
	while ((c = getopt_long(argc, argv, "m:n:p:ieb:lrjh", lo, NULL)) != -1) {
		switch (c) {
		case 'm': *metric = optarg; break;
		case 'n':
			if (parse_u32(optarg, &k->count) < 0)
				return tool_usage_error(top_usage);
			break;
		case 'p':
			if (parse_u32(optarg, &u) < 0)
				return tool_usage_error(top_usage);
			*profile = u;
			break;
		case 'i': k->inclusive = 1; break;
		case 'e': k->inclusive = 0; break;
		case 'b':
			if (strcmp(optarg, "function") == 0)
				k->by = BY_FUNCTION;
			else if (strcmp(optarg, "context") == 0)
				k->by = BY_CONTEXT;
			else if (strcmp(optarg, "line") == 0)
				k->by = BY_LINE;
			else
				return tool_usage_error(top_usage);
			*by_given = 1;
			break;
		case 'l': k->by = BY_LINE; *by_given = 1; break;
		case 'r': report_raw = 1; break;
		case 'j': *json = 1; break;
		case 'h': fputs(top_usage, stdout); return -1;
		default: return tool_usage_error(top_usage);
		}
	}
	return optind + 1 != argc ? tool_usage_error(top_usage) : 0;
}

int cmd_top(int argc, char **argv)
{
	ranking k;
	memset(&k, 0, sizeof k);
	k.count = 20;
	k.by = BY_FUNCTION;
	const char *metric = NULL;
	int64_t profile = -1;
	int json = 0, by_given = 0;
	int r = parse_top(argc, argv, &k, &metric, &profile, &json, &by_given);
	if (r)
		return r < 0 ? 0 : r;
	/* Functions carry the self cost of their lines already; counting the
	 * lines would cost a second pass over a Callgrind text. */
	if (k.by != BY_LINE)
		tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	if ((r = report_open(&k.rep, argv[optind], metric, profile)))
		return r;
	/* Rank by what the format can give; say which in the header. */
	if (k.inclusive && !k.rep.has_inc)
		k.inclusive = 0;
	else if (!k.inclusive && !k.rep.has_exc)
		k.inclusive = 1;
	/* A value that does not combine (a ratio, a mean) means nothing added
	 * up over a function's contexts: rank the contexts themselves. */
	if (k.rep.combine == PROFDB_COMBINE_NONE && k.by == BY_FUNCTION && !by_given)
		k.by = BY_CONTEXT;
	r = rank(&k);
	if (r == 0 && k.nrows)   /* qsort(NULL, 0, ...) is undefined */
		qsort(k.rows, k.nrows, sizeof *k.rows, cmp_row);
	if (r == 0)
		r = print_rows(&k, json);
	if (r == TOP_OOM) {
		tool_progress_done();
		fprintf(stderr, "%s: out of memory\n", tool_prog);
		r = EXIT_INPUT;
	} else if (r < 0) {
		r = report_fail(&k.rep);
	}
	ranking_free(&k);
	report_close(&k.rep);
	return r;
}
