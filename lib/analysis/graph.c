/* The functions of a call graph (profdb/analysis.h): the backend's graph
 * table (lib/core/backend-internal.h) read by index, for front-ends that
 * rank a call graph's functions without walking the context tree. */
#include <inttypes.h>
#include <string.h>

#include "query/query-internal.h"
#include "profdb/analysis.h"

/* The graph table of @p db and its function count, or < 0 with a message
 * naming @p fn. */
static int64_t graph_of(const profdb *db, const char *fn, const profdb__graph_table **g)
{
	*g = NULL;
	if (!db)
		return profdb__fail(-EINVAL, "%s: NULL database handle", fn);
	*g = db->be->graph;
	if (!*g)
		return profdb__fail(-ENOTSUP, "%s: a %s profile stores call paths, not a call graph "
		                    "of functions", fn, profdb_format_name(db->be->format));
	return (*g)->function_count(db->impl);
}

int64_t profdb_graph_function_count(const profdb *db)
{
	const profdb__graph_table *g = NULL;
	return graph_of(db, "profdb_graph_function_count", &g);
}

/* Function @p index in range of @p db's graph: its count, or < 0. */
static int64_t checked(const profdb *db, uint32_t index, const char *fn,
                       const profdb__graph_table **g)
{
	int64_t n = graph_of(db, fn, g);
	if (n >= 0 && index >= (uint64_t)n)
		return profdb__fail(-ENOENT, "%s: no function %" PRIu32 " (%" PRId64 " functions)",
		                    fn, index, n);
	return n;
}

int profdb_graph_function_at(const profdb *db, uint32_t index, profdb_graph_function *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const profdb__graph_table *g = NULL;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_graph_function_at: NULL argument");
	int64_t n = checked(db, index, "profdb_graph_function_at", &g);
	if (n < 0)
		return (int)n;
	profdb__native_fn f;
	int r = g->function(db->impl, index, &f);
	if (r < 0)
		return r;
	out->context = index + 1;   /* the graph table's rule */
	out->name = f.name;
	out->file = f.file;
	out->module = f.object;
	return 0;
}

int profdb_graph_exclusive(const profdb *db, uint32_t profile, uint32_t index, uint32_t metric,
                           profdb_number *out)
{
	const profdb__graph_table *g = NULL;
	const uint64_t *row;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_graph_exclusive: NULL argument");
	memset(out, 0, sizeof *out);
	out->type = PROFDB_TYPE_NONE;
	int64_t n = checked(db, index, "profdb_graph_exclusive", &g), nm;
	int r;
	if (n < 0)
		return (int)n;
	if (profile != PROFDB_NONE &&
	    (r = profdb__query_check_profile(db, profile, "profdb_graph_exclusive")) < 0)
		return r;
	if ((nm = profdb_metric_count(db)) < 0)
		return (int)nm;
	if (metric >= (uint64_t)nm)
		return profdb__fail(-ENOENT, "profdb_graph_exclusive: no metric %" PRIu32
		                    " (%" PRId64 " metrics)", metric, nm);
	if ((r = g->self(db->impl, profile, index, &row)) < 0)
		return r;
	if (!row[metric])
		return 0;
	out->type = PROFDB_TYPE_U64;
	out->as.u64 = row[metric];
	return 1;
}
