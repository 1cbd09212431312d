/* bench-cube — performance of the Cube .cubex reader, through the public API
 * (linked against the shared library like any user).
 *
 *   bench-cube FILE.cubex [FILE.cubex...]        real files
 *   bench-cube --synth PATH CNODES LOCATIONS     write PATH (plain rows) first
 *   bench-cube --zsynth PATH CNODES LOCATIONS    write PATH (ZCUBEX rows) first
 *
 * The synthetic archives come from the test-data writer (tw_cube_write_big,
 * tests/writer/cube.c): an 8-ary call tree, two DENSE metrics (DOUBLE,
 * UINT64), CNODES x LOCATIONS x 16 bytes of rows (20000 x 1600 is 512 MB).
 *
 * Every case runs in a fresh child process (fork), so its memory figures are
 * its own: one line per case, "cube/<file>/<case>: median=... ns/op, ...,
 * peak_rss_kib=<VmHWM of the child>, base_rss_kib=<RSS before the case>,
 * op_anon_kib / op_file_kib=<RssAnon / RssFile growth of ONE operation on a
 * freshly opened handle>" (anonymous = heap the library allocated; file =
 * archive pages the operation touched through the mapping).
 *
 * Cases:
 *   open            profdb_cube_open + close (tar walk, anchor.xml parse,
 *                   index validation; no row is touched)
 *   read_row        the first read of one row of metric M (a fresh handle
 *                   per repetition: for ZCUBEX this includes inflating it)
 *   read_row_again  the same row again on the same handle (cached)
 *   read_metric     every row of metric M once, on a fresh handle
 *   scan_values     every (metric, cnode, location) value (real files)
 *   lookup          profdb_cube_value_get at random (metric, cnode, location)
 *   severity_root   call-tree inclusive value of the first root over every
 *                   location (reads every row of the metric) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profdb/profdb.h"

#include "bench.h"
#include "writer.h"

typedef struct ctx {
	const char *path;
	profdb_cube *cube;
	profdb_cube_info info;
	unsigned char *row;
	size_t row_size;
	uint32_t metric;   /* the metric read_* and severity_root use */
	uint32_t cnode;    /* the row read_row reads */
	bench_rng rng;
} ctx;

static int ctx_open(ctx *c)
{
	if (profdb_cube_open(&c->cube, c->path, NULL) < 0)
		return -1;
	profdb_cube_get_info(c->cube, &c->info);
	c->row_size = 0;
	c->metric = PROFDB_NONE;
	for (uint32_t m = 0; m < c->info.n_metrics; m++) {
		profdb_cube_metric mm;
		profdb_cube_metric_get(c->cube, m, &mm);
		size_t rb = (size_t)mm.value_size * c->info.n_locations;
		if (rb > c->row_size)
			c->row_size = rb;
		/* the first metric with data and one number per cell */
		if (c->metric == PROFDB_NONE && mm.has_data && mm.dtype <= PROFDB_CUBE_MAXDOUBLE)
			c->metric = m;
	}
	if (c->metric == PROFDB_NONE)
		c->metric = 0;
	c->cnode = c->info.n_cnodes / 2;
	free(c->row);
	c->row = malloc(c->row_size + 1);
	if (c->row) /* touched now, so the cases measure the library, not this buffer */
		memset(c->row, 0, c->row_size + 1);
	return c->row ? 0 : -1;
}

static void ctx_close(ctx *c)
{
	profdb_cube_close(c->cube);
	c->cube = NULL;
}

static void hook_open(void *arg)
{
	if (ctx_open(arg) < 0)
		fprintf(stderr, "open: %s\n", profdb_error_message());
}

static void hook_close(void *arg)
{
	ctx_close(arg);
}

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

static uint64_t do_read_row(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		if (!c->cube || profdb_cube_row_get(c->cube, c->cnode, c->metric, c->row, c->row_size) < 0)
			return 0;
		bench_consume(c->row[0]);
	}
	return n;
}

static uint64_t do_read_metric(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < c->info.n_cnodes; k++) {
			if (!c->cube || profdb_cube_row_get(c->cube, k, c->metric, c->row, c->row_size) < 0)
				return 0;
			bench_consume(c->row[0]);
		}
	return n;
}

static uint64_t do_lookup(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t m = (uint32_t)bench_rng_below(&c->rng, c->info.n_metrics);
		uint32_t k = (uint32_t)bench_rng_below(&c->rng, c->info.n_cnodes);
		uint32_t l = (uint32_t)bench_rng_below(&c->rng, c->info.n_locations);
		double d;
		if (profdb_cube_value_get(c->cube, l, k, m, &d) < 0 &&
		    profdb_cube_value_get(c->cube, l, k, c->metric, &d) < 0)
			return 0;
		bench_consume(bench_double_bits(d));
	}
	return n;
}

static uint64_t do_severity_root(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		double d;
		if (profdb_cube_severity_get(c->cube, PROFDB_CUBE_ITEM_CUBE, 0, c->info.first_root,
		                         c->metric, PROFDB_CUBE_CALL_INCLUSIVE, &d) < 0)
			return 0;
		bench_consume(bench_double_bits(d));
	}
	return n;
}

/* Every value of every metric whose cells are one number; 0 on failure. */
static uint64_t do_scan_values(void *arg, uint64_t n)
{
	ctx *c = arg;
	uint64_t done = 0;
	for (uint64_t i = 0; i < n; i++)
		for (uint32_t m = 0; m < c->info.n_metrics; m++) {
			profdb_cube_metric mm;
			profdb_cube_metric_get(c->cube, m, &mm);
			if (mm.dtype > PROFDB_CUBE_MAXDOUBLE)
				continue;
			for (uint32_t k = 0; k < c->info.n_cnodes; k++)
				for (uint32_t l = 0; l < c->info.n_locations; l++) {
					double d;
					if (profdb_cube_value_get(c->cube, l, k, m, &d) < 0)
						return 0;
					bench_consume(bench_double_bits(d));
					done++;
				}
		}
	return done;
}

typedef struct bcase {
	const char *name;
	bench_fn fn;
	int fresh;   /* a fresh handle per repetition (one-shot), else one handle */
} bcase;

/* One case in a fresh child process; returns its exit status. */
static int run_case(const char *path, const char *label, const bcase *k)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		int st;
		return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	ctx c;
	memset(&c, 0, sizeof c);
	c.path = path;
	bench_rng_seed(&c.rng, 42);
	bench_mem base = bench_mem_now();
	/* First, one operation on a new handle: what it makes resident. Done
	 * before the timed runs, whose freed rows would be reused (and raise
	 * malloc's mmap threshold) and hide the growth. */
	int is_open = k->fn == do_open_close;
	bench_mem m0 = base, m1;
	if (is_open) {
		if (ctx_open(&c) < 0)
			_exit(1);
		m1 = bench_mem_now();
	} else {
		if (ctx_open(&c) < 0)
			_exit(1);
		if (k->fn == do_read_row && !k->fresh) /* read_row_again: cache the row first */
			k->fn(&c, 1);
		m0 = bench_mem_now();
		k->fn(&c, 1);
		m1 = bench_mem_now();
	}
	ctx_close(&c);
	if (!is_open && !k->fresh && ctx_open(&c) < 0)
		_exit(1);
	bench_result r = k->fresh ? bench_measure_hooks(k->fn, &c, hook_open, hook_close)
	                          : bench_measure(k->fn, &c);
	char name[600];
	snprintf(name, sizeof name, "cube/%s/%s", label, k->name);
	bench_mem peak = bench_mem_now();
	bench_print(name, &r, "ms=%.3f, peak_rss_kib=%ld, base_rss_kib=%ld, op_anon_kib=%ld, "
	            "op_file_kib=%ld, metric=%u, cnodes=%u, locations=%u, row_bytes=%zu",
	            r.median / 1e6, peak.hwm_kib, base.rss_kib, m1.anon_kib - m0.anon_kib,
	            m1.file_kib - m0.file_kib, c.metric, c.info.n_cnodes, c.info.n_locations,
	            c.row_size);
	if (c.cube)
		ctx_close(&c);
	free(c.row);
	_exit(r.failed);
}

static const bcase real_cases[] = {
	{"open", do_open_close, 0},         {"read_row", do_read_row, 1},
	{"read_row_again", do_read_row, 0}, {"read_metric", do_read_metric, 1},
	{"scan_values", do_scan_values, 0}, {"lookup", do_lookup, 0},
	{"severity_root", do_severity_root, 0},
};

static const bcase synth_cases[] = {
	{"open", do_open_close, 0},         {"read_row", do_read_row, 1},
	{"read_row_again", do_read_row, 0}, {"read_metric", do_read_metric, 1},
	{"lookup", do_lookup, 0},           {"severity_root", do_severity_root, 0},
};

static int run_file(const char *path, const bcase *cases, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int status = 0;
	for (size_t i = 0; i < n; i++)
		status |= run_case(path, base, &cases[i]);
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE.cubex... | --synth|--zsynth PATH CNODES LOCATIONS\n",
		        argv[0]);
		return 2;
	}
	int zip = !strcmp(argv[1], "--zsynth");
	if (zip || !strcmp(argv[1], "--synth")) {
		if (argc != 5) {
			fprintf(stderr, "usage: %s %s PATH CNODES LOCATIONS\n", argv[0], argv[1]);
			return 2;
		}
		double t0 = bench_now_ns();
		int r = tw_cube_write_big(argv[2], (uint32_t)strtoul(argv[3], NULL, 10),
		                          (uint32_t)strtoul(argv[4], NULL, 10),
		                          zip ? TW_CUBE_ZCUBEX : 0);
		if (r < 0) {
			fprintf(stderr, "%s: cannot write (%d)\n", argv[2], r);
			return 1;
		}
		FILE *f = fopen(argv[2], "rb");
		long size = -1;
		if (f && fseek(f, 0, SEEK_END) == 0)
			size = ftell(f);
		if (f)
			fclose(f);
		bench_print_value(zip ? "cube/zsynth/write" : "cube/synth/write",
		                  "ms=%.0f, file_bytes=%ld, row_bytes_total=%llu",
		                  (bench_now_ns() - t0) / 1e6, size,
		                  (unsigned long long)strtoull(argv[3], NULL, 10) *
		                      strtoull(argv[4], NULL, 10) * 16);
		return run_file(argv[2], synth_cases, sizeof synth_cases / sizeof synth_cases[0]);
	}
	int status = 0;
	for (int a = 1; a < argc; a++)
		status |= run_file(argv[a], real_cases, sizeof real_cases / sizeof real_cases[0]);
	return status;
}
