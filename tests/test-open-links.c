/* A database folder whose meta.db, profile.db (or a pre-release file) is a
 * symbolic link that cannot be followed -- dangling or looping on itself --
 * is an error naming that entry, never a database without the file. Files
 * of two databases: tests/test-mixed-dbs.c. */
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

TC_MAIN
