/* Callgrind parse benchmark: wall time and peak RSS of profdb_cg_open (plain
 * and gzip input, plus the first inclusive query) against callgrind_annotate
 * on the same file, each measured in its own child process (wait4 rusage).
 *
 * usage: bench-callgrind [--runs N] [--no-annotate] [--tool PROFDB] FILE[.gz]
 *
 * With --tool, the `profdb top` command (default: by exclusive cost; and
 * --inclusive) is timed the same way: the whole process, open to output.
 *
 * A .gz input is decompressed once (gzip -dc) into a temporary plain file,
 * since callgrind_annotate reads only plain text. One line per case:
 *   callgrind-<case>: avg=<s> min=<s> peak_rss=<MiB> runs=<n> [functions=.. calls=..] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profdb/profdb.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parse @p path; with @p incl also build the inclusive table. Exit status
 * 0 on success; prints counts when @p report. */
static int parse_once(const char *path, int incl, int report)
{
	profdb_cg *cg;
	int r = profdb_cg_open(&cg, path, NULL);
	if (r < 0) {
		fprintf(stderr, "%s\n", profdb_error_message());
		return 1;
	}
	if (incl && profdb_cg_function_count(cg) > 0) {
		const uint64_t *c;
		if (profdb_cg_inclusive(cg, PROFDB_CG_ALL, 0, &c) < 0)
			return 1;
	}
	if (report)
		printf("  functions=%lld calls=%lld events=%lld\n",
		       (long long)profdb_cg_function_count(cg), (long long)profdb_cg_call_count(cg),
		       (long long)profdb_cg_event_count(cg));
	profdb_cg_close(cg);
	return 0;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The steps of `profdb top` through the common interface, in CPU time:
 * open (functions only, as the tool's top does), the context tree (first
 * context_get), and a walk over every context asking its exclusive cost of
 * event 0. Then the same with line contexts: the count (which decodes
 * every function) and a walk over the whole tree by its links. */
static int query_steps(const char *path)
{
	profdb *db;
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = PROFDB_OPEN_FUNCTIONS_ONLY;
	double t0 = cpu_now();
	if (profdb_open(&db, path, &o) < 0) {
		fprintf(stderr, "%s\n", profdb_error_message());
		return 1;
	}
	double t1 = cpu_now();
	uint32_t root;
	profdb_context c;
	if (profdb_context_root(db, &root) < 0 || profdb_context_get(db, root, &c) < 0)
		return 1;
	double t2 = cpu_now();
	int64_t n = profdb_context_count(db);
	double sum = 0;
	for (uint32_t id = 0; id < (uint32_t)n; id++) {   /* functions only: dense ids */
		profdb_number v;
		if (profdb_context_get(db, id, &c) < 0 || profdb_exclusive(db, 0, id, 0, &v) < 0)
			return 1;
		sum += profdb_number_to_double(v);
	}
	double t3 = cpu_now();
	profdb_close(db);
	printf("callgrind-query-steps: open=%.3fs tree=%.3fs walk=%.3fs (cpu; %lld contexts, "
	       "sum %.0f)\n", t1 - t0, t2 - t1, t3 - t2, (long long)n, sum);

	if (profdb_open(&db, path, NULL) < 0)
		return 1;
	t0 = cpu_now();
	n = profdb_context_count(db);
	t1 = cpu_now();
	if (n < 0 || profdb_context_root(db, &root) < 0 || profdb_context_get(db, root, &c) < 0)
		return 1;
	int64_t seen = 0;
	double lsum = 0;
	for (;;) {   /* pre-order by the links */
		profdb_number v;
		if (profdb_exclusive(db, 0, c.id, 0, &v) < 0)
			return 1;
		if (c.type == PROFDB_CTX_LINE || c.type == PROFDB_CTX_INSTRUCTION)
			lsum += profdb_number_to_double(v);
		seen++;
		if (c.first_child != PROFDB_NONE) {
			if (profdb_context_get(db, c.first_child, &c) < 0)
				return 1;
			continue;
		}
		while (c.next_sibling == PROFDB_NONE && c.parent != PROFDB_NONE)
			if (profdb_context_get(db, c.parent, &c) < 0)
				return 1;
		if (c.next_sibling == PROFDB_NONE || profdb_context_get(db, c.next_sibling, &c) < 0)
			break;
	}
	t2 = cpu_now();
	profdb_close(db);
	printf("callgrind-line-contexts: count=%.3fs walk=%.3fs (cpu; %lld contexts, %lld walked, "
	       "line sum %.0f)\n", t1 - t0, t2 - t1, (long long)n, (long long)seen, lsum);
	return 0;
}

typedef struct result {
	double sec, cpu;
	long rss_kib;
	int ok;
} result;

/* Run @p fn (mode 0..2) or exec @p argv in a child; time and peak RSS. */
static result child(const char *path, int mode, char *const *argv)
{
	result res = {0, 0, 0};
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		return res;
	if (pid == 0) {
		if (argv) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execvp(argv[0], argv);
			_exit(127);
		}
		_exit(parse_once(path, mode == 1, 0));
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		return res;
	res.sec = now() - t0;
	res.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	          (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	res.rss_kib = ru.ru_maxrss;
	res.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return res;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static long long plain_bytes;  /* size of the text parsed, for MB/s */

static void bench(const char *name, const char *path, int mode, char *const *argv, int runs)
{
	double t[64], cpu[64], min = 1e30;
	long rss = 0;
	if (runs > 64)
		runs = 64;
	for (int i = 0; i < runs; i++) {
		result r = child(path, mode, argv);
		if (!r.ok) {
			printf("callgrind-%s: FAILED\n", name);
			return;
		}
		t[i] = r.sec;
		cpu[i] = r.cpu;
		if (r.sec < min)
			min = r.sec;
		if (r.rss_kib > rss)
			rss = r.rss_kib;
	}
	qsort(t, (size_t)runs, sizeof t[0], cmp_double);
	qsort(cpu, (size_t)runs, sizeof cpu[0], cmp_double);
	double med = t[runs / 2];
	/* cpu = user + system time of the child: the better number on a
	 * machine that other jobs load */
	printf("callgrind-%s: median=%.0f ns/op, min=%.3fs, cpu=%.3fs, throughput=%.0f MB/s, "
	       "peak_rss=%.1fMiB, runs=%d\n",
	       name, med * 1e9, min, cpu[runs / 2],
	       plain_bytes ? (double)plain_bytes / med / 1e6 : 0.0, (double)rss / 1024.0, runs);
	fflush(stdout);
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

int main(int argc, char **argv)
{
	int runs = 3, annotate = 1;
	const char *in = NULL, *tool = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--tool") == 0 && i + 1 < argc)
			tool = argv[++i];
		else if (strcmp(argv[i], "--no-annotate") == 0)
			annotate = 0;
		else
			in = argv[i];
	}
	if (!in || runs < 1) {
		fprintf(stderr, "usage: %s [--runs N] [--no-annotate] [--tool PROFDB] FILE[.gz]\n",
		        argv[0]);
		return 2;
	}
	char tmp[] = "/tmp/bench-callgrind-XXXXXX";
	const char *plain = in;
	int made_tmp = 0;
	if (ends_with(in, ".gz")) {
		int fd = mkstemp(tmp);
		if (fd < 0) {
			perror("mkstemp");
			return 1;
		}
		close(fd);
		char *cmd;
		if (asprintf(&cmd, "gzip -dc '%s' > '%s'", in, tmp) < 0)
			return 1;
		double t0 = now();
		int r = system(cmd);
		free(cmd);
		if (r != 0) {
			fprintf(stderr, "gzip -dc failed\n");
			unlink(tmp);
			return 1;
		}
		printf("callgrind-gunzip-to-temp: %.3fs (not part of any case)\n", now() - t0);
		plain = tmp;
		made_tmp = 1;
	}
	struct stat st;
	if (stat(plain, &st) == 0) {
		plain_bytes = (long long)st.st_size;
		printf("file: %s (%lld bytes plain)\n", in, (long long)st.st_size);
	}
	if (parse_once(plain, 0, 1) != 0)
		return 1;
	bench("parse-plain", plain, 0, NULL, runs);
	bench("parse-plain+inclusive", plain, 1, NULL, runs);
	if (made_tmp)
		bench("parse-gzip", in, 0, NULL, runs);
	pid_t qp = fork();   /* in a child, so the steps start from a clean heap */
	if (qp == 0) {
		int r = query_steps(plain);
		fflush(stdout);
		_exit(r);
	}
	if (qp > 0)
		waitpid(qp, NULL, 0);
	fflush(stdout);
	if (tool) {
		char *top[] = {(char *)tool, "top", "-n", "20", (char *)plain, NULL};
		char *top_inc[] = {(char *)tool, "top", "--inclusive", "--by", "function", "-n", "20",
		                   (char *)plain, NULL};
		char *top_lines[] = {(char *)tool, "top", "--lines", "-n", "20", (char *)plain, NULL};
		char *info[] = {(char *)tool, "info", (char *)plain, NULL};
		bench("profdb-top", plain, 0, top, runs);
		bench("profdb-top-inclusive-by-function", plain, 0, top_inc, runs);
		bench("profdb-top-lines", plain, 0, top_lines, runs);
		bench("profdb-info", plain, 0, info, runs);
	}
	if (annotate) {
		if (access("/usr/bin/callgrind_annotate", X_OK) == 0) {
			char *av[] = {"callgrind_annotate", (char *)plain, NULL};
			bench("callgrind_annotate", plain, 0, av, 1);
		} else {
			printf("callgrind-callgrind_annotate: SKIPPED (not installed)\n");
		}
	}
	if (made_tmp)
		unlink(tmp);
	return 0;
}
