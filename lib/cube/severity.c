/* profdb_cube_severity(): the values CubeLib shows, computed from the
 * stored rows along the three trees (doc/FORMATS.md, "Cube"):
 *
 *  - call tree: an EXCLUSIVE (or SIMPLE) metric's inclusive value is
 *    own(c) (+) incl(child 1) (+) incl(child 2) ..., children in XML order,
 *    evaluated depth first; an INCLUSIVE metric's exclusive value is
 *    own(c) (-) own(child 1) (-) own(child 2) ...;
 *  - system tree: (+) over the selected locations in id order, starting
 *    from the neutral value;
 *  - metric tree: value (-) child metric 1 (-) child metric 2 ..., each child
 *    in the same call-tree view and system selection.
 * (+) and (-) are + and - in double, min and max for MINDOUBLE, max and min
 * for MAXDOUBLE (CubeLib's value classes). A missing row is neutral.
 * Rows are combined whole (one double per location), as CubeLib does. */
#include <float.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"

typedef enum op { OP_SUM, OP_MIN, OP_MAX } op;

static op op_of(const cube_metric *m)
{
	return m->dtype == PROFDB_CUBE_MINDOUBLE ? OP_MIN
	       : m->dtype == PROFDB_CUBE_MAXDOUBLE ? OP_MAX : OP_SUM;
}

static double plus(op o, double a, double b)
{
	switch (o) {
	case OP_MIN: return b < a ? b : a;
	case OP_MAX: return b > a ? b : a;
	default: return a + b;
	}
}

static double minus(op o, double a, double b)
{
	switch (o) {
	case OP_MIN: return b > a ? b : a;
	case OP_MAX: return b < a ? b : a;
	default: return a - b;
	}
}

/* The stored row of (m, cnode) as doubles, neutral when missing. */
static int own_row(const profdb_cube *c, cube_metric *m, uint32_t cnode, double *out)
{
	const unsigned char *row;
	unsigned char *tmp;
	int r = profdb__cube_get_row(c, m, cnode, &row, &tmp);
	if (r < 0)
		return r;
	for (uint32_t l = 0; l < c->n_locs; l++)
		out[l] = r ? profdb__cube_cell(m, row, l, 1) : profdb__cube_neutral(m);
	free(tmp);
	return 0;
}

/* Call-tree view of metric m at cnode into out[n_locs]. */
static int call_view(const profdb_cube *c, cube_metric *m, uint32_t cnode, int inclusive,
                     double *out)
{
	op o = op_of(m);
	size_t nl = c->n_locs;
	int r = own_row(c, m, cnode, out);
	if (r < 0)
		return r;
	int stored_incl = m->kind == PROFDB_CUBE_INCLUSIVE;
	if (inclusive == stored_incl)
		return 0;
	if (stored_incl) {
		/* exclusive of an inclusive metric: own minus each child's own */
		double *ch = malloc((nl ? nl : 1) * sizeof *ch);
		if (!ch)
			return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
		for (uint32_t k = c->cnodes[cnode].first_child; k != PROFDB_NONE && r == 0;
		     k = c->cnodes[k].next_sibling) {
			if ((r = own_row(c, m, k, ch)) < 0)
				break;
			for (size_t l = 0; l < nl; l++)
				out[l] = minus(o, out[l], ch[l]);
		}
		free(ch);
		return r;
	}
	/* inclusive of an exclusive metric: depth-first, one accumulator row
	 * per level of the path from cnode down (at most max_depth + 1). */
	size_t levels = (size_t)c->max_depth + 1;
	uint64_t bytes;
	profdb__input dummy = c->tar;
	if ((r = profdb__mul(&dummy, levels, (uint64_t)(nl ? nl : 1) * sizeof(double) +
	                     sizeof(uint32_t), "severity stack", &bytes)) < 0)
		return r;
	uint64_t limit = c->opts.max_memory ? c->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	if (bytes > limit || bytes > SIZE_MAX)
		return profdb__fail(-EFBIG, "%s: inclusive value of cnode %" PRIu32 " needs %" PRIu64
		                    " bytes of stack, above max_memory", c->path, cnode, bytes);
	double *acc = malloc((size_t)levels * (nl ? nl : 1) * sizeof *acc);
	uint32_t *next = malloc(levels * sizeof *next);
	if (!acc || !next) {
		free(acc);
		free(next);
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	}
	memcpy(acc, out, nl * sizeof *acc);
	next[0] = c->cnodes[cnode].first_child;
	size_t sp = 1;
	while (sp > 0) {
		uint32_t k = next[sp - 1];
		if (k == PROFDB_NONE) {
			sp--;
			if (sp > 0)
				for (size_t l = 0; l < nl; l++)
					acc[(sp - 1) * nl + l] = plus(o, acc[(sp - 1) * nl + l],
					                              acc[sp * nl + l]);
			continue;
		}
		next[sp - 1] = c->cnodes[k].next_sibling;
		if (sp >= levels) { /* cannot happen: depth was measured at open */
			r = profdb__fail(-EBADMSG, "%s: call tree deeper than measured", c->path);
			break;
		}
		if ((r = own_row(c, m, k, acc + sp * nl)) < 0)
			break;
		next[sp++] = c->cnodes[k].first_child;
	}
	if (r == 0)
		memcpy(out, acc, nl * sizeof *acc);
	free(acc);
	free(next);
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

static int one_metric(const profdb_cube *c, uint32_t metric, uint32_t cnode, profdb_cube_item where,
                      uint32_t id, int inclusive, double *row, double *out)
{
	cube_metric *m = &c->metrics[metric];
	if (m->kind >= PROFDB_CUBE_POSTDERIVED)
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " ('%s') is derived (CubePL); "
		                    "profdb lists it but does not evaluate it", c->path, metric,
		                    profdb__cube_s(c, m->name));
	if (!CUBE_SCALAR(m))
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " ('%s') has dtype %s, not one "
		                    "number; aggregate its rows from profdb_cube_row()", c->path,
		                    metric, profdb__cube_s(c, m->name), profdb__cube_s(c, m->dtype_text));
	int r = call_view(c, m, cnode, inclusive, row);
	if (r < 0)
		return r;
	op o = op_of(m);
	double v = profdb__cube_neutral(m);
	for (uint32_t l = 0; l < c->n_locs; l++)
		if (selected(c, where, id, l))
			v = plus(o, v, row[l]);
	*out = v;
	return 0;
}

PROFDB_EXPORT int profdb_cube_severity(const profdb_cube *c, uint32_t metric, uint32_t cnode,
                                       profdb_cube_item where, uint32_t where_id,
                                       unsigned flags, double *out)
{
	if (!c || !out)
		return profdb__fail(-EINVAL, "profdb_cube_severity: NULL argument");
	if (flags & ~(unsigned)(PROFDB_CUBE_CALL_INCLUSIVE | PROFDB_CUBE_METRIC_EXCLUSIVE))
		return profdb__fail(-EINVAL, "profdb_cube_severity: unknown flags %#x", flags);
	if (metric >= c->n_metrics || cnode >= c->n_cnodes)
		return profdb__fail(-ENOENT, "%s: no %s %" PRIu32, c->path,
		                    metric >= c->n_metrics ? "metric" : "cnode",
		                    metric >= c->n_metrics ? metric : cnode);
	uint32_t n;
	switch (where) {
	case PROFDB_CUBE_ITEM_CUBE: n = 1; where_id = 0; break;
	case PROFDB_CUBE_ITEM_LOCATION: n = c->n_locs; break;
	case PROFDB_CUBE_ITEM_LOCATION_GROUP: n = c->n_groups; break;
	case PROFDB_CUBE_ITEM_SYSTEM_NODE: n = c->n_stns; break;
	default:
		return profdb__fail(-EINVAL, "profdb_cube_severity: %d is not a system-tree item",
		                    (int)where);
	}
	if (where_id >= n)
		return profdb__fail(-ENOENT, "%s: no system item %" PRIu32 " of kind %d", c->path,
		                    where_id, (int)where);
	int incl = (flags & PROFDB_CUBE_CALL_INCLUSIVE) != 0;
	double *row = malloc(((size_t)c->n_locs + 1) * sizeof *row);
	if (!row)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	double v;
	int r = one_metric(c, metric, cnode, where, where_id, incl, row, &v);
	if (r == 0 && (flags & PROFDB_CUBE_METRIC_EXCLUSIVE)) {
		op o = op_of(&c->metrics[metric]);
		for (uint32_t k = c->metrics[metric].first_child; k != PROFDB_NONE && r == 0;
		     k = c->metrics[k].next_sibling) {
			double w;
			if ((r = one_metric(c, k, cnode, where, where_id, incl, row, &w)) == 0)
				v = minus(o, v, w);
		}
	}
	free(row);
	if (r == 0)
		*out = v;
	return r;
}
