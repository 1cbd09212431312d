/* Callgrind from Callgrind: every function's line and instruction costs,
 * call sites and jumps as the backend's own records give them
 * (profdb__backend.native_records), per profile or summed, so that reading
 * the output back gives the same self costs per (profile, function,
 * position, event), the same call edges and totals (doc/CONVERT.md,
 * "Callgrind"; tests/convert_check.py). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead-internal.h"
#include "cgout-internal.h"
#include "query/query-internal.h"

/* The names a reader keeps from one block to the next: ob= and fl= stay
 * until changed (valgrind writes them only then), and the file in effect
 * at a block's end is the file a reader gives the next block's fn= when
 * no fl= comes: KCachegrind and profdb go back to the last fl=,
 * callgrind_annotate keeps the last fl=, fi= or fe=. A block leaves out
 * ob= and fl= only where every reader takes the same names without. */
typedef struct head {
	int known;                 /* a block was written before (in this part) */
	uint32_t ob, fl, cur;      /* its object's and file's keys, and the key of
	                            * the file in effect at its end */
} head;

typedef struct native {
	profdb__cgw w;
	const profdb__native_table *t;
	const void *impl;
	int instr;                 /* positions: instr line */
	int have_last;             /* a position was written: the next may be relative */
	uint64_t last_instr, last_line;
	head head;                 /* the names the last block written left */
	unsigned spare;            /* threads it may start (profdb__spare_threads()) */
} native;

/* A function's block is formatted by the thread that decodes its
 * records, where their costs are in the cache, into a text (fn_text) with
 * the blocks of the functions next to it (ITEMS_PER_JOB); the calling
 * thread writes the texts in order. What depends on the blocks before a
 * text is left as a gap for the writer to fill: each name line (its id,
 * and the name itself the first time), the first block's ob= and fl=
 * (written unless the previous text's last block left the same, head)
 * and the first position (relative to the previous text's last one). */
enum { GAP_NAME, GAP_HEAD, GAP_POS, GAP_JUMP_POS };

/* The keys of the name lines, by a gap's key index. */
enum { K_OB, K_FL, K_FN, K_FI, K_COB, K_CFI, K_CFN, K_JFI, K_JFN };
static const struct {
	char key[4];
	unsigned char len, table;
} keys[] = {
	{"ob", 2, PROFDB__CGW_OB},   {"fl", 2, PROFDB__CGW_FL},   {"fn", 2, PROFDB__CGW_FN},
	{"fi", 2, PROFDB__CGW_FL},   {"cob", 3, PROFDB__CGW_OB},  {"cfi", 3, PROFDB__CGW_FL},
	{"cfn", 3, PROFDB__CGW_FN},  {"jfi", 3, PROFDB__CGW_FL},  {"jfn", 3, PROFDB__CGW_FN},
};

typedef struct gap {
	size_t at;                 /* where in the text */
	unsigned char kind, key;   /* GAP_*; GAP_NAME, GAP_HEAD: its key in keys[] */
	uint32_t name_key;         /* GAP_NAME, GAP_HEAD: the input's key of the name */
	uint32_t ob_key;           /* GAP_NAME of a function: its object's key */
	union {
		profdb_str name;       /* GAP_NAME, GAP_HEAD */
		struct {
			uint64_t instr, line;
		} pos;                 /* GAP_POS: a cost line's position; GAP_JUMP_POS: a
		                        * jump's source, written when not in effect */
	} u;
} gap;

typedef struct fn_text {
	char *text;
	size_t len, cap;
	gap *gaps;
	size_t n_gaps, cap_gaps;
	int placed;                /* a position was written: the last is last_instr/line */
	uint64_t last_instr, last_line;
	head head;                 /* what its last block left (known: it has one) */
	size_t overflow;           /* 1 + a visible event whose total passed 2^64 - 1 */
	uint64_t totals[];         /* per visible event: the self costs written */
} fn_text;

/* Room a text keeps beyond its size (fit()). */
#define TEXT_SLACK ((size_t)1024)

/* The blocks (functions, or a function in one profile) a text holds:
 * handing a text over between the threads costs about as much as making
 * a small one, and a profile has tens of thousands of functions of a few
 * dozen lines. */
#define ITEMS_PER_JOB 16u

/* The longest position: "0x" hex and a line, or two relative ones. */
#define POS_MAX (2 * (PROFDB__CV_U64_MAX + 3))

/* (for the formatting of a cost line's position: a call per subposition
 * cost as much as formatting it) */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

static int same(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.ptr == b.ptr || !memcmp(a.ptr, b.ptr, a.len));
}

static size_t fmt_hex(char *at, uint64_t v)
{
	size_t n = 1;
	for (uint64_t x = v >> 4; x; x >>= 4)
		n++;
	for (size_t i = n; i-- > 0; v >>= 4)
		at[i] = "0123456789abcdef"[v & 15];
	return n;
}

/* An absolute position (calls= and jump targets, the first cost line of
 * a part): its length. */
static size_t fmt_pos(char *at, int instr_col, uint64_t instr, uint64_t line)
{
	char *p = at;
	if (instr_col) {
		*p++ = '0';
		*p++ = 'x';
		p += fmt_hex(p, instr);
		*p++ = ' ';
	}
	p += profdb__cv_fmt_u64(p, line);
	return (size_t)(p - at);
}

/* A relative subposition at @p at, in decimal (callgrind_annotate reads
 * "+N" and "-N" as decimal only, hex addresses included): its length. */
ALWAYS_INLINE size_t fmt_rel(char *at, uint64_t v, uint64_t last)
{
	if (v == last) {
		*at = '*';
		return 1;
	}
	*at = v > last ? '+' : '-';
	return 1 + profdb__cv_fmt_u64(at + 1, v > last ? v - last : last - v);
}

/* The position of a cost line, relative to the previous one as valgrind
 * writes them (--compress-pos), so the output stays near the input's
 * size; absolute when there is none (@p have_last 0). */
ALWAYS_INLINE size_t fmt_cost_pos(char *at, int instr_col, int have_last, uint64_t last_instr,
                                  uint64_t last_line, uint64_t instr, uint64_t line)
{
	if (!have_last)
		return fmt_pos(at, instr_col, instr, line);
	char *p = at;
	if (instr_col) {
		p += fmt_rel(p, instr, last_instr);
		*p++ = ' ';
	}
	p += fmt_rel(p, line, last_line);
	return (size_t)(p - at);
}

/* ---- a function's text, on the thread that decodes it ---------------------------- */

/* What a making thread keeps: the records it decoded last, the next
 * decoded in their memory. A cache line of its own: each thread writes
 * its own per function, and a line the other thread reads meanwhile would
 * be taken from its core at each write. */
typedef struct text_worker {
	_Alignas(64) void *records;
} text_worker;

/* What the making threads read (the same for both) and keep per thread
 * (ahead-internal.h's worker). The writer's columns and name ids are read
 * from a copy of its state made when the jobs start (w): the writer's
 * own changes as it writes (its name counts, beside the name ids' arrays)
 * would otherwise take the line from the making core at each new name.
 * The arrays the copy points to are the writer's (the ids it gives are
 * read with atomic loads, cgout-internal.h). */
typedef struct text_jobs {
	_Alignas(64) const profdb__native_table *t;
	const void *impl;
	profdb__cgw w;             /* the writer's state when the jobs start: its
	                            * columns and name ids' arrays */
	int instr;
	const uint32_t *profiles;  /* NULL: every profile summed */
	size_t n_profiles;
	uint64_t n_items;          /* blocks: functions x n_profiles */
	text_worker worker[2];
} text_jobs;

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

/* ob= unless @p h's object is @p f's; fl= unless @p h's file is @p f's
 * and in effect (struct head). Before a text's first block the writer
 * decides (GAP_HEAD). */
static int head_omits(const head *h, int key, uint32_t name_key)
{
	return h->known && (key == K_OB ? h->ob == name_key : h->fl == name_key && h->cur == name_key);
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
	if (nl < 0)
		return (int)nl;
	/* the totals: what the rows written add up to (a row not written has
	 * no cost), from the records' sums */
	const uint64_t *sum, *wraps;
	x->t->line_sums(d, &sum, &wraps);
	for (size_t j = 0; j < x->w.n_vis; j++) {
		uint32_t e = x->w.col[j];
		if (wraps[e] || __builtin_add_overflow(o->totals[j], sum[e], &o->totals[j]))
			o->overflow = j + 1;
	}
	return 0;
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

static int put_calls(const text_jobs *x, fn_text *o, const void *d, cur_file *cur, uint32_t ob)
{
	int64_t nc = x->t->record_count(d, PROFDB__NATIVE_CALL);
	for (int64_t i = 0; i < nc; i++) {
		profdb__native_row cs;
		int r = x->t->record_at(d, PROFDB__NATIVE_CALL, (uint32_t)i, &cs);
		if (r < 0 || (r = put_file(x, o, cur, cs.file, cs.file_key)) < 0 ||
		    (r = put_callee(x, o, cs.callee, ob, cur)) < 0)
			return r;
		char *at = room(o, 6 + PROFDB__CV_U64_MAX + 1 + POS_MAX + 1), *p = at;
		if (!at)
			return no_memory();
		memcpy(p, "calls=", 6);
		p += 6;
		p += profdb__cv_fmt_u64(p, cs.count);
		*p++ = ' ';
		p += fmt_pos(p, x->instr, 0, 0);
		*p++ = '\n';
		o->len += (size_t)(p - at);
		if ((r = put_cost_line(x, o, cs.instr, cs.line, cs.costs,
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
static int put_jumps(const text_jobs *x, fn_text *o, const void *d, const cur_file *cur,
                     uint32_t fn_key, uint32_t ob_key)
{
	int64_t nj = x->t->record_count(d, PROFDB__NATIVE_JUMP);
	for (int64_t i = 0; i < nj; i++) {
		profdb__native_row j;
		int r = x->t->record_at(d, PROFDB__NATIVE_JUMP, (uint32_t)i, &j);
		if (r < 0)
			return r;
		int other_fn = j.to_function_key != fn_key;
		if ((other_fn || j.file_key != cur->key) &&
		    (r = put_name(x, o, K_JFI, j.file, j.file_key, 0)) < 0)
			return r;
		if (other_fn &&
		    (r = put_name(x, o, K_JFN, j.to_function, j.to_function_key, ob_key)) < 0)
			return r;
		/* The jump's source is the position in effect at jump= (profdb's
		 * reading; valgrind also repeats it on the line after). */
		if (!o->placed) {
			if ((r = put_pos_gap(o, GAP_JUMP_POS, j.instr, j.line)) < 0)
				return r;
		} else if (o->last_instr != j.instr || o->last_line != j.line) {
			if ((r = put_cost_pos(x, o, j.instr, j.line)) < 0)
				return r;
			o->text[o->len++] = '\n';   /* (POS_MAX has room for it) */
		}
		char *at = room(o, 5 + 2 * PROFDB__CV_U64_MAX + 2 + POS_MAX + 1 + POS_MAX + 1), *p = at;
		if (!at)
			return no_memory();
		/* valgrind's own forms: jump=COUNT, jcnd=FOLLOWED/EXECUTED */
		memcpy(p, j.conditional ? "jcnd=" : "jump=", 5);
		p += 5;
		p += profdb__cv_fmt_u64(p, j.count);
		if (j.conditional) {
			*p++ = '/';
			p += profdb__cv_fmt_u64(p, j.executed);
		}
		*p++ = ' ';
		p += fmt_pos(p, x->instr, j.to_instr, j.to_line);
		*p++ = '\n';
		/* the source again: in effect, so "*" */
		p += fmt_cost_pos(p, x->instr, 1, j.instr, j.line, j.instr, j.line);
		*p++ = '\n';
		o->len += (size_t)(p - at);
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

static void drop_text(void *ctx, void *text)
{
	(void)ctx;
	fn_text *o = text;
	if (o) {
		free(o->text);
		free(o->gaps);
		free(o);
	}
}

/* The end of job @p j's blocks. */
static uint64_t job_end(const text_jobs *x, uint64_t j)
{
	return x->n_items - j * ITEMS_PER_JOB > ITEMS_PER_JOB ? (j + 1) * ITEMS_PER_JOB : x->n_items;
}

/* Job j: blocks j * ITEMS_PER_JOB .. job_end(), block i of function
 * i / n_profiles, for profile i % n_profiles (or every profile summed),
 * its records decoded and its block formatted on the thread that makes
 * it, in the memory of a text written before. */
static int make_text(void *ctx, unsigned worker, uint64_t j, void *old, void **out,
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
		void *d;
		r = x->t->records_renew(x->impl, profile, fn, x->worker[worker].records, &d);
		x->worker[worker].records = r < 0 ? NULL : d;
		profdb__native_fn f;
		if (r >= 0 && (r = x->t->function(x->impl, fn, &f)) >= 0 &&
		    (x->t->record_count(d, PROFDB__NATIVE_LINE) > 0 ||
		     x->t->record_count(d, PROFDB__NATIVE_CALL) > 0 ||
		     x->t->record_count(d, PROFDB__NATIVE_JUMP) > 0)) {
			cur_file cur = {f.file, f.file_key};
			if ((r = put_head(x, o, &f)) >= 0 &&
			    (r = put_name(x, o, K_FN, f.name, f.name_key, f.object_key)) >= 0 &&
			    (r = put_lines(x, o, d, &cur)) >= 0 && (r = put_calls(x, o, d, &cur, f.object_key)) >= 0)
				r = put_jumps(x, o, d, &cur, f.name_key, f.object_key);
			o->head = (head){1, f.object_key, f.file_key, cur.key};
		}
	}
	if (r < 0) {
		drop_text(x, o);
		return r;
	}
	fit(o);
	*out = o;
	*bytes = text_bytes(o, n_vis);
	return 0;
}

/* ---- the texts in order, on the calling thread ------------------------------------ */

static void write_cost_pos(native *n, uint64_t instr, uint64_t line)
{
	unsigned char *q = profdb__cv_room(n->w.o, POS_MAX);
	if (q)
		n->w.o->len += fmt_cost_pos((char *)q, n->instr, n->have_last, n->last_instr,
		                            n->last_line, instr, line);
	n->have_last = 1;
	n->last_instr = instr;
	n->last_line = line;
}

/* A function's text with its gaps filled, and its totals. */
static int write_text(native *n, const fn_text *x)
{
	profdb__cv_out *o = n->w.o;
	size_t at = 0;
	int r = 0;
	for (size_t i = 0; i < x->n_gaps && r >= 0; i++) {
		const gap *g = &x->gaps[i];
		if (g->at > at)   /* (a function without text has none) */
			profdb__cv_put(o, x->text + at, g->at - at);
		at = g->at;
		if (g->kind == GAP_HEAD && head_omits(&n->head, g->key, g->name_key))
			continue;   /* as the previous text's last block left it */
		if (g->kind == GAP_NAME || g->kind == GAP_HEAD) {
			r = profdb__cgw_name_key_in(&n->w, keys[g->key].table, keys[g->key].key,
			                            keys[g->key].len, g->u.name, g->name_key, g->ob_key);
		} else if (g->kind == GAP_POS || !n->have_last || n->last_instr != g->u.pos.instr ||
		           n->last_line != g->u.pos.line) {
			write_cost_pos(n, g->u.pos.instr, g->u.pos.line);
			if (g->kind == GAP_JUMP_POS)
				profdb__cv_putc(o, '\n');
		}
	}
	if (x->len > at)
		profdb__cv_put(o, x->text + at, x->len - at);
	if (x->head.known)
		n->head = x->head;
	if (x->placed) {
		n->have_last = 1;
		n->last_instr = x->last_instr;
		n->last_line = x->last_line;
	}
	uint64_t *t = n->w.totals;
	if (x->overflow)
		n->w.overflow = x->overflow;
	for (size_t j = 0; j < n->w.n_vis; j++)
		if (__builtin_add_overflow(t[j], x->totals[j], &t[j]))
			n->w.overflow = j + 1;
	return r;
}

/* Does the input carry instruction addresses? The first functions with
 * line rows tell (positions are a property of the writer, the same in
 * every part valgrind writes). */
static int probe_instr(const native *n, int64_t n_fn)
{
	int seen = 0;
	for (int64_t f = 0; f < n_fn && seen < 16; f++) {
		void *d;
		if (n->t->records_new(n->impl, PROFDB_NONE, (uint32_t)f, &d) < 0)
			return 0;
		int64_t nl = n->t->record_count(d, PROFDB__NATIVE_LINE);
		for (int64_t i = 0; i < nl; i++) {
			profdb__native_row ln;
			if (n->t->record_at(d, PROFDB__NATIVE_LINE, (uint32_t)i, &ln) >= 0 && ln.instr) {
				n->t->records_free(d);
				return 1;
			}
		}
		seen += nl > 0;
		n->t->records_free(d);
	}
	return 0;
}

/* The blocks of every function in turn, each for every profile of
 * @c profiles (NULL: once, of every profile summed), ITEMS_PER_JOB to a
 * job (make_text()), decoded and formatted by either thread
 * (ahead-internal.h, PROFDB__AHEAD_SHARED) and written here in order;
 * the progress is told after every 256th function. */
static int put_part(native *n, const profdb_convert_options *opts, const uint32_t *profiles,
                    size_t n_profiles, int all)
{
	int64_t n_fn = n->t->function_count(n->impl);
	profdb__ahead *a;
	if (n_fn < 0)
		return (int)n_fn;
	text_jobs jobs = {n->t, n->impl, n->w, n->instr, all ? NULL : profiles,
	                  all ? 1 : n_profiles, 0, {{NULL}, {NULL}}};
	jobs.n_items = (uint64_t)n_fn * jobs.n_profiles;
	uint64_t n_jobs = (jobs.n_items + ITEMS_PER_JOB - 1) / ITEMS_PER_JOB;
	int r = profdb__ahead_start(&a, n_jobs, make_text, drop_text, &jobs, n->spare,
	                            PROFDB__AHEAD_SHARED);
	for (uint64_t j = 0; j < n_jobs && r >= 0; j++) {
		void *text;   /* alive until the next one */
		if ((r = profdb__ahead_next(a, &text)) >= 0)
			r = write_text(n, text);
		if (r >= 0 && n->w.o->err)
			r = n->w.o->err;
		for (uint64_t i = j * ITEMS_PER_JOB; i < job_end(&jobs, j) && r >= 0; i++) {
			uint64_t f = i / jobs.n_profiles;
			if (i % jobs.n_profiles == jobs.n_profiles - 1 && !(f & 255) && opts->progress &&
			    opts->progress(f, (uint64_t)n_fn, opts->progress_userdata))
				r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
		}
	}
	profdb__ahead_stop(a);
	for (int i = 0; i < 2; i++)
		if (jobs.worker[i].records)
			n->t->records_free(jobs.worker[i].records);
	if (r >= 0)
		r = profdb__cgw_totals(&n->w);
	return r < 0 ? r : 0;
}

/* An input's event name is written as it is when the output reads it back
 * as the same token: no blank, control byte or NUL (the reader takes any
 * other byte in a name), and no ':' or '=' (which end a name in an
 * "event:" line). Any other name is made from the metric's
 * (profdb__cv_events). */
static int writable_event_name(profdb_str name)
{
	for (size_t i = 0; i < name.len; i++) {
		unsigned char c = (unsigned char)name.ptr[i];
		if (c <= ' ' || c == 0x7f || c == ':' || c == '=')
			return 0;
	}
	return name.len > 0;
}

int profdb__cg_write_native(const profdb *db, const profdb_convert_options *opts,
                            profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles)
{
	native n;
	memset(&n, 0, sizeof n);
	n.t = db->be->native_records;
	n.impl = db->impl;
	n.spare = profdb__spare_threads(db->opts.threads);
	if (!n.t)
		return profdb__fail(-ENOTSUP, "profdb_convert: %s keeps no records of its own to write "
		                    "as Callgrind", profdb_format_name(db->be->format));
	profdb__cv_event *ev = NULL;
	size_t n_ev = 0;
	int r = profdb__cv_events(db, opts, "Callgrind", profiles, n_profiles, &ev, &n_ev);
	if (r < 0)
		return r;
	for (size_t k = 0; k < n_ev; k++) {     /* the input's own names */
		profdb_str name, long_name, formula;
		if (n.t->event(n.impl, ev[k].src, &name, &long_name, &formula) < 0 ||
		    name.len >= sizeof ev[k].name || !writable_event_name(name))
			continue;
		memcpy(ev[k].name, name.ptr, name.len);
		ev[k].name[name.len] = 0;
		snprintf(ev[k].long_name, sizeof ev[k].long_name, "%.*s%s%.*s",
		         (int)long_name.len, long_name.ptr,
		         formula.len ? (long_name.len ? ", derived: " : "derived: ") : "",
		         (int)formula.len, formula.ptr);
	}
	/* An input name kept beside a made one may meet it ("Ir" next to an
	 * "Ir<NUL>" written as "Ir"): the output's names must differ. */
	profdb__cv_unique_names(ev, n_ev);
	if ((r = profdb__cgw_init(&n.w, o, ev, n_ev)) < 0) {
		free(ev);
		return r;
	}
	profdb__cgw_costs_by_src(&n.w);
	int64_t n_keys = n.t->name_keys(n.impl);
	if ((r = n_keys < 0 ? (int)n_keys : profdb__cgw_name_keys(&n.w, (size_t)n_keys)) < 0) {
		profdb__cgw_free(&n.w);
		free(ev);
		return r;
	}
	int64_t np = profdb_profile_count(db);
	int all = (int64_t)n_profiles == np;
	n.instr = probe_instr(&n, n.t->function_count(n.impl));
	profdb__cgw_header(&n.w, db, n.instr ? "instr line" : "line",
	                   opts->separate && n_profiles ? (int64_t)profiles[0] : -1);
	if (!opts->separate) {
		r = put_part(&n, opts, profiles, n_profiles, all);
	} else {
		for (size_t p = 0; p < n_profiles && r >= 0; p++) {
			if (p)
				profdb__cgw_part(&n.w, db, profiles[p]);
			n.have_last = 0;
			n.head.known = 0;
			if ((r = profdb__cgw_reset(&n.w)) >= 0)
				r = put_part(&n, opts, &profiles[p], 1, 0);
		}
	}
	profdb__cgw_free(&n.w);
	free(ev);
	return r;
}
