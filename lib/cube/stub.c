/* Built instead of the Cube reader when expat is missing: the
 * open functions say so, and nothing else can be reached without a handle. */
#include <stdlib.h>

#include "../core/core-internal.h"
#include "profdb/cube.h"

#define NOT_BUILT "profdb was built without expat: Cube .cubex files are not supported"

PROFDB_EXPORT int profdb_cube_open(profdb_cube **ret, const char *path, const profdb_options *opts)
{
	(void)path, (void)opts;
	if (ret)
		*ret = NULL;
	return profdb__fail(-ENOTSUP, NOT_BUILT);
}

PROFDB_EXPORT int profdb_cube_open_mem(profdb_cube **ret, const void *data, size_t size,
                                       const profdb_options *opts)
{
	(void)data, (void)size, (void)opts;
	if (ret)
		*ret = NULL;
	return profdb__fail(-ENOTSUP, NOT_BUILT);
}

PROFDB_EXPORT void profdb_cube_close(profdb_cube *c)
{
	(void)c;
}

#define NO_HANDLE return profdb__fail(-EINVAL, "profdb_cube: no handle can exist in this build")
#define COUNT(name) \
	PROFDB_EXPORT int64_t profdb_cube_##name##_count(const profdb_cube *c) { (void)c; NO_HANDLE; }
#define GETTER(name, type) \
	PROFDB_EXPORT int profdb_cube_##name(const profdb_cube *c, uint32_t i, type *o) \
	{ (void)c, (void)i, (void)o; NO_HANDLE; }

PROFDB_EXPORT int profdb_cube_get_info(const profdb_cube *c, profdb_cube_info *out)
{ (void)c, (void)out; NO_HANDLE; }
COUNT(metric)
COUNT(region)
COUNT(cnode)
COUNT(location)
COUNT(location_group)
COUNT(system_node)
COUNT(attr)
COUNT(cart)
GETTER(metric_get, profdb_cube_metric)
GETTER(region_get, profdb_cube_region)
GETTER(cnode_get, profdb_cube_cnode)
GETTER(location_get, profdb_cube_location)
GETTER(location_group_at, profdb_cube_location_group)
GETTER(system_node_at, profdb_cube_system_node)
GETTER(attr_at, profdb_cube_attr)
GETTER(cart_at, profdb_cube_cart)
PROFDB_EXPORT int profdb_cube_cnode_param_at(const profdb_cube *c, uint32_t cnode, uint32_t i,
                                             profdb_cube_param *o)
{ (void)c, (void)cnode, (void)i, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_value_get(const profdb_cube *c, uint32_t location, uint32_t cnode,
                                        uint32_t metric, double *out)
{ (void)c, (void)metric, (void)cnode, (void)location, (void)out; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_row_get(const profdb_cube *c, uint32_t cnode, uint32_t metric,
                                      void *buf, size_t size)
{ (void)c, (void)metric, (void)cnode, (void)buf, (void)size; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cart_dim_at(const profdb_cube *c, uint32_t cart, uint32_t dim,
                                          profdb_cube_dim *o)
{ (void)c, (void)cart, (void)dim, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cart_coord_at(const profdb_cube *c, uint32_t cart, uint32_t i,
                                            profdb_cube_coord *o)
{ (void)c, (void)cart, (void)i, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_severity_get(const profdb_cube *c, profdb_cube_item where,
                                           uint32_t where_id, uint32_t cnode, uint32_t metric,
                                           unsigned flags, double *out)
{ (void)c, (void)metric, (void)cnode, (void)where, (void)where_id, (void)flags, (void)out;
  NO_HANDLE; }
PROFDB_EXPORT int64_t profdb_cube_severity_fields_get(const profdb_cube *c, profdb_cube_item where,
                                                      uint32_t where_id, uint32_t cnode,
                                                      uint32_t metric, unsigned flags,
                                                      double *fields, size_t n_fields)
{ (void)c, (void)metric, (void)cnode, (void)where, (void)where_id, (void)flags, (void)fields,
  (void)n_fields; NO_HANDLE; }
