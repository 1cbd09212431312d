/* Depth-first walk over the calling-context tree of any format, using only
 * the links of profdb_context (no recursion: real trees reach depths in the
 * thousands). */
#include <errno.h>

#include "tool.h"

int walk_begin(tool_walk *w, const profdb *db)
{
	int64_t n = profdb_context_count(db);
	if (n < 0)
		return (int)n;
	w->db = db;
	w->state = 0;
	w->visited = 0;
	/* Each node is returned once; far more means the links loop. (Slack:
	 * a format may count a synthetic root differently from its nodes.) */
	w->limit = 2 * n + 16;
	return 0;
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
			if (up.parent == PROFDB_NONE || ++steps > w->limit) {
				w->state = 2;
				return 0;
			}
			if ((r = profdb_context_get(w->db, up.parent, &up)) < 0)
				return r;
		}
		next = up.next_sibling;
	}
	if (++w->visited > w->limit)
		return -EBADMSG;   /* the library validates the tree; be safe anyway */
	if ((r = profdb_context_get(w->db, next, &w->cur)) < 0)
		return r;
	*out = w->cur;
	return 1;
}
