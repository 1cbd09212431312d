/* profdb callers, profdb callees: the call edges into and out of a function.
 *
 * FUNCTION is a function name, matched exactly against the function
 * contexts' names, then against their folded names (profdb_function_fold: Callgrind's
 * --separate-callers and recursion suffixes), or "#ID", one context. The
 * matched contexts are grouped into one section per function identity
 * (name, file, module): static functions of one name in two files are two
 * sections, as callgrind_annotate shows them; the contexts of one function
 * on many call paths (HPCToolkit, Cube) are one.
 *
 * A row is the edges between the section's contexts and one other
 * function (name, file, module), and with --sites one call site: the
 * edges into its contexts or out of them (profdb_edge_set_new, which
 * reads only what those edges need: a Callgrind caller's text is decoded
 * for its call sites only when it calls the function), the calls summed over
 * the edges (shown only where the format records counts: Callgrind's
 * calls=, Cube's visits), the edges' inclusive cost
 * (profdb_edge_set_inclusive) per metric, combined over the chosen
 * profiles and the edges by the metric's rule. That is callgrind_annotate's --tree=caller /
 * --tree=calling line for Callgrind, except that a call inside one cycle
 * of the call graph (or to the caller itself) is a row of its own with
 * its count and no cost (find_cycles); for the tree formats the callee
 * context's inclusive value, so the rows of a recursive function's callers
 * overlap (an inner call's cost is part of the outer one's), as in
 * hpcviewer's callers view. Printing: tool/calls-print.c. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "names.h"

static int str_eq(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static int str_cmp(profdb_str a, profdb_str b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int cstr_eq(profdb_str a, const char *s)
{
	return str_eq(a, str_of(s));
}

/* ---- finding the function ------------------------------------------------- */

/* Add context @p c to the section of its function identity; @p name is
 * its function name, folded when the query matched folded names. */
static int add_to_section(calls *k, const profdb_context *c, profdb_str name)
{
	section *s = NULL;
	for (size_t i = 0; i < k->n_sec && !s; i++)
		if (str_eq(k->sec[i].name, name) && str_eq(k->sec[i].file, c->file) &&
		    str_eq(k->sec[i].module, c->module))
			s = &k->sec[i];
	if (!s) {
		section *ns = realloc(k->sec, (k->n_sec + 1) * sizeof *ns);
		if (!ns)
			return TOOL_OOM;
		k->sec = ns;
		s = &k->sec[k->n_sec++];
		memset(s, 0, sizeof *s);
		s->name = name;
		s->file = c->file;
		s->module = c->module;
		if (c->type != PROFDB_CTX_FUNCTION || !c->function.len) {
			/* #ID of a root, loop, line: its label names it. */
			profdb_context plain = *c;
			plain.relation = PROFDB_RELATION_CALL;
			if (!(s->label = context_label_bytes_new(&plain, &s->name)))
				return TOOL_OOM;
		}
	}
	uint32_t *nc = realloc(s->ctx, (s->n_ctx + 1) * sizeof *nc);
	if (!nc)
		return TOOL_OOM;
	s->ctx = nc;
	s->ctx[s->n_ctx++] = c->id;   /* the walk is in pre-order: sorted below */
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Up to 5 function names that contain the query, for the error message. */
static void suggest(calls *k)
{
	tool_walk w;
	profdb_context c;
	profdb_str seen[5];
	size_t n = 0;
	if (walk_begin(&w, k->rep.db) < 0)
		return;
	while (n < 5 && walk_next(&w, &c, 0) > 0) {
		if (c.type != PROFDB_CTX_FUNCTION || !c.function.len)
			continue;
		char *shown = malloc(c.function.len + 1);
		if (!shown)
			return;   /* only suggestions */
		names_shown(c.function, shown, c.function.len + 1);
		size_t i = 0;
		while (i < n && !str_eq(seen[i], c.function))
			i++;
		if (i == n && strstr(shown, k->query)) {
			seen[n++] = c.function;
			fprintf(stderr, "%s  %s\n", n == 1 ? "did you mean:\n" : "", shown);
		}
		free(shown);
	}
}

/* Is context @p id in the tree of @p path opened with its line and
 * instruction contexts? Without --sites a Callgrind profile opens without
 * them (PROFDB_OPEN_FUNCTIONS_ONLY), and `top --by line` shows their ids:
 * asked again, quietly, to tell a user who gave one what is missing. */
static int in_tree_with_lines(const char *path, uint32_t id)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = tool_open_flags & ~(uint32_t)PROFDB_OPEN_FUNCTIONS_ONLY;
	profdb *db;
	if (profdb_open(&db, path, &o) < 0)
		return 0;
	profdb_context c;
	int found = profdb_context_get(db, id, &c) == 0 && c.in_tree;
	profdb_close(db);
	return found;
}

/* The sections of the query. @return 0, EXIT_USAGE (message printed), < 0. */
static int find_function(calls *k)
{
	const profdb *db = k->rep.db;
	profdb_context c;
	int r;
	if (k->query[0] == '#') {
		uint32_t id;
		if (parse_u32(k->query + 1, &id) < 0)
			return tool_bad_value("FUNCTION", k->query, "a name or #CONTEXT_ID");
		if ((r = profdb_context_get(db, id, &c)) == -ENOENT || (r == 0 && !c.in_tree)) {
			fprintf(stderr, "%s: %s: no context %" PRIu32 " in the tree%s\n", tool_prog,
			        k->rep.path, id, !k->sites && in_tree_with_lines(k->rep.path, id) ?
			        " (a line or instruction context: --sites reads those)" : "");
			return EXIT_USAGE;
		}
		return r < 0 ? r : add_to_section(k, &c, c.function);
	}
	/* Exact names first; the folded names only when nothing matches. One
	 * walk (a Callgrind tree with lines has millions of contexts): the
	 * folded matches are kept aside by id. */
	uint32_t *folded = NULL;
	size_t n_folded = 0;
	tool_walk w;
	if ((r = walk_begin(&w, db)) < 0)
		return r;
	while ((r = walk_next(&w, &c, 0)) > 0) {
		if (c.type != PROFDB_CTX_FUNCTION)
			continue;
		if (cstr_eq(c.function, k->query)) {
			if ((r = add_to_section(k, &c, c.function)) < 0)
				break;
		} else if (k->n_sec == 0 && cstr_eq(profdb_function_fold(k->rep.db, c.function), k->query)) {
			uint32_t *nf = realloc(folded, (n_folded + 1) * sizeof *nf);
			if (!nf) {
				r = TOOL_OOM;
				break;
			}
			folded = nf;
			folded[n_folded++] = c.id;
		}
	}
	k->fold = r == 0 && k->n_sec == 0 && n_folded > 0;
	for (size_t i = 0; r == 0 && k->fold && i < n_folded; i++) {
		if ((r = profdb_context_get(db, folded[i], &c)) == 0)
			r = add_to_section(k, &c, profdb_function_fold(k->rep.db, c.function));
	}
	free(folded);
	if (r < 0)
		return r;
	if (k->n_sec == 0) {
		fprintf(stderr, "%s: %s: no function named '%s' (or '#ID' for a context)\n",
		        tool_prog, k->rep.path, k->query);
		suggest(k);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < k->n_sec; i++)
		qsort(k->sec[i].ctx, k->sec[i].n_ctx, sizeof *k->sec[i].ctx, cmp_u32);
	return 0;
}

static int in_section(const section *s, uint32_t id)
{
	return s->n_ctx && bsearch(&id, s->ctx, s->n_ctx, sizeof id, cmp_u32) != NULL;
}

/* a combined with b by the rule; NONE keeps a. NaN (no value) gives way. */
static double combine(profdb_combine c, double a, double b)
{
	return profdb_combine_pair(c, a, b);
}

/* The function's own values per metric: the inclusive value of its
 * contexts that are not below another of its contexts (a recursive
 * function counts once per path), the exclusive value of all, combined. */
static int section_values(calls *k, section *s)
{
	const report *rep = &k->rep;
	if (!(s->inc = malloc(rep->n * sizeof *s->inc)) ||
	    !(s->exc = malloc(rep->n * sizeof *s->exc)))
		return TOOL_OOM;
	for (size_t m = 0; m < rep->n; m++)
		s->inc[m] = s->exc[m] = NAN;
	for (size_t i = 0; i < s->n_ctx; i++) {
		profdb_context c;
		int r, nested = 0;
		if ((r = profdb_context_get(rep->db, s->ctx[i], &c)) < 0)
			return r;
		for (uint32_t up = c.parent; up != PROFDB_NONE && !nested; up = c.parent) {
			if ((r = profdb_context_get(rep->db, up, &c)) < 0)
				return r;
			nested = in_section(s, up);
		}
		/* Folded variants (only formats whose names carry suffixes have
		 * them: Callgrind's recursion and --separate-callers contexts) call
		 * one another without being nested in the tree: their inclusive
		 * costs overlap and have no sum. */
		if (k->fold && s->n_ctx > 1)
			nested = 1;
		for (size_t m = 0; m < rep->n; m++) {
			double inc, exc;
			profdb_combine rule = rep->m[m].metric.combine;
			if ((r = report_value(rep, m, s->ctx[i], 1, &inc)) < 0 ||
			    (r = report_value(rep, m, s->ctx[i], 0, &exc)) < 0)
				return r;
			/* Exclusive costs never nest: every context adds its own. */
			s->exc[m] = combine(rule, s->exc[m], exc);
			if (!nested)
				s->inc[m] = combine(rule, s->inc[m], inc);
		}
	}
	return 0;
}

/* ---- the edges -------------------------------------------------------------- */

static int add_part(calls *k, part p)
{
	if (k->n_parts == k->cap_parts) {
		size_t nc = k->cap_parts ? 2 * k->cap_parts : 64;
		part *np = realloc(k->parts, nc * sizeof *np);
		if (!np)
			return TOOL_OOM;
		k->parts = np;
		k->cap_parts = nc;
	}
	k->parts[k->n_parts++] = p;
	return 0;
}

/* Room for one part's costs; @return its index or TOOL_OOM. */
static int64_t new_costs(calls *k)
{
	size_t nm = k->rep.n;
	if (k->n_costs + nm > k->cap_costs) {
		size_t nc = k->cap_costs ? 2 * k->cap_costs : 64 * nm;
		double *n = realloc(k->costs, nc * sizeof *n);
		if (!n)
			return TOOL_OOM;
		k->costs = n;
		k->cap_costs = nc;
	}
	k->n_costs += nm;
	return (int64_t)(k->n_costs - nm);
}

/* Edge @p i's inclusive cost for metric @p m over the report's profiles,
 * combined by the metric's rule, scaled; NaN when it has none there.
 * @return 0 or < 0. */
static int edge_cost(const calls *k, const profdb_edge_set *set, uint64_t i, size_t m,
                     double *out)
{
	const report_metric *rm = &k->rep.m[m];
	profdb_number v;
	int r;
	*out = NAN;
	if (rm->mode != REPORT_SEL) {
		if ((r = profdb_edge_set_inclusive(set, rm->profile, i, rm->metric.id, &v)) < 0)
			return r;
		if (r)
			*out = profdb_number_to_double(v) * rm->scale;
		return 0;
	}
	/* The selection, in ascending profile order, as report_value() does;
	 * profiles without calls take no part. */
	for (size_t p = 0; p < k->rep.n_sel; p++) {
		if ((r = profdb_edge_set_inclusive(set, k->rep.sel[p], i, rm->metric.id, &v)) < 0)
			return r;
		if (r)
			*out = combine(rm->metric.combine, *out, profdb_number_to_double(v));
	}
	*out *= rm->scale;
	return 0;
}

/* The name the other end goes by: its function (an inlined function is
 * its own), else its label (the root, hpcrun's instructions), whole in a
 * new buffer *label (the caller frees it; NULL for a function).
 * @return 0 or TOOL_OOM. */
static int other_name(const calls *k, const profdb_context *c, part *p, char **label)
{
	*label = NULL;
	if (c->type == PROFDB_CTX_FUNCTION && c->function.len) {
		p->name = k->fold ? profdb_function_fold(k->rep.db, c->function) : c->function;
	} else {
		profdb_context plain = *c;
		plain.relation = PROFDB_RELATION_CALL;
		if (!(*label = context_label_bytes_new(&plain, &p->name)))
			return TOOL_OOM;
	}
	p->file = c->file;
	p->module = c->module;
	return 0;
}

/* Labels of nameless ends, kept until the end (p->name points into them). */
typedef struct label_store {
	char **s;
	size_t n;
} label_store;

/* Keep @p label (other_name's) in @p ls, which frees it, also when this
 * fails. @return 0 or TOOL_OOM. */
static int keep_label(label_store *ls, char *label)
{
	char **nl = realloc(ls->s, (ls->n + 1) * sizeof *nl);
	if (!nl) {
		free(label);
		return TOOL_OOM;
	}
	ls->s = nl;
	ls->s[ls->n++] = label;
	return 0;
}

/* Does the other end pass --match / --exclude? 1, 0 or TOOL_OOM. */
static int name_passes(const calls *k, profdb_str name)
{
	if (!filter_any(&k->o.names))
		return 1;
	char *shown = malloc(name.len + 1);
	if (!shown)
		return TOOL_OOM;
	int pass = filter_pass(&k->o.names, names_shown(name, shown, name.len + 1));
	free(shown);
	return pass;
}

/* The cycle of every context that ends an edge (profdb_group_cycles, one
 * group per context): a call between two members of one cycle, or of a
 * function to itself, is nested in an enclosing call of the same cycle,
 * and its cost counts what that call already holds (Callgrind's calls=
 * cost of a recursive call includes the deeper levels again), so its row
 * shows the calls without a cost (doc/TOOL.md, doc/model.md "Combining
 * numbers"). The tree formats have no cycles. @return 0 or < 0. */
static int find_cycles(calls *k)
{
	/* Only a call graph has cycles, between its function contexts. */
	int64_t nf = profdb_graph_function_count(k->rep.db);
	if (nf == -ENOTSUP)
		return 0;
	if (nf < 0)
		return (int)nf;
	size_t n = 0;
	for (int64_t i = 0; i < nf; i++) {
		profdb_graph_function f;
		int r = profdb_graph_function_at(k->rep.db, (uint32_t)i, &f);
		if (r < 0)
			return r;
		if (f.context >= n)
			n = (size_t)f.context + 1;
	}
	uint32_t *group_of = malloc((n + 1) * sizeof *group_of);
	k->cycle_of = malloc((n + 1) * sizeof *k->cycle_of);
	if (!group_of || !k->cycle_of) {
		free(group_of);
		return TOOL_OOM;
	}
	for (size_t i = 0; i < n; i++)
		group_of[i] = (uint32_t)i;
	int64_t nc = n ? profdb_group_cycles(k->rep.db, group_of, n, k->cycle_of, n) : 0;
	free(group_of);
	if (nc < 0)
		return (int)nc;
	k->n_cycle_of = n;
	return 0;
}

static int nested_call(const calls *k, const profdb_edge *e)
{
	if (e->caller == e->callee)
		return 1;
	if (e->caller >= k->n_cycle_of || e->callee >= k->n_cycle_of)
		return 0;
	return k->cycle_of[e->caller] != PROFDB_NONE &&
	       k->cycle_of[e->caller] == k->cycle_of[e->callee];
}

/* One part of edge @p i of @p set for section @p s. @return 0 or < 0. */
static int take_part(calls *k, const profdb_edge_set *set, uint64_t i, const profdb_edge *e,
                     size_t s, label_store *ls)
{
	part p;
	memset(&p, 0, sizeof p);
	p.section = (uint32_t)s;
	p.other = k->callees ? e->callee : e->caller;
	p.caller = e->caller;
	p.callee = e->callee;
	p.site = e->site;
	p.has_count = e->has_count;
	p.count = e->count;
	p.nested = nested_call(k, e);
	profdb_context c;
	int r = profdb_context_get(k->rep.db, p.other, &c);
	if (r < 0)
		return r;
	char *label;
	if ((r = other_name(k, &c, &p, &label)) < 0)
		return r;
	int pass = name_passes(k, p.name);
	if (pass <= 0) {
		free(label);
		return pass;
	}
	int64_t ci = new_costs(k);
	if (ci < 0) {
		free(label);
		return (int)ci;
	}
	p.ci = (size_t)ci;
	int any = 0;
	for (size_t m = 0; r == 0 && m < k->rep.n; m++) {
		r = edge_cost(k, set, i, m, &k->costs[p.ci + m]);
		any |= !isnan(k->costs[p.ci + m]);
	}
	if (r < 0 || !any) {   /* !any: no calls (no value) in the chosen profiles */
		k->n_costs -= k->rep.n;
		free(label);
		return r;
	}
	if (label && (r = keep_label(ls, label)) < 0)
		return r;
	return add_part(k, p);
}

/* The edges of section @p s: into its contexts, or out of them (calls
 * from a function, or from a line or instruction at its site).
 * @return 0 or < 0. */
static int take_section(calls *k, size_t s, label_store *ls)
{
	const section *sec = &k->sec[s];
	profdb_edge_set *set;
	int r = profdb_edge_set_new(&set, k->rep.db, sec->ctx, sec->n_ctx,
	                            k->callees ? PROFDB_EDGES_OUT_OF : PROFDB_EDGES_INTO);
	if (r < 0)
		return r;
	int64_t n = profdb_edge_set_count(set);
	for (int64_t i = 0; r == 0 && i < n; i++) {
		profdb_edge e;
		if ((r = profdb_edge_set_at(set, (uint64_t)i, &e)) == 0)
			r = take_part(k, set, (uint64_t)i, &e, s, ls);
	}
	profdb_edge_set_free(set);
	return r;
}

/* Parts of one row are adjacent after this sort. */
static int row_key_cmp(const calls *k, const part *a, const part *b)
{
	int c = (a->section > b->section) - (a->section < b->section);
	if (!c)
		c = str_cmp(a->name, b->name);
	if (!c)
		c = str_cmp(a->file, b->file);
	if (!c)
		c = str_cmp(a->module, b->module);
	if (!c && k->sites)
		c = (a->site > b->site) - (a->site < b->site);
	if (!c)
		c = a->nested - b->nested;
	return c;
}

static const calls *sort_ctx;

static int cmp_part(const void *a, const void *b)
{
	const part *x = a, *y = b;
	int c = row_key_cmp(sort_ctx, x, y);
	if (!c)
		c = (x->other > y->other) - (x->other < y->other);
	/* then as the edges are ordered (profdb_edge_at) */
	if (!c)
		c = (x->caller > y->caller) - (x->caller < y->caller);
	if (!c)
		c = (x->callee > y->callee) - (x->callee < y->callee);
	if (!c)
		c = (x->site > y->site) - (x->site < y->site);
	return c;
}

/* ---- rows: the parts merged ------------------------------------------------- */

/* By section, then by the first metric's cost, hottest first (a row
 * without a value last), then in name order (the parts' order). */
static int cmp_row(const void *a, const void *b)
{
	const row *x = a, *y = b;
	const part *p = &sort_ctx->parts[x->first], *q = &sort_ctx->parts[y->first];
	if (p->section != q->section)
		return p->section < q->section ? -1 : 1;
	double u = x->cost[0], v = y->cost[0];
	if (isnan(u) != isnan(v))
		return isnan(u) ? 1 : -1;
	if (u != v && !isnan(u))
		return u < v ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Merge the sorted parts into k->rows. @return 0 or TOOL_OOM. */
static int make_rows(calls *k)
{
	size_t nm = k->rep.n, n = 0;
	k->rows = calloc(k->n_parts ? k->n_parts : 1, sizeof *k->rows);
	k->row_costs = malloc((k->n_parts ? k->n_parts : 1) * nm * sizeof *k->row_costs);
	if (!k->rows || !k->row_costs)
		return TOOL_OOM;
	for (size_t i = 0; i < k->n_parts; i++) {
		const part *p = &k->parts[i];
		if (n == 0 || row_key_cmp(k, &k->parts[k->rows[n - 1].first], p) != 0) {
			k->rows[n].first = i;
			k->rows[n].cost = &k->row_costs[n * nm];
			for (size_t m = 0; m < nm; m++)
				k->rows[n].cost[m] = NAN;
			n++;
		}
		row *r = &k->rows[n - 1];
		r->nested = p->nested;
		for (size_t m = 0; m < nm && !p->nested; m++)
			r->cost[m] = combine(k->rep.m[m].metric.combine, r->cost[m], k->costs[p->ci + m]);
		r->n++;
		if (p->has_count) {
			uint64_t s = r->count + p->count;
			r->count = s < r->count ? UINT64_MAX : s;   /* saturate */
			r->has_count = 1;
		}
	}
	k->n_rows = n;
	return 0;
}

size_t calls_row_contexts(const calls *k, const row *rw, uint32_t *ids)
{
	size_t n = 0;
	for (size_t i = 0; i < rw->n; i++)
		ids[n++] = k->parts[rw->first + i].other;
	qsort(ids, n, sizeof *ids, cmp_u32);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || ids[m - 1] != ids[i])
			ids[m++] = ids[i];
	return m;
}

/* ---- the command ------------------------------------------------------------- */

static const char callers_usage[] =
	" [-m METRICS] [-n N] [--sites]\n"
	"                      [--profile P | --profiles SEL] [--min-percent P]\n"
	"                      [--match RE] [--exclude RE] [--raw] [--plain]\n"
	"                      [--wide] [--json] FUNCTION PATH\n"
	"The calls into (callers) or out of (callees) a function: per caller or callee\n"
	"the number of calls where the format records it (Callgrind, Cube visits; '-'\n"
	"otherwise) and the inclusive cost of those calls, hottest first.\n"
	"FUNCTION is a function name (exact; then with Callgrind's ' suffixes folded)\n"
	"or #ID, one context id (the id column of 'profdb tree'). A name that\n"
	"several functions share (static functions in two files) gives one section\n"
	"each.\n"
	"  -m, --metric M       metric name or id, a comma-separated list, or 'all'\n"
	"                       (default: as 'profdb top')\n"
	"  -n N                 rows per function (default 20; 0: all)\n"
	"  -s, --sites          one row per call site, not per function (Callgrind:\n"
	"                       decodes the calling functions' lines)\n"
	"  -p, --profile P      one profile; --profiles SEL: a selection ('rank=0-3')\n"
	"                       (default: the summary profile, else all profiles\n"
	"                       combined by each metric's rule)\n"
	"  --min-percent P      only rows of at least P% of the total\n"
	"  --match RE, --exclude RE  rows whose caller/callee name matches (POSIX ERE)\n"
	"  -r, --raw            hpcrun: stored sample counts, not scaled by the period\n"
	"  --plain              numbers without thousands separators\n"
	"  --wide               names never shortened\n"
	"  --json               one object of schema profdb-calls/2\n"
	"Call counts are summed over all profiles. Percentages (of the program's\n"
	"total) only for metrics that combine by sum.\n";

/* Options; @return 0, -1 (help shown) or EXIT_USAGE. */
static int parse_calls(int argc, char **argv, calls *k)
{
	static const struct option lo[] = {REPORT_LONG_OPTIONS,
		{"sites", no_argument, NULL, 's'}, {0, 0, 0, 0}};
	int c;
	while ((c = tool_getopt(argc, argv, REPORT_SHORT_OPTIONS "s", lo)) != -1) {
		if (c == 's') {
			k->sites = 1;
			continue;
		}
		if (c == 'h') {
			printf("usage: profdb %-7s", argv[0]);
			fputs(callers_usage, stdout);
			return -1;
		}
		if (c == OPT_STAT || c == OPT_FOCUS) {
			fprintf(stderr, "%s: %s: %s does not apply to call edges\n", tool_prog, argv[0],
			        c == OPT_STAT ? "--stat" : "--focus");
			return EXIT_USAGE;
		}
		int r = c == '?' ? 1 : report_option(&k->o, c, optarg);
		if (r == 1)
			return EXIT_USAGE;   /* tool_getopt() said why */
		if (r)
			return r;
	}
	if (optind + 2 != argc)
		return tool_usage_fail(argv[0], "needs FUNCTION and PATH (see 'profdb %s --help')",
		                       argv[0]);
	k->query = argv[optind];
	return 0;
}

static void calls_free(calls *k)
{
	for (size_t i = 0; i < k->n_sec; i++) {
		free(k->sec[i].ctx);
		free(k->sec[i].label);
		free(k->sec[i].inc);
		free(k->sec[i].exc);
	}
	free(k->sec);
	free(k->parts);
	free(k->costs);
	free(k->cycle_of);
	free(k->rows);
	free(k->row_costs);
	filter_free(&k->o.names);
}

static int run_calls(calls *k, label_store *ls)
{
	int r = find_function(k);
	if (r)
		return r;
	for (size_t s = 0; s < k->n_sec; s++)
		if ((r = section_values(k, &k->sec[s])) < 0)
			return r;
	if ((r = find_cycles(k)) < 0)
		return r;
	for (size_t s = 0; s < k->n_sec; s++)
		if ((r = take_section(k, s, ls)) < 0)
			return r;
	sort_ctx = k;
	if (k->n_parts > 1)
		qsort(k->parts, k->n_parts, sizeof *k->parts, cmp_part);
	if ((r = make_rows(k)) < 0)
		return r;
	if (k->n_rows > 1)
		qsort(k->rows, k->n_rows, sizeof *k->rows, cmp_row);
	return k->o.json ? calls_print_json(k) : calls_print_text(k);
}

static int cmd_calls(int argc, char **argv, int callees)
{
	calls k;
	memset(&k, 0, sizeof k);
	report_opts_init(&k.o);
	k.o.inclusive = 1;   /* the default metric: one with inclusive values */
	k.callees = callees;
	int r = parse_calls(argc, argv, &k);
	if (r) {
		filter_free(&k.o.names);
		return r < 0 ? 0 : r;
	}
	/* Function-level edges need no line decoding; call sites do. */
	if (!k.sites)
		tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	if ((r = report_open(&k.rep, argv[optind + 1], &k.o))) {
		filter_free(&k.o.names);
		return r;
	}
	label_store ls = {NULL, 0};
	r = run_calls(&k, &ls);
	if (r < 0)
		r = report_fail(&k.rep, r);
	for (size_t i = 0; i < ls.n; i++)
		free(ls.s[i]);
	free(ls.s);
	calls_free(&k);
	report_close(&k.rep);
	return r;
}

int cmd_callers(int argc, char **argv)
{
	return cmd_calls(argc, argv, 0);
}

int cmd_callees(int argc, char **argv)
{
	return cmd_calls(argc, argv, 1);
}
