/* profdb_metric_has_values(): which metrics have a non-zero stored value. */
#include "query-internal.h"

int profdb_metric_has_values(const profdb *db, uint32_t id)
{
	(void)db; (void)id;
	return -ENOTSUP;
}
