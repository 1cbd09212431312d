/* Callgrind scanner: parts (a profile each) and header lines (events:,
 * positions:, event:, part:, pid:, thread:, summary:, totals:, cmd:,
 * desc:, version:). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

/* ---- parts and rows ------------------------------------------------------- */

static void reset_names(parser *ps)
{
	ps->cur.ob = ps->cur.fl = ps->cur.fi = ps->cur.fn = ps->cur.fn_fl = ps->cur.kfile = CG_EMPTY;
	ps->cur.cob = ps->cur.cfi = ps->cur.cfn = ps->cur.jfl = ps->cur.jfn = CG_EMPTY;
	ps->cur.cfn_ob = ps->cur.cfn_fl = CG_EMPTY;
	ps->cur.func = ps->cur.row = CG_EMPTY;
}

void close_body(parser *ps)
{
	ps->cur.body = CG_EMPTY;
}

void profdb__cgs_close_blk(parser *ps)
{
	close_body(ps);
	ps->cur.blk = CG_EMPTY;   /* (its end is found by the decoder) */
}

/* End the current part (a new one starts at the next line that needs it). */
void end_part(parser *ps)
{
	profdb__cgs_close_blk(ps);
	ps->part.prof = CG_EMPTY;
	ps->part.has_events = 0;
	ps->part.has_body = 0;
	ps->part.n_pos = 1;
	ps->part.pos_kind[0] = CG_POS_LINE;
	memset(ps->part.pos, 0, sizeof ps->part.pos);
	reset_names(ps);
}

/* Record the current column map as the current profile's (detail.c). */
int save_cols(parser *ps)
{
	profdb_cg *cg = ps->cg;
	int r = grow((void **)&cg->cols, &cg->cap_cols, (uint64_t)cg->n_cols + ps->part.n_cols,
	                        sizeof *cg->cols);
	if (r < 0)
		return r;
	if (ps->part.n_cols)  /* cols is NULL until the first events: */
		memcpy(cg->cols + cg->n_cols, ps->part.colmap, ps->part.n_cols * sizeof *cg->cols);
	cg->profiles[ps->part.prof].col_first = cg->n_cols;
	cg->profiles[ps->part.prof].n_cols = ps->part.n_cols;
	cg->n_cols += ps->part.n_cols;
	return 0;
}

int need_part(parser *ps)
{
	profdb_cg *cg = ps->cg;
	if (ps->part.prof != CG_EMPTY)
		return 0;
	size_t old = cg->cap_profiles;
	int r = grow((void **)&cg->profiles, &cg->cap_profiles, (uint64_t)cg->n_profiles + 1,
	             sizeof *cg->profiles);
	if (r < 0)
		return r;
	if (old != cg->cap_profiles && cg->n_events) {
		size_t ne = cg->n_events, cap = cg->cap_profiles, bytes;
		if ((r = profdb__cg_bytes(cap, ne, sizeof(uint64_t), &bytes)) < 0)
			return r;
		uint64_t **t[3] = {&cg->p_totals, &cg->p_summary, &cg->p_totline};
		for (int i = 0; i < 3; i++) {
			uint64_t *q = realloc(*t[i], bytes);
			if (!q)
				return profdb__fail(-ENOMEM, "callgrind: out of memory");
			memset(q + old * ne, 0, (cap - old) * ne * sizeof *q);
			*t[i] = q;
		}
	}
	uint32_t p = cg->n_profiles++;
	cg_profile *pr = &cg->profiles[p];
	memset(pr, 0, sizeof *pr);
	pr->file = ps->at.file;
	pr->call_first = cg->n_calls;
	pr->blk_first = cg->n_blks;
	/* pid:, thread: and cmd: hold for the later parts of a file until
	 * redefined (valgrind writes them once, before part 1) */
	if (p > 0 && pr[-1].file == ps->at.file) {
		pr->has_pid = pr[-1].has_pid;
		pr->pid = pr[-1].pid;
		pr->has_thread = pr[-1].has_thread;
		pr->thread = pr[-1].thread;
		pr->cmd = pr[-1].cmd;
	}
	ps->part.prof = p;
	if ((r = save_cols(ps)) < 0)
		return r;
	cg->profiles[p].n_pos = ps->part.n_pos;
	memcpy(cg->profiles[p].pos_kind, ps->part.pos_kind, sizeof ps->part.pos_kind);
	return 0;
}


/* ---- header lines --------------------------------------------------------- */

static int parse_positions(parser *ps, const char *v, const char *end)
{
	const char *t;
	size_t n;
	uint32_t k = 0;
	int seen[3] = {0, 0, 0};
	while (cg_tok(&v, end, &t, &n)) {
		int kind;
		if (n == 5 && memcmp(t, "instr", 5) == 0)
			kind = CG_POS_INSTR;
		else if (n == 4 && memcmp(t, "line", 4) == 0)
			kind = CG_POS_LINE;
		else if (n == 2 && memcmp(t, "bb", 2) == 0)
			kind = CG_POS_BB;
		else
			return perr(ps, -EBADMSG, "unknown position type \"%.*s\"", SHOWN(n), t);
		if (seen[kind]++)
			return perr(ps, -EBADMSG, "position type \"%.*s\" given twice", SHOWN(n), t);
		if (k >= CG_NPOS)
			return perr(ps, -EBADMSG, "more than %d position types", CG_NPOS);
		ps->part.pos_kind[k++] = (uint8_t)kind;
	}
	if (k == 0)
		return perr(ps, -EBADMSG, "empty positions: line");
	ps->part.n_pos = k;
	cg_profile *pr = &ps->cg->profiles[ps->part.prof];
	pr->n_pos = k;
	memcpy(pr->pos_kind, ps->part.pos_kind, sizeof ps->part.pos_kind);
	return 0;
}

static int find_event(const profdb_cg *cg, const char *t, size_t n)
{
	for (uint32_t e = 0; e < cg->n_events; e++)
		if (cg->events[e].name.len == n && memcmp(cg->events[e].name.p, t, n) == 0)
			return (int)e;
	return -1;
}

static int parse_events(parser *ps, const char *v, const char *end)
{
	profdb_cg *cg = ps->cg;
	const char *t;
	size_t n;
	uint32_t k = 0;
	while (cg_tok(&v, end, &t, &n)) {
		if (k >= CG_MAX_EVENTS)
			return perr(ps, -EBADMSG, "more than %u events", CG_MAX_EVENTS);
		int e = find_event(cg, t, n);
		if (e < 0) {
			/* A new event: every table gets one more column. */
			if (cg->n_events >= CG_MAX_EVENTS)
				return perr(ps, -EBADMSG, "more than %u distinct events", CG_MAX_EVENTS);
			if (!cg->events) {
				cg->events = calloc(CG_MAX_EVENTS, sizeof *cg->events);
				if (!cg->events)
					return profdb__fail(-ENOMEM, "callgrind: out of memory");
			}
			e = (int)cg->n_events;
			int r = profdb__cg_widen(cg, cg->n_events + 1);
			if (r < 0)
				return r;
			cg->events[e].name = (cg_name){t, (uint32_t)n};
		}
		for (uint32_t j = 0; j < k; j++)
			if (ps->part.colmap[j] == (uint32_t)e)
				return perr(ps, -EBADMSG, "event \"%.*s\" listed twice", SHOWN(n), t);
		ps->part.colmap[k++] = (uint32_t)e;
	}
	if (k == 0)
		return perr(ps, -EBADMSG, "events: line names no event");
	ps->part.n_cols = k;
	ps->part.has_events = 1;
	return save_cols(ps);
}

/* "event: Name [= formula] [: long name]": kept for model.c, which adds
 * the derived events once every stored event is known. */
static int parse_event_def(parser *ps, const char *v, const char *end)
{
	while (v < end && cg_is_space(*v))
		v++;
	const char *s = v;
	while (v < end && !cg_is_space(*v) && *v != ':' && *v != '=')
		v++;
	size_t n = (size_t)(v - s);
	if (n == 0)
		return perr(ps, -EBADMSG, "event: line without a name");
	while (v < end && cg_is_space(*v))
		v++;
	const char *f = NULL;
	size_t fl = 0;
	if (v < end && *v == '=') {
		f = ++v;
		while (v < end && *v != ':')
			v++;
		fl = (size_t)(v - f);
		while (fl && cg_is_space(*f)) {
			f++;
			fl--;
		}
		rstrip(f, &fl);
		if (fl == 0)
			return perr(ps, -EBADMSG, "derived event \"%.*s\" without a formula", SHOWN(n), s);
	}
	const char *lng = NULL;
	size_t ln = 0;
	if (v < end && *v == ':') {
		v++;
		while (v < end && cg_is_space(*v))
			v++;
		lng = v;
		ln = (size_t)(end - v);
		rstrip(lng, &ln);
	} else if (v < end) {
		return perr(ps, -EBADMSG, "garbage after the event name in event: line");
	}
	if (ln == 0 && fl == 0)
		return 0;
	cg_build *b = ps->b;
	int r = grow((void **)&b->defs, &b->cap_defs, (uint64_t)b->n_defs + 1,
	                        sizeof *b->defs);
	if (r < 0)
		return r;
	b->defs[b->n_defs++] = (cg_evdef){{s, (uint32_t)n},
	                                  {f ? f : "", (uint32_t)fl},
	                                  {lng ? lng : "", (uint32_t)ln},
	                                  ps->at.file,
	                                  ps->at.lineno};
	return 0;
}

/* summary:/totals: values in the part's column order (the last line of a
 * part wins, as in callgrind_annotate). */
static int parse_sum_line(parser *ps, const char *v, const char *end, uint64_t *dst,
                          const char *what)
{
	profdb_cg *cg = ps->cg;
	const char *t;
	size_t n;
	uint32_t k = 0;
	if (ps->part.n_cols == 0)
		return perr(ps, -EBADMSG, "%s: before events:", what);
	memset(dst, 0, cg->n_events * sizeof *dst);
	while (cg_tok(&v, end, &t, &n)) {
		uint64_t x;
		int r = profdb__cg_u64(t, n, &x);
		if (r < 0)
			return bad_number(ps, r, what, t, n);
		if (k >= ps->part.n_cols) {
			if (once(&ps->warned.extra))
				pwarn(ps, "more %s values than events; extra values ignored", what);
			break;
		}
		dst[ps->part.colmap[k++]] = x;
	}
	return 0;
}

static int parse_number_field(parser *ps, const char *v, const char *end, uint64_t *out,
                              uint8_t *has, const char *what)
{
	const char *t;
	size_t n;
	if (!cg_tok(&v, end, &t, &n))
		return 0;
	/* "thread: 1", "pid: 16390", "part: 2"; anything else is kept as absent. */
	if (profdb__cg_u64(t, n, out) == 0)
		*has = 1;
	else
		pwarn(ps, "%s: \"%.*s\" is not a number; ignored", what, SHOWN(n), t);
	return 0;
}

int header_line(parser *ps, const char *k, size_t kn, const char *v, const char *end)
{
	profdb_cg *cg = ps->cg;
	int r;
	/* KCachegrind's rule: these start a new part once the current one has
	 * seen events:. So they do once it has body lines: a part that kept the
	 * previous part's columns and then redefines them must not have its
	 * earlier lines decoded (detail.c) with the new columns. */
	int starts = key_is(k, kn, "events") || key_is(k, kn, "positions") ||
	             key_is(k, kn, "part") || key_is(k, kn, "pid") || key_is(k, kn, "thread");
	if (starts && (ps->part.has_events || ps->part.has_body)) {
		uint32_t keep_cols = ps->part.n_cols;
		end_part(ps);
		ps->part.n_cols = keep_cols;  /* columns stay until the next events: */
	}
	if ((r = need_part(ps)) < 0)
		return r;
	cg_profile *pr = &cg->profiles[ps->part.prof];
	size_t ne = cg->n_events;
	if (key_is(k, kn, "events"))
		return parse_events(ps, v, end);
	if (key_is(k, kn, "positions"))
		return parse_positions(ps, v, end);
	if (key_is(k, kn, "part"))
		return parse_number_field(ps, v, end, &pr->part, &pr->has_part, "part");
	if (key_is(k, kn, "pid"))
		return parse_number_field(ps, v, end, &pr->pid, &pr->has_pid, "pid");
	if (key_is(k, kn, "thread"))
		return parse_number_field(ps, v, end, &pr->thread, &pr->has_thread, "thread");
	if (key_is(k, kn, "event"))
		return parse_event_def(ps, v, end);
	if (key_is(k, kn, "summary")) {
		pr->has_summary = 1;
		return parse_sum_line(ps, v, end, cg->p_summary + ps->part.prof * ne, "summary");
	}
	if (key_is(k, kn, "totals") || key_is(k, kn, "total")) {
		pr->has_totals = 1;
		return parse_sum_line(ps, v, end, cg->p_totline + ps->part.prof * ne, "totals");
	}
	if (key_is(k, kn, "version")) {
		const char *t;
		size_t n;
		if (cg_tok(&v, end, &t, &n)) {
			uint64_t major = 0;
			size_t i = 0;
			while (i < n && cg_is_digit(t[i]) && major < 1000)
				major = major * 10 + (uint64_t)(t[i++] - '0');
			if (i > 0 && major >= 2)
				return perr(ps, -EPROTONOSUPPORT, "unsupported format version %.*s",
				            SHOWN(n), t);
		}
		return 0;
	}
	if (key_is(k, kn, "cmd")) {
		while (v < end && cg_is_space(*v))
			v++;
		pr->cmd = (cg_name){v, (uint32_t)(end - v)};
		return 0;
	}
	if (key_is(k, kn, "desc")) {
		while (v < end && cg_is_space(*v))
			v++;
		size_t n = (size_t)(end - v);
		cg_name *dst = NULL;
		size_t skip = 0;
		if (n >= 8 && memcmp(v, "Trigger:", 8) == 0)
			dst = &pr->trigger, skip = 8;
		else if (n >= 10 && memcmp(v, "Timerange:", 10) == 0)
			dst = &pr->timerange, skip = 10;
		if (dst) {
			v += skip;
			while (v < end && cg_is_space(*v))
				v++;
			*dst = (cg_name){v, (uint32_t)(end - v)};
		}
		return 0;
	}
	if (key_is(k, kn, "creator")) {
		while (v < end && cg_is_space(*v))
			v++;
		if (end - v >= 10 && memcmp(v, "callgrind-", 10) == 0)
			cg->files[ps->at.file].from_callgrind = 1;
		return 0;
	}
	if (key_is(k, kn, "arch"))
		return 0;
	if (once(&ps->warned.unknown))
		pwarn(ps, "unknown header line \"%.*s:\" skipped (further unknown lines silently)",
		      SHOWN(kn), k);
	return 0;
}


