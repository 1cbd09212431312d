/* profdb_hpctk_check(): validate a whole HPCToolkit 4.0 database and
 * compare its files with each other.
 *
 * Each file is checked on its own as it is used (open and first use);
 * only this function compares them: cct.db must be the transposition of
 * profile.db's thread profiles (every value found in both, same bits, same
 * count), every metric id a value uses must be one meta.db defines (a
 * propagated id in thread profiles and cct.db, a summary statistic id in
 * the summary profile), cct.db must not name a summary or absent profile,
 * meta.db's context ids must lie inside cct.db's slots, and every trace
 * line must belong to a non-summary profile of profile.db and sample
 * contexts cct.db has slots for.
 * Time O(V log V) for V stored values; no memory of its own. */
#include <inttypes.h>
#include <string.h>

#include "hpctk4-internal.h"

/* Metric ids meta.db defines: the handle's id sets, or none without
 * meta.db. */
typedef struct id_sets {
	int known;                   /* meta.db present */
	const uint8_t *prop, *stat;
} id_sets;

static int load_ids(const profdb_hpctk *db, id_sets *s)
{
	memset(s, 0, sizeof *s);
	if (!db->present[PROFDB_HPCTK_META])
		return 0;
	int r = profdb__hpctk_metric_ids(db);
	if (r < 0)
		return r;
	s->known = 1;
	s->prop = db->prop_ids;
	s->stat = db->stat_ids;
	return 0;
}

static double f64_of(const profdb_view *v, uint64_t i)
{
	return profdb_view_value(v, i).as.f64;
}

/* profile.db: every value, its metric id, and its twin in cct.db. Counts
 * the thread profiles' values into *n_thread. */
static int check_profiles(const profdb_hpctk *db, const id_sets *ids, int64_t n_prof,
                          int has_cct, uint64_t *n_thread)
{
	for (uint32_t p = 0; p < (uint64_t)n_prof; p++) {
		profdb_hpctk_profile pr;
		profdb_view index, values;
		int r = profdb_hpctk_profile_at(db, p, &pr);
		if (r < 0 || (r = profdb_hpctk_profile_plane(db, p, &index, &values)) < 0)
			return r;
		PROFDB_VIEW_FOREACH(&index, i) {
			uint32_t ctx = (uint32_t)profdb_view_key(&index, i);
			profdb_view run = profdb_view_run(&index, i, &values);
			PROFDB_VIEW_FOREACH(&run, k) {
				uint32_t m = (uint32_t)profdb_view_key(&run, k);
				double v = f64_of(&run, k), w;
				if (ids->known && !profdb__hpctk_bit(pr.is_summary ? ids->stat : ids->prop, m))
					return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " context %"
					                    PRIu32 ": metric id %" PRIu32 " is not a %s id of "
					                    "meta.db", p, ctx, m,
					                    pr.is_summary ? "summary statistic" : "propagated");
				if (pr.is_summary || !has_cct)
					continue;
				++*n_thread;
				if ((r = profdb_hpctk_value_cct(db, p, ctx, m, &w)) < 0)
					return r;
				if (r == 0 || memcmp(&v, &w, sizeof v) != 0)
					return profdb__fail(-EBADMSG, "profile.db and cct.db disagree: profile %"
					                    PRIu32 " context %" PRIu32 " metric %" PRIu32 ": %.17g "
					                    "in profile.db, %s in cct.db", p, ctx, m, v,
					                    r == 0 ? "nothing" : "another value");
			}
		}
	}
	return 0;
}

/* cct.db: every plane, the profiles and metric ids it names; counts its
 * values into *n_cct. */
static int check_cct(const profdb_hpctk *db, const id_sets *ids, int64_t n_prof,
                     uint64_t *n_cct)
{
	int64_t slots = profdb_hpctk_cct_slot_count(db);
	if (slots < 0)
		return (int)slots;
	for (uint32_t c = 0; c < (uint64_t)slots; c++) {
		profdb_view index, values;
		int r = profdb_hpctk_context_plane(db, c, &index, &values);
		if (r < 0)
			return r;
		*n_cct += values.count;
		PROFDB_VIEW_FOREACH(&index, i) {
			uint32_t m = (uint32_t)profdb_view_key(&index, i);
			profdb_view run = profdb_view_run(&index, i, &values);
			if (ids->known && !profdb__hpctk_bit(ids->prop, m))
				return profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 ": metric id %"
				                    PRIu32 " is not a propagated id of meta.db", c, m);
			for (uint64_t k = 0; n_prof >= 0 && k < run.count; k++) {
				uint32_t p = (uint32_t)profdb_view_key(&run, k);
				profdb_hpctk_profile pr;
				if (p >= (uint64_t)n_prof)
					return profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 " metric %"
					                    PRIu32 " names profile %" PRIu32 "; profile.db has %"
					                    PRId64, c, m, p, n_prof);
				if ((r = profdb_hpctk_profile_at(db, p, &pr)) < 0)
					return r;
				if (pr.is_summary)
					return profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 " metric %"
					                    PRIu32 " names the summary profile %" PRIu32, c, m, p);
			}
		}
	}
	return 0;
}

static int check_traces(const profdb_hpctk *db, int64_t n_prof)
{
	int64_t n = profdb_hpctk_trace_count(db);
	if (n < 0)
		return (int)n;
	for (uint32_t i = 0; i < (uint64_t)n; i++) {
		profdb_hpctk_trace t;
		int r = profdb_hpctk_trace_line_at(db, i, &t);
		if (r < 0)
			return r;
		if (n_prof >= 0) {
			profdb_hpctk_profile pr;
			if (t.profile >= (uint64_t)n_prof)
				return profdb__fail(-EBADMSG, "trace.db: trace line %" PRIu32 " belongs to "
				                    "profile %" PRIu32 "; profile.db has %" PRId64, i,
				                    t.profile, n_prof);
			if ((r = profdb_hpctk_profile_at(db, t.profile, &pr)) < 0)
				return r;
			if (pr.is_summary)
				return profdb__fail(-EBADMSG, "trace.db: trace line %" PRIu32 " belongs to "
				                    "the summary profile %" PRIu32, i, t.profile);
		}
		/* a sample's context is one cct.db has a slot for */
		PROFDB_VIEW_FOREACH(&t.samples, k) {
			uint64_t ctx = profdb_view_value(&t.samples, k).as.u64;
			if (db->present[PROFDB_HPCTK_CCT] && ctx >= db->n_ctxs)
				return profdb__fail(-EBADMSG, "trace.db: trace line %" PRIu32 " sample %"
				                    PRIu64 " is at context %" PRIu64 ", past the %" PRIu32
				                    " contexts of cct.db", i, k, ctx, db->n_ctxs);
		}
	}
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_check(const profdb_hpctk *db)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_hpctk_check: NULL handle");
	id_sets ids;
	int r = load_ids(db, &ids);
	if (r < 0)
		return r;
	int64_t n_ctx = ids.known ? profdb_hpctk_context_count(db) : 0;   /* the whole tree */
	if (n_ctx < 0)
		return (int)n_ctx;
	/* nodes[] is sorted by id: the last is the largest */
	if (n_ctx > 0 && db->present[PROFDB_HPCTK_CCT] && db->nodes[db->n_nodes - 1].id >= db->n_ctxs)
		return profdb__fail(-EBADMSG, "meta.db: context id %" PRIu32 " is past the %" PRIu32
		                    " contexts of cct.db", db->nodes[db->n_nodes - 1].id, db->n_ctxs);
	int has_prof = db->present[PROFDB_HPCTK_PROFILE];
	int has_cct = db->present[PROFDB_HPCTK_CCT];
	int64_t n_prof = has_prof ? profdb_hpctk_profile_count(db) : -1;
	if (has_prof && n_prof < 0)
		return (int)n_prof;
	uint64_t n_thread = 0, n_cct = 0;
	if (has_prof && (r = check_profiles(db, &ids, n_prof, has_cct, &n_thread)) < 0)
		return r;
	if (has_cct && (r = check_cct(db, &ids, n_prof, &n_cct)) < 0)
		return r;
	/* every profile.db value is in cct.db; equal counts make it a bijection */
	if (has_prof && has_cct && n_cct != n_thread)
		return profdb__fail(-EBADMSG, "cct.db holds %" PRIu64 " values, profile.db's thread "
		                    "profiles %" PRIu64, n_cct, n_thread);
	if (db->present[PROFDB_HPCTK_TRACE] && (r = check_traces(db, n_prof)) < 0)
		return r;
	return 0;
}
