/* Callgrind from a calling-context tree (HPCToolkit, hpcrun, Cube): each
 * frame (cost-internal.h) is a function block with the self costs of its
 * own contexts at their lines, and one call per callee frame with the
 * integer sum of the self costs below it as inclusive cost (calls=1 per
 * call path; Cube: the visits). doc/CONVERT.md, "Callgrind". */
#include <stdlib.h>
#include <string.h>

#include "cgout-internal.h"

/* Per frame, its rows (its own contexts) and its calls (child frames), as
 * singly linked lists in pre-order. */
typedef struct lists {
	uint32_t *row_head, *row_next, *call_head, *call_next;
} lists;

static void lists_free(lists *l)
{
	free(l->row_head);
	free(l->row_next);
	free(l->call_head);
	free(l->call_next);
}

static int lists_build(const profdb__cv_tree *t, lists *l)
{
	size_t n = t->n;
	uint32_t *row_tail = malloc(n * sizeof *row_tail), *call_tail = malloc(n * sizeof *call_tail);
	l->row_head = malloc(n * sizeof *l->row_head);
	l->row_next = malloc(n * sizeof *l->row_next);
	l->call_head = malloc(n * sizeof *l->call_head);
	l->call_next = malloc(n * sizeof *l->call_next);
	if (!row_tail || !call_tail || !l->row_head || !l->row_next || !l->call_head || !l->call_next) {
		free(row_tail);
		free(call_tail);
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%zu contexts)", n);
	}
	memset(l->row_head, 0xff, n * sizeof *l->row_head);
	memset(l->call_head, 0xff, n * sizeof *l->call_head);
	memset(l->row_next, 0xff, n * sizeof *l->row_next);
	memset(l->call_next, 0xff, n * sizeof *l->call_next);
	for (size_t i = 0; i < n; i++) {
		const profdb__cv_node *nd = &t->node[i];
		uint32_t f = nd->frame;
		if (l->row_head[f] == PROFDB_NONE)
			l->row_head[f] = (uint32_t)i;
		else
			l->row_next[row_tail[f]] = (uint32_t)i;
		row_tail[f] = (uint32_t)i;
		if (!nd->is_frame || nd->parent == PROFDB_NONE)
			continue;
		uint32_t caller = t->node[nd->parent].frame;
		if (l->call_head[caller] == PROFDB_NONE)
			l->call_head[caller] = (uint32_t)i;
		else
			l->call_next[call_tail[caller]] = (uint32_t)i;
		call_tail[caller] = (uint32_t)i;
	}
	free(row_tail);
	free(call_tail);
	return 0;
}

static int any_cost(const uint64_t *c, const profdb__cv_event *ev, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (c[k] && !ev[k].hidden)
			return 1;
	return 0;
}

/* Switch the cost lines' file to that of @p ctx when it has its own. */
static int put_file(profdb__cgw *w, const profdb_context *c, profdb_str *cur)
{
	if (!c->file.len || (c->file.len == cur->len && !memcmp(c->file.ptr, cur->ptr, cur->len)))
		return 0;
	*cur = c->file;
	return profdb__cgw_name(w, "fi", c->file);
}

static int put_call(profdb__cgw *w, const profdb__cv_tree *t, uint32_t callee, int64_t visits,
                    profdb_str *cur)
{
	char buf[256];
	profdb_str name, file, module;
	uint64_t line;
	profdb__cv_frame_names(t, callee, buf, sizeof buf, &name, &file, &module, &line);
	uint32_t site = t->node[callee].parent;
	profdb_context sc;
	uint64_t site_line = 0;
	if (profdb_context_get(t->db, t->node[site].ctx, &sc) >= 0) {
		site_line = sc.line;
		int r = put_file(w, &sc, cur);
		if (r < 0)
			return r;
	}
	int r;
	if ((r = profdb__cgw_name(w, "cob", module)) < 0 ||
	    (r = profdb__cgw_name(w, "cfi", file)) < 0 || (r = profdb__cgw_name(w, "cfn", name)) < 0)
		return r;
	profdb__cv_puts(w->o, "calls=");
	profdb__cv_u64(w->o, visits >= 0 ? (uint64_t)visits : 1);
	profdb__cv_putc(w->o, ' ');
	profdb__cv_u64(w->o, line);
	profdb__cv_putc(w->o, '\n');
	profdb__cv_u64(w->o, site_line);
	profdb__cgw_costs(w, &t->incl[(size_t)callee * t->n_ev], 0);
	return 0;
}

/* One frame's block: ob=, fl=, fn=, its rows, its calls. */
static int put_frame(profdb__cgw *w, const profdb__cv_tree *t, const lists *l, uint32_t f,
                     int64_t visits_k)
{
	size_t K = t->n_ev;
	int rows = 0;
	for (uint32_t i = l->row_head[f]; i != PROFDB_NONE && !rows; i = l->row_next[i])
		rows = any_cost(&t->self[(size_t)i * K], t->ev, K);
	if (!rows && l->call_head[f] == PROFDB_NONE)
		return 0;
	char buf[256];
	profdb_str name, file, module;
	uint64_t line;
	profdb__cv_frame_names(t, f, buf, sizeof buf, &name, &file, &module, &line);
	int r;
	if ((r = profdb__cgw_name(w, "ob", module)) < 0 || (r = profdb__cgw_name(w, "fl", file)) < 0 ||
	    (r = profdb__cgw_name(w, "fn", name)) < 0)
		return r;
	profdb_str cur = file;
	for (uint32_t i = l->row_head[f]; i != PROFDB_NONE; i = l->row_next[i]) {
		const uint64_t *c = &t->self[(size_t)i * K];
		if (!any_cost(c, t->ev, K))
			continue;
		profdb_context ctx;
		uint64_t at = 0;
		if (t->node[i].ctx != PROFDB_NONE &&
		    profdb_context_get(t->db, t->node[i].ctx, &ctx) >= 0) {
			at = ctx.line;
			if (i != f && (r = put_file(w, &ctx, &cur)) < 0)
				return r;
		}
		profdb__cv_u64(w->o, at);
		profdb__cgw_costs(w, c, 1);
	}
	for (uint32_t c = l->call_head[f]; c != PROFDB_NONE; c = l->call_next[c]) {
		if (!any_cost(&t->incl[(size_t)c * K], t->ev, K))
			continue;   /* a call that costs nothing carries no information */
		int64_t visits = visits_k >= 0 ? (int64_t)t->self[(size_t)c * K + (size_t)visits_k] : -1;
		if ((r = put_call(w, t, c, visits, &cur)) < 0)
			return r;
	}
	return 0;
}

static int put_part(profdb__cgw *w, const profdb__cv_tree *t, const lists *l,
                    const profdb_convert_options *opts)
{
	int64_t visits_k = -1;
	for (size_t k = 0; k < t->n_ev; k++)
		if (t->ev[k].hidden)
			visits_k = (int64_t)k;
	for (size_t f = 0; f < t->n; f++) {
		if (!t->node[f].is_frame)
			continue;
		int r = put_frame(w, t, l, (uint32_t)f, visits_k);
		if (r < 0)
			return r;
		if (opts->progress && !(f & 1023) && opts->progress(f, t->n, opts->progress_userdata))
			return profdb__fail(-ECANCELED, "profdb_convert: cancelled");
		if (w->o->err)
			return w->o->err;
	}
	return profdb__cgw_totals(w);
}

int profdb__cg_write_tree(const profdb *db, const profdb_convert_options *opts,
                          profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles)
{
	profdb__cv_event *ev = NULL;
	size_t n_ev = 0;
	profdb__cv_tree t;
	memset(&t, 0, sizeof t);
	lists l = {0};
	profdb__cgw w;
	int r = profdb__cgw_init(&w, o, NULL, 0);
	if (r >= 0)
		r = profdb__cv_events(db, opts, "Callgrind", profiles, n_profiles, &ev, &n_ev);
	if (r >= 0) {
		profdb__cgw_free(&w);
		r = profdb__cgw_init(&w, o, ev, n_ev);
	}
	if (r >= 0)
		r = profdb__cv_tree_build(&t, db, ev, n_ev, opts->progress, opts->progress_userdata);
	t.with_incl = 1;   /* the calls' inclusive costs */
	if (r >= 0)
		r = lists_build(&t, &l);
	if (r >= 0)
		profdb__cgw_header(&w, db, "line", opts->separate && n_profiles ? (int64_t)profiles[0] : -1);
	size_t parts = opts->separate ? n_profiles : 1;
	for (size_t p = 0; p < parts && r >= 0; p++) {
		if (opts->separate) {
			if (p)
				profdb__cgw_part(&w, db, profiles[p]);
			r = profdb__cgw_reset(&w);
		}
		if (r >= 0)
			r = profdb__cv_tree_fill(&t, opts->separate ? &profiles[p] : profiles,
			                         opts->separate ? 1 : n_profiles);
		if (r >= 0)
			r = put_part(&w, &t, &l, opts);
	}
	lists_free(&l);
	profdb__cv_tree_free(&t);
	profdb__cgw_free(&w);
	free(ev);
	return r;
}
