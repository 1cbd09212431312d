/* detail.c, for the Callgrind writer (query-native.c): details decoded
 * in recycled memory, and the names of a detail's call sites and jumps
 * as name indexes (profdb_cg->names), for the writer's tables keyed by
 * them (the rows' files: profdb__cg_detail_row(), lines-internal.h).
 * @p i is below the count of its kind. */
#ifndef PROFDB_CALLGRIND_DETAIL_INTERNAL_H
#define PROFDB_CALLGRIND_DETAIL_INTERNAL_H

#include "callgrind-internal.h"

/* profdb_cg_detail_new(), in the memory of @p old (a detail the caller
 * gives up, freed if need be; NULL: none): a writer that decodes every
 * function in turn allocates its rows once. */
int profdb__cg_detail_renew(profdb_cg_detail **ret, const profdb_cg *cg, uint32_t profile,
                            uint32_t fn, profdb_cg_detail *old);
/* The bytes @p d holds, for a cache of details to bound itself. */
size_t profdb__cg_detail_room(const profdb_cg_detail *d);
/* The reader @p d was decoded from (its name table). */
const profdb_cg *profdb__cg_detail_cg(const profdb_cg_detail *d);
/* Call site @p i's file (the caller's current file there). */
uint32_t profdb__cg_detail_call_src(const profdb_cg_detail *d, uint32_t i);
/* Jump @p i's target file and function. */
void profdb__cg_detail_jump_names(const profdb_cg_detail *d, uint32_t i, uint32_t *file,
                                  uint32_t *fn);

#endif
