/* profdb_hpctk_check(): validate a whole HPCToolkit 4.0 database and
 * compare its files with each other.
 *
 * Each file is checked on its own as it is used (open and first use);
 * only this function compares them: cct.db must be the transposition of
 * profile.db's thread profiles (every value found in both, same bits, same
 * count), every metric id a value uses must be one meta.db defines (a
 * propagated id in thread profiles and cct.db, a summary statistic id in
 * the summary profile), cct.db must not name a summary or absent profile,
 * and every trace line must belong to a profile of profile.db.
 * Time O(V log V) for V stored values; memory 16 KiB. */
#include <inttypes.h>
#include <string.h>

#include "hpctk4-internal.h"

/* Metric ids meta.db defines: propagated ids and summary statistic ids. */
typedef struct id_sets {
	int known;                   /* meta.db present */
	uint8_t prop[65536 / 8], stat[65536 / 8];
} id_sets;

static int has_id(const uint8_t *set, uint32_t id)
{
	return id < 65536 && (set[id >> 3] >> (id & 7) & 1);
}

static int load_ids(const profdb_hpctk *db, id_sets *s)
{
	memset(s, 0, sizeof *s);
	if (!profdb_hpctk_has(db, PROFDB_HPCTK_META))
		return 0;
	int n = profdb_hpctk_metric_count(db);
	if (n < 0)
		return n;
	s->known = 1;
	for (uint32_t m = 0; m < (uint32_t)n; m++) {
		profdb_hpctk_metric md;
		int r = profdb_hpctk_metric_get(db, m, &md);
		for (uint32_t i = 0; r == 0 && i < md.n_props; i++) {
			profdb_hpctk_prop p;
			if ((r = profdb_hpctk_metric_prop(db, m, i, &p)) == 0)
				s->prop[p.prop_metric_id >> 3] |= (uint8_t)(1u << (p.prop_metric_id & 7));
		}
		for (uint32_t i = 0; r == 0 && i < md.n_summaries; i++) {
			profdb_hpctk_summary x;
			if ((r = profdb_hpctk_metric_summary(db, m, i, &x)) == 0)
				s->stat[x.stat_metric_id >> 3] |= (uint8_t)(1u << (x.stat_metric_id & 7));
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* profile.db: every value, its metric id, and its twin in cct.db. Counts
 * the thread profiles' values into *n_thread. */
static int check_profiles(const profdb_hpctk *db, const id_sets *ids, int64_t n_prof,
                          int has_cct, uint64_t *n_thread)
{
	for (uint32_t p = 0; p < (uint64_t)n_prof; p++) {
		profdb_hpctk_profile pr;
		profdb_hpctk_plane pl;
		int r = profdb_hpctk_profile_get(db, p, &pr);
		if (r < 0 || (r = profdb_hpctk_profile_plane(db, p, &pl)) < 0)
			return r;
		for (uint64_t i = 0; i < pl.n_index; i++) {
			uint32_t ctx;
			profdb_hpctk_run run;
			if ((r = profdb_hpctk_plane_at(&pl, i, &ctx, &run)) < 0)
				return r;
			for (uint64_t k = 0; k < run.count; k++) {
				uint32_t m;
				double v, w;
				if ((r = profdb_hpctk_run_at(&run, k, &m, &v)) < 0)
					return r;
				if (ids->known && !has_id(pr.is_summary ? ids->stat : ids->prop, m))
					return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " context %"
					                    PRIu32 ": metric id %" PRIu32 " is not a %s id of "
					                    "meta.db", p, ctx, m,
					                    pr.is_summary ? "summary statistic" : "propagated");
				if (pr.is_summary || !has_cct)
					continue;
				++*n_thread;
				if ((r = profdb_hpctk_cct_value(db, ctx, m, p, &w)) < 0)
					return r;
				if (r == 0 || !same_bits(v, w))
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
		profdb_hpctk_plane pl;
		int r = profdb_hpctk_context_plane(db, c, &pl);
		if (r < 0)
			return r;
		*n_cct += pl.n_values;
		for (uint64_t i = 0; i < pl.n_index; i++) {
			uint32_t m;
			profdb_hpctk_run run;
			if ((r = profdb_hpctk_plane_at(&pl, i, &m, &run)) < 0)
				return r;
			if (ids->known && !has_id(ids->prop, m))
				return profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 ": metric id %"
				                    PRIu32 " is not a propagated id of meta.db", c, m);
			for (uint64_t k = 0; n_prof >= 0 && k < run.count; k++) {
				uint32_t p;
				double v;
				profdb_hpctk_profile pr;
				if ((r = profdb_hpctk_run_at(&run, k, &p, &v)) < 0)
					return r;
				if (p >= (uint64_t)n_prof)
					return profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 " metric %"
					                    PRIu32 " names profile %" PRIu32 "; profile.db has %"
					                    PRId64, c, m, p, n_prof);
				if ((r = profdb_hpctk_profile_get(db, p, &pr)) < 0)
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
		int r = profdb_hpctk_trace_get(db, i, &t);
		if (r < 0)
			return r;
		if (n_prof >= 0 && t.profile >= (uint64_t)n_prof)
			return profdb__fail(-EBADMSG, "trace.db: trace line %" PRIu32 " belongs to profile %"
			                    PRIu32 "; profile.db has %" PRId64, i, t.profile, n_prof);
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
	int has_prof = profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE);
	int has_cct = profdb_hpctk_has(db, PROFDB_HPCTK_CCT);
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
	if (profdb_hpctk_has(db, PROFDB_HPCTK_TRACE) && (r = check_traces(db, n_prof)) < 0)
		return r;
	return 0;
}
