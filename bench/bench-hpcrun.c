/* hpcrun measurements-directory benchmark: writes a directory of N
 * synthetic .hpcrun files (one per thread, test writer's layout, version
 * 04.00 by default) plus a .hpctrace per file, then measures
 *   hpcrun/open_close:  profdb_hpcrun_open of the directory + close
 *                       (files/s = files per second of open);
 *   hpcrun/scan_values: open, every node of every profile (node_count,
 *                       values, run_at), close (values/s);
 *   hpcrun/inclusive:   open, the inclusive table of every profile, close;
 *   hpcrun/query_scan:  the same directory through the common interface:
 *                       profdb_open, a PROFDB_SCAN_ALL cursor over every
 *                       value (which builds the merged context tree), close;
 *   hpcrun/peak_rss:    VmHWM / RssAnon of this process after the runs.
 *
 * usage: bench-hpcrun [--files N] [--nodes N] [--metrics N] [--version 2|3|4] [--keep] [DIR]
 * (default 4096 files x 200 nodes x 4 metrics, 30% of (node, metric) pairs
 * stored, in a fresh directory under /tmp that is removed at the end). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profdb/profdb.h>

#include "bench.h"
#include "writer.h"

typedef struct cfg {
	const char *dir;
	uint32_t files, nodes, metrics;
	unsigned version;
	uint64_t values;    /* stored values in the whole directory (counted by the scan) */
	uint64_t query_values; /* the same through the common interface */
	uint64_t bytes;
} cfg;

static int write_file(const char *path, const tw_blob *b)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->data, 1, b->size, f) != b->size || fclose(f) != 0)
		return -1;
	return 0;
}

static int generate(cfg *c)
{
	bench_rng rng;
	bench_rng_seed(&rng, 42);
	tw_hpcrun_node *nodes = calloc(c->nodes, sizeof *nodes);
	tw_hpcrun_value *vals = calloc((size_t)c->nodes * c->metrics, sizeof *vals);
	tw_hpcrun_metric *mets = calloc(c->metrics, sizeof *mets);
	tw_hpctrace_rec *recs = calloc(1000, sizeof *recs);
	char (*names)[32] = calloc(c->metrics, sizeof *names);
	if (!nodes || !vals || !mets || !recs || !names)
		return -1;
	for (uint32_t m = 0; m < c->metrics; m++) {
		snprintf(names[m], sizeof names[m], "metric-%u", m);
		mets[m].name = names[m];
		mets[m].is_real = m % 2 == 0;
		mets[m].period = 1;
	}
	tw_hpcrun d;
	tw_hpcrun_sample(&d, c->version, 1);
	d.metrics = mets;
	d.n_metrics = c->metrics;
	d.nodes = nodes;
	d.n_nodes = c->nodes;
	d.values = vals;
	for (uint32_t f = 0; f < c->files; f++) {
		d.n_values = 0;
		for (uint32_t i = 0; i < c->nodes; i++) {
			int leaf = i > 0 && bench_rng_below(&rng, 3) == 0;
			nodes[i].id = (int32_t)(2 * i + 1) * (leaf && c->version < 4 ? -1 : 1);
			nodes[i].parent_id = i ? (uint32_t)(2 * bench_rng_below(&rng, i) + 1) : 0;
			nodes[i].lm_id = (uint16_t)(1 + i % 3);
			nodes[i].ip = 0x1000 + 16 * i;
			nodes[i].flags = 1;
			for (uint32_t m = 0; m < c->metrics; m++)
				if (bench_rng_below(&rng, 10) < 3) {
					tw_hpcrun_value *v = &vals[d.n_values++];
					v->node = i;
					v->metric = (uint16_t)m;
					v->bits = m % 2 == 0 ? tw_hpcrun_f64(0.001 * (double)(1 + i % 7))
					                     : 1 + i % 100;
				}
		}
		/* a leaf id from the sample's parent chain must stay positive for
		 * parents: negative ids were only given to nodes nobody names */
		for (uint32_t i = 0; i < c->nodes; i++)
			if (nodes[i].id < 0)
				for (uint32_t k = i + 1; k < c->nodes; k++)
					if (nodes[k].parent_id == (uint32_t)-nodes[i].id) {
						nodes[i].id = -nodes[i].id;
						break;
					}
		tw_blob b, t;
		char path[4096];
		if (tw_hpcrun_write(&d, &b) != 0)
			return -1;
		snprintf(path, sizeof path, "%s/bench-%06u-000-7f000101-%u-0.hpcrun", c->dir, f,
		         1000 + f);
		if (write_file(path, &b) < 0)
			return -1;
		c->bytes += b.size;
		free(b.data);
		for (uint32_t k = 0; k < 1000; k++) {
			recs[k].time = TW_HPCRUN_T0 + 1000000u * k + bench_rng_below(&rng, 1000);
			recs[k].cct_id = 2 * (uint32_t)bench_rng_below(&rng, c->nodes) + 1;
		}
		if (tw_hpctrace_write(0, recs, 1000, &t) != 0)
			return -1;
		snprintf(path, sizeof path, "%s/bench-%06u-000-7f000101-%u-0.hpctrace", c->dir, f,
		         1000 + f);
		if (write_file(path, &t) < 0)
			return -1;
		c->bytes += t.size;
		free(t.data);
	}
	free(nodes);
	free(vals);
	free(mets);
	free(recs);
	free(names);
	return 0;
}

static profdb_hpcrun *open_dir(const cfg *c)
{
	profdb_hpcrun *h;
	if (profdb_hpcrun_open(&h, c->dir, NULL) < 0) {
		fprintf(stderr, "open: %s\n", profdb_error_message());
		exit(1);
	}
	return h;
}

static uint64_t op_open(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		profdb_hpcrun *h = open_dir(arg);
		bench_consume((uint64_t)profdb_hpcrun_profile_count(h));
		profdb_hpcrun_close(h);
	}
	return n;
}

static uint64_t scan(const profdb_hpcrun *h)
{
	uint64_t values = 0, sum = 0;
	int64_t np = profdb_hpcrun_profile_count(h);
	for (uint32_t p = 0; p < np; p++) {
		int64_t nn = profdb_hpcrun_node_count(h, p);
		if (nn < 0)
			exit(1);
		for (uint32_t i = 0; i < nn; i++) {
			profdb_view run;
			if (profdb_hpcrun_values(h, p, i, &run) < 0)
				exit(1);
			PROFDB_VIEW_FOREACH(&run, k)
				sum += profdb_view_value(&run, k).as.u64 ^ profdb_view_key(&run, k);
			values += run.count;
		}
	}
	bench_consume(sum);
	return values;
}

static uint64_t op_scan(void *arg, uint64_t n)
{
	cfg *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_hpcrun *h = open_dir(c);
		c->values = scan(h);
		profdb_hpcrun_close(h);
	}
	return n;
}

static uint64_t op_inclusive(void *arg, uint64_t n)
{
	cfg *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb_hpcrun *h = open_dir(c);
		int64_t np = profdb_hpcrun_profile_count(h);
		for (uint32_t p = 0; p < np; p++) {
			uint64_t bits;
			if (profdb_hpcrun_inclusive(h, p, 0, 0, &bits) < 0)
				exit(1);
			bench_consume(bits);
		}
		profdb_hpcrun_close(h);
	}
	return n;
}

static uint64_t op_query_scan(void *arg, uint64_t n)
{
	cfg *c = arg;
	for (uint64_t i = 0; i < n; i++) {
		profdb *db;
		profdb_values *it;
		profdb_entry e;
		uint64_t k = 0;
		if (profdb_open(&db, c->dir, NULL) < 0 ||
		    profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0) < 0) {
			fprintf(stderr, "query: %s\n", profdb_error_message());
			exit(1);
		}
		int r;
		while ((r = profdb_values_next(it, &e)) == 1)
			k++;
		if (r < 0)
			exit(1);
		bench_consume(k);
		c->query_values = k;
		profdb_values_free(it);
		profdb_close(db);
	}
	return n;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	cfg c = {NULL, 4096, 200, 4, 4, 0, 0, 0};
	int keep = 0;
	char tmp[] = "/tmp/profdb-bench-hpcrun-XXXXXX";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--files") == 0 && i + 1 < argc)
			c.files = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
			c.nodes = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--metrics") == 0 && i + 1 < argc)
			c.metrics = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc)
			c.version = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--keep") == 0)
			keep = 1;
		else
			c.dir = argv[i];
	}
	if (c.nodes < 1 || c.metrics < 1 || c.files < 1 || c.version < 2 || c.version > 4) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	if (!c.dir) {
		if (!mkdtemp(tmp))
			return 1;
		c.dir = tmp;
	} else {
		mkdir(c.dir, 0777);
	}
	double t0 = bench_now_ns();
	if (generate(&c) < 0) {
		fprintf(stderr, "cannot write %s\n", c.dir);
		return 1;
	}
	bench_print_value("hpcrun/generate", "files=%u, nodes=%u, metrics=%u, version=%u, "
	                  "bytes=%llu, seconds=%.2f", 2 * c.files, c.nodes, c.metrics, c.version,
	                  (unsigned long long)c.bytes, (bench_now_ns() - t0) * 1e-9);
	bench_mem m0 = bench_mem_now();
	bench_result r = bench_measure(op_open, &c);
	bench_print("hpcrun/open_close", &r, "files=%u, files_per_s=%.0f", 2 * c.files,
	            r.failed ? 0 : 2.0 * c.files / (r.median * 1e-9));
	r = bench_measure(op_scan, &c);
	bench_print("hpcrun/scan_values", &r, "values=%llu, values_per_s=%.3g, files_per_s=%.0f",
	            (unsigned long long)c.values,
	            r.failed ? 0 : (double)c.values / (r.median * 1e-9),
	            r.failed ? 0 : 2.0 * c.files / (r.median * 1e-9));
	r = bench_measure(op_inclusive, &c);
	bench_print("hpcrun/inclusive", &r, "profiles=%u, cells=%llu", c.files,
	            (unsigned long long)c.files * c.nodes * c.metrics);
	r = bench_measure(op_query_scan, &c);
	bench_print("hpcrun/query_scan", &r, "values=%llu, values_per_s=%.3g, files_per_s=%.0f",
	            (unsigned long long)c.query_values,
	            r.failed ? 0 : (double)c.query_values / (r.median * 1e-9),
	            r.failed ? 0 : 2.0 * c.files / (r.median * 1e-9));
	bench_mem m1 = bench_mem_now();
	bench_print_value("hpcrun/peak_rss", "hwm_kib=%ld, anon_kib=%ld, anon_before_kib=%ld, "
	                  "file_kib=%ld", m1.hwm_kib, m1.anon_kib, m0.anon_kib, m1.file_kib);
	if (!keep)
		remove_dir(c.dir);
	return 0;
}
