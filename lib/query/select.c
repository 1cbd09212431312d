/* profdb_profiles_select(): profile selections ("0-15,32", "rank=0-3,thread=0"). */
#include "query-internal.h"

int64_t profdb_profiles_select(const profdb *db, const char *spec, uint32_t *out, size_t cap)
{
	(void)db; (void)spec; (void)out; (void)cap;
	return profdb__fail(-ENOTSUP, "profdb_profiles_select: not implemented yet");
}
