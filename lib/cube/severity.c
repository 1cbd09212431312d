/* profdb_cube_severity_get(): the values CubeLib shows, computed from the
 * stored rows along the three trees (doc/FORMATS.md, "Cube"):
 *
 *  - call tree: an EXCLUSIVE (or SIMPLE) metric's inclusive value is
 *    own(c) (+) incl(child 1) (+) incl(child 2) ..., children in XML order,
 *    evaluated depth first; an INCLUSIVE metric's exclusive value is
 *    own(c) (-) own(child 1) (-) own(child 2) ...;
 *  - system tree: the first selected location (in id order), (+) each
 *    further one; the neutral value when none is selected;
 *  - metric tree: value - child metric 1 - child metric 2 ..., on the single
 *    numbers, each child in the same call-tree view and system selection.
 *
 * A cell is held as the fields of CubeLib's value class for its dtype, and
 * (+), (-), the neutral value and the final single number (getDouble) are
 * that class's operator+=, operator-=, default constructor and getDouble:
 *
 *   dtype          fields                  (+)                      (-)
 *   integers,      the number (double)     +                        -
 *   DOUBLE
 *   MINDOUBLE      the number              min                      max
 *   MAXDOUBLE      the number              max                      min
 *   COMPLEX        re, im                  + each                   - each
 *   RATE           main, duration          a/b (+) c/d = (ad+cb)/bd  (ad-cb)/bd
 *   TAU_ATOMIC     N, min, max, sum, sum2  N + (uint32), min of     N - (uint32), max of
 *                                          mins, max of maxes, +    mins, min of maxes, -
 *   HISTOGRAM(n)   min, max, n bins        rebinning (hist_plus)    nothing
 *   NDOUBLES(n)    n doubles               + each                   - each
 *
 * A missing row is the neutral value (RATE 0/1; TAU_ATOMIC N 0, min
 * +DBL_MAX, max -DBL_MAX; HISTOGRAM min +DBL_MAX, max -DBL_MAX, which marks
 * it invalid). SCALE_FUNC is not aggregated: CubeLib's getDouble for it
 * depends on process-wide state (the largest log exponent of every value
 * it ever created), so no single file determines it. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cube-internal.h"

/* ---- one cell as fields ----------------------------------------------------- */

static uint32_t width_of(const cube_metric *m)
{
	switch (m->dtype) {
	case PROFDB_CUBE_COMPLEX: case PROFDB_CUBE_RATE: return 2;
	case PROFDB_CUBE_TAU_ATOMIC: return 5;
	case PROFDB_CUBE_HISTOGRAM: return m->dtype_arg + 2;
	case PROFDB_CUBE_NDOUBLES: return m->dtype_arg;
	default: return 1;
	}
}

static void neutral_into(const cube_metric *m, double *v)
{
	uint32_t w = width_of(m);
	for (uint32_t i = 0; i < w; i++)
		v[i] = 0.0;
	switch (m->dtype) {
	case PROFDB_CUBE_MINDOUBLE: v[0] = DBL_MAX; break;
	case PROFDB_CUBE_MAXDOUBLE: v[0] = -DBL_MAX; break;
	case PROFDB_CUBE_RATE: v[1] = 1.0; break;          /* RateValue() is 0 / 1 */
	case PROFDB_CUBE_TAU_ATOMIC: v[1] = DBL_MAX; v[2] = -DBL_MAX; break;
	case PROFDB_CUBE_HISTOGRAM: v[0] = DBL_MAX; v[1] = -DBL_MAX; break;
	default: break;
	}
}

static double f64_field(const unsigned char *p, int swap)
{
	return profdb__f64_bits(swap ? profdb__be64(p) : profdb__le64(p));
}

/* Column @p l of a stored row (the writer's byte order) into fields. */
static void load_into(const cube_metric *m, const unsigned char *row, uint32_t l, double *v)
{
	const unsigned char *p = row + (size_t)l * m->vsize;
	switch (m->dtype) {
	case PROFDB_CUBE_TAU_ATOMIC: /* packed: u32 N, then four doubles */
		v[0] = m->swap ? profdb__be32(p) : profdb__le32(p);
		for (int f = 0; f < 4; f++)
			v[1 + f] = f64_field(p + 4 + 8 * f, m->swap);
		break;
	case PROFDB_CUBE_COMPLEX: case PROFDB_CUBE_RATE: case PROFDB_CUBE_HISTOGRAM:
	case PROFDB_CUBE_NDOUBLES:
		for (uint32_t i = 0; i < width_of(m); i++)
			v[i] = f64_field(p + (size_t)i * 8, m->swap);
		break;
	default:
		v[0] = profdb__cube_cell(m, row, l, 1);
		break;
	}
}

/* TAU_ATOMIC's N is an unsigned 32-bit value in CubeLib: it wraps. */
static double u32_add(double a, double b, int sign)
{
	uint32_t x = (uint32_t)a, y = (uint32_t)b;
	return (double)(uint32_t)(sign > 0 ? x + y : x - y);
}

static int histogram_valid(const double *h)
{
	return h[0] != DBL_MAX && h[1] != -DBL_MAX;
}

/* The largest j in [0, n] with lo + j*dx <= x (0 if none): the merged-grid
 * point a point falls after. CubeLib finds it by sorting all points, the
 * grid's before others at a tie; the grid is ascending, so a search gives
 * the same answer. */
static uint32_t grid_pivot(double lo, double dx, uint32_t n, double x)
{
	uint32_t a = 0, b = n;
	while (a < b) {
		uint32_t mid = a + (b - a + 1) / 2;
		if (lo + (double)mid * dx <= x)
			a = mid;
		else
			b = mid - 1;
	}
	return a;
}

/* Distribute @p mass, bin i of a grid (p0, pd), over the merged grid (lo,
 * dx) of n bins: all of it into the merged bin holding its left edge when
 * both edges fall in the same bin, else split by where the merged boundary
 * cuts it. Mass a merged bin n would get is dropped (CubeLib writes it past
 * its vector; only zero or rounding-sized weights go there). */
static void spread(double *bins, uint32_t n, double lo, double dx, double p0, double pd,
                   uint32_t i, double mass)
{
	double x0 = p0 + (double)i * pd, x1 = p0 + (double)(i + 1) * pd;
	uint32_t c0 = grid_pivot(lo, dx, n, x0), c1 = grid_pivot(lo, dx, n, x1);
	double cw = 1.0, nw = 0.0;
	if (c0 != c1) {
		cw = x1 - x0 != 0 ? (lo + (double)(c0 + 1) * dx - x0) / (x1 - x0) : 0.0;
		nw = 1.0 - cw;
	}
	if (c0 < n)
		bins[c0] += mass * cw;
	if (c0 + 1 < n)
		bins[c0 + 1] += mass * nw;
}

/* HistogramValue::operator+=: an invalid right side changes nothing; an
 * invalid left side becomes a copy of the right; otherwise the range grows
 * to cover both, the left bins stay where they are on the new grid (CubeLib
 * re-grids the left side before reading its points) and the right bins are
 * spread onto it, in the same order of additions as CubeLib. */
static int hist_plus(uint32_t n, double *a, const double *b)
{
	if (!histogram_valid(b))
		return 0;
	if (!histogram_valid(a)) {
		memcpy(a, b, ((size_t)n + 2) * sizeof *a);
		return 0;
	}
	a[0] = b[0] < a[0] ? b[0] : a[0];
	a[1] = a[1] < b[1] ? b[1] : a[1];
	if (n == 0)
		return 0;
	double *bins = calloc(n, sizeof *bins);
	if (!bins)
		return profdb__fail(-ENOMEM, "histogram: out of memory");
	double lo = a[0], dx = (a[1] - a[0]) / (double)n;
	double blo = b[0], bdx = (b[1] - b[0]) / (double)n;
	for (uint32_t i = 0; i < n; i++) {
		spread(bins, n, lo, dx, lo, dx, i, a[2 + i]);
		spread(bins, n, lo, dx, blo, bdx, i, b[2 + i]);
	}
	memcpy(a + 2, bins, (size_t)n * sizeof *bins);
	free(bins);
	return 0;
}

/* a (+)= b */
static int vplus(const cube_metric *m, double *a, const double *b)
{
	switch (m->dtype) {
	case PROFDB_CUBE_MINDOUBLE: a[0] = b[0] < a[0] ? b[0] : a[0]; return 0;
	case PROFDB_CUBE_MAXDOUBLE: a[0] = a[0] < b[0] ? b[0] : a[0]; return 0;
	case PROFDB_CUBE_RATE: {
		double main = a[0] * b[1] + b[0] * a[1];
		a[1] = a[1] * b[1];
		a[0] = main;
		return 0;
	}
	case PROFDB_CUBE_TAU_ATOMIC:
		a[0] = u32_add(a[0], b[0], 1);
		a[1] = b[1] < a[1] ? b[1] : a[1];
		a[2] = a[2] < b[2] ? b[2] : a[2];
		a[3] += b[3];
		a[4] += b[4];
		return 0;
	case PROFDB_CUBE_HISTOGRAM:
		return hist_plus(m->dtype_arg, a, b);
	default:
		for (uint32_t i = 0; i < width_of(m); i++)
			a[i] += b[i];
		return 0;
	}
}

/* a (-)= b */
static void vminus(const cube_metric *m, double *a, const double *b)
{
	switch (m->dtype) {
	case PROFDB_CUBE_MINDOUBLE: a[0] = a[0] < b[0] ? b[0] : a[0]; return;
	case PROFDB_CUBE_MAXDOUBLE: a[0] = b[0] < a[0] ? b[0] : a[0]; return;
	case PROFDB_CUBE_RATE: {
		double main = a[0] * b[1] - b[0] * a[1];
		a[1] = a[1] * b[1];
		a[0] = main;
		return;
	}
	case PROFDB_CUBE_TAU_ATOMIC:
		/* MinDoubleValue's - is max, MaxDoubleValue's - is min */
		a[0] = u32_add(a[0], b[0], -1);
		a[1] = a[1] < b[1] ? b[1] : a[1];
		a[2] = b[2] < a[2] ? b[2] : a[2];
		a[3] -= b[3];
		a[4] -= b[4];
		return;
	case PROFDB_CUBE_HISTOGRAM:
		return; /* HistogramValue::operator-= does nothing */
	default:
		for (uint32_t i = 0; i < width_of(m); i++)
			a[i] -= b[i];
		return;
	}
}

/* CubeLib's getDouble() of a value. */
static double as_double(const cube_metric *m, const double *v)
{
	switch (m->dtype) {
	case PROFDB_CUBE_COMPLEX: return sqrt(v[0] * v[0] + v[1] * v[1]);
	case PROFDB_CUBE_RATE: return v[1] == 0.0 ? NAN : v[0] / v[1];
	case PROFDB_CUBE_TAU_ATOMIC:
		/* the average (the default pivot); N = 0 divides by 1e-256 */
		return (uint32_t)v[0] == 0 ? v[3] / (v[0] + 1e-256) : v[3] / v[0];
	case PROFDB_CUBE_HISTOGRAM: case PROFDB_CUBE_NDOUBLES: {
		uint32_t first = m->dtype == PROFDB_CUBE_HISTOGRAM ? 2 : 0;
		double sum = 0.0;
		for (uint32_t i = first; i < width_of(m); i++)
			sum += v[i];
		return sum;
	}
	default: return v[0];
	}
}

/* ---- rows ------------------------------------------------------------------- */

/* malloc(a * b doubles), within max_memory. */
static int alloc_doubles(const profdb_cube *c, uint64_t a, uint64_t b, const char *what,
                         double **out)
{
	uint64_t n, bytes;
	profdb__input dummy = c->tar;
	int r;
	*out = NULL;
	if ((r = profdb__mul(&dummy, a ? a : 1, b ? b : 1, what, &n)) < 0 ||
	    (r = profdb__mul(&dummy, n, sizeof(double), what, &bytes)) < 0)
		return r;
	uint64_t limit = c->opts.max_memory ? c->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	if (bytes > limit || bytes > SIZE_MAX)
		return profdb__fail(-EFBIG, "%s: %s needs %" PRIu64 " bytes, above max_memory",
		                    c->path, what, bytes);
	*out = malloc((size_t)bytes);
	return *out ? 0 : profdb__fail(-ENOMEM, "%s: out of memory", c->path);
}

/* The locations a row holds: [l0, l0 + n). A view at one location needs
 * only its own column (every (+) and (-) works per location), so it reads
 * and adds one column, not n_locs. */
typedef struct cols {
	uint32_t l0, n;
} cols;

/* The stored row of (m, cnode) as fields (x.n x width), neutral when missing. */
static int own_row(const profdb_cube *c, cube_metric *m, uint32_t cnode, cols x, double *out)
{
	const unsigned char *row;
	unsigned char *tmp;
	uint32_t w = width_of(m);
	int r = profdb__cube_get_row(c, m, cnode, &row, &tmp);
	if (r < 0)
		return r;
	for (uint32_t l = 0; l < x.n; l++) {
		if (r)
			load_into(m, row, x.l0 + l, out + (size_t)l * w);
		else
			neutral_into(m, out + (size_t)l * w);
	}
	free(tmp);
	return 0;
}

/* acc[l] (+)= add[l] for every location */
static int row_plus(cols x, const cube_metric *m, double *acc, const double *add)
{
	uint32_t w = width_of(m);
	int r = 0;
	for (uint32_t l = 0; l < x.n && r == 0; l++)
		r = vplus(m, acc + (size_t)l * w, add + (size_t)l * w);
	return r;
}

/* Exclusive row of an INCLUSIVE metric: own minus each child's own. */
static int exclusive_of_inclusive(const profdb_cube *c, cube_metric *m, uint32_t cnode,
                                  cols x, double *out)
{
	uint32_t w = width_of(m);
	double *ch;
	int r = alloc_doubles(c, x.n, w, "a row", &ch);
	for (uint32_t k = c->cnodes[cnode].first_child; k != PROFDB_NONE && r == 0;
	     k = c->cnodes[k].next_sibling) {
		if ((r = own_row(c, m, k, x, ch)) < 0)
			break;
		for (uint32_t l = 0; l < x.n; l++)
			vminus(m, out + (size_t)l * w, ch + (size_t)l * w);
	}
	free(ch);
	return r;
}

/* Inclusive row of an EXCLUSIVE metric from its subtree: depth-first, one
 * accumulator row per level of the path from cnode down (at most
 * max_depth + 1). */
static int inclusive_walk(const profdb_cube *c, cube_metric *m, uint32_t cnode, cols x,
                          double *out)
{
	size_t levels = (size_t)c->max_depth + 1, rw = (size_t)x.n * width_of(m);
	double *acc;
	int r = alloc_doubles(c, levels, rw + 1, "the inclusive-value stack", &acc);
	uint32_t *next = r == 0 ? malloc(levels * sizeof *next) : NULL;
	if (r == 0 && !next)
		r = profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	if (r < 0) {
		free(acc);
		return r;
	}
	memcpy(acc, out, rw * sizeof *acc);
	next[0] = c->cnodes[cnode].first_child;
	size_t sp = 1;
	while (sp > 0 && r == 0) {
		uint32_t k = next[sp - 1];
		if (k == PROFDB_NONE) {
			sp--;
			if (sp > 0)
				r = row_plus(x, m, acc + (sp - 1) * rw, acc + sp * rw);
			continue;
		}
		next[sp - 1] = c->cnodes[k].next_sibling;
		if (sp >= levels) { /* cannot happen: depth was measured at open */
			r = profdb__fail(-EBADMSG, "%s: call tree deeper than measured", c->path);
			break;
		}
		if ((r = own_row(c, m, k, x, acc + sp * rw)) < 0)
			break;
		next[sp++] = c->cnodes[k].first_child;
	}
	if (r == 0)
		memcpy(out, acc, rw * sizeof *acc);
	free(acc);
	free(next);
	return r;
}

static const double *incl_table(const profdb_cube *c, cube_metric *m);

/* Inclusive row of an EXCLUSIVE metric: from the metric's table once it is
 * asked a second time (asking every cnode in turn would otherwise walk
 * each subtree, quadratic in the depth of the tree), else the walk. */
static int inclusive_of_exclusive(const profdb_cube *c, cube_metric *m, uint32_t cnode,
                                  cols x, double *out)
{
	const double *t = incl_table(c, m);
	if (!t)
		return inclusive_walk(c, m, cnode, x, out);
	size_t w = width_of(m);
	memcpy(out, t + ((size_t)cnode * c->n_locs + x.l0) * w, (size_t)x.n * w * sizeof *out);
	return 0;
}

/* Call-tree view of metric m at cnode into out[x.n x width]. */
static int call_view(const profdb_cube *c, cube_metric *m, uint32_t cnode, int inclusive,
                     cols x, double *out)
{
	int r = own_row(c, m, cnode, x, out);
	if (r < 0)
		return r;
	int stored_incl = m->kind == PROFDB_CUBE_INCLUSIVE;
	if (inclusive == stored_incl)
		return 0;
	return stored_incl ? exclusive_of_inclusive(c, m, cnode, x, out)
	                   : inclusive_of_exclusive(c, m, cnode, x, out);
}

/* ---- every cnode at once (the views, lib/analysis/tree-ctx.c) ------------------- */

/* Locations @p locs of a finished call-view row as the single numbers
 * aggregate() gives for one location (its own fields, getDouble). */
static void emit(const profdb_cube *c, const cube_metric *m, const double *row, uint32_t cnode,
                 const uint32_t *locs, size_t nl, double *out, uint8_t *found)
{
	uint32_t w = width_of(m);
	(void)c;
	for (size_t j = 0; j < nl; j++) {
		double v = as_double(m, row + (size_t)locs[j] * w);
		out[(size_t)cnode * nl + j] = v;
		found[(size_t)cnode * nl + j] = (uint8_t)profdb__cube_is_value(m, v);
	}
}

/* inclusive_of_exclusive() for every cnode in one pass: the same stack,
 * walked from each root, emitting every cnode's row when its subtree is
 * done; a subtree's row is own (+) its children's rows in child order
 * whichever cnode the walk starts at, so the numbers are those of one
 * call at that cnode. */
static int inclusive_pass(const profdb_cube *c, cube_metric *m, const uint32_t *locs, size_t nl,
                          double *out, uint8_t *found, double *table)
{
	cols all = {0, c->n_locs};
	size_t levels = (size_t)c->max_depth + 1, rw = (size_t)c->n_locs * width_of(m);
	double *acc;
	int r = alloc_doubles(c, levels, rw + 1, "the inclusive-value stack", &acc);
	uint32_t *next = r == 0 ? malloc(2 * levels * sizeof *next) : NULL, *node = NULL;
	if (r == 0 && !next)
		r = profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	if (r == 0)
		node = next + levels;   /* the cnode at each level */
	for (uint32_t root = c->first_root; r == 0 && root != PROFDB_NONE;
	     root = c->cnodes[root].next_sibling) {
		if ((r = own_row(c, m, root, all, acc)) < 0)
			break;
		node[0] = root;
		next[0] = c->cnodes[root].first_child;
		size_t sp = 1;
		while (sp > 0 && r == 0) {
			uint32_t k = next[sp - 1];
			if (k == PROFDB_NONE) {
				sp--;
				if (table)
					memcpy(table + (size_t)node[sp] * rw, acc + sp * rw, rw * sizeof *acc);
				else
					emit(c, m, acc + sp * rw, node[sp], locs, nl, out, found);
				if (sp > 0)
					r = row_plus(all, m, acc + (sp - 1) * rw, acc + sp * rw);
				continue;
			}
			next[sp - 1] = c->cnodes[k].next_sibling;
			if (sp >= levels) { /* cannot happen: depth was measured at open */
				r = profdb__fail(-EBADMSG, "%s: call tree deeper than measured", c->path);
				break;
			}
			if ((r = own_row(c, m, k, all, acc + sp * rw)) < 0)
				break;
			node[sp] = k;
			next[sp++] = c->cnodes[k].first_child;
		}
	}
	free(acc);
	free(next);
	return r;
}

/* Metric m's inclusive rows of every cnode (n_cnodes x n_locs x width);
 * NULL on the first request, above CUBE_INCL_TABLE_CAP (or max_memory) or
 * when building it fails (the caller walks the subtree then). Cnodes no
 * root reaches keep their own row. Threads that build it at once install
 * one by CAS. */
static const double *incl_table(const profdb_cube *c, cube_metric *m)
{
	double *t = atomic_load_explicit(&m->incl_table, memory_order_acquire);
	if (t || atomic_fetch_add_explicit(&m->incl_asks, 1, memory_order_relaxed) == 0)
		return t;
	uint64_t n = (uint64_t)c->n_cnodes * c->n_locs * width_of(m), cap = CUBE_INCL_TABLE_CAP;
	if (c->opts.max_memory && c->opts.max_memory < cap)
		cap = c->opts.max_memory;
	if (n == 0 || n > cap / sizeof(double))
		return NULL;
	t = malloc((size_t)n * sizeof *t);
	cols all = {0, c->n_locs};
	size_t rw = (size_t)c->n_locs * width_of(m);
	int r = t ? 0 : -ENOMEM;
	for (uint32_t k = 0; k < c->n_cnodes && r == 0; k++)
		r = own_row(c, m, k, all, t + (size_t)k * rw);
	if (r == 0)
		r = inclusive_pass(c, m, NULL, 0, NULL, NULL, t);
	double *expected = NULL;
	if (r < 0 || !atomic_compare_exchange_strong_explicit(&m->incl_table, &expected, t,
	                                                      memory_order_acq_rel,
	                                                      memory_order_acquire)) {
		free(t);
		return r < 0 ? NULL : expected;
	}
	return t;
}

int profdb__cube_call_view_all(const profdb_cube *c, uint32_t metric, int inclusive,
                               const uint32_t *locs, size_t nl, double *out, uint8_t *found)
{
	cube_metric *m = &c->metrics[metric];
	memset(out, 0, (size_t)c->n_cnodes * nl * sizeof *out);
	memset(found, 0, (size_t)c->n_cnodes * nl);
	if (m->kind >= PROFDB_CUBE_POSTDERIVED || m->dtype == PROFDB_CUBE_SCALE_FUNC)
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " ('%s') is derived or SCALE_FUNC",
		                    c->path, metric, profdb__cube_s(c, m->name));
	if (inclusive && m->kind != PROFDB_CUBE_INCLUSIVE)
		return inclusive_pass(c, m, locs, nl, out, found, NULL);
	double *row;
	int r = alloc_doubles(c, (uint64_t)c->n_locs + 1, width_of(m), "a row", &row);
	for (uint32_t k = 0; r == 0 && k < c->n_cnodes; k++)
		if ((r = call_view(c, m, k, inclusive, (cols){0, c->n_locs}, row)) == 0)
			emit(c, m, row, k, locs, nl, out, found);
	free(row);
	return r;
}

/* Is location l below the selected system item? */
static int selected(const profdb_cube *c, profdb_cube_item where, uint32_t id, uint32_t l)
{
	switch (where) {
	case PROFDB_CUBE_ITEM_LOCATION: return l == id;
	case PROFDB_CUBE_ITEM_LOCATION_GROUP: return c->locs[l].group == id;
	case PROFDB_CUBE_ITEM_SYSTEM_NODE: {
		uint32_t n = c->groups[c->locs[l].group].node;
		/* parents precede children, so the chain is at most n_stns long */
		for (uint32_t guard = 0; n < c->n_stns && guard <= c->n_stns; guard++) {
			if (n == id)
				return 1;
			n = c->stns[n].parent;
		}
		return 0;
	}
	default: return 1;
	}
}

/* The aggregated value of one metric as fields: *out (width doubles,
 * malloc'ed) on success. */
static int aggregate(const profdb_cube *c, uint32_t metric, uint32_t cnode,
                     profdb_cube_item where, uint32_t id, int inclusive, double **out)
{
	cube_metric *m = &c->metrics[metric];
	*out = NULL;
	if (m->kind >= PROFDB_CUBE_POSTDERIVED)
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " ('%s') is derived (CubePL); "
		                    "profdb lists it but does not evaluate it", c->path, metric,
		                    profdb__cube_s(c, m->name));
	if (m->dtype == PROFDB_CUBE_SCALE_FUNC)
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " ('%s') has dtype SCALE_FUNC, "
		                    "whose CubeLib value depends on more than the file; read its rows "
		                    "with profdb_cube_row_get()", c->path, metric,
		                    profdb__cube_s(c, m->name));
	uint32_t w = width_of(m);
	double *row, *v;
	int r = alloc_doubles(c, (uint64_t)c->n_locs + 1, w, "a row", &row);
	if (r < 0)
		return r;
	if ((r = alloc_doubles(c, 1, w, "a value", &v)) < 0) {
		free(row);
		return r;
	}
	cols x = {0, c->n_locs};
	if (where == PROFDB_CUBE_ITEM_LOCATION)
		x = (cols){id, 1};   /* profdb_inclusive() of one profile: one column */
	r = call_view(c, m, cnode, inclusive, x, row);
	/* the first selected location as it is, then (+) the others: one
	 * location gives its own value, also an invalid histogram's */
	int first = 1;
	neutral_into(m, v);
	for (uint32_t l = x.l0; l < x.l0 + x.n && r == 0; l++) {
		if (!selected(c, where, id, l))
			continue;
		if (first && w)
			memcpy(v, row + (size_t)(l - x.l0) * w, (size_t)w * sizeof *v);
		else
			r = vplus(m, v, row + (size_t)(l - x.l0) * w);
		first = 0;
	}
	free(row);
	if (r < 0) {
		free(v);
		return r;
	}
	*out = v;
	return 0;
}

static int check_args(const profdb_cube *c, const char *fn, uint32_t metric, uint32_t cnode,
                      profdb_cube_item where, uint32_t *where_id, unsigned flags)
{
	if (!c)
		return profdb__fail(-EINVAL, "%s: NULL handle", fn);
	if (flags & ~(unsigned)(PROFDB_CUBE_CALL_INCLUSIVE | PROFDB_CUBE_METRIC_EXCLUSIVE))
		return profdb__fail(-EINVAL, "%s: unknown flags %#x", fn, flags);
	if (metric >= c->n_metrics || cnode >= c->n_cnodes)
		return profdb__fail(-ENOENT, "%s: no %s %" PRIu32, c->path,
		                    metric >= c->n_metrics ? "metric" : "cnode",
		                    metric >= c->n_metrics ? metric : cnode);
	uint32_t n;
	switch (where) {
	case PROFDB_CUBE_ITEM_CUBE: n = 1; *where_id = 0; break;
	case PROFDB_CUBE_ITEM_LOCATION: n = c->n_locs; break;
	case PROFDB_CUBE_ITEM_LOCATION_GROUP: n = c->n_groups; break;
	case PROFDB_CUBE_ITEM_SYSTEM_NODE: n = c->n_stns; break;
	default:
		return profdb__fail(-EINVAL, "%s: %d is not a system-tree item", fn, (int)where);
	}
	if (*where_id >= n)
		return profdb__fail(-ENOENT, "%s: no system item %" PRIu32 " of kind %d", c->path,
		                    *where_id, (int)where);
	return 0;
}

/* The single number of one metric (getDouble of the aggregate). */
static int one_number(const profdb_cube *c, uint32_t metric, uint32_t cnode,
                      profdb_cube_item where, uint32_t id, int inclusive, double *out)
{
	double *v;
	int r = aggregate(c, metric, cnode, where, id, inclusive, &v);
	if (r == 0)
		*out = as_double(&c->metrics[metric], v);
	free(v);
	return r;
}

PROFDB_EXPORT int profdb_cube_severity_get(const profdb_cube *c, profdb_cube_item where,
                                           uint32_t where_id, uint32_t cnode, uint32_t metric,
                                           unsigned flags, double *out)
{
	if (!out)
		return profdb__fail(-EINVAL, "profdb_cube_severity_get: NULL output");
	*out = 0.0;
	int r = check_args(c, "profdb_cube_severity_get", metric, cnode, where, &where_id, flags);
	if (r < 0)
		return r;
	int incl = (flags & PROFDB_CUBE_CALL_INCLUSIVE) != 0;
	double v;
	r = one_number(c, metric, cnode, where, where_id, incl, &v);
	if (r == 0 && (flags & PROFDB_CUBE_METRIC_EXCLUSIVE)) {
		const cube_metric *m = &c->metrics[metric];
		for (uint32_t k = m->first_child; k != PROFDB_NONE && r == 0;
		     k = c->metrics[k].next_sibling) {
			double w = 0;
			if ((r = one_number(c, k, cnode, where, where_id, incl, &w)) < 0)
				break;
			/* min/max metrics subtract with their own (-), like CubeLib's
			 * value classes; every other dtype with - on the numbers */
			if (m->dtype == PROFDB_CUBE_MINDOUBLE || m->dtype == PROFDB_CUBE_MAXDOUBLE)
				vminus(m, &v, &w);
			else
				v -= w;
		}
	}
	if (r == 0)
		*out = v;
	return r;
}

PROFDB_EXPORT int64_t profdb_cube_severity_fields_get(const profdb_cube *c, profdb_cube_item where,
                                                      uint32_t where_id, uint32_t cnode,
                                                      uint32_t metric, unsigned flags,
                                                      double *fields, size_t n_fields)
{
	if (!fields && n_fields)
		return profdb__fail(-EINVAL, "profdb_cube_severity_fields_get: NULL output");
	int r = check_args(c, "profdb_cube_severity_fields_get", metric, cnode, where, &where_id,
	                   flags);
	if (r < 0)
		return r;
	if (flags & PROFDB_CUBE_METRIC_EXCLUSIVE)
		return profdb__fail(-EINVAL, "profdb_cube_severity_fields_get: metric-exclusive values "
		                    "are single numbers (profdb_cube_severity_get)");
	const cube_metric *m = &c->metrics[metric];
	uint32_t w = width_of(m);
	if (w > INT32_MAX || n_fields < w || (!fields && w))
		return profdb__fail(fields ? -ERANGE : -EINVAL, "%s: metric %" PRIu32 " ('%s') has %"
		                    PRIu32 " fields, the buffer %zu", c->path, metric,
		                    profdb__cube_s(c, m->name), w, n_fields);
	double *v;
	r = aggregate(c, metric, cnode, where, where_id, (flags & PROFDB_CUBE_CALL_INCLUSIVE) != 0,
	              &v);
	if (r < 0)
		return r;
	if (w)
		memcpy(fields, v, (size_t)w * sizeof *v);
	free(v);
	return (int64_t)w;
}
