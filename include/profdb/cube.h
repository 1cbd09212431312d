/* profdb/cube.h — Cube4 .cubex profiles (Score-P, Scalasca).
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h.
 */
#ifndef PROFDB_CUBE_H
#define PROFDB_CUBE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Cube4 .cubex archives (Score-P, Scalasca, CubeLib/CubeW)        @since 0.9 */
/* ======================================================================== */
/*
 * A .cubex file is a tar archive holding anchor.xml (metric tree, regions,
 * call tree, system tree) and, per metric with data, <id>.index and
 * <id>.data. doc/FORMATS.md ("Cube") lists what is accepted and where real
 * files differ from the published description.
 *
 * Addressing. Metrics, regions, cnodes and locations are addressed by the
 * ids stored in anchor.xml, through the *_get calls. Each id set must be
 * exactly 0 .. count-1 (true of every known writer; open fails with
 * -EBADMSG otherwise), so an id is also an index. Location groups,
 * system-tree nodes, attributes, topologies, cnode parameters, topology
 * dimensions and coordinates have no dense ids: they are addressed by their
 * index in document order (0 .. count-1) through the *_at calls.
 *
 * Return codes (profdb/common.h): every call checks its handle and output
 * pointers first (-EINVAL), then its ids and indexes (-ENOENT); on any
 * failure a struct output is cleared (zeroed, strings {"", 0}).
 *
 * Threads: a handle is read-only after open; any number of threads may call
 * any function on it at once. Rows of compressed data (ZCUBEX.DATA) are
 * inflated on first use into a per-handle cache, installed atomically
 * (two threads inflating the same row at once is harmless; one copy wins).
 * Uncompressed rows are read straight from the archive bytes.
 *
 * Lifetimes: every string (profdb_str, NUL-terminated as well) and every
 * array returned is owned by the handle and valid until
 * profdb_cube_close(). Values and rows are copied into caller memory: a
 * row is one value per location with no key field, so it is not handed
 * out as a profdb_view.
 *
 * Tolerance: with PROFDB_OPEN_TOLERANT a damaged row (a bad index or data
 * member of one metric, a damaged ZCUBEX block entry, a sparse data member
 * shorter than its index, a compressed row that does not inflate) is
 * reported through the warn callback and reads as absent. Damage to the
 * tar structure or anchor.xml still fails the open.
 *
 * Built only when libarchive and expat were found at build time; otherwise
 * profdb_cube_open() and profdb_cube_open_mem() return -ENOTSUP.
 */

/** An open .cubex archive (opaque). @since 0.9 */
typedef struct profdb_cube profdb_cube;

/** Kind of a metric (the anchor's @c type attribute). @since 0.9 */
typedef enum profdb_cube_kind {
	PROFDB_CUBE_EXCLUSIVE = 0,    /**< stored values are call-tree exclusive (also: no type) */
	PROFDB_CUBE_INCLUSIVE = 1,    /**< stored values are call-tree inclusive */
	PROFDB_CUBE_SIMPLE = 2,       /**< rows in definition (cnode id) order */
	PROFDB_CUBE_POSTDERIVED = 3,  /**< derived (CubePL): no data, values not evaluated */
	PROFDB_CUBE_PREDERIVED_INCLUSIVE = 4, /**< derived, no data */
	PROFDB_CUBE_PREDERIVED_EXCLUSIVE = 5  /**< derived, no data */
} profdb_cube_kind;

/** Stored value type of a metric. @since 0.9 */
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

/** A metric. Absent strings are {"", 0}. @since 0.9 */
typedef struct profdb_cube_metric {
	uint32_t id;
	profdb_str name;           /**< uniq_name */
	profdb_str display_name;   /**< disp_name */
	profdb_str unit;           /**< uom */
	profdb_str description;    /**< descr */
	profdb_str dtype_name;     /**< the dtype text as stored */
	profdb_cube_dtype dtype;   /**< unknown dtype names read as DOUBLE (with a warning) */
	uint32_t dtype_arg;        /**< n of HISTOGRAM(n) / NDOUBLES(n), else 0 */
	uint32_t value_size;       /**< bytes per location in a row */
	profdb_cube_kind kind;
	int has_data;              /**< 1 if the archive holds its rows */
	int ghost;                 /**< 1 for viztype="GHOST" */
	uint32_t parent;           /**< parent metric id, PROFDB_NONE for a root */
	uint32_t first_child;      /**< PROFDB_NONE if none */
	uint32_t next_sibling;     /**< next child of the parent (or next root) */
	profdb_str url;
	/** CubePL of a derived metric, {"", 0} when none: <cubepl> (the value),
	 *  <cubeplinit> (run once), <cubeplaggr cubeplaggrtype=plus|minus|aggr>.
	 *  Listed, not evaluated. */
	profdb_str expression, init_expression;
	profdb_str aggr_plus, aggr_minus, aggr_aggr;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_metric;

/** A region (function, loop, ...). Absent strings are {"", 0}. @since 0.9 */
typedef struct profdb_cube_region {
	uint32_t id;
	profdb_str name;
	profdb_str mangled_name;
	profdb_str module;         /**< the @c mod attribute */
	profdb_str paradigm;
	profdb_str role;
	int64_t begin_line, end_line; /**< -1 if absent */
	profdb_str url;
	profdb_str description;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_region;

/** A call-tree node. Roots have parent == PROFDB_NONE and are chained in
 *  XML order by next_sibling, starting at profdb_cube_info.first_root.
 *  @since 0.9 */
typedef struct profdb_cube_cnode {
	uint32_t id;
	uint32_t region;           /**< callee region id */
	profdb_str region_name;
	uint32_t parent, first_child, next_sibling;  /**< ids or PROFDB_NONE */
	int64_t line;              /**< call-site line, -1 if absent */
	profdb_str module;         /**< call-site module, {"", 0} if absent */
	uint32_t n_params;         /**< see profdb_cube_cnode_param_at() */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_cnode;

/** A parameter of a cnode (<parameter parkey partype parvalue/>).
 *  @since 0.9 */
typedef struct profdb_cube_param {
	profdb_str key;
	profdb_str value;          /**< the value text as stored */
	int numeric;               /**< 1 if declared partype="numeric" */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cube_param;

/** A location (thread, GPU stream, ...). @since 0.9 */
typedef struct profdb_cube_location {
	uint32_t id;               /**< also its column in every row */
	profdb_str name;
	profdb_str type;           /**< "thread", "gpu", ... ("thread" for Cube3 files) */
	int64_t rank;              /**< the location's own rank (thread number) */
	int64_t process_rank;      /**< rank of its location group (process) */
	profdb_str group_name;     /**< its location group (process) */
	profdb_str node_name;      /**< the enclosing system-tree node ({"", 0} if none) */
	uint32_t group;            /**< index of its location group */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_location;

/** A location group (Score-P: a process; Cube3 <process>), by index in
 *  document order (0 .. n_location_groups-1). @since 0.9 */
typedef struct profdb_cube_location_group {
	uint32_t index;
	uint32_t id;               /**< the Id attribute as stored */
	profdb_str name;
	profdb_str type;           /**< "process", "metrics", "accelerator", "" */
	int64_t rank;              /**< -1 if absent */
	uint32_t node;             /**< index of its system-tree node, PROFDB_NONE */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_location_group;

/** A system-tree node (Cube3 <machine> and <node> too), by index in
 *  document order (0 .. n_system_nodes-1); parents come first. @since 0.9 */
typedef struct profdb_cube_system_node {
	uint32_t index;
	uint32_t id;               /**< the Id attribute as stored */
	profdb_str name;
	profdb_str klass;          /**< <class>: "machine", "node", ... ({"", 0} if absent) */
	uint32_t parent;           /**< index, PROFDB_NONE for a root */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_system_node;

/** What an attribute belongs to, what a topology coordinate names, and
 *  where profdb_cube_severity_get() aggregates. @since 0.9 */
typedef enum profdb_cube_item {
	PROFDB_CUBE_ITEM_CUBE = 0,           /**< the file; for severity: every location */
	PROFDB_CUBE_ITEM_METRIC = 1,         /**< a metric id */
	PROFDB_CUBE_ITEM_REGION = 2,         /**< a region id */
	PROFDB_CUBE_ITEM_CNODE = 3,          /**< a cnode id */
	PROFDB_CUBE_ITEM_SYSTEM_NODE = 4,    /**< a system-tree node index */
	PROFDB_CUBE_ITEM_LOCATION_GROUP = 5, /**< a location group index */
	PROFDB_CUBE_ITEM_LOCATION = 6        /**< a location id */
} profdb_cube_item;

/** Archive-wide facts. @since 0.9 */
typedef struct profdb_cube_info {
	profdb_str anchor_version;    /**< <cube version="..."> */
	profdb_str creator;           /**< attr "Creator", {"", 0} if absent */
	uint32_t n_metrics, n_regions, n_cnodes, n_locations;
	uint32_t n_location_groups, n_system_nodes;
	uint32_t first_root;          /**< first root cnode id (PROFDB_NONE if no cnodes) */
	uint32_t first_root_metric;   /**< first root metric id */
	int gzipped;                  /**< 1 if the archive itself was compressed */
	uint32_t n_attrs;             /**< <attr> elements, all owners */
	uint32_t n_carts;             /**< cartesian topologies */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_info;

/** Limit on the inflated size of a compressed archive or anchor.xml
 *  (-EFBIG beyond it). @since 0.9 */
#define PROFDB_CUBE_MAX_INFLATE ((uint64_t)4 << 30)

/** Open a .cubex file. A plain tar is mapped and read in place; a
 *  compressed one (gzip, or any filter libarchive knows) is inflated once
 *  into memory, at most PROFDB_CUBE_MAX_INFLATE bytes (or
 *  profdb_options.max_memory when smaller). The tar headers, anchor.xml and
 *  every index are validated here; rows are decoded lazily.
 *  @param[out] ret  the handle, NULL on failure
 *  @param opts      NULL for the defaults; PROFDB_OPEN_TOLERANT is honoured
 *  @return 0, -EINVAL (NULL @p ret or @p path, bad options), -ENOENT (no
 *          file / no anchor.xml member), -EBADMSG (corrupt archive, XML or
 *          index), -ENODATA (truncated), -EPROTONOSUPPORT (not a tar
 *          archive, unsupported anchor version), -ENOTSUP (built without
 *          libarchive/expat, or a feature this build lacks), -EFBIG,
 *          -ENOMEM, -errno of I/O.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_open(profdb_cube **ret, const char *path,
                                   const profdb_options *opts);

/** Open from a caller buffer, which must stay unchanged and alive until
 *  close (nothing is copied for a plain tar). Same checks and codes as
 *  profdb_cube_open(); -EINVAL for NULL @p data with a non-zero @p size.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_open_mem(profdb_cube **ret, const void *data, size_t size,
                                       const profdb_options *opts);

/** Close; NULL is a no-op. Every string and array of the handle dies here.
 *  No other call may be using the handle. @since 0.9 */
PROFDB_EXPORT void profdb_cube_close(profdb_cube *cube);

/** Archive-wide facts (strings owned by the handle).
 *  @return 0, -EINVAL (NULL argument). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_get_info(const profdb_cube *cube, profdb_cube_info *out);

/** Number of metrics, regions, cnodes, locations (each also the id
 *  bound), location groups, system-tree nodes, attributes and topologies
 *  (each the index bound of its *_at call).
 *  @return the count (>= 0), -EINVAL (NULL handle). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_metric_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_region_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_cnode_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_location_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_location_group_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_system_node_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_attr_count(const profdb_cube *cube);
/** @copydoc profdb_cube_metric_count @since 0.9 */
PROFDB_EXPORT int64_t profdb_cube_cart_count(const profdb_cube *cube);

/** Metric, region, cnode or location by id (ids are dense: 0 .. count-1).
 *  Strings are owned by the handle.
 *  @return 0, -EINVAL (NULL handle or @p out), -ENOENT (id out of range;
 *          *out cleared). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_metric_get(const profdb_cube *cube, uint32_t id,
                                         profdb_cube_metric *out);
/** @copydoc profdb_cube_metric_get @since 0.9 */
PROFDB_EXPORT int profdb_cube_region_get(const profdb_cube *cube, uint32_t id,
                                         profdb_cube_region *out);
/** @copydoc profdb_cube_metric_get @since 0.9 */
PROFDB_EXPORT int profdb_cube_cnode_get(const profdb_cube *cube, uint32_t id,
                                        profdb_cube_cnode *out);
/** @copydoc profdb_cube_metric_get @since 0.9 */
PROFDB_EXPORT int profdb_cube_location_get(const profdb_cube *cube, uint32_t id,
                                           profdb_cube_location *out);

/** Parameter @p index (0 .. n_params-1, document order) of cnode @p cnode.
 *  @return 0, -EINVAL, -ENOENT (cnode id or index out of range; *out
 *          cleared). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_cnode_param_at(const profdb_cube *cube, uint32_t cnode,
                                             uint32_t index, profdb_cube_param *out);

/** The stored value of (location, cnode, metric) as a double: exclusive for
 *  EXCLUSIVE metrics, inclusive for INCLUSIVE ones (see the metric's kind).
 *  Integers are converted; the structured dtypes give CubeLib's single
 *  number (getDouble): COMPLEX |z|, RATE main/duration (NaN for duration 0),
 *  TAU_ATOMIC sum/N (sum/1e-256 when N = 0), HISTOGRAM and NDOUBLES the sum
 *  of their bins / doubles. A missing row (none stored, a metric without
 *  data, or a damaged row in tolerant mode) gives the metric's neutral
 *  value: 0, or +DBL_MAX / -DBL_MAX for MINDOUBLE / MAXDOUBLE, which is
 *  what CubeLib shows for it.
 *  @return 1 stored, 0 not stored (*out neutral), -EINVAL (NULL handle or
 *          @p out), -ENOENT (an id out of range; *out = 0), -ENOTSUP
 *          (SCALE_FUNC, which is not one number: read it with
 *          profdb_cube_row_get()), -EBADMSG (a compressed row that does not
 *          inflate, strict mode), -ENOMEM. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_cube_value_get(const profdb_cube *cube, uint32_t location, uint32_t cnode,
                                        uint32_t metric, double *out);

/** Copy the row of (cnode, metric) into @p buf: n_locations × value_size
 *  bytes, column = location id, each field converted to host byte order
 *  (TAU_ATOMIC stays packed; SCALE_FUNC is copied as stored). A missing row
 *  is filled with neutral values (zeros, or +-DBL_MAX for MIN/MAXDOUBLE).
 *  A row has no key field (the column is the location id), so it is
 *  copied rather than handed out as a profdb_view.
 *  @return 1 stored, 0 not stored (neutral values written), -EINVAL (NULL
 *          handle or @p buf), -ENOENT (an id out of range), -ERANGE
 *          (@p size too small), -EBADMSG, -ENOMEM. Thread-safe.
 *  @since 0.12 */
PROFDB_EXPORT int profdb_cube_row_get(const profdb_cube *cube, uint32_t cnode, uint32_t metric,
                                      void *buf, size_t size);

/** Location group / system-tree node by index (document order).
 *  @return 0, -EINVAL, -ENOENT (index out of range; *out cleared).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_location_group_at(const profdb_cube *cube, uint32_t index,
                                                profdb_cube_location_group *out);
/** @copydoc profdb_cube_location_group_at @since 0.9 */
PROFDB_EXPORT int profdb_cube_system_node_at(const profdb_cube *cube, uint32_t index,
                                             profdb_cube_system_node *out);

/** An <attr key value/>: of the file, a metric, region, cnode, system-tree
 *  node, location group or location. @since 0.9 */
typedef struct profdb_cube_attr {
	profdb_cube_item owner;
	uint32_t owner_id;         /**< id or index as profdb_cube_item says; 0 for the file */
	profdb_str key, value;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cube_attr;

/** Attribute @p index (0 .. n_attrs-1, document order).
 *  @return 0, -EINVAL, -ENOENT (*out cleared). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_attr_at(const profdb_cube *cube, uint32_t index,
                                      profdb_cube_attr *out);

/** A cartesian topology (<cart> inside <topologies>). @since 0.9 */
typedef struct profdb_cube_cart {
	uint32_t index;
	profdb_str name;           /**< {"", 0} if absent */
	uint32_t ndims;
	uint32_t n_coords;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cube_cart;

/** One dimension of a topology. @since 0.9 */
typedef struct profdb_cube_dim {
	profdb_str name;           /**< {"", 0} if absent */
	int64_t size;              /**< -1 if absent */
	int periodic;              /**< 1 for periodic="true" */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cube_dim;

/** One coordinate of a topology: the item it places (a location, a
 *  location group or a system-tree node; Cube3 thrdId/procId/nodeId/machId
 *  resolve to the same kinds) and its ndims values. @since 0.9 */
typedef struct profdb_cube_coord {
	profdb_cube_item kind;
	uint32_t item;             /**< location id, group or node index */
	/** ndims values, owned by the handle (a plain array: the values have
	 *  no key, so this is not a profdb_view) */
	const int64_t *values;
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cube_coord;

/** Topology @p index (0 .. n_carts-1).
 *  @return 0, -EINVAL, -ENOENT (*out cleared). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_cart_at(const profdb_cube *cube, uint32_t index,
                                      profdb_cube_cart *out);
/** Dimension @p dim (0 .. ndims-1) of topology @p cart.
 *  @return 0, -EINVAL, -ENOENT (*out cleared). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_cart_dim_at(const profdb_cube *cube, uint32_t cart, uint32_t dim,
                                          profdb_cube_dim *out);
/** Coordinate @p index (0 .. n_coords-1) of topology @p cart.
 *  @return 0, -EINVAL, -ENOENT (*out cleared). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cube_cart_coord_at(const profdb_cube *cube, uint32_t cart,
                                            uint32_t index, profdb_cube_coord *out);

/** Flags of profdb_cube_severity_get(). @since 0.9 */
enum {
	/** Call-tree inclusive (the cnode and its subtree); without it,
	 *  call-tree exclusive. Whatever the metric stores is converted. */
	PROFDB_CUBE_CALL_INCLUSIVE = 1u << 0,
	/** Metric-tree exclusive: minus the child metrics' values (same cnode,
	 *  view and system item). Without it, the value as stored, which
	 *  already includes the child metrics (CubeLib's default). */
	PROFDB_CUBE_METRIC_EXCLUSIVE = 1u << 1
};

/** The value CubeLib shows for (system item, cnode, metric): converted
 *  along the call tree, aggregated over the locations below @p where
 *  (PROFDB_CUBE_ITEM_LOCATION, _LOCATION_GROUP, _SYSTEM_NODE, or _CUBE
 *  for every location) and, with PROFDB_CUBE_METRIC_EXCLUSIVE, made
 *  metric-exclusive. Computed in double in a fixed order, documented in
 *  doc/FORMATS.md ("Cube"), with the arithmetic of CubeLib's value class
 *  for the dtype: + for numbers, min / max for MINDOUBLE / MAXDOUBLE, per
 *  field for COMPLEX / NDOUBLES, fractions for RATE, count, min, max, sums
 *  for TAU_ATOMIC, rebinning for HISTOGRAM; the result is the aggregate's
 *  single number (as profdb_cube_value_get() describes). Missing rows are
 *  neutral; UINT64 values above 0xFFFFFFFFFFFFFBFF count as 0, as in
 *  CubeLib. Nothing is cached: the cost is the subtree's rows (inclusive
 *  view) or the children's rows (exclusive view of an INCLUSIVE metric).
 *  @param where_id  the id or index @p where names (ignored for _CUBE)
 *  @return 0, -EINVAL (NULL handle or @p out, bad @p where or @p flags),
 *          -ENOENT (an id or index out of range), -ENOTSUP (a derived
 *          metric, which is not evaluated, or SCALE_FUNC), -EBADMSG, -EFBIG
 *          (rows beyond max_memory), -ENOMEM. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_cube_severity_get(const profdb_cube *cube, profdb_cube_item where,
                                           uint32_t where_id, uint32_t cnode, uint32_t metric,
                                           unsigned flags, double *out);

/** The aggregate of profdb_cube_severity_get() before it becomes one number:
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
 *          small), and the codes of profdb_cube_severity_get(). Thread-safe.
 *  @since 0.12 */
PROFDB_EXPORT int64_t profdb_cube_severity_fields_get(const profdb_cube *cube,
                                                      profdb_cube_item where, uint32_t where_id,
                                                      uint32_t cnode, uint32_t metric,
                                                      unsigned flags, double *fields,
                                                      size_t n_fields);

/* ---- end of Cube -------------------------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_CUBE_H */
