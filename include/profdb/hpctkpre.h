/* profdb/hpctkpre.h — HPCToolkit pre-release databases (HPCPROF-*) and the draft meta.db.
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h.
 */
#ifndef PROFDB_HPCTKPRE_H
#define PROFDB_HPCTKPRE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* HPCToolkit pre-release databases and the draft meta.db       @since 0.9 */
/* ======================================================================== */
/*
 * The databases hpcprof wrote on HPCToolkit's development branch in 2021-22,
 * before 4.0: profile.db (HPCPROF-profdb__), cct.db (HPCPROF-cctdb___) and
 * trace.db (HPCPROF-tracedb_), big-endian, version 1.0, described by an
 * experiment.xml (metrics, load modules, files, procedures, the calling-
 * context tree). The draft HPCTOOLKIT_expmt meta.db (never released, no real
 * file known) may take experiment.xml's place. doc/FORMATS.md ("Pre-release
 * databases and the draft meta.db") lists the layouts as the real files have
 * them and every check.
 *
 * The older experiment.xml + *.metric-db databases (HPCToolkit releases up to
 * 2022.05) are NOT read: open returns -EPROTONOSUPPORT and says so.
 *
 * Open maps the .db files and checks their headers, footers and section
 * tables; the metadata (experiment.xml, streamed through expat, or the draft
 * meta.db) is decoded completely at open into tables owned by the handle
 * (their size is bounded by the metadata's size). Value blocks and trace
 * lines are validated on first use; profdb_hpctkpre_check() validates
 * everything and cross-checks the files against the metadata.
 *
 * Ids: metrics carry the ids the values use: summary-profile ids (<Metric>)
 * and thread-profile ids (<MetricDB>) are separate sets, told apart by
 * is_summary. Contexts are addressed by index (document order, parents
 * before children); their stored ids (negative on some XML call sites) are
 * found with profdb_hpctkpre_context_find(). Values are keyed by the
 * unsigned context ids of the .db files.
 *
 * Threads, errors and lifetimes follow the rules at the top of this header:
 * strings point into the mapping or into the handle and stay valid until
 * profdb_hpctkpre_close(). Without expat at build time, experiment.xml
 * cannot be read and open returns -ENOTSUP when it is needed.
 */

/** An open pre-release database (opaque). @since 0.9 */
typedef struct profdb_hpctkpre profdb_hpctkpre;

/** The files of a pre-release database. @since 0.9 */
typedef enum profdb_hpctkpre_file {
	PROFDB_HPCTKPRE_PROFILE = 0,  /**< profile.db */
	PROFDB_HPCTKPRE_CCT = 1,      /**< cct.db */
	PROFDB_HPCTKPRE_TRACE = 2,    /**< trace.db */
	PROFDB_HPCTKPRE_META = 3,     /**< experiment.xml or a draft meta.db */
	PROFDB_HPCTKPRE_NFILES = 4
} profdb_hpctkpre_file;

/** What describes the database. @since 0.9 */
enum {
	PROFDB_HPCTKPRE_META_NONE = 0,   /**< only .db files: no names, no tree */
	PROFDB_HPCTKPRE_META_XML = 1,    /**< experiment.xml */
	PROFDB_HPCTKPRE_META_DRAFT = 2   /**< draft HPCTOOLKIT_expmt meta.db */
};

/** Open @p path: a database directory (profile.db, cct.db, trace.db and
 *  experiment.xml or meta.db, whichever exist; at least profile.db or the
 *  metadata) or one file, recognised by its magic.
 *  @return 0, -ENOENT, -EPROTONOSUPPORT (not a pre-release file, an
 *  unsupported version, an old experiment.xml + .metric-db database),
 *  -EBADMSG/-ENODATA (corrupt/truncated), -ENOTSUP (experiment.xml without
 *  expat), -ENOMEM, -EFBIG (metadata above profdb_options.max_memory),
 *  -errno of I/O. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_open(profdb_hpctkpre **ret, const char *path,
                                       const profdb_options *opts);
/** Open caller buffers indexed by profdb_hpctkpre_file (data == NULL:
 *  absent). The META slot takes experiment.xml or a draft meta.db. Nothing
 *  is copied. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_open_mem(profdb_hpctkpre **ret,
                                           const profdb_blob files[PROFDB_HPCTKPRE_NFILES],
                                           const profdb_options *opts);
/** Close; NULL is a no-op. @since 0.9 */
PROFDB_EXPORT void profdb_hpctkpre_close(profdb_hpctkpre *db);

/** Stored version of a present file (experiment.xml: its version
 *  attribute, e.g. 4.0). @return 0, -ENOENT, -EINVAL. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_version(const profdb_hpctkpre *db, profdb_hpctkpre_file which,
                                          uint8_t *major, uint8_t *minor);

/** Name tables of the metadata. @since 0.9 */
enum {
	PROFDB_HPCTKPRE_MODULES = 0,     /**< load modules */
	PROFDB_HPCTKPRE_FILES = 1,       /**< source files */
	PROFDB_HPCTKPRE_PROCEDURES = 2,  /**< procedures (functions) */
	PROFDB_HPCTKPRE_ID_KINDS = 3,    /**< identifier kinds (NODE, RANK, THREAD, ...) */
	PROFDB_HPCTKPRE_NTABLES = 4
};

/** Counts and facts of an open database. @since 0.9 */
typedef struct profdb_hpctkpre_info {
	int meta_kind;              /**< PROFDB_HPCTKPRE_META_* */
	const char *title;          /**< "" when unknown */
	uint32_t n_metrics;         /**< summary and thread-profile ids together */
	uint32_t n_contexts;        /**< tree nodes */
	uint32_t n_profiles;        /**< profile.db profiles (0 without it) */
	uint32_t n_ctx_slots;       /**< cct.db context infos (0 without it) */
	uint32_t n_traces;          /**< trace.db lines (0 without it) */
	uint32_t n_table[PROFDB_HPCTKPRE_NTABLES];
	uint64_t min_time, max_time; /**< trace.db header (0, 0 in real files) */
} profdb_hpctkpre_info;

/** @return 0 or -EINVAL. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_get_info(const profdb_hpctkpre *db, profdb_hpctkpre_info *out);

/** Entry @p i of name table @p table: its stored id and name.
 *  @return 0, -ENOENT, -EINVAL. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_table_get(const profdb_hpctkpre *db, int table, uint32_t i,
                                            int64_t *id, const char **name);

/** A metric id the values use. @since 0.9 */
typedef struct profdb_hpctkpre_metric {
	uint32_t id;
	int is_summary;            /**< 1: an id of the summary profile (profile 0) */
	const char *name;
	int inclusive;             /**< 1 inclusive, 0 exclusive, -1 unknown */
	uint32_t partner;          /**< id of the same quantity in the other scope, or PROFDB_NONE */
	const char *formula;       /**< "" when none */
	const char *formula_type;  /**< XML: "combine", "view", ...; draft: the scope name */
	const char *units;         /**< "" when unknown */
	uint8_t combine;           /**< draft summaries: PROFDB_COMBINE_*; else 0 */
	uint8_t show;              /**< XML show attribute (1 when absent) */
} profdb_hpctkpre_metric;

/** Metric number @p index (0 .. n_metrics-1, metadata order). @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_metric_get(const profdb_hpctkpre *db, uint32_t index,
                                             profdb_hpctkpre_metric *out);
/** Index of the metric with id @p id. @return 1 found, 0 absent, <0. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_metric_find(const profdb_hpctkpre *db, int is_summary,
                                              uint32_t id, uint32_t *index);

/** Kind of a context node. @since 0.9 */
enum {
	PROFDB_HPCTKPRE_CTX_PROC = 0,   /**< <PF> procedure frame; draft: function */
	PROFDB_HPCTKPRE_CTX_CALL = 1,   /**< <C> call site */
	PROFDB_HPCTKPRE_CTX_LOOP = 2,   /**< <L> loop */
	PROFDB_HPCTKPRE_CTX_STMT = 3,   /**< <S> statement; draft: source line */
	PROFDB_HPCTKPRE_CTX_POINT = 4   /**< draft: single instruction */
};

/** A context node. Links are node indices (PROFDB_NONE when absent).
 *  @since 0.9 */
typedef struct profdb_hpctkpre_context {
	uint32_t index;
	int64_t id;                /**< as stored (XML call sites may be negative) */
	uint32_t parent, first_child, next_sibling;
	uint32_t depth;            /**< 0 for a root */
	uint8_t type;              /**< PROFDB_HPCTKPRE_CTX_* */
	const char *procedure;     /**< this or the enclosing procedure's name, "" */
	const char *file;          /**< "" when unknown */
	uint32_t line;             /**< 0 when unknown */
	const char *module;        /**< this or the enclosing frame's load module, "" */
	uint64_t address;          /**< XML v / draft offset, when has_address */
	int has_address;
	int64_t trace_id;          /**< XML it attribute, -1 when absent */
} profdb_hpctkpre_context;

/** @return 0, -ENOENT (index past the end), -EINVAL. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_context_get(const profdb_hpctkpre *db, uint32_t index,
                                              profdb_hpctkpre_context *out);
/** Index of the node with stored id @p id. @return 1 found, 0 absent. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_context_find(const profdb_hpctkpre *db, int64_t id,
                                               uint32_t *index);

/** A profile of profile.db (index 0 is the summary). @since 0.9 */
typedef struct profdb_hpctkpre_profile {
	uint32_t index;
	int is_summary;
	uint32_t n_ids;            /**< identifier tuple length */
	uint64_t n_values;
	uint32_t n_contexts;
} profdb_hpctkpre_profile;

/** One element of a profile's identifier tuple. @since 0.9 */
typedef struct profdb_hpctkpre_id {
	uint16_t kind;             /**< bits 13-0 of the stored kind */
	uint8_t interpretation;    /**< bits 15-14 */
	const char *kind_name;     /**< from the metadata's identifier table, "" */
	uint64_t physical, logical;
} profdb_hpctkpre_id;

/** @return 0, -ENOENT, -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_profile_get(const profdb_hpctkpre *db, uint32_t profile,
                                              profdb_hpctkpre_profile *out);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_profile_id(const profdb_hpctkpre *db, uint32_t profile,
                                             uint32_t i, profdb_hpctkpre_id *out);

/** A sparse value plane: a profile's (index keyed by context id, values by
 *  metric id) or a cct.db context's (index keyed by metric id, values by
 *  profile index). Big-endian records in the mapping, validated before
 *  handed out (sorted keys, monotone starts, end marker). @since 0.9 */
typedef struct profdb_hpctkpre_plane {
	const unsigned char *index;
	const unsigned char *values;
	uint64_t n_index, n_values;
	uint8_t index_key_size;    /**< 4 (context id) or 2 (metric id) */
	uint8_t value_key_size;    /**< 2 (metric id) or 4 (profile index) */
} profdb_hpctkpre_plane;

/** One run of (key, value) pairs of a plane. @since 0.9 */
typedef struct profdb_hpctkpre_run {
	const unsigned char *values;
	uint64_t count;
	uint8_t key_size;
} profdb_hpctkpre_run;

/** The plane of a profile. With PROFDB_OPEN_TOLERANT a damaged block is
 *  reported through the warn callback and reads as empty. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_profile_plane(const profdb_hpctkpre *db, uint32_t profile,
                                                profdb_hpctkpre_plane *out);
/** The plane of cct.db context @p ctx_id (empty beyond the table). The
 *  pre-release writer left cct.db value blocks all zero: such a block reads
 *  as empty, with one warning per handle. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_context_plane(const profdb_hpctkpre *db, uint32_t ctx_id,
                                                profdb_hpctkpre_plane *out);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_plane_at(const profdb_hpctkpre_plane *p, uint64_t i,
                                           uint32_t *key, profdb_hpctkpre_run *run);
/** @return 1 found, 0 absent. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_plane_find(const profdb_hpctkpre_plane *p, uint32_t key,
                                             profdb_hpctkpre_run *run);
/** Pair @p i; the value bit-for-bit. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_run_at(const profdb_hpctkpre_run *r, uint64_t i,
                                         uint32_t *key, double *value);
/** @return 1 found, 0 absent. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_run_find(const profdb_hpctkpre_run *r, uint32_t key,
                                           double *value);
/** Point lookup in profile.db. @return 1 found, 0 absent, <0. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_value(const profdb_hpctkpre *db, uint32_t profile,
                                        uint32_t ctx_id, uint32_t metric, double *value);

/** A trace line: @c count big-endian {u64 time ns, u32 context id}
 *  samples, sorted by time (checked before handed out). @since 0.9 */
typedef struct profdb_hpctkpre_trace {
	uint32_t profile;          /**< profile.db index */
	uint16_t type;             /**< 0 calling context; >= 1 a metric id */
	const unsigned char *elems; /**< NULL when empty */
	uint64_t count;
} profdb_hpctkpre_trace;

/** @return 0, -ENOENT, -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_trace_get(const profdb_hpctkpre *db, uint32_t i,
                                            profdb_hpctkpre_trace *out);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_trace_at(const profdb_hpctkpre_trace *t, uint64_t i,
                                           uint64_t *time_ns, uint32_t *ctx_id);
/** Index of the sample in effect at @p time_ns (the last with time <= t),
 *  by binary search. @return 1, or 0 if t precedes the first. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_trace_seek(const profdb_hpctkpre_trace *t, uint64_t time_ns,
                                             uint64_t *index);
/** Samples with from <= time < to: [*first, *last). @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_trace_window(const profdb_hpctkpre_trace *t, uint64_t from_ns,
                                               uint64_t to_ns, uint64_t *first, uint64_t *last);

/** Validate everything (every value block, cct.db block and trace line)
 *  and cross-check the files: value metric ids the metadata does not name,
 *  trace lines naming profiles profile.db lacks and contexts in the tree
 *  outside cct.db are errors (-EBADMSG); metadata metrics without any
 *  stored value are reported through the warn callback. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_check(const profdb_hpctkpre *db);

/* ---- end of HPCToolkit pre-release -------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_HPCTKPRE_H */
