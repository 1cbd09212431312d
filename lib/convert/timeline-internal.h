/* The SVG timeline (doc/CONVERT.md, "SVG timeline"): timeline.c finds
 * the function of every pixel column of every trace line, timeline-page.c
 * writes the page around the rows. */
#ifndef PROFDB_CONVERT_TIMELINE_INTERNAL_H
#define PROFDB_CONVERT_TIMELINE_INTERNAL_H

#include "svg-internal.h"

/* A function as the picture knows it: every frame with its label. */
typedef struct tl_fn {
	uint32_t frame;               /* the first frame met with this label */
	uint64_t pixels;              /* pixel columns drawn with it, in all rows */
	size_t tail_off, tail_len;    /* its rects' end in tails: fill="..." data-fn="..."/> */
} tl_fn;

typedef struct timeline {
	const profdb *db;
	const profdb_convert_options *opts;
	profdb__cv_frames frames;
	profdb__cv_paths paths;
	uint32_t *frame_fn;           /* frame -> function + 1; 0: not yet known */
	size_t frame_fn_cap;
	uint32_t *node_fn;            /* path node -> the function at the depth + 1 */
	size_t node_fn_cap;
	tl_fn *fn;
	size_t n_fn, fn_cap;
	uint32_t *fn_slots;           /* open addressing by label: function + 1 */
	size_t n_fn_slots;
	uint32_t *rows;               /* the selected profiles, in their order */
	size_t n_rows, empty;         /* rows, and those without samples */
	uint64_t start;               /* the trace's start, epoch ns */
	uint64_t from, to;            /* the window, ns since the start */
	uint32_t columns;
	int row_h;                    /* pixels per row */
	profdb__cv_buf tails;         /* what every rect of a function ends with */
} timeline;

/* Layout shared by the two files. */
enum { TL_MARGIN = 10, TL_LABEL_W = 230, TL_TOP = 108, TL_LEGEND_MAX = 24, TL_LEGEND_H = 18,
       TL_LEGEND_W = 300 };

static inline int tl_x0(void) { return TL_MARGIN + TL_LABEL_W; }
static inline int tl_total_width(const timeline *t) { return tl_x0() + (int)t->columns + 3 * TL_MARGIN; }

static inline profdb_str tl_fn_name(const timeline *t, uint32_t fn)
{
	return profdb__cv_frame_label(&t->frames, t->fn[fn].frame);
}

/* The colour of function @p fn ("#rrggbb"), the same for the same name in
 * every picture. */
void profdb__tl_colour(const timeline *t, uint32_t fn, char out[8]);

/* The page before the rows: the header, the style, the titles and the
 * time axis. */
int profdb__tl_head(profdb__cv_out *o, const timeline *t);
/* The page after the rows: the legend and the script. */
int profdb__tl_tail(profdb__cv_out *o, const timeline *t);

#endif /* PROFDB_CONVERT_TIMELINE_INTERNAL_H */
