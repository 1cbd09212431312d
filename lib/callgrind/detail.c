/* Line/instruction detail, call sites and jumps of one function, decoded on demand from
 * the blocks the open recorded (callgrind-internal.h, cg_blk). The scanner
 * already validated every line, so this reads the same bytes with the same
 * state; the checks stay anyway (a failure would be an internal error). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind-internal.h"
#include "detail-internal.h"
#include "fast-internal.h"
#include "lines-internal.h"

static int derr(const dstate *s, const char *what)
{
	return profdb__fail(-EBADMSG, "%s: offset %" PRIu64 ": %s",
	                    s->d->cg->files[s->p->file].label, s->off, what);
}

static int read_pos(dstate *s, const char **p, const char *end, uint64_t *np, int move)
{
	const char *t;
	size_t n;
	for (uint32_t c = 0; c < s->p->n_pos; c++) {
		if (!cg_tok(p, end, &t, &n)) {
			if (move)
				return derr(s, "cost line has too few positions");
			np[c] = s->pos[c];  /* a target may give fewer columns */
			continue;
		}
		if (profdb__cg_subpos(t, n, s->pos[c], &np[c]) < 0)
			return derr(s, "bad position");
	}
	if (move)
		memcpy(s->pos, np, s->p->n_pos * sizeof *np);
	return 0;
}

/* The costs after the position, as the scanner counted them: a negative
 * one (warned at open) is 0, extra ones are ignored. Returns how many. */
static uint32_t read_costs(const dstate *s, const char *p, const char *end, uint64_t *v)
{
	const char *t;
	size_t n;
	uint32_t k = 0;
	while (k < s->p->n_cols && cg_tok(&p, end, &t, &n))
		if (profdb__cg_u64(t, n, &v[k++]) < 0)
			v[k - 1] = 0;
	return k;
}

/* Rows are keyed by (file, instruction, line). */
static uint64_t dline_key_hash(const dline *l)
{
	return profdb__mix64(((uint64_t)l->src * 0x9e3779b97f4a7c15ULL ^ l->instr) +
	                     profdb__mix64(l->line));
}

static uint64_t dline_hash(const void *ctx, uint32_t e)
{
	return dline_key_hash(&((const profdb_cg_detail *)ctx)->lines[e]);
}

static int dline_eq(const void *ctx, uint32_t e, const void *key)
{
	const dline *l = &((const profdb_cg_detail *)ctx)->lines[e], *k = key;
	return l->src == k->src && l->instr == k->instr && l->line == k->line;
}

/* Room for row @p n of a row table and its cost row (a stride of ne,
 * ne + 1 values allocated per row, so the cost table exists even without
 * events). The caller zeroes a cost row as it appends the row (the room
 * may be a recycled detail's). */
static int grow_row(void **rows, uint64_t **cost, size_t *cap, uint32_t n, size_t elem,
                    size_t ne)
{
	size_t old = *cap, bytes;
	if (n < old)
		return 0;
	int r = profdb__cg_grow(rows, cap, (uint64_t)n + 1, elem);
	if (r < 0)
		return r;
	if (old != *cap) {
		if ((r = profdb__cg_bytes(*cap, ne + 1, sizeof **cost, &bytes)) < 0)
			return r;
		uint64_t *q = realloc(*cost, bytes);
		if (!q)
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		*cost = q;
	}
	return 0;
}

/* Add the costs @p v of a cost line (by column) into the row @p dst. */
static int add_costs(const dstate *s, uint64_t *dst, const uint64_t *v, uint32_t nv,
                     const char *what)
{
	const profdb_cg *cg = s->d->cg;
	for (uint32_t k = 0; k < nv; k++) {   /* (cols is NULL in a part without events) */
		uint32_t e = cg->cols[s->p->col_first + k];
		if (__builtin_add_overflow(dst[e], v[k], &dst[e]))
			return derr(s, what);
	}
	return 0;
}

/* -1, 0, 1 as @p a comes before, is, or comes after @p b in the order
 * (instruction, line, file) of a block's cost lines. */
static int dline_cmp(const dline *a, const dline *b)
{
	if (a->instr != b->instr)
		return a->instr < b->instr ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->src < b->src ? -1 : a->src > b->src;
}

/* The map of every row so far, for the first row out of order. */
static int build_map(profdb_cg_detail *d)
{
	size_t expected = d->map_expected > d->n_lines ? d->map_expected : d->n_lines;
	int r = profdb__hindex_init(&d->map, expected);
	for (uint32_t i = 0; i < d->n_lines && r == 0; i++) {
		uint32_t *slot = profdb__hindex_slot(&d->map, dline_hash(d, i), dline_eq, d,
		                                     &d->lines[i]);
		*slot = i + 1;
		r = profdb__hindex_added(&d->map, dline_hash, d);
	}
	return r;
}

/* The row of a line at @p key (*row): a new row (zeroed) while the keys
 * come in order, or else the one the map finds or adds. */
static int row_for(profdb_cg_detail *d, const dline *key, uint32_t *row)
{
	uint32_t *slot = NULL, i = d->n_lines;   /* a new row, unless found */
	int r, order = d->n_lines ? dline_cmp(key, &d->lines[d->n_lines - 1]) : 1;
	if (!d->map.slot && order < 0 && (r = build_map(d)) < 0)
		return r;
	if (d->map.slot) {
		slot = profdb__hindex_slot(&d->map, dline_key_hash(key), dline_eq, d, key);
		if (*slot)
			i = *slot - 1;
	} else if (order == 0) {
		i = d->n_lines - 1;
	}
	*row = i;
	if (i < d->n_lines)
		return 0;
	if ((r = grow_row((void **)&d->lines, &d->cost, &d->cap_lines, d->n_lines,
	                  sizeof *d->lines, d->ne)) < 0)
		return r;
	d->lines[d->n_lines++] = (dline){.src = key->src, .instr = key->instr, .line = key->line};
	if (slot) {
		*slot = i + 1;
		if ((r = profdb__hindex_added(&d->map, dline_hash, d)) < 0)
			return r;
	}
	if (i >= d->n_zero)
		memset(d->cost + (size_t)i * d->ne, 0, d->ne * sizeof *d->cost);
	return 0;
}

/* The cost rows from @p n on zeroed, some ahead: one call for many new
 * rows, and a new row's first add does not read what a store just wrote
 * in a different width (memset's). Not past the rows the function can
 * have (map_expected, when @p n is below it): the room may be a larger
 * function's, and most functions have a few rows. */
static void zero_ahead(profdb_cg_detail *d, uint32_t n)
{
	size_t to = d->cap_lines - n > 64 ? n + 64 : d->cap_lines;
	if (n < d->map_expected && to > d->map_expected)
		to = d->map_expected;
	memset(d->cost + (size_t)n * d->ne, 0, (to - n) * d->ne * sizeof *d->cost);
	d->n_zero = (uint32_t)to;
}

/* The costs @p v of a cost line (by column) added to its row @p dst (and
 * their events to its @p row's nz), and to the sums (a cost of 0 changes
 * nothing): 0, or -1 when a row's cost
 * passes 2^64 - 1 (the caller names the line). @p fresh (a constant at
 * each call): the row was just made and its costs are 0, so each event is
 * stored (a part's columns name distinct events) and none can overflow.
 * @p cols: the columns' events (NULL in a part without events, then @p nv
 * is 0). The sums' carries are counted in 64-bit words, not flagged in
 * bytes: a byte store may alias anything, and every value in the caller's
 * loop would be loaded again after it. */
FAST int add_to_row(const uint32_t *cols, dline *row, uint64_t *dst, const uint64_t *v,
                    uint32_t nv, uint64_t *sum, uint64_t *carry, const int fresh)
{
	uint32_t nz = 0;
	for (uint32_t k = 0; k < nv; k++) {
		if (!v[k])
			continue;
		uint32_t e = cols[k];
		if (__builtin_add_overflow(fresh ? 0 : dst[e], v[k], &dst[e]))
			return -1;
		carry[e] += __builtin_add_overflow(sum[e], v[k], &sum[e]);
		nz |= e < 32 ? (uint32_t)1 << e : 0;
	}
	row->nz = fresh ? nz : row->nz | nz;
	return 0;
}

/* The events of the columns of @p s's part (NULL: none). */
static const uint32_t *part_cols(const dstate *s)
{
	return s->p->n_cols ? s->d->cg->cols + s->p->col_first : NULL;
}

/* A cost line outside calls read by the token reader. */
static int add_line(dstate *s, const uint64_t *v, uint32_t nv)
{
	dline key = {.src = s->src, .instr = cg_pos_col(s->pos, s->col_instr),
	             .line = cg_pos_col(s->pos, s->col_line)};
	profdb_cg_detail *d = s->d;
	uint32_t i;
	int r = row_for(d, &key, &i);
	if (r == 0 && add_to_row(part_cols(s), &d->lines[i], d->cost + (size_t)i * d->ne, v, nv,
	                         d->sum, d->sum_carry, 0) < 0)
		r = derr(s, "line cost overflows 64 bits");
	return r;
}

/* The cost lines outside calls from *@p qp of @p text while they are of
 * fast_cost_line()'s kind (the text ends with a '\n'): most of a block,
 * read in one loop with the positions in locals and the common rows (the
 * last one again, or a new one after it) found inline. *qp is left at
 * the first line not read (another kind of line, or one for the token
 * reader), s->pos at the last line read. */
static int self_run(dstate *s, const char *text, const char **qp, const char *lim)
{
	profdb_cg_detail *d = s->d;
	const char *q = *qp;
	const uint32_t n_pos = s->p->n_pos, n_cols = s->p->n_cols, src = s->src;
	const uint32_t *cols = part_cols(s);
	const int ci = s->col_instr, cl = s->col_line;
	const size_t ne = d->ne;
	uint64_t *sum = d->sum, *carry = d->sum_carry;
	uint64_t np[CG_NPOS] = {s->pos[0], s->pos[1]};
	int r = 0;
	for (;;) {
		uint64_t v[CG_MAX_EVENTS];
		uint32_t nv;
		const char *nl =
			fast_cost_line(q, lim, UINT64_MAX, n_pos, n_cols, np, v, &nv, NULL, FAST_CRLF);
		if (!nl)
			break;
		/* (the key in scalars: a struct built field by field and read
		 * whole would stall on the store forwarding; np indexed by
		 * constants only, so that it can stay in registers) */
		uint64_t instr = ci == 0 ? np[0] : ci == 1 ? np[1] : 0;
		uint64_t line = cl == 0 ? np[0] : cl == 1 ? np[1] : 0;
		uint32_t n = d->n_lines;
		const dline *last = n ? &d->lines[n - 1] : NULL;
		uint32_t i;
		if (d->map.slot || !last || n >= d->cap_lines || instr < last->instr ||
		    (instr == last->instr && (line < last->line ||
		                              (line == last->line && src < last->src)))) {
			dline key = {.src = src, .instr = instr, .line = line};
			if ((r = row_for(d, &key, &i)) < 0) {
				s->off = (uint64_t)(q - text);
				break;
			}
		} else if (instr == last->instr && line == last->line && src == last->src) {
			i = n - 1;
		} else {
			dline *l = &d->lines[n];
			l->src = src;
			l->instr = instr;
			l->line = line;
			d->n_lines = n + 1;
			if (n >= d->n_zero)
				zero_ahead(d, n);
			add_to_row(cols, l, d->cost + (size_t)n * ne, v, nv, sum, carry, 1);
			goto next;
		}
		if (add_to_row(cols, &d->lines[i], d->cost + (size_t)i * ne, v, nv, sum, carry, 0) < 0) {
			s->off = (uint64_t)(q - text);   /* (the line's, for the message) */
			r = derr(s, "line cost overflows 64 bits");
			break;
		}
	next:
		q = nl + 1;
		if (q == lim || !cost_start(*q))
			break;
	}
	s->pos[0] = np[0];   /* (one by one, as written: no stall on a wider read) */
	s->pos[1] = np[1];
	*qp = q;
	return r;
}

/* A jump from the current position to @p tgt, @p a times (of @p b
 * executions, for jcnd=). */
static int push_jump(dstate *s, int cond, uint64_t a, uint64_t b, const uint64_t *tgt)
{
	profdb_cg_detail *d = s->d;
	const profdb_cg *cg = d->cg;
	int r = profdb__cg_grow((void **)&d->jumps, &d->cap_jumps, (uint64_t)d->n_jumps + 1,
	                        sizeof *d->jumps);
	if (r < 0)
		return r;
	d->jumps[d->n_jumps++] = (djump){
		.from_line = cg_pos_col(s->pos, s->col_line),
		.from_instr = cg_pos_col(s->pos, s->col_instr),
		.to_line = cg_pos_col(tgt, s->col_line),
		.to_instr = cg_pos_col(tgt, s->col_instr),
		.count = a,
		.executed = b,
		.profile = s->profile,
		.to_file = s->jfl != CG_EMPTY ? s->jfl : s->src,
		.to_function = s->jfn != CG_EMPTY ? s->jfn : cg->fns[s->fn].fn,
		.conditional = cond,
	};
	s->jfl = s->jfn = CG_EMPTY;  /* they name one jump's target */
	return d->copy ? d->copy->jump(d->copy->ctx, d, d->n_jumps - 1) : 0;
}

static int add_jump(dstate *s, int cond, const char *p, const char *end)
{
	const char *t;
	size_t n;
	uint64_t a = 0, b = 0, tgt[CG_NPOS];
	if (!cg_tok(&p, end, &t, &n))
		return derr(s, "jump without a count");
	const char *slash = memchr(t, '/', n);
	size_t cn = slash ? (size_t)(slash - t) : n;
	if (profdb__cg_u64(t, cn, &a) < 0)
		a = 0;  /* negative: warned by the scanner */
	if (slash) {
		if (profdb__cg_u64(slash + 1, n - cn - 1, &b) < 0)
			return derr(s, "bad jcnd= count");
	} else if (cond) {
		/* "jcnd=exe-count jump-count target" (the spec's form) */
		const char *q = p;
		uint64_t y;
		if (cg_tok(&q, end, &t, &n) && profdb__cg_u64(t, n, &y) == 0 &&
		    cg_tok(&q, end, &t, &n)) {
			b = a;
			a = y;
			p = q - n;
		}
	} else {
		b = a;
	}
	int r = read_pos(s, &p, end, tgt, 0);
	return r < 0 ? r : push_jump(s, cond, a, b, tgt);
}

/* jump=COUNT or jcnd=COUNT/EXECUTED at @p q (after the '='; a '\n' or
 * "\r\n" ends the line), with its target's subpositions after blanks (fewer: the
 * current ones), and blanks: the jump added as add_jump() adds it, and
 * *eol its '\n'. 0 (nothing done) for any other form, which add_jump()
 * reads. */
static int fast_jump(dstate *s, int cond, const char *q, const char **eol)
{
	uint64_t a, b, tgt[CG_NPOS];
	if (!(q = fast_target(q, cond, s->p->n_pos, s->pos, tgt, &a, &b, 1)))
		return 0;
	*eol = q;
	int r = push_jump(s, cond, a, b, tgt);
	return r < 0 ? r : 1;
}

/* A block's calls: the first of its profile's calls= lines at or after
 * its start (the open recorded them in text order), and the end of them. */
static void first_call(const profdb_cg *cg, const dstate *s, uint32_t *at, uint32_t *end)
{
	uint32_t lo = cg->profiles[s->profile].call_first;
	uint32_t hi = s->profile + 1 < cg->n_profiles ? cg->profiles[s->profile + 1].call_first
	                                               : cg->n_calls;
	*end = hi;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cg->calls[mid].off < s->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
}

/* The cost line after calls=: where the call is and its inclusive cost.
 * The block's call records are searched for at its first call (many
 * blocks have none). */
static int add_call(dstate *s, const uint64_t *v, uint32_t nv)
{
	profdb_cg_detail *d = s->d;
	const profdb_cg *cg = d->cg;
	uint32_t callee;
	if (!s->sites_found) {
		first_call(cg, s, &s->site, &s->site_end);
		s->sites_found = 1;
	}
	if (s->site >= s->site_end || cg->calls[s->site].off != s->call_off ||
	    cg->calls[s->site].caller != s->fn)
		return derr(s, "internal error: a calls= line the scanner did not record");
	callee = cg->calls[s->site++].callee;
	int r = grow_row((void **)&d->calls, &d->call_cost, &d->cap_calls, d->n_calls,
	                 sizeof *d->calls, d->ne);
	if (r < 0)
		return r;
	uint32_t i = d->n_calls++;
	d->calls[i] = (dcall){cg_pos_col(s->pos, s->col_line), cg_pos_col(s->pos, s->col_instr),
	                      s->call_count, s->profile, callee, s->src};
	uint64_t *dst = d->call_cost + (size_t)i * d->ne;
	memset(dst, 0, d->ne * sizeof *dst);
	r = add_costs(s, dst, v, nv, "call cost overflows 64 bits");
	return r < 0 ? r : profdb__cg_derive(cg, dst);
}

/* A header line that starts a new part inside a function's lines, as
 * header_line() (header.c) tells them, or Xdebug's "====" line: it ends a
 * block. */
static int starts_part(const char *p, const char *end)
{
	if (end - p >= 4 && memcmp(p, "====", 4) == 0)
		return 1;
	static const char *const keys[] = {"events:", "positions:", "part:", "pid:", "thread:"};
	size_t n = (size_t)(end - p);
	for (int i = 0; i < 5; i++) {
		size_t kn = strlen(keys[i]);
		if (n >= kn && memcmp(p, keys[i], kn) == 0)
			return 1;
	}
	return 0;
}

/* A name line inside a block: fl=, fi=, fe= change the current file,
 * jfi=, jfn= name the next jump's target. "(id)" and "(id) name" are
 * resolved with the file's compressed names as they were at this line,
 * a literal name by the scan's record of the line (names.c). 1: a name
 * line (done), 2: a line that ends the block (fn=, ob=, a new part), 0:
 * another line, < 0: error. */
static int name_line(dstate *s, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	uint32_t *dst;
	int sp = CG_SP_FILE;
	const char *v;
	if (n >= 3 && p[0] == 'f' && p[2] == '=' && (p[1] == 'l' || p[1] == 'i' || p[1] == 'e'))
		dst = &s->src, v = p + 3;
	else if (n >= 4 && p[0] == 'j' && p[1] == 'f' && p[3] == '=' && (p[2] == 'i' || p[2] == 'n'))
		dst = p[2] == 'i' ? &s->jfl : &s->jfn, sp = p[2] == 'i' ? CG_SP_FILE : CG_SP_FN,
		v = p + 4;
	else if (n >= 3 && ((p[0] == 'f' && p[1] == 'n') || (p[0] == 'o' && p[1] == 'b')) && p[2] == '=')
		return 2;   /* the end of the block */
	else
		return starts_part(p, end) ? 2 : 0;
	const cg_file *f = &s->d->cg->files[s->p->file];
	while (v < end && cg_is_space(*v))
		v++;
	uint64_t id = 0;
	const char *q = v + 1;
	int compressed = v < end && *v == '(' && q < end && cg_is_digit(*q), ovf = 0;
	for (; compressed && q < end && cg_is_digit(*q); q++) {
		ovf |= __builtin_mul_overflow(id, 10, &id);
		ovf |= __builtin_add_overflow(id, (uint64_t)(*q - '0'), &id);
	}
	/* without its ')' the digits are part of a literal name, however many */
	compressed = compressed && q < end && *q == ')';
	if (compressed && ovf)
		return derr(s, "internal error: a name id overflows inside a block");
	uint32_t name = compressed ? profdb__cg_file_id_at(f, sp, id, s->off)
	                           : profdb__cg_file_literal_at(f, s->off);
	if (name >= CG_UNDEF)
		return derr(s, compressed ? "internal error: an undefined name id inside a block"
		                          : "internal error: a literal name the scan did not record");
	*dst = name;
	return 1;
}

/* The line from @p p: where it ends with the blanks and carriage returns
 * before its '\n' trimmed, and in *eol that '\n' (or @p lim). */
static const char *line_end(const char *p, const char *lim, const char **eol)
{
	const char *nl = memchr(p, '\n', (size_t)(lim - p));
	const char *end = *eol = nl ? nl : lim;
	while (end > p && (end[-1] == '\r' || cg_is_space(end[-1])))
		end--;
	return end;
}

/* Whether the line at @p p starts with @p key (a '\n' ends the
 * comparison: no byte after it is read). */
static int has_key(const char *p, const char *key)
{
	while (*key && *p == *key)
		p++, key++;
	return !*key;
}

/* The '\n' that ends the line at @p p (there is one). */
static const char *line_nl(const char *p, const char *lim)
{
	for (int i = 0; i < 16; i++, p++)   /* most lines here are short */
		if (*p == '\n')
			return p;
	return memchr(p, '\n', (size_t)(lim - p));
}

/* The lines from 'c' and 'j' that the general path would read as
 * calls=, jump= or jcnd= lines of a common form, or pass over (cfn=,
 * cfi=, cob=, ...), read at @p p (a '\n' ends the line): *eol their
 * '\n', or NULL (nothing done) for the general path. 0, or < 0 an error. */
static int fast_call_jump(dstate *s, const char *p, const char **eol)
{
	const char *lim = s->d->cg->files[s->p->file].text + s->d->cg->files[s->p->file].size;
	const char *q;
	uint64_t x;
	int r;
	*eol = NULL;
	if (p[0] == 'c') {
		if (!has_key(p, "calls=")) {   /* no other 'c' line changes a block */
			*eol = line_nl(p, lim);
			return 0;
		}
		/* the count before a '/' or a blank; the rest is the scanner's */
		q = p + 6;
		if (!fast_dec(&q, &x) || (*q != '/' && *q != '\n' && !cg_is_space(*q) && !fast_crlf(q)))
			return 0;
		s->call_count = x;
		s->call_off = s->off;
		s->pending_call = 1;
		*eol = line_nl(q, lim);
		return 0;
	}
	int cond = has_key(p, "jcnd=");
	if (!cond && !has_key(p, "jump="))
		return 0;
	if (s->d->lines_only) {   /* a jump with a count: it names no more targets */
		if (!cg_is_digit(p[5]))
			return 0;
		s->jfl = s->jfn = CG_EMPTY;
		*eol = line_nl(p + 5, lim);
		return 0;
	}
	if ((r = fast_jump(s, cond, p + 5, &q)) > 0)
		*eol = q;
	return r < 0 ? r : 0;
}

/* Decode block @p u of function @p fn: from its first line to the line
 * that ends it. */
static int decode_unit(profdb_cg_detail *d, uint32_t fn, uint32_t u)
{
	const profdb_cg *cg = d->cg;
	dstate s;
	memset(&s, 0, sizeof s);
	s.d = d;
	s.fn = fn;
	cg_blkst st;
	profdb__cg_blk_state(cg, u, &st);
	s.profile = profdb__cg_blk_profile(cg, u);
	s.start = cg_blk_off(cg_blk_at(cg, u));
	memcpy(s.pos, st.pos, sizeof s.pos);
	s.jfl = st.jfl;
	s.jfn = st.jfn;
	s.src = st.src;
	s.p = &cg->profiles[s.profile];
	const cg_file *f = &cg->files[s.p->file];
	uint64_t stop = f->size;
	s.col_instr = s.col_line = -1;
	for (uint32_t c = 0; c < s.p->n_pos; c++) {
		if (s.p->pos_kind[c] == CG_POS_INSTR)
			s.col_instr = (int)c;
		else if (s.p->pos_kind[c] == CG_POS_LINE)
			s.col_line = (int)c;
	}
	if (s.start > stop)
		return derr(&s, "internal error: block outside the text");
	uint64_t off = s.start;
	const char *lim = f->text + stop;
	/* a '\n' ends every line: the fast paths read without a bound */
	int nl_ends = stop > 0 && f->text[stop - 1] == '\n';
	if (d->copy && (!nl_ends || !profdb__cg_copy_fits(&s)))
		return CG_NOT_COPIED;
	while (off < stop) {
		const char *p = f->text + off;
		char c0 = *p;
		int r = 0;
		s.off = off;
		if (cost_start(c0)) {
			if (nl_ends && !s.pending_call) {
				const char *q = p;
				r = d->copy ? profdb__cg_copy_run(&s, &q, lim) : self_run(&s, f->text, &q, lim);
				if (r != 0)
					return r;
				if (q != p) {
					off = (uint64_t)(q - f->text);
					continue;
				}
			}
			/* a call's cost line, or one for the token reader */
			uint64_t v[CG_MAX_EVENTS], np[CG_NPOS] = {s.pos[0], s.pos[1]};
			uint32_t nv = 0;
			const char *eol = nl_ends ? fast_cost_line(p, lim, UINT64_MAX, s.p->n_pos,
			                                           s.p->n_cols, np, v, &nv, NULL, FAST_CRLF)
			                          : NULL;
			uint64_t from[CG_NPOS] = {s.pos[0], s.pos[1]};
			int fast = eol != NULL;
			if (eol) {
				s.pos[0] = np[0];
				s.pos[1] = np[1];
			} else {
				const char *end = line_end(p, lim, &eol);
				if ((r = read_pos(&s, &p, end, np, 1)) == 0)
					nv = read_costs(&s, p, end, v);
			}
			off = (uint64_t)(eol - f->text) + (eol < lim);
			if (r == 0 && !s.pending_call)
				r = add_line(&s, v, nv);
			else if (r == 0 && !d->lines_only && (r = add_call(&s, v, nv)) == 0 && d->copy)
				r = fast ? profdb__cg_copy_call(&s, p, eol, from, d->n_calls - 1) : CG_NOT_COPIED;
			s.pending_call = 0;
			if (r != 0)
				return r;
			continue;
		}
		if (nl_ends && (c0 == 'c' || c0 == 'j')) {
			const char *eol = NULL;
			if ((r = fast_call_jump(&s, p, &eol)) < 0)
				return r;
			if (eol) {
				off = (uint64_t)(eol - f->text) + 1;
				continue;
			}
		}
		const char *eol, *end = line_end(p, lim, &eol);
		size_t n = (size_t)(end - p);
		off = (uint64_t)(eol - f->text) + (eol < lim);
		if (n == 0 || *p == '#')
			continue;
		if (n > 6 && memcmp(p, "calls=", 6) == 0) {
			/* the count: the first token, up to a '/'; negative: warned, 0 */
			const char *q = p + 6, *t = q;
			size_t tn = 0;
			cg_tok(&q, end, &t, &tn);
			const char *slash = tn ? memchr(t, '/', tn) : NULL;
			if (profdb__cg_u64(t, slash ? (size_t)(slash - t) : tn, &s.call_count) < 0)
				s.call_count = 0;
			s.call_off = s.off;
			s.pending_call = 1;
		} else if (n > 5 && (memcmp(p, "jump=", 5) == 0 || memcmp(p, "jcnd=", 5) == 0)) {
			if (!d->lines_only)
				r = add_jump(&s, p[1] == 'c', p + 5, end);
			else
				s.jfl = s.jfn = CG_EMPTY;
		} else if ((r = name_line(&s, p, end)) == 2) {
			break;
		}
		/* Anything else (cfn=, cob=, summary:, comments, ...) does not
		 * change what this block contributes. */
		if (r < 0)
			return r;
	}
	return 0;
}

/* Derive each row's derived events, and check that the rows add up to
 * the self cost the parser recorded; when they do not (a text changed
 * while open), say so instead of returning rows that contradict
 * profdb_cg_self(). Sums that overflow are not compared (self saturates,
 * rows wrap). The stored events' sums were taken as the lines were added
 * (costs are never negative, so the sum overflows whatever the order);
 * derived events are summed row by row as they are derived. */
static int derive_and_check(const profdb_cg_detail *d, uint32_t profile, uint32_t fn)
{
	const profdb_cg *cg = d->cg;
	if (cg->n_stored < d->ne) {
		for (uint32_t i = 0; i < d->n_lines; i++) {
			uint64_t *row = d->cost + (size_t)i * d->ne;
			profdb__cg_derive(cg, row);
			for (uint32_t e = cg->n_stored; e < d->ne; e++) {
				d->sum_carry[e] += __builtin_add_overflow(d->sum[e], row[e], &d->sum[e]);
				d->lines[i].nz |= e < 32 && row[e] ? (uint32_t)1 << e : 0;
			}
		}
	}
	const uint64_t *self = NULL;
	if (d->ne == 0 || profdb_cg_self(cg, profile, fn, &self) < 0 || !self)
		return 0;
	/* (a copy's derived events are not summed: it has no rows) */
	for (uint32_t e = 0; e < (d->copy ? cg->n_stored : d->ne); e++)
		if (!d->sum_carry[e] && self[e] != UINT64_MAX && d->sum[e] != self[e])
			return profdb__fail(-EBADMSG, "callgrind: function %" PRIu32 ": line rows add up to %"
			                    PRIu64 " but the self cost of event %" PRIu32 " is %" PRIu64
			                    " (inconsistent profile)", fn, d->sum[e], e, self[e]);
	return 0;
}

/* The detail of function @p fn in @p profile (or PROFDB_CG_ALL) from its
 * blocks starting at @p first. @p next NULL: every block of the list
 * that belongs to the profile. Else only the run of blocks of @p profile
 * that starts at @p first, and *next the block after it (CG_EMPTY at the
 * end of the list): a function's blocks are in text order and profiles
 * are numbered in text order, so each profile's blocks are one run. */
/* @p old emptied for another detail, with its room, or a new one. */
static profdb_cg_detail *detail_alloc(profdb_cg_detail *old)
{
	if (!old)
		return calloc(1, sizeof(profdb_cg_detail));
	profdb_cg_detail keep = *old;
	memset(old, 0, sizeof *old);
	profdb__hindex_free(&keep.map);
	old->lines = keep.lines, old->cost = keep.cost, old->cap_lines = keep.cap_lines;
	old->perm_room = keep.perm_room, old->cap_perm = keep.cap_perm;
	old->sort_room = keep.sort_room, old->cap_sort = keep.cap_sort;
	old->jumps = keep.jumps, old->cap_jumps = keep.cap_jumps;
	old->calls = keep.calls, old->call_cost = keep.call_cost, old->cap_calls = keep.cap_calls;
	old->sums = keep.sums, old->cap_sums = keep.cap_sums;
	return old;
}

size_t profdb__cg_detail_room(const profdb_cg_detail *d)
{
	size_t cost = (d->ne + 1) * sizeof *d->cost;
	return sizeof *d + d->cap_lines * (sizeof *d->lines + cost) + d->cap_perm * sizeof *d->perm +
	       d->cap_sort * 2 * sizeof(lord) +
	       d->cap_jumps * sizeof *d->jumps + d->cap_calls * (sizeof *d->calls + cost) +
	       d->cap_sums * sizeof *d->sums;
}

static int detail_build(const profdb_cg *cg, uint32_t profile, uint32_t fn, uint32_t first,
                        uint32_t *next, int lines_only, profdb_cg_detail *old,
                        const cg_copy *copy, profdb_cg_detail **ret)
{
	*ret = NULL;
	profdb_cg_detail *d = detail_alloc(old);
	if (!d)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	d->cg = cg;
	d->lines_only = lines_only;
	d->copy = copy;
	d->ne = cg->n_events;
	/* At most n_body rows; beyond 64 Ki the map grows as rows appear. The
	 * count is of every profile's blocks: a detail of one profile is given
	 * a profile's share at first, or a function with blocks in P parts,
	 * decoded part by part, would allocate for P times its rows P times. */
	uint32_t nb = cg->fns[fn].n_body;
	if (profile != PROFDB_CG_ALL && cg->n_profiles > 1)
		nb = (uint32_t)((nb + (uint64_t)cg->n_profiles - 1) / cg->n_profiles);
	d->map_expected = nb < 65536 ? nb : 65536;
	/* The sums stay with a detail that a writer keeps (its room recycled
	 * with the rest); a line walk's, decoded by the thousand and dropped,
	 * only checks them, on the stack. */
	uint64_t walk_sums[2 * CG_MAX_EVENTS];
	int r = 0;
	if (lines_only)
		d->sum = walk_sums;
	else if ((r = profdb__cg_grow((void **)&d->sums, &d->cap_sums, 2 * d->ne + 2,
	                              sizeof *d->sums)) == 0)   /* (never empty: never NULL) */
		d->sum = d->sums;
	if (r < 0) {
		profdb_cg_detail_free(d);
		return r;
	}
	d->sum_carry = d->sum + d->ne;
	memset(d->sum, 0, 2 * d->ne * sizeof *d->sum);
	/* the rows' room, allocated once rather than doubled */
	if (nb > 0 && !copy)
		r = grow_row((void **)&d->lines, &d->cost, &d->cap_lines, (nb < 65536 ? nb : 65536) - 1,
		             sizeof *d->lines, d->ne);
	/* A profile's blocks are [its blk_first, the next one's) (blocks.c), and
	 * the chain is in text order: blocks before the range are passed over
	 * with a comparison, and the walk stops at the first one after it, so
	 * a part per profile costs each function's blocks up to that part, not
	 * a search per block of every part. */
	uint32_t lo = 0, hi = UINT32_MAX;
	if (profile != PROFDB_CG_ALL) {
		lo = cg->profiles[profile].blk_first;
		if (profile + 1 < cg->n_profiles)
			hi = cg->profiles[profile + 1].blk_first;
	}
	uint32_t sg = first;
	for (; sg != CG_EMPTY && sg < hi && r == 0; sg = cg->blk_next[sg])
		if (sg >= lo)
			r = decode_unit(d, fn, sg);
	if (next)
		*next = sg;
	int in_order = !d->map.slot;
	profdb__hindex_free(&d->map);
	if (r == 0)
		r = profdb__cg_detail_sort(d, in_order);
	if (r == 0)
		r = derive_and_check(d, profile, fn);
	if (lines_only)
		d->sum = d->sum_carry = NULL;
	if (r < 0) {
		profdb_cg_detail_free(d);
		return r;
	}
	*ret = d;
	return r;   /* 0, or CG_NOT_COPIED */
}

PROFDB_EXPORT int profdb_cg_detail_new(profdb_cg_detail **ret, const profdb_cg *cg,
                                       uint32_t profile, uint32_t fn)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_detail_new: ret is NULL");
	*ret = NULL;
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_detail_new: NULL handle");
	if (fn >= cg->n_fns)
		return profdb__fail(-ENOENT, "callgrind: no function %" PRIu32, fn);
	if (profile != PROFDB_CG_ALL && profile >= cg->n_profiles)
		return profdb__fail(-ENOENT, "callgrind: no profile %" PRIu32, profile);
	int r = profdb__cg_blocks(cg);
	if (r < 0)
		return r;
	return detail_build(cg, profile, fn, cg->blk_first[fn], NULL, 0, NULL, NULL, ret);
}

int profdb__cg_detail_renew(profdb_cg_detail **ret, const profdb_cg *cg, uint32_t profile,
                            uint32_t fn, profdb_cg_detail *old)
{
	return profdb__cg_detail_copy(ret, cg, profile, fn, old, NULL);
}

int profdb__cg_detail_copy(profdb_cg_detail **ret, const profdb_cg *cg, uint32_t profile,
                           uint32_t fn, profdb_cg_detail *old, const cg_copy *copy)
{
	*ret = NULL;
	int r = 0;
	if (fn >= cg->n_fns)
		r = profdb__fail(-ENOENT, "callgrind: no function %" PRIu32, fn);
	else if (profile != PROFDB_CG_ALL && profile >= cg->n_profiles)
		r = profdb__fail(-ENOENT, "callgrind: no profile %" PRIu32, profile);
	else
		r = profdb__cg_blocks(cg);
	if (r < 0) {
		profdb_cg_detail_free(old);
		return r;
	}
	return detail_build(cg, profile, fn, cg->blk_first[fn], NULL, 0, old, copy, ret);
}

int profdb__cg_detail_run(const profdb_cg *cg, uint32_t fn, uint32_t *blk,
                          profdb_cg_detail **ret)
{
	return detail_build(cg, profdb__cg_blk_profile(cg, *blk), fn, *blk, blk, 1, NULL, NULL, ret);
}

PROFDB_EXPORT void profdb_cg_detail_free(profdb_cg_detail *d)
{
	if (!d)
		return;
	profdb__hindex_free(&d->map);
	free(d->lines);
	free(d->cost);
	free(d->perm_room);
	free(d->sort_room);
	free(d->jumps);
	free(d->calls);
	free(d->call_cost);
	free(d->sums);
	free(d);
}
