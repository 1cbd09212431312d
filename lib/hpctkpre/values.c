/* profile.db and cct.db: profiles, identifier tuples and the sparse value
 * planes (all big-endian). A plane is validated completely the first time it
 * is used -- inside the file, sorted keys, monotone starts, the end marker --
 * and then marked good in an atomic byte, so later lookups are plain binary
 * searches over the mapping. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"

/* ---- open-time checks ----------------------------------------------------- */

int profdb__hpctkpre_profile_open(profdb_hpctkpre *db)
{
	const profdb__input *in = &db->in[PRE_PROFILE];
	const unsigned char *h;
	uint64_t need;
	int r = profdb__range(in, 0, 0x38, "profile.db header", &h);
	if (r < 0)
		return r;
	db->n_profiles = profdb__be32(h + 0x12);
	uint16_t nsec = profdb__be16(h + 0x16);
	uint64_t pi_size = profdb__be64(h + 0x18), idt_size = profdb__be64(h + 0x28);
	db->pi_off = profdb__be64(h + 0x20);
	db->idt_off = profdb__be64(h + 0x30);
	db->idt_size = idt_size;
	if (nsec < 2)
		return profdb__fail(-EBADMSG, "%s: header at 0x16 lists %u sections, profile.db "
		                    "needs 2 (profile infos, identifier tuples)", in->name, nsec);
	if ((r = profdb__mul(in, db->n_profiles, PRE_PI_SIZE, "profile info array", &need)) < 0)
		return r;
	if (need > pi_size)
		return profdb__fail(-EBADMSG, "%s: %" PRIu32 " profiles (0x12) need %" PRIu64
		                    " bytes but the Profile Info section (0x18) has %" PRIu64,
		                    in->name, db->n_profiles, need, pi_size);
	if ((r = profdb__hpctkpre_section(in, 0x38, db->pi_off, pi_size, "Profile Info section")) < 0 ||
	    (r = profdb__hpctkpre_section(in, 0x38, db->idt_off, idt_size,
	                                  "Identifier Tuple section")) < 0)
		return r;
	return 0;
}

int profdb__hpctkpre_cct_open(profdb_hpctkpre *db)
{
	const profdb__input *in = &db->in[PRE_CCT];
	const unsigned char *h;
	uint64_t need;
	int r = profdb__range(in, 0, 0x28, "cct.db header", &h);
	if (r < 0)
		return r;
	db->n_ctx = profdb__be32(h + 0x12);
	uint16_t nsec = profdb__be16(h + 0x16);
	uint64_t size = profdb__be64(h + 0x18);
	db->ci_off = profdb__be64(h + 0x20);
	if (nsec < 1)
		return profdb__fail(-EBADMSG, "%s: header at 0x16 lists no section", in->name);
	if ((r = profdb__mul(in, db->n_ctx, PRE_CI_SIZE, "context info array", &need)) < 0)
		return r;
	if (need > size)
		return profdb__fail(-EBADMSG, "%s: %" PRIu32 " contexts (0x12) need %" PRIu64
		                    " bytes but the Context Info section (0x18) has %" PRIu64,
		                    in->name, db->n_ctx, need, size);
	return profdb__hpctkpre_section(in, 0x28, db->ci_off, size, "Context Info section");
}

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
	unsigned val_key, idx_key;     /* 2/4 profile-major, 4/2 context-major */
	uint32_t end_key;
} block;

static uint64_t idx_off(const block *b)
{
	return b->off + b->n_val * (b->val_key + 8u);
}

/* Everything a binary search or a scan of the plane relies on. The end
 * pair (marker, n_val) closes the index; a start equal to the next start is
 * an empty run (the writer keeps contexts whose values are all zero). */
static int validate(const profdb__input *in, uint64_t hi, const block *b,
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
	const unsigned char *end = *idx + b->n_idx * is;
	if (key_at(end, b->idx_key) != b->end_key || profdb__be64(end + b->idx_key) != b->n_val)
		return profdb__fail(-EBADMSG, "%s: %s of the info at 0x%" PRIx64 ": no end marker "
		                    "(0x%" PRIx32 ", %" PRIu64 ") at 0x%" PRIx64 " (found 0x%" PRIx32
		                    ", %" PRIu64 ")", in->name, b->what, b->info, b->end_key, b->n_val,
		                    b->off + vb + b->n_idx * is, key_at(end, b->idx_key),
		                    profdb__be64(end + b->idx_key));
	for (uint64_t i = 0; i < b->n_idx; i++) {
		const unsigned char *e = *idx + i * is;
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
			const unsigned char *v = *val + j * vs + 8;   /* {f64, key} */
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

static void fill(profdb_hpctkpre_plane *out, const block *b, const unsigned char *val,
                 const unsigned char *idx)
{
	out->values = val;
	out->index = idx;
	out->n_values = b->n_val;
	out->n_index = b->n_idx;
	out->index_key_size = (uint8_t)b->idx_key;
	out->value_key_size = (uint8_t)b->val_key;
}

static void empty_plane(profdb_hpctkpre_plane *out, unsigned idx_key, unsigned val_key)
{
	memset(out, 0, sizeof *out);
	out->index_key_size = (uint8_t)idx_key;
	out->value_key_size = (uint8_t)val_key;
}

/* The plane of block @p b: validated on first use, rebuilt from the info
 * record after that. Tolerant mode turns a damaged block into an empty one
 * (with a warning). */
static int plane_of(const profdb_hpctkpre *db, int f, _Atomic unsigned char *ok, const block *b,
                    profdb_hpctkpre_plane *out)
{
	const profdb__input *in = &db->in[f];
	uint64_t hi = f == PRE_TRACE ? in->size : in->size - 8;   /* before the footer */
	empty_plane(out, b->idx_key, b->val_key);
	if (b->n_val == 0 && b->n_idx == 0)
		return 0;   /* empty blocks may point anywhere (even at the footer) */
	if (atomic_load_explicit(ok, memory_order_acquire)) {
		fill(out, b, in->base + b->off, in->base + idx_off(b));
		return 0;
	}
	const unsigned char *val, *idx;
	int r = validate(in, hi, b, &val, &idx);
	if (r < 0) {
		if (!(db->opts.flags & PROFDB_OPEN_TOLERANT))
			return r;
		profdb__warn(&db->opts, "%s (read as empty: tolerant mode)", profdb__message());
		return 0;
	}
	atomic_store_explicit(ok, 1, memory_order_release);
	fill(out, b, val, idx);
	return 0;
}

static int profile_record(const profdb_hpctkpre *db, uint32_t i, const unsigned char **p)
{
	int r = profdb__hpctkpre_require(db, PRE_PROFILE);
	if (r < 0)
		return r;
	if (i >= db->n_profiles)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " does not exist (%" PRIu32
		                    " profiles)", i, db->n_profiles);
	return profdb__range(&db->in[PRE_PROFILE], db->pi_off + (uint64_t)i * PRE_PI_SIZE,
	                     PRE_PI_SIZE, "profile info", p);
}

PROFDB_EXPORT int profdb_hpctkpre_profile_get(const profdb_hpctkpre *db, uint32_t i,
                                              profdb_hpctkpre_profile *out)
{
	const unsigned char *p, *t;
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_profile_get: NULL output");
	memset(out, 0, sizeof *out);
	out->index = i;
	out->is_summary = i == 0;   /* "index 0 is always a summary profile" */
	out->n_values = profdb__be64(p + 0x20);
	out->n_contexts = profdb__be32(p + 0x28);
	uint64_t tuple = profdb__be64(p);
	if (tuple == 0)
		return 0;
	const profdb__input *in = &db->in[PRE_PROFILE];
	uint64_t lo = db->idt_off, hi = db->idt_off + db->idt_size;
	if ((r = profdb__span(in, lo, hi, tuple, 2, "identifier tuple", &t)) < 0)
		return r;
	out->n_ids = profdb__be16(t);
	return profdb__span(in, lo, hi, tuple, 2 + 18 * (uint64_t)out->n_ids, "identifier tuple",
	                    NULL);
}

PROFDB_EXPORT int profdb_hpctkpre_profile_id(const profdb_hpctkpre *db, uint32_t profile,
                                             uint32_t i, profdb_hpctkpre_id *out)
{
	profdb_hpctkpre_profile p;
	const unsigned char *rec, *e;
	int r = profdb_hpctkpre_profile_get(db, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_profile_id: NULL output");
	if (i >= p.n_ids)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has %" PRIu32 " identifiers, not %"
		                    PRIu64, profile, p.n_ids, (uint64_t)i + 1);
	profile_record(db, profile, &rec);
	r = profdb__range(&db->in[PRE_PROFILE], profdb__be64(rec) + 2 + 18 * (uint64_t)i, 18,
	                  "identifier", &e);
	if (r < 0)
		return r;
	uint16_t kind = profdb__be16(e);
	out->kind = kind & 0x3fff;
	out->interpretation = (uint8_t)(kind >> 14);
	out->physical = profdb__be64(e + 2);
	out->logical = profdb__be64(e + 10);
	out->kind_name = "";
	for (uint32_t k = 0; k < db->n_tab[PROFDB_HPCTKPRE_ID_KINDS]; k++)
		if (db->tab[PROFDB_HPCTKPRE_ID_KINDS][k].id == out->kind)
			out->kind_name = db->tab[PROFDB_HPCTKPRE_ID_KINDS][k].name;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_profile_plane(const profdb_hpctkpre *db, uint32_t i,
                                                profdb_hpctkpre_plane *out)
{
	const unsigned char *p;
	int r = profile_record(db, i, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_profile_plane: NULL output");
	block b = {"profile value block", db->pi_off + (uint64_t)i * PRE_PI_SIZE,
	           profdb__be64(p + 0x2c), profdb__be64(p + 0x20), profdb__be32(p + 0x28),
	           2, 4, PRE_PEND};
	return plane_of(db, PRE_PROFILE, &db->profile_ok[i], &b, out);
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

PROFDB_EXPORT int profdb_hpctkpre_context_plane(const profdb_hpctkpre *db, uint32_t ctx,
                                                profdb_hpctkpre_plane *out)
{
	const unsigned char *p;
	int r = profdb__hpctkpre_require(db, PRE_CCT);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_context_plane: NULL output");
	empty_plane(out, 2, 4);
	if (ctx >= db->n_ctx)
		return 0;   /* ids beyond the table have no values */
	const profdb__input *in = &db->in[PRE_CCT];
	uint64_t at = db->ci_off + (uint64_t)ctx * PRE_CI_SIZE;
	if ((r = profdb__range(in, at, PRE_CI_SIZE, "context info", &p)) < 0)
		return r;
	block b = {"context value block", at, profdb__be64(p + 0x0e), profdb__be64(p + 4),
	           profdb__be16(p + 0x0c), 4, 2, PRE_CEND};
	if (profdb__be32(p) != ctx)
		return profdb__fail(-EBADMSG, "%s: context info at 0x%" PRIx64 " is for context %"
		                    PRIu32 ", expected %" PRIu32 " (entry i describes context i)",
		                    in->name, at, profdb__be32(p), ctx);
	/* ctx_ok: 0 unchecked, 1 good, 2 an all-zero block (reads as empty) */
	unsigned char state = atomic_load_explicit(&db->ctx_ok[ctx], memory_order_acquire);
	if (state == 2)
		return 0;
	if ((b.n_val || b.n_idx) && state == 0 && all_zero(in, &b)) {
		profdb_hpctkpre *mut = (profdb_hpctkpre *)db;
		atomic_store_explicit(&db->ctx_ok[ctx], 2, memory_order_release);
		if (atomic_exchange(&mut->warned_zero_cct, 1) == 0)
			profdb__warn(&db->opts, "%s: value block of context %" PRIu32 " at 0x%" PRIx64
			             " (info at 0x%" PRIx64 ") is all zeros, as the pre-release writer "
			             "left cct.db; such blocks read as empty (profile.db holds the "
			             "values). Reported once.", in->name, ctx, b.off, at);
		return 0;
	}
	return plane_of(db, PRE_CCT, &db->ctx_ok[ctx], &b, out);
}

/* ---- plane and run accessors (already validated) -------------------------- */

PROFDB_EXPORT int profdb_hpctkpre_plane_at(const profdb_hpctkpre_plane *p, uint64_t i,
                                           uint32_t *key, profdb_hpctkpre_run *run)
{
	if (!p || i >= p->n_index)
		return profdb__fail(p ? -ENOENT : -EINVAL, "plane index %" PRIu64 " out of range", i);
	unsigned is = p->index_key_size + 8u, vs = p->value_key_size + 8u;
	const unsigned char *e = p->index + i * is;
	uint64_t start = profdb__be64(e + p->index_key_size);
	uint64_t stop = profdb__be64(e + is + p->index_key_size);   /* the end pair closes */
	if (key)
		*key = key_at(e, p->index_key_size);
	if (run) {
		run->values = p->values + start * vs;
		run->count = stop - start;
		run->key_size = p->value_key_size;
	}
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_plane_find(const profdb_hpctkpre_plane *p, uint32_t key,
                                             profdb_hpctkpre_run *run)
{
	if (!p)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_plane_find: NULL plane");
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
	profdb_hpctkpre_plane_at(p, lo, NULL, run);
	return 1;
}

PROFDB_EXPORT int profdb_hpctkpre_run_at(const profdb_hpctkpre_run *r, uint64_t i,
                                         uint32_t *key, double *value)
{
	if (!r || i >= r->count)
		return profdb__fail(r ? -ENOENT : -EINVAL, "run index %" PRIu64 " out of range", i);
	const unsigned char *v = r->values + i * (r->key_size + 8u);
	if (key)
		*key = key_at(v + 8, r->key_size);
	if (value)
		*value = profdb__f64_bits(profdb__be64(v));
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_run_find(const profdb_hpctkpre_run *r, uint32_t key,
                                           double *value)
{
	if (!r)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_run_find: NULL run");
	unsigned vs = r->key_size + 8u;
	uint64_t lo = 0, hi = r->count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (key_at(r->values + mid * vs + 8, r->key_size) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->count || key_at(r->values + lo * vs + 8, r->key_size) != key)
		return 0;
	if (value)
		*value = profdb__f64_bits(profdb__be64(r->values + lo * vs));
	return 1;
}

PROFDB_EXPORT int profdb_hpctkpre_value(const profdb_hpctkpre *db, uint32_t profile,
                                        uint32_t ctx, uint32_t metric, double *value)
{
	profdb_hpctkpre_plane p;
	profdb_hpctkpre_run run;
	int r = profdb_hpctkpre_profile_plane(db, profile, &p);
	if (r < 0)
		return r;
	if (!profdb_hpctkpre_plane_find(&p, ctx, &run))
		return 0;
	return profdb_hpctkpre_run_find(&run, metric, value);
}
