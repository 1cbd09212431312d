/* The call edges' table (lib/analysis/edges.c), shared with the edge sets
 * (edge-sets.c), which build a table of some contexts' edges the same way
 * or take them from the handle's. */
#ifndef PROFDB_ANALYSIS_EDGES_INTERNAL_H
#define PROFDB_ANALYSIS_EDGES_INTERNAL_H

#include <profdb/analysis.h>

#include "core/core-internal.h"

struct edge_column;

struct profdb__edges {
	profdb_edge *e;            /* sorted by caller, callee, site */
	uint64_t n;
	/* A call graph: edge i's calls in each profile are parts [first[i],
	 * first[i + 1]), by ascending profile; total: summed over them. */
	uint32_t ne;
	uint64_t *first;
	uint32_t *part_profile;
	uint64_t *part_cost;       /* ne per part */
	uint64_t *total;           /* ne per edge */
	/* NULL, or per edge the backend's call that is the edge (the calls of
	 * a caller without line contexts), PROFDB_NONE for an edge of parts:
	 * its counts and costs are asked of the backend. */
	uint32_t *call;
	/* A tree format whose backend computes a scope along the tree
	 * (scoped_all, Cube): the callees' inclusive values, one column per
	 * metric id built on first use, every context x every profile in one
	 * pass instead of one subtree walk per (edge, profile). NULL when the
	 * backend has no such pass or the columns would not fit. */
	struct edge_column *cols;
	uint32_t n_cols, n_ctx, n_prof;
	uint8_t *summary;          /* n_prof: is profile p a summary profile */
	/* A tree format, for the edge sets: the edges by callee and by site
	 * (indices into e, ascending among equal keys), on first use. */
	profdb__once order_once;
	uint32_t *by_callee, *by_site;
};

/* Which edges a build keeps: every one, or those of some contexts on one
 * side (profdb_edge_set_new). */
typedef struct profdb__edge_pick {
	int all;
	profdb_edge_side side;
	const uint32_t *ctx;       /* the contexts, ascending, each once */
	size_t n_ctx;
	const uint32_t *fn;        /* OUT_OF on a call graph: the contexts of the
	                            * functions whose calls are read (the
	                            * functions and the functions of the lines),
	                            * ascending, each once */
	size_t n_fn;
} profdb__edge_pick;


/* What the edges may take of memory (profdb_options.max_memory). */
uint64_t profdb__edges_budget(const profdb *db);
/* -ENOMEM with the edges' message. */
int profdb__edges_oom(void);
/* An empty table. NULL: out of memory (no message). */
struct profdb__edges *profdb__edges_new(void);
/* The handle's table of every edge, built on first use. */
int profdb__edges_table(const profdb *db, const struct profdb__edges **out);
/* A call graph's edges that @p pk picks, into the empty table @p x. */
int profdb__edges_build_cg(const profdb *db, const profdb__edge_pick *pk, struct profdb__edges *x);
/* What profdb_edge_inclusive() answers for edge @p i of table @p x (a call
 * graph's own, else @p tree, the handle's table of a tree format, whose
 * columns serve the costs), with @p who naming the call in messages. */
int profdb__edges_inclusive(const profdb *db, const struct profdb__edges *x,
                            const struct profdb__edges *tree, uint64_t i, uint32_t profile,
                            uint32_t metric, profdb_number *out, const char *who);

#endif
