/* Callgrind text scanner: one pass over each file, line by line. Grammar and
 * decoding rules: doc/FORMATS.md ("Callgrind"). The common lines (cost
 * lines, calls=, jump=/jcnd=, name uses "fn=(id)", blank lines) take a fast
 * path that reads them in one pass, its scans stopped by a '\n' (every
 * such line starts before the text's last '\n'); anything unusual falls
 * back to the general path, where a line is a (start, length) window of the
 * text found with memchr inside the text's bounds and tokens are windows of
 * the line. No pointer is formed past the end.
 *
 * Only aggregates are kept (cg-internal.h): a cost line adds its counts to
 * the row of (profile, current function), a call cost line to the row of
 * (profile, caller, callee). Line/instruction detail stays in the text: the
 * scanner records the segments of each function and detail.c re-reads
 * them on demand. That keeps the scan at a few instructions per byte and the
 * memory proportional to functions and call edges, not to cost lines. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind-internal.h"

typedef struct parser {
	profdb_cg *cg;
	cg_build *b;
	cg_file *f;
	uint32_t file;
	uint64_t lineno;     /* 1-based */
	uint64_t off;        /* byte offset of the current line */
	uint64_t next_off;   /* byte offset of the line after it */
	int last_line;       /* the current line has no '\n' after it */
	cg_map id_map;       /* (space, id) -> name; per file, for large ids */
	uint32_t *ids[3];    /* small ids: name + 1 (0 = undefined), per space */
	uint32_t cap_ids[3];
	uint64_t id_limit;   /* ids below it use ids[] (bounded by the text size) */
	uint64_t safe_end;   /* just past the text's last '\n' (fast_line) */

	/* part */
	uint32_t prof;                   /* current profile, CG_EMPTY before one */
	int part_has_events;
	int part_has_body;               /* a body line opened a segment in this part */
	uint32_t n_cols;                 /* columns of the part's events: line */
	uint32_t colmap[CG_MAX_EVENTS];  /* column -> event */
	uint32_t n_pos;
	uint8_t pos_kind[CG_NPOS];
	uint64_t pos[CG_NPOS];           /* current position */

	/* current names (CG_EMPTY = unset) */
	uint32_t ob, fl, fi, fn;
	uint32_t cob, cfi, cfn, jfl, jfn;
	uint32_t cur_fn, cur_row;        /* resolved, or CG_EMPTY */
	uint32_t seg;                    /* open segment, or CG_EMPTY */
	int pending_call;                /* the previous line was calls= */
	uint32_t call_crow;

	int warned_nul, warned_neg, warned_negcount, warned_extra, warned_unknown, warned_undef;
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
		                    ps->f->label, ps->lineno, ps->off, buf);
	return profdb__fail(code, "%s: line %" PRIu64 " (offset %" PRIu64 "): %s",
	                    ps->f->label, ps->lineno, ps->off, buf);
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
	             ps->f->label, ps->lineno, ps->off, buf);
}

#define SHOWN(n) ((int)((n) > 40 ? 40 : (n)))

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

static size_t slot_of(uint64_t a, uint32_t b)
{
	return (size_t)mix64(a ^ mix64(b + 0x9e3779b97f4a7c15ULL));
}

cg_slot *profdb__cg_map_find(const cg_map *m, uint64_t a, uint32_t b, cg_eq_fn eq,
                             const void *ctx)
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

/* Move the entries of @p m into a table of @p nc slots (a power of two). */
static int rehash(cg_map *m, size_t nc)
{
	size_t cap = m->s ? m->mask + 1 : 0;
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

int profdb__cg_map_reserve(cg_map *m)
{
	size_t cap = m->s ? m->mask + 1 : 0;
	if (m->s && (m->n + 1) * 4 <= cap * 3)
		return 0;
	return rehash(m, cap ? cap * 2 : 256);
}

int profdb__cg_map_presize(cg_map *m, uint64_t n)
{
	size_t nc = 16;
	while (nc < SIZE_MAX / 8 && (uint64_t)nc * 3 < n * 4 + 4)
		nc *= 2;
	return m->s ? 0 : rehash(m, nc);
}

/* The common cases of the two above without a call: the exported functions
 * may be interposed, so the compiler does not inline them. */
static inline int grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
	return need <= *cap ? 0 : profdb__cg_grow(p, cap, need, elem);
}

static inline int reserve(cg_map *m)
{
	return m->s && (m->n + 1) * 4 <= (m->mask + 1) * 3 ? 0 : profdb__cg_map_reserve(m);
}

void profdb__cg_map_free(cg_map *m)
{
	free(m->s);
	memset(m, 0, sizeof *m);
}

void profdb__cg_build_free(cg_build *b)
{
	profdb__cg_map_free(&b->name_map);
	profdb__cg_map_free(&b->fn_map);
	profdb__cg_map_free(&b->crow_map);
	free(b->fn_by_name);
	free(b->row_of_fn);
	free(b->row_prof);
	free(b->defs);
	memset(b, 0, sizeof *b);
}

int profdb__cg_u64(const char *t, size_t n, uint64_t *out)
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
	if (n <= 19) {  /* cannot overflow: the common case, no checks */
		for (size_t i = 0; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)t[i] - '0';
			if (d > 9)
				return -1;
			v = v * 10 + d;
		}
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!cg_is_digit(t[i]))
			return -1;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(t[i] - '0'), &v))
			return -2;
	}
	*out = v;
	return 0;
}

int profdb__cg_subpos(const char *t, size_t n, uint64_t last, uint64_t *out)
{
	uint64_t x;
	int r;
	if (n == 1 && t[0] == '*') {
		*out = last;
		return 0;
	}
	if (t[0] == '+' || t[0] == '-') {
		r = profdb__cg_u64(t + 1, n - 1, &x);
		if (r < 0)
			return r;
		if (t[0] == '+')
			return __builtin_add_overflow(last, x, out) ? -2 : 0;
		if (x > last)
			return -3;
		*out = last - x;
		return 0;
	}
	return profdb__cg_u64(t, n, out);
}

static int bad_number(parser *ps, int r, const char *what, const char *t, size_t n)
{
	if (r == -2)
		return perr(ps, -EBADMSG, "%s \"%.*s\" overflows 64 bits", what, SHOWN(n), t);
	if (r == -3)
		return perr(ps, -EBADMSG, "%s \"%.*s\" goes below 0", what, SHOWN(n), t);
	return perr(ps, -EBADMSG, "%s \"%.*s\" is not a number", what, SHOWN(n), t);
}

static void rstrip(const char *p, size_t *n)
{
	while (*n && cg_is_space(p[*n - 1]))
		(*n)--;
}

/* ---- tables -------------------------------------------------------------- */

/* Re-stride an n x old table to n x ne (new columns zero). */
static int restride(uint64_t **t, size_t n, uint32_t old, uint32_t ne)
{
	if (!*t || n == 0)
		return 0;
	if (n > SIZE_MAX / sizeof(uint64_t) / ne)
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	uint64_t *q = calloc(n * ne, sizeof *q);
	if (!q)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	for (size_t i = 0; i < n; i++)
		memcpy(q + i * ne, *t + i * old, old * sizeof *q);
	free(*t);
	*t = q;
	return 0;
}

int profdb__cg_widen(profdb_cg *cg, uint32_t ne)
{
	uint32_t old = cg->n_events;
	if (ne <= old)
		return 0;
	int r = 0;
	if (old == 0) {
		/* Tables allocated with stride 0 hold nothing: start them over. */
		free(cg->p_totals);
		free(cg->p_summary);
		free(cg->p_totline);
		free(cg->row_cost);
		free(cg->crow_cost);
		cg->p_totals = cg->p_summary = cg->p_totline = cg->row_cost = cg->crow_cost = NULL;
		size_t np = cg->cap_profiles, nr = cg->cap_rows, nc = cg->cap_crows;
		if (!(cg->p_totals = calloc(np * ne + 1, 8)) ||
		    !(cg->p_summary = calloc(np * ne + 1, 8)) ||
		    !(cg->p_totline = calloc(np * ne + 1, 8)) ||
		    !(cg->row_cost = calloc(nr * ne + 1, 8)) ||
		    !(cg->crow_cost = calloc(nc * ne + 1, 8)))
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
	} else if ((r = restride(&cg->p_totals, cg->cap_profiles, old, ne)) < 0 ||
	           (r = restride(&cg->p_summary, cg->cap_profiles, old, ne)) < 0 ||
	           (r = restride(&cg->p_totline, cg->cap_profiles, old, ne)) < 0 ||
	           (r = restride(&cg->row_cost, cg->cap_rows, old, ne)) < 0 ||
	           (r = restride(&cg->crow_cost, cg->cap_crows, old, ne)) < 0) {
		return r;
	}
	cg->n_events = ne;
	return 0;
}

/* Grow a cost table in step with its row table. */
static int grow_rows(void **rows, uint64_t **costs, uint32_t *cap, uint32_t n, size_t elem,
                     uint32_t ne)
{
	uint32_t old = *cap;
	int r = grow(rows, cap, (uint64_t)n + 1, elem);
	if (r < 0 || *cap == old || ne == 0)
		return r;
	if (*cap > SIZE_MAX / sizeof(uint64_t) / ne) {
		*cap = old;
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	}
	uint64_t *q = realloc(*costs, (size_t)*cap * ne * sizeof(uint64_t));
	if (!q) {
		*cap = old;
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	memset(q + (size_t)old * ne, 0, (size_t)(*cap - old) * ne * sizeof(uint64_t));
	*costs = q;
	return 0;
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
	cg_map *m = &ps->b->name_map;
	if (n == 0) {
		*idx = 0;
		return 0;
	}
	if (memchr(p, 0, n) && !ps->warned_nul++)
		pwarn(ps, "name contains a NUL byte (kept as part of the name)");
	int r = reserve(m);
	if (r < 0)
		return r;
	name_key k = {cg, p, (uint32_t)n};
	uint64_t h = hash_bytes(p, n);
	cg_slot *s = profdb__cg_map_find(m, h, (uint32_t)n, name_eq, &k);
	if (s->v != CG_EMPTY) {
		*idx = s->v;
		return 0;
	}
	r = grow((void **)&cg->names, &cg->cap_names, (uint64_t)cg->n_names + 1,
	                    sizeof *cg->names);
	if (r < 0)
		return r;
	cg->names[cg->n_names] = (cg_name){p, (uint32_t)n};
	s->a = h;
	s->b = (uint32_t)n;
	s->v = cg->n_names;
	m->n++;
	*idx = cg->n_names++;
	return 0;
}

static const char *const space_name[] = {"object", "file", "function"};

/* Where the name of (space, id) lives: a dense array for the small ids
 * writers use (callgrind numbers from 0 or 1), a hash map beyond. */
static int id_slot(parser *ps, int sp, uint64_t id, uint32_t **out)
{
	if (id < ps->id_limit) {
		uint32_t old = ps->cap_ids[sp];
		if (id >= old) {
			int r = grow((void **)&ps->ids[sp], &ps->cap_ids[sp], id + 1,
			                        sizeof(uint32_t));
			if (r < 0)
				return r;
			memset(ps->ids[sp] + old, 0xff, (ps->cap_ids[sp] - old) * sizeof(uint32_t));
		}
		*out = &ps->ids[sp][id];
		return 0;
	}
	int r = reserve(&ps->id_map);
	if (r < 0)
		return r;
	cg_slot *s = profdb__cg_map_find(&ps->id_map, id, (uint32_t)sp, NULL, NULL);
	if (s->v == CG_EMPTY) {  /* a map slot cannot hold CG_EMPTY: mark it CG_UNDEF */
		s->a = id;
		s->b = (uint32_t)sp;
		s->v = CG_UNDEF;
		ps->id_map.n++;
	}
	*out = &s->v;
	return 0;
}

/* The value of a name line in ID space @p sp: "(id) name", "(id)" or a
 * literal name. Only '(' followed by a digit starts the compressed form. */
static int resolve_name(parser *ps, int sp, const char *v, size_t n, uint32_t *idx)
{
	while (n && cg_is_space(*v)) {
		v++;
		n--;
	}
	rstrip(v, &n);
	if (n >= 2 && v[0] == '(' && cg_is_digit(v[1])) {
		size_t i = 1;
		uint64_t id = 0;
		int ovf = 0;
		while (i < n && cg_is_digit(v[i])) {
			if (__builtin_mul_overflow(id, 10, &id) ||
			    __builtin_add_overflow(id, (uint64_t)(v[i] - '0'), &id))
				ovf = 1;
			i++;
		}
		if (i < n && v[i] == ')') {
			if (ovf)
				return perr(ps, -EBADMSG, "%s name id overflows 64 bits", space_name[sp]);
			size_t tok_len = i + 1;
			const char *rest = v + tok_len;
			size_t rn = n - tok_len;
			while (rn && cg_is_space(*rest)) {
				rest++;
				rn--;
			}
			uint32_t *slot;
			int r = id_slot(ps, sp, id, &slot);
			if (r < 0)
				return r;
			if (rn == 0) {
				if (*slot < CG_UNDEF) {
					*idx = *slot;
					return 0;
				}
				/* Undefined id: a soft error (callgrind 0.10, some other
				 * writers). The token "(id)" itself becomes the name. */
				if (!ps->warned_undef++)
					pwarn(ps,
					      "undefined %s id %" PRIu64 "; \"(%" PRIu64 ")\" is used as the "
					      "name (further ones silently)",
					      space_name[sp], id, id);
				rest = v;
				rn = tok_len;
			}
			uint32_t ni;
			r = intern(ps, rest, rn, &ni);
			if (r < 0)
				return r;
			r = id_slot(ps, sp, id, &slot);  /* intern may not move it, but be safe */
			if (r < 0)
				return r;
			*slot = ni;  /* a redefinition replaces */
			*idx = ni;
			return 0;
		}
	}
	return intern(ps, v, n, idx);
}

/* ---- parts and rows ------------------------------------------------------- */

static void reset_names(parser *ps)
{
	ps->ob = ps->fl = ps->fi = ps->fn = CG_EMPTY;
	ps->cob = ps->cfi = ps->cfn = ps->jfl = ps->jfn = CG_EMPTY;
	ps->cur_fn = ps->cur_row = CG_EMPTY;
}

static void close_seg(parser *ps)
{
	if (ps->seg != CG_EMPTY)
		ps->cg->segs[ps->seg].end = ps->off;
	ps->seg = CG_EMPTY;
}

/* End the current part (a new one starts at the next line that needs it). */
static void end_part(parser *ps)
{
	close_seg(ps);
	ps->prof = CG_EMPTY;
	ps->part_has_events = 0;
	ps->part_has_body = 0;
	ps->n_pos = 1;
	ps->pos_kind[0] = CG_POS_LINE;
	memset(ps->pos, 0, sizeof ps->pos);
	reset_names(ps);
}

/* Record the current column map as the current profile's (detail.c). */
static int save_cols(parser *ps)
{
	profdb_cg *cg = ps->cg;
	int r = grow((void **)&cg->cols, &cg->cap_cols, (uint64_t)cg->n_cols + ps->n_cols,
	                        sizeof *cg->cols);
	if (r < 0)
		return r;
	if (ps->n_cols)  /* cols is NULL until the first events: */
		memcpy(cg->cols + cg->n_cols, ps->colmap, ps->n_cols * sizeof *cg->cols);
	cg->profiles[ps->prof].col_first = cg->n_cols;
	cg->profiles[ps->prof].n_cols = ps->n_cols;
	cg->n_cols += ps->n_cols;
	return 0;
}

static int need_part(parser *ps)
{
	profdb_cg *cg = ps->cg;
	if (ps->prof != CG_EMPTY)
		return 0;
	uint32_t old = cg->cap_profiles;
	int r = grow((void **)&cg->profiles, &cg->cap_profiles,
	                        (uint64_t)cg->n_profiles + 1, sizeof *cg->profiles);
	if (r < 0)
		return r;
	if (old != cg->cap_profiles && cg->n_events) {
		size_t ne = cg->n_events, cap = cg->cap_profiles;
		uint64_t **t[3] = {&cg->p_totals, &cg->p_summary, &cg->p_totline};
		for (int i = 0; i < 3; i++) {
			uint64_t *q = realloc(*t[i], cap * ne * sizeof *q);
			if (!q)
				return profdb__fail(-ENOMEM, "callgrind: out of memory");
			memset(q + old * ne, 0, (cap - old) * ne * sizeof *q);
			*t[i] = q;
		}
	}
	uint32_t p = cg->n_profiles++;
	cg_profile *pr = &cg->profiles[p];
	memset(pr, 0, sizeof *pr);
	pr->file = ps->file;
	/* pid:, thread: and cmd: hold for the later parts of a file until
	 * redefined (valgrind writes them once, before part 1) */
	if (p > 0 && pr[-1].file == ps->file) {
		pr->has_pid = pr[-1].has_pid;
		pr->pid = pr[-1].pid;
		pr->has_thread = pr[-1].has_thread;
		pr->thread = pr[-1].thread;
		pr->cmd = pr[-1].cmd;
	}
	ps->prof = p;
	if ((r = save_cols(ps)) < 0)
		return r;
	cg->profiles[p].n_pos = ps->n_pos;
	memcpy(cg->profiles[p].pos_kind, ps->pos_kind, sizeof ps->pos_kind);
	return 0;
}

static int get_fn(parser *ps, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
	profdb_cg *cg = ps->cg;
	cg_build *b = ps->b;
	/* Most names belong to one (object, file): try the last function seen
	 * with this name before hashing. */
	if (fn < b->cap_fn_by_name) {
		uint32_t c = b->fn_by_name[fn];
		if (c < cg->n_fns && cg->fns[c].ob == ob && cg->fns[c].fl == fl) {
			*out = c;
			return 0;
		}
	}
	cg_map *m = &b->fn_map;
	int r = reserve(m);
	if (r < 0)
		return r;
	uint64_t a = (uint64_t)ob << 32 | fl;
	cg_slot *s = profdb__cg_map_find(m, a, fn, NULL, NULL);
	uint32_t i = s->v;
	if (i == CG_EMPTY) {
		r = grow((void **)&cg->fns, &cg->cap_fns, (uint64_t)cg->n_fns + 1,
		                    sizeof *cg->fns);
		if (r < 0)
			return r;
		i = cg->n_fns++;
		cg->fns[i] = (cg_fn){ob, fl, fn, CG_EMPTY, CG_EMPTY, 0};
		s->a = a;
		s->b = fn;
		s->v = i;
		m->n++;
	}
	uint32_t old = b->cap_fn_by_name;
	if (fn >= old) {
		r = grow((void **)&b->fn_by_name, &b->cap_fn_by_name, (uint64_t)fn + 1,
		                    sizeof(uint32_t));
		if (r < 0)
			return r;
		memset(b->fn_by_name + old, 0xff, (b->cap_fn_by_name - old) * sizeof(uint32_t));
	}
	b->fn_by_name[fn] = i;
	*out = i;
	return 0;
}

/* The row of (current profile, fn). Profiles are scanned one after the
 * other and never resumed, so a per-function stamp "row of profile p" is
 * exact: a stamp of another profile means the row does not exist yet. */
static int get_row(parser *ps, uint32_t fn, uint32_t *out)
{
	profdb_cg *cg = ps->cg;
	cg_build *b = ps->b;
	if (fn >= b->cap_row_of_fn) {
		uint32_t cap = b->cap_row_of_fn, cap2 = cap;
		int r = grow((void **)&b->row_of_fn, &cap, (uint64_t)fn + 1,
		                        sizeof(uint32_t));
		if (r < 0)
			return r;
		r = grow((void **)&b->row_prof, &cap2, (uint64_t)fn + 1, sizeof(uint32_t));
		if (r < 0)
			return r;
		memset(b->row_prof + b->cap_row_of_fn, 0,
		       (cap2 - b->cap_row_of_fn) * sizeof(uint32_t));
		b->cap_row_of_fn = cap < cap2 ? cap : cap2;
	}
	if (b->row_prof[fn] == ps->prof + 1) {
		*out = b->row_of_fn[fn];
		return 0;
	}
	int r = grow_rows((void **)&cg->rows, &cg->row_cost, &cg->cap_rows, cg->n_rows,
	                  sizeof *cg->rows, cg->n_events);
	if (r < 0)
		return r;
	uint32_t i = cg->n_rows++;
	cg->rows[i] = (cg_row){ps->prof, fn};
	b->row_prof[fn] = ps->prof + 1;
	b->row_of_fn[fn] = i;
	*out = i;
	return 0;
}

/* The current function and its row, resolved on first use after a change
 * of ob=/fl=/fn=. */
static int need_fn(parser *ps)
{
	if (ps->cur_row != CG_EMPTY)
		return 0;
	if (ps->fn == CG_EMPTY)
		return perr(ps, -EBADMSG, "cost, calls= or jump line before any fn= line");
	int r = get_fn(ps, ps->ob == CG_EMPTY ? 0 : ps->ob, ps->fl == CG_EMPTY ? 0 : ps->fl, ps->fn,
	               &ps->cur_fn);
	if (r < 0)
		return r;
	return get_row(ps, ps->cur_fn, &ps->cur_row);
}

/* Open a segment at the current line (before its position is applied). */
static int need_seg(parser *ps)
{
	if (ps->seg != CG_EMPTY)
		return 0;
	int r = need_fn(ps);
	if (r < 0)
		return r;
	ps->part_has_body = 1;
	profdb_cg *cg = ps->cg;
	r = grow((void **)&cg->segs, &cg->cap_segs, (uint64_t)cg->n_segs + 1,
	                    sizeof *cg->segs);
	if (r < 0)
		return r;
	cg->segs[cg->n_segs] = (cg_seg){
		.off = ps->off,
		.end = ps->off,
		.profile = ps->prof,
		.fn = ps->cur_fn,
		.src = ps->fi != CG_EMPTY ? ps->fi : ps->fl != CG_EMPTY ? ps->fl : 0,
		.jfl = ps->jfl,
		.jfn = ps->jfn,
		.next = CG_EMPTY,
	};
	memcpy(cg->segs[cg->n_segs].pos, ps->pos, sizeof ps->pos);
	ps->seg = cg->n_segs++;
	cg_fn *f = &cg->fns[ps->cur_fn];  /* append to the function's list */
	if (f->seg_last == CG_EMPTY)
		f->seg_first = ps->seg;
	else
		cg->segs[f->seg_last].next = ps->seg;
	f->seg_last = ps->seg;
	return 0;
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

/* The subpositions of a cost line into ps->pos. */
static int read_position(parser *ps, const char **p, const char *end)
{
	uint64_t np[CG_NPOS];
	const char *t;
	size_t n;
	for (uint32_t c = 0; c < ps->n_pos; c++) {
		if (!cg_tok(p, end, &t, &n))
			return perr(ps, -EBADMSG, "cost line has fewer than %u positions", ps->n_pos);
		int r = profdb__cg_subpos(t, n, ps->pos[c], &np[c]);
		if (r < 0)
			return bad_number(ps, r, "position", t, n);
	}
	memcpy(ps->pos, np, ps->n_pos * sizeof np[0]);
	return 0;
}

/* Costs after the position, added into @p dst (one row, n_events wide). */
static int read_costs(parser *ps, const char *p, const char *end, uint64_t *dst,
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
					if (!ps->warned_neg++)
						pwarn(ps,
						      "negative cost \"%.*s\" counted as 0 (further ones silently)",
						      SHOWN(n), t);
					x = 0;
				} else {
					return bad_number(ps, r, "cost", t, n);
				}
			}
		}
		if (k >= ps->n_cols) {
			if (!ps->warned_extra++)
				pwarn(ps, "more costs than events; extra costs ignored (further ones "
				          "silently)");
			return 0;
		}
		uint32_t e = ps->colmap[k++];
		uint64_t sum;
		if (__builtin_add_overflow(dst[e], x, &sum))
			return add_checked(ps, &dst[e], x, e, what);  /* fails, names the event */
		dst[e] = sum;
	}
}

/* One more body line of the current function (a detail row at most). */
static void count_body(parser *ps)
{
	uint32_t *n = &ps->cg->fns[ps->cur_fn].n_body;
	if (*n < UINT32_MAX)
		(*n)++;
}

/* ---- fast paths ------------------------------------------------------------ */

/* The common lines are read in one pass each. They start before the last
 * '\n' of the text (parser.safe_end), so a '\n' stops every scan: no bounds
 * check per byte, no memchr. Anything else (CR, hex or long costs, leading
 * blanks, extra tokens, a line too long, every error) returns NULL with
 * nothing changed, and the general path reads the line as if the fast path
 * had not looked at it. So the fast paths need not repeat the general
 * path's errors; where they call a helper that can fail, the general path
 * would have failed the same way at the same line. On success they return
 * the line's '\n'. */

#define FAST static inline __attribute__((always_inline))

/* A decimal of 1 to 19 digits (cannot overflow) at *qp. */
FAST int fast_dec(const char **qp, uint64_t *out)
{
	const char *q = *qp, *d0 = q;
	uint64_t x = 0;
	unsigned d;
	while ((d = (unsigned)(unsigned char)*q - '0') <= 9) {
		x = x * 10 + d;
		q++;
	}
	if (q == d0 || q - d0 > 19)
		return 0;
	*out = x;
	*qp = q;
	return 1;
}

/* A subposition at *qp relative to @p last: decimal (at most 19 digits),
 * 0x hex (at most 16), +N, -N or '*'. The caller checks what follows. */
FAST int fast_subpos(const char **qp, uint64_t last, uint64_t *out)
{
	const char *q = *qp;
	char sign = *q;
	if (sign == '*') {
		*out = last;
		*qp = q + 1;
		return 1;
	}
	if (sign == '+' || sign == '-')
		q++;
	uint64_t x = 0;
	if (q[0] == '0' && (q[1] | 0x20) == 'x') {  /* q[0] is not the '\n' */
		const char *d0 = q += 2;
		for (;;) {
			unsigned char ch = (unsigned char)*q;
			unsigned d = ch - '0';
			if (d > 9) {
				d = (unsigned)(ch | 0x20) - 'a';
				if (d > 5)
					break;
				d += 10;
			}
			x = x << 4 | d;
			q++;
		}
		if (q == d0 || q - d0 > 16)
			return 0;
	} else if (!fast_dec(&q, &x)) {
		return 0;
	}
	if (sign == '+') {
		if (__builtin_add_overflow(last, x, out))
			return 0;
	} else if (sign == '-') {
		if (x > last)
			return 0;
		*out = last - x;
	} else {
		*out = x;
	}
	*qp = q;
	return 1;
}

/* A cost line at @p s of at most @p max_len bytes: subpositions separated
 * by one blank, then decimal costs of at most 19 digits, added to row
 * @p row of @p base (row_cost or crow_cost). */
FAST const char *fast_costs(parser *ps, const char *s, uint64_t max_len, uint64_t *base,
                            uint32_t row)
{
	const char *q = s;
	uint64_t np[CG_NPOS];
	uint32_t n_pos = ps->n_pos, n_cols = ps->n_cols;
	memcpy(np, ps->pos, sizeof np);
	for (uint32_t c = 0; c < n_pos; c++) {
		if (c > 0) {
			if (!cg_is_space(*q))
				return NULL;
			q++;
		}
		if (!fast_subpos(&q, np[c], &np[c]))
			return NULL;
	}
	uint64_t v[CG_MAX_EVENTS];
	uint64_t *dst = n_cols ? base + (size_t)row * ps->cg->n_events : NULL;
	uint32_t k = 0;
	while (*q != '\n') {
		if (!cg_is_space(*q))
			goto undo;
		do
			q++;
		while (cg_is_space(*q));
		if (*q == '\n')
			break;  /* trailing blanks */
		if (k >= n_cols)
			goto undo;
		unsigned d = (unsigned)(unsigned char)*q - '0';
		if (d <= 9 && (q[1] == ' ' || q[1] == '\n')) {  /* one digit: most costs */
			v[k] = d;
			q++;
			if (d == 0) {  /* nothing to add */
				k++;
				continue;
			}
		} else if (!fast_dec(&q, &v[k])) {
			goto undo;
		}
		uint32_t e = ps->colmap[k];
		if (__builtin_add_overflow(dst[e], v[k], &dst[e])) {
			dst[e] -= v[k];  /* the general path names the event */
			goto undo;
		}
		k++;
	}
	if ((uint64_t)(q - s) > max_len)
		goto undo;
	memcpy(ps->pos, np, sizeof np);
	return q;
undo:
	while (k-- > 0)
		dst[ps->colmap[k]] -= v[k];
	return NULL;
}

/* The value of calls=, jump= and jcnd= at @p q (after the '='): a decimal
 * count, or count/count for jcnd= (@p need_slash; its other form, and a
 * slash elsewhere, are left to the general path), then at most n_pos
 * subpositions, checked as target_line() checks them, and the line's '\n'. */
FAST const char *fast_target(const parser *ps, const char *q, int need_slash, uint64_t *count)
{
	uint64_t x, y;
	if (!fast_dec(&q, &x))
		return NULL;
	if (*q == '/') {
		if (!need_slash)
			return NULL;
		q++;
		if (!fast_dec(&q, &y))
			return NULL;
	} else if (need_slash) {
		return NULL;
	}
	for (uint32_t c = 0;; c++) {
		if (*q != '\n' && !cg_is_space(*q))
			return NULL;
		while (cg_is_space(*q))
			q++;
		if (*q == '\n')
			break;
		uint64_t dummy;
		if (c >= ps->n_pos || !fast_subpos(&q, ps->pos[c], &dummy))
			return NULL;
	}
	*count = x;
	return q;
}

/* A name line's value "(id)\n" with the id defined (a definition, blanks
 * or anything else are left to resolve_name()). */
FAST const char *fast_id(const parser *ps, int sp, const char *q, uint32_t *idx)
{
	uint64_t id;
	if (*q != '(')
		return NULL;
	q++;
	if (!fast_dec(&q, &id) || q[0] != ')' || q[1] != '\n')
		return NULL;
	if (id >= ps->id_limit || id >= ps->cap_ids[sp] || ps->ids[sp][id] >= CG_UNDEF)
		return NULL;
	*idx = ps->ids[sp][id];
	return q + 1;
}

static int cost_line(parser *ps, const char *p, const char *end)
{
	profdb_cg *cg = ps->cg;
	int r;
	if (ps->pending_call) {
		/* The cost of the call: inclusive, not part of the caller's self. */
		ps->pending_call = 0;
		r = read_position(ps, &p, end);
		if (r < 0)
			return r;
		ps->cob = ps->cfi = CG_EMPTY;  /* KCachegrind: cfn stays */
		return read_costs(ps, p, end, cg->crow_cost + (size_t)ps->call_crow * cg->n_events,
		                  "inclusive call cost");
	}
	if (ps->fn != CG_EMPTY) {
		r = need_seg(ps);
		if (r < 0)
			return r;
	}
	r = read_position(ps, &p, end);
	if (r < 0)
		return r;
	if (ps->seg != CG_EMPTY)
		count_body(ps);
	while (p < end && cg_is_space(*p))
		p++;
	if (p == end)
		return 0;  /* a position-only line (after a jump) */
	if (ps->n_cols == 0)
		return perr(ps, -EBADMSG, "cost line before any events: line");
	r = need_fn(ps);
	if (r < 0)
		return r;
	return read_costs(ps, p, end, cg->row_cost + (size_t)ps->cur_row * cg->n_events,
	                  "self cost");
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
			if (!ps->warned_negcount++)
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
	for (uint32_t c = 0; c < ps->n_pos && cg_tok(&p, end, &t, &n); c++) {
		uint64_t dummy;
		r = profdb__cg_subpos(t, n, ps->pos[c], &dummy);
		if (r < 0)
			return bad_number(ps, r, "target position", t, n);
	}
	return 0;
}

static int key_is(const char *k, size_t kn, const char *lit)
{
	size_t n = strlen(lit);
	return kn == n && memcmp(k, lit, n) == 0;
}

/* A calls= line after its value is read: the row of the call. */
static int add_call(parser *ps, uint64_t count)
{
	profdb_cg *cg = ps->cg;
	int r;
	if (ps->cfn == CG_EMPTY)
		return perr(ps, -EBADMSG, "calls= without a preceding cfn=");
	if (ps->n_cols == 0)
		return perr(ps, -EBADMSG, "calls= line before any events: line");
	uint32_t ob = ps->cob != CG_EMPTY ? ps->cob : ps->ob != CG_EMPTY ? ps->ob : 0;
	uint32_t fl = ps->cfi != CG_EMPTY ? ps->cfi
	            : ps->fi != CG_EMPTY  ? ps->fi
	            : ps->fl != CG_EMPTY  ? ps->fl
	                                  : 0;
	uint32_t callee, callee_row;
	r = get_fn(ps, ob, fl, ps->cfn, &callee);
	if (r < 0)
		return r;
	r = get_row(ps, callee, &callee_row);  /* the callee is part of the profile */
	if (r < 0)
		return r;
	cg_map *m = &ps->b->crow_map;
	r = reserve(m);
	if (r < 0)
		return r;
	uint64_t a = (uint64_t)ps->prof << 32 | ps->cur_fn;
	cg_slot *s = profdb__cg_map_find(m, a, callee, NULL, NULL);
	uint32_t i = s->v;
	if (i == CG_EMPTY) {
		r = grow_rows((void **)&cg->crows, &cg->crow_cost, &cg->cap_crows, cg->n_crows,
		              sizeof *cg->crows, cg->n_events);
		if (r < 0)
			return r;
		i = cg->n_crows++;
		cg->crows[i] = (cg_crow){ps->prof, ps->cur_fn, callee, 0, 0};
		s->a = a;
		s->b = callee;
		s->v = i;
		m->n++;
	}
	if (__builtin_add_overflow(cg->crows[i].count, count, &cg->crows[i].count))
		return perr(ps, -EBADMSG, "call count overflows 64 bits");
	/* the callee of this call site, for detail.c (which cannot resolve
	 * compressed names: the id tables die with the scan) */
	r = grow((void **)&cg->sites, &cg->cap_sites, (uint64_t)cg->n_sites + 1, sizeof *cg->sites);
	if (r < 0)
		return r;
	cg->sites[cg->n_sites++] = (cg_site){ps->seg, callee};
	ps->call_crow = i;
	ps->pending_call = 1;
	return 0;
}

static int calls_line(parser *ps, const char *v, const char *end)
{
	uint64_t count;
	int r = need_seg(ps);
	if (r < 0)
		return r;
	r = target_line(ps, "calls=", v, end, &count);
	if (r < 0)
		return r;
	return add_call(ps, count);
}

/* The effect of fn=, fl=, fi= or fe= (@p k: the key's second letter) once
 * the name is known and the segment closed. */
static void set_file_fn(parser *ps, char k, uint32_t idx)
{
	if (k == 'n') {
		ps->fn = idx;
		ps->fi = ps->fl;  /* back to the function's file (KCachegrind) */
		ps->cur_fn = ps->cur_row = CG_EMPTY;
		ps->jfl = ps->jfn = CG_EMPTY;
	} else if (k == 'l') {
		ps->fl = ps->fi = idx;
		ps->cur_fn = ps->cur_row = CG_EMPTY;
	} else {
		ps->fi = idx;
	}
}

static void set_ob(parser *ps, uint32_t idx)
{
	ps->ob = idx;
	ps->cur_fn = ps->cur_row = CG_EMPTY;
}

/* After jump=/jcnd=: jfi=/jfn= name the target of the next jump only; a
 * new segment starts so detail.c sees the same state. */
static void end_jump(parser *ps)
{
	if (ps->jfl != CG_EMPTY || ps->jfn != CG_EMPTY) {
		ps->cg->segs[ps->seg].end = ps->next_off;
		ps->seg = CG_EMPTY;
		ps->jfl = ps->jfn = CG_EMPTY;
	}
}

static int spec_line(parser *ps, const char *k, size_t kn, const char *v, const char *end)
{
	size_t n = (size_t)(end - v);
	uint32_t idx;
	int r;
	switch (kn) {
	case 2:
		if (k[0] == 'f' && (k[1] == 'n' || k[1] == 'l' || k[1] == 'i' || k[1] == 'e')) {
			close_seg(ps);
			r = resolve_name(ps, k[1] == 'n' ? CG_SP_FN : CG_SP_FILE, v, n, &idx);
			if (r < 0)
				return r;
			set_file_fn(ps, k[1], idx);
			return 0;
		}
		if (k[0] == 'o' && k[1] == 'b') {
			close_seg(ps);
			r = resolve_name(ps, CG_SP_OB, v, n, &idx);
			if (r < 0)
				return r;
			set_ob(ps, idx);
			return 0;
		}
		break;
	case 3:
		if (key_is(k, kn, "cfn"))
			return resolve_name(ps, CG_SP_FN, v, n, &ps->cfn);
		if (key_is(k, kn, "cfi") || key_is(k, kn, "cfl"))
			return resolve_name(ps, CG_SP_FILE, v, n, &ps->cfi);
		if (key_is(k, kn, "cob"))
			return resolve_name(ps, CG_SP_OB, v, n, &ps->cob);
		if (key_is(k, kn, "jfi") || key_is(k, kn, "jfn")) {
			close_seg(ps);
			if (k[2] == 'i')
				return resolve_name(ps, CG_SP_FILE, v, n, &ps->jfl);
			return resolve_name(ps, CG_SP_FN, v, n, &ps->jfn);
		}
		break;
	case 4:
		if (key_is(k, kn, "jump") || key_is(k, kn, "jcnd")) {
			uint64_t count;
			r = need_seg(ps);
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
	if (!ps->warned_unknown++)
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
		ps->pos_kind[k++] = (uint8_t)kind;
	}
	if (k == 0)
		return perr(ps, -EBADMSG, "empty positions: line");
	ps->n_pos = k;
	cg_profile *pr = &ps->cg->profiles[ps->prof];
	pr->n_pos = k;
	memcpy(pr->pos_kind, ps->pos_kind, sizeof ps->pos_kind);
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
			if (ps->colmap[j] == (uint32_t)e)
				return perr(ps, -EBADMSG, "event \"%.*s\" listed twice", SHOWN(n), t);
		ps->colmap[k++] = (uint32_t)e;
	}
	if (k == 0)
		return perr(ps, -EBADMSG, "events: line names no event");
	ps->n_cols = k;
	ps->part_has_events = 1;
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
	                                  ps->file,
	                                  ps->lineno};
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
	if (ps->n_cols == 0)
		return perr(ps, -EBADMSG, "%s: before events:", what);
	memset(dst, 0, cg->n_events * sizeof *dst);
	while (cg_tok(&v, end, &t, &n)) {
		uint64_t x;
		int r = profdb__cg_u64(t, n, &x);
		if (r < 0)
			return bad_number(ps, r, what, t, n);
		if (k >= ps->n_cols) {
			if (!ps->warned_extra++)
				pwarn(ps, "more %s values than events; extra values ignored", what);
			break;
		}
		dst[ps->colmap[k++]] = x;
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

static int header_line(parser *ps, const char *k, size_t kn, const char *v, const char *end)
{
	profdb_cg *cg = ps->cg;
	int r;
	/* KCachegrind's rule: these start a new part once the current one has
	 * seen events:. So they do once it has body lines: a part that kept the
	 * previous part's columns and then redefines them must not have its
	 * earlier lines re-read (detail.c) with the new columns. */
	int starts = key_is(k, kn, "events") || key_is(k, kn, "positions") ||
	             key_is(k, kn, "part") || key_is(k, kn, "pid") || key_is(k, kn, "thread");
	if (starts && (ps->part_has_events || ps->part_has_body)) {
		uint32_t keep_cols = ps->n_cols;
		end_part(ps);
		ps->n_cols = keep_cols;  /* columns stay until the next events: */
	}
	if ((r = need_part(ps)) < 0)
		return r;
	cg_profile *pr = &cg->profiles[ps->prof];
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
		return parse_sum_line(ps, v, end, cg->p_summary + ps->prof * ne, "summary");
	}
	if (key_is(k, kn, "totals") || key_is(k, kn, "total")) {
		pr->has_totals = 1;
		return parse_sum_line(ps, v, end, cg->p_totline + ps->prof * ne, "totals");
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
	if (key_is(k, kn, "creator") || key_is(k, kn, "arch"))
		return 0;
	if (!ps->warned_unknown++)
		pwarn(ps, "unknown header line \"%.*s:\" skipped (further unknown lines silently)",
		      SHOWN(kn), k);
	return 0;
}

static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || cg_is_digit(c) || c == '_';
}

static int one_line(parser *ps, const char *p, const char *end)
{
	if (ps->pending_call) {
		if (p == end || !(cg_is_digit(*p) || *p == '+' || *p == '-' || *p == '*'))
			return perr(ps, -EBADMSG, "calls= line not followed by its cost line");
		return cost_line(ps, p, end);
	}
	if (p == end || *p == '#')
		return 0;
	char c0 = *p;
	if (cg_is_digit(c0) || c0 == '+' || c0 == '-' || c0 == '*') {
		if (ps->prof == CG_EMPTY) {
			int r = need_part(ps);
			if (r < 0)
				return r;
		}
		return cost_line(ps, p, end);
	}
	const char *k = p;
	while (p < end && is_key_char(*p))
		p++;
	size_t kn = (size_t)(p - k);
	if (kn && p < end && *p == '=') {
		if (ps->prof == CG_EMPTY) {
			int r = need_part(ps);
			if (r < 0)
				return r;
		}
		return spec_line(ps, k, kn, p + 1, end);
	}
	if (kn && p < end && *p == ':')
		return header_line(ps, k, kn, p + 1, end);
	if (end - k >= 4 && memcmp(k, "====", 4) == 0) {
		/* Xdebug's profiler_append: "==== NEW PROFILING FILE ====" starts
		 * a new profile with its own name ids. */
		end_part(ps);
		profdb__cg_map_free(&ps->id_map);
		for (int i = 0; i < 3; i++)
			if (ps->ids[i])
				memset(ps->ids[i], 0xff, ps->cap_ids[i] * sizeof(uint32_t));
		return 0;
	}
	for (const char *q = k; q < end; q++)
		if ((unsigned char)*q < 0x20 && *q != '\t')
			return perr(ps, -EBADMSG, "binary data (byte 0x%02x)", (unsigned char)*q);
	if (ps->last_line)
		return perr(ps, -EBADMSG, "unrecognised last line");
	if (!ps->warned_unknown++)
		pwarn(ps, "unrecognised line skipped (further unknown lines silently)");
	return 0;
}

/* The fast paths of the main loop for the line at @p s (offset @p off,
 * before parser.safe_end): > 0 the bytes consumed, 0 for the general path,
 * < 0 an error (the one the general path would give). */
static int64_t fast_line(parser *ps, const char *s, uint64_t off)
{
	char c0 = *s;
	const char *nl;
	uint32_t idx;
	uint64_t count;
	int r;
	if (cg_is_digit(c0) || c0 == '+' || c0 == '-' || c0 == '*') {
		profdb_cg *cg = ps->cg;
		if (ps->pending_call) {
			/* The cost of the call: inclusive, not part of the caller's self. */
			nl = fast_costs(ps, s, CG_MAX_LINE, cg->crow_cost, ps->call_crow);
			if (!nl)
				return 0;
			ps->pending_call = 0;
			ps->cob = ps->cfi = CG_EMPTY;  /* KCachegrind: cfn stays */
			return nl + 1 - s;
		}
		if (ps->seg == CG_EMPTY) {
			if (ps->fn == CG_EMPTY)
				return 0;
			ps->off = off;
			if (need_seg(ps) < 0)
				return 0;  /* the general path fails the same way */
		}
		if (ps->cur_row == CG_EMPTY ||
		    !(nl = fast_costs(ps, s, CG_MAX_LINE, cg->row_cost, ps->cur_row)))
			return 0;
		count_body(ps);
		return nl + 1 - s;
	}
	if (c0 == '\n')
		return ps->pending_call ? 0 : 1;
	if (ps->pending_call || ps->prof == CG_EMPTY)
		return 0;
	/* The keys below end before any '\n' they are compared with. */
	switch (c0) {
	case 'f':  /* fn=, fl=, fi=, fe= */
		if ((s[1] != 'n' && s[1] != 'l' && s[1] != 'i' && s[1] != 'e') || s[2] != '=' ||
		    !(nl = fast_id(ps, s[1] == 'n' ? CG_SP_FN : CG_SP_FILE, s + 3, &idx)))
			return 0;
		ps->off = off;
		close_seg(ps);
		set_file_fn(ps, s[1], idx);
		return nl + 1 - s;
	case 'o':
		if (s[1] != 'b' || s[2] != '=' || !(nl = fast_id(ps, CG_SP_OB, s + 3, &idx)))
			return 0;
		ps->off = off;
		close_seg(ps);
		set_ob(ps, idx);
		return nl + 1 - s;
	case 'c':  /* cfn=, cfi=, cfl=, cob=, calls= */
		if (s[1] == '\n' || s[2] == '\n')
			return 0;
		if (s[3] == '=') {
			uint32_t *dst;
			int sp;
			if (s[1] == 'f' && s[2] == 'n')
				dst = &ps->cfn, sp = CG_SP_FN;
			else if (s[1] == 'f' && (s[2] == 'i' || s[2] == 'l'))
				dst = &ps->cfi, sp = CG_SP_FILE;
			else if (s[1] == 'o' && s[2] == 'b')
				dst = &ps->cob, sp = CG_SP_OB;
			else
				return 0;
			if (!(nl = fast_id(ps, sp, s + 4, &idx)))
				return 0;
			*dst = idx;
			return nl + 1 - s;
		}
		if (s[3] != 'l' || s[4] != 's' || s[5] != '=' || s[1] != 'a' || s[2] != 'l' ||
		    !(nl = fast_target(ps, s + 6, 0, &count)) || nl - s > (int64_t)CG_MAX_LINE)
			return 0;
		ps->off = off;
		if ((r = need_seg(ps)) < 0 || (r = add_call(ps, count)) < 0)
			return r;
		return nl + 1 - s;
	case 'j':  /* jump=, jcnd= */
		if (!((s[1] == 'u' && s[2] == 'm' && s[3] == 'p') ||
		      (s[1] == 'c' && s[2] == 'n' && s[3] == 'd')) ||
		    s[4] != '=' || !(nl = fast_target(ps, s + 5, s[1] == 'c', &count)) ||
		    nl - s > (int64_t)CG_MAX_LINE)
			return 0;
		ps->off = off;
		ps->next_off = off + (uint64_t)(nl + 1 - s);
		if ((r = need_seg(ps)) < 0)
			return r;
		end_jump(ps);
		return nl + 1 - s;
	}
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

int profdb__cg_parse(profdb_cg *cg, uint32_t fi, cg_build *b)
{
	parser ps;
	int r = 0;
	memset(&ps, 0, sizeof ps);
	ps.cg = cg;
	ps.b = b;
	ps.f = &cg->files[fi];
	ps.file = fi;
	ps.seg = CG_EMPTY;
	end_part(&ps);

	if (cg->n_names == 0) {
		r = grow((void **)&cg->names, &cg->cap_names, 1, sizeof *cg->names);
		if (r < 0)
			return r;
		cg->names[0] = (cg_name){"", 0};
		cg->n_names = 1;
	}
	const char *s = ps.f->text;
	uint64_t size = ps.f->size;
	/* A definition "fn=(N) x" takes at least 8 bytes: dense arrays of
	 * size/2 entries stay proportional to the text. */
	ps.id_limit = size / 2 > 65536 ? size / 2 : 65536;
	if (ps.id_limit > ((uint64_t)1 << 26))
		ps.id_limit = (uint64_t)1 << 26;
	if (size && !looks_like_callgrind(s, size))
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: not a callgrind file (no \"# callgrind format\" first line, "
		                    "no events:/creator:/version: line in the first 2047 bytes)",
		                    ps.f->label);
	ps.safe_end = size;
	while (ps.safe_end > 0 && s[ps.safe_end - 1] != '\n')
		ps.safe_end--;
	uint64_t off = 0, next_progress = (uint64_t)16 << 20;
	profdb_progress_fn progress = cg->opts.progress;  /* not reloaded per line */
	while (off < size) {
		if (progress && off >= next_progress) {
			next_progress = off + ((uint64_t)16 << 20);
			if (cg->opts.progress(off, size, cg->opts.progress_userdata)) {
				r = profdb__fail(-ECANCELED, "%s: cancelled at offset %" PRIu64,
				                 ps.f->label, off);
				goto out;
			}
		}
		ps.lineno++;
		int64_t used = off < ps.safe_end ? fast_line(&ps, s + off, off) : 0;
		if (used > 0) {
			off += (uint64_t)used;
			continue;
		}
		if (used < 0) {
			r = (int)used;
			goto out;
		}
		ps.off = off;
		uint64_t rest = size - off;
		size_t scan = (size_t)(rest < CG_MAX_LINE + 1 ? rest : CG_MAX_LINE + 1);
		const char *p = s + off;
		const char *nl = memchr(p, '\n', scan);
		size_t n;
		if (nl) {
			n = (size_t)(nl - p);
		} else if (rest > CG_MAX_LINE) {
			r = perr(&ps, -EBADMSG, "line longer than %" PRIu64 " bytes", CG_MAX_LINE);
			goto out;
		} else {
			n = (size_t)rest;
			ps.last_line = 1;
		}
		off += n + (nl ? 1 : 0);
		ps.next_off = off;
		if (n && p[n - 1] == '\r')
			n--;
		rstrip(p, &n);
		r = one_line(&ps, p, p + n);
		if (r < 0)
			goto out;
	}
	ps.off = size;
	close_seg(&ps);
	if (ps.pending_call) {
		ps.last_line = 0;
		r = perr(&ps, -ENODATA, "file ends after calls= without its cost line (truncated?)");
		goto out;
	}
	r = 0;
out:
	profdb__cg_map_free(&ps.id_map);
	for (int i = 0; i < 3; i++)
		free(ps.ids[i]);
	return r;
}
