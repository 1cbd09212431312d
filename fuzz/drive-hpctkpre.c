/* See drive-hpctkpre.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctkpre.h"

#define CHECK(cond, what)                                                                  \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "drive-hpctkpre: invariant violated: %s (%s:%d)\n", \
			        what, __FILE__, __LINE__);                                 \
			abort();                                                           \
		}                                                                          \
	} while (0)

#define CAP_ITEMS 4096u
#define CAP_VALUES 65536u

void fuzz_hpctkpre_failure(int r)
{
	CHECK(r == -EINVAL || r == -ENOENT || r == -EBADMSG || r == -ENODATA ||
	      r == -EPROTONOSUPPORT || r == -ENOTSUP || r == -ENOMEM || r == -EFBIG,
	      "documented error code");
	CHECK(profdb_error_message()[0] != 0, "error message set");
}

static int ok(fuzz_pre_stats *st, int strict, int r)
{
	if (r >= 0)
		return 1;
	if (strict) {
		fprintf(stderr, "drive-hpctkpre: strict input failed: %d %s\n", r,
		        profdb_error_message());
		abort();
	}
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

/* Every pair of a plane, and the binary searches agree with the scan. */
static void drive_plane(const profdb_hpctkpre_plane *p, fuzz_pre_stats *st)
{
	uint64_t budget = CAP_VALUES;
	for (uint64_t i = 0; i < p->n_index && budget; i++) {
		uint32_t key;
		profdb_hpctkpre_run run, again;
		CHECK(profdb_hpctkpre_plane_at(p, i, &key, &run) == 0, "plane_at in range");
		CHECK(profdb_hpctkpre_plane_find(p, key, &again) == 1, "plane_find of a key");
		CHECK(again.values == run.values && again.count == run.count, "plane_find run");
		for (uint64_t k = 0; k < run.count && budget; k++, budget--) {
			uint32_t vk;
			double v, w;
			CHECK(profdb_hpctkpre_run_at(&run, k, &vk, &v) == 0, "run_at in range");
			CHECK(profdb_hpctkpre_run_find(&run, vk, &w) == 1, "run_find of a key");
			CHECK(bits(v) == bits(w), "run_find value");
			st->values++;
		}
		CHECK(profdb_hpctkpre_run_at(&run, run.count, NULL, NULL) == -ENOENT, "run end");
	}
	CHECK(profdb_hpctkpre_plane_at(p, p->n_index, NULL, NULL) == -ENOENT, "plane end");
}

static void drive_meta(const profdb_hpctkpre *db, const profdb_hpctkpre_info *in, int strict,
                       fuzz_pre_stats *st)
{
	for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++) {
		for (uint32_t i = 0; i < in->n_table[t] && i < CAP_ITEMS; i++) {
			int64_t id;
			const char *name;
			CHECK(profdb_hpctkpre_table_get(db, t, i, &id, &name) == 0 && name, "table entry");
		}
		CHECK(profdb_hpctkpre_table_get(db, t, in->n_table[t], NULL, NULL) == -ENOENT,
		      "table end");
	}
	for (uint32_t i = 0; i < in->n_metrics && i < CAP_ITEMS; i++) {
		profdb_hpctkpre_metric m;
		uint32_t back;
		CHECK(profdb_hpctkpre_metric_get(db, i, &m) == 0, "metric get");
		CHECK(m.name && m.formula && m.formula_type && m.units, "metric strings");
		CHECK(profdb_hpctkpre_metric_find(db, m.is_summary, m.id, &back) == 1 && back == i,
		      "metric find");
	}
	uint32_t roots = 0;
	for (uint32_t i = 0; i < in->n_contexts && i < CAP_ITEMS; i++) {
		profdb_hpctkpre_context c;
		uint32_t back;
		CHECK(profdb_hpctkpre_context_get(db, i, &c) == 0, "context get");
		CHECK(c.parent == PROFDB_NONE || c.parent < i, "parent before child");
		CHECK(c.first_child == PROFDB_NONE || (c.first_child > i && c.first_child < in->n_contexts),
		      "first child after parent");
		CHECK(c.next_sibling == PROFDB_NONE || (c.next_sibling > i && c.next_sibling < in->n_contexts),
		      "sibling after");
		CHECK(c.procedure && c.file && c.module, "context strings");
		CHECK(profdb_hpctkpre_context_find(db, c.id, &back) == 1 && back == i, "context find");
		if (c.parent == PROFDB_NONE) {
			CHECK(c.depth == 0, "root depth");
			roots++;
		} else {
			profdb_hpctkpre_context par;
			CHECK(profdb_hpctkpre_context_get(db, c.parent, &par) == 0, "parent get");
			CHECK(c.depth == par.depth + 1, "depth");
		}
		/* values of the context in every profile, through profile.db */
		if (c.id >= 0)
			for (uint32_t p = 0; p < in->n_profiles && p < 64; p++) {
				double v;
				int r = profdb_hpctkpre_value(db, p, (uint32_t)c.id, 0, &v);
				ok(st, strict, r);
			}
	}
	(void)roots;
	CHECK(profdb_hpctkpre_context_get(db, in->n_contexts, &(profdb_hpctkpre_context){0}) ==
	      -ENOENT, "context end");
}

static void drive_values(const profdb_hpctkpre *db, const profdb_hpctkpre_info *in, int strict,
                         fuzz_pre_stats *st)
{
	for (uint32_t p = 0; p < in->n_profiles && p < CAP_ITEMS; p++) {
		profdb_hpctkpre_profile pr;
		profdb_hpctkpre_plane pl;
		if (!ok(st, strict, profdb_hpctkpre_profile_get(db, p, &pr)))
			continue;
		for (uint32_t k = 0; k < pr.n_ids && k < 64; k++) {
			profdb_hpctkpre_id id;
			if (ok(st, strict, profdb_hpctkpre_profile_id(db, p, k, &id)))
				CHECK(id.kind_name != NULL, "kind name");
		}
		if (!ok(st, strict, profdb_hpctkpre_profile_plane(db, p, &pl)))
			continue;
		CHECK(pl.index_key_size == 4 && pl.value_key_size == 2, "profile plane keys");
		drive_plane(&pl, st);
		/* the second call takes the "already validated" path */
		profdb_hpctkpre_plane again;
		CHECK(profdb_hpctkpre_profile_plane(db, p, &again) == 0 && again.n_values == pl.n_values,
		      "plane stable");
	}
	for (uint32_t c = 0; c < in->n_ctx_slots && c < CAP_ITEMS; c++) {
		profdb_hpctkpre_plane pl;
		if (!ok(st, strict, profdb_hpctkpre_context_plane(db, c, &pl)))
			continue;
		CHECK(pl.index_key_size == 2 && pl.value_key_size == 4, "context plane keys");
		drive_plane(&pl, st);
	}
	if (in->n_profiles)
		CHECK(profdb_hpctkpre_profile_plane(db, in->n_profiles, &(profdb_hpctkpre_plane){0}) ==
		      -ENOENT, "profile end");
}

static void drive_traces(const profdb_hpctkpre *db, const profdb_hpctkpre_info *in, int strict,
                         fuzz_pre_stats *st)
{
	for (uint32_t i = 0; i < in->n_traces && i < CAP_ITEMS; i++) {
		profdb_hpctkpre_trace t;
		if (!ok(st, strict, profdb_hpctkpre_trace_get(db, i, &t)))
			continue;
		uint64_t prev = 0, idx, first, last;
		for (uint64_t k = 0; k < t.count && k < CAP_VALUES; k++) {
			uint64_t time;
			uint32_t ctx;
			CHECK(profdb_hpctkpre_trace_at(&t, k, &time, &ctx) == 0, "trace_at");
			CHECK(k == 0 || time >= prev, "trace sorted");
			prev = time;
			int r = profdb_hpctkpre_trace_seek(&t, time, &idx);
			CHECK(r == 1 && idx >= k, "seek finds the sample in effect");
			st->samples++;
		}
		if (t.count) {
			uint64_t t0;
			profdb_hpctkpre_trace_at(&t, 0, &t0, NULL);
			CHECK(t0 == 0 || profdb_hpctkpre_trace_seek(&t, t0 - 1, &idx) == 0, "seek before");
		}
		/* [0, UINT64_MAX) holds everything but samples at UINT64_MAX itself */
		CHECK(profdb_hpctkpre_trace_window(&t, 0, UINT64_MAX, &first, &last) == 0 &&
		      first == 0 && last <= t.count, "window all");
		if (last < t.count) {
			uint64_t tl;
			profdb_hpctkpre_trace_at(&t, last, &tl, NULL);
			CHECK(tl == UINT64_MAX, "window ends at UINT64_MAX");
		}
	}
}

void fuzz_hpctkpre_drive(const profdb_hpctkpre *db, int strict, fuzz_pre_stats *st)
{
	profdb_hpctkpre_info in;
	CHECK(profdb_hpctkpre_get_info(db, &in) == 0 && in.title, "info");
	for (int f = 0; f < PROFDB_HPCTKPRE_NFILES; f++) {
		uint8_t ma, mi;
		int r = profdb_hpctkpre_version(db, (profdb_hpctkpre_file)f, &ma, &mi);
		CHECK(r == 0 || r == -ENOENT, "version");
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

int fuzz_hpctkpre_run(const profdb_blob files[PROFDB_HPCTKPRE_NFILES], int strict,
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
			if (strict && pass == 0) {
				fprintf(stderr, "drive-hpctkpre: strict input did not open: %s\n",
				        profdb_error_message());
				abort();
			}
			fuzz_hpctkpre_failure(r);
			CHECK(db == NULL, "NULL handle on failure");
			continue;
		}
		fuzz_hpctkpre_drive(db, strict && pass == 0, st);
		profdb_hpctkpre_close(db);
	}
	return first;
}
