/* trace.db: trace lines of (timestamp, context id) elements. A line is
 * checked (inside the file, whole elements, sorted by time) the first time
 * it is handed out; searches after that are plain binary searches. */
#include <inttypes.h>
#include <string.h>

#include "hpctk4-internal.h"

#define ELEM 12u

int profdb__hpctk_trace_open(profdb_hpctk *db)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_TRACE];
	hpctk_section sec;
	const unsigned char *p;
	int r = profdb__hpctk_section_read(in, 0x10, 0x20, 8, "Trace Headers section", &sec);
	if (r < 0)
		return r;
	if (sec.size < 0x20)
		return profdb__fail(-EBADMSG, "%s: Trace Headers section at 0x%" PRIx64 " is %" PRIu64
		                    " bytes, its header needs 32", in->name, sec.off, sec.size);
	if ((r = profdb__range(in, sec.off, 0x20, "Trace Headers section", &p)) < 0)
		return r;
	db->p_traces = profdb__le64(p);
	db->n_traces = profdb__le32(p + 8);
	db->sz_trace = p[0x0c];
	db->min_time = profdb__le64(p + 0x10);
	db->max_time = profdb__le64(p + 0x18);
	if (db->sz_trace < 0x18)
		return profdb__fail(-EBADMSG, "%s: trace header stride %" PRIu32 " at 0x%" PRIx64
		                    " is below the minimum 24", in->name, db->sz_trace, sec.off + 0x0c);
	return profdb__hpctk_array(in, &sec, db->p_traces, db->n_traces, db->sz_trace, "trace header array");
}

PROFDB_EXPORT int64_t profdb_hpctk_trace_count(const profdb_hpctk *db)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_TRACE);
	return r < 0 ? r : (int64_t)db->n_traces;
}

PROFDB_EXPORT int profdb_hpctk_trace_bounds(const profdb_hpctk *db, uint64_t *min_ns,
                                            uint64_t *max_ns)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_TRACE);
	if (r < 0)
		return r;
	if (min_ns)
		*min_ns = db->min_time;
	if (max_ns)
		*max_ns = db->max_time;
	/* hpcprof writes min = INT64_MAX, max = INT64_MIN when nothing was
	 * traced; any min > max means "no samples". The sentinels are signed:
	 * as unsigned numbers 0x7fff... < 0x8000..., so compare both ways. */
	return db->min_time <= db->max_time && (int64_t)db->min_time <= (int64_t)db->max_time;
}

static uint64_t time_at(const unsigned char *elems, uint64_t i)
{
	return profdb__le64(elems + i * ELEM);
}

PROFDB_EXPORT int profdb_hpctk_trace_get(const profdb_hpctk *db, uint32_t i,
                                         profdb_hpctk_trace *out)
{
	const profdb__input *in;
	const unsigned char *h, *e;
	int ok, r = profdb__hpctk_require(db, PROFDB_HPCTK_TRACE);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_trace_get: NULL output");
	if (i >= db->n_traces)
		return profdb__fail(-ENOENT, "trace %" PRIu32 " does not exist (%" PRIu32 " traces)", i,
		                    db->n_traces);
	in = &db->in[PROFDB_HPCTK_TRACE];
	uint64_t at = db->p_traces + (uint64_t)i * db->sz_trace;
	if ((r = profdb__range(in, at, db->sz_trace, "trace header", &h)) < 0 ||
	    (r = profdb__hpctk_checked(db, &db->trace_ok, i, &ok)) < 0)
		return r;
	uint64_t start = profdb__le64(h + 8), end = profdb__le64(h + 0x10);
	out->profile = profdb__le32(h);
	out->elems = NULL;
	out->count = 0;
	/* Empty lines may point anywhere (even at the footer); test first. */
	if (start == end)
		return 0;
	if (end < start || (end - start) % ELEM != 0)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 ": [0x%" PRIx64 ", 0x%"
		                    PRIx64 ") is not a whole number of 12-byte elements", in->name, at,
		                    start, end);
	if ((r = profdb__span(in, 0x20, in->size - 8, start, end - start, "trace line", &e)) < 0)
		return r;
	uint64_t n = (end - start) / ELEM;
	if (!ok) {
		for (uint64_t k = 1; k < n; k++)
			if (time_at(e, k) < time_at(e, k - 1))
				return profdb__fail(-EBADMSG, "%s: trace line at 0x%" PRIx64 " is not sorted "
				                    "by time at element %" PRIu64 " (0x%" PRIx64 ")", in->name,
				                    start, k, start + k * ELEM);
		profdb__hpctk_mark_checked(&db->trace_ok, i);
	}
	out->elems = e;
	out->count = n;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_trace_at(const profdb_hpctk_trace *t, uint64_t i,
                                        uint64_t *time_ns, uint32_t *ctx_id)
{
	if (!t || i >= t->count)
		return profdb__fail(t ? -ENOENT : -EINVAL, "trace element %" PRIu64 " out of range", i);
	if (time_ns)
		*time_ns = time_at(t->elems, i);
	if (ctx_id)
		*ctx_id = profdb__le32(t->elems + i * ELEM + 8);
	return 0;
}

/* First element with time >= t (lower bound). */
static uint64_t lower_bound(const profdb_hpctk_trace *t, uint64_t time)
{
	uint64_t lo = 0, hi = t->count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (time_at(t->elems, mid) < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

PROFDB_EXPORT int profdb_hpctk_trace_seek(const profdb_hpctk_trace *t, uint64_t time_ns,
                                          uint64_t *index)
{
	if (!t)
		return profdb__fail(-EINVAL, "profdb_hpctk_trace_seek: NULL trace");
	/* The sample in effect is the last one at or before time_ns. */
	uint64_t i = time_ns == UINT64_MAX ? t->count : lower_bound(t, time_ns + 1);
	if (i == 0)
		return 0;
	if (index)
		*index = i - 1;
	return 1;
}

PROFDB_EXPORT int profdb_hpctk_trace_window(const profdb_hpctk_trace *t, uint64_t from_ns,
                                            uint64_t to_ns, uint64_t *first, uint64_t *last)
{
	if (!t || !first || !last)
		return profdb__fail(-EINVAL, "profdb_hpctk_trace_window: NULL argument");
	*first = lower_bound(t, from_ns);
	*last = to_ns <= from_ns ? *first : lower_bound(t, to_ns);
	return 0;
}
