/* Cube4 .cubex reader: open, close and the structure getters. */
#include <inttypes.h>
#include <stddef.h>
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
	int opts_ok = profdb__options_check(opts, "profdb_cube_open");
	if (opts_ok < 0)
		return opts_ok;
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
	int opts_ok = profdb__options_check(opts, "profdb_cube_open_mem");
	if (opts_ok < 0)
		return opts_ok;
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
	if (!out)
		return profdb__fail(-EINVAL, "profdb_cube_get_info: NULL output");
	memset(out, 0, sizeof *out);
	out->anchor_version = out->creator = (profdb_str){"", 0};
	if (!c)
		return profdb__fail(-EINVAL, "profdb_cube_get_info: NULL handle");
	out->anchor_version = profdb__cube_str(c, c->anchor_version);
	out->creator = profdb__cube_str(c, c->creator);
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

static int64_t count(const profdb_cube *c, uint32_t n, const char *what)
{
	if (!c)
		return profdb__fail(-EINVAL, "profdb_cube_%s_count: NULL handle", what);
	return n;
}

PROFDB_EXPORT int64_t profdb_cube_metric_count(const profdb_cube *c)
{
	return count(c, c ? c->n_metrics : 0, "metric");
}

PROFDB_EXPORT int64_t profdb_cube_region_count(const profdb_cube *c)
{
	return count(c, c ? c->n_regions : 0, "region");
}

PROFDB_EXPORT int64_t profdb_cube_cnode_count(const profdb_cube *c)
{
	return count(c, c ? c->n_cnodes : 0, "cnode");
}

PROFDB_EXPORT int64_t profdb_cube_location_count(const profdb_cube *c)
{
	return count(c, c ? c->n_locs : 0, "location");
}

PROFDB_EXPORT int64_t profdb_cube_location_group_count(const profdb_cube *c)
{
	return count(c, c ? c->n_groups : 0, "location_group");
}

PROFDB_EXPORT int64_t profdb_cube_system_node_count(const profdb_cube *c)
{
	return count(c, c ? c->n_stns : 0, "system_node");
}

PROFDB_EXPORT int64_t profdb_cube_attr_count(const profdb_cube *c)
{
	return count(c, c ? c->n_attrs : 0, "attr");
}

PROFDB_EXPORT int64_t profdb_cube_cart_count(const profdb_cube *c)
{
	return count(c, c ? c->n_carts : 0, "cart");
}

/* Clear @p out (@p size bytes; profdb_str fields at the offsets in @p strs
 * become {"", 0}), then check the handle and @p id < n. */
static int get_check(const profdb_cube *c, void *out, size_t size, const size_t *strs,
                     size_t n_strs, uint32_t id, uint32_t n, const char *what)
{
	if (!out)
		return profdb__fail(-EINVAL, "profdb_cube: NULL output (%s)", what);
	memset(out, 0, size);
	for (size_t i = 0; i < n_strs; i++)
		*(profdb_str *)((unsigned char *)out + strs[i]) = (profdb_str){"", 0};
	if (!c)
		return profdb__fail(-EINVAL, "profdb_cube: NULL handle (%s)", what);
	if (id >= n)
		return profdb__fail(-ENOENT, "%s: no %s %" PRIu32 " (%" PRIu32 " of them)", c->path,
		                    what, id, n);
	return 0;
}

#define NSTR(a) (sizeof(a) / sizeof(a)[0])
#define S(c, x) profdb__cube_str(c, x)

PROFDB_EXPORT int profdb_cube_metric_get(const profdb_cube *c, uint32_t id, profdb_cube_metric *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_metric, name), offsetof(profdb_cube_metric, display_name),
		offsetof(profdb_cube_metric, unit), offsetof(profdb_cube_metric, description),
		offsetof(profdb_cube_metric, dtype_name), offsetof(profdb_cube_metric, url),
		offsetof(profdb_cube_metric, expression),
		offsetof(profdb_cube_metric, init_expression),
		offsetof(profdb_cube_metric, aggr_plus), offsetof(profdb_cube_metric, aggr_minus),
		offsetof(profdb_cube_metric, aggr_aggr),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), id, c ? c->n_metrics : 0,
	                  "metric");
	if (r < 0)
		return r;
	const cube_metric *m = &c->metrics[id];
	out->id = id;
	out->name = S(c, m->name);
	out->display_name = S(c, m->disp);
	out->unit = S(c, m->unit);
	out->description = S(c, m->descr);
	out->dtype_name = S(c, m->dtype_text);
	out->dtype = m->dtype;
	out->dtype_arg = m->dtype_arg;
	out->value_size = m->vsize;
	out->kind = m->kind;
	out->has_data = m->has_data;
	out->ghost = m->ghost;
	out->parent = m->parent;
	out->first_child = m->first_child;
	out->next_sibling = m->next_sibling;
	out->url = S(c, m->url);
	out->expression = S(c, m->expr);
	out->init_expression = S(c, m->expr_init);
	out->aggr_plus = S(c, m->expr_plus);
	out->aggr_minus = S(c, m->expr_minus);
	out->aggr_aggr = S(c, m->expr_aggr);
	return 0;
}

PROFDB_EXPORT int profdb_cube_region_get(const profdb_cube *c, uint32_t id, profdb_cube_region *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_region, name), offsetof(profdb_cube_region, mangled_name),
		offsetof(profdb_cube_region, module), offsetof(profdb_cube_region, paradigm),
		offsetof(profdb_cube_region, role), offsetof(profdb_cube_region, url),
		offsetof(profdb_cube_region, description),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), id, c ? c->n_regions : 0,
	                  "region");
	if (r < 0)
		return r;
	const cube_region *g = &c->regions[id];
	out->id = id;
	out->name = S(c, g->name);
	out->mangled_name = S(c, g->mangled);
	out->module = S(c, g->mod);
	out->paradigm = S(c, g->paradigm);
	out->role = S(c, g->role);
	out->begin_line = g->begin;
	out->end_line = g->end;
	out->url = S(c, g->url);
	out->description = S(c, g->descr);
	return 0;
}

PROFDB_EXPORT int profdb_cube_cnode_get(const profdb_cube *c, uint32_t id, profdb_cube_cnode *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_cnode, region_name), offsetof(profdb_cube_cnode, module),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), id, c ? c->n_cnodes : 0,
	                  "cnode");
	if (r < 0)
		return r;
	const cube_cnode *n = &c->cnodes[id];
	out->id = id;
	out->region = n->region;
	out->region_name = S(c, c->regions[n->region].name);
	out->parent = n->parent;
	out->first_child = n->first_child;
	out->next_sibling = n->next_sibling;
	out->line = n->line;
	out->module = S(c, n->mod);
	out->n_params = n->n_params;
	return 0;
}

PROFDB_EXPORT int profdb_cube_cnode_param_at(const profdb_cube *c, uint32_t cnode,
                                             uint32_t index, profdb_cube_param *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_param, key), offsetof(profdb_cube_param, value),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), cnode, c ? c->n_cnodes : 0,
	                  "cnode");
	if (r < 0)
		return r;
	const cube_cnode *n = &c->cnodes[cnode];
	if (index >= n->n_params)
		return profdb__fail(-ENOENT, "%s: cnode %" PRIu32 " has %" PRIu32 " parameters",
		                    c->path, cnode, n->n_params);
	const cube_param *p = &c->params[n->first_param + index];
	out->key = S(c, p->key);
	out->value = S(c, p->value);
	out->numeric = p->numeric;
	return 0;
}

PROFDB_EXPORT int profdb_cube_location_get(const profdb_cube *c, uint32_t id,
                                           profdb_cube_location *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_location, name), offsetof(profdb_cube_location, type),
		offsetof(profdb_cube_location, group_name), offsetof(profdb_cube_location, node_name),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), id, c ? c->n_locs : 0,
	                  "location");
	if (r < 0)
		return r;
	const cube_location *l = &c->locs[id];
	const cube_group *g = &c->groups[l->group];
	out->id = id;
	out->name = S(c, l->name);
	out->type = S(c, l->type);
	out->rank = l->rank;
	out->process_rank = g->rank;
	out->group_name = S(c, g->name);
	if (g->node < c->n_stns)
		out->node_name = S(c, c->stns[g->node].name);
	out->group = l->group;
	return 0;
}

PROFDB_EXPORT int profdb_cube_location_group_at(const profdb_cube *c, uint32_t index,
                                                profdb_cube_location_group *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_location_group, name), offsetof(profdb_cube_location_group, type),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), index, c ? c->n_groups : 0,
	                  "location group");
	if (r < 0)
		return r;
	const cube_group *g = &c->groups[index];
	out->index = index;
	out->id = g->xml_id;
	out->name = S(c, g->name);
	out->type = S(c, g->type);
	out->rank = g->rank;
	out->node = g->node < c->n_stns ? g->node : PROFDB_NONE;
	return 0;
}

PROFDB_EXPORT int profdb_cube_system_node_at(const profdb_cube *c, uint32_t index,
                                             profdb_cube_system_node *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_system_node, name), offsetof(profdb_cube_system_node, klass),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), index, c ? c->n_stns : 0,
	                  "system-tree node");
	if (r < 0)
		return r;
	const cube_stn *s = &c->stns[index];
	out->index = index;
	out->id = s->xml_id;
	out->name = S(c, s->name);
	out->klass = S(c, s->klass);
	out->parent = s->parent < c->n_stns ? s->parent : PROFDB_NONE;
	return 0;
}

PROFDB_EXPORT int profdb_cube_attr_at(const profdb_cube *c, uint32_t index, profdb_cube_attr *out)
{
	static const size_t strs[] = {
		offsetof(profdb_cube_attr, key), offsetof(profdb_cube_attr, value),
	};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), index, c ? c->n_attrs : 0,
	                  "attribute");
	if (r < 0)
		return r;
	const cube_attr *a = &c->attrs[index];
	out->owner = a->owner;
	out->owner_id = a->owner_id;
	out->key = S(c, a->key);
	out->value = S(c, a->value);
	return 0;
}

PROFDB_EXPORT int profdb_cube_cart_at(const profdb_cube *c, uint32_t index, profdb_cube_cart *out)
{
	static const size_t strs[] = {offsetof(profdb_cube_cart, name)};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), index, c ? c->n_carts : 0,
	                  "topology");
	if (r < 0)
		return r;
	const cube_cart *k = &c->carts[index];
	out->index = index;
	out->name = S(c, k->name);
	out->ndims = k->ndims;
	out->n_coords = k->n_coords;
	return 0;
}

PROFDB_EXPORT int profdb_cube_cart_dim_at(const profdb_cube *c, uint32_t cart, uint32_t dim,
                                          profdb_cube_dim *out)
{
	static const size_t strs[] = {offsetof(profdb_cube_dim, name)};
	int r = get_check(c, out, sizeof *out, strs, NSTR(strs), cart, c ? c->n_carts : 0,
	                  "topology");
	if (r < 0)
		return r;
	const cube_cart *k = &c->carts[cart];
	if (dim >= k->ndims)
		return profdb__fail(-ENOENT, "%s: topology %" PRIu32 " has %" PRIu32 " dimensions",
		                    c->path, cart, k->ndims);
	const cube_dim *d = &c->dims[k->first_dim + dim];
	out->name = S(c, d->name);
	out->size = d->size;
	out->periodic = d->periodic;
	return 0;
}

PROFDB_EXPORT int profdb_cube_cart_coord_at(const profdb_cube *c, uint32_t cart, uint32_t index,
                                            profdb_cube_coord *out)
{
	int r = get_check(c, out, sizeof *out, NULL, 0, cart, c ? c->n_carts : 0, "topology");
	if (r < 0)
		return r;
	const cube_cart *k = &c->carts[cart];
	if (index >= k->n_coords)
		return profdb__fail(-ENOENT, "%s: topology %" PRIu32 " has %" PRIu32 " coordinates",
		                    c->path, cart, k->n_coords);
	const cube_coord *o = &c->coords[k->first_coord + index];
	out->kind = o->kind;
	out->item = o->item;
	out->values = c->coord_vals + o->first_val;
	return 0;
}
