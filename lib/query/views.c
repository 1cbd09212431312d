/* The common views (profdb_profile_view, profdb_context_view,
 * profdb_trace_view). */
#include "query-internal.h"

PROFDB_EXPORT int profdb_profile_view(const profdb *db, uint32_t profile, profdb_view *index,
                                      profdb_view *values)
{
	(void)db; (void)profile; (void)index; (void)values;
	return profdb__fail(-ENOTSUP, "profdb_profile_view: not implemented yet");
}

PROFDB_EXPORT int profdb_context_view(const profdb *db, uint32_t context, profdb_view *index,
                                      profdb_view *values)
{
	(void)db; (void)context; (void)index; (void)values;
	return profdb__fail(-ENOTSUP, "profdb_context_view: not implemented yet");
}

PROFDB_EXPORT int profdb_trace_view(const profdb *db, uint32_t profile, profdb_view *out)
{
	(void)db; (void)profile; (void)out;
	return profdb__fail(-ENOTSUP, "profdb_trace_view: not implemented yet");
}
