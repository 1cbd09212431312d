/* bench-cube — performance of the Cube .cubex reader, through the public API
 * (linked against the shared library like any user).
 *
 *   bench-cube FILE.cubex [FILE.cubex...]
 *
 * Cases, named "cube/<file>/<case>" (one line each, bench.h):
 *   open_close      profdb_cube_open + profdb_cube_close (tar walk, anchor.xml
 *                   parse, index validation)
 *   scan_values     every (metric, cnode, location) through profdb_cube_value
 *                   on an open handle; ns per value, and the full scan in ms
 *   scan_rows       every (metric, cnode) row through profdb_cube_row;
 *                   ns per row
 *   open_scan_close a fresh open + every value + close: the work of
 *                   "cube_dump -m all -z stored" without the printing
 *   rss             VmHWM of the process after the cases above */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profdb.h>

#include "bench.h"

typedef struct ctx {
	const char *path;
	profdb_cube *cube;
	profdb_cube_info info;
	unsigned char *row;
	size_t row_size;
	uint64_t values;   /* per full scan */
} ctx;

static uint64_t do_open_close(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_cube *h;
		if (profdb_cube_open(&h, c->path, NULL) < 0)
			return 0;
		profdb_cube_close(h);
	}
	return n;
}

static uint64_t scan(profdb_cube *h, const profdb_cube_info *info)
{
	uint64_t done = 0;
	for (uint32_t m = 0; m < info->n_metrics; m++) {
		profdb_cube_metric mm;
		profdb_cube_metric_get(h, m, &mm);
		if (mm.dtype > PROFDB_CUBE_MAXDOUBLE)
			continue;
		for (uint32_t n = 0; n < info->n_cnodes; n++)
			for (uint32_t l = 0; l < info->n_locations; l++) {
				double d;
				if (profdb_cube_value(h, m, n, l, &d) < 0)
					return 0;
				bench_consume(bench_double_bits(d));
				done++;
			}
	}
	return done;
}

static uint64_t do_scan_values(void *arg, uint64_t n)
{
	ctx *c = arg;
	uint64_t done = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d = scan(c->cube, &c->info);
		if (!d)
			return 0;
		done += d;
	}
	return done;
}

static uint64_t do_scan_rows(void *arg, uint64_t n)
{
	ctx *c = arg;
	uint64_t done = 0;
	for (uint64_t i = 0; i < n; i++)
		for (uint32_t m = 0; m < c->info.n_metrics; m++)
			for (uint32_t k = 0; k < c->info.n_cnodes; k++) {
				if (profdb_cube_row(c->cube, m, k, c->row, c->row_size) < 0)
					return 0;
				bench_consume(c->row[0]);
				done++;
			}
	return done;
}

static uint64_t do_open_scan_close(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_cube *h;
		profdb_cube_info info;
		if (profdb_cube_open(&h, c->path, NULL) < 0)
			return 0;
		profdb_cube_get_info(h, &info);
		uint64_t d = scan(h, &info);
		profdb_cube_close(h);
		if (!d && info.n_metrics)
			return 0;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE.cubex...\n", argv[0]);
		return 2;
	}
	int status = 0;
	for (int a = 1; a < argc; a++) {
		ctx c;
		memset(&c, 0, sizeof c);
		c.path = argv[a];
		const char *base = strrchr(c.path, '/');
		base = base ? base + 1 : c.path;
		char name[512];
		if (profdb_cube_open(&c.cube, c.path, NULL) < 0) {
			fprintf(stderr, "%s: %s\n", c.path, profdb_error_message());
			status = 1;
			continue;
		}
		profdb_cube_get_info(c.cube, &c.info);
		for (uint32_t m = 0; m < c.info.n_metrics; m++) {
			profdb_cube_metric mm;
			profdb_cube_metric_get(c.cube, m, &mm);
			size_t rb = (size_t)mm.value_size * c.info.n_locations;
			if (rb > c.row_size)
				c.row_size = rb;
		}
		c.row = malloc(c.row_size + 1);
		if (!c.row)
			return 1;
		c.values = scan(c.cube, &c.info);

		bench_result r = bench_measure(do_open_close, &c);
		snprintf(name, sizeof name, "cube/%s/open_close", base);
		bench_print(name, &r, "open_ms=%.3f", r.median / 1e6);

		r = bench_measure(do_scan_values, &c);
		snprintf(name, sizeof name, "cube/%s/scan_values", base);
		bench_print(name, &r, "values=%llu, full_scan_ms=%.3f", (unsigned long long)c.values,
		            r.median * (double)c.values / 1e6);

		r = bench_measure(do_scan_rows, &c);
		snprintf(name, sizeof name, "cube/%s/scan_rows", base);
		bench_print(name, &r, "rows=%llu",
		            (unsigned long long)c.info.n_metrics * c.info.n_cnodes);

		r = bench_measure(do_open_scan_close, &c);
		snprintf(name, sizeof name, "cube/%s/open_scan_close", base);
		bench_print(name, &r, "ms=%.3f", r.median / 1e6);

		bench_mem mem = bench_mem_now();
		snprintf(name, sizeof name, "cube/%s/rss", base);
		bench_print_value(name, "vm_hwm_kib=%ld, vm_rss_kib=%ld", mem.hwm_kib, mem.rss_kib);
		free(c.row);
		profdb_cube_close(c.cube);
	}
	return status;
}
