/* The mmap truncation hazard and the policy of doc/ROBUSTNESS.md ("mmap and
 * SIGBUS"), tested as promised:
 *  - a file that shrinks between fstat and the end of open is reported
 *    (-ENODATA, "shrank"), not mapped: the size is re-checked after mmap;
 *  - PROFDB_OPEN_COPY reads the files into private memory: truncating them
 *    after open changes nothing, every call gives the same answers;
 *  - without it the hazard is real (the caller's responsibility): touching
 *    a truncated mapping kills the process with SIGBUS. This case runs in a
 *    child process and documents why the copy mode exists. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "common.h"
#include "query-hash.h"
#include "core/core-internal.h"
#include "writer.h"

static char dir[64];

/* A fresh copy of the writer's sample database in a temporary directory. */
static void make_db(void)
{
	snprintf(dir, sizeof dir, "/tmp/profdb-trunc-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
}

static void remove_db(void)
{
	static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	char p[128];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void truncate_all(off_t size)
{
	static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	char p[128];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		cr_assert_eq(truncate(p, size), 0, "truncate %s: %s", p, strerror(errno));
	}
}

static int open_db(profdb_hpctk **db, uint32_t flags)
{
	profdb_options o = {.size = sizeof o, .flags = flags};
	return profdb_hpctk_open(db, dir, &o);
}

/* ---- re-check at open ------------------------------------------------------- */

static const char *shrink_target;
static int hook_calls;

static void shrink_hook(const char *path)
{
	hook_calls++;
	if (shrink_target && strstr(path, shrink_target))
		cr_assert_eq(truncate(path, 64), 0);
}

Test(truncation, shrinking_during_open_is_reported)
{
	static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		make_db();   /* a fresh, full-size copy for each file */
		shrink_target = names[i];
		hook_calls = 0;
		profdb_hpctk *db = (profdb_hpctk *)&hook_calls;
		profdb__input_mapped_hook = shrink_hook;
		int r = open_db(&db, 0);
		profdb__input_mapped_hook = NULL;
		cr_assert_gt(hook_calls, 0, "the seam was not reached");
		cr_assert_eq(r, -ENODATA, "%s shrank during open: %d (%s)", names[i], r,
		             profdb_error_message());
		cr_assert_null(db);
		cr_assert(strstr(profdb_error_message(), "shrank") &&
		          strstr(profdb_error_message(), names[i]), "message: %s",
		          profdb_error_message());
		remove_db();
	}
	make_db();
	/* The copy mode never maps, so the seam is not reached and the file
	 * is read whole. */
	profdb_hpctk *db = NULL;
	hook_calls = 0;
	profdb__input_mapped_hook = shrink_hook;
	shrink_target = "meta.db";
	cr_assert_eq(open_db(&db, PROFDB_OPEN_COPY), 0, "%s", profdb_error_message());
	profdb__input_mapped_hook = NULL;
	cr_assert_eq(hook_calls, 0);
	profdb_hpctk_close(db);
	remove_db();
}

/* ---- the copy mode ------------------------------------------------------------ */

Test(truncation, copy_mode_survives_truncation)
{
	profdb_hpctk *ref = NULL, *db = NULL;
	make_db();
	cr_assert_eq(open_db(&ref, 0), 0, "%s", profdb_error_message());
	tc_drive_stats want, got;
	tc_drive(ref, 0, &want);
	profdb_hpctk_close(ref);
	cr_assert_gt(want.values, 0);
	cr_assert_eq(want.failures, 0);
	remove_db();

	for (uint32_t flags = PROFDB_OPEN_COPY; flags <= (PROFDB_OPEN_COPY | PROFDB_OPEN_POPULATE);
	     flags += PROFDB_OPEN_POPULATE) {
		make_db();
		cr_assert_eq(open_db(&db, flags), 0, "%s", profdb_error_message());
		truncate_all(0);   /* every file now empty on disk */
		tc_drive(db, 0, &got);
		cr_assert_eq(got.failures, 0, "flags %u: %llu failures after truncation", flags,
		             (unsigned long long)got.failures);
		cr_assert(got.contexts == want.contexts && got.values == want.values &&
		          got.cct_values == want.cct_values && got.samples == want.samples,
		          "flags %u: the copy answers differently after truncation", flags);
		profdb_hpctk_close(db);
		remove_db();
	}
}

/* ---- the same promise for every format of the common interface ----------------
 * Each input is written to files, opened through profdb_open with
 * PROFDB_OPEN_COPY, every file truncated to 0 bytes, and then the whole
 * interface (tests/query-hash.h: tree, inclusive/exclusive values, the
 * value cursor) must answer as a handle that never saw a truncation. */

static void put(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "%s", path);
}

/* @p open_path under a fresh directory holding @p n files; checked and
 * removed. */
static void copy_survives(const char *what, const char *const *names, const tw_blob *files,
                          size_t n, const char *open_path)
{
	char d[] = "/tmp/profdb-trunc-any-XXXXXX", path[256];
	cr_assert_not_null(mkdtemp(d));
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", d, names[i]);
		put(path, files[i].data, files[i].size);
	}
	snprintf(path, sizeof path, "%s%s%s", d, open_path[0] ? "/" : "", open_path);
	profdb_options o = {.size = sizeof o, .flags = PROFDB_OPEN_COPY};
	profdb *ref, *db;
	cr_assert_eq(profdb_open(&ref, path, NULL), 0, "%s: %s", what, profdb_error_message());
	uint64_t want = qh_hash(ref);
	profdb_close(ref);
	cr_assert_neq(want, 0, "%s: %s", what, profdb_error_message());
	cr_assert_eq(profdb_open(&db, path, &o), 0, "%s: %s", what, profdb_error_message());
	for (size_t i = 0; i < n; i++) {
		char f[256];
		snprintf(f, sizeof f, "%s/%s", d, names[i]);
		cr_assert_eq(truncate(f, 0), 0);
	}
	cr_assert_eq(qh_hash(db), want, "%s: the copy answers differently after truncation", what);
	profdb_close(db);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", d, names[i]);
		unlink(path);
	}
	rmdir(d);
}

Test(truncation, copy_mode_every_format)
{
	static const char cg_text[] = "# callgrind format\nevents: Ir\nfl=(1) a.c\nfn=(1) main\n"
	                              "1 5\ncfn=(2) f\ncalls=2 10\n2 40\nfn=(2)\n10 40\n";
	tw_blob cg = {(unsigned char *)(uintptr_t)cg_text, sizeof cg_text - 1};
	const char *cg_name = "callgrind.out.1";
	copy_survives("callgrind", &cg_name, &cg, 1, cg_name);

	tw_hpcrun d;
	tw_blob hb[2];
	tw_hpcrun_sample(&d, 4, 0);
	cr_assert_eq(tw_hpcrun_write(&d, &hb[0]), 0);
	const tw_hpctrace_rec *recs;
	size_t nrec;
	tw_hpctrace_sample(&recs, &nrec);
	cr_assert_eq(tw_hpctrace_write(0, recs, nrec, &hb[1]), 0);
	const char *hnames[2] = {"app-000000-000-7f000101-1-0.hpcrun",
	                         "app-000000-000-7f000101-1-0.hpctrace"};
	copy_survives("hpcrun", hnames, hb, 2, "");
	tw_blob_free(&hb[0]);
	tw_blob_free(&hb[1]);

#ifdef PROFDB_HAVE_CUBE
	tw_blob cb = {0};
	cr_assert_eq(tw_cube_write(&cb, 0, NULL), 0);   /* plain tar: members point into the copy */
	const char *cname = "sample.cubex";
	copy_survives("cube", &cname, &cb, 1, cname);
	tw_blob_free(&cb);
#endif
}

/* ---- the hazard without it ----------------------------------------------------- */

/* In a child: open mapped, truncate every file, read everything. Returns
 * the child's wait status. */
static int child_status(uint32_t flags)
{
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* Quiet: a sanitizer reports the expected SIGBUS at length. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(4);
		profdb_hpctk *db = NULL;
		if (open_db(&db, flags) != 0)
			_exit(3);
		truncate_all(0);
		tc_drive_stats st;
		tc_drive(db, 0, &st);
		profdb_hpctk_close(db);
		_exit(0);
	}
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return status;
}

Test(truncation, mapped_mode_hazard_is_real)
{
	make_db();
	int st = child_status(0);
	remove_db();
	/* SIGBUS, or, under a sanitizer that catches it, its report (abort or
	 * exit 1). Never a normal, successful exit. */
	cr_assert(!(WIFEXITED(st) && WEXITSTATUS(st) == 0),
	          "reading a truncated mapping went unnoticed");
	cr_assert(!(WIFEXITED(st) && WEXITSTATUS(st) == 3), "the child could not open");
	if (WIFSIGNALED(st))
		cr_assert(WTERMSIG(st) == SIGBUS || WTERMSIG(st) == SIGABRT, "signal %d",
		          WTERMSIG(st));
	/* The same in copy mode: a clean exit. */
	make_db();
	st = child_status(PROFDB_OPEN_COPY);
	remove_db();
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "copy mode: status 0x%x", st);
}

/* ---- the table of mappings --------------------------------------------------- */

/* An input file's mapping is in the table while it is open (any byte of
 * its pages), and not once closed or when the file was copied. */
Test(truncation, mapping_table_names_the_file)
{
	make_db();
	char want[128];
	snprintf(want, sizeof want, "%s/meta.db", dir);
	for (int copy = 0; copy < 2; copy++) {
		profdb__input in;
		cr_assert_eq(profdb__input_open(&in, want, "meta.db", copy ? PROFDB_OPEN_COPY : 0), 0,
		             "%s", profdb_error_message());
		cr_assert(in.size > 1);
		const unsigned char *first = in.base, *last = in.base + in.size - 1;
		const char *got = profdb_mapping_path_of(last);
		if (copy) {
			cr_assert_null(got, "a copied input is not in the table: %s", got);
		} else {
			cr_assert(got && strcmp(got, want) == 0, "got %s, want %s", got ? got : "NULL",
			          want);
			cr_assert_eq(profdb_mapping_path_of(first), got);
		}
		cr_assert_null(profdb_mapping_path_of(&in), "a stack address is no input");
		profdb__input_close(&in);
		cr_assert_null(profdb_mapping_path_of(first), "a closed input left the table");
	}
	remove_db();
}

TC_MAIN
