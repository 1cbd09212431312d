/* The three views (profdb_tree_*, profdb/analysis.h): the node store every
 * builder fills, and the builders (tree-ctx.c for the formats that store a
 * calling-context tree, tree-cg.c for Callgrind's call graph).
 *
 * A builder appends nodes in any order, each linked as the last child of
 * its parent, with 2 x n_metrics doubles (inclusive, then exclusive).
 * profdb__tree_finish() then folds what the cut-off hides, sorts every
 * node's children (heaviest first, ties by context id, then names) and
 * renumbers the reachable nodes in pre-order (in place), so that ids
 * depend only on the input and the options. */
#ifndef PROFDB_QUERY_TREE_INTERNAL_H
#define PROFDB_QUERY_TREE_INTERNAL_H

#include <math.h>

#include "query/query-internal.h"

/* A node as a builder describes it. */
typedef struct tproto {
	uint32_t context;
	uint8_t type, flags;
	uint64_t line;
	uint64_t off;               /* build-time identity of instructions (flat view) */
	profdb_str name, file, module;
} tproto;

/* A node as the store keeps it: 56 bytes, the strings as ids into the
 * tree's string table (a flat view of a big Callgrind profile holds
 * millions of line nodes that share a few thousand file names). */
typedef struct tnode {
	uint32_t parent, first_child, next_sibling, last_child, depth;
	uint32_t context;
	uint32_t name, file, module;   /* profdb_tree.strs */
	uint8_t type, flags;
	uint64_t line;
	uint64_t off;
} tnode;

/* A slot of the find-or-create index: node + 1 (0: empty) and the upper
 * half of its key's hash. */
typedef struct tslot {
	uint32_t node, hash;
} tslot;

/* What one metric of the options reads. */
typedef struct tplan {
	uint32_t metric;
	profdb_combine rule;        /* SUM, MIN or MAX (NONE: one profile, no combination) */
	uint32_t *profiles;         /* the profiles combined, ascending */
	size_t n_profiles;
	int has_inc, has_exc;       /* 0: the format cannot say (NaN in the view) */
} tplan;

struct profdb_tree {
	tnode *nodes;
	double *val;                /* 2 * nm per node: inclusive[nm], exclusive[nm] */
	size_t n, cap, nm;
	uint64_t limit;             /* max_memory */
	/* find-or-create index of the flat view (parent, key) -> node + 1,
	 * with the key's hash: a rehash and a probe past another key need not
	 * visit the nodes */
	struct tslot *slots;
	size_t n_slots, n_keyed;    /* n_keyed: nodes in the index */
	/* the nodes' strings, each distinct view (pointer, length) once, and
	 * while building, its index (pointer, length) -> id + 1 */
	profdb_str *strs;
	size_t n_strs, cap_strs;
	uint32_t *str_slots;
	size_t n_str_slots;
	uint32_t recent[3];         /* the last ids of name, file, module */
};

/* String @p s of tree @p t. */
static inline profdb_str profdb__tstr(const profdb_tree *t, uint32_t s)
{
	return t->strs[s];
}

/* What a builder works from. */
typedef struct tbuild {
	const profdb *db;
	profdb_tree *t;
	const tplan *plan;
	size_t nm;
	profdb_tree_kind kind;
	double cutoff;              /* the fraction the options ask (0: none) */
} tbuild;

/* acc (op) v by @p rule; @p first: acc holds nothing yet. */
static inline double profdb__tcomb(profdb_combine rule, double acc, double v, int first)
{
	if (first)
		return v;
	switch (rule) {
	case PROFDB_COMBINE_MIN: return v < acc ? v : acc;
	case PROFDB_COMBINE_MAX: return v > acc ? v : acc;
	case PROFDB_COMBINE_SUM: return acc + v;
	default: return NAN;
	}
}

static inline double *profdb__tinc(profdb_tree *t, uint32_t id) { return t->val + (size_t)id * 2 * t->nm; }
static inline double *profdb__texc(profdb_tree *t, uint32_t id) { return t->val + (size_t)id * 2 * t->nm + t->nm; }

/* Append a node (copy of @p proto, values zeroed) as the last child of
 * @p parent (PROFDB_NONE: the root, only once). @return 0, -EFBIG
 * (max_memory), -ENOMEM; *id receives its id. */
int profdb__tree_add(profdb_tree *t, uint32_t parent, const tproto *proto, uint32_t *id);
/* As profdb__tree_add, with the name, file and module given as ids of the
 * tree's strings (profdb__tree_intern; the proto's strings are not read):
 * a builder that adds many nodes with the same strings interns them once. */
int profdb__tree_add_ids(profdb_tree *t, uint32_t parent, const tproto *proto,
                         const uint32_t str[3], uint32_t *id);
/* The id of @p s in the tree's strings (added when new), as the @p field
 * of a node (0 name, 1 file, 2 module: the field's last id is tried
 * first): 0, -EFBIG, -ENOMEM. */
int profdb__tree_intern(profdb_tree *t, profdb_str s, int field, uint32_t *id);
/* Room for @p n nodes at once, when max_memory allows (a builder that
 * knows its size spares the copies of growing). */
void profdb__tree_reserve(profdb_tree *t, size_t n);
/* The child of @p parent with the identity of @p proto (type, name, file,
 * module, line, off), created when missing (*created = 1). */
int profdb__tree_child(profdb_tree *t, uint32_t parent, const tproto *proto, uint32_t *id,
                       int *created);
/* A node prototype with no context and empty strings. */
tproto profdb__tree_proto(profdb_node_type type, uint32_t context);
/* The prototype of node @p id of @p t (to copy it into another tree). */
tproto profdb__tree_proto_of(const profdb_tree *t, uint32_t id);
/* Free what a tree holds, not the tree itself. */
void profdb__tree_release(profdb_tree *t);

/* The builders. */
int profdb__tree_build_ctx(tbuild *b);
int profdb__tree_build_cg(tbuild *b);

/* A metric's sort key of node @p id: inclusive, else exclusive (NaN when
 * the format has neither ... never: the plan refuses that). */
double profdb__tree_key(const tbuild *b, uint32_t id);


#endif
