/* profdb/hpctk.h — HPCToolkit 4.0 databases (meta.db, profile.db, cct.db, trace.db).
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h. In short: counts are int64_t; a lookup returns 1
 * (stored) or 0 (not stored, output cleared); -EINVAL for a NULL handle
 * or output, -ENOENT for an index or id out of range or a file the
 * database lacks. Every function may be called from many threads on the
 * same handle unless it says "one thread at a time"; everything handed out
 * (strings, views) stays valid until profdb_hpctk_close().
 */
#ifndef PROFDB_HPCTK_H
#define PROFDB_HPCTK_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* HPCToolkit 4.0 databases: meta.db, profile.db, cct.db, trace.db          */
/* ------------------------------------------------------------------------ */

/** An open HPCToolkit 4.0 database (opaque). @since 0.9 */
typedef struct profdb_hpctk profdb_hpctk;

/** The four files of a database. @since 0.9 */
typedef enum profdb_hpctk_file {
	PROFDB_HPCTK_META = 0,
	PROFDB_HPCTK_PROFILE = 1,
	PROFDB_HPCTK_CCT = 2,
	PROFDB_HPCTK_TRACE = 3,
	PROFDB_HPCTK_NFILES = 4
} profdb_hpctk_file;

/** Which 4.0 layout the database uses (doc/FORMATS.md). @since 0.9 */
typedef enum profdb_hpctk_layout {
	PROFDB_HPCTK_FINAL = 0,    /**< 4.0 as released (2022.10 and later) */
	PROFDB_HPCTK_DEVSTAGE = 1  /**< the unreleased 2022 development layout */
} profdb_hpctk_layout;

/** Open a database. @p path is a database directory (meta.db and whichever
 *  of profile.db, cct.db, trace.db exist) or a single *.db file (recognised
 *  by its magic). Each file is validated at open: magic, major version 4,
 *  footer, section table. Minor versions above 0 are accepted. Deeper checks
 *  run lazily on first use of each block. The files are compared where
 *  their header arrays hold counts and ids that must agree (doc/FORMATS.md,
 *  "At open, across files"), and each profile.db value block's edges with
 *  cct.db and meta.db at the block's first use: a disagreement is -EBADMSG
 *  naming both files, or a warning in tolerant mode.
 *  @param[out] ret  the handle, NULL on failure
 *  @param opts      NULL for the defaults; PROFDB_OPEN_TOLERANT makes a
 *                   damaged value block or trace line read as absent in
 *                   the common interface (profdb_open), and files that
 *                   disagree a warning
 *  @return 0, -EINVAL (NULL argument, bad options), -ENOENT (no database
 *          file there), -EPROTONOSUPPORT (not a 4.0 file),
 *          -EBADMSG/-ENODATA (corrupt/truncated, files of two databases),
 *          -errno of I/O.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_open(profdb_hpctk **ret, const char *path,
                                    const profdb_options *opts);

/** Open from caller-supplied buffers, indexed by profdb_hpctk_file. An
 *  absent file has data == NULL; at least one must be present. @c name
 *  (may be NULL: "meta.db", ...) appears in messages. Nothing is copied:
 *  the buffers must stay alive and unchanged until the handle is closed.
 *  @return as profdb_hpctk_open(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_open_mem(profdb_hpctk **ret,
                                        const profdb_input files[PROFDB_HPCTK_NFILES],
                                        const profdb_options *opts);

/** Close and unmap. NULL is a no-op. Every string and view handed out
 *  dies here. One thread at a time (no other call on the handle may
 *  run). @since 0.9 */
PROFDB_EXPORT void profdb_hpctk_close(profdb_hpctk *db);

/** Whether the database has a file.
 *  @return 1 present, 0 absent, -EINVAL (NULL handle, @p which out of
 *  range). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_has(const profdb_hpctk *db, profdb_hpctk_file which);

/** Stored version of a present file.
 *  @return 0, -EINVAL (NULL argument, bad @p which), -ENOENT (file
 *  absent). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_version(const profdb_hpctk *db, profdb_hpctk_file which,
                                       uint8_t *major, uint8_t *minor);

/** Layout of the database (decided from meta.db, else profile.db).
 *  @return the layout; PROFDB_HPCTK_FINAL for a NULL handle. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT profdb_hpctk_layout profdb_hpctk_get_layout(const profdb_hpctk *db);

/* ---- meta.db: general properties, identifier names ---------------------- */

/** Title and Markdown description of the database.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (no meta.db), -EBADMSG.
 *  Thread-safe; the strings live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_title(const profdb_hpctk *db, profdb_str *title,
                                     profdb_str *description);

/** Number of identifier kinds.
 *  @return >= 0, -EINVAL, -ENOENT (no meta.db), -EBADMSG. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_id_kind_count(const profdb_hpctk *db);

/** Name of identifier kind @p kind (0 .. count-1, the @c kind of a
 *  profdb_hpctk_id): "NODE", "RANK", ...
 *  @return 0, -EINVAL, -ENOENT (out of range, no meta.db), -EBADMSG.
 *  Thread-safe; the string lives until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_id_kind_at(const profdb_hpctk *db, uint32_t kind,
                                          profdb_str *name);

/* ---- meta.db: metrics --------------------------------------------------- */

/** Propagation scope types. Values not listed here come back as stored. */
enum {
	PROFDB_SCOPE_CUSTOM = 0,
	PROFDB_SCOPE_POINT = 1,       /**< raw, not propagated */
	PROFDB_SCOPE_EXECUTION = 2,   /**< inclusive */
	PROFDB_SCOPE_TRANSITIVE = 3,  /**< propagated along propagation bit i */
	PROFDB_SCOPE_UNKNOWN = 255    /**< dev-stage scope with an unknown name */
};

/** Summary combination functions, as meta.db stores them (0.10: renamed
 *  from PROFDB_COMBINE_*, which is now profdb_combine in profdb/query.h). */
enum { PROFDB_HPCTK_COMBINE_SUM = 0, PROFDB_HPCTK_COMBINE_MIN = 1, PROFDB_HPCTK_COMBINE_MAX = 2 };

/** A metric, its propagations and summaries, as counts. @since 0.9 */
typedef struct profdb_hpctk_metric {
	profdb_str name;
	uint32_t n_props;      /**< propagated variants (profile/cct metric ids) */
	uint32_t n_summaries;  /**< summary statistics (summary-profile ids) */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctk_metric;

/** One propagated variant of a metric. @since 0.9 */
typedef struct profdb_hpctk_prop {
	profdb_str scope;          /**< "point", "function", "execution", ... */
	uint8_t scope_type;        /**< PROFDB_SCOPE_* (dev-stage: derived from the name) */
	uint8_t prop_index;        /**< propagation bit for transitive scopes, 255 otherwise */
	uint16_t prop_metric_id;   /**< id used in thread profiles and cct.db */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpctk_prop;

/** One summary statistic of a metric. @since 0.9 */
typedef struct profdb_hpctk_summary {
	profdb_str scope;
	uint8_t scope_type;
	uint8_t combine;           /**< PROFDB_HPCTK_COMBINE_* or an unknown stored value */
	uint16_t stat_metric_id;   /**< id used in the summary profile */
	profdb_str formula;        /**< "$$" = the propagated value */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpctk_summary;

/** Number of metrics. The metric table is validated on the first call
 *  (lazily). @return >= 0, -EINVAL, -ENOENT (no meta.db), -EBADMSG.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_metric_count(const profdb_hpctk *db);
/** Metric @p metric (index 0 .. count-1).
 *  @return 0, -EINVAL, -ENOENT (out of range, no meta.db), -EBADMSG.
 *  Thread-safe; strings live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_at(const profdb_hpctk *db, uint32_t metric,
                                         profdb_hpctk_metric *out);
/** Propagated variant @p i (0 .. n_props-1) of metric index @p metric.
 *  @return as profdb_hpctk_metric_at(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_prop_at(const profdb_hpctk *db, uint32_t metric,
                                              uint32_t i, profdb_hpctk_prop *out);
/** Summary statistic @p i (0 .. n_summaries-1) of metric index @p metric.
 *  @return as profdb_hpctk_metric_at(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_summary_at(const profdb_hpctk *db, uint32_t metric,
                                                 uint32_t i, profdb_hpctk_summary *out);

/* ---- meta.db: load modules, source files, functions --------------------- */

/** A function (also named constructs such as "<gpu kernel>"). @since 0.9 */
typedef struct profdb_hpctk_function {
	profdb_str name;       /**< {"", 0} for an anonymous function */
	uint32_t module;       /**< module index or PROFDB_NONE */
	uint32_t file;         /**< file index or PROFDB_NONE */
	uint64_t offset;       /**< entry point offset within the module */
	uint32_t line;         /**< definition line */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctk_function;

/** Number of load modules. @return >= 0, -EINVAL, -ENOENT (no meta.db).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_module_count(const profdb_hpctk *db);
/** Number of source files. @return as profdb_hpctk_module_count().
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_file_count(const profdb_hpctk *db);
/** Number of functions. @return as profdb_hpctk_module_count(). @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_function_count(const profdb_hpctk *db);
/** Path of load module @p i (index).
 *  @return 0, -EINVAL, -ENOENT (out of range, no meta.db), -EBADMSG.
 *  Thread-safe; the string lives until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_module_at(const profdb_hpctk *db, uint32_t i,
                                         profdb_str *path);
/** Path of source file @p i (index; absolute, or relative to the database
 *  directory); @p copied is set to 1 if the file was copied into src/, else
 *  0. @return as profdb_hpctk_module_at(). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_file_at(const profdb_hpctk *db, uint32_t i,
                                       profdb_str *path, int *copied);
/** Function @p i (index). @return as profdb_hpctk_module_at(). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_function_at(const profdb_hpctk *db, uint32_t i,
                                           profdb_hpctk_function *out);

/* ---- meta.db: the calling-context tree ---------------------------------- */

/** Relation of a context to its parent. */
enum {
	PROFDB_REL_LEXICAL = 0,      /**< enclosing lexical scope, no call */
	PROFDB_REL_CALL = 1,
	PROFDB_REL_INLINED_CALL = 2,
	PROFDB_REL_ENTRY = 253,      /**< an entry point below the global root */
	PROFDB_REL_NONE = 254        /**< the global root (id 0) */
	/* other stored values are passed through */
};

/** Lexical type of a context. */
enum {
	PROFDB_LEX_FUNCTION = 0,
	PROFDB_LEX_LOOP = 1,
	PROFDB_LEX_LINE = 2,
	PROFDB_LEX_INSTRUCTION = 3,
	PROFDB_LEX_ENTRY = 253,      /**< entry point */
	PROFDB_LEX_ROOT = 254        /**< the global root */
};

/** Entry point kinds (meaningful when lexical_type == PROFDB_LEX_ENTRY). */
enum { PROFDB_ENTRY_UNKNOWN = 0, PROFDB_ENTRY_MAIN_THREAD = 1, PROFDB_ENTRY_APP_THREAD = 2 };

/** A decoded context. The tree is rooted at the implicit global context
 *  (id 0, lexical_type PROFDB_LEX_ROOT); its children are the entry points
 *  (final layout) or the root contexts (dev-stage). @since 0.9 */
typedef struct profdb_hpctk_context {
	uint32_t id;
	uint8_t relation;         /**< PROFDB_REL_* */
	uint8_t lexical_type;     /**< PROFDB_LEX_* */
	uint16_t propagation;     /**< bit i: values propagate to the parent for prop_index i (0 in dev-stage) */
	uint32_t function;        /**< function index or PROFDB_NONE */
	uint32_t file;            /**< source file index or PROFDB_NONE */
	uint32_t line;            /**< with @c file */
	uint32_t module;          /**< load module index or PROFDB_NONE */
	uint64_t offset;          /**< with @c module */
	uint16_t entry_point;     /**< PROFDB_ENTRY_* for entry points */
	profdb_str entry_name;    /**< pretty name of an entry point, else {"", 0} */
	uint64_t pos;             /**< position token: byte offset of the record in meta.db (0 for the root) */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctk_context;

/** Iterator over the children of one context: storage for the library's
 *  private state, which only profdb_hpctk_children_begin() and
 *  profdb_hpctk_children_next() read and write (its layout is not part of
 *  the API). A plain value on the caller's stack: no cleanup; a copy goes
 *  on from the same child. Lifetime: usable until profdb_hpctk_close() of
 *  the database that started it. One thread at a time per iterator.
 *  @since 0.9 */
typedef struct profdb_hpctk_children {
	uint64_t state_[4];       /**< private */
} profdb_hpctk_children;

/** Number of contexts in the tree (entry points included, the global root
 *  excluded). The first call validates the whole tree (pointers, cycles,
 *  duplicate ids) and builds the id index.
 *  @return >= 0, -EINVAL, -ENOENT (no meta.db), -EBADMSG, -ENOMEM.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_context_count(const profdb_hpctk *db);

/** The global root context (id 0).
 *  @return 0, -EINVAL, -ENOENT (no meta.db), -EBADMSG. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_root(const profdb_hpctk *db, profdb_hpctk_context *out);

/** Context by id. O(log n) after the lazily built index.
 *  @return 0, -EINVAL, -ENOENT (no tree node with this id; it may still
 *  carry values, see doc/model.md), -EBADMSG. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_context_get(const profdb_hpctk *db, uint32_t id,
                                           profdb_hpctk_context *out);

/** Parent id of context @p id (the root's parent is PROFDB_NONE).
 *  @return as profdb_hpctk_context_get(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_context_parent(const profdb_hpctk *db, uint32_t id,
                                              uint32_t *parent);

/** Start iterating the children of @p parent (a context this database
 *  handed out): fills *it, which the caller owns (no cleanup). On failure
 *  *it is cleared, and profdb_hpctk_children_next() refuses it.
 *  @return 0, -EINVAL (NULL argument, foreign context), -ENOENT (no
 *  meta.db), -EBADMSG. Thread-safe on @p db. Lifetime: *it is usable until
 *  profdb_hpctk_close(@p db). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_children_begin(const profdb_hpctk *db,
                                              const profdb_hpctk_context *parent,
                                              profdb_hpctk_children *it);
/** The next child of an iterator profdb_hpctk_children_begin() started.
 *  @return 1 and the next child, 0 at the end (*out cleared), -EINVAL
 *  (NULL argument, an iterator that was never started or whose start
 *  failed), -EBADMSG. Lifetime: the strings of *out stay valid until
 *  profdb_hpctk_close(). One thread at a time per iterator. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_children_next(profdb_hpctk_children *it,
                                             profdb_hpctk_context *out);

/** Depth-first pre-order walk of the whole tree with an explicit stack
 *  (trees thousands deep are fine). Opaque; one thread at a time. */
typedef struct profdb_hpctk_walk profdb_hpctk_walk;
/** Start a walk. @param[out] ret the walker, NULL on failure.
 *  @return 0, -EINVAL, -ENOENT (no meta.db), -EBADMSG, -ENOMEM.
 *  Thread-safe (the walker itself: one thread at a time). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_walk_new(profdb_hpctk_walk **ret, const profdb_hpctk *db);
/** Next context and its depth (root = 0).
 *  @return 1, 0 at the end (*out cleared), -EINVAL (NULL argument),
 *  -EBADMSG, -ENOMEM. One thread at a time. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_walk_next(profdb_hpctk_walk *w, profdb_hpctk_context *out,
                                         uint32_t *depth);
/** Free a walker. NULL is a no-op. @since 0.9 */
PROFDB_EXPORT void profdb_hpctk_walk_free(profdb_hpctk_walk *w);

/* ---- profile.db and cct.db: sparse value planes -------------------------- */

/** Identifier of a profile (one element of its identifier tuple). */
typedef struct profdb_hpctk_id {
	uint8_t kind;          /**< identifier kind, see profdb_hpctk_id_kind_at() */
	uint16_t flags;        /**< bit 0: isPhysical */
	uint32_t logical_id;
	uint64_t physical_id;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpctk_id;

/** A profile (thread, process, GPU stream; profile 0 is the summary). */
typedef struct profdb_hpctk_profile {
	uint32_t index;
	int is_summary;        /**< values use summary (stat) metric ids */
	uint32_t n_ids;        /**< identifier tuple length */
	uint64_t n_values;     /**< stored (context, metric) entries */
	uint32_t n_contexts;   /**< non-empty contexts */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctk_profile;

/** Number of profiles in profile.db.
 *  @return >= 0, -EINVAL, -ENOENT (no profile.db). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_profile_count(const profdb_hpctk *db);
/** Profile @p profile (index). @return 0, -EINVAL, -ENOENT (out of range,
 *  no profile.db), -EBADMSG. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_profile_at(const profdb_hpctk *db, uint32_t profile,
                                          profdb_hpctk_profile *out);
/** Element @p i (0 .. n_ids-1) of the identifier tuple of profile
 *  @p profile. @return as profdb_hpctk_profile_at(). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_profile_id_at(const profdb_hpctk *db, uint32_t profile,
                                             uint32_t i, profdb_hpctk_id *out);

/** The values of a profile as two views into profile.db (zero-copy):
 *  - @p index: one 12-byte record per context that has values: key =
 *    context id (U32 @0, strictly increasing), value = position of its
 *    first record in @p values (U64 @4);
 *  - @p values: 10-byte records, key = metric id (U16 @0, strictly
 *    increasing within a context; a summary statistic id for a summary
 *    profile, a propagated id otherwise), value = F64 @2 bit-for-bit.
 *  profdb_view_run(index, i, values) gives context i's records;
 *  profdb_view_find() searches either view. The block is validated
 *  (inside the file, sorted keys, monotone starts) and compared with the
 *  other files (no context past cct.db's slots, first and last metric id
 *  defined by meta.db) on first use.
 *  @return 0 (empty views when the profile stores nothing), -EINVAL,
 *  -ENOENT (out of range, no profile.db), -EBADMSG (damaged block, or one
 *  of another database than cct.db or meta.db: strict mode only).
 *  Thread-safe; views live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_profile_plane(const profdb_hpctk *db, uint32_t profile,
                                             profdb_view *index, profdb_view *values);
/** Number of context slots in cct.db (max context id + 1).
 *  @return >= 0, -EINVAL, -ENOENT (no cct.db). Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_cct_slot_count(const profdb_hpctk *db);
/** The values of context @p ctx_id in cct.db, as two views (zero-copy):
 *  - @p index: 10-byte records, key = propagated metric id (U16 @0,
 *    strictly increasing), value = position of its first record (U64 @2);
 *  - @p values: 12-byte records, key = profile index (U32 @0, strictly
 *    increasing within a metric), value = F64 @4 bit-for-bit.
 *  Validated on first use like a profile plane; with profile.db open,
 *  also that every value's profile is one of its thread profiles (cct.db
 *  never holds a summary profile's values: those are in the summary's
 *  profile plane). Ids beyond the slots have no values (empty views).
 *  @return 0, -EINVAL, -ENOENT (no cct.db), -EBADMSG. Thread-safe; views
 *  live until close. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_context_plane(const profdb_hpctk *db, uint32_t ctx_id,
                                             profdb_view *index, profdb_view *values);

/** Point lookup through profile.db: the value of (@p ctx_id, @p metric)
 *  in profile @p profile; @p metric is a summary statistic id for the
 *  summary profile, a propagated id otherwise. Bit-for-bit.
 *  With meta.db, a @p metric that is neither a propagated nor a summary
 *  statistic id of any metric is -ENOENT; without meta.db every id is
 *  accepted (0 when nothing is stored under it).
 *  @return 1 (stored), 0 (not stored; *value = 0), -EINVAL (NULL handle
 *  or @p value), -ENOENT (no such profile or metric id, no profile.db),
 *  -EBADMSG (damaged block). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_value(const profdb_hpctk *db, uint32_t profile,
                                     uint32_t ctx_id, uint32_t metric, double *value);
/** Point lookup through cct.db: the same question as profdb_hpctk_value(),
 *  with the same argument order, answered from the context-major file (it
 *  stores propagated metric ids; the summary profile is not in it).
 *  Metric ids are checked as in profdb_hpctk_value().
 *  @return 1, 0 (not stored; *value = 0), -EINVAL (NULL handle or
 *  @p value), -ENOENT (no cct.db; a metric id meta.db does not define; a
 *  profile index beyond profile.db's), -EBADMSG. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_hpctk_value_cct(const profdb_hpctk *db, uint32_t profile,
                                         uint32_t ctx_id, uint32_t metric, double *value);

/** Validate the whole database and compare its files with each other (the
 *  other calls check each file on its own, lazily, and never compare
 *  them): every block, the tree and every trace line; cct.db must hold
 *  exactly the values of profile.db's thread profiles, bit for bit; every
 *  metric id a value uses must be one meta.db defines (propagated ids in
 *  thread profiles and cct.db, summary statistic ids in the summary
 *  profile); cct.db must not name the summary or an absent profile; trace
 *  lines must belong to non-summary profiles of profile.db; meta.db's
 *  context ids and every trace sample's context must lie inside cct.db's
 *  slots. Time O(V log V) for V
 *  values. @return 0 (consistent), -EINVAL (NULL handle), -EBADMSG naming
 *  the disagreement, or the code of the first damaged block. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_check(const profdb_hpctk *db);

/* ---- trace.db ----------------------------------------------------------- */

/** A trace line: the profile it belongs to and its samples as a view into
 *  trace.db (zero-copy): 12-byte records, key = time in ns (U64 @0,
 *  non-decreasing, checked before it is handed out), value = context id
 *  (U32 @8; id 0 = not running). profdb_view_seek() finds the first
 *  sample at or after a time, profdb_view_in_effect() the sample running
 *  at a time, profdb_view_window() the samples of an interval. */
typedef struct profdb_hpctk_trace {
	uint32_t profile;            /**< profile.db index */
	profdb_view samples;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpctk_trace;

/** Number of trace lines (empty ones included). A database without
 *  trace.db has none: 0, not an error (hpcprof leaves trace.db out when
 *  nothing was traced).
 *  @return >= 0, -EINVAL (NULL handle). Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_trace_count(const profdb_hpctk *db);
/** Trace line @p i (index), validated on first use.
 *  @return 0, -EINVAL, -ENOENT (out of range; no trace.db), -EBADMSG
 *  (damaged line). Thread-safe; the view lives until close. @since 0.12 */
PROFDB_EXPORT int profdb_hpctk_trace_line_at(const profdb_hpctk *db, uint32_t i,
                                        profdb_hpctk_trace *out);
/** Global time bounds from the trace.db header.
 *  @return 1 if the database has samples, 0 if not (empty sentinels;
 *  both outputs still hold the stored sentinels), -EINVAL, -ENOENT (no
 *  trace.db). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_trace_bounds(const profdb_hpctk *db, uint64_t *min_ns,
                                            uint64_t *max_ns);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_HPCTK_H */
