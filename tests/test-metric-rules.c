/* Combination rules, periods and scales of every backend's metrics
 * (profdb_metric.combine / period / scale), profdb_metric_has_values, and
 * on the real samples: Cube's MIN/MAXDOUBLE metrics combine by MIN/MAX, and
 * hpcrun's scaled totals equal what hpcprof stored in the database it built
 * from the same measurements (doc/model.md, "Combining numbers"); the
 * default metric (profdb_metric_default) and profdb_profile_bytes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "profdb/profdb.h"
#include "writer/writer.h"

static profdb *open_in(const profdb_input *in, size_t n, const char *what)
{
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, in, n, NULL);
	cr_assert_eq(r, 0, "%s: %d %s", what, r, profdb_error_message());
	return db;
}

static profdb_metric metric(const profdb *db, uint32_t id)
{
	profdb_metric m;
	int r = profdb_metric_get(db, id, &m);
	cr_assert_eq(r, 0, "metric %u: %d %s", id, r, profdb_error_message());
	return m;
}

/* Every metric: a known rule, a scale of at least 1 (never the 0 a backend
 * could leave), and the same answer from _at and _get. */
static void check_all(const profdb *db, const char *what)
{
	int64_t n = profdb_metric_count(db);
	cr_assert_geq(n, 0);
	for (int64_t i = 0; i < n; i++) {
		profdb_metric a, g;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &a), 0);
		cr_assert_eq(profdb_metric_get(db, a.id, &g), 0);
		cr_assert(a.combine >= PROFDB_COMBINE_NONE && a.combine <= PROFDB_COMBINE_MAX,
		          "%s: metric %u combine %d", what, a.id, (int)a.combine);
		cr_assert_geq(a.scale, 1, "%s: metric %u scale %g", what, a.id, a.scale);
		cr_assert_eq(a.combine, g.combine, "%s", what);
		cr_assert_eq(a.period, g.period, "%s", what);
		cr_assert_eq(a.scale, g.scale, "%s", what);
		int hv = profdb_metric_has_values(db, a.id);
		cr_assert(hv == 0 || hv == 1, "%s: has_values %d %s", what, hv, profdb_error_message());
		if (a.kind == PROFDB_METRIC_DERIVED)
			cr_assert_eq(hv, 0, "%s: derived metric %u has values", what, a.id);
	}
}

/* ---- HPCToolkit 4.0 ----------------------------------------------------------------- */

static const char *const hpctk_names[TW_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};

static profdb *open_hpctk4(const tw_hpctk4 *d, tw_blob b[TW_NFILES])
{
	profdb_input in[TW_NFILES];
	size_t n = 0;
	cr_assert_eq(tw_hpctk4_write(d, b), 0);
	for (int k = 0; k < TW_NFILES; k++)
		if (b[k].data)
			in[n++] = (profdb_input){hpctk_names[k], b[k].data, b[k].size};
	return open_in(in, n, "hpctk4");
}

static void free_blobs(tw_blob *b, int n)
{
	for (int k = 0; k < n; k++)
		tw_blob_free(&b[k]);
}

Test(metric_rules, hpctk4_sample)
{
	tw_hpctk4 d;
	tw_blob b[TW_NFILES];
	tw_hpctk4_sample(&d);
	profdb *db = open_hpctk4(&d, b);
	check_all(db, "hpctk4 sample");
	/* Propagated ids add across thread profiles, even id 4, whose summary
	 * value is the max statistic of another scope. */
	for (uint32_t id = 0; id <= 4; id++) {
		profdb_metric m = metric(db, id);
		cr_assert_eq(m.combine, PROFDB_COMBINE_SUM, "id %u", id);
		cr_assert_eq(m.period, 0);
		cr_assert_eq(m.scale, 1);
	}
	cr_assert_str_eq(metric(db, 4).statistic.ptr, "max");
	/* Id 5: a statistic-only "$$"/sum. */
	cr_assert_eq(metric(db, 5).kind, PROFDB_METRIC_SUMMARY);
	cr_assert_eq(metric(db, 5).combine, PROFDB_COMBINE_SUM);
	/* Every id of the sample has a non-zero value somewhere. */
	for (uint32_t id = 0; id <= 5; id++)
		cr_assert_eq(profdb_metric_has_values(db, id), 1, "id %u", id);
	cr_assert_eq(profdb_metric_has_values(db, 6), -ENOENT);
	cr_assert_eq(profdb_metric_has_values(NULL, 0), -EINVAL);
	profdb_close(db);
	free_blobs(b, TW_NFILES);
}

/* Statistic-only ids of every kind hpcprof writes: the combine of a "$$"
 * statistic, NONE for a count and a sum of squares. */
Test(metric_rules, hpctk4_statistics)
{
	tw_hpctk4 d;
	tw_blob b[TW_NFILES];
	tw_hpctk4_sample(&d);
	/* The sample's "cycles" (ids 3-5, which its values use) plus four
	 * statistic-only ids. */
	static const tw_propagation props[] = {{2, 3}, {3, 4}};
	static const tw_summary sums[] = {
		{2, "$$", 0, 3}, {2, "$$", 2, 4}, {3, "$$", 0, 5}, {2, "$$", 1, 6}, {3, "$$", 2, 7},
		{2, "1", 0, 8}, {2, "($$^2)", 0, 9}};
	tw_metric ms[2];
	memcpy(ms, d.metrics, sizeof ms);
	ms[1] = (tw_metric){"cycles", 2, props, 7, sums};
	d.metrics = ms;
	profdb *db = open_hpctk4(&d, b);
	check_all(db, "hpctk4 statistics");
	cr_assert_eq(metric(db, 3).combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(metric(db, 6).combine, PROFDB_COMBINE_MIN);
	cr_assert_eq(metric(db, 7).combine, PROFDB_COMBINE_MAX);
	cr_assert_eq(metric(db, 8).combine, PROFDB_COMBINE_NONE);
	cr_assert_eq(metric(db, 9).combine, PROFDB_COMBINE_NONE);
	/* Ids 6-9 have no stored value in the sample's profiles. */
	cr_assert_eq(profdb_metric_has_values(db, 6), 0);
	cr_assert_eq(profdb_metric_has_values(db, 3), 1);
	profdb_close(db);
	free_blobs(b, TW_NFILES);
}

/* One handle, many threads asking at once: one answer (the pass runs once). */
static void *ask(void *arg)
{
	const profdb *db = arg;
	intptr_t sum = 0;
	for (uint32_t id = 0; id <= 5; id++)
		sum += profdb_metric_has_values(db, id);
	return (void *)sum;
}

Test(metric_rules, has_values_threads)
{
	tw_hpctk4 d;
	tw_blob b[TW_NFILES];
	tw_hpctk4_sample(&d);
	profdb *db = open_hpctk4(&d, b);
	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, ask, db), 0);
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(t[i], &r);
		cr_assert_eq((intptr_t)r, 6);
	}
	profdb_close(db);
	free_blobs(b, TW_NFILES);
}

/* ---- pre-release and draft ------------------------------------------------------------ */

Test(metric_rules, prerelease)
{
	static const char *const names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};
	tw_pre d;
	tw_blob b[4];
	profdb_input in[4];
	tw_pre_sample(&d);
	cr_assert_eq(tw_pre_write(&d, b), 0);
	for (int i = 0; i < 4; i++)
		in[i] = (profdb_input){names[i], b[i].data, b[i].size};
	profdb *db = open_in(in, 4, "prerelease");
	check_all(db, "prerelease");
	/* <Metric> 512/256: t="combine" sum(...); 767: a view; <MetricDB> 2/1. */
	cr_assert_eq(metric(db, 512).combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(metric(db, 256).combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(metric(db, 767).combine, PROFDB_COMBINE_NONE);
	cr_assert_eq(metric(db, 2).combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(metric(db, 1).combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(profdb_metric_has_values(db, 767), 0);
	cr_assert_eq(profdb_metric_has_values(db, 1), 1);
	profdb_close(db);
	free_blobs(b, 4);

	tw_blob m;
	cr_assert_eq(tw_draft_write(&m, 0), 0);
	profdb_input one = {"meta.db", m.data, m.size};
	db = open_in(&one, 1, "draft");
	check_all(db, "draft");
	int64_t n = profdb_metric_count(db);
	for (int64_t i = 0; i < n; i++) {
		profdb_metric x;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &x), 0);
		/* "time": raw ids and "$$"/sum summaries */
		cr_assert_eq(x.combine, PROFDB_COMBINE_SUM, "draft metric %u", x.id);
	}
	profdb_close(db);
	tw_blob_free(&m);
}

/* ---- hpcrun ----------------------------------------------------------------------------- */

Test(metric_rules, hpcrun_period_scale)
{
	tw_hpcrun d;
	tw_blob b;
	tw_hpcrun_sample(&d, 4, 1);
	cr_assert_eq(tw_hpcrun_write(&d, &b), 0);
	profdb_input in = {"app-000000-000-7f000101-4242-0.hpcrun", b.data, b.size};
	profdb *db = open_in(&in, 1, "hpcrun");
	check_all(db, "hpcrun");
	profdb_metric cpu = metric(db, 0), cyc = metric(db, 1), gpu = metric(db, 2);
	cr_assert_eq(cpu.combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(cpu.scale, 1);                      /* seconds already */
	cr_assert_eq(cyc.combine, PROFDB_COMBINE_SUM);
	cr_assert_eq(cyc.period, 1000);
	cr_assert_eq(cyc.scale, 1000.0);                 /* hpcprof: raw x period */
	cr_assert_eq(gpu.combine, PROFDB_COMBINE_NONE);  /* formula "#0/2" */
	cr_assert_eq(gpu.scale, 1);
	for (uint32_t id = 0; id < 3; id++)
		cr_assert_eq(profdb_metric_has_values(db, id), 1, "id %u", id);
	profdb_close(db);
	tw_blob_free(&b);
}

/* ---- Cube --------------------------------------------------------------------------------- */

Test(metric_rules, cube_dtypes)
{
	tw_blob b;
	char *anchor = tw_cube_anchor(TW_CUBE_DERIVED);
	cr_assert_eq(tw_cube_write(&b, TW_CUBE_DERIVED, NULL), 0);
	profdb_input in = {"sample.cubex", b.data, b.size};
	profdb *db = open_in(&in, 1, "cube");
	check_all(db, "cube");
	cr_assert_eq(metric(db, 0).combine, PROFDB_COMBINE_SUM);   /* DOUBLE */
	cr_assert_eq(metric(db, 1).combine, PROFDB_COMBINE_MIN);   /* MINDOUBLE */
	cr_assert_eq(metric(db, 2).combine, PROFDB_COMBINE_SUM);   /* UINT64 */
	cr_assert_eq(metric(db, 5).combine, PROFDB_COMBINE_NONE);  /* derived */
	cr_assert_eq(profdb_metric_has_values(db, 3), 0);          /* no data members */
	cr_assert_eq(profdb_metric_has_values(db, 0), 1);
	profdb_close(db);
	tw_blob_free(&b);

	/* The same archive with mintime as MAXDOUBLE. */
	char *p = strstr(anchor, "MINDOUBLE");
	cr_assert_not_null(p);
	memcpy(p, "MAXDOUBLE", 9);
	cr_assert_eq(tw_cube_write(&b, TW_CUBE_DERIVED, anchor), 0);
	in = (profdb_input){"sample.cubex", b.data, b.size};
	db = open_in(&in, 1, "cube max");
	cr_assert_eq(metric(db, 1).combine, PROFDB_COMBINE_MAX);
	profdb_close(db);
	tw_blob_free(&b);
	free(anchor);

	/* Structured dtypes: only NDOUBLES (the sum of its doubles) adds. */
	cr_assert_eq(tw_cube_write_dtypes(&b, 0), 0);
	in = (profdb_input){"dtypes.cubex", b.data, b.size};
	db = open_in(&in, 1, "cube dtypes");
	check_all(db, "cube dtypes");
	static const profdb_combine want[TW_CUBE_DT_METRICS] = {
		PROFDB_COMBINE_NONE, PROFDB_COMBINE_NONE, PROFDB_COMBINE_NONE, PROFDB_COMBINE_NONE,
		PROFDB_COMBINE_SUM, PROFDB_COMBINE_NONE, PROFDB_COMBINE_NONE, PROFDB_COMBINE_NONE,
		PROFDB_COMBINE_NONE};
	for (uint32_t i = 0; i < TW_CUBE_DT_METRICS; i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, i, &m), 0);
		cr_assert_eq(m.combine, want[i], "dtypes metric %u", i);
	}
	profdb_close(db);
	tw_blob_free(&b);
}

/* ---- Callgrind ---------------------------------------------------------------------------- */

Test(metric_rules, callgrind)
{
	static const char text[] =
		"# callgrind format\nversion: 1\ncmd: app\nevents: Ir Dr\n"
		"event: Sum = Ir + Dr\n"
		"fl=a.c\nfn=main\n1 10 0\ncfn=f\ncalls=1 2\n2 5 1\n"
		"fn=f\n2 5 1\n";
	profdb_input in = {"callgrind.out.1", text, sizeof text - 1};
	profdb *db = open_in(&in, 1, "callgrind");
	check_all(db, "callgrind");
	int64_t n = profdb_metric_count(db);
	cr_assert_eq(n, 3);
	for (uint32_t id = 0; id < 3; id++) {
		profdb_metric m = metric(db, id);
		cr_assert_eq(m.combine, PROFDB_COMBINE_SUM, "event %u", id);
		cr_assert_eq(m.scale, 1);
		cr_assert_eq(m.period, 0);
	}
	cr_assert_eq(profdb_metric_has_values(db, 0), 1);
	cr_assert_eq(profdb_metric_has_values(db, 1), 1);
	profdb_close(db);
}

/* ---- real samples ----------------------------------------------------------------------- */

/* Every Cube sample: the rule follows the dtype; MIN/MAXDOUBLE never add. */
Test(metric_rules_real, cube_min_max, .timeout = 300)
{
	size_t n;
	char **files = tc_list_files("cube", &n);
	if (!files || n == 0) {
		tc_free_list(files);
		cr_skip_test("no Cube samples under %s", tc_sample_root());
	}
	int minmax = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strstr(files[i], ".cubex"))
			continue;
		profdb *db;
		int r = profdb_open(&db, files[i], NULL);
		cr_assert_eq(r, 0, "%s: %s", files[i], profdb_error_message());
		const profdb_cube *c = profdb_get_cube(db);
		cr_assert_not_null(c);
		int64_t nm = profdb_metric_count(db);
		for (int64_t k = 0; k < nm; k++) {
			profdb_metric m;
			profdb_cube_metric cm;
			cr_assert_eq(profdb_metric_at(db, (uint32_t)k, &m), 0);
			cr_assert_eq(profdb_cube_metric_get(c, m.id, &cm), 0);
			if (cm.kind >= PROFDB_CUBE_POSTDERIVED)
				cr_assert_eq(m.combine, PROFDB_COMBINE_NONE);
			else if (cm.dtype == PROFDB_CUBE_MINDOUBLE)
				cr_assert_eq(m.combine, PROFDB_COMBINE_MIN, "%s %.*s", files[i],
				             (int)m.name.len, m.name.ptr);
			else if (cm.dtype == PROFDB_CUBE_MAXDOUBLE)
				cr_assert_eq(m.combine, PROFDB_COMBINE_MAX, "%s %.*s", files[i],
				             (int)m.name.len, m.name.ptr);
			else if (cm.dtype <= PROFDB_CUBE_DOUBLE || cm.dtype == PROFDB_CUBE_NDOUBLES)
				cr_assert_eq(m.combine, PROFDB_COMBINE_SUM);
			else
				cr_assert_eq(m.combine, PROFDB_COMBINE_NONE);
			minmax += cm.dtype == PROFDB_CUBE_MINDOUBLE || cm.dtype == PROFDB_CUBE_MAXDOUBLE;
		}
		check_all(db, files[i]);
		profdb_close(db);
	}
	tc_free_list(files);
	/* ../shared/notes: 22 of the 24 files have min_time and max_time */
	cr_assert_geq(minmax, 44, "only %d MIN/MAXDOUBLE metrics", minmax);
}

/* Per metric name: the total of its non-summary values (raw x scale for
 * hpcrun), and for a database the summary total of its POINT id. */
typedef struct total {
	char name[128];
	double sum;
	int formula;
} total;

static size_t totals(const char *path, int summary_points, total *t, size_t cap)
{
	profdb *db;
	int r = profdb_open(&db, path, NULL);
	cr_assert_eq(r, 0, "%s: %s", path, profdb_error_message());
	int64_t nm = profdb_metric_count(db);
	cr_assert(nm >= 0 && (size_t)nm <= cap);
	size_t n = 0;
	uint32_t ids[512];
	double scale[512];
	for (int64_t k = 0; k < nm; k++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)k, &m), 0);
		if (summary_points && m.kind != PROFDB_METRIC_POINT)
			continue;
		snprintf(t[n].name, sizeof t[n].name, "%.*s", (int)m.name.len, m.name.ptr);
		t[n].sum = 0;
		t[n].formula = m.combine == PROFDB_COMBINE_NONE;
		ids[n] = m.id;
		scale[n++] = m.scale;
	}
	profdb_values *it;
	profdb_entry e;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
	while ((r = profdb_values_next(it, &e)) > 0) {
		profdb_profile p;
		cr_assert_eq(profdb_profile_at(db, e.profile, &p), 0);
		if (p.is_summary != summary_points)
			continue;
		for (size_t i = 0; i < n; i++)
			if (ids[i] == e.metric)
				t[i].sum += profdb_number_to_double(e.value) * scale[i];
	}
	cr_assert_eq(r, 0, "%s", profdb_error_message());
	profdb_values_free(it);
	profdb_close(db);
	return n;
}

/* hpcrun/hpctoolkit-tests-X.m against v4/hpctoolkit-tests-X, which hpcprof
 * built from it: every metric's scaled total equals the database's summary
 * total of its point scope (3.6e9 for perf::task-clock: 36 samples x 1e8). */
Test(metric_rules_real, hpcrun_scale_matches_hpcprof, .timeout = 300)
{
	static const char *const cases[] = {"small", "loops-cputime-t", "loops-perf",
		"loops-cuda-nvidia-t", "loops-cuda-nvidiapc-t", "loops-hip-amd-t",
		"recursion-cuda-nvidiapc-t"};
	static total raw[512], db[512];
	int pairs = 0, checked = 0, scaled = 0;
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		char rel[160];
		snprintf(rel, sizeof rel, "hpctoolkit/hpcrun/hpctoolkit-tests-%s.m", cases[c]);
		char *meas = tc_sample_path(rel);
		snprintf(rel, sizeof rel, "hpctoolkit/v4/hpctoolkit-tests-%s", cases[c]);
		char *dbp = tc_sample_path(rel);
		if (!meas || !dbp) {
			free(meas);
			free(dbp);
			continue;
		}
		pairs++;
		size_t nr = totals(meas, 0, raw, 512), nd = totals(dbp, 1, db, 512);
		for (size_t i = 0; i < nr; i++) {
			size_t j = 0;
			while (j < nd && strcmp(db[j].name, raw[i].name) != 0)
				j++;
			if (raw[i].formula) {
				/* hpcprof makes formula metrics derived statistics */
				cr_assert_eq(raw[i].sum, 0, "%s %s", meas, raw[i].name);
				continue;
			}
			cr_assert_lt(j, nd, "%s: %s is not in the database", meas, raw[i].name);
			double want = db[j].sum, tol = 1e-12 * fabs(want);
			cr_assert(fabs(raw[i].sum - want) <= tol, "%s %s: scaled %.17g, hpcprof %.17g",
			          meas, raw[i].name, raw[i].sum, want);
			checked++;
			scaled += want != 0 && strcmp(raw[i].name, "perf::task-clock") == 0 &&
			          want == 3.6e9;
		}
		free(meas);
		free(dbp);
	}
	if (pairs == 0)
		cr_skip_test("no hpcrun/v4 sample pairs under %s", tc_sample_root());
	cr_assert_geq(checked, pairs, "%d metrics checked", checked);
	if (pairs == 7)
		cr_assert_eq(scaled, 1, "perf::task-clock of loops-perf is not 3.6e9 once scaled");
}

/* ---- the default metric and the profiles' sizes ------------------------------------ */

static profdb *open_cg(const char *text, size_t len)
{
	profdb_input in = {"callgrind.out.1", text, len};
	return open_in(&in, 1, "callgrind");
}

static uint32_t default_id(const profdb *db)
{
	profdb_metric m;
	int r = profdb_metric_default(db, &m);
	cr_assert_eq(r, 0, "%d %s", r, profdb_error_message());
	return m.id;
}

/* Time first by name, whatever the order; else the first with values; a
 * metric without values is never the default (doc/model.md). */
Test(metric_rules, default_metric)
{
	static const char ranked[] = "# callgrind format\nevents: Dr Ir\nfn=main\n1 4 10\n";
	static const char first[] = "# callgrind format\nevents: Dr Dw\nfn=main\n1 4 10\n";
	static const char unused[] = "# callgrind format\nevents: Dr Dw\nfn=main\n1 0 10\n";
	static const char empty[] = "# callgrind format\nevents: Dr Dw\nfn=main\n1 0 0\n";
	profdb *db = open_cg(ranked, sizeof ranked - 1);
	cr_assert_eq(default_id(db), 1, "Ir before Dr");
	profdb_close(db);
	db = open_cg(first, sizeof first - 1);
	cr_assert_eq(default_id(db), 0, "no time: the first");
	profdb_close(db);
	db = open_cg(unused, sizeof unused - 1);
	cr_assert_eq(default_id(db), 1, "Dr has no values");
	profdb_close(db);
	db = open_cg(empty, sizeof empty - 1);
	profdb_metric m;
	cr_assert_eq(profdb_metric_default(db, &m), -ENOENT);
	cr_assert_eq(m.name.len, 0, "cleared on failure");
	cr_assert_eq(profdb_metric_default(db, NULL), -EINVAL);
	cr_assert_eq(profdb_metric_default(NULL, &m), -EINVAL);
	profdb_close(db);

	tw_hpctk4 d;
	tw_blob b[TW_NFILES];
	tw_hpctk4_sample(&d);
	db = open_hpctk4(&d, b);
	cr_assert_eq(profdb_metric_default(db, &m), 0);
	cr_assert(m.name.len == 13 && memcmp(m.name.ptr, "CPUTIME (sec)", 13) == 0,
	          "'%.*s'", (int)m.name.len, m.name.ptr);
	profdb_close(db);
	free_blobs(b, TW_NFILES);
}

/* HPCToolkit 4.0 gives each profile's stored size from its profile table;
 * a format that cannot tell says so. */
Test(metric_rules, profile_bytes)
{
	tw_hpctk4 d;
	tw_blob b[TW_NFILES];
	tw_hpctk4_sample(&d);
	profdb *db = open_hpctk4(&d, b);
	const profdb_hpctk *h = profdb_get_hpctk(db);
	int64_t n = profdb_profile_count(db);
	cr_assert_gt(n, 1);
	for (uint32_t p = 0; p < (uint64_t)n; p++) {
		profdb_hpctk_profile hp;
		uint64_t bytes = 1;
		cr_assert_eq(profdb_hpctk_profile_at(h, p, &hp), 0);
		cr_assert_eq(profdb_profile_bytes(db, p, &bytes), 0, "%s", profdb_error_message());
		cr_assert_eq(bytes, hp.n_values * 10 + (uint64_t)hp.n_contexts * 12, "profile %u", p);
	}
	uint64_t bytes = 1;
	cr_assert_eq(profdb_profile_bytes(db, (uint32_t)n, &bytes), -ENOENT);
	cr_assert_eq(bytes, 0);
	cr_assert_eq(profdb_profile_bytes(db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_profile_bytes(NULL, 0, &bytes), -EINVAL);
	profdb_close(db);
	free_blobs(b, TW_NFILES);
	static const char text[] = "# callgrind format\nevents: Ir\nfn=main\n1 4\n";
	db = open_cg(text, sizeof text - 1);
	cr_assert_eq(profdb_profile_bytes(db, 0, &bytes), -ENOTSUP);
	profdb_close(db);
}

/* The rule answers the front-ends print: how two values combine (NaN is
 * "no value"), whether totals add up, the rule's names. */
Test(metric_rules, combine_answers)
{
	cr_assert_eq(profdb_combine_pair(PROFDB_COMBINE_SUM, 1.5, 2.25), 3.75);
	cr_assert_eq(profdb_combine_pair(PROFDB_COMBINE_MIN, 1.5, 0.0), 0.0);
	cr_assert_eq(profdb_combine_pair(PROFDB_COMBINE_MAX, -1.0, -2.0), -1.0);
	cr_assert_eq(profdb_combine_pair(PROFDB_COMBINE_NONE, 4.0, 5.0), 4.0);
	cr_assert_eq(profdb_combine_pair(PROFDB_COMBINE_MIN, NAN, 7.0), 7.0);
	cr_assert_eq(profdb_combine_pair(PROFDB_COMBINE_SUM, 7.0, NAN), 7.0);
	cr_assert_eq(profdb_combine_adds(PROFDB_COMBINE_SUM), 1);
	cr_assert_eq(profdb_combine_adds(PROFDB_COMBINE_MAX), 0);
	cr_assert_eq(profdb_combine_ok(PROFDB_COMBINE_MIN), 1);
	cr_assert_eq(profdb_combine_ok(PROFDB_COMBINE_NONE), 0);
	cr_assert_eq(profdb_combine_ok((profdb_combine)9), 0);
	cr_assert_str_eq(profdb_combine_name(PROFDB_COMBINE_MAX), "max");
	cr_assert_str_eq(profdb_combine_name((profdb_combine)9), "none");
	cr_assert_str_eq(profdb_combine_extreme(PROFDB_COMBINE_MIN), "minimum");
	cr_assert_null(profdb_combine_extreme(PROFDB_COMBINE_SUM));
}
