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
 *   lookup          profdb_cube_value at random (metric, cnode, location)
 *   severity_root   profdb_cube_severity of the first root, call-tree
 *                   inclusive, summed over every location (the whole tree)
 *   rss             VmHWM of the process after the cases above
 *
 *   bench-cube --synth PATH CNODES LOCATIONS
 * writes a synthetic archive first (an 8-ary call tree, two DENSE metrics,
 * DOUBLE and UINT64, CNODES x LOCATIONS x 16 bytes of rows; 20000 x 1600 is
 * 512 MB) and measures open_close, lookup, read_metric (every row of one
 * metric, once) and severity_root on it, then rss. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profdb.h>

#include "bench.h"

/* ---- the synthetic archive -------------------------------------------------- */

static int tar_header(FILE *f, const char *name, uint64_t size)
{
	unsigned char h[512];
	memset(h, 0, sizeof h);
	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000600", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	memcpy(h + 136, "00000000000", 12);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	char ck[8];
	snprintf(ck, sizeof ck, "%06o", sum);
	memcpy(h + 148, ck, 7);
	return fwrite(h, 1, 512, f) == 512 ? 0 : -1;
}

static int tar_pad(FILE *f, uint64_t size)
{
	static const unsigned char zero[512];
	size_t pad = (size_t)((512 - size % 512) % 512);
	return fwrite(zero, 1, pad, f) == pad ? 0 : -1;
}

static double synth_value(uint32_t c, uint32_t l)
{
	return (double)c * 0.5 + (double)l * 0.001;
}

/* cnode i's parent is (i - 1) / 8: emit the XML depth first, and the deep
 * (document) order that addresses the rows of EXCLUSIVE metrics. */
static void synth_tree(FILE *f, uint32_t i, uint32_t n, uint32_t *deep, uint32_t *k)
{
	deep[(*k)++] = i;
	fprintf(f, "<cnode id=\"%u\" calleeId=\"%u\">", i, i % 64);
	for (uint32_t ch = 8 * i + 1; ch <= 8 * i + 8 && ch < n; ch++)
		synth_tree(f, ch, n, deep, k);
	fprintf(f, "</cnode>\n");
}

static int synth_write(const char *path, uint32_t nc, uint32_t nl)
{
	FILE *f = fopen(path, "wb");
	uint32_t *deep = malloc((size_t)nc * sizeof *deep), k = 0;
	double *row = malloc((size_t)nl * 8);
	if (!f || !deep || !row)
		return -1;
	int r = 0;
	for (int m = 0; m < 2 && r == 0; m++) {
		char name[32];
		uint64_t size = 10 + (uint64_t)nc * nl * 8;
		snprintf(name, sizeof name, "%d.data", m);
		r |= tar_header(f, name, size);
		r |= fwrite("CUBEX.DATA", 1, 10, f) != 10;
		if (m == 0) {
			/* deep order without writing the XML yet */
			FILE *nul = fopen("/dev/null", "w");
			if (!nul)
				return -1;
			synth_tree(nul, 0, nc, deep, &k);
			fclose(nul);
		}
		for (uint32_t p = 0; p < nc && r == 0; p++) {
			for (uint32_t l = 0; l < nl; l++) {
				double v = synth_value(deep[p], l);
				if (m == 0) {
					row[l] = v;
				} else {
					uint64_t u = (uint64_t)(v * 2);
					memcpy(&row[l], &u, 8);
				}
			}
			r |= fwrite(row, 8, nl, f) != nl;
		}
		r |= tar_pad(f, size);
		static const unsigned char idx[18] = {'C', 'U', 'B', 'E', 'X', '.', 'I', 'N', 'D', 'E',
		                                      'X', 1, 0, 0, 0, 0, 0, 3};
		snprintf(name, sizeof name, "%d.index", m);
		r |= tar_header(f, name, sizeof idx);
		r |= fwrite(idx, 1, sizeof idx, f) != sizeof idx;
		r |= tar_pad(f, sizeof idx);
	}
	/* the anchor goes through a temporary file to learn its size */
	FILE *a = tmpfile();
	if (!a)
		return -1;
	fprintf(a, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
	        "<metrics><metric id=\"0\" type=\"EXCLUSIVE\"><uniq_name>time</uniq_name>"
	        "<dtype>DOUBLE</dtype></metric><metric id=\"1\" type=\"EXCLUSIVE\">"
	        "<uniq_name>visits</uniq_name><dtype>UINT64</dtype></metric></metrics>\n<program>\n");
	for (uint32_t g = 0; g < 64; g++)
		fprintf(a, "<region id=\"%u\" mod=\"s.c\"><name>f%u</name></region>\n", g, g);
	k = 0;
	synth_tree(a, 0, nc, deep, &k);
	fprintf(a, "</program>\n<system><systemtreenode Id=\"0\"><name>m</name><class>machine"
	        "</class>\n");
	for (uint32_t l = 0; l < nl; l++) {
		if (l % 16 == 0)
			fprintf(a, "<locationgroup Id=\"%u\"><name>rank %u</name><rank>%u</rank>"
			        "<type>process</type>\n", l / 16, l / 16, l / 16);
		fprintf(a, "<location Id=\"%u\"><name>t</name><rank>%u</rank><type>thread</type>"
		        "</location>\n", l, l % 16);
		if (l % 16 == 15 || l + 1 == nl)
			fprintf(a, "</locationgroup>\n");
	}
	fprintf(a, "</systemtreenode></system>\n</cube>\n");
	long asz = ftell(a);
	rewind(a);
	r |= tar_header(f, "anchor.xml", (uint64_t)asz);
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, a)) > 0)
		r |= fwrite(buf, 1, got, f) != got;
	r |= tar_pad(f, (uint64_t)asz);
	static const unsigned char end[1024];
	r |= fwrite(end, 1, sizeof end, f) != sizeof end;
	fclose(a);
	r |= fclose(f) != 0;
	free(deep);
	free(row);
	return r ? -1 : 0;
}

typedef struct ctx {
	const char *path;
	profdb_cube *cube;
	profdb_cube_info info;
	unsigned char *row;
	size_t row_size;
	uint64_t values;   /* per full scan */
	bench_rng rng;
} ctx;

static uint64_t do_lookup(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t m = (uint32_t)bench_rng_below(&c->rng, c->info.n_metrics);
		uint32_t k = (uint32_t)bench_rng_below(&c->rng, c->info.n_cnodes);
		uint32_t l = (uint32_t)bench_rng_below(&c->rng, c->info.n_locations);
		double d;
		if (profdb_cube_value(c->cube, m, k, l, &d) < 0 && profdb_cube_value(c->cube, 0, k, l,
		                                                                     &d) < 0)
			return 0;
		bench_consume(bench_double_bits(d));
	}
	return n;
}

static uint64_t do_read_metric(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < c->info.n_cnodes; k++) {
			if (profdb_cube_row(c->cube, 0, k, c->row, c->row_size) < 0)
				return 0;
			bench_consume(c->row[0]);
		}
	return n;
}

static uint64_t do_severity_root(void *arg, uint64_t n)
{
	ctx *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		double d;
		if (profdb_cube_severity(c->cube, 0, c->info.first_root, PROFDB_CUBE_ITEM_CUBE, 0,
		                         PROFDB_CUBE_CALL_INCLUSIVE, &d) < 0)
			return 0;
		bench_consume(bench_double_bits(d));
	}
	return n;
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
	int status = 0, synth = 0, first = 1;
	if (!strcmp(argv[1], "--synth")) {
		if (argc != 5) {
			fprintf(stderr, "usage: %s --synth PATH CNODES LOCATIONS\n", argv[0]);
			return 2;
		}
		double t0 = bench_now_ns();
		if (synth_write(argv[2], (uint32_t)strtoul(argv[3], NULL, 10),
		                (uint32_t)strtoul(argv[4], NULL, 10)) < 0) {
			fprintf(stderr, "%s: cannot write\n", argv[2]);
			return 1;
		}
		bench_print_value("cube/synth/write", "ms=%.0f", (bench_now_ns() - t0) / 1e6);
		synth = 1;
		first = 2;
		argc = 3;
	}
	for (int a = first; a < argc; a++) {
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
		bench_rng_seed(&c.rng, 42);
		bench_result r = bench_measure(do_open_close, &c);
		snprintf(name, sizeof name, "cube/%s/open_close", base);
		bench_print(name, &r, "open_ms=%.3f", r.median / 1e6);

		r = bench_measure(do_lookup, &c);
		snprintf(name, sizeof name, "cube/%s/lookup", base);
		bench_print(name, &r, "random (metric, cnode, location)");

		r = bench_measure(do_severity_root, &c);
		snprintf(name, sizeof name, "cube/%s/severity_root", base);
		bench_print(name, &r, "ms=%.3f, cnodes=%u, locations=%u", r.median / 1e6,
		            c.info.n_cnodes, c.info.n_locations);

		if (synth) {
			double t0 = bench_now_ns();
			do_read_metric(&c, 1);
			double ms = (bench_now_ns() - t0) / 1e6;
			snprintf(name, sizeof name, "cube/%s/read_metric", base);
			bench_print_value(name, "ms=%.1f, MB=%.0f, rows=%u", ms,
			                  (double)c.info.n_cnodes * c.row_size / 1e6, c.info.n_cnodes);
			bench_mem mem = bench_mem_now();
			snprintf(name, sizeof name, "cube/%s/rss", base);
			bench_print_value(name, "vm_hwm_kib=%ld, vm_rss_kib=%ld", mem.hwm_kib,
			                  mem.rss_kib);
			free(c.row);
			profdb_cube_close(c.cube);
			continue;
		}
		c.values = scan(c.cube, &c.info);

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
