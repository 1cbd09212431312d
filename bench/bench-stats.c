/* bench-stats — statistics over every non-summary profile of a database
 * (profdb_stats_new), at several thread counts: throughput in value-block
 * bytes (each profile's 10-byte value records and 12-byte context index
 * of profile.db, what the pass reads) per second and per core, and
 * memory: the peak of anonymous RSS during the pass (sampled every
 * millisecond by a watcher thread) next to the accumulators' size.
 *
 *   bench-stats [--threads 1,2] [--reps 3] DBDIR
 *
 * One untimed warm-up run first (page cache, first-use validation of
 * every block), then --reps timed runs per thread count; the median is
 * reported. Output (doc/PERFORMANCE.md, "Statistics over profiles"), one
 * line per thread count:
 *   stats_tN: median=<ns> ns/op, p10=<ns>, p90=<ns>, ops=1, reps=<n>, bytes=<B>,
 *     gbps=<GB/s>, gbps_per_core=<GB/s>, speedup=<x>, rows=<n>, acc_bytes=<B>,
 *     peak_anon_kib=<KiB>, hwm_kib=<KiB> */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <profdb/profdb.h>

#include "bench.h"

static atomic_int watching;
static atomic_long peak_anon;

static void *watch(void *arg)
{
	(void)arg;
	while (atomic_load(&watching)) {
		bench_mem m = bench_mem_now();
		if (m.anon_kib > atomic_load(&peak_anon))
			atomic_store(&peak_anon, m.anon_kib);
		usleep(1000);
	}
	return NULL;
}

/* Bytes of the value blocks of profiles @p p[0..n). */
static uint64_t block_bytes(const profdb *db, const uint32_t *p, size_t n)
{
	uint64_t b = 0;
	for (size_t i = 0; i < n; i++) {
		profdb_view idx, val;
		if (profdb_profile_view(db, p[i], &idx, &val) == 0)
			b += idx.count * idx.stride + val.count * val.stride;
	}
	return b;
}

static double one_run(const profdb *db, unsigned threads, int64_t *rows)
{
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	profdb_stats *s;
	o.threads = threads;
	double t0 = bench_now_ns();
	if (profdb_stats_new(&s, db, &o) < 0) {
		fprintf(stderr, "bench-stats: %s\n", profdb_error_message());
		exit(1);
	}
	double t = bench_now_ns() - t0;
	*rows = profdb_stats_count(s);
	profdb_stat r;
	if (*rows > 0 && profdb_stats_at(s, 0, &r) == 0)
		bench_consume(bench_double_bits(r.sum));
	profdb_stats_free(s);
	return t;
}

int main(int argc, char **argv)
{
	unsigned list[16] = {1, 2}, n_list = 2, reps = 3;
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			n_list = 0;
			for (char *p = argv[++i]; *p && n_list < 16; p += *p == ',')
				list[n_list++] = (unsigned)strtoul(p, &p, 10);
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = (unsigned)strtoul(argv[++i], NULL, 10);
		} else {
			dir = argv[i];
		}
	}
	if (!dir || reps == 0 || reps > 100) {
		fprintf(stderr, "usage: bench-stats [--threads 1,2] [--reps 3] DBDIR\n");
		return 2;
	}
	profdb *db;
	if (profdb_open(&db, dir, NULL) < 0) {
		fprintf(stderr, "bench-stats: %s: %s\n", dir, profdb_error_message());
		return 1;
	}
	int64_t np = profdb_profiles_select(db, NULL, NULL, 0);
	uint32_t *p = malloc(((size_t)(np > 0 ? np : 0) + 1) * sizeof *p);
	if (np < 0 || !p)
		return 1;
	profdb_profiles_select(db, NULL, p, (size_t)np);
	int64_t rows = 0;
	one_run(db, 0, &rows);   /* warm-up: page cache and block validation */
	uint64_t bytes = block_bytes(db, p, (size_t)np);
	int64_t nm = profdb_metric_count(db);
	printf("# %s: %lld profiles, %llu value-block bytes, %lld rows\n", dir, (long long)np,
	       (unsigned long long)bytes, (long long)rows);
	double base = 0;
	for (unsigned k = 0; k < n_list; k++) {
		double t[100], scratch[100];
		pthread_t w;
		atomic_store(&peak_anon, 0);
		atomic_store(&watching, 1);
		pthread_create(&w, NULL, watch, NULL);
		for (unsigned r = 0; r < reps; r++)
			t[r] = one_run(db, list[k], &rows);
		atomic_store(&watching, 0);
		pthread_join(w, NULL);
		bench_result res;
		bench_summarise(&res, t, reps, scratch);
		double gbps = (double)bytes / res.median;   /* bytes per ns = GB/s */
		if (k == 0)
			base = res.median;
		bench_mem m = bench_mem_now();
		printf("stats_t%u: median=%.0f ns/op, p10=%.0f, p90=%.0f, ops=1, reps=%u, bytes=%llu, "
		       "gbps=%.3f, gbps_per_core=%.3f, speedup=%.2f, rows=%lld, metrics=%lld, "
		       "peak_anon_kib=%ld, hwm_kib=%ld\n",
		       list[k], res.median, res.p10, res.p90, reps, (unsigned long long)bytes, gbps,
		       gbps / (list[k] ? list[k] : 1), base / res.median, (long long)rows,
		       (long long)nm, atomic_load(&peak_anon), m.hwm_kib);
		fflush(stdout);
	}
	free(p);
	profdb_close(db);
	return 0;
}
