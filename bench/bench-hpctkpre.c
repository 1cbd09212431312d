/* bench-hpctkpre — the pre-release reader (lib/hpctkpre) through the public
 * API (linked against the shared library like any user).
 *
 *   bench-hpctkpre [--generate DIR] DB-DIR...
 *
 * With --generate, a synthetic database is first written to DIR by the
 * test-data writer (64 thread profiles + summary, 20 000 contexts, two
 * metrics per context: 2.6 M values, 25 MB profile.db) and benchmarked
 * after the given directories. Cases, "hpctkpre/<db>/<case>":
 *   open_close       profdb_hpctkpre_open + close (headers, experiment.xml
 *                    parse, indexes)
 *   scan_values      every stored value of every profile through the
 *                    profile views, on an open handle; ns per value
 *   open_scan_close  a fresh open + first-use validation of every profile
 *                    block + every value + close
 *   lookup           profdb_hpctkpre_value at random (profile, context)
 *   rss              VmHWM of the process after the cases above */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb/profdb.h"

#include "bench.h"
#include "writer.h"

typedef struct ctx {
	const char *path;
	profdb_hpctkpre *db;
	profdb_hpctkpre_info info;
	uint64_t values;
	bench_rng rng;
} ctx;

static uint64_t scan(const profdb_hpctkpre *db, uint32_t n_profiles)
{
	uint64_t done = 0;
	for (uint32_t p = 0; p < n_profiles; p++) {
		profdb_view index, values;
		if (profdb_hpctkpre_profile_view(db, p, &index, &values) < 0)
			return 0;
		PROFDB_VIEW_FOREACH(&index, i) {
			uint64_t ctx_id = profdb_view_key(&index, i);
			profdb_view run = profdb_view_run(&index, i, &values);
			PROFDB_VIEW_FOREACH(&run, k) {
				uint64_t m = profdb_view_key(&run, k);
				double v = profdb_view_value(&run, k).as.f64;
				bench_consume(bench_double_bits(v) + m + ctx_id);
				done++;
			}
		}
	}
	return done;
}

static uint64_t do_open_close(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_hpctkpre *h;
		if (profdb_hpctkpre_open(&h, c->path, NULL) < 0)
			return 0;
		profdb_hpctkpre_close(h);
	}
	return n;
}

static uint64_t do_scan(void *arg, uint64_t n)
{
	ctx *c = arg;
	uint64_t done = 0;
	for (uint64_t i = 0; i < n; i++)
		done += scan(c->db, c->info.n_profiles);
	return done;
}

static uint64_t do_open_scan_close(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_hpctkpre *h;
		profdb_hpctkpre_info in;
		if (profdb_hpctkpre_open(&h, c->path, NULL) < 0)
			return 0;
		profdb_hpctkpre_get_info(h, &in);
		uint64_t d = scan(h, in.n_profiles);
		profdb_hpctkpre_close(h);
		if (d != c->values)
			return 0;
	}
	return n;
}

static uint64_t do_lookup(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t p = (uint32_t)bench_rng_below(&c->rng, c->info.n_profiles);
		uint32_t x = (uint32_t)bench_rng_below(&c->rng, c->info.n_ctx_slots ? c->info.n_ctx_slots : 1);
		double v = 0;
		int r = profdb_hpctkpre_value(c->db, p, x, p ? 2 : 512, &v);
		if (r < 0)
			return 0;
		bench_consume(bench_double_bits(v) + (uint64_t)r);
	}
	return n;
}

static int run(const char *path)
{
	ctx c;
	char name[512];
	memset(&c, 0, sizeof c);
	c.path = path;
	bench_rng_seed(&c.rng, 42);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (profdb_hpctkpre_open(&c.db, path, NULL) < 0) {
		fprintf(stderr, "%s: %s\n", path, profdb_error_message());
		return 1;
	}
	profdb_hpctkpre_get_info(c.db, &c.info);
	c.values = scan(c.db, c.info.n_profiles);

	bench_result r = bench_measure(do_open_close, &c);
	snprintf(name, sizeof name, "hpctkpre/%s/open_close", base);
	bench_print(name, &r, "contexts=%u, open_ms=%.3f", c.info.n_contexts, r.median / 1e6);
	r = bench_measure(do_scan, &c);
	snprintf(name, sizeof name, "hpctkpre/%s/scan_values", base);
	bench_print(name, &r, "values=%llu, full_scan_ms=%.3f, values_per_s=%.3g",
	            (unsigned long long)c.values, r.median * (double)c.values / 1e6,
	            1e9 / r.median);
	r = bench_measure(do_open_scan_close, &c);
	snprintf(name, sizeof name, "hpctkpre/%s/open_scan_close", base);
	bench_print(name, &r, "ms=%.3f", r.median / 1e6);
	r = bench_measure(do_lookup, &c);
	snprintf(name, sizeof name, "hpctkpre/%s/lookup", base);
	bench_print(name, &r, "profiles=%u", c.info.n_profiles);
	bench_mem mem = bench_mem_now();
	snprintf(name, sizeof name, "hpctkpre/%s/rss", base);
	bench_print_value(name, "vm_hwm_kib=%ld, vm_rss_kib=%ld", mem.hwm_kib, mem.rss_kib);
	profdb_hpctkpre_close(c.db);
	return 0;
}

/* 64 threads x 20 000 contexts x 2 metrics + their summary. */
static int generate(const char *dir)
{
	enum { THREADS = 64, CTX = 20000 };
	size_t n = (size_t)(THREADS + 1) * CTX * 2, k = 0;
	tw_pre_value *v = malloc(n * sizeof *v);
	if (!v)
		return -1;
	for (uint32_t p = 0; p <= THREADS; p++)
		for (uint32_t c = 0; c < CTX; c++) {
			double e = (double)(c % 97 + 1) * (p ? p : THREADS);
			v[k++] = (tw_pre_value){p, c, (uint16_t)(p ? 1 : 256), e};
			v[k++] = (tw_pre_value){p, c, (uint16_t)(p ? 2 : 512), 2 * e};
		}
	tw_pre d;
	tw_pre_sample(&d);
	d.n_profiles = THREADS + 1;
	d.n_ctx = CTX;
	d.values = v;
	d.n_values = k;
	d.n_traces = 0;
	int r = tw_pre_write_dir(&d, dir);
	free(v);
	return r;
}

int main(int argc, char **argv)
{
	const char *gen = NULL;
	int status = 0, a = 1;
	if (argc > 2 && strcmp(argv[1], "--generate") == 0) {
		gen = argv[2];
		a = 3;
	}
	if (a >= argc && !gen) {
		fprintf(stderr, "usage: %s [--generate DIR] DB-DIR...\n", argv[0]);
		return 2;
	}
	for (; a < argc; a++)
		status |= run(argv[a]);
	if (gen) {
		if (generate(gen) < 0) {
			fprintf(stderr, "%s: cannot write the synthetic database\n", gen);
			return 1;
		}
		status |= run(gen);
	}
	return status;
}
