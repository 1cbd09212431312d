/* What the layers above lib/query need to know of one input beyond the
 * common interface, asked of its backend (lib/core/backend-internal.h),
 * so that no code above the formats branches on the format. */
#ifndef PROFDB_QUERY_HINTS_H
#define PROFDB_QUERY_HINTS_H

#include "profdb/query.h"

/* The metric whose stored value at a context counts the calls into it
 * (Cube's "visits"): 1 and *out, 0 when the input has none, < 0. */
int profdb__call_count_metric(const profdb *db, profdb_metric *out);

/* The backend's flags of the same names (lib/core/backend-internal.h):
 * 1 or 0. */
int profdb__self_from_inclusive(const profdb *db);
int profdb__inclusive_stored(const profdb *db);
int profdb__declared_events(const profdb *db);
/* Does the backend store a call graph of functions (its graph table)?
 * 1 or 0. */
int profdb__call_graph(const profdb *db);

#endif
