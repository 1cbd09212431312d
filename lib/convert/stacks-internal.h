/* What the stack formats (folded, speedscope, Chrome trace) share: the
 * metric they weigh by, the frame table, the stacks of the top-down view
 * with their weights, and the call paths of trace samples. doc/CONVERT.md
 * ("Common rules") says what a frame is and how it is named. */
#ifndef PROFDB_CONVERT_STACKS_INTERNAL_H
#define PROFDB_CONVERT_STACKS_INTERNAL_H

#include "../core/table-internal.h"
#include "convert-internal.h"

/* A growable byte buffer. */
typedef struct profdb__cv_buf {
	char *p;
	size_t len, cap;
} profdb__cv_buf;

int profdb__cv_buf_put(profdb__cv_buf *b, const void *data, size_t len);
void profdb__cv_buf_free(profdb__cv_buf *b);

/* Appends identity entry (@p kind, @p v) as `profdb profiles` prints it:
 * "rank=3" (the value in decimal). */
int profdb__cv_identity_word(profdb__cv_buf *b, profdb_str kind, uint64_t v);
/* Appends the name of @p profile for a viewer's list of profiles: its
 * name, then its identity as `profdb profiles` prints it, "Master thread
 * (rank=3 thread=0 location=3)", so that profiles with one name differ.
 * 0 or < 0. */
int profdb__cv_profile_name(profdb__cv_buf *b, const profdb *db, uint32_t profile);

/* Appends the label of frame context @p c: its function name, else
 * "<unknown function> module+0x1a2b", "file:line", "<program root>", ...
 * (doc/CONVERT.md, "Frames"); every writer names frames this way. */
int profdb__cv_label(profdb__cv_buf *b, const profdb_context *c);

/* The metric a stack format weighs by: the options' one metric, else the
 * default (doc/CONVERT.md); refused unless it adds up (SUM). */
typedef struct profdb__cv_metric {
	profdb_metric m;
	double scale;               /* m.scale, 1 when unset */
	int integral;               /* integer values (and an integral scale) */
} profdb__cv_metric;

int profdb__cv_metric_pick(const profdb *db, const profdb_convert_options *opts, const char *fmt,
                           profdb__cv_metric *out);

/* The metric's unit as speedscope names units ("seconds", "bytes", ...):
 * its unit field, else the first unit in parentheses in its name
 * ("CPUTIME (sec)"); "none" otherwise. */
const char *profdb__cv_unit(const profdb_metric *m);

/* The selected profiles: the options' list, else every non-summary
 * profile. *out is malloc'd (free it). */
int profdb__cv_profiles(const profdb *db, const profdb_convert_options *opts, uint32_t **out,
                        size_t *n);

/* The frames met so far, each once per (label, file, line). */
typedef struct profdb__cv_frame {
	size_t label_off, label_len;  /* in the table's labels */
	profdb_str file;
	uint64_t line;
	profdb_str module;            /* of the first context met (not part of the identity) */
} profdb__cv_frame;

typedef struct profdb__cv_frames {
	profdb__cv_frame *f;
	size_t n, cap;
	uint32_t *slots;              /* open addressing: frame index + 1, 0 empty */
	size_t n_slots;
	profdb__cv_buf labels;
	profdb__cv_buf tmp;
} profdb__cv_frames;

void profdb__cv_frames_free(profdb__cv_frames *t);
/* The index of the frame context @p c stands for, added when new. */
int profdb__cv_frame_intern(profdb__cv_frames *t, const profdb_context *c, uint32_t *index);
static inline profdb_str profdb__cv_frame_label(const profdb__cv_frames *t, uint32_t i)
{
	profdb_str s = {t->labels.p + t->f[i].label_off, t->f[i].label_len};
	return s;
}

/* Is context @p c a frame (a function activation)? FUNCTION contexts, the
 * entry points (ROOT), and any other context entered by a call or at the
 * top (hpcrun's call sites). */
int profdb__cv_is_frame(const profdb_context *c);

/* The contexts in pre-order from the first root (ctx-walk.c): @p visit
 * hears each with the visit number of its parent (from 0 in visit order;
 * PROFDB_NONE at the top); a negative return stops the walk with it. A
 * context met twice (a damaged tree's cycle) is -EBADMSG; no root is an
 * empty walk. */
typedef int (*profdb__cv_visit_fn)(void *ud, const profdb_context *c, uint32_t parent);
int profdb__cv_preorder(const profdb *db, profdb__cv_visit_fn visit, void *ud);

/* A weight as written: an integer for integral metrics, else a double. */
typedef struct profdb__cv_weight {
	int integral;
	uint64_t u;
	double d;
} profdb__cv_weight;

void profdb__cv_put_weight(profdb__cv_out *o, profdb__cv_weight w);

/* The stacks of the top-down view of one metric over @p profiles (the
 * tree's default when NULL), in post-order: each frame's weight is its
 * inclusive value less its child frames' (what the cut-off folded stays
 * with the parent). @c push enters a frame, @c pop leaves it, @c emit gives
 * the weight of the path entered (never 0). */
typedef struct profdb__cv_stack_sink {
	int (*push)(void *ud, uint32_t frame);
	void (*pop)(void *ud);
	int (*emit)(void *ud, profdb__cv_weight w);
	void *ud;
	/* When set, its progress hook hears of the nodes done. */
	const profdb_convert_options *progress;
	/* Optional: hears, before @c pop, the inclusive value of the frame
	 * left and its own part (the weight before rounding, never < 0). */
	int (*leave)(void *ud, double inc, double self);
} profdb__cv_stack_sink;

/* @p total receives the view's total (node 0's inclusive value, scaled). */
int profdb__cv_stacks(const profdb *db, const profdb__cv_metric *m, const uint32_t *profiles,
                      size_t n_profiles, profdb__cv_frames *frames,
                      const profdb__cv_stack_sink *sink, profdb__cv_weight *total);

/* A top-down view as the walk reads it: nodes by id, in any numbering;
 * the walk numbers them in pre-order as profdb_tree_new() does. */
typedef struct profdb__cv_snode {
	uint32_t first_child;         /* PROFDB_NONE: a leaf */
	double inc;                   /* inclusive value, unscaled */
	uint32_t frame;               /* in the frame table; PROFDB_NONE: not a frame */
	int other;                    /* what a cut-off folded (its cost stays above) */
} profdb__cv_snode;

typedef struct profdb__cv_source {
	/* Node @p node, its frame interned into @p frames. */
	int (*enter)(void *ud, uint32_t node, profdb__cv_frames *frames, profdb__cv_snode *out);
	int (*next)(void *ud, uint32_t node, uint32_t *sibling);
	void *ud;
	uint32_t root;
	int64_t count;                /* nodes */
} profdb__cv_source;

/* The stacks of @p src, as profdb__cv_stacks(). */
int profdb__cv_walk(const profdb__cv_source *src, const profdb__cv_metric *m,
                    profdb__cv_frames *frames, const profdb__cv_stack_sink *sink,
                    profdb__cv_weight *total);

/* The top-down views of single profiles of an HPCToolkit 4.0 database,
 * one context walk for all of them: each profile then costs one pass over
 * its stored values (profdb_profile_view) and a sort of each node's
 * children, not a profdb_tree_new(). The stacks are those of
 * profdb__cv_stacks(db, m, &profile, 1, ...), byte for byte. */
typedef struct profdb__cv_ctree profdb__cv_ctree;

/* -ENOTSUP (no message) when the database is not one this covers: the
 * caller falls back to profdb__cv_stacks(). */
int profdb__cv_ctree_new(profdb__cv_ctree **out, const profdb *db, const profdb__cv_metric *m);
int profdb__cv_ctree_stacks(profdb__cv_ctree *t, uint32_t profile, profdb__cv_frames *frames,
                            const profdb__cv_stack_sink *sink, profdb__cv_weight *total);
void profdb__cv_ctree_free(profdb__cv_ctree *t);

/* The call paths of trace samples: each context maps to the path node of
 * its nearest frame; a path node knows its parent, depth and frame. */
typedef struct profdb__cv_pnode {
	uint32_t parent;              /* path node index, PROFDB_NONE at the top */
	uint32_t depth;               /* 1 at the top */
	uint32_t frame;               /* in the frame table */
} profdb__cv_pnode;

typedef struct profdb__cv_paths {
	const profdb *db;
	profdb__cv_frames *frames;
	profdb__cv_pnode *p;
	size_t n, cap;
	uint64_t *slots;              /* context id << 32 | (path node + 1); 0 empty */
	size_t n_slots, used;
	profdb_context *chain;        /* scratch: contexts walked up */
	size_t chain_cap;
} profdb__cv_paths;

void profdb__cv_paths_free(profdb__cv_paths *x);
/* The path node of context @p ctx: *out = PROFDB_NONE when the sample runs
 * nothing (HPCToolkit's context 0). */
int profdb__cv_path_of(profdb__cv_paths *x, uint32_t ctx, uint32_t *out);

/* Walks a trace line from path to path: for each sample, the frames left
 * (innermost first) and entered (outermost first) since the previous one. */
typedef struct profdb__cv_trace_sink {
	int (*open)(void *ud, uint32_t frame, uint64_t t);
	int (*close)(void *ud, uint32_t frame, uint64_t t);
	void *ud;
} profdb__cv_trace_sink;

/* The trace lines of the selected profiles: the first time of all and the
 * samples in total. -ENOTSUP with a message when no selected profile has
 * a trace and @p need is set. */
int profdb__cv_trace_span(const profdb *db, const uint32_t *profiles, size_t n, int need,
                          uint64_t *t0, uint64_t *samples, size_t *lines);

/* Replays the trace of @p profile through @p sink; every frame opened is
 * closed at the last sample's time. @p done counts samples for progress. */
int profdb__cv_trace_walk(profdb__cv_paths *x, uint32_t profile, const profdb__cv_trace_sink *sink,
                          const profdb_convert_options *opts, uint64_t *done, uint64_t total);

#endif /* PROFDB_CONVERT_STACKS_INTERNAL_H */
