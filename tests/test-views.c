/* The common views (profdb_profile_view, profdb_context_view,
 * profdb_trace_view) on every real sample of every format: the example
 * consumer examples/view-fingerprint.c, which reads only views, must count
 * and hash exactly what profdb_values_next and profdb_trace_sample_at return.
 * (qc_check_all, in tests/query-check.c, checks the same and more on every
 * generated fixture.) Plus the views' own rules: errors, memory bound,
 * stable memory. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "common.h"
#include "query-check.h"
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif


TestSuite(views, .timeout = 600);
TestSuite(views_real, .timeout = 600);

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The optional dependency @p path needs, or NULL; *have says whether this
 * build has it: zlib for a gzip Callgrind file, the Cube reader (expat)
 * for a .cubex, expat for a pre-release database (its
 * experiment.xml). */
static const char *needed_feature(const char *path, int *have)
{
	char xml[4096];
	struct stat st;
	snprintf(xml, sizeof xml, "%s/experiment.xml", path);
	*have = 1;
	if (ends_with(path, ".gz")) {
#ifndef PROFDB_HAVE_ZLIB
		*have = 0;
#endif
		return "zlib";
	}
	if (ends_with(path, ".cubex")) {
#ifndef PROFDB_HAVE_CUBE
		*have = 0;
#endif
		return "the Cube reader (expat)";
	}
	if (stat(xml, &st) == 0) {
#ifndef PROFDB_HAVE_EXPAT
		*have = 0;
#endif
		return "expat";
	}
	return NULL;
}

/* Every entry of a sample folder: 1 if it opened and matched, 0 if it is
 * not a profile (README, reference CSVs), -1 if it needs an optional
 * dependency this build lacks (logged, counted as skipped). A sample that
 * needs a dependency the build has must open, and -ENOTSUP is never right
 * otherwise. Without the dependency profdb_open answers -ENOTSUP, or
 * -EPROTONOSUPPORT when the format cannot even be recognised without it
 * (a gzip file, a Cube archive: lib/query/open.c). */
static int check_one(const char *path)
{
	profdb *db;
	int have;
	const char *need = needed_feature(path, &have);
	int o = profdb_open(&db, path, NULL);
	if (need && !have) {
		cr_assert(o == -ENOTSUP || o == -EPROTONOSUPPORT, "%s: %d (%s) without %s", path, o,
		          o < 0 ? profdb_error_message() : "opened", need);
		cr_log_info("%s: skipped, built without %s", path, need);
		return -1;
	}
	if (need)
		cr_assert_eq(o, 0, "%s: %s", path, profdb_error_message());
	cr_assert_neq(o, -ENOTSUP, "%s: %s", path, profdb_error_message());
	if (o < 0)
		return 0;
	qc_views_match_cursor(db, path);
	profdb_close(db);
	return 1;
}

static void count(int r, int *checked, int *skipped)
{
	if (r < 0)
		(*skipped)++;
	else
		*checked += r;
}

/* A folder whose samples all need a missing dependency skips; one where
 * nothing opened otherwise fails. */
static void report(const char *rel, int checked, int skipped)
{
	if (checked == 0 && skipped > 0)
		cr_skip_test("%s: all %d samples need a dependency this build lacks", rel, skipped);
	cr_assert_gt(checked, 0, "%s: no sample opened", rel);
	cr_log_info("%s: %d samples, views == cursor (%d skipped: missing dependency)", rel,
	            checked, skipped);
}

static void check_folder(const char *rel)
{
	char *root = tc_sample_path(rel);   /* skips when absent */
	DIR *d = opendir(root);
	cr_assert_not_null(d, "%s", root);
	struct dirent *e;
	int checked = 0, skipped = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", root, e->d_name);
		count(check_one(path), &checked, &skipped);
	}
	closedir(d);
	free(root);
	report(rel, checked, skipped);
}

Test(views_real, hpctoolkit_v4) { check_folder("hpctoolkit/v4"); }
Test(views_real, hpctoolkit_devstage) { check_folder("hpctoolkit/v4-devstage"); }
Test(views_real, hpctoolkit_prerelease) { check_folder("hpctoolkit/prerelease"); }
Test(views_real, hpcrun) { check_folder("hpctoolkit/hpcrun"); }
Test(views_real, cube) { check_folder("cube"); }
/* Callgrind samples sit in nested folders, one file each. */
static void check_files(const char *rel)
{
	free(tc_sample_path(rel));   /* skips when absent */
	size_t n;
	char **list = tc_list_files(rel, &n);
	int checked = 0, skipped = 0;
	for (size_t i = 0; i < n; i++)
		count(check_one(list[i]), &checked, &skipped);
	tc_free_list(list);
	report(rel, checked, skipped);
}

Test(views_real, callgrind_edge) { check_files("callgrind/edge"); }
Test(views_real, callgrind_public) { check_files("callgrind/public"); }
Test(views_real, callgrind_valgrind) { check_files("callgrind/valgrind"); }
Test(views_real, callgrind_big) { tc_skip_big_under_asan(); check_files("callgrind/big"); }

#ifdef HAVE_TEST_WRITER
static profdb *open_cube(uint64_t max_memory)
{
	tw_blob *t = calloc(1, sizeof *t);   /* kept: the handle reads it until close */
	cr_assert_eq(tw_cube_write(t, 0, NULL), 0);
	profdb_input in = {"sample.cubex", t->data, t->size};
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.max_memory = max_memory;
	profdb *db;
	int r = profdb_open_inputs(&db, &in, 1, &o);
	cr_assert_eq(r, 0, "%s", profdb_error_message());
	return db;
}

/* Materialised views count against max_memory and stay put. */
Test(views, materialised_memory_bound)
{
#ifndef PROFDB_HAVE_CUBE
	cr_skip_test("built without the Cube reader");
#endif
	profdb *db = open_cube(0);
	profdb_view i1, v1, i2, v2;
	cr_assert_eq(profdb_profile_view(db, 0, &i1, &v1), 0);
	cr_assert_gt(v1.count, 0);
	cr_assert_eq(profdb_profile_view(db, 0, &i2, &v2), 0);
	cr_assert_eq(v1.base, v2.base);
	cr_assert_eq(profdb_context_view(db, UINT32_MAX - 1, &i2, &v2), -ENOENT);
	cr_assert_eq(i2.count, 0);
	cr_assert_eq(profdb_trace_view(db, 0, &v2), -ENOTSUP);
	profdb_close(db);

	/* A budget smaller than one profile's records. */
	db = open_cube(4096);
	int r = profdb_profile_view(db, 0, &i1, &v1);
	if (r == 0)   /* the decoder's own tables fit; then a view must fit too */
		cr_assert_leq((v1.count + i1.count) * 16, 4096);
	else
		cr_assert_eq(r, -EFBIG, "%d %s", r, profdb_error_message());
	profdb_close(db);
}
#endif

TC_MAIN
