/* Cube4 .cubex reader: internal structures shared by its files.
 * Format facts and the errata against the published description are in
 * doc/FORMATS.md ("Cube"). */
#ifndef PROFDB_CUBE_INTERNAL_H
#define PROFDB_CUBE_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "../core/core-internal.h"
#include "profdb/cube.h"

/* One tar member: a name (copied, NUL-terminated) and where its bytes are
 * in the archive input (the mapping, or the inflated copy). */
typedef struct cube_member {
	char *name;
	uint64_t off, size;     /* data bytes [off, off + size) of the input */
	uint64_t header_off;    /* for messages */
} cube_member;

/* A string in the handle's arena: an offset, so the arena may grow while
 * the anchor is parsed; turned into pointers when parsing is done. */
typedef uint32_t cube_str;

typedef struct cube_metric {
	uint32_t id;
	cube_str name, disp, unit, descr, dtype_text, url;
	/* CubePL of derived metrics: <cubepl>, <cubeplinit>, <cubeplaggr> by type */
	cube_str expr, expr_init, expr_plus, expr_minus, expr_aggr;
	profdb_cube_dtype dtype;
	uint32_t dtype_arg, vsize;
	profdb_cube_kind kind;
	int ghost;
	uint32_t parent, first_child, next_sibling; /* ids */
	/* data (set after the anchor is parsed) */
	int has_data;
	int swap;               /* index/data written in the other byte order */
	int dense;              /* DENSE index: row k is position k */
	int zipped;             /* ZCUBEX.DATA */
	const unsigned char *positions; /* SPARSE: n big/little u32, ascending */
	uint32_t nrows;         /* rows named by the index */
	const cube_member *data_member, *index_member;
	uint64_t rows_off;      /* first row (uncompressed) */
	uint64_t rows_avail;    /* uncompressed: rows present in the member */
	/* ZCUBEX: per row k, the compressed block (offset into the input, size);
	 * size 0 = missing row. */
	uint64_t *zoff;
	uint64_t *zsize;
	_Atomic(unsigned char *) *zcache; /* inflated rows, installed by CAS */
	atomic_bool warned_row;  /* PROFDB_OPEN_TOLERANT: a damaged row was reported */
	/* EXCLUSIVE metrics: every cnode's inclusive row (severity.c,
	 * incl_table), built on the second inclusive request, installed by CAS */
	_Atomic(double *) incl_table;
	atomic_uint incl_asks;
} cube_metric;

typedef struct cube_region {
	uint32_t id;
	cube_str name, mangled, mod, paradigm, role, url, descr;
	int64_t begin, end;
} cube_region;

typedef struct cube_param {
	cube_str key, value;
	int numeric;
} cube_param;

typedef struct cube_cnode {
	uint32_t id, region;
	uint32_t parent, first_child, next_sibling, last_child; /* ids */
	int64_t line;
	cube_str mod;
	uint32_t first_param, n_params;
	uint32_t depth;            /* roots 0; set with max_depth at open (enumerate) */
} cube_cnode;

typedef struct cube_location {
	uint32_t id;
	cube_str name, type;
	int64_t rank;
	uint32_t group;   /* index into groups */
} cube_location;

typedef struct cube_group {
	uint32_t xml_id;  /* Id attribute (locationgroup / Cube3 process) */
	cube_str name, type;
	int64_t rank;
	uint32_t node;    /* index into stns or UINT32_MAX */
} cube_group;

typedef struct cube_stn {
	uint32_t xml_id;  /* Id attribute */
	uint32_t element; /* 0 <systemtreenode>, 1 Cube3 <machine>, 2 Cube3 <node> */
	cube_str name, klass, descr;
	uint32_t parent;  /* index or UINT32_MAX */
	uint32_t depth;
} cube_stn;

/* An <attr key value/> and the item it belongs to. */
typedef struct cube_attr {
	profdb_cube_item owner;
	uint32_t owner_id;  /* metric/cnode/location id, group/node index; 0 for the cube */
	cube_str key, value;
} cube_attr;

/* A <cart>: dims [first_dim, +ndims), coords [first_coord, +n_coords). */
typedef struct cube_cart {
	cube_str name;
	uint32_t ndims, first_dim, first_coord, n_coords;
} cube_cart;

typedef struct cube_dim {
	cube_str name;
	int64_t size;
	int periodic;
} cube_dim;

/* A <coord>: the item (resolved to an id / index) and ndims values
 * starting at coord_vals[first_val]. */
typedef struct cube_coord {
	profdb_cube_item kind;
	uint32_t item;
	uint32_t xml_id;     /* as written, before resolution */
	uint32_t elem;       /* which attribute named it (for resolution) */
	uint32_t first_val;
} cube_coord;

struct profdb_cube {
	profdb_options opts;
	profdb__input in;         /* the archive as given (mapped or caller's) */
	unsigned char *inflated;  /* a compressed archive, inflated */
	profdb__input tar;        /* the tar bytes: == in, or over inflated */
	int gzipped;

	cube_member *members;
	uint32_t n_members;

	/* string arena */
	char *strs;
	size_t strs_len, strs_cap;

	cube_str anchor_version, creator;
	cube_metric *metrics;      /* by id after the anchor is parsed */
	uint32_t n_metrics;
	cube_region *regions;      /* by id */
	uint32_t n_regions;
	cube_cnode *cnodes;        /* by id */
	uint32_t n_cnodes;
	uint32_t first_root, first_root_metric;
	cube_param *params;
	uint32_t n_params;
	cube_location *locs;       /* by id */
	uint32_t n_locs;
	cube_group *groups;
	uint32_t n_groups;
	cube_stn *stns;
	uint32_t n_stns;
	cube_attr *attrs;
	uint32_t n_attrs;
	cube_cart *carts;
	uint32_t n_carts;
	cube_dim *dims;
	uint32_t n_dims;
	cube_coord *coords;
	uint32_t n_coords;
	int64_t *coord_vals;
	uint32_t n_coord_vals;
	uint32_t max_depth;        /* deepest cnode (roots 0) */

	/* enumeration positions per cnode id: deep (EXCLUSIVE), wide
	 * (INCLUSIVE); SIMPLE metrics use the id itself */
	uint32_t *pos_deep, *pos_wide;
	/* cnode ids in document (definition) order */
	uint32_t *doc_order;

	_Atomic uint64_t zcache_bytes; /* bytes installed in zcache (soft cap) */
	char *path;               /* name used in messages */
};

/* Soft cap on the inflated-row cache of one handle; rows beyond it are
 * inflated per call into temporary memory. */
#define CUBE_ZCACHE_CAP ((uint64_t)256 << 20)
/* Cap on one metric's table of inclusive rows (cnodes x locations x fields
 * doubles); a bigger metric walks the subtree per request. */
#define CUBE_INCL_TABLE_CAP ((uint64_t)256 << 20)

/* tar.c */
int profdb__cube_tar_load(profdb_cube *c);
const cube_member *profdb__cube_member_find(const profdb_cube *c, const char *name);
/* Decompress the gzip stream [data, data+size) (every member checked) into a new
 * malloc'ed buffer of at most @p limit bytes. @p what names it in messages. */
/* What one inflation may produce: PROFDB_CUBE_MAX_INFLATE, or the caller's
 * smaller profdb_options.max_memory. */
static inline uint64_t profdb__cube_inflate_limit(const profdb_cube *c)
{
	uint64_t m = c->opts.max_memory;
	return m && m < PROFDB_CUBE_MAX_INFLATE ? m : PROFDB_CUBE_MAX_INFLATE;
}

int profdb__cube_inflate_any(const unsigned char *data, size_t size, uint64_t limit,
                     const char *what, unsigned char **out, size_t *out_size);

/* anchor.c */
int profdb__cube_anchor_parse(profdb_cube *c);
const char *profdb__cube_s(const profdb_cube *c, cube_str s);
/* The arena string @p s as a profdb_str ({"", 0} for offset 0). */
static inline profdb_str profdb__cube_str(const profdb_cube *c, cube_str s)
{
	const char *p = c->strs + s;
	profdb_str r = {p, strlen(p)};
	return r;
}

/* data.c */
int profdb__cube_data_setup(profdb_cube *c);
void profdb__cube_data_free(profdb_cube *c);
/* The stored bytes of row (metric, cnode): 1 and *row (writer's byte order;
 * free *tmp afterwards, it may be set), 0 when there is none, or < 0. */
int profdb__cube_get_row(const profdb_cube *c, cube_metric *m, uint32_t cnode,
                         const unsigned char **row, unsigned char **tmp);
/* 0, or +-DBL_MAX for MIN/MAXDOUBLE. */
double profdb__cube_neutral(const cube_metric *m);
/* Does a call-view value @p v at one location count as a value when
 * locations are combined? A min/max metric's stored zero does (it wins a
 * minimum, as in CubeLib) and only the neutral value (no row anywhere in
 * the view) does not; for every other dtype a 0 adds nothing and is no
 * value. doc/model.md, "Combining numbers". */
static inline int profdb__cube_is_value(const cube_metric *m, double v)
{
	if (m->dtype == PROFDB_CUBE_MINDOUBLE || m->dtype == PROFDB_CUBE_MAXDOUBLE)
		return v != profdb__cube_neutral(m);
	return v != 0.0;
}
/* Column @p location of a stored row as one number, CubeLib's getDouble():
 * scalar dtypes as stored; COMPLEX |z|, RATE main/duration (NaN for duration
 * 0), TAU_ATOMIC sum/N (sum/1e-256 for N = 0), NDOUBLES the sum, HISTOGRAM
 * the sum of its bins, SCALE_FUNC NaN.
 * @p cubelib: UINT64 values CubeLib turns into 0 give 0. */
double profdb__cube_cell(const cube_metric *m, const unsigned char *row, uint32_t location,
                         int cubelib);
/* severity.c: the call-tree view of metric @p metric at one location (as
 * profdb_cube_severity_get with PROFDB_CUBE_ITEM_LOCATION, bit for bit) for
 * every cnode and the @p nl locations @p locs: out[cnode * nl + j], and
 * found[cnode * nl + j] = 1 where it is neither 0 nor the neutral value.
 * An EXCLUSIVE metric's inclusive view is one depth-first pass over the
 * call tree (each subtree once, in the same order of (+) as one call
 * computes it); every other view reads each cnode once. Cnodes no root
 * reaches stay 0. @return 0, -ENOTSUP (derived, SCALE_FUNC), -EFBIG,
 * -ENOMEM, -EBADMSG. */
int profdb__cube_call_view_all(const profdb_cube *c, uint32_t metric, int inclusive,
                               const uint32_t *locs, size_t nl, double *out, uint8_t *found);
/* Scalar dtypes (integers, DOUBLE, MIN/MAXDOUBLE): what severity accepts. */
#define CUBE_SCALAR(m) ((m)->dtype <= PROFDB_CUBE_MAXDOUBLE)

#endif
