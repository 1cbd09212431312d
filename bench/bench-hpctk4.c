/* bench-hpctk4 — performance of the HPCToolkit 4.0 reader, through the
 * public API only (linked against the shared library like any user).
 *
 *   bench-hpctk4 [--walk-all PROG] [--no-cold] [--filter SUBSTR] DBDIR [DBDIR...]
 *
 * Every database runs in a forked child so its memory figures (VmRSS,
 * VmHWM) are its own. Each case prints one line (bench.h), named
 * "hpctk4/<database>/<case>":
 *
 *   open_close            open + close of the directory (all four files)
 *   open_rss              open only; rss_delta_kib = VmRSS after - before
 *   first_context_count   first profdb_hpctk_context_count after a fresh open
 *                         (tree validation + id index)
 *   first_validate_profile_planes / _cct_planes / _traces
 *                         first use of every block after a fresh open
 *   open_validate_all     fresh open + first use of every block + close
 *   open_populate_validate_all
 *                         the same with PROFDB_OPEN_POPULATE
 *   mem_random_load       dependent random 8-byte loads over profile.db and
 *                         cct.db mapped by hand: the machine's floor for a
 *                         lookup that misses the caches
 *   lookup_baseline       the lookup loop with the lookup replaced by a load
 *   lookup_{profile,cct}_{hit,miss}
 *                         profdb_hpctk_value / profdb_hpctk_value_cct on
 *                         random existing (or absent) triples, blocks already
 *                         validated; each lookup's input depends on the
 *                         previous result, so this is latency, not throughput
 *   lookup_*_hot          the same on 256 triples (caches warm): CPU cost
 *   scan_profile / scan_cct
 *                         every stored value through plane_at + run_at
 *   scan_profile_raw      the same reading the validated plane bytes directly
 *                         (what the transparent structs allow): API overhead
 *   trace_seek            trace_get + trace_seek + trace_at at a random time
 *   scan_trace            every trace element through trace_at
 *   open_close_cold       open + close after posix_fadvise(DONTNEED) on the
 *                         four files (page cache dropped for them)
 *   walk_all_process      (with --walk-all) PROG DBDIR in a fresh process
 *                         under /usr/bin/time -v: wall and peak RSS
 *   peak_rss              VmHWM of the child at the end
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profdb/profdb.h"

#include "bench.h"
#include "../tests/hpctk-views.h"

extern char **environ;

#define N_TRIPLES 65536u   /* random lookups cycle through this many (power of 2) */
#define N_HOT 256u         /* the "hot" variants cycle through this many */

/* hpctesttool (Python reference reader), whole process, from
 * shared/notes/performance.md: from_path + walk every value of issue-233. */
#define HPCTESTTOOL_ISSUE233_S 4.97

typedef struct triple {
	uint32_t a, b, c;   /* (profile, ctx, metric) or (ctx, metric, profile) */
} triple;

typedef struct tseek {
	uint32_t trace;
	uint64_t time;
} tseek;

typedef struct state {
	const char *path;
	char label[128];
	char name[256];         /* scratch for case names */
	profdb_hpctk *db;       /* the long-lived handle (blocks validated) */
	profdb_hpctk *tmp;      /* handle of one-shot cases */
	uint32_t n_profiles, n_slots, n_traces;
	uint64_t n_contexts;

	/* sizes found while validating */
	uint64_t prof_values, prof_index, prof_bytes;
	uint64_t cct_values, cct_index, cct_bytes;
	uint64_t trace_elems, trace_bytes;
	uint32_t max_ctx, max_metric;

	triple *prof_hit, *prof_miss, *cct_hit, *cct_miss;
	uint32_t n_prof_hit, n_prof_miss, n_cct_hit, n_cct_miss;
	tseek *seeks;
	uint32_t n_seeks;

	/* loop state */
	const triple *cur;
	uint32_t cur_mask;
	uint64_t pos;
} state;

static volatile uint32_t zero_mask;   /* always 0; the compiler cannot know */

static void die(const char *what, int r)
{
	fprintf(stderr, "bench-hpctk4: %s: %s (%s)\n", what, strerror(r < 0 ? -r : r),
	        profdb_error_message());
	exit(1);
}

static const char *case_name(state *s, const char *c)
{
	snprintf(s->name, sizeof s->name, "hpctk4/%s/%s", s->label, c);
	return s->name;
}

static profdb_hpctk *open_db(const char *path)
{
	profdb_hpctk *db;
	int r = profdb_hpctk_open(&db, path, NULL);
	if (r < 0)
		die(path, r);
	return db;
}

/* ---- 1. open / close ------------------------------------------------------ */

static uint64_t op_open_close(void *arg, uint64_t n)
{
	state *s = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_hpctk *db = open_db(s->path);
		bench_consume((uint64_t)(uintptr_t)db);
		profdb_hpctk_close(db);
	}
	return n;
}

/* ---- 2. RSS after open ------------------------------------------------------ */

typedef struct rss_arg {
	state *s;
	bench_mem before, after;
	long delta[BENCH_MAX_REPS], anon[BENCH_MAX_REPS], file[BENCH_MAX_REPS];
	unsigned n;
} rss_arg;

static void rss_setup(void *arg)
{
	rss_arg *a = arg;
	a->before = bench_mem_now();
}

static uint64_t rss_open(void *arg, uint64_t n)
{
	rss_arg *a = arg;
	(void)n;
	a->s->tmp = open_db(a->s->path);
	return 1;
}

static void rss_teardown(void *arg)
{
	rss_arg *a = arg;
	a->after = bench_mem_now();
	if (a->n < BENCH_MAX_REPS) {
		a->delta[a->n] = a->after.rss_kib - a->before.rss_kib;
		a->anon[a->n] = a->after.anon_kib - a->before.anon_kib;
		a->file[a->n] = a->after.file_kib - a->before.file_kib;
		a->n++;
	}
	profdb_hpctk_close(a->s->tmp);
	a->s->tmp = NULL;
}

static int cmp_long(const void *x, const void *y)
{
	long a = *(const long *)x, b = *(const long *)y;
	return (a > b) - (a < b);
}

static long median_long(long *v, unsigned n)
{
	qsort(v, n, sizeof *v, cmp_long);
	return n ? v[n / 2] : -1;
}

/* ---- 6. first use ------------------------------------------------------------ */

static void fresh_open(void *arg)
{
	state *s = arg;
	s->tmp = open_db(s->path);
}

static void fresh_close(void *arg)
{
	state *s = arg;
	profdb_hpctk_close(s->tmp);
	s->tmp = NULL;
}

static uint64_t op_first_context_count(void *arg, uint64_t n)
{
	state *s = arg;
	(void)n;
	int64_t c = profdb_hpctk_context_count(s->tmp);
	if (c < 0)
		die("profdb_hpctk_context_count", (int)c);
	bench_consume((uint64_t)c);
	return 1;
}

static uint64_t op_first_profile_planes_on(profdb_hpctk *db, state *s)
{
	tv_plane p;
	for (uint32_t i = 0; i < s->n_profiles; i++) {
		int r = tv_profile_plane(db, i, &p);
		if (r < 0)
			die("profdb_hpctk_profile_plane", r);
		bench_consume(p.values.count);
	}
	return 1;
}

static uint64_t op_first_cct_planes_on(profdb_hpctk *db, state *s)
{
	tv_plane p;
	for (uint32_t i = 0; i < s->n_slots; i++) {
		int r = tv_context_plane(db, i, &p);
		if (r < 0)
			die("profdb_hpctk_context_plane", r);
		bench_consume(p.values.count);
	}
	return 1;
}

static uint64_t op_first_traces_on(profdb_hpctk *db, state *s)
{
	profdb_hpctk_trace t;
	for (uint32_t i = 0; i < s->n_traces; i++) {
		int r = profdb_hpctk_trace_line_at(db, i, &t);
		if (r < 0)
			die("profdb_hpctk_trace_line_at", r);
		bench_consume(t.samples.count);
	}
	return 1;
}

static uint64_t op_first_profile_planes(void *arg, uint64_t n)
{
	state *s = arg;
	(void)n;
	return op_first_profile_planes_on(s->tmp, s);
}

static uint64_t op_first_cct_planes(void *arg, uint64_t n)
{
	state *s = arg;
	(void)n;
	return op_first_cct_planes_on(s->tmp, s);
}

static uint64_t op_first_traces(void *arg, uint64_t n)
{
	state *s = arg;
	(void)n;
	return op_first_traces_on(s->tmp, s);
}

/* Fresh open + first use of every block, in one timed op: what a program
 * that reads everything pays after open, with the default lazy mapping or
 * with PROFDB_OPEN_POPULATE (the kernel maps every page at open instead of
 * one page fault per 64 KiB-ish window on first touch). */
static uint64_t open_validate_all(state *s, uint32_t flags)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	int r = profdb_hpctk_open(&s->tmp, s->path, &o);
	if (r < 0)
		die(s->path, r);
	op_first_profile_planes_on(s->tmp, s);
	op_first_cct_planes_on(s->tmp, s);
	op_first_traces_on(s->tmp, s);
	profdb_hpctk_close(s->tmp);
	s->tmp = NULL;
	return 1;
}

static uint64_t op_open_validate_all(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		open_validate_all(arg, 0);
	return n;
}

static uint64_t op_open_populate_validate_all(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		open_validate_all(arg, PROFDB_OPEN_POPULATE);
	return n;
}

/* ---- survey: validate everything once on the long-lived handle, measure
 * sizes, and collect the random lookup triples ----------------------------- */

static void survey(state *s)
{
	tv_plane p;
	profdb_view run;
	uint32_t key;
	int r;

	s->n_contexts = profdb_hpctk_has(s->db, PROFDB_HPCTK_META)
	                ? (uint64_t)profdb_hpctk_context_count(s->db) : 0;
	int64_t np = profdb_hpctk_has(s->db, PROFDB_HPCTK_PROFILE) ? profdb_hpctk_profile_count(s->db) : 0;
	int64_t nc = profdb_hpctk_has(s->db, PROFDB_HPCTK_CCT) ? profdb_hpctk_cct_slot_count(s->db) : 0;
	int64_t nt = profdb_hpctk_has(s->db, PROFDB_HPCTK_TRACE) ? profdb_hpctk_trace_count(s->db) : 0;
	if (np < 0 || nc < 0 || nt < 0)
		die("counts", (int)(np < 0 ? np : nc < 0 ? nc : nt));
	s->n_profiles = (uint32_t)np;
	s->n_slots = (uint32_t)nc;
	s->n_traces = (uint32_t)nt;

	for (uint32_t i = 0; i < s->n_profiles; i++) {
		if ((r = tv_profile_plane(s->db, i, &p)) < 0)
			die("profdb_hpctk_profile_plane", r);
		s->prof_values += p.values.count;
		s->prof_index += p.index.count;
		s->prof_bytes += p.values.count * p.values.stride + p.index.count * p.index.stride;
		for (uint64_t k = 0; k < p.index.count; k++) {
			tv_plane_at(&p, k, &key, &run);
			if (key > s->max_ctx)
				s->max_ctx = key;
			if (i > 0 && run.count) {   /* summary profile uses other ids */
				tv_run_at(&run, run.count - 1, &key, NULL);
				if (key > s->max_metric)
					s->max_metric = key;
			}
		}
	}
	for (uint32_t i = 0; i < s->n_slots; i++) {
		if ((r = tv_context_plane(s->db, i, &p)) < 0)
			die("profdb_hpctk_context_plane", r);
		s->cct_values += p.values.count;
		s->cct_index += p.index.count;
		s->cct_bytes += p.values.count * p.values.stride + p.index.count * p.index.stride;
		if (p.index.count) {
			tv_plane_at(&p, p.index.count - 1, &key, NULL);
			if (key > s->max_metric)
				s->max_metric = key;
		}
	}
	for (uint32_t i = 0; i < s->n_traces; i++) {
		profdb_hpctk_trace t;
		if ((r = profdb_hpctk_trace_line_at(s->db, i, &t)) < 0)
			die("profdb_hpctk_trace_line_at", r);
		s->trace_elems += t.samples.count;
	}
	s->trace_bytes = s->trace_elems * 12;

	bench_rng rng;
	bench_rng_seed(&rng, 0x70726f6664620001u);   /* fixed seed: same triples every run */

	/* Existing values, picked uniformly over profiles/contexts, then index
	 * entries, then run entries (not uniformly over values: that would favour
	 * the densest planes). */
	uint32_t *nonempty = malloc(sizeof *nonempty * (s->n_profiles + s->n_slots + s->n_traces + 1));
	uint32_t n_ne = 0;
	s->prof_hit = calloc(N_TRIPLES, sizeof *s->prof_hit);
	s->prof_miss = calloc(N_TRIPLES, sizeof *s->prof_miss);
	s->cct_hit = calloc(N_TRIPLES, sizeof *s->cct_hit);
	s->cct_miss = calloc(N_TRIPLES, sizeof *s->cct_miss);
	s->seeks = calloc(N_TRIPLES, sizeof *s->seeks);
	if (!nonempty || !s->prof_hit || !s->prof_miss || !s->cct_hit || !s->cct_miss || !s->seeks)
		die("malloc", -ENOMEM);

	for (uint32_t i = 0; i < s->n_profiles; i++) {
		tv_profile_plane(s->db, i, &p);
		if (p.index.count)
			nonempty[n_ne++] = i;
	}
	for (uint32_t k = 0; n_ne && k < N_TRIPLES; k++) {
		uint32_t prof = nonempty[bench_rng_below(&rng, n_ne)];
		uint32_t ctx, met;
		tv_profile_plane(s->db, prof, &p);
		tv_plane_at(&p, bench_rng_below(&rng, p.index.count), &ctx, &run);
		tv_run_at(&run, bench_rng_below(&rng, run.count), &met, NULL);
		s->prof_hit[s->n_prof_hit++] = (triple){prof, ctx, met};
	}
	n_ne = 0;
	for (uint32_t i = 0; i < s->n_slots; i++) {
		tv_context_plane(s->db, i, &p);
		if (p.index.count)
			nonempty[n_ne++] = i;
	}
	for (uint32_t k = 0; n_ne && k < N_TRIPLES; k++) {
		uint32_t ctx = nonempty[bench_rng_below(&rng, n_ne)];
		uint32_t met, prof;
		tv_context_plane(s->db, ctx, &p);
		tv_plane_at(&p, bench_rng_below(&rng, p.index.count), &met, &run);
		tv_run_at(&run, bench_rng_below(&rng, run.count), &prof, NULL);
		s->cct_hit[s->n_cct_hit++] = (triple){ctx, met, prof};
	}
	/* Misses: uniform random triples inside the id ranges that turn out to be
	 * absent (absent context in the plane, or absent metric in its run). */
	uint64_t tries = 0;
	while (s->n_profiles && s->n_prof_miss < N_TRIPLES && tries++ < 64ull * N_TRIPLES) {
		triple t = {(uint32_t)bench_rng_below(&rng, s->n_profiles),
		            (uint32_t)bench_rng_below(&rng, s->max_ctx + 1ull),
		            (uint32_t)bench_rng_below(&rng, s->max_metric + 1ull)};
		double v;
		if (profdb_hpctk_value(s->db, t.a, t.b, t.c, &v) == 0)
			s->prof_miss[s->n_prof_miss++] = t;
	}
	tries = 0;
	while (s->n_slots && s->n_cct_miss < N_TRIPLES && tries++ < 64ull * N_TRIPLES) {
		triple t = {(uint32_t)bench_rng_below(&rng, s->n_slots),
		            (uint32_t)bench_rng_below(&rng, s->max_metric + 1ull),
		            (uint32_t)bench_rng_below(&rng, s->n_profiles ? s->n_profiles : 1)};
		double v;
		if (profdb_hpctk_value_cct(s->db, t.c, t.a, t.b, &v) == 0)
			s->cct_miss[s->n_cct_miss++] = t;
	}
	/* Trace seeks: random non-empty line, random time inside the bounds. */
	uint64_t tmin = 0, tmax = 0;
	if (s->n_traces && profdb_hpctk_trace_bounds(s->db, &tmin, &tmax) == 1) {
		n_ne = 0;
		for (uint32_t i = 0; i < s->n_traces; i++) {
			profdb_hpctk_trace t;
			profdb_hpctk_trace_line_at(s->db, i, &t);
			if (t.samples.count)
				nonempty[n_ne++] = i;
		}
		for (uint32_t k = 0; n_ne && k < N_TRIPLES; k++)
			s->seeks[s->n_seeks++] = (tseek){nonempty[bench_rng_below(&rng, n_ne)],
			                                 tmin + bench_rng_below(&rng, tmax - tmin + 1)};
	}
	free(nonempty);
}

/* ---- the machine's memory-latency floor ------------------------------------ */

typedef struct mem_arg {
	const unsigned char *map[2];
	uint64_t size[2];
	uint64_t x;
} mem_arg;

/* Dependent random 8-byte loads over profile.db and cct.db (alternating):
 * each address depends on the previous load. */
static uint64_t op_mem_random_load(void *arg, uint64_t n)
{
	mem_arg *a = arg;
	uint64_t x = a->x, acc = 0, zm = zero_mask;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned f = (unsigned)(i & 1);
		uint64_t v;
		memcpy(&v, a->map[f] + x % (a->size[f] - 8), 8);
		acc += v;
		x += v & zm;
	}
	a->x = x;
	bench_consume(acc);
	return n;
}

static void mem_floor(state *s)
{
	static const char *const names[2] = {"profile.db", "cct.db"};
	mem_arg a;
	memset(&a, 0, sizeof a);
	a.x = 0x9e3779b97f4a7c15u;
	for (int f = 0; f < 2; f++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", s->path, names[f]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 4096) {
			if (fd >= 0)
				close(fd);
			return;
		}
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return;
		a.map[f] = m;
		a.size[f] = (uint64_t)st.st_size;
		/* fault everything in first: the lookups run on a warm mapping too */
		uint64_t acc = 0;
		for (uint64_t o = 0; o < a.size[f]; o += 4096)
			acc += a.map[f][o];
		bench_consume(acc);
	}
	bench_result r = bench_measure(op_mem_random_load, &a);
	bench_print(case_name(s, "mem_random_load"), &r, "bytes=%" PRIu64 ", note=floor_for_lookups",
	            a.size[0] + a.size[1]);
	for (int f = 0; f < 2; f++)
		munmap((void *)a.map[f], a.size[f]);
}

/* ---- 3. point lookups -------------------------------------------------------- */

/* Each iteration's triple index depends on the previous lookup's result
 * through zero_mask (0 at run time, unknown to the compiler), so lookups
 * cannot overlap: the figure is latency. */
static uint64_t op_lookup_baseline(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0, pos = s->pos, mask = s->cur_mask, zm = zero_mask;
	for (uint64_t i = 0; i < n; i++) {
		const triple *t = &s->cur[pos & mask];
		uint64_t v = (uint64_t)t->a + t->b + t->c;
		acc += v;
		pos += 1 + (v & zm);
	}
	s->pos = pos;
	bench_consume(acc);
	return n;
}

static uint64_t op_lookup_profile(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0, pos = s->pos, mask = s->cur_mask, zm = zero_mask;
	for (uint64_t i = 0; i < n; i++) {
		const triple *t = &s->cur[pos & mask];
		double v = 0;
		int r = profdb_hpctk_value(s->db, t->a, t->b, t->c, &v);
		uint64_t bits = bench_double_bits(v) + (uint64_t)r;
		acc += bits;
		pos += 1 + (bits & zm);
	}
	s->pos = pos;
	bench_consume(acc);
	return n;
}

static uint64_t op_lookup_cct(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0, pos = s->pos, mask = s->cur_mask, zm = zero_mask;
	for (uint64_t i = 0; i < n; i++) {
		const triple *t = &s->cur[pos & mask];
		double v = 0;
		int r = profdb_hpctk_value_cct(s->db, t->c, t->a, t->b, &v);
		uint64_t bits = bench_double_bits(v) + (uint64_t)r;
		acc += bits;
		pos += 1 + (bits & zm);
	}
	s->pos = pos;
	bench_consume(acc);
	return n;
}

/* The triple arrays are filled up to N_TRIPLES by cycling when fewer exist. */
static uint32_t fill_cycle(triple *t, uint32_t n)
{
	for (uint32_t i = n; n && i < N_TRIPLES; i++)
		t[i] = t[i % n];
	return n;
}

static void run_lookup(state *s, const char *name, bench_fn fn, const triple *t, uint32_t n,
                       uint32_t mask, double baseline)
{
	if (n == 0) {
		bench_print_value(case_name(s, name), "skipped (no such triples)");
		return;
	}
	s->cur = t;
	s->cur_mask = mask;
	s->pos = 0;
	bench_result r = bench_measure(fn, s);
	bench_print(case_name(s, name), &r, "net_ns=%.4g, distinct=%u", r.median - baseline,
	            n < mask + 1 ? n : mask + 1);
}

/* ---- 4. full scans ------------------------------------------------------------- */

static uint64_t scan_planes(state *s, int cct)
{
	tv_plane p;
	profdb_view run;
	uint64_t acc = 0;
	uint32_t n = cct ? s->n_slots : s->n_profiles;
	for (uint32_t i = 0; i < n; i++) {
		int r = cct ? tv_context_plane(s->db, i, &p)
		            : tv_profile_plane(s->db, i, &p);
		if (r < 0)
			die("plane", r);
		for (uint64_t k = 0; k < p.index.count; k++) {
			uint32_t key;
			tv_plane_at(&p, k, &key, &run);
			acc += key;
			for (uint64_t j = 0; j < run.count; j++) {
				uint32_t vk;
				double v;
				tv_run_at(&run, j, &vk, &v);
				acc += vk ^ bench_double_bits(v);
			}
		}
	}
	bench_consume(acc);
	return 1;
}

static uint64_t op_scan_profile(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		scan_planes(arg, 0);
	return n;
}

static uint64_t op_scan_cct(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		scan_planes(arg, 1);
	return n;
}

/* The same walk over the profile planes, decoding the validated bytes
 * directly: little-endian u32 context / u64 start index entries and
 * u16 metric / f64 value pairs (profdb.h documents the layout). */
static uint64_t op_scan_profile_raw(void *arg, uint64_t n)
{
	state *s = arg;
	tv_plane p;
	uint64_t acc = 0;
	for (uint64_t it = 0; it < n; it++) {
		for (uint32_t i = 0; i < s->n_profiles; i++) {
			if (tv_profile_plane(s->db, i, &p) < 0 || p.index.count == 0)
				continue;
			for (uint64_t k = 0; k < p.index.count; k++) {
				uint32_t key;
				memcpy(&key, p.index.base + k * 12, 4);
				acc += key;
			}
			const unsigned char *v = p.values.base;
			for (uint64_t j = 0; j < p.values.count; j++, v += 10) {
				uint16_t mk;
				uint64_t bits;
				memcpy(&mk, v, 2);
				memcpy(&bits, v + 2, 8);
				acc += mk ^ bits;
			}
		}
	}
	bench_consume(acc);
	return n;
}

static void print_scan(state *s, const char *name, const bench_result *r, uint64_t bytes,
                       uint64_t values)
{
	double sec = r->median / 1e9;
	bench_print(case_name(s, name), r, "GB/s=%.3f, Mvalues/s=%.1f, ns/value=%.3f, bytes=%" PRIu64
	            ", values=%" PRIu64, sec > 0 ? bytes / sec / 1e9 : 0,
	            sec > 0 ? values / sec / 1e6 : 0, values ? r->median / (double)values : 0, bytes,
	            values);
}

/* ---- 5. traces -------------------------------------------------------------------- */

static uint64_t op_trace_seek(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0, pos = s->pos, zm = zero_mask;
	for (uint64_t i = 0; i < n; i++) {
		const tseek *q = &s->seeks[pos & (N_TRIPLES - 1)];
		profdb_hpctk_trace t;
		uint64_t idx = 0, time = 0;
		uint32_t ctx = 0;
		profdb_hpctk_trace_line_at(s->db, q->trace, &t);
		if (profdb_view_in_effect(&t.samples, q->time, &idx) == 1)
			tv_sample(&t, idx, &time, &ctx);
		uint64_t v = idx + time + ctx;
		acc += v;
		pos += 1 + (v & zm);
	}
	s->pos = pos;
	bench_consume(acc);
	return n;
}

static uint64_t op_scan_trace(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0;
	for (uint64_t it = 0; it < n; it++) {
		for (uint32_t i = 0; i < s->n_traces; i++) {
			profdb_hpctk_trace t;
			if (profdb_hpctk_trace_line_at(s->db, i, &t) < 0)
				continue;
			for (uint64_t k = 0; k < t.samples.count; k++) {
				uint64_t time;
				uint32_t ctx;
				tv_sample(&t, k, &time, &ctx);
				acc += time ^ ctx;
			}
		}
	}
	bench_consume(acc);
	return n;
}

/* ---- cold open ------------------------------------------------------------------------ */

static void drop_cache(void *arg)
{
	state *s = arg;
	static const char *const names[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	for (int i = 0; i < 4; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", s->path, names[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

static uint64_t op_open_close_once(void *arg, uint64_t n)
{
	(void)n;
	return op_open_close(arg, 1);
}

/* ---- walk_all_process -------------------------------------------------------------- */

typedef struct walk_arg {
	state *s;
	const char *prog;
	char out[64];           /* /usr/bin/time -v output */
	char stdout_path[64];   /* PROG's output */
	long rss[BENCH_MAX_REPS];
	unsigned n;
	char summary[512];
} walk_arg;

static uint64_t op_walk_all(void *arg, uint64_t n)
{
	walk_arg *w = arg;
	(void)n;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, w->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *argv[] = {"/usr/bin/time", "-v", "-o", w->out, (char *)w->prog, (char *)w->s->path,
	                NULL};
	pid_t pid;
	int st;
	int r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		die("posix_spawn /usr/bin/time", r);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench-hpctk4: %s %s failed\n", w->prog, w->s->path);
		return 0;
	}
	return 1;
}

static void walk_collect(void *arg)
{
	walk_arg *w = arg;
	char line[512];
	FILE *f = fopen(w->out, "r");
	while (f && fgets(line, sizeof line, f)) {
		const char *k = strstr(line, "Maximum resident set size (kbytes):");
		if (k && w->n < BENCH_MAX_REPS)
			w->rss[w->n++] = strtol(k + 35, NULL, 10);
	}
	if (f)
		fclose(f);
	f = fopen(w->stdout_path, "r");
	if (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		snprintf(w->summary, sizeof w->summary, "%s", line);
	}
	if (f)
		fclose(f);
}

static void run_walk_all(state *s, const char *prog)
{
	walk_arg *w = calloc(1, sizeof *w);
	if (!w)
		die("calloc", -ENOMEM);
	w->s = s;
	w->prog = prog;
	snprintf(w->out, sizeof w->out, "/tmp/bench-hpctk4-time.%d", (int)getpid());
	snprintf(w->stdout_path, sizeof w->stdout_path, "/tmp/bench-hpctk4-walk.%d", (int)getpid());
	/* One warm-up run (page cache), like performance.md's reference runs. */
	if (op_walk_all(w, 1) == 0) {
		bench_print_value(case_name(s, "walk_all_process"), "FAILED");
		free(w);
		return;
	}
	bench_result r = bench_measure_hooks(op_walk_all, w, NULL, walk_collect);
	unlink(w->out);
	unlink(w->stdout_path);
	/* "walk-all: contexts=... profile_values=..." -> the part after "walk-all: " */
	const char *sum = strstr(w->summary, ": ") ? strstr(w->summary, ": ") + 2 : w->summary;
	if (strstr(s->path, "issue-233"))
		bench_print(case_name(s, "walk_all_process"), &r,
		            "peak_rss_kib=%ld, hpctesttool_s=%.2f, speedup_vs_hpctesttool=%.0fx, %s",
		            median_long(w->rss, w->n), HPCTESTTOOL_ISSUE233_S,
		            HPCTESTTOOL_ISSUE233_S * 1e9 / r.median, sum);
	else
		bench_print(case_name(s, "walk_all_process"), &r, "peak_rss_kib=%ld, %s",
		            median_long(w->rss, w->n), sum);
	free(w);
}

/* ---- one database ------------------------------------------------------------------------ */

static void reset_peak_rss(void)
{
	/* "5" resets VmHWM to the current RSS (Linux >= 4.0); best effort. */
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "5", 1) < 0) {
			/* ignored: the peak then includes the parent's */
		}
		close(fd);
	}
}

static uint64_t file_size(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static const char *filter;   /* --filter: run only cases whose name contains it */

static int want(const char *c)
{
	return !filter || strstr(c, filter);
}

static void bench_db(const char *path, const char *walk_prog, int no_cold)
{
	state *s = calloc(1, sizeof *s);
	if (!s)
		die("calloc", -ENOMEM);
	s->path = path;
	const char *base = strrchr(path, '/');
	while (base && base[1] == 0 && base > path) {   /* trailing slash */
		const char *q = base - 1;
		while (q > path && *q != '/')
			q--;
		base = q;
	}
	snprintf(s->label, sizeof s->label, "%s", base && *base == '/' ? base + 1 : path);
	s->label[strcspn(s->label, "/")] = 0;
	reset_peak_rss();

	/* 2. RSS right after open: first thing, in a clean process. */
	if (want("open_rss")) {
		rss_arg *a = calloc(1, sizeof *a);
		if (!a)
			die("calloc", -ENOMEM);
		a->s = s;
		bench_result r = bench_measure_hooks(rss_open, a, rss_setup, rss_teardown);
		long first = a->delta[0];
		bench_print(case_name(s, "open_rss"), &r,
		            "rss_delta_kib=%ld, rss_delta_first_kib=%ld, anon_delta_kib=%ld, "
		            "file_delta_kib=%ld",
		            median_long(a->delta, a->n), first, median_long(a->anon, a->n),
		            median_long(a->file, a->n));
		free(a);
	}

	/* 1. open + close */
	if (want("open_close")) {
		bench_result r = bench_measure(op_open_close, s);
		bench_print(case_name(s, "open_close"), &r,
		            "meta_bytes=%" PRIu64 ", profile_bytes=%" PRIu64 ", cct_bytes=%" PRIu64
		            ", trace_bytes=%" PRIu64, file_size(path, "meta.db"),
		            file_size(path, "profile.db"), file_size(path, "cct.db"),
		            file_size(path, "trace.db"));
	}

	/* 6. first use, each on a fresh handle, while no other handle is open
	 * (so the peak RSS below counts every file page once). The block sizes
	 * come from the survey, which needs validated blocks: run it on a
	 * handle that is closed again before the fresh-handle cases. */
	s->db = open_db(path);
	survey(s);
	int has_meta = profdb_hpctk_has(s->db, PROFDB_HPCTK_META);
	profdb_hpctk_close(s->db);
	s->db = NULL;
	if (has_meta && want("first_context_count")) {
		bench_result r = bench_measure_hooks(op_first_context_count, s, fresh_open, fresh_close);
		bench_print(case_name(s, "first_context_count"), &r, "contexts=%" PRIu64, s->n_contexts);
	}
	if (s->n_profiles && want("first_validate_profile_planes")) {
		bench_result r = bench_measure_hooks(op_first_profile_planes, s, fresh_open, fresh_close);
		print_scan(s, "first_validate_profile_planes", &r, s->prof_bytes, s->prof_values);
	}
	if (s->n_slots && want("first_validate_cct_planes")) {
		bench_result r = bench_measure_hooks(op_first_cct_planes, s, fresh_open, fresh_close);
		print_scan(s, "first_validate_cct_planes", &r, s->cct_bytes, s->cct_values);
	}
	if (s->n_traces && want("first_validate_traces")) {
		bench_result r = bench_measure_hooks(op_first_traces, s, fresh_open, fresh_close);
		print_scan(s, "first_validate_traces", &r, s->trace_bytes, s->trace_elems);
	}
	{
		uint64_t bytes = s->prof_bytes + s->cct_bytes + s->trace_bytes;
		uint64_t vals = s->prof_values + s->cct_values + s->trace_elems;
		if (want("open_validate_all")) {
			bench_result r = bench_measure(op_open_validate_all, s);
			print_scan(s, "open_validate_all", &r, bytes, vals);
		}
		if (want("open_populate_validate_all")) {
			bench_result r = bench_measure(op_open_populate_validate_all, s);
			print_scan(s, "open_populate_validate_all", &r, bytes, vals);
		}
	}

	/* The machine's floor for the lookups below: one dependent random
	 * 8-byte load from the same files, mapped the same way. */
	if (want("mem_random_load"))
		mem_floor(s);

	/* The long-lived handle of the warm cases: every block validated once. */
	s->db = open_db(path);
	op_first_profile_planes_on(s->db, s);
	op_first_cct_planes_on(s->db, s);
	op_first_traces_on(s->db, s);

	/* 3. point lookups */
	fill_cycle(s->prof_hit, s->n_prof_hit);
	fill_cycle(s->prof_miss, s->n_prof_miss);
	fill_cycle(s->cct_hit, s->n_cct_hit);
	fill_cycle(s->cct_miss, s->n_cct_miss);
	double bl_median = 0;
	if (want("lookup_baseline") || (filter && strstr(filter, "lookup"))) {
		s->cur = s->prof_hit;
		s->cur_mask = N_TRIPLES - 1;
		bench_result bl = bench_measure(op_lookup_baseline, s);
		bench_print(case_name(s, "lookup_baseline"), &bl, "note=loop_without_lookup");
		bl_median = bl.median;
	}
	if (want("lookup_profile_hit"))
		run_lookup(s, "lookup_profile_hit", op_lookup_profile, s->prof_hit, s->n_prof_hit,
		           N_TRIPLES - 1, bl_median);
	if (want("lookup_profile_miss"))
		run_lookup(s, "lookup_profile_miss", op_lookup_profile, s->prof_miss, s->n_prof_miss,
		           N_TRIPLES - 1, bl_median);
	if (want("lookup_cct_hit"))
		run_lookup(s, "lookup_cct_hit", op_lookup_cct, s->cct_hit, s->n_cct_hit, N_TRIPLES - 1,
		           bl_median);
	if (want("lookup_cct_miss"))
		run_lookup(s, "lookup_cct_miss", op_lookup_cct, s->cct_miss, s->n_cct_miss,
		           N_TRIPLES - 1, bl_median);
	if (want("lookup_profile_hit_hot"))
		run_lookup(s, "lookup_profile_hit_hot", op_lookup_profile, s->prof_hit, s->n_prof_hit,
		           N_HOT - 1, bl_median);
	if (want("lookup_cct_hit_hot"))
		run_lookup(s, "lookup_cct_hit_hot", op_lookup_cct, s->cct_hit, s->n_cct_hit, N_HOT - 1,
		           bl_median);

	/* 4. full scans */
	if (s->n_profiles && want("scan_profile")) {
		bench_result r = bench_measure(op_scan_profile, s);
		print_scan(s, "scan_profile", &r, s->prof_bytes, s->prof_values);
	}
	if (s->n_profiles && want("scan_profile_raw")) {
		bench_result r = bench_measure(op_scan_profile_raw, s);
		print_scan(s, "scan_profile_raw", &r, s->prof_bytes, s->prof_values);
	}
	if (s->n_slots && want("scan_cct")) {
		bench_result r = bench_measure(op_scan_cct, s);
		print_scan(s, "scan_cct", &r, s->cct_bytes, s->cct_values);
	}

	/* 5. traces */
	if (s->n_seeks && want("trace_seek")) {
		s->pos = 0;
		bench_result r = bench_measure(op_trace_seek, s);
		bench_print(case_name(s, "trace_seek"), &r, "traces=%" PRIu32, s->n_traces);
	}
	if (s->trace_elems && want("scan_trace")) {
		bench_result r = bench_measure(op_scan_trace, s);
		print_scan(s, "scan_trace", &r, s->trace_bytes, s->trace_elems);
	}

	profdb_hpctk_close(s->db);
	s->db = NULL;

	/* 7. peak RSS of this process: every page of every file was mapped
	 * (file pages, shared with the page cache) plus what was allocated
	 * (anonymous: the benchmark's own arrays and the library's indexes). The
	 * walk below runs in its own process and does not count. */
	bench_mem m = bench_mem_now();
	bench_print_value(case_name(s, "peak_rss"),
	                  "vmhwm_kib=%ld, ru_maxrss_kib=%ld, rss_now_kib=%ld, anon_now_kib=%ld, "
	                  "file_bytes=%" PRIu64, m.hwm_kib, m.maxrss_kib, m.rss_kib, m.anon_kib,
	                  file_size(path, "meta.db") + file_size(path, "profile.db") +
	                  file_size(path, "cct.db") + file_size(path, "trace.db"));

	if (walk_prog && want("walk_all_process"))
		run_walk_all(s, walk_prog);

	/* Last, because it evicts the files from the page cache. */
	if (!no_cold && want("open_close_cold")) {
		bench_result r = bench_measure_hooks(op_open_close_once, s, drop_cache, NULL);
		bench_print(case_name(s, "open_close_cold"), &r, "note=after_fadvise_dontneed");
	}

	free(s->prof_hit);
	free(s->prof_miss);
	free(s->cct_hit);
	free(s->cct_miss);
	free(s->seeks);
	free(s);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-hpctk4 [--walk-all PROG] [--no-cold] [--filter SUBSTR] DBDIR [DBDIR...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *walk_prog = NULL;
	int no_cold = 0, i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--walk-all") == 0 && i + 1 < argc)
			walk_prog = argv[++i];
		else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
			filter = argv[++i];
		else if (strcmp(argv[i], "--no-cold") == 0)
			no_cold = 1;
		else
			usage();
	}
	if (i >= argc)
		usage();
	printf("# bench-hpctk4: profdb %s, median of >= %d repetitions, >= %.1f s per case\n",
	       PROFDB_VERSION_STRING, BENCH_MIN_REPS, BENCH_MIN_TOTAL_NS / 1e9);
	fflush(stdout);
	int status = 0;
	for (; i < argc; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork", -errno);
		if (pid == 0) {
			bench_db(argv[i], walk_prog, no_cold);
			fflush(stdout);
			_exit(0);
		}
		int st;
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "bench-hpctk4: %s: benchmark failed\n", argv[i]);
			status = 1;
		}
	}
	return status;
}
