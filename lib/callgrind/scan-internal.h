/* The Callgrind scanner's state and the helpers its files share.
 *
 * The scanner reads each file once, line by line (grammar and decoding
 * rules: doc/FORMATS.md, "Callgrind"). Its files:
 *   scanner.c  the general line reader: lines as (start, length) windows
 *              found with memchr, dispatch by first character and key,
 *              errors and warnings with file/line/offset;
 *   fast.c     the fast paths for the common lines (cost lines, calls=,
 *              jump=/jcnd=, name uses "fn=(id)", blank lines);
 *   body.c     the body lines on the general path (cost lines, calls=,
 *              jumps, name lines);
 *   header.c   header lines (events:, positions:, part:, summary:, ...)
 *              and the start of a part (a profile);
 *   names.c    the name table, compressed name ids, (object, file,
 *              function) keys and the (profile, function) rows;
 *   tables.c   growth, number parsing, widening the cost tables.
 *
 * Only aggregates are kept (callgrind-internal.h): a cost line adds its
 * counts to the row of (profile, current function), a call cost line to the
 * row of (profile, caller, callee). Line/instruction detail stays in the
 * text: the scanner records the blocks of each function (blocks.c) and
 * detail.c decodes them on demand. That keeps the scan at a few instructions per
 * byte and the memory proportional to functions and call edges, not to
 * cost lines. */
#ifndef PROFDB_CALLGRIND_SCAN_INTERNAL_H
#define PROFDB_CALLGRIND_SCAN_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "callgrind-internal.h"

/* Where the scanner is. */
typedef struct cg_where {
	cg_file *f;
	uint32_t file;       /* index of f in the group */
	uint64_t lineno;     /* 1-based */
	uint64_t off;        /* byte offset of the current line */
	uint64_t next_off;   /* byte offset of the line after it */
	int last_line;       /* the current line has no '\n' after it */
	uint64_t safe_end;   /* just past the text's last '\n' (fast_lines) */
	uint64_t next_progress;  /* offset of the next progress call */
} cg_where;

/* A large compressed-name id (beyond cg_ids.limit) and its name. */
typedef struct cg_bigid {
	uint64_t id;
	uint32_t sp;         /* CG_SP_* */
	uint32_t name;       /* CG_UNDEF until defined */
} cg_bigid;

/* What a file or function id meant before it changed meaning: the lines
 * before offset @p end read id (@p sp, @p id) as @p name (it was defined
 * again there, or forgotten at a "====" line). */
typedef struct cg_idold {
	uint64_t id, end;
	uint32_t sp, name;
} cg_idold;

/* A name line inside a block that names its file or function literally
 * (no "(id)"): its offset and the name. */
typedef struct cg_litname {
	uint64_t off;
	uint32_t name;
} cg_litname;

/* Compressed names "(id)": per file, per space (object, file, function).
 * With them, what detail.c needs to read a block's name lines that the
 * final ids do not tell: the ids' earlier meanings (sorted by space, id
 * and end once the file is scanned) and the literal name lines (in text
 * order). Both are empty in a text whose ids keep one meaning and whose
 * functions' lines name files by id only. */
typedef struct cg_ids {
	uint32_t *dense[3];  /* small ids: name index, CG_EMPTY = undefined */
	size_t cap[3];
	uint64_t limit;      /* ids below it use dense[] (bounded by the text size) */
	cg_bigid *big;       /* large ids, indexed by index */
	uint32_t n_big;
	size_t cap_big;
	profdb__hindex index;
	cg_idold *old;
	uint32_t n_old;
	size_t cap_old;
	cg_litname *lit;
	uint32_t n_lit;
	size_t cap_lit;
	/* after a first "====" line: the dense ids set since the last one
	 * (the next one retires and clears just those) */
	int track;
	struct cg_ph *set;
	uint32_t n_set;
	size_t cap_set;
} cg_ids;

/* The current part (profile) and its columns. */
typedef struct cg_part {
	uint32_t prof;                   /* current profile, CG_EMPTY before one */
	int has_events;
	int has_body;                    /* a body line was read in this part */
	uint32_t n_cols;                 /* columns of the part's events: line */
	uint32_t colmap[CG_MAX_EVENTS];  /* column -> event */
	uint32_t n_pos;
	uint8_t pos_kind[CG_NPOS];
	uint64_t pos[CG_NPOS];           /* current position */
} cg_part;

/* The current names (CG_EMPTY = unset) and what they resolved to. */
typedef struct cg_cur {
	uint32_t ob, fl, fi, fn;
	uint32_t fn_fl;                  /* the fl= in effect at fn=: the function's file */
	uint32_t kfile;                  /* KCachegrind's current file: fl=, fi=, fe=; fn= resets it to fl= */
	uint32_t cob, cfi, cfn, jfl, jfn;
	uint32_t cfn_ob, cfn_fl;         /* the callee's object and file, bound at cfn= */
	uint32_t func, row;              /* resolved function and its row, or CG_EMPTY */
	uint32_t body;                   /* 0: a body line was read since the last name line, else CG_EMPTY */
	uint32_t blk;                    /* open block, or CG_EMPTY */
	int pending_call;                /* the previous line was calls= */
} cg_cur;

/* Warnings given once per file. */
typedef struct cg_warned {
	bool nul, neg, negcount, extra, unknown, undef;
} cg_warned;

/* A name of a piece of the parallel scan (parallel.c) that only the
 * pieces before it can tell: a compressed id used before the piece
 * defines it. Its index in the piece's name table has a NULL view. */
typedef struct cg_ph {
	uint32_t name, sp;
	uint64_t id;
} cg_ph;

/* The state of a piece of the parallel scan (all zero in the sequential
 * scan). The piece starts at an fn= line with the names in effect before
 * it standing in as the placeholder names CG_PH_*; parallel.c checks its
 * guesses against the real state when it merges the piece. */
typedef struct cg_spec {
	int on;
	int unsafe;          /* it met a warning: the sequential scan redoes it */
	int used_cfn;        /* a calls= used the cfn= in effect before the piece */
	cg_ph *ph;
	uint32_t n_ph;
	size_t cap_ph;
	cg_ph *defs;         /* the small ids it defines (their name: the dense slot) */
	uint32_t n_defs;
	size_t cap_defs;
} cg_spec;

/* Placeholder names of a piece: the object, fl= file and callee (cfn=
 * and what it bound) in effect at its first line. */
enum { CG_PH_OB = 1, CG_PH_FL, CG_PH_CFN, CG_PH_CFN_OB, CG_PH_CFN_FL, CG_PH_FIRST_ID };

/* one_line() in a piece: a line the piece leaves to the sequential scan
 * (header lines start parts and fill in totals; "====" resets the ids). */
#define CG_STOP 1

typedef struct parser {
	profdb_cg *cg;
	cg_build *b;
	cg_where at;
	cg_ids ids;
	cg_part part;
	cg_cur cur;
	cg_warned warned;
	cg_spec spec;
	/* where a call's cost line is read to, for its record (call-costs.c;
	 * the call rows are made from the records on first use, first-use.c) */
	uint64_t call_sink[CG_MAX_EVENTS];
} parser;

/* Is the text the file's mapping (not an inflated copy)? Only then do
 * the page-table hints below apply to it. */
static inline int cg_text_mapped(const cg_file *f)
{
	return f->text == (const char *)f->in.base;
}

/* Bytes [off, off + len) of the text about to be read: mapped into the
 * page table at once when the text is the file's mapping (lib/core's
 * profdb__input_prefault). */
static inline void cg_prefault(const cg_file *f, uint64_t off, uint64_t len)
{
	if (cg_text_mapped(f))
		profdb__input_prefault(&f->in, off, len);
}

/* True the first time for @p flag. */
static inline bool once(bool *flag)
{
	if (*flag)
		return false;
	*flag = true;
	return true;
}

#define SHOWN(n) ((int)((n) > 40 ? 40 : (n)))

/* Short names for the scanner's shared functions (hidden symbols). */
#define perr profdb__cgs_perr
#define pwarn profdb__cgs_pwarn
#define bad_number profdb__cgs_bad_number
#define grow_rows profdb__cgs_grow_rows
#define resolve_name profdb__cgs_resolve_name
#define get_fn profdb__cgs_get_fn
#define get_row profdb__cgs_get_row
#define close_body profdb__cgs_close_body
#define end_part profdb__cgs_end_part
#define save_cols profdb__cgs_save_cols
#define need_part profdb__cgs_need_part
#define need_fn profdb__cgs_need_fn
#define need_body profdb__cgs_need_body
#define add_call profdb__cgs_add_call
#define set_file_fn profdb__cgs_set_file_fn
#define set_ob profdb__cgs_set_ob
#define set_cfn profdb__cgs_set_cfn
#define end_jump profdb__cgs_end_jump
#define cost_line profdb__cgs_cost_line
#define spec_line profdb__cgs_spec_line
#define header_line profdb__cgs_header_line
#define fast_lines profdb__cgs_fast_lines
#define fast_lines_crlf profdb__cgs_fast_lines_crlf
#define ids_clear profdb__cgs_ids_clear
#define intern profdb__cgs_intern

/* scanner.c: an error (-EBADMSG in a last line without '\n' becomes
 * -ENODATA) or a warning naming the file, line and offset. */
int perr(parser *ps, int code, const char *fmt, ...) PROFDB__PRINTF(3, 4);
void pwarn(parser *ps, const char *fmt, ...) PROFDB__PRINTF(2, 3);
/* The error for profdb__cg_u64/subpos result @p r on token (t, n). */
int bad_number(parser *ps, int r, const char *what, const char *t, size_t n);

/* tables.c: grow a cost table (@p ne wide) in step with its row table. */
int grow_rows(void **rows, uint64_t **costs, size_t *cap, uint32_t n, size_t elem, uint32_t ne);

/* The common case without a call. */
static inline int grow(void **p, size_t *cap, uint64_t need, size_t elem)
{
	return need <= *cap ? 0 : profdb__cg_grow(p, cap, need, elem);
}

static inline void rstrip(const char *p, size_t *n)
{
	while (*n && cg_is_space(p[*n - 1]))
		(*n)--;
}

static inline int key_is(const char *k, size_t kn, const char *lit)
{
	size_t n = strlen(lit);
	return kn == n && memcmp(k, lit, n) == 0;
}

/* One more body line of the current function (a detail row at most). */
static inline void count_body(parser *ps)
{
	uint32_t *n = &ps->cg->fns[ps->cur.func].n_body;
	if (*n < UINT32_MAX)
		(*n)++;
}

/* names.c. ids_clear forgets every id (Xdebug's "====" line), @p release
 * also frees the tables (end of the file) and the earlier meanings and
 * literal name lines. */
void ids_clear(cg_ids *t, int release);
/* Before a "====" line forgets every id: what each file and function id
 * meant up to the current line. 0 or -ENOMEM. */
int profdb__cgs_ids_retire(parser *ps);
/* Whether every id a piece of the parallel scan defines means what it
 * means in the real tables @p dst already, where defined there (else the
 * piece is read again by the sequential scan, which records the earlier
 * meaning). */
int profdb__cgs_ids_agree(const parser *dst, const parser *src);
/* Forgets the ids a piece of the parallel scan set (cg_spec.defs and .ph),
 * at the cost of their number, not of the dense arrays' length: the
 * piece's tables are reused for another piece. */
void profdb__cgs_ids_forget(parser *ps);
int resolve_name(parser *ps, int sp, const char *v, size_t n, uint32_t *idx);
/* The function (object @p ob, fl= file @p fl, name @p fn), created on
 * first use. */
int get_fn(parser *ps, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out);
int get_row(parser *ps, uint32_t fn, uint32_t *out);

/* header.c: close_body forgets that body lines were read since the last
 * name line (cur.body); close_blk ends the block too (fn=, ob=, a new
 * part, a "====" line, the end of the text or of a piece). */
void close_body(parser *ps);
void profdb__cgs_close_blk(parser *ps);
void end_part(parser *ps);
int save_cols(parser *ps);
int need_part(parser *ps);
int header_line(parser *ps, const char *k, size_t kn, const char *v, const char *end);

/* blocks.c: open a block of the current function at the current line
 * (ps->cur.blk); the function of block @p b; append a piece's blocks
 * (@p lc's, its functions and names through the maps); forget a piece's
 * blocks (its tables reused). */
int profdb__cgs_blk_open(parser *ps);
uint32_t profdb__cgs_blk_fn(const profdb_cg *cg, uint32_t b);
int profdb__cgs_blk_merge(profdb_cg *cg, const profdb_cg *lc, const uint32_t *fn_map,
                          const uint32_t *name_map);
void profdb__cgs_blk_clear(profdb_cg *lc);

/* body.c */
int need_fn(parser *ps);
int need_body(parser *ps);
/* A name line's value @p v (@p n bytes), resolved to @p name: recorded
 * (cg_ids.lit) when it is literal and inside a block. 0 or -ENOMEM. */
int profdb__cgs_note_body_name(parser *ps, const char *v, size_t n, uint32_t name);
/* A calls= line whose count (0 for a negative one) is @p count. */
int add_call(parser *ps, uint64_t count);
void set_file_fn(parser *ps, char k, uint32_t idx);
void set_ob(parser *ps, uint32_t idx);
/* cfn=: binds the callee of the next calls= (KCachegrind) */
void set_cfn(parser *ps, uint32_t idx);
void end_jump(parser *ps);
int cost_line(parser *ps, const char *p, const char *end);
int spec_line(parser *ps, const char *k, size_t kn, const char *v, const char *end);

/* scanner.c: the scan of one file in three steps. begin checks the text
 * and sets up @p ps; lines reads the lines in [@p off, @p stop) (0; or
 * CG_STOP in a piece, with at.off the offset of the line left unread);
 * end closes the file (an error if it ends inside a call). */
int profdb__cgs_begin(parser *ps, profdb_cg *cg, uint32_t fi, cg_build *b);
int profdb__cgs_lines(parser *ps, uint64_t off, uint64_t stop);
int profdb__cgs_end(parser *ps);
/* After a file's scan (result @p r): its compressed names go to the file
 * (cg_file.ids) for detail.c, unless the scan failed. */
void profdb__cgs_keep_ids(parser *ps, int r);

/* The merge of a piece of the parallel scan (parallel.c) looks up
 * thousands of names, functions, rows and ids at random places of tables
 * as large as all of them, each a cache miss; it asks for the entries of
 * the lookups CG_AHEAD steps ahead (a hint: nothing is read or changed),
 * so that their misses overlap: enough misses in flight to cover a
 * miss's latency, few enough that the lines stay cached until used. The
 * slot of a name of hash @p hash; of compressed id (@p sp, @p id); the
 * function of name @p fn; the row of function @p fn. */
#define CG_AHEAD 16u

static inline void cg_prefetch_name(const parser *ps, uint32_t hash)
{
	const profdb__tmap *m = &ps->b->name_map;
	if (m->slot)
		__builtin_prefetch(&m->slot[hash & m->mask]);
}

static inline void cg_prefetch_id(const parser *ps, int sp, uint64_t id)
{
	if (id < ps->ids.limit && id < ps->ids.cap[sp])
		__builtin_prefetch(&ps->ids.dense[sp][id]);
}

static inline void cg_prefetch_fn(const parser *ps, uint32_t fn)
{
	if (fn < ps->b->n_fn_by_name)
		__builtin_prefetch(&ps->b->fn_by_name[fn]);
}

static inline void cg_prefetch_row(const parser *ps, uint32_t fn)
{
	if (fn < ps->b->n_row_of_fn)
		__builtin_prefetch(&ps->b->row_of_fn[fn]);
}

/* parallel.c: how many threads scan a text of @p size bytes (1: the
 * sequential scan; options.threads, 0 = one per core for texts of 4 MiB
 * and more), and the parallel scan of the whole text, which gives
 * what profdb__cgs_lines(ps, 0, size) gives. */
unsigned profdb__cgs_threads(const profdb_cg *cg, uint64_t size);
int profdb__cgs_parallel(parser *ps, unsigned threads);

/* names.c: intern a name view (*idx its index); a placeholder name for
 * the undefined id (@p sp, @p id) of a piece. */
int intern(parser *ps, const char *p, size_t n, uint32_t *idx);
/* The same for a name a piece of the parallel scan interned already: its
 * hash known (cg_name.hash), its bytes checked for NUL (a piece that
 * warned is read again, never merged). */
int profdb__cgs_intern_hashed(parser *ps, const char *p, size_t n, uint32_t hash, uint32_t *idx);
int profdb__cgs_placeholder(parser *ps, int sp, uint64_t id, uint32_t *idx);
/* The ids a file keeps for its blocks (cg_file.ids): file and function
 * names only, the dense tables no longer than their last defined id. */
void profdb__cgs_ids_trim(cg_ids *t);
/* The name of compressed id (@p sp, @p id), CG_UNDEF when undefined. */
uint32_t profdb__cgs_id_get(const parser *ps, int sp, uint64_t id);
/* Every id @p src defines and its literal name lines, into @p dst's
 * tables, names through @p nmap. */
int profdb__cgs_ids_merge(parser *dst, const parser *src, const uint32_t *nmap);
/* body.c: the costs after the positions of a cost line, added into @p dst
 * (n_events wide, by the part's column map); 0 or < 0 with perr. */
int profdb__cgs_read_costs(parser *ps, const char *p, const char *end, uint64_t *dst,
                           const char *what);

/* call-costs.c: the scan's record of a call in two steps: its count
 * (@p count, 0 for a negative one) from add_call(), then its costs, once
 * the cost line after the calls= line is read into ps->call_sink (called
 * where the fast and the general path read that line); 0 or -ENOMEM. */
int profdb__cgs_call_count(parser *ps, uint64_t count);
int profdb__cgs_call_cost(parser *ps);
/* call-costs.c: a piece's records after the scan's (parallel.c, as its
 * calls are appended). */
int profdb__cg_call_costs_append(profdb_cg *cg, const profdb_cg *lc);

/* fast.c: the lines from offset @p off on (before @p end, which is at
 * most at.safe_end) while the fast paths take them: the offset of the
 * first line they leave to the general path (or @p end or past it), each
 * line before it counted in at.lineno; < 0 an error (the one the general
 * path would give), at.lineno counting the line that has it. A run of
 * cost lines is read at once, up to a line that starts at @p end or
 * later. fast_lines_crlf() also takes a "\r\n" for a '\n' where a line
 * may end. */
int64_t fast_lines(parser *ps, uint64_t off, uint64_t end);
int64_t fast_lines_crlf(parser *ps, uint64_t off, uint64_t end);

#endif
