/* profdb — zero-copy readers for HPC performance-profile databases.
 *
 * This header is the whole public API. It compiles as C11 (-pedantic) and C++.
 *
 * Conventions (doc/CONVENTIONS.md has the long form):
 *  - Every function returning int returns >= 0 on success and a negative errno
 *    value on failure. Cursors return 1 (moved), 0 (end) or < 0 (error).
 *    Error codes used:
 *      -EINVAL           bad argument from the caller
 *      -ENOENT           the file or the requested item does not exist
 *      -EBADMSG          corrupt structure (pointer out of range, unsorted index,
 *                        cycle, count that contradicts a pointer, ...)
 *      -ENODATA          truncated file
 *      -EPROTONOSUPPORT  wrong magic or unsupported major version
 *      -ENOMEM, -EIO and the errno values of open(2)/mmap(2)
 *  - After a call failed, profdb_error_message() returns a human-readable
 *    description naming the file, the structure and the byte offset. The
 *    message is thread-local: it belongs to the calling thread and to its most
 *    recent failed call. Successful calls do not clear it.
 *  - Thread rule: a database handle is read-only after open. Any number of
 *    threads may call any function on the same handle at the same time,
 *    including the first call that builds a lazy index. Iterator and walker
 *    objects belong to one thread at a time.
 *  - Lifetime rule: every pointer returned (strings, views, runs, traces)
 *    points into the read-only mapping of the input and stays valid until the
 *    database is closed. Strings are NUL-terminated.
 *  - Nothing is printed. Warnings (recoverable oddities) go to the callback in
 *    profdb_options.
 */
#ifndef PROFDB_PROFDB_H
#define PROFDB_PROFDB_H

#include <stddef.h>
#include <stdint.h>

#include "profdb-version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(PROFDB_STATIC_BUILD)
#define PROFDB_EXPORT __attribute__((visibility("default")))
#else
#define PROFDB_EXPORT
#endif

/* ------------------------------------------------------------------------ */
/* Library-wide                                                             */
/* ------------------------------------------------------------------------ */

/** Runtime version, PROFDB_VERSION_NUMBER of the library actually loaded.
 *  @since 0.1 */
PROFDB_EXPORT uint32_t profdb_version_number(void);

/** Description of the most recent failure of a profdb call in this thread
 *  ("" if none). Valid until the next failing call in the same thread.
 *  @since 0.1 */
PROFDB_EXPORT const char *profdb_error_message(void);

/** Warning callback: @p message names the file, structure and offset.
 *  Called from whichever thread triggered the warning. @since 0.1 */
typedef void (*profdb_warn_fn)(const char *message, void *userdata);

/** Progress hook: @p done out of @p total units (bytes, usually) of the
 *  current operation. Return 0 to go on, non-zero to cancel: the operation
 *  then fails with -ECANCELED. Called from the thread doing the work.
 *  @since 0.2 */
typedef int (*profdb_progress_fn)(uint64_t done, uint64_t total, void *userdata);

/** Open flags. @since 0.1 */
enum {
	/** Read whole files into private memory instead of mapping them: a file
	 *  that is truncated while open can then not raise SIGBUS (see
	 *  doc/ROBUSTNESS.md). Costs memory and time proportional to file size. */
	PROFDB_OPEN_COPY = 1u << 0,
	/** Prefault the mapping at open (MAP_POPULATE). */
	PROFDB_OPEN_POPULATE = 1u << 1,
	/** Tolerant mode: a damaged block (one profile's values, one trace
	 *  line, one Cube row, ...) is reported through the warn callback and
	 *  then reads as absent, instead of failing the call. Damage to what
	 *  the whole input depends on (headers, section tables, the context
	 *  tree) still fails. Default: strict. @since 0.2 */
	PROFDB_OPEN_TOLERANT = 1u << 2,
	/** Common interface, Callgrind: leave the line and instruction
	 *  contexts out of the tree (functions only). They are decoded from
	 *  the text on demand, so counting or walking them costs a second
	 *  pass over the text; a caller that ranks functions skips it. Other
	 *  formats ignore the flag. @since 0.2 */
	PROFDB_OPEN_FUNCTIONS_ONLY = 1u << 3,
};

/** Options for every open function. Zero-initialise, then set @c size to
 *  sizeof(profdb_options) so later versions can append fields. A NULL
 *  options pointer means all defaults. @since 0.1 */
typedef struct profdb_options {
	size_t size;           /**< sizeof(profdb_options) */
	uint32_t flags;        /**< PROFDB_OPEN_* */
	profdb_warn_fn warn;   /**< may be NULL */
	void *warn_userdata;
	/** Upper bound, in bytes, on what a decoder may materialise in memory
	 *  (inflated archives and rows, parsed tables, indexes): -EFBIG beyond
	 *  it. 0 means the default, PROFDB_DEFAULT_MAX_MEMORY. @since 0.2 */
	uint64_t max_memory;
	/** Progress/cancel hook for long operations (open of big text or
	 *  compressed inputs, full scans); may be NULL. @since 0.2 */
	profdb_progress_fn progress;
	void *progress_userdata;
} profdb_options;

/** Default of profdb_options.max_memory: 4 GiB. @since 0.2 */
#define PROFDB_DEFAULT_MAX_MEMORY ((uint64_t)4 << 30)

/** A caller-owned byte buffer (open-from-memory). The buffer must stay
 *  unchanged and alive until the database is closed. data == NULL means
 *  "file absent". @since 0.1 */
typedef struct profdb_blob {
	const void *data;
	size_t size;
} profdb_blob;

/* ------------------------------------------------------------------------ */
/* HPCToolkit 4.0 databases: meta.db, profile.db, cct.db, trace.db          */
/* ------------------------------------------------------------------------ */

/** An open HPCToolkit 4.0 database (opaque). @since 0.1 */
typedef struct profdb_hpctk profdb_hpctk;

/** The four files of a database. @since 0.1 */
typedef enum profdb_hpctk_file {
	PROFDB_HPCTK_META = 0,
	PROFDB_HPCTK_PROFILE = 1,
	PROFDB_HPCTK_CCT = 2,
	PROFDB_HPCTK_TRACE = 3,
	PROFDB_HPCTK_NFILES = 4
} profdb_hpctk_file;

/** Which 4.0 layout the database uses (doc/FORMATS.md). @since 0.1 */
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
 *  @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_open(profdb_hpctk **ret, const char *path,
                                    const profdb_options *opts);

/** Open from caller-supplied buffers, indexed by profdb_hpctk_file. Absent
 *  files have data == NULL; at least one must be present. Nothing is
 *  copied. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_open_mem(profdb_hpctk **ret,
                                        const profdb_blob files[PROFDB_HPCTK_NFILES],
                                        const profdb_options *opts);

/** Close and unmap. NULL is a no-op. All views die here. @since 0.1 */
PROFDB_EXPORT void profdb_hpctk_close(profdb_hpctk *db);

/** 1 if the file is present, 0 if not. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_has(const profdb_hpctk *db, profdb_hpctk_file which);

/** Stored version of a present file. @return 0 or -ENOENT. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_version(const profdb_hpctk *db, profdb_hpctk_file which,
                                       uint8_t *major, uint8_t *minor);

/** Layout of the database (decided from meta.db, else profile.db).
 *  @since 0.1 */
PROFDB_EXPORT profdb_hpctk_layout profdb_hpctk_get_layout(const profdb_hpctk *db);

/* ---- meta.db: general properties, identifier names ---------------------- */

/** Title and Markdown description (either out pointer may be NULL).
 *  @return 0, -ENOENT (no meta.db), -EBADMSG. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_title(const profdb_hpctk *db, const char **title,
                                     const char **description);

/** Number of identifier kinds (>= 0) or -errno. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_id_kind_count(const profdb_hpctk *db);

/** Name of identifier kind @p kind ("NODE", "RANK", ...). @since 0.1 */
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

/** A metric, its propagations and summaries, as counts. @since 0.1 */
typedef struct profdb_hpctk_metric {
	const char *name;
	uint32_t n_props;      /**< propagated variants (profile/cct metric ids) */
	uint32_t n_summaries;  /**< summary statistics (summary-profile ids) */
} profdb_hpctk_metric;

/** One propagated variant of a metric. @since 0.1 */
typedef struct profdb_hpctk_prop {
	const char *scope;         /**< "point", "function", "execution", ... */
	uint8_t scope_type;        /**< PROFDB_SCOPE_* (dev-stage: derived from the name) */
	uint8_t prop_index;        /**< propagation bit for transitive scopes, 255 otherwise */
	uint16_t prop_metric_id;   /**< id used in thread profiles and cct.db */
} profdb_hpctk_prop;

/** One summary statistic of a metric. @since 0.1 */
typedef struct profdb_hpctk_summary {
	const char *scope;
	uint8_t scope_type;
	uint8_t combine;           /**< PROFDB_COMBINE_* or an unknown stored value */
	uint16_t stat_metric_id;   /**< id used in the summary profile */
	const char *formula;       /**< "$$" = the propagated value */
} profdb_hpctk_summary;

/** Number of metrics, or -errno. The metric table is validated on the first
 *  call (lazily, thread-safe). @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_metric_count(const profdb_hpctk *db);
/** @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_metric_get(const profdb_hpctk *db, uint32_t metric,
                                          profdb_hpctk_metric *out);
/** @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_metric_prop(const profdb_hpctk *db, uint32_t metric,
                                           uint32_t i, profdb_hpctk_prop *out);
/** @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_metric_summary(const profdb_hpctk *db, uint32_t metric,
                                              uint32_t i, profdb_hpctk_summary *out);

/* ---- meta.db: load modules, source files, functions --------------------- */

/** Index value meaning "none" for module/file/function references. */
#define PROFDB_NONE UINT32_MAX

/** A function (also named constructs such as "<gpu kernel>"). @since 0.1 */
typedef struct profdb_hpctk_function {
	const char *name;      /**< NULL for an anonymous function */
	uint32_t module;       /**< module index or PROFDB_NONE */
	uint32_t file;         /**< file index or PROFDB_NONE */
	uint64_t offset;       /**< entry point offset within the module */
	uint32_t line;         /**< definition line */
} profdb_hpctk_function;

/** Counts; each returns a count >= 0 or -errno. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_module_count(const profdb_hpctk *db);
PROFDB_EXPORT int profdb_hpctk_file_count(const profdb_hpctk *db);
PROFDB_EXPORT int profdb_hpctk_function_count(const profdb_hpctk *db);
/** Path of load module @p i. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_module_path(const profdb_hpctk *db, uint32_t i,
                                           const char **path);
/** Path of source file @p i (absolute, or relative to the database
 *  directory); @p copied (may be NULL) is 1 if the file is in src/. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_file_path(const profdb_hpctk *db, uint32_t i,
                                         const char **path, int *copied);
/** @since 0.1 */
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
 *  (final layout) or the root contexts (dev-stage). @since 0.1 */
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
 *  duplicate ids) and builds the id index; thread-safe. @since 0.1 */
PROFDB_EXPORT int64_t profdb_hpctk_context_count(const profdb_hpctk *db);

/** The global root context (id 0). @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_root(const profdb_hpctk *db, profdb_hpctk_context *out);

/** Context by id. O(log n) after the lazily built index.
 *  @return 0, -ENOENT (no tree node with this id; it may still carry values,
 *          see doc/model.md), -EBADMSG. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_context_by_id(const profdb_hpctk *db, uint32_t id,
                                             profdb_hpctk_context *out);

/** Parent id of context @p id (the root's parent is PROFDB_NONE). @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_context_parent(const profdb_hpctk *db, uint32_t id,
                                              uint32_t *parent);

/** Start iterating the children of @p parent. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_children_begin(const profdb_hpctk *db,
                                              const profdb_hpctk_context *parent,
                                              profdb_hpctk_children *it);
/** @return 1 and the next child, 0 at the end, -EBADMSG. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_children_next(profdb_hpctk_children *it,
                                             profdb_hpctk_context *out);

/** Depth-first pre-order walk of the whole tree with an explicit stack
 *  (trees thousands deep are fine). Opaque; one thread at a time. */
typedef struct profdb_hpctk_walk profdb_hpctk_walk;
/** @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_walk_new(const profdb_hpctk *db, profdb_hpctk_walk **ret);
/** @return 1 with the next context and its depth (root = 0), 0 at the end.
 *  @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_walk_next(profdb_hpctk_walk *w, profdb_hpctk_context *out,
                                         uint32_t *depth);
/** @since 0.1 */
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
 *  @since 0.1 */
PROFDB_EXPORT int64_t profdb_hpctk_profile_count(const profdb_hpctk *db);
/** @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_profile_get(const profdb_hpctk *db, uint32_t profile,
                                           profdb_hpctk_profile *out);
/** Element @p i of a profile's identifier tuple. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_profile_id(const profdb_hpctk *db,
                                          const profdb_hpctk_profile *p, uint32_t i,
                                          profdb_hpctk_id *out);
/** The value plane of a profile (validated on first use, thread-safe).
 *  @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_profile_plane(const profdb_hpctk *db, uint32_t profile,
                                             profdb_hpctk_plane *out);
/** Number of context slots in cct.db (max context id + 1), or -errno.
 *  @since 0.1 */
PROFDB_EXPORT int64_t profdb_hpctk_cct_slot_count(const profdb_hpctk *db);
/** The value plane of a context in cct.db (empty for unused slots).
 *  @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_context_plane(const profdb_hpctk *db, uint32_t ctx_id,
                                             profdb_hpctk_plane *out);

/** Index record @p i of a plane: its key and its run. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_plane_at(const profdb_hpctk_plane *p, uint64_t i,
                                        uint32_t *key, profdb_hpctk_run *run);
/** Binary search of the index. @return 1 found, 0 absent. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_plane_find(const profdb_hpctk_plane *p, uint32_t key,
                                          profdb_hpctk_run *run);
/** Pair @p i of a run. The value is returned bit-for-bit (NaN payloads,
 *  -0.0, denormals). @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_run_at(const profdb_hpctk_run *r, uint64_t i,
                                      uint32_t *key, double *value);
/** Binary search of a run. @return 1 found, 0 absent. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_run_find(const profdb_hpctk_run *r, uint32_t key,
                                        double *value);

/** Point lookup through profile.db (@p metric is a stat id for the summary
 *  profile, a prop id otherwise). @return 1 found, 0 absent, <0. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_value(const profdb_hpctk *db, uint32_t profile,
                                     uint32_t ctx_id, uint32_t metric, double *value);
/** Point lookup through cct.db. @return 1 found, 0 absent, <0. @since 0.1 */
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
 *  the code of the first damaged block. @since 0.2 */
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

/** Number of trace lines (empty ones included), or -errno. @since 0.1 */
PROFDB_EXPORT int64_t profdb_hpctk_trace_count(const profdb_hpctk *db);
/** @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_trace_get(const profdb_hpctk *db, uint32_t i,
                                         profdb_hpctk_trace *out);
/** Global time bounds from the header. @return 1 if the database has
 *  samples, 0 if not (empty sentinels), <0. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_trace_bounds(const profdb_hpctk *db, uint64_t *min_ns,
                                            uint64_t *max_ns);
/** Element @p i. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_trace_at(const profdb_hpctk_trace *t, uint64_t i,
                                        uint64_t *time_ns, uint32_t *ctx_id);
/** Index of the sample in effect at time @p t (the last one with time <= t).
 *  @return 1 and *index, or 0 if t precedes the first sample. @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_trace_seek(const profdb_hpctk_trace *t, uint64_t time_ns,
                                          uint64_t *index);
/** Samples with from <= time < to: [*first, *last). @since 0.1 */
PROFDB_EXPORT int profdb_hpctk_trace_window(const profdb_hpctk_trace *t, uint64_t from_ns,
                                            uint64_t to_ns, uint64_t *first, uint64_t *last);

/* ======================================================================== */
/* Cube4 .cubex archives (Score-P, Scalasca, CubeLib/CubeW)        @since 0.2 */
/* ======================================================================== */
/*
 * A .cubex file is a tar archive holding anchor.xml (metric tree, regions,
 * call tree, system tree) and, per metric with data, <id>.index and
 * <id>.data. doc/FORMATS.md ("Cube") lists what is accepted and where real
 * files differ from the published description.
 *
 * Addressing: metrics, regions, cnodes and locations are addressed by the
 * ids stored in anchor.xml. Each id set must be exactly 0 .. count-1 (true
 * of every known writer); open fails with -EBADMSG otherwise.
 *
 * Threads: a handle is read-only after open; any number of threads may call
 * any function on it at once. Rows of compressed data (ZCUBEX.DATA) are
 * inflated on first use into a per-handle cache, installed atomically
 * (two threads inflating the same row at once is harmless; one copy wins).
 * Uncompressed rows are read straight from the archive bytes.
 *
 * Lifetimes: every string returned is owned by the handle and valid until
 * profdb_cube_close(). Values and rows are copied into caller memory.
 *
 * Built only when libarchive and expat were found at build time; otherwise
 * profdb_cube_open() and profdb_cube_open_mem() return -ENOTSUP.
 */

/** An open .cubex archive (opaque). @since 0.2 */
typedef struct profdb_cube profdb_cube;

/** Kind of a metric (the anchor's @c type attribute). @since 0.2 */
typedef enum profdb_cube_kind {
	PROFDB_CUBE_EXCLUSIVE = 0,    /**< stored values are call-tree exclusive (also: no type) */
	PROFDB_CUBE_INCLUSIVE = 1,    /**< stored values are call-tree inclusive */
	PROFDB_CUBE_SIMPLE = 2,       /**< rows in definition (cnode id) order */
	PROFDB_CUBE_POSTDERIVED = 3,  /**< derived (CubePL): no data, values not evaluated */
	PROFDB_CUBE_PREDERIVED_INCLUSIVE = 4, /**< derived, no data */
	PROFDB_CUBE_PREDERIVED_EXCLUSIVE = 5  /**< derived, no data */
} profdb_cube_kind;

/** Stored value type of a metric. @since 0.2 */
typedef enum profdb_cube_dtype {
	PROFDB_CUBE_INT8 = 0, PROFDB_CUBE_UINT8, PROFDB_CUBE_INT16, PROFDB_CUBE_UINT16,
	PROFDB_CUBE_INT32, PROFDB_CUBE_UINT32, PROFDB_CUBE_INT64, PROFDB_CUBE_UINT64,
	PROFDB_CUBE_DOUBLE,       /**< also FLOAT (64-bit in Cube) */
	PROFDB_CUBE_MINDOUBLE,    /**< aggregated with min; neutral +DBL_MAX */
	PROFDB_CUBE_MAXDOUBLE,    /**< aggregated with max; neutral -DBL_MAX */
	PROFDB_CUBE_COMPLEX,      /**< f64 re, im */
	PROFDB_CUBE_RATE,         /**< f64 main, duration */
	PROFDB_CUBE_TAU_ATOMIC,   /**< packed: u32 n, f64 min, max, sum, sum2 (36 bytes) */
	PROFDB_CUBE_HISTOGRAM,    /**< f64 min, max, then dtype_arg doubles */
	PROFDB_CUBE_NDOUBLES,     /**< dtype_arg doubles */
	PROFDB_CUBE_SCALE_FUNC    /**< 848 opaque bytes */
} profdb_cube_dtype;

/** A metric. @since 0.2 */
typedef struct profdb_cube_metric {
	uint32_t id;
	const char *name;          /**< uniq_name */
	const char *display_name;  /**< disp_name ("" if absent) */
	const char *unit;          /**< uom ("" if absent) */
	const char *description;   /**< descr ("" if absent) */
	const char *dtype_name;    /**< the dtype text as stored */
	profdb_cube_dtype dtype;   /**< unknown dtype names read as DOUBLE (with a warning) */
	uint32_t dtype_arg;        /**< n of HISTOGRAM(n) / NDOUBLES(n), else 0 */
	uint32_t value_size;       /**< bytes per location in a row */
	profdb_cube_kind kind;
	int has_data;              /**< 1 if the archive holds its rows */
	int ghost;                 /**< 1 for viztype="GHOST" */
	uint32_t parent;           /**< parent metric id, PROFDB_NONE for a root */
	uint32_t first_child;      /**< PROFDB_NONE if none */
	uint32_t next_sibling;     /**< next child of the parent (or next root) */
	const char *url;           /**< "" if absent */
	/** CubePL of a derived metric, "" when none: <cubepl> (the value),
	 *  <cubeplinit> (run once), <cubeplaggr cubeplaggrtype=plus|minus|aggr>.
	 *  Listed, not evaluated. */
	const char *expression, *init_expression;
	const char *aggr_plus, *aggr_minus, *aggr_aggr;
} profdb_cube_metric;

/** A region (function, loop, ...). @since 0.2 */
typedef struct profdb_cube_region {
	uint32_t id;
	const char *name;
	const char *mangled_name;  /**< "" if absent */
	const char *module;        /**< the @c mod attribute, "" if absent */
	const char *paradigm;      /**< "" if absent */
	const char *role;          /**< "" if absent */
	int64_t begin_line, end_line; /**< -1 if absent */
	const char *url;           /**< "" if absent */
	const char *description;   /**< "" if absent */
} profdb_cube_region;

/** A call-tree node. Roots have parent == PROFDB_NONE and are chained in
 *  XML order by next_sibling, starting at profdb_cube_info.first_root.
 *  @since 0.2 */
typedef struct profdb_cube_cnode {
	uint32_t id;
	uint32_t region;           /**< callee region id */
	const char *region_name;
	uint32_t parent, first_child, next_sibling;  /**< ids or PROFDB_NONE */
	int64_t line;              /**< call-site line, -1 if absent */
	const char *module;        /**< call-site module, "" if absent */
	uint32_t n_params;         /**< see profdb_cube_cnode_param() */
} profdb_cube_cnode;

/** A location (thread, GPU stream, ...). @since 0.2 */
typedef struct profdb_cube_location {
	uint32_t id;               /**< also its column in every row */
	const char *name;
	const char *type;          /**< "thread", "gpu", ... ("thread" for Cube3 files) */
	int64_t rank;              /**< the location's own rank (thread number) */
	int64_t process_rank;      /**< rank of its location group (process) */
	const char *group_name;    /**< its location group (process) */
	const char *node_name;     /**< the enclosing system-tree node ("" if none) */
	uint32_t group;            /**< index of its location group */
} profdb_cube_location;

/** A location group (Score-P: a process; Cube3 <process>), by index in
 *  document order (0 .. n_location_groups-1). @since 0.2 */
typedef struct profdb_cube_location_group {
	uint32_t index;
	uint32_t id;               /**< the Id attribute as stored */
	const char *name;
	const char *type;          /**< "process", "metrics", "accelerator", "" */
	int64_t rank;              /**< -1 if absent */
	uint32_t node;             /**< index of its system-tree node, PROFDB_NONE */
} profdb_cube_location_group;

/** A system-tree node (Cube3 <machine> and <node> too), by index in
 *  document order (0 .. n_system_nodes-1); parents come first. @since 0.2 */
typedef struct profdb_cube_system_node {
	uint32_t index;
	uint32_t id;               /**< the Id attribute as stored */
	const char *name;
	const char *klass;         /**< <class>: "machine", "node", ... ("" if absent) */
	uint32_t parent;           /**< index, PROFDB_NONE for a root */
} profdb_cube_system_node;

/** What an attribute belongs to, what a topology coordinate names, and
 *  where profdb_cube_severity() aggregates. @since 0.2 */
typedef enum profdb_cube_item {
	PROFDB_CUBE_ITEM_CUBE = 0,           /**< the file; for severity: every location */
	PROFDB_CUBE_ITEM_METRIC = 1,         /**< a metric id */
	PROFDB_CUBE_ITEM_REGION = 2,         /**< a region id */
	PROFDB_CUBE_ITEM_CNODE = 3,          /**< a cnode id */
	PROFDB_CUBE_ITEM_SYSTEM_NODE = 4,    /**< a system-tree node index */
	PROFDB_CUBE_ITEM_LOCATION_GROUP = 5, /**< a location group index */
	PROFDB_CUBE_ITEM_LOCATION = 6        /**< a location id */
} profdb_cube_item;

/** Archive-wide facts. @since 0.2 */
typedef struct profdb_cube_info {
	const char *anchor_version;   /**< <cube version="..."> */
	const char *creator;          /**< attr "Creator", "" if absent */
	uint32_t n_metrics, n_regions, n_cnodes, n_locations;
	uint32_t n_location_groups, n_system_nodes;
	uint32_t first_root;          /**< first root cnode id (PROFDB_NONE if no cnodes) */
	uint32_t first_root_metric;   /**< first root metric id */
	int gzipped;                  /**< 1 if the archive itself was compressed */
	uint32_t n_attrs;             /**< <attr> elements, all owners */
	uint32_t n_carts;             /**< cartesian topologies */
} profdb_cube_info;

/** Limit on the inflated size of a compressed archive or anchor.xml
 *  (-EFBIG beyond it). @since 0.2 */
#define PROFDB_CUBE_MAX_INFLATE ((uint64_t)4 << 30)

/** Open a .cubex file. A plain tar is mapped and read in place; a
 *  compressed one (gzip, or any filter libarchive knows) is inflated once
 *  into memory, at most PROFDB_CUBE_MAX_INFLATE bytes. The tar headers,
 *  anchor.xml and every index are validated here; rows are decoded lazily.
 *  @param[out] ret  the handle, NULL on failure
 *  @return 0, -ENOENT (no file / no anchor.xml member), -EBADMSG (corrupt
 *          archive, XML or index), -ENODATA (truncated), -EPROTONOSUPPORT
 *          (not a tar archive, unsupported anchor version), -ENOTSUP (built
 *          without libarchive/expat, or a feature this build lacks), -EFBIG,
 *          -ENOMEM, -errno of I/O. @since 0.2 */
PROFDB_EXPORT int profdb_cube_open(profdb_cube **ret, const char *path,
                                   const profdb_options *opts);

/** Open from a caller buffer (unchanged and alive until close; nothing is
 *  copied for a plain tar). Same checks and codes as profdb_cube_open().
 *  @since 0.2 */
PROFDB_EXPORT int profdb_cube_open_mem(profdb_cube **ret, const void *data, size_t size,
                                       const profdb_options *opts);

/** Close; NULL is a no-op. Every string of the handle dies here. @since 0.2 */
PROFDB_EXPORT void profdb_cube_close(profdb_cube *cube);

/** @since 0.2 */
PROFDB_EXPORT int profdb_cube_get_info(const profdb_cube *cube, profdb_cube_info *out);

/** Counts (>= 0) or -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cube_metric_count(const profdb_cube *cube);
PROFDB_EXPORT int profdb_cube_region_count(const profdb_cube *cube);
PROFDB_EXPORT int profdb_cube_cnode_count(const profdb_cube *cube);
PROFDB_EXPORT int profdb_cube_location_count(const profdb_cube *cube);

/** Items by id. @return 0, -ENOENT (id out of range), -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cube_metric_get(const profdb_cube *cube, uint32_t id,
                                         profdb_cube_metric *out);
PROFDB_EXPORT int profdb_cube_region_get(const profdb_cube *cube, uint32_t id,
                                         profdb_cube_region *out);
PROFDB_EXPORT int profdb_cube_cnode_get(const profdb_cube *cube, uint32_t id,
                                        profdb_cube_cnode *out);
PROFDB_EXPORT int profdb_cube_location_get(const profdb_cube *cube, uint32_t id,
                                           profdb_cube_location *out);

/** Parameter @p i of cnode @p cnode: key, value text, and whether it was
 *  declared numeric. @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cube_cnode_param(const profdb_cube *cube, uint32_t cnode, uint32_t i,
                                          const char **key, const char **value, int *numeric);

/** The stored value of (metric, cnode, location) as a double: exclusive for
 *  EXCLUSIVE metrics, inclusive for INCLUSIVE ones (see the metric's kind).
 *  Integers are converted; the structured dtypes give CubeLib's single
 *  number (getDouble): COMPLEX |z|, RATE main/duration (NaN for duration 0),
 *  TAU_ATOMIC sum/N (sum/1e-256 when N = 0), HISTOGRAM and NDOUBLES the sum
 *  of their bins / doubles. A missing row gives the neutral value (0, or
 *  +DBL_MAX / -DBL_MAX for MINDOUBLE / MAXDOUBLE).
 *  @return 1 stored, 0 neutral (no row, or a metric without data),
 *          -ENOENT (an id out of range), -ENOTSUP (SCALE_FUNC, which is not
 *          one number: read it with profdb_cube_row()), -EBADMSG (a
 *          compressed row that does not inflate), -ENOMEM. @since 0.2 */
PROFDB_EXPORT int profdb_cube_value(const profdb_cube *cube, uint32_t metric, uint32_t cnode,
                                    uint32_t location, double *out);

/** Copy the row of (metric, cnode) into @p buf: n_locations × value_size
 *  bytes, column = location id, each field converted to host byte order
 *  (TAU_ATOMIC stays packed; SCALE_FUNC is copied as stored). A missing row
 *  is filled with neutral values (zeros, or +-DBL_MAX for MIN/MAXDOUBLE).
 *  @return 1 stored, 0 neutral, -ERANGE (@p size too small), -ENOENT,
 *          -EBADMSG, -ENOMEM. @since 0.2 */
PROFDB_EXPORT int profdb_cube_row(const profdb_cube *cube, uint32_t metric, uint32_t cnode,
                                  void *buf, size_t size);

/** Location group / system-tree node by index. @return 0, -ENOENT,
 *  -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cube_location_group_get(const profdb_cube *cube, uint32_t index,
                                                 profdb_cube_location_group *out);
PROFDB_EXPORT int profdb_cube_system_node_get(const profdb_cube *cube, uint32_t index,
                                              profdb_cube_system_node *out);

/** An <attr key value/>: of the file, a metric, region, cnode, system-tree
 *  node, location group or location. @since 0.2 */
typedef struct profdb_cube_attr {
	profdb_cube_item owner;
	uint32_t owner_id;         /**< id or index as profdb_cube_item says; 0 for the file */
	const char *key, *value;
} profdb_cube_attr;

/** Attribute @p i (0 .. n_attrs-1, document order). @return 0, -ENOENT,
 *  -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cube_attr_get(const profdb_cube *cube, uint32_t i,
                                       profdb_cube_attr *out);

/** A cartesian topology (<cart> inside <topologies>). @since 0.2 */
typedef struct profdb_cube_cart {
	uint32_t index;
	const char *name;          /**< "" if absent */
	uint32_t ndims;
	uint32_t n_coords;
} profdb_cube_cart;

/** One coordinate of a topology: the item it places (a location, a
 *  location group or a system-tree node; Cube3 thrdId/procId/nodeId/machId
 *  resolve to the same kinds) and its ndims values. @since 0.2 */
typedef struct profdb_cube_coord {
	profdb_cube_item kind;
	uint32_t item;             /**< location id, group or node index */
	const int64_t *values;     /**< ndims values, owned by the handle */
} profdb_cube_coord;

/** Topology @p index (0 .. n_carts-1), its dimension @p dim, and its
 *  coordinate @p i. @return 0, -ENOENT, -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cube_cart_get(const profdb_cube *cube, uint32_t index,
                                       profdb_cube_cart *out);
PROFDB_EXPORT int profdb_cube_cart_dim(const profdb_cube *cube, uint32_t index, uint32_t dim,
                                       const char **name, int64_t *size, int *periodic);
PROFDB_EXPORT int profdb_cube_cart_coord(const profdb_cube *cube, uint32_t index, uint32_t i,
                                         profdb_cube_coord *out);

/** Flags of profdb_cube_severity(). @since 0.2 */
enum {
	/** Call-tree inclusive (the cnode and its subtree); without it,
	 *  call-tree exclusive. Whatever the metric stores is converted. */
	PROFDB_CUBE_CALL_INCLUSIVE = 1u << 0,
	/** Metric-tree exclusive: minus the child metrics' values (same cnode,
	 *  view and system item). Without it, the value as stored, which
	 *  already includes the child metrics (CubeLib's default). */
	PROFDB_CUBE_METRIC_EXCLUSIVE = 1u << 1
};

/** The value CubeLib shows for (metric, cnode, system item): converted
 *  along the call tree, aggregated over the locations below @p where
 *  (PROFDB_CUBE_ITEM_LOCATION, _LOCATION_GROUP, _SYSTEM_NODE, or _CUBE
 *  for every location) and, with PROFDB_CUBE_METRIC_EXCLUSIVE, made
 *  metric-exclusive. Computed in double in a fixed order, documented in
 *  doc/FORMATS.md ("Cube"), with the arithmetic of CubeLib's value class
 *  for the dtype: + for numbers, min / max for MINDOUBLE / MAXDOUBLE, per
 *  field for COMPLEX / NDOUBLES, fractions for RATE, count, min, max, sums
 *  for TAU_ATOMIC, rebinning for HISTOGRAM; the result is the aggregate's
 *  single number (as profdb_cube_value() describes). Missing rows are
 *  neutral; UINT64 values above 0xFFFFFFFFFFFFFBFF count as 0, as in
 *  CubeLib. Nothing is cached: the cost is the subtree's rows (inclusive
 *  view) or the children's rows (exclusive view of an INCLUSIVE metric).
 *  @return 0, -ENOENT (an id or index out of range), -ENOTSUP (a derived
 *          metric, which is not evaluated, or SCALE_FUNC), -EINVAL,
 *          -EBADMSG, -EFBIG (rows beyond max_memory), -ENOMEM. @since 0.2 */
PROFDB_EXPORT int profdb_cube_severity(const profdb_cube *cube, uint32_t metric, uint32_t cnode,
                                       profdb_cube_item where, uint32_t where_id,
                                       unsigned flags, double *out);

/** The aggregate of profdb_cube_severity() before it becomes one number:
 *  the fields of CubeLib's value, in this order:
 *    integers, DOUBLE, MIN/MAXDOUBLE  1: the number
 *    COMPLEX                          2: re, im
 *    RATE                             2: main, duration (neutral 0, 1)
 *    TAU_ATOMIC                       5: N, min, max, sum, sum2
 *    HISTOGRAM(n)                 n + 2: min, max, n bins
 *    NDOUBLES(n)                      n: the doubles
 *  @p flags: PROFDB_CUBE_CALL_INCLUSIVE or 0 (metric-exclusive values
 *  exist only as numbers: -EINVAL).
 *  @return the number of fields written (>= 0), -ERANGE (@p n_fields too
 *          small), and the codes of profdb_cube_severity(). @since 0.2 */
PROFDB_EXPORT int profdb_cube_severity_fields(const profdb_cube *cube, uint32_t metric,
                                              uint32_t cnode, profdb_cube_item where,
                                              uint32_t where_id, unsigned flags,
                                              double *fields, size_t n_fields);

/* ---- end of Cube -------------------------------------------------------- */

/* ======================================================================== */
/* Callgrind profiles (valgrind --tool=callgrind, Xdebug, ...)   @since 0.2 */
/* ======================================================================== */
/*
 * A Callgrind file (text, optionally gzip-compressed) is scanned once at
 * open. doc/FORMATS.md ("Callgrind") lists the grammar accepted, the
 * decoding rules, the recoveries (each reported through the warn callback)
 * and the limits:
 *  - a line may hold at most 1 MiB (-EBADMSG beyond);
 *  - at most 256 event types (derived ones included);
 *  - a gzip file (recognised by its magic, any name) is decompressed once
 *    into memory, at most min(2 GiB, options.max_memory) of text (-EFBIG
 *    beyond); without zlib at build time it fails with -ENOTSUP.
 *
 * Model (doc/model.md): a profile is one part of one file: a file written
 * with --combine-dumps holds many, and a group (profdb_cg_open_group) holds
 * the files of a --separate-threads run (one per thread) or of a periodic
 * dump series (each dump holds the cost since the previous one: a time
 * slice). Functions are keyed by (object, file, name) over the whole
 * group. Self costs are exclusive. A call edge (caller, callee) sums every
 * calls= line between the two functions: the call count and the inclusive
 * cost per event. Every "all profiles" value is the sum over profiles.
 *
 * Memory: the open keeps per (profile, function) and per (profile, call
 * edge) one row of costs, plus ~64 bytes per run of body lines of one
 * function (for the on-demand detail); line/instruction costs and jumps are
 * decoded from the text when asked for (profdb_cg_detail_new).
 *
 * Errors: open returns -EPROTONOSUPPORT (not a Callgrind file, version >= 2),
 * -EBADMSG (malformed line, overflow, line too long, binary data), -ENODATA
 * (truncated file), -ENOTSUP, -ENOMEM, -EFBIG, -ECANCELED (progress hook)
 * or the errno of open(2)/mmap(2). The message names the file, the line
 * number and the byte offset.
 *
 * Threads: a handle is read-only after open; any number of threads may call
 * any function on it at once (the inclusive tables are built on first use,
 * thread-safely). A profdb_cg_detail belongs to one thread at a time.
 *
 * Lifetimes: names are (pointer, length) views into the mapping, the
 * caller's buffer or the decompressed copy; they are NOT NUL-terminated and
 * may contain any byte except '\n' (a NUL byte in a name is kept, with a
 * warning). Cost arrays (profdb_cg_event_count() values each) are owned by
 * the handle (or by the detail object). Everything stays valid until
 * profdb_cg_close() (profdb_cg_detail_free()).
 */

/** An open Callgrind profile or group of files (opaque). @since 0.2 */
typedef struct profdb_cg profdb_cg;

/** "Every profile" for the functions that take a profile index. @since 0.2 */
#define PROFDB_CG_ALL UINT32_MAX

/** Open and parse one file (plain or gzip).
 *  @param[out] ret  the handle, NULL on failure
 *  @return 0 or a negative errno (see above). @since 0.2 */
PROFDB_EXPORT int profdb_cg_open(profdb_cg **ret, const char *path, const profdb_options *opts);

/** Open @p path together with its siblings in the same directory: NAME-NN
 *  (--separate-threads), NAME.N (dumps) and NAME.N-NN, where NAME is @p path
 *  or @p path without such a suffix. Order: by dump number (NAME itself,
 *  the last dump, comes after NAME.N), then by thread. An empty file (the
 *  base file of --separate-threads) contributes no profile. Without
 *  siblings this is profdb_cg_open(). @since 0.2 */
PROFDB_EXPORT int profdb_cg_open_group(profdb_cg **ret, const char *path,
                                       const profdb_options *opts);

/** Parse a caller buffer (plain or gzip), which must stay unchanged and
 *  alive until close (names point into it; a gzip buffer is decompressed
 *  into a private copy instead). @since 0.2 */
PROFDB_EXPORT int profdb_cg_open_mem(profdb_cg **ret, const void *data, size_t size,
                                     const profdb_options *opts);

struct profdb_input; /* a named caller buffer, defined with the common interface below */

/** Parse named caller buffers as one group (ordered by name as in
 *  profdb_cg_open_group; @p inputs[i].name may be NULL). @since 0.2 */
PROFDB_EXPORT int profdb_cg_open_inputs(profdb_cg **ret, const struct profdb_input *inputs,
                                        size_t n, const profdb_options *opts);

/** Close; NULL is a no-op. All views die here. @since 0.2 */
PROFDB_EXPORT void profdb_cg_close(profdb_cg *cg);

/** An event type (a cost column). @since 0.2 */
typedef struct profdb_cg_event {
	const char *name;           /**< from events: ("Ir") */
	size_t name_len;
	const char *long_name;      /**< from event: Ir : long name; NULL if none */
	size_t long_name_len;
	/** Derived (inherited) event, "event: Sum = Ir + 2 Dr": the formula as
	 *  written, NULL for a stored event. Its values are computed from the
	 *  stored events everywhere (saturating at UINT64_MAX). */
	const char *formula;
	size_t formula_len;
} profdb_cg_event;

/** Number of event types (0 for a file without events:). @since 0.2 */
PROFDB_EXPORT int profdb_cg_event_count(const profdb_cg *cg);
/** @return 0, -EINVAL, -ENOENT (index past the end). @since 0.2 */
PROFDB_EXPORT int profdb_cg_event_get(const profdb_cg *cg, uint32_t i, profdb_cg_event *out);

/** A profile: one part of one file. @since 0.2 */
typedef struct profdb_cg_profile {
	const char *file;           /**< the path or input name (NUL-terminated) */
	uint32_t file_index;        /**< position of the file in the group */
	int has_part, has_thread, has_pid;
	uint64_t part, thread, pid; /**< part:, thread:, pid: as stored */
	int has_dump;               /**< the file name ends in .N (a dump) */
	uint64_t dump;              /**< that N */
	const char *trigger;        /**< desc: Trigger: value (may be NULL) */
	size_t trigger_len;
	const char *cmd;            /**< cmd: value (may be NULL) */
	size_t cmd_len;
	const uint64_t *totals;     /**< computed sum of the profile's self costs */
	const uint64_t *summary;    /**< summary: as stored, or NULL */
	const uint64_t *totals_line;/**< totals: as stored, or NULL */
} profdb_cg_profile;

/** Number of profiles, or -EINVAL. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_profile_count(const profdb_cg *cg);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_profile_get(const profdb_cg *cg, uint32_t i,
                                        profdb_cg_profile *out);

/** A function. @since 0.2 */
typedef struct profdb_cg_function {
	const char *name;           /**< fn= */
	size_t name_len;
	const char *object;         /**< ob= ("" if none) */
	size_t object_len;
	const char *file;           /**< fl= ("" if none) */
	size_t file_len;
	const uint64_t *self;       /**< exclusive cost over all profiles, per event */
} profdb_cg_function;

/** Number of functions, or -EINVAL. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_function_count(const profdb_cg *cg);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_function_get(const profdb_cg *cg, uint32_t i,
                                         profdb_cg_function *out);

/** Self cost of function @p fn in @p profile (or PROFDB_CG_ALL).
 *  @return 1 (the function occurs in the profile), 0 (it does not; *costs
 *  points at zeros), -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_self(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                 const uint64_t **costs);

/** Inclusive cost of function @p fn in @p profile (or PROFDB_CG_ALL): the
 *  rule of doc/FORMATS.md (strongly connected components of the call graph
 *  collapsed, as KCachegrind's cycles), never more than the profile's
 *  totals. Built for all functions of the profile on first use.
 *  @return 1, 0 (not in the profile: zeros), -EINVAL, -ENOENT, -ENOMEM.
 *  @since 0.2 */
PROFDB_EXPORT int profdb_cg_inclusive(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                      const uint64_t **costs);

/** A call edge. @since 0.2 */
typedef struct profdb_cg_call {
	uint32_t caller, callee;    /**< function indices */
	uint64_t count;             /**< sum of the calls= counts */
	const uint64_t *inclusive;  /**< inclusive cost of the calls, per event */
} profdb_cg_call;

/** Number of call edges (over all profiles), or -EINVAL. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_call_count(const profdb_cg *cg);
/** Edge @p i summed over all profiles (@p profile = PROFDB_CG_ALL) or in
 *  one profile. @return 1, 0 (no such calls in that profile: count 0,
 *  zeros), -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_call_get(const profdb_cg *cg, uint32_t profile, uint32_t i,
                                     profdb_cg_call *out);

/** The sum of all self costs of @p profile (or PROFDB_CG_ALL): one value
 *  per event; NULL when there are no events. @return 0, -EINVAL, -ENOENT.
 *  @since 0.2 */
PROFDB_EXPORT int profdb_cg_totals(const profdb_cg *cg, uint32_t profile,
                                   const uint64_t **costs);

/** Which stored line profdb_cg_summary reads. */
enum { PROFDB_CG_SUMMARY = 0, PROFDB_CG_TOTALS = 1 };

/** The summary: or totals: line as stored, summed over the profiles that
 *  have one. They may differ from profdb_cg_totals() (cache simulation,
 *  Xdebug); a totals: that differs is reported through the warn callback at
 *  open. @return 1 (present), 0 (absent), -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cg_summary(const profdb_cg *cg, int which, const uint64_t **costs);

/** Line/instruction detail and jumps of one function, decoded on demand
 *  (owned by the caller, one thread at a time). @since 0.2 */
typedef struct profdb_cg_detail profdb_cg_detail;

/** Self cost of a function at one position: the current fl=/fi=/fe= file
 *  (inlined code has its own file), the line and the instruction address
 *  (0 when the file has no such position column). Rows of a function add
 *  up to its self cost. @since 0.2 */
typedef struct profdb_cg_line {
	const char *file;
	size_t file_len;
	uint64_t line;
	uint64_t instr;
	const uint64_t *self;       /**< one value per event */
} profdb_cg_line;

/** One jump=/jcnd= line, as written (not aggregated). @since 0.2 */
typedef struct profdb_cg_jump {
	uint32_t profile;
	uint64_t from_line, from_instr;   /**< the source position */
	const char *to_file;              /**< jfi= or the current file */
	size_t to_file_len;
	const char *to_function;          /**< jfn= or the current function */
	size_t to_function_len;
	uint64_t to_line, to_instr;
	int conditional;                  /**< 1 for jcnd= */
	uint64_t count;                   /**< jump=: times; jcnd=: times followed */
	uint64_t executed;                /**< jcnd=: times executed; jump=: = count */
} profdb_cg_jump;

/** Decode function @p fn in @p profile (or PROFDB_CG_ALL). Time and memory
 *  are proportional to the function's text. @return 0, -EINVAL, -ENOENT,
 *  -ENOMEM. @since 0.2 */
PROFDB_EXPORT int profdb_cg_detail_new(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                       profdb_cg_detail **ret);
/** NULL is a no-op. @since 0.2 */
PROFDB_EXPORT void profdb_cg_detail_free(profdb_cg_detail *d);
/** One call site: a calls= line of the function and its cost line, as
 *  written (not aggregated), in file order. The call edges
 *  (profdb_cg_call_get) are these summed per (caller, callee). @since 0.2 */
typedef struct profdb_cg_callsite {
	uint32_t profile;
	uint32_t callee;                  /**< function index */
	uint64_t line, instr;             /**< where the call is (0 without that column) */
	const char *file;                 /**< the caller's current file there */
	size_t file_len;
	uint64_t count;                   /**< calls= count (a negative one reads 0) */
	const uint64_t *inclusive;        /**< inclusive cost of the calls, per event */
} profdb_cg_callsite;

/** Rows, sorted by line, then instruction, then file. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_detail_line_count(const profdb_cg_detail *d);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_detail_line(const profdb_cg_detail *d, uint32_t i,
                                        profdb_cg_line *out);
/** Call sites, in file order. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_detail_call_count(const profdb_cg_detail *d);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_detail_call(const profdb_cg_detail *d, uint32_t i,
                                        profdb_cg_callsite *out);
/** Jumps, in file order. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_detail_jump_count(const profdb_cg_detail *d);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_detail_jump(const profdb_cg_detail *d, uint32_t i,
                                        profdb_cg_jump *out);

/* ======================================================================== */
/* hpcrun measurement files (.hpcrun, .hpctrace)                @since 0.2 */
/* ======================================================================== */
/*
 * What hpcrun writes while a program runs, before hpcprof: one .hpcrun
 * profile (versions 02.00, 03.00, 04.00) and optionally one .hpctrace trace
 * (01.01) per thread or process. doc/FORMATS.md ("hpcrun and hpctrace")
 * lists the grammar accepted and where real files differ from the document.
 *
 * hpcrun files carry NO function or source names: a CCT node is a load
 * module id plus an instruction offset in that module (hpcstruct/hpcprof
 * attribute them later). Names of modules are in the per-profile load map.
 *
 * Model: a set of profiles. Opening a measurements directory makes one
 * profile per .hpcrun file (per epoch for 02.00/03.00 files with several
 * epochs), sorted by file name; X.hpctrace is joined to X.hpcrun; a trace
 * without its .hpcrun becomes a trace-only profile (with a warning). Other
 * files (.log, all.lm, ...) are ignored. Metrics, load modules and the CCT
 * belong to each profile (hpcrun writes them per thread).
 *
 * Values are raw (exclusive at the node) 64-bit patterns: an f64 when the
 * metric's value_format is 2 (Real), else an integer (see is_real).
 * profdb_hpcrun_inclusive() sums them up the CCT (rule in doc/FORMATS.md).
 *
 * Open maps every file and closes its descriptor at once (so thousands of
 * files hold no descriptors, only mappings), and checks headers, footers,
 * section bounds, metric tables and load maps. A profile's CCT index
 * (parents, duplicate ids, cycles, sparse value index) is built and checked
 * on first use; a trace is checked for sorted times on first use.
 *
 * Threads, errors and lifetimes follow the rules at the top of this header.
 * Strings are (pointer, length) views into the mapping and are NOT
 * NUL-terminated, except profile names, which the handle owns.
 */

/** An open set of hpcrun files (opaque). @since 0.2 */
typedef struct profdb_hpcrun profdb_hpcrun;

/** Open a .hpcrun file, a .hpctrace file or a measurements directory. A
 *  single file is opened with its partner when that exists (X.hpctrace
 *  next to X.hpcrun, or the reverse).
 *  @return 0, -ENOENT (nothing there / no hpcrun file in the directory),
 *  -EPROTONOSUPPORT (not hpcrun, unsupported version), -EBADMSG, -ENODATA,
 *  -ENOMEM, -errno of I/O. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_open(profdb_hpcrun **ret, const char *path,
                                     const profdb_options *opts);

/** Open caller buffers as one set. @p names (may be NULL, or hold NULLs)
 *  are the file names the buffers would have: they join X.hpctrace to
 *  X.hpcrun and give the profile names; the kind of each buffer is decided
 *  by its magic. Nothing is copied. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_open_mem(profdb_hpcrun **ret, const profdb_blob *inputs,
                                         const char *const *names, size_t n,
                                         const profdb_options *opts);

/** Close; NULL is a no-op. Every view dies here. @since 0.2 */
PROFDB_EXPORT void profdb_hpcrun_close(profdb_hpcrun *h);

/** Version of the .hpcrun files (the first one's when they differ, which
 *  open reports through the warn callback). @return 1 all agree, 0 mixed,
 *  -ENOENT (trace files only), -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_version(const profdb_hpcrun *h, uint8_t *major,
                                        uint8_t *minor);

/** A profile. Identity fields come from the file name
 *  (<prog>-<rank>-<thread>-<host id hex>-<pid>-<n>), -1 when it does not
 *  have that form; the header pairs and id tuple say more. @since 0.2 */
typedef struct profdb_hpcrun_profile {
	uint32_t index;
	const char *name;        /**< file name without extension (owned, NUL-terminated) */
	int has_profile;         /**< 0 for a trace-only profile */
	int has_trace;
	uint8_t major, minor;    /**< .hpcrun version (0.0 when trace-only) */
	uint32_t epoch, n_epochs;
	int64_t rank, thread, host_id, pid, generation;
	uint32_t n_attrs;        /**< header name/value pairs */
	uint32_t n_ids;          /**< id tuple length (04.00) */
	uint32_t n_metrics, n_modules;
	uint64_t n_nodes;        /**< CCT records */
	uint64_t n_values;       /**< stored values: dense n_nodes x n_metrics, or sparse count */
	int has_metric_trailer;  /**< descriptors carry the 2017 trailer */
	int logical_unwind;      /**< 02.00/03.00 epoch flag: LUSH fields present */
	uint64_t epoch_flags, granularity;
	uint32_t ra_offset;
} profdb_hpcrun_profile;

/** Number of profiles (>= 0) or -EINVAL. @since 0.2 */
PROFDB_EXPORT int64_t profdb_hpcrun_profile_count(const profdb_hpcrun *h);
/** @return 0, -ENOENT, -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_profile_get(const profdb_hpcrun *h, uint32_t profile,
                                            profdb_hpcrun_profile *out);

/** A name/value pair of the file header ("mpi-rank", "thread-id", ...).
 *  @since 0.2 */
typedef struct profdb_hpcrun_attr {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
} profdb_hpcrun_attr;

/** Header pair @p i (0 .. n_attrs-1). @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_attr_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                         profdb_hpcrun_attr *out);

/** One element of a 04.00 id tuple. @since 0.2 */
typedef struct profdb_hpcrun_id {
	uint16_t kind;            /**< bits 13-0 of the stored kind (1 NODE, 3 THREAD, ...) */
	uint8_t interpretation;   /**< bits 15-14 */
	const char *kind_name;    /**< from the file's dictionary, NULL if absent */
	size_t kind_name_len;
	uint64_t physical, logical;
} profdb_hpcrun_id;

/** Element @p i (0 .. n_ids-1) of a profile's id tuple. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_id_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                       profdb_hpcrun_id *out);

/** A metric descriptor. The flag fields are decoded from the 16 stored
 *  bytes (an x86-64 struct written raw; see doc/FORMATS.md); raw_flags
 *  points at them. @since 0.2 */
typedef struct profdb_hpcrun_metric {
	const char *name;
	size_t name_len;
	const char *description;
	size_t description_len;
	const char *formula;
	size_t formula_len;
	const char *format;
	size_t format_len;
	uint64_t period;
	uint8_t type;             /**< 1 raw, 2 final, 3 derived */
	uint8_t value_type;       /**< 1 inclusive, 2 exclusive (0 in 04.00) */
	uint8_t value_format;     /**< 1 integer, 2 real */
	uint8_t move2proc, show, show_percent;
	uint16_t partner;
	int packed_flags;         /**< decoded from the old packed bitfield layout */
	const unsigned char *raw_flags;
	int is_real;              /**< values are f64 bit patterns (value_format != 1) */
	int has_trailer;          /**< the fields below are present */
	uint16_t is_frequency, is_multiplexed;
	double threshold_mean;
	uint64_t num_samples;
} profdb_hpcrun_metric;

/** Metric @p i (0 .. n_metrics-1) of a profile. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_metric_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                           profdb_hpcrun_metric *out);

/** A load-map entry. @since 0.2 */
typedef struct profdb_hpcrun_module {
	uint16_t id;              /**< the id CCT nodes use */
	const char *name;
	size_t name_len;
	uint64_t flags;           /**< 04.00 bit 0: LOADMAP_ENTRY_ANALYZE */
} profdb_hpcrun_module;

/** Load-map entry @p i (0 .. n_modules-1). @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_module_get(const profdb_hpcrun *h, uint32_t profile,
                                           uint32_t i, profdb_hpcrun_module *out);

/** A CCT node, addressed by its index (record order in the file). @since 0.2 */
typedef struct profdb_hpcrun_node {
	uint32_t index;
	uint32_t id;              /**< |stored id| (02.00/03.00 negate leaf ids) */
	int32_t stored_id;
	uint32_t parent;          /**< parent index, PROFDB_NONE for a root (parent id 0) */
	uint32_t parent_id;
	uint32_t first_child;     /**< index, PROFDB_NONE for a leaf */
	uint32_t next_sibling;    /**< next child of the parent (or next root), in file order */
	uint16_t lm_id;           /**< load module id (0: placeholder nodes) */
	uint32_t module;          /**< index in the load map, PROFDB_NONE if lm_id is not there */
	uint64_t offset;          /**< instruction offset in the module (lm_ip) */
	uint8_t flags;            /**< 04.00: bit 0 unwound */
	uint32_t lush_assoc;      /**< with logical unwinding, else 0 */
	const unsigned char *lip; /**< 16 bytes with logical unwinding, else NULL */
	uint64_t pos;             /**< byte offset of the record */
} profdb_hpcrun_node;

/** Number of CCT nodes of a profile. The first call validates the tree
 *  (parents exist, ids unique and non-zero, no cycles; 04.00: the sparse
 *  index) and builds the index, thread-safely. @since 0.2 */
PROFDB_EXPORT int64_t profdb_hpcrun_node_count(const profdb_hpcrun *h, uint32_t profile);
/** Node by index. @return 0, -ENOENT, -EBADMSG. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_node_get(const profdb_hpcrun *h, uint32_t profile,
                                         uint32_t index, profdb_hpcrun_node *out);
/** Index of the node with id @p id (a trace record's cct id, |stored id|).
 *  @return 1 found, 0 absent, < 0. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_node_find(const profdb_hpcrun *h, uint32_t profile, uint32_t id,
                                          uint32_t *index);

/** The stored values of one node: dense (one 8-byte value per metric,
 *  zeros included; 02.00/03.00) or sparse ((u64 value, u16 metric) pairs
 *  with increasing metrics; 04.00). Points into the mapping. @since 0.2 */
typedef struct profdb_hpcrun_run {
	const unsigned char *p;
	uint64_t count;
	int dense;
} profdb_hpcrun_run;

/** The run of node @p index (count 0 when it has no values). @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_values(const profdb_hpcrun *h, uint32_t profile,
                                       uint32_t index, profdb_hpcrun_run *out);
/** Pair @p i of a run: metric index and the value's 64 stored bits.
 *  @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_run_at(const profdb_hpcrun_run *run, uint64_t i,
                                       uint32_t *metric, uint64_t *bits);
/** The raw value of (node, metric). @return 1 stored, 0 not stored (bits
 *  = 0), -ENOENT, -EBADMSG. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_value(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                      uint32_t metric, uint64_t *bits);
/** The inclusive value of (node, metric): the node's raw value plus the
 *  inclusive values of its children, as f64 for real metrics and as u64
 *  (mod 2^64) for integer ones, in the bits of *bits. Built for the whole
 *  profile on the first call (n_nodes x n_metrics x 8 bytes, at most
 *  profdb_options.max_memory, else -EFBIG). @return 1 non-zero, 0 zero,
 *  < 0. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_inclusive(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t index, uint32_t metric, uint64_t *bits);

/** A trace: @c count records of @c record_size (12, or 16 with a metric
 *  id) bytes, big-endian, sorted by time (checked before handed out).
 *  @since 0.2 */
typedef struct profdb_hpcrun_trace {
	const unsigned char *records;  /**< NULL when empty */
	uint64_t count;
	uint8_t record_size;
	uint64_t flags;           /**< bit 0 DATA_CENTRIC, 1 LCA_RECORDED, 2 CALL_TRACE */
} profdb_hpcrun_trace;

/** The trace of a profile. @return 1 (a trace, possibly empty), 0 (none),
 *  -EBADMSG (not sorted), -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_trace_get(const profdb_hpcrun *h, uint32_t profile,
                                          profdb_hpcrun_trace *out);
/** Record @p i: time in ns, CCT node id, metric id (PROFDB_NONE without).
 *  @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_trace_at(const profdb_hpcrun_trace *t, uint64_t i,
                                         uint64_t *time_ns, uint32_t *cct_id,
                                         uint32_t *metric_id);
/** Index of the record in effect at @p time_ns (the last with time <= t).
 *  @return 1, or 0 if t precedes the first record. @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_trace_seek(const profdb_hpcrun_trace *t, uint64_t time_ns,
                                           uint64_t *index);
/** Records with from <= time < to: [*first, *last). @since 0.2 */
PROFDB_EXPORT int profdb_hpcrun_trace_window(const profdb_hpcrun_trace *t, uint64_t from_ns,
                                             uint64_t to_ns, uint64_t *first, uint64_t *last);

/* ---- end of hpcrun ------------------------------------------------------ */

/* ======================================================================== */
/* HPCToolkit pre-release databases and the draft meta.db       @since 0.2 */
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

/** An open pre-release database (opaque). @since 0.2 */
typedef struct profdb_hpctkpre profdb_hpctkpre;

/** The files of a pre-release database. @since 0.2 */
typedef enum profdb_hpctkpre_file {
	PROFDB_HPCTKPRE_PROFILE = 0,  /**< profile.db */
	PROFDB_HPCTKPRE_CCT = 1,      /**< cct.db */
	PROFDB_HPCTKPRE_TRACE = 2,    /**< trace.db */
	PROFDB_HPCTKPRE_META = 3,     /**< experiment.xml or a draft meta.db */
	PROFDB_HPCTKPRE_NFILES = 4
} profdb_hpctkpre_file;

/** What describes the database. @since 0.2 */
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
 *  -errno of I/O. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_open(profdb_hpctkpre **ret, const char *path,
                                       const profdb_options *opts);
/** Open caller buffers indexed by profdb_hpctkpre_file (data == NULL:
 *  absent). The META slot takes experiment.xml or a draft meta.db. Nothing
 *  is copied. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_open_mem(profdb_hpctkpre **ret,
                                           const profdb_blob files[PROFDB_HPCTKPRE_NFILES],
                                           const profdb_options *opts);
/** Close; NULL is a no-op. @since 0.2 */
PROFDB_EXPORT void profdb_hpctkpre_close(profdb_hpctkpre *db);

/** Stored version of a present file (experiment.xml: its version
 *  attribute, e.g. 4.0). @return 0, -ENOENT, -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_version(const profdb_hpctkpre *db, profdb_hpctkpre_file which,
                                          uint8_t *major, uint8_t *minor);

/** Name tables of the metadata. @since 0.2 */
enum {
	PROFDB_HPCTKPRE_MODULES = 0,     /**< load modules */
	PROFDB_HPCTKPRE_FILES = 1,       /**< source files */
	PROFDB_HPCTKPRE_PROCEDURES = 2,  /**< procedures (functions) */
	PROFDB_HPCTKPRE_ID_KINDS = 3,    /**< identifier kinds (NODE, RANK, THREAD, ...) */
	PROFDB_HPCTKPRE_NTABLES = 4
};

/** Counts and facts of an open database. @since 0.2 */
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

/** @return 0 or -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_get_info(const profdb_hpctkpre *db, profdb_hpctkpre_info *out);

/** Entry @p i of name table @p table: its stored id and name.
 *  @return 0, -ENOENT, -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_table_get(const profdb_hpctkpre *db, int table, uint32_t i,
                                            int64_t *id, const char **name);

/** A metric id the values use. @since 0.2 */
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

/** Metric number @p index (0 .. n_metrics-1, metadata order). @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_metric_get(const profdb_hpctkpre *db, uint32_t index,
                                             profdb_hpctkpre_metric *out);
/** Index of the metric with id @p id. @return 1 found, 0 absent, <0. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_metric_find(const profdb_hpctkpre *db, int is_summary,
                                              uint32_t id, uint32_t *index);

/** Kind of a context node. @since 0.2 */
enum {
	PROFDB_HPCTKPRE_CTX_PROC = 0,   /**< <PF> procedure frame; draft: function */
	PROFDB_HPCTKPRE_CTX_CALL = 1,   /**< <C> call site */
	PROFDB_HPCTKPRE_CTX_LOOP = 2,   /**< <L> loop */
	PROFDB_HPCTKPRE_CTX_STMT = 3,   /**< <S> statement; draft: source line */
	PROFDB_HPCTKPRE_CTX_POINT = 4   /**< draft: single instruction */
};

/** A context node. Links are node indices (PROFDB_NONE when absent).
 *  @since 0.2 */
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

/** @return 0, -ENOENT (index past the end), -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_context_get(const profdb_hpctkpre *db, uint32_t index,
                                              profdb_hpctkpre_context *out);
/** Index of the node with stored id @p id. @return 1 found, 0 absent. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_context_find(const profdb_hpctkpre *db, int64_t id,
                                               uint32_t *index);

/** A profile of profile.db (index 0 is the summary). @since 0.2 */
typedef struct profdb_hpctkpre_profile {
	uint32_t index;
	int is_summary;
	uint32_t n_ids;            /**< identifier tuple length */
	uint64_t n_values;
	uint32_t n_contexts;
} profdb_hpctkpre_profile;

/** One element of a profile's identifier tuple. @since 0.2 */
typedef struct profdb_hpctkpre_id {
	uint16_t kind;             /**< bits 13-0 of the stored kind */
	uint8_t interpretation;    /**< bits 15-14 */
	const char *kind_name;     /**< from the metadata's identifier table, "" */
	uint64_t physical, logical;
} profdb_hpctkpre_id;

/** @return 0, -ENOENT, -EBADMSG. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_profile_get(const profdb_hpctkpre *db, uint32_t profile,
                                              profdb_hpctkpre_profile *out);
/** @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_profile_id(const profdb_hpctkpre *db, uint32_t profile,
                                             uint32_t i, profdb_hpctkpre_id *out);

/** A sparse value plane: a profile's (index keyed by context id, values by
 *  metric id) or a cct.db context's (index keyed by metric id, values by
 *  profile index). Big-endian records in the mapping, validated before
 *  handed out (sorted keys, monotone starts, end marker). @since 0.2 */
typedef struct profdb_hpctkpre_plane {
	const unsigned char *index;
	const unsigned char *values;
	uint64_t n_index, n_values;
	uint8_t index_key_size;    /**< 4 (context id) or 2 (metric id) */
	uint8_t value_key_size;    /**< 2 (metric id) or 4 (profile index) */
} profdb_hpctkpre_plane;

/** One run of (key, value) pairs of a plane. @since 0.2 */
typedef struct profdb_hpctkpre_run {
	const unsigned char *values;
	uint64_t count;
	uint8_t key_size;
} profdb_hpctkpre_run;

/** The plane of a profile. With PROFDB_OPEN_TOLERANT a damaged block is
 *  reported through the warn callback and reads as empty. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_profile_plane(const profdb_hpctkpre *db, uint32_t profile,
                                                profdb_hpctkpre_plane *out);
/** The plane of cct.db context @p ctx_id (empty beyond the table). The
 *  pre-release writer left cct.db value blocks all zero: such a block reads
 *  as empty, with one warning per handle. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_context_plane(const profdb_hpctkpre *db, uint32_t ctx_id,
                                                profdb_hpctkpre_plane *out);
/** @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_plane_at(const profdb_hpctkpre_plane *p, uint64_t i,
                                           uint32_t *key, profdb_hpctkpre_run *run);
/** @return 1 found, 0 absent. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_plane_find(const profdb_hpctkpre_plane *p, uint32_t key,
                                             profdb_hpctkpre_run *run);
/** Pair @p i; the value bit-for-bit. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_run_at(const profdb_hpctkpre_run *r, uint64_t i,
                                         uint32_t *key, double *value);
/** @return 1 found, 0 absent. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_run_find(const profdb_hpctkpre_run *r, uint32_t key,
                                           double *value);
/** Point lookup in profile.db. @return 1 found, 0 absent, <0. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_value(const profdb_hpctkpre *db, uint32_t profile,
                                        uint32_t ctx_id, uint32_t metric, double *value);

/** A trace line: @c count big-endian {u64 time ns, u32 context id}
 *  samples, sorted by time (checked before handed out). @since 0.2 */
typedef struct profdb_hpctkpre_trace {
	uint32_t profile;          /**< profile.db index */
	uint16_t type;             /**< 0 calling context; >= 1 a metric id */
	const unsigned char *elems; /**< NULL when empty */
	uint64_t count;
} profdb_hpctkpre_trace;

/** @return 0, -ENOENT, -EBADMSG. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_trace_get(const profdb_hpctkpre *db, uint32_t i,
                                            profdb_hpctkpre_trace *out);
/** @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_trace_at(const profdb_hpctkpre_trace *t, uint64_t i,
                                           uint64_t *time_ns, uint32_t *ctx_id);
/** Index of the sample in effect at @p time_ns (the last with time <= t),
 *  by binary search. @return 1, or 0 if t precedes the first. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_trace_seek(const profdb_hpctkpre_trace *t, uint64_t time_ns,
                                             uint64_t *index);
/** Samples with from <= time < to: [*first, *last). @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_trace_window(const profdb_hpctkpre_trace *t, uint64_t from_ns,
                                               uint64_t to_ns, uint64_t *first, uint64_t *last);

/** Validate everything (every value block, cct.db block and trace line)
 *  and cross-check the files: value metric ids the metadata does not name,
 *  trace lines naming profiles profile.db lacks and contexts in the tree
 *  outside cct.db are errors (-EBADMSG); metadata metrics without any
 *  stored value are reported through the warn callback. @since 0.2 */
PROFDB_EXPORT int profdb_hpctkpre_check(const profdb_hpctkpre *db);

/* ---- end of HPCToolkit pre-release -------------------------------------- */

/* ======================================================================== */
/* The common query interface: one set of calls for every format  @since 0.2 */
/* ======================================================================== */
/*
 * profdb_open() detects the format from the bytes and returns a profdb
 * handle that answers the same questions whatever wrote the data. The
 * mapping of each format onto this model (what a metric, context, profile
 * and value are; how inclusive values are computed) is doc/model.md.
 *
 * Identifiers: metrics and contexts are addressed by the ids the format
 * stores (they need not be dense: use the *_at(index) calls to enumerate);
 * profiles are addressed by index 0 .. profdb_profile_count()-1.
 *
 * Strings are profdb_str views (pointer + length, NOT necessarily
 * NUL-terminated): they point into the input or into memory the handle
 * owns, and stay valid until profdb_close(). An absent string is {"", 0}.
 *
 * Threads and errors follow the rules at the top of this header; a
 * profdb_values cursor belongs to one thread at a time. How long the
 * decoders of text and compressed formats hold memory is in doc/model.md.
 */

/** A database of any supported format (opaque). @since 0.2 */
typedef struct profdb profdb;

/** Formats. @since 0.2 */
typedef enum profdb_format {
	PROFDB_FORMAT_UNKNOWN = 0,
	PROFDB_FORMAT_HPCTK4 = 1,      /**< HPCToolkit 4.0 meta.db/profile.db/cct.db/trace.db */
	PROFDB_FORMAT_HPCTK_PRE = 2,   /**< pre-release HPCPROF-* databases + experiment.xml */
	PROFDB_FORMAT_HPCTK_DRAFT = 3, /**< draft HPCTOOLKIT_expmt meta.db */
	PROFDB_FORMAT_HPCRUN = 4,      /**< .hpcrun/.hpctrace files or a measurements directory */
	PROFDB_FORMAT_CUBE = 5,        /**< Cube4 .cubex */
	PROFDB_FORMAT_CALLGRIND = 6    /**< Callgrind profile, file set or dump series */
} profdb_format;

/** A string view. @since 0.2 */
typedef struct profdb_str {
	const char *ptr;
	size_t len;
} profdb_str;

/** A named caller buffer for profdb_open_inputs(): @c name is the file
 *  name the bytes would have on disk ("meta.db", "run.cubex",
 *  "callgrind.out.123-01", "experiment.xml", "x-000-1.hpcrun"); it guides
 *  grouping, while the format is still detected from the bytes. The
 *  buffers must stay unchanged and alive until profdb_close(). @since 0.2 */
typedef struct profdb_input {
	const char *name;
	const void *data;
	size_t size;
} profdb_input;

/** Open @p path: a file, or a directory (HPCToolkit database, pre-release
 *  database, hpcrun measurements directory). A Callgrind file whose
 *  siblings form a --separate-threads set (NAME-01, ...) or a dump series
 *  (NAME.1, ...) is opened together with them.
 *  @return 0; -ENOENT; -EPROTONOSUPPORT when the input is not a supported
 *  format (the message says what was found and what was expected: e.g.
 *  the old experiment.xml + .metric-db databases); the decoders' codes
 *  otherwise. @since 0.2 */
PROFDB_EXPORT int profdb_open(profdb **ret, const char *path, const profdb_options *opts);

/** Open caller buffers (fuzzers, embedders): one input, or the files of
 *  one database. Same codes as profdb_open(). @since 0.2 */
PROFDB_EXPORT int profdb_open_inputs(profdb **ret, const profdb_input *inputs, size_t n,
                                     const profdb_options *opts);

/** Close; NULL is a no-op. Every view of the handle dies here. @since 0.2 */
PROFDB_EXPORT void profdb_close(profdb *db);

/** Stable lower-case name: "hpctoolkit-4.0", "hpctoolkit-prerelease",
 *  "hpctoolkit-draft", "hpcrun", "cube", "callgrind", "unknown". @since 0.2 */
PROFDB_EXPORT const char *profdb_format_name(profdb_format format);

/** What an open database is. @since 0.2 */
typedef struct profdb_about {
	profdb_format format;
	profdb_str version;   /**< as stored: "4.0", "02.00", "4.8", "1", ... */
	profdb_str title;     /**< database title, command line, ... or empty */
} profdb_about;

/** @return 0, -EINVAL, or the decoder's code when the stored title is
 *  damaged (-EBADMSG; HPCToolkit 4.0 reads it on first use). @since 0.2 */
PROFDB_EXPORT int profdb_get_about(const profdb *db, profdb_about *out);

/** The normative counts (doc/model.md; `profdb info --json` prints them
 *  under the same names). @since 0.2 */
typedef struct profdb_counts {
	int64_t profiles;
	int64_t contexts;
	int64_t metrics;
	int64_t values;   /**< stored (profile, context, metric) entries */
	int64_t traces;
	int64_t samples;
} profdb_counts;

/** @return 0 or a negative errno (counting may validate lazily built
 *  indexes). @since 0.2 */
PROFDB_EXPORT int profdb_get_counts(const profdb *db, profdb_counts *out);

/* ---- numbers ------------------------------------------------------------ */

/** Type of a stored value. @since 0.2 */
typedef enum profdb_type {
	PROFDB_TYPE_NONE = 0,  /**< no value */
	PROFDB_TYPE_U64 = 1,
	PROFDB_TYPE_I64 = 2,
	PROFDB_TYPE_F64 = 3    /**< bit-for-bit as stored (NaN payloads, -0) */
} profdb_type;

/** A typed number. @since 0.2 */
typedef struct profdb_number {
	profdb_type type;
	union {
		uint64_t u64;
		int64_t i64;
		double f64;
	} as;
} profdb_number;

/** The number as a double (rounded for integers above 2^53). @since 0.2 */
PROFDB_EXPORT double profdb_number_to_double(profdb_number n);

/* ---- metrics ------------------------------------------------------------ */

/** What the values of a metric mean. @since 0.2 */
typedef enum profdb_metric_kind {
	PROFDB_METRIC_OTHER = 0,     /**< none of the below (a custom propagation) */
	PROFDB_METRIC_POINT = 1,     /**< raw, at the context only (HPCToolkit point, hpcrun) */
	PROFDB_METRIC_EXCLUSIVE = 2, /**< self cost */
	PROFDB_METRIC_INCLUSIVE = 3, /**< self + everything below */
	PROFDB_METRIC_SUMMARY = 4,   /**< only a statistic over profiles (see statistic) */
	PROFDB_METRIC_DERIVED = 5    /**< computed by a formula the file stores; no values */
} profdb_metric_kind;

/** A metric. @since 0.2 */
typedef struct profdb_metric {
	uint32_t id;
	profdb_str name;
	profdb_str unit;          /**< empty when unknown */
	profdb_str description;   /**< empty when unknown (formula of a derived metric) */
	profdb_metric_kind kind;
	/** What the summary profile holds under this id ("sum", "min", "max",
	 *  "count", "sum of squares", ...); empty when there is no summary. */
	profdb_str statistic;
	profdb_type type;         /**< type of its stored values */
	/** The ids of the same quantity in the other scopes, PROFDB_NONE when
	 *  the format has none (used by profdb_inclusive/profdb_exclusive). */
	uint32_t exclusive_id, inclusive_id;
	int has_data;             /**< 0 for derived or data-less metrics */
} profdb_metric;

/** Number of metrics (>= 0) or a negative errno. @since 0.2 */
PROFDB_EXPORT int64_t profdb_metric_count(const profdb *db);
/** Metric number @p index (0 .. count-1, in the format's order). @since 0.2 */
PROFDB_EXPORT int profdb_metric_at(const profdb *db, uint32_t index, profdb_metric *out);
/** Metric with id @p id. @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_metric_get(const profdb *db, uint32_t id, profdb_metric *out);
/** Find a metric by name (exact, then case-insensitive) or, if @p key is
 *  a decimal number, by id. @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_metric_find(const profdb *db, const char *key, profdb_metric *out);

/* ---- contexts ----------------------------------------------------------- */

/** Relation of a context to its parent. @since 0.2 */
typedef enum profdb_relation {
	PROFDB_RELATION_NONE = 0,      /**< a root */
	PROFDB_RELATION_LEXICAL = 1,   /**< nested in the parent's code (loop, line in a function) */
	PROFDB_RELATION_CALL = 2,      /**< called from the parent */
	PROFDB_RELATION_INLINED = 3,   /**< inlined call */
	PROFDB_RELATION_UNKNOWN = 4
} profdb_relation;

/** Kind of code a context stands for. @since 0.2 */
typedef enum profdb_context_type {
	PROFDB_CTX_UNKNOWN = 0,
	PROFDB_CTX_ROOT = 1,      /**< a synthetic root (the whole program) */
	PROFDB_CTX_FUNCTION = 2,
	PROFDB_CTX_LOOP = 3,
	PROFDB_CTX_LINE = 4,
	PROFDB_CTX_INSTRUCTION = 5
} profdb_context_type;

/** A calling-context tree node. @since 0.2 */
typedef struct profdb_context {
	uint32_t id;
	uint32_t parent;          /**< PROFDB_NONE for a root */
	uint32_t first_child;     /**< PROFDB_NONE for a leaf */
	uint32_t next_sibling;    /**< next child of the parent (or next root) */
	uint32_t depth;           /**< 0 for a root */
	profdb_relation relation;
	profdb_context_type type;
	profdb_str function;      /**< function name (empty when unknown) */
	profdb_str file;          /**< source file (empty when unknown) */
	uint64_t line;            /**< source line, 0 when unknown */
	profdb_str module;        /**< load module (empty when unknown) */
	uint64_t offset;          /**< offset in the module, when has_offset */
	int has_offset;
	/** 0 for a context that carries values but has no tree node (HPCToolkit
	 *  elides some): it is addressable by id, with parent PROFDB_NONE. */
	int in_tree;
} profdb_context;

/** Number of tree nodes (doc/model.md). @since 0.2 */
PROFDB_EXPORT int64_t profdb_context_count(const profdb *db);
/** Id of the first root (others follow by next_sibling).
 *  @return 0, -ENOENT (empty tree). @since 0.2 */
PROFDB_EXPORT int profdb_context_root(const profdb *db, uint32_t *id);
/** Context by id. @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_context_get(const profdb *db, uint32_t id, profdb_context *out);

/* ---- profiles ----------------------------------------------------------- */

/** A measured thread, process, GPU stream, location, part ... @since 0.2 */
typedef struct profdb_profile {
	uint32_t index;
	int is_summary;           /**< 1 for the format's summary profile */
	profdb_str name;          /**< human-readable identity ("rank 3 thread 1") */
	uint32_t n_identity;      /**< entries for profdb_profile_identity() */
} profdb_profile;

/** Number of profiles, summary included. @since 0.2 */
PROFDB_EXPORT int64_t profdb_profile_count(const profdb *db);
/** @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_profile_get(const profdb *db, uint32_t index, profdb_profile *out);
/** Identity entry @p i of a profile: a kind ("rank", "thread", "node",
 *  "gpu-stream", "core", ...) and its value. @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_profile_identity(const profdb *db, uint32_t index, uint32_t i,
                                          profdb_str *kind, uint64_t *value);

/* ---- values ------------------------------------------------------------- */

/** The stored value of (profile, context, metric), exactly as stored.
 *  @return 1 stored, 0 not stored (out->type = PROFDB_TYPE_NONE),
 *  -ENOENT (an index or id out of range), -EBADMSG (a damaged block, strict
 *  mode). @since 0.2 */
PROFDB_EXPORT int profdb_value(const profdb *db, uint32_t profile, uint32_t context,
                               uint32_t metric, profdb_number *out);

/** Inclusive / exclusive value of the quantity @p metric measures, read
 *  from the stored scope when the file has it, computed by the format's
 *  reference rule otherwise (doc/model.md gives the rule and summation
 *  order per format). @return 1 (non-zero or stored), 0 (nothing there),
 *  -ENOTSUP (the format cannot say, e.g. a summary statistic), or an
 *  error. @since 0.2 */
PROFDB_EXPORT int profdb_inclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out);
PROFDB_EXPORT int profdb_exclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out);

/** One stored value. @since 0.2 */
typedef struct profdb_entry {
	uint32_t profile, context, metric;
	profdb_number value;
} profdb_entry;

/** A cursor over stored values (opaque, one thread at a time). @since 0.2 */
typedef struct profdb_values profdb_values;

/** What a cursor visits. @since 0.2 */
typedef enum profdb_scan {
	PROFDB_SCAN_ALL = 0,      /**< every stored value: by profile, then context, then metric */
	PROFDB_SCAN_PROFILE = 1,  /**< one profile's values (key = profile index) */
	PROFDB_SCAN_CONTEXT = 2   /**< one context's values over all profiles (key = context id) */
} profdb_scan;

/** @return 0 or a negative errno. @since 0.2 */
PROFDB_EXPORT int profdb_values_new(const profdb *db, profdb_scan scan, uint32_t key,
                                    profdb_values **ret);
/** @return 1 (an entry), 0 (end), < 0 error. @since 0.2 */
PROFDB_EXPORT int profdb_values_next(profdb_values *it, profdb_entry *out);
/** NULL is a no-op. @since 0.2 */
PROFDB_EXPORT void profdb_values_free(profdb_values *it);

/* ---- traces ------------------------------------------------------------- */

/** One trace sample. @since 0.2 */
typedef struct profdb_sample {
	uint64_t time_ns;
	uint32_t context;         /**< context id */
} profdb_sample;

/** Number of samples of a profile's trace (0 when it has none).
 *  @return >= 0, -ENOTSUP (the format has no traces), -ENOENT. @since 0.2 */
PROFDB_EXPORT int64_t profdb_trace_length(const profdb *db, uint32_t profile);
/** Sample @p i of a profile's trace. @return 0, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_trace_at(const profdb *db, uint32_t profile, uint64_t i,
                                  profdb_sample *out);
/** Index of the first sample at or after @p time_ns (the length if none),
 *  by binary search. @since 0.2 */
PROFDB_EXPORT int profdb_trace_seek(const profdb *db, uint32_t profile, uint64_t time_ns,
                                    uint64_t *index);

/* ---- the format-specific views ------------------------------------------ */

/** The underlying handle of a database of that format, or NULL: owned by
 *  @p db (do not close it). @since 0.2 */
PROFDB_EXPORT const profdb_hpctk *profdb_get_hpctk(const profdb *db);
PROFDB_EXPORT const profdb_cube *profdb_get_cube(const profdb *db);
PROFDB_EXPORT const profdb_cg *profdb_get_cg(const profdb *db);
/** The same for pre-release databases and the draft meta.db, and for hpcrun
 *  measurements. @since 0.2 */
PROFDB_EXPORT const profdb_hpctkpre *profdb_get_hpctkpre(const profdb *db);
PROFDB_EXPORT const profdb_hpcrun *profdb_get_hpcrun(const profdb *db);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_PROFDB_H */
