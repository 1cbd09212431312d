/* trace.db: trace lines of (timestamp, context id) elements. A line is
 * checked (inside the file, whole elements, sorted by time) the first time
 * it is handed out; searches after that are plain binary searches. */
#include <inttypes.h>
#include <string.h>

#include "hpctk4-internal.h"

int profdb__hpctk_trace_open(profdb_hpctk *db)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_TRACE];
	hpctk_section sec;
	const unsigned char *p;
	int r = profdb__hpctk_section_read(in, 0x10, HL_TRACE_HEADER, 8, "Trace Headers section",
	                                   &sec);
	if (r < 0)
		return r;
	if (sec.size < HL_TRACES)
		return profdb__fail(-EBADMSG, "%s: Trace Headers section at 0x%" PRIx64 " is %" PRIu64
		                    " bytes, its header needs 32", in->name, sec.off, sec.size);
	if ((r = profdb__range(in, sec.off, HL_TRACES, "Trace Headers section", &p)) < 0)
		return r;
	db->p_traces = hl_traces_ptr(p);
	db->n_traces = hl_traces_count(p);
	db->sz_trace = hl_traces_stride(p);
	db->min_time = hl_traces_min_time(p);
	db->max_time = hl_traces_max_time(p);
	if (db->sz_trace < HL_TRACE)
		return profdb__fail(-EBADMSG, "%s: trace header stride %" PRIu32 " at 0x%" PRIx64
		                    " is below the minimum 24", in->name, db->sz_trace, sec.off + 0x0c);
	return profdb__hpctk_array(in, &sec, db->p_traces, db->n_traces, db->sz_trace, "trace header array");
}

PROFDB_EXPORT int64_t profdb_hpctk_trace_count(const profdb_hpctk *db)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_hpctk_trace_count: NULL handle");
	return db->present[PROFDB_HPCTK_TRACE] ? (int64_t)db->n_traces : 0;
}

PROFDB_EXPORT int profdb_hpctk_trace_bounds(const profdb_hpctk *db, uint64_t *min_ns,
                                            uint64_t *max_ns)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_TRACE);
	if (r < 0)
		return r;
	if (!min_ns || !max_ns)
		return profdb__fail(-EINVAL, "profdb_hpctk_trace_bounds: NULL output");
	*min_ns = db->min_time;
	*max_ns = db->max_time;
	/* hpcprof writes min = INT64_MAX, max = INT64_MIN when nothing was
	 * traced; any min > max means "no samples". The sentinels are signed:
	 * as unsigned numbers 0x7fff... < 0x8000..., so compare both ways. */
	return db->min_time <= db->max_time && (int64_t)db->min_time <= (int64_t)db->max_time;
}

static void samples_view(profdb_view *v, const unsigned char *e, uint64_t n)
{
	profdb__hpctk_view(v, e, n, HL_SAMPLE, PROFDB_FIELD_U64, 8, PROFDB_FIELD_U32);
}

/* Where trace line @p i lies as its header says, checked inside trace.db
 * (whole elements; no sample read): its profile, first sample (NULL when
 * empty) and sample count. */
static int trace_line(const profdb_hpctk *db, uint32_t i, uint32_t *profile,
                      const unsigned char **e, uint64_t *n)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_TRACE];
	const unsigned char *h;
	uint64_t at = db->p_traces + (uint64_t)i * db->sz_trace;
	int r;
	*e = NULL;
	*n = 0;
	if (i >= db->n_traces)
		return profdb__fail(-ENOENT, "trace %" PRIu32 " does not exist (%" PRIu32 " traces)", i,
		                    db->n_traces);
	if ((r = profdb__range(in, at, db->sz_trace, "trace header", &h)) < 0)
		return r;
	uint64_t start = hl_trace_start(h), end = hl_trace_end(h);
	*profile = hl_trace_profile(h);
	/* Empty lines may point anywhere (even at the footer); test first. */
	if (start == end)
		return 0;
	if (end < start || (end - start) % HL_SAMPLE != 0)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 ": [0x%" PRIx64 ", 0x%"
		                    PRIx64 ") is not a whole number of 12-byte elements", in->name, at,
		                    start, end);
	if ((r = profdb__span(in, HL_TRACE_HEADER, in->size - HL_FOOTER, start, end - start,
	                      "trace line", e)) < 0)
		return r;
	*n = (end - start) / HL_SAMPLE;
	return 0;
}

int profdb__hpctk_trace_declared(const profdb_hpctk *db, uint32_t i, uint64_t *n_samples)
{
	const unsigned char *e;
	uint32_t profile;
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_TRACE);
	*n_samples = 0;
	return r < 0 ? r : trace_line(db, i, &profile, &e, n_samples);
}

PROFDB_EXPORT int profdb_hpctk_trace_line_at(const profdb_hpctk *db, uint32_t i,
                                        profdb_hpctk_trace *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const unsigned char *e;
	uint64_t n;
	int ok, r = profdb__hpctk_require(db, PROFDB_HPCTK_TRACE);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_trace_line_at: NULL output");
	samples_view(&out->samples, NULL, 0);
	if ((r = trace_line(db, i, &out->profile, &e, &n)) < 0 ||
	    (r = profdb__hpctk_checked(db, &db->ok.trace, i, &ok)) < 0)
		return r;
	if (n && !ok) {
		const profdb__input *in = &db->in[PROFDB_HPCTK_TRACE];
		uint64_t start = (uint64_t)(e - in->base);
		for (uint64_t k = 1; k < n; k++)
			if (hl_sample_time(e + k * HL_SAMPLE) < hl_sample_time(e + (k - 1) * HL_SAMPLE))
				return profdb__fail(-EBADMSG, "%s: trace line at 0x%" PRIx64 " is not sorted "
				                    "by time at element %" PRIu64 " (0x%" PRIx64 ")", in->name,
				                    start, k, start + k * HL_SAMPLE);
		profdb__hpctk_mark_checked(&db->ok.trace, i);
	}
	samples_view(&out->samples, e, n);
	return 0;
}
