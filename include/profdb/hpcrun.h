/* profdb/hpcrun.h — hpcrun measurement files (.hpcrun, .hpctrace).
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h.
 */
#ifndef PROFDB_HPCRUN_H
#define PROFDB_HPCRUN_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* hpcrun measurement files (.hpcrun, .hpctrace)                @since 0.9 */
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
 * Threads, errors and lifetimes follow the rules at the top of
 * profdb/common.h. Every string is a profdb_str: a view into the mapping,
 * NOT NUL-terminated, except profile names, which the handle owns. Arrays
 * of records (a node's values, a trace) are profdb_view.
 */

/** An open set of hpcrun files (opaque). @since 0.9 */
typedef struct profdb_hpcrun profdb_hpcrun;

/** Open a .hpcrun file, a .hpctrace file or a measurements directory. A
 *  single file is opened with its partner when that exists (X.hpctrace
 *  next to X.hpcrun, or the reverse). With PROFDB_OPEN_TOLERANT, a file
 *  of a directory that fails to parse (a damaged .hpcrun or .hpctrace) is
 *  reported through the warn callback and left out of the set.
 *  @param ret receives the handle (NULL on failure)
 *  @param path file or directory
 *  @param opts NULL for the defaults
 *  @return 0, -EINVAL (NULL ret or path, bad options), -ENOENT (nothing
 *  there / no hpcrun file in the directory), -EPROTONOSUPPORT (not hpcrun,
 *  unsupported version), -EBADMSG, -ENODATA, -ECANCELED, -ENOMEM, -errno
 *  of I/O. Thread-safe (one handle per call). @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_open(profdb_hpcrun **ret, const char *path,
                                     const profdb_options *opts);

/** Open caller buffers as one set. Each input's @c name (may be NULL:
 *  "input-<i>") is the file name the buffer would have: it joins
 *  X.hpctrace to X.hpcrun and gives the profile name; the kind of each
 *  buffer is decided by its magic. An input whose @c data is NULL is
 *  skipped. Nothing is copied: the buffers must outlive the handle.
 *  PROFDB_OPEN_TOLERANT as in profdb_hpcrun_open().
 *  @return 0, -EINVAL (NULL ret, NULL inputs with n > 0, two inputs with
 *  one name), -ENOENT (no input), and the codes of profdb_hpcrun_open().
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_open_inputs(profdb_hpcrun **ret, const profdb_input *inputs,
                                            size_t n, const profdb_options *opts);

/** Close; NULL is a no-op. Every string and view handed out dies here.
 *  One thread, when no other uses the handle. @since 0.9 */
PROFDB_EXPORT void profdb_hpcrun_close(profdb_hpcrun *h);

/** Version of the .hpcrun files (the first one's when they differ, which
 *  open reports through the warn callback).
 *  @return 1 all agree, 0 mixed, -ENOENT (trace files only; outputs set
 *  to 0), -EINVAL (NULL handle or output). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_version(const profdb_hpcrun *h, uint8_t *major,
                                        uint8_t *minor);

/** A profile. Identity fields come from the file name
 *  (<prog>-<rank>-<thread>-<host id hex>-<pid>-<n>), -1 when it does not
 *  have that form; the header pairs and id tuple say more. @since 0.9 */
typedef struct profdb_hpcrun_profile {
	uint32_t index;
	profdb_str name;         /**< file name without extension (owned by the handle, NUL-terminated) */
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
	/** .hpctrace header flags (0 without a trace): bit 0 DATA_CENTRIC
	 *  (records carry a metric id), 1 LCA_RECORDED, 2 CALL_TRACE. */
	uint64_t trace_flags;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpcrun_profile;

/** Number of profiles. @return >= 0, -EINVAL (NULL handle). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpcrun_profile_count(const profdb_hpcrun *h);

/** Profile @p profile (0 .. profile_count-1; the number every other call
 *  takes as its profile id). Strings live until close.
 *  @return 0, -ENOENT (out of range), -EINVAL (NULL handle or output).
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_hpcrun_profile_at(const profdb_hpcrun *h, uint32_t profile,
                                            profdb_hpcrun_profile *out);

/** A name/value pair of the file header ("mpi-rank", "thread-id", ...):
 *  views into the mapping, NOT NUL-terminated. @since 0.9 */
typedef struct profdb_hpcrun_attr {
	profdb_str name;
	profdb_str value;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpcrun_attr;

/** Header pair @p i (0 .. n_attrs-1) of a profile's file. Strings live
 *  until close. @return 0, -ENOENT (profile or i out of range; a
 *  trace-only profile has none), -EINVAL. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_attr_at(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                        profdb_hpcrun_attr *out);

/** One element of a 04.00 id tuple. @since 0.9 */
typedef struct profdb_hpcrun_id {
	uint16_t kind;            /**< bits 13-0 of the stored kind (1 NODE, 3 THREAD, ...) */
	uint8_t interpretation;   /**< bits 15-14 */
	profdb_str kind_name;     /**< from the file's dictionary, {"", 0} if absent */
	uint64_t physical, logical;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_hpcrun_id;

/** Element @p i (0 .. n_ids-1) of a profile's id tuple. The kind name
 *  lives until close. @return 0, -ENOENT, -EINVAL, -ENODATA. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_id_at(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                      profdb_hpcrun_id *out);

/** A metric descriptor. The flag fields are decoded from the 16 stored
 *  bytes (an x86-64 struct written raw; see doc/FORMATS.md); raw_flags
 *  points at them. Strings are views into the mapping, NOT NUL-terminated.
 *  @since 0.9 */
typedef struct profdb_hpcrun_metric {
	profdb_str name;
	profdb_str description;
	profdb_str formula;
	profdb_str format;
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
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpcrun_metric;

/** Metric @p i (0 .. n_metrics-1) of a profile; @p i is also the metric
 *  index values and trace records use. Strings live until close.
 *  @return 0, -ENOENT, -EINVAL. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_metric_at(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                          profdb_hpcrun_metric *out);

/** A load-map entry. @since 0.9 */
typedef struct profdb_hpcrun_module {
	uint16_t id;              /**< the id CCT nodes use */
	profdb_str name;          /**< view into the mapping, NOT NUL-terminated */
	uint64_t flags;           /**< 04.00 bit 0: LOADMAP_ENTRY_ANALYZE */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpcrun_module;

/** Load-map entry @p i (0 .. n_modules-1). The name lives until close.
 *  @return 0, -ENOENT, -EINVAL. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_module_at(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t i, profdb_hpcrun_module *out);

/** A CCT node, addressed by its index (record order in the file). @since 0.9 */
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
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_hpcrun_node;

/** Number of CCT nodes of a profile (0 for a trace-only profile). The
 *  first call validates the tree (parents exist, ids unique and non-zero,
 *  no cycles; 04.00: the sparse index) and builds the index,
 *  thread-safely. @return >= 0, -ENOENT, -EINVAL, -EBADMSG, -ENOMEM.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpcrun_node_count(const profdb_hpcrun *h, uint32_t profile);

/** Node at @p index (0 .. node_count-1). @return 0, -ENOENT, -EINVAL,
 *  -EBADMSG. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_node_at(const profdb_hpcrun *h, uint32_t profile,
                                        uint32_t index, profdb_hpcrun_node *out);

/** Index of the node with id @p id (a trace record's cct id, |stored id|).
 *  @return 1 found (*index set), 0 absent (*index = PROFDB_NONE),
 *  -ENOENT (profile), -EINVAL (NULL handle or output), -EBADMSG (tree).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_node_find(const profdb_hpcrun *h, uint32_t profile, uint32_t id,
                                          uint32_t *index);

/** The stored values of node @p index as a view: key = metric index,
 *  value = the value's 64 stored bits (PROFDB_FIELD_U64: an f64 bit
 *  pattern when the metric is_real, else an integer), keys strictly
 *  increasing (checked with the tree before the view is handed out).
 *   - 04.00 (sparse): zero-copy into the mapping, 10-byte big-endian
 *     records (u64 value, u16 metric), only the stored values.
 *   - 02.00/03.00 (dense): one record per metric, zeros included, in
 *     memory the handle owns (12-byte big-endian records: u64 value,
 *     u32 metric), built for the whole profile on the first call:
 *     n_nodes x n_metrics x 12 bytes, at most profdb_options.max_memory,
 *     else -EFBIG.
 *  Valid until close. @return 1 (values; *out filled), 0 (none; *out
 *  empty), -ENOENT, -EINVAL (NULL handle or output), -EBADMSG, -EFBIG,
 *  -ENOMEM. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_values(const profdb_hpcrun *h, uint32_t profile,
                                       uint32_t index, profdb_view *out);

/** The raw value of (node @p index, metric). @return 1 stored (*bits
 *  set), 0 not stored (*bits = 0; dense files store every cell), -ENOENT
 *  (profile, node or metric out of range), -EINVAL (NULL handle or
 *  output), -EBADMSG. Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_value(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                      uint32_t metric, uint64_t *bits);

/** The inclusive value of (node, metric): the node's raw value plus the
 *  inclusive values of its children, as f64 for real metrics and as u64
 *  (mod 2^64) for integer ones, in the bits of *bits. Built for the whole
 *  profile on the first call (n_nodes x n_metrics x 8 bytes, at most
 *  profdb_options.max_memory, else -EFBIG). @return 1 non-zero, 0 zero
 *  (-0.0 counts as zero; *bits still holds the sum), -ENOENT, -EINVAL
 *  (NULL handle or output), -EBADMSG, -EFBIG, -ENOMEM. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_inclusive(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t index, uint32_t metric, uint64_t *bits);

/** The trace of a profile as a view into the mapping (zero-copy): key =
 *  time in ns (U64 at offset 0), value = CCT node id (U32 at offset 8),
 *  big-endian, stride 12 — or 16 when the profile's trace_flags has bit 0
 *  (DATA_CENTRIC), where a u32 metric id follows at offset 12
 *  (profdb_load_uint(base + i * stride + 12, 4, 1)). Times are checked to
 *  be sorted (ties allowed) before the view is handed out; search it with
 *  profdb_view_seek/in_effect/window. Valid until close.
 *  @return 1 (a trace, possibly empty), 0 (none, or damaged in
 *  PROFDB_OPEN_TOLERANT: a warning; *out empty), -EBADMSG (not sorted),
 *  -ENOENT, -EINVAL (NULL handle or output). Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_hpcrun_trace_at(const profdb_hpcrun *h, uint32_t profile,
                                         profdb_view *out);

/* ---- end of hpcrun ------------------------------------------------------ */

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_HPCRUN_H */
