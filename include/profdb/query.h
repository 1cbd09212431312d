/* profdb/query.h — the common query interface: one set of calls for every format.
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h.
 */
#ifndef PROFDB_QUERY_H
#define PROFDB_QUERY_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* The common query interface: one set of calls for every format  @since 0.9 */
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

/** A database of any supported format (opaque). @since 0.9 */
typedef struct profdb profdb;

/** Formats. @since 0.9 */
typedef enum profdb_format {
	PROFDB_FORMAT_UNKNOWN = 0,
	PROFDB_FORMAT_HPCTK4 = 1,      /**< HPCToolkit 4.0 meta.db/profile.db/cct.db/trace.db */
	PROFDB_FORMAT_HPCTK_PRE = 2,   /**< pre-release HPCPROF-* databases + experiment.xml */
	PROFDB_FORMAT_HPCTK_DRAFT = 3, /**< draft HPCTOOLKIT_expmt meta.db */
	PROFDB_FORMAT_HPCRUN = 4,      /**< .hpcrun/.hpctrace files or a measurements directory */
	PROFDB_FORMAT_CUBE = 5,        /**< Cube4 .cubex */
	PROFDB_FORMAT_CALLGRIND = 6    /**< Callgrind profile, file set or dump series */
} profdb_format;

/** Open @p path: a file, or a directory (HPCToolkit database, pre-release
 *  database, hpcrun measurements directory). A Callgrind file whose
 *  siblings form a --separate-threads set (NAME-01, ...) or a dump series
 *  (NAME.1, ...) is opened together with them.
 *  @return 0; -ENOENT; -EPROTONOSUPPORT when the input is not a supported
 *  format (the message says what was found and what was expected: e.g.
 *  the old experiment.xml + .metric-db databases); -ENOTSUP when it is a
 *  format this build cannot read (Cube without libarchive or expat, gzip
 *  without zlib, experiment.xml without expat); -EINVAL for bad options;
 *  the decoders' codes otherwise. @since 0.9 */
PROFDB_EXPORT int profdb_open(profdb **ret, const char *path, const profdb_options *opts);

/** Open caller buffers (fuzzers, embedders): one input, or the files of
 *  one database. Same codes as profdb_open(). @since 0.9 */
PROFDB_EXPORT int profdb_open_inputs(profdb **ret, const profdb_input *inputs, size_t n,
                                     const profdb_options *opts);

/** Close; NULL is a no-op. Every view of the handle dies here. @since 0.9 */
PROFDB_EXPORT void profdb_close(profdb *db);

/** Stable lower-case name: "hpctoolkit-4.0", "hpctoolkit-prerelease",
 *  "hpctoolkit-draft", "hpcrun", "cube", "callgrind", "unknown". @since 0.9 */
PROFDB_EXPORT const char *profdb_format_name(profdb_format format);

/** What an open database is. @since 0.9 */
typedef struct profdb_about {
	profdb_format format;
	profdb_str version;   /**< as stored: "4.0", "02.00", "4.8", "1", ... */
	profdb_str title;     /**< database title, command line, ... or empty */
} profdb_about;

/** @return 0, -EINVAL, or the decoder's code when the stored title is
 *  damaged (-EBADMSG; HPCToolkit 4.0 reads it on first use). @since 0.9 */
PROFDB_EXPORT int profdb_get_about(const profdb *db, profdb_about *out);

/** The normative counts (doc/model.md; `profdb info --json` prints them
 *  under the same names). @since 0.9 */
typedef struct profdb_counts {
	int64_t profiles;
	int64_t contexts;
	int64_t metrics;
	int64_t values;   /**< stored (profile, context, metric) entries */
	int64_t traces;
	int64_t samples;
} profdb_counts;

/** @return 0 or a negative errno (counting may validate lazily built
 *  indexes). @since 0.9 */
PROFDB_EXPORT int profdb_get_counts(const profdb *db, profdb_counts *out);

/* ---- metrics ------------------------------------------------------------ */

/** What the values of a metric mean. @since 0.9 */
typedef enum profdb_metric_kind {
	PROFDB_METRIC_OTHER = 0,     /**< none of the below (a custom propagation) */
	PROFDB_METRIC_POINT = 1,     /**< raw, at the context only (HPCToolkit point, hpcrun) */
	PROFDB_METRIC_EXCLUSIVE = 2, /**< self cost */
	PROFDB_METRIC_INCLUSIVE = 3, /**< self + everything below */
	PROFDB_METRIC_SUMMARY = 4,   /**< only a statistic over profiles (see statistic) */
	PROFDB_METRIC_DERIVED = 5    /**< computed by a formula the file stores; no values */
} profdb_metric_kind;

/** A metric. @since 0.9 */
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

/** Number of metrics (>= 0) or a negative errno. @since 0.9 */
PROFDB_EXPORT int64_t profdb_metric_count(const profdb *db);
/** Metric number @p index (0 .. count-1, in the format's order). @since 0.9 */
PROFDB_EXPORT int profdb_metric_at(const profdb *db, uint32_t index, profdb_metric *out);
/** Metric with id @p id. @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_metric_get(const profdb *db, uint32_t id, profdb_metric *out);
/** Find a metric by name (exact, then case-insensitive) or, if @p key is
 *  a decimal number, by id. @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_metric_find(const profdb *db, const char *key, profdb_metric *out);

/* ---- contexts ----------------------------------------------------------- */

/** Relation of a context to its parent. @since 0.9 */
typedef enum profdb_relation {
	PROFDB_RELATION_NONE = 0,      /**< a root */
	PROFDB_RELATION_LEXICAL = 1,   /**< nested in the parent's code (loop, line in a function) */
	PROFDB_RELATION_CALL = 2,      /**< called from the parent */
	PROFDB_RELATION_INLINED = 3,   /**< inlined call */
	PROFDB_RELATION_UNKNOWN = 4
} profdb_relation;

/** Kind of code a context stands for. @since 0.9 */
typedef enum profdb_context_type {
	PROFDB_CTX_UNKNOWN = 0,
	PROFDB_CTX_ROOT = 1,      /**< a synthetic root (the whole program) */
	PROFDB_CTX_FUNCTION = 2,
	PROFDB_CTX_LOOP = 3,
	PROFDB_CTX_LINE = 4,
	PROFDB_CTX_INSTRUCTION = 5
} profdb_context_type;

/** A calling-context tree node. @since 0.9 */
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

/** Number of tree nodes (doc/model.md). @since 0.9 */
PROFDB_EXPORT int64_t profdb_context_count(const profdb *db);
/** Id of the first root (others follow by next_sibling).
 *  @return 0, -ENOENT (empty tree). @since 0.9 */
PROFDB_EXPORT int profdb_context_root(const profdb *db, uint32_t *id);
/** Context by id. @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_context_get(const profdb *db, uint32_t id, profdb_context *out);

/* ---- profiles ----------------------------------------------------------- */

/** A measured thread, process, GPU stream, location, part ... @since 0.9 */
typedef struct profdb_profile {
	uint32_t index;
	int is_summary;           /**< 1 for the format's summary profile */
	profdb_str name;          /**< human-readable identity ("rank 3 thread 1") */
	uint32_t n_identity;      /**< entries for profdb_profile_identity() */
} profdb_profile;

/** Number of profiles, summary included. @since 0.9 */
PROFDB_EXPORT int64_t profdb_profile_count(const profdb *db);
/** @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_profile_get(const profdb *db, uint32_t index, profdb_profile *out);
/** Identity entry @p i of a profile: a kind ("rank", "thread", "node",
 *  "gpu-stream", "core", ...) and its value. @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_profile_identity(const profdb *db, uint32_t index, uint32_t i,
                                          profdb_str *kind, uint64_t *value);

/* ---- values ------------------------------------------------------------- */

/** The stored value of (profile, context, metric), exactly as stored.
 *  @return 1 stored, 0 not stored (out->type = PROFDB_TYPE_NONE),
 *  -ENOENT (an index or id out of range), -EBADMSG (a damaged block, strict
 *  mode). @since 0.9 */
PROFDB_EXPORT int profdb_value(const profdb *db, uint32_t profile, uint32_t context,
                               uint32_t metric, profdb_number *out);

/** Inclusive / exclusive value of the quantity @p metric measures, read
 *  from the stored scope when the file has it, computed by the format's
 *  reference rule otherwise (doc/model.md gives the rule and summation
 *  order per format). @return 1 (non-zero or stored), 0 (nothing there),
 *  -ENOTSUP (the format cannot say, e.g. a summary statistic), or an
 *  error. @since 0.9 */
PROFDB_EXPORT int profdb_inclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out);
PROFDB_EXPORT int profdb_exclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out);

/** One stored value. @since 0.9 */
typedef struct profdb_entry {
	uint32_t profile, context, metric;
	profdb_number value;
} profdb_entry;

/** A cursor over stored values (opaque, one thread at a time). @since 0.9 */
typedef struct profdb_values profdb_values;

/** What a cursor visits. @since 0.9 */
typedef enum profdb_scan {
	PROFDB_SCAN_ALL = 0,      /**< every stored value: by profile, then context, then metric */
	PROFDB_SCAN_PROFILE = 1,  /**< one profile's values (key = profile index) */
	PROFDB_SCAN_CONTEXT = 2   /**< one context's values over all profiles (key = context id) */
} profdb_scan;

/** Start a cursor over the values @p scan selects.
 *  @param ret   receives the cursor; NULL on failure.
 *  @param db    the open handle.
 *  @param scan  what to visit (profdb_scan).
 *  @param key   the profile index (PROFDB_SCAN_PROFILE) or context id
 *               (PROFDB_SCAN_CONTEXT); ignored for PROFDB_SCAN_ALL.
 *  @return 0, or -EINVAL (NULL @p db or @p ret, unknown @p scan), -ENOENT
 *  (@p key out of range), -ENOTSUP (the format cannot scan), -ENOMEM, or
 *  what reading the values met (-EBADMSG, -ENODATA, -EFBIG, ...).
 *  Thread-safe on @p db; the cursor itself belongs to one thread at a time.
 *  Lifetime: free the cursor with profdb_values_free() before
 *  profdb_close(@p db); the entries it returns are copies.
 *  Like every constructor, it returns its handle through its first
 *  argument. @since 0.9 */
PROFDB_EXPORT int profdb_values_new(profdb_values **ret, const profdb *db, profdb_scan scan,
                                    uint32_t key);
/** @return 1 (an entry), 0 (end), < 0 error. @since 0.9 */
PROFDB_EXPORT int profdb_values_next(profdb_values *it, profdb_entry *out);
/** NULL is a no-op. @since 0.9 */
PROFDB_EXPORT void profdb_values_free(profdb_values *it);

/* ---- traces ------------------------------------------------------------- */

/** One trace sample. @since 0.9 */
typedef struct profdb_sample {
	uint64_t time_ns;
	uint32_t context;         /**< context id */
} profdb_sample;

/** Number of samples of a profile's trace (0 when it has none).
 *  @return >= 0, -ENOTSUP (the format has no traces), -ENOENT. @since 0.9 */
PROFDB_EXPORT int64_t profdb_trace_length(const profdb *db, uint32_t profile);
/** Sample @p i of a profile's trace. @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_trace_at(const profdb *db, uint32_t profile, uint64_t i,
                                  profdb_sample *out);
/** Index of the first sample at or after @p time_ns (the length if none),
 *  by binary search. @since 0.9 */
PROFDB_EXPORT int profdb_trace_seek(const profdb *db, uint32_t profile, uint64_t time_ns,
                                    uint64_t *index);

/* ---- views --------------------------------------------------------------- */
/*
 * The stored values and trace samples as profdb_views (profdb/common.h):
 * no call per value, no copy where the file lays the records out
 * contiguously (HPCToolkit 4.0 planes and trace lines, pre-release and
 * hpctrace trace lines). Elsewhere the records are materialised once, on
 * first use, into memory the handle owns (counted against
 * options.max_memory: -EFBIG beyond it) and kept until profdb_close(). The
 * views hold exactly what profdb_values_next() and profdb_trace_at()
 * return, in the same order within a profile or context.
 */

/** The stored values of one profile, as two views:
 *  - @p index: one record per context that has values, key = context id
 *    (U32, strictly increasing), value = the position (U64) of its first
 *    record in @p values; profdb_view_run() gives a context's records;
 *  - @p values: key = metric id (U16 or U32, strictly increasing within a
 *    context), value = the stored number (F64, U64, I64 or TAGGED).
 *  @return 0 (views filled; empty views when the profile stores nothing),
 *  -EINVAL (NULL argument), -ENOENT (no such profile), -EBADMSG (damaged
 *  block, strict mode), -EFBIG, -ENOMEM. Thread-safe; valid until
 *  profdb_close(). @since 0.9 */
PROFDB_EXPORT int profdb_profile_view(const profdb *db, uint32_t profile, profdb_view *index,
                                      profdb_view *values);

/** The stored values of one context over all profiles, as two views:
 *  @p index keyed by metric id (strictly increasing), value = position of
 *  its first record in @p values; @p values keyed by profile index
 *  (strictly increasing within a metric), value = the stored number.
 *  @return as profdb_profile_view(), -ENOENT for an unknown context id.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_context_view(const profdb *db, uint32_t context, profdb_view *index,
                                      profdb_view *values);

/** The trace line of a profile: key = time in ns (U64, non-decreasing),
 *  value = context id (U32). An empty view when the profile has no trace.
 *  profdb_view_seek() finds the first sample at or after a time,
 *  profdb_view_in_effect() the sample running at a time.
 *  @return 0, -EINVAL, -ENOENT (no such profile), -ENOTSUP (the format
 *  has no traces), -EBADMSG, -EFBIG, -ENOMEM. @since 0.9 */
PROFDB_EXPORT int profdb_trace_view(const profdb *db, uint32_t profile, profdb_view *out);

/* The format handles, for profdb_get_*() below; their calls are in the
 * format headers (profdb/hpctk.h, ...). */
typedef struct profdb_hpctk profdb_hpctk;
typedef struct profdb_hpctkpre profdb_hpctkpre;
typedef struct profdb_hpcrun profdb_hpcrun;
typedef struct profdb_cube profdb_cube;
typedef struct profdb_cg profdb_cg;

/* ---- the format-specific views ------------------------------------------ */

/** The underlying handle of a database of that format, or NULL: owned by
 *  @p db (do not close it). @since 0.9 */
PROFDB_EXPORT const profdb_hpctk *profdb_get_hpctk(const profdb *db);
PROFDB_EXPORT const profdb_cube *profdb_get_cube(const profdb *db);
PROFDB_EXPORT const profdb_cg *profdb_get_cg(const profdb *db);
/** The same for pre-release databases and the draft meta.db, and for hpcrun
 *  measurements. @since 0.9 */
PROFDB_EXPORT const profdb_hpctkpre *profdb_get_hpctkpre(const profdb *db);
PROFDB_EXPORT const profdb_hpcrun *profdb_get_hpcrun(const profdb *db);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_QUERY_H */
