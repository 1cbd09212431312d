/* The HPCToolkit 4.0 backend's zero-copy views (lib/hpctk4/query-values.c):
 * profile_view, context_view and trace_view must hold exactly what the
 * backend's cursor (PROFDB_SCAN_PROFILE / PROFDB_SCAN_CONTEXT) and
 * trace_at return, in the same order, bit for bit. Checked through the
 * backend table itself (lib/core/backend-internal.h), on the writer's
 * sample database (final and dev-stage layouts) and on every real 4.0
 * database under the sample data. With cct.db every context view is
 * cct.db's plane in the mapping, and holds no summary profile: the
 * summary's values come from its profile view. A cct.db plane that names
 * a summary profile or a profile profile.db lacks is refused. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "core/backend-internal.h"
#include "writer.h"

static const profdb__backend *B = &profdb__hpctk4_backend;

typedef struct counts {
	uint64_t values, samples, zero_copy, fallback, context_values;
} counts;

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* The views' layout (include/profdb/query.h, "views"). */
static void check_layout(const profdb_view *index, const profdb_view *values)
{
	cr_assert(index->value_type == PROFDB_FIELD_U64 && index->key_offset == 0);
	cr_assert(values->value_type == PROFDB_FIELD_F64 && values->key_offset == 0);
	cr_assert(!index->big_endian && !values->big_endian);
	cr_assert((index->base == NULL) == (index->count == 0));
	cr_assert((values->base == NULL) == (values->count == 0));
	uint8_t zero[6] = {0};
	cr_assert(memcmp(index->reserved, zero, 6) == 0 && memcmp(values->reserved, zero, 6) == 0);
}

/* Walk a (index, values) pair in order and compare each record with the
 * next entry of a cursor; @p by_profile: index keys are contexts. */
static uint64_t compare_with_cursor(const void *impl, profdb_scan scan, uint32_t key,
                                    const profdb_view *index, const profdb_view *values)
{
	profdb__cursor cur;
	profdb_entry e;
	uint64_t n = 0;
	memset(&cur, 0, sizeof cur);
	cur.scan = scan;
	cur.key = key;
	cr_assert_eq(B->cursor_begin(impl, &cur), 0, "%s", profdb_error_message());
	PROFDB_VIEW_FOREACH(index, i) {
		profdb_view run = profdb_view_run(index, i, values);
		uint64_t ikey = profdb_view_key(index, i);
		cr_assert(i == 0 || ikey > profdb_view_key(index, i - 1), "index keys not increasing");
		PROFDB_VIEW_FOREACH(&run, j) {
			cr_assert_eq(B->cursor_next(impl, &cur, &e), 1, "view has more than the cursor");
			profdb_number v = profdb_view_value(&run, j);
			uint64_t vkey = profdb_view_key(&run, j);
			if (scan == PROFDB_SCAN_PROFILE)
				cr_assert(e.profile == key && e.context == ikey && e.metric == vkey,
				          "profile %u: view (%llu, %llu), cursor (%u, %u)", key,
				          (unsigned long long)ikey, (unsigned long long)vkey, e.context,
				          e.metric);
			else
				cr_assert(e.context == key && e.metric == ikey && e.profile == vkey,
				          "context %u: view (%llu, %llu), cursor (%u, %u)", key,
				          (unsigned long long)ikey, (unsigned long long)vkey, e.metric,
				          e.profile);
			cr_assert(v.type == PROFDB_TYPE_F64 && e.value.type == PROFDB_TYPE_F64 &&
			          same_bits(v.as.f64, e.value.as.f64));
			n++;
		}
	}
	cr_assert_eq(B->cursor_next(impl, &cur, &e), 0, "cursor has more than the view");
	if (B->cursor_free)
		B->cursor_free(impl, &cur);
	return n;
}

static void check_trace(const void *impl, uint32_t p, counts *c)
{
	profdb_view t;
	cr_assert_eq(B->trace_view(impl, p, &t), 0, "%s", profdb_error_message());
	cr_assert_eq((int64_t)t.count, B->trace_length(impl, p));
	cr_assert(t.key_type == PROFDB_FIELD_U64 && t.value_type == PROFDB_FIELD_U32);
	cr_assert((t.base == NULL) == (t.count == 0));
	PROFDB_VIEW_FOREACH(&t, i) {
		profdb_sample s;
		cr_assert_eq(B->trace_at(impl, p, i, &s), 0);
		cr_assert(profdb_view_key(&t, i) == s.time_ns &&
		          profdb_view_value(&t, i).as.u64 == s.context, "profile %u sample %llu", p,
		          (unsigned long long)i);
	}
	/* The backend's trace_seek is the view's lower bound. */
	if (t.count) {
		uint64_t a, b, mid = profdb_view_key(&t, t.count / 2);
		cr_assert_eq(B->trace_seek(impl, p, mid, &a), 0);
		cr_assert_eq(profdb_view_seek(&t, mid, &b), 0);
		cr_assert_eq(a, b);
	}
	c->samples += t.count;
}

/* Every profile, every cct.db slot (and one id past them), every trace. */
static void check_backend(const void *impl, counts *c)
{
	const profdb_hpctk *db = B->native ? B->native(impl) : impl;
	int64_t np = B->profile_count(impl);
	cr_assert(np >= 0);
	for (uint32_t p = 0; p < (uint64_t)np; p++) {
		profdb_view index, values;
		cr_assert_eq(B->profile_view(impl, p, &index, &values), 0, "%s",
		             profdb_error_message());
		check_layout(&index, &values);
		cr_assert(index.key_type == PROFDB_FIELD_U32 && index.stride == 12);
		cr_assert(values.key_type == PROFDB_FIELD_U16 && values.stride == 10);
		c->values += compare_with_cursor(impl, PROFDB_SCAN_PROFILE, p, &index, &values);
		c->zero_copy++;
		check_trace(impl, p, c);
	}
	int64_t slots = profdb_hpctk_has(db, PROFDB_HPCTK_CCT) == 1 ? profdb_hpctk_cct_slot_count(db)
	                                                           : 16;
	cr_assert(slots >= 0);
	int has_cct = profdb_hpctk_has(db, PROFDB_HPCTK_CCT) == 1;
	for (uint32_t id = 0; id <= (uint64_t)slots; id++) {
		profdb_view index, values, pi, pv;
		int r = B->context_view(impl, id, &index, &values);
		cr_assert_eq(r, has_cct ? 0 : PROFDB__VIEW_FALLBACK, "context %u: %d %s", id, r,
		             profdb_error_message());
		if (r == PROFDB__VIEW_FALLBACK) {
			c->fallback++;
			continue;
		}
		check_layout(&index, &values);
		cr_assert(index.key_type == PROFDB_FIELD_U16 && index.stride == 10);
		cr_assert(values.key_type == PROFDB_FIELD_U32 && values.stride == 12);
		/* zero-copy: the very records of cct.db's plane */
		cr_assert_eq(profdb_hpctk_context_plane(db, id, &pi, &pv), 0);
		cr_assert(index.base == pi.base && values.base == pv.base &&
		          values.count == pv.count, "context %u is not cct.db's plane", id);
		PROFDB_VIEW_FOREACH(&values, k) {
			profdb_profile pr;
			cr_assert_eq(B->profile_get(impl, (uint32_t)profdb_view_key(&values, k), &pr), 0);
			cr_assert(!pr.is_summary, "context %u holds a summary profile", id);
		}
		c->context_values += compare_with_cursor(impl, PROFDB_SCAN_CONTEXT, id, &index,
		                                         &values);
		c->zero_copy++;
	}
}

/* The thread profiles' value count: what the context views hold together. */
static uint64_t thread_values(const void *impl)
{
	uint64_t n = 0;
	int64_t np = B->profile_count(impl);
	for (uint32_t p = 0; p < (uint64_t)np; p++) {
		profdb_profile pr;
		profdb_view index, values;
		cr_assert_eq(B->profile_get(impl, p, &pr), 0);
		cr_assert_eq(B->profile_view(impl, p, &index, &values), 0);
		n += pr.is_summary ? 0 : values.count;
	}
	return n;
}

static void check_dir(const char *dir, counts *c)
{
	void *impl = NULL;
	cr_assert_eq(B->open_path(&impl, dir, NULL), 0, "%s: %s", dir, profdb_error_message());
	check_backend(impl, c);
	if (c->fallback == 0)
		cr_assert_eq(c->context_values, thread_values(impl), "%s", dir);
	B->close(impl);
}

static char *write_sample(int devstage, int no_cct)
{
	char tmpl[] = "/tmp/profdb-views-XXXXXX";
	char *dir = mkdtemp(tmpl);
	cr_assert(dir);
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	d.devstage = devstage;
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	if (no_cct) {
		char path[512];
		snprintf(path, sizeof path, "%s/cct.db", dir);
		unlink(path);
	}
	return strdup(dir);
}

static void remove_dir(char *dir)
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, tc_file_names[f]);
		unlink(path);
	}
	rmdir(dir);
	free(dir);
}

Test(hpctk4_views, sample_database)
{
	for (int devstage = 0; devstage <= 1; devstage++)
		for (int no_cct = 0; no_cct <= 1; no_cct++) {
			char *dir = write_sample(devstage, no_cct);
			counts c = {0};
			check_dir(dir, &c);
			/* tests/writer's sample: 3 profiles, 2 trace lines. */
			cr_assert(c.values > 0 && c.samples == 6, "%llu values, %llu samples",
			          (unsigned long long)c.values, (unsigned long long)c.samples);
			/* Without cct.db every context view (ids 0 .. 16) is
			 * materialised by lib/query; with it, every one is zero-copy
			 * (17 slots and one past them), and together they hold profiles
			 * 1 and 2's 32 + 25 values. */
			cr_assert(no_cct ? c.fallback == 17 && c.context_values == 0
			                 : c.fallback == 0 && c.zero_copy == 3 + 18 &&
			                   c.context_values == 57,
			          "cct.db %s: %llu fallbacks, %llu zero-copy, %llu values", no_cct ? "absent"
			          : "present", (unsigned long long)c.fallback,
			          (unsigned long long)c.zero_copy, (unsigned long long)c.context_values);
			remove_dir(dir);
		}
}

Test(hpctk4_views, real_databases, .timeout = 600)
{
	static const char *const families[] = {"hpctoolkit/v4", "hpctoolkit/v4-devstage"};
	size_t total = 0;
	for (size_t k = 0; k < 2; k++) {
		size_t n;
		char **list = tc_list_dbs(families[k], &n);
		for (size_t i = 0; list && i < n; i++) {
			counts c = {0};
			check_dir(list[i], &c);
			cr_log_info("%s: %llu values, %llu samples, %llu zero-copy views, %llu context "
			            "views left to lib/query", list[i], (unsigned long long)c.values,
			            (unsigned long long)c.samples, (unsigned long long)c.zero_copy,
			            (unsigned long long)c.fallback);
			total++;
		}
		tc_free_list(list);
	}
	if (total == 0)
		cr_skip_test("no HPCToolkit 4.0 sample data");
}

/* Through the public API: the views are the backend's. */
Test(hpctk4_views, public_views_match_backend)
{
	char *dir = write_sample(0, 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_view index, values, t;
	cr_assert_eq(profdb_profile_view(db, 1, &index, &values), 0, "%s", profdb_error_message());
	void *impl = NULL;
	profdb_view bi, bv;
	cr_assert_eq(B->open_path(&impl, dir, NULL), 0);
	cr_assert_eq(B->profile_view(impl, 1, &bi, &bv), 0);
	cr_assert(index.count == bi.count && values.count == bv.count);
	PROFDB_VIEW_FOREACH(&values, i) {
		profdb_number a = profdb_view_value(&values, i), b = profdb_view_value(&bv, i);
		cr_assert(profdb_view_key(&values, i) == profdb_view_key(&bv, i) &&
		          same_bits(a.as.f64, b.as.f64));
	}
	cr_assert_eq(profdb_trace_view(db, 1, &t), 0);
	cr_assert_eq((int64_t)t.count, B->trace_length(impl, 1));
	B->close(impl);
	profdb_close(db);
	remove_dir(dir);
}

/* The value of (metric, profile) in a context view, or NaN when absent. */
static double context_value(const profdb_view *index, const profdb_view *values, uint32_t m,
                            uint32_t p)
{
	uint64_t i, j;
	if (profdb_view_find(index, m, &i) != 1)
		return __builtin_nan("");
	profdb_view run = profdb_view_run(index, i, values);
	return profdb_view_find(&run, p, &j) == 1 ? profdb_view_value(&run, j).as.f64
	                                         : __builtin_nan("");
}

/* profdb_context_view() of the writer's sample is cct.db's plane in the
 * mapping (the file the mapping of its records belongs to is cct.db), with
 * the thread profiles' values of tests/writer/writer.h's table and no
 * summary value; the summary's come from its profile view, the table's
 * numbers bit for bit, and agree with profdb_value() and a profile scan. */
Test(hpctk4_views, context_view_is_cct_db_in_place)
{
	char *dir = write_sample(0, 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	const profdb_hpctk *h = profdb_get_hpctk(db);
	cr_assert(h);
	profdb_view ci, cv, pi, pv;
	for (uint32_t ctx = 0; ctx < 17; ctx++) {
		if (profdb_context_view(db, ctx, &ci, &cv) == -ENOENT)
			continue;   /* id 6: unused */
		cr_assert_eq(profdb_hpctk_context_plane(h, ctx, &pi, &pv), 0);
		cr_assert(ci.base == pi.base && cv.base == pv.base && cv.count == pv.count);
		if (cv.count) {
			const char *file = profdb_mapping_path_of(cv.base);
			cr_assert(file && strcmp(tc_basename(file), "cct.db") == 0, "ctx %u in %s", ctx,
			          file ? file : "no mapping");
		}
		PROFDB_VIEW_FOREACH(&cv, k)
			cr_assert(profdb_view_key(&cv, k) != 0, "context %u holds the summary", ctx);
	}
	/* context 13: CPUTIME (0..2) and cycles (3, 4) of both threads */
	cr_assert_eq(profdb_context_view(db, 13, &ci, &cv), 0);
	static const double thread1[5] = {2, 2, 2.25, 4096, 4096}, thread2[5] = {1, 1, 1, 2048, 2048};
	cr_assert_eq(ci.count, 5);
	cr_assert_eq(cv.count, 10);
	for (uint32_t m = 0; m < 5; m++)
		cr_assert(same_bits(context_value(&ci, &cv, m, 1), thread1[m]) &&
		          same_bits(context_value(&ci, &cv, m, 2), thread2[m]), "metric %u", m);
	/* its summary: statistics 0..5 in profile 0's view */
	static const double summary13[6] = {3, 3, 3.25, 6144, 4096, 6144};
	cr_assert_eq(profdb_profile_view(db, 0, &pi, &pv), 0);
	cr_assert_eq(pi.count, 16);
	cr_assert_eq(pv.count, 38);
	uint64_t at, n = 0;
	cr_assert_eq(profdb_view_find(&pi, 13, &at), 1);
	profdb_view run = profdb_view_run(&pi, at, &pv);
	cr_assert_eq(run.count, 6);
	PROFDB_VIEW_FOREACH(&run, k) {
		cr_assert_eq(profdb_view_key(&run, k), k);
		cr_assert(same_bits(profdb_view_value(&run, k).as.f64, summary13[k]));
	}
	/* every summary value: the profile view, profdb_value and the scan agree */
	profdb_values *it;
	profdb_entry e;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_PROFILE, 0), 0);
	while (profdb_values_next(it, &e) == 1) {
		profdb_number v;
		uint64_t c, k;
		cr_assert_eq(profdb_view_find(&pi, e.context, &c), 1);
		profdb_view r = profdb_view_run(&pi, c, &pv);
		cr_assert_eq(profdb_view_find(&r, e.metric, &k), 1);
		cr_assert(same_bits(profdb_view_value(&r, k).as.f64, e.value.as.f64));
		cr_assert_eq(profdb_value(db, 0, e.context, e.metric, &v), 1);
		cr_assert(same_bits(v.as.f64, e.value.as.f64));
		n++;
	}
	profdb_values_free(it);
	cr_assert_eq(n, 38);
	/* a scan by context leaves the summary out too */
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, 13), 0);
	for (n = 0; profdb_values_next(it, &e) == 1; n++)
		cr_assert(e.profile == 1 || e.profile == 2);
	profdb_values_free(it);
	cr_assert_eq(n, 10);
	profdb_close(db);
	remove_dir(dir);
}

/* ---- a cct.db that names a profile it must not ---------------------------- */

static void warned(const char *message, void *userdata)
{
	(void)message;
	++*(int *)userdata;
}

/* The sample with the profile of context 0's cct.db value @p i of metric
 * 2's run {1, 2} set to @p profile, written to a new directory; *offset:
 * where in cct.db. */
static char *write_renamed(uint64_t i, uint32_t profile, uint64_t *offset)
{
	tw_hpctk4 d;
	tw_blob b[TW_NFILES];
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write(&d, b), 0);
	profdb_input in[PROFDB_HPCTK_NFILES] = {{0}};
	for (int f = 0; f < TW_NFILES; f++)
		in[f] = (profdb_input){tc_file_names[f], b[f].data, b[f].size};
	profdb_hpctk *h;
	profdb_view pi, pv;
	cr_assert_eq(profdb_hpctk_open_mem(&h, in, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_hpctk_context_plane(h, 0, &pi, &pv), 0);
	cr_assert(pv.count == 4 && profdb_view_key(&pv, 0) == 1 &&   /* 2:{1, 2} 3:{1, 2} */
	          profdb_view_key(&pv, 1) == 2);
	*offset = (uint64_t)(pv.base - b[TW_CCT].data) + i * pv.stride;
	profdb_hpctk_close(h);
	unsigned char *p = b[TW_CCT].data + *offset;
	for (int k = 0; k < 4; k++)
		p[k] = (unsigned char)(profile >> (8 * k));
	char tmpl[] = "/tmp/profdb-views-XXXXXX";
	char *dir = mkdtemp(tmpl);
	cr_assert(dir);
	for (int f = 0; f < TW_NFILES; f++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, tc_file_names[f]);
		FILE *out = fopen(path, "wb");
		cr_assert(out && fwrite(b[f].data, 1, b[f].size, out) == b[f].size);
		fclose(out);
		tw_blob_free(&b[f]);
	}
	return strdup(dir);
}

Test(hpctk4_views, cct_db_naming_the_summary_or_no_profile_is_refused)
{
	/* profile 1 -> 0, the summary; profile 2 -> 3, past the 3 profiles */
	static const uint32_t bad[2] = {0, 3};
	static const char *const says[2] = {"summary profile", "past the 3 profiles"};
	for (int k = 0; k < 2; k++) {
		uint64_t off;
		char *dir = write_renamed((uint64_t)k, bad[k], &off);
		char where[32];
		snprintf(where, sizeof where, "at 0x%llx", (unsigned long long)off);
		profdb *db;
		profdb_view ci, cv;
		profdb_values *it;
		profdb_entry e;
		cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_context_view(db, 0, &ci, &cv), -EBADMSG);
		const char *msg = profdb_error_message();
		cr_assert(strstr(msg, "cct.db") && strstr(msg, where) && strstr(msg, says[k]), "%s",
		          msg);
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, 0), 0);
		cr_assert_eq(profdb_values_next(it, &e), -EBADMSG);
		profdb_values_free(it);
		/* the other contexts and the profiles stay readable */
		cr_assert_eq(profdb_context_view(db, 13, &ci, &cv), 0);
		cr_assert_eq(cv.count, 10);
		cr_assert_eq(profdb_profile_view(db, 0, &ci, &cv), 0);
		profdb_close(db);
		/* tolerant: the block reads as absent, once reported */
		int warnings = 0;
		profdb_options o = {.size = sizeof o, .flags = PROFDB_OPEN_TOLERANT, .warn = warned,
		                    .warn_userdata = &warnings};
		cr_assert_eq(profdb_open(&db, dir, &o), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_context_view(db, 0, &ci, &cv), 0);
		cr_assert(ci.count == 0 && cv.count == 0);
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, 0), 0);
		cr_assert_eq(profdb_values_next(it, &e), 0);
		profdb_values_free(it);
		cr_assert_eq(warnings, 1);
		profdb_close(db);
		remove_dir(dir);
	}
}
