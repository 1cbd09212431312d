/* .hpctrace files: the header is decoded by lib/core/hpctrace.c (its
 * layout in lib/core/hpctrace-internal.h, shared with the traces of old
 * experiment.xml databases); the records, u64 time, u32 CCT node id and a
 * u32 metric id with DATA_CENTRIC, are handed out as a big-endian
 * profdb_view into the mapping, checked to be sorted by time the first
 * time; searches are profdb_view_seek & co. */
#include <inttypes.h>
#include <string.h>

#include "hpcrun-internal.h"
#include "../core/hpctrace-internal.h"

int profdb__hpcrun_trace_open(profdb_hpcrun *h, hr_file *f, hr_trace *t)
{
	profdb__hpctrace g;
	int r = profdb__hpctrace_records(&f->in, &h->opts, 0, f->in.size, f->major > 1 || f->minor > 0,
	                                 &g);
	if (r < 0)
		return r;
	memset(t, 0, sizeof *t);
	t->file = f;
	t->flags = g.flags;
	t->rec_off = g.rec_off;
	t->count = g.count;
	t->rec_size = (uint8_t)g.rec_size;
	return 0;
}

/* The trace's records as a view into the mapping (unchecked). */
static void trace_view(const hr_trace *t, profdb_view *v)
{
	memset(v, 0, sizeof *v);
	v->count = t->count;
	v->base = t->count ? t->file->in.base + t->rec_off : NULL;
	v->stride = t->rec_size;
	v->key_offset = PROFDB_HPCTRACE_REC_TIME;
	v->key_type = PROFDB_FIELD_U64;
	v->value_offset = PROFDB_HPCTRACE_REC_ID;
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

PROFDB_EXPORT int profdb_hpcrun_trace_at(const profdb_hpcrun *h, uint32_t profile, profdb_view *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_trace_at: NULL output");
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
