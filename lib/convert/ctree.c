/* The context tree in pre-order and each context's self cost in integer
 * units, combined over a set of profiles (doc/CONVERT.md, "Integer
 * costs"). Memory: about 24 + 24 x events bytes per context. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost-internal.h"

void profdb__cv_tree_free(profdb__cv_tree *t)
{
	free(t->node);
	free(t->sorted);
	free(t->acc);
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

/* Pre-order walk from the first root; @p limit bounds it (a damaged tree
 * with a cycle ends in -EBADMSG instead of looping). */
static int walk(profdb__cv_tree *t, size_t *cap, uint64_t limit)
{
	uint32_t id;
	int r = profdb_context_root(t->db, &id);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	struct up { uint32_t node, next; } *stack = NULL;
	size_t depth = 0, scap = 0;
	while (id != PROFDB_NONE) {
		profdb_context c;
		if ((r = profdb_context_get(t->db, id, &c)) < 0)
			break;
		if (t->n >= limit) {
			r = profdb__fail(-EBADMSG, "profdb_convert: the context tree has more nodes "
			                 "than it counts (a cycle at context %u)", id);
			break;
		}
		int frame = c.type == PROFDB_CTX_FUNCTION || c.type == PROFDB_CTX_ROOT ||
		            c.relation == PROFDB_RELATION_CALL || c.relation == PROFDB_RELATION_INLINED;
		uint32_t parent = depth ? stack[depth - 1].node : PROFDB_NONE;
		if ((r = add_node(t, cap, id, parent, frame)) < 0)
			break;
		t->node[t->n - 1].line = c.line;
		if (c.first_child != PROFDB_NONE) {
			if ((r = profdb__grow((void **)&stack, &scap, depth + 1, sizeof *stack)) < 0)
				break;
			stack[depth++] = (struct up){(uint32_t)t->n - 1, c.next_sibling};
			id = c.first_child;
			continue;
		}
		id = c.next_sibling;
		while (id == PROFDB_NONE && depth)
			id = stack[--depth].next;
	}
	free(stack);
	return r < 0 ? r : 0;
}

/* sorted[] holds ctx << 32 | node: sorting the words sorts by context. */
static int by_word(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
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
	int64_t count = profdb_context_count(db);
	if (count < 0)
		return (int)count;
	size_t cap = 0;
	int r = walk(t, &cap, (uint64_t)count + 1);
	if (r >= 0)
		r = add_node(t, &cap, PROFDB_NONE, PROFDB_NONE, 1);   /* "<no tree node>" */
	if (r < 0)
		return r;
	size_t cells = t->n * (n_ev ? n_ev : 1);
	t->sorted = malloc(t->n * sizeof *t->sorted);
	t->acc = malloc(cells * sizeof *t->acc);
	t->self = malloc(cells * sizeof *t->self);
	t->incl = malloc(cells * sizeof *t->incl);
	t->total = calloc(n_ev + 1, sizeof *t->total);
	t->has = malloc(cells);
	if (!t->has || !t->sorted || !t->acc || !t->self || !t->incl || !t->total)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%zu contexts)", t->n);
	for (size_t i = 0; i < t->n; i++)
		t->sorted[i] = (uint64_t)t->node[i].ctx << 32 | i;
	qsort(t->sorted, t->n, sizeof *t->sorted, by_word);
	return 0;
}

/* The node of context @p ctx; the "<no tree node>" node when it has none. */
static uint32_t node_of(const profdb__cv_tree *t, uint32_t ctx, int *found)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uint32_t)(t->sorted[mid] >> 32) < ctx)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->n && (uint32_t)(t->sorted[lo] >> 32) == ctx &&
	         t->node[(uint32_t)t->sorted[lo]].ctx != PROFDB_NONE;
	return *found ? (uint32_t)t->sorted[lo] : (uint32_t)(t->n - 1);
}

static int add_value(profdb__cv_tree *t, size_t k, uint32_t node, profdb_number v)
{
	const profdb__cv_event *e = &t->ev[k];
	uint64_t *cell = &t->acc[(size_t)node * t->n_ev + k];
	if (e->is_float) {
		double d;
		memcpy(&d, cell, sizeof d);
		d += profdb_number_to_double(v);
		memcpy(cell, &d, sizeof d);
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
	int found = 0;
	while ((r = profdb_values_next(it, &e)) > 0) {
		for (size_t k = 0; k < t->n_ev && r >= 0; k++) {
			if (t->ev[k].src != e.metric)
				continue;
			if (e.context != last_ctx)
				node = node_of(t, last_ctx = e.context, &found);
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

/* acc (combined values) into self (integer units): an inclusive scope
 * less the children's, a floating one scaled and rounded to nearest. */
static int to_self(profdb__cv_tree *t)
{
	size_t K = t->n_ev;
	uint64_t *sum = t->incl;   /* the children's inclusive values (scratch) */
	memset(sum, 0, t->n * K * sizeof *sum);
	memcpy(t->self, t->acc, t->n * K * sizeof *t->self);
	for (size_t c = t->n; c-- > 0;) {
		uint32_t p = t->node[c].parent;
		for (size_t k = 0; k < K; k++) {
			const profdb__cv_event *e = &t->ev[k];
			if (!e->diff)
				continue;
			size_t i = c * K + k;
			/* A context without a stored inclusive value (a pre-release call
			 * site) holds what its children hold: self cost 0. */
			if (!t->has[i])
				t->acc[i] = sum[i];
			t->self[i] = e->is_float ? as_bits(as_double(t->acc[i]) - as_double(sum[i]))
			                         : t->acc[i] - sum[i];
			if (p != PROFDB_NONE) {
				uint64_t *w = &sum[(size_t)p * K + k];
				*w = e->is_float ? as_bits(as_double(*w) + as_double(t->acc[i])) : *w + t->acc[i];
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
	for (size_t i = 0; i < t->n * K; i++)
		t->acc[i] = t->ev[i % K].is_float ? as_bits(0.0) : 0;
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
			if (p != PROFDB_NONE) {
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
	*file = *module = (profdb_str){"", 0};
	*line = 0;
	uint32_t ctx = t->node[node].ctx;
	if (ctx == PROFDB_NONE || profdb_context_get(t->db, ctx, &c) < 0) {
		*name = (profdb_str){"<no tree node>", 14};
		return;
	}
	*file = c.file;
	*module = c.module;
	*line = c.line;
	if (c.function.len && c.type != PROFDB_CTX_ROOT) {
		*name = c.function;
		return;
	}
	/* The stack writers' label, so a frame has one name in every format;
	 * cut to @p cap (names are at most a module's base name and an offset). */
	profdb__cv_buf lb = {0};
	size_t n = 0;
	if (profdb__cv_label(&lb, &c) == 0 && cap) {
		n = lb.len < cap ? lb.len : cap - 1;
		memcpy(buf, lb.p, n);
	}
	profdb__cv_buf_free(&lb);
	*name = (profdb_str){buf, n};
}
