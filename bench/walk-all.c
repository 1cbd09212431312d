/* walk-all — read every item of an HPCToolkit 4.0 database once, in a fresh
 * process: the whole-process counterpart of "hpctesttool from_path + walk
 * every value" in shared/notes/performance.md. bench-hpctk4 --walk-all runs
 * it under /usr/bin/time -v for wall time and peak RSS.
 *
 *   walk-all DBDIR
 *
 * Visits: title, identifier kinds, every metric with its propagations and
 * summaries, every load module, source file and function, every context of
 * the tree (depth-first walk, each record decoded), every profile with its
 * identifier tuple and every (context, metric, value) of its plane, every
 * (context, metric, profile, value) of cct.db, and every trace element.
 * Prints one line of counts and a checksum (so nothing can be skipped). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb/profdb.h"
#include "../tests/hpctk-views.h"

static uint64_t mix(uint64_t acc, uint64_t v)
{
	return (acc ^ v) * 0x100000001b3u;
}

static uint64_t bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* Resident anonymous memory (heap, stacks) in KiB, from /proc/self/status:
 * unlike the peak RSS that /usr/bin/time reports, it leaves out the mapped
 * file pages (page cache, shared, reclaimable). */
static long anon_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "RssAnon:", 8) == 0)
			v = strtol(line + 8, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static int fail(const char *what, int64_t r)
{
	fprintf(stderr, "walk-all: %s: error %" PRId64 ": %s\n", what, r, profdb_error_message());
	return 1;
}

int main(int argc, char **argv)
{
	profdb_hpctk *db;
	uint64_t acc = 0, n_ctx = 0, n_pv = 0, n_cv = 0, n_te = 0, n_meta = 0;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: walk-all DBDIR\n");
		return 2;
	}
	if ((r = profdb_hpctk_open(&db, argv[1], NULL)) < 0)
		return fail("open", r);

	if (profdb_hpctk_has(db, PROFDB_HPCTK_META)) {
		profdb_str title, desc, s;
		int copied;
		if ((r = profdb_hpctk_title(db, &title, &desc)) < 0)
			return fail("title", r);
		acc = mix(acc, title.len + desc.len);
		int nk = (int)profdb_hpctk_id_kind_count(db);
		for (int i = 0; i < nk; i++)
			if (profdb_hpctk_id_kind_at(db, (uint32_t)i, &s) == 0)
				acc = mix(acc, (uint64_t)(s.len ? s.ptr[0] : 0));
		int nm = (int)profdb_hpctk_metric_count(db);
		if (nm < 0)
			return fail("metric_count", nm);
		for (int m = 0; m < nm; m++) {
			profdb_hpctk_metric md;
			if ((r = profdb_hpctk_metric_at(db, (uint32_t)m, &md)) < 0)
				return fail("metric_get", r);
			for (uint32_t i = 0; i < md.n_props; i++) {
				profdb_hpctk_prop p;
				if ((r = profdb_hpctk_metric_prop_at(db, (uint32_t)m, i, &p)) < 0)
					return fail("metric_prop", r);
				acc = mix(acc, p.prop_metric_id);
			}
			for (uint32_t i = 0; i < md.n_summaries; i++) {
				profdb_hpctk_summary su;
				if ((r = profdb_hpctk_metric_summary_at(db, (uint32_t)m, i, &su)) < 0)
					return fail("metric_summary", r);
				acc = mix(acc, su.stat_metric_id);
			}
			n_meta++;
		}
		int64_t n = profdb_hpctk_module_count(db);
		for (int64_t i = 0; i < n; i++)
			if (profdb_hpctk_module_at(db, (uint32_t)i, &s) == 0)
				acc = mix(acc, (uint64_t)(s.len ? s.ptr[0] : 0)), n_meta++;
		n = profdb_hpctk_file_count(db);
		for (int64_t i = 0; i < n; i++)
			if (profdb_hpctk_file_at(db, (uint32_t)i, &s, &copied) == 0)
				acc = mix(acc, (uint64_t)(s.len ? s.ptr[0] : 0)), n_meta++;
		n = profdb_hpctk_function_count(db);
		for (int64_t i = 0; i < n; i++) {
			profdb_hpctk_function f;
			if (profdb_hpctk_function_at(db, (uint32_t)i, &f) == 0)
				acc = mix(acc, f.offset), n_meta++;
		}
		profdb_hpctk_walk *w;
		profdb_hpctk_context c;
		uint32_t depth;
		if ((r = profdb_hpctk_walk_new(&w, db)) < 0)
			return fail("walk_new", r);
		while ((r = profdb_hpctk_walk_next(w, &c, &depth)) == 1) {
			acc = mix(acc, c.id + (uint64_t)depth + c.function + c.line);
			n_ctx++;
		}
		profdb_hpctk_walk_free(w);
		if (r < 0)
			return fail("walk_next", r);
	}

	if (profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE)) {
		int64_t np = profdb_hpctk_profile_count(db);
		for (int64_t i = 0; i < np; i++) {
			profdb_hpctk_profile pr;
			tv_plane pl;
			profdb_view run;
			if ((r = profdb_hpctk_profile_at(db, (uint32_t)i, &pr)) < 0)
				return fail("profile_get", r);
			for (uint32_t k = 0; k < pr.n_ids; k++) {
				profdb_hpctk_id id;
				if (profdb_hpctk_profile_id_at(db, (uint32_t)i, k, &id) == 0)
					acc = mix(acc, id.logical_id + id.physical_id);
			}
			if ((r = tv_profile_plane(db, (uint32_t)i, &pl)) < 0)
				return fail("profile_plane", r);
			for (uint64_t k = 0; k < pl.index.count; k++) {
				uint32_t ctx;
				tv_plane_at(&pl, k, &ctx, &run);
				for (uint64_t j = 0; j < run.count; j++) {
					uint32_t metric;
					double v;
					tv_run_at(&run, j, &metric, &v);
					acc += (ctx ^ metric) + bits(v);
				}
				n_pv += run.count;
			}
		}
	}

	if (profdb_hpctk_has(db, PROFDB_HPCTK_CCT)) {
		int64_t nc = profdb_hpctk_cct_slot_count(db);
		for (int64_t i = 0; i < nc; i++) {
			tv_plane pl;
			profdb_view run;
			if ((r = tv_context_plane(db, (uint32_t)i, &pl)) < 0)
				return fail("context_plane", r);
			for (uint64_t k = 0; k < pl.index.count; k++) {
				uint32_t metric;
				tv_plane_at(&pl, k, &metric, &run);
				for (uint64_t j = 0; j < run.count; j++) {
					uint32_t prof;
					double v;
					tv_run_at(&run, j, &prof, &v);
					acc += (metric ^ prof) + bits(v);
				}
				n_cv += run.count;
			}
		}
	}

	if (profdb_hpctk_has(db, PROFDB_HPCTK_TRACE)) {
		int64_t nt = profdb_hpctk_trace_count(db);
		for (int64_t i = 0; i < nt; i++) {
			profdb_hpctk_trace t;
			if ((r = profdb_hpctk_trace_line_at(db, (uint32_t)i, &t)) < 0)
				return fail("trace_get", r);
			for (uint64_t k = 0; k < t.samples.count; k++) {
				uint64_t time;
				uint32_t ctx;
				tv_sample(&t, k, &time, &ctx);
				acc += time ^ ctx;
			}
			n_te += t.samples.count;
		}
	}
	long anon = anon_kib();   /* before close: the library's indexes are still there */
	profdb_hpctk_close(db);
	printf("walk-all: contexts=%" PRIu64 ", meta_items=%" PRIu64 ", profile_values=%" PRIu64
	       ", cct_values=%" PRIu64 ", trace_elems=%" PRIu64 ", anon_kib_at_end=%ld, checksum=%016"
	       PRIx64 "\n", n_ctx, n_meta, n_pv, n_cv, n_te, anon, acc);
	return 0;
}
