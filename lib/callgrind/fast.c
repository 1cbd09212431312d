/* Callgrind scanner: the fast paths for the common lines. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast-internal.h"
#include "scan-internal.h"

/* ---- fast paths ------------------------------------------------------------ */

/* The common lines are read in one pass each. They start before the last
 * '\n' of the text (parser.safe_end), so a '\n' stops every scan: no bounds
 * check per byte, no memchr (a cost's digits are loaded in one word where
 * the text, not the line, has its 8 bytes: fast-internal.h). With @p crlf
 * set (a text whose lines end with "\r\n"), a "\r\n" ends a line where a
 * '\n' does (the general path drops that CR), tested only where a '\n' was
 * not found. Without it the code is the one for '\n' line ends alone: the
 * tests, though rarely reached, cost the loops over cost lines registers
 * (0.8 % more instructions on py_full_sc5). Anything else
 * (another CR, hex or long costs, leading blanks, extra tokens, a line too
 * long, every error) returns NULL with nothing changed, and the general
 * path reads the line as if the fast path had not looked at it. So the
 * fast paths need not repeat the general path's errors; where they call a
 * helper that can fail, the general path would have failed the same way
 * at the same line. On success they return the line's '\n'. */

/* A self-cost row, or ps->call_sink for a call's cost line, that a cost
 * line adds into: @p wide (n_events wide), or the narrow row @p narrow,
 * whose sums must stay below CG_WIDE (the general path moves the row). */
typedef struct {
	const parser *ps;
	uint64_t *wide;
	uint32_t *narrow;
} cost_row;

/* fast_sink's add and undo for a cost_row */
FAST int cost_add(void *ctx, uint32_t k, uint64_t x)
{
	cost_row *r = ctx;
	uint32_t e = r->ps->part.colmap[k];
	if (r->narrow) {
		uint64_t sum = (uint64_t)r->narrow[e] + x;   /* (x < 10^19) */
		if (sum >= CG_WIDE)
			return 0;
		r->narrow[e] = (uint32_t)sum;
	} else if (__builtin_add_overflow(r->wide[e], x, &r->wide[e])) {
		r->wide[e] -= x;  /* the general path names the event */
		return 0;
	}
	return 1;
}

FAST void cost_undo(void *ctx, uint32_t k, uint64_t x)
{
	cost_row *r = ctx;
	uint32_t e = r->ps->part.colmap[k];
	if (r->narrow)
		r->narrow[e] -= (uint32_t)x;
	else
		r->wide[e] -= x;
}

/* A cost line at @p s: its costs added to @p wide or @p narrow (see
 * cost_row; both NULL when the part has no columns). On success @p np
 * holds the line's positions. The caller keeps the positions in @p np (a
 * local: in registers over a run of lines) and stores them in
 * ps->part.pos after. @p text_end: the end of the readable text (the
 * mapping, or what a streamed text holds so far). */
FAST const char *fast_costs(const parser *ps, const char *s, const char *text_end,
                            uint64_t *wide, uint32_t *narrow, uint32_t n_pos,
                            uint64_t np[CG_NPOS], const int crlf)
{
	cost_row row = {.ps = ps, .wide = wide, .narrow = narrow};
	const fast_sink sink = {.add = cost_add, .undo = cost_undo, .ctx = &row};
	return fast_cost_line(s, text_end, CG_MAX_LINE, n_pos, ps->part.n_cols, np, NULL, NULL,
	                      &sink, crlf);
}

/* A name line's value "(id)\n" (or "(id)\r\n") with the id defined (a definition, blanks
 * or anything else are left to resolve_name()): a small id in its dense
 * array, a large one (every id of a parallel scan's piece) in the hash
 * index. */
FAST const char *fast_id(const parser *ps, int sp, const char *q, uint32_t *idx, const int crlf)
{
	uint64_t id;
	if (*q != '(')
		return NULL;
	q++;
	if (!fast_dec(&q, &id) || q[0] != ')')
		return NULL;
	if (q[1] != '\n') {
		if (!crlf || !fast_crlf(q + 1))
			return NULL;
		q++;
	}
	uint32_t name;
	if (id < ps->ids.limit)
		name = id < ps->ids.cap[sp] ? ps->ids.dense[sp][id] : CG_UNDEF;
	else
		name = profdb__cgs_id_get(ps, sp, id);
	if (name >= CG_UNDEF)
		return NULL;
	*idx = name;
	return q + 1;
}

/* The run of self-cost lines of the current row that starts at @p s
 * (offset @p off): every line that parses on the fast path and starts
 * before @p end. Most of a function's lines are such a run, and reading
 * it in one loop keeps the row, the line count, the body count and the
 * positions out of the per-line work. Returns the bytes consumed, 0 when
 * the first line is left to the general path; the lines after the first
 * are counted here (the caller counts the first). */
FAST int64_t cost_run(parser *ps, const char *s, uint64_t off, uint64_t end, const int crlf)
{
	const char *q = s, *nl;
	uint64_t *wide = ps->part.n_cols ? cg_self_wide(ps->cg, ps->cur.row) : NULL;
	uint32_t *narrow = ps->part.n_cols && !wide ? ps->cg->row_narrow + (size_t)ps->cur.row *
	                                                  cg_self_stride(ps->cg->n_events)
	                                            : NULL;
	uint32_t n = 0, n_pos = ps->part.n_pos;
	const char *text_end = s - off + ps->at.f->size;
	uint64_t np[CG_NPOS];
	memcpy(np, ps->part.pos, sizeof np);
	const char *stop = s + (end - off);
	/* (three loops: each with its own inlined fast_costs; the usual one,
	 * narrow rows and two positions, with n_pos a constant) */
	if (narrow && n_pos == 2) {
		while ((nl = fast_costs(ps, q, text_end, NULL, narrow, 2, np, crlf))) {
			n++;
			q = nl + 1;
			if (q >= stop || !cost_start(*q))
				break;
		}
	} else if (narrow) {
		while ((nl = fast_costs(ps, q, text_end, NULL, narrow, n_pos, np, crlf))) {
			n++;
			q = nl + 1;
			if (q >= stop || !cost_start(*q))
				break;
		}
	} else {
		while ((nl = fast_costs(ps, q, text_end, wide, NULL, n_pos, np, crlf))) {
			n++;
			q = nl + 1;
			if (q >= stop || !cost_start(*q))
				break;
		}
	}
	if (n == 0)
		return 0;
	memcpy(ps->part.pos, np, sizeof np);
	ps->at.lineno += n - 1;
	uint32_t *nb = &ps->cg->fns[ps->cur.func].n_body;
	*nb = n > UINT32_MAX - *nb ? UINT32_MAX : *nb + n;
	return q - s;
}

FAST int64_t line_fast(parser *ps, const char *s, uint64_t off, uint64_t end, const int crlf)
{
	char c0 = *s;
	const char *nl;
	uint32_t idx;
	uint64_t count, count2, tgt[CG_NPOS];   /* (the target is checked, not kept) */
	int r;
	if (cost_start(c0)) {
		if (ps->cur.pending_call) {
			/* The cost of the call: inclusive, not part of the caller's self. */
			uint64_t np[CG_NPOS];
			memcpy(np, ps->part.pos, sizeof np);
			nl = fast_costs(ps, s, s - off + ps->at.f->size,
			                ps->part.n_cols ? ps->call_sink : NULL, NULL, ps->part.n_pos, np,
			                crlf);
			if (!nl)
				return 0;
			memcpy(ps->part.pos, np, sizeof np);
			if ((r = profdb__cgs_call_cost(ps)) < 0)
				return r;
			ps->cur.pending_call = 0;
			ps->cur.cob = ps->cur.cfi = CG_EMPTY;  /* KCachegrind: cfn stays */
			return nl + 1 - s;
		}
		if (ps->cur.body == CG_EMPTY) {
			if (ps->cur.fn == CG_EMPTY)
				return 0;
			ps->at.off = off;
			if (need_body(ps) < 0)
				return 0;  /* the general path fails the same way */
		}
		return ps->cur.row == CG_EMPTY ? 0 : cost_run(ps, s, off, end, crlf);
	}
	if (c0 == '\n')
		return ps->cur.pending_call ? 0 : 1;
	if (crlf && c0 == '\r' && s[1] == '\n')
		return ps->cur.pending_call ? 0 : 2;
	if (ps->cur.pending_call || ps->part.prof == CG_EMPTY)
		return 0;
	/* The keys below end before any '\n' they are compared with. */
	switch (c0) {
	case 'f':  /* fn=, fl=, fi=, fe= */
		if ((s[1] != 'n' && s[1] != 'l' && s[1] != 'i' && s[1] != 'e') || s[2] != '=' ||
		    !(nl = fast_id(ps, s[1] == 'n' ? CG_SP_FN : CG_SP_FILE, s + 3, &idx, crlf)))
			return 0;
		ps->at.off = off;
		close_body(ps);
		set_file_fn(ps, s[1], idx);
		return nl + 1 - s;
	case 'o':
		if (s[1] != 'b' || s[2] != '=' || !(nl = fast_id(ps, CG_SP_OB, s + 3, &idx, crlf)))
			return 0;
		ps->at.off = off;
		close_body(ps);
		set_ob(ps, idx);
		return nl + 1 - s;
	case 'c':  /* cfn=, cfi=, cfl=, cob=, calls= */
		if (s[1] == '\n' || s[2] == '\n')
			return 0;
		if (s[3] == '=') {
			uint32_t *dst;
			int sp;
			if (s[1] == 'f' && s[2] == 'n')
				dst = &ps->cur.cfn, sp = CG_SP_FN;
			else if (s[1] == 'f' && (s[2] == 'i' || s[2] == 'l'))
				dst = &ps->cur.cfi, sp = CG_SP_FILE;
			else if (s[1] == 'o' && s[2] == 'b')
				dst = &ps->cur.cob, sp = CG_SP_OB;
			else
				return 0;
			if (!(nl = fast_id(ps, sp, s + 4, &idx, crlf)))
				return 0;
			if (dst == &ps->cur.cfn)
				set_cfn(ps, idx);
			else
				*dst = idx;
			return nl + 1 - s;
		}
		if (s[3] != 'l' || s[4] != 's' || s[5] != '=' || s[1] != 'a' || s[2] != 'l' ||
		    !(nl = fast_target(s + 6, 0, ps->part.n_pos, ps->part.pos, tgt, &count, &count2,
		                       crlf)) ||
		    nl - s > (int64_t)CG_MAX_LINE)
			return 0;
		ps->at.off = off;
		if ((r = need_body(ps)) < 0 || (r = add_call(ps, count)) < 0)
			return r;
		return nl + 1 - s;
	case 'j':  /* jump=, jcnd= */
		if (!((s[1] == 'u' && s[2] == 'm' && s[3] == 'p') ||
		      (s[1] == 'c' && s[2] == 'n' && s[3] == 'd')) ||
		    s[4] != '=' ||
		    !(nl = fast_target(s + 5, s[1] == 'c', ps->part.n_pos, ps->part.pos, tgt, &count,
		                       &count2, crlf)) ||
		    nl - s > (int64_t)CG_MAX_LINE)
			return 0;
		ps->at.off = off;
		ps->at.next_off = off + (uint64_t)(nl + 1 - s);
		if ((r = need_body(ps)) < 0)
			return r;
		end_jump(ps);
		return nl + 1 - s;
	}
	return 0;
}

/* The lines from @p off on while the fast paths take them and start
 * before @p end, in one loop: a call per line, with the saving and
 * restoring of registers that the large line_fast() needs, would cost
 * more than many of the lines themselves. */
FAST int64_t lines_fast(parser *ps, uint64_t off, uint64_t end, const int crlf)
{
	const char *text = ps->at.f->text;
	while (off < end) {
		ps->at.lineno++;
		int64_t used = line_fast(ps, text + off, off, end, crlf);
		if (used <= 0) {
			if (used < 0)
				return used;
			ps->at.lineno--;   /* (the general path counts it) */
			break;
		}
		off += (uint64_t)used;
	}
	return (int64_t)off;
}

int64_t fast_lines(parser *ps, uint64_t off, uint64_t end)
{
	return lines_fast(ps, off, end, 0);
}

int64_t fast_lines_crlf(parser *ps, uint64_t off, uint64_t end)
{
	return lines_fast(ps, off, end, 1);
}

/* Content detection, as KCachegrind does it. */

