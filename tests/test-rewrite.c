/* Files rewritten in place while open (doc/ROBUSTNESS.md, "Files that change
 * while open"): a handle reads everything once, then a few per cent of the
 * bytes of its files are overwritten (same size, deterministic pseudo-random
 * positions and bytes, several seeds) and it reads everything again. Any
 * answer is allowed (the old numbers, new ones, an error) except reading
 * outside the mapping: the suite runs under ASan and UBSan in CI, which turn
 * such a read into a failure. Every format, every lazily decoded structure
 * the common interface reaches: names, the tree, value planes (both
 * directions), the cursor, traces, and for HPCToolkit the format's own
 * full check. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common.h"
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif

/* Reads per pass: enough to reach every structure of the samples used
 * here, small enough for the sanitizer build. */
enum { BUDGET = 200000, SEEDS = 4 };

/* Every byte of a name, so a name that points outside the mapping is seen. */
static uint64_t touch_str(uint64_t h, profdb_str s)
{
	for (size_t i = 0; i < s.len; i++)
		h = h * 31 + (unsigned char)s.ptr[i];
	return h;
}

static uint64_t touch_view(uint64_t h, const profdb_view *v)
{
	PROFDB_VIEW_FOREACH(v, i)
		h = h * 31 + profdb_view_key(v, i) + profdb_view_value(v, i).as.u64;
	return h;
}

/* Both views of a plane: every run of the index, every record. */
static uint64_t touch_plane(uint64_t h, const profdb_view *index, const profdb_view *values)
{
	PROFDB_VIEW_FOREACH(index, i) {
		profdb_view run = profdb_view_run(index, i, values);
		h = touch_view(h + profdb_view_key(index, i), &run);
	}
	return touch_view(h, values);
}

static uint64_t drive_tree(const profdb *db, uint64_t h, uint32_t *ids, uint32_t *n_ids)
{
	uint32_t id, seen = 0;
	profdb_context c;
	*n_ids = 0;
	if (profdb_context_root(db, &id) != 0)
		return h;
	while (seen++ < BUDGET) {
		if (profdb_context_get(db, id, &c) != 0)
			break;
		ids[(*n_ids)++] = c.id;
		h = touch_str(touch_str(touch_str(h, c.function), c.file), c.module) + c.line;
		if (c.first_child != PROFDB_NONE) {
			id = c.first_child;
			continue;
		}
		uint32_t up = 0;
		while (c.next_sibling == PROFDB_NONE && c.parent != PROFDB_NONE && up++ < BUDGET)
			if (profdb_context_get(db, c.parent, &c) != 0)
				return h;
		if (c.next_sibling == PROFDB_NONE)
			break;
		id = c.next_sibling;
	}
	return h;
}

static uint64_t drive_cursor(const profdb *db, uint64_t h, profdb_scan scan, uint32_t key)
{
	profdb_values *it;
	profdb_entry e;
	if (profdb_values_new(&it, db, scan, key) != 0)
		return h;
	for (int k = 0; k < BUDGET && profdb_values_next(it, &e) == 1; k++)
		h = h * 31 + e.profile + e.context + e.metric + e.value.as.u64;
	profdb_values_free(it);
	return h;
}

static uint64_t drive_traces(const profdb *db, uint64_t h, uint32_t np)
{
	for (uint32_t p = 0; p < np; p++) {
		profdb_view v;
		profdb_sample s;
		uint64_t at;
		int64_t n = profdb_trace_length(db, p);
		if (n > 0 && profdb_trace_at(db, p, (uint64_t)n - 1, &s) == 0)
			h += s.time_ns + s.context;
		if (n > 0 && profdb_trace_seek(db, p, UINT64_MAX / 2, &at) == 0)
			h += at;
		if (profdb_trace_view(db, p, &v) == 0)
			h = touch_view(h, &v);
	}
	return h;
}

/* Everything the common interface answers, within the budget. Results are
 * not compared: the files may have changed under the handle. */
static uint64_t drive(const profdb *db)
{
	static uint32_t ids[BUDGET];
	uint32_t n_ids;
	uint64_t h = 1;
	int64_t nm = profdb_metric_count(db), np = profdb_profile_count(db);
	uint32_t n_metrics = nm > 8 ? 8 : nm > 0 ? (uint32_t)nm : 0;
	uint32_t n_profiles = np > 64 ? 64 : np > 0 ? (uint32_t)np : 0;
	uint32_t metric_ids[8];
	for (uint32_t m = 0; m < n_metrics; m++) {
		profdb_metric md;
		metric_ids[m] = 0;
		if (profdb_metric_at(db, m, &md) == 0) {
			h = touch_str(h, md.name);
			metric_ids[m] = md.id;
		}
	}
	h = drive_tree(db, h, ids, &n_ids);
	for (uint32_t p = 0; p < n_profiles; p++) {
		profdb_profile pr;
		profdb_view index, values;
		if (profdb_profile_get(db, p, &pr) == 0) {
			h = touch_str(h, pr.name);
			for (uint32_t i = 0; i < pr.n_identity && i < 16; i++) {
				profdb_str kind;
				uint64_t value;
				if (profdb_profile_identity(db, p, i, &kind, &value) == 0)
					h = touch_str(h, kind) + value;
			}
		}
		if (profdb_profile_view(db, p, &index, &values) == 0)
			h = touch_plane(h, &index, &values);
	}
	uint64_t lookups = 0;
	for (uint32_t k = 0; k < n_ids && lookups < BUDGET; k++) {
		profdb_view index, values;
		if (profdb_context_view(db, ids[k], &index, &values) == 0)
			h = touch_plane(h, &index, &values);
		for (uint32_t p = 0; p < n_profiles && p < 4; p++)
			for (uint32_t m = 0; m < n_metrics; m++, lookups += 3) {
				profdb_number v;
				if (profdb_value(db, p, ids[k], metric_ids[m], &v) == 1)
					h += v.as.u64;
				if (profdb_inclusive(db, p, ids[k], metric_ids[m], &v) == 1)
					h += v.as.u64;
				if (profdb_exclusive(db, p, ids[k], metric_ids[m], &v) == 1)
					h += v.as.u64;
			}
	}
	h = drive_cursor(db, h, PROFDB_SCAN_ALL, 0);
	if (n_ids)
		h = drive_cursor(db, h, PROFDB_SCAN_CONTEXT, ids[n_ids - 1]);
	if (n_profiles)
		h = drive_cursor(db, h, PROFDB_SCAN_PROFILE, n_profiles - 1);
	h = drive_traces(db, h, n_profiles);
	const profdb_hpctk *hk = profdb_get_hpctk(db);
	if (hk)
		h += (uint64_t)profdb_hpctk_check(hk);
	const profdb_hpctkpre *pre = profdb_get_hpctkpre(db);
	if (pre)
		h += (uint64_t)profdb_hpctkpre_check(pre);
	return h;
}

/* ---- files ---------------------------------------------------------------- */

typedef struct copy {
	char dir[64];
	char *names[16];
	unsigned char *data[16];
	size_t size[16];
	int n;
	char open_path[4200];   /* the copied file, or the directory */
} copy;

static void write_file(const char *path, const unsigned char *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

static void add_file(copy *c, const char *src, const char *name)
{
	cr_assert_lt(c->n, 16);
	c->data[c->n] = tc_slurp(src, &c->size[c->n]);
	cr_assert_not_null(c->data[c->n], "%s", src);
	c->names[c->n] = strdup(name);
	c->n++;
}

/* A private copy of sample @p src (a file, or a database folder whose
 * regular files are copied), kept in memory to be written again for every
 * seed. */
static void make_copy(copy *c, const char *src)
{
	struct stat st;
	memset(c, 0, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "/tmp/profdb-rewrite-XXXXXX");
	cr_assert_not_null(mkdtemp(c->dir));
	cr_assert_eq(stat(src, &st), 0, "%s", src);
	if (!S_ISDIR(st.st_mode)) {
		add_file(c, src, tc_basename(src));
		snprintf(c->open_path, sizeof c->open_path, "%s/%s", c->dir, c->names[0]);
		return;
	}
	DIR *d = opendir(src);
	cr_assert_not_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", src, e->d_name);
		if (e->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
			add_file(c, p, e->d_name);
	}
	closedir(d);
	snprintf(c->open_path, sizeof c->open_path, "%s", c->dir);
}

static void path_of(const copy *c, int i, char *p, size_t n)
{
	snprintf(p, n, "%s/%s", c->dir, c->names[i]);
}

static void write_copy(const copy *c)
{
	char p[4200];
	for (int i = 0; i < c->n; i++) {
		path_of(c, i, p, sizeof p);
		unlink(p);   /* a new file: the last seed's handle is closed */
		write_file(p, c->data[i], c->size[i]);
	}
}

static void drop_copy(copy *c)
{
	char p[4200];
	for (int i = 0; i < c->n; i++) {
		path_of(c, i, p, sizeof p);
		unlink(p);
		free(c->names[i]);
		free(c->data[i]);
	}
	rmdir(c->dir);
}

/* Overwrite about 2 % of the bytes of every file in place (pwrite into the
 * same inode, so a shared mapping of it sees the change), the size kept. */
static void rewrite(const copy *c, tc_rng *rng)
{
	char p[4200];
	for (int i = 0; i < c->n; i++) {
		if (c->size[i] == 0)
			continue;
		path_of(c, i, p, sizeof p);
		int fd = open(p, O_WRONLY);
		cr_assert_geq(fd, 0, "%s: %s", p, strerror(errno));
		uint64_t n = c->size[i] / 50 + 1;
		for (uint64_t k = 0; k < n; k++) {
			unsigned char b = (unsigned char)tc_rand(rng);
			off_t at = (off_t)tc_below(rng, c->size[i]);
			cr_assert_eq(pwrite(fd, &b, 1, at), 1);
		}
		close(fd);
	}
}

/* Restore the original bytes in place: a second change under the handle,
 * back to data that passed validation. */
static void restore(const copy *c)
{
	char p[4200];
	for (int i = 0; i < c->n; i++) {
		path_of(c, i, p, sizeof p);
		int fd = open(p, O_WRONLY);
		cr_assert_geq(fd, 0);
		cr_assert_eq(pwrite(fd, c->data[i], c->size[i], 0), (ssize_t)c->size[i]);
		close(fd);
	}
}

static int changes;   /* seeds whose second pass answered differently */

/* The cycle of the test on one sample, @p flags as open flags. */
static void run_cycle(copy *c, uint32_t flags)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		profdb *db;
		profdb_options o = PROFDB_OPTIONS_INIT;
		o.flags = flags;
		write_copy(c);
		int r = profdb_open(&db, c->open_path, &o);
		if (r == -ENOTSUP)
			cr_skip_test("%s: this build cannot read it", c->open_path);
		cr_assert_eq(r, 0, "%s: %s", c->open_path, profdb_error_message());
		uint64_t before = drive(db);
		tc_rng rng = {seed * UINT64_C(0x9e3779b97f4a7c15)};
		rewrite(c, &rng);
		if (drive(db) != before)
			changes++;
		drive(db);   /* structures first validated on the changed bytes */
		restore(c);
		drive(db);
		rewrite(c, &rng);
		drive(db);
		profdb_close(db);
	}
}

static void run_sample(const char *src)
{
	copy c;
	make_copy(&c, src);
	run_cycle(&c, 0);
	run_cycle(&c, PROFDB_OPEN_TOLERANT);
	drop_copy(&c);
}

static void run_real(const char *rel)
{
	char *p = tc_sample_path(rel);
	run_sample(p);
	free(p);
}

/* ---- the samples ---------------------------------------------------------- */

#ifdef HAVE_TEST_WRITER
static void run_written(int (*write)(const char *dir))
{
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/profdb-rewrite-src-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(write(dir), 0);
	run_sample(dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int write_hpctk4(const char *dir)
{
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	return tw_hpctk4_write_dir(&d, dir);
}

static int write_pre(const char *dir)
{
	tw_pre d;
	tw_pre_sample(&d);
	return tw_pre_write_dir(&d, dir);
}

/* The pre-release .db files with a draft meta.db in place of
 * experiment.xml (a consistent set: test-hpctkpre.c). */
static int write_pre_draft(const char *dir)
{
	tw_blob b;
	char p[4200];
	if (write_pre(dir) != 0 || tw_draft_write(&b, 0) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/experiment.xml", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/meta.db", dir);
	write_file(p, b.data, b.size);
	tw_blob_free(&b);
	return 0;
}

static int write_hpcrun(const char *dir)
{
	tw_hpcrun d;
	tw_blob b;
	char p[4200];
	tw_hpcrun_sample(&d, 4, 1);
	if (tw_hpcrun_write(&d, &b) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/sample-000000-000-0-0.hpcrun", dir);
	write_file(p, b.data, b.size);
	tw_blob_free(&b);
	return 0;
}

Test(rewrite, hpctk4_written)
{
	run_written(write_hpctk4);
}

Test(rewrite, hpctkpre_written)
{
	run_written(write_pre);
}

Test(rewrite, hpctkpre_draft_written)
{
	run_written(write_pre_draft);
}

Test(rewrite, hpcrun_written)
{
	run_written(write_hpcrun);
}
#endif

Test(rewrite, hpctk4_real)
{
	run_real("hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t");
	run_real("hpctoolkit/v4/hpctoolkit-tests-loops-cuda-nvidiapc-t");
}

Test(rewrite, hpctk4_devstage_real)
{
	run_real("hpctoolkit/v4-devstage/hpcviewer-multithread");
}

Test(rewrite, hpctkpre_real)
{
	run_real("hpctoolkit/prerelease/hpcviewer-prof2");
}

Test(rewrite, hpcrun_real)
{
	run_real("hpctoolkit/hpcrun/hpctoolkit-tests-loops-cputime-t.m");
}

Test(rewrite, cube_real)
{
	run_real("cube/extrap-example.f1.cubex");
	run_real("cube/MetaCG-circle.cubex");
}

Test(rewrite, callgrind_real)
{
	run_real("callgrind/public/gprof2dot/issue35.callgrind");
	run_real("callgrind/public/callgrind-to-plantuml/cachegrind.out.example1");
}

/* The test can fail: a rewrite must change what some pass reads (else the
 * rewrites went into a copy, not the mapped file). */
Test(rewrite, the_rewrites_reach_the_mapping)
{
	char *p = tc_sample_path("hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t");
	changes = 0;
	copy c;
	make_copy(&c, p);
	run_cycle(&c, 0);
	drop_copy(&c);
	free(p);
	cr_assert_gt(changes, 0, "no rewrite changed an answer");
}

TC_MAIN
