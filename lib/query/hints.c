/* The backends' hints (hints-internal.h). */
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
