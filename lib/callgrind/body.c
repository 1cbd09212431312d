/* Callgrind scanner: body lines on the general path (cost lines, calls=,
 * jump=/jcnd=, fn=/fl=/fi=/fe=/ob= and the other name lines). fast.c
 * reads the common forms of the same lines first, with the same effect. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

int need_fn(parser *ps)
{
	if (ps->cur.row != CG_EMPTY)
		return 0;
	if (ps->cur.fn == CG_EMPTY)
		return perr(ps, -EBADMSG, "cost, calls= or jump line before any fn= line");
	/* (object, the fl= file in effect at fn=, name), as KCachegrind: fi=/
	 * fe= never change the function, and without any fl= (gprof2dot
	 * writes only fi=) every function has the file "" */
	int r = get_fn(ps, ps->cur.ob == CG_EMPTY ? 0 : ps->cur.ob,
	               ps->cur.fn_fl == CG_EMPTY ? 0 : ps->cur.fn_fl, ps->cur.fn, &ps->cur.func);
	if (r < 0)
		return r;
	return get_row(ps, ps->cur.func, &ps->cur.row);
}

/* A body line at the current line: "a body line since the last name
 * line" (cur.body), and the block of the current function (a new one when
 * the function changed). */
int need_body(parser *ps)
{
	if (ps->cur.body != CG_EMPTY)
		return 0;
	int r = need_fn(ps);
	if (r < 0)
		return r;
	ps->part.has_body = 1;
	profdb_cg *cg = ps->cg;
	if (ps->cur.blk == CG_EMPTY || profdb__cgs_blk_fn(cg, ps->cur.blk) != ps->cur.func) {
		profdb__cgs_close_blk(ps);
		if ((r = profdb__cgs_blk_open(ps)) < 0)
			return r;
	}
	ps->cur.body = 0;
	return 0;
}

int profdb__cgs_note_body_name(parser *ps, const char *v, size_t n, uint32_t name)
{
	cg_ids *t = &ps->ids;
	if (ps->cur.blk == CG_EMPTY)
		return 0;   /* the block's start state holds it */
	while (n && cg_is_space(*v)) {
		v++;
		n--;
	}
	if (n >= 3 && v[0] == '(' && cg_is_digit(v[1])) {
		size_t i = 2;
		while (i < n && cg_is_digit(v[i]))
			i++;
		if (i < n && v[i] == ')')
			return 0;   /* compressed: the ids tell (names.c) */
	}
	int r = grow((void **)&t->lit, &t->cap_lit, (uint64_t)t->n_lit + 1, sizeof *t->lit);
	if (r == 0)
		t->lit[t->n_lit++] = (cg_litname){ps->at.off, name};
	return r;
}

static int add_checked(parser *ps, uint64_t *d, uint64_t x, uint32_t e, const char *what)
{
	if (__builtin_add_overflow(*d, x, d)) {
		const cg_name *n = &ps->cg->events[e].name;
		return perr(ps, -EBADMSG, "%s of event %.*s overflows 64 bits", what, SHOWN(n->len),
		            n->p);
	}
	return 0;
}

/* ---- body lines ------------------------------------------------------------ */

/* The subpositions of a cost line into ps->part.pos. */
static int read_position(parser *ps, const char **p, const char *end)
{
	uint64_t np[CG_NPOS];
	const char *t;
	size_t n;
	for (uint32_t c = 0; c < ps->part.n_pos; c++) {
		if (!cg_tok(p, end, &t, &n))
			return perr(ps, -EBADMSG, "cost line has fewer than %u positions", ps->part.n_pos);
		int r = profdb__cg_subpos(t, n, ps->part.pos[c], &np[c]);
		if (r < 0)
			return bad_number(ps, r, "position", t, n);
	}
	memcpy(ps->part.pos, np, ps->part.n_pos * sizeof np[0]);
	return 0;
}

int profdb__cgs_read_costs(parser *ps, const char *p, const char *end, uint64_t *dst,
                      const char *what)
{
	const char *t;
	size_t n;
	uint32_t k = 0;
	for (;;) {
		while (p < end && cg_is_space(*p))
			p++;
		if (p == end)
			return 0;
		/* Fast path: a decimal of at most 19 digits (cannot overflow). */
		uint64_t x = 0;
		const char *q = p;
		while (q < end && q - p < 19) {
			unsigned d = (unsigned)(unsigned char)*q - '0';
			if (d > 9)
				break;
			x = x * 10 + d;
			q++;
		}
		if (q > p && (q == end || cg_is_space(*q))) {
			p = q;
		} else {
			/* Hex, 20 digits, negative or garbage: the general parser. */
			t = p;
			n = 0;
			cg_tok(&p, end, &t, &n);
			int r = profdb__cg_u64(t, n, &x);
			if (r < 0) {
				if (t[0] == '-' && n > 1 && profdb__cg_u64(t + 1, n - 1, &x) == 0) {
					if (once(&ps->warned.neg))
						pwarn(ps,
						      "negative cost \"%.*s\" counted as 0 (further ones silently)",
						      SHOWN(n), t);
					x = 0;
				} else {
					return bad_number(ps, r, "cost", t, n);
				}
			}
		}
		if (k >= ps->part.n_cols) {
			if (once(&ps->warned.extra))
				pwarn(ps, "more costs than events; extra costs ignored (further ones "
				          "silently)");
			return 0;
		}
		uint32_t e = ps->part.colmap[k++];
		uint64_t sum;
		if (__builtin_add_overflow(dst[e], x, &sum))
			return add_checked(ps, &dst[e], x, e, what);  /* fails, names the event */
		dst[e] = sum;
	}
}


int cost_line(parser *ps, const char *p, const char *end)
{
	profdb_cg *cg = ps->cg;
	int r;
	if (ps->cur.pending_call) {
		/* The cost of the call: inclusive, not part of the caller's self. */
		ps->cur.pending_call = 0;
		r = read_position(ps, &p, end);
		if (r < 0)
			return r;
		ps->cur.cob = ps->cur.cfi = CG_EMPTY;  /* KCachegrind: cfn stays */
		r = profdb__cgs_read_costs(ps, p, end, ps->call_sink, "inclusive call cost");
		return r < 0 ? r : profdb__cgs_call_cost(ps);
	}
	if (ps->cur.fn != CG_EMPTY) {
		r = need_body(ps);
		if (r < 0)
			return r;
	}
	r = read_position(ps, &p, end);
	if (r < 0)
		return r;
	if (ps->cur.body != CG_EMPTY)
		count_body(ps);
	while (p < end && cg_is_space(*p))
		p++;
	if (p == end)
		return 0;  /* a position-only line (after a jump) */
	if (ps->part.n_cols == 0)
		return perr(ps, -EBADMSG, "cost line before any events: line");
	r = need_fn(ps);
	if (r < 0)
		return r;
	uint64_t *wide = cg_self_wide(cg, ps->cur.row);
	if (wide)
		return profdb__cgs_read_costs(ps, p, end, wide, "self cost");
	/* a narrow row: its sums on 64 bits, then back (moved when they need it) */
	uint64_t v[CG_MAX_EVENTS];
	profdb__cg_self_get(cg, ps->cur.row, v);
	r = profdb__cgs_read_costs(ps, p, end, v, "self cost");
	return r < 0 ? r : profdb__cg_self_put(cg, ps->cur.row, v);
}

/* The count(s) and the target of calls=, jump=, jcnd=. Targets are relative
 * to the current position and do not change it. */
static int target_line(parser *ps, const char *key, const char *p, const char *end,
                       uint64_t *count_out)
{
	const char *t;
	size_t n;
	uint64_t x;
	int r;
	if (!cg_tok(&p, end, &t, &n))
		return perr(ps, -EBADMSG, "%s line without a count", key);
	const char *slash = memchr(t, '/', n);
	size_t cn = slash ? (size_t)(slash - t) : n;
	r = profdb__cg_u64(t, cn, &x);
	if (r < 0) {
		if (cn > 1 && t[0] == '-' && profdb__cg_u64(t + 1, cn - 1, &x) == 0) {
			if (once(&ps->warned.negcount))
				pwarn(ps, "negative %s count \"%.*s\" counted as 0 (further ones silently)",
				      key, SHOWN(cn), t);
			x = 0;
		} else {
			return bad_number(ps, r, key, t, cn);
		}
	}
	if (slash && key[1] != 'c')
		/* Only jcnd= has two counts (executed/jumped); detail.c would read
		 * "jump=3/7" as a jump taken 7 times of 3. */
		return perr(ps, -EBADMSG, "%s count \"%.*s\" has two numbers (only jcnd= has "
		            "executed/jumped)", key, SHOWN(n), t);
	if (slash) {
		uint64_t y;
		r = profdb__cg_u64(slash + 1, n - cn - 1, &y);
		if (r < 0)
			return bad_number(ps, r, key, slash + 1, n - cn - 1);
	} else if (key[1] == 'c') {
		/* jcnd= in the spec's "exe-count jump-count" form: the second number
		 * comes before the target. */
		const char *q = p;
		if (cg_tok(&q, end, &t, &n) && profdb__cg_u64(t, n, &x) == 0 && cg_tok(&q, end, &t, &n))
			p = q - n;
	}
	*count_out = x;
	/* As many subpositions as are given (some writers give only the line),
	 * each checked; extra tokens (Xdebug's "calls=1 0 0") are ignored. */
	for (uint32_t c = 0; c < ps->part.n_pos && cg_tok(&p, end, &t, &n); c++) {
		uint64_t dummy;
		r = profdb__cg_subpos(t, n, ps->part.pos[c], &dummy);
		if (r < 0)
			return bad_number(ps, r, "target position", t, n);
	}
	return 0;
}

/* cfn=: the callee of the following calls= lines is bound here, as
 * KCachegrind does: (the cob= given since the previous call, else the
 * current object; the cfi=/cfl= given since the previous call, else the
 * current file -- the fl= file, or the fi=/fe= file given since fn=, as
 * callgrind leaves cfi= out when the callee's file is the current one; the
 * name). A cob=, cfi= or cfl= after cfn= does not change it (gprof2dot's
 * bzr.callgrind writes cfi= after cfn=). */
void set_cfn(parser *ps, uint32_t idx)
{
	ps->cur.cfn = idx;
	ps->cur.cfn_ob = ps->cur.cob != CG_EMPTY ? ps->cur.cob : ps->cur.ob != CG_EMPTY ? ps->cur.ob : 0;
	ps->cur.cfn_fl = ps->cur.cfi != CG_EMPTY     ? ps->cur.cfi
	               : ps->cur.kfile != CG_EMPTY ? ps->cur.kfile
	                                           : 0;
}

/* A calls= line after its value is read: the row of the call, to the
 * callee bound at cfn= (set_cfn). */
int add_call(parser *ps, uint64_t count)
{
	profdb_cg *cg = ps->cg;
	int r;
	if (ps->cur.cfn == CG_EMPTY)
		return perr(ps, -EBADMSG, "calls= without a preceding cfn=");
	if (ps->part.n_cols == 0)
		return perr(ps, -EBADMSG, "calls= line before any events: line");
	uint32_t callee, callee_row;
	r = get_fn(ps, ps->cur.cfn_ob, ps->cur.cfn_fl, ps->cur.cfn, &callee);
	if (r < 0)
		return r;
	r = get_row(ps, callee, &callee_row);  /* the callee is part of the profile */
	if (r < 0)
		return r;
	/* the line, for the call rows made on first use (first-use.c) */
	r = grow((void **)&cg->calls, &cg->cap_calls, (uint64_t)cg->n_calls + 1, sizeof *cg->calls);
	if (r < 0)
		return r;
	cg->calls[cg->n_calls++] = (cg_call){ps->cur.func, callee, ps->at.off};
	if ((r = profdb__cgs_call_count(ps, count)) < 0)
		return r;
	memset(ps->call_sink, 0, cg->n_events * sizeof *ps->call_sink);
	if (ps->cur.cfn == CG_PH_CFN && ps->spec.on)
		ps->spec.used_cfn = 1;
	ps->cur.pending_call = 1;
	return 0;
}

static int calls_line(parser *ps, const char *v, const char *end)
{
	uint64_t count;
	int r = need_body(ps);
	if (r < 0)
		return r;
	r = target_line(ps, "calls=", v, end, &count);
	if (r < 0)
		return r;
	return add_call(ps, count);
}

/* The effect of fn=, fl=, fi= or fe= (@p k: the key's second letter) once
 * the name is known (and close_body() called). */
void set_file_fn(parser *ps, char k, uint32_t idx)
{
	if (k == 'n') {
		profdb__cgs_close_blk(ps);
		ps->cur.fn = idx;
		ps->cur.fn_fl = ps->cur.kfile = ps->cur.fl;  /* the function's file */
		if (ps->cur.fl != CG_EMPTY)  /* back to the function's file (KCachegrind) */
			ps->cur.fi = ps->cur.fl;
		ps->cur.func = ps->cur.row = CG_EMPTY;
		ps->cur.jfl = ps->cur.jfn = CG_EMPTY;
	} else if (k == 'l') {
		ps->cur.fl = ps->cur.fi = ps->cur.kfile = idx;
		ps->cur.func = ps->cur.row = CG_EMPTY;
	} else {
		ps->cur.fi = ps->cur.kfile = idx;
	}
}

void set_ob(parser *ps, uint32_t idx)
{
	profdb__cgs_close_blk(ps);
	ps->cur.ob = idx;
	ps->cur.func = ps->cur.row = CG_EMPTY;
}

/* After jump=/jcnd=: jfi=/jfn= name the target of the next jump only
 * (detail.c forgets them there too). */
void end_jump(parser *ps)
{
	if (ps->cur.jfl != CG_EMPTY || ps->cur.jfn != CG_EMPTY) {
		ps->cur.body = CG_EMPTY;
		ps->cur.jfl = ps->cur.jfn = CG_EMPTY;
	}
}

int spec_line(parser *ps, const char *k, size_t kn, const char *v, const char *end)
{
	size_t n = (size_t)(end - v);
	uint32_t idx;
	int r;
	switch (kn) {
	case 2:
		if (k[0] == 'f' && (k[1] == 'n' || k[1] == 'l' || k[1] == 'i' || k[1] == 'e')) {
			close_body(ps);
			r = resolve_name(ps, k[1] == 'n' ? CG_SP_FN : CG_SP_FILE, v, n, &idx);
			if (r >= 0 && k[1] != 'n')
				r = profdb__cgs_note_body_name(ps, v, n, idx);
			if (r < 0)
				return r;
			set_file_fn(ps, k[1], idx);
			return 0;
		}
		if (k[0] == 'o' && k[1] == 'b') {
			close_body(ps);
			r = resolve_name(ps, CG_SP_OB, v, n, &idx);
			if (r < 0)
				return r;
			set_ob(ps, idx);
			return 0;
		}
		break;
	case 3:
		if (key_is(k, kn, "cfn")) {
			r = resolve_name(ps, CG_SP_FN, v, n, &idx);
			if (r < 0)
				return r;
			set_cfn(ps, idx);
			return 0;
		}
		if (key_is(k, kn, "cfi") || key_is(k, kn, "cfl"))
			return resolve_name(ps, CG_SP_FILE, v, n, &ps->cur.cfi);
		if (key_is(k, kn, "cob"))
			return resolve_name(ps, CG_SP_OB, v, n, &ps->cur.cob);
		if (key_is(k, kn, "jfi") || key_is(k, kn, "jfn")) {
			close_body(ps);
			uint32_t *dst = k[2] == 'i' ? &ps->cur.jfl : &ps->cur.jfn;
			r = resolve_name(ps, k[2] == 'i' ? CG_SP_FILE : CG_SP_FN, v, n, dst);
			return r < 0 ? r : profdb__cgs_note_body_name(ps, v, n, *dst);
		}
		break;
	case 4:
		if (key_is(k, kn, "jump") || key_is(k, kn, "jcnd")) {
			uint64_t count;
			r = need_body(ps);
			if (r < 0)
				return r;
			r = target_line(ps, k[1] == 'u' ? "jump=" : "jcnd=", v, end, &count);
			end_jump(ps);
			return r;
		}
		break;
	case 5:
		if (key_is(k, kn, "calls"))
			return calls_line(ps, v, end);
		break;
	}
	/* Unknown key= line (rec=, frfn=, bb=, ln=, cfni=, ...): skipped with a
	 * warning; a name definition it carries is registered by the key's
	 * suffix so later references resolve. */
	if (once(&ps->warned.unknown))
		pwarn(ps, "unknown line \"%.*s=\" skipped (further unknown lines silently)",
		      SHOWN(kn), k);
	if (n >= 2 && v[0] == '(' && cg_is_digit(v[1]) && kn >= 2) {
		int sp = -1;
		const char *sfx = k + kn - 2;
		if (memcmp(sfx, "fn", 2) == 0)
			sp = CG_SP_FN;
		else if (memcmp(sfx, "ob", 2) == 0)
			sp = CG_SP_OB;
		else if (memcmp(sfx, "fl", 2) == 0 || memcmp(sfx, "fi", 2) == 0 ||
		         memcmp(sfx, "fe", 2) == 0)
			sp = CG_SP_FILE;
		const char *q = memchr(v, ')', n);
		if (sp >= 0 && q && (size_t)(end - q) > 1)  /* a definition, not a use */
			return resolve_name(ps, sp, v, n, &idx);
	}
	return 0;
}


