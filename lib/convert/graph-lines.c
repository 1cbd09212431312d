/* The bulk path of the writers that walk every line context of a call
 * graph format (profdb__graph_table.lines): the functions in the context
 * tree's order, each function's line contexts decoded once and handed
 * over with their self costs in integer units, combined over the chosen
 * profiles. The lines are decoded a few functions ahead on a second
 * thread (ahead-internal.h) while the caller writes, when the conversion
 * has a thread to spare for it; otherwise each function's rows go
 * straight to the caller as they are decoded. Memory: a few dozen
 * functions' rows and O(profiles), where the context tree (ctree.c)
 * holds every context with its costs. */
#include <stdlib.h>
#include <string.h>

#include "ahead-internal.h"
#include "cost-internal.h"
#include "query/query-internal.h"

typedef struct walk {
	const profdb *db;
	const profdb__cv_event *ev;
	size_t n_ev, n_metrics;
	const unsigned char *chosen;   /* per profile: 1 when combined */
	/* the events are the metrics in their order, each of factor 1: a row
	 * of one profile's costs is its self costs as they are */
	int as_stored;
	uint64_t *self;                /* n_ev */
	profdb__cv_line_fn line;
	void *ud;
} walk;

/* One function's lines as one_row() hands them over: per row its context
 * id, line and n_ev self costs. */
typedef struct fn_rows {
	uint32_t fn_ctx;               /* the function's context (PROFDB_NONE: past the last) */
	size_t n, cap;                 /* values used and allocated */
	uint64_t v[];
} fn_rows;

/* The making thread's side: its own walk, and the next function. */
typedef struct rows_jobs {
	const profdb__graph_table *g;
	walk w;
	uint32_t next;                 /* the next function's context, PROFDB_NONE at the end */
	uint64_t nf;
	fn_rows *cur;
} rows_jobs;

static int no_row(void *ud, const profdb__graph_row *row)
{
	(void)ud;
	(void)row;
	return 0;
}

/* A row's self costs over the chosen profiles, as ctree.c adds the
 * cursor's values of a context whose events read the exclusive scope of
 * integer values: each times the event's factor, checked against 2^64
 * (a sum of non-negative terms overflows in no order or in every). */
static int one_row(void *ud, const profdb__graph_row *row)
{
	walk *w = ud;
	if (w->as_stored && row->n == 1 && w->chosen[row->profiles[0]])
		return w->line(w->ud, row->context, row->line, row->costs);
	memset(w->self, 0, w->n_ev * sizeof *w->self);
	for (uint32_t j = 0; j < row->n; j++) {
		if (!w->chosen[row->profiles[j]])
			continue;
		const uint64_t *c = row->costs + (size_t)j * w->n_metrics;
		for (size_t k = 0; k < w->n_ev; k++) {
			const profdb__cv_event *e = &w->ev[k];
			uint64_t u = c[e->src], *cell = &w->self[k];
			if ((e->ifactor > 1 && u > UINT64_MAX / e->ifactor) ||
			    UINT64_MAX - *cell < u * e->ifactor)
				return profdb__fail(-ERANGE, "profdb_convert: metric '%s' exceeds 2^64 at "
				                    "a context", e->name);
			*cell += u * e->ifactor;
		}
	}
	return w->line(w->ud, row->context, row->line, w->self);
}

/* A row into the function's buffer (the line function of the making
 * thread's walk). */
static int keep_row(void *ud, uint32_t ctx, uint64_t line, const uint64_t *self)
{
	rows_jobs *x = ud;
	fn_rows *b = x->cur;
	size_t stride = 2 + x->w.n_ev;
	if (b->cap - b->n < stride) {
		size_t cap = b->cap ? 2 * b->cap : 64 * stride;
		fn_rows *q = realloc(b, sizeof *b + cap * sizeof *b->v);
		if (!q)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
		x->cur = b = q;
		b->cap = cap;
	}
	b->v[b->n] = ctx;
	b->v[b->n + 1] = line;
	memcpy(b->v + b->n + 2, self, x->w.n_ev * sizeof *self);
	b->n += stride;
	return 0;
}

/* The lines of the next function (the job number is its place, the
 * same as the caller's, since both walk the same siblings), in the
 * memory of @p old when there is one. */
static int make_rows(void *ctx, unsigned worker, uint64_t job, void *old, void **out,
                     size_t *bytes)
{
	rows_jobs *x = ctx;
	(void)worker, (void)job;
	if (!(x->cur = old ? old : calloc(1, sizeof *x->cur)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	x->cur->n = 0;
	x->cur->fn_ctx = PROFDB_NONE;
	uint32_t id = x->next;
	profdb_context c;
	int r = 0;
	if (id != PROFDB_NONE && (r = profdb_context_get(x->w.db, id, &c)) >= 0) {
		x->next = c.next_sibling;
		x->cur->fn_ctx = id;
		/* (a context that is no function: the caller says so before it
		 * takes these) */
		if (id > 0 && id <= x->nf)
			r = x->g->lines(x->w.db->impl, id - 1, one_row, &x->w);
	}
	if (r < 0) {
		free(x->cur);
		return r;
	}
	*out = x->cur;
	*bytes = sizeof *x->cur + x->cur->cap * sizeof *x->cur->v;
	return 0;
}

static void drop_rows(void *ctx, void *rows)
{
	(void)ctx;
	free(rows);
}

/* Does the bulk path give what the context tree would: a graph table
 * that serves lines, and events that read stored integer self costs. */
static int applies(const profdb *db, const profdb__cv_event *ev, size_t n_ev)
{
	const profdb__graph_table *g = db->be->graph;
	if (!g || !g->lines || g->function_count(db->impl) <= 0)
		return 0;
	for (size_t k = 0; k < n_ev; k++)
		if (ev[k].diff || ev[k].is_float || ev[k].type != PROFDB_TYPE_U64)
			return 0;
	return g->lines(db->impl, 0, no_row, NULL) != -ENOTSUP;
}

int profdb__cv_graph_walk(const profdb *db, const profdb__cv_event *ev, size_t n_ev,
                          const uint32_t *profiles, size_t n_profiles,
                          profdb__cv_frame_fn frame, profdb__cv_line_fn line, void *ud,
                          unsigned spare)
{
	if (!applies(db, ev, n_ev))
		return 0;
	const profdb__graph_table *g = db->be->graph;
	int64_t np = profdb_profile_count(db), nm = profdb_metric_count(db);
	int64_t nf = g->function_count(db->impl);
	if (np < 0 || nm < 0)
		return (int)(np < 0 ? np : nm);
	unsigned char *chosen = calloc((size_t)np + 1, 1);
	/* the lines a few functions ahead, on the making thread's own walk */
	rows_jobs x = {g, {db, ev, n_ev, (size_t)nm, chosen, n_ev == (uint64_t)nm, NULL, keep_row,
	                   NULL}, PROFDB_NONE, (uint64_t)nf, NULL};
	x.w.ud = &x;
	x.w.self = calloc(n_ev + 1, sizeof *x.w.self);
	int r = chosen && x.w.self ? 0 : profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	for (size_t i = 0; i < n_profiles && r >= 0; i++)
		if (profiles[i] < (uint64_t)np)
			chosen[profiles[i]] = 1;
	for (size_t k = 0; k < n_ev && r >= 0; k++) {
		if (ev[k].src >= (uint64_t)nm)
			r = profdb__fail(-ENOENT, "profdb_convert: no metric %u", ev[k].src);
		x.w.as_stored &= ev[k].src == k && ev[k].ifactor == 1;
	}
	uint32_t root = PROFDB_NONE;
	profdb_context c;
	if (r >= 0 && (r = profdb_context_root(db, &root)) >= 0 &&
	    (r = profdb_context_get(db, root, &c)) >= 0)
		r = frame(ud, &c, 0, (uint64_t)nf + 1);
	uint64_t index = 1;
	profdb__ahead *ahead = NULL;
	if (r >= 0 && line) {
		x.next = c.first_child;
		r = profdb__ahead_start(&ahead, (uint64_t)nf, make_rows, drop_rows, &x, spare, 0);
		if (r >= 0 && !profdb__ahead_threaded(ahead)) {
			profdb__ahead_stop(ahead);
			ahead = NULL;
		}
	}
	walk direct = x.w;   /* without the thread: rows go straight to @p line */
	direct.line = line;
	direct.ud = ud;
	/* the root's children are the functions, function fn is context fn + 1 */
	for (uint32_t id = r >= 0 ? c.first_child : PROFDB_NONE; r >= 0; id = c.next_sibling) {
		if (id == PROFDB_NONE)
			break;
		if ((r = profdb_context_get(db, id, &c)) < 0)
			break;
		if (id == 0 || id > (uint64_t)nf || c.parent != root || index > (uint64_t)nf) {
			r = profdb__fail(-EBADMSG, "profdb_convert: context %u is not a function of "
			                 "the call graph", id);
			break;
		}
		if ((r = frame(ud, &c, index++, (uint64_t)nf + 1)) < 0 || !line)
			continue;
		if (!ahead) {
			r = g->lines(db->impl, id - 1, one_row, &direct);
			continue;
		}
		fn_rows *rows;   /* alive until the next one */
		if ((r = profdb__ahead_next(ahead, (void **)&rows)) < 0)
			break;
		if (rows->fn_ctx != id)
			r = profdb__fail(-EBADMSG, "profdb_convert: internal error: the lines of "
			                 "context %u came for context %u", rows->fn_ctx, id);
		size_t stride = 2 + n_ev;
		for (size_t at = 0; at < rows->n && r >= 0; at += stride)
			r = line(ud, (uint32_t)rows->v[at], rows->v[at + 1], rows->v + at + 2);
	}
	profdb__ahead_stop(ahead);
	free(x.w.self);
	free(chosen);
	return r < 0 ? r : 1;
}
