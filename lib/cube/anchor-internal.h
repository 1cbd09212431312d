/* anchor.xml parsing state, shared by anchor.c (the element handlers) and
 * anchor-finish.c (placing the collected items by id once the document is
 * complete). */
#ifndef PROFDB_CUBE_ANCHOR_INTERNAL_H
#define PROFDB_CUBE_ANCHOR_INTERNAL_H

#include "cube-internal.h"
#include "../core/xml-internal.h"

#define ANCHOR "anchor.xml"

typedef enum el_kind {
	EL_OTHER, EL_CUBE, EL_METRIC, EL_REGION, EL_CNODE, EL_STN, EL_GROUP, EL_LOC,
	EL_CART, EL_TEXT
} el_kind;

/* One open element (the expat wrapper's frame). */
typedef struct frame {
	el_kind kind;
	uint32_t index;   /* doc-order index of the metric/region/cnode/... */
} frame;

/* What the text of the current leaf element goes to. */
typedef struct text_target {
	cube_str *str;
	int64_t *num;
	bool coord;       /* the values of the last <coord> */
} text_target;

/* Items in document order; caps are in elements (profdb__grow). */
typedef struct parser {
	profdb_cube *c;
	profdb__xml x;
	text_target target;
	cube_metric *metrics; uint32_t n_metrics; size_t cap_metrics;
	uint32_t *metric_parent; size_t cap_metric_parent; /* doc index or UINT32_MAX */
	cube_region *regions; uint32_t n_regions; size_t cap_regions;
	cube_cnode *cnodes; uint32_t n_cnodes; size_t cap_cnodes;
	uint32_t *cnode_parent; size_t cap_cnode_parent; /* doc index or UINT32_MAX */
	cube_location *locs; uint32_t n_locs; size_t cap_locs;
	cube_param *params; uint32_t n_params; size_t cap_params;
	cube_group *groups; uint32_t n_groups; size_t cap_groups;
	cube_stn *stns; uint32_t n_stns; size_t cap_stns;
	cube_attr *attrs; uint32_t n_attrs; size_t cap_attrs;
	cube_cart *carts; uint32_t n_carts; size_t cap_carts;
	cube_dim *dims; uint32_t n_dims; size_t cap_dims;
	cube_coord *coords; uint32_t n_coords; size_t cap_coords;
	int64_t *vals; uint32_t n_vals; size_t cap_vals;
	bool seen_cube;
} parser;

/* The attribute names a <coord> may use, and what each names. */
typedef struct coord_key {
	const char *name;
	profdb_cube_item kind;
	uint32_t stn_element;  /* for system-tree nodes: which element */
} coord_key;

extern const coord_key profdb__cube_coord_keys[7];

/* anchor-finish.c: ids, tree links, attributes and topologies. */
int profdb__cube_anchor_finish(parser *p);

#endif
