/* See drive-hpctkpre.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctkpre.h"
#include "fuzz-common.h"

#define CHECK(cond, what) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, "%s", what))

#define CAP_ITEMS 4096u
#define CAP_VALUES 65536u

void fuzz_hpctkpre_failure(int r)
{
	CHECK(fuzz_documented(r), "documented error code");
	CHECK(profdb_error_message()[0] != 0, "error message set");
}

static int ok(fuzz_pre_stats *st, int strict, int r)
{
	if (r >= 0)
		return 1;
	if (strict)
		fuzz_fail(__FILE__, __LINE__, "!strict", "strict input failed: %d", r);
	fuzz_hpctkpre_failure(r);
	st->failures++;
	if (!st->first_error)
		st->first_error = r;
	return 0;
}

static uint64_t bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

/* Every pair of a plane's views: the index is sorted, its runs cover the
 * values, and the binary searches agree with the scan. */
static void drive_plane(const profdb_view *index, const profdb_view *values, fuzz_pre_stats *st)
{
	uint64_t budget = CAP_VALUES;
	CHECK(index->big_endian == 1 && values->big_endian == 1, "big-endian views");
	CHECK(index->count == 0 || profdb_view_value(index, 0).as.u64 == 0, "first run at 0");
	for (uint64_t i = 0; i < index->count && budget; i++) {
		uint64_t key = profdb_view_key(index, i), at;
		CHECK(i == 0 || key > profdb_view_key(index, i - 1), "index sorted");
		CHECK(profdb_view_find(index, key, &at) == 1 && at == i, "find of an index key");
		profdb_view run = profdb_view_run(index, i, values);
		CHECK(run.count == 0 || (run.base >= values->base &&
		      run.base + run.count * run.stride <= values->base + values->count * values->stride),
		      "run inside the values");
		for (uint64_t k = 0; k < run.count && budget; k++, budget--) {
			uint64_t vk = profdb_view_key(&run, k), j;
			profdb_number v = profdb_view_value(&run, k);
			CHECK(v.type == PROFDB_TYPE_F64, "values are f64");
			CHECK(profdb_view_find(&run, vk, &j) == 1 && j == k, "find of a run key");
			CHECK(bits(profdb_view_value(&run, j).as.f64) == bits(v.as.f64), "find value");
			st->values++;
		}
	}
}

static void drive_meta(const profdb_hpctkpre *db, const profdb_hpctkpre_info *in, int strict,
                       fuzz_pre_stats *st)
{
	for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++) {
		profdb_hpctkpre_name e;
		for (uint32_t i = 0; i < in->n_table[t] && i < CAP_ITEMS; i++)
			CHECK(profdb_hpctkpre_table_at(db, t, i, &e) == 0 && e.name.ptr, "table entry");
		CHECK(profdb_hpctkpre_table_at(db, t, in->n_table[t], &e) == -ENOENT &&
		      e.name.len == 0, "table end");
		CHECK(profdb_hpctkpre_table_at(db, t, 0, NULL) == -EINVAL, "table NULL output");
	}
	for (uint32_t i = 0; i < in->n_metrics && i < CAP_ITEMS; i++) {
		profdb_hpctkpre_metric m, back;
		CHECK(profdb_hpctkpre_metric_at(db, i, &m) == 0 && m.index == i, "metric at");
		CHECK(m.name.ptr && m.formula.ptr && m.formula_type.ptr && m.units.ptr,
		      "metric strings");
		CHECK(profdb_hpctkpre_metric_get(db, m.is_summary, m.id, &back) == 0 && back.index == i,
		      "metric get");
	}
	uint32_t roots = 0;
	for (uint32_t i = 0; i < in->n_contexts && i < CAP_ITEMS; i++) {
		profdb_hpctkpre_context c, back;
		CHECK(profdb_hpctkpre_context_at(db, i, &c) == 0, "context at");
		CHECK(c.parent == PROFDB_NONE || c.parent < i, "parent before child");
		CHECK(c.first_child == PROFDB_NONE || (c.first_child > i && c.first_child < in->n_contexts),
		      "first child after parent");
		CHECK(c.next_sibling == PROFDB_NONE || (c.next_sibling > i && c.next_sibling < in->n_contexts),
		      "sibling after");
		CHECK(c.procedure.ptr && c.file.ptr && c.module.ptr, "context strings");
		CHECK(profdb_hpctkpre_context_get(db, c.id, &back) == 0 && back.index == i,
		      "context get");
		if (c.parent == PROFDB_NONE) {
			CHECK(c.depth == 0, "root depth");
			roots++;
		} else {
			profdb_hpctkpre_context par;
			CHECK(profdb_hpctkpre_context_at(db, c.parent, &par) == 0, "parent at");
			CHECK(c.depth == par.depth + 1, "depth");
		}
		/* values of the context in every profile, through profile.db */
		if (c.id >= 0)
			for (uint32_t p = 0; p < in->n_profiles && p < 64; p++) {
				double v = -1;
				int r = profdb_hpctkpre_value(db, p, (uint32_t)c.id, 0, &v);
				CHECK(r != 0 || bits(v) == 0, "not stored clears the value");
				ok(st, strict, r);
			}
	}
	(void)roots;
	CHECK(profdb_hpctkpre_context_at(db, in->n_contexts, &(profdb_hpctkpre_context){0}) ==
	      -ENOENT, "context end");
}

static void drive_values(const profdb_hpctkpre *db, const profdb_hpctkpre_info *in, int strict,
                         fuzz_pre_stats *st)
{
	for (uint32_t p = 0; p < in->n_profiles && p < CAP_ITEMS; p++) {
		profdb_hpctkpre_profile pr;
		profdb_view ix, vals;
		if (!ok(st, strict, profdb_hpctkpre_profile_at(db, p, &pr)))
			continue;
		for (uint32_t k = 0; k < pr.n_ids && k < 64; k++) {
			profdb_hpctkpre_id id;
			if (ok(st, strict, profdb_hpctkpre_profile_id_at(db, p, k, &id)))
				CHECK(id.kind_name.ptr != NULL, "kind name");
		}
		if (!ok(st, strict, profdb_hpctkpre_profile_view(db, p, &ix, &vals)))
			continue;
		CHECK(ix.key_type == PROFDB_FIELD_U32 && vals.key_type == PROFDB_FIELD_U16,
		      "profile plane keys");
		drive_plane(&ix, &vals, st);
		/* the second call takes the "already validated" path */
		profdb_view ix2, vals2;
		CHECK(profdb_hpctkpre_profile_view(db, p, &ix2, &vals2) == 0 &&
		      vals2.count == vals.count && ix2.base == ix.base, "plane stable");
	}
	for (uint32_t c = 0; c < in->n_ctx_slots && c < CAP_ITEMS; c++) {
		profdb_view ix, vals;
		if (!ok(st, strict, profdb_hpctkpre_context_view(db, c, &ix, &vals)))
			continue;
		CHECK(ix.key_type == PROFDB_FIELD_U16 && vals.key_type == PROFDB_FIELD_U32,
		      "context plane keys");
		drive_plane(&ix, &vals, st);
	}
	profdb_view x, y;
	if (in->n_profiles)
		CHECK(profdb_hpctkpre_profile_view(db, in->n_profiles, &x, &y) == -ENOENT &&
		      x.count == 0 && y.count == 0, "profile end");
	if (in->n_ctx_slots)
		CHECK(profdb_hpctkpre_context_view(db, in->n_ctx_slots, &x, &y) == -ENOENT,
		      "context slot end");
}

static void drive_traces(const profdb_hpctkpre *db, const profdb_hpctkpre_info *in, int strict,
                         fuzz_pre_stats *st)
{
	for (uint32_t i = 0; i < in->n_traces && i < CAP_ITEMS; i++) {
		profdb_hpctkpre_trace t;
		if (!ok(st, strict, profdb_hpctkpre_trace_line_at(db, i, &t)))
			continue;
		const profdb_view *v = &t.samples;
		uint64_t prev = 0, idx, first, last;
		for (uint64_t k = 0; k < v->count && k < CAP_VALUES; k++) {
			uint64_t time = profdb_view_key(v, k);
			CHECK(k == 0 || time >= prev, "trace sorted");
			prev = time;
			CHECK(profdb_view_in_effect(v, time, &idx) == 1 && idx >= k,
			      "in_effect finds the sample in effect");
			CHECK(profdb_view_seek(v, time, &idx) == 0 && idx <= k, "seek: lower bound");
			st->samples++;
		}
		if (v->count) {
			uint64_t t0 = profdb_view_key(v, 0);
			CHECK(t0 == 0 || profdb_view_in_effect(v, t0 - 1, &idx) == 0, "in_effect before");
		}
		/* [0, UINT64_MAX) holds everything but samples at UINT64_MAX itself */
		CHECK(profdb_view_window(v, 0, UINT64_MAX, &first, &last) == 0 && first == 0 &&
		      last <= v->count, "window all");
		if (last < v->count)
			CHECK(profdb_view_key(v, last) == UINT64_MAX, "window ends at UINT64_MAX");
	}
}

void fuzz_hpctkpre_drive(const profdb_hpctkpre *db, int strict, fuzz_pre_stats *st)
{
	profdb_hpctkpre_info in;
	CHECK(profdb_hpctkpre_get_info(db, &in) == 0 && in.title.ptr, "info");
	for (int f = 0; f < PROFDB_HPCTKPRE_NFILES; f++) {
		uint8_t ma, mi;
		int r = profdb_hpctkpre_version(db, (profdb_hpctkpre_file)f, &ma, &mi);
		CHECK(r == 0 || r == -ENOENT, "version");
		CHECK(profdb_hpctkpre_version(db, (profdb_hpctkpre_file)f, NULL, &mi) == -EINVAL,
		      "version NULL output");
	}
	drive_meta(db, &in, strict, st);
	drive_values(db, &in, strict, st);
	drive_traces(db, &in, strict, st);
	int r = profdb_hpctkpre_check(db);
	if (!strict && r < 0)
		fuzz_hpctkpre_failure(r);
	else if (r < 0)
		ok(st, 0, r);   /* mismatched sets are errors of check() only */
}

int fuzz_hpctkpre_run(const profdb_input files[PROFDB_HPCTKPRE_NFILES], int strict,
                      fuzz_pre_stats *st)
{
	profdb_hpctkpre *db;
	int first = 0;
	for (int pass = 0; pass < 2; pass++) {
		profdb_options o = {0};
		o.size = sizeof o;
		o.flags = pass ? PROFDB_OPEN_TOLERANT : 0;
		o.max_memory = (uint64_t)64 << 20;
		int r = profdb_hpctkpre_open_mem(&db, files, &o);
		if (pass == 0)
			first = r;
		if (r < 0) {
			if (strict && pass == 0)
				fuzz_fail(__FILE__, __LINE__, "!strict", "strict input did not open: %d", r);
			fuzz_hpctkpre_failure(r);
			CHECK(db == NULL, "NULL handle on failure");
			continue;
		}
		fuzz_hpctkpre_drive(db, strict && pass == 0, st);
		profdb_hpctkpre_close(db);
	}
	return first;
}
