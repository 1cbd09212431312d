/* The call paths of trace samples, for the evented formats (speedscope's
 * evented profiles, Chrome trace): each sample's context is mapped once to
 * the path of frames above it, and a trace line becomes the frames left
 * and entered from one sample to the next. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stacks-internal.h"

#define IDLE 0xffffffffu   /* slot code: the context runs nothing */

void profdb__cv_paths_free(profdb__cv_paths *x)
{
	free(x->p);
	free(x->slots);
	free(x->chain);
	x->p = NULL, x->slots = NULL, x->chain = NULL;
	x->n = x->cap = x->n_slots = x->used = x->chain_cap = 0;
}

static uint64_t mix(uint32_t id)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* 1 and *code when @p ctx is known, 0 otherwise. */
static int lookup(const profdb__cv_paths *x, uint32_t ctx, uint32_t *code)
{
	if (!x->n_slots)
		return 0;
	for (size_t k = (size_t)mix(ctx) & (x->n_slots - 1); x->slots[k]; k = (k + 1) & (x->n_slots - 1))
		if ((uint32_t)(x->slots[k] >> 32) == ctx) {
			*code = (uint32_t)x->slots[k];
			return 1;
		}
	return 0;
}

static void slot_put(uint64_t *slots, size_t n, uint64_t v)
{
	size_t k = (size_t)mix((uint32_t)(v >> 32)) & (n - 1);
	while (slots[k])
		k = (k + 1) & (n - 1);
	slots[k] = v;
}

static int remember(profdb__cv_paths *x, uint32_t ctx, uint32_t code)
{
	if (2 * (x->used + 1) > x->n_slots) {
		size_t ns = x->n_slots ? 2 * x->n_slots : 1024;
		uint64_t *s = calloc(ns, sizeof *s);
		if (!s)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory (call paths)");
		for (size_t i = 0; i < x->n_slots; i++)
			if (x->slots[i])
				slot_put(s, ns, x->slots[i]);
		free(x->slots);
		x->slots = s, x->n_slots = ns;
	}
	slot_put(x->slots, x->n_slots, (uint64_t)ctx << 32 | code);
	x->used++;
	return 0;
}

static int new_pnode(profdb__cv_paths *x, uint32_t parent, const profdb_context *c, uint32_t *out)
{
	if (profdb__grow((void **)&x->p, &x->cap, x->n + 1, sizeof *x->p) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (call paths)");
	if (x->n >= IDLE - 1)
		return profdb__fail(-EFBIG, "profdb_convert: more than 2^32 call paths");
	profdb__cv_pnode *p = &x->p[x->n];
	p->parent = parent;
	p->depth = parent == PROFDB_NONE ? 1 : x->p[parent].depth + 1;
	int r = profdb__cv_frame_intern(x->frames, c, &p->frame);
	if (r < 0)
		return r;
	*out = (uint32_t)x->n++;
	return 0;
}

int profdb__cv_path_of(profdb__cv_paths *x, uint32_t ctx, uint32_t *out)
{
	uint32_t code, cur = PROFDB_NONE;
	if (lookup(x, ctx, &code)) {
		*out = code == IDLE ? PROFDB_NONE : code - 1;
		return 0;
	}
	/* Walk up to a known context (or the top), then create the frames on
	 * the way back down. */
	profdb_context *ch = x->chain;
	size_t n = 0;
	int r, idle = 0;
	for (uint32_t c = ctx;;) {
		if (profdb__grow((void **)&x->chain, &x->chain_cap, n + 1, sizeof *x->chain) < 0)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory (call paths)");
		ch = x->chain;
		if ((r = profdb_context_get(x->db, c, &ch[n])) == -ENOENT) {
			/* hpcrun's trace-only profiles name contexts no tree has: a
			 * frame "<context N>" of its own, at the top. */
			memset(&ch[n], 0, sizeof ch[n]);
			ch[n].id = c, ch[n].parent = PROFDB_NONE, ch[n].in_tree = 0;
			ch[n].function = (profdb_str){"", 0};
			ch[n].file = ch[n].module = ch[n].function;
			ch[n].type = PROFDB_CTX_UNKNOWN;
		} else if (r < 0) {
			return r;
		}
		if (!ch[n].in_tree && ch[n].type == PROFDB_CTX_ROOT) {
			idle = 1;  /* HPCToolkit's context 0: not running */
			break;
		}
		n++;
		if (ch[n - 1].parent == PROFDB_NONE || !ch[n - 1].in_tree)
			break;
		if (n > (1u << 20))
			return profdb__fail(-EBADMSG, "profdb_convert: context %" PRIu32 " is more than 2^20 "
			                    "levels deep (a cycle?)", ctx);
		c = ch[n - 1].parent;
		if (lookup(x, c, &code)) {
			cur = code == IDLE ? PROFDB_NONE : code - 1;
			break;
		}
	}
	if (idle && !n)
		return (r = remember(x, ctx, IDLE)) < 0 ? r : (*out = PROFDB_NONE, 0);
	while (n--) {
		if (profdb__cv_is_frame(&ch[n]) && (r = new_pnode(x, cur, &ch[n], &cur)) < 0)
			return r;
		if ((r = remember(x, ch[n].id, cur == PROFDB_NONE ? IDLE : cur + 1)) < 0)
			return r;
	}
	*out = cur;
	return 0;
}

int profdb__cv_trace_span(const profdb *db, const uint32_t *profiles, size_t n, int need,
                          uint64_t *t0, uint64_t *samples, size_t *lines)
{
	*t0 = UINT64_MAX, *samples = 0, *lines = 0;
	for (size_t i = 0; i < n; i++) {
		profdb_view v;
		int r = profdb_trace_view(db, profiles[i], &v);
		if (r == -ENOTSUP && i == 0)
			break;
		if (r < 0)
			return r;
		if (!v.count)
			continue;
		uint64_t t = profdb_view_key(&v, 0);
		if (t < *t0)
			*t0 = t;
		*samples += v.count;
		++*lines;
	}
	if (!*lines) {
		*t0 = 0;
		if (need)
			return profdb__fail(-ENOTSUP, "profdb_convert: no trace to write: %s",
			                    n ? "none of the selected profiles has trace samples (Cube, "
			                        "Callgrind and databases recorded without tracing have none)"
			                      : "no profile selected");
	}
	return 0;
}

/* Leave the frames of path @p a down to the common part with @p b, then
 * enter those of @p b, at time @p t. */
static int transition(profdb__cv_paths *x, uint32_t a, uint32_t b, uint64_t t,
                      const profdb__cv_trace_sink *s, uint32_t **open, size_t *open_cap)
{
	uint32_t da = a == PROFDB_NONE ? 0 : x->p[a].depth, db = b == PROFDB_NONE ? 0 : x->p[b].depth;
	size_t n = 0;
	int r;
	if (*open_cap < db) {
		uint32_t *o = realloc(*open, (size_t)db * 2 * sizeof *o);
		if (!o)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory (call paths)");
		*open = o, *open_cap = (size_t)db * 2;
	}
	for (; da > db; da--, a = x->p[a].parent)
		if ((r = s->close(s->ud, x->p[a].frame, t)) < 0)
			return r;
	for (; db > da; db--, b = x->p[b].parent)
		(*open)[n++] = b;
	while (a != b) {
		if ((r = s->close(s->ud, x->p[a].frame, t)) < 0)
			return r;
		(*open)[n++] = b;
		a = x->p[a].parent, b = x->p[b].parent;
	}
	while (n--)
		if ((r = s->open(s->ud, x->p[(*open)[n]].frame, t)) < 0)
			return r;
	return 0;
}

int profdb__cv_trace_walk(profdb__cv_paths *x, uint32_t profile, const profdb__cv_trace_sink *sink,
                          const profdb_convert_options *opts, uint64_t *done, uint64_t total)
{
	profdb_view v;
	int r = profdb_trace_view(x->db, profile, &v);
	if (r < 0 || !v.count)
		return r == -ENOTSUP ? 0 : r;
	uint32_t cur = PROFDB_NONE, *open = NULL;
	size_t open_cap = 0;
	uint64_t t = 0;
	for (uint64_t i = 0; i < v.count; i++) {
		uint32_t p;
		t = profdb_view_key(&v, i);
		if ((r = profdb__cv_path_of(x, (uint32_t)profdb_view_value(&v, i).as.u64, &p)) < 0)
			break;
		if (p != cur && (r = transition(x, cur, p, t, sink, &open, &open_cap)) < 0)
			break;
		cur = p;
		if (opts->progress && !(++*done & 0xfff) &&
		    opts->progress(*done, total, opts->progress_userdata)) {
			r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
			break;
		}
	}
	if (r >= 0)
		r = transition(x, cur, PROFDB_NONE, t, sink, &open, &open_cap);
	free(open);
	return r < 0 ? r : 0;
}
