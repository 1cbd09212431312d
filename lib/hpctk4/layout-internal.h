/* HPCToolkit 4.0 on-disk records: named field accessors and record sizes.
 *
 * Source: doc/FORMATS.md, "HPCToolkit 4.0 (lib/hpctk4/)" and its errata
 * list ("Where real files differ from the published 4.0 document"; "The
 * 2022 development layout"), and /work/shared/spec/hpctoolkit-db-v4.md.
 * All fields are little-endian and read byte by byte (records need not be
 * aligned). The *_SIZE constants are the minimum strides: files store
 * their own strides, which may be larger in later minor versions, and the
 * decoder checks each stored stride against these. Every accessor takes a
 * pointer to the first byte of a record that the caller has range-checked
 * for at least the record's *_SIZE bytes.
 */
#ifndef PROFDB_HPCTK4_LAYOUT_H
#define PROFDB_HPCTK4_LAYOUT_H

#include "../core/core-internal.h"
#include "../core/layout-internal.h"

/* NAME(p): the little-endian field at OFF of a record of SIZE bytes
 * (lib/core/layout-internal.h). */
#define HL_FIELD(name, size, off, bits) PROFDB_FIELD_LE(name, size, off, bits)

/* ---- every file: header ------------------------------------------------- */
/* {magic "HPCTOOLKIT" + 4-byte kind, major u8 @0x0e, minor u8 @0x0f}, then
 * {u64 size, u64 pointer} section pairs from 0x10. */
enum { HL_FILE_MAGIC = 16, HL_SECTION = 16, HL_FOOTER = 8 };
HL_FIELD(hl_file_major, HL_FILE_MAGIC, 0x0e, 8)
HL_FIELD(hl_file_minor, HL_FILE_MAGIC, 0x0f, 8)
HL_FIELD(hl_section_size, HL_SECTION, 0x00, 64)
HL_FIELD(hl_section_ptr, HL_SECTION, 0x08, 64)

/* ---- meta.db ------------------------------------------------------------ */
enum {
	HL_META_HEADER = 0x90,     /* 8 section pairs */
	HL_GENERAL = 0x10,         /* {pTitle, pDescription} */
	HL_IDNAMES = 0x09,         /* {ppNames, nKinds u8} */
	HL_TABLE = 0x0e,           /* Modules/Files/Functions section header */
	HL_MODULE = 0x10,
	HL_FILE = 0x10,
	HL_FUNCTION = 0x28,
	HL_METRICS_FINAL = 0x1b,   /* Metrics section header (final) */
	HL_METRICS_DEV = 0x0f,     /* Metrics section header (dev-stage) */
	HL_METRIC = 0x20,
	HL_SCOPE_INST = 0x10,
	HL_SUMMARY = 0x18,
	HL_SCOPE = 0x10,
	HL_METRIC_DEV = 0x18,
	HL_SCOPE_DEV = 0x18,
	HL_SUMMARY_DEV = 0x10,
	HL_CONTEXTS_FINAL = 0x0b,  /* Context section header (final) */
	HL_CONTEXTS_DEV = 0x10,    /* Context section header (dev-stage) */
	HL_ENTRY = 0x20,           /* entry point */
	HL_CTX = 0x20,             /* context record before its flex words */
	HL_CTX_DEV = 0x18,
	HL_FLEX = 8                /* one flex word */
};
HL_FIELD(hl_general_title, HL_GENERAL, 0x00, 64)
HL_FIELD(hl_general_description, HL_GENERAL, 0x08, 64)
HL_FIELD(hl_idnames_names, HL_IDNAMES, 0x00, 64)
HL_FIELD(hl_idnames_count, HL_IDNAMES, 0x08, 8)
HL_FIELD(hl_table_ptr, HL_TABLE, 0x00, 64)
HL_FIELD(hl_table_count, HL_TABLE, 0x08, 32)
HL_FIELD(hl_table_stride, HL_TABLE, 0x0c, 16)
HL_FIELD(hl_module_path, HL_MODULE, 0x08, 64)
HL_FIELD(hl_file_flags, HL_FILE, 0x00, 32)
HL_FIELD(hl_file_path, HL_FILE, 0x08, 64)
HL_FIELD(hl_function_name, HL_FUNCTION, 0x00, 64)
HL_FIELD(hl_function_module, HL_FUNCTION, 0x08, 64)
HL_FIELD(hl_function_offset, HL_FUNCTION, 0x10, 64)
HL_FIELD(hl_function_file, HL_FUNCTION, 0x18, 64)
HL_FIELD(hl_function_line, HL_FUNCTION, 0x20, 32)

/* Metrics, final layout */
HL_FIELD(hl_metrics_ptr, HL_METRICS_FINAL, 0x00, 64)
HL_FIELD(hl_metrics_count, HL_METRICS_FINAL, 0x08, 32)
HL_FIELD(hl_metrics_sz_metric, HL_METRICS_FINAL, 0x0c, 8)
HL_FIELD(hl_metrics_sz_inst, HL_METRICS_FINAL, 0x0d, 8)   /* dev-stage: szScope */
HL_FIELD(hl_metrics_sz_summary, HL_METRICS_FINAL, 0x0e, 8)
HL_FIELD(hl_metrics_scopes, HL_METRICS_FINAL, 0x10, 64)
HL_FIELD(hl_metrics_n_scopes, HL_METRICS_FINAL, 0x18, 16)
HL_FIELD(hl_metrics_sz_scope, HL_METRICS_FINAL, 0x1a, 8)
HL_FIELD(hl_metric_name, HL_METRIC, 0x00, 64)
HL_FIELD(hl_metric_insts, HL_METRIC, 0x08, 64)
HL_FIELD(hl_metric_summaries, HL_METRIC, 0x10, 64)
HL_FIELD(hl_metric_n_insts, HL_METRIC, 0x18, 16)
HL_FIELD(hl_metric_n_summaries, HL_METRIC, 0x1a, 16)
HL_FIELD(hl_inst_scope, HL_SCOPE_INST, 0x00, 64)
HL_FIELD(hl_inst_prop_id, HL_SCOPE_INST, 0x08, 16)
HL_FIELD(hl_summary_scope, HL_SUMMARY, 0x00, 64)
HL_FIELD(hl_summary_formula, HL_SUMMARY, 0x08, 64)
HL_FIELD(hl_summary_combine, HL_SUMMARY, 0x10, 8)
HL_FIELD(hl_summary_stat_id, HL_SUMMARY, 0x12, 16)
HL_FIELD(hl_scope_name, HL_SCOPE, 0x00, 64)
HL_FIELD(hl_scope_type, HL_SCOPE, 0x08, 8)
HL_FIELD(hl_scope_prop_index, HL_SCOPE, 0x09, 8)

/* Metrics, dev-stage layout */
HL_FIELD(hl_dmetric_name, HL_METRIC_DEV, 0x00, 64)
HL_FIELD(hl_dmetric_n_scopes, HL_METRIC_DEV, 0x08, 16)
HL_FIELD(hl_dmetric_scopes, HL_METRIC_DEV, 0x10, 64)
HL_FIELD(hl_dscope_name, HL_SCOPE_DEV, 0x00, 64)
HL_FIELD(hl_dscope_n_summaries, HL_SCOPE_DEV, 0x08, 16)
HL_FIELD(hl_dscope_prop_id, HL_SCOPE_DEV, 0x0a, 16)
HL_FIELD(hl_dscope_summaries, HL_SCOPE_DEV, 0x10, 64)
HL_FIELD(hl_dsummary_formula, HL_SUMMARY_DEV, 0x00, 64)
HL_FIELD(hl_dsummary_combine, HL_SUMMARY_DEV, 0x08, 8)
HL_FIELD(hl_dsummary_stat_id, HL_SUMMARY_DEV, 0x0a, 16)

/* Context tree */
HL_FIELD(hl_contexts_entries, HL_CONTEXTS_FINAL, 0x00, 64)
HL_FIELD(hl_contexts_n_entries, HL_CONTEXTS_FINAL, 0x08, 16)
HL_FIELD(hl_contexts_sz_entry, HL_CONTEXTS_FINAL, 0x0a, 8)
HL_FIELD(hl_dcontexts_size, HL_CONTEXTS_DEV, 0x00, 64)
HL_FIELD(hl_dcontexts_roots, HL_CONTEXTS_DEV, 0x08, 64)
HL_FIELD(hl_entry_children_size, HL_ENTRY, 0x00, 64)
HL_FIELD(hl_entry_children, HL_ENTRY, 0x08, 64)
HL_FIELD(hl_entry_id, HL_ENTRY, 0x10, 32)
HL_FIELD(hl_entry_kind, HL_ENTRY, 0x14, 16)
HL_FIELD(hl_entry_name, HL_ENTRY, 0x18, 64)
HL_FIELD(hl_ctx_children_size, HL_CTX_DEV, 0x00, 64)
HL_FIELD(hl_ctx_children, HL_CTX_DEV, 0x08, 64)
HL_FIELD(hl_ctx_id, HL_CTX_DEV, 0x10, 32)
HL_FIELD(hl_ctx_flags, HL_CTX_DEV, 0x14, 8)
HL_FIELD(hl_ctx_relation, HL_CTX_DEV, 0x15, 8)
HL_FIELD(hl_ctx_lexical_type, HL_CTX_DEV, 0x16, 8)
HL_FIELD(hl_ctx_n_flex, HL_CTX_DEV, 0x17, 8)
HL_FIELD(hl_ctx_propagation, HL_CTX, 0x18, 16)   /* final layout only */

/* ---- profile.db ---------------------------------------------------------- */
enum {
	HL_PROF_HEADER = 0x30,      /* 2 section pairs */
	HL_PROFILES = 0x0d,         /* Profile Info section header */
	HL_PROFILE = 0x30,          /* {PI}, final layout */
	HL_PROFILE_DEV = 0x28,
	HL_IDTUPLE = 0x08,          /* tuple header; HL_ID bytes per element follow */
	HL_ID = 0x10
};
HL_FIELD(hl_profiles_ptr, HL_PROFILES, 0x00, 64)
HL_FIELD(hl_profiles_count, HL_PROFILES, 0x08, 32)
HL_FIELD(hl_profiles_stride, HL_PROFILES, 0x0c, 8)
HL_FIELD(hl_profile_n_values, HL_PROFILE_DEV, 0x00, 64)
HL_FIELD(hl_profile_values, HL_PROFILE_DEV, 0x08, 64)
HL_FIELD(hl_profile_n_ctxs, HL_PROFILE_DEV, 0x10, 32)
HL_FIELD(hl_profile_ctx_index, HL_PROFILE_DEV, 0x18, 64)
HL_FIELD(hl_profile_idtuple, HL_PROFILE_DEV, 0x20, 64)
HL_FIELD(hl_profile_flags, HL_PROFILE, 0x28, 32)   /* final layout only */
HL_FIELD(hl_idtuple_count, HL_IDTUPLE, 0x00, 16)
HL_FIELD(hl_id_kind, HL_ID, 0x00, 8)
HL_FIELD(hl_id_flags, HL_ID, 0x02, 16)
HL_FIELD(hl_id_logical, HL_ID, 0x04, 32)
HL_FIELD(hl_id_physical, HL_ID, 0x08, 64)

/* ---- cct.db --------------------------------------------------------------- */
enum {
	HL_CCT_HEADER = 0x20,       /* 1 section pair (written 0x30) */
	HL_CTXS = 0x0d,             /* Context Info section header */
	HL_CTXINFO = 0x20
};
HL_FIELD(hl_ctxs_ptr, HL_CTXS, 0x00, 64)
HL_FIELD(hl_ctxs_count, HL_CTXS, 0x08, 32)
HL_FIELD(hl_ctxs_stride, HL_CTXS, 0x0c, 8)
HL_FIELD(hl_ctxinfo_n_values, HL_CTXINFO, 0x00, 64)
HL_FIELD(hl_ctxinfo_values, HL_CTXINFO, 0x08, 64)
HL_FIELD(hl_ctxinfo_n_metrics, HL_CTXINFO, 0x10, 16)
HL_FIELD(hl_ctxinfo_metric_index, HL_CTXINFO, 0x18, 64)

/* ---- the value planes (profile.db and cct.db) ---------------------------- */
/* profile.db: index {ctxId u32, startIndex u64}, values {metricId u16, f64};
 * cct.db: index {metricId u16, startIndex u64}, values {profIndex u32, f64}. */
enum {
	HL_PROF_INDEX = 12, HL_PROF_VALUE = 10,
	HL_CCT_INDEX = 10, HL_CCT_VALUE = 12
};

/* ---- trace.db ------------------------------------------------------------- */
enum {
	HL_TRACE_HEADER = 0x20,     /* 1 section pair */
	HL_TRACES = 0x20,           /* Trace Headers section header */
	HL_TRACE = 0x18,            /* trace header */
	HL_SAMPLE = 12              /* {timestamp u64, ctxId u32} */
};
HL_FIELD(hl_traces_ptr, HL_TRACES, 0x00, 64)
HL_FIELD(hl_traces_count, HL_TRACES, 0x08, 32)
HL_FIELD(hl_traces_stride, HL_TRACES, 0x0c, 8)
HL_FIELD(hl_traces_min_time, HL_TRACES, 0x10, 64)
HL_FIELD(hl_traces_max_time, HL_TRACES, 0x18, 64)
HL_FIELD(hl_trace_profile, HL_TRACE, 0x00, 32)
HL_FIELD(hl_trace_start, HL_TRACE, 0x08, 64)
HL_FIELD(hl_trace_end, HL_TRACE, 0x10, 64)
HL_FIELD(hl_sample_time, HL_SAMPLE, 0x00, 64)
HL_FIELD(hl_sample_ctx, HL_SAMPLE, 0x08, 32)

#endif
