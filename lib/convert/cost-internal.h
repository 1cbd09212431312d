/* What the Callgrind and pprof writers share: the events (metrics made
 * unsigned integer costs in a named unit), an interning table for name
 * compression and string tables, and the context tree with each
 * context's self cost (doc/CONVERT.md, "Callgrind" and "pprof"). */
#ifndef PROFDB_CONVERT_COST_INTERNAL_H
#define PROFDB_CONVERT_COST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/table-internal.h"
#include "convert-internal.h"
#include "stacks-internal.h"

/* ---- events (events.c) --------------------------------------------------- */

/* One output cost column: metric @c metric (the id asked for) read from
 * the stored values of @c src. */
typedef struct profdb__cv_event {
	uint32_t metric;
	uint32_t src;
	/* 1: @c src is the inclusive scope; a context's self cost is its value
	 * minus its children's (HPCToolkit layouts without a point scope, Cube
	 * inclusive metrics). 0: @c src is stored once per cost (point scope,
	 * Callgrind events, Cube exclusive metrics). */
	int diff;
	profdb_type type;    /* of @c src's values */
	int is_float;        /* scaled by @c factor and rounded (f64, or a
	                      * fractional scale) */
	double factor;       /* f64: multiplier to the integer unit */
	uint64_t ifactor;    /* integers: multiplier (hpcrun's period), >= 1 */
	int hidden;          /* Cube visits, read for call counts only */
	char name[64];       /* [A-Za-z_][A-Za-z0-9_]*, or a Callgrind input's own */
	char unit[48];       /* the integer unit: "nanoseconds", "count", ... */
	char long_name[192]; /* the metric and how it was scaled */
} profdb__cv_event;

/* The events of a conversion: opts->metrics, or by default every metric
 * that combines by sum and has values (doc/CONVERT.md), one per quantity;
 * plus, for Cube, a hidden "visits" event for the call counts. Refuses
 * (-ENOTSUP, naming the metric and @p fmt) what cannot be an unsigned
 * integer cost: a rule other than sum, no stored scope to read, negative
 * or non-finite values in the chosen profiles. *ret is malloc'ed. */
int profdb__cv_events(const profdb *db, const profdb_convert_options *opts, const char *fmt,
                      const uint32_t *profiles, size_t n_profiles,
                      profdb__cv_event **ret, size_t *n);

/* Appends _2, _3, ... to each name in ev[0 .. n) that an earlier one
 * already has (profdb__cv_events does; so does a writer that puts the
 * input's own names in). */
void profdb__cv_unique_names(profdb__cv_event *ev, size_t n);

/* The profiles of a conversion: profdb__cv_profiles() of stacks-internal.h
 * (the stack formats' writer has the same rule). */

/* ---- interning (names.c) -------------------------------------------------- */

/* Strings to dense ids from 1, in order of first appearance. Keys are
 * copied into an arena the table owns. */
typedef struct profdb__cv_names {
	profdb_str *str;
	size_t n, cap;
	profdb__tmap index;   /* tagged: a probe reads a string only on a tag match */
	char **blocks;
	size_t n_blocks, cap_blocks, left;
	char *next;
} profdb__cv_names;

int profdb__cv_names_init(profdb__cv_names *t);
void profdb__cv_names_free(profdb__cv_names *t);
/* The id of @p s (1..n); *fresh is 1 when it was added now. 0 or -ENOMEM. */
int profdb__cv_intern(profdb__cv_names *t, profdb_str s, uint32_t *id, int *fresh);
/* A hash of @p n bytes for the writers' tables, eight bytes a step (names
 * run to hundreds of bytes: Callgrind's "f'caller'caller..."). */
uint64_t profdb__cv_hash(const void *p, size_t n, uint64_t seed);

/* ---- the tree and its self costs (ctree.c) ----------------------------- */

typedef struct profdb__cv_node {
	uint32_t ctx;        /* context id; PROFDB_NONE for the node of orphans */
	uint32_t parent;     /* node index; PROFDB_NONE for a root */
	uint32_t frame;      /* node index of its frame (itself for a frame) */
	uint32_t depth;
	int is_frame;        /* a function, a root, or a called context */
	uint64_t line;       /* its source line (0: unknown), kept from the walk */
} profdb__cv_node;

/* The contexts in pre-order. A frame is a function context, a root or
 * the callee of a call (relation CALL or INLINED); every other context's
 * cost goes to its frame, at its own line. Values stored at contexts
 * without a tree node go to a last root, "<no tree node>". */
typedef struct profdb__cv_tree {
	const profdb *db;
	profdb__cv_node *node;
	size_t n;
	uint64_t *sorted;    /* context id << 32 | node index, ascending */
	size_t n_ev;
	const profdb__cv_event *ev;
	uint64_t *self;      /* n * n_ev: the self cost in the integer unit (while
	                      * filled: u64 or the bits of a double sum) */
	int with_incl;       /* set before filling: incl is wanted */
	uint64_t *incl;      /* n * n_ev: self + the subtree's (saturating); also
	                      * scratch for an inclusive scope (diff events) */
	uint64_t *total;     /* n_ev: the sum of every self cost */
	unsigned char *has;  /* n * n_ev: a value was stored there (diff events) */
	profdb_progress_fn progress;   /* per profile read; may be NULL */
	void *progress_userdata;
} profdb__cv_tree;

int profdb__cv_tree_build(profdb__cv_tree *t, const profdb *db, const profdb__cv_event *ev,
                          size_t n_ev, profdb_progress_fn progress, void *pu);
/* Fill self, incl and total from @p profiles (summed in ascending order). */
int profdb__cv_tree_fill(profdb__cv_tree *t, const uint32_t *profiles, size_t n_profiles);
void profdb__cv_tree_free(profdb__cv_tree *t);
/* A frame's function: name (a label when the context has none), file,
 * module; @p buf holds a made-up label (at least 64 bytes). */
void profdb__cv_frame_names(const profdb__cv_tree *t, uint32_t node, char *buf, size_t cap,
                            profdb_str *name, profdb_str *file, profdb_str *module,
                            uint64_t *line);
/* The same for context @p c (NULL: the node of contexts off the tree). */
void profdb__cv_context_names(const profdb_context *c, char *buf, size_t cap, profdb_str *name,
                              profdb_str *file, profdb_str *module, uint64_t *line);
/* The line of node @p i (0 when unknown). */
uint64_t profdb__cv_node_line(const profdb__cv_tree *t, uint32_t i);

/* ---- the bulk path of a call graph (graph-lines.c) ---------------------- */

/* A frame of the walk (the root, then each function in the tree's order;
 * frame @p index of @p count) and a line context of the last frame: its
 * context id, line, and self cost per event (n_ev integers, alive until
 * the call returns). A negative return stops the walk and is returned. */
typedef int (*profdb__cv_frame_fn)(void *ud, const profdb_context *frame, uint64_t index,
                                   uint64_t count);
typedef int (*profdb__cv_line_fn)(void *ud, uint32_t ctx, uint64_t line, const uint64_t *self);

/* The contexts of the tree that profdb__cv_tree_build() and
 * profdb__cv_tree_fill() would make, in the same pre-order and with the
 * same self costs (summed over @p profiles), for a format whose graph
 * table serves each function's lines in bulk (backend-internal.h): a
 * frame per function (whose own self cost is 0), then its lines (none
 * when @p line is NULL: the frames alone, a cheap pass). 1 when
 * walked, 0 when the path does not apply (no such table, or an event that
 * is not a stored integer self cost: use the tree), < 0. @p spare: the
 * threads the walk may start (ahead-internal.h). */
int profdb__cv_graph_walk(const profdb *db, const profdb__cv_event *ev, size_t n_ev,
                          const uint32_t *profiles, size_t n_profiles,
                          profdb__cv_frame_fn frame, profdb__cv_line_fn line, void *ud,
                          unsigned spare);

#endif /* PROFDB_CONVERT_COST_INTERNAL_H */
