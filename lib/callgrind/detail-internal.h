/* A function's detail (profdb_cg_detail) as detail.c decodes it and
 * detail-rows.c gives it out; for the Callgrind writer (query-native.c),
 * details decoded in recycled memory, and the names of a detail's call
 * sites and jumps as name indexes (profdb_cg->names), for the writer's
 * tables keyed by them (the rows' files: profdb__cg_detail_row(),
 * lines-internal.h). @p i is below the count of its kind. */
#ifndef PROFDB_CALLGRIND_DETAIL_INTERNAL_H
#define PROFDB_CALLGRIND_DETAIL_INTERNAL_H

#include "callgrind-internal.h"

/* A line row: its file (a name index) and position; its costs are a row
 * of profdb_cg_detail.cost, and nz tells which of its first 32 are not 0
 * (bit e: event e), for a writer that leaves out trailing zero costs. */
typedef struct dline {
	uint32_t src;
	uint32_t nz;
	uint64_t instr, line;
} dline;

/* A row's keys and its index, as detail-sort.c sorts them. */
typedef struct lord {
	uint64_t line, instr;
	uint32_t src, idx;
} lord;

/* A jump and a call site as kept: the public records' fields with the
 * names as name indexes (the Callgrind writer's records read them in
 * place, query-native.c). */
typedef struct djump {
	uint64_t from_line, from_instr, to_line, to_instr, count, executed;
	uint32_t profile, to_file, to_function;
	int conditional;
} djump;

typedef struct dcall {
	uint64_t line, instr, count;
	uint32_t profile, callee, src;
} dcall;

/* A run of cost lines as the text has them, for a writer that copies
 * them (profdb__cg_detail_copy): lines [text, text + len), each ended by
 * its '\n', the first line's position in its first pos_len bytes.
 * Positions: the one in effect before the first line (from), the first
 * line's and the last line's. */
typedef struct cg_run {
	uint32_t src;                /* the file in effect (a name index) */
	uint64_t from_instr, from_line, instr, line, last_instr, last_line;
	const char *text;
	size_t pos_len, len;
} cg_run;

/* Where a copy goes, in text order: each run of cost lines outside calls
 * to run(), each call site to call() (the detail's call @p i and its cost
 * line as a run), each jump to jump() (the detail's jump @p i); 0, or < 0
 * to stop. The output's cost columns are the events cols[0 .. n_cols),
 * its positions "instr line" (instr) or "line": a text that would not
 * read back the same from it is not copied (CG_NOT_COPIED). */
typedef struct cg_copy {
	int (*run)(void *ctx, const profdb_cg_detail *d, const cg_run *run);
	int (*call)(void *ctx, const profdb_cg_detail *d, uint32_t i, const cg_run *cost);
	int (*jump)(void *ctx, const profdb_cg_detail *d, uint32_t i);
	void *ctx;
	const uint32_t *cols;
	size_t n_cols;
	int instr;
} cg_copy;

#define CG_NOT_COPIED 1

struct profdb_cg_detail {
	const profdb_cg *cg;
	size_t ne;
	dline *lines;
	uint64_t *cost;
	uint32_t *perm;              /* row i: lines[perm[i]], cost row perm[i] (NULL: i) */
	size_t cap_perm;             /* (perm's room, kept when NULL) */
	uint32_t *perm_room;
	lord *sort_room;      /* sort_rows()'s, 2 x cap_sort */
	size_t cap_sort;
	uint32_t n_lines;
	size_t cap_lines;
	uint32_t n_zero;             /* while decoding: cost rows n_lines .. n_zero - 1 are 0 */
	/* While the rows come in increasing (instr, line, file) order, as
	 * Callgrind writes a block's instructions, a new row's key is either
	 * the last one's or new, and no index is needed; the first one out of
	 * order builds the map, which then finds every row. */
	profdb__hindex map;          /* lines, while decoding, once out of order */
	uint32_t map_expected;       /* the rows the map is sized for */
	/* The sum of the line rows' costs per event, and how many times it
	 * wrapped past 2^64 - 1 (ne each): checked against the self costs once
	 * decoded, and kept (in sums) for the writer's totals, except by a
	 * line walk's detail (lines_only: NULL once decoded). */
	uint64_t *sum;
	uint64_t *sum_carry;
	uint64_t *sums;
	size_t cap_sums;
	djump *jumps;
	uint32_t n_jumps;
	size_t cap_jumps;
	dcall *calls;
	uint64_t *call_cost;
	uint32_t n_calls;
	size_t cap_calls;
	int lines_only;              /* no call sites, no jumps: for line walks */
	const cg_copy *copy;         /* its lines copied: no line rows */
};

/* Where row @p i (in the rows' order) is kept: its line and cost row. */
static inline uint32_t profdb__cg_detail_kept(const profdb_cg_detail *d, uint32_t i)
{
	return d->perm ? d->perm[i] : i;
}

/* detail-sort.c: the rows of @p d in the order of line, instruction,
 * file (d->perm) unless they are in it already; @p in_order: they came
 * in the order of instruction, line, file. 0 or -ENOMEM. */
int profdb__cg_detail_sort(profdb_cg_detail *d, int in_order);

/* profdb_cg_detail_new(), in the memory of @p old (a detail the caller
 * gives up, freed if need be; NULL: none): a writer that decodes every
 * function in turn allocates its rows once. */
int profdb__cg_detail_renew(profdb_cg_detail **ret, const profdb_cg *cg, uint32_t profile,
                            uint32_t fn, profdb_cg_detail *old);
/* profdb__cg_detail_renew() for a copy (cg_copy): the call sites and
 * jumps kept, the lines given to @p copy and only their costs' sums kept
 * (checked against the self costs as a detail's rows are). 0, or
 * CG_NOT_COPIED when some block cannot be copied as it stands (@p copy
 * was given part of the function: the caller drops it), or < 0; *ret is
 * the detail in both of the first cases. */
int profdb__cg_detail_copy(profdb_cg_detail **ret, const profdb_cg *cg, uint32_t profile,
                           uint32_t fn, profdb_cg_detail *old, const cg_copy *copy);
/* Position column @p c of @p v (a part's instr or line column), 0 where
 * the part has none (@p c < 0). */
static inline uint64_t cg_pos_col(const uint64_t *v, int c)
{
	return c >= 0 ? v[c] : 0;
}

/* The decoder's state in a block (detail.c), for the copy's reader of
 * cost lines (copy-lines.c). */
typedef struct dstate {
	profdb_cg_detail *d;
	uint32_t fn, profile;
	uint64_t start;              /* offset of its first line */
	const cg_profile *p;
	uint64_t pos[CG_NPOS];
	int col_instr, col_line;
	uint32_t jfl, jfn;
	uint32_t src;                /* the current file */
	int pending_call;
	uint64_t call_count;         /* of the pending calls= line */
	uint64_t call_off;           /* its offset */
	int sites_found;             /* site and site_end are set (first_call()) */
	uint32_t site;               /* next call in cg->calls */
	uint32_t site_end;           /* the end of the profile's calls */
	uint64_t off;
} dstate;
/* copy-lines.c: whether block state @p s's part can be copied into the
 * copy's output (its positions and columns are the output's); the cost
 * lines outside calls from *@p qp as one run to the copy, while they can
 * be copied as they stand (*qp left at the first line not read;
 * CG_NOT_COPIED when it is the first), their costs summed; the cost line
 * of a call [@p p, @p eol] (read by the fast path, s->pos its position,
 * @p from the one before) to the copy with call @p i. */
int profdb__cg_copy_fits(const dstate *s);
int profdb__cg_copy_run(dstate *s, const char **qp, const char *lim);
int profdb__cg_copy_call(dstate *s, const char *p, const char *eol, const uint64_t from[CG_NPOS],
                         uint32_t i);
/* The bytes @p d holds, for a cache of details to bound itself. */
size_t profdb__cg_detail_room(const profdb_cg_detail *d);
/* The reader @p d was decoded from (its name table). */
const profdb_cg *profdb__cg_detail_cg(const profdb_cg_detail *d);

#endif
