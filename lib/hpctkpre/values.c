/* profile.db and cct.db: profiles, identifier tuples and the sparse value
 * planes (all big-endian), handed out as two profdb_views into the mapping.
 * A plane is validated completely the first time it is used -- inside the
 * file, sorted keys, monotone starts, the end marker -- and then marked good
 * in an atomic byte, so later lookups are profdb_view_find() over the
 * mapping. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"

/* ---- planes ---------------------------------------------------------------- */

static uint32_t key_at(const unsigned char *p, unsigned size)
{
	return size == 2 ? profdb__be16(p) : profdb__be32(p);
}

/* A value block as its info record describes it. */
typedef struct block {
	const char *what;
	uint64_t info;                 /* offset of the info record, for messages */
	uint64_t off, n_val, n_idx;    /* n_idx excludes the end marker */
	unsigned val_key, idx_key;     /* key sizes: 2/4 profile.db, 4/2 cct.db */
	uint32_t end_key;
} block;

profdb_view profdb__hpctkpre_view(const unsigned char *base, uint64_t count, unsigned stride,
                                  unsigned key_offset, unsigned key_size, unsigned value_offset,
                                  profdb_field value_type)
{
	profdb_view v;
	memset(&v, 0, sizeof v);
	v.base = count ? base : NULL;
	v.count = count;
	v.stride = stride;
	v.key_offset = (uint8_t)key_offset;
	v.key_type = key_size == 2 ? PROFDB_FIELD_U16 : key_size == 4 ? PROFDB_FIELD_U32
	                                                              : PROFDB_FIELD_U64;
	v.value_offset = (uint8_t)value_offset;
	v.value_type = (uint8_t)value_type;
	v.big_endian = 1;
	return v;
}

/* The two views of block @p b whose records start at @p val and @p idx:
 * values {f64, key}, index {key, u64 start} without the end pair. */
static void views(const block *b, const unsigned char *val, const unsigned char *idx,
                  profdb_view *index, profdb_view *values)
{
	*values = profdb__hpctkpre_view(val, b->n_val, b->val_key + 8u, 8, b->val_key, 0,
	                                PROFDB_FIELD_F64);
	*index = profdb__hpctkpre_view(idx, b->n_idx, b->idx_key + 8u, 0, b->idx_key, b->idx_key,
	                               PROFDB_FIELD_U64);
}

/* The end pair (marker, n_val) closes the index. */
static int check_end(const profdb__input *in, const block *b, const unsigned char *idx,
                     uint64_t at)
{
	const unsigned char *end = idx + b->n_idx * (b->idx_key + 8u);
	if (key_at(end, b->idx_key) == b->end_key && profdb__be64(end + b->idx_key) == b->n_val)
		return 0;
	return profdb__fail(-EBADMSG, "%s: %s of the info at 0x%" PRIx64 ": no end marker (0x%"
	                    PRIx32 ", %" PRIu64 ") at 0x%" PRIx64 " (found 0x%" PRIx32 ", %" PRIu64
	                    ")", in->name, b->what, b->info, b->end_key, b->n_val, at,
	                    key_at(end, b->idx_key), profdb__be64(end + b->idx_key));
}

/* Everything a binary search or a scan of the plane relies on. A start
 * equal to the next start is an empty run (the writer keeps contexts whose
 * values are all zero). */
/* Where the block's arrays lie, checked inside the file (before @p hi).
 * Its info record is read from the mapping at every use, and a mapped file
 * may be rewritten in place after the block was validated, so this runs
 * every time (a few comparisons). */
static int locate(const profdb__input *in, uint64_t hi, const block *b,
                  const unsigned char **val, const unsigned char **idx)
{
	uint64_t vb, ib;
	unsigned vs = b->val_key + 8u, is = b->idx_key + 8u;
	int r;
	if ((r = profdb__mul(in, b->n_val, vs, b->what, &vb)) < 0 ||
	    (r = profdb__mul(in, b->n_idx + 1, is, b->what, &ib)) < 0)
		return r;
	if (b->off > UINT64_MAX - vb)
		return profdb__fail(-EBADMSG, "%s: %s of the info at 0x%" PRIx64 ": offset 0x%"
		                    PRIx64 " + %" PRIu64 " bytes overflows", in->name, b->what,
		                    b->info, b->off, vb);
	if ((r = profdb__span(in, 0, hi, b->off, vb, "value array", val)) < 0 ||
	    (r = profdb__span(in, 0, hi, b->off + vb, ib, "value index", idx)) < 0)
		return profdb__fail(r, "%s (%s of the info at 0x%" PRIx64 ")", profdb__message(),
		                    b->what, b->info);
	return 0;
}

/* What a search or a scan relies on inside the located arrays; once per
 * block. */
static int validate(const profdb__input *in, const block *b, const unsigned char *val,
                    const unsigned char *idx)
{
	uint64_t vb = b->n_val * (b->val_key + 8u);
	unsigned vs = b->val_key + 8u, is = b->idx_key + 8u;
	int r;
	if ((r = check_end(in, b, idx, b->off + vb + b->n_idx * is)) < 0)
		return r;
	for (uint64_t i = 0; i < b->n_idx; i++) {
		const unsigned char *e = idx + i * is;
		uint64_t start = profdb__be64(e + b->idx_key), stop = profdb__be64(e + is + b->idx_key);
		uint64_t at = b->off + vb + i * is;
		if (i == 0 && start != 0)
			return profdb__fail(-EBADMSG, "%s: %s at 0x%" PRIx64 ": first index entry "
			                    "starts at value %" PRIu64 ", not 0", in->name, b->what, at,
			                    start);
		if (i > 0 && key_at(e, b->idx_key) <= key_at(e - is, b->idx_key))
			return profdb__fail(-EBADMSG, "%s: %s: index at 0x%" PRIx64 " is not sorted "
			                    "(key %" PRIu32 " after %" PRIu32 ")", in->name, b->what, at,
			                    key_at(e, b->idx_key), key_at(e - is, b->idx_key));
		if (key_at(e, b->idx_key) == b->end_key)
			return profdb__fail(-EBADMSG, "%s: %s: index entry at 0x%" PRIx64 " uses the end "
			                    "marker 0x%" PRIx32 " as a key before the end", in->name,
			                    b->what, at, b->end_key);
		if (stop < start || stop > b->n_val)
			return profdb__fail(-EBADMSG, "%s: %s: index entry at 0x%" PRIx64 " gives values "
			                    "[%" PRIu64 ", %" PRIu64 ") of %" PRIu64, in->name, b->what,
			                    at, start, stop, b->n_val);
		for (uint64_t j = start + 1; j < stop; j++) {
			const unsigned char *v = val + j * vs + 8;   /* {f64, key} */
			if (key_at(v, b->val_key) <= key_at(v - vs, b->val_key))
				return profdb__fail(-EBADMSG, "%s: %s: values at 0x%" PRIx64 " are not "
				                    "sorted (key %" PRIu32 " after %" PRIu32 ")", in->name,
				                    b->what, b->off + j * vs, key_at(v, b->val_key),
				                    key_at(v - vs, b->val_key));
		}
	}
	if (b->n_idx == 0 && b->n_val != 0)
		return profdb__fail(-EBADMSG, "%s: %s of the info at 0x%" PRIx64 " has %" PRIu64
		                    " values but no index entry", in->name, b->what, b->info, b->n_val);
	return 0;
}

/* The views of block @p b: validated on first use, rebuilt from the info
 * record after that. Tolerant mode turns a damaged block into an empty one
 * (with a warning). */
static int plane_of(const profdb_hpctkpre *db, int f, _Atomic unsigned char *ok, const block *b,
                    profdb_view *index, profdb_view *values)
{
	const profdb__input *in = &db->in[f];
	block empty = *b;
	empty.n_val = empty.n_idx = 0;
	views(&empty, NULL, NULL, index, values);
	if (b->n_val == 0 && b->n_idx == 0)
		return 0;   /* empty blocks may point anywhere (even at the footer) */
	const unsigned char *val, *idx;
	int r = locate(in, in->size - 8, b, &val, &idx);   /* before the footer */
	if (r == 0 && !atomic_load_explicit(ok, memory_order_acquire) &&
	    (r = validate(in, b, val, idx)) == 0)
		atomic_store_explicit(ok, 1, memory_order_release);
	if (r < 0)   /* tolerated: index and values stay empty */
		return profdb__tolerate(&db->opts, r, NULL, "the %s of the info at 0x%" PRIx64,
		                        b->what, b->info);
	views(b, val, idx, index, values);
	return 0;
}

static int profile_record(const profdb_hpctkpre *db, uint32_t i, const unsigned char **p)
{
	int r = profdb__hpctkpre_require_data(db, PRE_PROFILE);
	if (r < 0)
		return r;
	if (i >= db->n_profiles)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " does not exist (%" PRIu32
		                    " profiles)", i, db->n_profiles);
	return profdb__range(&db->in[PRE_PROFILE], db->pi_off + (uint64_t)i * PRE_PI_SIZE,
	                     PRE_PI_SIZE, "profile info", p);
}

PROFDB_EXPORT int profdb_hpctkpre_profile_at(const profdb_hpctkpre *db, uint32_t i,
                                             profdb_hpctkpre_profile *out)
{
	const unsigned char *p, *t;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_profile_at: NULL output");
	memset(out, 0, sizeof *out);
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	out->index = i;
	out->is_summary = i == 0;   /* "index 0 is always a summary profile" */
	out->n_values = pre_pi_num_vals(p);
	out->n_contexts = pre_pi_num_nzctxs(p);
	uint64_t tuple = pre_pi_idtuple(p);
	if (tuple == 0)
		return 0;
	const profdb__input *in = &db->in[PRE_PROFILE];
	uint64_t lo = db->idt_off, hi = db->idt_off + db->idt_size;
	if ((r = profdb__span(in, lo, hi, tuple, PRE_IDT_HEAD, "identifier tuple", &t)) < 0)
		return r;
	out->n_ids = pre_idt_length(t);
	return profdb__span(in, lo, hi, tuple, PRE_IDT_HEAD + PRE_IDT_ELEM * (uint64_t)out->n_ids,
	                    "identifier tuple", NULL);
}

PROFDB_EXPORT int profdb_hpctkpre_profile_id_at(const profdb_hpctkpre *db, uint32_t profile,
                                                uint32_t i, profdb_hpctkpre_id *out)
{
	profdb_hpctkpre_profile p;
	const unsigned char *rec, *e;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_profile_id_at: NULL output");
	memset(out, 0, sizeof *out);
	out->kind_name = profdb__hpctkpre_str(NULL);
	int r = profdb_hpctkpre_profile_at(db, profile, &p);
	if (r < 0)
		return r;
	if (i >= p.n_ids)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has %" PRIu32 " identifiers, not %"
		                    PRIu64, profile, p.n_ids, (uint64_t)i + 1);
	profile_record(db, profile, &rec);
	r = profdb__range(&db->in[PRE_PROFILE],
	                  pre_pi_idtuple(rec) + PRE_IDT_HEAD + PRE_IDT_ELEM * (uint64_t)i,
	                  PRE_IDT_ELEM, "identifier", &e);
	if (r < 0)
		return r;
	uint16_t kind = pre_id_kind(e);
	out->kind = kind & 0x3fff;
	out->interpretation = (uint8_t)(kind >> 14);
	out->physical = pre_id_physical(e);
	out->logical = pre_id_logical(e);
	for (uint32_t k = 0; k < db->n_tab[PROFDB_HPCTKPRE_ID_KINDS]; k++)
		if (db->tab[PROFDB_HPCTKPRE_ID_KINDS][k].id == out->kind)
			out->kind_name = profdb__hpctkpre_str(db->tab[PROFDB_HPCTKPRE_ID_KINDS][k].name);
	return 0;
}

/* Clear both outputs (a failing view call leaves empty views). */
static int outputs(profdb_view *index, profdb_view *values, const char *fn)
{
	if (!index || !values)
		return profdb__fail(-EINVAL, "%s: NULL output", fn);
	memset(index, 0, sizeof *index);
	memset(values, 0, sizeof *values);
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_profile_view(const profdb_hpctkpre *db, uint32_t i,
                                               profdb_view *index, profdb_view *values)
{
	const unsigned char *p;
	int r = outputs(index, values, "profdb_hpctkpre_profile_view");
	if (r < 0 || (r = profile_record(db, i, &p)) < 0)
		return r;
	block b = {.what = "profile value block", .info = db->pi_off + (uint64_t)i * PRE_PI_SIZE,
	           .off = pre_pi_block_off(p), .n_val = pre_pi_num_vals(p),
	           .n_idx = pre_pi_num_nzctxs(p), .val_key = PRE_PVAL - PRE_PVAL_METRIC,
	           .idx_key = PRE_PIDX_START, .end_key = PRE_PEND};
	return plane_of(db, PRE_PROFILE, &db->ok.profile[i], &b, index, values);
}

/* The pre-release writer reserved cct.db value blocks but never filled
 * them: every byte is zero (no end marker). Such a block carries nothing. */
static int all_zero(const profdb__input *in, const block *b)
{
	uint64_t len;
	const unsigned char *p;
	if (__builtin_mul_overflow(b->n_val, PRE_CVAL, &len) ||
	    __builtin_add_overflow(len, (b->n_idx + 1) * (uint64_t)PRE_CIDX, &len) ||
	    profdb__span(in, 0, in->size - 8, b->off, len, "value block", &p) < 0)
		return 0;
	for (uint64_t k = 0; k < len; k++)
		if (p[k])
			return 0;
	return 1;
}

PROFDB_EXPORT int profdb_hpctkpre_context_view(const profdb_hpctkpre *db, uint32_t ctx,
                                               profdb_view *index, profdb_view *values)
{
	const unsigned char *p;
	int r = outputs(index, values, "profdb_hpctkpre_context_view");
	if (r < 0 || (r = profdb__hpctkpre_require_data(db, PRE_CCT)) < 0)
		return r;
	if (ctx >= db->n_ctx)
		return profdb__fail(-ENOENT, "cct.db context %" PRIu32 " does not exist (%" PRIu32
		                    " contexts)", ctx, db->n_ctx);
	const profdb__input *in = &db->in[PRE_CCT];
	uint64_t at = db->ci_off + (uint64_t)ctx * PRE_CI_SIZE;
	if ((r = profdb__range(in, at, PRE_CI_SIZE, "context info", &p)) < 0)
		return r;
	block b = {.what = "context value block", .info = at, .off = pre_ci_block_off(p),
	           .n_val = pre_ci_num_vals(p), .n_idx = pre_ci_num_nzmids(p),
	           .val_key = PRE_CVAL - PRE_CVAL_PROFILE, .idx_key = PRE_CIDX_START,
	           .end_key = PRE_CEND};
	block empty = b;
	empty.n_val = empty.n_idx = 0;
	views(&empty, NULL, NULL, index, values);
	if (pre_ci_ctx_id(p) != ctx)
		return profdb__fail(-EBADMSG, "%s: context info at 0x%" PRIx64 " is for context %"
		                    PRIu32 ", expected %" PRIu32 " (entry i describes context i)",
		                    in->name, at, pre_ci_ctx_id(p), ctx);
	/* ok.ctx: 0 unchecked, 1 good, 2 an all-zero block (reads as empty) */
	unsigned char state = atomic_load_explicit(&db->ok.ctx[ctx], memory_order_acquire);
	if (state == 2)
		return 0;
	if ((b.n_val || b.n_idx) && state == 0 && all_zero(in, &b)) {
		profdb_hpctkpre *mut = (profdb_hpctkpre *)db;
		atomic_store_explicit(&db->ok.ctx[ctx], 2, memory_order_release);
		if (!atomic_exchange(&mut->warned_zero_cct, true))
			profdb__warn(&db->opts, "%s: value block of context %" PRIu32 " at 0x%" PRIx64
			             " (info at 0x%" PRIx64 ") is all zeros, as the pre-release writer "
			             "left cct.db; such blocks read as empty (profile.db holds the "
			             "values). Reported once.", in->name, ctx, b.off, at);
		return 0;
	}
	return plane_of(db, PRE_CCT, &db->ok.ctx[ctx], &b, index, values);
}

int profdb__hpctkpre_plane_lookup(const profdb_view *index, const profdb_view *values,
                                  uint32_t key1, uint32_t key2, double *value)
{
	uint64_t i, j;
	*value = 0;
	if (profdb_view_find(index, key1, &i) != 1)
		return 0;
	profdb_view run = profdb_view_run(index, i, values);
	if (profdb_view_find(&run, key2, &j) != 1)
		return 0;
	*value = profdb_view_value(&run, j).as.f64;
	return 1;
}

PROFDB_EXPORT int profdb_hpctkpre_value(const profdb_hpctkpre *db, uint32_t profile,
                                        uint32_t ctx, uint32_t metric, double *value)
{
	profdb_view index, values;
	if (!value)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_value: NULL output");
	*value = 0;
	int r = profdb_hpctkpre_profile_view(db, profile, &index, &values);
	if (r < 0)
		return r;
	return profdb__hpctkpre_plane_lookup(&index, &values, ctx, metric, value);
}
