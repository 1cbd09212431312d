/* profile.db and cct.db: profiles, identifier tuples and the two kinds of
 * sparse value planes. A plane is validated completely (bounds, sorted keys,
 * monotone starts, counts that agree with pointers) the first time it is
 * used, and marked good in an atomic byte, so lookups after that are pure
 * binary searches. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctk4-internal.h"

/* ---- lazily allocated "block checked" bytes ------------------------------ */

static int alloc_checked(void *arg)
{
	profdb_hpctk *db = arg;
	return profdb__block_state_alloc(&db->ok, db->n_profiles, db->n_ctxs, db->n_traces);
}

int profdb__hpctk_checked_slow(const profdb_hpctk *db, _Atomic unsigned char *const *which,
                               uint64_t i, int *ok)
{
	profdb_hpctk *mut = (profdb_hpctk *)db;
	int r = profdb__once_run(&mut->checked_once, alloc_checked, mut);
	if (r < 0)
		return r;
	*ok = atomic_load_explicit(&(*which)[i], memory_order_acquire);
	return 0;
}

void profdb__hpctk_mark_checked(_Atomic unsigned char *const *which, uint64_t i)
{
	atomic_store_explicit(&(*which)[i], 1, memory_order_release);
}

/* ---- open-time checks ----------------------------------------------------- */

int profdb__hpctk_profile_open(profdb_hpctk *db)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_PROFILE];
	hpctk_section infos;
	const unsigned char *p;
	int r;
	if ((r = profdb__hpctk_section_read(in, 0x10, HL_PROF_HEADER, 8, "Profile Info section", &infos)) < 0 ||
	    (r = profdb__hpctk_section_read(in, 0x20, HL_PROF_HEADER, 8, "Identifier Tuple section",
	                            &db->idtuples)) < 0)
		return r;
	if (infos.size < HL_PROFILES)
		return profdb__fail(-EBADMSG, "%s: Profile Info section at 0x%" PRIx64 " is %" PRIu64
		                    " bytes, its header needs 13", in->name, infos.off, infos.size);
	if ((r = profdb__range(in, infos.off, HL_PROFILES, "Profile Info section", &p)) < 0)
		return r;
	db->p_profiles = hl_profiles_ptr(p);
	db->n_profiles = hl_profiles_count(p);
	db->sz_profile = hl_profiles_stride(p);
	if (!db->present[PROFDB_HPCTK_META] && db->sz_profile == HL_PROFILE_DEV)
		db->layout = PROFDB_HPCTK_DEVSTAGE;
	unsigned min = db->layout == PROFDB_HPCTK_DEVSTAGE ? HL_PROFILE_DEV : HL_PROFILE;
	if (db->sz_profile < min)
		return profdb__fail(-EBADMSG,
		                    "%s: profile stride %" PRIu32 " at 0x%" PRIx64 " is below the "
		                    "minimum %u of the %s layout", in->name, db->sz_profile,
		                    infos.off + 0x0c, min,
		                    db->layout == PROFDB_HPCTK_DEVSTAGE ? "dev-stage" : "4.0");
	return profdb__hpctk_array(in, &infos, db->p_profiles, db->n_profiles, db->sz_profile,
	                   "profile array");
}

int profdb__hpctk_cct_open(profdb_hpctk *db)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_CCT];
	hpctk_section infos;
	const unsigned char *p;
	int r = profdb__hpctk_section_read(in, 0x10, HL_CCT_HEADER, 8, "Context Info section", &infos);
	if (r < 0)
		return r;
	if (infos.size < HL_PROFILES)
		return profdb__fail(-EBADMSG, "%s: Context Info section at 0x%" PRIx64 " is %" PRIu64
		                    " bytes, its header needs 13", in->name, infos.off, infos.size);
	if ((r = profdb__range(in, infos.off, HL_CTXS, "Context Info section", &p)) < 0)
		return r;
	db->p_ctxs = hl_ctxs_ptr(p);
	db->n_ctxs = hl_ctxs_count(p);
	db->sz_ctx = hl_ctxs_stride(p);
	if (db->sz_ctx < HL_CTXINFO)
		return profdb__fail(-EBADMSG, "%s: context stride %" PRIu32 " at 0x%" PRIx64
		                    " is below the minimum 32", in->name, db->sz_ctx,
		                    infos.off + 0x0c);
	return profdb__hpctk_array(in, &infos, db->p_ctxs, db->n_ctxs, db->sz_ctx, "context info array");
}

/* ---- planes ---------------------------------------------------------------- */

/* The two layouts of a value plane (doc/FORMATS.md; layout-internal.h). */
typedef struct plane_shape {
	uint8_t idx_key, idx_stride;   /* index: key U16/U32 @0, start U64 after it */
	uint8_t val_key, val_stride;   /* values: key U16/U32 @0, F64 after it */
} plane_shape;

static const plane_shape PROFILE_SHAPE = {PROFDB_FIELD_U32, HL_PROF_INDEX,
                                          PROFDB_FIELD_U16, HL_PROF_VALUE};
static const plane_shape CCT_SHAPE = {PROFDB_FIELD_U16, HL_CCT_INDEX,
                                      PROFDB_FIELD_U32, HL_CCT_VALUE};

static void plane_views(const plane_shape *s, const unsigned char *idx, uint64_t n_idx,
                        const unsigned char *val, uint64_t n_val, profdb_view *index,
                        profdb_view *values)
{
	profdb__hpctk_view(index, idx, n_idx, s->idx_stride, s->idx_key,
	                   (uint8_t)profdb_field_size(s->idx_key), PROFDB_FIELD_U64);
	profdb__hpctk_view(values, val, n_val, s->val_stride, s->val_key,
	                   (uint8_t)profdb_field_size(s->val_key), PROFDB_FIELD_F64);
}

static uint32_t key_at(const unsigned char *p, unsigned type)
{
	return type == PROFDB_FIELD_U16 ? profdb__le16(p) : profdb__le32(p);
}

/* A value block as its header describes it. */
typedef struct block {
	uint64_t header;             /* offset of the header, for messages */
	uint64_t idx, n_idx, val, n_val;
} block;

/* Where the two arrays of block @p b lie, checked inside the file. The
 * header is read from the mapping at every use, and a mapped file may be
 * rewritten in place after its block was validated, so this runs every
 * time (a few comparisons): a changed header gives an error or other
 * values, never a view outside the mapping. */
static int locate_plane(const profdb__input *in, const char *what, const plane_shape *s,
                        const block *b, const unsigned char **idx, const unsigned char **val)
{
	uint64_t idx_bytes, val_bytes;
	int r;
	*idx = *val = NULL;
	if ((b->n_idx == 0) != (b->n_val == 0))
		return profdb__fail(-EBADMSG,
		                    "%s: %s at 0x%" PRIx64 " has %" PRIu64 " index entries but %"
		                    PRIu64 " values", in->name, what, b->header, b->n_idx, b->n_val);
	if (b->n_idx == 0)   /* an empty plane's pointers are never used */
		return 0;
	if ((r = profdb__mul(in, b->n_idx, s->idx_stride, what, &idx_bytes)) < 0 ||
	    (r = profdb__mul(in, b->n_val, s->val_stride, what, &val_bytes)) < 0 ||
	    (r = profdb__span(in, 0, in->size - 8, b->idx, idx_bytes, "value index array", idx)) < 0 ||
	    (r = profdb__span(in, 0, in->size - 8, b->val, val_bytes, "value array", val)) < 0)
		return profdb__fail(r, "%s (%s at 0x%" PRIx64 ")", profdb__message(), what, b->header);
	return 0;
}

/* What a search or a scan relies on inside the located arrays: sorted
 * keys, monotone starts. Checked once per block. */
static int check_plane(const profdb__input *in, const char *what, const plane_shape *s,
                       const block *b, const unsigned char *idx, const unsigned char *val)
{
	uint64_t n_idx = b->n_idx, n_val = b->n_val;
	unsigned is = s->idx_stride, vs = s->val_stride, ik = profdb_field_size(s->idx_key);
	if (n_idx == 0)
		return 0;
	if (profdb__le64(idx + ik) != 0)
		return profdb__fail(-EBADMSG,
		                    "%s: %s at 0x%" PRIx64 ": first index entry starts at value %"
		                    PRIu64 ", not 0", in->name, what, b->header,
		                    profdb__le64(idx + ik));
	for (uint64_t i = 0; i < n_idx; i++) {
		const unsigned char *e = idx + i * is;
		uint64_t start = profdb__le64(e + ik);
		uint64_t end = i + 1 < n_idx ? profdb__le64(e + is + ik) : n_val;
		if (i > 0 && key_at(e, s->idx_key) <= key_at(e - is, s->idx_key))
			return profdb__fail(-EBADMSG,
			                    "%s: %s at 0x%" PRIx64 ": index at 0x%" PRIx64 " is not "
			                    "sorted (key %" PRIu32 " after %" PRIu32 ")", in->name, what,
			                    b->header, b->idx + i * is, key_at(e, s->idx_key),
			                    key_at(e - is, s->idx_key));
		if (end < start || end > n_val)
			return profdb__fail(-EBADMSG,
			                    "%s: %s at 0x%" PRIx64 ": index entry at 0x%" PRIx64
			                    " gives values [%" PRIu64 ", %" PRIu64 ") of %" PRIu64,
			                    in->name, what, b->header, b->idx + i * is, start, end, n_val);
		for (uint64_t j = start + 1; j < end; j++) {
			const unsigned char *v = val + j * vs;
			if (key_at(v, s->val_key) <= key_at(v - vs, s->val_key))
				return profdb__fail(-EBADMSG,
				                    "%s: %s at 0x%" PRIx64 ": values at 0x%" PRIx64
				                    " are not sorted (key %" PRIu32 " after %" PRIu32 ")",
				                    in->name, what, b->header, b->val + j * vs,
				                    key_at(v, s->val_key), key_at(v - vs, s->val_key));
		}
	}
	return 0;
}

/* The views of block @p b of input @p f: located at every use, their
 * order checked on first use only. */
static int plane_of(const profdb_hpctk *db, profdb_hpctk_file f, const char *what,
                    const plane_shape *s, _Atomic unsigned char *const *checked, uint64_t i,
                    const block *b, profdb_view *index, profdb_view *values)
{
	const profdb__input *in = &db->in[f];
	const unsigned char *idx = NULL, *val = NULL;
	int ok, r = profdb__hpctk_checked(db, checked, i, &ok);
	if (r == 0)
		r = locate_plane(in, what, s, b, &idx, &val);
	if (r == 0)
		plane_views(s, idx, b->n_idx, val, b->n_idx ? b->n_val : 0, index, values);
	/* a block is compared with the other files here, once, not at open
	 * (cross.c): a profile block's edges, a context block's profiles */
	if (r == 0 && !ok && (r = check_plane(in, what, s, b, idx, val)) == 0 &&
	    (r = f == PROFDB_HPCTK_PROFILE
	             ? profdb__hpctk_cross_block(db, (uint32_t)i, index, values)
	             : profdb__hpctk_cross_context(db, (uint32_t)i, b->val, values)) == 0)
		profdb__hpctk_mark_checked(checked, i);
	if (r < 0)
		plane_views(s, NULL, 0, NULL, 0, index, values);   /* empty, with the layout */
	return r;
}

static int profile_record(const profdb_hpctk *db, uint32_t i, const unsigned char **p)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_PROFILE);
	if (r < 0)
		return r;
	if (i >= db->n_profiles)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " does not exist (%" PRIu32 " profiles)",
		                    i, db->n_profiles);
	return profdb__range(&db->in[PROFDB_HPCTK_PROFILE], db->p_profiles + (uint64_t)i * db->sz_profile,
	                     db->sz_profile, "profile info", p);
}

PROFDB_EXPORT int64_t profdb_hpctk_profile_count(const profdb_hpctk *db)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_PROFILE);
	return r < 0 ? r : (int64_t)db->n_profiles;
}

/* The identifier tuple of a profile record: its offset and length (0, 0
 * when it has none). */
static int idtuple(const profdb_hpctk *db, const unsigned char *p, uint64_t *pos, uint32_t *n)
{
	const unsigned char *t;
	const profdb__input *in = &db->in[PROFDB_HPCTK_PROFILE];
	uint64_t tuple = hl_profile_idtuple(p), lo = db->idtuples.off, hi = lo + db->idtuples.size;
	int r;
	*pos = 0;
	*n = 0;
	if (tuple == 0)
		return 0;
	if ((r = profdb__span(in, lo, hi, tuple, HL_IDTUPLE, "identifier tuple", &t)) < 0)
		return r;
	uint32_t count = hl_idtuple_count(t);
	if ((r = profdb__span(in, lo, hi, tuple, HL_IDTUPLE + HL_ID * (uint64_t)count,
	                      "identifier tuple", NULL)) < 0)
		return r;
	*pos = tuple;
	*n = count;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_profile_at(const profdb_hpctk *db, uint32_t i,
                                          profdb_hpctk_profile *out)
{
	const unsigned char *p;
	uint64_t pos;
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_profile_at: NULL output");
	memset(out, 0, sizeof *out);
	out->index = i;
	out->n_values = hl_profile_n_values(p);
	out->n_contexts = hl_profile_n_ctxs(p);
	out->is_summary = db->layout == PROFDB_HPCTK_DEVSTAGE ? i == 0 : (hl_profile_flags(p) & 1);
	return idtuple(db, p, &pos, &out->n_ids);
}

PROFDB_EXPORT int profdb_hpctk_profile_id_at(const profdb_hpctk *db, uint32_t profile,
                                             uint32_t i, profdb_hpctk_id *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const unsigned char *p, *e;
	uint64_t pos;
	uint32_t n;
	if (!out)   /* before any other check: a NULL output is always -EINVAL */
		return profdb__fail(-EINVAL, "profdb_hpctk_profile_id_at: NULL output");
	int r = profile_record(db, profile, &p);
	if (r < 0)
		return r;
	if ((r = idtuple(db, p, &pos, &n)) < 0)
		return r;
	if (i >= n)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has %" PRIu32 " identifiers, not %"
		                    PRIu32, profile, n, i + 1);
	e = db->in[PROFDB_HPCTK_PROFILE].base + pos + HL_IDTUPLE + HL_ID * (uint64_t)i;
	out->kind = hl_id_kind(e);
	out->flags = hl_id_flags(e);
	out->logical_id = hl_id_logical(e);
	out->physical_id = hl_id_physical(e);
	return 0;
}

/* The value block profile @p i's record describes. */
static int profile_block(const profdb_hpctk *db, uint32_t i, block *b)
{
	const unsigned char *p;
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	*b = (block){.header = db->p_profiles + (uint64_t)i * db->sz_profile,
	             .idx = hl_profile_ctx_index(p), .n_idx = hl_profile_n_ctxs(p),
	             .val = hl_profile_values(p), .n_val = hl_profile_n_values(p)};
	return 0;
}

int profdb__hpctk_profile_plane(const profdb_hpctk *db, uint32_t i, profdb_view *index,
                                profdb_view *values)
{
	block b;
	if (!index || !values)
		return profdb__fail(-EINVAL, "profdb_hpctk_profile_plane: NULL output");
	int r = profile_block(db, i, &b);
	if (r < 0)
		return r;
	return plane_of(db, PROFDB_HPCTK_PROFILE, "profile value block", &PROFILE_SHAPE,
	                &db->ok.profile, i, &b, index, values);
}

int profdb__hpctk_profile_declared(const profdb_hpctk *db, uint32_t i, uint64_t *n_values)
{
	block b;
	const unsigned char *idx, *val;
	*n_values = 0;
	int r = profile_block(db, i, &b);
	if (r < 0 || (r = locate_plane(&db->in[PROFDB_HPCTK_PROFILE], "profile value block",
	                               &PROFILE_SHAPE, &b, &idx, &val)) < 0)
		return r;
	*n_values = b.n_idx ? b.n_val : 0;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_profile_plane(const profdb_hpctk *db, uint32_t i,
                                             profdb_view *index, profdb_view *values)
{
	return profdb__hpctk_profile_plane(db, i, index, values);
}

PROFDB_EXPORT int64_t profdb_hpctk_cct_slot_count(const profdb_hpctk *db)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_CCT);
	return r < 0 ? r : (int64_t)db->n_ctxs;
}

/* Context @p ctx's entry of cct.db's context table (ctx < n_ctxs). */
static int context_block(const profdb_hpctk *db, uint32_t ctx, block *b)
{
	const unsigned char *p;
	uint64_t at = db->p_ctxs + (uint64_t)ctx * db->sz_ctx;
	int r = profdb__range(&db->in[PROFDB_HPCTK_CCT], at, db->sz_ctx, "context info", &p);
	if (r < 0)
		return r;
	*b = (block){.header = at, .idx = hl_ctxinfo_metric_index(p),
	             .n_idx = hl_ctxinfo_n_metrics(p), .val = hl_ctxinfo_values(p),
	             .n_val = hl_ctxinfo_n_values(p)};
	return 0;
}

static int context_plane(const profdb_hpctk *db, uint32_t ctx, profdb_view *index,
                         profdb_view *values)
{
	if (!index || !values)
		return profdb__fail(-EINVAL, "profdb_hpctk_context_plane: NULL output");
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_CCT);
	if (r < 0)
		return r;
	if (ctx >= db->n_ctxs) {
		/* Ids beyond the table simply have no values. */
		plane_views(&CCT_SHAPE, NULL, 0, NULL, 0, index, values);
		return 0;
	}
	block b;
	if ((r = context_block(db, ctx, &b)) < 0)
		return r;
	return plane_of(db, PROFDB_HPCTK_CCT, "context value block", &CCT_SHAPE, &db->ok.ctx, ctx,
	                &b, index, values);
}

int profdb__hpctk_context_declared(const profdb_hpctk *db, uint32_t ctx, uint64_t *n_values)
{
	const unsigned char *idx, *val;
	block b;
	*n_values = 0;
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_CCT);
	if (r < 0 || ctx >= db->n_ctxs || (r = context_block(db, ctx, &b)) < 0)
		return r;
	if ((r = locate_plane(&db->in[PROFDB_HPCTK_CCT], "context value block", &CCT_SHAPE, &b,
	                      &idx, &val)) < 0)
		return r;
	*n_values = b.n_idx ? b.n_val : 0;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_context_plane(const profdb_hpctk *db, uint32_t ctx,
                                             profdb_view *index, profdb_view *values)
{
	return context_plane(db, ctx, index, values);
}

/* ---- point lookups ----------------------------------------------------------- */

/* The F64 of the record keyed @p key in the run of index record @p ikey:
 * two searches through the core view search. */
static int lookup(const profdb_view *index, const profdb_view *values, uint32_t ikey,
                  uint32_t key, double *value)
{
	uint64_t i, j;
	*value = 0;
	if (profdb__hpctk_find(index, ikey, &i) != 1)
		return 0;
	profdb_view run;
	profdb__hpctk_run(index, i, values, &run);
	if (profdb__hpctk_find(&run, key, &j) != 1)
		return 0;
	*value = profdb__hpctk_f64(&run, j);
	return 1;
}

/* With meta.db, @p metric must be an id it defines (a propagated or a
 * summary statistic id: both may be asked of either file). */
static int known_metric(const profdb_hpctk *db, uint32_t metric)
{
	if (!db->present[PROFDB_HPCTK_META])
		return 0;
	/* Once the table is built (the lookups' steady state) read the sets
	 * without the call chain of the lazy build. */
	if (!atomic_load_explicit(&db->metrics_once.done, memory_order_acquire) ||
	    db->metrics_once.result < 0) {
		int r = profdb__hpctk_metric_ids(db);
		if (r < 0)
			return r;
	}
	if (profdb__hpctk_bit(db->prop_ids, metric) || profdb__hpctk_bit(db->stat_ids, metric))
		return 0;
	return profdb__fail(-ENOENT, "metric id %" PRIu32 " is not a propagated or summary "
	                    "statistic id of meta.db", metric);
}

PROFDB_EXPORT int profdb_hpctk_value(const profdb_hpctk *db, uint32_t profile, uint32_t ctx,
                                     uint32_t metric, double *value)
{
	profdb_view index, values;
	if (!value)
		return profdb__fail(-EINVAL, "profdb_hpctk_value: NULL output");
	*value = 0;
	int r = profdb__hpctk_profile_plane(db, profile, &index, &values);
	if (r < 0 || (r = known_metric(db, metric)) < 0)
		return r;
	return lookup(&index, &values, ctx, metric, value);
}

PROFDB_EXPORT int profdb_hpctk_value_cct(const profdb_hpctk *db, uint32_t profile, uint32_t ctx,
                                         uint32_t metric, double *value)
{
	profdb_view index, values;
	if (!value)
		return profdb__fail(-EINVAL, "profdb_hpctk_value_cct: NULL output");
	*value = 0;
	int r = context_plane(db, ctx, &index, &values);
	if (r < 0 || (r = known_metric(db, metric)) < 0)
		return r;
	if (db->present[PROFDB_HPCTK_PROFILE] && profile >= db->n_profiles)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " does not exist (%" PRIu32 " profiles)",
		                    profile, db->n_profiles);
	return lookup(&index, &values, metric, profile, value);
}
