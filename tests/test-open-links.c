/* A database folder whose meta.db, profile.db (or a pre-release file) is a
 * symbolic link that cannot be followed -- dangling or looping on itself --
 * is an error naming that entry, never a database without the file; and
 * trace.db from another database is an error (strict) or a warning
 * (tolerant) naming both files wherever its lines do not fit profile.db. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "common.h"
#include "profdb-config.h"
#include "writer.h"

static char dir[64];

static void unlink_all(void)
{
	static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db",
	                                    "experiment.xml"};
	char p[128];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

/* Replace @p name by a link that cannot be followed (@p loop: to itself,
 * else to a missing file) and open the folder. */
static void expect_named_error(const char *name, int loop)
{
	char p[128];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	cr_assert_eq(unlink(p), 0, "%s", p);
	cr_assert_eq(symlink(loop ? name : "missing-target", p), 0);
	profdb *db;
	int r = profdb_open(&db, dir, NULL);
	cr_assert_lt(r, 0, "%s as a %s link opened", name, loop ? "looping" : "dangling");
	cr_assert(r == (loop ? -ELOOP : -ENOENT), "%s: %d", name, r);
	cr_assert_not_null(strstr(profdb_error_message(), p), "message \"%s\" does not name %s",
	                   profdb_error_message(), p);
	cr_assert_not_null(strstr(profdb_error_message(), "symbolic link"), "%s",
	                   profdb_error_message());
}

static void make_hpctk4(void)
{
	snprintf(dir, sizeof dir, "/tmp/profdb-links-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
}

static void make_pre(void)
{
	snprintf(dir, sizeof dir, "/tmp/profdb-links-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	tw_pre d;
	tw_pre_sample(&d);
	cr_assert_eq(tw_pre_write_dir(&d, dir), 0);
}

Test(open_links, hpctk4)
{
	static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	for (int loop = 0; loop < 2; loop++)
		for (size_t i = 0; i < 4; i++) {
			make_hpctk4();
			expect_named_error(names[i], loop);
			unlink_all();
		}
}

Test(open_links, hpctkpre)
{
	static const char *const names[] = {"experiment.xml", "profile.db", "cct.db", "trace.db"};
	for (int loop = 0; loop < 2; loop++)
		for (size_t i = 0; i < 4; i++) {
			make_pre();
			expect_named_error(names[i], loop);
			unlink_all();
		}
}

/* The control: the same folders without the link open. */
Test(open_links, intact_folders_open)
{
	profdb *db;
	make_hpctk4();
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_close(db);
	unlink_all();
	make_pre();
#ifdef PROFDB_HAVE_EXPAT
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_close(db);
#else
	/* experiment.xml needs expat: refused as such, not as a broken link */
	cr_assert_eq(profdb_open(&db, dir, NULL), -ENOTSUP, "%s", profdb_error_message());
	cr_assert_not_null(strstr(profdb_error_message(), "no expat"), "%s", profdb_error_message());
#endif
	unlink_all();
}

/* ---- files of two databases ------------------------------------------------ */

/* From trace.db alone: its line count and the largest profile a line names
 * (-1 with no lines); from profile.db alone: its profile count. */
static int64_t alone_count(const char *db_dir, const char *name, int traces, int64_t *max_profile)
{
	char p[4200];
	profdb_hpctk *db;
	snprintf(p, sizeof p, "%s/%s", db_dir, name);
	if (profdb_hpctk_open(&db, p, NULL) != 0)
		return -1;
	int64_t n = traces ? profdb_hpctk_trace_count(db) : profdb_hpctk_profile_count(db);
	*max_profile = -1;
	for (int64_t t = 0; traces && t < n; t++) {
		profdb_hpctk_trace tr;
		if (profdb_hpctk_trace_at(db, (uint32_t)t, &tr) == 0 && tr.profile > *max_profile)
			*max_profile = tr.profile;
	}
	profdb_hpctk_close(db);
	return n;
}

static int warned;
static char warning[1024];

static void on_warn(const char *msg, void *ud)
{
	(void)ud;
	warned++;
	snprintf(warning, sizeof warning, "%s", msg);
}

/* Database @p a with @p b's trace.db, as links in a fresh folder. */
static void mix(const char *a, const char *b)
{
	static const char *const names[] = {"meta.db", "profile.db", "cct.db"};
	char from[4200], to[128];
	snprintf(dir, sizeof dir, "/tmp/profdb-mix-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		snprintf(from, sizeof from, "%s/%s", a, names[i]);
		snprintf(to, sizeof to, "%s/%s", dir, names[i]);
		if (access(from, R_OK) == 0)
			cr_assert_eq(symlink(from, to), 0);
	}
	snprintf(from, sizeof from, "%s/trace.db", b);
	snprintf(to, sizeof to, "%s/trace.db", dir);
	cr_assert_eq(symlink(from, to), 0);
}

Test(open_links, trace_db_swapped_between_databases)
{
	size_t n;
	char **dbs = tc_list_dbs("hpctoolkit/v4", &n);
	if (!dbs)
		cr_skip_test("no HPCToolkit 4.0 samples");
	int told = 0, alike = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int64_t unused, max_profile;
			int64_t np = alone_count(dbs[i], "profile.db", 0, &unused);
			int64_t nt = alone_count(dbs[j], "trace.db", 1, &max_profile);
			if (i == j || np < 0 || nt < 0)
				continue;
			int disagree = nt > np || max_profile >= np;
			mix(dbs[i], dbs[j]);
			profdb *db;
			int r = profdb_open(&db, dir, NULL);
			if (disagree) {
				cr_assert_eq(r, -EBADMSG, "%s with the trace.db of %s opened (%d)", dbs[i],
				             dbs[j], r);
				cr_assert(strstr(profdb_error_message(), "trace.db") &&
				          strstr(profdb_error_message(), "profile.db"),
				          "%s", profdb_error_message());
			} else if (r == 0) {
				profdb_close(db);
			}
			profdb_options o = PROFDB_OPTIONS_INIT;
			o.flags = PROFDB_OPEN_TOLERANT;
			o.warn = on_warn;
			warned = 0;
			r = profdb_open(&db, dir, &o);
			if (r == 0)
				profdb_close(db);
			if (disagree) {
				cr_assert_eq(r, 0, "tolerant: %s", profdb_error_message());
				cr_assert(warned > 0 && strstr(warning, "trace.db") &&
				          strstr(warning, "profile.db"), "tolerant: no warning naming both");
				told++;
			} else {
				printf("cannot be told apart at open: %s with the trace.db of %s\n",
				       tc_basename(dbs[i]), tc_basename(dbs[j]));
				alike++;
			}
			unlink_all();
		}
	printf("trace.db swaps: %d told apart at open, %d not\n", told, alike);
	cr_assert_gt(told, 0, "no swap disagreed: the samples do not test the check");
	tc_free_list(dbs);
}

TC_MAIN
