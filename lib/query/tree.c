/* The three views (profdb/analysis.h). */
#include "query-internal.h"

int profdb_tree_new(profdb_tree **ret, const profdb *db, const profdb_tree_options *o)
{
	(void)db; (void)o;
	if (ret)
		*ret = NULL;
	return -ENOTSUP;
}
int64_t profdb_tree_count(const profdb_tree *t) { (void)t; return -ENOTSUP; }
int profdb_tree_get(const profdb_tree *t, uint32_t id, profdb_node *o) { (void)t; (void)id; (void)o; return -ENOTSUP; }
int profdb_tree_values(const profdb_tree *t, uint32_t id, size_t k, double *i, double *e) { (void)t; (void)id; (void)k; (void)i; (void)e; return -ENOTSUP; }
void profdb_tree_free(profdb_tree *t) { (void)t; }
