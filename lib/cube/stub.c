/* Built instead of the Cube reader when libarchive or expat is missing: the
 * open functions say so, and nothing else can be reached without a handle. */
#include <stdlib.h>

#include "../core/core-internal.h"

#define NOT_BUILT "profdb was built without libarchive and expat: Cube .cubex files are not supported"

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

PROFDB_EXPORT int profdb_cube_get_info(const profdb_cube *c, profdb_cube_info *out)
{ (void)c, (void)out; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_metric_count(const profdb_cube *c) { (void)c; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_region_count(const profdb_cube *c) { (void)c; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cnode_count(const profdb_cube *c) { (void)c; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_location_count(const profdb_cube *c) { (void)c; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_metric_get(const profdb_cube *c, uint32_t id, profdb_cube_metric *o)
{ (void)c, (void)id, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_region_get(const profdb_cube *c, uint32_t id, profdb_cube_region *o)
{ (void)c, (void)id, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cnode_get(const profdb_cube *c, uint32_t id, profdb_cube_cnode *o)
{ (void)c, (void)id, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_location_get(const profdb_cube *c, uint32_t id,
                                           profdb_cube_location *o)
{ (void)c, (void)id, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cnode_param(const profdb_cube *c, uint32_t cnode, uint32_t i,
                                          const char **key, const char **value, int *numeric)
{ (void)c, (void)cnode, (void)i, (void)key, (void)value, (void)numeric; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_value(const profdb_cube *c, uint32_t metric, uint32_t cnode,
                                    uint32_t location, double *out)
{ (void)c, (void)metric, (void)cnode, (void)location, (void)out; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_row(const profdb_cube *c, uint32_t metric, uint32_t cnode,
                                  void *buf, size_t size)
{ (void)c, (void)metric, (void)cnode, (void)buf, (void)size; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_location_group_get(const profdb_cube *c, uint32_t index,
                                                 profdb_cube_location_group *o)
{ (void)c, (void)index, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_system_node_get(const profdb_cube *c, uint32_t index,
                                              profdb_cube_system_node *o)
{ (void)c, (void)index, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_attr_get(const profdb_cube *c, uint32_t i, profdb_cube_attr *o)
{ (void)c, (void)i, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cart_get(const profdb_cube *c, uint32_t index, profdb_cube_cart *o)
{ (void)c, (void)index, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cart_dim(const profdb_cube *c, uint32_t index, uint32_t dim,
                                       const char **name, int64_t *size, int *periodic)
{ (void)c, (void)index, (void)dim, (void)name, (void)size, (void)periodic; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_cart_coord(const profdb_cube *c, uint32_t index, uint32_t i,
                                         profdb_cube_coord *o)
{ (void)c, (void)index, (void)i, (void)o; NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_severity(const profdb_cube *c, uint32_t metric, uint32_t cnode,
                                       profdb_cube_item where, uint32_t where_id,
                                       unsigned flags, double *out)
{ (void)c, (void)metric, (void)cnode, (void)where, (void)where_id, (void)flags, (void)out;
  NO_HANDLE; }
PROFDB_EXPORT int profdb_cube_severity_fields(const profdb_cube *c, uint32_t metric,
                                              uint32_t cnode, profdb_cube_item where,
                                              uint32_t where_id, unsigned flags,
                                              double *fields, size_t n_fields)
{ (void)c, (void)metric, (void)cnode, (void)where, (void)where_id, (void)flags, (void)fields,
  (void)n_fields; NO_HANDLE; }
