/* The context tree in pre-order and each context's self cost in integer
 * units, combined over a set of profiles (doc/CONVERT.md, "Integer
 * costs"). Memory: about 48 + 8 x events bytes per context, 8 more per
 * event for inclusive costs (Callgrind output) or an inclusive scope. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost-internal.h"
#include "core/search-internal.h"

void profdb__cv_tree_free(profdb__cv_tree *t)
{
	free(t->node);
	free(t->sorted);
	free(t->self);
	free(t->incl);
	free(t->total);
	free(t->has);
	memset(t, 0, sizeof *t);
}

static int add_node(profdb__cv_tree *t, size_t *cap, uint32_t ctx, uint32_t parent, int frame)
{
	if (t->n >= UINT32_MAX - 1)
		return profdb__fail(-EFBIG, "profdb_convert: more than 2^32 contexts");
	if (profdb__grow((void **)&t->node, cap, t->n + 1, sizeof *t->node))
		return -ENOMEM;
	profdb__cv_node *nd = &t->node[t->n];
	nd->ctx = ctx;
	nd->parent = parent;
	nd->line = 0;
	nd->depth = parent == PROFDB_NONE ? 0 : t->node[parent].depth + 1;
	nd->is_frame = frame || parent == PROFDB_NONE;
	nd->frame = nd->is_frame ? (uint32_t)t->n : t->node[parent].frame;
	t->n++;
	return 0;
}

/* The contexts in pre-order, each a node (profdb__cv_tree_build). */
typedef struct adding {
	profdb__cv_tree *t;
	size_t cap;
} adding;

static int add_context(void *ud, const profdb_context *c, uint32_t parent)
{
	adding *a = ud;
	int frame = c->type == PROFDB_CTX_FUNCTION || c->type == PROFDB_CTX_ROOT ||
	            c->relation == PROFDB_RELATION_CALL || c->relation == PROFDB_RELATION_INLINED;
	int r = add_node(a->t, &a->cap, c->id, parent, frame);   /* node = visit number */
	if (r >= 0)
		a->t->node[a->t->n - 1].line = c->line;
	return r;
}

/* sorted[] = ctx << 32 | node, ascending: a stable radix sort on the
 * context id of the nodes taken in order (what sorting the words gives,
 * at a fraction of qsort's time on millions of contexts). */
static int sort_by_ctx(profdb__cv_tree *t)
{
	uint64_t *tmp = malloc(t->n * sizeof *tmp + 1);
	size_t *count = malloc(65537 * sizeof *count);
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%zu contexts)", t->n);
	}
	for (size_t i = 0; i < t->n; i++)
		t->sorted[i] = (uint64_t)t->node[i].ctx << 32 | i;
	uint64_t *from = t->sorted, *to = tmp;
	for (int shift = 32; shift < 64; shift += 16) {
		memset(count, 0, 65537 * sizeof *count);
		for (size_t i = 0; i < t->n; i++)
			count[(from[i] >> shift & 0xffff) + 1]++;
		for (size_t b = 0; b < 65536; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < t->n; i++)
			to[count[from[i] >> shift & 0xffff]++] = from[i];
		uint64_t *x = from;
		from = to;
		to = x;
	}
	/* two passes: the result is back in sorted */
	free(tmp);
	free(count);
	return 0;
}

int profdb__cv_tree_build(profdb__cv_tree *t, const profdb *db, const profdb__cv_event *ev,
                          size_t n_ev, profdb_progress_fn progress, void *pu)
{
	memset(t, 0, sizeof *t);
	t->db = db;
	t->progress = progress;
	t->progress_userdata = pu;
	t->ev = ev;
	t->n_ev = n_ev;
	adding a = {t, 0};
	int r = profdb__cv_preorder(db, add_context, &a);
	if (r >= 0)
		r = add_node(t, &a.cap, PROFDB_NONE, PROFDB_NONE, 1);   /* "<no tree node>" */
	if (r < 0)
		return r;
	size_t cells = t->n * (n_ev ? n_ev : 1);
	int diff = 0;
	for (size_t k = 0; k < n_ev; k++)
		diff |= ev[k].diff;
	/* Only an inclusive scope needs to know where a value was stored, and
	 * the children's sums (in incl) while self costs are derived. */
	t->sorted = malloc(t->n * sizeof *t->sorted);
	t->self = malloc(cells * sizeof *t->self);
	t->total = calloc(n_ev + 1, sizeof *t->total);
	t->has = diff ? malloc(cells) : NULL;
	t->incl = diff ? malloc(cells * sizeof *t->incl) : NULL;
	if (!t->sorted || !t->self || !t->total || (diff && (!t->has || !t->incl)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%zu contexts)", t->n);
	return sort_by_ctx(t);
}

/* The node of context @p ctx; the "<no tree node>" node when it has none.
 * @p at is where the last search ended: cursors give contexts in
 * ascending order, so the next one is found by galloping from there. */
static uint32_t node_of(const profdb__cv_tree *t, uint32_t ctx, size_t *at, int *found)
{
	size_t lo = 0, hi = t->n;
	if (*at < t->n && (uint32_t)(t->sorted[*at] >> 32) <= ctx) {
		lo = *at;
		for (size_t step = 1; lo + step < t->n; step *= 2) {
			if ((uint32_t)(t->sorted[lo + step] >> 32) >= ctx) {
				hi = lo + step;
				break;
			}
			lo += step;
		}
	}
	lo = profdb__lower_u64(t->sorted, lo, hi, (uint64_t)ctx << 32);   /* (ctx << 32 | node) */
	*at = lo;
	*found = lo < t->n && (uint32_t)(t->sorted[lo] >> 32) == ctx &&
	         t->node[(uint32_t)t->sorted[lo]].ctx != PROFDB_NONE;
	return *found ? (uint32_t)t->sorted[lo] : (uint32_t)(t->n - 1);
}

static int add_value(profdb__cv_tree *t, size_t k, uint32_t node, profdb_number v)
{
	const profdb__cv_event *e = &t->ev[k];
	uint64_t *cell = &t->self[(size_t)node * t->n_ev + k];
	if (e->is_float) {
		double d;
		memcpy(&d, cell, sizeof d);
		d += profdb_number_to_double(v);
		memcpy(cell, &d, sizeof d);
		if (e->diff)
			t->has[(size_t)node * t->n_ev + k] = 1;
		return 0;
	}
	uint64_t u = v.type == PROFDB_TYPE_I64 ? (uint64_t)v.as.i64
	           : v.type == PROFDB_TYPE_F64 ? (uint64_t)v.as.f64 : v.as.u64;
	if (e->diff) {             /* modular: the differences are what counts */
		*cell += u * e->ifactor;
		t->has[(size_t)node * t->n_ev + k] = 1;
		return 0;
	}
	if ((e->ifactor > 1 && u > UINT64_MAX / e->ifactor) || UINT64_MAX - *cell < u * e->ifactor)
		return profdb__fail(-ERANGE, "profdb_convert: metric '%s' exceeds 2^64 at a context",
		                    e->name);
	*cell += u * e->ifactor;
	return 0;
}

/* Sum the stored values of one profile into acc. */
static int add_profile(profdb__cv_tree *t, uint32_t profile)
{
	profdb_values *it;
	int r = profdb_values_new(&it, t->db, PROFDB_SCAN_PROFILE, profile);
	if (r < 0)
		return r;
	profdb_entry e;
	uint32_t last_ctx = PROFDB_NONE, node = 0;
	size_t at = 0;
	int found = 0;
	while ((r = profdb_values_next(it, &e)) > 0) {
		for (size_t k = 0; k < t->n_ev && r >= 0; k++) {
			if (t->ev[k].src != e.metric)
				continue;
			if (e.context != last_ctx)
				node = node_of(t, last_ctx = e.context, &at, &found);
			if (found || !t->ev[k].diff)   /* an inclusive value off the tree is
			                                * already in its ancestors' */
				r = add_value(t, k, node, e.value);
		}
		if (r < 0)
			break;
	}
	profdb_values_free(it);
	return r < 0 ? r : 0;
}

static double as_double(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

static uint64_t as_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* The combined values (in self) into self costs in integer units, in
 * place: an inclusive scope less the children's, a floating one scaled
 * and rounded to nearest. */
static int to_self(profdb__cv_tree *t)
{
	size_t K = t->n_ev;
	uint64_t *sum = t->incl;   /* the children's inclusive values (scratch) */
	if (t->has)   /* some event reads an inclusive scope */
		memset(sum, 0, t->n * K * sizeof *sum);
	for (size_t c = t->has ? t->n : 0; c-- > 0;) {
		uint32_t p = t->node[c].parent;
		for (size_t k = 0; k < K; k++) {
			const profdb__cv_event *e = &t->ev[k];
			if (!e->diff)
				continue;
			size_t i = c * K + k;
			/* A context without a stored inclusive value (a pre-release call
			 * site) holds what its children hold: self cost 0. */
			uint64_t acc = t->has[i] ? t->self[i] : sum[i];
			t->self[i] = e->is_float ? as_bits(as_double(acc) - as_double(sum[i])) : acc - sum[i];
			if (p != PROFDB_NONE) {
				uint64_t *w = &sum[(size_t)p * K + k];
				*w = e->is_float ? as_bits(as_double(*w) + as_double(acc)) : *w + acc;
			}
		}
	}
	for (size_t i = 0; i < t->n; i++)
		for (size_t k = 0; k < K; k++) {
			const profdb__cv_event *e = &t->ev[k];
			uint64_t *w = &t->self[i * K + k];
			if (!e->is_float) {
				if (e->diff && *w > (uint64_t)INT64_MAX)
					return profdb__fail(-ENOTSUP, "profdb_convert: metric id %u ('%s') "
					                    "has a negative self cost (%lld) at context %u (its "
					                    "inclusive value less its children's); costs are "
					                    "unsigned", e->metric, e->name, (long long)*w,
					                    t->node[i].ctx);
				continue;
			}
			double x = as_double(*w) * e->factor;
			if (!(x >= -0.5) || !(x < 0x1p64))
				return profdb__fail(-ENOTSUP, "profdb_convert: metric id %u ('%s') has a "
				                    "%s self cost (%g) at context %u (%s); costs are unsigned "
				                    "64-bit integers", e->metric, e->name, x < 0 ? "negative"
				                    : "non-finite or too large", x, t->node[i].ctx, e->diff
				                    ? "its inclusive value less its children's" : "stored");
			*w = x < 0.5 ? 0 : x < 0x1p63 ? (uint64_t)llround(x) : (uint64_t)x;
		}
	return 0;
}

int profdb__cv_tree_fill(profdb__cv_tree *t, const uint32_t *profiles, size_t n_profiles)
{
	size_t K = t->n_ev;
	memset(t->self, 0, t->n * K * sizeof *t->self);   /* 0.0's bits are 0 too */
	if (t->has)
		memset(t->has, 0, t->n * K);
	for (size_t p = 0; p < n_profiles; p++) {
		if (t->progress && t->progress(p, n_profiles, t->progress_userdata))
			return profdb__fail(-ECANCELED, "profdb_convert: cancelled");
		int r = add_profile(t, profiles[p]);
		if (r < 0)
			return r;
	}
	int r = to_self(t);
	if (r < 0)
		return r;
	if (t->with_incl && !t->incl && !(t->incl = malloc(t->n * K * sizeof *t->incl + 1)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%zu contexts)", t->n);
	if (t->with_incl)
		memcpy(t->incl, t->self, t->n * K * sizeof *t->incl);
	memset(t->total, 0, K * sizeof *t->total);
	for (size_t c = t->n; c-- > 0;) {
		uint32_t p = t->node[c].parent;
		for (size_t k = 0; k < K; k++) {
			uint64_t s = t->self[c * K + k];
			if (UINT64_MAX - t->total[k] < s)
				return profdb__fail(-ERANGE, "profdb_convert: the total of metric '%s' "
				                    "exceeds 2^64", t->ev[k].name);
			t->total[k] += s;
			if (t->with_incl && p != PROFDB_NONE) {
				uint64_t *w = &t->incl[p * K + k], v = t->incl[c * K + k];
				*w = UINT64_MAX - *w < v ? UINT64_MAX : *w + v;
			}
		}
	}
	return 0;
}

uint64_t profdb__cv_node_line(const profdb__cv_tree *t, uint32_t i)
{
	return t->node[i].line;
}

void profdb__cv_frame_names(const profdb__cv_tree *t, uint32_t node, char *buf, size_t cap,
                            profdb_str *name, profdb_str *file, profdb_str *module,
                            uint64_t *line)
{
	profdb_context c;
	uint32_t ctx = t->node[node].ctx;
	int known = ctx != PROFDB_NONE && profdb_context_get(t->db, ctx, &c) >= 0;
	profdb__cv_context_names(known ? &c : NULL, buf, cap, name, file, module, line);
}

void profdb__cv_context_names(const profdb_context *c, char *buf, size_t cap, profdb_str *name,
                              profdb_str *file, profdb_str *module, uint64_t *line)
{
	*file = *module = (profdb_str){"", 0};
	*line = 0;
	if (!c) {
		*name = (profdb_str){"<no tree node>", 14};
		return;
	}
	*file = c->file;
	*module = c->module;
	*line = c->line;
	if (c->function.len && c->type != PROFDB_CTX_ROOT) {
		*name = c->function;
		return;
	}
	/* The stack writers' label, so a frame has one name in every format;
	 * cut to @p cap (names are at most a module's base name and an offset). */
	profdb__cv_buf lb = {0};
	size_t n = 0;
	if (profdb__cv_label(&lb, c) == 0 && cap) {
		n = lb.len < cap ? lb.len : cap - 1;
		memcpy(buf, lb.p, n);
	}
	profdb__cv_buf_free(&lb);
	*name = (profdb_str){buf, n};
}
