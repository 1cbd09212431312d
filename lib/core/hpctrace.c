/* The one decoder of an hpctrace header (hpctrace-internal.h), shared by
 * the hpcrun reader and the old experiment.xml databases' traces. */
#include <inttypes.h>
#include <string.h>

#include "hpctrace-internal.h"

int profdb__hpctrace_records(const profdb__input *in, const profdb_options *opts, uint64_t off,
                             uint64_t end, int has_flags, profdb__hpctrace *out)
{
	const unsigned char *h, *f;
	int r = profdb__span(in, 0, end, off, PROFDB_HPCTRACE_HDR, "trace header", &h);
	if (r < 0)
		return r;
	memset(out, 0, sizeof *out);
	uint64_t hdr = PROFDB_HPCTRACE_HDR;
	if (has_flags) {
		if ((r = profdb__span(in, 0, end, off + PROFDB_HPCTRACE_FLAGS, 8, "trace header flags",
		                      &f)) < 0)
			return r;
		out->flags = profdb__hpctrace_flags(h);   /* the two spans hold the 32 bytes */
		hdr = PROFDB_HPCTRACE_HDR_FLAGS;
	}
	int metric = (out->flags & PROFDB_HPCTRACE_DATA_CENTRIC) != 0;
	out->rec_size = metric ? PROFDB_HPCTRACE_REC_METRIC : PROFDB_HPCTRACE_REC;
	if (out->flags & ~(uint64_t)PROFDB_HPCTRACE_KNOWN_FLAGS)
		profdb__warn(opts, "%s: trace flags 0x%" PRIx64 " at offset 0x%" PRIx64 " have "
		             "unknown bits; records read as %" PRIu32 " bytes", in->name, out->flags,
		             off + PROFDB_HPCTRACE_FLAGS, out->rec_size);
	out->rec_off = off + hdr;
	uint64_t body = end - out->rec_off;   /* the span above put rec_off <= end */
	out->count = body / out->rec_size;
	uint64_t rest = body % out->rec_size;
	if (rest) {
		uint64_t at = out->rec_off + out->count * out->rec_size;
		r = profdb__fail(-ENODATA, "%s: trace record at offset 0x%" PRIx64 " is cut short "
		                 "(%" PRIu64 " of %" PRIu32 " bytes): truncated file", in->name, at,
		                 rest, out->rec_size);
		if ((r = profdb__tolerate(opts, r, NULL, "the partial record at offset 0x%" PRIx64,
		                          at)) < 0)
			return r;
	}
	return 0;
}
