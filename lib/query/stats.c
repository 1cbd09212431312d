/* Statistics over profiles (profdb/analysis.h). */
#include "query-internal.h"

int profdb_stats_new(profdb_stats **ret, const profdb *db, const profdb_stats_options *opts)
{
	(void)db; (void)opts;
	if (ret)
		*ret = NULL;
	return profdb__fail(-ENOTSUP, "profdb_stats_new: not implemented yet");
}
int64_t profdb_stats_count(const profdb_stats *s) { (void)s; return -ENOTSUP; }
int profdb_stats_at(const profdb_stats *s, uint64_t i, profdb_stat *o) { (void)s; (void)i; (void)o; return -ENOTSUP; }
int profdb_stats_get(const profdb_stats *s, uint32_t c, uint32_t m, profdb_stat *o) { (void)s; (void)c; (void)m; (void)o; return -ENOTSUP; }
int profdb_stats_view(const profdb_stats *s, uint32_t m, size_t f, profdb_view *o) { (void)s; (void)m; (void)f; (void)o; return -ENOTSUP; }
void profdb_stats_free(profdb_stats *s) { (void)s; }
