/* A metric's combination rule (profdb_metric.combine) as answers the
 * front-ends print: how two values combine, whether totals and
 * percentages mean anything, and the rule's names (doc/model.md,
 * "Combining numbers"). */
#include <math.h>
#include <stddef.h>
#include "profdb/analysis.h"

PROFDB_EXPORT double profdb_combine_pair(profdb_combine rule, double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	switch (rule) {
	case PROFDB_COMBINE_SUM: return a + b;
	case PROFDB_COMBINE_MIN: return b < a ? b : a;
	case PROFDB_COMBINE_MAX: return b > a ? b : a;
	default: return a;
	}
}

PROFDB_EXPORT int profdb_combine_adds(profdb_combine rule)
{
	return rule == PROFDB_COMBINE_SUM;
}

PROFDB_EXPORT int profdb_combine_ok(profdb_combine rule)
{
	return rule == PROFDB_COMBINE_SUM || rule == PROFDB_COMBINE_MIN ||
	       rule == PROFDB_COMBINE_MAX;
}

PROFDB_EXPORT const char *profdb_combine_name(profdb_combine rule)
{
	switch (rule) {
	case PROFDB_COMBINE_SUM: return "sum";
	case PROFDB_COMBINE_MIN: return "min";
	case PROFDB_COMBINE_MAX: return "max";
	default: return "none";
	}
}

PROFDB_EXPORT const char *profdb_combine_extreme(profdb_combine rule)
{
	return rule == PROFDB_COMBINE_MIN ? "minimum" : rule == PROFDB_COMBINE_MAX ? "maximum" : NULL;
}
