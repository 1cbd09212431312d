/* The Callgrind backend of the common query interface: what query.c
 * (opening, description, the tree, contexts, profiles) and query-values.c
 * (values and the cursor) share. */
#ifndef PROFDB_CALLGRIND_QUERY_INTERNAL_H
#define PROFDB_CALLGRIND_QUERY_INTERNAL_H

#include "callgrind-internal.h"
#include "lines-internal.h"
#include "../core/backend-internal.h"

typedef struct cg_query {
	profdb_cg *cg;
	char **names;                /* per profile, owned */
	profdb__once tree_once;
	/* links by context id (0 the root, fn + 1 a function), built lazily;
	 * a node's four together, so that a walk meets one cache miss per
	 * function, not four */
	struct cgq_node {
		uint32_t parent, first_child, next_sibling, depth;
	} *node;
	cg_lines *lines;             /* NULL: PROFDB_OPEN_FUNCTIONS_ONLY */
} cg_query;

static inline int is_line(const cg_query *q, uint32_t id)
{
	return id > q->cg->n_fns;
}

#define check_ctx profdb__cgq_check_ctx
#define q_value profdb__cgq_value
#define q_scoped profdb__cgq_scoped
#define q_cursor_begin profdb__cgq_cursor_begin
#define q_cursor_next profdb__cgq_cursor_next
#define q_cursor_free profdb__cgq_cursor_free

/* query.c: -ENOENT (with a message) for a context id out of range. (lib/query
 * checks profile indices before calling the backend.) */
int check_ctx(const cg_query *q, uint32_t id);

/* query-values.c: the backend entries of values and the cursor. */
int q_value(const void *impl, uint32_t p, uint32_t ctx, uint32_t m, profdb_number *out);
int q_scoped(const void *impl, uint32_t p, uint32_t ctx, uint32_t m, int inclusive,
             profdb_number *out);
int q_cursor_begin(const void *impl, profdb__cursor *cur);
int q_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out);
void q_cursor_free(const void *impl, profdb__cursor *cur);

/* query-native.c: the records the Callgrind writer keeps, and the call
 * graph the analyses read. */
extern const profdb__native_table profdb__cgq_native_records;
extern const profdb__graph_table profdb__cgq_graph;

#endif
