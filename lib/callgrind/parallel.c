/* Callgrind scanner: the parallel scan of one text. The result is the
 * sequential scan's, table for table, id for id, error for error.
 *
 * The text is cut at fn= lines into pieces, several per thread. The
 * calling thread reads the header and the first piece with the sequential
 * scan, into the real tables. Every other piece is read by whichever
 * thread claims it first, into tables of its own, from a guessed starting
 * state: the part (columns, positions) the header left, and for the names
 * in effect before the piece (ob=, fl=, the last cfn=) and for compressed
 * ids it uses before defining them, placeholder names (scan-internal.h,
 * cg_spec). A cut is made only where the line after fn= gives every
 * position absolutely, so no relative position depends on the piece
 * before.
 *
 * The calling thread merges the pieces in text order as they are done,
 * through the same intern/get_fn/get_row calls the sequential
 * scan makes, in the order it makes them; so every name, function, row,
 * call row and block gets the id the sequential scan gives it. When the
 * next piece to merge is not done it reads an unclaimed piece itself (in
 * place, on the real tables, when it is the next one; on two threads the
 * next few pieces are left to it, so that it reads about half of them in
 * place). Small pieces keep the merges overlapped with the reading, and
 * threads read at most a few pieces ahead of the merge, so few pieces'
 * tables exist at once.
 *
 * Before a piece is merged its guesses are checked against the real state
 * at its start (the state the pieces before it left). A piece whose
 * guesses do not hold, or that met an error, a warning or a line only the
 * sequential scan reads (a header line: a new part, totals:), is not
 * merged: the sequential scan reads it again (from that line), so errors,
 * warnings and their line numbers are the sequential scan's own. After a
 * new part no later piece can hold, and the rest is read sequentially. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

#define CG_MAX_THREADS 64u
/* By default, texts below this size are read by one thread: starting
 * threads costs more than it saves. */
#define CG_PARALLEL_MIN ((uint64_t)4 << 20)

unsigned profdb__cgs_threads(const profdb_cg *cg, uint64_t size)
{
	unsigned t = cg->opts.threads;
	if (t == 1 || (t == 0 && size < CG_PARALLEL_MIN))
		return 1;
	if (t == 0)
		t = profdb__cores();
	return t > CG_MAX_THREADS ? CG_MAX_THREADS : t;
}

typedef struct piece {
	parser ps;           /* the piece's parser, on its own tables */
	cg_build b;
	uint64_t from, to;   /* [from, to): from is an fn= line */
	uint64_t second;     /* offset of the line after the fn= line */
	int rc;              /* profdb__cgs_lines(): 0, CG_STOP or < 0 */
	int claimed;         /* a thread reads it (under the scan's lock) */
	int done;            /* read (under the scan's lock) */
} piece;

/* What every piece starts from: the state the header left. A copy, made
 * before any thread starts, since the calling thread goes on changing its
 * own (it may even widen the events). */
typedef struct start {
	const profdb_cg *cg; /* its opts and files: fixed during the scan */
	cg_where at;
	cg_part part;
	cg_event *events;
	uint32_t n_events;
} start;

/* ---- where to cut --------------------------------------------------------- */

static uint64_t next_line(const char *s, uint64_t size, uint64_t off)
{
	const char *nl = memchr(s + off, '\n', (size_t)(size - off));
	return nl ? (uint64_t)(nl - s) + 1 : size;
}

/* The line at @p off starts with "fn=" and the next line with @p n_pos
 * absolute positions (each token starting with a digit). */
static int good_cut(const char *s, uint64_t size, uint64_t off, uint32_t n_pos, uint64_t *second)
{
	if (size - off < 4 || memcmp(s + off, "fn=", 3) != 0)
		return 0;
	uint64_t q = next_line(s, size, off);
	if (!cg_absolute_positions(s + q, s + size, n_pos))
		return 0;
	*second = q;
	return 1;
}

/* The first good cut at or after @p off, before @p limit; @p limit if none. */
static uint64_t find_cut(const char *s, uint64_t size, uint64_t off, uint64_t limit,
                         uint32_t n_pos, uint64_t *second)
{
	if (off > 0 && s[off - 1] != '\n')
		off = next_line(s, size, off);
	while (off < limit) {
		if (s[off] == 'f' && good_cut(s, size, off, n_pos, second))
			return off;
		off = next_line(s, size, off);
	}
	return limit;
}

/* ---- a piece -------------------------------------------------------------- */

static void piece_free(piece *pc)
{
	profdb_cg *lc = pc->ps.cg;
	if (lc) {
		profdb__cg_free_tables(lc);   /* (its files are the handle's) */
		free(lc);
	}
	profdb__cg_build_free(&pc->b);
	ids_clear(&pc->ps.ids, 1);
	free(pc->ps.spec.ph);
	free(pc->ps.spec.defs);
	memset(&pc->ps, 0, sizeof pc->ps);   /* freed twice is fine */
}

/* New tables for a piece. */
static int tables_new(piece *pc, const start *st)
{
	const profdb_cg *cg = st->cg;
	profdb_cg *lc = calloc(1, sizeof *lc);
	memset(&pc->ps, 0, sizeof pc->ps);
	memset(&pc->b, 0, sizeof pc->b);
	pc->ps.cg = lc;
	if (!lc)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	lc->opts = cg->opts;
	lc->files = cg->files;
	lc->n_files = cg->n_files;
	lc->n_events = st->n_events;
	lc->events = profdb__cg_array(st->n_events, 1, sizeof *lc->events);
	lc->row_narrow = calloc(1, sizeof(uint64_t));   /* (no rows yet) */
	lc->names = calloc(CG_PH_FIRST_ID, sizeof *lc->names);
	if (!lc->events || !lc->row_narrow || !lc->names)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	if (st->n_events)
		memcpy(lc->events, st->events, st->n_events * sizeof *lc->events);
	lc->names[0] = (cg_name){"", 0, 0};   /* 1 .. CG_PH_FIRST_ID - 1: placeholders */
	lc->n_names = lc->cap_names = CG_PH_FIRST_ID;
	return 0;
}

static void tmap_clear(profdb__tmap *m)
{
	if (m->slot)
		memset(m->slot, 0, ((size_t)m->mask + 1) * sizeof *m->slot);
	m->used = 0;
}

/* The tables of a merged piece, emptied for the next one: its memory is
 * already mapped and sized for a piece, where new tables would grow (and
 * fault in) all of it again. */
static void tables_reuse(piece *pc)
{
	profdb_cg *lc = pc->ps.cg;
	cg_build *b = &pc->b;
	lc->n_names = CG_PH_FIRST_ID;
	lc->n_fns = lc->n_rows = lc->n_calls = lc->n_wide = 0;
	lc->n_ccost = 0;
	profdb__cgs_blk_clear(lc);
	tmap_clear(&b->name_map);
	tmap_clear(&b->fn_map);
	if (b->fn_by_name)
		memset(b->fn_by_name, 0xff, b->n_fn_by_name * sizeof *b->fn_by_name);
	if (b->row_of_fn)   /* (get_row takes any entry from row0 on for the function's) */
		memset(b->row_of_fn, 0xff, b->n_row_of_fn * sizeof *b->row_of_fn);
	b->row0 = 0;
	b->n_defs = 0;
	profdb__cgs_ids_forget(&pc->ps);
	pc->ps.spec.n_ph = pc->ps.spec.n_defs = 0;
}

/* The piece's tables (new, or a merged piece's) and its guessed starting
 * state. */
static int piece_init(piece *pc, const start *st)
{
	parser *ps = &pc->ps;
	int r = 0;
	if (ps->cg)
		tables_reuse(pc);
	else
		r = tables_new(pc, st);
	if (r < 0)
		return r;
	ps->b = &pc->b;
	memset(&ps->at, 0, sizeof ps->at);
	ps->at.f = st->at.f;
	ps->at.file = st->at.file;
	ps->at.safe_end = pc->to < st->at.safe_end ? pc->to : st->at.safe_end;
	/* Every compressed id in the hash index: a piece defines or uses a
	 * few thousand ids spread over the whole range, where dense arrays
	 * would span it (a MiB per piece in flight on py_full_sc5). */
	ps->ids.limit = 0;
	ps->part = st->part;
	memset(&ps->warned, 0, sizeof ps->warned);
	cg_cur *c = &ps->cur;
	memset(c, 0xff, sizeof *c);   /* every name CG_EMPTY */
	c->ob = CG_PH_OB;
	c->fl = c->fi = c->kfile = c->fn_fl = CG_PH_FL;
	c->cfn = CG_PH_CFN;
	c->cfn_ob = CG_PH_CFN_OB;
	c->cfn_fl = CG_PH_CFN_FL;
	c->pending_call = 0;
	ps->spec.on = 1;
	ps->spec.unsafe = ps->spec.used_cfn = 0;
	return 0;
}

/* profdb__cgs_lines over a piece's bytes, mapped into the page table
 * first by the thread that reads them (faulting them in page by page
 * costs more, and this way the threads share that work). */
static int read_piece_lines(parser *ps, const piece *pc)
{
	cg_prefault(ps->at.f, pc->from, pc->to - pc->from);
	return profdb__cgs_lines(ps, pc->from, pc->to);
}

/* Read piece @p pc from the state @p st (in any thread). */
static void piece_read(piece *pc, const start *st)
{
	parser *ps = &pc->ps;
	if ((pc->rc = piece_init(pc, st)) < 0)
		return;
	pc->rc = read_piece_lines(ps, pc);
	if (pc->rc == 0 && pc->to < ps->at.f->size) {
		ps->at.off = pc->to;   /* where the next piece's fn= line closes it */
		profdb__cgs_close_blk(ps);
	}
}

/* ---- merging a piece ------------------------------------------------------ */

static uint32_t or_zero(uint32_t x) { return x == CG_EMPTY ? 0 : x; }
static uint32_t map_name(const uint32_t *nmap, uint32_t x) { return x == CG_EMPTY ? x : nmap[x]; }

static int same_part(const cg_part *a, const cg_part *b)
{
	return a->prof == b->prof && a->n_cols == b->n_cols && a->n_pos == b->n_pos &&
	       memcmp(a->colmap, b->colmap, a->n_cols * sizeof *a->colmap) == 0 &&
	       memcmp(a->pos_kind, b->pos_kind, sizeof a->pos_kind) == 0;
}

/* Self-cost row @p j of @p cg plus (@p sign > 0) or minus the piece's row
 * @p i: 1, 0 when a sum overflows (nothing changed), < 0 out of memory.
 * Two narrow rows whose sums stay narrow are added in place. */
static int add_row(profdb_cg *cg, uint32_t j, const profdb_cg *lc, uint32_t i, int sign)
{
	uint32_t ne = cg->n_events;
	const uint32_t *a = lc->row_narrow + (size_t)i * cg_self_stride(ne);
	uint32_t *b = cg->row_narrow + (size_t)j * cg_self_stride(ne);
	if (sign > 0 && a[0] != CG_WIDE && b[0] != CG_WIDE) {
		uint32_t e = 0;
		while (e < ne && (uint64_t)b[e] + a[e] < CG_WIDE)
			e++;
		if (e == ne) {
			for (e = 0; e < ne; e++)
				b[e] += a[e];
			return 1;
		}
	}
	uint64_t x[CG_MAX_EVENTS], y[CG_MAX_EVENTS];
	profdb__cg_self_get(lc, i, x);
	profdb__cg_self_get(cg, j, y);
	for (uint32_t e = 0; e < ne; e++)
		if (sign > 0 ? __builtin_add_overflow(y[e], x[e], &y[e]) : (y[e] -= x[e], 0))
			return 0;
	int r = profdb__cg_self_put(cg, j, y);
	return r < 0 ? r : 1;
}

/* Adds the piece's @p n self-cost rows to the real rows @p map; on
 * overflow takes them all back and returns 0 (the sequential scan then
 * fails at the line that overflows); < 0 out of memory. */
static int add_costs(profdb_cg *cg, const profdb_cg *lc, const uint32_t *map, uint32_t n)
{
	size_t st = cg_self_stride(cg->n_events);
	for (uint32_t i = 0; i < n; i++) {
		if (i + CG_AHEAD < n)
			__builtin_prefetch(cg->row_narrow + (size_t)map[i + CG_AHEAD] * st, 1);
		int r = add_row(cg, map[i], lc, i, 1);
		if (r < 0)
			return r;
		if (r == 0) {
			while (i-- > 0)
				if ((r = add_row(cg, map[i], lc, i, -1)) < 0)
					return r;
			return 0;
		}
	}
	return 1;
}

/* The guesses the piece started from, against the real state @p ps0;
 * when they hold, @p name maps each placeholder of an id used before
 * the piece defines it to the id's real name. */
static int guesses_hold(const parser *ps0, const piece *pc, const cg_part *snap, uint32_t snap_ne,
                        uint32_t *name)
{
	const parser *ps = &pc->ps;
	const cg_cur *c = &ps0->cur;
	if (pc->rc < 0 || ps->spec.unsafe || !same_part(&ps0->part, snap) ||
	    ps0->cg->n_events != snap_ne)
		return 0;
	if (c->pending_call || c->cob != CG_EMPTY || c->cfi != CG_EMPTY || c->fl == CG_EMPTY ||
	    (ps->spec.used_cfn && c->cfn == CG_EMPTY))
		return 0;
	const cg_spec *sp = &ps->spec;
	for (uint32_t i = 0; i < sp->n_ph; i++) {
		if (i + CG_AHEAD < sp->n_ph)
			cg_prefetch_id(ps0, (int)sp->ph[i + CG_AHEAD].sp, sp->ph[i + CG_AHEAD].id);
		if ((name[sp->ph[i].name] = profdb__cgs_id_get(ps0, (int)sp->ph[i].sp,
		                                               sp->ph[i].id)) >= CG_UNDEF)
			return 0;
	}
	return profdb__cgs_ids_agree(ps0, ps);
}

typedef struct maps {
	uint32_t *name, *fn, *row;
} maps;

/* The body lines of the piece's function @p i added to its real
 * function's (a sum that saturates, so in any order). */
static void add_body(profdb_cg *cg, const profdb_cg *lc, const maps *m, uint32_t i)
{
	cg_fn *g = &cg->fns[m->fn[i]];
	uint64_t nb = (uint64_t)g->n_body + lc->fns[i].n_body;
	g->n_body = nb > UINT32_MAX ? UINT32_MAX : (uint32_t)nb;
}

/* Names, functions, rows and call rows of the piece, found or created in
 * the real tables in the piece's order (the placeholders' names are
 * mapped: guesses_hold). */
static int map_tables(parser *ps0, const piece *pc, maps *m)
{
	const profdb_cg *lc = pc->ps.cg;
	profdb_cg *cg = ps0->cg;
	const cg_cur *c = &ps0->cur;
	int r;
	m->name[0] = 0;
	m->name[CG_PH_OB] = c->ob;
	m->name[CG_PH_FL] = c->fl;
	m->name[CG_PH_CFN] = c->cfn;
	m->name[CG_PH_CFN_OB] = c->cfn_ob;
	m->name[CG_PH_CFN_FL] = c->cfn_fl;
	for (uint32_t i = CG_PH_FIRST_ID; i < lc->n_names; i++) {
		if (i + CG_AHEAD < lc->n_names && lc->names[i + CG_AHEAD].p)
			cg_prefetch_name(ps0, lc->names[i + CG_AHEAD].hash);
		if (lc->names[i].p && (r = profdb__cgs_intern_hashed(ps0, lc->names[i].p, lc->names[i].len,
		                                                     lc->names[i].hash, &m->name[i])) < 0)
			return r;
	}
	/* each function's body lines CG_AHEAD steps after it is found, its
	 * real entry asked for when it is */
	for (uint32_t i = 0; i < lc->n_fns; i++) {
		if (i + CG_AHEAD < lc->n_fns)
			cg_prefetch_fn(ps0, map_name(m->name, lc->fns[i + CG_AHEAD].fn));
		const cg_fn *f = &lc->fns[i];
		uint32_t ob = or_zero(map_name(m->name, f->ob)), fl = or_zero(map_name(m->name, f->fl));
		if ((r = get_fn(ps0, ob, fl, map_name(m->name, f->fn), &m->fn[i])) < 0)
			return r;
		__builtin_prefetch(&cg->fns[m->fn[i]], 1);
		if (i >= CG_AHEAD)
			add_body(cg, lc, m, i - CG_AHEAD);
	}
	for (uint32_t i = lc->n_fns > CG_AHEAD ? lc->n_fns - CG_AHEAD : 0; i < lc->n_fns; i++)
		add_body(cg, lc, m, i);
	for (uint32_t i = 0; i < lc->n_rows; i++) {
		if (i + CG_AHEAD < lc->n_rows)
			cg_prefetch_row(ps0, m->fn[lc->rows[i + CG_AHEAD].fn]);
		if ((r = get_row(ps0, m->fn[lc->rows[i].fn], &m->row[i])) < 0)
			return r;
	}
	return 0;
}

/* The calls= lines, appended in text order, in the real function ids. */
static int add_calls(profdb_cg *cg, const profdb_cg *lc, const maps *m)
{
	int r = grow((void **)&cg->calls, &cg->cap_calls, (uint64_t)cg->n_calls + lc->n_calls,
	             sizeof *cg->calls);
	if (r < 0)
		return r;
	if (lc->n_calls)   /* (fresh pages, written all over: mapped in by one call) */
		profdb__prefault_write(cg->calls + cg->n_calls, (size_t)lc->n_calls * sizeof *cg->calls);
	for (uint32_t i = 0; i < lc->n_calls; i++) {
		cg_call c = lc->calls[i];
		c.caller = m->fn[c.caller];
		c.callee = m->fn[c.callee];
		cg->calls[cg->n_calls++] = c;
	}
	return profdb__cg_call_costs_append(cg, lc);
}

/* The piece's blocks after the scan's. */
static int add_blocks(parser *ps0, const piece *pc, const maps *m)
{
	const profdb_cg *lc = pc->ps.cg;
	return lc->n_blks ? profdb__cgs_blk_merge(ps0->cg, lc, m->fn, m->name) : 0;
}

/* The piece's end state, in the real ids, becomes the scan's state. */
static void take_state(parser *ps0, const piece *pc, const maps *m, uint32_t blk_base)
{
	const parser *ps = &pc->ps;
	const cg_cur *l = &ps->cur;
	cg_cur *c = &ps0->cur;
	const uint32_t *nm = m->name;
	c->ob = map_name(nm, l->ob), c->fl = map_name(nm, l->fl), c->fi = map_name(nm, l->fi);
	c->fn = map_name(nm, l->fn), c->fn_fl = map_name(nm, l->fn_fl);
	c->kfile = map_name(nm, l->kfile);
	c->cob = map_name(nm, l->cob), c->cfi = map_name(nm, l->cfi), c->cfn = map_name(nm, l->cfn);
	c->jfl = map_name(nm, l->jfl), c->jfn = map_name(nm, l->jfn);
	/* a cfn= in the piece took its object from the ob= placeholder, which
	 * stands for "none" (0 to the sequential scan) as well as for a name */
	c->cfn_ob = l->cfn_ob == CG_PH_CFN_OB ? c->cfn_ob : or_zero(map_name(nm, l->cfn_ob));
	c->cfn_fl = map_name(nm, l->cfn_fl);
	c->func = l->func == CG_EMPTY ? CG_EMPTY : m->fn[l->func];
	c->row = l->row == CG_EMPTY ? CG_EMPTY : m->row[l->row];
	c->body = l->body;
	c->blk = l->blk == CG_EMPTY ? CG_EMPTY : blk_base + l->blk;
	c->pending_call = l->pending_call;
	if (l->pending_call)   /* (the piece's sink held its values) */
		memset(ps0->call_sink, 0, sizeof ps0->call_sink);
	memcpy(ps0->part.pos, ps->part.pos, sizeof ps0->part.pos);
	ps0->part.has_body |= ps->part.has_body;
	ps0->at.lineno += ps->at.lineno;
}

/* ---- room in the real tables --------------------------------------------- */

/* Text read, in bytes after the header, once piece @p k is in. */
typedef struct progress {
	uint64_t before, after, total;
} progress;

/* What a table holding @p after elements (a count or an upper bound of
 * one) once piece @p pg is in is expected to hold in the end: @p after
 * scaled to the whole text, plus 1/16. */
static uint64_t estimate(uint64_t after, const progress *pg)
{
	double est = (double)after * (double)pg->total / (double)pg->after * (17.0 / 16.0);
	return est < UINT32_MAX - 1 ? (uint64_t)est : after;
}

/* Before a piece goes into the real tables (merged from @p lc, whose
 * counts bound what it adds, or read in place, @p lc NULL, its counts
 * guessed from the text read so far): each table that must grow gets
 * room for its estimated final length at once. Doubling the tables of a
 * text read piece by piece copies each several times, and the copies are
 * most of what merging costs. An estimate that falls short costs one more
 * copy; one that overshoots costs address space only, since these tables
 * are written element by element as they fill (the hash indexes, written
 * all over, and the tables cleared as they grow keep growing by need). A
 * hint: the tables' own growth still does (and reports) what is needed.
 * The blocks grow in chunks and are never copied. */
static void reserve(parser *ps0, const profdb_cg *lc, const progress *pg)
{
	profdb_cg *cg = ps0->cg;
	const uint64_t n[4] = {cg->n_names, cg->n_fns, cg->n_rows, cg->n_calls};
	uint64_t add[4];
	if (lc) {
		add[0] = lc->n_names - CG_PH_FIRST_ID, add[1] = lc->n_fns, add[2] = lc->n_rows;
		add[3] = lc->n_calls;
	} else if (pg->before) {
		for (int i = 0; i < 4; i++)
			add[i] = (uint64_t)((double)n[i] * (double)(pg->after - pg->before) /
			                    (double)pg->before);
	} else {
		return;
	}
	if (n[0] + add[0] > cg->cap_names)
		profdb__cg_reserve((void **)&cg->names, &cg->cap_names, estimate(n[0] + add[0], pg),
		                   sizeof *cg->names);
	if (n[1] + add[1] > cg->cap_fns)
		profdb__cg_reserve((void **)&cg->fns, &cg->cap_fns, estimate(n[1] + add[1], pg),
		                   sizeof *cg->fns);
	if (n[2] + add[2] > cg->cap_rows)
		profdb__cg_self_reserve(cg, estimate(n[2] + add[2], pg));
	if (n[3] + add[3] > cg->cap_calls)
		profdb__cg_reserve((void **)&cg->calls, &cg->cap_calls, estimate(n[3] + add[3], pg),
		                   sizeof *cg->calls);
}

/* 1: merged; 0: not (the sequential scan goes on from the piece's start);
 * < 0: out of memory. */
static int merge(parser *ps0, const piece *pc, const cg_part *snap, uint32_t snap_ne,
                 const progress *pg)
{
	const profdb_cg *lc = pc->ps.cg;
	maps m;
	m.name = malloc(((size_t)lc->n_names + 1) * sizeof *m.name);
	m.fn = malloc(((size_t)lc->n_fns + 1) * sizeof *m.fn);
	m.row = malloc(((size_t)lc->n_rows + 1) * sizeof *m.row);
	int r = m.name && m.fn && m.row ? guesses_hold(ps0, pc, snap, snap_ne, m.name)
	                                : profdb__fail(-ENOMEM, "callgrind: out of memory");
	if (r == 1) {
		reserve(ps0, lc, pg);
		r = map_tables(ps0, pc, &m);
		uint32_t blk_base = ps0->cg->n_blks;
		/* the self costs; 0 (nothing added) when a sum overflows */
		if (r >= 0)
			r = add_costs(ps0->cg, lc, m.row, lc->n_rows);
		if (r == 1 && (r = add_calls(ps0->cg, lc, &m)) >= 0 &&
		    (r = add_blocks(ps0, pc, &m)) >= 0 &&
		    (r = profdb__cgs_ids_merge(ps0, &pc->ps, m.name)) >= 0) {
			take_state(ps0, pc, &m, blk_base);
			r = 1;
		}
	}
	free(m.name);
	free(m.fn);
	free(m.row);
	return r;
}

/* ---- the scan ------------------------------------------------------------- */

/* Offset of the first line that starts with "fn=", or @p size. */
static uint64_t first_fn(const char *s, uint64_t size)
{
	for (uint64_t off = 0; off < size; off = next_line(s, size, off))
		if (size - off >= 3 && memcmp(s + off, "fn=", 3) == 0)
			return off;
	return size;
}

/* Pieces per thread: small pieces are merged soon after they are read, so
 * few are held at once, and the merges (on the calling thread) overlap
 * the reading of later pieces. The tables of the pieces in flight grow
 * with a piece's length and are held at the end of the scan, when the
 * real tables are at their largest: pieces of 0.7 MiB on py_full_sc5 (two
 * threads) touch 1.5 MiB less at that peak than pieces of 2 MiB, and a
 * merge costs little more than the names and functions it maps. Pieces
 * are at least CG_PIECE_MIN long, or two per thread. */
#define CG_PIECES_PER_THREAD 48u
#define CG_PIECE_MIN ((uint64_t)1 << 19)
/* Tables of merged pieces kept for reuse. */
#define CG_SPARE 2u
/* Pieces claimed ahead of the merge: one per thread, and one more, so
 * that a thread done with its piece while the calling thread still reads
 * (or merges) the one before finds a next piece to read rather than
 * waiting for that merge (on py_full_sc5, two threads: the other thread
 * waited a quarter of the scan without it). */
#define CG_AHEAD_EXTRA 1u
/* On two threads: the first CG_LEAD_PIECES pieces after the merged ones
 * are the calling thread's, the CG_OTHER_PIECES after them the other
 * thread's. A piece the calling thread reads when it is the next to
 * merge is read in place, on the real tables, and costs no merge; when
 * the other thread may claim the next pieces, the calling thread mostly
 * finds its next piece being read, reads a later one into tables of its
 * own, and merges every piece. Kept to itself, it reads some pieces in
 * place (about 26 of 96 on py_full_sc5): its merges, the part of the scan
 * no other thread can do, shrink by that much. With one piece of its own
 * the other thread, done with it, would wait for the next merge while
 * the calling thread, which has the most to do, reads the next piece in
 * place; with two it reads on, the calling thread merges more pieces and
 * reads fewer (a merge costs less than a read), and the scan of
 * py_full_sc5 ends about 1 ms sooner. With more threads the calling
 * thread has merging enough to do: they claim any piece. */
#define CG_LEAD_PIECES 3u
#define CG_OTHER_PIECES 2u

/* Cuts n .. end - 1 of the text @p f for @p want pieces, cut[0 .. n)
 * made: piece k is [cut[k], cut[k + 1]). Returns the cuts made in all, at
 * most end, and sets the one after them to the end of the text: the
 * number of pieces once end is want. Cut k is the first good cut after
 * target k and after cut k - 1, so the cuts are the same whether they are
 * made in one call or in two. */
static unsigned make_cuts(const cg_file *f, uint32_t n_pos, unsigned want, uint64_t *cut,
                          uint64_t *second, unsigned n, unsigned end)
{
	const char *s = f->text;
	uint64_t size = f->size, h = cut[0];
	for (; n < end; n++) {
		uint64_t target = h + (size - h) / want * n;
		if (target <= cut[n - 1])
			target = cut[n - 1] + 1;
		if (target >= size)
			break;
		uint64_t c = find_cut(s, size, target, size, n_pos, &second[n]);
		if (c >= size)
			break;
		cut[n] = c;
	}
	cut[n] = size;
	return n;
}

/* The pieces and who does what. Piece 0 is read by the calling thread
 * into the real tables; every thread (the calling one too, when it has
 * nothing to merge) claims the first unread piece it may (CG_LEAD_PIECES);
 * the calling thread merges the pieces in text order as they are done. */
typedef struct sched {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	piece *pcs;
	unsigned n;          /* pieces */
	unsigned unclaimed;  /* pieces no thread claimed yet */
	unsigned merged;     /* pieces 0 .. merged - 1 are in the real tables */
	unsigned ahead;      /* claim piece k only while k < merged + ahead */
	unsigned lead_only;  /* ... and, but for the calling thread, k >= merged + lead_only */
	int stop;            /* claim no more: the rest is read sequentially */
	piece spare[CG_SPARE];   /* tables of merged pieces, for the next ones */
	unsigned n_spare;
	parser *ps0;         /* the calling thread's scan, on the real tables */
	start st;
	/* The cuts after the first: finding them faults in a page or two
	 * around each (0.5 ms on py_full_sc5, 96 pieces), so they are not
	 * found before the threads start but by the first thread to need
	 * them, most often another thread while the calling one reads piece
	 * 0; until then n is 1 and no piece is claimed. */
	int cutting;         /* the cuts are not all made */
	int cutter;          /* a thread makes them */
	unsigned want;       /* pieces asked for */
	uint64_t *cut, *second;
} sched;

/* The cuts made (by this thread when no other one makes them), and the
 * pieces after the first set up from them. Called with the lock held. */
static void cuts_ready(sched *sc)
{
	if (sc->cutter) {
		while (sc->cutting)
			pthread_cond_wait(&sc->changed, &sc->lock);
		return;
	}
	sc->cutter = 1;
	pthread_mutex_unlock(&sc->lock);
	unsigned n = make_cuts(sc->st.at.f, sc->st.part.n_pos, sc->want, sc->cut, sc->second, 2,
	                        sc->want);
	pthread_mutex_lock(&sc->lock);
	for (unsigned k = 1; k < n; k++) {
		sc->pcs[k].from = sc->cut[k];
		sc->pcs[k].to = sc->cut[k + 1];
		sc->pcs[k].second = sc->second[k];
	}
	sc->n = n;
	sc->unclaimed = n - 1;
	sc->cutting = 0;
	pthread_cond_broadcast(&sc->changed);
}

/* Piece @p k is claimed. After the last one no piece needs spare
 * tables: they are freed while the real tables are at their largest.
 * Called with the lock held. */
static unsigned take(sched *sc, unsigned k)
{
	sc->pcs[k].claimed = 1;
	if (--sc->unclaimed == 0)
		while (sc->n_spare)
			piece_free(&sc->spare[--sc->n_spare]);
	return k;
}

/* The first unclaimed piece from @p from before @p end (n: none). */
static unsigned unclaimed_in(const sched *sc, unsigned from, unsigned end)
{
	for (unsigned k = from; k < end && k < sc->n; k++)
		if (!sc->pcs[k].claimed)
			return k;
	return sc->n;
}

/* The next piece @p lead (the calling thread, or another) may read, or n
 * when there is none; another thread waits while the only pieces left to
 * it are too far ahead of the merge. Called with the lock held. */
static unsigned claim(sched *sc, int lead)
{
	unsigned k = sc->n;
	while (!sc->stop) {
		unsigned from = sc->merged + (lead ? 0 : sc->lead_only);
		k = unclaimed_in(sc, from, sc->merged + sc->ahead);
		if (k < sc->n || lead || unclaimed_in(sc, from, sc->n) == sc->n)
			break;
		pthread_cond_wait(&sc->changed, &sc->lock);
	}
	if (sc->stop || k >= sc->n)
		return sc->n;
	if (sc->n_spare) {   /* the piece's tables: a merged piece's */
		piece *pc = &sc->pcs[k], *sp = &sc->spare[--sc->n_spare];
		pc->ps = sp->ps;
		pc->b = sp->b;
	}
	return take(sc, k);
}

/* Piece @p pc is merged: its tables go to the spares (or are freed). */
static void recycle(sched *sc, piece *pc)
{
	pthread_mutex_lock(&sc->lock);
	if (pc->ps.cg && sc->n_spare < CG_SPARE && sc->unclaimed) {
		piece *sp = &sc->spare[sc->n_spare++];
		sp->ps = pc->ps;
		sp->b = pc->b;
		memset(&pc->ps, 0, sizeof pc->ps);
		memset(&pc->b, 0, sizeof pc->b);
	}
	pthread_mutex_unlock(&sc->lock);
	piece_free(pc);
}

static void *worker(void *arg)
{
	sched *sc = arg;
	pthread_mutex_lock(&sc->lock);
	if (!sc->stop)
		cuts_ready(sc);
	for (unsigned k; (k = claim(sc, 0)) < sc->n;) {
		pthread_mutex_unlock(&sc->lock);
		piece_read(&sc->pcs[k], &sc->st);
		pthread_mutex_lock(&sc->lock);
		sc->pcs[k].done = 1;
		pthread_cond_broadcast(&sc->changed);
	}
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

/* How far the text is read before and after piece @p k. */
static progress progress_of(const sched *sc, unsigned k)
{
	uint64_t h = sc->pcs[0].from;
	return (progress){sc->pcs[k].from - h, sc->pcs[k].to - h, sc->pcs[sc->n - 1].to - h};
}

/* Piece @p k read in place, on the real tables. */
static int read_in_place(sched *sc, unsigned k)
{
	progress pg = progress_of(sc, k);
	reserve(sc->ps0, NULL, &pg);
	return read_piece_lines(sc->ps0, &sc->pcs[k]);
}

/* Piece @p k into the real tables: merged when its guesses hold, else
 * read again by the sequential scan (from the line it stopped at, when
 * it stopped at a header line). 0 or < 0. */
static int take_piece(sched *sc, unsigned k, const cg_part *snap, uint32_t snap_ne)
{
	parser *ps0 = sc->ps0;
	piece *pc = &sc->pcs[k];
	/* what the piece's first line (fn=) does first */
	ps0->at.off = pc->from;
	profdb__cgs_close_blk(ps0);
	progress pg = progress_of(sc, k);
	int m = merge(ps0, pc, snap, snap_ne, &pg);
	uint64_t resume = m == 0 ? pc->from : m == 1 && pc->rc == CG_STOP ? pc->ps.at.off : pc->to;
	recycle(sc, pc);
	if (m < 0)
		return m;
	return resume < pc->to ? profdb__cgs_lines(ps0, resume, pc->to) : 0;
}

/* The calling thread: piece 0, then merge in order, reading pieces itself
 * while the next one to merge is not done. */
static int lead(sched *sc, const cg_part *snap, uint32_t snap_ne)
{
	parser *ps0 = sc->ps0;
	int r = read_piece_lines(ps0, &sc->pcs[0]);
	pthread_mutex_lock(&sc->lock);
	sc->merged = 1;
	if (r >= 0)
		cuts_ready(sc);
	pthread_cond_broadcast(&sc->changed);
	while (r >= 0 && sc->merged < sc->n) {
		unsigned k = sc->merged;
		if (sc->pcs[k].done || !sc->pcs[k].claimed) {
			if (!sc->pcs[k].claimed)   /* read it here, in place */
				take(sc, k);
			int in_place = !sc->pcs[k].done;
			pthread_mutex_unlock(&sc->lock);
			r = in_place ? read_in_place(sc, k) : take_piece(sc, k, snap, snap_ne);
			/* a new part: no piece after this one can hold its guesses */
			int part_changed = ps0->part.prof != snap->prof;
			pthread_mutex_lock(&sc->lock);
			sc->merged = k + 1;
			if (part_changed || r < 0)
				sc->stop = 1;
			pthread_cond_broadcast(&sc->changed);
			continue;
		}
		unsigned j = claim(sc, 1);
		if (j < sc->n) {
			pthread_mutex_unlock(&sc->lock);
			piece_read(&sc->pcs[j], &sc->st);
			pthread_mutex_lock(&sc->lock);
			sc->pcs[j].done = 1;
			continue;
		}
		pthread_cond_wait(&sc->changed, &sc->lock);
	}
	sc->stop = 1;
	pthread_cond_broadcast(&sc->changed);
	pthread_mutex_unlock(&sc->lock);
	return r;
}

int profdb__cgs_parallel(parser *ps0, unsigned threads)
{
	const char *s = ps0->at.f->text;
	uint64_t size = ps0->at.f->size;
	/* the header, with the sequential scan: the part every piece starts in */
	uint64_t h = first_fn(s, size);
	int r = profdb__cgs_lines(ps0, 0, h);
	if (r < 0 || h >= size || ps0->part.prof == CG_EMPTY || ps0->part.n_cols == 0)
		return r < 0 ? r : profdb__cgs_lines(ps0, h, size);
	/* (at least two per thread: a small text on many threads, as the
	 * tests ask for, still has pieces read ahead and pieces read in place) */
	uint64_t want = (size - h) / CG_PIECE_MIN;
	if (want < 2 * (uint64_t)threads)
		want = 2 * (uint64_t)threads;
	if (want > (uint64_t)threads * CG_PIECES_PER_THREAD)
		want = (uint64_t)threads * CG_PIECES_PER_THREAD;
	uint64_t cut[CG_MAX_THREADS * CG_PIECES_PER_THREAD + 1];
	uint64_t second[CG_MAX_THREADS * CG_PIECES_PER_THREAD + 1];
	cut[0] = h;
	/* the end of piece 0 now, the other cuts while it is read (sched) */
	if (make_cuts(ps0->at.f, ps0->part.n_pos, (unsigned)want, cut, second, 1, 2) < 2)
		return profdb__cgs_lines(ps0, h, size);
	sched sc;
	memset(&sc, 0, sizeof sc);
	sc.pcs = calloc((size_t)want, sizeof *sc.pcs);
	sc.ps0 = ps0;
	sc.st = (start){ps0->cg, ps0->at, ps0->part,
	                profdb__cg_array(ps0->cg->n_events, 1, sizeof *sc.st.events),
	                ps0->cg->n_events};
	pthread_t *th = calloc(threads, sizeof *th);
	if (!sc.pcs || !sc.st.events || !th) {
		free(sc.pcs);
		free(sc.st.events);
		free(th);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	if (sc.st.n_events)
		memcpy(sc.st.events, ps0->cg->events, sc.st.n_events * sizeof *sc.st.events);
	sc.pcs[0].from = cut[0];
	sc.pcs[0].to = cut[1];
	sc.n = 1;
	sc.pcs[0].claimed = 1;
	sc.cutting = 1;
	sc.want = (unsigned)want;
	sc.cut = cut;
	sc.second = second;
	sc.ahead = threads + CG_AHEAD_EXTRA;
	if (threads == 2) {
		sc.lead_only = CG_LEAD_PIECES;
		sc.ahead = CG_LEAD_PIECES + CG_OTHER_PIECES;
	}
	pthread_mutex_init(&sc.lock, NULL);
	pthread_cond_init(&sc.changed, NULL);
	cg_part snap = ps0->part;
	uint32_t snap_ne = ps0->cg->n_events;
	/* a thread that cannot start leaves its share to the others */
	unsigned started = 0;
	for (unsigned t = 1; t < threads; t++)
		if (pthread_create(&th[started], NULL, worker, &sc) == 0)
			started++;
	r = lead(&sc, &snap, snap_ne);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	for (unsigned k = 0; k < sc.n; k++)
		piece_free(&sc.pcs[k]);
	for (unsigned k = 0; k < sc.n_spare; k++)
		piece_free(&sc.spare[k]);
	pthread_cond_destroy(&sc.changed);
	pthread_mutex_destroy(&sc.lock);
	free(sc.pcs);
	free(sc.st.events);
	free(th);
	return r;
}
