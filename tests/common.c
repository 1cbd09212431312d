#define _GNU_SOURCE
#include "common.h"
#include "core/core-internal.h"
#include "hpctk-views.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *const tc_file_names[PROFDB_HPCTK_NFILES] = {"meta.db", "profile.db", "cct.db",
                                                          "trace.db"};

/* ---- runner ------------------------------------------------------------------ */

static struct {
	int valid;
	size_t tests, skipped;
} totals;

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	totals.valid = 1;
	totals.tests = stats->nb_tests;
	totals.skipped = stats->tests_skipped;
	/* Criterion counts the tests --filter leaves out (disabled) as skipped;
	 * count only those that ran, so a filtered run that skipped all its own
	 * tests still exits 77 and the report does not count the others. */
	for (struct criterion_suite_stats *s = stats->suites; s; s = s->next)
		for (struct criterion_test_stats *t = s->tests; t; t = t->next)
			if (t->test->data->disabled && t->test_status == CR_STATUS_SKIPPED &&
			    totals.skipped > 0 && totals.tests > 0) {
				totals.tests--;
				totals.skipped--;
			}
}

int tc_main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;
	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	if (result == 0 && totals.valid && totals.skipped > 0) {
		fprintf(stderr, "[====] Skipped: %zu of %zu tests\n", totals.skipped, totals.tests);
		if (totals.skipped == totals.tests)
			return 77;
	}
	return result;
}

/* ---- sample data ---------------------------------------------------------- */

const char *tc_sample_root(void)
{
	const char *e = getenv("PROFDB_SAMPLE_DATA");
	if (e && *e)
		return e;
	e = getenv("PROFDB_SAMPLE_DATA_DEFAULT");
	return e && *e ? e : NULL;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static char *join(const char *a, const char *b)
{
	char *s;
	cr_assert(asprintf(&s, "%s/%s", a, b) >= 0);
	return s;
}

void tc_skip_big_under_asan(void)
{
#if UNDER_ASAN
	cr_skip_test("callgrind/big under AddressSanitizer: checked by the plain build");
#endif
}

char *tc_sample_path(const char *rel)
{
	const char *root = tc_sample_root();
	if (!root || !is_dir(root))
		cr_skip_test("sample data directory %s not found (set PROFDB_SAMPLE_DATA)",
		             root ? root : "(unset)");
	char *p = join(root, rel);
	if (!exists(p)) {
		free(p);
		cr_skip_test("sample %s not found under %s", rel, root);
	}
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the regular files below @p dir to *list. */
static void add_files(const char *dir, char ***list, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
			continue;
		char *full = join(dir, e->d_name);
		if (is_dir(full)) {
			add_files(full, list, n, cap);
			free(full);
			continue;
		}
		if (*n + 1 >= *cap) {
			*cap *= 2;
			*list = realloc(*list, *cap * sizeof **list);
			cr_assert(*list);
		}
		(*list)[(*n)++] = full;
	}
	closedir(d);
}

char **tc_list_files(const char *rel, size_t *n)
{
	const char *root = tc_sample_root();
	*n = 0;
	if (!root)
		return NULL;
	char *dir = join(root, rel);
	if (!is_dir(dir)) {
		free(dir);
		return NULL;
	}
	size_t cap = 16;
	char **list = malloc(cap * sizeof *list);
	cr_assert(list);
	add_files(dir, &list, n, &cap);
	free(dir);
	qsort(list, *n, sizeof *list, cmp_str);
	list[*n] = NULL;
	return list;
}

char **tc_list_dbs(const char *rel, size_t *n)
{
	const char *root = tc_sample_root();
	*n = 0;
	if (!root)
		return NULL;
	char *dir = join(root, rel);
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return NULL;
	}
	size_t cap = 16;
	char **list = malloc(cap * sizeof *list);
	cr_assert(list);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *full = join(dir, e->d_name);
		char *m = join(full, "meta.db"), *p = join(full, "profile.db");
		int ok = is_dir(full) && (exists(m) || exists(p));
		free(m);
		free(p);
		if (!ok) {
			free(full);
			continue;
		}
		if (*n + 1 >= cap) {
			cap *= 2;
			list = realloc(list, cap * sizeof *list);
			cr_assert(list);
		}
		list[(*n)++] = full;
	}
	closedir(d);
	free(dir);
	qsort(list, *n, sizeof *list, cmp_str);
	list[*n] = NULL;
	return list;
}

void tc_free_list(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

const char *tc_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- files ---------------------------------------------------------------- */

unsigned char *tc_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	unsigned char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			unsigned char *g = realloc(buf, cap * 2);
			if (!g) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = g;
			cap *= 2;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		*size = n;
	return buf;
}

int tc_slurp_db(const char *dir, unsigned char *data[PROFDB_HPCTK_NFILES],
                size_t size[PROFDB_HPCTK_NFILES])
{
	int n = 0;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		char *p = join(dir, tc_file_names[f]);
		size[f] = 0;
		data[f] = tc_slurp(p, &size[f]);
		n += data[f] != NULL;
		free(p);
	}
	return n;
}

void tc_free_files(unsigned char *data[PROFDB_HPCTK_NFILES])
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		free(data[f]);
		data[f] = NULL;
	}
}

/* ---- PRNG, clock ------------------------------------------------------------ */

uint64_t tc_rand(tc_rng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t tc_below(tc_rng *r, uint64_t n)
{
	return tc_rand(r) % n;
}

double tc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tc_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- drive everything ------------------------------------------------------- */

/* A failing call: check the code and the message, count it. CHK clears the
 * thread's message first, so the message checked is the call's own. */
#define CHK(st, call, what) (profdb__set_message(""), chk((st), (call), (what)))
static int64_t chk(tc_drive_stats *st, int64_t r, const char *what)
{
	if (r >= 0)
		return r;
	const char *msg = profdb_error_message();
	cr_assert(r == -EBADMSG || r == -ENODATA,
	          "%s: unexpected error %lld (%s): %s", what, (long long)r, strerror((int)-r), msg);
	cr_assert(msg && *msg, "%s failed with %lld but left no message", what, (long long)r);
	int named = 0;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		named |= strstr(msg, tc_file_names[f]) != NULL;
	cr_assert(named, "%s: message does not name the file: %s", what, msg);
	st->failures++;
	if (!st->first_error)
		st->first_error = (int)r;
	return r;
}

static void same_context(const profdb_hpctk_context *a, const profdb_hpctk_context *b)
{
	cr_assert(a->id == b->id && a->relation == b->relation &&
	          a->lexical_type == b->lexical_type && a->propagation == b->propagation &&
	          a->function == b->function && a->file == b->file && a->line == b->line &&
	          a->module == b->module && a->offset == b->offset &&
	          a->entry_point == b->entry_point && a->entry_name.ptr == b->entry_name.ptr &&
	          a->entry_name.len == b->entry_name.len &&
	          a->pos == b->pos,
	          "context %u at 0x%llx decodes differently through two paths", a->id,
	          (unsigned long long)a->pos);
}

typedef struct walked {
	profdb_hpctk_context c;
	size_t parent;               /* index into the walk order; (size_t)-1 for the root */
	size_t first_child, next_sibling, last_child;
} walked;

#define NO_NODE ((size_t)-1)

static void drive_meta(const profdb_hpctk *db, tc_drive_stats *st)
{
	profdb_str title, desc, name;
	int nf, nmod, nfile;

	if (CHK(st, profdb_hpctk_title(db, &title, &desc), "title") == 0)
		cr_assert(title.ptr && desc.ptr && strlen(title.ptr) == title.len);
	int nk = (int)CHK(st, profdb_hpctk_id_kind_count(db), "id_kind_count");
	for (int k = 0; k < nk; k++)
		if (CHK(st, profdb_hpctk_id_kind_at(db, (uint32_t)k, &name), "id_kind_name") == 0)
			cr_assert(name.ptr);

	/* Metrics: all or nothing, decoded once. */
	int nm = (int)CHK(st, profdb_hpctk_metric_count(db), "metric_count");
	if (nm < 0) {
		profdb_hpctk_metric m;
		cr_assert_eq(profdb_hpctk_metric_at(db, 0, &m), nm, "metric failure is not replayed");
	}
	for (int m = 0; m < nm; m++) {
		profdb_hpctk_metric md;
		cr_assert_eq(profdb_hpctk_metric_at(db, (uint32_t)m, &md), 0);
		cr_assert(md.name.ptr);
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop p;
			cr_assert_eq(profdb_hpctk_metric_prop_at(db, (uint32_t)m, i, &p), 0);
			cr_assert(p.scope.ptr);
		}
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			cr_assert_eq(profdb_hpctk_metric_summary_at(db, (uint32_t)m, i, &s), 0);
			cr_assert(s.scope.ptr && s.formula.ptr);
		}
	}

	nmod = profdb_hpctk_module_count(db);
	nfile = profdb_hpctk_file_count(db);
	nf = profdb_hpctk_function_count(db);
	cr_assert(nmod >= 0 && nfile >= 0 && nf >= 0, "table counts are validated at open");
	for (int i = 0; i < nmod; i++)
		if (CHK(st, profdb_hpctk_module_at(db, (uint32_t)i, &name), "module_path") == 0)
			cr_assert(name.ptr);
	for (int i = 0; i < nfile; i++) {
		int copied = -1;
		if (CHK(st, profdb_hpctk_file_at(db, (uint32_t)i, &name, &copied), "file_path") == 0)
			cr_assert(name.ptr && (copied == 0 || copied == 1));
	}
	for (int i = 0; i < nf; i++) {
		profdb_hpctk_function f;
		if (CHK(st, profdb_hpctk_function_at(db, (uint32_t)i, &f), "function_get") == 0)
			cr_assert((f.module == PROFDB_NONE || f.module < (uint32_t)nmod) &&
			          (f.file == PROFDB_NONE || f.file < (uint32_t)nfile));
	}
}

static void drive_tree(const profdb_hpctk *db, tc_drive_stats *st)
{
	int nf = profdb_hpctk_function_count(db), nmod = profdb_hpctk_module_count(db),
	    nfile = profdb_hpctk_file_count(db);
	int64_t n = CHK(st, profdb_hpctk_context_count(db), "context_count");
	st->contexts = -1;
	if (n < 0) {
		/* The failure is remembered and replayed to every tree call. */
		profdb_hpctk_walk *w = NULL;
		profdb_hpctk_context c;
		uint32_t parent;
		cr_assert_eq(profdb_hpctk_walk_new(&w, db), n);
		cr_assert_eq(profdb_hpctk_context_get(db, 0, &c), n);
		cr_assert_eq(profdb_hpctk_context_parent(db, 0, &parent), n);
		cr_assert_eq(profdb_hpctk_root(db, &c), n);
		cr_assert(strlen(profdb_error_message()) > 0);
		return;
	}

	/* A tree that validated walks, looks up and iterates without error. */
	profdb_hpctk_walk *w;
	cr_assert_eq(profdb_hpctk_walk_new(&w, db), 0);
	size_t cap = (size_t)n + 1, count = 0, dcap = 64;
	walked *nodes = malloc(cap * sizeof *nodes);
	size_t *at_depth = malloc(dcap * sizeof *at_depth);
	cr_assert(nodes && at_depth);
	profdb_hpctk_context c;
	uint32_t depth, prev_depth = 0;
	int r;
	while ((r = profdb_hpctk_walk_next(w, &c, &depth)) == 1) {
		cr_assert(count < cap, "walk yields more than context_count + 1 nodes");
		cr_assert(count == 0 ? depth == 0 : depth >= 1 && depth <= prev_depth + 1,
		          "walk depth %u after %u", depth, prev_depth);
		if (depth >= dcap) {
			dcap *= 2;
			at_depth = realloc(at_depth, dcap * sizeof *at_depth);
			cr_assert(at_depth);
		}
		walked *x = &nodes[count];
		x->c = c;
		x->parent = depth ? at_depth[depth - 1] : NO_NODE;
		x->first_child = x->next_sibling = x->last_child = NO_NODE;
		if (x->parent != NO_NODE) {
			walked *p = &nodes[x->parent];
			if (p->last_child == NO_NODE)
				p->first_child = count;
			else
				nodes[p->last_child].next_sibling = count;
			p->last_child = count;
		}
		at_depth[depth] = count++;
		prev_depth = depth;
	}
	cr_assert_eq(r, 0, "walk of a validated tree failed: %s", profdb_error_message());
	cr_assert_eq(count, (size_t)n + 1, "walk yields %zu nodes, context_count %lld + root",
	             count, (long long)n);
	profdb_hpctk_walk_free(w);

	for (size_t i = 0; i < count; i++) {
		walked *x = &nodes[i];
		profdb_hpctk_context by;
		uint32_t parent;
		cr_assert_eq(profdb_hpctk_context_get(db, x->c.id, &by), 0);
		same_context(&x->c, &by);
		cr_assert_eq(profdb_hpctk_context_parent(db, x->c.id, &parent), 0);
		cr_assert_eq(parent, x->parent == NO_NODE ? PROFDB_NONE : nodes[x->parent].c.id,
		             "parent of context %u", x->c.id);
		cr_assert(x->c.function == PROFDB_NONE || x->c.function < (uint32_t)nf);
		cr_assert(x->c.file == PROFDB_NONE || x->c.file < (uint32_t)nfile);
		cr_assert(x->c.module == PROFDB_NONE || x->c.module < (uint32_t)nmod);

		profdb_hpctk_children it;
		cr_assert_eq(profdb_hpctk_children_begin(db, &x->c, &it), 0);
		size_t k = x->first_child;
		while ((r = profdb_hpctk_children_next(&it, &c)) == 1) {
			cr_assert(k != NO_NODE, "context %u has more children than the walk", x->c.id);
			same_context(&nodes[k].c, &c);
			k = nodes[k].next_sibling;
		}
		cr_assert_eq(r, 0);
		cr_assert(k == NO_NODE, "context %u has fewer children than the walk", x->c.id);
	}
	st->contexts = n;
	free(nodes);
	free(at_depth);
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* What a point lookup of metric id @p m answers when the value is stored:
 * 1, or -ENOENT for an id meta.db does not define, or the metric table's
 * own failure. @p prof / @p np: a cct.db lookup's profile index must also
 * be one of profile.db's (np < 0: no profile.db). */
static int64_t expected_lookup(const profdb_hpctk *db, uint32_t m, int64_t prof, int64_t np)
{
	if (np >= 0 && prof >= np)
		return -ENOENT;
	if (profdb_hpctk_has(db, PROFDB_HPCTK_META) != 1)
		return 1;
	int64_t n = profdb_hpctk_metric_count(db);
	if (n < 0)
		return n;
	for (int64_t i = 0; i < n; i++) {
		profdb_hpctk_metric md;
		profdb_hpctk_prop p;
		profdb_hpctk_summary su;
		cr_assert_eq(profdb_hpctk_metric_at(db, (uint32_t)i, &md), 0);
		for (uint32_t k = 0; k < md.n_props; k++)
			if (profdb_hpctk_metric_prop_at(db, (uint32_t)i, k, &p) == 0 && p.prop_metric_id == m)
				return 1;
		for (uint32_t k = 0; k < md.n_summaries; k++)
			if (profdb_hpctk_metric_summary_at(db, (uint32_t)i, k, &su) == 0 &&
			    su.stat_metric_id == m)
				return 1;
	}
	return -ENOENT;
}

static void drive_planes(const profdb_hpctk *db, uint64_t budget, tc_drive_stats *st)
{
	int64_t np = profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE)
	                     ? CHK(st, profdb_hpctk_profile_count(db), "profile_count")
	                     : 0;
	int has_cct = profdb_hpctk_has(db, PROFDB_HPCTK_CCT);
	uint64_t cross = 0;
	for (int64_t i = 0; i < np; i++) {
		profdb_hpctk_profile p;
		tv_plane pl, again;
		if (CHK(st, profdb_hpctk_profile_at(db, (uint32_t)i, &p), "profile_get") == 0) {
			for (uint32_t k = 0; k < p.n_ids; k++) {
				profdb_hpctk_id id;
				cr_assert_eq(profdb_hpctk_profile_id_at(db, (uint32_t)i, k, &id), 0);
			}
		}
		if (CHK(st, tv_profile_plane(db, (uint32_t)i, &pl), "profile_plane") < 0)
			continue;
		/* The cached (already validated) path hands out the same plane. */
		cr_assert_eq(tv_profile_plane(db, (uint32_t)i, &again), 0);
		cr_assert(memcmp(&again, &pl, sizeof pl) == 0);
		cr_assert(pl.index.stride == 12 && pl.index.key_type == PROFDB_FIELD_U32 &&
		          pl.index.value_offset == 4 && pl.index.value_type == PROFDB_FIELD_U64 &&
		          pl.values.stride == 10 && pl.values.key_type == PROFDB_FIELD_U16 &&
		          pl.values.value_offset == 2 && pl.values.value_type == PROFDB_FIELD_F64);
		uint64_t total = 0;
		uint32_t prev_ctx = 0;
		for (uint64_t j = 0; j < pl.index.count; j++) {
			uint32_t ctx, metric, prev_metric = 0;
			profdb_view run;
			double v, w;
			cr_assert_eq(tv_plane_at(&pl, j, &ctx, &run), 0);
			cr_assert(j == 0 || ctx > prev_ctx, "plane index not sorted after validation");
			prev_ctx = ctx;
			total += run.count;
			for (uint64_t k = 0; k < run.count; k++) {
				cr_assert_eq(tv_run_at(&run, k, &metric, &v), 0);
				cr_assert(k == 0 || metric > prev_metric);
				prev_metric = metric;
				int64_t want = expected_lookup(db, metric, 0, -1);
				cr_assert_eq(profdb_hpctk_value(db, (uint32_t)i, ctx, metric, &w), want);
				cr_assert(want == 1 ? same_bits(v, w) : w == 0);
				if (has_cct && (!budget || cross < budget)) {
					cross++;
					if (want == 1)
						CHK(st, profdb_hpctk_value_cct(db, (uint32_t)i, ctx, metric,
						                               &w), "cct_value");
					profdb_hpctk_context c;
					profdb__set_message("");
					int r = profdb_hpctk_context_get(db, ctx, &c);
					if (r != -ENOENT) /* ids with values need not be nodes */
						chk(st, r, "context_by_id(value id)");
				}
			}
		}
		cr_assert_eq(total, pl.values.count);
		st->values += total;
	}

	if (!has_cct)
		return;
	int64_t ns = CHK(st, profdb_hpctk_cct_slot_count(db), "cct_slot_count");
	for (int64_t c = 0; c < ns; c++) {
		tv_plane pl, again;
		if (CHK(st, tv_context_plane(db, (uint32_t)c, &pl), "context_plane") < 0)
			continue;
		cr_assert_eq(tv_context_plane(db, (uint32_t)c, &again), 0);
		cr_assert(memcmp(&again, &pl, sizeof pl) == 0);
		cr_assert(pl.index.stride == 10 && pl.index.key_type == PROFDB_FIELD_U16 &&
		          pl.index.value_offset == 2 && pl.values.stride == 12 &&
		          pl.values.key_type == PROFDB_FIELD_U32 && pl.values.value_offset == 4);
		uint64_t total = 0;
		for (uint64_t j = 0; j < pl.index.count; j++) {
			uint32_t metric, prof;
			profdb_view run;
			double v, w;
			cr_assert_eq(tv_plane_at(&pl, j, &metric, &run), 0);
			total += run.count;
			for (uint64_t k = 0; k < run.count; k++) {
				cr_assert_eq(tv_run_at(&run, k, &prof, &v), 0);
				int64_t want = expected_lookup(db, metric, prof,
				                               profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE) == 1
				                                       ? np : -1);
				cr_assert_eq(profdb_hpctk_value_cct(db, prof, (uint32_t)c, metric, &w), want);
				cr_assert(want == 1 ? same_bits(v, w) : w == 0);
				if ((int64_t)prof < np && (!budget || cross < budget)) {
					cross++;
					if (expected_lookup(db, metric, 0, -1) == 1)
						CHK(st, profdb_hpctk_value(db, prof, (uint32_t)c, metric, &w),
						    "value");
				}
			}
		}
		cr_assert_eq(total, pl.values.count);
		st->cct_values += total;
	}
	/* Ids past the table have no values. */
	tv_plane pl;
	cr_assert_eq(tv_context_plane(db, ns < 0 ? 0 : (uint32_t)ns, &pl), ns < 0 ? ns : 0);
	if (ns >= 0)
		cr_assert_eq(pl.index.count, 0);
}

static void check_seek(const profdb_hpctk_trace *t, uint64_t time)
{
	uint64_t idx, first, last, tm;
	int r = profdb_view_in_effect(&t->samples, time, &idx);
	cr_assert(r == 0 || r == 1);
	if (r == 0) {
		if (t->samples.count) {
			cr_assert_eq(tv_sample(t, 0, &tm, NULL), 0);
			cr_assert(time < tm, "seek says %llu precedes the first sample",
			          (unsigned long long)time);
		}
	} else {
		cr_assert(idx < t->samples.count);
		cr_assert_eq(tv_sample(t, idx, &tm, NULL), 0);
		cr_assert(tm <= time);
		if (idx + 1 < t->samples.count) {
			cr_assert_eq(tv_sample(t, idx + 1, &tm, NULL), 0);
			cr_assert(tm > time);
		}
	}
	cr_assert_eq(profdb_view_window(&t->samples, time, time / 2 + UINT64_MAX / 2, &first, &last), 0);
	cr_assert(first <= last && last <= t->samples.count);
}

static void drive_traces(const profdb_hpctk *db, tc_drive_stats *st)
{
	if (!profdb_hpctk_has(db, PROFDB_HPCTK_TRACE))
		return;
	uint64_t lo, hi;
	int b = profdb_hpctk_trace_bounds(db, &lo, &hi);
	cr_assert(b == 0 || b == 1);
	int64_t n = CHK(st, profdb_hpctk_trace_count(db), "trace_count");
	for (int64_t i = 0; i < n; i++) {
		profdb_hpctk_trace t, again;
		if (CHK(st, profdb_hpctk_trace_line_at(db, (uint32_t)i, &t), "trace_get") < 0)
			continue;
		cr_assert_eq(profdb_hpctk_trace_line_at(db, (uint32_t)i, &again), 0);
		cr_assert(again.samples.base == t.samples.base && again.samples.count == t.samples.count &&
		          again.profile == t.profile);
		uint64_t prev = 0;
		for (uint64_t k = 0; k < t.samples.count; k++) {
			uint64_t tm;
			uint32_t ctx;
			cr_assert_eq(tv_sample(&t, k, &tm, &ctx), 0);
			cr_assert(k == 0 || tm >= prev, "trace handed out unsorted");
			prev = tm;
		}
		st->samples += t.samples.count;
		check_seek(&t, 0);
		check_seek(&t, UINT64_MAX);
		if (t.samples.count) {
			uint64_t first, mid;
			tv_sample(&t, 0, &first, NULL);
			tv_sample(&t, t.samples.count / 2, &mid, NULL);
			check_seek(&t, first);
			if (first)
				check_seek(&t, first - 1);
			check_seek(&t, mid);
			check_seek(&t, mid + 1);
		}
	}
}

void tc_drive(const profdb_hpctk *db, uint64_t budget_values, tc_drive_stats *st)
{
	memset(st, 0, sizeof *st);
	st->contexts = -1;
	cr_assert(db);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		uint8_t major = 0, minor = 0;
		if (profdb_hpctk_has(db, (profdb_hpctk_file)f)) {
			cr_assert_eq(profdb_hpctk_version(db, (profdb_hpctk_file)f, &major, &minor), 0);
			cr_assert_eq(major, 4);
		} else {
			cr_assert_eq(profdb_hpctk_version(db, (profdb_hpctk_file)f, &major, &minor),
			             -ENOENT);
		}
	}
	if (profdb_hpctk_has(db, PROFDB_HPCTK_META)) {
		drive_meta(db, st);
		drive_tree(db, st);
	}
	drive_planes(db, budget_values, st);
	drive_traces(db, st);
}

void tc_check_samples(const char *rel, int entries, int (*check)(const char *path),
                      const int *unreadable)
{
	char *root = tc_sample_path(rel);   /* skips when absent */
	int checked = 0;
	if (entries) {
		DIR *d = opendir(root);
		cr_assert_not_null(d, "%s", root);
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
				continue;
			char *path = join(root, e->d_name);
			checked += check(path);
			free(path);
		}
		closedir(d);
	} else {
		size_t n;
		char **list = tc_list_files(rel, &n);
		for (size_t i = 0; i < n; i++)
			checked += check(list[i]);
		tc_free_list(list);
	}
	free(root);
	if (checked == 0 && *unreadable)
		cr_skip_test("%s: this build cannot read these samples", rel);
	cr_assert_gt(checked, 0, "%s: no sample checked", rel);
}

profdb *tc_open_mem(const char *name, const void *data, size_t size)
{
	profdb_input in = {name, data, size};
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, &in, 1, NULL);
	cr_assert_eq(r, 0, "open %s from memory: %d %s", name, r, profdb_error_message());
	return db;
}
