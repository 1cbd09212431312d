/* The common query interface (lib/query) and its HPCToolkit 4.0 backend:
 * format detection and its errors, the model of the writer's sample
 * database (expected content transcribed from tests/writer/writer.h), and
 * invariants every database must satisfy (the cursor agrees with point
 * lookups, the three scans agree, the tree's links are consistent),
 * checked on generated databases and on every real HPCToolkit 4.0 sample,
 * with issue-233's normative counts. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "query-check.h"
#include "writer.h"

#define T0 TW_SAMPLE_T0

/* ---- the writer's sample -------------------------------------------------------- */

typedef struct files {
	tw_blob b[TW_NFILES];
	profdb_input in[TW_NFILES];
	size_t n;
} files;

static const char *const names[TW_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};

static void write_sample(files *f, int devstage, int no_cct, int no_trace)
{
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	d.devstage = devstage;
	d.no_cct = no_cct;
	d.no_trace = no_trace;
	memset(f, 0, sizeof *f);
	cr_assert_eq(tw_hpctk4_write(&d, f->b), 0);
	/* Named buffers in an unusual order: the magic decides, not the position. */
	for (int k = TW_NFILES - 1; k >= 0; k--)
		if (f->b[k].data)
			f->in[f->n++] = (profdb_input){names[k], f->b[k].data, f->b[k].size};
}

static void free_files(files *f)
{
	for (int k = 0; k < TW_NFILES; k++)
		tw_blob_free(&f->b[k]);
}

typedef struct warns {
	int n;
	char last[512];
} warns;

static void on_warn(const char *msg, void *ud)
{
	warns *w = ud;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", msg);
}

static profdb *open_sample(files *f, int devstage, int no_cct, int no_trace)
{
	profdb *db;
	write_sample(f, devstage, no_cct, no_trace);
	int r = profdb_open_inputs(&db, f->in, f->n, NULL);
	cr_assert_eq(r, 0, "open_inputs: %d %s", r, profdb_error_message());
	return db;
}

Test(query, sample_counts_and_invariants)
{
	for (int v = 0; v < 4; v++) {
		files f;
		profdb *db = open_sample(&f, v == 1, v == 2, v == 3);
		profdb_about a;
		cr_assert_eq(profdb_get_about(db, &a), 0);
		cr_assert_eq(a.format, PROFDB_FORMAT_HPCTK4);
		cr_assert(qc_str_is(a.version, "4.0"));
		cr_assert(qc_str_is(a.title, "profdb sample"));
		cr_assert_not_null(profdb_get_hpctk(db));
		cr_assert_null(profdb_get_cube(db));
		cr_assert_null(profdb_get_cg(db));
		profdb_counts c = qc_check_all(db, "sample");
		cr_assert_eq(c.profiles, 3);
		cr_assert_eq(c.contexts, 14);
		cr_assert_eq(c.metrics, 5);   /* prop ids 0-4 (normative count) */
		cr_assert_eq(profdb_metric_count(db), 6);   /* and the statistic-only id 5 */
		cr_assert_eq(c.values, 32 + 25 + 38);
		cr_assert_eq(c.traces, v == 3 ? 0 : 2);
		cr_assert_eq(c.samples, v == 3 ? 0 : 6);
		profdb_close(db);
		free_files(&f);
	}
}

Test(query, sample_metrics)
{
	files f;
	profdb *db = open_sample(&f, 0, 0, 0);
	static const struct {
		uint32_t id;
		const char *name;
		profdb_metric_kind kind;
		const char *statistic;
		uint32_t excl, incl;
	} want[] = {
		{0, "CPUTIME (sec)", PROFDB_METRIC_POINT, "sum", 1, 2},
		{1, "CPUTIME (sec)", PROFDB_METRIC_EXCLUSIVE, "sum", 1, 2},
		{2, "CPUTIME (sec)", PROFDB_METRIC_INCLUSIVE, "sum", 1, 2},
		{3, "cycles", PROFDB_METRIC_INCLUSIVE, "sum", PROFDB_NONE, 3},
		/* the lex_aware id, under which the summary stores the execution max */
		{4, "cycles", PROFDB_METRIC_OTHER, "max", PROFDB_NONE, 3},
		{5, "cycles", PROFDB_METRIC_SUMMARY, "sum", PROFDB_NONE, 3},
	};
	for (uint32_t i = 0; i < 6; i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, i, &m), 0);
		cr_assert_eq(m.id, want[i].id);
		cr_assert(qc_str_is(m.name, want[i].name));
		cr_assert_eq(m.kind, want[i].kind, "metric %u kind %d", i, m.kind);
		cr_assert(qc_str_is(m.statistic, want[i].statistic), "metric %u: %.*s", i,
		          (int)m.statistic.len, m.statistic.ptr);
		cr_assert_eq(m.exclusive_id, want[i].excl, "metric %u", i);
		cr_assert_eq(m.inclusive_id, want[i].incl, "metric %u", i);
		cr_assert_eq(m.type, PROFDB_TYPE_F64);
		cr_assert_eq(m.has_data, 1);
		cr_assert(qc_str_is(m.unit, ""));
	}
	profdb_metric m;
	/* By name: the inclusive id first; case-insensitively; by id. */
	cr_assert_eq(profdb_metric_find(db, "CPUTIME (sec)", &m), 0);
	cr_assert_eq(m.id, 2);
	cr_assert_eq(profdb_metric_find(db, "cputime (SEC)", &m), 0);
	cr_assert_eq(m.id, 2);
	cr_assert_eq(profdb_metric_find(db, "cycles", &m), 0);
	cr_assert_eq(m.id, 3);
	cr_assert_eq(profdb_metric_find(db, "4", &m), 0);
	cr_assert_eq(m.id, 4);
	cr_assert_eq(profdb_metric_find(db, "nope", &m), -ENOENT);
	cr_assert_eq(profdb_metric_find(db, "99", &m), -ENOENT);
	cr_assert_eq(profdb_metric_find(db, "", &m), -ENOENT);
	cr_assert_eq(profdb_metric_get(db, 6, &m), -ENOENT);
	cr_assert_eq(profdb_metric_find(db, NULL, &m), -EINVAL);
	profdb_close(db);
	free_files(&f);
}

static void expect_ctx(const profdb *db, uint32_t id, uint32_t parent, uint32_t depth,
                       profdb_relation rel, profdb_context_type type, const char *fn,
                       const char *file, uint64_t line, const char *module, uint64_t offset)
{
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, id, &c), 0, "context %u: %s", id, profdb_error_message());
	cr_assert_eq(c.id, id);
	cr_assert_eq(c.in_tree, 1);
	cr_assert_eq(c.parent, parent, "context %u parent %u", id, c.parent);
	cr_assert_eq(c.depth, depth, "context %u depth %u", id, c.depth);
	cr_assert_eq(c.relation, rel, "context %u relation %d", id, c.relation);
	cr_assert_eq(c.type, type, "context %u type %d", id, c.type);
	cr_assert(qc_str_is(c.function, fn), "context %u function %.*s", id, (int)c.function.len,
	          c.function.ptr);
	cr_assert(qc_str_is(c.file, file), "context %u file %.*s", id, (int)c.file.len, c.file.ptr);
	cr_assert_eq(c.line, line, "context %u line", id);
	cr_assert(qc_str_is(c.module, module), "context %u module %.*s", id, (int)c.module.len,
	          c.module.ptr);
	cr_assert_eq(c.has_offset, module[0] != 0);
	if (c.has_offset)
		cr_assert_eq(c.offset, offset, "context %u offset", id);
}

Test(query, sample_contexts)
{
	files f;
	profdb *db = open_sample(&f, 0, 0, 0);
	const char *bin = "/usr/bin/sample", *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	uint32_t root;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	cr_assert_eq(root, 1);
	expect_ctx(db, 1, PROFDB_NONE, 0, PROFDB_RELATION_NONE, PROFDB_CTX_ROOT, "main thread", "", 0,
	           "", 0);
	expect_ctx(db, 2, 1, 1, PROFDB_RELATION_CALL, PROFDB_CTX_FUNCTION, "main", "/src/sample.c", 10,
	           bin, 0x1130);
	expect_ctx(db, 3, 2, 2, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LOOP, "", "/src/sample.c", 12, bin,
	           0x1140);
	expect_ctx(db, 4, 3, 3, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LINE, "", "/src/sample.c", 13, "", 0);
	expect_ctx(db, 5, 4, 4, PROFDB_RELATION_LEXICAL, PROFDB_CTX_INSTRUCTION, "", "", 0, bin, 0x1158);
	expect_ctx(db, 9, 8, 7, PROFDB_RELATION_INLINED, PROFDB_CTX_FUNCTION, "helper", "src/util.h", 5,
	           "", 0);
	expect_ctx(db, 14, 13, 8, PROFDB_RELATION_CALL, PROFDB_CTX_FUNCTION, "memcpy", "", 0, libc,
	           0x9a0c0);
	expect_ctx(db, 15, PROFDB_NONE, 0, PROFDB_RELATION_NONE, PROFDB_CTX_ROOT, "unknown entry", "", 0,
	           "", 0);
	expect_ctx(db, 16, 15, 1, PROFDB_RELATION_CALL, PROFDB_CTX_FUNCTION, "", "", 0, libc, 0x2000);
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, 1, &c), 0);
	cr_assert_eq(c.first_child, 2);
	cr_assert_eq(c.next_sibling, 15);
	cr_assert_eq(profdb_context_get(db, 7, &c), 0);
	cr_assert_eq(c.first_child, 8);
	cr_assert_eq(profdb_context_get(db, 8, &c), 0);
	cr_assert_eq(c.next_sibling, 12);
	cr_assert_eq(profdb_context_get(db, 15, &c), 0);
	cr_assert_eq(c.next_sibling, PROFDB_NONE);
	/* The global context and the elided id 11 carry values without a node;
	 * id 6 is unused. */
	cr_assert_eq(profdb_context_get(db, 0, &c), 0);
	cr_assert_eq(c.in_tree, 0);
	cr_assert_eq(c.type, PROFDB_CTX_ROOT);
	cr_assert_eq(c.parent, PROFDB_NONE);
	cr_assert_eq(profdb_context_get(db, 11, &c), 0);
	cr_assert_eq(c.in_tree, 0);
	cr_assert_eq(c.parent, PROFDB_NONE);
	cr_assert_eq(c.first_child, PROFDB_NONE);
	cr_assert_eq(profdb_context_get(db, 6, &c), -ENOENT);
	cr_assert_eq(profdb_context_get(db, 12345, &c), -ENOENT);
	profdb_close(db);
	free_files(&f);

	/* Without cct.db the elided id is found by scanning the profiles. */
	db = open_sample(&f, 0, 1, 0);
	cr_assert_eq(profdb_context_get(db, 11, &c), 0);
	cr_assert_eq(c.in_tree, 0);
	cr_assert_eq(profdb_context_get(db, 6, &c), -ENOENT);
	profdb_close(db);
	free_files(&f);

	/* Dev-stage: the roots are the root contexts themselves. */
	db = open_sample(&f, 1, 0, 0);
	cr_assert_eq(profdb_context_get(db, 1, &c), 0);
	cr_assert_eq(c.parent, PROFDB_NONE);
	cr_assert_eq(c.relation, PROFDB_RELATION_NONE);
	cr_assert_eq(c.next_sibling, 15);
	profdb_close(db);
	free_files(&f);
}

Test(query, sample_profiles_values_traces)
{
	files f;
	profdb *db = open_sample(&f, 0, 0, 0);
	profdb_profile p;
	cr_assert_eq(profdb_profile_at(db, 0, &p), 0);
	cr_assert_eq(p.is_summary, 1);
	cr_assert(qc_str_is(p.name, "summary"));
	cr_assert_eq(p.n_identity, 0);
	cr_assert_eq(profdb_profile_at(db, 2, &p), 0);
	cr_assert_eq(p.is_summary, 0);
	cr_assert(qc_str_is(p.name, "node 0 thread 1"), "%.*s", (int)p.name.len, p.name.ptr);
	cr_assert_eq(p.n_identity, 2);
	profdb_str kind;
	uint64_t v;
	cr_assert_eq(profdb_profile_identity(db, 2, 0, &kind, &v), 0);
	cr_assert(qc_str_is(kind, "node"));
	cr_assert_eq(v, 0);
	cr_assert_eq(profdb_profile_identity(db, 2, 1, &kind, &v), 0);
	cr_assert(qc_str_is(kind, "thread"));
	cr_assert_eq(v, 1);

	profdb_number n;
	cr_assert_eq(profdb_value(db, 1, 5, 0, &n), 1);
	cr_assert_eq(n.type, PROFDB_TYPE_F64);
	cr_assert_eq(n.as.f64, 1.0);
	cr_assert_eq(profdb_value(db, 0, 13, 5, &n), 1);   /* summary, statistic-only id */
	cr_assert_eq(n.as.f64, 6144.0);
	cr_assert_eq(profdb_value(db, 0, 0, 4, &n), 1);    /* the max under the lex_aware id */
	cr_assert_eq(n.as.f64, 4096.0);
	cr_assert_eq(profdb_value(db, 1, 13, 5, &n), 0);
	cr_assert_eq(n.type, PROFDB_TYPE_NONE);
	cr_assert_eq(profdb_number_to_double(n), 0.0);
	cr_assert_eq(profdb_value(db, 1, 6, 0, &n), -ENOENT);   /* no tree node, no values */
	cr_assert_eq(profdb_value(db, 3, 5, 0, &n), -ENOENT);
	cr_assert_eq(profdb_value(db, 1, 5, 9, &n), -ENOENT);
	/* A context id that is neither a tree node nor carries values is
	 * -ENOENT from every call that takes one, never "not stored". */
	const uint32_t nowhere = 4000000;
	profdb_context c;
	profdb_view cv_index, cv_values;
	profdb_values *none_it = NULL;
	cr_assert_eq(profdb_context_get(db, nowhere, &c), -ENOENT);
	cr_assert_eq(profdb_value(db, 1, nowhere, 0, &n), -ENOENT);
	cr_assert(strstr(profdb_error_message(), "4000000"), "%s", profdb_error_message());
	cr_assert_eq(n.type, PROFDB_TYPE_NONE);
	cr_assert_eq(profdb_inclusive(db, 1, nowhere, 0, &n), -ENOENT);
	cr_assert_eq(profdb_exclusive(db, 1, nowhere, 0, &n), -ENOENT);
	cr_assert_eq(profdb_context_view(db, nowhere, &cv_index, &cv_values), -ENOENT);
	cr_assert_eq(profdb_values_new(&none_it, db, PROFDB_SCAN_CONTEXT, nowhere), -ENOENT);
	cr_assert_null(none_it);
	cr_assert_eq(profdb_value(db, 1, 5, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_value(NULL, 1, 5, 0, &n), -EINVAL);

	/* Scoped values: read from the stored scope of the same metric. */
	cr_assert_eq(profdb_inclusive(db, 1, 7, 0, &n), 1);
	cr_assert_eq(n.as.f64, 2.75);
	cr_assert_eq(profdb_exclusive(db, 1, 7, 0, &n), 1);
	cr_assert_eq(n.as.f64, 2.0);
	cr_assert_eq(profdb_exclusive(db, 1, 7, 2, &n), 1);
	cr_assert_eq(n.as.f64, 2.0);
	cr_assert_eq(profdb_exclusive(db, 1, 8, 0, &n), 0);
	cr_assert_eq(profdb_exclusive(db, 1, 13, 3, &n), -ENOTSUP);  /* cycles: no function scope */
	cr_assert_eq(profdb_inclusive(db, 1, 13, 5, &n), -ENOTSUP);  /* a statistic, not a summary */
	cr_assert_eq(profdb_inclusive(db, 0, 13, 5, &n), 1);         /* -> statistic id 3 */
	cr_assert_eq(n.as.f64, 6144.0);
	cr_assert_eq(profdb_inclusive(db, 1, 13, 77, &n), -ENOENT);

	/* Traces: profile 1 has the six samples, the others none. */
	cr_assert_eq(profdb_trace_length(db, 0), 0);
	cr_assert_eq(profdb_trace_length(db, 1), 6);
	cr_assert_eq(profdb_trace_length(db, 2), 0);
	cr_assert_eq(profdb_trace_length(db, 3), -ENOENT);
	profdb_sample s;
	cr_assert_eq(profdb_trace_sample_at(db, 1, 0, &s), 0);
	cr_assert_eq(s.time_ns, T0 + 1000);
	cr_assert_eq(s.context, 5);
	cr_assert_eq(profdb_trace_sample_at(db, 1, 2, &s), 0);
	cr_assert_eq(s.context, 0);
	cr_assert_eq(profdb_trace_sample_at(db, 1, 6, &s), -ENOENT);
	uint64_t i;
	cr_assert_eq(profdb_trace_seek(db, 1, T0 + 2500, &i), 0);
	cr_assert_eq(i, 2);
	cr_assert_eq(profdb_trace_seek(db, 1, 0, &i), 0);
	cr_assert_eq(i, 0);
	cr_assert_eq(profdb_trace_seek(db, 1, UINT64_MAX, &i), 0);
	cr_assert_eq(i, 6);
	cr_assert_eq(profdb_trace_seek(db, 2, T0, &i), 0);
	cr_assert_eq(i, 0);

	/* The cursor's arguments. */
	profdb_values *it;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_PROFILE, 3), -ENOENT);
	cr_assert_null(it);
	cr_assert_eq(profdb_values_new(&it, db, (profdb_scan)7, 0), -EINVAL);
	cr_assert_eq(profdb_values_new(&it, NULL, PROFDB_SCAN_ALL, 0), -EINVAL);
	/* context 6: no tree node, no values */
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, 6), -ENOENT);
	cr_assert_null(it);
	size_t k;
	profdb_entry *e = qc_scan(db, PROFDB_SCAN_CONTEXT, 13, &k);
	cr_assert_eq(k, 5 + 5);   /* the two threads; the summary's 6 are its profile's */
	for (size_t x = 0; x < k; x++)
		cr_assert(e[x].profile == 1 || e[x].profile == 2);
	free(e);
	profdb_values_free(NULL);
	profdb_close(db);
	free_files(&f);
}

/* ---- options: tolerant mode, memory limit, progress ---------------------------------- */

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

Test(query, tolerant_mode)
{
	files f;
	write_sample(&f, 0, 1, 1);
	/* Profile 2's value array pointer (pValues, at +8 in its ProfileInfo)
	 * now points past the end of the file. The section header at 0x10
	 * (size, pointer) gives the Profile Info section, whose first field is
	 * the array. */
	unsigned char *prof = NULL;
	for (size_t i = 0; i < f.n; i++)
		if (strcmp(f.in[i].name, "profile.db") == 0)
			prof = (unsigned char *)f.in[i].data;
	cr_assert(prof);
	uint64_t infos = get_le64(prof + 0x18), array = get_le64(prof + infos);
	unsigned stride = prof[infos + 0x0c];
	put_le64(prof + array + 2 * stride + 8, UINT64_C(1) << 40);

	profdb *db;
	profdb_number n;
	profdb_counts c;
	cr_assert_eq(profdb_open_inputs(&db, f.in, f.n, NULL), 0);
	int r = profdb_value(db, 2, 2, 1, &n);
	cr_assert(r == -EBADMSG || r == -ENODATA, "strict: %d", r);
	cr_assert(strstr(profdb_error_message(), "profile.db"), "%s", profdb_error_message());
	cr_assert_lt(profdb_get_counts(db, &c), 0);
	/* the header itself points outside profile.db */
	cr_assert_eq(profdb_get_header_counts(db, &c), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "profile value block"), "%s",
	          profdb_error_message());
	profdb_close(db);

	warns w = {0};
	profdb_options o = {.size = sizeof o, .flags = PROFDB_OPEN_TOLERANT, .warn = on_warn,
	                    .warn_userdata = &w};
	cr_assert_eq(profdb_open_inputs(&db, f.in, f.n, &o), 0);
	cr_assert_eq(profdb_value(db, 2, 2, 1, &n), 0);
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "profile 2 reads as absent"), "%s", w.last);
	cr_assert_eq(profdb_value(db, 1, 2, 1, &n), 1);
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert_eq(c.values, 32 + 38);
	cr_assert_eq(profdb_get_header_counts(db, &c), 0);
	cr_assert_eq(c.values, 32 + 38);
	cr_assert_eq(w.n, 1, "one warning per damaged block");
	profdb_close(db);
	free_files(&f);
}

static int progress_calls;
static int on_progress(uint64_t done, uint64_t total, void *ud)
{
	int *stop_at = ud;
	cr_assert_leq(done, total);
	return ++progress_calls >= *stop_at;
}

Test(query, memory_limit_and_progress)
{
	files f;
	write_sample(&f, 0, 0, 0);
	profdb *db;
	uint32_t root;
	profdb_options o = {.size = sizeof o, .max_memory = 64};
	cr_assert_eq(profdb_open_inputs(&db, f.in, f.n, &o), 0);
	cr_assert_eq(profdb_context_count(db), 14);   /* counting materialises nothing */
	cr_assert_eq(profdb_context_root(db, &root), -EFBIG);
	cr_assert(strstr(profdb_error_message(), "max_memory"), "%s", profdb_error_message());
	profdb_close(db);

	int stop_at = 1000;
	profdb_counts c;
	profdb_options p = {.size = sizeof p, .progress = on_progress, .progress_userdata = &stop_at};
	cr_assert_eq(profdb_open_inputs(&db, f.in, f.n, &p), 0);
	progress_calls = 0;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert_geq(progress_calls, 3);
	stop_at = 2;
	progress_calls = 0;
	cr_assert_eq(profdb_get_counts(db, &c), -ECANCELED);
	profdb_close(db);
	free_files(&f);
}

/* ---- detection ---------------------------------------------------------------------- */

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	cr_assert(fp);
	fputs(text, fp);
	fclose(fp);
}

static void remove_file(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	unlink(path);
}

Test(query, detection)
{
	char dir[] = "/tmp/profdb-query-XXXXXX", path[600];
	cr_assert(mkdtemp(dir));
	profdb *db = (profdb *)1;

	/* An empty directory. */
	cr_assert_eq(profdb_open(&db, dir, NULL), -EPROTONOSUPPORT);
	cr_assert_null(db);
	cr_assert(strstr(profdb_error_message(), "empty"), "%s", profdb_error_message());
	cr_assert(strstr(profdb_error_message(), "meta.db"), "%s", profdb_error_message());

	/* A directory of unrelated files: their names are in the message. */
	put_file(dir, "notes.txt", "hello\n");
	cr_assert_eq(profdb_open(&db, dir, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "notes.txt"), "%s", profdb_error_message());

	/* An unknown file: what was found and what was expected. */
	snprintf(path, sizeof path, "%s/notes.txt", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "text beginning \"hello\""), "%s",
	          profdb_error_message());
	cr_assert(strstr(profdb_error_message(), "expected"), "%s", profdb_error_message());
	cr_assert(strstr(profdb_error_message(), path), "%s", profdb_error_message());

	/* experiment.xml beside *.metric-db files: the old HPCToolkit format,
	 * read (tests/test-xmldb.c); a record cut short is named, whether the
	 * folder or one of its files is opened. */
	put_file(dir, "experiment.xml", "<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"2.2\">\n");
	put_file(dir, "CPUTIME.metric-db", "\x01\x02");
	cr_assert_eq(profdb_open(&db, dir, NULL), -ENODATA);
	cr_assert(strstr(profdb_error_message(), "CPUTIME.metric-db"), "%s", profdb_error_message());
	snprintf(path, sizeof path, "%s/experiment.xml", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), -ENODATA);
	cr_assert(strstr(profdb_error_message(), "CPUTIME.metric-db"), "%s", profdb_error_message());
	snprintf(path, sizeof path, "%s/CPUTIME.metric-db", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), -ENODATA);
	remove_file(dir, "experiment.xml");
	remove_file(dir, "CPUTIME.metric-db");

	/* A damaged meta.db (wrong magic): named, with what it holds. */
	put_file(dir, "meta.db", "HPCTOOLKITxxxx\x04");
	cr_assert_eq(profdb_open(&db, dir, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "meta.db"), "%s", profdb_error_message());
	remove_file(dir, "meta.db");

	/* Nothing there at all; bad arguments. */
	snprintf(path, sizeof path, "%s/absent", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), -ENOENT);
	cr_assert_eq(profdb_open(NULL, dir, NULL), -EINVAL);
	cr_assert_eq(profdb_open(&db, NULL, NULL), -EINVAL);

	/* A real database: the directory, and its files one by one. */
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_counts c = qc_check_all(db, "sample directory");
	cr_assert_eq(c.values, 95);
	/* What the format tells about itself: the files it read, in order,
	 * its whole validation, names, and no single total root. */
	profdb_str fn;
	for (size_t k = 0; k < TW_NFILES; k++) {
		cr_assert_eq(profdb_file_name(db, k, &fn), 0);
		cr_assert_str_eq(fn.ptr, names[k]);
	}
	cr_assert_eq(profdb_file_name(db, TW_NFILES, &fn), -ENOENT);
	cr_assert_eq(profdb_check(db), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_has_names(db), 1);
	uint32_t root = 7;
	cr_assert_eq(profdb_total_root(db, &root), 0);
	cr_assert_eq(profdb_total_root(NULL, &root), -EINVAL);
	profdb_close(db);
	snprintf(path, sizeof path, "%s/meta.db", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_context_count(db), 14);
	cr_assert_eq(profdb_profile_count(db), 0);
	qc_check_all(db, "meta.db alone");
	profdb_close(db);
	snprintf(path, sizeof path, "%s/profile.db", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_metric_count(db), 0);   /* names and scopes live in meta.db */
	cr_assert_eq(profdb_context_count(db), 0);
	c = qc_check_all(db, "profile.db alone");
	cr_assert_eq(c.values, 95);
	profdb_number n;
	cr_assert_eq(profdb_inclusive(db, 1, 7, 0, &n), -ENOTSUP);
	profdb_close(db);

	/* A database folder without meta.db: refused with the file named in
	 * strict mode (nothing would have a name or a metric), read with a
	 * warning in tolerant mode. */
	remove_file(dir, "meta.db");
	snprintf(path, sizeof path, "%s/meta.db", dir);
	db = (profdb *)1;
	cr_assert_eq(profdb_open(&db, dir, NULL), -ENOENT);
	cr_assert_null(db);
	cr_assert(strstr(profdb_error_message(), path), "%s", profdb_error_message());
	cr_assert(strstr(profdb_error_message(), "missing"), "%s", profdb_error_message());
	warns w = {0};
	profdb_options o = {.size = sizeof o, .flags = PROFDB_OPEN_TOLERANT, .warn = on_warn,
	                    .warn_userdata = &w};
	cr_assert_eq(profdb_open(&db, dir, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, path), "%s", w.last);
	cr_assert_eq(profdb_metric_count(db), 0);
	cr_assert_eq(profdb_file_name(db, 0, &fn), 0);
	cr_assert_str_eq(fn.ptr, "profile.db");
	profdb_close(db);

	remove_file(dir, "notes.txt");
	for (int k = 0; k < TW_NFILES; k++)
		remove_file(dir, names[k]);
	rmdir(dir);
}

Test(query, open_inputs_errors)
{
	files f;
	write_sample(&f, 0, 0, 0);
	profdb *db = (profdb *)1;
	profdb_input in[3];
	/* No inputs, NULL arguments. */
	cr_assert_eq(profdb_open_inputs(&db, f.in, 0, NULL), -EINVAL);
	cr_assert_null(db);
	cr_assert_eq(profdb_open_inputs(NULL, f.in, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_open_inputs(&db, NULL, 1, NULL), -EINVAL);
	/* Text only: not supported, named. */
	in[0] = (profdb_input){"readme", "just some text\n", 15};
	cr_assert_eq(profdb_open_inputs(&db, in, 1, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "readme"), "%s", profdb_error_message());
	/* An empty buffer. */
	in[0] = (profdb_input){"x", NULL, 0};
	cr_assert_eq(profdb_open_inputs(&db, in, 1, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "empty"), "%s", profdb_error_message());
	/* A stray buffer next to a database. */
	in[0] = f.in[0];
	in[1] = (profdb_input){"readme", "just some text\n", 15};
	cr_assert_eq(profdb_open_inputs(&db, in, 2, NULL), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "readme"), "%s", profdb_error_message());
	/* The same file twice. */
	in[1] = f.in[0];
	cr_assert_eq(profdb_open_inputs(&db, in, 2, NULL), -EINVAL);
	/* A .metric-db record (the old experiment.xml format) beside another
	 * format's file. */
	in[1] = (profdb_input){"CPUTIME.metric-db", "\x01", 1};
	cr_assert_eq(profdb_open_inputs(&db, in, 2, NULL), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "mix"), "%s", profdb_error_message());
	/* One file alone is a database too. */
	cr_assert_eq(profdb_open_inputs(&db, in, 1, NULL), 0, "%s", profdb_error_message());
	profdb_close(db);
	profdb_close(NULL);
	free_files(&f);
}

Test(query, small_functions)
{
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_HPCTK4), "hpctoolkit-4.0");
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_HPCTK_PRE), "hpctoolkit-prerelease");
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_HPCTK_DRAFT), "hpctoolkit-draft");
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_HPCRUN), "hpcrun");
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_CUBE), "cube");
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_CALLGRIND), "callgrind");
	cr_assert_str_eq(profdb_format_name(PROFDB_FORMAT_UNKNOWN), "unknown");
	cr_assert_str_eq(profdb_format_name((profdb_format)99), "unknown");
	profdb_number n = {.type = PROFDB_TYPE_U64};
	n.as.u64 = UINT64_C(9007199254740993);
	cr_assert_eq(profdb_number_to_double(n), 9007199254740992.0);
	n.type = PROFDB_TYPE_I64;
	n.as.i64 = -5;
	cr_assert_eq(profdb_number_to_double(n), -5.0);
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = 0.25;
	cr_assert_eq(profdb_number_to_double(n), 0.25);
	n.type = PROFDB_TYPE_NONE;
	cr_assert_eq(profdb_number_to_double(n), 0.0);
	profdb_counts c;
	profdb_metric m;
	profdb_context x;
	uint32_t id;
	cr_assert_eq(profdb_get_counts(NULL, &c), -EINVAL);
	cr_assert_eq(profdb_get_header_counts(NULL, &c), -EINVAL);
	cr_assert_eq(profdb_metric_count(NULL), -EINVAL);
	cr_assert_eq(profdb_metric_at(NULL, 0, &m), -EINVAL);
	cr_assert_eq(profdb_context_get(NULL, 0, &x), -EINVAL);
	cr_assert_eq(profdb_context_root(NULL, &id), -EINVAL);
	cr_assert_eq(profdb_trace_length(NULL, 0), -EINVAL);
	cr_assert_null(profdb_get_hpctk(NULL));
}

/* ---- threads: the lazy tables are built by whichever thread comes first ---------- */

typedef struct race {
	const profdb *db;
	uint64_t sum;     /* a digest of what the thread read */
} race;

static void *racer(void *arg)
{
	race *r = arg;
	profdb_context c;
	profdb_profile p;
	profdb_number n;
	profdb_sample s;
	uint32_t root;
	r->sum = 0;
	if (profdb_context_root(r->db, &root) == 0)
		r->sum += root;
	for (uint32_t id = 0; id < 20; id++)
		if (profdb_context_get(r->db, id, &c) == 0)
			r->sum += (uint64_t)c.depth * 1000 + c.in_tree * 100 + c.parent % 97;
	for (uint32_t i = 0; i < 3; i++)
		if (profdb_profile_at(r->db, i, &p) == 0)
			r->sum += p.name.len;
	if (profdb_value(r->db, 1, 13, 3, &n) == 1)
		r->sum += (uint64_t)n.as.f64;
	if (profdb_trace_sample_at(r->db, 1, 3, &s) == 0)
		r->sum += s.context;
	return NULL;
}

Test(query, concurrent_first_use)
{
	for (int round = 0; round < 20; round++) {
		files f;
		profdb *db = open_sample(&f, 0, round % 2, 0);
		race r[4];
		pthread_t t[4];
		for (int i = 0; i < 4; i++) {
			r[i].db = db;
			cr_assert_eq(pthread_create(&t[i], NULL, racer, &r[i]), 0);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		race alone = {db, 0};
		racer(&alone);
		cr_assert_gt(alone.sum, 0);
		for (int i = 0; i < 4; i++)
			cr_assert_eq(r[i].sum, alone.sum, "thread %d read something else", i);
		profdb_close(db);
		free_files(&f);
	}
}

/* ---- real databases ---------------------------------------------------------------- */

static void check_family(const char *rel)
{
	size_t n;
	char *root = tc_sample_path(rel);   /* skips when absent */
	char **list = tc_list_dbs(rel, &n);
	if (n == 0)
		cr_skip_test("%s holds no database", root);
	for (size_t i = 0; i < n; i++) {
		profdb *db;
		int r = profdb_open(&db, list[i], NULL);
		cr_assert_eq(r, 0, "%s: %s", list[i], profdb_error_message());
		qc_check_all(db, list[i]);
		profdb_close(db);
	}
	tc_free_list(list);
	free(root);
}

Test(query_real, every_final_database, .timeout = 300)
{
	check_family("hpctoolkit/v4");
}

Test(query_real, every_devstage_database, .timeout = 120)
{
	check_family("hpctoolkit/v4-devstage");
}

Test(query_real, issue_233, .timeout = 120)
{
	char *dir = tc_sample_path("hpctoolkit/v4/hpcviewer-issue-233");
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert_eq(c.profiles, 136);
	cr_assert_eq(c.contexts, 7477);
	cr_assert_eq(c.metrics, 3);
	cr_assert_eq(c.values, 231963);
	cr_assert_eq(c.traces, 135);
	cr_assert_eq(c.samples, 106197);
	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0);
	cr_assert(qc_str_is(a.version, "4.0"));
	cr_assert(qc_str_is(a.title, "lulesh2.0"));
	profdb_metric m;
	cr_assert_eq(profdb_metric_find(db, "CPUTIME (sec)", &m), 0);
	cr_assert_eq(m.kind, PROFDB_METRIC_INCLUSIVE);
	/* The whole program's time: the global context's inclusive summary,
	 * and the sum over the entry points' inclusive values. */
	profdb_number total, v;
	cr_assert_eq(profdb_inclusive(db, 0, 0, m.id, &total), 1);
	uint32_t id;
	double sum = 0;
	profdb_context x;
	cr_assert_eq(profdb_context_root(db, &id), 0);
	for (; id != PROFDB_NONE; id = x.next_sibling) {
		cr_assert_eq(profdb_context_get(db, id, &x), 0);
		if (profdb_inclusive(db, 0, id, m.id, &v) == 1)
			sum += v.as.f64;
	}
	cr_assert_float_eq(sum, total.as.f64, 1e-9 * total.as.f64);
	/* Every trace sample names a context the model knows. */
	int64_t len = profdb_trace_length(db, 1);
	cr_assert_gt(len, 0);
	for (int64_t i = 0; i < len; i++) {
		profdb_sample s;
		cr_assert_eq(profdb_trace_sample_at(db, 1, (uint64_t)i, &s), 0);
		cr_assert_eq(profdb_context_get(db, s.context, &x), 0, "sample %" PRId64 " context %" PRIu32,
		             i, s.context);
	}
	/* The CLI's path: profdb_get_hpctk reaches the low-level view. */
	const profdb_hpctk *h = profdb_get_hpctk(db);
	cr_assert_not_null(h);
	cr_assert_eq(profdb_hpctk_context_count(h), 7477);
	profdb_close(db);
	free(dir);
}

TC_MAIN
