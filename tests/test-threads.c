/* Concurrent readers of one handle. 8 threads start together on a fresh
 * handle, so the lazy builds (context index, metric table, block checks)
 * race; everything they read is compared with answers computed on a second
 * handle by one thread. Also: each thread sees its own error messages.
 *
 * CI runs this under ThreadSanitizer (test name and suite "threads").
 * Criterion's runner cannot start under TSan (Criterion issue #274: "Could
 * not initialize inheritable arena"), so with -DTHREADS_STANDALONE the same
 * tests are built as a plain program: sequential, exit 0 / 1 / 77 (all
 * skipped). tests/meson.build does that when b_sanitize includes thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "profdb/profdb.h"
#include "query-hash.h"
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif

#include "standalone-check.h"
#include "hpctk-views.h"

enum { SKIPPED = 77 };

/* Same conventions as tests/common.c, without Criterion. */
static char *sample_dir(const char *rel)
{
	const char *root = getenv("PROFDB_SAMPLE_DATA");
	if (!root || !*root)
		root = getenv("PROFDB_SAMPLE_DATA_DEFAULT");
	char *p;
	struct stat st;
	if (!root || !*root || asprintf(&p, "%s/%s", root, rel) < 0)
		return NULL;
	if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(p);
		return NULL;
	}
	return p;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

enum { NTHREADS = 8 };

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return h * UINT64_C(0xff51afd7ed558ccd);
}

static uint64_t bits(double d)
{
	uint64_t b;
	memcpy(&b, &d, 8);
	return b;
}

/* ---- reference answers (one thread, its own handle) ------------------------------ */

typedef struct ref {
	int64_t contexts, profiles, slots, traces;
	int metrics;
	uint64_t walk;                  /* hash of (id, depth) in walk order */
	uint64_t *plane, *cct, *trace;  /* per block hashes */
	uint32_t *ids, *parents;        /* walked nodes */
	size_t n_ids;
} ref;

static int hash_profile(const profdb_hpctk *db, uint32_t i, uint64_t *out)
{
	tv_plane pl;
	int r = tv_profile_plane(db, i, &pl);
	if (r < 0)
		return r;
	uint64_t h = pl.values.count;
	for (uint64_t j = 0; j < pl.index.count; j++) {
		uint32_t ctx, metric;
		profdb_view run;
		double v;
		tv_plane_at(&pl, j, &ctx, &run);
		for (uint64_t k = 0; k < run.count; k++) {
			tv_run_at(&run, k, &metric, &v);
			h = mix(mix(mix(h, ctx), metric), bits(v));
		}
	}
	*out = h;
	return 0;
}

static int hash_ctx(const profdb_hpctk *db, uint32_t c, uint64_t *out)
{
	tv_plane pl;
	int r = tv_context_plane(db, c, &pl);
	if (r < 0)
		return r;
	uint64_t h = pl.values.count;
	for (uint64_t j = 0; j < pl.index.count; j++) {
		uint32_t metric, prof;
		profdb_view run;
		double v;
		tv_plane_at(&pl, j, &metric, &run);
		for (uint64_t k = 0; k < run.count; k++) {
			tv_run_at(&run, k, &prof, &v);
			h = mix(mix(mix(h, metric), prof), bits(v));
		}
	}
	*out = h;
	return 0;
}

static int hash_trace(const profdb_hpctk *db, uint32_t i, uint64_t *out)
{
	profdb_hpctk_trace t;
	int r = profdb_hpctk_trace_line_at(db, i, &t);
	if (r < 0)
		return r;
	uint64_t h = mix(t.samples.count, t.profile);
	for (uint64_t k = 0; k < t.samples.count; k++) {
		uint64_t tm;
		uint32_t ctx;
		tv_sample(&t, k, &tm, &ctx);
		h = mix(mix(h, tm), ctx);
	}
	*out = h;
	return 0;
}

static int hash_walk(const profdb_hpctk *db, uint64_t *out, ref *collect)
{
	profdb_hpctk_walk *w;
	profdb_hpctk_context c;
	uint32_t depth, stack[4096];
	int r = profdb_hpctk_walk_new(&w, db);
	if (r < 0)
		return r;
	uint64_t h = 0;
	while ((r = profdb_hpctk_walk_next(w, &c, &depth)) == 1) {
		h = mix(mix(mix(h, c.id), depth), c.pos);
		if (collect && depth > 0 && depth < 4096) {
			collect->ids[collect->n_ids] = c.id;
			collect->parents[collect->n_ids++] = stack[depth - 1];
		}
		if (depth < 4096)
			stack[depth] = c.id;
	}
	profdb_hpctk_walk_free(w);
	*out = h;
	return r;
}

static void compute_ref(const profdb_hpctk *db, ref *R)
{
	memset(R, 0, sizeof *R);
	R->contexts = profdb_hpctk_context_count(db);
	R->metrics = profdb_hpctk_metric_count(db);
	R->profiles = profdb_hpctk_profile_count(db);
	R->slots = profdb_hpctk_cct_slot_count(db);
	R->traces = profdb_hpctk_has(db, PROFDB_HPCTK_TRACE) ? profdb_hpctk_trace_count(db) : 0;
	CHECKF(R->contexts > 0 && R->metrics > 0 && R->profiles > 0 && R->slots > 0 &&
	      R->traces >= 0, "reference handle: %s", profdb_error_message());
	R->ids = malloc((size_t)R->contexts * sizeof *R->ids);
	R->parents = malloc((size_t)R->contexts * sizeof *R->parents);
	R->plane = malloc((size_t)R->profiles * sizeof *R->plane);
	R->cct = malloc((size_t)R->slots * sizeof *R->cct);
	R->trace = malloc(((size_t)R->traces + 1) * sizeof *R->trace);
	CHECK(R->ids && R->parents && R->plane && R->cct && R->trace);
	CHECK(hash_walk(db, &R->walk, R) == 0);
	CHECK(R->n_ids == (size_t)R->contexts);
	for (int64_t i = 0; i < R->profiles; i++)
		CHECK(hash_profile(db, (uint32_t)i, &R->plane[i]) == 0);
	for (int64_t i = 0; i < R->slots; i++)
		CHECK(hash_ctx(db, (uint32_t)i, &R->cct[i]) == 0);
	for (int64_t i = 0; i < R->traces; i++)
		CHECK(hash_trace(db, (uint32_t)i, &R->trace[i]) == 0);
}

static void free_ref(ref *R)
{
	free(R->ids);
	free(R->parents);
	free(R->plane);
	free(R->cct);
	free(R->trace);
}

/* ---- the racing readers ------------------------------------------------------------ */

typedef struct worker {
	const profdb_hpctk *db;
	const ref *R;
	pthread_barrier_t *bar;
	int index;
	int mismatches;
	char first[256];
} worker;

#define MISMATCH(w, ...)                                                                   \
	do {                                                                               \
		if (!(w)->mismatches++)                                                    \
			snprintf((w)->first, sizeof (w)->first, __VA_ARGS__);              \
	} while (0)

static void first_use(worker *w, int op)
{
	const ref *R = w->R;
	uint64_t h;
	switch (op % 5) {
	case 0:
		if (profdb_hpctk_context_count(w->db) != R->contexts)
			MISMATCH(w, "context_count");
		break;
	case 1:
		if (profdb_hpctk_metric_count(w->db) != R->metrics)
			MISMATCH(w, "metric_count");
		break;
	case 2: {
		uint32_t i = (uint32_t)(w->index % R->profiles);
		if (hash_profile(w->db, i, &h) != 0 || h != R->plane[i])
			MISMATCH(w, "first profile plane %u", i);
		break;
	}
	case 3:
		if (R->traces > 0) {
			uint32_t i = (uint32_t)(w->index % R->traces);
			if (hash_trace(w->db, i, &h) != 0 || h != R->trace[i])
				MISMATCH(w, "first trace %u", i);
		}
		break;
	default: {
		uint32_t c = (uint32_t)(w->index % R->slots);
		if (hash_ctx(w->db, c, &h) != 0 || h != R->cct[c])
			MISMATCH(w, "first context plane %u", c);
	}
	}
}

static void *reader(void *arg)
{
	worker *w = arg;
	const ref *R = w->R;
	uint64_t h;
	pthread_barrier_wait(w->bar);
	/* Every lazy build, started by different threads in different orders. */
	for (int k = 0; k < 5; k++)
		first_use(w, w->index + k);

	if (hash_walk(w->db, &h, NULL) != 0 || h != R->walk)
		MISMATCH(w, "walk");
	for (int64_t j = 0; j < R->profiles; j++) {
		uint32_t i = (uint32_t)((j + w->index) % R->profiles);
		if (hash_profile(w->db, i, &h) != 0 || h != R->plane[i])
			MISMATCH(w, "profile plane %u", i);
	}
	for (int64_t j = 0; j < R->slots; j++) {
		uint32_t c = (uint32_t)((j * 7 + w->index) % R->slots);
		if (hash_ctx(w->db, c, &h) != 0 || h != R->cct[c])
			MISMATCH(w, "context plane %u", c);
	}
	for (int64_t j = 0; j < R->traces; j++) {
		uint32_t i = (uint32_t)((j + w->index) % R->traces);
		if (hash_trace(w->db, i, &h) != 0 || h != R->trace[i])
			MISMATCH(w, "trace %u", i);
	}
	/* Many point lookups. */
	uint64_t rng = (uint64_t)w->index * 977 + 1;
	for (int k = 0; k < 20000; k++) {
		size_t n = (size_t)(rng_next(&rng) % R->n_ids);
		uint32_t parent;
		profdb_hpctk_context c;
		if (profdb_hpctk_context_parent(w->db, R->ids[n], &parent) != 0 || parent != R->parents[n])
			MISMATCH(w, "parent of %u", R->ids[n]);
		if (profdb_hpctk_context_get(w->db, R->ids[n], &c) != 0 || c.id != R->ids[n])
			MISMATCH(w, "context %u", R->ids[n]);
	}
	for (int m = 0; m < R->metrics; m++) {
		profdb_hpctk_metric md;
		if (profdb_hpctk_metric_at(w->db, (uint32_t)m, &md) != 0 || !md.name.ptr)
			MISMATCH(w, "metric %d", m);
	}
	return NULL;
}

static void run_readers(const char *what, const profdb_hpctk *fresh, const ref *R)
{
	pthread_t t[NTHREADS];
	worker w[NTHREADS];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (worker){fresh, R, &bar, i, 0, ""};
		CHECK(pthread_create(&t[i], NULL, reader, &w[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < NTHREADS; i++)
		CHECKF(w[i].mismatches == 0, "%s: thread %d: %d mismatches, first: %s", what, i,
		      w[i].mismatches, w[i].first);
}

static profdb_hpctk *open_dir(const char *dir)
{
	profdb_hpctk *db = NULL;
	int r = profdb_hpctk_open(&db, dir, NULL);
	CHECKF(r == 0, "%s: %s", dir, profdb_error_message());
	return db;
}

static void race(const char *what, const char *dir)
{
	ref R;
	profdb_hpctk *a = open_dir(dir), *b = open_dir(dir);
	compute_ref(a, &R);
	run_readers(what, b, &R);
	profdb_hpctk_close(a);
	profdb_hpctk_close(b);
	free_ref(&R);
}

static int t_concurrent_first_use_real(void)
{
	char *dir = sample_dir("hpctoolkit/v4/hpcviewer-issue-233");
	if (!dir)
		return SKIPPED;
	race("issue-233", dir);
	free(dir);
	return 0;
}

#ifdef HAVE_TEST_WRITER
static int t_concurrent_first_use_generated(void)
{
	char dir[] = "/tmp/profdb-threads-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(tw_hpctk4_synth_dir(dir, 12, 3000, 3, 0.3, 2000, 42) == 0);
	race("synthetic", dir);
	static const char *const files[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	char path[256];
	for (int f = 0; f < 4; f++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[f]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

/* A lazily detected corruption: every racing thread gets the same error and
 * the same message, in its own thread. */
typedef struct failer {
	const profdb_hpctk *db;
	pthread_barrier_t *bar;
	int r1, r2;
	char msg[512];
} failer;

static void *fail_first(void *arg)
{
	failer *f = arg;
	pthread_barrier_wait(f->bar);
	f->r1 = (int)profdb_hpctk_context_count(f->db);
	snprintf(f->msg, sizeof f->msg, "%s", profdb_error_message());
	f->r2 = profdb_hpctk_walk_new(&(profdb_hpctk_walk *){NULL}, f->db);
	return NULL;
}

static int t_lazy_failure_replayed_to_all(void)
{
	tw_hpctk4 d;
	tw_blob out[TW_NFILES];
	tw_hpctk4_sample(&d);
	CHECK(tw_hpctk4_write(&d, out) == 0);
	profdb_input blobs[PROFDB_HPCTK_NFILES];
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		blobs[f] = (profdb_input){NULL, out[f].data, out[f].size};
	/* Find context 16 and give it the id of context 14: duplicate. */
	profdb_hpctk *db;
	profdb_hpctk_context c;
	CHECK(profdb_hpctk_open_mem(&db, blobs, NULL) == 0);
	CHECK(profdb_hpctk_context_get(db, 16, &c) == 0);
	profdb_hpctk_close(db);
	out[TW_META].data[c.pos + 0x10] = 14;
	CHECK(profdb_hpctk_open_mem(&db, blobs, NULL) == 0);

	pthread_t t[NTHREADS];
	failer fl[NTHREADS];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		fl[i] = (failer){db, &bar, 0, 0, ""};
		CHECK(pthread_create(&t[i], NULL, fail_first, &fl[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < NTHREADS; i++) {
		CHECKF(fl[i].r1 == -EBADMSG && fl[i].r2 == -EBADMSG, "thread %d: %d %d", i, fl[i].r1,
		      fl[i].r2);
		CHECKF(strstr(fl[i].msg, "meta.db") && strstr(fl[i].msg, "appears twice"),
		      "thread %d: %s", i, fl[i].msg);
		CHECK(strcmp(fl[i].msg, fl[0].msg) == 0);
	}
	profdb_hpctk_close(db);
	for (int f = 0; f < TW_NFILES; f++)
		tw_blob_free(&out[f]);
	return 0;
}
#endif

/* ---- per-thread error messages ----------------------------------------------------- */

typedef struct msgw {
	const profdb_hpctk *db;
	pthread_barrier_t *bar;
	int index, r, ok;
	char want[64], got[512];
} msgw;

static void *provoke(void *arg)
{
	msgw *m = arg;
	uint32_t n = 100000u + (uint32_t)m->index; /* unique per thread */
	pthread_barrier_wait(m->bar);
	for (int round = 0; round < 200; round++) {
		switch (m->index % 4) {
		case 0:
			m->r = profdb_hpctk_profile_at(m->db, n, &(profdb_hpctk_profile){0});
			break;
		case 1:
			m->r = profdb_hpctk_metric_at(m->db, n, &(profdb_hpctk_metric){0});
			break;
		case 2:
			m->r = profdb_hpctk_context_get(m->db, n, &(profdb_hpctk_context){0});
			break;
		default:
			m->r = profdb_hpctk_function_at(m->db, n, &(profdb_hpctk_function){0});
			break;
		}
		/* Interleave with successful calls, which must not clear it. */
		profdb_hpctk_metric_count(m->db);
		profdb_hpctk_context_count(m->db);
	}
	pthread_barrier_wait(m->bar); /* every thread has failed by now */
	snprintf(m->want, sizeof m->want, "%u", n);
	snprintf(m->got, sizeof m->got, "%s", profdb_error_message());
	m->ok = strstr(m->got, m->want) != NULL;
	return NULL;
}

static void own_messages(const profdb_hpctk *db)
{
	pthread_t t[NTHREADS];
	msgw m[NTHREADS];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		m[i] = (msgw){db, &bar, i, 0, 0, "", ""};
		CHECK(pthread_create(&t[i], NULL, provoke, &m[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < NTHREADS; i++) {
		CHECKF(m[i].r == -ENOENT, "thread %d: %d", i, m[i].r);
		CHECKF(m[i].ok, "thread %d expected its own message (id %s), got: %s", i, m[i].want,
		      m[i].got);
	}
}

static int t_own_error_messages(void)
{
	profdb_hpctk *db = NULL;
#ifdef HAVE_TEST_WRITER
	tw_hpctk4 d;
	tw_blob out[TW_NFILES];
	tw_hpctk4_sample(&d);
	CHECK(tw_hpctk4_write(&d, out) == 0);
	profdb_input blobs[PROFDB_HPCTK_NFILES];
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		blobs[f] = (profdb_input){NULL, out[f].data, out[f].size};
	CHECK(profdb_hpctk_open_mem(&db, blobs, NULL) == 0);
	own_messages(db);
	profdb_hpctk_close(db);
	for (int f = 0; f < TW_NFILES; f++)
		tw_blob_free(&out[f]);
#else
	char *dir = sample_dir("hpctoolkit/v4/hpctoolkit-tests-small");
	if (!dir)
		return SKIPPED;
	db = open_dir(dir);
	own_messages(db);
	profdb_hpctk_close(db);
	free(dir);
#endif
	return 0;
}

/* ---- every backend of the common interface -----------------------------------------
 * A fresh profdb handle per format; 8 threads start together and each walks
 * the tree, asks every context's inclusive and exclusive value of every
 * metric in every profile (the lazy tables: Callgrind's context tree and
 * inclusive costs, hpcrun's merged tree, Cube's rows) and runs a
 * PROFDB_SCAN_ALL cursor; each must get the answer one thread got alone on
 * another handle. */
#ifdef HAVE_TEST_WRITER

typedef struct qworker {
	const profdb *db;
	pthread_barrier_t *bar;
	uint64_t h;
} qworker;

static void *query_reader(void *arg)
{
	qworker *w = arg;
	pthread_barrier_wait(w->bar);
	w->h = qh_hash(w->db);
	return NULL;
}

static void race_query_opts(const char *what, const profdb_input *in, size_t n,
                            const profdb_options *o)
{
	profdb *a = NULL, *b = NULL;
	CHECKF(profdb_open_inputs(&a, in, n, o) == 0, "%s: %s", what, profdb_error_message());
	CHECKF(profdb_open_inputs(&b, in, n, o) == 0, "%s: %s", what, profdb_error_message());
	uint64_t want = qh_hash(a);
	CHECKF(want != 0, "%s: the reference walk failed: %s", what, profdb_error_message());
	pthread_t t[NTHREADS];
	qworker w[NTHREADS];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (qworker){b, &bar, 0};
		CHECK(pthread_create(&t[i], NULL, query_reader, &w[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < NTHREADS; i++)
		CHECKF(w[i].h == want, "%s: thread %d saw other answers", what, i);
	profdb_close(a);
	profdb_close(b);
}

static void race_query(const char *what, const profdb_input *in, size_t n)
{
	race_query_opts(what, in, n, NULL);
}

static const char race_callgrind[] =
	"# callgrind format\nevents: Ir Dr\n"
	"fl=(1) a.c\nfn=(1) main\n1 5 1\ncfn=(2) f\ncalls=2 10\n2 40 4\ncfn=(3) g\ncalls=1 20\n3 9\n"
	"fn=(2)\n10 30 3\ncfn=(3)\ncalls=1 20\n11 10 1\n"
	"fn=(3)\n20 19 2\ncfn=(2)\ncalls=1 10\n21 3\n"
	"part: 2\nfn=(1)\n1 7 7\n";

/* Forty functions, each with a few lines; opened with a small max_memory,
 * which bounds lib/callgrind/lines.c's cache to a quarter of it (2 KiB,
 * a handful of functions), so the threads evict each other's entries. */
static char *many_functions(size_t *n)
{
	size_t cap = 1 << 16, k = 0;
	char *t = malloc(cap);
	CHECK(t != NULL);
	k += (size_t)snprintf(t + k, cap - k, "events: Ir\nfl=(1) m.c\n");
	for (int f = 1; f <= 40; f++) {
		k += (size_t)snprintf(t + k, cap - k, "fn=(%d) f%d\n", f, f);
		for (int l = 1; l <= f % 5 + 1; l++)
			k += (size_t)snprintf(t + k, cap - k, "%d %d\n", 100 * f + l, f * l);
		if (f > 1)
			k += (size_t)snprintf(t + k, cap - k, "cfn=(%d)\ncalls=1 1\n1 %d\n", f - 1, f);
	}
	*n = k;
	return t;
}

static int t_query_backends_first_use(void)
{
	profdb_input cg = {"callgrind.out.7", race_callgrind, sizeof race_callgrind - 1};
	race_query("callgrind", &cg, 1);
	size_t mn;
	char *many = many_functions(&mn);
	profdb_input cgm = {"callgrind.out.8", many, mn};
	profdb_options small = {.size = sizeof small, .max_memory = 8192};
	race_query_opts("callgrind, 40 functions", &cgm, 1, &small);
	free(many);

	tw_hpcrun d;
	tw_blob hb[3];
	tw_hpcrun_sample(&d, 4, 0);
	CHECK(tw_hpcrun_write(&d, &hb[0]) == 0);
	tw_hpcrun_sample(&d, 2, 1);
	CHECK(tw_hpcrun_write(&d, &hb[1]) == 0);
	const tw_hpctrace_rec *recs;
	size_t nrec;
	tw_hpctrace_sample(&recs, &nrec);
	CHECK(tw_hpctrace_write(0, recs, nrec, &hb[2]) == 0);
	profdb_input hin[3] = {{"app-000000-000-7f000101-1-0.hpcrun", hb[0].data, hb[0].size},
	                       {"app-000000-001-7f000101-1-0.hpcrun", hb[1].data, hb[1].size},
	                       {"app-000000-000-7f000101-1-0.hpctrace", hb[2].data, hb[2].size}};
	race_query("hpcrun", hin, 3);
	for (int i = 0; i < 3; i++)
		tw_blob_free(&hb[i]);

#ifdef PROFDB_HAVE_CUBE
	tw_blob cb = {0};
#ifdef PROFDB_HAVE_ZLIB
	CHECK(tw_cube_write(&cb, TW_CUBE_ZCUBEX, NULL) == 0);   /* rows inflated lazily */
#else
	CHECK(tw_cube_write(&cb, 0, NULL) == 0);
#endif
	profdb_input cin = {"sample.cubex", cb.data, cb.size};
	race_query("cube", &cin, 1);
	tw_blob_free(&cb);
#endif
	return 0;
}
#endif

/* ---- statistics over profiles from several threads on one handle ------------------- */

#ifdef HAVE_TEST_WRITER
typedef struct sworker {
	const profdb *db;
	pthread_barrier_t *bar;
	uint64_t (*hash)(const profdb *);
	uint64_t h;
} sworker;

static void *hash_reader(void *arg)
{
	sworker *w = arg;
	pthread_barrier_wait(w->bar);
	w->h = w->hash(w->db);
	return NULL;
}

/* NTHREADS threads compute @p hash of the fresh handle @p fresh at once;
 * each must get @p want (computed on another handle of the same input). */
static int race_hash(const profdb *fresh, uint64_t (*hash)(const profdb *), uint64_t want,
                     const char *what)
{
	pthread_t t[NTHREADS];
	sworker w[NTHREADS];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (sworker){fresh, &bar, hash, 0};
		CHECK(pthread_create(&t[i], NULL, hash_reader, &w[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < NTHREADS; i++)
		CHECKF(w[i].h == want, "%s: thread %d saw other answers", what, i);
	return 0;
}

/* A hash of every row of the statistics (threads = 2 inside each caller). */
static uint64_t stats_hash(const profdb *db)
{
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	profdb_stats *s;
	o.threads = 2;
	if (profdb_stats_new(&s, db, &o) < 0)
		return 0;
	uint64_t h = 1;
	int64_t n = profdb_stats_count(s);
	for (int64_t i = 0; i < n; i++) {
		profdb_stat r;
		profdb_stats_at(s, (uint64_t)i, &r);
		h = mix(h, r.context);
		h = mix(h, r.metric);
		h = mix(h, r.count);
		h = mix(h, bits(r.sum));
		h = mix(h, bits(r.stddev));
		h = mix(h, (uint64_t)r.min_profile << 32 | r.max_profile);
	}
	profdb_stats_free(s);
	return h;
}

/* Threads computing statistics on a fresh handle race the first use of
 * every profile block (its validation) and each other's worker threads. */
static int t_stats_concurrent(void)
{
	char dir[] = "/tmp/profdb-threads-stats-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(tw_hpctk4_synth_dir(dir, 12, 500, 3, 0.3, 0, 5) == 0);
	profdb *a = NULL, *b = NULL;
	CHECKF(profdb_open(&a, dir, NULL) == 0, "%s", profdb_error_message());
	CHECKF(profdb_open(&b, dir, NULL) == 0, "%s", profdb_error_message());
	uint64_t want = stats_hash(a);
	CHECKF(want != 0, "stats: %s", profdb_error_message());
	CHECK(race_hash(b, stats_hash, want, "stats") == 0);
	profdb_close(a);
	profdb_close(b);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return 0;
}

/* ---- views, edges and metric data from many threads -------------------------------- */

/* A small Callgrind profile with recursion and a call tree, for the lazy
 * tables its edges and views build. */
static const char cg_text[] =
	"events: Ir\n"
	"fl=a.c\nfn=main\n1 5\ncfn=work\ncalls=2 2\n2 400\ncfn=leaf\ncalls=1 3\n3 50\n"
	"fn=work\n10 100\ncfn=work\ncalls=1 11\n11 150\ncfn=leaf\ncalls=4 12\n12 150\n"
	"fn=leaf\n20 200\n";

/* A hash of what the analysis layer says about @p db: which metrics have
 * values, every call edge, and the three views of the first metric. */
static uint64_t analysis_hash(const profdb *db)
{
	uint64_t h = 1;
	int64_t nm = profdb_metric_count(db);
	uint32_t first = PROFDB_NONE;
	for (int64_t i = 0; i < nm; i++) {
		profdb_metric m;
		if (profdb_metric_at(db, (uint32_t)i, &m) == 0) {
			int r = profdb_metric_has_values(db, m.id);
			h = mix(h, (uint64_t)(r + 2));
			if (r == 1 && first == PROFDB_NONE)
				first = m.id;
		}
	}
	int64_t ne = profdb_edge_count(db);
	h = mix(h, (uint64_t)ne);
	for (int64_t i = 0; i < ne; i++) {
		profdb_edge e;
		profdb_number v;
		profdb_edge_at(db, (uint64_t)i, &e);
		h = mix(h, (uint64_t)e.caller << 32 | e.callee);
		h = mix(h, e.count);
		if (profdb_edge_inclusive(db, PROFDB_NONE, (uint64_t)i, first, &v) == 1)
			h = mix(h, bits(profdb_number_to_double(v)));
	}
	/* the edge sets of the first edges' ends (on a tree format the first
	 * one builds the table's orders) */
	for (int64_t i = 0; i < ne && i < 16; i++) {
		profdb_edge e;
		profdb_edge_at(db, (uint64_t)i, &e);
		for (int side = 0; side < 2; side++) {
			profdb_edge_set *set;
			uint32_t end = side ? e.caller : e.callee;
			if (profdb_edge_set_new(&set, db, &end, 1,
			                        side ? PROFDB_EDGES_OUT_OF : PROFDB_EDGES_INTO) < 0)
				return 0;
			int64_t n = profdb_edge_set_count(set);
			h = mix(h, (uint64_t)n);
			for (int64_t j = 0; j < n; j++) {
				profdb_edge f;
				profdb_number v;
				profdb_edge_set_at(set, (uint64_t)j, &f);
				h = mix(h, (uint64_t)f.caller << 32 | f.callee);
				if (profdb_edge_set_inclusive(set, PROFDB_NONE, (uint64_t)j, first, &v) == 1)
					h = mix(h, bits(profdb_number_to_double(v)));
			}
			profdb_edge_set_free(set);
		}
	}
	for (int k = PROFDB_TREE_TOP_DOWN; first != PROFDB_NONE && k <= PROFDB_TREE_FLAT; k++) {
		profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
		profdb_tree *t;
		o.kind = (profdb_tree_kind)k;
		o.metrics = &first;
		o.n_metrics = 1;
		if (profdb_tree_new(&t, db, &o) < 0)
			return 0;
		int64_t n = profdb_tree_count(t);
		h = mix(h, (uint64_t)n);
		for (int64_t i = 0; i < n; i++) {
			double inc, exc;
			profdb_tree_values(t, (uint32_t)i, 0, &inc, &exc);
			h = mix(h, bits(inc));
			h = mix(h, bits(exc));
		}
		profdb_tree_free(t);
	}
	return h;
}

/* Threads asking a fresh handle for metric data, edges and views race the
 * lazy tables behind each (the edge list and its orders, the has-values bitmap, the
 * Callgrind inclusive tables, the tree of the common model). */
static int t_analysis_concurrent(void)
{
	char dir[] = "/tmp/profdb-threads-analysis-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(tw_hpctk4_synth_dir(dir, 6, 300, 3, 0.3, 0, 7) == 0);
	for (int fmt = 0; fmt < 2; fmt++) {
		profdb_input in = {"callgrind.out.1", cg_text, sizeof cg_text - 1};
		profdb *a = NULL, *b = NULL;
		if (fmt == 0) {
			CHECKF(profdb_open(&a, dir, NULL) == 0, "%s", profdb_error_message());
			CHECKF(profdb_open(&b, dir, NULL) == 0, "%s", profdb_error_message());
		} else {
			CHECKF(profdb_open_inputs(&a, &in, 1, NULL) == 0, "%s", profdb_error_message());
			CHECKF(profdb_open_inputs(&b, &in, 1, NULL) == 0, "%s", profdb_error_message());
		}
		uint64_t want = analysis_hash(a);
		CHECKF(want != 0, "analysis: %s", profdb_error_message());
		CHECK(race_hash(b, analysis_hash, want, fmt ? "callgrind" : "hpctoolkit") == 0);
		profdb_close(a);
		profdb_close(b);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return 0;
}
#endif

/* Callgrind to Callgrind on two threads: functions whose cost lines are
 * copied (most), and some written from their records (a hex cost), made
 * into texts by either thread and written in order by the caller; the
 * bytes are those of one thread. */
static int to_mem(const void *data, size_t len, void *userdata)
{
	char **buf = userdata;
	size_t have = *buf ? strlen(*buf) : 0;
	char *p = realloc(*buf, have + len + 1);
	CHECK(p != NULL);
	memcpy(p + have, data, len);
	p[have + len] = 0;
	*buf = p;
	return 0;
}

static char *convert_cg(const char *text, size_t len, uint32_t threads)
{
	profdb_input in = {"callgrind.out.9", text, len};
	profdb_options o = {.size = sizeof o, .threads = threads};
	profdb *db = NULL;
	CHECKF(profdb_open_inputs(&db, &in, 1, &o) == 0, "%s", profdb_error_message());
	profdb_convert_options c = PROFDB_CONVERT_OPTIONS_INIT;
	c.format = PROFDB_CONVERT_CALLGRIND;
	char *out = NULL;
	CHECKF(profdb_convert(db, &c, to_mem, &out) == 0, "%s", profdb_error_message());
	profdb_close(db);
	return out;
}

static int t_convert_callgrind_threads(void)
{
	size_t cap = 1 << 20, k = 0;
	char *t = malloc(cap);
	CHECK(t != NULL);
	k += (size_t)snprintf(t + k, cap - k, "positions: instr line\nevents: Ir Dr\n");
	for (int f = 1; f <= 600; f++) {
		k += (size_t)snprintf(t + k, cap - k, "ob=(%d) o%d\nfl=(%d) f%d.c\nfn=(%d) f%d\n",
		                      f % 3 + 1, f % 3, f % 7 + 1, f % 7, f, f);
		k += (size_t)snprintf(t + k, cap - k, "0x%x %d %d 1\n+2 +1 3\n", 0x1000 + 16 * f, f, f);
		if (f % 3 == 0)
			k += (size_t)snprintf(t + k, cap - k, "fi=(%d) inl.h\n+4 * 2 2\n", 900);
		if (f > 1)
			k += (size_t)snprintf(t + k, cap - k, "cfn=(%d)\ncalls=1 0x1000 1\n+1 * %d\n", f - 1, f);
		if (f % 4 == 0)
			k += (size_t)snprintf(t + k, cap - k, "jcnd=1/2 +8 *\n* *\n");
		if (f % 50 == 0)
			k += (size_t)snprintf(t + k, cap - k, "+1 * 0x10\n");
		CHECK(k < cap);
	}
	char *one = convert_cg(t, k, 1);
	for (int i = 0; i < 4; i++) {
		char *two = convert_cg(t, k, 2);
		CHECKF(strcmp(one, two) == 0, "run %d: the output depends on the threads", i);
		free(two);
	}
	/* copied: the input's line after a jump kept; from records: 0x10 read */
	CHECK(strstr(one, "* *\n* *\n") != NULL && strstr(one, " * 16\n") != NULL);
	free(one);
	free(t);
	return 0;
}

/* ---- registration ------------------------------------------------------------------ */

static const struct {
	const char *name;
	int (*fn)(void);
	const char *skip;
} tests[] = {
	{"concurrent_first_use_real", t_concurrent_first_use_real,
	 "hpctoolkit/v4/hpcviewer-issue-233 not found under the sample data (PROFDB_SAMPLE_DATA)"},
#ifdef HAVE_TEST_WRITER
	{"concurrent_first_use_generated", t_concurrent_first_use_generated, ""},
	{"lazy_failure_replayed_to_all", t_lazy_failure_replayed_to_all, ""},
#endif
	{"own_error_messages", t_own_error_messages, "sample data not found (PROFDB_SAMPLE_DATA)"},
#ifdef HAVE_TEST_WRITER
	{"query_backends_first_use", t_query_backends_first_use, ""},
	{"stats_concurrent", t_stats_concurrent, ""},
	{"analysis_concurrent", t_analysis_concurrent, ""},
#endif
	{"convert_callgrind_threads", t_convert_callgrind_threads, ""},
};

#ifdef THREADS_STANDALONE
int main(void)
{
	int skipped = 0, n = (int)(sizeof tests / sizeof tests[0]);
	for (int i = 0; i < n; i++) {
		int r = tests[i].fn(); /* a failed check exits 1 */
		printf("%s %s\n", r == SKIPPED ? "SKIP" : "PASS", tests[i].name);
		if (r == SKIPPED) {
			printf("  %s\n", tests[i].skip);
			skipped++;
		}
	}
	return skipped == n ? 77 : 0;
}
#else
static void run(int i)
{
	if (tests[i].fn() == SKIPPED)
		cr_skip_test("%s", tests[i].skip);
}

Test(threads, concurrent_first_use_real, .timeout = 120) { run(0); }
#ifdef HAVE_TEST_WRITER
Test(threads, concurrent_first_use_generated, .timeout = 120) { run(1); }
Test(threads, lazy_failure_replayed_to_all) { run(2); }
Test(threads, own_error_messages) { run(3); }
Test(threads, query_backends_first_use, .timeout = 120) { run(4); }
Test(threads, stats_concurrent, .timeout = 120) { run(5); }
Test(threads, analysis_concurrent, .timeout = 120) { run(6); }
#else
Test(threads, own_error_messages) { run(1); }
#endif
Test(threads, convert_callgrind_threads, .timeout = 120)
{
	run((int)(sizeof tests / sizeof tests[0]) - 1);
}
TC_MAIN
#endif
