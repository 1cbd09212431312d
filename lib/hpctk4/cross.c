/* Cheap checks at open that the files of a database belong together. The
 * four files share no run id, so only what their headers say can be
 * compared without reading the values: trace.db's lines must belong to
 * profiles profile.db has. A disagreement names both files: an error in
 * strict mode, a warning in tolerant mode (the query layer then drops the
 * lines it cannot place). The full comparison, which reads every value,
 * is profdb_hpctk_check() (check.c). */
#include <inttypes.h>

#include "hpctk4-internal.h"

static int mismatch(const profdb_hpctk *db, int r)
{
	if (!(db->opts.flags & PROFDB_OPEN_TOLERANT))
		return r;
	profdb__warn(&db->opts, "%s (tolerant mode: reading on)", profdb__message());
	return 0;
}

int profdb__hpctk_cross_check(const profdb_hpctk *db)
{
	if (!db->present[PROFDB_HPCTK_TRACE] || !db->present[PROFDB_HPCTK_PROFILE])
		return 0;
	const profdb__input *tin = &db->in[PROFDB_HPCTK_TRACE], *pin = &db->in[PROFDB_HPCTK_PROFILE];
	if (db->n_traces > db->n_profiles)
		return mismatch(db, profdb__fail(-EBADMSG, "%s and %s are not of one database: %"
		                                 PRIu32 " trace lines for %" PRIu32 " profiles",
		                                 tin->name, pin->name, db->n_traces, db->n_profiles));
	for (uint32_t t = 0; t < db->n_traces; t++) {
		const unsigned char *h;
		uint64_t at = db->p_traces + (uint64_t)t * db->sz_trace;
		int r = profdb__range(tin, at, HL_TRACE, "trace header", &h);
		if (r < 0)
			return r;
		uint32_t p = hl_trace_profile(h);
		if (p >= db->n_profiles)
			return mismatch(db, profdb__fail(-EBADMSG, "%s and %s are not of one database: "
			                                 "trace line %" PRIu32 " at 0x%" PRIx64
			                                 " belongs to profile %" PRIu32 " of %" PRIu32,
			                                 tin->name, pin->name, t, at, p, db->n_profiles));
	}
	return 0;
}
