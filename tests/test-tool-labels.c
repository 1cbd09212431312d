/* Every context the tool prints has a name when the data has one: on
 * every real sample, the label of every tree node (tool/print.c's
 * context_label) is non-empty; it is "<context N>" only when
 * the context carries no function, file or module; an unnamed function
 * (Callgrind's "0x...") names its object; hpcrun's placeholders are named;
 * a line or loop shows a file whenever its procedure has one. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profdb-config.h"
#include "common.h"
#include "writer.h"
#include "../tool/names.h"

typedef struct tally {
	uint64_t contexts, unnamed_fns, placeholders, inherited;
	unsigned failures;
} tally;

static int no_file(profdb_str f)
{
	return f.len == 0 || (f.len == 14 && memcmp(f.ptr, "<unknown file>", 14) == 0);
}

static int is_address(profdb_str s)
{
	if (s.len < 3 || s.ptr[0] != '0' || s.ptr[1] != 'x')
		return 0;
	for (size_t i = 2; i < s.len; i++)
		if (!strchr("0123456789abcdefABCDEF", s.ptr[i]))
			return 0;
	return 1;
}

static void fail(tally *t, const char *what, const profdb_context *c, const char *label,
                 const char *why)
{
	if (t->failures++ < 20)
		cr_log_error("%s: context %u (%.*s | %.*s | %.*s): label '%s': %s", what, c->id,
		             (int)c->function.len, c->function.ptr, (int)c->file.len, c->file.ptr,
		             (int)c->module.len, c->module.ptr, label, why);
}

/* The nearest FUNCTION ancestor of @p c (0 when none). */
static int procedure_of(const profdb *db, const profdb_context *c, profdb_context *out)
{
	uint32_t id = c->parent;
	for (int k = 0; k < 4096 && id != PROFDB_NONE; k++) {
		if (profdb_context_get(db, id, out) < 0)
			return 0;
		if (out->type == PROFDB_CTX_FUNCTION)
			return 1;
		id = out->parent;
	}
	return 0;
}

static void check_one(const profdb *db, profdb_format f, const profdb_context *c, tally *t,
                      const char *what)
{
	char label[1024];
	context_label(c, label, sizeof label);
	t->contexts++;
	if (!label[0])
		fail(t, what, c, label, "empty");
	if (strncmp(label, "<context ", 9) == 0 &&
	    (c->function.len || c->file.len || c->module.len))
		fail(t, what, c, label, "the data names it");
	if (c->type == PROFDB_CTX_FUNCTION && is_address(profdb_function_fold(db, c->function))) {
		profdb_str obj = names_base(c->module);
		t->unnamed_fns++;
		if (obj.len && !(obj.len == 3 && memcmp(obj.ptr, "???", 3) == 0) && !strstr(label, " ["))
			fail(t, what, c, label, "an unnamed function without its object");
	}
	if (f == PROFDB_FORMAT_HPCRUN && c->type == PROFDB_CTX_UNKNOWN) {
		t->placeholders++;
		if (!c->function.len)
			fail(t, what, c, label, "an hpcrun placeholder without a name");
	}
	/* pre-release and draft: the library's inheritance rule */
	profdb_context p;
	if ((f == PROFDB_FORMAT_HPCTK_PRE || f == PROFDB_FORMAT_HPCTK_DRAFT ||
	     f == PROFDB_FORMAT_HPCTK_XML) &&
	    (c->type == PROFDB_CTX_LINE || c->type == PROFDB_CTX_LOOP) && procedure_of(db, c, &p) &&
	    !no_file(p.file)) {
		t->inherited++;
		if (no_file(c->file))
			fail(t, what, c, label, "no file although its procedure has one");
	}
}

static tally check_db(const profdb *db, const char *what)
{
	tally t = {0};
	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0, "%s", what);
	tool_walk w;
	profdb_context c;
	int r = walk_begin(&w, db);
	cr_assert_eq(r, 0, "%s: %s", what, profdb_error_message());
	while ((r = walk_next(&w, &c, 0)) > 0)
		check_one(db, a.format, &c, &t, what);
	cr_assert_eq(r, 0, "%s: %s", what, profdb_error_message());
	cr_expect_eq(t.failures, 0, "%s: %u labels without the data's name", what, t.failures);
	return t;
}

/* ---- generated data ---------------------------------------------------------------- */

Test(tool_labels, writer_samples)
{
	tw_pre d;
	tw_pre_sample(&d);
	tw_blob b[4];
	cr_assert_eq(tw_pre_write(&d, b), 0);
	static const char *const names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};
	profdb_input in[4];
	for (int i = 0; i < 4; i++)
		in[i] = (profdb_input){names[i], b[i].data, b[i].size};
	profdb *db;
	int r = profdb_open_inputs(&db, in, 4, NULL);
	if (r == -ENOTSUP)
		cr_skip_test("built without expat");
	cr_assert_eq(r, 0, "%s", profdb_error_message());
	tally t = check_db(db, "pre-release sample");
	cr_expect_gt(t.inherited, 0);
	profdb_close(db);
	for (int i = 0; i < 4; i++)
		tw_blob_free(&b[i]);
}

/* ---- every real sample ------------------------------------------------------------- */

static int skipped_file(const char *path)
{
	static const char *const suffixes[] = {".md", ".txt", ".py", ".c", ".h", ".log", ".json",
	                                       ".csv"};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
		size_t sl = strlen(suffixes[i]);
		if (n >= sl && strcmp(path + n - sl, suffixes[i]) == 0)
			return 1;
	}
	/* members of a dump series (NAME.3) or thread set (NAME-02) open with
	 * their first file, which is checked */
	const char *tail = path + n;
	while (tail > path && tail[-1] >= '0' && tail[-1] <= '9')
		tail--;
	int numbered = tail < path + n && tail > path && (tail[-1] == '.' || tail[-1] == '-');
	return numbered && !strstr(tc_basename(path), "callgrind.out.");
}

/* Samples this build cannot read (-ENOTSUP: gzip without zlib, Cube
 * without expat, experiment.xml without expat). */
static unsigned unreadable;

static void check_path(const char *path, tally *sum, unsigned *opened)
{
	struct stat st;
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	/* Callgrind's lines are names already (file:line); the big profiles
	 * are checked function by function to stay fast */
	size_t n = strlen(path);
	if ((n > 3 && strcmp(path + n - 3, ".gz") == 0) ||
	    (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (8 << 20)))
		o.flags = PROFDB_OPEN_FUNCTIONS_ONLY;
	profdb *db;
	int r = profdb_open(&db, path, &o);
	unreadable += r == -ENOTSUP;
	if (r < 0)
		return;   /* not a profile (or a refused one): the format tests say why */
	tally t = check_db(db, path);
	sum->contexts += t.contexts;
	sum->unnamed_fns += t.unnamed_fns;
	sum->placeholders += t.placeholders;
	sum->inherited += t.inherited;
	(*opened)++;
	profdb_close(db);
}

static void check_tree(const char *rel, int dirs, tally *sum, unsigned *opened)
{
	size_t n;
	char **list = dirs ? tc_list_dbs(rel, &n) : tc_list_files(rel, &n);
	for (size_t i = 0; list && list[i]; i++)
		if (dirs || !skipped_file(list[i]))
			check_path(list[i], sum, opened);
	tc_free_list(list);
}

Test(tool_labels_real, every_sample, .timeout = 600)
{
	tally sum = {0};
	unsigned opened = 0;
	free(tc_sample_path("hpctoolkit"));   /* skips without the sample data */
	check_tree("hpctoolkit/v4", 1, &sum, &opened);
	check_tree("hpctoolkit/v4-devstage", 1, &sum, &opened);
	check_tree("hpctoolkit/prerelease", 1, &sum, &opened);
	/* hpcrun measurement directories hold no meta.db/profile.db: by name */
	static const char *const runs[] = {
		"hpctoolkit-tests-loops-cputime-t.m", "hpctoolkit-tests-loops-cuda-nvidia-t.m",
		"hpctoolkit-tests-loops-cuda-nvidiapc-t.m", "hpctoolkit-tests-loops-hip-amd-t.m",
		"hpctoolkit-tests-loops-perf.m", "hpctoolkit-tests-recursion-cuda-nvidiapc-t.m",
		"hpctoolkit-tests-small.m", "hpctoolkit-testvdso-v02", "miniapp-hpctrace",
	};
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "hpctoolkit/hpcrun/%s", runs[i]);
		char *p = tc_sample_path(rel);
		check_path(p, &sum, &opened);
		free(p);
	}
	check_tree("cube", 0, &sum, &opened);
	check_tree("callgrind", 0, &sum, &opened);
	cr_log_info("%u databases, %" PRIu64 " contexts, %" PRIu64 " unnamed functions, %" PRIu64
	            " hpcrun placeholders, %" PRIu64 " lines/loops in procedures with a file",
	            opened, sum.contexts, sum.unnamed_fns, sum.placeholders, sum.inherited);
	cr_assert_gt(opened + unreadable, 50, "the samples were found and opened");
	cr_assert_gt(sum.unnamed_fns, 0);
	cr_assert_gt(sum.placeholders, 0);
#ifdef PROFDB_HAVE_EXPAT   /* the pre-release samples need experiment.xml */
	cr_assert_gt(sum.inherited, 0);
#endif
}
