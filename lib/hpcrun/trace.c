/* .hpctrace 01.01: a 32-byte header ("HPCRUN-trace______" "01.01" "b", u64
 * flags; the flags are absent in 01.00) and records to the end of the file:
 * u64 time (ns), u32 CCT node id, and a u32 metric id when flags bit 0
 * (DATA_CENTRIC) is set. No footer. Records are checked to be sorted by time
 * the first time the trace is handed out; searches then are plain binary
 * searches over the mapping. */
#include <inttypes.h>
#include <string.h>

#include "hpcrun-internal.h"

#define TRACE_DATA_CENTRIC 1u
#define TRACE_KNOWN_FLAGS 7u   /* DATA_CENTRIC, LCA_RECORDED, CALL_TRACE */

int profdb__hpcrun_trace_open(profdb_hpcrun *h, hr_file *f, hr_trace *t)
{
	const profdb__input *in = &f->in;
	const unsigned char *p;
	int r = profdb__range(in, 0, HR_HDR, "trace header", &p);
	if (r < 0)
		return r;
	memset(t, 0, sizeof *t);
	t->file = f;
	uint64_t hdr = HR_HDR;
	if (f->major > 1 || f->minor > 0) {
		if ((r = profdb__range(in, HR_HDR, 8, "trace header flags", &p)) < 0)
			return r;
		t->flags = profdb__be64(p);
		hdr += 8;
	}
	if (t->flags & ~(uint64_t)TRACE_KNOWN_FLAGS)
		profdb__warn(&h->opts, "%s: trace flags 0x%" PRIx64 " at offset 0x18 have unknown "
		             "bits; records read as %u bytes", in->name, t->flags,
		             t->flags & TRACE_DATA_CENTRIC ? 16u : 12u);
	t->rec_size = t->flags & TRACE_DATA_CENTRIC ? 16 : 12;
	t->rec_off = hdr;
	t->count = (in->size - hdr) / t->rec_size;
	uint64_t rest = (in->size - hdr) % t->rec_size;
	if (rest) {
		uint64_t at = hdr + t->count * t->rec_size;
		if (!(h->opts.flags & PROFDB_OPEN_TOLERANT))
			return profdb__fail(-ENODATA, "%s: trace record at offset 0x%" PRIx64 " is cut "
			                    "short (%" PRIu64 " of %u bytes): truncated file", in->name,
			                    at, rest, t->rec_size);
		profdb__warn(&h->opts, "%s: trace record at offset 0x%" PRIx64 " is cut short (%"
		             PRIu64 " of %u bytes); ignoring it", in->name, at, rest, t->rec_size);
	}
	return 0;
}

static uint64_t time_at(const profdb_hpcrun_trace *t, uint64_t i)
{
	return profdb__be64(t->records + i * t->record_size);
}

PROFDB_EXPORT int profdb_hpcrun_trace_get(const profdb_hpcrun *h, uint32_t profile,
                                          profdb_hpcrun_trace *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_trace_get: NULL output");
	memset(out, 0, sizeof *out);
	hr_trace *t = p->trace;
	if (!t)
		return 0;
	out->flags = t->flags;
	out->record_size = t->rec_size;
	out->count = t->count;
	out->records = t->count ? t->file->in.base + t->rec_off : NULL;
	if (!atomic_load_explicit(&t->checked, memory_order_acquire)) {
		for (uint64_t k = 1; k < out->count; k++)
			if (time_at(out, k) < time_at(out, k - 1)) {
				uint64_t at = t->rec_off + k * t->rec_size;
				memset(out, 0, sizeof *out);
				if (h->opts.flags & PROFDB_OPEN_TOLERANT) {
					profdb__warn(&h->opts, "%s: trace record %" PRIu64 " at offset 0x%"
					             PRIx64 " goes back in time; trace read as absent",
					             t->file->in.name, k, at);
					return 0;
				}
				return profdb__fail(-EBADMSG, "%s: trace is not sorted by time at record %"
				                    PRIu64 " (offset 0x%" PRIx64 ")", t->file->in.name, k,
				                    at);
			}
		atomic_store_explicit(&t->checked, 1, memory_order_release);
	}
	return 1;
}

PROFDB_EXPORT int profdb_hpcrun_trace_at(const profdb_hpcrun_trace *t, uint64_t i,
                                         uint64_t *time_ns, uint32_t *cct_id,
                                         uint32_t *metric_id)
{
	if (!t || i >= t->count)
		return profdb__fail(t ? -ENOENT : -EINVAL, "trace record %" PRIu64 " out of range", i);
	const unsigned char *r = t->records + i * t->record_size;
	if (time_ns)
		*time_ns = profdb__be64(r);
	if (cct_id)
		*cct_id = profdb__be32(r + 8);
	if (metric_id)
		*metric_id = t->record_size >= 16 ? profdb__be32(r + 12) : PROFDB_NONE;
	return 0;
}

/* First record with time >= t. */
static uint64_t lower_bound(const profdb_hpcrun_trace *t, uint64_t time)
{
	uint64_t lo = 0, hi = t->count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (time_at(t, mid) < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

PROFDB_EXPORT int profdb_hpcrun_trace_seek(const profdb_hpcrun_trace *t, uint64_t time_ns,
                                           uint64_t *index)
{
	if (!t)
		return profdb__fail(-EINVAL, "profdb_hpcrun_trace_seek: NULL trace");
	/* The record in effect is the last one at or before time_ns. */
	uint64_t i = time_ns == UINT64_MAX ? t->count : lower_bound(t, time_ns + 1);
	if (i == 0)
		return 0;
	if (index)
		*index = i - 1;
	return 1;
}

PROFDB_EXPORT int profdb_hpcrun_trace_window(const profdb_hpcrun_trace *t, uint64_t from_ns,
                                             uint64_t to_ns, uint64_t *first, uint64_t *last)
{
	if (!t || !first || !last)
		return profdb__fail(-EINVAL, "profdb_hpcrun_trace_window: NULL argument");
	*first = lower_bound(t, from_ns);
	*last = to_ns <= from_ns ? *first : lower_bound(t, to_ns);
	return 0;
}
