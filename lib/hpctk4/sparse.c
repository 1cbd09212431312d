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
	size_t np = db->n_profiles, nc = db->n_ctxs, nt = db->n_traces;
	db->profile_ok = calloc(np ? np : 1, 1);
	db->ctx_ok = calloc(nc ? nc : 1, 1);
	db->trace_ok = calloc(nt ? nt : 1, 1);
	if (!db->profile_ok || !db->ctx_ok || !db->trace_ok)
		return profdb__fail(-ENOMEM, "out of memory");
	return 0;
}

int profdb__hpctk_checked(const profdb_hpctk *db, _Atomic unsigned char *const *which, uint64_t i,
                  int *ok)
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
	if ((r = profdb__hpctk_section_read(in, 0x10, 0x30, 8, "Profile Info section", &infos)) < 0 ||
	    (r = profdb__hpctk_section_read(in, 0x20, 0x30, 8, "Identifier Tuple section",
	                            &db->idtuples)) < 0)
		return r;
	if (infos.size < 0x0d)
		return profdb__fail(-EBADMSG, "%s: Profile Info section at 0x%" PRIx64 " is %" PRIu64
		                    " bytes, its header needs 13", in->name, infos.off, infos.size);
	if ((r = profdb__range(in, infos.off, 0x0d, "Profile Info section", &p)) < 0)
		return r;
	db->p_profiles = profdb__le64(p);
	db->n_profiles = profdb__le32(p + 8);
	db->sz_profile = p[0x0c];
	if (!db->present[PROFDB_HPCTK_META] && db->sz_profile == 0x28)
		db->layout = PROFDB_HPCTK_DEVSTAGE;
	unsigned min = db->layout == PROFDB_HPCTK_DEVSTAGE ? 0x28 : 0x30;
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
	int r = profdb__hpctk_section_read(in, 0x10, 0x20, 8, "Context Info section", &infos);
	if (r < 0)
		return r;
	if (infos.size < 0x0d)
		return profdb__fail(-EBADMSG, "%s: Context Info section at 0x%" PRIx64 " is %" PRIu64
		                    " bytes, its header needs 13", in->name, infos.off, infos.size);
	if ((r = profdb__range(in, infos.off, 0x0d, "Context Info section", &p)) < 0)
		return r;
	db->p_ctxs = profdb__le64(p);
	db->n_ctxs = profdb__le32(p + 8);
	db->sz_ctx = p[0x0c];
	if (db->sz_ctx < 0x20)
		return profdb__fail(-EBADMSG, "%s: context stride %" PRIu32 " at 0x%" PRIx64
		                    " is below the minimum 32", in->name, db->sz_ctx,
		                    infos.off + 0x0c);
	return profdb__hpctk_array(in, &infos, db->p_ctxs, db->n_ctxs, db->sz_ctx, "context info array");
}

/* ---- planes ---------------------------------------------------------------- */

static uint32_t key_at(const unsigned char *p, unsigned size)
{
	return size == 2 ? profdb__le16(p) : profdb__le32(p);
}

/* Everything about a plane that a binary search or a scan relies on. */
static int validate_plane(const profdb__input *in, const char *what, uint64_t header,
                          uint64_t idx_off, uint64_t n_idx, unsigned idx_key,
                          uint64_t val_off, uint64_t n_val, unsigned val_key,
                          profdb_hpctk_plane *out)
{
	uint64_t idx_bytes, val_bytes;
	const unsigned char *idx = NULL, *val = NULL;
	unsigned is = idx_key + 8, vs = val_key + 8;
	int r;

	memset(out, 0, sizeof *out);
	out->index_key_size = (uint8_t)idx_key;
	out->value_key_size = (uint8_t)val_key;
	if ((n_idx == 0) != (n_val == 0))
		return profdb__fail(-EBADMSG,
		                    "%s: %s at 0x%" PRIx64 " has %" PRIu64 " index entries but %"
		                    PRIu64 " values", in->name, what, header, n_idx, n_val);
	if (n_idx == 0)
		return 0;
	if ((r = profdb__mul(in, n_idx, is, what, &idx_bytes)) < 0 ||
	    (r = profdb__mul(in, n_val, vs, what, &val_bytes)) < 0 ||
	    (r = profdb__span(in, 0, in->size - 8, idx_off, idx_bytes, "value index array", &idx)) < 0 ||
	    (r = profdb__span(in, 0, in->size - 8, val_off, val_bytes, "value array", &val)) < 0)
		return profdb__fail(r, "%s (%s at 0x%" PRIx64 ")", profdb__message(), what, header);
	if (profdb__le64(idx + idx_key) != 0)
		return profdb__fail(-EBADMSG,
		                    "%s: %s at 0x%" PRIx64 ": first index entry starts at value %"
		                    PRIu64 ", not 0", in->name, what, header,
		                    profdb__le64(idx + idx_key));
	for (uint64_t i = 0; i < n_idx; i++) {
		const unsigned char *e = idx + i * is;
		uint64_t start = profdb__le64(e + idx_key);
		uint64_t end = i + 1 < n_idx ? profdb__le64(e + is + idx_key) : n_val;
		if (i > 0 && key_at(e, idx_key) <= key_at(e - is, idx_key))
			return profdb__fail(-EBADMSG,
			                    "%s: %s at 0x%" PRIx64 ": index at 0x%" PRIx64 " is not "
			                    "sorted (key %" PRIu32 " after %" PRIu32 ")", in->name, what,
			                    header, idx_off + i * is, key_at(e, idx_key),
			                    key_at(e - is, idx_key));
		if (end < start || end > n_val)
			return profdb__fail(-EBADMSG,
			                    "%s: %s at 0x%" PRIx64 ": index entry at 0x%" PRIx64
			                    " gives values [%" PRIu64 ", %" PRIu64 ") of %" PRIu64,
			                    in->name, what, header, idx_off + i * is, start, end, n_val);
		for (uint64_t j = start + 1; j < end; j++) {
			const unsigned char *v = val + j * vs;
			if (key_at(v, val_key) <= key_at(v - vs, val_key))
				return profdb__fail(-EBADMSG,
				                    "%s: %s at 0x%" PRIx64 ": values at 0x%" PRIx64
				                    " are not sorted (key %" PRIu32 " after %" PRIu32 ")",
				                    in->name, what, header, val_off + j * vs,
				                    key_at(v, val_key), key_at(v - vs, val_key));
		}
	}
	out->index = idx;
	out->values = val;
	out->n_index = n_idx;
	out->n_values = n_val;
	return 0;
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

PROFDB_EXPORT int profdb_hpctk_profile_get(const profdb_hpctk *db, uint32_t i,
                                           profdb_hpctk_profile *out)
{
	const unsigned char *p, *t;
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_profile_get: NULL output");
	memset(out, 0, sizeof *out);
	out->index = i;
	out->n_values = profdb__le64(p);
	out->n_contexts = profdb__le32(p + 0x10);
	out->is_summary = db->layout == PROFDB_HPCTK_DEVSTAGE ? i == 0 : (profdb__le32(p + 0x28) & 1);
	uint64_t tuple = profdb__le64(p + 0x20);
	if (tuple == 0)
		return 0;
	const profdb__input *in = &db->in[PROFDB_HPCTK_PROFILE];
	uint64_t lo = db->idtuples.off, hi = lo + db->idtuples.size;
	if ((r = profdb__span(in, lo, hi, tuple, 8, "identifier tuple", &t)) < 0)
		return r;
	out->n_ids = profdb__le16(t);
	if ((r = profdb__span(in, lo, hi, tuple, 8 + 16 * (uint64_t)out->n_ids, "identifier tuple",
	                      NULL)) < 0)
		return r;
	out->pos = tuple;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_profile_id(const profdb_hpctk *db, const profdb_hpctk_profile *p,
                                          uint32_t i, profdb_hpctk_id *out)
{
	const unsigned char *e;
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_PROFILE);
	if (r < 0)
		return r;
	if (!p || !out)
		return profdb__fail(-EINVAL, "profdb_hpctk_profile_id: NULL argument");
	if (i >= p->n_ids)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has %" PRIu32 " identifiers, not %"
		                    PRIu32, p->index, p->n_ids, i + 1);
	const profdb__input *in = &db->in[PROFDB_HPCTK_PROFILE];
	r = profdb__span(in, db->idtuples.off, db->idtuples.off + db->idtuples.size,
	                 p->pos + 8 + 16 * (uint64_t)i, 16, "identifier", &e);
	if (r < 0)
		return r;
	out->kind = e[0];
	out->flags = profdb__le16(e + 2);
	out->logical_id = profdb__le32(e + 4);
	out->physical_id = profdb__le64(e + 8);
	return 0;
}

/* A value block as its header describes it. */
typedef struct block {
	uint64_t header;             /* offset of the header, for messages */
	uint64_t idx, n_idx, val, n_val;
	unsigned idx_key, val_key;   /* key widths: 4/2 profile-major, 2/4 context-major */
} block;

/* The plane of block @p b of input @p f: validated on first use, then only
 * rebuilt from the header, which the validation already vouched for. */
static int plane_of(const profdb_hpctk *db, profdb_hpctk_file f, const char *what,
                    _Atomic unsigned char *const *checked, uint64_t i, const block *b,
                    profdb_hpctk_plane *out)
{
	const profdb__input *in = &db->in[f];
	int ok, r = profdb__hpctk_checked(db, checked, i, &ok);
	if (r < 0)
		return r;
	if (!ok) {
		r = validate_plane(in, what, b->header, b->idx, b->n_idx, b->idx_key, b->val,
		                   b->n_val, b->val_key, out);
		if (r == 0)
			profdb__hpctk_mark_checked(checked, i);
		return r;
	}
	/* An empty plane's pointers were never checked: do not form base +
	 * pointer from them (it may overflow). */
	out->index = b->n_idx ? in->base + b->idx : NULL;
	out->values = b->n_idx ? in->base + b->val : NULL;
	out->n_index = b->n_idx;
	out->n_values = b->n_val;
	out->index_key_size = (uint8_t)b->idx_key;
	out->value_key_size = (uint8_t)b->val_key;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_profile_plane(const profdb_hpctk *db, uint32_t i,
                                             profdb_hpctk_plane *out)
{
	const unsigned char *p;
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_profile_plane: NULL output");
	block b = {db->p_profiles + (uint64_t)i * db->sz_profile, profdb__le64(p + 0x18),
	           profdb__le32(p + 0x10), profdb__le64(p + 8), profdb__le64(p), 4, 2};
	return plane_of(db, PROFDB_HPCTK_PROFILE, "profile value block", &db->profile_ok, i, &b,
	                out);
}

PROFDB_EXPORT int64_t profdb_hpctk_cct_slot_count(const profdb_hpctk *db)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_CCT);
	return r < 0 ? r : (int64_t)db->n_ctxs;
}

PROFDB_EXPORT int profdb_hpctk_context_plane(const profdb_hpctk *db, uint32_t ctx,
                                             profdb_hpctk_plane *out)
{
	const unsigned char *p;
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_CCT);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_context_plane: NULL output");
	if (ctx >= db->n_ctxs) {
		/* Ids beyond the table simply have no values. */
		memset(out, 0, sizeof *out);
		out->index_key_size = 2;
		out->value_key_size = 4;
		return 0;
	}
	uint64_t at = db->p_ctxs + (uint64_t)ctx * db->sz_ctx;
	if ((r = profdb__range(&db->in[PROFDB_HPCTK_CCT], at, db->sz_ctx, "context info", &p)) < 0)
		return r;
	block b = {at, profdb__le64(p + 0x18), profdb__le16(p + 0x10), profdb__le64(p + 8),
	           profdb__le64(p), 2, 4};
	return plane_of(db, PROFDB_HPCTK_CCT, "context value block", &db->ctx_ok, ctx, &b, out);
}

/* ---- plane and run accessors (no database needed: already validated) ---- */

PROFDB_EXPORT int profdb_hpctk_plane_at(const profdb_hpctk_plane *p, uint64_t i, uint32_t *key,
                                        profdb_hpctk_run *run)
{
	if (!p || i >= p->n_index)
		return profdb__fail(p ? -ENOENT : -EINVAL, "plane index %" PRIu64 " out of range", i);
	unsigned is = p->index_key_size + 8u, vs = p->value_key_size + 8u;
	const unsigned char *e = p->index + i * is;
	uint64_t start = profdb__le64(e + p->index_key_size);
	uint64_t end = i + 1 < p->n_index ? profdb__le64(e + is + p->index_key_size) : p->n_values;
	if (key)
		*key = key_at(e, p->index_key_size);
	if (run) {
		run->values = p->values + start * vs;
		run->count = end - start;
		run->key_size = p->value_key_size;
	}
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_plane_find(const profdb_hpctk_plane *p, uint32_t key,
                                          profdb_hpctk_run *run)
{
	if (!p)
		return profdb__fail(-EINVAL, "profdb_hpctk_plane_find: NULL plane");
	unsigned is = p->index_key_size + 8u;
	uint64_t lo = 0, hi = p->n_index;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (key_at(p->index + mid * is, p->index_key_size) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->n_index || key_at(p->index + lo * is, p->index_key_size) != key)
		return 0;
	profdb_hpctk_plane_at(p, lo, NULL, run);
	return 1;
}

PROFDB_EXPORT int profdb_hpctk_run_at(const profdb_hpctk_run *r, uint64_t i, uint32_t *key,
                                      double *value)
{
	if (!r || i >= r->count)
		return profdb__fail(r ? -ENOENT : -EINVAL, "run index %" PRIu64 " out of range", i);
	const unsigned char *v = r->values + i * (r->key_size + 8u);
	if (key)
		*key = key_at(v, r->key_size);
	if (value)
		*value = profdb__f64_bits(profdb__le64(v + r->key_size));
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_run_find(const profdb_hpctk_run *r, uint32_t key, double *value)
{
	if (!r)
		return profdb__fail(-EINVAL, "profdb_hpctk_run_find: NULL run");
	unsigned vs = r->key_size + 8u;
	uint64_t lo = 0, hi = r->count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (key_at(r->values + mid * vs, r->key_size) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->count || key_at(r->values + lo * vs, r->key_size) != key)
		return 0;
	if (value)
		*value = profdb__f64_bits(profdb__le64(r->values + lo * vs + r->key_size));
	return 1;
}

PROFDB_EXPORT int profdb_hpctk_value(const profdb_hpctk *db, uint32_t profile, uint32_t ctx,
                                     uint32_t metric, double *value)
{
	profdb_hpctk_plane p;
	profdb_hpctk_run run;
	int r = profdb_hpctk_profile_plane(db, profile, &p);
	if (r < 0)
		return r;
	if (!profdb_hpctk_plane_find(&p, ctx, &run))
		return 0;
	return profdb_hpctk_run_find(&run, metric, value);
}

PROFDB_EXPORT int profdb_hpctk_cct_value(const profdb_hpctk *db, uint32_t ctx, uint32_t metric,
                                         uint32_t profile, double *value)
{
	profdb_hpctk_plane p;
	profdb_hpctk_run run;
	int r = profdb_hpctk_context_plane(db, ctx, &p);
	if (r < 0)
		return r;
	if (!profdb_hpctk_plane_find(&p, metric, &run))
		return 0;
	return profdb_hpctk_run_find(&run, profile, value);
}
