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

/** Open flags. @since 0.1 */
enum {
	/** Read whole files into private memory instead of mapping them: a file
	 *  that is truncated while open can then not raise SIGBUS (see
	 *  doc/ROBUSTNESS.md). Costs memory and time proportional to file size. */
	PROFDB_OPEN_COPY = 1u << 0,
	/** Prefault the mapping at open (MAP_POPULATE). */
	PROFDB_OPEN_POPULATE = 1u << 1,
};

/** Options for every open function. Zero-initialise, then set @c size to
 *  sizeof(profdb_options) so later versions can append fields. A NULL
 *  options pointer means all defaults. @since 0.1 */
typedef struct profdb_options {
	size_t size;           /**< sizeof(profdb_options) */
	uint32_t flags;        /**< PROFDB_OPEN_* */
	profdb_warn_fn warn;   /**< may be NULL */
	void *warn_userdata;
} profdb_options;

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
} profdb_cube_location;

/** Archive-wide facts. @since 0.2 */
typedef struct profdb_cube_info {
	const char *anchor_version;   /**< <cube version="..."> */
	const char *creator;          /**< attr "Creator", "" if absent */
	uint32_t n_metrics, n_regions, n_cnodes, n_locations;
	uint32_t n_location_groups, n_system_nodes;
	uint32_t first_root;          /**< first root cnode id (PROFDB_NONE if no cnodes) */
	uint32_t first_root_metric;   /**< first root metric id */
	int gzipped;                  /**< 1 if the archive itself was compressed */
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
 *  Integers are converted; a missing row gives the neutral value (0, or
 *  +DBL_MAX / -DBL_MAX for MINDOUBLE / MAXDOUBLE).
 *  @return 1 stored, 0 neutral (no row, or a metric without data),
 *          -ENOENT (an id out of range), -ENOTSUP (a dtype that is not one
 *          number: read it with profdb_cube_row()), -EBADMSG (a compressed
 *          row that does not inflate), -ENOMEM. @since 0.2 */
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

/* ---- end of Cube -------------------------------------------------------- */

/* ======================================================================== */
/* Callgrind profiles (valgrind --tool=callgrind, Xdebug, ...)   @since 0.2 */
/* ======================================================================== */
/*
 * A Callgrind file (text, optionally gzip-compressed) is parsed completely
 * at open. doc/FORMATS.md ("Callgrind") lists the grammar accepted, the
 * decoding rules, the recoveries (each reported through the warn callback)
 * and the limits:
 *  - a line may hold at most 1 MiB (-EBADMSG beyond);
 *  - at most 256 event types;
 *  - a gzip file (recognised by its magic, any name) is decompressed once
 *    into memory, at most 2 GiB of text (-EFBIG beyond); without zlib at
 *    build time it fails with -ENOTSUP.
 *
 * Model: functions are keyed by (object, file, name); all parts of a file
 * (--combine-dumps) are summed. Self costs are exclusive. A call edge
 * (caller, callee) sums every calls= line between the two functions: the
 * call count and the inclusive cost per event.
 *
 * Errors: open returns -EPROTONOSUPPORT (not a Callgrind file, version >= 2),
 * -EBADMSG (malformed line, overflow, line too long, binary data), -ENODATA
 * (truncated file), -ENOTSUP, -ENOMEM, -EFBIG or the errno of open(2)/mmap(2).
 * The message names the file, the line number and the byte offset.
 *
 * Threads: a handle is read-only after open; any number of threads may call
 * any function on it at once (the inclusive table is built on first use,
 * thread-safely).
 *
 * Lifetimes: names are (pointer, length) views into the mapping, the
 * caller's buffer or the decompressed copy; they are NOT NUL-terminated and
 * may contain any byte except '\n' (a NUL byte in a name is kept, with a
 * warning). Cost arrays (n_events values each) are owned by the handle.
 * Everything stays valid until profdb_cg_close().
 */

/** An open Callgrind profile (opaque). @since 0.2 */
typedef struct profdb_cg profdb_cg;

/** Open and parse a file (plain or gzip).
 *  @param[out] ret  the handle, NULL on failure
 *  @return 0 or a negative errno (see above). @since 0.2 */
PROFDB_EXPORT int profdb_cg_open(profdb_cg **ret, const char *path, const profdb_options *opts);

/** Parse a caller buffer (plain or gzip), which must stay unchanged and
 *  alive until close (names point into it; a gzip buffer is decompressed
 *  into a private copy instead). @since 0.2 */
PROFDB_EXPORT int profdb_cg_open_mem(profdb_cg **ret, const void *data, size_t size,
                                     const profdb_options *opts);

/** Close; NULL is a no-op. All views die here. @since 0.2 */
PROFDB_EXPORT void profdb_cg_close(profdb_cg *cg);

/** An event type (a cost column). @since 0.2 */
typedef struct profdb_cg_event {
	const char *name;           /**< from events: ("Ir") */
	size_t name_len;
	const char *long_name;      /**< from event: Ir : long name; NULL if none */
	size_t long_name_len;
} profdb_cg_event;

/** Number of event types (0 for a file without events:). @since 0.2 */
PROFDB_EXPORT int profdb_cg_event_count(const profdb_cg *cg);
/** @return 0, -EINVAL, -ENOENT (index past the end). @since 0.2 */
PROFDB_EXPORT int profdb_cg_event_get(const profdb_cg *cg, uint32_t i, profdb_cg_event *out);

/** Number of parts (events: blocks) in the file. @since 0.2 */
PROFDB_EXPORT int profdb_cg_part_count(const profdb_cg *cg);

/** A function. @since 0.2 */
typedef struct profdb_cg_function {
	const char *name;           /**< fn= */
	size_t name_len;
	const char *object;         /**< ob= ("" if none) */
	size_t object_len;
	const char *file;           /**< fl= ("" if none) */
	size_t file_len;
	const uint64_t *self;       /**< exclusive cost, one value per event */
	uint32_t n_lines;           /**< source-line rows (profdb_cg_function_line) */
} profdb_cg_function;

/** Number of functions, or -EINVAL. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_function_count(const profdb_cg *cg);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_function_get(const profdb_cg *cg, uint32_t i,
                                         profdb_cg_function *out);

/** Self cost of a function at one source line of one file (the file is the
 *  current fl=/fi=/fe= file: inlined code has its own file). Without a
 *  "line" position column the cost is on line 0. The rows of a function add
 *  up to its self cost. @since 0.2 */
typedef struct profdb_cg_line {
	const char *file;
	size_t file_len;
	uint64_t line;
	const uint64_t *self;       /**< one value per event */
} profdb_cg_line;

/** Row @p i (0 .. n_lines-1, sorted by line) of function @p fn.
 *  @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_function_line(const profdb_cg *cg, uint32_t fn, uint32_t i,
                                          profdb_cg_line *out);

/** A call edge. @since 0.2 */
typedef struct profdb_cg_call {
	uint32_t caller, callee;    /**< function indices */
	uint64_t count;             /**< sum of the calls= counts */
	const uint64_t *inclusive;  /**< inclusive cost of the calls, per event */
} profdb_cg_call;

/** Number of call edges, or -EINVAL. @since 0.2 */
PROFDB_EXPORT int64_t profdb_cg_call_count(const profdb_cg *cg);
/** @return 0, -EINVAL, -ENOENT. @since 0.2 */
PROFDB_EXPORT int profdb_cg_call_get(const profdb_cg *cg, uint32_t i, profdb_cg_call *out);

/** The sum of all self costs (one value per event; NULL when there are no
 *  events). @return 0 or -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cg_totals(const profdb_cg *cg, const uint64_t **costs);

/** Which stored line profdb_cg_summary reads. */
enum { PROFDB_CG_SUMMARY = 0, PROFDB_CG_TOTALS = 1 };

/** The summary: or totals: lines as stored (summed over parts). They may
 *  differ from profdb_cg_totals() (cache simulation, Xdebug); a totals:
 *  that differs is reported through the warn callback at open.
 *  @return 1 (present), 0 (absent), -EINVAL. @since 0.2 */
PROFDB_EXPORT int profdb_cg_summary(const profdb_cg *cg, int which, const uint64_t **costs);

/** Inclusive cost of function @p fn (KCachegrind's rule with cycles
 *  collapsed, doc/FORMATS.md): never more than profdb_cg_totals(). Built
 *  for all functions on the first call. @return 0, -EINVAL, -ENOENT,
 *  -ENOMEM. @since 0.2 */
PROFDB_EXPORT int profdb_cg_inclusive(const profdb_cg *cg, uint32_t fn, const uint64_t **costs);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_PROFDB_H */
