/* bench.h — a tiny, header-only benchmark harness for profdb's bench programs.
 *
 * A case is a function that performs @c n operations and returns how many it
 * did. The harness first calibrates @c n so one timed batch lasts at least
 * BENCH_MIN_BATCH_NS (or one operation, if a single one is slower), then
 * times batches ("repetitions") until all of these hold:
 *   - at least BENCH_MIN_REPS repetitions,
 *   - at least BENCH_MIN_TOTAL_NS spent in timed batches,
 *   - the spread (p90 - p10) / median is at most BENCH_TARGET_SPREAD,
 * or until BENCH_MAX_TOTAL_NS / BENCH_MAX_REPS is reached (then the spread
 * is simply reported as it is). Each repetition yields one ns/op figure; the
 * median, p10 and p90 of those are reported.
 *
 * One-shot cases (something that can only be measured once per setup, e.g.
 * "the first call after open") pass setup/teardown callbacks: they run
 * untimed around every repetition, and each repetition is one operation.
 *
 * Output: exactly one line per case, of the form
 *   name: median=<x> ns/op, p10=<x>, p90=<x>, ops=<n>, reps=<n>[, key=value...]
 * so grep and awk pick it up (e.g. grep 'lookup_profile_hit:').
 *
 * Timing uses clock_gettime(CLOCK_MONOTONIC). Memory figures come from
 * /proc/self/status (VmRSS, VmHWM, RssAnon, RssFile) and getrusage(). Results
 * that a loop computes go into bench_sink (volatile) so the compiler cannot
 * drop the loop. */
#ifndef PROFDB_BENCH_H
#define PROFDB_BENCH_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifndef BENCH_MIN_REPS
#define BENCH_MIN_REPS 7
#endif
#ifndef BENCH_MAX_REPS
#define BENCH_MAX_REPS 1000
#endif
#ifndef BENCH_MIN_BATCH_NS
#define BENCH_MIN_BATCH_NS 10000000.0   /* 10 ms */
#endif
#ifndef BENCH_MIN_TOTAL_NS
#define BENCH_MIN_TOTAL_NS 200000000.0  /* 0.2 s */
#endif
#ifndef BENCH_MAX_TOTAL_NS
#define BENCH_MAX_TOTAL_NS 3000000000.0 /* 3 s of timed work, then stop adapting */
#endif
#ifndef BENCH_TARGET_SPREAD
#define BENCH_TARGET_SPREAD 0.05        /* (p90 - p10) / median */
#endif

/* Everything a measured loop computes ends up here. */
static volatile uint64_t bench_sink;

static inline void bench_consume(uint64_t v)
{
	bench_sink += v;
}

static inline uint64_t bench_double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

static inline double bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- a fixed-seed PRNG (splitmix64 seeding xoshiro256**) ------------------ */

typedef struct bench_rng {
	uint64_t s[4];
} bench_rng;

static inline uint64_t bench_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static inline void bench_rng_seed(bench_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = bench_splitmix64(&seed);
}

static inline uint64_t bench_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t bench_rng_next(bench_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = bench_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = bench_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) (n > 0); the tiny modulo bias is irrelevant here. */
static inline uint64_t bench_rng_below(bench_rng *r, uint64_t n)
{
	return n ? bench_rng_next(r) % n : 0;
}

/* ---- memory ------------------------------------------------------------- */

typedef struct bench_mem {
	long rss_kib;       /* VmRSS: resident now (anonymous + file + shmem) */
	long hwm_kib;       /* VmHWM: peak resident */
	long anon_kib;      /* RssAnon: heap, stacks (what the program allocated) */
	long file_kib;      /* RssFile: mapped file pages (page cache, shared) */
	long maxrss_kib;    /* getrusage ru_maxrss */
} bench_mem;

static inline long bench_status_field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	if (!p)
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

static inline bench_mem bench_mem_now(void)
{
	bench_mem m = {-1, -1, -1, -1, -1};
	char buf[8192];
	FILE *f = fopen("/proc/self/status", "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = 0;
		fclose(f);
		m.rss_kib = bench_status_field(buf, "\nVmRSS:");
		m.hwm_kib = bench_status_field(buf, "\nVmHWM:");
		m.anon_kib = bench_status_field(buf, "\nRssAnon:");
		m.file_kib = bench_status_field(buf, "\nRssFile:");
	}
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		m.maxrss_kib = ru.ru_maxrss;
	return m;
}

/* ---- measuring ------------------------------------------------------------ */

/* Run @p n operations; return how many were done (0 = failure). */
typedef uint64_t (*bench_fn)(void *arg, uint64_t n);
typedef void (*bench_hook)(void *arg);

typedef struct bench_result {
	double median, p10, p90;  /* ns per operation, over repetitions */
	double min, max;
	uint64_t ops;             /* operations timed, all repetitions */
	uint64_t batch;           /* operations per repetition */
	unsigned reps;
	double total_ns;          /* timed ns, all repetitions */
	int failed;
} bench_result;

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Linear-interpolated percentile of a sorted array. */
static inline double bench_pct(const double *v, unsigned n, double q)
{
	if (n == 0)
		return 0;
	double pos = q * (n - 1);
	unsigned i = (unsigned)pos;
	double f = pos - i;
	return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

static inline void bench_summarise(bench_result *r, const double *samples, unsigned n,
                                   double *scratch)
{
	memcpy(scratch, samples, n * sizeof *samples);
	qsort(scratch, n, sizeof *scratch, bench_cmp_double);
	r->median = bench_pct(scratch, n, 0.5);
	r->p10 = bench_pct(scratch, n, 0.1);
	r->p90 = bench_pct(scratch, n, 0.9);
	r->min = scratch[0];
	r->max = scratch[n - 1];
}

/* The general form: @p setup / @p teardown (may be NULL) run untimed around
 * each repetition; when either is given the batch is fixed at one op. */
static inline bench_result bench_measure_hooks(bench_fn fn, void *arg, bench_hook setup,
                                               bench_hook teardown)
{
	static double samples[BENCH_MAX_REPS], scratch[BENCH_MAX_REPS];
	bench_result r;
	memset(&r, 0, sizeof r);
	uint64_t batch = 1;
	int oneshot = setup || teardown;

	/* Calibrate: double the batch until it lasts BENCH_MIN_BATCH_NS. The
	 * calibration runs double as warm-up and are not reported. */
	if (!oneshot) {
		for (;;) {
			double t0 = bench_now_ns();
			uint64_t done = fn(arg, batch);
			double dt = bench_now_ns() - t0;
			if (done == 0) {
				r.failed = 1;
				return r;
			}
			if (dt >= BENCH_MIN_BATCH_NS || batch >= (UINT64_C(1) << 40))
				break;
			/* Jump close to the target, at most 100x at a time. */
			double f = dt > 0 ? BENCH_MIN_BATCH_NS * 1.2 / dt : 100;
			if (f > 100)
				f = 100;
			if (f < 2)
				f = 2;
			batch = (uint64_t)((double)batch * f);
		}
	}
	r.batch = batch;
	unsigned n = 0;
	for (;;) {
		if (setup)
			setup(arg);
		double t0 = bench_now_ns();
		uint64_t done = fn(arg, batch);
		double dt = bench_now_ns() - t0;
		if (teardown)
			teardown(arg);
		if (done == 0) {
			r.failed = 1;
			return r;
		}
		samples[n++] = dt / (double)done;
		r.ops += done;
		r.total_ns += dt;
		if (n >= BENCH_MAX_REPS)
			break;
		if (n < BENCH_MIN_REPS || r.total_ns < BENCH_MIN_TOTAL_NS)
			continue;
		if (r.total_ns >= BENCH_MAX_TOTAL_NS)
			break;
		bench_summarise(&r, samples, n, scratch);
		if (r.median > 0 && (r.p90 - r.p10) / r.median <= BENCH_TARGET_SPREAD)
			break;
	}
	r.reps = n;
	bench_summarise(&r, samples, n, scratch);
	return r;
}

static inline bench_result bench_measure(bench_fn fn, void *arg)
{
	return bench_measure_hooks(fn, arg, NULL, NULL);
}

/* Print the one line of a case. @p extra (may be NULL) is a printf format
 * for ", key=value" fields appended after the standard ones. */
static inline void bench_print(const char *name, const bench_result *r, const char *extra, ...)
	__attribute__((format(printf, 3, 4)));

static inline void bench_print(const char *name, const bench_result *r, const char *extra, ...)
{
	if (r->failed) {
		printf("%s: FAILED\n", name);
		fflush(stdout);
		return;
	}
	printf("%s: median=%.4g ns/op, p10=%.4g, p90=%.4g, ops=%llu, reps=%u", name, r->median,
	       r->p10, r->p90, (unsigned long long)r->ops, r->reps);
	if (extra && *extra) {
		va_list ap;
		va_start(ap, extra);
		fputs(", ", stdout);
		vprintf(extra, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
}

/* A line for a single measured quantity (no timing distribution), e.g.
 * "rss after open": name: key=value[, key=value...]. */
static inline void bench_print_value(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void bench_print_value(const char *name, const char *fmt, ...)
{
	va_list ap;
	printf("%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#endif
