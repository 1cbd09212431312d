/* anchor.xml, second half: the items collected in document order are
 * placed by id (ids must be exactly 0 .. n-1), the metric and call trees
 * are linked, attribute owners become ids and topology coordinates are
 * resolved. */
#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "anchor-internal.h"

/* Place collected items by id: ids must be exactly 0 .. n-1. */
static int by_id(profdb_cube *c, const char *what, uint32_t n, const void *src, size_t elem,
                 size_t id_off, void **dst)
{
	unsigned char *d = calloc(n ? n : 1, elem);
	unsigned char *seen = calloc(n ? n : 1, 1);
	if (!d || !seen) {
		free(d);
		free(seen);
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		memcpy(&id, (const unsigned char *)src + (size_t)i * elem + id_off, sizeof id);
		if (id >= n || seen[id]) {
			free(d);
			free(seen);
			return profdb__fail(-EBADMSG, "%s: member " ANCHOR ": %s id %" PRIu32
			                    " %s (the %" PRIu32 " ids must be 0..%" PRIu32 ")",
			                    c->path, what, id, id >= n ? "out of range" : "repeated", n,
			                    n ? n - 1 : 0);
		}
		seen[id] = 1;
		memcpy(d + (size_t)id * elem, (const unsigned char *)src + (size_t)i * elem, elem);
	}
	free(seen);
	*dst = d;
	return 0;
}

typedef struct id_index {
	uint32_t key, index;
} id_index;

static int id_index_cmp(const void *a, const void *b)
{
	const id_index *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The index of the entry with @p key in a table sorted by key, or
 * PROFDB_NONE: a view over the host-order records, searched by
 * profdb_view_find. */
static uint32_t id_lookup(const id_index *t, uint32_t n, uint32_t key)
{
	profdb_view v = {0};
	v.base = n ? (const unsigned char *)t : NULL;
	v.count = n;
	v.stride = sizeof *t;
	v.key_offset = offsetof(id_index, key);
	v.key_type = PROFDB_FIELD_U32;
	v.value_offset = offsetof(id_index, index);
	v.value_type = PROFDB_FIELD_U32;
	v.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	uint64_t i;
	return profdb_view_find(&v, key, &i) == 1 ? t[i].index : PROFDB_NONE;
}

/* Attributes (owners to ids) and topologies (coordinates resolved to
 * location ids or group / node indexes; the Id attributes of groups and
 * nodes need not be dense, so they are looked up in sorted tables). */
static int finish_extras(parser *p)
{
	profdb_cube *c = p->c;
	for (uint32_t i = 0; i < p->n_attrs; i++) {
		cube_attr *a = &p->attrs[i];
		switch (a->owner) {
		case PROFDB_CUBE_ITEM_METRIC: a->owner_id = p->metrics[a->owner_id].id; break;
		case PROFDB_CUBE_ITEM_REGION: a->owner_id = p->regions[a->owner_id].id; break;
		case PROFDB_CUBE_ITEM_CNODE: a->owner_id = p->cnodes[a->owner_id].id; break;
		case PROFDB_CUBE_ITEM_LOCATION: a->owner_id = p->locs[a->owner_id].id; break;
		default: break;
		}
	}
	c->attrs = p->attrs;
	c->n_attrs = p->n_attrs;
	p->attrs = NULL;
	for (uint32_t k = 0; k < p->n_carts; k++) {
		uint32_t next = k + 1 < p->n_carts ? p->carts[k + 1].first_dim : p->n_dims;
		if (next - p->carts[k].first_dim != p->carts[k].ndims)
			return profdb__fail(-EBADMSG, "%s: member " ANCHOR ": topology %" PRIu32
			                    " declares %" PRIu32 " dimensions and has %" PRIu32
			                    " <dim> elements", c->path, k, p->carts[k].ndims,
			                    next - p->carts[k].first_dim);
	}
	size_t nt = (size_t)c->n_groups + c->n_stns + 1;
	id_index *t = malloc(nt * sizeof *t);
	if (!t)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	/* groups first, then nodes sorted by (element, Id) as one key space each */
	id_index *groups = t, *stns[3];
	uint32_t n_el[3] = {0, 0, 0};
	for (uint32_t i = 0; i < c->n_groups; i++)
		groups[i] = (id_index){c->groups[i].xml_id, i};
	qsort(groups, c->n_groups, sizeof *t, id_index_cmp);
	id_index *q = t + c->n_groups;
	for (uint32_t e = 0; e < 3; e++) {
		stns[e] = q;
		for (uint32_t i = 0; i < c->n_stns; i++)
			if (c->stns[i].element == e)
				q[n_el[e]++] = (id_index){c->stns[i].xml_id, i};
		qsort(q, n_el[e], sizeof *t, id_index_cmp);
		q += n_el[e];
	}
	int r = 0;
	for (uint32_t i = 0; i < p->n_coords && r == 0; i++) {
		cube_coord *o = &p->coords[i];
		uint32_t e = profdb__cube_coord_keys[o->elem].stn_element;
		switch (o->kind) {
		case PROFDB_CUBE_ITEM_LOCATION:
			o->item = o->xml_id < c->n_locs ? o->xml_id : PROFDB_NONE;
			break;
		case PROFDB_CUBE_ITEM_LOCATION_GROUP:
			o->item = id_lookup(groups, c->n_groups, o->xml_id);
			break;
		default:
			o->item = id_lookup(stns[e], n_el[e], o->xml_id);
			break;
		}
		if (o->item == PROFDB_NONE)
			r = profdb__fail(-EBADMSG, "%s: member " ANCHOR ": topology coordinate %" PRIu32
			                 " names %s=\"%" PRIu32 "\", which does not exist", c->path, i,
			                 profdb__cube_coord_keys[o->elem].name, o->xml_id);
	}
	free(t);
	if (r < 0)
		return r;
	c->carts = p->carts;
	c->n_carts = p->n_carts;
	p->carts = NULL;
	c->dims = p->dims;
	c->n_dims = p->n_dims;
	p->dims = NULL;
	c->coords = p->coords;
	c->n_coords = p->n_coords;
	p->coords = NULL;
	c->coord_vals = p->vals;
	c->n_coord_vals = p->n_vals;
	p->vals = NULL;
	return 0;
}

int profdb__cube_anchor_finish(parser *p)
{
	profdb_cube *c = p->c;
	int r;
	void *v = NULL;

	/* metrics: ids, tree links */
	if ((r = by_id(c, "metric", p->n_metrics, p->metrics, sizeof *p->metrics,
	               offsetof(cube_metric, id), &v)) < 0)
		return r;
	c->metrics = v;
	c->n_metrics = p->n_metrics;
	c->first_root_metric = PROFDB_NONE;
	for (uint32_t i = 0; i < c->n_metrics; i++)
		c->metrics[i].parent = c->metrics[i].first_child = c->metrics[i].next_sibling =
			PROFDB_NONE;
	uint32_t last_root = PROFDB_NONE;
	uint32_t *last_child = malloc(((size_t)p->n_metrics + 1) * sizeof *last_child);
	if (!last_child)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	for (uint32_t i = 0; i < p->n_metrics; i++)
		last_child[p->metrics[i].id] = PROFDB_NONE;
	for (uint32_t i = 0; i < p->n_metrics; i++) {
		uint32_t id = p->metrics[i].id;
		uint32_t pi = p->metric_parent[i];
		if (pi == UINT32_MAX) {
			if (last_root == PROFDB_NONE)
				c->first_root_metric = id;
			else
				c->metrics[last_root].next_sibling = id;
			last_root = id;
		} else {
			uint32_t pid = p->metrics[pi].id;
			c->metrics[id].parent = pid;
			if (last_child[pid] == PROFDB_NONE)
				c->metrics[pid].first_child = id;
			else
				c->metrics[last_child[pid]].next_sibling = id;
			last_child[pid] = id;
		}
	}
	free(last_child);

	if ((r = by_id(c, "region", p->n_regions, p->regions, sizeof *p->regions,
	               offsetof(cube_region, id), &v)) < 0)
		return r;
	c->regions = v;
	c->n_regions = p->n_regions;

	/* cnodes */
	if ((r = by_id(c, "cnode", p->n_cnodes, p->cnodes, sizeof *p->cnodes,
	               offsetof(cube_cnode, id), &v)) < 0)
		return r;
	c->cnodes = v;
	c->n_cnodes = p->n_cnodes;
	c->doc_order = malloc(((size_t)p->n_cnodes + 1) * sizeof *c->doc_order);
	if (!c->doc_order)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	c->first_root = PROFDB_NONE;
	for (uint32_t i = 0; i < c->n_cnodes; i++) {
		cube_cnode *n = &c->cnodes[i];
		n->parent = n->first_child = n->next_sibling = n->last_child = PROFDB_NONE;
		if (n->region >= c->n_regions)
			return profdb__fail(-EBADMSG, "%s: member " ANCHOR ": cnode %" PRIu32
			                    " calls region %" PRIu32 ", but there are %" PRIu32
			                    " regions", c->path, n->id, n->region, c->n_regions);
	}
	last_root = PROFDB_NONE;
	for (uint32_t i = 0; i < p->n_cnodes; i++) {
		uint32_t id = p->cnodes[i].id;
		c->doc_order[i] = id;
		uint32_t pi = p->cnode_parent[i];
		if (pi == UINT32_MAX) {
			if (last_root == PROFDB_NONE)
				c->first_root = id;
			else
				c->cnodes[last_root].next_sibling = id;
			last_root = id;
		} else {
			uint32_t pid = p->cnodes[pi].id;
			cube_cnode *par = &c->cnodes[pid];
			c->cnodes[id].parent = pid;
			if (par->last_child == PROFDB_NONE)
				par->first_child = id;
			else
				c->cnodes[par->last_child].next_sibling = id;
			par->last_child = id;
		}
	}
	c->params = p->params;
	c->n_params = p->n_params;
	p->params = NULL;

	/* system tree */
	if ((r = by_id(c, "location", p->n_locs, p->locs, sizeof *p->locs,
	               offsetof(cube_location, id), &v)) < 0)
		return r;
	c->locs = v;
	c->n_locs = p->n_locs;
	c->groups = p->groups;
	c->n_groups = p->n_groups;
	p->groups = NULL;
	c->stns = p->stns;
	c->n_stns = p->n_stns;
	p->stns = NULL;
	return finish_extras(p);
}

