/* The on-disk layouts of the pre-release HPCPROF-* files, the draft
 * HPCTOOLKIT_expmt meta.db and the binary files of old experiment.xml
 * databases (.metric-db records, the packed experiment-N.mdb and
 * experiment.mt), declared the way lib/core/layout-internal.h says: record
 * sizes as enums, one checked accessor per field. Every integer and f64 is
 * big-endian. The offsets are those of doc/FORMATS.md, "Pre-release
 * databases and the draft meta.db" ("Layout as read" and "The draft
 * HPCTOOLKIT_expmt meta.db") and "Old experiment.xml databases": the files
 * as hpcprof really wrote them, which differ from the pre-release document
 * where that section's table says so. The hpcrun traces of old databases
 * are lib/core/hpctrace-internal.h's.
 *
 * An accessor takes a pointer to the start of its record; the caller has
 * checked that the whole record (its size) lies inside the file. */
#ifndef PROFDB_HPCTKPRE_LAYOUT_INTERNAL_H
#define PROFDB_HPCTKPRE_LAYOUT_INTERNAL_H

#include "../core/layout-internal.h"

#define PRE_FIELD(name, size, off, bits) PROFDB_FIELD_BE(name, size, off, bits)

/* ---- the common .db header (profile.db, cct.db, trace.db) --------------- */
/* magic[16] @0, u8 major @0x10, u8 minor @0x11, u32 count @0x12 (profiles,
 * contexts or traces), u16 num_sec @0x16, then per section {u64 size,
 * u64 offset} from 0x18. trace.db adds min_ts/max_ts after its one section. */
enum {
	PRE_DB_MAGIC_SIZE = 16,
	PRE_DB_HDR = 0x18,           /* the part every .db header has */
	PRE_PROFILE_HDR_SIZE = 0x38, /* two sections */
	PRE_CCT_HDR_SIZE = 0x28,     /* one section */
	PRE_TRACE_HDR_SIZE = 0x38    /* one section + min_ts, max_ts */
};
PRE_FIELD(pre_db_major, PRE_DB_HDR, 0x10, 8)
PRE_FIELD(pre_db_minor, PRE_DB_HDR, 0x11, 8)
PRE_FIELD(pre_db_count, PRE_DB_HDR, 0x12, 32)
PRE_FIELD(pre_db_num_sec, PRE_DB_HDR, 0x16, 16)
PRE_FIELD(pre_db_sec0_size, PRE_CCT_HDR_SIZE, 0x18, 64)
PRE_FIELD(pre_db_sec0_off, PRE_CCT_HDR_SIZE, 0x20, 64)
PRE_FIELD(pre_profile_sec1_size, PRE_PROFILE_HDR_SIZE, 0x28, 64)
PRE_FIELD(pre_profile_sec1_off, PRE_PROFILE_HDR_SIZE, 0x30, 64)
PRE_FIELD(pre_trace_min_ts, PRE_TRACE_HDR_SIZE, 0x28, 64)
PRE_FIELD(pre_trace_max_ts, PRE_TRACE_HDR_SIZE, 0x30, 64)
_Static_assert(0x30 + 8 == PRE_PROFILE_HDR_SIZE, "profile.db header ends after section 1");
_Static_assert(0x20 + 8 == PRE_CCT_HDR_SIZE, "cct.db header ends after section 0");
_Static_assert(0x30 + 8 == PRE_TRACE_HDR_SIZE, "trace.db header ends after max_ts");

/* ---- profile.db ----------------------------------------------------------- */
/* ProfileInfo (packed): idtuple_ptr @0, three reserved pointers,
 * num_vals u64 @0x20, num_nzctxs u32 @0x28, block_off u64 @0x2c. */
enum { PRE_PI_SIZE = 52 };
PRE_FIELD(pre_pi_idtuple, PRE_PI_SIZE, 0x00, 64)
PRE_FIELD(pre_pi_num_vals, PRE_PI_SIZE, 0x20, 64)
PRE_FIELD(pre_pi_num_nzctxs, PRE_PI_SIZE, 0x28, 32)
PRE_FIELD(pre_pi_block_off, PRE_PI_SIZE, 0x2c, 64)
_Static_assert(0x2c + 8 == PRE_PI_SIZE, "ProfileInfo is 52 bytes");

/* Identifier tuple: u16 length, then {u16 kind, u64 physical, u64 logical}. */
enum { PRE_IDT_HEAD = 2, PRE_IDT_ELEM = 18 };
PRE_FIELD(pre_idt_length, PRE_IDT_HEAD, 0x00, 16)
PRE_FIELD(pre_id_kind, PRE_IDT_ELEM, 0x00, 16)
PRE_FIELD(pre_id_physical, PRE_IDT_ELEM, 0x02, 64)
PRE_FIELD(pre_id_logical, PRE_IDT_ELEM, 0x0a, 64)
_Static_assert(0x0a + 8 == PRE_IDT_ELEM, "identifier is 18 bytes");

/* Value block: num_vals x {f64 value, u16 metric}, then num_nzctxs + 1 x
 * {u32 ctx, u64 first value}; the last pair is {"end!", num_vals}. The
 * offsets are named too: the blocks are handed out as views. */
enum {
	PRE_PVAL = 10, PRE_PVAL_VALUE = 0, PRE_PVAL_METRIC = 8,
	PRE_PIDX = 12, PRE_PIDX_CTX = 0, PRE_PIDX_START = 4
};
#define PRE_PEND 0x656E6421u   /* "end!" */
PRE_FIELD(pre_pval_bits, PRE_PVAL, PRE_PVAL_VALUE, 64)
PRE_FIELD(pre_pval_metric, PRE_PVAL, PRE_PVAL_METRIC, 16)
PRE_FIELD(pre_pidx_ctx, PRE_PIDX, PRE_PIDX_CTX, 32)
PRE_FIELD(pre_pidx_start, PRE_PIDX, PRE_PIDX_START, 64)
_Static_assert(PRE_PVAL_METRIC + 2 == PRE_PVAL, "profile value pair is 10 bytes");
_Static_assert(PRE_PIDX_START + 8 == PRE_PIDX, "profile index pair is 12 bytes");

/* ---- cct.db --------------------------------------------------------------- */
/* CtxInfo: ctx_id u32 @0 (equals its index), num_vals u64 @4, num_nzmids
 * u16 @0x0c, block_off u64 @0x0e. */
enum { PRE_CI_SIZE = 22 };
PRE_FIELD(pre_ci_ctx_id, PRE_CI_SIZE, 0x00, 32)
PRE_FIELD(pre_ci_num_vals, PRE_CI_SIZE, 0x04, 64)
PRE_FIELD(pre_ci_num_nzmids, PRE_CI_SIZE, 0x0c, 16)
PRE_FIELD(pre_ci_block_off, PRE_CI_SIZE, 0x0e, 64)
_Static_assert(0x0e + 8 == PRE_CI_SIZE, "CtxInfo is 22 bytes");

/* Value block: num_vals x {f64 value, u32 profile}, then num_nzmids + 1 x
 * {u16 metric, u64 first value}; the last pair is {"ed", num_vals}. */
enum {
	PRE_CVAL = 12, PRE_CVAL_VALUE = 0, PRE_CVAL_PROFILE = 8,
	PRE_CIDX = 10, PRE_CIDX_METRIC = 0, PRE_CIDX_START = 2
};
#define PRE_CEND 0x6564u       /* "ed" */
PRE_FIELD(pre_cval_bits, PRE_CVAL, PRE_CVAL_VALUE, 64)
PRE_FIELD(pre_cval_profile, PRE_CVAL, PRE_CVAL_PROFILE, 32)
PRE_FIELD(pre_cidx_metric, PRE_CIDX, PRE_CIDX_METRIC, 16)
PRE_FIELD(pre_cidx_start, PRE_CIDX, PRE_CIDX_START, 64)
_Static_assert(PRE_CVAL_PROFILE + 4 == PRE_CVAL, "cct value pair is 12 bytes");
_Static_assert(PRE_CIDX_START + 8 == PRE_CIDX, "cct index pair is 10 bytes");

/* ---- trace.db ------------------------------------------------------------- */
/* TraceHeader: prof_info_idx u32 @0, type u16 @4, start u64 @6, end u64
 * @0x0e. A sample is {u64 time ns, u32 ctx id}. */
enum { PRE_TH_SIZE = 22, PRE_SAMPLE = 12, PRE_SAMPLE_TIME = 0, PRE_SAMPLE_CTX = 8 };
PRE_FIELD(pre_th_profile, PRE_TH_SIZE, 0x00, 32)
PRE_FIELD(pre_th_type, PRE_TH_SIZE, 0x04, 16)
PRE_FIELD(pre_th_start, PRE_TH_SIZE, 0x06, 64)
PRE_FIELD(pre_th_end, PRE_TH_SIZE, 0x0e, 64)
_Static_assert(0x0e + 8 == PRE_TH_SIZE, "TraceHeader is 22 bytes");
PRE_FIELD(pre_sample_time, PRE_SAMPLE, PRE_SAMPLE_TIME, 64)
PRE_FIELD(pre_sample_ctx, PRE_SAMPLE, PRE_SAMPLE_CTX, 32)
_Static_assert(PRE_SAMPLE_CTX + 4 == PRE_SAMPLE, "trace sample is 12 bytes");

/* ---- draft HPCTOOLKIT_expmt meta.db ------------------------------------- */
/* Header: magic[16], u8 major @0x10, u8 minor @0x11, u16 num_sec @0x12,
 * then num_sec x {u64 size, u64 offset} from 0x18. */
enum { PRE_DRAFT_HDR_SIZE = 0x18, PRE_DRAFT_SEC_SIZE = 16 };
PRE_FIELD(pre_draft_major, PRE_DRAFT_HDR_SIZE, 0x10, 8)
PRE_FIELD(pre_draft_minor, PRE_DRAFT_HDR_SIZE, 0x11, 8)
PRE_FIELD(pre_draft_num_sec, PRE_DRAFT_HDR_SIZE, 0x12, 16)
PRE_FIELD(pre_draft_sec_size, PRE_DRAFT_SEC_SIZE, 0x00, 64)
PRE_FIELD(pre_draft_sec_off, PRE_DRAFT_SEC_SIZE, 0x08, 64)
_Static_assert(0x12 + 2 + 4 == PRE_DRAFT_HDR_SIZE, "draft header: 4 reserved bytes at 0x14");

/* Identifier-kind section: u16 count, then NUL-terminated names. Metric
 * section: u32 count, then packed records: metric {u16 num_scopes, NUL
 * name, scopes}; scope {u16 raw id, u16 num_summaries, NUL scope name,
 * summaries}; summary {u16 id, u8 combine, NUL formula}. Context section:
 * u64 size of the root sibling block, then the block. */
enum {
	PRE_IDKINDS_HEAD = 2, PRE_METRICS_HEAD = 4, PRE_CONTEXTS_HEAD = 8,
	PRE_METRIC_HEAD = 2, PRE_SCOPE_HEAD = 4, PRE_SUMMARY_HEAD = 3
};
PRE_FIELD(pre_idkinds_count, PRE_IDKINDS_HEAD, 0x00, 16)
PRE_FIELD(pre_metrics_count, PRE_METRICS_HEAD, 0x00, 32)
PRE_FIELD(pre_contexts_root_size, PRE_CONTEXTS_HEAD, 0x00, 64)
PRE_FIELD(pre_metric_num_scopes, PRE_METRIC_HEAD, 0x00, 16)
PRE_FIELD(pre_scope_raw_id, PRE_SCOPE_HEAD, 0x00, 16)
PRE_FIELD(pre_scope_num_summaries, PRE_SCOPE_HEAD, 0x02, 16)
PRE_FIELD(pre_summary_id, PRE_SUMMARY_HEAD, 0x00, 16)
PRE_FIELD(pre_summary_combine, PRE_SUMMARY_HEAD, 0x02, 8)

/* Binaries, files, functions: u32 count, u16 record size, records.
 * Binary and file specs: {u32 flags, u64 path}; function specs: {u32
 * flags, u64 name, u64 binary, ...} (>= 40 bytes). */
enum { PRE_ARRAY_HEAD = 6, PRE_SPEC_MIN = 12, PRE_FUNC_MIN = 40 };
PRE_FIELD(pre_array_count, PRE_ARRAY_HEAD, 0x00, 32)
PRE_FIELD(pre_array_stride, PRE_ARRAY_HEAD, 0x04, 16)
PRE_FIELD(pre_spec_name, PRE_SPEC_MIN, 0x04, 64)
PRE_FIELD(pre_func_binary, PRE_FUNC_MIN, 0x0c, 64)
_Static_assert(0x04 + 8 == PRE_SPEC_MIN, "binary/file spec is at least 12 bytes");

/* Context node: u32 id @0, u64 children offset @4, u64 children size @0x0c,
 * u8 callee size @0x14, u8 lexical size @0x15, then the two specs. Callee
 * spec: u8 @0, u8 flags @1, {u64 file, u32 line} @2 when flags & 1.
 * Lexical spec: u8 type @0, u16 flags @1, then function (8, flags & 1),
 * {file, line} (12, flags & 2), {binary, offset} (16, flags & 4). */
enum {
	PRE_NODE_SIZE = 22,
	PRE_CALLEE_HEAD = 2, PRE_CALLEE_LINE = 14,   /* without / with {file, line} */
	PRE_LEX_HEAD = 3,
	PRE_LEX_FUNCTION = 8, PRE_LEX_LINE = 12, PRE_LEX_ADDRESS = 16
};
PRE_FIELD(pre_node_id, PRE_NODE_SIZE, 0x00, 32)
PRE_FIELD(pre_node_child_off, PRE_NODE_SIZE, 0x04, 64)
PRE_FIELD(pre_node_child_size, PRE_NODE_SIZE, 0x0c, 64)
PRE_FIELD(pre_node_callee_size, PRE_NODE_SIZE, 0x14, 8)
PRE_FIELD(pre_node_lexical_size, PRE_NODE_SIZE, 0x15, 8)
_Static_assert(0x15 + 1 == PRE_NODE_SIZE, "context node head is 22 bytes");
PRE_FIELD(pre_callee_flags, PRE_CALLEE_HEAD, 0x01, 8)
PRE_FIELD(pre_callee_file, PRE_CALLEE_LINE, 0x02, 64)
PRE_FIELD(pre_callee_line, PRE_CALLEE_LINE, 0x0a, 32)
_Static_assert(0x0a + 4 == PRE_CALLEE_LINE, "callee spec with a line is 14 bytes");
PRE_FIELD(pre_lex_type, PRE_LEX_HEAD, 0x00, 8)
PRE_FIELD(pre_lex_flags, PRE_LEX_HEAD, 0x01, 16)
PRE_FIELD(pre_lex_function, PRE_LEX_FUNCTION, 0x00, 64)
PRE_FIELD(pre_lex_file, PRE_LEX_LINE, 0x00, 64)
PRE_FIELD(pre_lex_line, PRE_LEX_LINE, 0x08, 32)
PRE_FIELD(pre_lex_binary, PRE_LEX_ADDRESS, 0x00, 64)
PRE_FIELD(pre_lex_offset, PRE_LEX_ADDRESS, 0x08, 64)
_Static_assert(0x08 + 4 == PRE_LEX_LINE && 0x08 + 8 == PRE_LEX_ADDRESS,
               "lexical {file, line} is 12 bytes, {binary, offset} 16");

/* ---- old experiment.xml databases ---------------------------------------- */
/* .metric-db record: magic[18] "HPCPROF-metricdb__", "00.10" 'b', u32 rows
 * @24, u32 metrics @28, then rows x metrics f64. */
#define PRE_MDB_MAGIC "HPCPROF-metricdb__"
#define PRE_MDB_VERSION "00.10"
enum { PRE_MDB_MAGIC_LEN = 18, PRE_MDB_ENDIAN = 23, PRE_MDB_HDR = 32 };
PRE_FIELD(pre_mdb_rows, PRE_MDB_HDR, 24, 32)
PRE_FIELD(pre_mdb_metrics, PRE_MDB_HDR, 28, 32)
_Static_assert(PRE_MDB_MAGIC_LEN == sizeof PRE_MDB_MAGIC - 1 &&
               PRE_MDB_MAGIC_LEN + sizeof PRE_MDB_VERSION - 1 == PRE_MDB_ENDIAN,
               "metric-db magic, version, 'b'");

/* A packed file, experiment-N.mdb (metric-db records) or experiment.mt
 * (hpcrun traces), as hpcserver's merger writes both: u32 kind @0, u32
 * count @4, count x {u32 rank, u32 thread, u64 offset of the record}, the
 * records, and the 8-byte end marker. */
#define PRE_PACK_MARKER UINT64_C(0xffffffffdeadf00d)
enum { PRE_PACK_HDR = 8, PRE_PACK_ENTRY = 16, PRE_PACK_END = 8 };
PRE_FIELD(pre_pack_count, PRE_PACK_HDR, 4, 32)
PRE_FIELD(pre_pack_rank, PRE_PACK_ENTRY, 0, 32)
PRE_FIELD(pre_pack_thread, PRE_PACK_ENTRY, 4, 32)
PRE_FIELD(pre_pack_offset, PRE_PACK_ENTRY, 8, 64)
PRE_FIELD(pre_pack_marker, PRE_PACK_END, 0, 64)

#endif
