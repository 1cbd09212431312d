/* A flame graph as one self-contained SVG file (doc/CONVERT.md, "SVG
 * flame graph"): the stacks of the top-down view of one metric, as the
 * folded writer reads them, merged into a tree of frames (one node per
 * distinct call path), laid out, and written with the page's style and
 * script (svg-page.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg-internal.h"

/* ---- the tree of frames ---------------------------------------------------- */

static uint64_t key_hash(uint32_t parent, uint32_t frame)
{
	uint64_t h = ((uint64_t)parent << 32 | frame) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

static int slots_grow(svg_tree *t)
{
	size_t ns = t->n_slots ? 2 * t->n_slots : 1024;
	uint32_t *s = calloc(ns, sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (flame graph)");
	for (size_t i = 1; i < t->n; i++) {   /* the root is no one's child */
		size_t k = (size_t)key_hash(t->nd[i].parent, t->nd[i].frame) & (ns - 1);
		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)i;
	}
	free(t->slots);
	t->slots = s, t->n_slots = ns;
	return 0;
}

static int node_new(svg_tree *t, uint32_t parent, uint32_t frame, uint32_t *out)
{
	if (t->n >= UINT32_MAX - 1)
		return profdb__fail(-EFBIG, "profdb_convert: more than 2^32 flame graph frames");
	if (profdb__grow((void **)&t->nd, &t->cap, t->n + 1, sizeof *t->nd) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (flame graph)");
	svg_node *x = &t->nd[t->n];
	memset(x, 0, sizeof *x);
	x->parent = parent, x->frame = frame;
	x->first = x->last = x->next = PROFDB_NONE;
	if (parent != PROFDB_NONE) {
		svg_node *p = &t->nd[parent];
		if (p->last == PROFDB_NONE)
			p->first = (uint32_t)t->n;
		else
			t->nd[p->last].next = (uint32_t)t->n;
		p->last = (uint32_t)t->n;
		x->depth = p->depth + 1;
	}
	*out = (uint32_t)t->n++;
	return 0;
}

/* The child of @p parent for @p frame, made when new: calls of one
 * function from several lines of its caller are one frame, as in every
 * flame graph. */
static int child_of(svg_tree *t, uint32_t parent, uint32_t frame, uint32_t *out)
{
	int r;
	if (2 * (t->n + 1) > t->n_slots && (r = slots_grow(t)) < 0)
		return r;
	size_t k = (size_t)key_hash(parent, frame) & (t->n_slots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->n_slots - 1)) {
		const svg_node *x = &t->nd[t->slots[k]];
		if (x->parent == parent && x->frame == frame) {
			*out = t->slots[k];
			return 0;
		}
	}
	if ((r = node_new(t, parent, frame, out)) < 0)
		return r;
	t->slots[k] = *out;
	return 0;
}

static int on_push(void *ud, uint32_t frame)
{
	svg_tree *t = ud;
	uint32_t c = PROFDB_NONE;
	int r = child_of(t, t->path[t->depth - 1], frame, &c);
	if (r < 0)
		return r;
	if (profdb__grow((void **)&t->path, &t->path_cap, t->depth + 1, sizeof *t->path) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (flame graph)");
	t->path[t->depth++] = c;
	return 0;
}

static void on_pop(void *ud) { ((svg_tree *)ud)->depth--; }

static int on_emit(void *ud, profdb__cv_weight w)
{
	(void)ud, (void)w;
	return 0;
}

static int on_leave(void *ud, double inc, double self)
{
	svg_tree *t = ud;
	svg_node *x = &t->nd[t->path[t->depth - 1]];
	x->v += inc;
	x->self += self;
	return 0;
}

void profdb__svg_tree_free(svg_tree *t)
{
	free(t->nd);
	free(t->slots);
	free(t->path);
	profdb__cv_frames_free(&t->frames);
	memset(t, 0, sizeof *t);
}

/* ---- layout ----------------------------------------------------------------- */

/* Spans: a frame is drawn as wide as its value, or as its own part and
 * its children's spans where they hold more (callees stored above their
 * caller). Then which frames are drawn (a frame narrower than the minimum
 * is merged into its parent's remainder, its subtree with it), and where:
 * the children drawn side by side from the parent's left edge, in the
 * view's order, the parent's remainder after them (the script lays frames
 * out by the same rule when zooming). Children come after their parent in
 * the node array, so one pass backwards and one forwards do. */
static void layout(svg_tree *t, double width, double min_width)
{
	svg_node *nd = t->nd;
	for (size_t i = t->n; i-- > 0;) {
		double own = nd[i].self + nd[i].sub;
		nd[i].span = own > nd[i].v ? own : nd[i].v;
		if (nd[i].parent != PROFDB_NONE)
			nd[nd[i].parent].sub += nd[i].span;
	}
	t->scale = nd[0].span > 0 ? width / nd[0].span : 0;
	t->max_depth = 0, t->drawn = 0;
	for (size_t i = 0; i < t->n; i++) {
		svg_node *x = &nd[i];
		x->rest = x->self;
		if (i == 0) {
			x->drawn = 1, x->x = 0;
		} else {
			svg_node *p = &nd[x->parent];
			x->drawn = p->drawn && x->span > 0 && x->span * t->scale >= min_width;
			if (x->drawn) {
				x->x = p->next_x;
				p->next_x += x->span;
			} else if (p->drawn) {
				p->rest += x->span;   /* merged into the parent's remainder */
			}
		}
		x->next_x = x->x;
		if (x->drawn) {
			t->drawn++;
			if (x->depth > t->max_depth)
				t->max_depth = x->depth;
		}
	}
}

/* ---- the writer -------------------------------------------------------------- */

int profdb__convert_svg(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	profdb__cv_metric m;
	int r = profdb__cv_metric_pick(db, opts, "an SVG flame graph", &m);
	if (r < 0)
		return r;
	svg_tree t;
	memset(&t, 0, sizeof t);
	uint32_t root = 0;
	if ((r = node_new(&t, PROFDB_NONE, PROFDB_NONE, &root)) < 0 ||
	    profdb__grow((void **)&t.path, &t.path_cap, 1, sizeof *t.path) < 0) {
		profdb__svg_tree_free(&t);
		return r < 0 ? r : profdb__fail(-ENOMEM, "profdb_convert: out of memory (flame graph)");
	}
	t.path[t.depth++] = root;
	profdb__cv_stack_sink sink = {on_push, on_pop, on_emit, &t, opts, on_leave};
	profdb__cv_weight total;
	/* The same stacks as the folded writer's (for Callgrind, the call
	 * edges expanded from the root by lib/analysis). */
	r = profdb__cv_stacks(db, &m, opts->profiles, opts->n_profiles, &t.frames, &sink, &total);
	if (r >= 0) {
		t.nd[0].v = total.d;
		/* The root's own part: what no frame holds (never < 0). */
		double sub = 0;
		for (uint32_t c = t.nd[0].first; c != PROFDB_NONE; c = t.nd[c].next)
			sub += t.nd[c].v;
		t.nd[0].self = total.d > sub ? total.d - sub : 0;
		double width = opts->width > 0 ? opts->width : 1200;
		layout(&t, width, opts->min_width > 0 ? opts->min_width : 0.1);
		r = profdb__svg_write(db, opts, &m, &t, width, o);
	}
	profdb__svg_tree_free(&t);
	return r;
}
