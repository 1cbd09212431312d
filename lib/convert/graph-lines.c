/* The bulk path of the writers that walk every line context of a call
 * graph format (profdb__graph_table.lines): the functions in the context
 * tree's order, each function's line contexts decoded once and handed
 * over with their self costs in integer units, combined over the chosen
 * profiles. Memory: one function's rows and O(profiles), where the
 * context tree (ctree.c) holds every context with its costs. */
#include <stdlib.h>
#include <string.h>

#include "cost-internal.h"
#include "query/query-internal.h"

typedef struct walk {
	const profdb *db;
	const profdb__cv_event *ev;
	size_t n_ev, n_metrics;
	const unsigned char *chosen;   /* per profile: 1 when combined */
	uint64_t *self;                /* n_ev */
	profdb__cv_line_fn line;
	void *ud;
} walk;

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
                          profdb__cv_frame_fn frame, profdb__cv_line_fn line, void *ud)
{
	if (!applies(db, ev, n_ev))
		return 0;
	const profdb__graph_table *g = db->be->graph;
	int64_t np = profdb_profile_count(db), nm = profdb_metric_count(db);
	int64_t nf = g->function_count(db->impl);
	if (np < 0 || nm < 0)
		return (int)(np < 0 ? np : nm);
	walk w = {db, ev, n_ev, (size_t)nm, NULL, NULL, line, ud};
	unsigned char *chosen = calloc((size_t)np + 1, 1);
	w.self = calloc(n_ev + 1, sizeof *w.self);
	w.chosen = chosen;
	int r = chosen && w.self ? 0 : profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	for (size_t i = 0; i < n_profiles && r >= 0; i++)
		if (profiles[i] < (uint64_t)np)
			chosen[profiles[i]] = 1;
	for (size_t k = 0; k < n_ev && r >= 0; k++)
		if (ev[k].src >= (uint64_t)nm)
			r = profdb__fail(-ENOENT, "profdb_convert: no metric %u", ev[k].src);
	uint32_t root = PROFDB_NONE;
	profdb_context c;
	if (r >= 0 && (r = profdb_context_root(db, &root)) >= 0 &&
	    (r = profdb_context_get(db, root, &c)) >= 0)
		r = frame(ud, &c, 0, (uint64_t)nf + 1);
	uint64_t index = 1;
	/* the root's children are the functions, function fn is context fn + 1 */
	for (uint32_t id = r >= 0 ? c.first_child : PROFDB_NONE; id != PROFDB_NONE && r >= 0;
	     id = c.next_sibling) {
		if ((r = profdb_context_get(db, id, &c)) < 0)
			break;
		if (id == 0 || id > (uint64_t)nf || c.parent != root) {
			r = profdb__fail(-EBADMSG, "profdb_convert: context %u is not a function of "
			                 "the call graph", id);
			break;
		}
		if ((r = frame(ud, &c, index++, (uint64_t)nf + 1)) >= 0 && line)
			r = g->lines(db->impl, id - 1, one_row, &w);
	}
	free(chosen);
	free(w.self);
	return r < 0 ? r : 1;
}
