/* bench-view-memory: does a view's peak memory grow with the view, not
 * blow up? (doc/PERFORMANCE.md, "The three views").
 *
 *   bench-view-memory PATH [top-down|bottom-up|flat ...]
 *
 * Each view is built in a child process of its own, so that its peak RSS is
 * its own: the child opens PATH, asks profdb_context_count() (which makes
 * Callgrind's reader decode every function once, as the flat view does),
 * takes the peak RSS so far as the base (mapping plus the reader's tables),
 * builds the view of the first metric with data over the default profiles,
 * and compares the peak with
 *
 *     bound = base + nodes x (NODE_BYTES + 16 x metrics) + SCRATCH_MIB
 *
 * where NODE_BYTES = 128 covers the node store's 96-byte node and the 8
 * bytes per node renumbering takes, with some slack, and SCRATCH_MIB = 32
 * the builders' tables per function and call edge (Callgrind's expanded
 * views build nodes the cut-off then folds). One line per view:
 *
 *   view-memory: input=<name> view=<v> nodes=<n> base_mib=<x> peak_mib=<x>
 *   bound_mib=<x> cpu_s=<x> within=<yes|no>
 *
 * Exit status 1 when a view is above its bound (or fails). Not a timed
 * test: bench/meson.build registers it with benchmark(). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profdb/profdb.h"

#define NODE_BYTES 128.0
#define SCRATCH_MIB 32.0

static double peak_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int pick(const profdb *db, uint32_t *id)
{
	int64_t n = profdb_metric_count(db);
	for (int64_t i = 0; i < n; i++) {
		profdb_metric m;
		if (profdb_metric_at(db, (uint32_t)i, &m) == 0 && m.has_data &&
		    (m.kind == PROFDB_METRIC_INCLUSIVE || m.kind == PROFDB_METRIC_EXCLUSIVE)) {
			*id = m.id;
			return 0;
		}
	}
	return -1;
}

/* The child: one view, one line, exit 0 (within), 1 (above) or 2 (error). */
static int one_view(const char *path, const char *base_name, const char *view,
                    profdb_tree_kind kind)
{
	profdb *db;
	uint32_t m;
	if (profdb_open(&db, path, NULL) < 0 || profdb_context_count(db) < 0 || pick(db, &m) < 0) {
		fprintf(stderr, "%s: %s\n", path, profdb_error_message());
		return 2;
	}
	double base = peak_mib(), c0 = cpu_s();
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	o.kind = kind;
	o.metrics = &m;
	o.n_metrics = 1;
	profdb_tree *t;
	if (profdb_tree_new(&t, db, &o) < 0) {
		fprintf(stderr, "%s: %s view: %s\n", path, view, profdb_error_message());
		return 2;
	}
	double cpu = cpu_s() - c0, peak = peak_mib();
	int64_t nodes = profdb_tree_count(t);
	double bound = base + (double)nodes * (NODE_BYTES + 16.0 * (double)o.n_metrics) / 1048576.0 +
	               SCRATCH_MIB;
	int within = peak <= bound;
	printf("view-memory: input=%s view=%s nodes=%" PRId64 " base_mib=%.1f peak_mib=%.1f "
	       "bound_mib=%.1f cpu_s=%.2f within=%s\n", base_name, view, nodes, base, peak, bound,
	       cpu, within ? "yes" : "no");
	profdb_tree_free(t);
	profdb_close(db);
	return within ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"top-down", "bottom-up", "flat"};
	if (argc < 2) {
		fprintf(stderr, "usage: bench-view-memory PATH [top-down|bottom-up|flat ...]\n");
		return 2;
	}
	const char *base = argv[1];
	for (const char *p = argv[1]; *p; p++)
		if (*p == '/' && p[1])
			base = p + 1;
	int status = 0;
	for (int k = 0; k < 3; k++) {
		int wanted = argc == 2;
		for (int a = 2; a < argc; a++)
			wanted |= strcmp(argv[a], names[k]) == 0;
		if (!wanted)
			continue;
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			int r = one_view(argv[1], base, names[k], (profdb_tree_kind)k);
			fflush(stdout);   /* _exit does not flush */
			_exit(r);
		}
		int ws;
		if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
			status = 1;
	}
	return status;
}
