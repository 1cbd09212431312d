/* `profdb top --by line`: the rows it hides, and its ranking on a call
 * graph (Callgrind) without a walk over every line.
 *
 * Hidden rows. Callgrind's "???:0" lines (no file, line 0) are hidden
 * unless --unknown-lines; the note counts those that the rows shown would
 * hold with them, so they are kept as the rows are (the best `count`, or
 * all) and merged with the rows at the end (hidden_shown()).
 *
 * Ranking on a call graph. The walk asks for every line of every function
 * (on Callgrind, a decoding of every function's text: 2.8 million lines
 * on py_full_sc5), to keep a few dozen. A function's self cost is the sum
 * of its lines' costs in each profile, none below 0 (doc/model.md,
 * "Callgrind"), so no line of a function is worth more than the function
 * (the report's value of metric 0, graph_value(): a scale above 0, and
 * sums over the same profiles in the same order, which round no line's
 * sum above its function's). The functions are taken in decreasing order
 * of that bound; once the heap of the best `count` rows is full and its
 * worst row is worth more than the next bound, or the bound is below
 * --min-percent, no line of the rest can be shown, nor count in the note
 * (rows worse than `count` shown ones), and they are not read. The rows
 * are the walk's: the same values, labels and order (value, then context
 * id: any order of arrival gives it). tests/top_fast_check.py compares
 * them with the walk's (--focus 0). */
#include <errno.h>
#include <stdlib.h>

#include "tool.h"
#include "top.h"

/* ---- hidden rows --------------------------------------------------------- */

int ranking_ends_shown(const ranking *k, double v)
{
	return v == 0 || (k->o.min_percent_given && report_has_percent(&k->rep, 0) &&
	                  report_percent(&k->rep, 0, v) < k->o.min_percent);
}

/* Is @p a after @p b in the rows' order (sort_keys())? */
static int key_after(const sort_key *a, const sort_key *b)
{
	return a->key != b->key ? a->key > b->key : a->ctx > b->ctx;
}

int hidden_keep(ranking *k, uint32_t ctx, double v)
{
	sort_key x = {descending_bits(v), ctx, 0};
	size_t cap = k->o.count && !k->keep_every ? (size_t)k->o.count : SIZE_MAX;
	sort_key *h = k->hidden;
	size_t n = k->n_hidden, i;
	if (n == cap) {   /* a full heap, the worst row at its root */
		if (!key_after(&h[0], &x))
			return 0;
		for (i = 0;;) {
			size_t w = i, a = 2 * i + 1, b = a + 1;
			if (a < n && key_after(&h[a], w == i ? &x : &h[w]))
				w = a;
			if (b < n && key_after(&h[b], w == i ? &x : &h[w]))
				w = b;
			if (w == i)
				break;
			h[i] = h[w];
			i = w;
		}
		h[i] = x;
		return 0;
	}
	if (n == k->cap_hidden) {
		size_t nc = n ? 2 * n : 64;
		if (nc > cap)
			nc = cap;
		if (nc > SIZE_MAX / sizeof *h || !(h = realloc(h, nc * sizeof *h)))
			return TOOL_OOM;
		k->hidden = h;
		k->cap_hidden = nc;
	}
	/* (all of them: no order needed until sorted) */
	for (i = n; cap != SIZE_MAX && i > 0 && key_after(&x, &h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = x;
	k->n_hidden = n + 1;
	return 0;
}

size_t hidden_shown(const ranking *k)
{
	size_t iv = 0, ih = 0, n = 0, hits = 0;
	while (ih < k->n_hidden && (k->o.count == 0 || n < k->o.count)) {
		double one;
		row r = iv < k->nrows ? ranking_row_at(k, iv, &one) : (row){0};
		sort_key rk = {descending_bits(r.key), r.ctx, 0};
		int hidden = iv == k->nrows || key_after(&rk, &k->hidden[ih]);
		double v = hidden ? from_descending_bits(k->hidden[ih].key) : r.v[0];
		if (ranking_ends_shown(k, v))
			break;
		hits += hidden;
		ih += hidden;
		iv += !hidden;
		n++;
	}
	return hits;
}

/* ---- ranking on a call graph --------------------------------------------- */

/* A function and what none of its lines can be worth more than. */
typedef struct bound {
	double v;
	uint32_t fn;
} bound;

/* Does @p a come before @p b (the larger bound, then the lower index)? */
static int before(const bound *a, const bound *b)
{
	return a->v != b->v ? a->v > b->v : a->fn < b->fn;
}

/* Heap @p h of @p n bounds, the first at its root: node @p i sifted down. */
static void sift(bound *h, size_t n, size_t i)
{
	bound x = h[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* Can rank_lines() stand for the walk on a graph of @p nf functions? */
static int lines_prune(const ranking *k, int64_t nf)
{
	return nf > 0 && k->by == BY_LINE && k->o.focus < 0 && !k->o.inclusive &&
	       !k->keep_every && (k->o.count || k->cut) && graph_metric_ok(k, 0, nf) &&
	       k->rep.m[0].scale > 0;
}

/* Can no line of a function whose lines are worth at most @p v be shown? */
static int past(const ranking *k, double v)
{
	if (k->cut && report_percent(&k->rep, 0, v) < k->o.min_percent)
		return 1;
	return k->o.count && k->nrows == k->o.count && !k->all && v < k->rows[0].key;
}

/* The path down to function context @p c: the root, then @p c (a call
 * graph's functions are all children of the root), what its lines
 * inherit. */
static int push_function(ranking *k, const profdb_context *c)
{
	profdb_context root;
	int r = profdb_context_get(k->rep.db, c->parent, &root);
	if (r == 0 && (c->depth != 1 || root.depth != 0))
		r = -EBADMSG;   /* (not the table's shape: the library checks it) */
	if (r == 0)
		r = ranking_push_path(k, &root);
	return r == 0 ? ranking_push_path(k, c) : r;
}

/* Function @p fn's lines (its lexical children, which come before its
 * callees), each visited as the walk does. */
static int visit_lines(ranking *k, uint32_t fn)
{
	const profdb *db = k->rep.db;
	profdb_graph_function f;
	profdb_context c;
	int r;
	if ((r = profdb_graph_function_at(db, fn, &f)) < 0 ||
	    (r = profdb_context_get(db, f.context, &c)) < 0 || (r = push_function(k, &c)) < 0)
		return r;
	for (uint32_t id = c.first_child; id != PROFDB_NONE && r == 0; id = c.next_sibling) {
		if ((r = profdb_context_get(db, id, &c)) < 0 || c.relation != PROFDB_RELATION_LEXICAL)
			break;
		r = ranking_visit(k, &c);
	}
	return r;
}

int rank_lines(ranking *k)
{
	int64_t nf = profdb_graph_function_count(k->rep.db);
	if (!lines_prune(k, nf))
		return 0;
	bound *b = (uint64_t)nf <= SIZE_MAX / sizeof *b ? malloc((size_t)nf * sizeof *b) : NULL;
	if (!b)
		return TOOL_OOM;
	int one_profile = profdb_profile_count(k->rep.db) == 1, r = 0;
	size_t n = 0;
	for (int64_t fn = 0; fn < nf && r == 0; fn++) {
		double v;
		if ((r = graph_value(k, (uint32_t)fn, 0, one_profile, &v)) == 0 && v > 0)
			b[n++] = (bound){v, (uint32_t)fn};
	}
	/* (a heap, not a sort: a few hundred of 80,000 functions are taken) */
	for (size_t i = n / 2; i-- > 0;)
		sift(b, n, i);
	while (r == 0 && n > 0 && !past(k, b[0].v)) {
		uint32_t fn = b[0].fn;
		b[0] = b[--n];
		sift(b, n, 0);
		r = visit_lines(k, fn);
	}
	free(b);
	return r < 0 ? r : 1;
}
