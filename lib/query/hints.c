/* The backends' hints (hints-internal.h) and profdb_profile_bytes(). */
#include "hints-internal.h"
#include "query-internal.h"

int profdb__call_count_metric(const profdb *db, profdb_metric *out)
{
	uint32_t id;
	int r = db->be->call_count_metric ? db->be->call_count_metric(db->impl, &id) : 0;
	if (r <= 0)
		return r;
	r = profdb_metric_get(db, id, out);
	return r < 0 ? r : 1;
}

int profdb__self_from_inclusive(const profdb *db)
{
	return db->be->self_from_inclusive;
}

int profdb__inclusive_stored(const profdb *db)
{
	return db->be->inclusive_stored;
}

int profdb__call_graph(const profdb *db)
{
	return db->be->call_graph;
}

int profdb__declared_events(const profdb *db)
{
	return db->be->declared_events;
}

PROFDB_EXPORT int profdb_profile_bytes(const profdb *db, uint32_t profile, uint64_t *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_profile_bytes: NULL argument");
	*out = 0;
	int r = profdb__query_check_profile(db, profile, "profdb_profile_bytes");
	if (r < 0)
		return r;
	if (!db->be->profile_bytes)
		return profdb__fail(-ENOTSUP, "profdb_profile_bytes: the %s format cannot tell a "
		                    "profile's size without reading it", profdb_format_name(db->be->format));
	return db->be->profile_bytes(db->impl, profile, out);
}
