/* Cube4 .cubex reader: open, close and the structure getters. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cube-internal.h"

static void cube_free(profdb_cube *c)
{
	if (!c)
		return;
	profdb__cube_data_free(c);
	for (uint32_t i = 0; i < c->n_members; i++)
		free(c->members[i].name);
	free(c->members);
	free(c->strs);
	free(c->metrics);
	free(c->regions);
	free(c->cnodes);
	free(c->params);
	free(c->locs);
	free(c->groups);
	free(c->stns);
	free(c->attrs);
	free(c->carts);
	free(c->dims);
	free(c->coords);
	free(c->coord_vals);
	free(c->doc_order);
	free(c->inflated);
	profdb__input_close(&c->in);
	free(c->path);
	free(c);
}

static int finish_open(profdb_cube *c, profdb_cube **ret)
{
	int r;
	if ((r = profdb__cube_tar_load(c)) < 0 || (r = profdb__cube_anchor_parse(c)) < 0 ||
	    (r = profdb__cube_data_setup(c)) < 0) {
		cube_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

static profdb_cube *cube_new(const profdb_options *opts, const char *name)
{
	profdb_cube *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	profdb__options_copy(&c->opts, opts);
	c->path = strdup(name);
	if (!c->path) {
		free(c);
		return NULL;
	}
	atomic_init(&c->zcache_bytes, 0);
	return c;
}

PROFDB_EXPORT int profdb_cube_open(profdb_cube **ret, const char *path, const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cube_open: NULL output");
	*ret = NULL;
	if (!path)
		return profdb__fail(-EINVAL, "profdb_cube_open: NULL path");
	profdb_cube *c = cube_new(opts, path);
	if (!c)
		return profdb__fail(-ENOMEM, "%s: out of memory", path);
	int r = profdb__input_open(&c->in, path, c->path, c->opts.flags);
	if (r < 0) {
		cube_free(c);
		return r;
	}
	return finish_open(c, ret);
}

PROFDB_EXPORT int profdb_cube_open_mem(profdb_cube **ret, const void *data, size_t size,
                                       const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cube_open_mem: NULL output");
	*ret = NULL;
	if (!data && size)
		return profdb__fail(-EINVAL, "profdb_cube_open_mem: NULL data");
	profdb_cube *c = cube_new(opts, "(memory)");
	if (!c)
		return profdb__fail(-ENOMEM, "(memory): out of memory");
	profdb__input_mem(&c->in, data, size, c->path);
	return finish_open(c, ret);
}

PROFDB_EXPORT void profdb_cube_close(profdb_cube *c)
{
	cube_free(c);
}

PROFDB_EXPORT int profdb_cube_get_info(const profdb_cube *c, profdb_cube_info *out)
{
	if (!c || !out)
		return profdb__fail(-EINVAL, "profdb_cube_get_info: NULL argument");
	memset(out, 0, sizeof *out);
	out->anchor_version = profdb__cube_s(c, c->anchor_version);
	out->creator = profdb__cube_s(c, c->creator);
	out->n_metrics = c->n_metrics;
	out->n_regions = c->n_regions;
	out->n_cnodes = c->n_cnodes;
	out->n_locations = c->n_locs;
	out->n_location_groups = c->n_groups;
	out->n_system_nodes = c->n_stns;
	out->first_root = c->first_root;
	out->first_root_metric = c->first_root_metric;
	out->gzipped = c->gzipped;
	out->n_attrs = c->n_attrs;
	out->n_carts = c->n_carts;
	return 0;
}

static int count(const profdb_cube *c, uint32_t n)
{
	if (!c)
		return profdb__fail(-EINVAL, "profdb_cube: NULL handle");
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

PROFDB_EXPORT int profdb_cube_metric_count(const profdb_cube *c)
{
	return count(c, c ? c->n_metrics : 0);
}

PROFDB_EXPORT int profdb_cube_region_count(const profdb_cube *c)
{
	return count(c, c ? c->n_regions : 0);
}

PROFDB_EXPORT int profdb_cube_cnode_count(const profdb_cube *c)
{
	return count(c, c ? c->n_cnodes : 0);
}

PROFDB_EXPORT int profdb_cube_location_count(const profdb_cube *c)
{
	return count(c, c ? c->n_locs : 0);
}

static int get_check(const profdb_cube *c, const void *out, uint32_t id, uint32_t n,
                     const char *what)
{
	if (!c || !out)
		return profdb__fail(-EINVAL, "profdb_cube: NULL argument");
	if (id >= n)
		return profdb__fail(-ENOENT, "%s: no %s %" PRIu32 " (%" PRIu32 " of them)", c->path,
		                    what, id, n);
	return 0;
}

PROFDB_EXPORT int profdb_cube_metric_get(const profdb_cube *c, uint32_t id, profdb_cube_metric *out)
{
	int r = get_check(c, out, id, c ? c->n_metrics : 0, "metric");
	if (r < 0)
		return r;
	const cube_metric *m = &c->metrics[id];
	out->id = id;
	out->name = profdb__cube_s(c, m->name);
	out->display_name = profdb__cube_s(c, m->disp);
	out->unit = profdb__cube_s(c, m->unit);
	out->description = profdb__cube_s(c, m->descr);
	out->dtype_name = profdb__cube_s(c, m->dtype_text);
	out->dtype = m->dtype;
	out->dtype_arg = m->dtype_arg;
	out->value_size = m->vsize;
	out->kind = m->kind;
	out->has_data = m->has_data;
	out->ghost = m->ghost;
	out->parent = m->parent;
	out->first_child = m->first_child;
	out->next_sibling = m->next_sibling;
	out->url = profdb__cube_s(c, m->url);
	out->expression = profdb__cube_s(c, m->expr);
	out->init_expression = profdb__cube_s(c, m->expr_init);
	out->aggr_plus = profdb__cube_s(c, m->expr_plus);
	out->aggr_minus = profdb__cube_s(c, m->expr_minus);
	out->aggr_aggr = profdb__cube_s(c, m->expr_aggr);
	return 0;
}

PROFDB_EXPORT int profdb_cube_region_get(const profdb_cube *c, uint32_t id, profdb_cube_region *out)
{
	int r = get_check(c, out, id, c ? c->n_regions : 0, "region");
	if (r < 0)
		return r;
	const cube_region *g = &c->regions[id];
	out->id = id;
	out->name = profdb__cube_s(c, g->name);
	out->mangled_name = profdb__cube_s(c, g->mangled);
	out->module = profdb__cube_s(c, g->mod);
	out->paradigm = profdb__cube_s(c, g->paradigm);
	out->role = profdb__cube_s(c, g->role);
	out->begin_line = g->begin;
	out->end_line = g->end;
	out->url = profdb__cube_s(c, g->url);
	out->description = profdb__cube_s(c, g->descr);
	return 0;
}

PROFDB_EXPORT int profdb_cube_cnode_get(const profdb_cube *c, uint32_t id, profdb_cube_cnode *out)
{
	int r = get_check(c, out, id, c ? c->n_cnodes : 0, "cnode");
	if (r < 0)
		return r;
	const cube_cnode *n = &c->cnodes[id];
	out->id = id;
	out->region = n->region;
	out->region_name = profdb__cube_s(c, c->regions[n->region].name);
	out->parent = n->parent;
	out->first_child = n->first_child;
	out->next_sibling = n->next_sibling;
	out->line = n->line;
	out->module = profdb__cube_s(c, n->mod);
	out->n_params = n->n_params;
	return 0;
}

PROFDB_EXPORT int profdb_cube_cnode_param(const profdb_cube *c, uint32_t cnode, uint32_t i,
                                          const char **key, const char **value, int *numeric)
{
	int r = get_check(c, c, cnode, c ? c->n_cnodes : 0, "cnode");
	if (r < 0)
		return r;
	const cube_cnode *n = &c->cnodes[cnode];
	if (i >= n->n_params)
		return profdb__fail(-ENOENT, "%s: cnode %" PRIu32 " has %" PRIu32 " parameters",
		                    c->path, cnode, n->n_params);
	const cube_param *p = &c->params[n->first_param + i];
	if (key)
		*key = profdb__cube_s(c, p->key);
	if (value)
		*value = profdb__cube_s(c, p->value);
	if (numeric)
		*numeric = p->numeric;
	return 0;
}

PROFDB_EXPORT int profdb_cube_location_get(const profdb_cube *c, uint32_t id,
                                           profdb_cube_location *out)
{
	int r = get_check(c, out, id, c ? c->n_locs : 0, "location");
	if (r < 0)
		return r;
	const cube_location *l = &c->locs[id];
	const cube_group *g = &c->groups[l->group];
	out->id = id;
	out->name = profdb__cube_s(c, l->name);
	out->type = profdb__cube_s(c, l->type);
	out->rank = l->rank;
	out->process_rank = g->rank;
	out->group_name = profdb__cube_s(c, g->name);
	out->node_name = g->node < c->n_stns ? profdb__cube_s(c, c->stns[g->node].name) : "";
	out->group = l->group;
	return 0;
}

PROFDB_EXPORT int profdb_cube_location_group_get(const profdb_cube *c, uint32_t index,
                                                 profdb_cube_location_group *out)
{
	int r = get_check(c, out, index, c ? c->n_groups : 0, "location group");
	if (r < 0)
		return r;
	const cube_group *g = &c->groups[index];
	out->index = index;
	out->id = g->xml_id;
	out->name = profdb__cube_s(c, g->name);
	out->type = profdb__cube_s(c, g->type);
	out->rank = g->rank;
	out->node = g->node < c->n_stns ? g->node : PROFDB_NONE;
	return 0;
}

PROFDB_EXPORT int profdb_cube_system_node_get(const profdb_cube *c, uint32_t index,
                                              profdb_cube_system_node *out)
{
	int r = get_check(c, out, index, c ? c->n_stns : 0, "system-tree node");
	if (r < 0)
		return r;
	const cube_stn *s = &c->stns[index];
	out->index = index;
	out->id = s->xml_id;
	out->name = profdb__cube_s(c, s->name);
	out->klass = profdb__cube_s(c, s->klass);
	out->parent = s->parent < c->n_stns ? s->parent : PROFDB_NONE;
	return 0;
}

PROFDB_EXPORT int profdb_cube_attr_get(const profdb_cube *c, uint32_t i, profdb_cube_attr *out)
{
	int r = get_check(c, out, i, c ? c->n_attrs : 0, "attribute");
	if (r < 0)
		return r;
	const cube_attr *a = &c->attrs[i];
	out->owner = a->owner;
	out->owner_id = a->owner_id;
	out->key = profdb__cube_s(c, a->key);
	out->value = profdb__cube_s(c, a->value);
	return 0;
}

PROFDB_EXPORT int profdb_cube_cart_get(const profdb_cube *c, uint32_t index, profdb_cube_cart *out)
{
	int r = get_check(c, out, index, c ? c->n_carts : 0, "topology");
	if (r < 0)
		return r;
	const cube_cart *k = &c->carts[index];
	out->index = index;
	out->name = profdb__cube_s(c, k->name);
	out->ndims = k->ndims;
	out->n_coords = k->n_coords;
	return 0;
}

PROFDB_EXPORT int profdb_cube_cart_dim(const profdb_cube *c, uint32_t index, uint32_t dim,
                                       const char **name, int64_t *size, int *periodic)
{
	int r = get_check(c, c, index, c ? c->n_carts : 0, "topology");
	if (r < 0)
		return r;
	const cube_cart *k = &c->carts[index];
	if (dim >= k->ndims)
		return profdb__fail(-ENOENT, "%s: topology %" PRIu32 " has %" PRIu32 " dimensions",
		                    c->path, index, k->ndims);
	const cube_dim *d = &c->dims[k->first_dim + dim];
	if (name)
		*name = profdb__cube_s(c, d->name);
	if (size)
		*size = d->size;
	if (periodic)
		*periodic = d->periodic;
	return 0;
}

PROFDB_EXPORT int profdb_cube_cart_coord(const profdb_cube *c, uint32_t index, uint32_t i,
                                         profdb_cube_coord *out)
{
	int r = get_check(c, out, index, c ? c->n_carts : 0, "topology");
	if (r < 0)
		return r;
	const cube_cart *k = &c->carts[index];
	if (i >= k->n_coords)
		return profdb__fail(-ENOENT, "%s: topology %" PRIu32 " has %" PRIu32 " coordinates",
		                    c->path, index, k->n_coords);
	const cube_coord *o = &c->coords[k->first_coord + i];
	out->kind = o->kind;
	out->item = o->item;
	out->values = c->coord_vals + o->first_val;
	return 0;
}
