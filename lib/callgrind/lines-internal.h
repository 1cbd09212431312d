/* Line and instruction contexts of the common model (lines.c): the
 * children of a function context, one per position (file, line,
 * instruction) where the function has a non-zero self cost. They stay in
 * the text until asked for: a function's rows are decoded on first use
 * (the detail of each profile, merged) and kept in a bounded cache that
 * any number of threads read without a lock or an atomic write (lines.c,
 * line-cache.c).
 *
 * Ids. Function f owns the id range [base[f], base[f + 1]), as wide as the
 * number of its cost lines (an upper bound on its rows, counted by the
 * scanner), so ids are fixed at open without decoding anything; row k of f
 * has id base[f] + k and the rest of the range is unused. */
#ifndef PROFDB_CALLGRIND_LINES_H
#define PROFDB_CALLGRIND_LINES_H

#include "callgrind-internal.h"
#include "line-cache-internal.h"

typedef struct cg_lines cg_lines;

/* One row of a function. */
typedef struct cgl_row {
	uint32_t fn, k;         /* owner, index among its rows */
	uint32_t src;           /* file: a name index */
	uint64_t line, instr;
	int has_instr;          /* a profile of the function has an instr column */
	int last;               /* k is the function's last row */
} cgl_row;

/* NULL in *out when the ids do not fit in 32 bits (a warning says so):
 * the functions then have no line children. */
int profdb__cgl_new(cg_lines **out, const profdb_cg *cg);
void profdb__cgl_free(cg_lines *l);

/* The first row id of function @p fn, or PROFDB_NONE when it has no row
 * (its self cost is zero everywhere). No decoding. */
uint32_t profdb__cgl_first_child(const cg_lines *l, uint32_t fn);
/* Function @p fn's place in the cache asked for ahead of a read of its
 * rows: a walk gets a function's context (reading ahead, tool/walk.c)
 * before its first line, whose read would otherwise wait for it. */
void profdb__cgl_prefetch(const cg_lines *l, uint32_t fn);
/* The function owning id @p id (no decoding) and the index of @p id in
 * its range: 0, or -ENOENT when no function's range holds it. */
int profdb__cgl_owner(const cg_lines *l, uint32_t id, uint32_t *fn, uint32_t *k);
/* The row with id @p id: 0, or -ENOENT (no such id), -EBADMSG, -ENOMEM. */
int profdb__cgl_row(cg_lines *l, uint32_t id, cgl_row *out);
/* Self cost of row @p id in profile @p p (n_events values, derived events
 * included): 1 stored, 0 absent (zeros), < 0 error. */
int profdb__cgl_cost(cg_lines *l, uint32_t id, uint32_t p, uint64_t *out);
/* Event @p e of that cost alone (0 when the profile stores none). */
int profdb__cgl_value(cg_lines *l, uint32_t id, uint32_t p, uint32_t e, uint64_t *out);
/* Row ids and non-zero (profile, row, event) values of every function:
 * decodes them all once. */
int profdb__cgl_totals(cg_lines *l, uint64_t *rows, uint64_t *values);
/* The first row id after @p id in id order (PROFDB_NONE at the end), for
 * cursors. @p p: only functions present in profile p (PROFDB_CG_ALL: all). */
int profdb__cgl_next_id(cg_lines *l, uint32_t id, uint32_t p, uint32_t *next);

/* What the cache holds now (bytes, entries) and its budget, for tests. */
void profdb__cgl_usage(cg_lines *l, uint64_t *bytes, uint64_t *budget, uint64_t *entries);

/* For tests: a read from the cache in its two halves, as a reader held up
 * between them does it. profdb__cgl_snap() takes the slot of function
 * @p fn: 1, or 0 when its entry is not in the cache. profdb__cgl_snap_row()
 * reads row @p k of that entry, where it was, and with @p check keeps it
 * only if the slot has not changed since: 1 (*out set), or 0. */
int profdb__cgl_snap(const cg_lines *l, uint32_t fn, cgl_snap *s);
int profdb__cgl_snap_row(const cg_lines *l, const cgl_snap *s, uint32_t k, int check,
                         cgl_row *out);

/* Every row of function @p fn, decoded for this call (not cached, so a
 * walk over all functions leaves the cache as it was): @p visit gets the
 * row's id, position and stored costs (n profiles, ascending; n x
 * n_events costs); a negative return stops the walk and is returned.
 * 0 when done (also when the function has no row). */
typedef int (*cgl_visit_fn)(void *ud, uint32_t id, const cgl_row *row, uint32_t n,
                            const uint32_t *profiles, const uint64_t *costs);
int profdb__cgl_each(const cg_lines *l, uint32_t fn, cgl_visit_fn visit, void *ud);

/* detail.c: row @p i of a detail, its file as a name index (rows are
 * sorted by line, instruction, file index). */
void profdb__cg_detail_row(const profdb_cg_detail *d, uint32_t i, uint32_t *src,
                           uint64_t *line, uint64_t *instr, const uint64_t **self);

/* detail.c: the line rows of function @p fn in the profile of block
 * *blk (no call sites, no jumps), from the run of that profile's blocks
 * starting at *blk (O(run), unlike profdb_cg_detail_new(), which walks the
 * whole list); *blk becomes the first block of the next profile, or
 * CG_EMPTY. */
int profdb__cg_detail_run(const profdb_cg *cg, uint32_t fn, uint32_t *blk,
                          profdb_cg_detail **ret);

#endif
