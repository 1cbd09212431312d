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
	PROFDB_FORMAT_CALLGRIND = 6,   /**< Callgrind profile, file set or dump series */
	/** HPCToolkit experiment.xml with *.metric-db files or a packed
	 *  experiment-N.mdb (hpcprof releases up to 2022.05). @since 0.12 */
	PROFDB_FORMAT_HPCTK_XML = 7
} profdb_format;

/** Open @p path: a file, or a directory (HPCToolkit database, pre-release
 *  database, hpcrun measurements directory). A Callgrind file whose
 *  siblings form a --separate-threads set (NAME-01, ...) or a dump series
 *  (NAME.1, ...) is opened together with them.
 *  @param ret   receives the handle; NULL on failure.
 *  @param opts  NULL for the defaults; copied, but the callbacks and their
 *               userdata must stay valid until profdb_close().
 *  @return 0; -EINVAL (NULL @p ret or @p path, bad options, a path that is
 *  neither a regular file nor a directory); -ENOENT and the other errno
 *  values of stat(2), open(2), read(2) and opendir(3); -EPROTONOSUPPORT
 *  when the input is not a supported format (the message says what was
 *  found and what was expected: e.g. the old experiment.xml + .metric-db
 *  databases); -ENOTSUP when it is a format this build cannot read (Cube
 *  without libarchive or expat, gzip without zlib, experiment.xml without
 *  expat); -ENOMEM; the decoders' codes otherwise (-EBADMSG, -ENODATA,
 *  -EFBIG, -ECANCELED, -EIO, the errno values of fstat(2) and mmap(2)).
 *  Lifetime: the handle lives until profdb_close(). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_open(profdb **ret, const char *path, const profdb_options *opts);

/** Open caller buffers (fuzzers, embedders): one input, or the files of
 *  one database. The format is detected from the bytes; files no backend
 *  recognises (experiment.xml, ...) go along as companions.
 *  @param ret     receives the handle; NULL on failure.
 *  @param inputs  @p n buffers (profdb_input): they must stay unchanged and
 *                 alive until profdb_close(); nothing is copied.
 *  @param opts    as for profdb_open().
 *  @return 0; -EINVAL (NULL @p ret or @p inputs, @p n == 0, an input with
 *  NULL data but a non-zero size, inputs of two formats, bad options);
 *  -EPROTONOSUPPORT, -ENOTSUP (also: the format's backend cannot open
 *  buffers), -ENOMEM and the decoders' codes as for profdb_open().
 *  Lifetime: the handle lives until profdb_close(). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_open_inputs(profdb **ret, const profdb_input *inputs, size_t n,
                                     const profdb_options *opts);

/** Close @p db and free everything it owns; NULL is a no-op. Every
 *  string, view and format handle obtained from @p db dies here; free its
 *  profdb_values cursors first. No other thread may be using @p db.
 *  @since 0.9 */
PROFDB_EXPORT void profdb_close(profdb *db);

/** Stable lower-case name of a format.
 *  @return "hpctoolkit-4.0", "hpctoolkit-prerelease", "hpctoolkit-draft",
 *  "hpcrun", "cube", "callgrind", or "unknown" for any other value; never
 *  NULL, cannot fail. Lifetime: a static NUL-terminated string.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT const char *profdb_format_name(profdb_format format);

/** What an open database is. @since 0.9 */
typedef struct profdb_about {
	profdb_format format;
	profdb_str version;   /**< as stored: "4.0", "02.00", "4.8", "1", ... */
	profdb_str title;     /**< database title, command line, ... or empty */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_about;

/** What @p db is: format, stored version and title.
 *  @return 0, -EINVAL (NULL @p db or @p out), or the decoder's code when
 *  the stored title is damaged (-EBADMSG, -ENODATA; HPCToolkit 4.0 reads
 *  it on first use). *out is cleared first: on failure it holds the
 *  format and empty strings. Lifetime: the strings stay valid until
 *  profdb_close(). Thread-safe. @since 0.9 */
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
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_counts;

/** The normative counts of @p db. *out is zeroed first.
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOTSUP (the format cannot
 *  count), or what building the lazy indexes met (-EBADMSG, -ENODATA,
 *  -EFBIG, -ENOMEM, -ECANCELED). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_get_counts(const profdb *db, profdb_counts *out);

/** The counts of @p db as the format's headers declare them, at the cost
 *  of reading the headers: on HPCToolkit 4.0 the value count of every
 *  profile record and the sample count of every trace header, each block
 *  checked to lie inside its file but no stored value or sample read (a
 *  27 GB database answers in milliseconds; profdb_get_counts reads every
 *  block). Equal to profdb_get_counts() on an undamaged database; a block
 *  whose contents are out of order is counted as its header says, where
 *  profdb_get_counts() fails (or, tolerant, counts it empty). A count
 *  that only the stored values give is -1 (unknown): on Callgrind with
 *  line contexts, `contexts` and `values` (the line rows of every
 *  function; the other counts are the open's). Cube counts from its
 *  index files either way; hpcrun and the pre-release HPCToolkit formats
 *  answer as profdb_get_counts(). *out is zeroed first.
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOTSUP, or a damaged
 *  header's code (-EBADMSG, -ENODATA). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_get_header_counts(const profdb *db, profdb_counts *out);

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

/** How the values of a metric combine across profiles and up the tree
 *  (doc/model.md, "Combining numbers"). Percentages are defined only for
 *  PROFDB_COMBINE_SUM. @since 0.10 */
typedef enum profdb_combine {
	PROFDB_COMBINE_NONE = 0,  /**< not combinable (a rate, a mean, a derived value) */
	PROFDB_COMBINE_SUM = 1,
	PROFDB_COMBINE_MIN = 2,
	PROFDB_COMBINE_MAX = 3
} profdb_combine;

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
	/** How values combine (the format's rule: CubeLib's value class for
	 *  each Cube dtype, hpcprof's combine for a summary statistic, sum for
	 *  Callgrind and hpcrun). @since 0.10 */
	profdb_combine combine;
	/** The sampling period hpcrun recorded for the metric (events per
	 *  sample); 0 when there is none and for the other formats.
	 *  @since 0.10 */
	uint64_t period;
	/** The factor from a stored value to the value hpcprof (or the
	 *  format's own viewer) shows: hpcrun's period for an event-based
	 *  metric, 1 otherwise. Stored values stay raw; multiply to scale.
	 *  @since 0.10 */
	double scale;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_metric;

/** Number of metrics, summary statistics and derived metrics included.
 *  @return the count (>= 0), -EINVAL (NULL @p db). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_metric_count(const profdb *db);
/** Metric number @p index (0 .. profdb_metric_count()-1, in the format's
 *  order).
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOENT (@p index out of
 *  range). Lifetime: the strings of *out stay valid until profdb_close().
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_metric_at(const profdb *db, uint32_t index, profdb_metric *out);
/** Metric with id @p id (ids need not be dense).
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOENT (no such id).
 *  Lifetime: the strings of *out stay valid until profdb_close().
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_metric_get(const profdb *db, uint32_t id, profdb_metric *out);
/** Find a metric by name (exact, then ASCII case-insensitive) or, if
 *  @p key is a decimal number, by id. When several metrics share the name
 *  (one per scope), the inclusive one wins, then exclusive, point, other,
 *  summary, derived.
 *  @param key  a NUL-terminated name or decimal id.
 *  @return 0, -EINVAL (NULL @p db, @p key or @p out), -ENOENT (no match).
 *  Lifetime: the strings of *out stay valid until profdb_close().
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_metric_find(const profdb *db, const char *key, profdb_metric *out);

/** Does metric @p id have a non-zero stored value in any profile? Computed
 *  on first use (one pass over the stored values; then cached for every
 *  metric) and cheap afterwards.
 *  @return 1 yes, 0 no, -EINVAL (NULL @p db), -ENOENT (no such id), or
 *  what reading the values met (-EBADMSG, -ENODATA, -EFBIG, -ENOMEM,
 *  -ECANCELED). Thread-safe. @since 0.10 */
PROFDB_EXPORT int profdb_metric_has_values(const profdb *db, uint32_t id);

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
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_context;

/** Number of tree nodes (doc/model.md); contexts with in_tree = 0 are not
 *  counted. May build the tree on first use (Callgrind line contexts: a
 *  second pass over the text; hpcrun: the merged tree).
 *  @return the count (>= 0), -EINVAL (NULL @p db), or what building the
 *  tree met (-EBADMSG, -ENODATA, -EFBIG, -ENOMEM, -ECANCELED).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_context_count(const profdb *db);
/** Id of the first root (others follow by next_sibling).
 *  @param id  receives the root's id.
 *  @return 0, -EINVAL (NULL @p db or @p id), -ENOENT (empty tree), or
 *  what building the tree met (-EBADMSG, -ENODATA, -EFBIG, -ENOMEM).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_context_root(const profdb *db, uint32_t *id);
/** Context by id (ids need not be dense: walk the tree from
 *  profdb_context_root()).
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOENT (no such id), or
 *  what building the tree met (-EBADMSG, -ENODATA, -EFBIG, -ENOMEM).
 *  Lifetime: the strings of *out stay valid until profdb_close().
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_context_get(const profdb *db, uint32_t id, profdb_context *out);

/* ---- profiles ----------------------------------------------------------- */

/** A measured thread, process, GPU stream, location, part ... @since 0.9 */
typedef struct profdb_profile {
	uint32_t index;
	int is_summary;           /**< 1 for the format's summary profile */
	profdb_str name;          /**< human-readable identity ("rank 3 thread 1") */
	uint32_t n_identity;      /**< entries for profdb_profile_identity() */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_profile;

/** Number of profiles, summary included.
 *  @return the count (>= 0), -EINVAL (NULL @p db). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_profile_count(const profdb *db);
/** Profile number @p index (0 .. profdb_profile_count()-1).
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOENT (@p index out of
 *  range), or what reading the profile table met (-EBADMSG, -ENODATA,
 *  -ENOMEM). Lifetime: the name stays valid until profdb_close().
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_profile_at(const profdb *db, uint32_t index, profdb_profile *out);
/** The bytes the stored values of profile @p profile take in the input,
 *  where the format records it without reading them (HPCToolkit 4.0:
 *  profile.db's profile table, 10 bytes per value and 12 per context):
 *  a weight for dividing profiles between workers (profdb-mpi).
 *  @return 0, -EINVAL (NULL argument), -ENOENT (@p profile out of range),
 *  -ENOTSUP (the format cannot tell without reading the values), or what
 *  reading the profile table met (-EBADMSG, -ENODATA). *out is 0 on
 *  failure. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_profile_bytes(const profdb *db, uint32_t profile, uint64_t *out);

/* ---- what the format tells about itself -------------------------------- */

/** The one root whose inclusive value is a metric's whole total, when the
 *  format has it without building the context tree (a call graph's
 *  synthetic root, Callgrind's context 0); otherwise a total combines the
 *  roots' values (profdb_context_root() and next_sibling).
 *  @param id  receives the root's id when 1 is returned.
 *  @return 1, 0 (no such root, or an empty profile), -EINVAL (NULL
 *  argument). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_total_root(const profdb *db, uint32_t *id);
/** Whether the contexts of @p db carry function or source names as
 *  stored: 0 for formats that record only load module and offset
 *  (hpcrun measurements; hpcstruct and hpcprof attribute them).
 *  @return 1, 0, or -EINVAL (NULL @p db). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_has_names(const profdb *db);
/** File @p index of those @p db read from the folder it was opened from
 *  (HPCToolkit 4.0: the *.db files present), or, for an opened file, from
 *  that file's folder (Callgrind: the files of a --separate-threads set or
 *  a dump series, in the order of their profiles; one file for a file
 *  opened alone), for listing them.
 *  @param out  receives the file's name, relative to the folder; it
 *              stays valid until profdb_close().
 *  @return 0, -ENOENT (past the last file), -ENOTSUP (the format does not
 *  list them: it read the file given, or every file of the folder),
 *  -EINVAL (NULL argument). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_file_name(const profdb *db, size_t index, profdb_str *out);
/** The format's whole validation of @p db: every stored value read and
 *  the files compared with each other (HPCToolkit 4.0 and pre-release:
 *  profdb_hpctk_check(), profdb_hpctkpre_check()).
 *  @return 0, -ENOTSUP (the format has no such check), -EINVAL (NULL
 *  @p db), or the first problem found (-EBADMSG, -ENODATA, ...) with its
 *  message. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_check(const profdb *db);
/** Identity entry @p i of a profile: a kind ("rank", "thread", "node",
 *  "gpu-stream", "core", ...) and its value.
 *  @param index  the profile index.
 *  @param i      the entry, 0 .. n_identity-1 (profdb_profile).
 *  @param kind   receives the kind.
 *  @param value  receives its value.
 *  @return 0, -EINVAL (NULL @p db, @p kind or @p value), -ENOENT (@p index
 *  or @p i out of range), or what reading the profile table met
 *  (-EBADMSG, -ENODATA, -ENOMEM). Lifetime: *kind stays valid until
 *  profdb_close(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_profile_identity(const profdb *db, uint32_t index, uint32_t i,
                                          profdb_str *kind, uint64_t *value);

/* ---- values ------------------------------------------------------------- */

/** The stored value of (profile, context, metric), exactly as stored.
 *  @param profile  profile index; @p context and @p metric are ids.
 *  @return 1 stored, 0 not stored (out->type = PROFDB_TYPE_NONE), -EINVAL
 *  (NULL @p db or @p out), -ENOENT (an index or id out of range: a context
 *  id is known when profdb_context_get() answers it, a tree node or an id
 *  with stored values, the same test as profdb_context_view() and the
 *  scans; a tree that cannot be read leaves the id unchecked, so that
 *  values stay readable), -ENOTSUP (the format stores no values),
 *  or what reading the block met
 *  (-EBADMSG and -ENODATA in strict mode, -EFBIG, -ENOMEM). *out is
 *  cleared (PROFDB_TYPE_NONE) on 0 and on failure. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_value(const profdb *db, uint32_t profile, uint32_t context,
                               uint32_t metric, profdb_number *out);

/** Inclusive value of the quantity @p metric measures, read from the
 *  stored scope when the file has it, computed by the format's reference
 *  rule otherwise (doc/model.md gives the rule and summation order per
 *  format).
 *  @param profile  profile index; @p context and @p metric are ids (any
 *                  scope of the quantity).
 *  @return 1 (non-zero or stored), 0 (nothing there; *out cleared to
 *  PROFDB_TYPE_NONE), -EINVAL (NULL @p db or @p out), -ENOENT (an index or
 *  id out of range; a context id as profdb_value() checks it), -ENOTSUP
 *  (the format cannot say: no stored counterpart scope, a summary statistic asked of a non-summary profile,
 *  HPCToolkit 4.0 without meta.db), or what reading or summing the values
 *  met (-EBADMSG and -ENODATA in strict mode, -EFBIG, -ENOMEM).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_inclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out);
/** Exclusive (self) value of the quantity @p metric measures; as
 *  profdb_inclusive() otherwise.
 *  @return as profdb_inclusive(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_exclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out);

/** One stored value. @since 0.9 */
typedef struct profdb_entry {
	uint32_t profile, context, metric;
	profdb_number value;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_entry;

/** A cursor over stored values (opaque, one thread at a time). @since 0.9 */
typedef struct profdb_values profdb_values;

/** What a cursor visits. @since 0.9 */
typedef enum profdb_scan {
	PROFDB_SCAN_ALL = 0,      /**< every stored value: by profile, then context, then metric */
	PROFDB_SCAN_PROFILE = 1,  /**< one profile's values (key = profile index) */
	PROFDB_SCAN_CONTEXT = 2   /**< one context's values over the profiles that are not
	                               summary profiles (key = context id); a summary
	                               profile's values are PROFDB_SCAN_PROFILE's */
} profdb_scan;

/** Start a cursor over the values @p scan selects.
 *  @param ret   receives the cursor; NULL on failure.
 *  @param db    the open handle.
 *  @param scan  what to visit (profdb_scan).
 *  @param key   the profile index (PROFDB_SCAN_PROFILE) or context id
 *               (PROFDB_SCAN_CONTEXT); ignored for PROFDB_SCAN_ALL.
 *  @return 0, or -EINVAL (NULL @p db or @p ret, unknown @p scan), -ENOENT
 *  (@p key out of range: a context id as profdb_value() checks it),
 *  -ENOTSUP (the format cannot scan), -ENOMEM, or
 *  what reading the values met (-EBADMSG, -ENODATA, -EFBIG, ...).
 *  Thread-safe on @p db; the cursor itself belongs to one thread at a time.
 *  Lifetime: free the cursor with profdb_values_free() before
 *  profdb_close(@p db); the entries it returns are copies.
 *  Like every constructor, it returns its handle through its first
 *  argument. @since 0.9 */
PROFDB_EXPORT int profdb_values_new(profdb_values **ret, const profdb *db, profdb_scan scan,
                                    uint32_t key);
/** Move @p it to the next entry and copy it to *out.
 *  @return 1 (*out filled), 0 (end; every later call returns 0 too),
 *  -EINVAL (NULL @p it or @p out), or what reading the values met
 *  (-EBADMSG, -ENODATA, -EFBIG, -ENOMEM, ...); after a failure every later
 *  call returns the same code. Lifetime: *out is a copy. One thread at a
 *  time (per cursor). @since 0.9 */
PROFDB_EXPORT int profdb_values_next(profdb_values *it, profdb_entry *out);
/** Move @p it over up to @p n entries at once and copy them to out[0..n-1],
 *  in the order profdb_values_next() gives them (the two may be mixed on
 *  one cursor). A reader of many values saves a call per value, and a
 *  format may decode its stored values in blocks (Cube: the cells of a few
 *  locations from each row at once).
 *  @param it   the cursor.
 *  @param out  room for @p n entries; every field of each filled entry is
 *              set, the reserved ones to zero.
 *  @param n    how many entries out holds, at least 1.
 *  @return the number of entries filled: @p n, fewer only at the end of
 *  the scan or before an error (which the next call returns); 0 at the end
 *  (every later call returns 0 too); -EINVAL (NULL @p it or @p out, @p n
 *  zero), or what reading the values met (-EBADMSG, -ENODATA, -EFBIG,
 *  -ENOMEM, ...); after a failure every later call returns the same code.
 *  Lifetime: the entries are copies. One thread at a time (per cursor).
 *  @since 0.12 */
PROFDB_EXPORT int64_t profdb_values_next_block(profdb_values *it, profdb_entry *out, size_t n);
/** Free a cursor; NULL is a no-op. Call it before profdb_close() of the
 *  cursor's handle. One thread at a time (per cursor). @since 0.9 */
PROFDB_EXPORT void profdb_values_free(profdb_values *it);

/* ---- traces ------------------------------------------------------------- */

/** One trace sample. @since 0.9 */
typedef struct profdb_sample {
	uint64_t time_ns;
	uint32_t context;         /**< context id */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_sample;

/** Number of samples of a profile's trace (0 when it has none).
 *  @param profile  profile index.
 *  @return the count (>= 0), -EINVAL (NULL @p db), -ENOTSUP (the format
 *  has no traces), -ENOENT (no such profile), or what reading the trace
 *  index met (-EBADMSG, -ENODATA, -ENOMEM). Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_trace_length(const profdb *db, uint32_t profile);
/** Sample @p i (0 .. profdb_trace_length()-1) of a profile's trace.
 *  @param profile  profile index.
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOTSUP (the format has no
 *  traces), -ENOENT (no such profile, or @p i past the end: always for a
 *  profile without a trace), or what reading the trace met (-EBADMSG,
 *  -ENODATA, -EFBIG, -ENOMEM). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_trace_sample_at(const profdb *db, uint32_t profile, uint64_t i,
                                  profdb_sample *out);
/** Index of the first sample at or after @p time_ns (the length if none),
 *  by binary search.
 *  @param profile  profile index.
 *  @param index    receives the sample index; 0 for a profile without a
 *                  trace.
 *  @return 0, -EINVAL (NULL @p db or @p index), -ENOTSUP (the format has
 *  no traces), -ENOENT (no such profile), or what reading the trace met
 *  (-EBADMSG, -ENODATA, -ENOMEM). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_trace_seek(const profdb *db, uint32_t profile, uint64_t time_ns,
                                    uint64_t *index);
/** A duration as `profdb trace --from` and `profdb convert --window` read
 *  it: an integer of nanoseconds ("42"), or a decimal number with a unit
 *  "s", "ms", "us" or "ns" ("1.5s", "200ms", "0.25us"). Exact: integer
 *  arithmetic, no rounding.
 *  @param text  NUL-terminated.
 *  @param ns    receives the duration in nanoseconds.
 *  @return 0, -EINVAL (NULL argument; text that is not such a duration,
 *  a fraction without a unit, finer than a nanosecond, or more than
 *  2^64-1 ns; profdb_error_message() quotes it). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_time_parse(const char *text, uint64_t *ns);

/* ---- views --------------------------------------------------------------- */
/*
 * The stored values and trace samples as profdb_views (profdb/common.h):
 * no call per value, no copy where the file lays the records out
 * contiguously (HPCToolkit 4.0 profile and context planes and trace lines,
 * pre-release and hpctrace trace lines). Elsewhere the records are materialised once, on
 * first use, into memory the handle owns (counted against
 * options.max_memory: -EFBIG beyond it) and kept until profdb_close(). The
 * views hold exactly what profdb_values_next() and profdb_trace_sample_at()
 * return, in the same order within a profile or context.
 */

/** The stored values of one profile, as two views:
 *  - @p index: one record per context that has values, key = context id
 *    (U32, strictly increasing), value = the position (U64) of its first
 *    record in @p values; profdb_view_run() gives a context's records;
 *  - @p values: key = metric id (U16 or U32, strictly increasing within a
 *    context), value = the stored number (F64, U64, I64 or TAGGED).
 *  @param profile  profile index.
 *  @return 0 (views filled; empty views when the profile stores nothing),
 *  -EINVAL (NULL argument), -ENOENT (no such profile), -ENOTSUP (the
 *  format cannot list its values), -EBADMSG (damaged block in strict mode,
 *  or two values for one key), -ENODATA (truncated block, strict mode),
 *  -EFBIG (options.max_memory), -ENOMEM. Lifetime: valid until
 *  profdb_close(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_profile_view(const profdb *db, uint32_t profile, profdb_view *index,
                                      profdb_view *values);

/** The stored values of one context over the profiles that are not
 *  summary profiles (profdb_profile.is_summary = 0), as two views:
 *  @p index keyed by metric id (strictly increasing), value = position of
 *  its first record in @p values; @p values keyed by profile index
 *  (strictly increasing within a metric), value = the stored number. The
 *  same values as a PROFDB_SCAN_CONTEXT cursor. A summary profile's values
 *  at the context are in its profdb_profile_view() (the context's run) and
 *  profdb_value(). HPCToolkit 4.0 with profile.db and cct.db: cct.db's
 *  plane, in the mapping (profdb_hpctk_context_plane()), which holds
 *  exactly the thread profiles' values.
 *  @param context  context id.
 *  @return as profdb_profile_view(), -ENOENT for an unknown context id
 *  (and what building the tree met, as profdb_context_get()).
 *  Lifetime: valid until profdb_close(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_context_view(const profdb *db, uint32_t context, profdb_view *index,
                                      profdb_view *values);

/** The trace line of a profile: key = time in ns (U64, non-decreasing),
 *  value = context id (U32). An empty view when the profile has no trace.
 *  profdb_view_seek() finds the first sample at or after a time,
 *  profdb_view_in_effect() the sample running at a time.
 *  @param profile  profile index.
 *  @return 0, -EINVAL (NULL @p db or @p out), -ENOENT (no such profile),
 *  -ENOTSUP (the format has no traces), -EBADMSG (damaged trace, or times
 *  that go back), -ENODATA, -EFBIG (options.max_memory), -ENOMEM. Lifetime: valid
 *  until profdb_close(). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_trace_view(const profdb *db, uint32_t profile, profdb_view *out);

/* The format handles, for profdb_get_*() below; their calls are in the
 * format headers (profdb/hpctk.h, ...). */
typedef struct profdb_hpctk profdb_hpctk;
typedef struct profdb_hpctkpre profdb_hpctkpre;
typedef struct profdb_hpcrun profdb_hpcrun;
typedef struct profdb_cube profdb_cube;
typedef struct profdb_cg profdb_cg;

/* ---- the format-specific views ------------------------------------------ */

/** The underlying HPCToolkit 4.0 handle, for the calls of profdb/hpctk.h.
 *  @return the handle, or NULL when @p db is NULL or of another format;
 *  cannot fail otherwise. Lifetime: owned by @p db (do not close it),
 *  valid until profdb_close(). Thread-safe. @since 0.9 */
PROFDB_EXPORT const profdb_hpctk *profdb_get_hpctk(const profdb *db);
/** The underlying Cube handle (profdb/cube.h); as profdb_get_hpctk().
 *  @return the handle, or NULL when @p db is NULL or not a Cube database.
 *  Lifetime: owned by @p db. Thread-safe. @since 0.9 */
PROFDB_EXPORT const profdb_cube *profdb_get_cube(const profdb *db);
/** The underlying Callgrind handle (profdb/callgrind.h); as
 *  profdb_get_hpctk().
 *  @return the handle, or NULL when @p db is NULL or not a Callgrind
 *  profile. Lifetime: owned by @p db. Thread-safe. @since 0.9 */
PROFDB_EXPORT const profdb_cg *profdb_get_cg(const profdb *db);
/** The underlying handle of a pre-release database or a draft meta.db
 *  (profdb/hpctkpre.h); as profdb_get_hpctk().
 *  @return the handle, or NULL when @p db is NULL or of another format.
 *  Lifetime: owned by @p db. Thread-safe. @since 0.9 */
PROFDB_EXPORT const profdb_hpctkpre *profdb_get_hpctkpre(const profdb *db);
/** The underlying hpcrun handle (profdb/hpcrun.h); as profdb_get_hpctk().
 *  @return the handle, or NULL when @p db is NULL or not hpcrun
 *  measurements. Lifetime: owned by @p db. Thread-safe. @since 0.9 */
PROFDB_EXPORT const profdb_hpcrun *profdb_get_hpcrun(const profdb *db);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_QUERY_H */
