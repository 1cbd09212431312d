/* Callgrind from Callgrind: a few functions' blocks made into one text
 * on the thread that decodes them (cg-text-internal.h), copied from the
 * input's text where it reads back the same (native_table.copy), else
 * formatted from the function's records. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cg-text-internal.h"

/* Room a text keeps beyond its size (fit()). */
#define TEXT_SLACK ((size_t)1024)

static int same(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.ptr == b.ptr || !memcmp(a.ptr, b.ptr, a.len));
}


static int no_memory(void) { return profdb__fail(-ENOMEM, "profdb_convert: out of memory"); }

/* Room for @p n more bytes of text: where they go, NULL when out of
 * memory. */
static char *room(fn_text *o, size_t n)
{
	if (o->cap - o->len < n && profdb__grow((void **)&o->text, &o->cap, o->len + n, 1) < 0)
		return NULL;
	return o->text + o->len;
}

static gap *add_gap(fn_text *o, int kind)
{
	if (o->n_gaps == o->cap_gaps &&
	    profdb__grow((void **)&o->gaps, &o->cap_gaps, o->n_gaps + 1, sizeof *o->gaps) < 0)
		return NULL;
	gap *g = &o->gaps[o->n_gaps++];
	g->at = o->len;
	g->kind = (unsigned char)kind;
	return g;
}

/* "key=(id)" of a name the writer has given id @p id. */
static int put_id(fn_text *o, int key, uint32_t id)
{
	char *at = room(o, sizeof keys[key].key + 3 + PROFDB__CV_U64_MAX), *p = at;
	if (!at)
		return no_memory();
	memcpy(p, keys[key].key, sizeof keys[key].key);   /* (a fixed size: no call) */
	p += keys[key].len;
	*p++ = '=';
	*p++ = '(';
	p += profdb__cv_fmt_u64(p, id);
	*p++ = ')';
	*p++ = '\n';
	o->len += (size_t)(p - at);
	return 0;
}

static int name_gap(fn_text *o, int kind, int key, profdb_str s, uint32_t name_key,
                    uint32_t ob_key)
{
	gap *g = add_gap(o, kind);
	if (!g)
		return no_memory();
	g->key = (unsigned char)key;
	g->name_key = name_key;
	g->ob_key = ob_key;
	g->u.name = s;
	return 0;
}

/* A name line: "key=(id)" in place when the writer has given the name
 * its id already (in a function before this one), else a gap. A
 * function's (fn, cfn, jfn) is its object's (@p ob_key) and its name's. */
static int put_name(const text_jobs *x, fn_text *o, int key, profdb_str s, uint32_t name_key,
                    uint32_t ob_key)
{
	int table = keys[key].table;
	uint32_t id = !s.len                   ? 0
	            : table == PROFDB__CGW_FN ? profdb__cgw_known_fn_id(&x->w, ob_key, name_key)
	                                       : profdb__cgw_known_id(&x->w, table, name_key);
	return id ? put_id(o, key, id) : name_gap(o, GAP_NAME, key, s, name_key, ob_key);
}

static int put_head(const text_jobs *x, fn_text *o, const profdb__native_fn *f)
{
	const head *h = &o->head;
	int r;
	if (!h->known) {
		if ((r = name_gap(o, GAP_HEAD, K_OB, f->object, f->object_key, 0)) < 0)
			return r;
		return name_gap(o, GAP_HEAD, K_FL, f->file, f->file_key, 0);
	}
	if (!head_omits(h, K_OB, f->object_key) &&
	    (r = put_name(x, o, K_OB, f->object, f->object_key, 0)) < 0)
		return r;
	return head_omits(h, K_FL, f->file_key) ? 0 : put_name(x, o, K_FL, f->file, f->file_key, 0);
}

static int put_pos_gap(fn_text *o, int kind, uint64_t instr, uint64_t line)
{
	gap *g = add_gap(o, kind);
	if (!g)
		return no_memory();
	g->u.pos.instr = instr;
	g->u.pos.line = line;
	o->placed = 1;
	o->last_instr = instr;
	o->last_line = line;
	return 0;
}

static int put_cost_pos(const text_jobs *x, fn_text *o, uint64_t instr, uint64_t line)
{
	if (!o->placed)   /* after the previous block's last position */
		return put_pos_gap(o, GAP_POS, instr, line);
	char *at = room(o, POS_MAX);
	if (!at)
		return no_memory();
	o->len += fmt_cost_pos(at, x->instr, 1, o->last_instr, o->last_line, instr, line);
	o->last_instr = instr;
	o->last_line = line;
	return 0;
}

/* A cost line: its position (relative to the one before) and the
 * visible events' values of @p costs up to @p end, the room checked
 * once. */
ALWAYS_INLINE int put_cost_line(const text_jobs *x, fn_text *o, uint64_t instr, uint64_t line,
                                const uint64_t *costs, size_t end)
{
	int first = !o->placed, r;
	if (first && (r = put_pos_gap(o, GAP_POS, instr, line)) < 0)
		return r;
	char *at = room(o, POS_MAX + end * (PROFDB__CV_U64_MAX + 1) + 1), *p = at;
	if (!at)
		return no_memory();
	if (!first) {
		p += fmt_cost_pos(p, x->instr, 1, o->last_instr, o->last_line, instr, line);
		o->last_instr = instr;
		o->last_line = line;
	}
	const uint32_t *col = x->w.col;
	for (size_t j = 0; j < end; j++) {
		*p++ = ' ';
		p += profdb__cv_fmt_u64(p, costs[col[j]]);
	}
	*p++ = '\n';
	o->len += (size_t)(p - at);
	return 0;
}

typedef struct cur_file {
	profdb_str s;
	uint32_t key;
} cur_file;

static int put_file(const text_jobs *x, fn_text *o, cur_file *cur, profdb_str file,
                    uint32_t key)
{
	if (key == cur->key || same(file, cur->s))
		return 0;
	cur->s = file;
	cur->key = key;
	return put_name(x, o, K_FI, file, key, 0);
}

/* profdb__cgw_cost_end() of line record @p ln, from its nonzero bits when
 * the visible columns are its first metrics in order (no cost read). */
static size_t line_cost_end(const profdb__cgw *w, const profdb__native_line *ln)
{
	if (!w->col_first || w->n_vis > 32)
		return profdb__cgw_cost_end(w, ln->costs);
	uint32_t nz = ln->nonzero & (uint32_t)(((uint64_t)1 << w->n_vis) - 1);
	return nz ? 32 - (size_t)__builtin_clz(nz) : 0;
}

static int put_lines(const text_jobs *x, fn_text *o, const void *d, cur_file *cur)
{
	int64_t nl = x->t->record_count(d, PROFDB__NATIVE_LINE);
	profdb__native_line rows[256];   /* a batch at a time */
	uint32_t got;
	for (int64_t i = 0; i < nl; i += got) {
		if (!(got = x->t->lines(d, (uint32_t)i, 256, rows)))
			return profdb__fail(-EIO, "profdb_convert: internal error: line record %" PRId64
			                    " of %" PRId64 " missing", i, nl);
		for (uint32_t k = 0; k < got; k++) {
			const profdb__native_line *ln = &rows[k];
			int r;
			size_t end = line_cost_end(&x->w, ln);
			if (!end && !profdb__cgw_hidden_cost(&x->w, ln->costs))
				continue;   /* no cost at all */
			if ((r = put_file(x, o, cur, ln->file, ln->file_key)) < 0 ||
			    (r = put_cost_line(x, o, ln->instr, ln->line, ln->costs, end)) < 0)
				return r;
		}
	}
	return nl < 0 ? (int)nl : 0;
}

/* The totals: what the line records add up to (a record not written has
 * no cost), from their sums. */
static void add_totals(const text_jobs *x, fn_text *o, const void *d)
{
	const uint64_t *sum, *wraps;
	x->t->line_sums(d, &sum, &wraps);
	for (size_t j = 0; j < x->w.n_vis; j++) {
		uint32_t e = x->w.col[j];
		if (wraps[e] || __builtin_add_overflow(o->totals[j], sum[e], &o->totals[j]))
			o->overflow = j + 1;
	}
}

/* cob=, cfi=, cfn= of function @p fn, the callee (cfn= by its module
 * and name, put_name()), with cob= left out
 * when its module is the block's (@p ob, a key) and cfi= when its file is
 * the one in effect (@p cur), as valgrind leaves them out: every reader
 * binds a cfn= without them to the current module and file (KCachegrind's
 * setCalledFunction(), callgrind_annotate's "$curr_file:", profdb's
 * set_cfn()). By their ids alone once the writer has named them (most
 * call sites; the names are not read), else as put_name() writes them. */
static int put_callee(const text_jobs *x, fn_text *o, uint32_t fn, uint32_t ob,
                      const cur_file *cur)
{
	static const int key[3] = {K_COB, K_CFI, K_CFN};
	uint32_t k[3], id[3];
	int r = x->t->function_keys(x->impl, fn, k);
	if (r < 0)
		return r;
	int put[3] = {k[0] != ob, k[1] != cur->key, 1};
	for (int i = 0; i < 2; i++)
		id[i] = put[i] ? profdb__cgw_known_id(&x->w, keys[key[i]].table, k[i]) : 1;
	id[2] = profdb__cgw_known_fn_id(&x->w, k[0], k[2]);
	if (id[0] && id[1] && id[2]) {
		for (int i = 0; i < 3 && r >= 0; i++)
			if (put[i])
				r = put_id(o, key[i], id[i]);
		return r;
	}
	profdb__native_fn f;
	if ((r = x->t->function(x->impl, fn, &f)) < 0 ||
	    (put[0] && (r = put_name(x, o, K_COB, f.object, f.object_key, 0)) < 0) ||
	    (put[1] && (r = put_name(x, o, K_CFI, f.file, f.file_key, 0)) < 0))
		return r;
	return put_name(x, o, K_CFN, f.name, f.name_key, f.object_key);
}

/* A call site's lines before its cost line: fi= when its file is not
 * the one in effect, its callee (put_callee()) and calls= with its count
 * (the target position is not kept: 0). */
static int put_call_head(const text_jobs *x, fn_text *o, const profdb__native_row *cs,
                         cur_file *cur, uint32_t ob)
{
	int r;
	if ((r = put_file(x, o, cur, cs->file, cs->file_key)) < 0 ||
	    (r = put_callee(x, o, cs->callee, ob, cur)) < 0)
		return r;
	char *at = room(o, 6 + PROFDB__CV_U64_MAX + 1 + POS_MAX + 1), *p = at;
	if (!at)
		return no_memory();
	memcpy(p, "calls=", 6);
	p += 6;
	p += profdb__cv_fmt_u64(p, cs->count);
	*p++ = ' ';
	p += fmt_pos(p, x->instr, 0, 0);
	*p++ = '\n';
	o->len += (size_t)(p - at);
	return 0;
}

static int put_calls(const text_jobs *x, fn_text *o, const void *d, cur_file *cur, uint32_t ob)
{
	int64_t nc = x->t->record_count(d, PROFDB__NATIVE_CALL);
	for (int64_t i = 0; i < nc; i++) {
		profdb__native_row cs;
		int r = x->t->record_at(d, PROFDB__NATIVE_CALL, (uint32_t)i, &cs);
		if (r < 0 || (r = put_call_head(x, o, &cs, cur, ob)) < 0 ||
		    (r = put_cost_line(x, o, cs.instr, cs.line, cs.costs,
		                       profdb__cgw_cost_end(&x->w, cs.costs))) < 0)
			return r;
	}
	return nc < 0 ? (int)nc : 0;
}

/* Jumps, each after the names of its target that differ from what a
 * reader takes without them: jfn= when the target is another function
 * than @p fn (the block's; without jfn= it is the block's function), and
 * then also jfi=; for a jump within the function, jfi= when the target's
 * file is not the one in effect (@p cur; without jfi= it is that one).
 * KCachegrind takes a target without jfi= in the current function's
 * current file even after jfn=, hence jfi= with every jfn=. It takes a
 * jfn= in the current object too: a target is named as the function of
 * its name in the block's object (@p ob_key). */
static int put_jump(const text_jobs *x, fn_text *o, const profdb__native_row *j,
                    const cur_file *cur, uint32_t fn_key, uint32_t ob_key)
{
	int r;
	int other_fn = j->to_function_key != fn_key;
	if ((other_fn || j->file_key != cur->key) &&
	    (r = put_name(x, o, K_JFI, j->file, j->file_key, 0)) < 0)
		return r;
	if (other_fn &&
	    (r = put_name(x, o, K_JFN, j->to_function, j->to_function_key, ob_key)) < 0)
		return r;
	/* The jump's source is the position in effect at jump= (profdb's
	 * reading; valgrind also repeats it on the line after). */
	if (!o->placed) {
		if ((r = put_pos_gap(o, GAP_JUMP_POS, j->instr, j->line)) < 0)
			return r;
	} else if (o->last_instr != j->instr || o->last_line != j->line) {
		if ((r = put_cost_pos(x, o, j->instr, j->line)) < 0)
			return r;
		o->text[o->len++] = '\n';   /* (POS_MAX has room for it) */
	}
	char *at = room(o, 5 + 2 * PROFDB__CV_U64_MAX + 2 + POS_MAX + 1 + POS_MAX + 1), *p = at;
	if (!at)
		return no_memory();
	/* valgrind's own forms: jump=COUNT, jcnd=FOLLOWED/EXECUTED */
	memcpy(p, j->conditional ? "jcnd=" : "jump=", 5);
	p += 5;
	p += profdb__cv_fmt_u64(p, j->count);
	if (j->conditional) {
		*p++ = '/';
		p += profdb__cv_fmt_u64(p, j->executed);
	}
	*p++ = ' ';
	p += fmt_pos(p, x->instr, j->to_instr, j->to_line);
	*p++ = '\n';
	/* the source again: in effect, so "*" */
	p += fmt_cost_pos(p, x->instr, 1, j->instr, j->line, j->instr, j->line);
	*p++ = '\n';
	o->len += (size_t)(p - at);
	return 0;
}

static int put_jumps(const text_jobs *x, fn_text *o, const void *d, const cur_file *cur,
                     uint32_t fn_key, uint32_t ob_key)
{
	int64_t nj = x->t->record_count(d, PROFDB__NATIVE_JUMP);
	for (int64_t i = 0; i < nj; i++) {
		profdb__native_row j;
		int r = x->t->record_at(d, PROFDB__NATIVE_JUMP, (uint32_t)i, &j);
		if (r < 0 || (r = put_jump(x, o, &j, cur, fn_key, ob_key)) < 0)
			return r;
	}
	return nj < 0 ? (int)nj : 0;
}

static size_t text_bytes(const fn_text *o, size_t n_vis)
{
	return sizeof *o + n_vis * sizeof *o->totals + o->cap + o->cap_gaps * sizeof *o->gaps;
}

/* A text's room back near its size when a long one left it much larger:
 * texts are reused for any function, and their room is what bounds how
 * far ahead the threads go. */
static void fit(fn_text *o)
{
	if (o->cap > 4 * o->len + TEXT_SLACK) {
		char *p = realloc(o->text, 2 * o->len + TEXT_SLACK / 4);
		if (p) {
			o->text = p;
			o->cap = 2 * o->len + TEXT_SLACK / 4;
		}
	}
	if (o->cap_gaps > 4 * o->n_gaps + TEXT_SLACK / sizeof *o->gaps) {
		size_t cap = 2 * o->n_gaps + TEXT_SLACK / 4 / sizeof *o->gaps;
		gap *g = realloc(o->gaps, cap * sizeof *g);
		if (g) {
			o->gaps = g;
			o->cap_gaps = cap;
		}
	}
}

void profdb__cgt_drop(void *ctx, void *text)
{
	(void)ctx;
	fn_text *o = text;
	if (o) {
		free(o->text);
		free(o->gaps);
		free(o);
	}
}

/* ---- a function's text copied from the input's ------------------------------------ */

/* A function whose text the input can give as it stands
 * (native_table.copy): its cost lines are copied, each name line, call
 * site and jump written as from its records. */
typedef struct copying {
	const text_jobs *x;
	fn_text *o;
	const profdb__native_fn *f;
	cur_file cur;
	int started;               /* its ob=, fl= and fn= are written */
} copying;

static int copy_begin(copying *c)
{
	int r = 0;
	if (!c->started && (r = put_head(c->x, c->o, c->f)) >= 0)
		r = put_name(c->x, c->o, K_FN, c->f->name, c->f->name_key, c->f->object_key);
	c->started = 1;
	return r;
}

/* Lines as the input has them: whole when they follow the position
 * written last, as their relative positions say, else with the first
 * one's position written again (put_cost_pos()). */
static int copy_lines(const text_jobs *x, fn_text *o, const profdb__native_lines *l)
{
	size_t skip = 0;
	int r;
	if (!o->placed || o->last_instr != l->from_instr || o->last_line != l->from_line) {
		if ((r = put_cost_pos(x, o, l->instr, l->line)) < 0)
			return r;
		skip = l->pos_len;
	}
	char *at = room(o, l->len - skip);
	if (!at)
		return no_memory();
	memcpy(at, l->text + skip, l->len - skip);
	o->len += l->len - skip;
	o->placed = 1;
	o->last_instr = l->last_instr;
	o->last_line = l->last_line;
	return 0;
}

static int sink_lines(void *ctx, const profdb__native_lines *l)
{
	copying *c = ctx;
	int r;
	if ((r = copy_begin(c)) < 0 || (r = put_file(c->x, c->o, &c->cur, l->file, l->file_key)) < 0)
		return r;
	return copy_lines(c->x, c->o, l);
}

static int sink_call(void *ctx, const profdb__native_row *cs, const profdb__native_lines *cost)
{
	copying *c = ctx;
	int r;
	if ((r = copy_begin(c)) < 0 ||
	    (r = put_call_head(c->x, c->o, cs, &c->cur, c->f->object_key)) < 0)
		return r;
	return copy_lines(c->x, c->o, cost);
}

static int sink_jump(void *ctx, const profdb__native_row *j)
{
	copying *c = ctx;
	int r = copy_begin(c);
	return r < 0 ? r : put_jump(c->x, c->o, j, &c->cur, c->f->name_key, c->f->object_key);
}

/* Function @p fn's block in @p profile copied from the input's text: 0,
 * 1 when it cannot be (@p o as it was), < 0. */
static int copy_item(text_jobs *x, unsigned worker, fn_text *o, uint32_t profile, uint32_t fn,
                     const profdb__native_fn *f)
{
	size_t len = o->len, n_gaps = o->n_gaps;
	int placed = o->placed;
	uint64_t last_instr = o->last_instr, last_line = o->last_line;
	copying c = {x, o, f, {f->file, f->file_key}, 0};
	profdb__native_sink sink = {sink_lines, sink_call, sink_jump, &c};
	void *d;
	int r = x->t->copy(x->impl, profile, fn, x->w.col, x->w.n_vis, x->instr, &sink,
	                   x->worker[worker].records, &d);
	x->worker[worker].records = r < 0 ? NULL : d;
	if (r == 1) {
		o->len = len;
		o->n_gaps = n_gaps;
		o->placed = placed;
		o->last_instr = last_instr;
		o->last_line = last_line;
	} else if (r == 0) {
		add_totals(x, o, d);
		if (c.started)
			o->head = (head){1, f->object_key, f->file_key, c.cur.key};
	}
	return r;
}

/* The same from its records: its lines merged by position. */
static int records_item(text_jobs *x, unsigned worker, fn_text *o, uint32_t profile,
                        uint32_t fn, const profdb__native_fn *f)
{
	void *d;
	int r = x->t->records_renew(x->impl, profile, fn, x->worker[worker].records, &d);
	x->worker[worker].records = r < 0 ? NULL : d;
	if (r < 0 || (x->t->record_count(d, PROFDB__NATIVE_LINE) <= 0 &&
	              x->t->record_count(d, PROFDB__NATIVE_CALL) <= 0 &&
	              x->t->record_count(d, PROFDB__NATIVE_JUMP) <= 0))
		return r;
	cur_file cur = {f->file, f->file_key};
	if ((r = put_head(x, o, f)) >= 0 &&
	    (r = put_name(x, o, K_FN, f->name, f->name_key, f->object_key)) >= 0 &&
	    (r = put_lines(x, o, d, &cur)) >= 0 && (r = put_calls(x, o, d, &cur, f->object_key)) >= 0)
		r = put_jumps(x, o, d, &cur, f->name_key, f->object_key);
	add_totals(x, o, d);
	o->head = (head){1, f->object_key, f->file_key, cur.key};
	return r;
}

/* Job j: blocks j * ITEMS_PER_JOB .. job_end(), block i of function
 * i / n_profiles, for profile i % n_profiles (or every profile summed),
 * decoded and written on the thread that makes it, in the memory of a
 * text written before: copied where the input can give its text as it
 * stands, else from its records. */
int profdb__cgt_make(void *ctx, unsigned worker, uint64_t j, void *old, void **out,
                     size_t *bytes)
{
	text_jobs *x = ctx;
	size_t n_vis = x->w.n_vis;
	fn_text *o = old;
	if (!o && !(o = calloc(1, sizeof *o + n_vis * sizeof *o->totals)))
		return no_memory();
	o->len = o->n_gaps = 0;
	o->placed = 0;
	o->head.known = 0;
	o->overflow = 0;
	memset(o->totals, 0, n_vis * sizeof *o->totals);
	int r = 0;
	for (uint64_t i = j * ITEMS_PER_JOB; i < job_end(x, j) && r >= 0; i++) {
		uint32_t fn = (uint32_t)(i / x->n_profiles);
		uint32_t profile = x->profiles ? x->profiles[i % x->n_profiles] : PROFDB_NONE;
		profdb__native_fn f;
		if ((r = x->t->function(x->impl, fn, &f)) < 0)
			break;
		r = x->t->copy ? copy_item(x, worker, o, profile, fn, &f) : 1;
		if (r == 1)
			r = records_item(x, worker, o, profile, fn, &f);
	}
	if (r < 0) {
		profdb__cgt_drop(x, o);
		return r;
	}
	fit(o);
	*out = o;
	*bytes = text_bytes(o, n_vis);
	return 0;
}
