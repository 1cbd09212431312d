/* Callgrind reader: the handle and the helpers shared by the files of
 * lib/callgrind. The open scans the text once and keeps only aggregates:
 * self cost per (profile, function), inclusive cost per (profile, caller,
 * callee), and for every function the byte ranges ("blocks") of the text
 * that hold its cost lines, so line/instruction detail and jumps are decoded
 * on demand (detail.c) instead of being materialised for the whole file.
 * Names are views into the text (the mapping, the caller's buffer or the one
 * decompressed copy). */
#ifndef PROFDB_CALLGRIND_CG_INTERNAL_H
#define PROFDB_CALLGRIND_CG_INTERNAL_H

#include "core/core-internal.h"
#include "core/table-internal.h"
#include "profdb/callgrind.h"

#include <stddef.h>
#include <string.h>

/* A view of @p count records of @p stride bytes at @p base keyed by the
 * host-order uint32_t at @p key_offset: the module's own sorted tables,
 * searched with profdb_view_find/seek/in_effect (never handed out). */
static inline profdb_view profdb__cg_u32_view(const void *base, uint64_t count, size_t stride,
                                              size_t key_offset)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	profdb_view v;
	memset(&v, 0, sizeof v);
	v.base = count ? (const unsigned char *)base : NULL;
	v.count = count;
	v.stride = (uint32_t)stride;
	v.key_offset = (uint8_t)key_offset;
	v.key_type = PROFDB_FIELD_U32;
	v.big_endian = first == 0;
	return v;
}

/* Limits (documented in doc/FORMATS.md and the public header). */
#define CG_MAX_LINE ((uint64_t)1 << 20)        /* bytes per line, '\n' excluded */
#define CG_MAX_EVENTS 256u                     /* distinct event types, derived included */
#define CG_MAX_TERMS 16u                       /* terms of a derived event's formula */
#define CG_MAX_INFLATED ((uint64_t)2 << 30)    /* decompressed gzip size */
#define CG_MAX_FILES 4096u                     /* files of one group */
#define CG_EMPTY UINT32_MAX
#define CG_UNDEF (UINT32_MAX - 1)                /* a name id not defined yet */
#define CG_NPOS 2                              /* position columns (of instr, line, bb) */

enum { CG_SP_OB = 0, CG_SP_FILE = 1, CG_SP_FN = 2 };
enum { CG_POS_INSTR = 0, CG_POS_LINE = 1, CG_POS_BB = 2 };

/* A name: a view into a text. Index 0 of the name table is "". */
typedef struct cg_name {
	const char *p;
	uint32_t len;
	uint32_t hash;  /* in the name table: its hash (names.c; in the padding) */
} cg_name;

/* Name @p n as the API hands names out: "" when empty, never a NULL. */
static inline profdb_str cg_name_str(cg_name n)
{
	return n.len ? (profdb_str){n.p, n.len} : (profdb_str){"", 0};
}

/* One input file of a group. */
typedef struct cg_file {
	profdb__input in;
	unsigned char *inflated;     /* decompressed gzip text, or NULL */
	size_t inflated_map;         /* > 0: inflated is a mapping of this size (stream.c) */
	char *label;                 /* the path (or input name) used in messages */
	const char *text;            /* the text parsed: in.base or inflated */
	uint64_t size;
	uint64_t seq, thread;        /* from the name: NAME.seq-thread (0 if absent) */
	int has_seq, has_thread;
	/* creator: callgrind-*: valgrind ends every part with totals:, so a
	 * part without one was cut short (model.c, finish_totals). */
	int from_callgrind;
	/* The compressed names "(id)" as the scan left them (names.c), with
	 * what the scan recorded of the name lines inside blocks that they do
	 * not tell (earlier meanings of an id, literal names), for detail.c. */
	struct cg_ids *ids;
} cg_file;

/* A profile: one part of one file. */
typedef struct cg_profile {
	uint32_t file;
	uint32_t n_pos;                  /* positions: columns */
	uint8_t pos_kind[CG_NPOS];
	uint64_t part, thread, pid;
	uint8_t has_part, has_thread, has_pid, has_summary, has_totals;
	cg_name trigger, timerange, cmd;
	uint32_t row_first, n_rows;      /* self rows (sorted by fn) */
	uint32_t crow_first, n_crows;    /* call rows (sorted by edge) */
	uint32_t call_first;             /* its calls= lines: calls[call_first ..] */
	uint32_t col_first, n_cols;      /* cost column -> event: cols[col_first + k] */
	uint32_t blk_first;              /* its blocks: blocks blk_first .. (text order) */
} cg_profile;

typedef struct cg_fn {
	uint32_t ob, fl, fn;     /* name indices */
	uint32_t n_body;         /* cost lines outside calls, saturating: bounds its detail rows */
} cg_fn;

/* Self cost of one function in one profile. */
typedef struct cg_row {
	uint32_t profile, fn;
} cg_row;

/* A calls= line, as the open records it: the call rows are made from
 * these on first use (first-use.c), with the count and cost the scan
 * recorded for each (cg->ccost). The profile's lines are a run of the
 * table (cg_profile.call_first), in text order. */
typedef struct cg_call {
	uint32_t caller, callee;
	uint64_t off;                /* of the calls= line in its file's text */
} cg_call;

/* The calls from one function to another in one profile. */
typedef struct cg_crow {
	uint32_t profile, caller, callee, edge;
	uint64_t count;
} cg_crow;

/* A call edge summed over profiles: a call row whose profile is 0 and
 * whose edge is itself. With one profile the edges are the call rows
 * (edge_alias). */
typedef cg_crow cg_edge;

/* A block: the lines of one function from its first body line after
 * fn= (or ob=, or the start of a part) up to the line that ends it (the
 * next fn= or ob= line, a header line that starts a part, a "====" line,
 * the end of the text): the open's record, 12 bytes, in text order (so
 * its profile is the one whose blk_first it follows). detail.c decodes
 * it, following the fl=/fi=/fe=/jfi=/jfn= lines in it through the file's
 * compressed names as they were at each line (cg_file.ids).
 * The state at its first line is the usual one (the current file is the
 * function's, no jump target named, the first line gives every position)
 * unless a cg_blkst says otherwise. */
typedef struct cg_blk {
	uint32_t fn;
	uint32_t off_lo, off_hi;     /* offset of its first line in its file's text */
} cg_blk;

/* The start state of a block that is not the usual one (rare). */
typedef struct cg_blkst {
	uint32_t blk;
	uint32_t src;                /* current source file (fl=/fi=/fe=), a name */
	uint32_t jfl, jfn;           /* jfi=/jfn= names pending, or CG_EMPTY */
	uint64_t pos[CG_NPOS];       /* current position before the first line */
} cg_blkst;

/* Blocks are kept in chunks of 1 << CG_BLK_SHIFT: appended without moving. */
#define CG_BLK_SHIFT 12u
#define CG_BLK_CHUNK (1u << CG_BLK_SHIFT)

typedef struct cg_term {
	uint32_t event;
	uint64_t coef;
} cg_term;

typedef struct cg_event {
	cg_name name, long_name, formula;
	uint32_t n_terms;            /* > 0: a derived event */
	cg_term terms[CG_MAX_TERMS];
} cg_event;

struct profdb_cg {
	profdb_options opts;
	cg_file *files;
	uint32_t n_files;

	uint32_t n_events;           /* every table has this stride */
	cg_event *events;
	uint32_t n_stored;           /* events read from the text (the others derived) */

	cg_profile *profiles;
	uint32_t n_profiles;
	size_t cap_profiles;
	uint32_t *cols;              /* the profiles' column maps */
	uint32_t n_cols;
	size_t cap_cols;
	uint64_t *p_totals;          /* n_profiles x n_events: computed sum of self costs */
	uint64_t *p_summary;         /* summary: as stored */
	uint64_t *p_totline;         /* totals: as stored */

	cg_name *names;
	uint32_t n_names;
	size_t cap_names;

	cg_fn *fns;
	uint32_t n_fns;
	size_t cap_fns;
	uint64_t *self;              /* n_fns x n_events, summed over profiles */
	int self_alias, edge_alias;  /* one profile: self is row_cost, edges/edge_cost are crows/crow_cost */

	cg_row *rows;
	uint64_t *row_cost;          /* NULL while the files are scanned: */
	uint32_t *row_narrow;        /* ... the self costs are these two (self-rows.c) */
	uint64_t *row_wide;
	uint32_t n_wide;
	size_t cap_wide;
	size_t narrow_mapped;        /* bytes of row_narrow mapped in (self-rows.c) */
	int rows_ahead;              /* map the narrow rows in ahead: the real tables */
	uint32_t n_rows;
	size_t cap_rows;

	cg_crow *crows;
	uint64_t *crow_cost;
	uint32_t n_crows;
	size_t cap_crows;

	cg_edge *edges;
	uint64_t *edge_cost;
	uint32_t n_edges;

	/* What the open leaves to first use (first-use.c): the call rows, made
	 * from the calls= lines it recorded (then the edges, through
	 * calls_once); and through blks_once, blk_first[fn], the first of each
	 * function's blocks (blk_chunk, recorded by the open). */
	cg_call *calls;
	uint32_t n_calls;
	size_t cap_calls;
	/* each call's count and costs, in the order of calls (call-costs.c);
	 * freed once the call rows are made */
	unsigned char *ccost;
	size_t n_ccost, cap_ccost;
	profdb__once calls_once, blks_once;
	uint32_t *blk_first;

	/* the open's blocks (blocks.c), and their chain per function, made
	 * by the first detail request: blk_next[b], CG_EMPTY at the end */
	cg_blk **blk_chunk;
	uint32_t n_blks;
	size_t cap_blk_chunk;
	cg_blkst *blkst;
	uint32_t n_blkst;
	size_t cap_blkst;
	uint32_t *blk_next;

	uint64_t *totals;            /* summed over profiles */
	uint64_t *summary, *totline;
	int has_summary, has_totals;
	uint64_t *zero;              /* n_events zeros */

	/* inclusive costs: [0] for the sum, [1 + p] for profile p (row order),
	 * each followed by one row per cycle (cycles.c); then, at
	 * profdb__cg_event_table(e), the sum's column of event e alone (a
	 * view that asks for one event touches n_fns values, not n_fns rows);
	 * n_incl tables, each built once (incl_once[i]). The cycles are found
	 * once first (incl_once[n_profiles + 1], whose table stays NULL). */
	profdb__once *incl_once;
	uint64_t **incl;
	uint32_t n_incl;
	uint32_t *fn_cycle;          /* n_fns: cycle number, 0 for none */
	uint32_t n_cycles;
};

/* Name @p i of the name table as the API hands it out. Its one empty
 * name is index 0, "" (scanner.c; names.c interns every other, and the
 * placeholders of a parallel scan's pieces never reach the handle's
 * table), so no entry needs cg_name_str()'s test: the accessors of every
 * line row ask for names. */
static inline profdb_str cg_name_at(const profdb_cg *cg, uint32_t i)
{
	return (profdb_str){cg->names[i].p, cg->names[i].len};
}

/* The self-cost rows while the files are scanned (self-rows.c): a row of
 * row_narrow is cg_self_stride() 32-bit cells, each below CG_WIDE; or,
 * when its first cell is CG_WIDE, row_wide's row given by its second. */
#define CG_WIDE UINT32_MAX
static inline size_t cg_self_stride(uint32_t ne)
{
	return ne < 2 ? 2 : ne;
}
/* Row @p row's 64-bit costs, or NULL when it is narrow. */
static inline uint64_t *cg_self_wide(const profdb_cg *cg, uint32_t row)
{
	const uint32_t *c = cg->row_narrow + (size_t)row * cg_self_stride(cg->n_events);
	return c[0] == CG_WIDE ? cg->row_wide + (size_t)c[1] * cg->n_events : NULL;
}
/* Row @p row's costs into (or from) @p v (n_events values); put moves the
 * row to row_wide when a value needs it (0, or -ENOMEM with a message). */
void profdb__cg_self_get(const profdb_cg *cg, uint32_t row, uint64_t *v);
int profdb__cg_self_put(profdb_cg *cg, uint32_t row, const uint64_t *v);
/* Room for row n_rows, zeroed (0 or -ENOMEM); room for @p want rows at
 * once (a hint, as profdb__cg_reserve); both tables from @p old events to
 * @p ne (new columns zero); at the scan's end, row_cost from them. */
int profdb__cg_self_new_row(profdb_cg *cg);
void profdb__cg_self_reserve(profdb_cg *cg, uint64_t want);
int profdb__cg_self_restride(profdb_cg *cg, uint32_t old, uint32_t ne);
int profdb__cg_self_final(profdb_cg *cg);

/* Shared by the scanner and detail.c: */
static inline int cg_is_space(char c)
{
	return c == ' ' || c == '\t';
}
static inline int cg_is_digit(char c)
{
	return c >= '0' && c <= '9';
}
/* Whether the text from @p p gives all @p n_pos positions absolutely:
 * each starts with a digit (decimal or 0x hex), so the position before
 * the line does not matter. Used where a read starts in the middle of a
 * part: a scan piece's cut, a function block's first line. */
static inline int cg_absolute_positions(const char *p, const char *end, uint32_t n_pos)
{
	for (uint32_t c = 0; c < n_pos; c++) {
		if (c > 0) {
			if (p == end || !cg_is_space(*p))
				return 0;
			while (p < end && cg_is_space(*p))
				p++;
		}
		if (p == end || !cg_is_digit(*p))
			return 0;
		while (p < end && !cg_is_space(*p) && *p != '\n' && *p != '\r')
			p++;
	}
	return 1;
}

/* Unsigned decimal or 0x hex, the whole token. 0 ok, -1 syntax, -2 overflow. */
int profdb__cg_u64(const char *t, size_t n, uint64_t *out);
/* One subposition token relative to @p last: 0, -1 syntax, -2 overflow,
 * -3 below zero. */
int profdb__cg_subpos(const char *t, size_t n, uint64_t last, uint64_t *out);
/* Next blank-separated token of [*p, end); 0 at the end. */
static inline int cg_tok(const char **p, const char *end, const char **t, size_t *tl)
{
	const char *q = *p;
	while (q < end && cg_is_space(*q))
		q++;
	if (q == end) {
		*p = q;
		return 0;
	}
	const char *s = q;
	while (q < end && !cg_is_space(*q))
		q++;
	*t = s;
	*tl = (size_t)(q - s);
	*p = q;
	return 1;
}

/* A name's function (names.c, get_fn): the last one found or made with
 * that name, its object and file, and whether other functions have the
 * name (then all of them are in fn_map). */
typedef struct cg_fnkey {
	uint32_t fn, ob, fl;         /* fn CG_EMPTY: no function has the name */
	uint32_t shared;             /* 0 or 1, when fn is set */
} cg_fnkey;

/* The indexes used only while the files are scanned. */
typedef struct cg_build {
	profdb__tmap name_map, fn_map;  /* names, fns whose name is shared */
	/* indexes by id, written as far as the ids reached (profdb__cg_reach) */
	cg_fnkey *fn_by_name;        /* name -> its function (the last one, when shared) */
	size_t n_fn_by_name, room_fn_by_name;
	uint32_t *row_of_fn;         /* fn -> its last row (names.c, get_row) */
	size_t n_row_of_fn, room_row_of_fn;
	uint32_t row_prof, row0;     /* the profile get_row last served, its first row */
	struct cg_evdef *defs;       /* event: lines with a formula or long name */
	uint32_t n_defs;
	size_t cap_defs;
} cg_build;

typedef struct cg_evdef {
	cg_name name, formula, long_name;
	uint32_t file;
	uint64_t lineno;
} cg_evdef;

/* api.c: a handle for @p n_files files with no tables yet (NULL when out
 * of memory); the tables of @p cg, not its files (NULL pointers are fine). */
profdb_cg *profdb__cg_new(uint32_t n_files, const profdb_options *opts);
void profdb__cg_free_tables(profdb_cg *cg);
/* api.c: whether the last component of @p path ends in a member's suffix
 * (NAME-NN, NAME.N, NAME.N-NN: one file of a --separate-threads set or a
 * dump series) rather than naming the set's base file. 1 or 0. */
int profdb__cg_names_member(const char *path);
/* first-use.c: make the call rows and edges (profdb__cg_calls), or the
 * chain of each function's blocks, cg->blk_first (profdb__cg_blocks), ready:
 * once, for every thread; 0 or < 0 with the message of the read that
 * failed. */
int profdb__cg_calls(const profdb_cg *cg);
int profdb__cg_blocks(const profdb_cg *cg);
/* blocks.c: block @p b (< n_blks), its offset, its profile, its start
 * state; free every block. */
static inline const cg_blk *cg_blk_at(const profdb_cg *cg, uint32_t b)
{
	return &cg->blk_chunk[b >> CG_BLK_SHIFT][b & (CG_BLK_CHUNK - 1)];
}
static inline uint64_t cg_blk_off(const cg_blk *k)
{
	return (uint64_t)k->off_hi << 32 | k->off_lo;
}
uint32_t profdb__cg_blk_profile(const profdb_cg *cg, uint32_t b);
/* The state at block @p b's first line: src, jfl, jfn and pos. */
void profdb__cg_blk_state(const profdb_cg *cg, uint32_t b, cg_blkst *out);
void profdb__cg_blk_free(profdb_cg *cg);
/* blk_first[fn] and blk_next: each function's blocks in text order. */
int profdb__cg_blk_chain(profdb_cg *cg);
/* names.c: the name of compressed id (@p sp, @p id) of file @p f in its
 * line at offset @p off (what the id meant there), or CG_UNDEF; the name
 * of the literal name line at offset @p off inside a block, or CG_UNDEF
 * when the scan recorded none there. */
uint32_t profdb__cg_file_id_at(const cg_file *f, int sp, uint64_t id, uint64_t off);
uint32_t profdb__cg_file_literal_at(const cg_file *f, uint64_t off);
void profdb__cg_file_ids_free(cg_file *f);
/* call-costs.c: the next call's count and costs from @p p in cg->ccost
 * (the first call at cg->ccost): costs[0 .. *k) (*k <= n_stored, the
 * others are zero); the position of the call after it, or NULL when the
 * stream is not what the scan wrote. */
const unsigned char *profdb__cg_call_cost_next(const profdb_cg *cg, const unsigned char *p,
                                               uint64_t *count, uint64_t *costs, uint32_t *k);
/* model.c: the edges from the call rows (after the scan that kept them). */
int profdb__cg_finish_calls(profdb_cg *cg);
/* scanner.c: scan file @p fi of the group. */
int profdb__cg_parse(profdb_cg *cg, uint32_t fi, cg_build *b);
/* stream.c: inflate the gzip text [src, src + n) (at most @p limit bytes)
 * into file @p fi and scan it at the same time; 0, < 0 as inflating then
 * scanning would fail, or 1 when it cannot (then inflate, then scan). */
int profdb__cg_parse_gz(profdb_cg *cg, uint32_t fi, cg_build *b, const unsigned char *src,
                        uint64_t n, uint64_t limit);
void profdb__cg_build_free(cg_build *b);
/* tables.c: make every table @p ne events wide. */
int profdb__cg_widen(profdb_cg *cg, uint32_t ne);
/* model.c: after every file: sort, sum over profiles, derived events. */
int profdb__cg_finish(profdb_cg *cg, cg_build *b);
/* cycles.c: cg->fn_cycle and cg->n_cycles from the edges. */
int profdb__cg_find_cycles(profdb_cg *cg);
/* cycles.c: inclusive table k (0 = sum, 1 + p = profile p), via incl_once[k],
 * once the cycles are found. */
int profdb__cg_build_inclusive(profdb_cg *cg, uint32_t k);
/* The slot in cg->incl of the sum's column of event @p e. */
static inline uint32_t profdb__cg_event_table(const profdb_cg *cg, uint32_t e)
{
	return cg->n_profiles + 2 + e;
}
/* cycles.c: the sum's inclusive costs of event @p e alone (n_fns values,
 * then one per cycle), the values of table 0's column e. */
int profdb__cg_build_inclusive_event(profdb_cg *cg, uint32_t e);
/* api.c: function @p fn's inclusive cost of event @p e summed over the
 * profiles, and when fn belongs to a cycle (return 1) the cycle's in
 * *cycle (return 0: none): from table 0 when it is built, else from the
 * event's column, built once per event; < 0 on error. */
int profdb__cg_inclusive_event(const profdb_cg *cg, uint32_t fn, uint32_t e, uint64_t *inc,
                               uint64_t *cycle);
/* model.c: value of derived events from the stored ones, in place. */
int profdb__cg_derive(const profdb_cg *cg, uint64_t *row);
/* Row of (profile, fn) in the sorted row table, or CG_EMPTY. */
uint32_t profdb__cg_find_row(const profdb_cg *cg, uint32_t profile, uint32_t fn);

/* profdb__grow for a table indexed by uint32_t: -ENOMEM once @p need
 * reaches UINT32_MAX - 1 (the ids CG_EMPTY and CG_UNDEF stay free). */
int profdb__cg_grow(void **p, size_t *cap, uint64_t need, size_t elem);
/* Entry @p id of a table by id that only the scan uses (cg_build), *n
 * entries of @p elem bytes written of *room: when id >= *n, the entries
 * up to it, rounded up to CG_REACH_STEP bytes, are written with 0xff
 * bytes (CG_EMPTY ids), their pages mapped in by one call. The room
 * doubles, but what the ids never reach is never written, and costs
 * address space only. 0 or -ENOMEM with a message. */
#define CG_REACH_STEP ((size_t)64 << 10)
int profdb__cg_reach(void **p, size_t *n, size_t *room, uint32_t id, size_t elem);
/* Room for @p want elements at once, when the table has less and that
 * memory is there (a hint: nothing changes otherwise, and no message is
 * left). For a table whose final length can be estimated: one copy where
 * growing by need makes several. */
void profdb__cg_reserve(void **p, size_t *cap, uint64_t want, size_t elem);
/* The same for a row table and its cost table (@p ne costs a row), the
 * pair grow_cost_rows() grows: the call rows (the self-cost rows:
 * profdb__cg_self_reserve), in huge pages (profdb__realloc_huge), which
 * the rows fill. */
void profdb__cg_reserve_costed(void **rows, uint64_t **costs, size_t *cap, uint64_t want,
                               size_t elem, uint32_t ne);
/* *out = n * m * elem bytes, or -ENOMEM (with a message) on overflow. */
int profdb__cg_bytes(size_t n, size_t m, size_t elem, size_t *out);
/* malloc of an n x m table of @p elem-byte elements plus one spare element
 * (never NULL for an empty table); NULL on overflow or failure. */
void *profdb__cg_array(size_t n, size_t m, size_t elem);

#endif
