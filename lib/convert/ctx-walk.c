/* The context tree in pre-order: the one walk behind the Callgrind and
 * pprof writers' tree (ctree.c) and speedscope's per-profile stacks
 * (stacks-ctx.c). */
#include <stdlib.h>

#include "stacks-internal.h"

/* The context ids met, one bit each, in a three-level table made on first
 * use: 1024 pointers to 1024 pointers to 512-byte pages of 4096 bits
 * (10 + 10 + 12 bits of a 32-bit id). A damaged tree that comes back to a
 * context ends in -EBADMSG instead of looping, with no count of the
 * contexts up front (a Callgrind file decodes every function to count its
 * line contexts), and a walk of a small tree costs a few KiB, not a table
 * over the whole id range. */
typedef struct seen {
	uint64_t **mid[1024];
} seen;

static int seen_add(seen *s, uint32_t id, int *again)
{
	uint64_t ***m = &s->mid[id >> 22];
	if (!*m && !(*m = calloc(1024, sizeof **m)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (context ids)");
	uint64_t **pg = &(*m)[(id >> 12) & 1023];
	if (!*pg && !(*pg = calloc(64, sizeof **pg)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (context ids)");
	uint64_t bit = UINT64_C(1) << (id & 63), *w = &(*pg)[(id >> 6) & 63];
	*again = (*w & bit) != 0;
	*w |= bit;
	return 0;
}

static void seen_free(seen *s)
{
	for (size_t i = 0; i < 1024; i++)
		for (size_t j = 0; s->mid[i] && j < 1024; j++)
			free(s->mid[i][j]);
	for (size_t i = 0; i < 1024; i++)
		free(s->mid[i]);
}

int profdb__cv_preorder(const profdb *db, profdb__cv_visit_fn visit, void *ud)
{
	uint32_t id;
	int r = profdb_context_root(db, &id);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	struct up { uint32_t index, next; } *stack = NULL;   /* the open ancestors */
	size_t depth = 0, scap = 0;
	uint32_t n = 0;
	seen *ids = calloc(1, sizeof *ids);
	if (!ids)
		r = profdb__fail(-ENOMEM, "profdb_convert: out of memory (context ids)");
	while (id != PROFDB_NONE && r >= 0) {
		profdb_context c;
		int again = 0;
		if ((r = profdb_context_get(db, id, &c)) < 0 || (r = seen_add(ids, id, &again)) < 0)
			break;
		if (again) {
			r = profdb__fail(-EBADMSG, "profdb_convert: context %u is met twice in the "
			                 "context tree (a cycle)", id);
			break;
		}
		if ((r = visit(ud, &c, depth ? stack[depth - 1].index : PROFDB_NONE)) < 0)
			break;
		uint32_t index = n++;
		if (c.first_child != PROFDB_NONE) {
			if ((r = profdb__grow((void **)&stack, &scap, depth + 1, sizeof *stack)) < 0)
				break;
			stack[depth++] = (struct up){index, c.next_sibling};
			id = c.first_child;
			continue;
		}
		id = c.next_sibling;   /* else the nearest ancestor's next sibling */
		while (id == PROFDB_NONE && depth)
			id = stack[--depth].next;
	}
	free(stack);
	if (ids)
		seen_free(ids);
	free(ids);
	return r < 0 ? r : 0;
}
