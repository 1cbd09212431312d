/* The old experiment.xml databases in the common query interface: the
 * parts of the pre-release backend (query.c) that differ, profiles and
 * values (query-old.c). Profile 0 is the summary experiment.xml prints,
 * profile k the k-th .metric-db record (sorted by rank, thread). */
#ifndef PROFDB_HPCTKPRE_QUERY_OLD_INTERNAL_H
#define PROFDB_HPCTKPRE_QUERY_OLD_INTERNAL_H

#include "hpctkpre-internal.h"
#include "../core/backend-internal.h"

/* Model context ids: a stored id, or for an XML call site's negative id -n
 * 0x80000000 | n (the .db files never use such ids). */
#define PRE_NEG_FLAG 0x80000000u
static inline uint32_t profdb__pre_ctx_model_id(int64_t stored)
{
	return stored >= 0 ? (uint32_t)stored : PRE_NEG_FLAG | (uint32_t)(-stored);
}

int64_t profdb__pre_old_profile_count(const profdb_hpctkpre *db);
int profdb__pre_old_profile_get(const profdb_hpctkpre *db, uint32_t index, profdb_profile *out);
int profdb__pre_old_identity(const profdb_hpctkpre *db, uint32_t index, uint32_t i,
                             profdb_str *kind, uint64_t *value);
/* Stored values in scan order; summary metric ids plus @p shift. */
int profdb__pre_old_cursor_next(const profdb_hpctkpre *db, profdb__cursor *cur, uint32_t shift,
                                profdb_entry *out);
/* The traces: the backend's trace_length, trace_at and trace_seek. */
int64_t profdb__pre_old_trace_length(const profdb_hpctkpre *db, uint32_t p);
int profdb__pre_old_trace_at(const profdb_hpctkpre *db, uint32_t p, uint64_t i,
                             profdb_sample *out);
int profdb__pre_old_trace_seek(const profdb_hpctkpre *db, uint32_t p, uint64_t time,
                               uint64_t *index);
/* How many traces there are (damaged ones read as empty in tolerant
 * mode included) and their samples, every trace checked: 0 or < 0. */
int profdb__pre_old_trace_counts(const profdb_hpctkpre *db, int64_t *traces, int64_t *samples);
/* How many values are stored (the non-zero cells and the printed ones). */
int64_t profdb__pre_old_value_count(const profdb_hpctkpre *db);

#endif
