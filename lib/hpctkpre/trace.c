/* trace.db: trace lines of big-endian (timestamp, context id) samples,
 * handed out as profdb_views into the mapping. The file has no footer, so
 * lines are bounded by the end of the file. A line is checked (inside the
 * file, whole samples, sorted by time, its profile in profile.db) the first
 * time it is handed out; searches go through profdb_view_seek/in_effect. */
#include <inttypes.h>
#include <string.h>

#include "hpctkpre-internal.h"

/* Line [start, end) of the header at @p at: inside the file, whole
 * samples, its profile in profile.db -- checked at every use, as the header
 * is read from the mapping, which may have been rewritten in place since
 * the line was validated -- and, unless @p sorted says it was seen sorted
 * before, sorted by time. */
static int line_check(const profdb_hpctkpre *db, uint64_t at, uint64_t start, uint64_t end,
                      uint32_t prof, int sorted, const unsigned char **out)
{
	const profdb__input *in = &db->in[PRE_TRACE];
	const unsigned char *e;
	if (end < start || (end - start) % PRE_SAMPLE != 0)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 ": [0x%" PRIx64 ", 0x%"
		                    PRIx64 ") is not a whole number of 12-byte samples", in->name, at,
		                    start, end);
	int r = profdb__span(in, PRE_TRACE_HDR_SIZE, in->size, start, end - start, "trace line", &e);
	if (r < 0)
		return r;
	if (db->present[PRE_PROFILE] && prof >= db->n_profiles)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 " names profile %"
		                    PRIu32 ", profile.db has %" PRIu32, in->name, at, prof,
		                    db->n_profiles);
	uint64_t n = sorted ? 0 : (end - start) / PRE_SAMPLE;
	for (uint64_t k = 1; k < n; k++)
		if (pre_sample_time(e + k * PRE_SAMPLE) < pre_sample_time(e + (k - 1) * PRE_SAMPLE))
			return profdb__fail(-EBADMSG, "%s: trace line at 0x%" PRIx64 " is not sorted by "
			                    "time at sample %" PRIu64 " (0x%" PRIx64 ")", in->name, start,
			                    k, start + k * PRE_SAMPLE);
	*out = e;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_trace_line_at(const profdb_hpctkpre *db, uint32_t i,
                                           profdb_hpctkpre_trace *out)
{
	const unsigned char *h, *e = NULL;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_trace_line_at: NULL output");
	memset(out, 0, sizeof *out);
	out->samples = profdb__hpctkpre_samples(NULL, 0);
	int r = profdb__hpctkpre_require_data(db, PRE_TRACE);
	if (r < 0)
		return r;
	if (i >= db->n_traces)
		return profdb__fail(-ENOENT, "trace %" PRIu32 " does not exist (%" PRIu32 " traces)", i,
		                    db->n_traces);
	const profdb__input *in = &db->in[PRE_TRACE];
	uint64_t at = db->th_off + (uint64_t)i * PRE_TH_SIZE;
	if ((r = profdb__range(in, at, PRE_TH_SIZE, "trace header", &h)) < 0)
		return r;
	uint64_t start = pre_th_start(h), end = pre_th_end(h);
	out->profile = pre_th_profile(h);
	out->type = pre_th_type(h);
	/* Empty lines point anywhere, even past the end of the file (the real
	 * sample's only line is [0x98, 0x98) in a 0x96-byte file). */
	if (start == end)
		return 0;
	int sorted = atomic_load_explicit(&db->ok.trace[i], memory_order_acquire);
	if ((r = line_check(db, at, start, end, out->profile, sorted, &e)) < 0)
		return profdb__tolerate(&db->opts, r, NULL, "trace line %" PRIu32, i);
	atomic_store_explicit(&db->ok.trace[i], 1, memory_order_release);
	out->samples = profdb__hpctkpre_samples(e, (end - start) / PRE_SAMPLE);
	return 0;
}
