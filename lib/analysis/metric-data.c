/* profdb_metric_has_values(): which metrics have a non-zero stored value.
 *
 * HPCToolkit and hpcrun declare every metric of a measurement whether or
 * not a sample ever hit it (GPU counters on a CPU-only run), and a front
 * end choosing a default metric needs to tell. The answer is one pass over
 * every stored value (the PROFDB_SCAN_ALL cursor, summary profile
 * included), run once per handle under a profdb__once and kept as a bitmap
 * over metric indices; ids are found by binary search. The pass reads the
 * values once and keeps O(metrics) memory, and it stops once every metric
 * is seen: the rest cannot change the answer (a Callgrind profile whose
 * events all occur is answered within its first functions, not after a
 * million values). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query/query-internal.h"
#include "core/search-internal.h"

struct profdb__metric_data {
	uint32_t n;            /* metrics */
	uint64_t *by_id;       /* id << 32 | index, ascending */
	unsigned char *seen;   /* bit per metric index */
};

void profdb__metric_data_init(profdb *db)
{
	profdb__once_init(&db->metric_data_once);
	db->metric_data = NULL;
}

void profdb__metric_data_free(profdb *db)
{
	if (db->metric_data) {
		free(db->metric_data->by_id);
		free(db->metric_data->seen);
		free(db->metric_data);
	}
	profdb__once_destroy(&db->metric_data_once);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The index of metric @p id, or -1. */
static int64_t index_of(const struct profdb__metric_data *d, uint32_t id)
{
	/* by_id holds (id << 32 | index): the first entry >= (id << 32) */
	size_t lo = profdb__lower_u64(d->by_id, 0, d->n, (uint64_t)id << 32);
	if (lo < d->n && (uint32_t)(d->by_id[lo] >> 32) == id)
		return (int64_t)(d->by_id[lo] & 0xffffffffu);
	return -1;
}

static int nonzero(profdb_number v)
{
	switch (v.type) {
	case PROFDB_TYPE_U64: return v.as.u64 != 0;
	case PROFDB_TYPE_I64: return v.as.i64 != 0;
	case PROFDB_TYPE_F64: return v.as.f64 != 0;   /* NaN counts: it was stored */
	default: return 0;
	}
}

/* Mark the metrics of every non-zero stored value. A format that cannot
 * list its values (-ENOTSUP) leaves every bit clear. */
static int scan(const profdb *db, struct profdb__metric_data *d)
{
	profdb_values *it;
	int r = profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0);
	if (r == -ENOTSUP)
		return 0;
	if (r < 0)
		return r;
	profdb_entry e;
	uint32_t last = PROFDB_NONE, unseen = d->n;
	int64_t at = -1;
	while (unseen && (r = profdb_values_next(it, &e)) > 0) {
		if (!nonzero(e.value))
			continue;
		if (e.metric != last) {   /* runs of one metric are common */
			last = e.metric;
			at = index_of(d, e.metric);
		}
		if (at >= 0 && !(d->seen[at / 8] & (1u << (at % 8)))) {
			d->seen[at / 8] |= (unsigned char)(1u << (at % 8));
			unseen--;
		}
	}
	profdb_values_free(it);
	return r < 0 ? r : 0;
}

static int build(void *arg)
{
	profdb *db = arg;
	int64_t n = profdb_metric_count(db);
	if (n < 0)
		return (int)n;
	if (n > UINT32_MAX)
		return profdb__fail(-EFBIG, "%" PRId64 " metrics: more than 32-bit indices", n);
	struct profdb__metric_data *d = calloc(1, sizeof *d);
	if (!d)
		return profdb__fail(-ENOMEM, "out of memory");
	d->n = (uint32_t)n;
	d->by_id = malloc((d->n ? d->n : 1) * sizeof *d->by_id);
	d->seen = calloc(d->n / 8 + 1, 1);
	int r = d->by_id && d->seen ? 0 : profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t i = 0; r == 0 && i < d->n; i++) {
		profdb_metric m;
		if ((r = profdb_metric_at(db, i, &m)) == 0)
			d->by_id[i] = (uint64_t)m.id << 32 | i;
	}
	if (r == 0) {
		qsort(d->by_id, d->n, sizeof *d->by_id, cmp_u64);
		r = scan(db, d);
	}
	if (r < 0) {
		free(d->by_id);
		free(d->seen);
		free(d);
		return r;
	}
	db->metric_data = d;
	return 0;
}

PROFDB_EXPORT int profdb_metric_has_values(const profdb *db, uint32_t id)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_metric_has_values: NULL handle");
	if (db->be->metric_has_values) {
		int v = db->be->metric_has_values(db->impl, id);
		if (v != -ENOTSUP)
			return v;
	}
	/* The once and the cache are the handle's lazy state: built once,
	 * read-only afterwards, so the handle stays logically const. */
	profdb *w = (profdb *)(uintptr_t)db;
	int r = profdb__once_run(&w->metric_data_once, build, w);
	if (r < 0)
		return r;
	int64_t at = index_of(db->metric_data, id);
	if (at < 0)
		return profdb__fail(-ENOENT, "no metric with id %" PRIu32, id);
	return (db->metric_data->seen[at / 8] >> (at % 8)) & 1;
}
