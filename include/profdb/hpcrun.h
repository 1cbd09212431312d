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
 * Threads, errors and lifetimes follow the rules at the top of this header.
 * Strings are (pointer, length) views into the mapping and are NOT
 * NUL-terminated, except profile names, which the handle owns.
 */

/** An open set of hpcrun files (opaque). @since 0.9 */
typedef struct profdb_hpcrun profdb_hpcrun;

/** Open a .hpcrun file, a .hpctrace file or a measurements directory. A
 *  single file is opened with its partner when that exists (X.hpctrace
 *  next to X.hpcrun, or the reverse).
 *  @return 0, -ENOENT (nothing there / no hpcrun file in the directory),
 *  -EPROTONOSUPPORT (not hpcrun, unsupported version), -EBADMSG, -ENODATA,
 *  -ENOMEM, -errno of I/O. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_open(profdb_hpcrun **ret, const char *path,
                                     const profdb_options *opts);

/** Open caller buffers as one set. @p names (may be NULL, or hold NULLs)
 *  are the file names the buffers would have: they join X.hpctrace to
 *  X.hpcrun and give the profile names; the kind of each buffer is decided
 *  by its magic. Nothing is copied. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_open_mem(profdb_hpcrun **ret, const profdb_blob *inputs,
                                         const char *const *names, size_t n,
                                         const profdb_options *opts);

/** Close; NULL is a no-op. Every view dies here. @since 0.9 */
PROFDB_EXPORT void profdb_hpcrun_close(profdb_hpcrun *h);

/** Version of the .hpcrun files (the first one's when they differ, which
 *  open reports through the warn callback). @return 1 all agree, 0 mixed,
 *  -ENOENT (trace files only), -EINVAL. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_version(const profdb_hpcrun *h, uint8_t *major,
                                        uint8_t *minor);

/** A profile. Identity fields come from the file name
 *  (<prog>-<rank>-<thread>-<host id hex>-<pid>-<n>), -1 when it does not
 *  have that form; the header pairs and id tuple say more. @since 0.9 */
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

/** Number of profiles (>= 0) or -EINVAL. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpcrun_profile_count(const profdb_hpcrun *h);
/** @return 0, -ENOENT, -EINVAL. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_profile_get(const profdb_hpcrun *h, uint32_t profile,
                                            profdb_hpcrun_profile *out);

/** A name/value pair of the file header ("mpi-rank", "thread-id", ...).
 *  @since 0.9 */
typedef struct profdb_hpcrun_attr {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
} profdb_hpcrun_attr;

/** Header pair @p i (0 .. n_attrs-1). @return 0, -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_attr_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                         profdb_hpcrun_attr *out);

/** One element of a 04.00 id tuple. @since 0.9 */
typedef struct profdb_hpcrun_id {
	uint16_t kind;            /**< bits 13-0 of the stored kind (1 NODE, 3 THREAD, ...) */
	uint8_t interpretation;   /**< bits 15-14 */
	const char *kind_name;    /**< from the file's dictionary, NULL if absent */
	size_t kind_name_len;
	uint64_t physical, logical;
} profdb_hpcrun_id;

/** Element @p i (0 .. n_ids-1) of a profile's id tuple. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_id_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                       profdb_hpcrun_id *out);

/** A metric descriptor. The flag fields are decoded from the 16 stored
 *  bytes (an x86-64 struct written raw; see doc/FORMATS.md); raw_flags
 *  points at them. @since 0.9 */
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

/** Metric @p i (0 .. n_metrics-1) of a profile. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_metric_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                           profdb_hpcrun_metric *out);

/** A load-map entry. @since 0.9 */
typedef struct profdb_hpcrun_module {
	uint16_t id;              /**< the id CCT nodes use */
	const char *name;
	size_t name_len;
	uint64_t flags;           /**< 04.00 bit 0: LOADMAP_ENTRY_ANALYZE */
} profdb_hpcrun_module;

/** Load-map entry @p i (0 .. n_modules-1). @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_module_get(const profdb_hpcrun *h, uint32_t profile,
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
} profdb_hpcrun_node;

/** Number of CCT nodes of a profile. The first call validates the tree
 *  (parents exist, ids unique and non-zero, no cycles; 04.00: the sparse
 *  index) and builds the index, thread-safely. @since 0.9 */
PROFDB_EXPORT int64_t profdb_hpcrun_node_count(const profdb_hpcrun *h, uint32_t profile);
/** Node by index. @return 0, -ENOENT, -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_node_get(const profdb_hpcrun *h, uint32_t profile,
                                         uint32_t index, profdb_hpcrun_node *out);
/** Index of the node with id @p id (a trace record's cct id, |stored id|).
 *  @return 1 found, 0 absent, < 0. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_node_find(const profdb_hpcrun *h, uint32_t profile, uint32_t id,
                                          uint32_t *index);

/** The stored values of one node: dense (one 8-byte value per metric,
 *  zeros included; 02.00/03.00) or sparse ((u64 value, u16 metric) pairs
 *  with increasing metrics; 04.00). Points into the mapping. @since 0.9 */
typedef struct profdb_hpcrun_run {
	const unsigned char *p;
	uint64_t count;
	int dense;
} profdb_hpcrun_run;

/** The run of node @p index (count 0 when it has no values). @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_values(const profdb_hpcrun *h, uint32_t profile,
                                       uint32_t index, profdb_hpcrun_run *out);
/** Pair @p i of a run: metric index and the value's 64 stored bits.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_run_at(const profdb_hpcrun_run *run, uint64_t i,
                                       uint32_t *metric, uint64_t *bits);
/** The raw value of (node, metric). @return 1 stored, 0 not stored (bits
 *  = 0), -ENOENT, -EBADMSG. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_value(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                      uint32_t metric, uint64_t *bits);
/** The inclusive value of (node, metric): the node's raw value plus the
 *  inclusive values of its children, as f64 for real metrics and as u64
 *  (mod 2^64) for integer ones, in the bits of *bits. Built for the whole
 *  profile on the first call (n_nodes x n_metrics x 8 bytes, at most
 *  profdb_options.max_memory, else -EFBIG). @return 1 non-zero, 0 zero,
 *  < 0. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_inclusive(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t index, uint32_t metric, uint64_t *bits);

/** A trace: @c count records of @c record_size (12, or 16 with a metric
 *  id) bytes, big-endian, sorted by time (checked before handed out).
 *  @since 0.9 */
typedef struct profdb_hpcrun_trace {
	const unsigned char *records;  /**< NULL when empty */
	uint64_t count;
	uint8_t record_size;
	uint64_t flags;           /**< bit 0 DATA_CENTRIC, 1 LCA_RECORDED, 2 CALL_TRACE */
} profdb_hpcrun_trace;

/** The trace of a profile. @return 1 (a trace, possibly empty), 0 (none),
 *  -EBADMSG (not sorted), -ENOENT. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_trace_get(const profdb_hpcrun *h, uint32_t profile,
                                          profdb_hpcrun_trace *out);
/** Record @p i: time in ns, CCT node id, metric id (PROFDB_NONE without).
 *  @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_trace_at(const profdb_hpcrun_trace *t, uint64_t i,
                                         uint64_t *time_ns, uint32_t *cct_id,
                                         uint32_t *metric_id);
/** Index of the record in effect at @p time_ns (the last with time <= t).
 *  @return 1, or 0 if t precedes the first record. @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_trace_seek(const profdb_hpcrun_trace *t, uint64_t time_ns,
                                           uint64_t *index);
/** Records with from <= time < to: [*first, *last). @since 0.9 */
PROFDB_EXPORT int profdb_hpcrun_trace_window(const profdb_hpcrun_trace *t, uint64_t from_ns,
                                             uint64_t to_ns, uint64_t *first, uint64_t *last);

/* ---- end of hpcrun ------------------------------------------------------ */

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_HPCRUN_H */
