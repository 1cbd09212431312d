/* The hpcrun trace file (.hpctrace 01.00/01.01), read by lib/hpcrun (one
 * file per thread) and lib/hpctkpre (the traces of old experiment.xml
 * databases, loose or packed into experiment.mt): doc/FORMATS.md,
 * ".hpctrace 01.01". Every integer is big-endian.
 *
 * A 24-byte header ("HPCRUN-trace______", "01.0x", 'b'), from 01.01 on a
 * u64 flags word, then records to the end of the trace: u64 time, u32 CCT
 * node id (hpcrun) or `it` id (experiment.xml), and a u32 metric id when
 * flags bit 0 (DATA_CENTRIC) is set. No footer. */
#ifndef PROFDB_CORE_HPCTRACE_H
#define PROFDB_CORE_HPCTRACE_H

#include "core-internal.h"
#include "layout-internal.h"

#define PROFDB_HPCTRACE_MAGIC "HPCRUN-trace______"
enum {
	PROFDB_HPCTRACE_MAGIC_LEN = 18,
	PROFDB_HPCTRACE_VERSION = 18,      /* "01.0x" */
	PROFDB_HPCTRACE_ENDIAN = 23,       /* 'b' */
	PROFDB_HPCTRACE_HDR = 24,          /* 01.00 */
	PROFDB_HPCTRACE_FLAGS = 24,        /* u64, from 01.01 on */
	PROFDB_HPCTRACE_HDR_FLAGS = 32,    /* 01.01 */
	PROFDB_HPCTRACE_REC = 12,          /* {time, id} */
	PROFDB_HPCTRACE_REC_METRIC = 16,   /* {time, id, metric}, DATA_CENTRIC */
	PROFDB_HPCTRACE_REC_TIME = 0,
	PROFDB_HPCTRACE_REC_ID = 8,
	PROFDB_HPCTRACE_REC_METRIC_ID = 12,
	PROFDB_HPCTRACE_DATA_CENTRIC = 1,
	PROFDB_HPCTRACE_KNOWN_FLAGS = 7    /* DATA_CENTRIC, LCA_RECORDED, CALL_TRACE */
};
_Static_assert(PROFDB_HPCTRACE_MAGIC_LEN == sizeof PROFDB_HPCTRACE_MAGIC - 1, "hpctrace magic");
_Static_assert(PROFDB_HPCTRACE_VERSION + 5 == PROFDB_HPCTRACE_ENDIAN &&
               PROFDB_HPCTRACE_ENDIAN + 1 == PROFDB_HPCTRACE_HDR, "hpctrace header is 24 bytes");
PROFDB_FIELD_BE(profdb__hpctrace_flags, PROFDB_HPCTRACE_HDR_FLAGS, PROFDB_HPCTRACE_FLAGS, 64)
PROFDB_FIELD_BE(profdb__hpctrace_time, PROFDB_HPCTRACE_REC, PROFDB_HPCTRACE_REC_TIME, 64)
PROFDB_FIELD_BE(profdb__hpctrace_id, PROFDB_HPCTRACE_REC, PROFDB_HPCTRACE_REC_ID, 32)
PROFDB_FIELD_BE(profdb__hpctrace_metric, PROFDB_HPCTRACE_REC_METRIC,
                PROFDB_HPCTRACE_REC_METRIC_ID, 32)

/* The records of one trace: [rec_off, rec_off + count * rec_size) of its
 * file. */
typedef struct profdb__hpctrace {
	uint64_t flags;       /* the 01.01 flags word; 0 in 01.00 */
	uint64_t rec_off, count;
	uint32_t rec_size;    /* PROFDB_HPCTRACE_REC, or _REC_METRIC with DATA_CENTRIC */
} profdb__hpctrace;

/* The records of the trace whose header starts at @p off of @p in and whose
 * records end at @p end (<= in->size). The caller has checked the magic and
 * the version; @p has_flags is 1 for 01.01 and later (a flags word follows
 * the header). Unknown flag bits are warned about (the records are read as
 * the DATA_CENTRIC bit says); a partial last record is -ENODATA naming its
 * offset, or in tolerant mode a warning and a trace without it. */
int profdb__hpctrace_records(const profdb__input *in, const profdb_options *opts, uint64_t off,
                             uint64_t end, int has_flags, profdb__hpctrace *out);

#endif
