/* Callgrind: what the open leaves to first use.
 *
 * The open keeps the self costs of every (profile, function), the
 * functions, names and profiles. Two larger tables wait until a query
 * needs them, because the commonest uses of a profile never do:
 *  - the call rows (per profile and call edge, a count and a cost row),
 *    then the edges: for inclusive costs, call edges and the context
 *    tree, not for a ranking by self cost or the totals. In a 69 MB
 *    profile they are 106 164 rows, 13.5 MB with their hash index. The
 *    open records each calls= line instead (its caller, callee and
 *    offset: 16 bytes, 2.1 MB there) and its count and costs, compressed
 *    (call-costs.c: 2.2 MB there), and the first query of calls makes the
 *    rows from those records, without reading the text again;
 *  - the list of each function's blocks, which detail.c decodes for
 *    line/instruction detail: the open records one block per run of a
 *    function's lines (fn= to the next fn=, ob= or part: 82 k blocks of
 *    12 bytes in that profile, blocks.c) and keeps each file's compressed
 *    names, with which detail.c follows the file and jump-target changes
 *    inside a block; a block's calls are the recorded calls= lines. Where
 *    the final names do not tell what a name line inside a block meant
 *    (an id defined again later, used before its definition, forgotten
 *    at a "====" line; a file or function named literally) the open
 *    recorded that too (names.c, cg_ids), only for those lines: the first
 *    detail request links each function's blocks and reads nothing else.
 *
 * The open checks every call's count and cost line but sums neither, so a
 * call count or call cost over 64 bits is found when the call rows are
 * made: that query, and every later one that needs the calls, fails with
 * the file, line and offset (for that message only, the line is found in
 * the text). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

/* ---- the call rows ----------------------------------------------------- */

/* The call rows of one profile are keyed by (profile, caller, callee). */
static uint32_t crow_tag(const cg_crow *c)
{
	return (uint32_t)(profdb__mix64(((uint64_t)c->profile << 32 | c->caller) ^
	                                profdb__mix64(c->callee)) >> 32);
}

static int crow_eq(const void *ctx, uint32_t e, const void *key)
{
	const cg_crow *c = &((const profdb_cg *)ctx)->crows[e], *k = key;
	return c->callee == k->callee && c->caller == k->caller && c->profile == k->profile;
}

/* The row of (profile, caller, callee), created (zero) on first use. */
static int find_crow(profdb_cg *cg, profdb__tmap *m, const cg_crow *k, uint32_t *out)
{
	uint32_t tag = crow_tag(k);
	profdb__tslot *slot = profdb__tmap_slot(m, tag, crow_eq, cg, k);
	if (slot->row1) {
		*out = slot->row1 - 1;
		return 0;
	}
	int r = profdb__cgs_grow_rows((void **)&cg->crows, &cg->crow_cost, &cg->cap_crows,
	                              cg->n_crows, sizeof *cg->crows, cg->n_events);
	if (r < 0)
		return r;
	*out = cg->n_crows;
	cg->crows[cg->n_crows] = *k;
	*slot = (profdb__tslot){++cg->n_crows, tag};
	return profdb__tmap_added(m);
}

/* A parser standing at the line at @p off of profile @p p's file, for the
 * messages of profdb__cgs_read_costs and perr (the line counted only for
 * a message: an error is rare, counting is a pass over the text). */
static void stand_at(parser *ps, const profdb_cg *cg, const cg_profile *p, uint64_t off,
                     int count_line)
{
	cg_file *f = &cg->files[p->file];
	ps->at.f = f;
	ps->at.file = p->file;
	ps->at.off = off;
	ps->at.lineno = 1;
	for (const char *q = f->text; count_line && (q = memchr(q, '\n', (size_t)(f->text + off - q)));
	     q++)
		ps->at.lineno++;
}

/* The error of an overflowing sum in the row of call @p c of profile
 * @p pi (@p row as it was before the call): the line's number counted,
 * and the count or cost line read again from the text for the message
 * the scan would give. */
static int call_overflow(profdb_cg *cg, parser *ps, uint32_t pi, const cg_call *c,
                         const uint64_t *row, int count)
{
	const cg_profile *p = &cg->profiles[pi];
	const cg_file *f = &cg->files[p->file];
	if (count) {
		stand_at(ps, cg, p, c->off, 1);
		return perr(ps, -EBADMSG, "call count overflows 64 bits");
	}
	const char *nl = memchr(f->text + c->off, '\n', (size_t)(f->size - c->off));
	const char *line = nl ? nl + 1 : f->text + f->size, *end = f->text + f->size;
	const char *e = memchr(line, '\n', (size_t)(end - line));
	end = e ? e : end;
	if (end > line && end[-1] == '\r')   /* as the scanner reads a line */
		end--;
	while (end > line && cg_is_space(end[-1]))
		end--;
	const char *q = line, *t;
	size_t n;
	for (uint32_t k = 0; k < p->n_pos; k++)
		cg_tok(&q, end, &t, &n);
	ps->part.n_cols = p->n_cols;
	memcpy(ps->part.colmap, cg->cols + p->col_first, p->n_cols * sizeof *ps->part.colmap);
	uint64_t before[CG_MAX_EVENTS];
	memcpy(before, row, cg->n_events * sizeof *before);
	stand_at(ps, cg, p, (uint64_t)(line - f->text), 1);
	int r = profdb__cgs_read_costs(ps, q, end, before, "inclusive call cost");
	return r < 0 ? r : profdb__fail(-EIO, "%s: the cost line at offset %" PRIu64 " does not "
	                                "overflow (was the file changed while open?)", f->label,
	                                (uint64_t)(line - f->text));
}

/* Add call @p c of profile @p pi to its row: its count and costs from the
 * scan's record at *rec (call-costs.c), which moves to the next call. */
static int add_recorded_call(profdb_cg *cg, profdb__tmap *m, uint32_t pi, const cg_call *c,
                             parser *ps, const unsigned char **rec)
{
	cg_crow key = {pi, c->caller, c->callee, 0, 0};
	uint32_t i, k;
	uint64_t count, v[CG_MAX_EVENTS];
	int r = find_crow(cg, m, &key, &i);
	if (r < 0)
		return r;
	if (!(*rec = profdb__cg_call_cost_next(cg, *rec, &count, v, &k)))
		return profdb__fail(-EIO, "callgrind: internal error: no recorded cost for the call "
		                    "at offset %" PRIu64, c->off);
	cg_crow *w = &cg->crows[i];
	uint64_t *row = cg->crow_cost + (size_t)i * cg->n_events;
	if (count > UINT64_MAX - w->count)
		return call_overflow(cg, ps, pi, c, row, 1);
	for (uint32_t e = 0; e < k; e++)
		if (v[e] > UINT64_MAX - row[e])
			return call_overflow(cg, ps, pi, c, row, 0);   /* the row as it was */
	w->count += count;
	for (uint32_t e = 0; e < k; e++)
		row[e] += v[e];
	return 0;
}

/* The call rows from the scan's record of the calls, in text order (so
 * rows and edges are numbered as a scan that kept them would), then the
 * edges. The record is not needed after. */
static int make_calls(void *arg)
{
	profdb_cg *cg = arg;
	profdb__tmap m;
	memset(&m, 0, sizeof m);
	parser *ps = calloc(1, sizeof *ps);
	int r = ps ? profdb__tmap_init(&m) : profdb__fail(-ENOMEM, "callgrind: out of memory");
	if (r == 0) {
		ps->cg = cg;
		memset(&ps->warned, 1, sizeof ps->warned);   /* the open gave them */
		/* every calls= line makes at most one row: room for them all at
		 * once, so the tables never move (a hint) */
		profdb__cg_reserve_costed((void **)&cg->crows, &cg->crow_cost, &cg->cap_crows,
		                          cg->n_calls, sizeof *cg->crows, cg->n_events);
	}
	const unsigned char *rec = cg->ccost;
	for (uint32_t pi = 0; pi < cg->n_profiles && r == 0; pi++) {
		uint32_t last = pi + 1 < cg->n_profiles ? cg->profiles[pi + 1].call_first : cg->n_calls;
		for (uint32_t c = cg->profiles[pi].call_first; c < last && r == 0; c++)
			r = add_recorded_call(cg, &m, pi, &cg->calls[c], ps, &rec);
	}
	profdb__tmap_free(&m);
	free(ps);
	if (r < 0)
		return r;
	free(cg->ccost);
	cg->ccost = NULL;
	cg->n_ccost = cg->cap_ccost = 0;
	if (cg->n_events != cg->n_stored)
		for (uint32_t i = 0; i < cg->n_crows; i++)
			profdb__cg_derive(cg, cg->crow_cost + (size_t)i * cg->n_events);
	return profdb__cg_finish_calls(cg);
}

/* Each function's first block and the chain of its blocks. */
static int link_blocks(void *arg)
{
	profdb_cg *cg = arg;
	if (!(cg->blk_first = malloc(((size_t)cg->n_fns + 1) * sizeof *cg->blk_first)))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	return profdb__cg_blk_chain(cg);
}

/* The once-guards make the one write visible to every reader. */
int profdb__cg_calls(const profdb_cg *cg)
{
	profdb_cg *m = (profdb_cg *)(uintptr_t)cg;
	return profdb__once_run(&m->calls_once, make_calls, m);
}

int profdb__cg_blocks(const profdb_cg *cg)
{
	profdb_cg *m = (profdb_cg *)(uintptr_t)cg;
	return profdb__once_run(&m->blks_once, link_blocks, m);
}
