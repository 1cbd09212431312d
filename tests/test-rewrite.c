/* Files rewritten in place while open (doc/ROBUSTNESS.md, "Files that change
 * while open"): a handle reads everything once, then a few per cent of the
 * bytes of its files are overwritten (same size, deterministic pseudo-random
 * positions and bytes, several seeds) and it reads everything again. Any
 * answer is allowed (the old numbers, new ones, an error) except reading
 * outside the mapping: the suite runs under ASan and UBSan in CI, which turn
 * such a read into a failure. Every format, every lazily decoded structure
 * the common interface reaches: names, the tree, value planes (both
 * directions), the cursor, traces; and the formats' own: HPCToolkit's full
 * check, Callgrind's line, call-site and jump rows, Cube's rows and
 * aggregates. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common.h"
#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
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
		if (n > 0 && profdb_trace_sample_at(db, p, (uint64_t)n - 1, &s) == 0)
			h += s.time_ns + s.context;
		if (n > 0 && profdb_trace_seek(db, p, UINT64_MAX / 2, &at) == 0)
			h += at;
		if (profdb_trace_view(db, p, &v) == 0)
			h = touch_view(h, &v);
	}
	return h;
}

/* Callgrind's own lazy structure: the line, call-site and jump rows of
 * every function, decoded from the text again at each call. */
static uint64_t drive_cg(const profdb_cg *cg, uint64_t h)
{
	int64_t nf = cg ? profdb_cg_function_count(cg) : 0;
	for (int64_t f = 0; f < nf && f < 256; f++) {
		profdb_cg_detail *d;
		if (profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)f) != 0)
			continue;
		int64_t n = profdb_cg_detail_line_count(d);
		for (int64_t i = 0; i < n; i++) {
			profdb_cg_line l;
			if (profdb_cg_detail_line_at(d, (uint32_t)i, &l) == 0)
				h = touch_str(h, l.file) + l.line + l.instr + l.self[0];
		}
		n = profdb_cg_detail_call_count(d);
		for (int64_t i = 0; i < n; i++) {
			profdb_cg_callsite c;
			if (profdb_cg_detail_call_at(d, (uint32_t)i, &c) == 0)
				h = touch_str(h, c.file) + c.count + c.inclusive[0];
		}
		n = profdb_cg_detail_jump_count(d);
		for (int64_t i = 0; i < n; i++) {
			profdb_cg_jump j;
			if (profdb_cg_detail_jump_at(d, (uint32_t)i, &j) == 0)
				h = touch_str(touch_str(h, j.to_file), j.to_function) + j.count;
		}
		profdb_cg_detail_free(d);
	}
	return h;
}

/* Cube's own lazy structure: every row as stored (each dtype, SCALE_FUNC
 * included) and the aggregates over the whole system tree. */
static uint64_t drive_cube(const profdb_cube *cube, uint64_t h)
{
	profdb_cube_info info;
	if (!cube || profdb_cube_get_info(cube, &info) != 0)
		return h;
	for (uint32_t m = 0; m < info.n_metrics && m < 16; m++) {
		profdb_cube_metric md;
		if (profdb_cube_metric_get(cube, m, &md) != 0)
			continue;
		size_t size = (size_t)md.value_size * info.n_locations;
		unsigned char *row = size ? malloc(size) : NULL;
		for (uint32_t c = 0; c < info.n_cnodes && c < 256; c++) {
			double v, fields[16];
			if (row && profdb_cube_row_get(cube, c, m, row, size) == 1)
				for (size_t i = 0; i < size; i++)
					h = h * 31 + row[i];
			if (profdb_cube_severity_get(cube, PROFDB_CUBE_ITEM_CUBE, 0, c, m,
			                         PROFDB_CUBE_CALL_INCLUSIVE, &v) == 0)
				h += (uint64_t)v;
			h += (uint64_t)profdb_cube_severity_fields_get(cube, PROFDB_CUBE_ITEM_CUBE, 0, c, m,
			                                           PROFDB_CUBE_CALL_INCLUSIVE, fields, 16);
		}
		free(row);
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
		if (profdb_profile_at(db, p, &pr) == 0) {
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
	return drive_cube(profdb_get_cube(db), drive_cg(profdb_get_cg(db), h));
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

/* The same rewrite on the in-memory copies @p buf of the files. */
static void rewrite_mem(const copy *c, unsigned char *const *buf, tc_rng *rng)
{
	for (int i = 0; i < c->n; i++) {
		uint64_t n = c->size[i] / 50 + 1;
		for (uint64_t k = 0; c->size[i] && k < n; k++) {
			unsigned char b = (unsigned char)tc_rand(rng);
			buf[i][tc_below(rng, c->size[i])] = b;
		}
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

static int changes;       /* seeds whose second pass answered differently */
static int changes_mem;   /* the same, with the inputs in memory */

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

/* The same cycle on heap copies opened with profdb_open_inputs() and
 * rewritten in memory. ASan puts a red zone after each buffer, so it sees
 * a read even one byte past a buffer; past a mapping such a read lands in
 * whatever is mapped next and is seen only where nothing is. */
static void run_cycle_mem(const copy *c, uint32_t flags)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		unsigned char *buf[16];
		profdb_input in[16];
		size_t n_in = 0;
		for (int i = 0; i < c->n; i++) {
			buf[i] = malloc(c->size[i] ? c->size[i] : 1);
			cr_assert_not_null(buf[i]);
			memcpy(buf[i], c->data[i], c->size[i]);
			if (!strstr(c->names[i], ".md"))   /* a sample folder's notes */
				in[n_in++] = (profdb_input){c->names[i], buf[i], c->size[i]};
		}
		profdb *db;
		profdb_options o = PROFDB_OPTIONS_INIT;
		o.flags = flags;
		int r = profdb_open_inputs(&db, in, n_in, &o);
		cr_assert(r == 0 || r == -ENOTSUP, "%s in memory: %s", c->open_path,
		          profdb_error_message());
		if (r == 0) {
			tc_rng rng = {seed * UINT64_C(0x9e3779b97f4a7c15)};
			uint64_t before = drive(db);
			rewrite_mem(c, buf, &rng);
			if (drive(db) != before)
				changes_mem++;
			drive(db);
			for (int i = 0; i < c->n; i++)
				memcpy(buf[i], c->data[i], c->size[i]);
			drive(db);
			rewrite_mem(c, buf, &rng);
			drive(db);
			profdb_close(db);
		}
		for (int i = 0; i < c->n; i++)
			free(buf[i]);
	}
}

static void run_sample(const char *src)
{
	copy c;
	make_copy(&c, src);
	run_cycle(&c, 0);
	run_cycle(&c, PROFDB_OPEN_TOLERANT);
	run_cycle_mem(&c, 0);
	run_cycle_mem(&c, PROFDB_OPEN_TOLERANT);
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
/* The writer's files in a fresh folder; the folder is the sample, or with
 * @p file, that file of it (a profile of one file). */
static void run_written_file(int (*write)(const char *dir), const char *file)
{
	char dir[64], one[4200];
	snprintf(dir, sizeof dir, "/tmp/profdb-rewrite-src-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(write(dir), 0);
	snprintf(one, sizeof one, "%s/%s", dir, file ? file : "");
	run_sample(file ? one : dir);
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

static void run_written(int (*write)(const char *dir))
{
	run_written_file(write, NULL);
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

/* A measurements directory: an .hpcrun file of @p version and its
 * .hpctrace (with metric ids from 04.00 on, as hpcrun writes them). */
static int write_hpcrun_traced(const char *dir, unsigned version)
{
	tw_hpcrun d;
	tw_blob b[2];
	const tw_hpctrace_rec *recs;
	size_t n;
	static const char *const names[2] = {"app-000000-000-7f000101-4242-0.hpcrun",
	                                     "app-000000-000-7f000101-4242-0.hpctrace"};
	tw_hpcrun_sample(&d, version, 1);
	tw_hpctrace_sample(&recs, &n);
	if (tw_hpcrun_write(&d, &b[0]) != 0)
		return -1;
	if (tw_hpctrace_write(version >= 4, recs, n, &b[1]) != 0) {
		tw_blob_free(&b[0]);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		write_file(p, b[i].data, b[i].size);
		tw_blob_free(&b[i]);
	}
	return 0;
}

static int write_hpcrun2_traced(const char *dir)
{
	return write_hpcrun_traced(dir, 2);
}

static int write_hpcrun3_traced(const char *dir)
{
	return write_hpcrun_traced(dir, 3);
}

static int write_hpcrun4_traced(const char *dir)
{
	return write_hpcrun_traced(dir, 4);
}

/* The writer's Cube archives, uncompressed, so profdb reads their index
 * and data members from the mapping: each byte order and index kind, the
 * layouts CubeW and Score-P leave, and the structured dtypes. */
static unsigned cube_flags;

static int write_cube(const char *dir)
{
	tw_blob b;
	char p[4200];
	int r = cube_flags == UINT_MAX ? tw_cube_write_dtypes(&b, TW_CUBE_BIG_ENDIAN)
	                               : tw_cube_write(&b, cube_flags, NULL);
	if (r != 0)
		return r;
	snprintf(p, sizeof p, "%s/sample.cubex", dir);
	write_file(p, b.data, b.size);
	tw_blob_free(&b);
	return 0;
}

/* A Callgrind profile with every kind of line profdb decodes lazily:
 * instruction and line positions (absolute, relative, repeated),
 * compressed names, inlined files (fi=/fe=), calls into other objects,
 * jumps and conditional jumps, a cost line with fewer events. */
static const char callgrind_text[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: profdb tests/test-rewrite.c\n"
	"pid: 4242\n"
	"cmd: ./app --size 3\n"
	"part: 1\n"
	"positions: instr line\n"
	"events: Ir Dr\n"
	"summary: 800 220\n"
	"ob=(1) /usr/bin/app\n"
	"fl=(1) main.c\n"
	"fn=(1) main\n"
	"0x1000 10 100 20\n"
	"+4 +1 50 10\n"
	"jump=3 0x1040 20\n"
	"jcnd=2/5 +8 *\n"
	"cfi=(2) util.h\n"
	"cfn=(2) helper\n"
	"calls=4 0x2000 5\n"
	"+4 * 600 185\n"
	"fi=(2)\n"
	"0x1010 12 30 5\n"
	"fe=(1)\n"
	"* * 20\n"
	"fl=(2)\n"
	"fn=(2)\n"
	"0x2000 5 300 80\n"
	"-2 +2 100 20\n"
	"cob=(2) /lib/libc.so.6\n"
	"cfl=(3) memcpy.c\n"
	"cfn=(3) memcpy\n"
	"calls=1 0x9000 1\n"
	"* * 200 85\n"
	"ob=(2)\n"
	"fl=(3)\n"
	"fn=(3)\n"
	"0x9000 1 200 85\n"
	"totals: 800 220\n";

static int write_callgrind(const char *dir)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/callgrind.out.4242", dir);
	write_file(p, (const unsigned char *)callgrind_text, sizeof callgrind_text - 1);
	return 0;
}

/* The writer's call chain: one function per frame, cost on every frame. */
static int write_callgrind_chain(const char *dir)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/callgrind.out.chain", dir);
	return tw_chain_callgrind(p, 64, 1);
}

Test(rewrite, hpcrun_traced_written)
{
	run_written(write_hpcrun2_traced);
	run_written(write_hpcrun3_traced);
	run_written(write_hpcrun4_traced);
}

Test(rewrite, cube_written)
{
	static const unsigned flags[] = {
		0,
		TW_CUBE_BIG_ENDIAN | TW_CUBE_DENSE,
		TW_CUBE_SIMPLE | TW_CUBE_DERIVED,
		TW_CUBE_CUBEW_PAD | TW_CUBE_EXACT_BLOCK | TW_CUBE_BAD_CHECKSUM,
		UINT_MAX,   /* the structured dtypes */
#ifdef PROFDB_HAVE_ZLIB
		TW_CUBE_ZCUBEX | TW_CUBE_GZIP_ANCHOR,   /* rows inflated from the mapping */
#endif
	};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		cube_flags = flags[i];
		run_written_file(write_cube, "sample.cubex");
	}
}

Test(rewrite, callgrind_written)
{
	run_written_file(write_callgrind, "callgrind.out.4242");
	run_written_file(write_callgrind_chain, "callgrind.out.chain");
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
	changes = changes_mem = 0;
	copy c;
	make_copy(&c, p);
	run_cycle(&c, 0);
	run_cycle_mem(&c, 0);
	drop_copy(&c);
	free(p);
	cr_assert_gt(changes, 0, "no rewrite changed an answer");
	cr_assert_gt(changes_mem, 0, "no rewrite of the buffers changed an answer");
}

TC_MAIN
