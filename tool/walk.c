/* Depth-first walk over the calling-context tree of any format, using only
 * the links of profdb_context (no recursion: real trees reach depths in the
 * thousands). */
#include <errno.h>

#include "tool.h"

/* The walk's guard against links that loop: each node is returned once,
 * so far more visits than nodes means a loop. The count is asked for only
 * when a walk grows past this many visits: on Callgrind with line contexts
 * counting decodes every function's lines, which the walk decodes again. */
#define WALK_PROVISIONAL_LIMIT ((int64_t)1 << 25)

int walk_begin(tool_walk *w, const profdb *db)
{
	w->db = db;
	w->state = 0;
	w->visited = 0;
	w->limit = WALK_PROVISIONAL_LIMIT;
	w->exact = 0;
	return 0;
}

/* Past the provisional limit: the real one from the node count. (Slack:
 * a format may count a synthetic root differently from its nodes.)
 * 1 while within it, 0 past it, < 0 error. */
static int within_limit(tool_walk *w, int64_t n)
{
	if (n <= w->limit)
		return 1;
	if (w->exact)
		return 0;
	int64_t count = profdb_context_count(w->db);
	if (count < 0)
		return (int)count;
	w->exact = 1;
	w->limit = 2 * count + 16;
	return n <= w->limit;
}

int walk_next(tool_walk *w, profdb_context *out, int skip_children)
{
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
	} else if (!skip_children && w->cur.first_child != PROFDB_NONE) {
		next = w->cur.first_child;
	} else {
		/* Climb until a node has a next sibling (roots chain the same way). */
		profdb_context up = w->cur;
		int64_t steps = 0;
		while (up.next_sibling == PROFDB_NONE) {
			r = up.parent == PROFDB_NONE ? 0 : within_limit(w, ++steps);
			if (r <= 0) {
				w->state = 2;
				return r;
			}
			if ((r = profdb_context_get(w->db, up.parent, &up)) < 0)
				return r;
		}
		next = up.next_sibling;
	}
	/* the library validates the tree; be safe anyway */
	if ((r = within_limit(w, ++w->visited)) <= 0)
		return r < 0 ? r : -EBADMSG;
	if ((r = profdb_context_get(w->db, next, &w->cur)) < 0)
		return r;
	*out = w->cur;
	return 1;
}
