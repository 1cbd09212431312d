/* profdb_metric_default(): the one metric every front-end and converter
 * shows when the user names none (doc/model.md, "The default metric").
 *
 * A metric qualifies when it is read from stored values (not a summary
 * statistic, not derived) and has a non-zero value in either of its
 * scopes. Among those, time comes first, ranked by what it measures so
 * that a measurement and the database made from it agree even when they
 * list their metrics in different orders (hpcrun writes perf::cpu-clock
 * before perf::task-clock, hpcprof the other way round); within one rank
 * the format's order decides. Without any time-like metric: the first
 * that qualifies. */
#include <string.h>
#include <strings.h>

#include "query/query-internal.h"

/* What a name (its base: without a trailing " (unit)" and without a
 * "perf::" prefix) says it measures, best first. */
static const char *const ranked[] = {
	"CPUTIME",      /* hpcrun's CPU-time sampling */
	"REALTIME",     /* hpcrun's wall-clock sampling */
	"cpu-clock",    /* perf's CPU-time clocks */
	"task-clock",
	"time",         /* Cube (Score-P): time before visits and the bytes */
	"GPUOP",        /* HPCToolkit's GPU operations, of which GKER is a part */
	"cycles",       /* cycle counters */
	"cpu-cycles",
	"PAPI_TOT_CYC",
	"Ir",           /* Callgrind's instructions */
};
#define N_RANKED (sizeof ranked / sizeof *ranked)

/* Time units, in the unit field or as the name's "(unit)". */
static const char *const time_units[] = {"s", "sec", "second", "seconds", "ms", "msec", "us",
                                         "usec", "ns", "nsec"};

static int is_time_unit(const char *p, size_t n)
{
	for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++)
		if (strlen(time_units[i]) == n && strncasecmp(p, time_units[i], n) == 0)
			return 1;
	return 0;
}

/* The rank of @p m: its index in ranked[], N_RANKED for another metric in
 * a time unit, N_RANKED + 1 for the rest. */
static size_t rank_of(const profdb_metric *m)
{
	const char *p = m->name.ptr;
	size_t n = m->name.len;
	const char *unit = NULL;
	size_t unit_len = 0;
	if (n >= 3 && p[n - 1] == ')') {   /* "GPUOP (sec)" */
		size_t open = n - 1;
		while (open > 0 && p[open] != '(')
			open--;
		if (open > 0 && p[open - 1] == ' ') {
			unit = p + open + 1;
			unit_len = n - 1 - (open + 1);
			n = open - 1;
		}
	}
	if (n > 6 && strncmp(p, "perf::", 6) == 0)
		p += 6, n -= 6;
	for (size_t i = 0; i < N_RANKED; i++)
		if (strlen(ranked[i]) == n && strncasecmp(p, ranked[i], n) == 0)
			return i;
	if ((unit && is_time_unit(unit, unit_len)) || is_time_unit(m->unit.ptr, m->unit.len))
		return N_RANKED;
	return N_RANKED + 1;
}

/* A metric id's values, as profdb_metric_has_values() says, or what the
 * metric declares when the format cannot list its values. */
static int id_has_values(const profdb *db, uint32_t id, int declared)
{
	int v = profdb_metric_has_values(db, id);
	return v == -ENOTSUP ? declared : v;
}

/* Does @p m's quantity have a non-zero stored value in any scope? */
static int quantity_has_values(const profdb *db, const profdb_metric *m)
{
	uint32_t ids[3] = {m->id, m->exclusive_id, m->inclusive_id};
	for (int i = 0; i < 3; i++) {
		if (ids[i] == PROFDB_NONE || (i > 0 && ids[i] == m->id))
			continue;
		int v = id_has_values(db, ids[i], m->has_data);
		if (v != 0)
			return v == -ENOENT ? 0 : v;   /* a dangling id has no values */
	}
	return 0;
}

PROFDB_EXPORT int profdb_metric_default(const profdb *db, profdb_metric *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_metric_default: NULL argument");
	memset(out, 0, sizeof *out);
	int64_t n = profdb_metric_count(db);
	if (n < 0)
		return (int)n;
	size_t best = N_RANKED + 2;
	for (int64_t i = 0; i < n && best > 0; i++) {
		profdb_metric m;
		int r = profdb_metric_at(db, (uint32_t)i, &m);
		if (r < 0)
			return r;
		if (m.kind == PROFDB_METRIC_SUMMARY || m.kind == PROFDB_METRIC_DERIVED)
			continue;
		size_t k = rank_of(&m);
		if (k >= best)
			continue;
		if ((r = quantity_has_values(db, &m)) < 0)
			return r;
		if (r > 0) {
			*out = m;
			best = k;
		}
	}
	if (best == N_RANKED + 2) {
		memset(out, 0, sizeof *out);
		return profdb__fail(-ENOENT, "no metric has a non-zero stored value");
	}
	return 0;
}
