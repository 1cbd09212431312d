/* Checks that the files of a database belong together. The four files
 * share no run id, so only counts and ids that must agree are compared.
 * At open, from the headers of the files and of their blocks only (time
 * O(profiles + cct.db slots + trace lines), contiguous header arrays, no
 * memory), never from a value block:
 *  - trace.db's lines belong to profiles profile.db has, none the summary;
 *  - cct.db holds as many values as profile.db's thread profiles (it is
 *    their transposition);
 *  - meta.db's entry points lie inside cct.db's table.
 * At the first use of a profile.db value block, where its order is
 * validated anyway (sparse.c), from the block's own edges:
 *  - the profile names no context past cct.db's table;
 *  - the first and last metric id of the block (a summary statistic id in
 *    the summary profile, a propagated id elsewhere) are ids meta.db
 *    defines.
 * At the first use of a cct.db value block, from every value's profile:
 *  - it is one of profile.db's thread profiles (cct.db is their
 *    transposition; a summary profile's values are in profile.db only).
 * The block-level reads are not done at open because the edges of every
 * block lie all over profile.db: on a cold disk the kernel's read-around
 * of those few pages per profile pulls most of the file.
 * A disagreement names both files: an error in strict mode, a warning in
 * tolerant mode (once per handle for the block-level ones; the query layer
 * drops the trace lines it cannot place). A block whose header points
 * outside its file is left to the lazy checks (doc/FORMATS.md): this file
 * judges only what it can read. The full comparison, which reads every
 * value, is profdb_hpctk_check() (check.c). */
#include <inttypes.h>

#include "hpctk4-internal.h"

#define NOT_ONE "%s and %s are not of one database: "

static const unsigned char *profile_header(const profdb_hpctk *db, uint32_t p)
{
	uint64_t at = db->p_profiles + (uint64_t)p * db->sz_profile;
	return profdb__peek(&db->in[PROFDB_HPCTK_PROFILE], at, db->sz_profile);
}

static int is_summary(const profdb_hpctk *db, uint32_t p, const unsigned char *h)
{
	return db->layout == PROFDB_HPCTK_DEVSTAGE ? p == 0 : (hl_profile_flags(h) & 1);
}

static int check_traces(const profdb_hpctk *db)
{
	const profdb__input *tin = &db->in[PROFDB_HPCTK_TRACE], *pin = &db->in[PROFDB_HPCTK_PROFILE];
	if (db->n_traces > db->n_profiles) {
		int r = profdb__fail(-EBADMSG, NOT_ONE "%" PRIu32 " trace lines for %" PRIu32
		                     " profiles", tin->name, pin->name, db->n_traces, db->n_profiles);
		return profdb__disagree(&db->opts, r);
	}
	for (uint32_t t = 0; t < db->n_traces; t++) {
		const unsigned char *h;
		uint64_t at = db->p_traces + (uint64_t)t * db->sz_trace;
		int r = profdb__range(tin, at, HL_TRACE, "trace header", &h);
		if (r < 0)
			return r;
		uint32_t p = hl_trace_profile(h);
		const unsigned char *ph = p < db->n_profiles ? profile_header(db, p) : NULL;
		if (p >= db->n_profiles || (ph && is_summary(db, p, ph))) {
			r = profdb__fail(-EBADMSG, NOT_ONE "trace line %" PRIu32 " at 0x%" PRIx64
			                 " belongs to %s profile %" PRIu32 " of %" PRIu32, tin->name,
			                 pin->name, t, at, ph ? "the summary" : "no", p, db->n_profiles);
			return profdb__disagree(&db->opts, r);
		}
	}
	return 0;
}

/* Whether a value block's header can be right: its @p n values of
 * @p stride bytes fit in the file, and it has values exactly when it has
 * index entries. A damaged header is reported where the block is used;
 * the value counts are then not compared (so a damaged block is not taken
 * for a file of another database). */
static int plausible(const profdb__input *in, uint64_t n, unsigned stride, uint64_t n_index)
{
	return n <= in->size / stride && (n == 0) == (n_index == 0);
}

/* @p sum + @p n, or UINT64_MAX ("not compared") if @p sum is or would be. */
static uint64_t add_count(uint64_t sum, uint64_t n)
{
	return sum == UINT64_MAX || n >= UINT64_MAX - sum ? UINT64_MAX : sum + n;
}

/* The thread profiles' value count from profile.db's headers
 * (UINT64_MAX, "not compared", when a header is unreadable or cannot be
 * right). */
static uint64_t thread_values(const profdb_hpctk *db)
{
	const profdb__input *pin = &db->in[PROFDB_HPCTK_PROFILE];
	uint64_t n_thread = 0;
	for (uint32_t p = 0; p < db->n_profiles && n_thread != UINT64_MAX; p++) {
		const unsigned char *h = profile_header(db, p);
		if (!h)
			return UINT64_MAX;
		uint64_t n = hl_profile_n_values(h);
		if (!plausible(pin, n, HL_PROF_VALUE, hl_profile_n_ctxs(h)))
			return UINT64_MAX;
		if (!is_summary(db, p, h))
			n_thread = add_count(n_thread, n);
	}
	return n_thread;
}

/* cct.db against profile.db (value count). Only the context info array is
 * read: the metric indexes lie all over the file, one page each, and the
 * metric ids they hold are the thread profiles' ones, compared at the
 * first use of each profile block. */
static int check_cct(const profdb_hpctk *db, uint64_t n_thread)
{
	const profdb__input *cin = &db->in[PROFDB_HPCTK_CCT];
	const char *prof = db->in[PROFDB_HPCTK_PROFILE].name;
	uint64_t n_cct = 0;
	for (uint32_t c = 0; c < db->n_ctxs && n_cct != UINT64_MAX; c++) {
		uint64_t at = db->p_ctxs + (uint64_t)c * db->sz_ctx;
		const unsigned char *h = profdb__peek(cin, at, HL_CTXINFO);
		if (!h)
			return 0;
		uint64_t n = hl_ctxinfo_n_values(h);
		n_cct = plausible(cin, n, HL_CCT_VALUE, hl_ctxinfo_n_metrics(h)) ? add_count(n_cct, n)
		                                                                   : UINT64_MAX;
	}
	if (n_thread == UINT64_MAX || n_cct == UINT64_MAX || n_cct == n_thread)
		return 0;
	int r = profdb__fail(-EBADMSG, NOT_ONE "%s holds %" PRIu64 " values, the thread profiles "
	                     "of %s %" PRIu64, cin->name, prof, cin->name, n_cct, prof, n_thread);
	return profdb__disagree(&db->opts, r);
}

/* meta.db's entry points (final layout) against cct.db's table. */
static int check_entries(const profdb_hpctk *db)
{
	const profdb__input *min = &db->in[PROFDB_HPCTK_META];
	if (db->layout == PROFDB_HPCTK_DEVSTAGE)
		return 0;
	for (uint32_t e = 0; e < db->n_entries; e++) {
		const char *cct = db->in[PROFDB_HPCTK_CCT].name;
		uint64_t at = db->p_entries + (uint64_t)e * db->sz_entry;
		const unsigned char *h = profdb__peek(min, at, HL_ENTRY);
		if (h && hl_entry_id(h) >= db->n_ctxs) {
			int r = profdb__fail(-EBADMSG, NOT_ONE "entry point %" PRIu32 " is context %"
			                     PRIu32 ", past the %" PRIu32 " contexts of %s", min->name,
			                     cct, e, hl_entry_id(h), db->n_ctxs, cct);
			return profdb__disagree(&db->opts, r);
		}
	}
	return 0;
}

int profdb__hpctk_cross_check(const profdb_hpctk *db)
{
	int has_meta = db->present[PROFDB_HPCTK_META], has_prof = db->present[PROFDB_HPCTK_PROFILE];
	int has_cct = db->present[PROFDB_HPCTK_CCT], r;
	if (db->present[PROFDB_HPCTK_TRACE] && has_prof && (r = check_traces(db)) < 0)
		return r;
	if (has_cct && has_prof && (r = check_cct(db, thread_values(db))) < 0)
		return r;
	if (has_meta && has_cct && (r = check_entries(db)) < 0)
		return r;
	return 0;
}

/* A block-level disagreement: an error in strict mode; in tolerant mode a
 * warning for the first such block of the handle (a swapped file makes
 * most of its blocks disagree: one warning says it), and 0. */
static int block_disagrees(const profdb_hpctk *db, int r)
{
	profdb_hpctk *mut = (profdb_hpctk *)db;   /* the flag is atomic */
	if ((db->opts.flags & PROFDB_OPEN_TOLERANT) &&
	    atomic_exchange_explicit(&mut->block_warned, 1, memory_order_relaxed))
		return 0;
	return profdb__disagree(&db->opts, r);
}

int profdb__hpctk_cross_block(const profdb_hpctk *db, uint32_t p, const profdb_view *index,
                              const profdb_view *values)
{
	const profdb__input *pin = &db->in[PROFDB_HPCTK_PROFILE];
	const char *cct = db->in[PROFDB_HPCTK_CCT].name, *meta = db->in[PROFDB_HPCTK_META].name;
	const unsigned char *h = profile_header(db, p);
	if (!h || index->count == 0 || values->count == 0)
		return 0;
	uint32_t last_ctx = profdb__le32(index->base + (index->count - 1) * index->stride);
	if (db->present[PROFDB_HPCTK_CCT] && last_ctx >= db->n_ctxs)
		return block_disagrees(db, profdb__fail(-EBADMSG, NOT_ONE "profile %" PRIu32
		                       " has values at context %" PRIu32 ", past the %" PRIu32
		                       " contexts of %s", pin->name, cct, p, last_ctx, db->n_ctxs,
		                       cct));
	/* a metric table that does not decode fails where it is used, not here */
	if (!db->present[PROFDB_HPCTK_META] || profdb__hpctk_metric_ids(db) < 0)
		return 0;
	int summary = is_summary(db, p, h);
	const uint8_t *ids = summary ? db->stat_ids : db->prop_ids;
	uint32_t first = profdb__le16(values->base);
	uint32_t last = profdb__le16(values->base + (values->count - 1) * values->stride);
	uint32_t bad = !profdb__hpctk_bit(ids, first) ? first : last;
	if (profdb__hpctk_bit(ids, bad))
		return 0;
	return block_disagrees(db, profdb__fail(-EBADMSG, NOT_ONE "profile %" PRIu32 " uses "
	                       "metric id %" PRIu32 ", which %s does not define as a %s id",
	                       pin->name, meta, p, bad, meta,
	                       summary ? "summary statistic" : "propagated"));
}

int profdb__hpctk_cross_context(const profdb_hpctk *db, uint32_t ctx, uint64_t at,
                                const profdb_view *values)
{
	if (!db->present[PROFDB_HPCTK_PROFILE])
		return 0;
	PROFDB_VIEW_FOREACH(values, j) {
		uint32_t p = profdb__le32(values->base + j * values->stride);
		const unsigned char *h = p < db->n_profiles ? profile_header(db, p) : NULL;
		/* an unreadable profile header is profile.db's damage, met where it is read */
		if (p < db->n_profiles && (!h || !is_summary(db, p, h)))
			continue;
		const char *cct = db->in[PROFDB_HPCTK_CCT].name, *prof = db->in[PROFDB_HPCTK_PROFILE].name;
		uint64_t off = at + j * values->stride;
		if (h)
			return profdb__fail(-EBADMSG, "%s: context %" PRIu32 " has a value at 0x%" PRIx64
			                    " of profile %" PRIu32 ", which %s marks as a summary profile "
			                    "(cct.db holds the thread profiles only)", cct, ctx, off, p, prof);
		return profdb__fail(-EBADMSG, "%s: context %" PRIu32 " has a value at 0x%" PRIx64
		                    " of profile %" PRIu32 ", past the %" PRIu32 " profiles of %s", cct,
		                    ctx, off, p, db->n_profiles, prof);
	}
	return 0;
}
