/* Callgrind text parser: one pass over the text, line by line. Grammar and
 * decoding rules: doc/FORMATS.md ("Callgrind"). Every line is a
 * (start, length) window of the text, found with memchr inside the text's
 * bounds; tokens are windows of the line. No pointer is formed past the end
 * of the text. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg-internal.h"

enum { SP_OB = 0, SP_FILE = 1, SP_FN = 2 };
enum { POS_INSTR = 0, POS_LINE = 1, POS_BB = 2 };
#define MAX_POS 3

typedef struct parser {
	profdb_cg *cg;
	uint64_t lineno;     /* 1-based */
	uint64_t off;        /* byte offset of the current line */
	int last_line;       /* the current line has no '\n' after it */

	/* per part */
	int part_has_events;
	uint32_t n_cols;                 /* columns of the part's events: line */
	uint32_t colmap[CG_MAX_EVENTS];  /* column -> global event */
	uint32_t n_pos;
	int pos_kind[MAX_POS];
	int line_col;                    /* column of "line" or -1 */
	uint64_t pos[MAX_POS];           /* current position */
	int frozen;                      /* events fixed: a table row exists */

	/* current names (CG_EMPTY = unset) */
	uint32_t ob, fl, fi, fn;
	uint32_t cob, cfi, cfn;
	uint32_t cur_fn;                 /* resolved function or CG_EMPTY */
	int pending_call;                /* the previous line was calls= */
	uint32_t call_callee;
	uint64_t call_count;

	uint64_t *vec;                   /* n_events scratch */
	int warned_nul, warned_neg, warned_extra, warned_unknown;
} parser;

static int perr(parser *ps, int code, const char *fmt, ...) PROFDB__PRINTF(3, 4);
static int perr(parser *ps, int code, const char *fmt, ...)
{
	char buf[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (ps->last_line && code == -EBADMSG)
		return profdb__fail(-ENODATA,
		                    "%s: line %" PRIu64 " (offset %" PRIu64 "): file truncated "
		                    "(last line has no newline and is incomplete): %s",
		                    ps->cg->label, ps->lineno, ps->off, buf);
	return profdb__fail(code, "%s: line %" PRIu64 " (offset %" PRIu64 "): %s",
	                    ps->cg->label, ps->lineno, ps->off, buf);
}

static void pwarn(parser *ps, const char *fmt, ...) PROFDB__PRINTF(2, 3);
static void pwarn(parser *ps, const char *fmt, ...)
{
	char buf[384];
	va_list ap;
	if (!ps->cg->opts.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	profdb__warn(&ps->cg->opts, "%s: line %" PRIu64 " (offset %" PRIu64 "): %s",
	             ps->cg->label, ps->lineno, ps->off, buf);
}

/* ---- small helpers ------------------------------------------------------- */

int profdb__cg_grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	if (need >= UINT32_MAX - 1)
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	uint64_t nc = *cap ? (uint64_t)*cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	if (nc > UINT32_MAX - 1)
		nc = UINT32_MAX - 1;
	if (elem && nc > SIZE_MAX / elem)
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	*p = q;
	*cap = (uint32_t)nc;
	return 0;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static size_t slot_of(uint64_t a, uint64_t b)
{
	return (size_t)mix64(a ^ mix64(b + 0x9e3779b97f4a7c15ULL));
}

cg_slot *profdb__cg_map_find(const cg_map *m, uint64_t a, uint64_t b, cg_eq_fn eq, const void *ctx)
{
	size_t i = slot_of(a, b) & m->mask;
	for (;;) {
		cg_slot *s = &m->s[i];
		if (s->v == CG_EMPTY)
			return s;
		if (s->a == a && s->b == b && (!eq || eq(ctx, s->v)))
			return s;
		i = (i + 1) & m->mask;
	}
}

int profdb__cg_map_reserve(cg_map *m)
{
	size_t cap = m->s ? m->mask + 1 : 0;
	if (m->s && (m->n + 1) * 4 <= cap * 3)
		return 0;
	size_t nc = cap ? cap * 2 : 256;
	if (nc > SIZE_MAX / sizeof(cg_slot))
		return profdb__fail(-ENOMEM, "callgrind: map too large");
	cg_slot *s = malloc(nc * sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	memset(s, 0xff, nc * sizeof *s);
	cg_map nm = {s, nc - 1, m->n};
	for (size_t i = 0; i < cap; i++) {
		if (m->s[i].v == CG_EMPTY)
			continue;
		size_t j = slot_of(m->s[i].a, m->s[i].b) & nm.mask;
		while (s[j].v != CG_EMPTY)
			j = (j + 1) & nm.mask;
		s[j] = m->s[i];
	}
	free(m->s);
	*m = nm;
	return 0;
}

/* Start with room for about @p n entries (no rehash until then). */
static int map_presize(cg_map *m, uint64_t n)
{
	size_t cap = 256;
	while (cap < SIZE_MAX / 8 && (uint64_t)cap * 3 < n * 4)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(cg_slot))
		return profdb__fail(-ENOMEM, "callgrind: map too large");
	cg_slot *s = malloc(cap * sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	memset(s, 0xff, cap * sizeof *s);
	free(m->s);
	*m = (cg_map){s, cap - 1, 0};
	return 0;
}

void profdb__cg_map_free(cg_map *m)
{
	free(m->s);
	memset(m, 0, sizeof *m);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Next token of [*p, end): skips blanks; returns 0 at the end. */
static int next_tok(const char **p, const char *end, const char **t, size_t *tl)
{
	const char *q = *p;
	while (q < end && is_space(*q))
		q++;
	if (q == end) {
		*p = q;
		return 0;
	}
	const char *s = q;
	while (q < end && !is_space(*q))
		q++;
	*t = s;
	*tl = (size_t)(q - s);
	*p = q;
	return 1;
}

/* Unsigned decimal or 0x hex, the whole token. 0 ok, -1 syntax, -2 overflow. */
static int parse_u64(const char *t, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0)
		return -1;
	if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		for (size_t i = 2; i < n; i++) {
			char c = t[i];
			unsigned d;
			if (c >= '0' && c <= '9')
				d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				d = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				d = (unsigned)(c - 'A' + 10);
			else
				return -1;
			if (v >> 60)
				return -2;
			v = v << 4 | d;
		}
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(t[i]))
			return -1;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(t[i] - '0'), &v))
			return -2;
	}
	*out = v;
	return 0;
}

static int bad_number(parser *ps, int r, const char *what, const char *t, size_t n)
{
	int shown = n > 40 ? 40 : (int)n;
	if (r == -2)
		return perr(ps, -EBADMSG, "%s \"%.*s\" overflows 64 bits", what, shown, t);
	return perr(ps, -EBADMSG, "%s \"%.*s\" is not a number", what, shown, t);
}

/* ---- names --------------------------------------------------------------- */

typedef struct name_key {
	const profdb_cg *cg;
	const char *p;
	uint32_t len;
} name_key;

static int name_eq(const void *ctx, uint32_t v)
{
	const name_key *k = ctx;
	const cg_name *n = &k->cg->names[v];
	return n->len == k->len && (k->len == 0 || memcmp(n->p, k->p, k->len) == 0);
}

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = mix64(h ^ w);
	}
	uint64_t w = 0;
	memcpy(&w, p + i, n - i);
	return mix64(h ^ w ^ n);
}

/* Intern a name view; *idx gets its index. */
static int intern(parser *ps, const char *p, size_t n, uint32_t *idx)
{
	profdb_cg *cg = ps->cg;
	if (n == 0) {
		*idx = 0;
		return 0;
	}
	if (!ps->warned_nul && memchr(p, 0, n)) {
		ps->warned_nul = 1;
		pwarn(ps, "name contains a NUL byte (kept as part of the name)");
	}
	int r = profdb__cg_map_reserve(&cg->name_map);
	if (r < 0)
		return r;
	name_key k = {cg, p, (uint32_t)n};
	uint64_t h = hash_bytes(p, n);
	cg_slot *s = profdb__cg_map_find(&cg->name_map, h, n, name_eq, &k);
	if (s->v != CG_EMPTY) {
		*idx = s->v;
		return 0;
	}
	r = profdb__cg_grow((void **)&cg->names, &cg->cap_names, (uint64_t)cg->n_names + 1,
	            sizeof *cg->names);
	if (r < 0)
		return r;
	cg->names[cg->n_names] = (cg_name){p, (uint32_t)n};
	s->a = h;
	s->b = n;
	s->v = cg->n_names;
	cg->name_map.n++;
	*idx = cg->n_names++;
	return 0;
}

static void rstrip(const char *p, size_t *n)
{
	while (*n && is_space(p[*n - 1]))
		(*n)--;
}

/* The value of a name line in ID space @p sp: "(id) name", "(id)" or a
 * literal name. Only '(' followed by a digit starts the compressed form. */
static int resolve_name(parser *ps, int sp, const char *v, size_t n, uint32_t *idx)
{
	profdb_cg *cg = ps->cg;
	rstrip(v, &n);
	if (n >= 2 && v[0] == '(' && is_digit(v[1])) {
		size_t i = 1;
		uint64_t id = 0;
		int ovf = 0;
		while (i < n && is_digit(v[i])) {
			if (__builtin_mul_overflow(id, 10, &id) ||
			    __builtin_add_overflow(id, (uint64_t)(v[i] - '0'), &id))
				ovf = 1;
			i++;
		}
		if (i < n && v[i] == ')') {
			if (ovf)
				return perr(ps, -EBADMSG, "name id overflows 64 bits");
			size_t tok_len = i + 1;
			const char *rest = v + tok_len;
			size_t rn = n - tok_len;
			while (rn && is_space(*rest)) {
				rest++;
				rn--;
			}
			int r = profdb__cg_map_reserve(&cg->id_map);
			if (r < 0)
				return r;
			cg_slot *s = profdb__cg_map_find(&cg->id_map, (uint64_t)sp, id, NULL, NULL);
			if (rn == 0) {
				if (s->v != CG_EMPTY) {
					*idx = s->v;
					return 0;
				}
				/* Undefined id: a soft error (old callgrind, some
				 * writers). The token "(id)" itself becomes the name. */
				pwarn(ps, "undefined %s id %" PRIu64 "; using \"(%" PRIu64 ")\" as name",
				      sp == SP_OB ? "object" : sp == SP_FILE ? "file" : "function", id,
				      id);
				rest = v;
				rn = tok_len;
			}
			uint32_t ni;
			r = intern(ps, rest, rn, &ni);
			if (r < 0)
				return r;
			if (s->v == CG_EMPTY) {
				s->a = (uint64_t)sp;
				s->b = id;
				cg->id_map.n++;
			}
			s->v = ni;  /* a redefinition replaces */
			*idx = ni;
			return 0;
		}
	}
	return intern(ps, v, n, idx);
}

/* ---- tables --------------------------------------------------------------- */

static int freeze(parser *ps)
{
	profdb_cg *cg = ps->cg;
	if (ps->frozen)
		return 0;
	if (!ps->cg->n_events)
		return perr(ps, -EBADMSG, "cost data before any events: line");
	ps->frozen = 1;
	size_t n = cg->n_events ? cg->n_events : 1;
	cg->totals = calloc(n, sizeof(uint64_t));
	cg->file_summary = calloc(n, sizeof(uint64_t));
	cg->file_totals = calloc(n, sizeof(uint64_t));
	if (!cg->totals || !cg->file_summary || !cg->file_totals)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	return 0;
}

/* Grow a cost table in step with its row table. */
static int grow_rows(void **rows, uint64_t **costs, uint32_t *cap, uint32_t n,
                     size_t elem, uint32_t n_events)
{
	uint32_t old = *cap;
	int r = profdb__cg_grow(rows, cap, (uint64_t)n + 1, elem);
	if (r < 0)
		return r;
	if (*cap != old) {
		size_t ne = n_events ? n_events : 1;
		if (*cap > SIZE_MAX / sizeof(uint64_t) / ne)
			return profdb__fail(-ENOMEM, "callgrind: table too large");
		uint64_t *q = realloc(*costs, (size_t)*cap * ne * sizeof(uint64_t));
		if (!q) {
			*cap = old;  /* the row table grew; keeping old is safe */
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		}
		*costs = q;
	}
	return 0;
}

static int get_fn(parser *ps, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
	profdb_cg *cg = ps->cg;
	int r = freeze(ps);
	if (r < 0)
		return r;
	r = profdb__cg_map_reserve(&cg->fn_map);
	if (r < 0)
		return r;
	uint64_t a = (uint64_t)ob << 32 | fl;
	cg_slot *s = profdb__cg_map_find(&cg->fn_map, a, fn, NULL, NULL);
	if (s->v != CG_EMPTY) {
		*out = s->v;
		return 0;
	}
	r = grow_rows((void **)&cg->fns, &cg->self, &cg->cap_fns, cg->n_fns, sizeof *cg->fns,
	              cg->n_events);
	if (r < 0)
		return r;
	uint32_t i = cg->n_fns++;
	cg->fns[i] = (cg_fn){ob, fl, fn, 0, 0};
	memset(cg->self + (size_t)i * cg->n_events, 0, cg->n_events * sizeof(uint64_t));
	s->a = a;
	s->b = fn;
	s->v = i;
	cg->fn_map.n++;
	*out = i;
	return 0;
}

static int add_costs(parser *ps, uint64_t *dst, const uint64_t *src, const char *what)
{
	for (uint32_t e = 0; e < ps->cg->n_events; e++)
		if (__builtin_add_overflow(dst[e], src[e], &dst[e]))
			return perr(ps, -EBADMSG, "%s of event %.*s overflows 64 bits", what,
			            (int)ps->cg->events[e].name.len, ps->cg->events[e].name.p);
	return 0;
}

static int add_call(parser *ps, uint32_t caller, uint32_t callee, uint64_t count,
                    const uint64_t *v)
{
	profdb_cg *cg = ps->cg;
	int r = profdb__cg_map_reserve(&cg->call_map);
	if (r < 0)
		return r;
	cg_slot *s = profdb__cg_map_find(&cg->call_map, caller, callee, NULL, NULL);
	uint32_t i = s->v;
	if (i == CG_EMPTY) {
		r = grow_rows((void **)&cg->calls, &cg->call_incl, &cg->cap_calls, cg->n_calls,
		              sizeof *cg->calls, cg->n_events);
		if (r < 0)
			return r;
		i = cg->n_calls++;
		cg->calls[i] = (cg_call){caller, callee, 0};
		memset(cg->call_incl + (size_t)i * cg->n_events, 0,
		       cg->n_events * sizeof(uint64_t));
		s->a = caller;
		s->b = callee;
		s->v = i;
		cg->call_map.n++;
	}
	if (__builtin_add_overflow(cg->calls[i].count, count, &cg->calls[i].count))
		return perr(ps, -EBADMSG, "call count overflows 64 bits");
	return add_costs(ps, cg->call_incl + (size_t)i * cg->n_events, v, "inclusive call cost");
}

static int add_line(parser *ps, uint32_t fn, uint32_t file, uint64_t line, const uint64_t *v)
{
	profdb_cg *cg = ps->cg;
	int r = profdb__cg_map_reserve(&cg->line_map);
	if (r < 0)
		return r;
	uint64_t a = (uint64_t)fn << 32 | file;
	cg_slot *s = profdb__cg_map_find(&cg->line_map, a, line, NULL, NULL);
	uint32_t i = s->v;
	if (i == CG_EMPTY) {
		r = grow_rows((void **)&cg->lines, &cg->line_cost, &cg->cap_lines, cg->n_lines,
		              sizeof *cg->lines, cg->n_events);
		if (r < 0)
			return r;
		i = cg->n_lines++;
		cg->lines[i] = (cg_line){fn, file, line};
		memset(cg->line_cost + (size_t)i * cg->n_events, 0,
		       cg->n_events * sizeof(uint64_t));
		s->a = a;
		s->b = line;
		s->v = i;
		cg->line_map.n++;
	}
	return add_costs(ps, cg->line_cost + (size_t)i * cg->n_events, v, "line cost");
}

/* ---- header lines --------------------------------------------------------- */

static void new_part_state(parser *ps)
{
	ps->part_has_events = 0;  /* the columns stay until the next events: */
	ps->n_pos = 1;
	ps->pos_kind[0] = POS_LINE;
	ps->line_col = 0;
	memset(ps->pos, 0, sizeof ps->pos);
	ps->ob = ps->fl = ps->fi = ps->fn = CG_EMPTY;
	ps->cob = ps->cfi = ps->cfn = CG_EMPTY;
	ps->cur_fn = CG_EMPTY;
}

static int parse_positions(parser *ps, const char *v, const char *end)
{
	const char *t;
	size_t n;
	uint32_t k = 0;
	int seen[3] = {0, 0, 0};
	ps->line_col = -1;
	while (next_tok(&v, end, &t, &n)) {
		int kind;
		if (n == 5 && memcmp(t, "instr", 5) == 0)
			kind = POS_INSTR;
		else if (n == 4 && memcmp(t, "line", 4) == 0)
			kind = POS_LINE;
		else if (n == 2 && memcmp(t, "bb", 2) == 0)
			kind = POS_BB;
		else
			return perr(ps, -EBADMSG, "unknown position type \"%.*s\"",
			            n > 40 ? 40 : (int)n, t);
		if (seen[kind]++)
			return perr(ps, -EBADMSG, "position type \"%.*s\" given twice", (int)n, t);
		if (kind == POS_LINE)
			ps->line_col = (int)k;
		ps->pos_kind[k++] = kind;
	}
	if (k == 0)
		return perr(ps, -EBADMSG, "empty positions: line");
	ps->n_pos = k;
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
	while (next_tok(&v, end, &t, &n)) {
		if (k >= CG_MAX_EVENTS)
			return perr(ps, -EBADMSG, "more than %u events", CG_MAX_EVENTS);
		int e = find_event(cg, t, n);
		if (e < 0) {
			if (ps->frozen)
				return perr(ps, -EBADMSG,
				            "events: line adds event \"%.*s\" after cost data of "
				            "other events (unsupported)",
				            n > 40 ? 40 : (int)n, t);
			if (cg->n_events >= CG_MAX_EVENTS)
				return perr(ps, -EBADMSG, "more than %u events", CG_MAX_EVENTS);
			if (!cg->events) {
				cg->events = calloc(CG_MAX_EVENTS, sizeof *cg->events);
				if (!cg->events)
					return profdb__fail(-ENOMEM, "callgrind: out of memory");
			}
			cg->events[cg->n_events].name = (cg_name){t, (uint32_t)n};
			e = (int)cg->n_events++;
		}
		for (uint32_t j = 0; j < k; j++)
			if (ps->colmap[j] == (uint32_t)e)
				return perr(ps, -EBADMSG, "event \"%.*s\" listed twice",
				            n > 40 ? 40 : (int)n, t);
		ps->colmap[k++] = (uint32_t)e;
	}
	if (k == 0)
		return perr(ps, -EBADMSG, "events: line names no event");
	ps->n_cols = k;
	ps->part_has_events = 1;
	return 0;
}

/* "event: Name [= formula] [: long name]". Long names are attached after
 * the parse (event: may precede events:); derived events are checked for
 * shape only (doc/FORMATS.md). */
typedef struct event_def {
	const char *name, *lng;
	uint32_t name_len, lng_len;
} event_def;

static int parse_event_def(parser *ps, const char *v, const char *end, event_def **defs,
                           uint32_t *n_defs, uint32_t *cap_defs)
{
	while (v < end && is_space(*v))
		v++;
	const char *s = v;
	while (v < end && !is_space(*v) && *v != ':' && *v != '=')
		v++;
	size_t n = (size_t)(v - s);
	if (n == 0)
		return perr(ps, -EBADMSG, "event: line without a name");
	while (v < end && is_space(*v))
		v++;
	if (v < end && *v == '=') {
		const char *f = ++v;
		while (v < end && *v != ':')
			v++;
		size_t fl = (size_t)(v - f);
		rstrip(f, &fl);
		if (fl == 0)
			return perr(ps, -EBADMSG, "derived event \"%.*s\" without a formula",
			            n > 40 ? 40 : (int)n, s);
	}
	const char *lng = NULL;
	size_t ln = 0;
	if (v < end && *v == ':') {
		v++;
		while (v < end && is_space(*v))
			v++;
		lng = v;
		ln = (size_t)(end - v);
		rstrip(lng, &ln);
	} else if (v < end) {
		return perr(ps, -EBADMSG, "garbage after event name in event: line");
	}
	if (ln == 0)
		return 0;
	int r = profdb__cg_grow((void **)defs, cap_defs, (uint64_t)*n_defs + 1, sizeof **defs);
	if (r < 0)
		return r;
	(*defs)[(*n_defs)++] = (event_def){s, lng, (uint32_t)n, (uint32_t)ln};
	return 0;
}

/* summary:/totals: values in the part's column order, added to @p dst. */
static int parse_sum_line(parser *ps, const char *v, const char *end, int totals,
                          const char *what)
{
	profdb_cg *cg = ps->cg;
	const char *t;
	size_t n;
	uint32_t k = 0;
	int r = freeze(ps);
	if (r < 0)
		return r;
	memset(ps->vec, 0, cg->n_events * sizeof(uint64_t));
	while (next_tok(&v, end, &t, &n)) {
		uint64_t x;
		r = parse_u64(t, n, &x);
		if (r < 0)
			return bad_number(ps, r, what, t, n);
		if (k >= ps->n_cols) {
			if (!ps->warned_extra++)
				pwarn(ps, "more %s values than events; extra values ignored", what);
			break;
		}
		ps->vec[ps->colmap[k++]] = x;
	}
	return add_costs(ps, totals ? cg->file_totals : cg->file_summary, ps->vec, what);
}

/* ---- body lines ------------------------------------------------------------ */

/* One subposition token relative to @p last. */
static int parse_subpos(parser *ps, const char *t, size_t n, uint64_t last, uint64_t *out)
{
	uint64_t x;
	int r;
	if (n == 1 && t[0] == '*') {
		*out = last;
		return 0;
	}
	if (t[0] == '+' || t[0] == '-') {
		r = parse_u64(t + 1, n - 1, &x);
		if (r < 0)
			return bad_number(ps, r, "relative position", t, n);
		if (t[0] == '+') {
			if (__builtin_add_overflow(last, x, out))
				return perr(ps, -EBADMSG, "relative position %.*s overflows 64 bits",
				            (int)(n > 40 ? 40 : n), t);
		} else {
			if (x > last)
				return perr(ps, -EBADMSG, "relative position %.*s goes below 0",
				            (int)(n > 40 ? 40 : n), t);
			*out = last - x;
		}
		return 0;
	}
	r = parse_u64(t, n, &x);
	if (r < 0)
		return bad_number(ps, r, "position", t, n);
	*out = x;
	return 0;
}

static int resolve_cur_fn(parser *ps)
{
	if (ps->cur_fn != CG_EMPTY)
		return 0;
	if (ps->fn == CG_EMPTY)
		return perr(ps, -EBADMSG, "cost line before any fn= line");
	return get_fn(ps, ps->ob == CG_EMPTY ? 0 : ps->ob, ps->fl == CG_EMPTY ? 0 : ps->fl, ps->fn,
	              &ps->cur_fn);
}

static int cost_line(parser *ps, const char *p, const char *end)
{
	profdb_cg *cg = ps->cg;
	const char *t;
	size_t n;
	uint64_t np[MAX_POS];
	int r = freeze(ps);
	if (r < 0)
		return r;
	for (uint32_t c = 0; c < ps->n_pos; c++) {
		if (!next_tok(&p, end, &t, &n))
			return perr(ps, -EBADMSG, "cost line has fewer than %u positions", ps->n_pos);
		r = parse_subpos(ps, t, n, ps->pos[c], &np[c]);
		if (r < 0)
			return r;
	}
	memcpy(ps->pos, np, ps->n_pos * sizeof np[0]);
	uint64_t *v = ps->vec;
	memset(v, 0, cg->n_events * sizeof(uint64_t));
	int any = 0;
	uint32_t k = 0;
	while (next_tok(&p, end, &t, &n)) {
		uint64_t x;
		if (t[0] == '-' && n > 1 && parse_u64(t + 1, n - 1, &x) == 0) {
			if (!ps->warned_neg++)
				pwarn(ps, "negative cost \"%.*s\" counted as 0", (int)(n > 40 ? 40 : n), t);
			x = 0;
		} else {
			r = parse_u64(t, n, &x);
			if (r < 0)
				return bad_number(ps, r, "cost", t, n);
		}
		if (k >= ps->n_cols) {
			if (!ps->warned_extra++)
				pwarn(ps, "more costs than events; extra costs ignored");
			break;
		}
		v[ps->colmap[k++]] = x;
		any |= x != 0;
	}
	if (ps->pending_call) {
		ps->pending_call = 0;
		r = resolve_cur_fn(ps);
		if (r < 0)
			return r;
		r = add_call(ps, ps->cur_fn, ps->call_callee, ps->call_count, v);
		/* KCachegrind: the called object and file reset, cfn stays. */
		ps->cob = ps->cfi = CG_EMPTY;
		return r;
	}
	if (!any)
		return 0;
	r = resolve_cur_fn(ps);
	if (r < 0)
		return r;
	r = add_costs(ps, cg->self + (size_t)ps->cur_fn * cg->n_events, v, "self cost");
	if (r < 0)
		return r;
	r = add_costs(ps, cg->totals, v, "total cost");
	if (r < 0)
		return r;
	/* Without a "line" column the cost goes to line 0 (as callgrind_annotate
	 * does), so the rows of a function always add up to its self cost. */
	uint32_t file = ps->fi != CG_EMPTY ? ps->fi : ps->fl != CG_EMPTY ? ps->fl : 0;
	return add_line(ps, ps->cur_fn, file, ps->line_col >= 0 ? ps->pos[ps->line_col] : 0, v);
}

/* calls=<count> <target position>; jump=<count> <target>;
 * jcnd=<followed>/<executed> <target> (also "a b"). Targets are relative to
 * the current position and do not change it. */
static int target_line(parser *ps, const char *key, const char *p, const char *end,
                       uint64_t *count_out)
{
	const char *t;
	size_t n;
	uint64_t x;
	int r;
	if (!next_tok(&p, end, &t, &n))
		return perr(ps, -EBADMSG, "%s line without a count", key);
	const char *slash = memchr(t, '/', n);
	size_t cn = slash ? (size_t)(slash - t) : n;
	if (cn > 1 && t[0] == '-' && parse_u64(t + 1, cn - 1, &x) == 0) {
		pwarn(ps, "negative %s count \"%.*s\" counted as 0", key, (int)(cn > 40 ? 40 : cn),
		      t);
		x = 0;
	} else {
		r = parse_u64(t, cn, &x);
		if (r < 0)
			return bad_number(ps, r, key, t, cn);
	}
	if (slash) {
		uint64_t y;
		r = parse_u64(slash + 1, n - cn - 1, &y);
		if (r < 0)
			return bad_number(ps, r, key, slash + 1, n - cn - 1);
	}
	*count_out = x;
	/* The target: as many subpositions as are given (some writers give only
	 * the line), each checked; extra tokens (Xdebug's "calls=1 0 0") are
	 * ignored. */
	for (uint32_t c = 0; c < ps->n_pos && next_tok(&p, end, &t, &n); c++) {
		uint64_t dummy;
		r = parse_subpos(ps, t, n, ps->pos[c], &dummy);
		if (r < 0)
			return r;
	}
	return 0;
}

static int key_is(const char *k, size_t kn, const char *lit)
{
	size_t n = strlen(lit);
	return kn == n && memcmp(k, lit, n) == 0;
}

static int spec_line(parser *ps, const char *k, size_t kn, const char *v, const char *end)
{
	size_t n = (size_t)(end - v);
	uint32_t idx;
	int r;
	if (key_is(k, kn, "fn")) {
		r = resolve_name(ps, SP_FN, v, n, &idx);
		if (r < 0)
			return r;
		ps->fn = idx;
		ps->fi = ps->fl;  /* back to the function's file (KCachegrind) */
		ps->cur_fn = CG_EMPTY;
		return 0;
	}
	if (key_is(k, kn, "fl")) {
		r = resolve_name(ps, SP_FILE, v, n, &idx);
		if (r < 0)
			return r;
		ps->fl = ps->fi = idx;
		ps->cur_fn = CG_EMPTY;
		return 0;
	}
	if (key_is(k, kn, "fi") || key_is(k, kn, "fe")) {
		r = resolve_name(ps, SP_FILE, v, n, &idx);
		if (r < 0)
			return r;
		ps->fi = idx;
		return 0;
	}
	if (key_is(k, kn, "ob")) {
		r = resolve_name(ps, SP_OB, v, n, &idx);
		if (r < 0)
			return r;
		ps->ob = idx;
		ps->cur_fn = CG_EMPTY;
		return 0;
	}
	if (key_is(k, kn, "cob"))
		return resolve_name(ps, SP_OB, v, n, &ps->cob);
	if (key_is(k, kn, "cfi") || key_is(k, kn, "cfl"))
		return resolve_name(ps, SP_FILE, v, n, &ps->cfi);
	if (key_is(k, kn, "cfn"))
		return resolve_name(ps, SP_FN, v, n, &ps->cfn);
	if (key_is(k, kn, "jfi"))
		return resolve_name(ps, SP_FILE, v, n, &idx);
	if (key_is(k, kn, "jfn"))
		return resolve_name(ps, SP_FN, v, n, &idx);
	if (key_is(k, kn, "calls")) {
		uint64_t count;
		r = target_line(ps, "calls=", v, end, &count);
		if (r < 0)
			return r;
		if (ps->cfn == CG_EMPTY)
			return perr(ps, -EBADMSG, "calls= without a preceding cfn=");
		uint32_t ob = ps->cob != CG_EMPTY ? ps->cob : ps->ob != CG_EMPTY ? ps->ob : 0;
		uint32_t fl = ps->cfi != CG_EMPTY ? ps->cfi
		            : ps->fi != CG_EMPTY  ? ps->fi
		            : ps->fl != CG_EMPTY  ? ps->fl
		                                  : 0;
		r = get_fn(ps, ob, fl, ps->cfn, &ps->call_callee);
		if (r < 0)
			return r;
		ps->call_count = count;
		ps->pending_call = 1;
		return 0;
	}
	if (key_is(k, kn, "jump") || key_is(k, kn, "jcnd")) {
		uint64_t count;
		return target_line(ps, kn == 4 && k[1] == 'u' ? "jump=" : "jcnd=", v, end, &count);
	}
	/* Unknown key= line (rec=, frfn=, bb=, ln=, cfni=, ...): skipped with a
	 * warning; a name definition it carries is registered by the key's
	 * suffix. */
	if (!ps->warned_unknown++)
		pwarn(ps, "unknown line \"%.*s=\" skipped (further ones silently)", (int)kn, k);
	if (n >= 2 && v[0] == '(' && is_digit(v[1])) {
		int sp = -1;
		if (kn >= 2 && memcmp(k + kn - 2, "fn", 2) == 0)
			sp = SP_FN;
		else if (kn >= 2 && memcmp(k + kn - 2, "ob", 2) == 0)
			sp = SP_OB;
		else if (kn >= 2 && (memcmp(k + kn - 2, "fl", 2) == 0 ||
		                     memcmp(k + kn - 2, "fi", 2) == 0 ||
		                     memcmp(k + kn - 2, "fe", 2) == 0))
			sp = SP_FILE;
		if (sp >= 0) {
			const char *q = memchr(v, ')', n);
			if (q && (size_t)(end - q) > 1) /* a definition, not a use */
				return resolve_name(ps, sp, v, n, &idx);
		}
	}
	return 0;
}

static int start_part_if_needed(parser *ps)
{
	if (!ps->part_has_events)
		return 0;
	new_part_state(ps);
	return 0;
}

static int header_line(parser *ps, const char *k, size_t kn, const char *v, const char *end,
                       event_def **defs, uint32_t *n_defs, uint32_t *cap_defs)
{
	profdb_cg *cg = ps->cg;
	if (key_is(k, kn, "events")) {
		start_part_if_needed(ps);
		int r = parse_events(ps, v, end);
		if (r < 0)
			return r;
		cg->n_parts++;
		return 0;
	}
	if (key_is(k, kn, "positions")) {
		start_part_if_needed(ps);
		return parse_positions(ps, v, end);
	}
	if (key_is(k, kn, "part") || key_is(k, kn, "pid") || key_is(k, kn, "thread")) {
		start_part_if_needed(ps);
		return 0;
	}
	if (key_is(k, kn, "event"))
		return parse_event_def(ps, v, end, defs, n_defs, cap_defs);
	if (key_is(k, kn, "summary")) {
		if (!cg->n_events)
			return perr(ps, -EBADMSG, "summary: before events:");
		cg->has_summary = 1;
		return parse_sum_line(ps, v, end, 0, "summary");
	}
	if (key_is(k, kn, "totals") || key_is(k, kn, "total")) {
		if (!cg->n_events)
			return perr(ps, -EBADMSG, "totals: before events:");
		cg->has_totals = 1;
		return parse_sum_line(ps, v, end, 1, "totals");
	}
	if (key_is(k, kn, "version")) {
		const char *t;
		size_t n;
		if (next_tok(&v, end, &t, &n)) {
			uint64_t major = 0;
			size_t i = 0;
			while (i < n && is_digit(t[i]) && major < 1000)
				major = major * 10 + (uint64_t)(t[i++] - '0');
			if (i > 0 && major >= 2)
				return perr(ps, -EPROTONOSUPPORT, "unsupported format version %.*s",
				            (int)(n > 20 ? 20 : n), t);
		}
		return 0;
	}
	if (key_is(k, kn, "creator") || key_is(k, kn, "cmd") || key_is(k, kn, "desc") ||
	    key_is(k, kn, "arch"))
		return 0;
	if (!ps->warned_unknown++)
		pwarn(ps, "unknown header line \"%.*s:\" skipped (further ones silently)",
		      (int)(kn > 40 ? 40 : kn), k);
	return 0;
}

static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static int one_line(parser *ps, const char *p, const char *end, event_def **defs,
                    uint32_t *n_defs, uint32_t *cap_defs)
{
	if (ps->pending_call) {
		if (p == end || !(is_digit(*p) || *p == '+' || *p == '-' || *p == '*'))
			return perr(ps, -EBADMSG, "calls= line not followed by a cost line");
		return cost_line(ps, p, end);
	}
	if (p == end || *p == '#')
		return 0;
	char c0 = *p;
	if (is_digit(c0) || c0 == '+' || c0 == '-' || c0 == '*')
		return cost_line(ps, p, end);
	const char *k = p;
	while (p < end && is_key_char(*p))
		p++;
	size_t kn = (size_t)(p - k);
	if (kn && p < end && *p == '=')
		return spec_line(ps, k, kn, p + 1, end);
	if (kn && p < end && *p == ':')
		return header_line(ps, k, kn, p + 1, end, defs, n_defs, cap_defs);
	for (const char *q = k; q < end; q++)
		if ((unsigned char)*q < 0x20 && *q != '\t')
			return perr(ps, -EBADMSG, "binary data (byte 0x%02x)", (unsigned char)*q);
	if (ps->last_line)
		return perr(ps, -EBADMSG, "unrecognised last line");
	if (!ps->warned_unknown++)
		pwarn(ps, "unrecognised line skipped (further ones silently)");
	return 0;
}

/* Content detection, as KCachegrind does it. */
static int looks_like_callgrind(const char *s, uint64_t size)
{
	static const char *const first[] = {"# callgrind format", "# format callgrind"};
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(first[i]);
		if (size >= n && memcmp(s, first[i], n) == 0)
			return 1;
	}
	uint64_t lim = size < 2047 ? size : 2047;
	static const char *const keys[] = {"events:", "creator:", "version:"};
	for (uint64_t i = 0; i < lim; i++) {
		if (i > 0 && s[i - 1] != '\n')
			continue;
		for (int j = 0; j < 3; j++) {
			size_t n = strlen(keys[j]);
			if (size - i >= n && memcmp(s + i, keys[j], n) == 0)
				return 1;
		}
	}
	return 0;
}

int profdb__cg_parse(profdb_cg *cg)
{
	parser ps;
	event_def *defs = NULL;
	uint32_t n_defs = 0, cap_defs = 0;
	int r = 0;
	memset(&ps, 0, sizeof ps);
	ps.cg = cg;
	new_part_state(&ps);
	ps.vec = calloc(CG_MAX_EVENTS, sizeof(uint64_t));
	if (!ps.vec)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	/* name 0 is "" */
	r = profdb__cg_grow((void **)&cg->names, &cg->cap_names, 1, sizeof *cg->names);
	if (r < 0)
		goto out;
	cg->names[0] = (cg_name){"", 0};
	cg->n_names = 1;

	const char *s = cg->text;
	uint64_t size = cg->text_size;
	if (size && !looks_like_callgrind(s, size)) {
		r = profdb__fail(-EPROTONOSUPPORT,
		                 "%s: not a callgrind file (no \"# callgrind format\" first line, "
		                 "no events:/creator: line in the first 2047 bytes)",
		                 cg->label);
		goto out;
	}
	/* Real files hold one line row per ~70 bytes of text (69 MB sample:
	 * 938,457 rows); start the line map there to avoid rehashing. */
	r = map_presize(&cg->line_map, size / 80);
	if (r < 0)
		goto out;
	uint64_t off = 0;
	while (off < size) {
		ps.lineno++;
		ps.off = off;
		uint64_t rest = size - off;
		uint64_t scan = rest < CG_MAX_LINE + 1 ? rest : CG_MAX_LINE + 1;
		const char *nl = memchr(s + off, '\n', (size_t)scan);
		uint64_t len;
		if (nl) {
			len = (uint64_t)(nl - (s + off));
		} else if (rest > CG_MAX_LINE) {
			r = perr(&ps, -EBADMSG, "line longer than %" PRIu64 " bytes", CG_MAX_LINE);
			goto out;
		} else {
			len = rest;
			ps.last_line = 1;
		}
		if (len > CG_MAX_LINE) {
			r = perr(&ps, -EBADMSG, "line longer than %" PRIu64 " bytes", CG_MAX_LINE);
			goto out;
		}
		const char *p = s + off;
		size_t n = (size_t)len;
		if (n && p[n - 1] == '\r')
			n--;
		rstrip(p, &n);
		r = one_line(&ps, p, p + n, &defs, &n_defs, &cap_defs);
		if (r < 0)
			goto out;
		off += len + (nl ? 1 : 0);
	}
	if (ps.pending_call) {
		ps.last_line = 0;
		r = perr(&ps, -ENODATA, "file ends after calls= without its cost line (truncated?)");
		goto out;
	}
	if (!ps.frozen && cg->n_events) {
		r = freeze(&ps);
		if (r < 0)
			goto out;
	}
	/* Long names from event: lines. */
	for (uint32_t i = 0; i < n_defs; i++) {
		int e = find_event(cg, defs[i].name, defs[i].name_len);
		if (e >= 0)
			cg->events[e].long_name = (cg_name){defs[i].lng, defs[i].lng_len};
	}
	if (cg->has_totals) {
		for (uint32_t e = 0; e < cg->n_events; e++) {
			if (cg->totals[e] != cg->file_totals[e]) {
				profdb__warn(&cg->opts,
				             "%s: totals: of event %.*s is %" PRIu64
				             " but the self costs add up to %" PRIu64,
				             cg->label, (int)cg->events[e].name.len, cg->events[e].name.p,
				             cg->file_totals[e], cg->totals[e]);
				break;
			}
		}
	}
	r = 0;
out:
	free(ps.vec);
	free(defs);
	return r;
}
