/* .hpctrace 01.01: a 32-byte header ("HPCRUN-trace______" "01.01" "b", u64
 * flags; the flags are absent in 01.00) and records to the end of the file:
 * u64 time (ns), u32 CCT node id, and a u32 metric id when flags bit 0
 * (DATA_CENTRIC) is set (layout-internal.h). No footer. The records are
 * handed out as a big-endian profdb_view into the mapping, checked to be
 * sorted by time the first time; searches are profdb_view_seek & co. */
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
		if ((r = profdb__range(in, HR_TRACE_FLAGS, 8, "trace header flags", &p)) < 0)
			return r;
		t->flags = profdb__be64(p);
		hdr += 8;
	}
	if (t->flags & ~(uint64_t)TRACE_KNOWN_FLAGS)
		profdb__warn(&h->opts, "%s: trace flags 0x%" PRIx64 " at offset 0x18 have unknown "
		             "bits; records read as %u bytes", in->name, t->flags,
		             t->flags & TRACE_DATA_CENTRIC ? 16u : 12u);
	t->rec_size = t->flags & TRACE_DATA_CENTRIC ? HR_TREC_SIZE_METRIC : HR_TREC_SIZE;
	t->rec_off = hdr;
	t->count = (in->size - hdr) / t->rec_size;
	uint64_t rest = (in->size - hdr) % t->rec_size;
	if (rest) {
		uint64_t at = hdr + t->count * t->rec_size;
		r = profdb__fail(-ENODATA, "%s: trace record at offset 0x%" PRIx64 " is cut short "
		                 "(%" PRIu64 " of %u bytes): truncated file", in->name, at, rest,
		                 t->rec_size);
		if ((r = profdb__tolerate(&h->opts, r, NULL, "the partial record at offset 0x%"
		                          PRIx64, at)) < 0)
			return r;
	}
	return 0;
}

/* The trace's records as a view into the mapping (unchecked). */
static void trace_view(const hr_trace *t, profdb_view *v)
{
	memset(v, 0, sizeof *v);
	v->count = t->count;
	v->base = t->count ? t->file->in.base + t->rec_off : NULL;
	v->stride = t->rec_size;
	v->key_offset = HR_TREC_TIME;
	v->key_type = PROFDB_FIELD_U64;
	v->value_offset = HR_TREC_CCT;
	v->value_type = PROFDB_FIELD_U32;
	v->big_endian = 1;
}

/* Times must not decrease: checked once per trace (an atomic flag; two
 * threads checking at once is harmless). 0, or -EBADMSG / tolerant 1. */
static int check_sorted(const profdb_hpcrun *h, hr_trace *t, const profdb_view *v)
{
	for (uint64_t k = 1; k < v->count; k++) {
		if (profdb_view_key(v, k) >= profdb_view_key(v, k - 1))
			continue;
		uint64_t at = t->rec_off + k * t->rec_size;
		int r = profdb__fail(-EBADMSG, "%s: trace is not sorted by time at record %" PRIu64
		                     " (offset 0x%" PRIx64 ")", t->file->in.name, k, at);
		r = profdb__tolerate(&h->opts, r, NULL, "the trace");
		return r < 0 ? r : 1;
	}
	atomic_store_explicit(&t->checked, 1, memory_order_release);
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_trace_get(const profdb_hpcrun *h, uint32_t profile,
                                          profdb_view *out)
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
	profdb_view v;
	trace_view(t, &v);
	if (!atomic_load_explicit(&t->checked, memory_order_acquire) &&
	    (r = check_sorted(h, t, &v)) != 0)
		return r < 0 ? r : 0;
	*out = v;
	return 1;
}
