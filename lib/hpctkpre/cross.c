/* Cheap checks at open that the files of a pre-release database belong
 * together, as lib/hpctk4/cross.c does for 4.0: the files share no run id,
 * so only counts and ids that must agree are compared, from headers and
 * block headers, never from the values (time O(profiles + trace lines),
 * no memory):
 *  - the metadata's context ids lie inside cct.db's table (the .db files
 *    number contexts densely 0 .. n-1);
 *  - trace.db's lines belong to profiles profile.db has;
 *  - the last context of every profile.db block lies inside cct.db's
 *    table, and the first and last metric id of every block is one the
 *    metadata defines (a summary id in profile 0, a profile id elsewhere).
 * A disagreement names both files: an error in strict mode, a warning in
 * tolerant mode. A block header outside its file is left to the lazy
 * checks. profdb_hpctkpre_check() compares every value. */
#include <inttypes.h>

#include "hpctkpre-internal.h"

#define NOT_ONE "%s and %s are not of one database: "

static int check_meta(const profdb_hpctkpre *db)
{
	if (!db->present[PRE_META] || !db->present[PRE_CCT] || !db->n_nodes)
		return 0;
	const char *cct = db->in[PRE_CCT].name;
	int64_t max = (int64_t)(db->node_keys[db->n_nodes - 1].key ^ (UINT64_C(1) << 63));
	if (max < (int64_t)db->n_ctx)
		return 0;
	int r = profdb__fail(-EBADMSG, NOT_ONE "context id %" PRId64 " is past the %" PRIu32
	                     " contexts of %s", db->in[PRE_META].name, cct, max, db->n_ctx, cct);
	return profdb__disagree(&db->opts, r);
}

static int check_traces(const profdb_hpctkpre *db)
{
	const profdb__input *tin = &db->in[PRE_TRACE];
	const char *prof = db->in[PRE_PROFILE].name;
	int r;
	if (db->n_traces > db->n_profiles) {
		r = profdb__fail(-EBADMSG, NOT_ONE "%" PRIu32 " trace lines for %" PRIu32 " profiles",
		                 tin->name, prof, db->n_traces, db->n_profiles);
		return profdb__disagree(&db->opts, r);
	}
	for (uint32_t t = 0; t < db->n_traces; t++) {
		uint64_t at = db->th_off + (uint64_t)t * PRE_TH_SIZE;
		const unsigned char *h = profdb__peek(tin, at, PRE_TH_SIZE);
		if (h && pre_th_profile(h) >= db->n_profiles) {
			r = profdb__fail(-EBADMSG, NOT_ONE "trace line %" PRIu32 " at 0x%" PRIx64
			                 " belongs to profile %" PRIu32 " of %" PRIu32, tin->name, prof, t,
			                 at, pre_th_profile(h), db->n_profiles);
			return profdb__disagree(&db->opts, r);
		}
	}
	return 0;
}

/* Whether the metric id of value record @p k of the block at @p block is
 * one the metadata defines (1), or unreadable (1: the lazy checks judge). */
static int metric_known(const profdb_hpctkpre *db, uint64_t block, uint64_t k, int summary,
                        uint32_t *id)
{
	uint32_t unused;
	const unsigned char *v = profdb__peek(&db->in[PRE_PROFILE], block + k * PRE_PVAL, PRE_PVAL);
	if (!v)
		return 1;
	*id = pre_pval_metric(v);
	return profdb__hpctkpre_metric_index(db, summary, *id, &unused);
}

/* Profile @p p against cct.db (its last context) and the metadata (the
 * metric ids of its first and last value): 0, or the failure of
 * profdb__fail(). */
static int check_profile(const profdb_hpctkpre *db, uint32_t p, const unsigned char *h)
{
	const profdb__input *pin = &db->in[PRE_PROFILE];
	const char *cct = db->in[PRE_CCT].name, *meta = db->in[PRE_META].name;
	uint64_t n = pre_pi_num_vals(h), block = pre_pi_block_off(h);
	uint32_t n_ctx = pre_pi_num_nzctxs(h), id = 0;
	if (n > pin->size / PRE_PVAL)
		return 0;   /* a damaged header: the lazy checks report it */
	uint64_t last_at = block + n * PRE_PVAL + (uint64_t)(n_ctx - 1) * PRE_PIDX;
	const unsigned char *last = n_ctx > 0 ? profdb__peek(pin, last_at, PRE_PIDX) : NULL;
	if (db->present[PRE_CCT] && last && pre_pidx_ctx(last) >= db->n_ctx)
		return profdb__fail(-EBADMSG, NOT_ONE "profile %" PRIu32 " has values at context %"
		                    PRIu32 ", past the %" PRIu32 " contexts of %s", pin->name, cct, p,
		                    pre_pidx_ctx(last), db->n_ctx, cct);
	if (db->present[PRE_META] && db->n_metrics > 0 && n > 0 &&
	    (!metric_known(db, block, 0, p == 0, &id) || !metric_known(db, block, n - 1, p == 0, &id)))
		return profdb__fail(-EBADMSG, NOT_ONE "profile %" PRIu32 " has values of %s metric id %"
		                    PRIu32 ", which %s does not name", pin->name, meta, p,
		                    p == 0 ? "summary" : "profile", id, meta);
	return 0;
}

static int check_profiles(const profdb_hpctkpre *db)
{
	const profdb__input *pin = &db->in[PRE_PROFILE];
	for (uint32_t p = 0; p < db->n_profiles; p++) {
		uint64_t at = db->pi_off + (uint64_t)p * PRE_PI_SIZE;
		const unsigned char *h = profdb__peek(pin, at, PRE_PI_SIZE);
		if (!h)
			return 0;
		int r = check_profile(db, p, h);
		if (r < 0)
			return profdb__disagree(&db->opts, r);
	}
	return 0;
}

int profdb__hpctkpre_cross_check(const profdb_hpctkpre *db)
{
	int r;
	if ((r = check_meta(db)) < 0)
		return r;
	if (db->present[PRE_TRACE] && db->present[PRE_PROFILE] && (r = check_traces(db)) < 0)
		return r;
	if (db->present[PRE_PROFILE] && (r = check_profiles(db)) < 0)
		return r;
	return 0;
}
