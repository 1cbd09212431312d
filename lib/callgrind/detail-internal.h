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
/* The bytes @p d holds, for a cache of details to bound itself. */
size_t profdb__cg_detail_room(const profdb_cg_detail *d);
/* The reader @p d was decoded from (its name table). */
const profdb_cg *profdb__cg_detail_cg(const profdb_cg_detail *d);

#endif
