/* A function's cost lines as the text has them, for a writer that copies
 * them (profdb__cg_detail_copy; the Callgrind writer, through
 * query-native.c): the detail decoder (detail.c) walks the blocks as for
 * any detail and hands each run of cost lines here instead of making
 * rows. A line is copied only where the output reads it back as the
 * input does: its part's positions and columns are the output's, a '\n'
 * ends it (no CR), and its relative subpositions are decimal
 * (callgrind_annotate reads "+0x10" as +0). Its costs are still read and
 * summed, so that the decoder's check against the self costs refuses a
 * text that changed under the mapping. */
#include <string.h>

#include "detail-internal.h"
#include "fast-internal.h"

int profdb__cg_copy_fits(const dstate *s)
{
	const cg_copy *out = s->d->copy;
	const profdb_cg *cg = s->d->cg;
	const cg_profile *p = s->p;
	if (out->instr ? !(p->n_pos == 2 && p->pos_kind[0] == CG_POS_INSTR &&
	                   p->pos_kind[1] == CG_POS_LINE)
	               : !(p->n_pos == 1 && p->pos_kind[0] == CG_POS_LINE))
		return 0;
	if (p->n_cols > out->n_cols)
		return 0;
	for (uint32_t k = 0; k < p->n_cols; k++)
		if (cg->cols[p->col_first + k] != out->cols[k])
			return 0;
	/* a column past the part's is 0 when read back: not so a derived one */
	for (size_t k = 0; k < out->n_cols; k++)
		if (out->cols[k] >= cg->n_stored)
			return 0;
	return 1;
}

/* The position of the cost line at @p q (read already: its positions
 * are well formed) relative to @p from: its bytes, or 0 when a relative
 * one is in hex. */
static size_t first_pos(const char *q, uint32_t n_pos, const uint64_t from[CG_NPOS],
                        uint64_t pos[CG_NPOS])
{
	const char *p = q;
	pos[1] = from[1];
	if (!fast_subpos(&p, from[0], &pos[0], 1))
		return 0;
	if (n_pos > 1 && (p++, !fast_subpos(&p, from[1], &pos[1], 1)))
		return 0;
	return (size_t)(p - q);
}

static void run_pos(const dstate *s, const uint64_t *pos, uint64_t *instr, uint64_t *line)
{
	*instr = cg_pos_col(pos, s->col_instr);
	*line = cg_pos_col(pos, s->col_line);
}

/* The detail's sums per event and how many times each wrapped, added to
 * by column (fast_sink's add and undo, in the reader's loop). */
typedef struct event_sums {
	uint64_t *sum, *carry;
	const uint32_t *cols;
} event_sums;

FAST int sum_add(void *ctx, uint32_t k, uint64_t x)
{
	const event_sums *c = ctx;
	uint32_t e = c->cols[k];
	c->carry[e] += __builtin_add_overflow(c->sum[e], x, &c->sum[e]);
	return 1;
}

FAST void sum_undo(void *ctx, uint32_t k, uint64_t x)
{
	const event_sums *c = ctx;
	uint32_t e = c->cols[k];
	c->carry[e] -= c->sum[e] < x;
	c->sum[e] -= x;
}

int profdb__cg_copy_run(dstate *s, const char **qp, const char *lim)
{
	profdb_cg_detail *d = s->d;
	const char *q0 = *qp, *q = q0;
	const uint32_t n_pos = s->p->n_pos, n_cols = s->p->n_cols;
	uint64_t np[CG_NPOS] = {s->pos[0], s->pos[1]};
	cg_run run = {.src = s->src, .text = q0};
	run_pos(s, s->pos, &run.from_instr, &run.from_line);
	event_sums c = {d->sum, d->sum_carry, n_cols ? d->cg->cols + s->p->col_first : NULL};
	const fast_sink sink = {.add = sum_add, .undo = sum_undo, .ctx = &c};
	for (;;) {
		const char *nl = fast_cost_line(q, lim, UINT64_MAX, n_pos, n_cols, np, NULL, NULL, &sink,
		                                FAST_DEC_REL);
		if (!nl)
			break;   /* the general path reads this line */
		q = nl + 1;
		if (q == lim || !cost_start(*q))
			break;
	}
	uint64_t first[CG_NPOS];
	if (q == q0 || !(run.pos_len = first_pos(q0, n_pos, s->pos, first)))
		return CG_NOT_COPIED;
	run_pos(s, first, &run.instr, &run.line);
	s->pos[0] = np[0];
	s->pos[1] = np[1];
	run_pos(s, s->pos, &run.last_instr, &run.last_line);
	run.len = (size_t)(q - q0);
	*qp = q;
	return d->copy->run(d->copy->ctx, d, &run);
}

int profdb__cg_copy_call(dstate *s, const char *p, const char *eol, const uint64_t from[CG_NPOS],
                         uint32_t i)
{
	uint64_t pos[CG_NPOS];
	cg_run run = {.src = s->src, .text = p, .len = (size_t)(eol + 1 - p)};
	if (eol[-1] == '\r' || !(run.pos_len = first_pos(p, s->p->n_pos, from, pos)))
		return CG_NOT_COPIED;
	run_pos(s, from, &run.from_instr, &run.from_line);
	run_pos(s, s->pos, &run.instr, &run.line);
	run.last_instr = run.instr;
	run.last_line = run.line;
	return s->d->copy->call(s->d->copy->ctx, s->d, i, &run);
}
