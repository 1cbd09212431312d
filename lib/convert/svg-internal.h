/* The SVG flame graph (doc/CONVERT.md): svg.c builds the tree of frames
 * and lays it out, svg-page.c writes the page. */
#ifndef PROFDB_CONVERT_SVG_INTERNAL_H
#define PROFDB_CONVERT_SVG_INTERNAL_H

#include "stacks-internal.h"

/* One distinct call path. Values are the metric's, scaled. */
typedef struct svg_node {
	uint32_t parent, first, last, next;   /* PROFDB_NONE: none */
	uint32_t frame;                       /* PROFDB_NONE: the root */
	uint32_t depth;                       /* 0: the root */
	double v;                             /* inclusive value */
	double self;                          /* its own part (the stacks' weights, unrounded) */
	double rest;                          /* self plus the children not drawn */
	double sub;                           /* the children's spans */
	double span;                          /* what it is drawn as: max(v, sub) */
	double x, next_x;                     /* its offset, and its next child's */
	int drawn;
} svg_node;

typedef struct svg_tree {
	svg_node *nd;                         /* [0]: the root; children after parents */
	size_t n, cap;
	uint32_t *slots;                      /* (parent, frame) -> node; 0: empty */
	size_t n_slots;
	uint32_t *path;                       /* the nodes entered, while walking */
	size_t depth, path_cap;
	profdb__cv_frames frames;
	double scale;                         /* pixels per unit of value */
	uint32_t max_depth;                   /* of the frames drawn */
	size_t drawn;
} svg_tree;

void profdb__svg_tree_free(svg_tree *t);

/* printf into the page (each call writes less than 512 bytes). */
void profdb__svg_putf(profdb__cv_out *o, const char *fmt, ...) PROFDB__PRINTF(2, 3);
/* @p s as XML character data or attribute text: & < > " escaped, invalid
 * UTF-8 and the non-characters XML forbids (U+FFFE, U+FFFF) as U+FFFD, at
 * most @p max characters (the last of them ".." when cut). */
void profdb__svg_xml(profdb__cv_out *o, profdb_str s, size_t max);

/* Writes the laid-out tree @p t as the page, @p width pixels of frames. */
int profdb__svg_write(const profdb *db, const profdb_convert_options *opts,
                      const profdb__cv_metric *m, const svg_tree *t, double width,
                      profdb__cv_out *o);

#endif /* PROFDB_CONVERT_SVG_INTERNAL_H */
