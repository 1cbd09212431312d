/* bench-query: the cost of the common query interface over the format's
 * own reader, on HPCToolkit 4.0 databases.
 *
 *   bench-query DIR...             every DIR is an HPCToolkit 4.0 database
 *   bench-query --synth WORKDIR    also writes a synthetic database there
 *                                  (test writer; only when built with it)
 *
 * Cases per database (prefix <name>/):
 *   hpctk_value_hit / query_value_hit    point lookups of stored triples:
 *                                        profdb_hpctk_value vs profdb_value
 *   hpctk_value_hot / query_value_hot    256 stored triples of one profile,
 *                                        cycled (cache-resident: code path only)
 *   hpctk_value_miss / query_value_miss  lookups of triples that are not stored
 *   hpctk_scan_all / query_scan_all      every stored value: the planes by
 *                                        hand vs a PROFDB_SCAN_ALL cursor
 *                                        (ns per value)
 *
 *   bench-query --edges PATH...    call edges of any format:
 *                                  edges-<name>: open, build (first
 *                                  profdb_edge_count), and one combined
 *                                  cost of metric 0 per edge; median of 3
 *                                  fresh opens each
 * The hit/miss triples are the same for both readers (fixed seed), so the
 * difference of the medians is the dispatch overhead: argument checks, one
 * indirect call, the profile and metric range checks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "profdb/profdb.h"
#include "../tests/hpctk-views.h"
#ifdef BENCH_HAVE_WRITER
#include "writer.h"
#endif

#define NKEYS 65536u

typedef struct key {
	uint32_t p, c, m;
} key;

typedef struct state {
	const profdb_hpctk *h;
	const profdb *q;
	key *keys;             /* NKEYS triples */
	uint64_t n_values;
} state;

static uint64_t op_hpctk_value(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		const key *k = &s->keys[i % NKEYS];
		double v = 0;
		acc += (uint64_t)profdb_hpctk_value(s->h, k->p, k->c, k->m, &v) + bench_double_bits(v);
	}
	bench_consume(acc);
	return n;
}

static uint64_t op_query_value(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		const key *k = &s->keys[i % NKEYS];
		profdb_number v;
		acc += (uint64_t)profdb_value(s->q, k->p, k->c, k->m, &v) + v.as.u64;
	}
	bench_consume(acc);
	return n;
}

/* One whole pass per op; reported per value. */
static uint64_t op_hpctk_scan(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0;
	int64_t np = profdb_hpctk_profile_count(s->h);
	for (uint64_t rep = 0; rep < n; rep++)
		for (int64_t p = 0; p < np; p++) {
			tv_plane pl;
			if (tv_profile_plane(s->h, (uint32_t)p, &pl) < 0)
				continue;
			for (uint64_t i = 0; i < pl.index.count; i++) {
				uint32_t ctx, m;
				profdb_view run;
				tv_plane_at(&pl, i, &ctx, &run);
				for (uint64_t j = 0; j < run.count; j++) {
					double v;
					tv_run_at(&run, j, &m, &v);
					acc += ctx + m + bench_double_bits(v);
				}
			}
		}
	bench_consume(acc);
	return n;
}

static uint64_t op_query_scan(void *arg, uint64_t n)
{
	state *s = arg;
	uint64_t acc = 0;
	for (uint64_t rep = 0; rep < n; rep++) {
		profdb_values *it;
		profdb_entry e;
		if (profdb_values_new(&it, s->q, PROFDB_SCAN_ALL, 0) < 0)
			continue;
		while (profdb_values_next(it, &e) == 1)
			acc += e.context + e.metric + e.value.as.u64;
		profdb_values_free(it);
	}
	bench_consume(acc);
	return n;
}

/* Both readers on the same work: a warm-up pass of each, then A, B, A, B;
 * the second round is reported (the first absorbs page faults and cache
 * warm-up). Per-value figures for scans. */
static void pair(state *s, const char *db, const char *what, bench_fn a, bench_fn b,
                 int per_value)
{
	char name[256];
	bench_result ra = {0}, rb = {0};
	uint64_t warm = per_value ? 1 : NKEYS;
	a(s, warm);
	b(s, warm);
	for (int round = 0; round < 2; round++) {
		ra = bench_measure(a, s);
		rb = bench_measure(b, s);
	}
	snprintf(name, sizeof name, "%s/hpctk_%s", db, what);
	if (per_value)
		bench_print(name, &ra, "values=%" PRIu64 ", ns/value=%.3f", s->n_values,
		            ra.median / (double)s->n_values);
	else
		bench_print(name, &ra, "values=%" PRIu64, s->n_values);
	snprintf(name, sizeof name, "%s/query_%s", db, what);
	if (per_value)
		bench_print(name, &rb, "values=%" PRIu64 ", ns/value=%.3f, ratio=%.2f", s->n_values,
		            rb.median / (double)s->n_values, rb.median / ra.median);
	else
		bench_print(name, &rb, "values=%" PRIu64 ", overhead_ns=%.3g", s->n_values,
		            rb.median - ra.median);
}

static const char *base(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	return s;
}

static void run_db(const char *dir)
{
	profdb *q;
	const char *b = base(dir);
	if (profdb_open(&q, dir, NULL) < 0) {
		fprintf(stderr, "bench-query: %s: %s\n", dir, profdb_error_message());
		exit(1);
	}
	/* The reader's own handle under the common one: both sides read the
	 * same mapping, so only the code path differs. */
	const profdb_hpctk *h = profdb_get_hpctk(q);
	if (!h) {
		fprintf(stderr, "bench-query: %s: not an HPCToolkit 4.0 database\n", dir);
		exit(1);
	}
	state s = {h, q, malloc(NKEYS * sizeof(key)), 0};
	profdb_counts c;
	if (!s.keys || profdb_get_counts(q, &c) < 0 || c.values == 0) {
		fprintf(stderr, "bench-query: %s: no values (%s)\n", dir, profdb_error_message());
		exit(1);
	}
	s.n_values = (uint64_t)c.values;

	/* Hits: a fixed-seed sample of the stored triples (reservoir). */
	bench_rng rng;
	bench_rng_seed(&rng, 42);
	profdb_values *it;
	profdb_entry e;
	uint64_t seen = 0;
	profdb_values_new(&it, q, PROFDB_SCAN_ALL, 0);
	while (profdb_values_next(it, &e) == 1) {
		key k = {e.profile, e.context, e.metric};
		if (seen < NKEYS)
			s.keys[seen] = k;
		else {
			uint64_t j = bench_rng_below(&rng, seen + 1);
			if (j < NKEYS)
				s.keys[j] = k;
		}
		seen++;
	}
	profdb_values_free(it);
	for (uint64_t i = seen; i < NKEYS; i++)
		s.keys[i] = s.keys[i % seen];

	pair(&s, b, "value_hit", op_hpctk_value, op_query_value, 0);

	/* Hot: 256 stored triples of one profile, cycled, so the data stays in
	 * cache and the figures are the code path alone. */
	key *cold = s.keys;
	s.keys = malloc(NKEYS * sizeof(key));
	uint64_t hot = 0;
	if (!s.keys)
		exit(1);
	profdb_values_new(&it, q, PROFDB_SCAN_PROFILE, c.profiles > 1 ? 1 : 0);
	while (hot < 256 && profdb_values_next(it, &e) == 1)
		s.keys[hot++] = (key){e.profile, e.context, e.metric};
	profdb_values_free(it);
	for (uint64_t i = hot; hot && i < NKEYS; i++)
		s.keys[i] = s.keys[i % hot];
	if (hot)
		pair(&s, b, "value_hot", op_hpctk_value, op_query_value, 0);
	free(s.keys);
	s.keys = cold;

	/* Misses: the same profiles and metrics at contexts that store nothing
	 * for them (the next context ids up). */
	for (uint32_t i = 0; i < NKEYS; i++) {
		profdb_number v;
		key *k = &s.keys[i];
		for (uint32_t tries = 0; tries < 64; tries++) {
			if (profdb_value(q, k->p, k->c, k->m, &v) == 0)
				break;
			k->c += 1 + (uint32_t)bench_rng_below(&rng, 7);
		}
	}
	pair(&s, b, "value_miss", op_hpctk_value, op_query_value, 0);
	pair(&s, b, "scan_all", op_hpctk_scan, op_query_scan, 1);

	free(s.keys);
	profdb_close(q);
}

/* Call edges: open, the first profdb_edge_count (which builds them) and a
 * pass over every edge's combined cost of metric 0, each the median of 3
 * fresh opens (the edges are built once per handle). */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void run_edges(const char *path)
{
	double t_open[3], t_build[3], t_cost[3];
	int64_t n = 0;
	for (int run = 0; run < 3; run++) {
		profdb *q;
		double t0 = bench_now_ns();
		if (profdb_open(&q, path, NULL) < 0) {
			fprintf(stderr, "bench-query: %s: %s\n", path, profdb_error_message());
			exit(1);
		}
		double t1 = bench_now_ns();
		n = profdb_edge_count(q);
		double t2 = bench_now_ns();
		if (n < 0) {
			fprintf(stderr, "bench-query: %s: edges: %s\n", path, profdb_error_message());
			exit(1);
		}
		for (int64_t i = 0; i < n; i++) {
			profdb_number v;
			if (profdb_edge_inclusive(q, PROFDB_NONE, (uint64_t)i, 0, &v) == 1)
				bench_consume(v.as.u64);
		}
		double t3 = bench_now_ns();
		profdb_close(q);
		t_open[run] = (t1 - t0) / 1e6;
		t_build[run] = (t2 - t1) / 1e6;
		t_cost[run] = (t3 - t2) / 1e6;
	}
	qsort(t_open, 3, sizeof(double), cmp_double);
	qsort(t_build, 3, sizeof(double), cmp_double);
	qsort(t_cost, 3, sizeof(double), cmp_double);
	printf("edges-%s: edges=%" PRId64 " open=%.1fms build=%.1fms costs=%.1fms\n", base(path), n,
	       t_open[1], t_build[1], t_cost[1]);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-query [--synth WORKDIR] DIR... | --edges PATH...\n");
		return 2;
	}
	if (strcmp(argv[1], "--edges") == 0) {
		for (int i = 2; i < argc; i++)
			run_edges(argv[i]);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--synth") == 0 && i + 1 < argc) {
#ifdef BENCH_HAVE_WRITER
			char dir[4096];
			snprintf(dir, sizeof dir, "%s/query-synth", argv[++i]);
			/* 64 threads, 20000 contexts, 4 metrics, 30% density, 1000 samples. */
			int r = tw_hpctk4_synth_dir(dir, 64, 20000, 4, 0.3, 1000, 7);
			if (r < 0) {
				fprintf(stderr, "bench-query: writing %s: %d\n", dir, r);
				return 1;
			}
			run_db(dir);
#else
			fprintf(stderr, "bench-query: built without the test writer; --synth skipped\n");
			i++;
#endif
			continue;
		}
		run_db(argv[i]);
	}
	return 0;
}
