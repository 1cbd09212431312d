/* profdb/hpctk.h — HPCToolkit 4.0 databases (meta.db, profile.db, cct.db, trace.db).
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h.
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
 *  run lazily on first use of each block.
 *  @param[out] ret  the handle, NULL on failure
 *  @return 0, -ENOENT (no database file there), -EPROTONOSUPPORT (not a
 *          4.0 file), -EBADMSG/-ENODATA (corrupt/truncated), -errno of I/O
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_open(profdb_hpctk **ret, const char *path,
                                    const profdb_options *opts);

/** Open from caller-supplied buffers, indexed by profdb_hpctk_file. Absent
 *  files have data == NULL; at least one must be present. Nothing is
 *  copied. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_open_mem(profdb_hpctk **ret,
                                        const profdb_blob files[PROFDB_HPCTK_NFILES],
                                        const profdb_options *opts);

/** Close and unmap. NULL is a no-op. All views die here. @since 0.9 */
PROFDB_EXPORT void profdb_hpctk_close(profdb_hpctk *db);

/** 1 if the file is present, 0 if not. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_has(const profdb_hpctk *db, profdb_hpctk_file which);

/** Stored version of a present file. @return 0 or -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_version(const profdb_hpctk *db, profdb_hpctk_file which,
                                       uint8_t *major, uint8_t *minor);

/** Layout of the database (decided from meta.db, else profile.db).
 *  @since 0.9 */
PROFDB_EXPORT profdb_hpctk_layout profdb_hpctk_get_layout(const profdb_hpctk *db);

/* ---- meta.db: general properties, identifier names ---------------------- */

/** Title and Markdown description (either out pointer may be NULL).
 *  @return 0, -ENOENT (no meta.db), -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_title(const profdb_hpctk *db, const char **title,
                                     const char **description);

/** Number of identifier kinds (>= 0) or -errno. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_id_kind_count(const profdb_hpctk *db);

/** Name of identifier kind @p kind ("NODE", "RANK", ...). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_id_kind_name(const profdb_hpctk *db, uint32_t kind,
                                            const char **name);

/* ---- meta.db: metrics --------------------------------------------------- */

/** Propagation scope types. Values not listed here come back as stored. */
enum {
	PROFDB_SCOPE_CUSTOM = 0,
	PROFDB_SCOPE_POINT = 1,       /**< raw, not propagated */
	PROFDB_SCOPE_EXECUTION = 2,   /**< inclusive */
	PROFDB_SCOPE_TRANSITIVE = 3,  /**< propagated along propagation bit i */
	PROFDB_SCOPE_UNKNOWN = 255    /**< dev-stage scope with an unknown name */
};

/** Summary combination functions. */
enum { PROFDB_COMBINE_SUM = 0, PROFDB_COMBINE_MIN = 1, PROFDB_COMBINE_MAX = 2 };

/** A metric, its propagations and summaries, as counts. @since 0.9 */
typedef struct profdb_hpctk_metric {
	const char *name;
	uint32_t n_props;      /**< propagated variants (profile/cct metric ids) */
	uint32_t n_summaries;  /**< summary statistics (summary-profile ids) */
} profdb_hpctk_metric;

/** One propagated variant of a metric. @since 0.9 */
typedef struct profdb_hpctk_prop {
	const char *scope;         /**< "point", "function", "execution", ... */
	uint8_t scope_type;        /**< PROFDB_SCOPE_* (dev-stage: derived from the name) */
	uint8_t prop_index;        /**< propagation bit for transitive scopes, 255 otherwise */
	uint16_t prop_metric_id;   /**< id used in thread profiles and cct.db */
} profdb_hpctk_prop;

/** One summary statistic of a metric. @since 0.9 */
typedef struct profdb_hpctk_summary {
	const char *scope;
	uint8_t scope_type;
	uint8_t combine;           /**< PROFDB_COMBINE_* or an unknown stored value */
	uint16_t stat_metric_id;   /**< id used in the summary profile */
	const char *formula;       /**< "$$" = the propagated value */
} profdb_hpctk_summary;

/** Number of metrics, or -errno. The metric table is validated on the first
 *  call (lazily, thread-safe). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_count(const profdb_hpctk *db);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_get(const profdb_hpctk *db, uint32_t metric,
                                          profdb_hpctk_metric *out);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_prop(const profdb_hpctk *db, uint32_t metric,
                                           uint32_t i, profdb_hpctk_prop *out);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_metric_summary(const profdb_hpctk *db, uint32_t metric,
                                              uint32_t i, profdb_hpctk_summary *out);

/* ---- meta.db: load modules, source files, functions --------------------- */

/** A function (also named constructs such as "<gpu kernel>"). @since 0.9 */
typedef struct profdb_hpctk_function {
	const char *name;      /**< NULL for an anonymous function */
	uint32_t module;       /**< module index or PROFDB_NONE */
	uint32_t file;         /**< file index or PROFDB_NONE */
	uint64_t offset;       /**< entry point offset within the module */
	uint32_t line;         /**< definition line */
} profdb_hpctk_function;

/** Counts; each returns a count >= 0 or -errno. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_module_count(const profdb_hpctk *db);
PROFDB_EXPORT int profdb_hpctk_file_count(const profdb_hpctk *db);
PROFDB_EXPORT int profdb_hpctk_function_count(const profdb_hpctk *db);
/** Path of load module @p i. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_module_path(const profdb_hpctk *db, uint32_t i,
                                           const char **path);
/** Path of source file @p i (absolute, or relative to the database
 *  directory); @p copied (may be NULL) is 1 if the file is in src/. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_file_path(const profdb_hpctk *db, uint32_t i,
                                         const char **path, int *copied);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_function_get(const profdb_hpctk *db, uint32_t i,
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
	const char *entry_name;   /**< pretty name of an entry point, else NULL */
	uint64_t pos;             /**< position token: byte offset of the record in meta.db (0 for the root) */
} profdb_hpctk_context;

/** Iterator over the children of one context. Plain value; no cleanup. */
typedef struct profdb_hpctk_children {
	const profdb_hpctk *db;
	uint64_t next, end;       /**< private */
	uint32_t kind;            /**< private */
} profdb_hpctk_children;

/** Number of contexts in the tree (entry points included, the global root
 *  excluded). The first call validates the whole tree (pointers, cycles,
 *  duplicate ids) and builds the id index; thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_context_count(const profdb_hpctk *db);

/** The global root context (id 0). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_root(const profdb_hpctk *db, profdb_hpctk_context *out);

/** Context by id. O(log n) after the lazily built index.
 *  @return 0, -ENOENT (no tree node with this id; it may still carry values,
 *          see doc/model.md), -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_context_by_id(const profdb_hpctk *db, uint32_t id,
                                             profdb_hpctk_context *out);

/** Parent id of context @p id (the root's parent is PROFDB_NONE). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_context_parent(const profdb_hpctk *db, uint32_t id,
                                              uint32_t *parent);

/** Start iterating the children of @p parent. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_children_begin(const profdb_hpctk *db,
                                              const profdb_hpctk_context *parent,
                                              profdb_hpctk_children *it);
/** @return 1 and the next child, 0 at the end, -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_children_next(profdb_hpctk_children *it,
                                             profdb_hpctk_context *out);

/** Depth-first pre-order walk of the whole tree with an explicit stack
 *  (trees thousands deep are fine). Opaque; one thread at a time. */
typedef struct profdb_hpctk_walk profdb_hpctk_walk;
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_walk_new(const profdb_hpctk *db, profdb_hpctk_walk **ret);
/** @return 1 with the next context and its depth (root = 0), 0 at the end.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_walk_next(profdb_hpctk_walk *w, profdb_hpctk_context *out,
                                         uint32_t *depth);
/** @since 0.9 */
PROFDB_EXPORT void profdb_hpctk_walk_free(profdb_hpctk_walk *w);

/* ---- profile.db and cct.db: sparse value planes -------------------------- */

/** Identifier of a profile (one element of its identifier tuple). */
typedef struct profdb_hpctk_id {
	uint8_t kind;          /**< index into the identifier kind names */
	uint16_t flags;        /**< bit 0: isPhysical */
	uint32_t logical_id;
	uint64_t physical_id;
} profdb_hpctk_id;

/** A profile (thread, process, GPU stream; profile 0 is the summary). */
typedef struct profdb_hpctk_profile {
	uint32_t index;
	int is_summary;        /**< values use summary (stat) metric ids */
	uint32_t n_ids;        /**< identifier tuple length */
	uint64_t n_values;     /**< stored (context, metric) entries */
	uint32_t n_contexts;   /**< non-empty contexts */
	uint64_t pos;          /**< private: offset of the identifier tuple */
} profdb_hpctk_profile;

/** A sparse plane: profile-major (index keyed by context, values keyed by
 *  metric id) or context-major (index keyed by metric id, values keyed by
 *  profile index). Transparent, points into the mapping; validated (sorted
 *  keys, monotone starts, arrays inside the file) before it is handed out. */
typedef struct profdb_hpctk_plane {
	const unsigned char *index;   /**< n_index records of index_stride bytes */
	const unsigned char *values;  /**< n_values records of value_stride bytes */
	uint64_t n_index, n_values;
	uint8_t index_key_size;       /**< 4 (context id) or 2 (metric id) */
	uint8_t value_key_size;       /**< 2 (metric id) or 4 (profile index) */
} profdb_hpctk_plane;

/** One run of (key, value) pairs of a plane: the metrics of one context of
 *  a profile, or the profiles of one metric of a context. */
typedef struct profdb_hpctk_run {
	const unsigned char *values;
	uint64_t count;
	uint8_t key_size;
} profdb_hpctk_run;

/** Number of profiles in profile.db, or -errno (-ENOENT without it).
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_profile_count(const profdb_hpctk *db);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_profile_get(const profdb_hpctk *db, uint32_t profile,
                                           profdb_hpctk_profile *out);
/** Element @p i of a profile's identifier tuple. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_profile_id(const profdb_hpctk *db,
                                          const profdb_hpctk_profile *p, uint32_t i,
                                          profdb_hpctk_id *out);
/** The value plane of a profile (validated on first use, thread-safe).
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_profile_plane(const profdb_hpctk *db, uint32_t profile,
                                             profdb_hpctk_plane *out);
/** Number of context slots in cct.db (max context id + 1), or -errno.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_cct_slot_count(const profdb_hpctk *db);
/** The value plane of a context in cct.db (empty for unused slots).
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_context_plane(const profdb_hpctk *db, uint32_t ctx_id,
                                             profdb_hpctk_plane *out);

/** Index record @p i of a plane: its key and its run. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_plane_at(const profdb_hpctk_plane *p, uint64_t i,
                                        uint32_t *key, profdb_hpctk_run *run);
/** Binary search of the index. @return 1 found, 0 absent. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_plane_find(const profdb_hpctk_plane *p, uint32_t key,
                                          profdb_hpctk_run *run);
/** Pair @p i of a run. The value is returned bit-for-bit (NaN payloads,
 *  -0.0, denormals). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_run_at(const profdb_hpctk_run *r, uint64_t i,
                                      uint32_t *key, double *value);
/** Binary search of a run. @return 1 found, 0 absent. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_run_find(const profdb_hpctk_run *r, uint32_t key,
                                        double *value);

/** Point lookup through profile.db (@p metric is a stat id for the summary
 *  profile, a prop id otherwise). @return 1 found, 0 absent, <0. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_value(const profdb_hpctk *db, uint32_t profile,
                                     uint32_t ctx_id, uint32_t metric, double *value);
/** Point lookup through cct.db. @return 1 found, 0 absent, <0. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_cct_value(const profdb_hpctk *db, uint32_t ctx_id,
                                         uint32_t metric, uint32_t profile, double *value);

/** Validate the whole database and compare its files with each other (the
 *  other calls check each file on its own, lazily, and never compare
 *  them): every block, the tree and every trace line; cct.db must hold
 *  exactly the values of profile.db's thread profiles, bit for bit; every
 *  metric id a value uses must be one meta.db defines (propagated ids in
 *  thread profiles and cct.db, summary statistic ids in the summary
 *  profile); cct.db must not name the summary or an absent profile; trace
 *  lines must belong to profiles of profile.db. Time O(V log V) for V
 *  values. @return 0 (consistent), -EBADMSG naming the disagreement, or
 *  the code of the first damaged block. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_check(const profdb_hpctk *db);

/* ---- trace.db ----------------------------------------------------------- */

/** A trace line: @c count elements of 12 bytes (u64 time in ns, u32 context
 *  id; id 0 = not running), sorted by time (checked before it is handed
 *  out). */
typedef struct profdb_hpctk_trace {
	uint32_t profile;            /**< profile.db index */
	const unsigned char *elems;  /**< NULL when empty */
	uint64_t count;
} profdb_hpctk_trace;

/** Number of trace lines (empty ones included), or -errno. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpctk_trace_count(const profdb_hpctk *db);
/** @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_trace_get(const profdb_hpctk *db, uint32_t i,
                                         profdb_hpctk_trace *out);
/** Global time bounds from the header. @return 1 if the database has
 *  samples, 0 if not (empty sentinels), <0. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_trace_bounds(const profdb_hpctk *db, uint64_t *min_ns,
                                            uint64_t *max_ns);
/** Element @p i. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_trace_at(const profdb_hpctk_trace *t, uint64_t i,
                                        uint64_t *time_ns, uint32_t *ctx_id);
/** Index of the sample in effect at time @p t (the last one with time <= t).
 *  @return 1 and *index, or 0 if t precedes the first sample. @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_trace_seek(const profdb_hpctk_trace *t, uint64_t time_ns,
                                          uint64_t *index);
/** Samples with from <= time < to: [*first, *last). @since 0.9 */
PROFDB_EXPORT int profdb_hpctk_trace_window(const profdb_hpctk_trace *t, uint64_t from_ns,
                                            uint64_t to_ns, uint64_t *first, uint64_t *last);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_HPCTK_H */
