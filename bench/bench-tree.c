/* bench-tree: the three views (profdb_tree_new) on real samples.
 *
 *   bench-tree PATH...
 *
 * For every input: open it once, pick the metric `profdb tree` picks (the
 * first inclusive or exclusive metric with data), then build each view
 * (top-down, bottom-up, flat) three times with the default options and
 * print the best wall time, the node count and the process's peak RSS so
 * far. The open is not timed (doc/PERFORMANCE.md has the open costs). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "profdb/profdb.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int pick(const profdb *db, uint32_t *id)
{
	int64_t n = profdb_metric_count(db);
	for (int pass = 0; pass < 2; pass++)
		for (int64_t i = 0; i < n; i++) {
			profdb_metric m;
			if (profdb_metric_at(db, (uint32_t)i, &m) < 0 || !m.has_data)
				continue;
			if (pass == 0 && m.kind != PROFDB_METRIC_INCLUSIVE &&
			    m.kind != PROFDB_METRIC_EXCLUSIVE)
				continue;
			*id = m.id;
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"top-down", "bottom-up", "flat"};
	printf("%-40s %-10s %10s %10s %10s\n", "input", "view", "ms", "nodes", "peak MB");
	for (int a = 1; a < argc; a++) {
		profdb *db;
		uint32_t m;
		if (profdb_open(&db, argv[a], NULL) < 0 || pick(db, &m) < 0) {
			fprintf(stderr, "%s: %s\n", argv[a], profdb_error_message());
			return 1;
		}
		const char *base = argv[a];
		for (const char *p = argv[a]; *p; p++)
			if (*p == '/' && p[1])
				base = p + 1;
		for (int k = 0; k < 3; k++) {
			double best = 1e30;
			int64_t nodes = 0;
			for (int rep = 0; rep < 3; rep++) {
				profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
				o.kind = (profdb_tree_kind)k;
				o.metrics = &m;
				o.n_metrics = 1;
				profdb_tree *t;
				double t0 = now();
				if (profdb_tree_new(&t, db, &o) < 0) {
					fprintf(stderr, "%s: %s\n", argv[a], profdb_error_message());
					return 1;
				}
				double dt = now() - t0;
				best = dt < best ? dt : best;
				nodes = profdb_tree_count(t);
				profdb_tree_free(t);
			}
			printf("%-40.40s %-10s %10.1f %10" PRId64 " %10.1f\n", base, names[k], best * 1e3,
			       nodes, (double)peak_kb() / 1024);
		}
		profdb_close(db);
	}
	return 0;
}
