/* The Callgrind backend of the common query interface: values (self of a
 * line, or of a function when there are no line contexts; inclusive via
 * profdb_cg_inclusive) and the cursor. query.c describes the model.
 *
 * Every cost is stored once: with line contexts (the default) the stored
 * values are the line/instruction costs, and a function's self cost, their
 * sum, is only computed (profdb_exclusive); storing it too would count
 * every cost twice in a sum over the stored values. Without line contexts
 * (PROFDB_OPEN_FUNCTIONS_ONLY, or ids that do not fit 32 bits) the
 * functions' self costs are the stored values. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"

/* ---- values ------------------------------------------------------------------------ */

/* Context and event in range (lib/query has checked the profile). */
static int check_ids(const cg_query *q, uint32_t ctx, uint32_t m)
{
	int r = check_ctx(q, ctx);
	if (r == 0 && m >= q->cg->n_events)
		r = profdb__fail(-ENOENT, "callgrind: no event %" PRIu32, m);
	return r;
}

static void put_u64(profdb_number *out, uint64_t v)
{
	out->type = v ? PROFDB_TYPE_U64 : PROFDB_TYPE_NONE;
	out->as.u64 = v;
}

/* Function @p fn's self cost in profile @p p (checked): with one profile
 * holding a row per function the sums are the rows (self_alias), read by
 * index, not searched for. */
static int self_of(const profdb_cg *cg, uint32_t p, uint32_t fn, const uint64_t **c)
{
	if (cg->self_alias) {
		*c = cg->self + (size_t)fn * cg->n_events;
		return 1;
	}
	return profdb_cg_self(cg, p, fn, c);
}

int q_value(const void *impl, uint32_t p, uint32_t ctx, uint32_t m, profdb_number *out)
{
	const cg_query *q = impl;
	const profdb_cg *cg = q->cg;
	int r = check_ids(q, ctx, m);
	if (r < 0)
		return r;
	const uint64_t *c;
	if (ctx == 0) {   /* the synthetic root stores nothing */
		put_u64(out, 0);
		return 0;
	}
	if (is_line(q, ctx)) {
		uint64_t v;
		if ((r = profdb__cgl_value(q->lines, ctx, p, m, &v)) < 0)
			return r;
		put_u64(out, v);
		return v != 0;
	}
	if (q->lines) {   /* a function's self cost is its lines' sum: computed */
		put_u64(out, 0);
		return 0;
	}
	if ((r = self_of(cg, p, ctx - 1, &c)) < 0)
		return r;
	put_u64(out, c[m]);
	return c[m] != 0;
}

int q_scoped(const void *impl, uint32_t p, uint32_t ctx, uint32_t m, int inclusive,
                    profdb_number *out)
{
	const cg_query *q = impl;
	const profdb_cg *cg = q->cg;
	int r = check_ids(q, ctx, m);
	if (r < 0)
		return r;
	if (is_line(q, ctx)) {   /* a line calls nothing: inclusive = self */
		uint64_t v;
		if ((r = profdb__cgl_value(q->lines, ctx, p, m, &v)) < 0)
			return r;
		out->type = PROFDB_TYPE_U64;
		out->as.u64 = v;
		return v != 0;
	}
	if (ctx != 0 && inclusive && (p == PROFDB_CG_ALL || (cg->n_profiles == 1 && cg->self_alias))) {
		/* the sum over the profiles (one profile holding every function
		 * is that sum): one event's column, not the rows of every event */
		uint64_t v, cycle;
		if ((r = profdb__cg_inclusive_event(cg, ctx - 1, m, &v, &cycle)) < 0)
			return r;
		out->type = PROFDB_TYPE_U64;
		out->as.u64 = v;
		return v != 0;
	}
	const uint64_t *c = cg->zero;
	if (ctx == 0)   /* the root: the whole profile, nothing of its own */
		r = inclusive ? profdb_cg_totals(cg, p, &c) : 0;
	else if (inclusive)
		r = profdb_cg_inclusive(cg, p, ctx - 1, &c);
	else
		r = self_of(cg, p, ctx - 1, &c);
	if (r < 0)
		return r;
	out->type = PROFDB_TYPE_U64;
	out->as.u64 = c[m];
	return c[m] != 0;
}

/* ---- the cursor ---------------------------------------------------------------------
 * ALL / PROFILE: by profile, then context, then metric. pos[0] profile,
 * pos[1] function row within the profile, pos[2] event, pos[3] 0 while on
 * functions, else the current line id + 1 (its costs in priv): per
 * profile either the function rows (sorted by function, so contexts
 * ascend; only without line contexts) or the line ids in ascending order.
 * CONTEXT: by metric, then profile. pos[2] event, pos[0] profile; a line
 * context's costs of every profile are loaded into priv at begin
 * (n_profiles x n_events), a function's are read from its rows (only
 * without line contexts: with them a function stores nothing). */

/* SCAN_CONTEXT of a line: its costs in every profile, into priv. */
static int load_line_all(const cg_query *q, profdb__cursor *cur)
{
	const profdb_cg *cg = q->cg;
	size_t ne = cg->n_events, bytes;
	int r = profdb__cg_bytes((size_t)cg->n_profiles + 1, ne + 1, sizeof(uint64_t), &bytes);
	if (r < 0)
		return r;
	uint64_t *c = calloc(1, bytes);
	if (!c)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	for (uint32_t p = 0; p < cg->n_profiles && r >= 0; p++)
		r = profdb__cgl_cost(q->lines, cur->key, p, c + (size_t)p * ne);
	if (r < 0) {
		free(c);
		return r;
	}
	cur->priv = c;
	return 0;
}

int q_cursor_begin(const void *impl, profdb__cursor *cur)
{
	const cg_query *q = impl;
	const profdb_cg *cg = q->cg;
	memset(cur->pos, 0, sizeof cur->pos);
	if (cur->scan == PROFDB_SCAN_PROFILE) {
		cur->pos[0] = cur->key;
	} else if (cur->scan == PROFDB_SCAN_CONTEXT) {
		int r = check_ctx(q, cur->key);
		cgl_row row;
		if (r == 0 && is_line(q, cur->key))
			r = profdb__cgl_row(q->lines, cur->key, &row);
		if (r < 0)
			return r;
		if (is_line(q, cur->key))
			return load_line_all(q, cur);
		if (cur->key == 0 || q->lines)   /* the root, and a function with lines, store nothing */
			cur->pos[2] = cg->n_events;
		return 0;
	}
	if (q->lines && !(cur->priv = calloc((size_t)cg->n_events + 1, sizeof(uint64_t))))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	return 0;
}

void q_cursor_free(const void *impl, profdb__cursor *cur)
{
	(void)impl;
	free(cur->priv);
	cur->priv = NULL;
}

/* Next non-zero cost of c[] from *e on. */
static int emit(const uint64_t *c, uint32_t ne, uint64_t *e, uint32_t p, uint32_t ctx,
                profdb_entry *out)
{
	while (*e < ne) {
		uint32_t m = (uint32_t)(*e)++;
		if (c[m]) {
			out->profile = p;
			out->context = ctx;
			out->metric = m;
			put_u64(&out->value, c[m]);
			return 1;
		}
	}
	return 0;
}

/* Load the costs of line @p id in profile @p p into priv; pos[3] = id + 1. */
static int load_line(const cg_query *q, profdb__cursor *cur, uint32_t p, uint32_t id)
{
	cur->pos[3] = (uint64_t)id + 1;
	cur->pos[2] = 0;
	return profdb__cgl_cost(q->lines, id, p, cur->priv);
}

/* SCAN_CONTEXT: the next non-zero value by (metric, profile). */
static int context_next(const cg_query *q, profdb__cursor *cur, profdb_entry *out)
{
	const profdb_cg *cg = q->cg;
	uint64_t *p = &cur->pos[0], *e = &cur->pos[2];
	uint32_t ne = cg->n_events, np = cg->n_profiles, ctx = cur->key;
	for (; *e < ne; ++*e, *p = 0) {
		while (*p < np) {
			uint32_t pi = (uint32_t)(*p)++, m = (uint32_t)*e;
			uint64_t v;
			if (is_line(q, ctx)) {
				v = ((const uint64_t *)cur->priv)[(size_t)pi * ne + m];
			} else {
				uint32_t rr = profdb__cg_find_row(cg, pi, ctx - 1);
				v = rr == CG_EMPTY ? 0 : cg->row_cost[(size_t)rr * ne + m];
			}
			if (v) {
				out->profile = pi;
				out->context = ctx;
				out->metric = m;
				put_u64(&out->value, v);
				return 1;
			}
		}
	}
	return 0;
}

int q_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out)
{
	const cg_query *q = impl;
	if (cur->scan == PROFDB_SCAN_CONTEXT)
		return context_next(q, cur, out);
	const profdb_cg *cg = q->cg;
	uint64_t *p = &cur->pos[0], *row = &cur->pos[1], *e = &cur->pos[2], *line = &cur->pos[3];
	uint32_t ne = cg->n_events;
	int r;
	for (; *p < cg->n_profiles; ++*p, *row = 0, *e = 0, *line = 0) {
		uint32_t pi = (uint32_t)*p;
		if (cur->scan == PROFDB_SCAN_PROFILE && pi != cur->key)
			return 0;
		if (*line == 0 && !q->lines) {   /* the functions, when they store their costs */
			const cg_profile *pr = &cg->profiles[pi];
			uint32_t lo = pr->row_first, hi = pr->row_first + pr->n_rows;
			for (; lo + *row < hi; ++*row, *e = 0) {
				uint32_t rr = lo + (uint32_t)*row;
				if (emit(cg->row_cost + (size_t)rr * ne, ne, e, pi, cg->rows[rr].fn + 1, out))
					return 1;
			}
			continue;
		}
		/* the lines, in id order */
		for (;;) {
			uint32_t id = (uint32_t)(*line ? *line - 1 : PROFDB_NONE);
			if (*line && emit(cur->priv, ne, e, pi, id, out))
				return 1;
			if ((r = profdb__cgl_next_id(q->lines, id, pi, &id)) < 0)
				return r;
			if (id == PROFDB_NONE)
				break;
			if ((r = load_line(q, cur, pi, id)) < 0)
				return r;
		}
	}
	return 0;
}

