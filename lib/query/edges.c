/* Call edges (profdb/analysis.h). */
#include "query-internal.h"

int64_t profdb_edge_count(const profdb *db) { (void)db; return -ENOTSUP; }
int profdb_edge_at(const profdb *db, uint64_t i, profdb_edge *o) { (void)db; (void)i; (void)o; return -ENOTSUP; }
int profdb_edge_cost(const profdb *db, uint64_t i, uint32_t p, uint32_t m, profdb_number *o) { (void)db; (void)i; (void)p; (void)m; (void)o; return -ENOTSUP; }
