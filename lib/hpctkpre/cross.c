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

static int mismatch(const profdb_hpctkpre *db, int r)
{
	if (!(db->opts.flags & PROFDB_OPEN_TOLERANT))
		return r;
	profdb__warn(&db->opts, "%s (tolerant mode: reading on)", profdb__message());
	return 0;
}

/* [off, off + len) of @p in, or NULL, without a message. */
static const unsigned char *peek(const profdb__input *in, uint64_t off, uint64_t len)
{
	return off <= in->size && len <= in->size - off ? in->base + off : NULL;
}

static int check_meta(const profdb_hpctkpre *db)
{
	if (!db->present[PRE_META] || !db->present[PRE_CCT] || !db->n_nodes)
		return 0;
	int64_t max = (int64_t)(db->node_keys[db->n_nodes - 1].key ^ (UINT64_C(1) << 63));
	if (max < (int64_t)db->n_ctx)
		return 0;
	return mismatch(db, profdb__fail(-EBADMSG, NOT_ONE "context id %" PRId64 " is past the %"
	                                 PRIu32 " contexts of %s", db->in[PRE_META].name,
	                                 db->in[PRE_CCT].name, max, db->n_ctx,
	                                 db->in[PRE_CCT].name));
}

static int check_traces(const profdb_hpctkpre *db)
{
	const profdb__input *tin = &db->in[PRE_TRACE];
	const char *prof = db->in[PRE_PROFILE].name;
	if (db->n_traces > db->n_profiles)
		return mismatch(db, profdb__fail(-EBADMSG, NOT_ONE "%" PRIu32 " trace lines for %"
		                                 PRIu32 " profiles", tin->name, prof, db->n_traces,
		                                 db->n_profiles));
	for (uint32_t t = 0; t < db->n_traces; t++) {
		uint64_t at = db->th_off + (uint64_t)t * PRE_TH_SIZE;
		const unsigned char *h = peek(tin, at, PRE_TH_SIZE);
		if (h && pre_th_profile(h) >= db->n_profiles)
			return mismatch(db, profdb__fail(-EBADMSG, NOT_ONE "trace line %" PRIu32 " at 0x%"
			                                 PRIx64 " belongs to profile %" PRIu32 " of %"
			                                 PRIu32, tin->name, prof, t, at,
			                                 pre_th_profile(h), db->n_profiles));
	}
	return 0;
}

/* Whether the metric id of value record @p k of the block at @p block is
 * one the metadata defines (1), or unreadable (1: the lazy checks judge). */
static int metric_known(const profdb_hpctkpre *db, uint64_t block, uint64_t k, int summary,
                        uint32_t *id)
{
	uint32_t unused;
	const unsigned char *v = peek(&db->in[PRE_PROFILE], block + k * PRE_PVAL, PRE_PVAL);
	if (!v)
		return 1;
	*id = profdb__be16(v + PRE_PVAL_METRIC);
	return profdb__hpctkpre_metric_index(db, summary, *id, &unused);
}

static int check_profiles(const profdb_hpctkpre *db)
{
	const profdb__input *pin = &db->in[PRE_PROFILE];
	int ids = db->present[PRE_META] && db->n_metrics > 0;
	for (uint32_t p = 0; p < db->n_profiles; p++) {
		const unsigned char *h = peek(pin, db->pi_off + (uint64_t)p * PRE_PI_SIZE, PRE_PI_SIZE);
		if (!h)
			return 0;
		uint64_t n = pre_pi_num_vals(h), block = pre_pi_block_off(h);
		uint32_t n_ctx = pre_pi_num_nzctxs(h), id = 0;
		const unsigned char *last = NULL;
		if (n > pin->size / PRE_PVAL)
			continue;   /* a damaged header: the lazy checks report it */
		if (n_ctx > 0)
			last = peek(pin, block + n * PRE_PVAL + (uint64_t)(n_ctx - 1) * PRE_PIDX, PRE_PIDX);
		if (db->present[PRE_CCT] && last && profdb__be32(last + PRE_PIDX_CTX) >= db->n_ctx)
			return mismatch(db, profdb__fail(-EBADMSG, NOT_ONE "profile %" PRIu32 " has "
			                                 "values at context %" PRIu32 ", past the %"
			                                 PRIu32 " contexts of %s", pin->name,
			                                 db->in[PRE_CCT].name, p,
			                                 profdb__be32(last + PRE_PIDX_CTX), db->n_ctx,
			                                 db->in[PRE_CCT].name));
		if (ids && n > 0 &&
		    (!metric_known(db, block, 0, p == 0, &id) ||
		     !metric_known(db, block, n - 1, p == 0, &id)))
			return mismatch(db, profdb__fail(-EBADMSG, NOT_ONE "profile %" PRIu32 " has "
			                                 "values of %s metric id %" PRIu32 ", which %s "
			                                 "does not name", pin->name,
			                                 db->in[PRE_META].name, p,
			                                 p == 0 ? "summary" : "profile", id,
			                                 db->in[PRE_META].name));
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
