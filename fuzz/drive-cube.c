/* Shared driver of the Cube4 fuzz targets; drive-cube.h lists the
 * invariants. Each CUBE_CHECK names the one it checks. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-cube.h"
#include "drive-hpctk.h"   /* fuzz_hpctk_strict: the standalone driver's --strict */
#include "fuzz-common.h"

enum {
	MAX_VALUES = 200000,     /* profdb_cube_value_get() calls per input */
	MAX_ROW_BYTES = 1 << 24, /* rows larger than this are not read */
	MAX_PARAMS = 64,         /* parameters checked per cnode */
};

/* Clear the message, make the call, check a failure's code and message
 * (fuzz-common.h). */
#define CALL FUZZ_CALL

static void check_str(profdb_str s, const char *what)
{
	CUBE_CHECK(s.ptr != NULL, "%s is NULL", what);
	/* NUL-terminated at len (a missing NUL is an ASan report) */
	CUBE_CHECK(strlen(s.ptr) == s.len, "%s: length %zu, NUL after %zu", what, s.len,
	           strlen(s.ptr));
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static int scalar(profdb_cube_dtype t)
{
	return t <= PROFDB_CUBE_MAXDOUBLE;
}

static int integer(profdb_cube_dtype t)
{
	return t <= PROFDB_CUBE_UINT64;
}

/* Field @p l of a host-order row as profdb_cube_value_get() converts it. */
static double row_double(const unsigned char *row, profdb_cube_dtype t, uint32_t l)
{
	const unsigned char *v;
	switch (t) {
	case PROFDB_CUBE_INT8: return (int8_t)row[l];
	case PROFDB_CUBE_UINT8: return row[l];
	case PROFDB_CUBE_INT16: { int16_t x; v = row + (size_t)l * 2; memcpy(&x, v, 2); return x; }
	case PROFDB_CUBE_UINT16: { uint16_t x; v = row + (size_t)l * 2; memcpy(&x, v, 2); return x; }
	case PROFDB_CUBE_INT32: { int32_t x; v = row + (size_t)l * 4; memcpy(&x, v, 4); return x; }
	case PROFDB_CUBE_UINT32: { uint32_t x; v = row + (size_t)l * 4; memcpy(&x, v, 4); return x; }
	case PROFDB_CUBE_INT64: { int64_t x; memcpy(&x, row + (size_t)l * 8, 8); return (double)x; }
	case PROFDB_CUBE_UINT64: { uint64_t x; memcpy(&x, row + (size_t)l * 8, 8); return (double)x; }
	default: { double x; memcpy(&x, row + (size_t)l * 8, 8); return x; }
	}
}

/* Field @p l of a host-order integer row, as a wrapping 64-bit integer. */
static uint64_t row_u64(const unsigned char *row, profdb_cube_dtype t, uint32_t l)
{
	switch (t) {
	case PROFDB_CUBE_INT8: return (uint64_t)(int64_t)(int8_t)row[l];
	case PROFDB_CUBE_UINT8: return row[l];
	case PROFDB_CUBE_INT16: { int16_t x; memcpy(&x, row + (size_t)l * 2, 2); return (uint64_t)(int64_t)x; }
	case PROFDB_CUBE_UINT16: { uint16_t x; memcpy(&x, row + (size_t)l * 2, 2); return x; }
	case PROFDB_CUBE_INT32: { int32_t x; memcpy(&x, row + (size_t)l * 4, 4); return (uint64_t)(int64_t)x; }
	case PROFDB_CUBE_UINT32: { uint32_t x; memcpy(&x, row + (size_t)l * 4, 4); return x; }
	default: { uint64_t x; memcpy(&x, row + (size_t)l * 8, 8); return x; }
	}
}

static double neutral(profdb_cube_dtype t)
{
	return t == PROFDB_CUBE_MINDOUBLE ? DBL_MAX : t == PROFDB_CUBE_MAXDOUBLE ? -DBL_MAX : 0.0;
}

typedef struct drv {
	const profdb_cube *c;
	profdb_cube_info info;
	uint32_t *order;      /* cnode ids in walk pre-order */
	uint32_t n_order;
	uint64_t values;      /* value reads left */
} drv;

/* ---- structure ---------------------------------------------------------- */

static void drive_counts(drv *d)
{
	const profdb_cube *c = d->c;
	CUBE_CHECK(CALL(profdb_cube_get_info(c, &d->info)) == 0, "get_info fails on an open handle");
	profdb_cube_info *i = &d->info;
	check_str(i->anchor_version, "anchor_version");
	check_str(i->creator, "creator");
	CUBE_CHECK(CALL(profdb_cube_metric_count(c)) == (int64_t)i->n_metrics, "metric count");
	CUBE_CHECK(CALL(profdb_cube_cnode_count(c)) == (int64_t)i->n_cnodes, "cnode count");
	CUBE_CHECK(CALL(profdb_cube_location_count(c)) == (int64_t)i->n_locations, "location count");
	CUBE_CHECK(CALL(profdb_cube_region_count(c)) == (int64_t)i->n_regions, "region count");
	CUBE_CHECK(i->gzipped == 0 || i->gzipped == 1, "gzipped %d", i->gzipped);
	CUBE_CHECK((i->n_cnodes == 0) == (i->first_root == PROFDB_NONE),
	           "first_root %" PRIu32 " with %" PRIu32 " cnodes", i->first_root, i->n_cnodes);
	CUBE_CHECK(i->first_root == PROFDB_NONE || i->first_root < i->n_cnodes, "first_root range");
	CUBE_CHECK(i->first_root_metric == PROFDB_NONE || i->first_root_metric < i->n_metrics,
	           "first_root_metric %" PRIu32 " of %" PRIu32, i->first_root_metric, i->n_metrics);
}

static void drive_items(drv *d)
{
	const profdb_cube *c = d->c;
	const profdb_cube_info *i = &d->info;
	for (uint32_t k = 0; k < i->n_regions; k++) {
		profdb_cube_region g;
		CUBE_CHECK(CALL(profdb_cube_region_get(c, k, &g)) == 0 && g.id == k, "region %" PRIu32, k);
		check_str(g.name, "region name");
		check_str(g.mangled_name, "region mangled name");
		check_str(g.module, "region module");
		check_str(g.paradigm, "region paradigm");
		check_str(g.role, "region role");
	}
	for (uint32_t k = 0; k < i->n_locations; k++) {
		profdb_cube_location l;
		CUBE_CHECK(CALL(profdb_cube_location_get(c, k, &l)) == 0 && l.id == k,
		           "location %" PRIu32, k);
		check_str(l.name, "location name");
		check_str(l.type, "location type");
		check_str(l.group_name, "location group name");
		check_str(l.node_name, "location node name");
	}
	for (uint32_t k = 0; k < i->n_cnodes; k++) {
		profdb_cube_cnode n;
		CUBE_CHECK(CALL(profdb_cube_cnode_get(c, k, &n)) == 0 && n.id == k, "cnode %" PRIu32, k);
		CUBE_CHECK(n.region < i->n_regions, "cnode %" PRIu32 " region %" PRIu32 " of %" PRIu32,
		           k, n.region, i->n_regions);
		CUBE_CHECK(n.parent == PROFDB_NONE || n.parent < i->n_cnodes, "cnode parent range");
		CUBE_CHECK(n.first_child == PROFDB_NONE || n.first_child < i->n_cnodes, "child range");
		CUBE_CHECK(n.next_sibling == PROFDB_NONE || n.next_sibling < i->n_cnodes,
		           "sibling range");
		check_str(n.region_name, "cnode region name");
		check_str(n.module, "cnode module");
		uint32_t np = n.n_params < MAX_PARAMS ? n.n_params : MAX_PARAMS;
		for (uint32_t p = 0; p < np; p++) {
			profdb_cube_param pa;
			CUBE_CHECK(CALL(profdb_cube_cnode_param_at(c, k, p, &pa)) == 0,
			           "cnode %" PRIu32 " param %" PRIu32, k, p);
			check_str(pa.key, "param key");
			check_str(pa.value, "param value");
			CUBE_CHECK(pa.numeric == 0 || pa.numeric == 1, "numeric flag %d", pa.numeric);
		}
		profdb_cube_param pa;
		CUBE_CHECK(CALL(profdb_cube_cnode_param_at(c, k, n.n_params, &pa)) == -ENOENT,
		           "param past n_params exists");
	}
	for (uint32_t k = 0; k < i->n_metrics; k++) {
		profdb_cube_metric m;
		CUBE_CHECK(CALL(profdb_cube_metric_get(c, k, &m)) == 0 && m.id == k, "metric %" PRIu32, k);
		check_str(m.name, "metric name");
		check_str(m.display_name, "metric display name");
		check_str(m.unit, "metric unit");
		check_str(m.description, "metric description");
		check_str(m.dtype_name, "metric dtype name");
		CUBE_CHECK(m.dtype <= PROFDB_CUBE_SCALE_FUNC, "dtype %d", (int)m.dtype);
		CUBE_CHECK(m.kind <= PROFDB_CUBE_PREDERIVED_EXCLUSIVE, "kind %d", (int)m.kind);
		CUBE_CHECK(m.value_size > 0, "metric %" PRIu32 " value size 0", k);
		CUBE_CHECK(m.has_data == 0 || m.has_data == 1, "has_data %d", m.has_data);
		CUBE_CHECK(!m.has_data || m.kind < PROFDB_CUBE_POSTDERIVED, "derived metric with data");
		CUBE_CHECK(m.parent == PROFDB_NONE || m.parent < i->n_metrics, "metric parent range");
		CUBE_CHECK(m.first_child == PROFDB_NONE || m.first_child < i->n_metrics, "metric child");
		CUBE_CHECK(m.next_sibling == PROFDB_NONE || m.next_sibling < i->n_metrics,
		           "metric sibling");
	}
	/* one past every count */
	profdb_cube_region g;
	profdb_cube_location l;
	profdb_cube_cnode n;
	profdb_cube_metric m;
	CUBE_CHECK(CALL(profdb_cube_region_get(c, i->n_regions, &g)) == -ENOENT, "region past end");
	CUBE_CHECK(CALL(profdb_cube_location_get(c, i->n_locations, &l)) == -ENOENT, "location past end");
	CUBE_CHECK(CALL(profdb_cube_cnode_get(c, i->n_cnodes, &n)) == -ENOENT, "cnode past end");
	CUBE_CHECK(CALL(profdb_cube_metric_get(c, i->n_metrics, &m)) == -ENOENT, "metric past end");
}

/* Walk a forest given by (first root, per-node parent/first_child/
 * next_sibling): every node exactly once, children name their parent.
 * Fills @p order (pre-order) when not NULL. */
typedef int (*links_fn)(const profdb_cube *c, uint32_t id, uint32_t *parent, uint32_t *child,
                        uint32_t *sibling);

static int cnode_links(const profdb_cube *c, uint32_t id, uint32_t *parent, uint32_t *child,
                       uint32_t *sibling)
{
	profdb_cube_cnode n;
	int r = CALL(profdb_cube_cnode_get(c, id, &n));
	*parent = n.parent;
	*child = n.first_child;
	*sibling = n.next_sibling;
	return r;
}

static int metric_links(const profdb_cube *c, uint32_t id, uint32_t *parent, uint32_t *child,
                        uint32_t *sibling)
{
	profdb_cube_metric m;
	int r = CALL(profdb_cube_metric_get(c, id, &m));
	*parent = m.parent;
	*child = m.first_child;
	*sibling = m.next_sibling;
	return r;
}

static void walk_forest(const profdb_cube *c, const char *what, uint32_t n, uint32_t first,
                        links_fn links, uint32_t *order)
{
	if (n == 0)
		return;
	unsigned char *seen = calloc(n, 1);
	uint32_t *stack = malloc((size_t)n * sizeof *stack);
	CUBE_CHECK(seen && stack, "out of memory for %" PRIu32 " %s", n, what);
	uint32_t visited = 0, depth = 0;
	/* The stack holds siblings to visit: a node, then (later) its next
	 * sibling and its first child. Roots are the siblings of the first root. */
	if (first != PROFDB_NONE)
		stack[depth++] = first;
	while (depth) {
		uint32_t id = stack[--depth], parent, child, sibling;
		CUBE_CHECK(id < n, "%s id %" PRIu32 " of %" PRIu32, what, id, n);
		CUBE_CHECK(!seen[id], "%s %" PRIu32 " reached twice (a cycle or a shared child)", what, id);
		seen[id] = 1;
		if (order)
			order[visited] = id;
		visited++;
		CUBE_CHECK(links(c, id, &parent, &child, &sibling) == 0, "%s %" PRIu32, what, id);
		if (sibling != PROFDB_NONE) {
			uint32_t sp, sc, ss;
			CUBE_CHECK(links(c, sibling, &sp, &sc, &ss) == 0 && sp == parent,
			           "%s %" PRIu32 " and its next sibling %" PRIu32 " have different parents",
			           what, id, sibling);
			stack[depth++] = sibling;
		}
		if (child != PROFDB_NONE) {
			uint32_t cp, cc, cs;
			CUBE_CHECK(links(c, child, &cp, &cc, &cs) == 0 && cp == id,
			           "first child %" PRIu32 " of %s %" PRIu32 " names parent %" PRIu32, child,
			           what, id, cp);
			CUBE_CHECK(depth < n, "%s walk stack overflow", what);
			stack[depth++] = child;
		}
	}
	CUBE_CHECK(visited == n, "the %s walk reaches %" PRIu32 " of %" PRIu32, what, visited, n);
	free(seen);
	free(stack);
}

static void drive_trees(drv *d)
{
	const profdb_cube_info *i = &d->info;
	d->order = malloc(((size_t)i->n_cnodes + 1) * sizeof *d->order);
	CUBE_CHECK(d->order != NULL, "out of memory");
	walk_forest(d->c, "cnode", i->n_cnodes, i->first_root, cnode_links, d->order);
	d->n_order = i->n_cnodes;
	if (i->n_metrics)
		walk_forest(d->c, "metric", i->n_metrics, i->first_root_metric, metric_links, NULL);
	/* the root chain: exactly the cnodes without a parent */
	uint32_t roots = 0, chain = 0;
	for (uint32_t k = 0; k < i->n_cnodes; k++) {
		profdb_cube_cnode n;
		CALL(profdb_cube_cnode_get(d->c, k, &n));
		roots += n.parent == PROFDB_NONE;
	}
	for (uint32_t r = i->first_root; r != PROFDB_NONE && chain <= i->n_cnodes; chain++) {
		profdb_cube_cnode n;
		CUBE_CHECK(CALL(profdb_cube_cnode_get(d->c, r, &n)) == 0 && n.parent == PROFDB_NONE,
		           "root chain member %" PRIu32 " has a parent", r);
		r = n.next_sibling;
	}
	CUBE_CHECK(chain == roots, "root chain %" PRIu32 " long, %" PRIu32 " roots", chain, roots);
}

/* ---- values --------------------------------------------------------------- */

static void drive_metric_values(drv *d, uint32_t mid)
{
	const profdb_cube *c = d->c;
	const profdb_cube_info *i = &d->info;
	profdb_cube_metric m;
	CUBE_CHECK(CALL(profdb_cube_metric_get(c, mid, &m)) == 0, "metric %" PRIu32, mid);
	uint64_t rb64 = (uint64_t)m.value_size * i->n_locations;
	if (rb64 > MAX_ROW_BYTES)
		return;
	size_t rb = (size_t)rb64;
	unsigned char *row = malloc(rb + 1), *again = malloc(rb + 1);
	CUBE_CHECK(row && again, "out of memory");
	/* Integer metrics: exclusive sum per cnode, then inclusive by the walk. */
	uint64_t *incl = integer(m.dtype) ? calloc((size_t)i->n_cnodes + 1, sizeof *incl) : NULL;
	uint64_t flat = 0;
	int complete = incl != NULL;

	if (rb) {
		/* A buffer one byte short is refused. */
		CUBE_CHECK(i->n_cnodes == 0 || CALL(profdb_cube_row_get(c, 0, mid, row, rb - 1)) == -ERANGE,
		           "a short row buffer is accepted");
	}
	for (uint32_t k = 0; k < i->n_cnodes; k++) {
		if (d->values < i->n_locations + 1u) {
			complete = 0;
			break;
		}
		d->values -= i->n_locations + 1u;
		int rr = CALL(profdb_cube_row_get(c, k, mid, row, rb));
		int rr2 = CALL(profdb_cube_row_get(c, k, mid, again, rb));
		CUBE_CHECK(rr == rr2, "metric %" PRIu32 " cnode %" PRIu32 ": row %d then %d", mid, k,
		           rr, rr2);
		if (rr < 0) {
			CUBE_CHECK(!fuzz_hpctk_strict, "strict: metric %" PRIu32 " cnode %" PRIu32
			           " row fails (%d)", mid, k, rr);
			complete = 0;
		} else {
			CUBE_CHECK(memcmp(row, again, rb) == 0, "metric %" PRIu32 " cnode %" PRIu32
			           ": the second read of a row differs", mid, k);
			CUBE_CHECK(m.has_data || rr == 0, "metric %" PRIu32 " without data has a row", mid);
		}
		for (uint32_t l = 0; l < i->n_locations; l++) {
			double v = 0, v2 = 0;
			int r = CALL(profdb_cube_value_get(c, l, k, mid, &v));
			if (!scalar(m.dtype)) {
				CUBE_CHECK(r == -ENOTSUP, "value of a %d-dtype metric: %d", (int)m.dtype, r);
				continue;
			}
			CUBE_CHECK(r == rr, "metric %" PRIu32 " cnode %" PRIu32 " location %" PRIu32
			           ": value says %d, row says %d", mid, k, l, r, rr);
			if (r < 0)
				continue;
			CUBE_CHECK(CALL(profdb_cube_value_get(c, l, k, mid, &v2)) == r && same_bits(v, v2),
			           "second value read differs");
			double want = r ? row_double(row, m.dtype, l) : neutral(m.dtype);
			CUBE_CHECK(same_bits(v, want), "metric %" PRIu32 " cnode %" PRIu32 " location %"
			           PRIu32 ": value %a, row %a", mid, k, l, v, want);
			if (r == 0)
				CUBE_CHECK(same_bits(row_double(row, m.dtype, l), neutral(m.dtype)),
				           "a missing row is not filled with the neutral value");
			if (incl && r == 1) {
				uint64_t x = row_u64(row, m.dtype, l);
				incl[k] += x;
				flat += x;
			}
		}
	}
	if (complete && d->n_order == i->n_cnodes) {
		/* Reverse pre-order visits children before their parent. */
		uint64_t roots = 0;
		for (uint32_t o = d->n_order; o-- > 0;) {
			uint32_t k = d->order[o];
			profdb_cube_cnode n;
			CALL(profdb_cube_cnode_get(c, k, &n));
			if (n.parent == PROFDB_NONE)
				roots += incl[k];
			else
				incl[n.parent] += incl[k];
		}
		CUBE_CHECK(roots == flat, "metric %" PRIu32 ": inclusive sums over the roots %" PRIu64
		           " != sum over all cnodes %" PRIu64, mid, roots, flat);
	}
	double v;
	if (i->n_cnodes) {
		CUBE_CHECK(CALL(profdb_cube_value_get(c, i->n_locations, 0, mid, &v)) == -ENOENT,
		           "location past the end");
		CUBE_CHECK(CALL(profdb_cube_value_get(c, 0, 0, mid, NULL)) == -EINVAL,
		           "NULL output accepted");
	}
	CUBE_CHECK(CALL(profdb_cube_value_get(c, 0, i->n_cnodes, mid, &v)) == -ENOENT, "cnode past end");
	free(incl);
	free(row);
	free(again);
}

static void drive_bad_args(const drv *d)
{
	profdb_cube_info info;
	profdb_cube_metric m;
	double v;
	CUBE_CHECK(CALL(profdb_cube_get_info(NULL, &info)) == -EINVAL, "get_info(NULL)");
	CUBE_CHECK(CALL(profdb_cube_get_info(d->c, NULL)) == -EINVAL, "get_info(out NULL)");
	CUBE_CHECK(CALL(profdb_cube_metric_count(NULL)) == -EINVAL, "metric_count(NULL)");
	CUBE_CHECK(CALL(profdb_cube_cnode_count(NULL)) == -EINVAL, "cnode_count(NULL)");
	CUBE_CHECK(CALL(profdb_cube_metric_get(NULL, 0, &m)) == -EINVAL, "metric_get(NULL)");
	CUBE_CHECK(CALL(profdb_cube_value_get(NULL, 0, 0, 0, &v)) == -EINVAL, "value(NULL)");
	CUBE_CHECK(CALL(profdb_cube_value_get(d->c, 0, 0, d->info.n_metrics, &v)) == -ENOENT,
	           "metric past the end");
}

static void on_warning(const char *message, void *userdata)
{
	(void)userdata;
	CUBE_CHECK(message && message[0] && strlen(message) < 4096, "empty or huge warning");
}

int fuzz_cube_run(const uint8_t *data, size_t size,
                  void (*check)(const profdb_cube *c, void *arg), void *arg)
{
	profdb_options opts = {sizeof opts, 0, on_warning, NULL};
	profdb_cube *c = (profdb_cube *)&opts;   /* must come back NULL on failure */
	int r = CALL(profdb_cube_open_mem(&c, data, size, &opts));
	if (r < 0) {
		CUBE_CHECK(c == NULL, "a failed open returned a handle");
		CUBE_CHECK(!fuzz_hpctk_strict, "strict: the archive does not open: %d", r);
		return r;
	}
	CUBE_CHECK(r == 0 && c != NULL, "open returned %d and handle %p", r, (void *)c);
	drv d = {0};
	d.c = c;
	d.values = MAX_VALUES;
	drive_counts(&d);
	drive_items(&d);
	drive_trees(&d);
	for (uint32_t m = 0; m < d.info.n_metrics && d.values; m++)
		drive_metric_values(&d, m);
	drive_bad_args(&d);
	if (check)
		check(c, arg);
	free(d.order);
	profdb_cube_close(c);
	return 0;
}
