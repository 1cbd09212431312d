/* The on-disk layouts of the pre-release HPCPROF-* files and the draft
 * HPCTOOLKIT_expmt meta.db, as named field accessors. Every integer and f64
 * is big-endian. The offsets are those of doc/FORMATS.md, "Pre-release
 * databases and the draft meta.db" ("Layout as read" and "The draft
 * HPCTOOLKIT_expmt meta.db"): the files as hpcprof really wrote them, which
 * differ from the pre-release document where that section's table says so.
 *
 * An accessor takes a pointer to the start of its record; the caller has
 * checked that the whole record (its *_SIZE bytes) lies inside the file. */
#ifndef PROFDB_HPCTKPRE_LAYOUT_INTERNAL_H
#define PROFDB_HPCTKPRE_LAYOUT_INTERNAL_H

#include "../core/bytes-internal.h"

/* ---- the common .db header (profile.db, cct.db, trace.db) --------------- */
/* magic[16] @0, u8 major @0x10, u8 minor @0x11, u32 count @0x12 (profiles,
 * contexts or traces), u16 num_sec @0x16, then per section {u64 size,
 * u64 offset} from 0x18. trace.db adds min_ts/max_ts after its one section. */
#define PRE_DB_MAGIC_SIZE 16u
#define pre_db_major(h) ((h)[0x10])
#define pre_db_minor(h) ((h)[0x11])
#define pre_db_count(h) profdb__be32((h) + 0x12)
#define pre_db_num_sec(h) profdb__be16((h) + 0x16)
#define pre_db_sec_size(h, k) profdb__be64((h) + 0x18 + 16u * (k))
#define pre_db_sec_off(h, k) profdb__be64((h) + 0x20 + 16u * (k))
#define PRE_PROFILE_HDR_SIZE 0x38u   /* two sections */
#define PRE_CCT_HDR_SIZE 0x28u       /* one section */
#define PRE_TRACE_HDR_SIZE 0x38u     /* one section + min_ts, max_ts */
#define pre_trace_min_ts(h) profdb__be64((h) + 0x28)
#define pre_trace_max_ts(h) profdb__be64((h) + 0x30)
_Static_assert(0x20 + 16u * 1 + 8 == PRE_PROFILE_HDR_SIZE, "profile.db header: 2 sections");
_Static_assert(0x20 + 8 == PRE_CCT_HDR_SIZE, "cct.db header: 1 section");
_Static_assert(0x30 + 8 == PRE_TRACE_HDR_SIZE, "trace.db header ends after max_ts");

/* ---- profile.db ----------------------------------------------------------- */
/* ProfileInfo (packed): idtuple_ptr @0, three reserved pointers,
 * num_vals u64 @0x20, num_nzctxs u32 @0x28, block_off u64 @0x2c. */
#define PRE_PI_SIZE 52u
#define pre_pi_idtuple(p) profdb__be64((p) + 0x00)
#define pre_pi_num_vals(p) profdb__be64((p) + 0x20)
#define pre_pi_num_nzctxs(p) profdb__be32((p) + 0x28)
#define pre_pi_block_off(p) profdb__be64((p) + 0x2c)
_Static_assert(0x2c + 8 == PRE_PI_SIZE, "ProfileInfo is 52 bytes");

/* Identifier tuple: u16 length, then {u16 kind, u64 physical, u64 logical}. */
#define PRE_IDT_HEAD 2u
#define PRE_IDT_ELEM 18u
#define pre_idt_length(p) profdb__be16(p)
#define pre_id_kind(e) profdb__be16((e) + 0x00)
#define pre_id_physical(e) profdb__be64((e) + 0x02)
#define pre_id_logical(e) profdb__be64((e) + 0x0a)
_Static_assert(0x0a + 8 == PRE_IDT_ELEM, "identifier is 18 bytes");

/* Value block: num_vals x {f64 value, u16 metric}, then num_nzctxs + 1 x
 * {u32 ctx, u64 first value}; the last pair is {"end!", num_vals}. */
#define PRE_PVAL 10u
#define PRE_PVAL_VALUE 0u
#define PRE_PVAL_METRIC 8u
#define PRE_PIDX 12u
#define PRE_PIDX_CTX 0u
#define PRE_PIDX_START 4u
#define PRE_PEND 0x656E6421u   /* "end!" */
_Static_assert(PRE_PVAL_METRIC + 2 == PRE_PVAL, "profile value pair is 10 bytes");
_Static_assert(PRE_PIDX_START + 8 == PRE_PIDX, "profile index pair is 12 bytes");

/* ---- cct.db --------------------------------------------------------------- */
/* CtxInfo: ctx_id u32 @0 (equals its index), num_vals u64 @4, num_nzmids
 * u16 @0x0c, block_off u64 @0x0e. */
#define PRE_CI_SIZE 22u
#define pre_ci_ctx_id(p) profdb__be32((p) + 0x00)
#define pre_ci_num_vals(p) profdb__be64((p) + 0x04)
#define pre_ci_num_nzmids(p) profdb__be16((p) + 0x0c)
#define pre_ci_block_off(p) profdb__be64((p) + 0x0e)
_Static_assert(0x0e + 8 == PRE_CI_SIZE, "CtxInfo is 22 bytes");

/* Value block: num_vals x {f64 value, u32 profile}, then num_nzmids + 1 x
 * {u16 metric, u64 first value}; the last pair is {"ed", num_vals}. */
#define PRE_CVAL 12u
#define PRE_CVAL_VALUE 0u
#define PRE_CVAL_PROFILE 8u
#define PRE_CIDX 10u
#define PRE_CIDX_METRIC 0u
#define PRE_CIDX_START 2u
#define PRE_CEND 0x6564u       /* "ed" */
_Static_assert(PRE_CVAL_PROFILE + 4 == PRE_CVAL, "cct value pair is 12 bytes");
_Static_assert(PRE_CIDX_START + 8 == PRE_CIDX, "cct index pair is 10 bytes");

/* ---- trace.db ------------------------------------------------------------- */
/* TraceHeader: prof_info_idx u32 @0, type u16 @4, start u64 @6, end u64
 * @0x0e. A sample is {u64 time ns, u32 ctx id}. */
#define PRE_TH_SIZE 22u
#define pre_th_profile(p) profdb__be32((p) + 0x00)
#define pre_th_type(p) profdb__be16((p) + 0x04)
#define pre_th_start(p) profdb__be64((p) + 0x06)
#define pre_th_end(p) profdb__be64((p) + 0x0e)
_Static_assert(0x0e + 8 == PRE_TH_SIZE, "TraceHeader is 22 bytes");
#define PRE_SAMPLE 12u
#define PRE_SAMPLE_TIME 0u
#define PRE_SAMPLE_CTX 8u
_Static_assert(PRE_SAMPLE_CTX + 4 == PRE_SAMPLE, "trace sample is 12 bytes");

/* ---- draft HPCTOOLKIT_expmt meta.db ------------------------------------- */
/* Header: magic[16], u8 major @0x10, u8 minor @0x11, u16 num_sec @0x12,
 * then num_sec x {u64 size, u64 offset} from 0x18. */
#define PRE_DRAFT_HDR_SIZE 0x18u
#define PRE_DRAFT_SEC_SIZE 16u
#define pre_draft_major(h) ((h)[0x10])
#define pre_draft_minor(h) ((h)[0x11])
#define pre_draft_num_sec(h) profdb__be16((h) + 0x12)
#define pre_draft_sec_size(s) profdb__be64((s) + 0x00)
#define pre_draft_sec_off(s) profdb__be64((s) + 0x08)
_Static_assert(0x12 + 2 + 4 == PRE_DRAFT_HDR_SIZE, "draft header: 4 reserved bytes at 0x14");

/* Metric section: u32 count, then packed records: metric {u16 num_scopes,
 * NUL name, scopes}; scope {u16 raw id, u16 num_summaries, NUL scope name,
 * summaries}; summary {u16 id, u8 combine, NUL formula}. */
#define PRE_METRIC_HEAD 2u
#define pre_metric_num_scopes(p) profdb__be16(p)
#define PRE_SCOPE_HEAD 4u
#define pre_scope_raw_id(p) profdb__be16((p) + 0x00)
#define pre_scope_num_summaries(p) profdb__be16((p) + 0x02)
#define PRE_SUMMARY_HEAD 3u
#define pre_summary_id(p) profdb__be16((p) + 0x00)
#define pre_summary_combine(p) ((p)[0x02])

/* Binaries, files, functions: u32 count, u16 record size, records.
 * Binary and file specs: {u32 flags, u64 path}; function specs: {u32
 * flags, u64 name, u64 binary, ...} (>= 40 bytes). */
#define PRE_ARRAY_HEAD 6u
#define pre_array_count(p) profdb__be32((p) + 0x00)
#define pre_array_stride(p) profdb__be16((p) + 0x04)
#define PRE_SPEC_MIN 12u
#define PRE_FUNC_MIN 40u
#define pre_spec_name(p) profdb__be64((p) + 0x04)
#define pre_func_binary(p) profdb__be64((p) + 0x0c)
_Static_assert(0x04 + 8 == PRE_SPEC_MIN, "binary/file spec is at least 12 bytes");

/* Context node: u32 id @0, u64 children offset @4, u64 children size @0x0c,
 * u8 callee size @0x14, u8 lexical size @0x15, then the two specs. Callee
 * spec: u8 @0, u8 flags @1, {u64 file, u32 line} @2 when flags & 1.
 * Lexical spec: u8 type @0, u16 flags @1, then function (8, flags & 1),
 * {file, line} (12, flags & 2), {binary, offset} (16, flags & 4). */
#define PRE_NODE_SIZE 22u
#define pre_node_id(p) profdb__be32((p) + 0x00)
#define pre_node_child_off(p) profdb__be64((p) + 0x04)
#define pre_node_child_size(p) profdb__be64((p) + 0x0c)
#define pre_node_callee_size(p) ((p)[0x14])
#define pre_node_lexical_size(p) ((p)[0x15])
_Static_assert(0x15 + 1 == PRE_NODE_SIZE, "context node head is 22 bytes");
#define pre_callee_flags(c) ((c)[0x01])
#define pre_callee_file(c) profdb__be64((c) + 0x02)
#define pre_callee_line(c) profdb__be32((c) + 0x0a)
#define pre_lex_type(l) ((l)[0x00])
#define pre_lex_flags(l) profdb__be16((l) + 0x01)
#define PRE_LEX_HEAD 3u

#endif
