/* Depth-first walk over the calling-context tree of any format, using only
 * the links of profdb_context (no recursion: real trees reach depths in the
 * thousands). */
#include <errno.h>

#include "tool.h"

/* The guard against links that loop, which needs no node count (on
 * Callgrind with line contexts only a decoding of every function gives
 * it): a walk returns each node once and a climb meets each ancestor once,
 * so a sequence that meets an id again is caught in a loop. Brent's way of
 * seeing it in constant memory: remember the id met after 1, 2, 4, ...
 * steps; once the span reaches the loop's length, the loop leads back to
 * the id remembered. mark: that id (PROFDB_NONE: none yet); steps: since
 * it was taken, up to span. */
static void guard_begin(walk_guard *g)
{
	g->mark = PROFDB_NONE;
	g->span = 1;
	g->steps = 0;
}

/* Step to @p id: 0, or -EBADMSG when the sequence met it again. */
static int guard_step(walk_guard *g, uint32_t id)
{
	if (id == g->mark)
		return -EBADMSG;
	if (++g->steps == g->span) {
		g->mark = id;
		g->span *= 2;
		g->steps = 0;
	}
	return 0;
}

/* The node the next call is likely to return (the first child, or the
 * next sibling, as the caller skips children or not: callers do the same
 * all along), read now and its function's name asked for, so that the
 * cache and TLB misses of names spread over a big mapped file (Callgrind)
 * overlap with the caller's work on the current node. Not from a line or
 * an instruction: what follows one mostly has its function, whose name
 * is already at hand, and millions of them would pay for nothing. A
 * failure here is left for the next call to meet. */
static void read_ahead(tool_walk *w, int skip_children)
{
	const profdb_context *cur = &w->node[w->cur];
	uint32_t a = !skip_children && cur->first_child != PROFDB_NONE ? cur->first_child
	             : cur->next_sibling;
	w->has_ahead = 0;
	if (a == PROFDB_NONE || cur->type == PROFDB_CTX_LINE || cur->type == PROFDB_CTX_INSTRUCTION)
		return;
	profdb_context *ahead = &w->node[!w->cur];
	w->has_ahead = profdb_context_get(w->db, a, ahead) == 0;
#if defined(__GNUC__) || defined(__clang__)
	if (w->has_ahead && ahead->function.len)
		__builtin_prefetch(ahead->function.ptr);
#endif
}

int walk_begin(tool_walk *w, const profdb *db)
{
	w->db = db;
	w->state = 0;
	w->cur = 0;
	w->has_ahead = 0;
	guard_begin(&w->guard);
	return 0;
}

int walk_next(tool_walk *w, profdb_context *out, int skip_children)
{
	const profdb_context *cur = &w->node[w->cur];
	uint32_t next;
	int r;
	if (w->state == 2)
		return 0;
	if (w->state == 0) {
		r = profdb_context_root(w->db, &next);
		if (r == -ENOENT) {
			w->state = 2;
			return 0;
		}
		if (r < 0)
			return r;
		w->state = 1;
	} else if (!skip_children && cur->first_child != PROFDB_NONE) {
		next = cur->first_child;
	} else {
		/* Climb until a node has a next sibling (roots chain the same way). */
		profdb_context up = *cur;
		walk_guard climb;
		guard_begin(&climb);
		while (up.next_sibling == PROFDB_NONE) {
			if (up.parent == PROFDB_NONE) {
				w->state = 2;
				return 0;
			}
			if ((r = guard_step(&climb, up.parent)) < 0) {
				w->state = 2;
				return r;
			}
			if ((r = profdb_context_get(w->db, up.parent, &up)) < 0)
				return r;
		}
		next = up.next_sibling;
	}
	/* the library validates the tree; be safe anyway */
	if ((r = guard_step(&w->guard, next)) < 0) {
		w->state = 2;
		return r;
	}
	if (w->has_ahead && w->node[!w->cur].id == next)
		w->cur = !w->cur;   /* the node read ahead: no copy */
	else if ((r = profdb_context_get(w->db, next, &w->node[w->cur])) < 0)
		return r;
	read_ahead(w, skip_children);
	*out = w->node[w->cur];
	return 1;
}

const profdb_context *walk_peek(const tool_walk *w, uint32_t id)
{
	const profdb_context *ahead = &w->node[!w->cur];
	return w->state == 1 && w->has_ahead && ahead->id == id ? ahead : NULL;
}
