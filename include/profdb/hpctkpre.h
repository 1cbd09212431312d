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
 * 2022.05, with *.hpctrace or the packed experiment-N.mdb and experiment.mt)
 * open too, but this API gives only their metrics, name tables and tree:
 * their profiles, values and traces are read through the common query
 * interface (profdb_open, format hpctoolkit-xml), and the calls below that
 * read profiles, values or traces answer -ENOTSUP for them, saying so.
 *
 * Open maps the .db files and checks their headers, footers and section
 * tables; the metadata (experiment.xml, streamed through expat, or the draft
 * meta.db) is decoded completely at open into tables owned by the handle
 * (their size is bounded by the metadata's size). Value blocks and trace
 * lines are validated on first use; profdb_hpctkpre_check() validates
 * everything and cross-checks the files against the metadata.
 *
 * Ids and indices: *_at addresses by index (0 .. count-1, the counts are in
 * profdb_hpctkpre_info), *_get by stored id. Metrics carry the ids the
 * values use: summary-profile ids (<Metric>) and thread-profile ids
 * (<MetricDB>) are separate sets, told apart by is_summary, so
 * profdb_hpctkpre_metric_get() takes both. Contexts are tree nodes in
 * document order (parents before children); profdb_hpctkpre_context_get()
 * finds one by its stored id (negative on some XML call sites). An unknown
 * id is -ENOENT like an index past the end: ids name metadata entries, they
 * are not "stored or not" (only value lookups answer 0 for "not stored").
 * Values are keyed by the unsigned context ids of the .db files.
 *
 * Values and trace samples are handed out as profdb_views (profdb/common.h)
 * pointing into the mapping (big_endian = 1); search them with
 * profdb_view_find/seek/in_effect/window.
 *
 * Threads, errors and lifetimes follow profdb/common.h: every call is
 * thread-safe on a shared handle; strings (profdb_str, NOT NUL-terminated)
 * and views point into the mapping or into the handle and stay valid until
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
 *  metadata) or one file, recognised by its magic. experiment.xml, a
 *  .metric-db or an .mdb file opens its directory. A directory with
 *  experiment.xml and no .db file is an old experiment.xml database (with
 *  .metric-db records or experiment-N.mdb, *.hpctrace or experiment.mt):
 *  this API then gives its metrics and tree, and no profiles; its values
 *  and traces are read through the common query interface (profdb_open,
 *  doc/FORMATS.md).
 *  @param ret  receives the handle (NULL on failure)
 *  The files are compared where their headers and block headers hold
 *  counts and ids that must agree (doc/FORMATS.md).
 *  @param opts NULL for the defaults; PROFDB_OPEN_TOLERANT makes a damaged
 *              value block or trace line read as empty (with a warning),
 *              and files that disagree a warning
 *  @return 0, -EINVAL (NULL argument, bad options), -ENOENT,
 *  -EPROTONOSUPPORT (not a pre-release file, an unsupported version, a
 *  .metric-db record of another version), -EBADMSG/-ENODATA
 *  (corrupt/truncated, files of two databases naming both), -ENOTSUP (experiment.xml without expat), -ENOMEM,
 *  -EFBIG (metadata above profdb_options.max_memory), -errno of I/O.
 *  Thread-safe. Close the handle with profdb_hpctkpre_close(). @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_open(profdb_hpctkpre **ret, const char *path,
                                       const profdb_options *opts);

/** Open caller buffers, one per profdb_hpctkpre_file slot: files[f].data
 *  == NULL means file f is absent; files[f].name names it in messages (NULL:
 *  "profile.db", "cct.db", "trace.db", "experiment.xml" or "meta.db"). The
 *  META slot takes experiment.xml or a draft meta.db. Nothing is copied: the
 *  buffers must stay unchanged until profdb_hpctkpre_close().
 *  @return as profdb_hpctkpre_open(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_open_mem(profdb_hpctkpre **ret,
                                           const profdb_input files[PROFDB_HPCTKPRE_NFILES],
                                           const profdb_options *opts);

/** Close @p db and unmap its files; NULL is a no-op. Every string and view
 *  it handed out becomes invalid. One thread, with no other call on the
 *  handle running. @since 0.9 */
PROFDB_EXPORT void profdb_hpctkpre_close(profdb_hpctkpre *db);

/** Stored version of a present file (experiment.xml: its version
 *  attribute, e.g. 4.0; 0.0 when unreadable).
 *  @return 0, -ENOENT (file absent), -EINVAL (NULL handle or output, bad
 *  @p which). Thread-safe. @since 0.9 */
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
	profdb_str title;           /**< {"", 0} when unknown */
	uint32_t n_metrics;         /**< summary and thread-profile ids together */
	uint32_t n_contexts;        /**< tree nodes */
	uint32_t n_profiles;        /**< profile.db profiles (0 without it) */
	uint32_t n_ctx_slots;       /**< cct.db context infos (0 without it) */
	uint32_t n_traces;          /**< trace.db lines (0 without it) */
	uint32_t n_table[PROFDB_HPCTKPRE_NTABLES];
	uint64_t min_time, max_time; /**< trace.db header (0, 0 in real files) */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_info;

/** The counts and facts of @p db. @return 0 or -EINVAL (NULL argument).
 *  Thread-safe; the title lives until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_get_info(const profdb_hpctkpre *db, profdb_hpctkpre_info *out);

/** An entry of a name table. @since 0.9 */
typedef struct profdb_hpctkpre_name {
	int64_t id;                 /**< as stored (XML i attribute; draft: record number) */
	profdb_str name;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_name;

/** Entry @p index (0 .. n_table[table]-1, sorted by id) of name table
 *  @p table (PROFDB_HPCTKPRE_MODULES ...).
 *  @return 0, -ENOENT (index past the end), -EINVAL (NULL handle or output,
 *  bad table). Thread-safe; the name lives until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_table_at(const profdb_hpctkpre *db, int table, uint32_t index,
                                           profdb_hpctkpre_name *out);

/** A metric id the values use. @since 0.9 */
typedef struct profdb_hpctkpre_metric {
	uint32_t index;            /**< position in metadata order (for profdb_hpctkpre_metric_at) */
	uint32_t id;               /**< the id the values use */
	int is_summary;            /**< 1: an id of the summary profile (profile 0) */
	profdb_str name;
	int inclusive;             /**< 1 inclusive, 0 exclusive, -1 unknown */
	uint32_t partner;          /**< id of the same quantity in the other scope, or PROFDB_NONE */
	profdb_str formula;        /**< {"", 0} when none */
	profdb_str formula_type;   /**< XML: "combine", "view", ...; draft: the scope name */
	profdb_str units;          /**< {"", 0} when unknown */
	uint8_t combine;           /**< draft summaries: PROFDB_HPCTK_COMBINE_*; else 0 */
	uint8_t show;              /**< XML show attribute (1 when absent) */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_metric;

/** Metric number @p index (0 .. n_metrics-1, metadata order).
 *  @return 0, -ENOENT (past the end), -EINVAL (NULL handle or output).
 *  Thread-safe; strings live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_metric_at(const profdb_hpctkpre *db, uint32_t index,
                                            profdb_hpctkpre_metric *out);
/** The metric with id @p id among the summary (@p is_summary != 0) or the
 *  thread-profile ids. O(log n_metrics).
 *  @return 0, -ENOENT (no such id; *out cleared), -EINVAL (NULL handle or
 *  output). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_metric_get(const profdb_hpctkpre *db, int is_summary,
                                             uint32_t id, profdb_hpctkpre_metric *out);

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
	profdb_str procedure;      /**< this or the enclosing procedure's name */
	profdb_str file;           /**< {"", 0} when unknown */
	uint32_t line;             /**< 0 when unknown */
	profdb_str module;         /**< this or the enclosing frame's load module */
	uint64_t address;          /**< XML v / draft offset, when has_address */
	int has_address;
	int64_t trace_id;          /**< XML it attribute, -1 when absent */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_context;

/** Tree node @p index (0 .. n_contexts-1, document order).
 *  @return 0, -ENOENT (past the end), -EINVAL (NULL handle or output).
 *  Thread-safe; strings live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_context_at(const profdb_hpctkpre *db, uint32_t index,
                                             profdb_hpctkpre_context *out);
/** The tree node with stored id @p id (out->index is its position).
 *  O(log n_contexts).
 *  @return 0, -ENOENT (no node has that id; *out cleared: index and links
 *  PROFDB_NONE), -EINVAL (NULL handle or output). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_context_get(const profdb_hpctkpre *db, int64_t id,
                                              profdb_hpctkpre_context *out);

/** A profile of profile.db (index 0 is the summary). @since 0.9 */
typedef struct profdb_hpctkpre_profile {
	uint32_t index;
	int is_summary;
	uint32_t n_ids;            /**< identifier tuple length */
	uint64_t n_values;
	uint32_t n_contexts;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_profile;

/** One element of a profile's identifier tuple. @since 0.9 */
typedef struct profdb_hpctkpre_id {
	uint16_t kind;             /**< bits 13-0 of the stored kind */
	uint8_t interpretation;    /**< bits 15-14 */
	profdb_str kind_name;      /**< from the metadata's identifier table, {"", 0} */
	uint64_t physical, logical;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_id;

/** Profile @p index (0 .. n_profiles-1) of profile.db.
 *  @return 0, -ENOENT (no profile.db, or past the end), -EINVAL (NULL
 *  handle or output), -EBADMSG (identifier tuple outside its section),
 *  -ENOTSUP (an old experiment.xml database, see above).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_profile_at(const profdb_hpctkpre *db, uint32_t index,
                                             profdb_hpctkpre_profile *out);
/** Element @p i (0 .. n_ids-1) of the identifier tuple of profile
 *  @p profile. @return 0, -ENOENT (profile or element past the end),
 *  -EINVAL, -EBADMSG, -ENOTSUP (an old experiment.xml database).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_profile_id_at(const profdb_hpctkpre *db, uint32_t profile,
                                                uint32_t i, profdb_hpctkpre_id *out);

/** The values of profile @p profile, as two big-endian views into
 *  profile.db's mapping:
 *  - @p index: one record per context listed, key = context id (U32,
 *    strictly increasing), value = position (U64) of its first record in
 *    @p values (runs may be empty); profdb_view_run() gives its records;
 *  - @p values: key = metric id (U16, strictly increasing within a run),
 *    value = the stored number (F64, bit for bit).
 *  Validated on first use (inside the file, sorted keys, monotone starts,
 *  the end marker). With PROFDB_OPEN_TOLERANT a damaged block is reported
 *  through the warn callback and reads as empty.
 *  @return 0, -ENOENT (no profile.db, or past the end), -EINVAL (NULL
 *  handle or output), -EBADMSG/-ENODATA (damaged block, strict mode),
 *  -ENOTSUP (an old experiment.xml database).
 *  Thread-safe; the views live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_profile_view(const profdb_hpctkpre *db, uint32_t profile,
                                               profdb_view *index, profdb_view *values);
/** The values of cct.db context @p ctx_id over all profiles: @p index
 *  keyed by metric id (U16), value = position of its first record in
 *  @p values; @p values keyed by profile index (U32), value F64. Checked
 *  as profdb_hpctkpre_profile_view(). The pre-release writer left cct.db
 *  value blocks all zero: such a block reads as empty, with one warning per
 *  handle.
 *  @return 0, -ENOENT (no cct.db, or @p ctx_id >= n_ctx_slots), -EINVAL,
 *  -EBADMSG/-ENODATA, -ENOTSUP (an old experiment.xml database).
 *  Thread-safe; the views live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_context_view(const profdb_hpctkpre *db, uint32_t ctx_id,
                                               profdb_view *index, profdb_view *values);
/** Point lookup in profile.db: the value of metric id @p metric at context
 *  id @p ctx_id in profile @p profile, bit for bit.
 *  @return 1 (stored; *value filled), 0 (not stored; *value = 0), -ENOENT
 *  (no profile.db, or profile past the end), -EINVAL (NULL handle or
 *  output), -EBADMSG (damaged block, strict mode), -ENOTSUP (an old
 *  experiment.xml database). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_value(const profdb_hpctkpre *db, uint32_t profile,
                                        uint32_t ctx_id, uint32_t metric, double *value);

/** A trace line of trace.db. @since 0.9 */
typedef struct profdb_hpctkpre_trace {
	uint32_t profile;          /**< profile.db index */
	uint16_t type;             /**< 0 calling context; >= 1 a metric id */
	/** The samples: big-endian view into the mapping, key = time in ns
	 *  (U64, non-decreasing), value = context id (U32); stride 12. Search
	 *  it with profdb_view_seek() (first sample at or after a time) and
	 *  profdb_view_in_effect() (the sample running at a time). */
	profdb_view samples;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctkpre_trace;

/** Trace line @p index (0 .. n_traces-1, trace.db order), validated on
 *  first use (inside the file, whole samples, sorted by time, its profile
 *  in profile.db); with PROFDB_OPEN_TOLERANT a damaged line reads as empty.
 *  @return 0, -ENOENT (no trace.db, or past the end), -EINVAL (NULL handle
 *  or output), -EBADMSG (damaged line, strict mode), -ENOTSUP (an old
 *  experiment.xml database: its traces are read through profdb_trace_*).
 *  Thread-safe; the view
 *  lives until close. @since 0.12 */
PROFDB_EXPORT int profdb_hpctkpre_trace_line_at(const profdb_hpctkpre *db, uint32_t index,
                                           profdb_hpctkpre_trace *out);

/** Validate everything (every value block, cct.db block and trace line)
 *  and cross-check the files: value metric ids the metadata does not name,
 *  trace lines naming profiles profile.db lacks and contexts in the tree
 *  outside cct.db are errors; metadata metrics without any stored value
 *  are reported through the warn callback.
 *  @return 0, -EINVAL (NULL handle), -EBADMSG/-ENODATA, -ENOMEM.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctkpre_check(const profdb_hpctkpre *db);

/* ---- end of HPCToolkit pre-release -------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_HPCTKPRE_H */
