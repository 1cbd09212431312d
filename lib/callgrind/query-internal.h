/* The Callgrind backend of the common query interface: what query.c
 * (opening, description, the tree, contexts, profiles) and query-values.c
 * (values and the cursor) share. */
#ifndef PROFDB_CALLGRIND_QUERY_INTERNAL_H
#define PROFDB_CALLGRIND_QUERY_INTERNAL_H

#include <pthread.h>

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
	/* query-lines.c: per thread, the rows of the function it read last,
	 * when the rows of all functions do not fit lines.c's cache (memos_on) */
	int memos_on;
	uint64_t serial;             /* this handle's alone, never reused */
	pthread_mutex_t memo_lock;   /* guards the list */
	struct cgq_memo *memos;
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

/* query-lines.c: the line contexts served to one thread after another,
 * each reading a function's rows without a lock once it entered the
 * function at its first row. memo_init when the handle is made, memo_free
 * at close. */
typedef struct cgq_memo cgq_memo;
void profdb__cgq_memo_init(cg_query *q);
void profdb__cgq_memo_free(cg_query *q);
/* Line context @p id: profdb__cgl_row's answer. */
int profdb__cgq_line_row(const cg_query *q, uint32_t id, cgl_row *out);
/* The self cost of line context @p id in profile @p p, event @p e (0 when
 * the profile stores none): 1 stored, 0 absent, < 0 error. */
int profdb__cgq_line_cost(const cg_query *q, uint32_t id, uint32_t p, uint32_t e,
                          uint64_t *out);

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
