/* Pre-release HPCPROF-* databases + experiment.xml and the draft meta.db
 * (lib/hpctkpre): the writer's sample read back value by value, every layout
 * variant real files have, hand-made bad structures with their codes,
 * mismatched file sets, every byte flip and truncation of the sample files,
 * and all real samples under shared/data/hpctoolkit/prerelease read
 * completely with invariants checked (skipped when absent). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profdb-config.h"   /* PROFDB_HAVE_EXPAT */
#include "common.h"
#include "core/backend-internal.h"
#include "../fuzz/drive-hpctkpre.h"
#include "profdb/profdb.h"
#include "writer.h"

TestSuite(hpctkpre, .timeout = 300);

/* Every database of these tests but the draft meta.db ones carries an
 * experiment.xml, which a build without expat cannot read (-ENOTSUP): such
 * a test skips, visibly, instead of failing or passing on nothing. */
#ifdef PROFDB_HAVE_EXPAT
#define NEEDS_EXPAT() ((void)0)
#else
#define NEEDS_EXPAT() cr_skip_test("built without expat: experiment.xml cannot be read")
#endif

/* ---- helpers ---------------------------------------------------------------- */

typedef struct warnings {
	int n;
	char last[512];
} warnings;

static void on_warn(const char *m, void *ud)
{
	warnings *w = ud;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", m);
}

static profdb_options opts_with(warnings *w, uint32_t flags)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	o.warn = on_warn;
	o.warn_userdata = w;
	return o;
}

typedef struct set {
	tw_blob b[4];
} set;

static void make(set *s, const tw_pre *d)
{
	cr_assert_eq(tw_pre_write(d, s->b), 0);
}

static void make_sample(set *s)
{
	tw_pre d;
	tw_pre_sample(&d);
	make(s, &d);
}

static void drop(set *s)
{
	for (int k = 0; k < 4; k++)
		tw_blob_free(&s->b[k]);
}

static void blobs(const set *s, profdb_input out[4])
{
	for (int k = 0; k < 4; k++)
		out[k] = (profdb_input){NULL, s->b[k].data, s->b[k].size};
}

/* Does @p s hold exactly @p want? */
static int str_is(profdb_str s, const char *want)
{
	return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static int open_set(const set *s, profdb_hpctkpre **db, const profdb_options *o)
{
	profdb_input f[4];
	blobs(s, f);
	return profdb_hpctkpre_open_mem(db, f, o);
}

static void put_be(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Offset of the value block of profile @p p / of cct.db context @p c. */
static uint64_t pblock(const set *s, uint32_t p)
{
	return get_be(s->b[0].data + 0x80 + 52 * p + 0x2c, 8);
}

static int expect_err(int r, int code, const char *needle)
{
	cr_assert_eq(r, code, "expected %d, got %d (%s)", code, r, profdb_error_message());
	if (needle)
		cr_assert(strstr(profdb_error_message(), needle), "message \"%s\" lacks \"%s\"",
		          profdb_error_message(), needle);
	return r;
}

static char *tmpdir(void)
{
	char *t = strdup("/tmp/profdb-hpctkpre-XXXXXX");
	cr_assert(mkdtemp(t));
	return t;
}

static void rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* ---- the sample read back ---------------------------------------------------- */

Test(hpctkpre, sample_counts_and_metadata)
{
	NEEDS_EXPAT();
	set s;
	profdb_hpctkpre *db;
	make_sample(&s);
	cr_assert_eq(open_set(&s, &db, NULL), 0, "%s", profdb_error_message());
	profdb_hpctkpre_info in;
	cr_assert_eq(profdb_hpctkpre_get_info(db, &in), 0);
	cr_assert_eq(in.meta_kind, PROFDB_HPCTKPRE_META_XML);
	cr_assert(str_is(in.title, "tw-sample"));
	cr_assert_eq(in.n_profiles, 3);
	cr_assert_eq(in.n_ctx_slots, 10);
	cr_assert_eq(in.n_traces, 2);
	cr_assert_eq(in.n_contexts, 9);
	cr_assert_eq(in.n_metrics, 5);
	cr_assert_eq(in.n_table[PROFDB_HPCTKPRE_MODULES], 2);
	cr_assert_eq(in.n_table[PROFDB_HPCTKPRE_FILES], 3);
	cr_assert_eq(in.n_table[PROFDB_HPCTKPRE_PROCEDURES], 3);
	cr_assert_eq(in.n_table[PROFDB_HPCTKPRE_ID_KINDS], 4);
	cr_assert_eq(in.min_time, TW_PRE_T0 + 1000);
	cr_assert_eq(in.max_time, TW_PRE_T0 + 5000);
	uint8_t ma, mi;
	cr_assert_eq(profdb_hpctkpre_version(db, PROFDB_HPCTKPRE_PROFILE, &ma, &mi), 0);
	cr_assert(ma == 1 && mi == 0);
	cr_assert_eq(profdb_hpctkpre_version(db, PROFDB_HPCTKPRE_META, &ma, &mi), 0);
	cr_assert(ma == 4 && mi == 0);

	/* metrics: summary 512/256/767, profile 2/1 */
	profdb_hpctkpre_metric m, again;
	cr_assert_eq(profdb_hpctkpre_metric_get(db, 1, 512, &m), 0);
	cr_assert_eq(profdb_hpctkpre_metric_at(db, m.index, &again), 0);
	cr_assert(again.id == 512 && again.is_summary);
	cr_assert(str_is(m.name, "time:Sum (I)"));
	cr_assert(m.is_summary && m.inclusive == 1 && m.partner == 256 && m.show == 1);
	cr_assert(str_is(m.formula, "sum($512, $512)"));
	cr_assert(str_is(m.formula_type, "combine"));
	cr_assert(str_is(m.units, "seconds"));
	cr_assert_eq(profdb_hpctkpre_metric_get(db, 0, 1, &m), 0);
	cr_assert(!m.is_summary && m.inclusive == 0 && m.partner == PROFDB_NONE);
	cr_assert(str_is(m.name, "time (E)"));
	/* an unknown id is -ENOENT (ids name metadata entries) and clears *out */
	expect_err(profdb_hpctkpre_metric_get(db, 0, 512, &m), -ENOENT, "512");
	cr_assert(m.name.len == 0 && m.name.ptr && m.index == PROFDB_NONE);
	cr_assert_eq(profdb_hpctkpre_metric_at(db, 5, &m), -ENOENT);
	cr_assert_eq(profdb_hpctkpre_metric_at(db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctkpre_metric_get(db, 0, 1, NULL), -EINVAL);

	/* the tree, in document order */
	static const int64_t ids[9] = {1, 2, 3, 4, 5, 6, -8, 8, 9};
	static const uint32_t parents[9] = {PROFDB_NONE, 0, 1, 1, 3, 4, 0, 6, 7};
	for (uint32_t k = 0; k < 9; k++) {
		profdb_hpctkpre_context c;
		cr_assert_eq(profdb_hpctkpre_context_at(db, k, &c), 0);
		cr_assert_eq(c.id, ids[k]);
		cr_assert_eq(c.parent, parents[k], "node %u", k);
		profdb_hpctkpre_context back;
		cr_assert_eq(profdb_hpctkpre_context_get(db, ids[k], &back), 0);
		cr_assert_eq(back.index, k);
	}
	profdb_hpctkpre_context c;
	cr_assert_eq(profdb_hpctkpre_context_at(db, 5, &c), 0);   /* S 6 in foo */
	cr_assert_eq(c.type, PROFDB_HPCTKPRE_CTX_STMT);
	cr_assert(str_is(c.procedure, "foo"));
	cr_assert(str_is(c.file, "util.h"));
	cr_assert_eq(c.line, 21);
	cr_assert(str_is(c.module, "/usr/bin/app"));
	cr_assert_eq(c.depth, 4);
	cr_assert_eq(c.trace_id, 6);
	cr_assert_eq(profdb_hpctkpre_context_at(db, 6, &c), 0);   /* C -8 */
	cr_assert_eq(c.type, PROFDB_HPCTKPRE_CTX_CALL);
	cr_assert(c.has_address && c.address == 0x1020);
	cr_assert_eq(c.next_sibling, PROFDB_NONE);
	cr_assert_eq(profdb_hpctkpre_context_at(db, 7, &c), 0);   /* PF 8 memcpy */
	cr_assert(str_is(c.module, "/lib/libc.so.6"));
	cr_assert(str_is(c.file, "<unknown file>"));
	cr_assert_eq(profdb_hpctkpre_context_at(db, 0, &c), 0);
	cr_assert_eq(c.first_child, 1);
	cr_assert_eq(profdb_hpctkpre_context_at(db, 1, &c), 0);
	cr_assert_eq(c.next_sibling, 6);
	/* no node has id 7: -ENOENT, *out cleared */
	expect_err(profdb_hpctkpre_context_get(db, 7, &c), -ENOENT, "id 7");
	cr_assert(c.index == PROFDB_NONE && c.parent == PROFDB_NONE && c.procedure.len == 0);
	cr_assert_eq(profdb_hpctkpre_context_get(db, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctkpre_context_at(db, 0, NULL), -EINVAL);
	profdb_hpctkpre_name e;
	cr_assert_eq(profdb_hpctkpre_table_at(db, PROFDB_HPCTKPRE_PROCEDURES, 1, &e), 0);
	cr_assert(e.id == 11 && str_is(e.name, "foo"));
	cr_assert_eq(profdb_hpctkpre_table_at(db, PROFDB_HPCTKPRE_PROCEDURES, 3, &e), -ENOENT);
	cr_assert(e.id == 0 && e.name.len == 0);
	cr_assert_eq(profdb_hpctkpre_table_at(db, PROFDB_HPCTKPRE_PROCEDURES, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctkpre_version(db, PROFDB_HPCTKPRE_META, NULL, NULL), -EINVAL);
	profdb_hpctkpre_close(db);
	drop(&s);
}

Test(hpctkpre, sample_values_traces_and_cct)
{
	NEEDS_EXPAT();
	set s;
	profdb_hpctkpre *db;
	tw_pre d;
	tw_pre_sample(&d);
	make(&s, &d);
	cr_assert_eq(open_set(&s, &db, NULL), 0, "%s", profdb_error_message());
	/* every value the writer stored, bit for bit, through both files */
	for (size_t k = 0; k < d.n_values; k++) {
		const tw_pre_value *v = &d.values[k];
		double got;
		cr_assert_eq(profdb_hpctkpre_value(db, v->profile, v->ctx, v->metric, &got), 1);
		cr_assert(memcmp(&got, &v->value, 8) == 0);
		if (v->profile == 0)
			continue;
		profdb_view ix, vals;
		cr_assert_eq(profdb_hpctkpre_context_view(db, v->ctx, &ix, &vals), 0);
		cr_assert(ix.big_endian && vals.key_type == PROFDB_FIELD_U32);
		uint64_t at;
		cr_assert_eq(profdb_view_find(&ix, v->metric, &at), 1);
		profdb_view run = profdb_view_run(&ix, at, &vals);
		cr_assert_eq(profdb_view_find(&run, v->profile, &at), 1);
		got = profdb_view_value(&run, at).as.f64;
		cr_assert(memcmp(&got, &v->value, 8) == 0);
	}
	/* not stored: 0 and the output cleared */
	double got = 42;
	cr_assert_eq(profdb_hpctkpre_value(db, 1, 7, 1, &got), 0);
	cr_assert_eq(got, 0);
	got = 42;
	cr_assert_eq(profdb_hpctkpre_value(db, 1, 3, 512, &got), 0);
	cr_assert_eq(got, 0);
	cr_assert_eq(profdb_hpctkpre_value(db, 3, 3, 1, &got), -ENOENT);
	cr_assert_eq(profdb_hpctkpre_value(db, 1, 3, 1, NULL), -EINVAL);
	/* cct.db slots past the table are out of range (were: empty planes) */
	profdb_view cx, cv;
	cr_assert_eq(profdb_hpctkpre_context_view(db, 10, &cx, &cv), -ENOENT);
	cr_assert(cx.count == 0 && cv.count == 0);
	cr_assert_eq(profdb_hpctkpre_context_view(db, 1, &cx, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctkpre_profile_view(db, 1, NULL, &cv), -EINVAL);
	/* the summary is the sum of the threads */
	cr_assert_eq(profdb_hpctkpre_value(db, 0, 1, 512, &got), 1);
	cr_assert_float_eq(got, (1.5 + 0.25 + 2.0) * 3, 1e-12);
	/* identities */
	profdb_hpctkpre_profile pr;
	profdb_hpctkpre_id id;
	cr_assert_eq(profdb_hpctkpre_profile_at(db, 2, &pr), 0);
	cr_assert(!pr.is_summary && pr.n_ids == 2 && pr.n_values == 12 && pr.n_contexts == 9);
	cr_assert_eq(profdb_hpctkpre_profile_id_at(db, 2, 1, &id), 0);
	cr_assert(id.kind == 3 && id.interpretation == 3 && id.logical == 1);
	cr_assert(str_is(id.kind_name, "THREAD"));
	cr_assert_eq(profdb_hpctkpre_profile_id_at(db, 2, 2, &id), -ENOENT);
	cr_assert_eq(profdb_hpctkpre_profile_at(db, 0, &pr), 0);
	cr_assert(pr.is_summary && pr.n_ids == 1);
	cr_assert_eq(profdb_hpctkpre_profile_at(db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctkpre_profile_id_at(db, 0, 0, NULL), -EINVAL);
	/* iteration by profile: a zero-copy big-endian view into profile.db */
	profdb_view pix, pv;
	cr_assert_eq(profdb_hpctkpre_profile_view(db, 1, &pix, &pv), 0);
	cr_assert_eq(pix.count, 9);
	cr_assert(pix.big_endian && pix.key_type == PROFDB_FIELD_U32 && pix.stride == 12);
	cr_assert(pv.key_type == PROFDB_FIELD_U16 && pv.value_type == PROFDB_FIELD_F64 &&
	          pv.stride == 10);
	cr_assert(pv.base >= s.b[0].data && pv.base < s.b[0].data + s.b[0].size);
	PROFDB_VIEW_FOREACH(&pix, k)
		cr_assert(k == 0 || profdb_view_key(&pix, k) > profdb_view_key(&pix, k - 1));
	/* traces: a view; seek = lower bound, in_effect = the sample running */
	profdb_hpctkpre_trace t;
	uint64_t ix, first, last;
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 0, &t), 0);
	cr_assert(t.profile == 1 && t.type == 0 && t.samples.count == 4);
	cr_assert(t.samples.big_endian && t.samples.stride == 12);
	cr_assert_eq(profdb_view_in_effect(&t.samples, TW_PRE_T0 + 999, &ix), 0);
	cr_assert_eq(profdb_view_in_effect(&t.samples, TW_PRE_T0 + 2000, &ix), 1);
	cr_assert_eq(ix, 2);
	cr_assert_eq(profdb_view_in_effect(&t.samples, UINT64_MAX, &ix), 1);
	cr_assert_eq(ix, 3);
	cr_assert_eq(profdb_view_seek(&t.samples, TW_PRE_T0 + 999, &ix), 0);
	cr_assert_eq(ix, 0);
	cr_assert_eq(profdb_view_seek(&t.samples, TW_PRE_T0 + 1500, &ix), 0);
	cr_assert_eq(ix, 1);
	cr_assert_eq(profdb_view_seek(&t.samples, UINT64_MAX, &ix), 0);
	cr_assert_eq(ix, 4);
	cr_assert_eq(profdb_view_window(&t.samples, TW_PRE_T0 + 1500, TW_PRE_T0 + 5000, &first,
	                                &last), 0);
	cr_assert(first == 1 && last == 3);
	cr_assert(profdb_view_key(&t.samples, 3) == TW_PRE_T0 + 5000 &&
	          profdb_view_value(&t.samples, 3).as.u64 == 0);
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 1, &t), 0);   /* empty, pointers past EOF */
	cr_assert(t.samples.count == 0 && t.samples.base == NULL && t.profile == 2);
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 2, &t), -ENOENT);
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 0, NULL), -EINVAL);
	/* the full check: the view metric 767 has no values -> one warning */
	profdb_hpctkpre_close(db);
	warnings w = {0};
	profdb_options o = opts_with(&w, 0);
	cr_assert_eq(open_set(&s, &db, &o), 0);
	cr_assert_eq(profdb_hpctkpre_check(db), 0, "%s", profdb_error_message());
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "767"), "%s", w.last);
	fuzz_pre_stats st = {0};
	fuzz_hpctkpre_drive(db, 1, &st);
	cr_assert_eq(st.values, 36 + 24);   /* profile planes + cct planes */
	cr_assert_eq(st.samples, 4);
	profdb_hpctkpre_close(db);
	drop(&s);
}

Test(hpctkpre, directory_and_single_files)
{
	NEEDS_EXPAT();
	tw_pre d;
	tw_pre_sample(&d);
	char *dir = tmpdir();
	cr_assert_eq(tw_pre_write_dir(&d, dir), 0);
	profdb_hpctkpre *db;
	cr_assert_eq(profdb_hpctkpre_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_hpctkpre_info in;
	profdb_hpctkpre_get_info(db, &in);
	cr_assert(in.n_profiles == 3 && in.n_contexts == 9 && in.n_traces == 2);
	cr_assert_eq(profdb_hpctkpre_check(db), 0);
	profdb_hpctkpre_close(db);
	char p[4096];
	snprintf(p, sizeof p, "%s/profile.db", dir);
	cr_assert_eq(profdb_hpctkpre_open(&db, p, NULL), 0);
	profdb_hpctkpre_get_info(db, &in);
	cr_assert(in.meta_kind == PROFDB_HPCTKPRE_META_NONE && in.n_profiles == 3 &&
	          in.n_contexts == 0);
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 0, &(profdb_hpctkpre_trace){0}), -ENOENT);
	profdb_hpctkpre_close(db);
	/* experiment.xml opens its folder */
	snprintf(p, sizeof p, "%s/experiment.xml", dir);
	cr_assert_eq(profdb_hpctkpre_open(&db, p, NULL), 0, "%s", profdb_error_message());
	profdb_hpctkpre_get_info(db, &in);
	cr_assert(in.n_profiles == 3 && in.n_contexts == 9 && in.n_traces == 2);
	profdb_hpctkpre_close(db);
	/* no .db file: an old database, experiment.xml + .metric-db (a
	 * record cut short is named), or experiment.xml alone */
	static const char *const dbs[3] = {"profile.db", "cct.db", "trace.db"};
	for (int k = 0; k < 3; k++) {
		snprintf(p, sizeof p, "%s/%s", dir, dbs[k]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/REALTIME-0.metric-db", dir);
	FILE *f = fopen(p, "w");
	cr_assert(f);
	fputs("HPCPROF-metricdb__00.10", f);
	fclose(f);
	expect_err(profdb_hpctkpre_open(&db, dir, NULL), -ENODATA, "REALTIME-0.metric-db");
	unlink(p);
	cr_assert_eq(profdb_hpctkpre_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_hpctkpre_get_info(db, &in);
	cr_assert(in.n_profiles == 0 && in.n_contexts == 9);
	profdb_hpctkpre_close(db);
	rmtree(dir);
	free(dir);
	expect_err(profdb_hpctkpre_open(&db, "/nonexistent/x", NULL), -ENOENT, NULL);
	expect_err(profdb_hpctkpre_open(NULL, "/", NULL), -EINVAL, NULL);
}

Test(hpctkpre, layout_variants)
{
	NEEDS_EXPAT();
	set s;
	profdb_hpctkpre *db;
	warnings w = {0};
	profdb_options o = opts_with(&w, 0);
	tw_pre d;
	tw_pre_sample(&d);
	/* big-endian-host footers, version 4.0 as the document says */
	d.native_footer = 1;
	d.major = 4;
	make(&s, &d);
	cr_assert_eq(open_set(&s, &db, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(w.n, 0);
	profdb_hpctkpre_close(db);
	drop(&s);
	/* minor 1: a warning */
	tw_pre_sample(&d);
	d.minor = 1;
	make(&s, &d);
	cr_assert_eq(open_set(&s, &db, &o), 0);
	cr_assert(w.n >= 1 && strstr(w.last, "minor"));
	profdb_hpctkpre_close(db);
	drop(&s);
	/* version 2.0: not a layout anyone wrote */
	d.minor = 0;
	d.major = 2;
	make(&s, &d);
	expect_err(open_set(&s, &db, NULL), -EPROTONOSUPPORT, "version 2.0");
	drop(&s);
	/* no footer: truncated */
	tw_pre_sample(&d);
	d.no_footer = 1;
	make(&s, &d);
	expect_err(open_set(&s, &db, NULL), -ENODATA, "footer");
	drop(&s);
	/* all-zero cct.db blocks, as the real writer: empty, one warning */
	tw_pre_sample(&d);
	d.zero_cct = 1;
	make(&s, &d);
	w.n = 0;
	cr_assert_eq(open_set(&s, &db, &o), 0);
	for (uint32_t c = 0; c < 10; c++) {
		profdb_view ix, vals;
		cr_assert_eq(profdb_hpctkpre_context_view(db, c, &ix, &vals), 0);
		cr_assert(ix.count == 0 && vals.count == 0);
		cr_assert_eq(profdb_hpctkpre_context_view(db, c, &ix, &vals), 0);
	}
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "all zeros"));
	cr_assert_eq(profdb_hpctkpre_check(db), 0);
	profdb_hpctkpre_close(db);
	drop(&s);
	/* 4.0 files are not pre-release files */
	make_sample(&s);
	memcpy(s.b[0].data, "HPCTOOLKITprof\x04\x00", 16);
	expect_err(open_set(&s, &db, NULL), -EPROTONOSUPPORT, "4.0");
	drop(&s);
}

/* The backend's trace_view is the trace.db line itself (zero-copy), and
 * holds exactly what trace_at returns; a profile without a line gets an
 * empty view. */
Test(hpctkpre, backend_trace_view_zero_copy)
{
	NEEDS_EXPAT();
	set s;
	make_sample(&s);
	static const char *const names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};
	profdb_input in[4];
	for (int k = 0; k < 4; k++)
		in[k] = (profdb_input){names[k], s.b[k].data, s.b[k].size};
	const profdb__backend *be = &profdb__hpctkpre_backend;
	void *impl;
	cr_assert_eq(be->open_inputs(&impl, in, 4, NULL), 0, "%s", profdb_error_message());
	profdb_view v;
	cr_assert_eq(be->trace_view(impl, 1, &v), 0);
	cr_assert_eq(v.count, 4);
	cr_assert(v.base >= s.b[2].data && v.base + v.count * v.stride <= s.b[2].data + s.b[2].size,
	          "the view points into trace.db");
	cr_assert_eq((int64_t)v.count, be->trace_length(impl, 1));
	PROFDB_VIEW_FOREACH(&v, i) {
		profdb_sample smp;
		cr_assert_eq(be->trace_at(impl, 1, i, &smp), 0);
		cr_assert_eq(profdb_view_key(&v, i), smp.time_ns);
		cr_assert_eq(profdb_view_value(&v, i).as.u64, smp.context);
	}
	uint64_t ix;
	cr_assert_eq(be->trace_seek(impl, 1, TW_PRE_T0 + 1500, &ix), 0);
	cr_assert_eq(ix, 1, "seek is the lower bound");
	cr_assert_eq(be->trace_view(impl, 0, &v), 0);   /* the summary has no line */
	cr_assert(v.count == 0 && v.base == NULL && v.key_type == PROFDB_FIELD_U64);
	be->close(impl);
	drop(&s);
}

/* ---- bad structures ------------------------------------------------------------ */

Test(hpctkpre, bad_value_blocks)
{
	NEEDS_EXPAT();
	set s;
	profdb_hpctkpre *db;
	profdb_view p, pv;
	make_sample(&s);
	uint64_t b1 = pblock(&s, 1);
	unsigned char *pd = s.b[0].data;
	uint64_t idx1 = b1 + 12 * 10;   /* profile 1: 12 values, then 9 + 1 index pairs */

	/* unsorted context ids */
	put_be(pd + idx1 + 12, 5, 4);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_profile_view(db, 1, &p, &pv), -EBADMSG, "not sorted");
	cr_assert_eq(profdb_hpctkpre_profile_view(db, 2, &p, &pv), 0);   /* others unaffected */
	profdb_hpctkpre_close(db);
	/* tolerant: the damaged block reads as empty, with a warning */
	warnings w = {0};
	profdb_options o = opts_with(&w, PROFDB_OPEN_TOLERANT);
	cr_assert_eq(open_set(&s, &db, &o), 0);
	cr_assert_eq(profdb_hpctkpre_profile_view(db, 1, &p, &pv), 0);
	cr_assert(p.count == 0 && pv.count == 0 && w.n == 1 && strstr(w.last, "tolerant"));
	profdb_hpctkpre_close(db);
	put_be(pd + idx1 + 12, 1, 4);

	/* unsorted metric ids inside a run (ctx 3 has metrics 1, 2) */
	unsigned char save[20];
	uint64_t v3 = b1 + 10 * 3;   /* ctx 0, 1, 2 take values 0-2; ctx 3 starts at 3 */
	memcpy(save, pd + v3, 20);
	put_be(pd + v3 + 8, 2, 2);
	put_be(pd + v3 + 18, 1, 2);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_profile_view(db, 1, &p, &pv), -EBADMSG, "values at");
	profdb_hpctkpre_close(db);
	memcpy(pd + v3, save, 20);

	/* missing end marker */
	uint64_t end1 = idx1 + 9 * 12;
	put_be(pd + end1, 0x656E6420, 4);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_value(db, 1, 3, 1, &(double){0}), -EBADMSG, "end marker");
	profdb_hpctkpre_close(db);
	put_be(pd + end1, 0x656E6421, 4);

	/* index start past the value count */
	put_be(pd + idx1 + 12 * 4 + 4, 99, 8);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_profile_view(db, 1, &p, &pv), -EBADMSG, "gives values");
	profdb_hpctkpre_close(db);
	put_be(pd + idx1 + 12 * 4 + 4, 4, 8);

	/* pointer out of range / overflowing counts */
	uint64_t pi1 = 0x80 + 52;
	put_be(pd + pi1 + 0x2c, 0x7fffffffffff0000ull, 8);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	int r = profdb_hpctkpre_profile_view(db, 1, &p, &pv);
	cr_assert(r == -EBADMSG || r == -ENODATA, "%d", r);
	profdb_hpctkpre_close(db);
	put_be(pd + pi1 + 0x2c, b1, 8);
	put_be(pd + pi1 + 0x20, 1ull << 62, 8);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_profile_view(db, 1, &p, &pv), -EBADMSG, "overflows");
	profdb_hpctkpre_close(db);
	put_be(pd + pi1 + 0x20, 12, 8);

	/* header: more profiles than the section holds, section past EOF */
	put_be(pd + 0x12, 0xffffffff, 4);
	expect_err(open_set(&s, &db, NULL), -EBADMSG, "Profile Info");
	put_be(pd + 0x12, 3, 4);
	put_be(pd + 0x30, s.b[0].size, 8);
	r = open_set(&s, &db, NULL);
	cr_assert(r == -ENODATA || r == -EBADMSG, "%d", r);
	drop(&s);

	/* cct.db: info for the wrong context; block not sorted */
	make_sample(&s);
	unsigned char *cd = s.b[1].data;
	put_be(cd + 0x80 + 22 * 3, 4, 4);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_context_view(db, 3, &p, &pv), -EBADMSG, "context info");
	profdb_hpctkpre_close(db);
	drop(&s);
}

Test(hpctkpre, bad_traces)
{
	NEEDS_EXPAT();
	set s;
	profdb_hpctkpre *db;
	profdb_hpctkpre_trace t;
	make_sample(&s);
	unsigned char *td = s.b[2].data;
	uint64_t th = 0x80, start = get_be(td + th + 6, 8);
	/* unsorted */
	put_be(td + start + 12, TW_PRE_T0, 8);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_trace_line_at(db, 0, &t), -EBADMSG, "not sorted");
	profdb_hpctkpre_close(db);
	put_be(td + start + 12, TW_PRE_T0 + 2000, 8);
	/* not whole samples */
	put_be(td + th + 0x0e, start + 13, 8);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_trace_line_at(db, 0, &t), -EBADMSG, "whole number");
	profdb_hpctkpre_close(db);
	/* past the end of the file */
	put_be(td + th + 0x0e, start + 12 * 1000, 8);
	cr_assert_eq(open_set(&s, &db, NULL), 0);
	expect_err(profdb_hpctkpre_trace_line_at(db, 0, &t), -ENODATA, "trace line");
	profdb_hpctkpre_close(db);
	put_be(td + th + 0x0e, start + 48, 8);
	/* a profile profile.db does not have: the files disagree at open (strict);
	 * in tolerant mode a warning, and the line reads as empty where it is
	 * used */
	put_be(td + th, 7, 4);
	expect_err(open_set(&s, &db, NULL), -EBADMSG, "not of one database");
	cr_assert(strstr(profdb_error_message(), "trace.db") &&
	          strstr(profdb_error_message(), "profile.db"), "%s", profdb_error_message());
	warnings w = {0};
	profdb_options tolerant = opts_with(&w, PROFDB_OPEN_TOLERANT);
	cr_assert_eq(open_set(&s, &db, &tolerant), 0);
	cr_assert(w.n == 1 && strstr(w.last, "belongs to profile 7"), "%s", w.last);
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 0, &t), 0);   /* read as empty */
	cr_assert(t.samples.count == 0 && w.n == 2 && strstr(w.last, "names profile 7"), "%s",
	          w.last);
	profdb_hpctkpre_close(db);
	/* more traces than the section */
	put_be(td + 0x12, 1000, 4);
	expect_err(open_set(&s, &db, NULL), -EBADMSG, "Trace Header");
	drop(&s);
}

static int open_xml(const char *xml, profdb_hpctkpre **db, const profdb_options *o, int with_db)
{
	set s;
	tw_pre d;
	tw_pre_sample(&d);
	d.xml = xml;
	make(&s, &d);
	if (!with_db)
		for (int k = 0; k < 3; k++)
			tw_blob_free(&s.b[k]);
	int r = open_set(&s, db, o);
	if (r == 0) {
		/* keep the buffers alive for the caller: leak-free via a static */
		static set keep;
		drop(&keep);
		keep = s;
	} else {
		drop(&s);
	}
	return r;
}

#define XML_HEAD "<?xml version=\"1.0\"?><HPCToolkitExperiment version=\"4.0\">"
#define XML_TAIL "</HPCToolkitExperiment>"

Test(hpctkpre, bad_xml)
{
	NEEDS_EXPAT();
	profdb_hpctkpre *db;
	warnings w = {0};
	profdb_options o = opts_with(&w, 0);
	expect_err(open_xml(XML_HEAD "<Header n=\"x\">" XML_TAIL, &db, NULL, 0), -EBADMSG, "line 1");
	expect_err(open_xml("<Experiment/>", &db, NULL, 0), -EPROTONOSUPPORT, "not an experiment");
	expect_err(open_xml("", &db, NULL, 0), -EBADMSG, NULL);
	expect_err(open_xml("<!DOCTYPE x [<!ENTITY a \"aaaa\">]>" XML_HEAD XML_TAIL, &db, NULL, 0),
	           -EBADMSG, "ENTITY");
	expect_err(open_xml(XML_HEAD "<SecCallPathProfileData><PF n=\"1\"/></SecCallPathProfileData>"
	                    XML_TAIL, &db, NULL, 0), -EBADMSG, "without an i");
	expect_err(open_xml(XML_HEAD "<SecCallPathProfileData><PF i=\"x1\"/></SecCallPathProfileData>"
	                    XML_TAIL, &db, NULL, 0), -EBADMSG, "not an integer");
	expect_err(open_xml(XML_HEAD "<SecCallPathProfileData><PF i=\"1\"><S i=\"1\"/></PF>"
	                    "</SecCallPathProfileData>" XML_TAIL, &db, NULL, 0), -EBADMSG,
	           "two calling-context nodes");
	expect_err(open_xml(XML_HEAD "<MetricDBTable><MetricDB i=\"1\" n=\"a\"/><MetricDB i=\"1\" "
	                    "n=\"b\"/></MetricDBTable>" XML_TAIL, &db, NULL, 0), -EBADMSG,
	           "two profile metrics");
	expect_err(open_xml(XML_HEAD "<FileTable><File i=\"1\" n=\"a\"/><File i=\"1\" n=\"b\"/>"
	                    "</FileTable>" XML_TAIL, &db, NULL, 0), -EBADMSG, "two file");
	expect_err(open_xml(XML_HEAD "<SecCallPathProfileData/><FileTable><File i=\"1\"/></FileTable>"
	                    XML_TAIL, &db, NULL, 0), -EBADMSG, "after");
	/* memory limit */
	profdb_options small = opts_with(&w, 0);
	small.max_memory = 16;
	expect_err(open_xml(tw_pre_sample_xml(), &db, &small, 0), -EFBIG, "max_memory");
	/* warnings: unknown element, unresolved reference, another version */
	w.n = 0;
	cr_assert_eq(open_xml("<HPCToolkitExperiment version=\"2.2\"><SecCallPathProfileData>"
	                      "<PF i=\"1\" n=\"9\"><A i=\"2\"/></PF></SecCallPathProfileData>" XML_TAIL,
	                      &db, &o, 0), 0, "%s", profdb_error_message());
	cr_assert_eq(w.n, 3, "%d warnings, last %s", w.n, w.last);
	profdb_hpctkpre_info in;
	profdb_hpctkpre_get_info(db, &in);
	cr_assert_eq(in.n_contexts, 1);
	profdb_hpctkpre_context c;
	cr_assert_eq(profdb_hpctkpre_context_at(db, 0, &c), 0);
	cr_assert(str_is(c.procedure, ""));
	profdb_hpctkpre_close(db);
}

Test(hpctkpre, mismatched_sets)
{
	NEEDS_EXPAT();
	profdb_hpctkpre *db;
	warnings w = {0};
	profdb_options o = opts_with(&w, 0);
	/* experiment.xml without the MetricDB ids the thread profiles use */
	cr_assert_eq(open_xml(XML_HEAD "<MetricTable><Metric i=\"512\" n=\"a\"/><Metric i=\"256\" "
	                      "n=\"b\"/></MetricTable><MetricDBTable><MetricDB i=\"2\" n=\"c\"/>"
	                      "<MetricDB i=\"3\" n=\"d\"/></MetricDBTable>" XML_TAIL, &db, &o, 1), 0);
	expect_err(profdb_hpctkpre_check(db), -EBADMSG, "metric id 1");
	profdb_hpctkpre_close(db);
	/* a context id beyond cct.db: an error at open naming both files (strict),
	 * a warning (tolerant) and an error in check */
#define CTX_40 XML_HEAD "<SecCallPathProfileData><PF i=\"1\"><S i=\"40\"/></PF>" \
	"</SecCallPathProfileData>" XML_TAIL
	expect_err(open_xml(CTX_40, &db, &o, 1), -EBADMSG, "context id 40 is past the 10 contexts");
	cr_assert(strstr(profdb_error_message(), "experiment.xml") &&
	          strstr(profdb_error_message(), "cct.db"), "%s", profdb_error_message());
	w.n = 0;
	profdb_options tolerant = opts_with(&w, PROFDB_OPEN_TOLERANT);
	cr_assert_eq(open_xml(CTX_40, &db, &tolerant, 1), 0);
	cr_assert(w.n >= 1 && strstr(w.last, "not of one database"), "%s", w.last);
	expect_err(profdb_hpctkpre_check(db), -EBADMSG, "beyond");
	profdb_hpctkpre_close(db);
#undef CTX_40
	/* the sample's XML naming a metric nobody stored: a warning */
	w.n = 0;
	cr_assert_eq(open_xml(tw_pre_sample_xml(), &db, &o, 1), 0);
	cr_assert_eq(profdb_hpctkpre_check(db), 0);
	cr_assert_eq(w.n, 1);
	profdb_hpctkpre_close(db);
}

/* ---- the draft meta.db ------------------------------------------------------------ */

static void check_draft(const profdb_hpctkpre *db)
{
	profdb_hpctkpre_info in;
	cr_assert_eq(profdb_hpctkpre_get_info(db, &in), 0);
	cr_assert_eq(in.meta_kind, PROFDB_HPCTKPRE_META_DRAFT);
	cr_assert(str_is(in.title, "tw-draft"));
	cr_assert_eq(in.n_contexts, 5);
	cr_assert_eq(in.n_metrics, 4);
	cr_assert_eq(in.n_table[PROFDB_HPCTKPRE_ID_KINDS], 4);
	cr_assert_eq(in.n_table[PROFDB_HPCTKPRE_PROCEDURES], 2);
	profdb_hpctkpre_metric m;
	cr_assert_eq(profdb_hpctkpre_metric_get(db, 0, 2, &m), 0);
	cr_assert(m.inclusive == 1 && m.partner == 1);
	cr_assert(str_is(m.formula_type, "execution"));
	cr_assert_eq(profdb_hpctkpre_metric_get(db, 1, 256, &m), 0);
	cr_assert(m.is_summary && m.inclusive == 0 && m.combine == 0);
	cr_assert(str_is(m.formula, "$$"));
	static const int64_t ids[5] = {1, 2, 3, 4, 5};
	static const uint8_t types[5] = {PROFDB_HPCTKPRE_CTX_PROC, PROFDB_HPCTKPRE_CTX_LOOP,
	                                 PROFDB_HPCTKPRE_CTX_STMT, PROFDB_HPCTKPRE_CTX_PROC,
	                                 PROFDB_HPCTKPRE_CTX_POINT};
	static const uint32_t parents[5] = {PROFDB_NONE, 0, 1, 0, 3};
	for (uint32_t k = 0; k < 5; k++) {
		profdb_hpctkpre_context c;
		cr_assert_eq(profdb_hpctkpre_context_at(db, k, &c), 0);
		cr_assert(c.id == ids[k] && c.type == types[k] && c.parent == parents[k], "node %u", k);
	}
	profdb_hpctkpre_context c;
	profdb_hpctkpre_context_at(db, 2, &c);
	cr_assert(str_is(c.procedure, "main"));
	cr_assert(str_is(c.file, "main.c"));
	cr_assert_eq(c.line, 6);
	profdb_hpctkpre_context_at(db, 4, &c);
	cr_assert(str_is(c.procedure, "foo"));
	cr_assert(str_is(c.module, "/usr/bin/app"));
	cr_assert(c.has_address && c.address == 0x1010);
	{
		profdb_hpctkpre_name e;
		cr_assert_eq(profdb_hpctkpre_table_at(db, PROFDB_HPCTKPRE_ID_KINDS, 3, &e), 0);
		cr_assert(str_is(e.name, "THREAD"));
	}
}

Test(hpctkpre, draft_meta_db)
{
	static const unsigned flags[3] = {0, TW_DRAFT_DOC7, TW_DRAFT_FOOTER};
	for (int k = 0; k < 3; k++) {
		tw_blob b;
		profdb_hpctkpre *db;
		cr_assert_eq(tw_draft_write(&b, flags[k]), 0);
		profdb_input f[4] = {{NULL, NULL, 0}, {NULL, NULL, 0}, {NULL, NULL, 0}, {NULL, b.data, b.size}};
		cr_assert_eq(profdb_hpctkpre_open_mem(&db, f, NULL), 0, "%s", profdb_error_message());
		check_draft(db);
		uint8_t ma, mi;
		cr_assert_eq(profdb_hpctkpre_version(db, PROFDB_HPCTKPRE_META, &ma, &mi), 0);
		cr_assert(ma == 4 && mi == 0);
		profdb_hpctkpre_close(db);
		/* the draft meta.db with the sample's .db files: a consistent set */
		set s;
		make_sample(&s);
		profdb_input g[4];
		blobs(&s, g);
		g[3] = f[3];
		warnings w = {0};
		profdb_options o = opts_with(&w, 0);
		cr_assert_eq(profdb_hpctkpre_open_mem(&db, g, &o), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_hpctkpre_check(db), 0, "%s", profdb_error_message());
		cr_assert_eq(w.n, 0, "%s", w.last);
		profdb_hpctkpre_close(db);
		drop(&s);
		/* in a directory as meta.db */
		if (k == 0) {
			char *dir = tmpdir(), p[4096];
			snprintf(p, sizeof p, "%s/meta.db", dir);
			FILE *fp = fopen(p, "wb");
			cr_assert(fp);
			fwrite(b.data, 1, b.size, fp);
			fclose(fp);
			cr_assert_eq(profdb_hpctkpre_open(&db, dir, NULL), 0, "%s", profdb_error_message());
			check_draft(db);
			profdb_hpctkpre_close(db);
			cr_assert_eq(profdb_hpctkpre_open(&db, p, NULL), 0);
			profdb_hpctkpre_close(db);
			rmtree(dir);
			free(dir);
		}
		tw_blob_free(&b);
	}
}

Test(hpctkpre, draft_bad)
{
	tw_blob b;
	profdb_hpctkpre *db;
	cr_assert_eq(tw_draft_write(&b, TW_DRAFT_CYCLE), 0);
	profdb_input f[4] = {{NULL, NULL, 0}, {NULL, NULL, 0}, {NULL, NULL, 0}, {NULL, b.data, b.size}};
	expect_err(profdb_hpctkpre_open_mem(&db, f, NULL), -EBADMSG, "more nodes");
	tw_blob_free(&b);
	cr_assert_eq(tw_draft_write(&b, 0), 0);
	f[3] = (profdb_input){NULL, b.data, b.size};
	b.data[18] = 0, b.data[19] = 6;   /* 6 sections */
	expect_err(profdb_hpctkpre_open_mem(&db, f, NULL), -EBADMSG, "sections");
	b.data[19] = 8;
	b.data[16] = 5;
	expect_err(profdb_hpctkpre_open_mem(&db, f, NULL), -EPROTONOSUPPORT, "version 5");
	b.data[16] = 4;
	/* the General section pointer past the end */
	put_be(b.data + 0x20, b.size + 100, 8);
	int r = profdb_hpctkpre_open_mem(&db, f, NULL);
	cr_assert(r == -ENODATA || r == -EBADMSG);
	tw_blob_free(&b);
	/* a 4.0 meta.db in the metadata slot */
	unsigned char v4[32] = "HPCTOOLKITmeta\x04";
	f[3] = (profdb_input){NULL, v4, sizeof v4};
	expect_err(profdb_hpctkpre_open_mem(&db, f, NULL), -EPROTONOSUPPORT, "4.0 meta.db");
}

/* ---- corruption: every byte, every truncation ---------------------------------------- */

static void mutate_all(const set *base, int which, int truncate)
{
	size_t n = base->b[which].size;
	unsigned char *copy = malloc(n ? n : 1);
	cr_assert(copy);
	uint64_t opened = 0, failed = 0;
	for (size_t off = 0; off < n; off++) {
		memcpy(copy, base->b[which].data, n);
		profdb_input f[4];
		blobs(base, f);
		if (truncate) {
			f[which] = (profdb_input){NULL, copy, off};
		} else {
			copy[off] ^= (off & 1) ? 0xff : 0x41;
			f[which] = (profdb_input){NULL, copy, n};
		}
		profdb_hpctkpre *db;
		int r = profdb_hpctkpre_open_mem(&db, f, NULL);
		if (r < 0) {
			fuzz_hpctkpre_failure(r);
			cr_assert(strstr(profdb_error_message(), "profile.db") ||
			          strstr(profdb_error_message(), "cct.db") ||
			          strstr(profdb_error_message(), "trace.db") ||
			          strstr(profdb_error_message(), "experiment.xml") ||
			          strstr(profdb_error_message(), "meta.db"),
			          "message names no file: %s", profdb_error_message());
			failed++;
			continue;
		}
		/* a truncated .db file with a footer must not open */
		if (truncate && which < 2)
			cr_assert_fail("truncated %s at %zu opened", which ? "cct.db" : "profile.db", off);
		fuzz_pre_stats st = {0};
		fuzz_hpctkpre_drive(db, 0, &st);
		profdb_hpctkpre_close(db);
		opened++;
	}
	cr_assert(opened + failed == n);
	free(copy);
}

Test(hpctkpre, corrupt_every_byte, .timeout = 600)
{
	tw_blob b;
	cr_assert_eq(tw_draft_write(&b, 0), 0);
	set d = {{{NULL, 0}, {NULL, 0}, {NULL, 0}, b}};
	mutate_all(&d, 3, 0);
	mutate_all(&d, 3, 1);
	tw_blob_free(&b);
	/* the sample set has an experiment.xml: without expat every mutation
	 * would fail with -ENOTSUP and check nothing */
	NEEDS_EXPAT();
	set s;
	make_sample(&s);
	for (int k = 0; k < 4; k++) {
		mutate_all(&s, k, 0);
		mutate_all(&s, k, 1);
	}
	drop(&s);
}

/* ---- real samples ------------------------------------------------------------------ */

static char **list_pre(size_t *n)
{
	const char *root = tc_sample_root();
	*n = 0;
	if (!root)
		return NULL;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/hpctoolkit/prerelease", root);
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **list = calloc(64, sizeof *list);
	struct dirent *e;
	while ((e = readdir(d)) && *n < 63)
		if (e->d_name[0] != '.' && asprintf(&list[*n], "%s/%s", dir, e->d_name) >= 0)
			(*n)++;
	closedir(d);
	return list;
}

/* Everything readable, every invariant the format gives. */
static void golden(const char *dir)
{
	warnings w = {0};
	profdb_options o = opts_with(&w, 0);
	profdb_hpctkpre *db;
	cr_assert_eq(profdb_hpctkpre_open(&db, dir, &o), 0, "%s: %s", dir, profdb_error_message());
	profdb_hpctkpre_info in;
	profdb_hpctkpre_get_info(db, &in);
	cr_assert_eq(in.meta_kind, PROFDB_HPCTKPRE_META_XML);
	cr_assert(in.n_profiles >= 2 && in.n_contexts > 0 && in.n_metrics > 0);
	cr_assert_eq(profdb_hpctkpre_check(db), 0, "%s: %s", dir, profdb_error_message());
	fuzz_pre_stats st = {0};
	fuzz_hpctkpre_drive(db, 1, &st);
	uint64_t total = 0;
	for (uint32_t p = 0; p < in.n_profiles; p++) {
		profdb_hpctkpre_profile pr;
		cr_assert_eq(profdb_hpctkpre_profile_at(db, p, &pr), 0);
		cr_assert_eq(pr.is_summary, p == 0);
		total += pr.n_values;
	}
	cr_assert_eq(st.values, total, "every stored value read once");
	/* sum over thread profiles of each inclusive/exclusive MetricDB value
	 * equals the summary's "combine" metric of the same scope */
	for (int incl = 0; incl < 2; incl++) {
		uint32_t sum_id = PROFDB_NONE, db_id = PROFDB_NONE;
		for (uint32_t i = 0; i < in.n_metrics; i++) {
			profdb_hpctkpre_metric m;
			profdb_hpctkpre_metric_at(db, i, &m);
			if (m.inclusive != incl)
				continue;
			if (m.is_summary && str_is(m.formula_type, "combine") && sum_id == PROFDB_NONE)
				sum_id = m.id;
			if (!m.is_summary && db_id == PROFDB_NONE)
				db_id = m.id;
		}
		cr_assert(sum_id != PROFDB_NONE && db_id != PROFDB_NONE);
		for (uint32_t c = 0; c < in.n_ctx_slots; c++) {
			double s = 0, v, want = 0;
			for (uint32_t p = 1; p < in.n_profiles; p++)
				if (profdb_hpctkpre_value(db, p, c, db_id, &v) == 1)
					s += v;
			int r = profdb_hpctkpre_value(db, 0, c, sum_id, &want);
			cr_assert(r == 1 || s == 0, "%s ctx %u: threads %g, no summary", dir, c, s);
			cr_assert(fabs(s - want) <= 1e-9 * fabs(want), "%s ctx %u metric %u: %g != %g",
			          dir, c, sum_id, s, want);
		}
	}
	/* trace lines whole and sorted (drive checked), profiles exist */
	for (uint32_t t = 0; t < in.n_traces; t++) {
		profdb_hpctkpre_trace tr;
		cr_assert_eq(profdb_hpctkpre_trace_line_at(db, t, &tr), 0);
		cr_assert(tr.profile < in.n_profiles);
	}
	profdb_hpctkpre_close(db);
	/* the same through open_mem */
	unsigned char *data[4];
	size_t size[4];
	static const char *const names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};
	profdb_input f[4];
	for (int k = 0; k < 4; k++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, names[k]);
		data[k] = tc_slurp(p, &size[k]);
		cr_assert(data[k], "%s", p);
		f[k] = (profdb_input){NULL, data[k], size[k]};
	}
	cr_assert_eq(profdb_hpctkpre_open_mem(&db, f, NULL), 0);
	fuzz_pre_stats st2 = {0};
	fuzz_hpctkpre_drive(db, 1, &st2);
	cr_assert_eq(st2.values, st.values);
	profdb_hpctkpre_close(db);
	for (int k = 0; k < 4; k++)
		free(data[k]);
}

Test(hpctkpre, real_samples)
{
	NEEDS_EXPAT();
	size_t n;
	char **list = list_pre(&n);
	if (!n)
		cr_skip_test("no pre-release samples under the sample data directory");
	for (size_t i = 0; i < n; i++) {
		golden(list[i]);
		free(list[i]);
	}
	free(list);
}

Test(hpctkpre, real_prof2_facts)
{
	NEEDS_EXPAT();
	char *dir = tc_sample_path("hpctoolkit/prerelease/hpcviewer-prof2");
	warnings w = {0};
	profdb_options o = opts_with(&w, 0);
	profdb_hpctkpre *db;
	cr_assert_eq(profdb_hpctkpre_open(&db, dir, &o), 0, "%s", profdb_error_message());
	profdb_hpctkpre_info in;
	profdb_hpctkpre_get_info(db, &in);
	cr_assert_eq(in.n_profiles, 2);
	cr_assert_eq(in.n_ctx_slots, 47);
	cr_assert_eq(in.n_traces, 1);
	cr_assert_eq(in.n_contexts, 30);
	cr_assert_eq(in.n_metrics, 6);
	cr_assert(str_is(in.title, "loop"));
	cr_assert(in.min_time == 0 && in.max_time == 0);
	/* the only trace is empty, its pointers past the end of the file */
	profdb_hpctkpre_trace t;
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 0, &t), 0);
	cr_assert(t.samples.count == 0 && t.profile == 1);
	/* all-zero cct.db blocks read as empty with one warning */
	profdb_view ix, vals;
	cr_assert_eq(profdb_hpctkpre_context_view(db, 5, &ix, &vals), 0);
	cr_assert(ix.count == 0 && vals.count == 0);
	cr_assert_eq(w.n, 1);
	/* the summary uses <Metric> ids, threads <MetricDB> ids */
	double v;
	cr_assert_eq(profdb_hpctkpre_value(db, 0, 2, 256, &v), 1);
	cr_assert_float_eq(v, 15.515846000021766, 1e-15);
	cr_assert_eq(profdb_hpctkpre_value(db, 1, 2, 1, &v), 1);
	cr_assert_float_eq(v, 15.515846000021766, 1e-15);
	profdb_hpctkpre_id id;
	cr_assert_eq(profdb_hpctkpre_profile_id_at(db, 1, 1, &id), 0);
	cr_assert(str_is(id.kind_name, "THREAD"));
	cr_assert_eq(id.interpretation, 3);
	profdb_hpctkpre_context c;
	cr_assert_eq(profdb_hpctkpre_context_get(db, -16, &c), 0);
	cr_assert_eq(c.type, PROFDB_HPCTKPRE_CTX_CALL);
	cr_assert_eq(c.line, 33);
	profdb_hpctkpre_close(db);
	free(dir);
}

TC_MAIN
