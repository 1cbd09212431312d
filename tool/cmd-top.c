/* profdb top: the hottest functions, contexts, files, modules, lines or
 * loops, with one or several metrics side by side.
 *
 * The rows of an exclusive ranking never count a cost twice, so their
 * percentages add up to at most 100 % (doc/model.md, "Combining numbers"):
 *  - by function (the default): the function contexts (type "function")
 *    grouped by function identity (profdb_function_identity(): module,
 *    file and the name with Callgrind's separate-callers and recursion
 *    suffixes folded, profdb_function_fold()). A row shows the folded
 *    name; where two functions would show the same one, both show "name
 *    (file) [module]", and " #<first context>" after it where those are
 *    alike still (group_tell_namesakes, over every group whatever -n
 *    shows); --match/--exclude test the name as shown without a
 *    namesake's " (file) [module]". A function
 *    context's exclusive value covers its loops and lines (HPCToolkit
 *    stores it again at them) but not its calls nor its inlined callees,
 *    which are function contexts of their own; Cube cnodes and Callgrind
 *    functions are disjoint already.
 *    Code outside any function context (hpcrun instructions, HPCToolkit
 *    binaries without hpcstruct) is ranked by its innermost contexts,
 *    grouped by label (module + offset), as hpcviewer's flat view shows
 *    such code.
 *  - by context: the contexts with no lexically nested child (a loop, a
 *    line or an instruction of the same code); a context with one has its
 *    cost stored again below it.
 *  - by file, by module: those same contexts grouped by their source file
 *    or load module (inherited from the nearest enclosing context that
 *    names one).
 *  - by line (--lines): the line and instruction contexts with no
 *    lexically nested child; Callgrind's "???:0" rows (no file, line 0)
 *    only with --unknown-lines (top-lines.c: the note that counts them,
 *    and the ranking of a call graph's lines without a walk).
 *  - by loop: the loop contexts, each with its own value (nested loops
 *    overlap).
 * Inclusive values nest by nature: by function a group's inclusive value
 * is profdb_group_inclusive's (its members' exclusive values and the calls
 * leaving the group: a function counts once per call path, as in
 * hpcviewer's flat view, and "f'2" adds nothing to "f"); by context, line or loop every
 * context of the kind is ranked; by file and module there is no inclusive
 * ranking. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "names.h"
#include "report.h"
#include "top.h"

/* ---- ranking ------------------------------------------------------------- */

static const char *const by_name[] = {"function", "context", "file", "module", "line", "loop"};
static const char *const by_plural[] = {"functions", "contexts", "files", "modules", "lines",
                                        "loops"};

/* Does @p c have a child nested in its code (relation lexical)? Such a
 * context's exclusive cost is stored again at the child. The first child
 * is the node @p w has read ahead, mostly: not asked for twice. */
static int has_lexical_child(const profdb *db, const tool_walk *w, const profdb_context *c,
                             int *out)
{
	*out = 0;
	for (uint32_t id = c->first_child; id != PROFDB_NONE;) {
		profdb_context got;
		const profdb_context *k = w ? walk_peek(w, id) : NULL;
		if (!k) {
			int r = profdb_context_get(db, id, &got);
			if (r < 0)
				return r;
			k = &got;
		}
		if (k->relation == PROFDB_RELATION_LEXICAL) {
			*out = 1;
			return 0;
		}
		id = k->next_sibling;
	}
	return 0;
}

/* The label of context @p c into @p l: its name parts, for the types
 * whose context is dear to read again; else none (text 0: the printer
 * reads the context again). */
static int make_label(ranking *k, const profdb_context *c, row_label *l)
{
	profdb_str text = c->type == PROFDB_CTX_LINE ? c->file
	                  : c->has_offset ? c->module : c->function;
	*l = (row_label){0, 0};
	if ((c->type != PROFDB_CTX_LINE && c->type != PROFDB_CTX_INSTRUCTION) ||
	    text.len > UINT32_MAX)
		return 0;
	int line = c->type == PROFDB_CTX_LINE;
	uint64_t num = line ? c->line : c->offset;
	label_text x = {text.ptr, (uint32_t)text.len, (unsigned char)c->type,
	                !line && c->has_offset, (uint32_t)(num >> 32)};
	if (!(l->text = label_text_find(&k->texts, &x)))
		return TOOL_OOM;
	l->num_lo = (uint32_t)num;
	return 0;
}

/* Every context row is kept (-n 0, or keep_every): compact, the values
 * in k->tmp. */
static int keep_all(ranking *k, const profdb_context *c)
{
	size_t n = k->rep.n;
	if (k->nrows == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 256;
		if (nc > UINT32_MAX || nc > SIZE_MAX / (n * sizeof *k->vals))
			return TOOL_OOM;
		sort_key *nk = realloc(k->keys, nc * sizeof *nk);
		if (!nk)
			return TOOL_OOM;
		k->keys = nk;
		row_label *nl = realloc(k->labels, nc * sizeof *nl);
		if (!nl)
			return TOOL_OOM;
		k->labels = nl;
		if (n > 1) {   /* one metric: its value is the key's */
			double *nv = realloc(k->vals, nc * n * sizeof *nv);
			if (!nv)
				return TOOL_OOM;
			k->vals = nv;
		}
		k->cap = nc;
	}
	size_t at = k->nrows;
	if (make_label(k, c, &k->labels[at]) < 0)
		return TOOL_OOM;
	if (n > 1)
		memcpy(k->vals + at * n, k->tmp, n * sizeof *k->vals);
	k->keys[k->nrows++] = (sort_key){descending_bits(k->tmp[0]), c->id, (uint32_t)at};
	k->all = 1;
	return 0;
}

/* Room in the heap of the best -n rows for one more: it grows as rows
 * come, up to the count (a large -n takes no memory it does not use). */
static int grow_heap(ranking *k)
{
	if (k->nrows < k->cap)
		return 0;
	size_t nc = k->cap ? 2 * k->cap : 256;
	if (nc > k->o.count)
		nc = (size_t)k->o.count;
	if (nc > SIZE_MAX / sizeof *k->rows)
		return TOOL_OOM;
	row *nr = realloc(k->rows, nc * sizeof *nr);
	if (!nr)
		return TOOL_OOM;
	k->rows = nr;
	k->cap = nc;
	return 0;
}

/* Keep context row @p c with the values in k->tmp: the best `count` in a
 * heap, or all when the count is 0; @p hidden: among the hidden rows
 * (hidden_keep). With --min-percent, a row below it is not kept: it could
 * never be shown (percent_cuts). */
static int keep_context(ranking *k, const profdb_context *c, int hidden)
{
	if (k->o.min_percent_given && !k->keep_every) {
		if (isnan(k->tmp[0]))
			return TOP_AGAIN;
		if (k->cut && report_percent(&k->rep, 0, k->tmp[0]) < k->o.min_percent)
			return 0;
	}
	if (hidden)
		return hidden_keep(k, c->id, k->tmp[0]);
	if (!k->o.count || k->keep_every)
		return keep_all(k, c);
	row r = {k->tmp[0], NULL, c->id, 1, NULL, 0, 1, 0};
	/* a full heap takes no row that is no better than its worst: most
	 * of millions of lines are not copied at all */
	int full = k->nrows == k->o.count;
	if (full && cmp_row(&r, &k->rows[0]) >= 0)
		return 0;
	if (!full && grow_heap(k) < 0)
		return TOOL_OOM;
	row_label l;
	if (make_label(k, c, &l) < 0)
		return TOOL_OOM;
	if (l.text) {   /* the row a full heap gives up is its root: its label is free */
		r.label = full ? k->rows[0].label : 0;
		if (!r.label) {
			if (k->nlabels == k->cap_labels) {
				size_t nc = k->cap_labels ? 2 * k->cap_labels : 256;
				row_label *nl = nc < UINT32_MAX ? realloc(k->labels, nc * sizeof *nl) : NULL;
				if (!nl)
					return TOOL_OOM;
				k->labels = nl;
				k->cap_labels = nc;
			}
			r.label = (uint32_t)++k->nlabels;
		}
		k->labels[r.label - 1] = l;
	}
	if (!(r.v = malloc(k->rep.n * sizeof *r.v)))
		return TOOL_OOM;
	memcpy(r.v, k->tmp, k->rep.n * sizeof *r.v);
	free(heap_offer(k->rows, &k->nrows, k->o.count, r));
	return 0;
}

/* The group key of context @p c: its function (folded), file or module,
 * its bytes as stored; @return its length. A named function's identity
 * besides the key into *id (with its folded name, which is dropped when
 * it is the key). */
static size_t group_key(ranking *k, profdb_context *c, group_ident *id, char *key, size_t n)
{
	profdb_str s = k->by == BY_FILE ? k->file_at[c->depth] : k->module_at[c->depth];
	names_buf b = {key, n, 0};
	*id = (group_ident){{NULL, 0}, {NULL, 0}, {NULL, 0}, 0, 0};
	key[0] = '\0';
	if (k->by == BY_FUNCTION && c->function.len && c->type == PROFDB_CTX_FUNCTION) {
		/* profdb_function_identity()'s: the context's own file and module */
		profdb_str fold = profdb_function_fold(k->rep.db, c->function);
		*id = (group_ident){fold, c->file, c->module, 1, 0};
		return names_function(fold, c->module, key, n);
	}
	if (k->by == BY_FUNCTION) {   /* nameless: grouped by their label */
		c->relation = PROFDB_RELATION_CALL;   /* no "[I] " in the key */
		return context_label_bytes(c, key, n);
	}
	names_put_str(&b, s.len ? s : str_of(k->by == BY_FILE ? "<unknown file>"
	                                                       : "<unknown module>"));
	return b.len;
}

/* Room in k->group_of for context id @p id (ids need not be dense). */
static int grow_group_of(ranking *k, uint32_t id)
{
	size_t n = k->n_contexts;
	while (n <= id)
		n = n < 1024 ? 1024 : 2 * n;
	uint32_t *g = realloc(k->group_of, n * sizeof *g);
	if (!g)
		return TOOL_OOM;
	for (size_t i = k->n_contexts; i < n; i++)
		g[i] = PROFDB_NONE;
	k->group_of = g;
	k->n_contexts = n;
	return 0;
}

/* Add context @p c's values (k->tmp) to its group's row. */
static int add_to_group(ranking *k, profdb_context *c)
{
	char local[1024];
	int created;
	/* a key is never cut: a long name gets a buffer of its size */
	size_t need = context_label_size(c) + k->file_at[c->depth].len + k->module_at[c->depth].len;
	char *key = need <= sizeof local ? local : malloc(need);
	if (!key)
		return TOOL_OOM;
	group_ident id;
	size_t len = group_key(k, c, &id, key, need);
	if (id.fold.ptr && id.fold.len == len && memcmp(id.fold.ptr, key, len) == 0)
		id.fold = (profdb_str){NULL, 0};
	ptrdiff_t g = group_lookup(&k->groups, key, len, &id, 0, &created);
	if (g >= 0 && created) {   /* (the table has its copy of the key) */
		names_show(key, len);
		k->groups.rows[g].pass = filter_pass(&k->o.names, key);
	}
	if (key != local)
		free(key);
	if (g < 0)
		return TOOL_OOM;
	if (k->group_of) {
		if (c->id >= k->n_contexts && grow_group_of(k, c->id) < 0)
			return TOOL_OOM;
		k->group_of[c->id] = (uint32_t)g;
		group_member(&k->groups, (size_t)g, c->id);
		return 0;
	}
	if (k->by == BY_FUNCTION) {
		k->stack[c->depth] = (uint32_t)g + 1;
		for (uint32_t d = 0; k->o.inclusive && d < c->depth; d++)
			if (k->stack[d] == (uint32_t)g + 1)
				return 0;   /* recursion: counted at the outer call */
	}
	group_add(&k->groups, (size_t)g, &k->rep, k->tmp, c->id);
	return 0;
}

/* Callgrind's "???:0": a line whose file is unknown and line 0. */
static int unknown_line(const ranking *k, const profdb_context *c)
{
	profdb_str f = k->file_at[c->depth];
	return c->type == PROFDB_CTX_LINE && c->line == 0 &&
	       (f.len == 0 || (f.len == 3 && memcmp(f.ptr, "???", 3) == 0));
}

/* Is @p c a row (or part of a group) of the ranking? *out: 0 no, 1 yes,
 * HIDDEN_ROW a "???:0" line, hidden unless --unknown-lines. */
enum { HIDDEN_ROW = 2 };
static int wanted(ranking *k, const profdb_context *c, int *out)
{
	*out = 0;
	if (c->type == PROFDB_CTX_ROOT)
		return 0;
	switch (k->by) {
	case BY_FUNCTION:
		if (c->type == PROFDB_CTX_FUNCTION || k->in_fn[c->depth]) {
			*out = c->type == PROFDB_CTX_FUNCTION;
			return 0;
		}
		break;
	case BY_LOOP:
		*out = c->type == PROFDB_CTX_LOOP;
		return 0;
	case BY_LINE:
		if (c->type != PROFDB_CTX_LINE && c->type != PROFDB_CTX_INSTRUCTION)
			return 0;
		if (!k->unknown_lines && unknown_line(k, c)) {
			*out = HIDDEN_ROW;
			return 0;
		}
		break;
	default:
		break;
	}
	if (k->o.inclusive) {
		*out = 1;
		return 0;
	}
	int nested, r = has_lexical_child(k->rep.db, k->walk, c, &nested);
	*out = !nested;
	return r;
}

int ranking_push_path(ranking *k, const profdb_context *c)
{
	if (c->depth >= k->stack_cap) {
		size_t nc = k->stack_cap ? 2 * k->stack_cap : 64;
		while (nc <= c->depth)
			nc *= 2;
		uint32_t *ns = realloc(k->stack, nc * sizeof *ns);
		if (ns)
			k->stack = ns;
		unsigned char *nf = realloc(k->in_fn, nc);
		if (nf)
			k->in_fn = nf;
		profdb_str *fa = realloc(k->file_at, nc * sizeof *fa);
		if (fa)
			k->file_at = fa;
		profdb_str *ma = realloc(k->module_at, nc * sizeof *ma);
		if (ma)
			k->module_at = ma;
		if (!ns || !nf || !fa || !ma)
			return TOOL_OOM;
		k->stack_cap = nc;
	}
	uint32_t d = c->depth;
	k->stack[d] = 0;
	/* A function's own code: the function, and what is nested in it
	 * (loops, lines); a call or an inlined call starts other code. */
	k->in_fn[d] = c->type == PROFDB_CTX_FUNCTION ||
		(d > 0 && c->relation == PROFDB_RELATION_LEXICAL && k->in_fn[d - 1]);
	k->file_at[d] = c->file.len || d == 0 ? c->file : k->file_at[d - 1];
	k->module_at[d] = c->module.len || d == 0 ? c->module : k->module_at[d - 1];
	return 0;
}

int ranking_visit(ranking *k, profdb_context *ctx)
{
	int want, r;
	if ((r = ranking_push_path(k, ctx)) < 0 || (r = wanted(k, ctx, &want)) < 0 || !want)
		return r;
	if (k->group_of)
		return add_to_group(k, ctx);
	for (size_t m = 0; m < k->rep.n; m++)
		if ((r = report_value(&k->rep, m, ctx->id, k->o.inclusive, &k->tmp[m])) < 0)
			return r;
	if (k->by == BY_FUNCTION || k->by == BY_FILE || k->by == BY_MODULE)
		return add_to_group(k, ctx);
	if (k->tmp[0] == 0)
		return 0;
	if (filter_any(&k->o.names)) {
		char *name = context_label_new(ctx);
		if (!name)
			return TOOL_OOM;
		int pass = filter_pass(&k->o.names, name);
		free(name);
		if (!pass)
			return 0;
	}
	return keep_context(k, ctx, want == HIDDEN_ROW);
}

/* One walk over the tree (or --focus's subtree). 0 or < 0. */
static int walk_tree(ranking *k)
{
	tool_walk w;
	profdb_context ctx;
	int r, inside = k->o.focus < 0;
	uint32_t focus_depth = 0;
	if ((r = walk_begin(&w, k->rep.db)) < 0)
		return r;
	k->walk = &w;
	while ((r = walk_next(&w, &ctx, 0)) > 0) {
		if (k->o.focus >= 0) {
			if (inside && ctx.depth <= focus_depth)
				break;   /* past the focus's subtree */
			if (ctx.id == (uint32_t)k->o.focus) {
				inside = 1;
				focus_depth = ctx.depth;
			}
		}
		if (!inside) {
			r = ranking_push_path(k, &ctx);
		} else {
			r = ranking_visit(k, &ctx);
		}
		if (r < 0)
			break;
	}
	k->walk = NULL;
	return r;
}

/* By function, inclusive, the groups' values are the library's
 * (profdb_group_inclusive): the walk only places each context in its
 * group (with --focus, those of the subtree). Not for statistics nor a
 * metric that is not summed, which keep the walk's rule: a function
 * context below another of its group adds nothing. 0 or < 0. */
static int start_group_inclusive(ranking *k)
{
	/* the count only where it is used: on Callgrind with line contexts
	 * it decodes every function */
	if (k->by != BY_FUNCTION || !k->o.inclusive)
		return 0;
	int64_t n = profdb_context_count(k->rep.db);
	if (n <= 0 || !group_inclusive_possible(&k->rep))
		return 0;
	if (!(k->group_of = malloc((size_t)n * sizeof *k->group_of)))
		return TOOL_OOM;
	for (int64_t i = 0; i < n; i++)
		k->group_of[i] = PROFDB_NONE;
	k->n_contexts = (size_t)n;
	return 0;
}

/* Can rows below --min-percent be left out as they come? The rows are
 * shown in descending order of their first value, the one the percentage
 * is of, and the first row below the percentage ends them (shown_rows).
 * Over a finite total above 0 the percentage never decreases with the
 * value, so the rows below it all come after the rows shown. Over a
 * total below 0 it is the other way round, and without a percentage
 * nothing is cut. A NaN value has no place in that order: with it the
 * rows are those of a ranking that keeps every row and cuts after
 * sorting (keep_every). */
static int percent_cuts(const ranking *k)
{
	double total = k->rep.m[0].total;
	return k->o.min_percent_given && report_has_percent(&k->rep, 0) && total > 0 &&
	       isfinite(total);
}

/* The context rows kept so far are dropped (a ranking starts again). */
static void drop_context_rows(ranking *k)
{
	if (!k->grouped && !k->all) {   /* else the rows are the group table's */
		for (size_t i = 0; i < k->nrows; i++)
			free(k->rows[i].v);
	}
	if (!k->grouped)
		free(k->rows);
	free(k->keys);
	free(k->vals);
	free(k->labels);
	label_texts_free(&k->texts);
	k->rows = NULL;
	k->keys = NULL;
	k->vals = NULL;
	k->labels = NULL;
	memset(&k->texts, 0, sizeof k->texts);
	k->nrows = k->cap = k->nlabels = k->cap_labels = 0;
	k->all = 0;
	free(k->hidden);
	k->hidden = NULL;
	k->n_hidden = k->cap_hidden = 0;
}

/* The groups become the rows: those with a value and a passing name. With
 * -n only the best N are kept, in a heap, so that 80,000 Callgrind
 * functions are not all sorted; with --min-percent not those below it
 * (percent_cuts), unless a value is NaN: then every row, as the cut after
 * sorting needs. */
static void group_rows_kept(ranking *k)
{
	group_table *t = &k->groups;
	int nan = 0, cut = k->cut;
	group_rows(t);
	for (size_t i = 0; k->o.min_percent_given && i < t->n; i++)
		nan |= t->rows[i].pass && isnan(t->rows[i].v[0]);
	size_t n = 0, cap = nan ? 0 : (size_t)k->o.count;
	for (size_t i = 0; i < t->n; i++) {
		row g = t->rows[i];
		g.key = g.v[0];
		if (g.key == 0 || !g.pass ||
		    (cut && !nan && report_percent(&k->rep, 0, g.key) < k->o.min_percent))
			continue;
		if (cap)
			heap_offer(t->rows, &n, cap, g);
		else
			t->rows[n++] = g;
	}
	/* the rows are the table's first n (their values and names stay in
	 * the table) */
	free(k->rows);
	k->rows = t->rows;
	k->nrows = n;
	k->grouped = 1;
}

/* The rows of the ranking: the walk, or for the functions of a call graph
 * (Callgrind) their table (top-graph.c: the same rows, without a walk of
 * the tree). 0 or < 0. */
static int rank(ranking *k)
{
	int r;
	if (!(k->tmp = calloc(k->rep.n, sizeof *k->tmp)))
		return TOOL_OOM;
	k->groups.nv = k->rep.n;
	k->cut = percent_cuts(k);
	if ((r = start_group_inclusive(k)) < 0)
		return r;
	r = rank_graph(k);
	if (r == 0)
		r = rank_lines(k);
	if (r == 0)
		r = walk_tree(k);
	else if (r > 0)
		r = 0;   /* the graph's groups or the lines' rows are made */
	if (r == TOP_AGAIN) {   /* a NaN value (percent_cuts) */
		drop_context_rows(k);
		k->keep_every = 1;
		r = walk_tree(k);
	}
	if (r == 0 && k->by == BY_FUNCTION)
		r = group_tell_namesakes(&k->groups);
	if (r == 0 && k->group_of)
		r = group_inclusive(&k->groups, &k->rep, k->group_of, k->n_contexts);
	if (r == 0 && k->group_of)
		r = group_cycles(&k->groups, &k->rep, k->group_of, k->n_contexts);
	if (r < 0)
		return r;
	if (k->by == BY_FUNCTION || k->by == BY_FILE || k->by == BY_MODULE)
		group_rows_kept(k);
	return 0;
}

/* ---- printing ----------------------------------------------------------- */

/* Sorted row @p i: k->rows[i], or made from the compact rows (the value
 * of a single metric in @p one). */
row ranking_row_at(const ranking *k, size_t i, double *one)
{
	if (!k->all)
		return k->rows[i];
	const sort_key *s = &k->keys[i];
	row r = {from_descending_bits(s->key), one, s->ctx, 1, NULL, 0, 1, s->at + 1};
	if (k->rep.n > 1)
		r.v = k->vals + (size_t)s->at * k->rep.n;
	else
		*one = r.key;
	return r;
}

/* Row @p r's whole name, its bytes as stored (*len of them, and a NUL):
 * in @p local (@p n bytes) when it fits, else in a new buffer; *out is one
 * or the other (the caller frees it when it is not @p local). */
static int row_name(const ranking *k, const row *r, char *local, size_t n, char **out,
                    size_t *len)
{
	profdb_context ctx;
	int e;
	if (r->name) {
		*out = r->name_len < n ? local : malloc(r->name_len + 1);
		if (!*out)
			return TOOL_OOM;
		memcpy(*out, r->name, r->name_len);
		(*out)[r->name_len] = '\0';
		*len = r->name_len;
		return 0;
	}
	const row_label *l = r->label ? &k->labels[r->label - 1] : NULL;
	if (l && l->text) {   /* the parts context_label() reads for these types */
		const label_text *t = &k->texts.t[l->text - 1];
		uint64_t num = (uint64_t)t->num_hi << 32 | l->num_lo;
		memset(&ctx, 0, sizeof ctx);
		ctx.id = r->ctx;
		ctx.type = (profdb_context_type)t->type;
		ctx.has_offset = t->has_offset;
		profdb_str text = {t->ptr, t->len};
		if (t->type == PROFDB_CTX_LINE) {
			ctx.file = text;
			ctx.line = num;
		} else if (t->has_offset) {
			ctx.module = text;
			ctx.offset = num;
		} else {
			ctx.function = text;
		}
	} else if ((e = profdb_context_get(k->rep.db, r->ctx, &ctx)) < 0) {
		return e;
	}
	size_t size = context_label_size(&ctx);
	*out = size <= n ? local : malloc(size);
	if (!*out)
		return TOOL_OOM;
	*len = context_label_bytes(&ctx, *out, size);
	return 0;
}

/* How many of the sorted rows are shown: -n, --min-percent. */
static size_t shown_rows(const ranking *k)
{
	size_t n = 0;
	for (; n < k->nrows && (k->o.count == 0 || n < k->o.count); n++) {
		double one;
		if (ranking_ends_shown(k, ranking_row_at(k, n, &one).v[0]))
			break;
	}
	return n;
}

/* @return 0 or TOOL_OOM. */
static int print_json(const ranking *k, size_t shown)
{
	const report *rep = &k->rep;
	char local[1024];
	if (report_describe_json(rep, "profdb-top/2") < 0)
		return TOOL_OOM;
	printf(", \"value\": \"%s\", \"by\": \"%s\", \"rows\": [",
	       k->o.inclusive ? "inclusive" : "exclusive", by_name[k->by]);
	for (size_t i = 0; i < shown; i++) {
		double one;
		row rw = ranking_row_at(k, i, &one);
		const row *r = &rw;
		char *name = NULL;
		printf("%s\n {\"value\": ", i ? "," : "");
		put_json_double(r->v[0]);
		printf(", \"percent\": ");
		if (report_has_percent(rep, 0))
			put_json_double(report_percent(rep, 0, r->v[0]));
		else
			printf("null");
		printf(", \"values\": [");
		for (size_t m = 0; m < rep->n; m++) {
			printf("%s", m ? ", " : "");
			put_json_value(r->v[m]);
		}
		printf("], \"percents\": [");
		for (size_t m = 0; m < rep->n; m++) {
			printf("%s", m ? ", " : "");
			if (report_has_percent(rep, m) && !isnan(r->v[m]))
				put_json_double(report_percent(rep, m, r->v[m]));
			else
				printf("null");
		}
		printf("], \"context\": ");
		if (r->n_ctx == 1)
			printf("%" PRIu32, r->ctx);
		else
			printf("null");
		printf(", \"contexts\": %" PRIu32 ", \"name\": ", r->n_ctx);
		size_t len;
		if (row_name(k, r, local, sizeof local, &name, &len) == 0)
			put_json_str(stdout, (profdb_str){name, len});
		else
			printf("\"<context %" PRIu32 ">\"", r->ctx);
		if (name != local)
			free(name);
		printf("}");
	}
	printf("\n]}\n");
	return 0;
}

/* @return 0 or TOOL_OOM. */
static int print_header(const ranking *k)
{
	char *metric = report_column_name(&k->rep, 0, 200), *head = NULL;
	size_t len;
	FILE *f = metric ? open_memstream(&head, &len) : NULL;
	if (f) {
		if (k->o.count)
			fprintf(f, "top %" PRIu64 " %s", k->o.count, by_plural[k->by]);
		else
			fprintf(f, "all %s", by_plural[k->by]);
		fprintf(f, " by %s %s", k->o.inclusive ? "inclusive" : "exclusive", metric);
		if (k->o.min_percent_given)
			fprintf(f, ", at least %g%%", k->o.min_percent);
		if (k->o.focus >= 0)
			fprintf(f, ", in the subtree of context %" PRId64, k->o.focus);
		if (filter_any(&k->o.names))
			fputs(", names filtered", f);
	}
	int e = !f || fclose(f) != 0 || report_describe(&k->rep, head) < 0;
	free(metric);
	free(head);
	if (e)
		return TOOL_OOM;
	size_t hidden = hidden_shown(k);
	if (hidden)
		printf("note: %zu line%s with no file and line 0 ('???:0') would rank here, "
		       "hidden (--unknown-lines shows %s)\n", hidden, hidden == 1 ? "" : "s",
		       hidden == 1 ? "it" : "them");
	return 0;
}

static int print_text(const ranking *k, size_t shown)
{
	const report *rep = &k->rep;
	char buf[64];
	int w[64], idw = 2, pct = report_has_percent(rep, 0);
	size_t nm = rep->n < 64 ? rep->n : 64;   /* more columns than a terminal holds: cut */
	if (print_header(k) < 0)
		return TOOL_OOM;
	for (size_t m = 0; m < nm; m++) {
		int cw = report_column_width(rep, m);
		if (cw < 0)
			return TOOL_OOM;
		w[m] = cw < 6 ? 6 : cw;
		for (size_t i = 0; i < shown; i++) {
			double one;
			int l = (int)fmt_value(buf, sizeof buf, ranking_row_at(k, i, &one).v[m], k->o.plain);
			w[m] = l > w[m] ? l : w[m];
		}
	}
	for (size_t i = 0; i < shown; i++) {
		double one;
		int l = (int)format_u64(buf, ranking_row_at(k, i, &one).ctx);
		idw = l > idw ? l : idw;
	}
	int prefix = idw + 2;
	for (size_t m = 0; m < nm; m++) {
		if (report_put_column(rep, m, w[m]) < 0)
			return TOOL_OOM;
		printf("  ");
		prefix += w[m] + 2;
		if (m == 0 && pct) {
			printf("%7s  ", "%");
			prefix += 9;
		}
	}
	fmt_put("id", idw);
	printf("  %s\n", by_name[k->by]);
	char shortname[1024];   /* text may shorten a name; --wide prints it whole */
	size_t width = k->o.wide ? sizeof shortname : (size_t)(100 - prefix > 30 ? 100 - prefix : 30);
	/* the rows go out through a line buffer, without a format string
	 * where one would do: -n 0 prints millions of them */
	fmt_line line;
	line.n = 0;
	for (size_t i = 0; i < shown; i++) {
		double one;
		row rw = ranking_row_at(k, i, &one);
		const row *r = &rw;
		char local[1024], *name;
		size_t len;
		int e = row_name(k, r, local, sizeof local, &name, &len);
		if (e < 0) {
			fmt_line_flush(&line);
			return e;
		}
		names_show(name, len);
		for (size_t m = 0; m < nm; m++) {
			fmt_value(buf, sizeof buf, r->v[m], k->o.plain);
			fmt_line_cell(&line, buf, w[m]);
			fmt_line_put(&line, "  ", 2);
			if (m == 0 && pct)
				fmt_line_percent(&line, report_percent(rep, 0, r->v[0]));
		}
		if (r->n_ctx == 1)
			buf[format_u64(buf, r->ctx)] = '\0';
		else
			snprintf(buf, sizeof buf, "-");
		fmt_line_cell(&line, buf, idw);
		fmt_line_put(&line, "  ", 2);
		if (!k->o.wide)
			fmt_shorten(name, width, shortname, sizeof shortname);
		if (k->o.wide)
			fmt_line_put(&line, name, len);
		else
			fmt_line_put(&line, shortname, strlen(shortname));
		fmt_line_put(&line, "\n", 1);
		if (name != local)
			free(name);
	}
	fmt_line_flush(&line);
	return 0;
}

static void ranking_free(ranking *k)
{
	drop_context_rows(k);
	group_free(&k->groups);
	free(k->group_of);
	free(k->stack);
	free(k->in_fn);
	free(k->file_at);
	free(k->module_at);
	free(k->tmp);
	filter_free(&k->o.names);
}

/* ---- the command ---------------------------------------------------------- */

static const char top_usage[] =
	"usage: profdb top [-m METRIC[,METRIC...]|all] [-n N] [--inclusive|--exclusive]\n"
	"                  [--by function|context|file|module|line|loop] [--lines]\n"
	"                  [--profile P | --profiles SEL] [--stat S] [--min-percent P]\n"
	"                  [--match RE] [--exclude RE] [--focus CONTEXT] [--unknown-lines]\n"
	"                  [--wide] [--plain] [--raw] [--json] PATH\n"
	"The hottest functions (or contexts, files, modules, lines, loops) with their\n"
	"values and percentages of the total (the roots' inclusive value). No cost is\n"
	"counted in two rows, so the percentages of an exclusive ranking add up to\n"
	"100 % at most. The id column is the context id ('profdb value --context').\n"
	"  -m, --metric M       metric names or ids, comma-separated, or 'all' (every\n"
	"                       metric with values); the first ranks (default: the\n"
	"                       default metric: time first, doc/model.md)\n"
	"  -n N                 rows to show (default 20; 0: all)\n"
	"  -i, --inclusive      rank by inclusive values\n"
	"  -e, --exclusive      rank by exclusive values (default)\n"
	"  -b, --by W           'function' (default), 'context' (contexts with no nested\n"
	"                       loop or line), 'file', 'module' (those contexts grouped),\n"
	"                       'line' (source lines and instructions) or 'loop'\n"
	"  -l, --lines          the same as --by line (Callgrind decodes the lines of the\n"
	"                       functions whose lines can rank)\n"
	"  --unknown-lines      --by line: also the lines with no file and line 0 ('???:0')\n"
	"  -p, --profile P      one profile (default: the summary profile, else all\n"
	"                       profiles combined by the metric's rule: sum, min, max)\n"
	"  --profiles SEL       combine these profiles: indices and ranges ('0-15,32')\n"
	"                       and identities ('rank=0-3,thread=0')\n"
	"  --stat S             rank by a statistic over the selected profiles: sum, mean,\n"
	"                       min, max, stddev, imbalance (max/mean); stored values,\n"
	"                       by context, line or loop (default: by context)\n"
	"  --min-percent P      only rows of at least P% of the total\n"
	"  --match RE           only rows whose name matches RE (POSIX extended; by\n"
	"                       function the name without ' (file) [module]')\n"
	"  --exclude RE         no rows whose name matches RE\n"
	"  --focus CONTEXT      only the subtree of context id CONTEXT\n"
	"  --wide               full names (default: shortened to fit 100 columns)\n"
	"  --plain              integers without thousands separators\n"
	"  -r, --raw            hpcrun: the stored sample counts, not the values times\n"
	"                       the sampling period that hpcprof shows\n"
	"  --json               one object of schema profdb-top/2\n"
	"By function, a function is its module, file and name (Callgrind's suffixes\n"
	"folded): functions of one name in several objects or files are rows of their\n"
	"own, named 'name (file) [module]' (and '#ID', the first context, where\n"
	"those are alike still).\n"
	"Percentages are shown only for metrics that combine by sum (in the text, for\n"
	"the first metric).\n";

static int parse_by(const char *s, enum by *out)
{
	for (int i = 0; i < BY_COUNT; i++)
		if (strcmp(s, by_name[i]) == 0) {
			*out = (enum by)i;
			return 0;
		}
	return tool_bad_value("--by", s, "function, context, file, module, line or loop");
}

/* Options into @p k; @return 0, -1 (help shown) or EXIT_USAGE. */
static int parse_top(int argc, char **argv, ranking *k, int *by_given)
{
	static const struct option lo[] = {
		REPORT_LONG_OPTIONS,
		{"inclusive", no_argument, NULL, 'i'}, {"exclusive", no_argument, NULL, 'e'},
		{"by", required_argument, NULL, 'b'}, {"lines", no_argument, NULL, 'l'},
		{"unknown-lines", no_argument, NULL, OPT_UNKNOWN_LINES}, {0, 0, 0, 0}};
	int c, e;
	while ((c = tool_getopt(argc, argv, REPORT_SHORT_OPTIONS "ieb:l", lo)) != -1) {
		if ((e = report_option(&k->o, c, optarg)) != 1) {
			if (e)
				return e;
			continue;
		}
		switch (c) {
		case 'i': k->o.inclusive = 1; break;
		case 'e': k->o.inclusive = 0; break;
		case 'b':
			if (parse_by(optarg, &k->by))
				return EXIT_USAGE;
			*by_given = 1;
			break;
		case 'l': k->by = BY_LINE; *by_given = 1; break;
		case OPT_UNKNOWN_LINES: k->unknown_lines = 1; break;
		case 'h': fputs(top_usage, stdout); return -1;
		default: return EXIT_USAGE;   /* tool_getopt() said why */
		}
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	return 0;
}

/* Combinations that mean nothing. @return 0 or EXIT_USAGE. */
static int check_top(ranking *k, int by_given)
{
	if (k->o.inclusive && (k->by == BY_FILE || k->by == BY_MODULE)) {
		fprintf(stderr, "%s: top: --by %s ranks exclusive values only (the inclusive values "
		        "of a %s's contexts nest)\n", tool_prog, by_name[k->by], by_name[k->by]);
		return EXIT_USAGE;
	}
	if (k->o.stat != RSTAT_NONE) {
		if (!by_given)
			k->by = BY_CONTEXT;
		if (k->by != BY_CONTEXT && k->by != BY_LINE && k->by != BY_LOOP) {
			fprintf(stderr, "%s: top: --stat ranks contexts (--by context, line or loop): a "
			        "statistic over profiles does not add up over a %s's contexts\n",
			        tool_prog, by_name[k->by]);
			return EXIT_USAGE;
		}
	}
	return 0;
}

int cmd_top(int argc, char **argv)
{
	ranking k;
	memset(&k, 0, sizeof k);
	report_opts_init(&k.o);
	k.by = BY_FUNCTION;
	int by_given = 0;
	int r = parse_top(argc, argv, &k, &by_given);
	if (!r)
		r = check_top(&k, by_given);
	if (r) {
		filter_free(&k.o.names);
		return r < 0 ? 0 : r;
	}
	/* Functions carry the self cost of their lines already; counting the
	 * lines would cost a second pass over a Callgrind text. */
	if (k.by != BY_LINE)
		tool_open_flags |= PROFDB_OPEN_FUNCTIONS_ONLY;
	if ((r = report_open(&k.rep, argv[optind], &k.o))) {
		filter_free(&k.o.names);
		return r;
	}
	profdb_context fc;
	if (k.o.focus >= 0 && profdb_context_get(k.rep.db, (uint32_t)k.o.focus, &fc) < 0) {
		fprintf(stderr, "%s: %s: --focus: no context %" PRId64 " in the tree\n", tool_prog,
		        argv[optind], k.o.focus);
		ranking_free(&k);
		report_close(&k.rep);
		return EXIT_USAGE;
	}
	/* Rank by what the format can give; say which in the header. */
	if (k.o.inclusive && !k.rep.m[0].has_inc)
		k.o.inclusive = 0;
	else if (!k.o.inclusive && !k.rep.m[0].has_exc)
		k.o.inclusive = 1;
	/* A value that does not combine (a ratio, a mean) means nothing added
	 * up over a function's contexts: rank the contexts themselves. */
	if (!profdb_combine_ok(k.rep.m[0].metric.combine) && k.by == BY_FUNCTION && !by_given)
		k.by = BY_CONTEXT;
	r = rank(&k);
	if (r == 0)
		sort_keys(k.hidden, k.n_hidden);
	if (r == 0 && k.all)
		sort_keys(k.keys, k.nrows);
	else if (r == 0)
		sort_rows(k.rows, k.nrows);
	if (r == 0 && k.o.json)
		r = print_json(&k, shown_rows(&k));
	else if (r == 0)
		r = print_text(&k, shown_rows(&k));
	if (r < 0)
		r = report_fail(&k.rep, r);
	ranking_free(&k);
	report_close(&k.rep);
	return r;
}
