/* The generic invariants of the common query interface (tests/query-check.h)
 * on the backends whose own tests look at their native API: the
 * HPCToolkit pre-release databases, the draft meta.db and Cube, on the
 * test-data writer's samples (every layout variant) and on every real
 * sample of these formats. HPCToolkit 4.0, hpcrun and Callgrind have their
 * own query tests (test-query*.c). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "common.h"
#include "query-check.h"
#include "writer.h"

static profdb *open_named(const profdb_input *in, size_t n, const char *what)
{
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, in, n, NULL);
	cr_assert_eq(r, 0, "%s: %d %s", what, r, profdb_error_message());
	return db;
}

/* ---- pre-release and draft --------------------------------------------------------- */

static const char *const pre_names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};

static void check_pre(const tw_pre *d, const char *what, profdb_format want)
{
	tw_blob b[4];
	cr_assert_eq(tw_pre_write(d, b), 0);
	profdb_input in[4];
	for (int i = 0; i < 4; i++)
		in[i] = (profdb_input){pre_names[i], b[i].data, b[i].size};
	profdb *db = open_named(in, 4, what);
	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0);
	cr_assert_eq(a.format, want, "%s", what);
	cr_assert_not_null(profdb_get_hpctkpre(db));
	cr_assert_null(profdb_get_hpcrun(db));
	cr_assert_eq(profdb_hpctkpre_check(profdb_get_hpctkpre(db)), 0, "%s", profdb_error_message());
	profdb_counts c = qc_check_all(db, what);
	cr_assert_eq(c.profiles, 3, "%s", what);
	cr_assert_eq(c.values, TW_PRE_SAMPLE_VALUES, "%s", what);
	cr_assert_eq(c.traces, 2, "%s", what);
	cr_assert_eq(c.samples, 4, "%s", what);
	profdb_close(db);
	for (int i = 0; i < 4; i++)
		tw_blob_free(&b[i]);
}

Test(query_formats, prerelease_samples)
{
	tw_pre d;
	tw_pre_sample(&d);
	check_pre(&d, "pre-release sample", PROFDB_FORMAT_HPCTK_PRE);
	d.zero_cct = 1;
	check_pre(&d, "pre-release, cct.db all zero", PROFDB_FORMAT_HPCTK_PRE);
	d.native_footer = 1;
	check_pre(&d, "pre-release, native footers", PROFDB_FORMAT_HPCTK_PRE);
	d.zero_trace_bounds = 1;
	check_pre(&d, "pre-release, zero trace bounds", PROFDB_FORMAT_HPCTK_PRE);
}

Test(query_formats, draft_samples)
{
	static const unsigned flags[] = {0, TW_DRAFT_DOC7, TW_DRAFT_FOOTER,
	                                 TW_DRAFT_DOC7 | TW_DRAFT_FOOTER};
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
		tw_blob m;
		cr_assert_eq(tw_draft_write(&m, flags[k]), 0);
		profdb_input in = {"meta.db", m.data, m.size};
		profdb *db = open_named(&in, 1, "draft meta.db");
		profdb_about a;
		cr_assert_eq(profdb_get_about(db, &a), 0);
		cr_assert(a.format == PROFDB_FORMAT_HPCTK_DRAFT || a.format == PROFDB_FORMAT_HPCTK_PRE);
		profdb_counts c = qc_check_all(db, "draft meta.db");
		cr_assert_eq(c.contexts, 5, "flags %u", flags[k]);
		profdb_close(db);
		tw_blob_free(&m);
	}
}

/* Lines, loops and call sites without a file of their own (no f attribute,
 * or hpcprof's "<unknown file>") take the nearest enclosing scope's file,
 * never past their procedure (doc/model.md, pre-release table). The
 * writer's sample with some f attributes taken away or made unknown. */
static void replace_once(char *buf, size_t cap, const char *from, const char *to)
{
	char *at = strstr(buf, from);
	cr_assert_not_null(at, "%s", from);
	size_t fl = strlen(from), tl = strlen(to), rest = strlen(at + fl);
	cr_assert_lt(strlen(buf) - fl + tl, cap);
	memmove(at + tl, at + fl, rest + 1);
	memcpy(at, to, tl);
}

Test(query_formats, prerelease_files_inherited)
{
#ifndef PROFDB_HAVE_EXPAT
	cr_skip_test("built without expat: experiment.xml cannot be read");
#endif
	static char xml[8192];
	snprintf(xml, sizeof xml, "%s", tw_pre_sample_xml());
	replace_once(xml, sizeof xml, "<L i=\"2\" s=\"2\" v=\"0\" f=\"0\"", "<L i=\"2\" s=\"2\" v=\"0\"");
	replace_once(xml, sizeof xml, "<S i=\"3\" it=\"3\" f=\"0\"", "<S i=\"3\" it=\"3\"");
	replace_once(xml, sizeof xml, "<C i=\"4\" s=\"4\" v=\"0x1010\" f=\"0\"",
	             "<C i=\"4\" s=\"4\" v=\"0x1010\" f=\"2147483647\"");
	replace_once(xml, sizeof xml, "<S i=\"6\" it=\"6\" f=\"1\"", "<S i=\"6\" it=\"6\"");
	tw_pre d;
	tw_pre_sample(&d);
	d.xml = xml;
	tw_blob b[4];
	cr_assert_eq(tw_pre_write(&d, b), 0);
	profdb_input in[4];
	for (int i = 0; i < 4; i++)
		in[i] = (profdb_input){pre_names[i], b[i].data, b[i].size};
	profdb *db = open_named(in, 4, "pre-release without some files");
	static const struct {
		uint32_t id;
		const char *file;
	} want[] = {
		{1, "main.c"}, {2, "main.c"}, {3, "main.c"}, {4, "main.c"}, {5, "util.h"},
		{6, "util.h"},   /* from foo, not from main's call site */
		{0x80000008u, "main.c"}, {8, "<unknown file>"},
		{9, "<unknown file>"},   /* memcpy has no better one */
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		profdb_context c;
		cr_assert_eq(profdb_context_get(db, want[i].id, &c), 0, "%s", profdb_error_message());
		cr_expect(c.file.len == strlen(want[i].file) &&
		          memcmp(c.file.ptr, want[i].file, c.file.len) == 0,
		          "context %#x: '%.*s', want '%s'", want[i].id, (int)c.file.len, c.file.ptr,
		          want[i].file);
	}
	qc_check_all(db, "inherited files");
	profdb_close(db);
	for (int i = 0; i < 4; i++)
		tw_blob_free(&b[i]);

	/* the draft sample: foo's instruction point stays without a file, as
	 * foo has none (main's is not foo's) */
	tw_blob m;
	cr_assert_eq(tw_draft_write(&m, 0), 0);
	profdb_input dm = {"meta.db", m.data, m.size};
	db = open_named(&dm, 1, "draft meta.db");
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, 5, &c), 0);
	cr_expect_eq(c.file.len, 0);
	cr_assert_eq(profdb_context_get(db, 3, &c), 0);
	cr_expect(c.file.len == 6 && memcmp(c.file.ptr, "main.c", 6) == 0);
	profdb_close(db);
	tw_blob_free(&m);
}

/* ---- Cube ------------------------------------------------------------------------ */

Test(query_formats, cube_samples)
{
	static const unsigned flags[] = {
		0, TW_CUBE_BIG_ENDIAN, TW_CUBE_DENSE, TW_CUBE_BAD_CHECKSUM, TW_CUBE_CUBEW_PAD,
		TW_CUBE_DERIVED, TW_CUBE_EXACT_BLOCK, TW_CUBE_SIMPLE,
#ifdef PROFDB_HAVE_ZLIB
		TW_CUBE_ZCUBEX, TW_CUBE_GZIP_ANCHOR, TW_CUBE_GZIP_ARCHIVE,
		TW_CUBE_ZCUBEX | TW_CUBE_BIG_ENDIAN | TW_CUBE_GZIP_ARCHIVE,
#endif
	};
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
		tw_blob t = {0};
		cr_assert_eq(tw_cube_write(&t, flags[k], NULL), 0);
		profdb_input in = {"sample.cubex", t.data, t.size};
		char what[64];
		snprintf(what, sizeof what, "cube sample, flags 0x%x", flags[k]);
		profdb *db = open_named(&in, 1, what);
		profdb_counts c = qc_check_all(db, what);
		cr_assert_eq(c.profiles, TW_CUBE_LOCATIONS, "%s", what);
		cr_assert_eq(c.contexts, TW_CUBE_CNODES, "%s", what);
		profdb_close(db);
		tw_blob_free(&t);
	}
}

/* ---- real samples --------------------------------------------------------------------- */

static char *sample_dir(const char *rel)
{
	const char *root = tc_sample_root();
	if (!root)
		cr_skip_test("no sample data directory");
	char *dir;
	cr_assert(asprintf(&dir, "%s/%s", root, rel) >= 0);
	struct stat st;
	if (stat(dir, &st) != 0) {
		free(dir);
		cr_skip_test("no samples under %s/%s", root, rel);
	}
	return dir;
}

/* Every entry of @p dir (files or subdirectories) whose name ends with
 * @p suffix ("" for all), opened through profdb_open. */
static void check_entries(const char *rel, const char *suffix)
{
	char *dir = sample_dir(rel);
	DIR *d = opendir(dir);
	cr_assert(d);
	struct dirent *e;
	int checked = 0;
	size_t sl = strlen(suffix);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.' || n < sl || strcmp(e->d_name + n - sl, suffix) != 0 ||
		    strncmp(e->d_name, "README", 6) == 0)
			continue;
		char *path;
		cr_assert(asprintf(&path, "%s/%s", dir, e->d_name) >= 0);
		profdb *db;
		int r = profdb_open(&db, path, NULL);
		cr_assert_eq(r, 0, "%s: %s", path, profdb_error_message());
		qc_check_all(db, path);
		profdb_close(db);
		free(path);
		checked++;
	}
	closedir(d);
	free(dir);
	cr_assert_gt(checked, 0, "nothing checked under %s", rel);
}

Test(query_formats_real, prerelease, .timeout = 300)
{
	check_entries("hpctoolkit/prerelease", "");
}

/* The old experiment.xml + .metric-db databases. */
Test(query_formats_real, experiment_xml, .timeout = 300)
{
#ifndef PROFDB_HAVE_EXPAT
	cr_skip_test("built without expat: experiment.xml cannot be read");
#endif
	check_entries("hpctoolkit/xml", "");
}

Test(query_formats_real, cube, .timeout = 600)
{
	check_entries("cube", ".cubex");
}
