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
	return db->be->graph != NULL;
}

int profdb__declared_events(const profdb *db)
{
	return db->be->declared_events;
}

PROFDB_EXPORT int profdb_total_root(const profdb *db, uint32_t *id)
{
	if (!db || !id)
		return profdb__fail(-EINVAL, "profdb_total_root: NULL argument");
	/* A call graph's one synthetic root holds every cost (doc/model.md). */
	if (!profdb__call_graph(db) || !db->be->context_root)
		return 0;
	int r = db->be->context_root(db->impl, id);
	return r == 0 ? 1 : 0;
}

PROFDB_EXPORT int profdb_has_names(const profdb *db)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_has_names: NULL database");
	return !db->be->unnamed_contexts;
}

PROFDB_EXPORT int profdb_file_name(const profdb *db, size_t index, profdb_str *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_file_name: NULL argument");
	*out = profdb__str(NULL);
	if (!db->be->file_name)
		return -ENOTSUP;
	return db->be->file_name(db->impl, index, out);
}

PROFDB_EXPORT int profdb_check(const profdb *db)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_check: NULL database");
	if (!db->be->check)
		return profdb__fail(-ENOTSUP, "profdb_check: the %s format has no whole validation",
		                    profdb_format_name(db->be->format));
	return db->be->check(db->impl);
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
