/* trace.db: trace lines of big-endian (timestamp, context id) samples. The
 * file has no footer, so lines are bounded by the end of the file. A line is
 * checked (inside the file, whole samples, sorted by time, its profile in
 * profile.db) the first time it is handed out. */
#include <inttypes.h>
#include <string.h>

#include "hpctkpre-internal.h"

int profdb__hpctkpre_trace_open(profdb_hpctkpre *db)
{
	const profdb__input *in = &db->in[PRE_TRACE];
	const unsigned char *h;
	uint64_t need;
	int r = profdb__range(in, 0, 0x38, "trace.db header", &h);
	if (r < 0)
		return r;
	db->n_traces = profdb__be32(h + 0x12);
	uint16_t nsec = profdb__be16(h + 0x16);
	uint64_t size = profdb__be64(h + 0x18);
	db->th_off = profdb__be64(h + 0x20);
	db->min_time = profdb__be64(h + 0x28);
	db->max_time = profdb__be64(h + 0x30);
	if (nsec < 1)
		return profdb__fail(-EBADMSG, "%s: header at 0x16 lists no section", in->name);
	if ((r = profdb__mul(in, db->n_traces, PRE_TH_SIZE, "trace header array", &need)) < 0)
		return r;
	if (need > size)
		return profdb__fail(-EBADMSG, "%s: %" PRIu32 " traces (0x12) need %" PRIu64
		                    " bytes but the Trace Header section (0x18) has %" PRIu64,
		                    in->name, db->n_traces, need, size);
	return profdb__hpctkpre_section(in, 0x38, db->th_off, size, "Trace Header section");
}

static uint64_t time_at(const unsigned char *e, uint64_t i)
{
	return profdb__be64(e + i * PRE_SAMPLE);
}

static int line_check(const profdb_hpctkpre *db, uint64_t at, uint64_t start, uint64_t end,
                      uint32_t prof, const unsigned char **out)
{
	const profdb__input *in = &db->in[PRE_TRACE];
	const unsigned char *e;
	if (end < start || (end - start) % PRE_SAMPLE != 0)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 ": [0x%" PRIx64 ", 0x%"
		                    PRIx64 ") is not a whole number of 12-byte samples", in->name, at,
		                    start, end);
	int r = profdb__span(in, 0x38, in->size, start, end - start, "trace line", &e);
	if (r < 0)
		return r;
	if (db->present[PRE_PROFILE] && prof >= db->n_profiles)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 " names profile %"
		                    PRIu32 ", profile.db has %" PRIu32, in->name, at, prof,
		                    db->n_profiles);
	uint64_t n = (end - start) / PRE_SAMPLE;
	for (uint64_t k = 1; k < n; k++)
		if (time_at(e, k) < time_at(e, k - 1))
			return profdb__fail(-EBADMSG, "%s: trace line at 0x%" PRIx64 " is not sorted by "
			                    "time at sample %" PRIu64 " (0x%" PRIx64 ")", in->name, start,
			                    k, start + k * PRE_SAMPLE);
	*out = e;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_trace_get(const profdb_hpctkpre *db, uint32_t i,
                                            profdb_hpctkpre_trace *out)
{
	const unsigned char *h, *e = NULL;
	int r = profdb__hpctkpre_require(db, PRE_TRACE);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_trace_get: NULL output");
	if (i >= db->n_traces)
		return profdb__fail(-ENOENT, "trace %" PRIu32 " does not exist (%" PRIu32 " traces)", i,
		                    db->n_traces);
	const profdb__input *in = &db->in[PRE_TRACE];
	uint64_t at = db->th_off + (uint64_t)i * PRE_TH_SIZE;
	if ((r = profdb__range(in, at, PRE_TH_SIZE, "trace header", &h)) < 0)
		return r;
	uint64_t start = profdb__be64(h + 6), end = profdb__be64(h + 0x0e);
	memset(out, 0, sizeof *out);
	out->profile = profdb__be32(h);
	out->type = profdb__be16(h + 4);
	/* Empty lines point anywhere, even past the end of the file (the real
	 * sample's only line is [0x98, 0x98) in a 0x96-byte file). */
	if (start == end)
		return 0;
	if (atomic_load_explicit(&db->trace_ok[i], memory_order_acquire)) {
		out->elems = in->base + start;
		out->count = (end - start) / PRE_SAMPLE;
		return 0;
	}
	if ((r = line_check(db, at, start, end, out->profile, &e)) < 0) {
		if (!(db->opts.flags & PROFDB_OPEN_TOLERANT))
			return r;
		profdb__warn(&db->opts, "%s (read as empty: tolerant mode)", profdb__message());
		return 0;
	}
	atomic_store_explicit(&db->trace_ok[i], 1, memory_order_release);
	out->elems = e;
	out->count = (end - start) / PRE_SAMPLE;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_trace_at(const profdb_hpctkpre_trace *t, uint64_t i,
                                           uint64_t *time_ns, uint32_t *ctx_id)
{
	if (!t || i >= t->count)
		return profdb__fail(t ? -ENOENT : -EINVAL, "trace sample %" PRIu64 " out of range", i);
	if (time_ns)
		*time_ns = time_at(t->elems, i);
	if (ctx_id)
		*ctx_id = profdb__be32(t->elems + i * PRE_SAMPLE + 8);
	return 0;
}

static uint64_t lower_bound(const profdb_hpctkpre_trace *t, uint64_t time)
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

PROFDB_EXPORT int profdb_hpctkpre_trace_seek(const profdb_hpctkpre_trace *t, uint64_t time_ns,
                                             uint64_t *index)
{
	if (!t)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_trace_seek: NULL trace");
	uint64_t i = time_ns == UINT64_MAX ? t->count : lower_bound(t, time_ns + 1);
	if (i == 0)
		return 0;
	if (index)
		*index = i - 1;
	return 1;
}

PROFDB_EXPORT int profdb_hpctkpre_trace_window(const profdb_hpctkpre_trace *t, uint64_t from_ns,
                                               uint64_t to_ns, uint64_t *first, uint64_t *last)
{
	if (!t || !first || !last)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_trace_window: NULL argument");
	*first = lower_bound(t, from_ns);
	*last = to_ns <= from_ns ? *first : lower_bound(t, to_ns);
	return 0;
}
