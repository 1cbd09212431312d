/* profdb-mpi stats --ensemble: per call path and metric, statistics across
 * runs. Each database (run i, in the order given) contributes one value per
 * path of its top-down view and metric: the inclusive value over its
 * non-summary profiles, combined by the metric's rule (profdb_tree_new).
 * Paths are matched by profdb_tree_path_key, i.e. by the rules of
 * profdb_match_new / `profdb diff`. Runs are cut into contiguous ranges,
 * one per rank; each rank folds its runs in order into a sorted list of
 * (path, metric) accumulators; the lists are reduced as in
 * profdb_mpi_stats_new (tree, or the chain with --fixed-order). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tool/report.h"
#include "../tool/tool.h"
#include "mpi-internal.h"
#include "tool-mpi.h"

int pm_quiet;

int pm_usage(const char *msg)
{
	if (!pm_quiet)
		fprintf(stderr, "profdb-mpi: stats: %s\n", msg);
	return EXIT_USAGE;
}

double pm_cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pm_report_time(const pm_args *a, MPI_Comm comm)
{
	int size;
	if (!a->time)
		return;
	/* Wall time alone hides what oversubscribed ranks cost on a shared
	 * machine; the summed CPU time (MPI's own polling included) does not. */
	double wall = MPI_Wtime() - a->t0, cpu = pm_cpu_seconds() - a->cpu0, all = 0;
	MPI_Comm_size(comm, &size);
	MPI_Reduce(&cpu, &all, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
	if (!pm_quiet)
		fprintf(stderr, "profdb-mpi: time: ranks=%d seconds=%.3f cpu_seconds=%.3f\n", size,
		        wall, all);
}

/* ---- @FILE ------------------------------------------------------------------ */

static int read_list(pm_args *a)
{
	const char *name = a->paths[0] + 1;
	FILE *f = fopen(name, "r");
	size_t cap = 0, len = 0, n = 0;
	if (!f)
		return pm_fail(-errno, "%s: cannot open the list of databases: %s", name,
		               strerror(errno));
	for (int c; (c = fgetc(f)) != EOF;) {
		if (len + 2 > cap) {
			char *b = realloc(a->list_buf, cap = cap ? 2 * cap : 4096);
			if (!b) {
				fclose(f);
				return pm_fail(-ENOMEM, "out of memory reading %s", name);
			}
			a->list_buf = b;
		}
		a->list_buf[len++] = (char)c;
	}
	fclose(f);
	if (!a->list_buf || !(a->owned_paths = malloc((len + 1) * sizeof *a->owned_paths)))
		return pm_fail(-EINVAL, "%s: no database listed", name);
	a->list_buf[len] = 0;
	for (char *line = a->list_buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (*line && *line != '#')
			a->owned_paths[n++] = line;
	}
	if (n == 0)
		return pm_fail(-EINVAL, "%s: no database listed", name);
	a->paths = a->owned_paths;
	a->n_paths = n;
	return 0;
}

/* ---- one run ----------------------------------------------------------------- */

typedef struct krec {
	size_t off;                 /* in the key arena */
	uint32_t len;
	double v;
} krec;

typedef struct run_keys {
	unsigned char *arena;
	size_t len, cap;
	krec *recs;
	size_t n;
} run_keys;

static const unsigned char *sort_arena;

static int cmp_krec(const void *pa, const void *pb)
{
	const krec *a = pa, *b = pb;
	return pm_key_cmp(sort_arena + a->off, a->len, sort_arena + b->off, b->len);
}

/* Every (path, metric) of run @p path with its inclusive value. */
static int run_values(const char *path, const pm_args *a, const profdb_mpi_options *mo,
                      MPI_Comm comm, run_keys *rk)
{
	profdb *db = NULL;
	profdb_tree *t = NULL;
	uint32_t ids[64], *prof = NULL;
	int e;
	if (pm_fault(mo, comm, "open"))
		return pm_fail(-EIO, "%s: injected fault (PROFDB_MPI_FAULT) while opening", path);
	if ((e = profdb_open(&db, path, NULL)) < 0)   /* the message names the file */
		return pm_fail(e, "%s", profdb_error_message());
	for (size_t k = 0; k < a->n_metrics; k++) {
		profdb_metric m;
		if ((e = profdb_metric_find(db, a->metrics[k], &m)) < 0) {
			e = pm_fail(e, "%s: no metric named or numbered '%s'", path, a->metrics[k]);
			goto out;
		}
		ids[k] = m.id;
	}
	int64_t np = profdb_profiles_select(db, NULL, NULL, 0);
	if (np < 0 || !(prof = malloc(((size_t)np + 1) * sizeof *prof))) {
		e = pm_fail(np < 0 ? (int)np : -ENOMEM, "%s: %s", path, profdb_error_message());
		goto out;
	}
	np = profdb_profiles_select(db, NULL, prof, (size_t)np);
	profdb_tree_options to = PROFDB_TREE_OPTIONS_INIT;
	to.metrics = ids;
	to.n_metrics = a->n_metrics;
	to.profiles = prof;
	to.n_profiles = (size_t)np;
	if (pm_fault(mo, comm, "read")) {
		e = pm_fail(-EIO, "%s: injected fault (PROFDB_MPI_FAULT) while reading", path);
		goto out;
	}
	if ((e = profdb_tree_new(&t, db, &to)) < 0) {
		e = pm_fail(e, "%s: %s", path, profdb_error_message());
		goto out;
	}
	int64_t nodes = profdb_tree_count(t);
	rk->recs = malloc(((size_t)nodes * a->n_metrics + 1) * sizeof *rk->recs);
	if (!rk->recs) {
		e = pm_fail(-ENOMEM, "%s: out of memory for %" PRId64 " nodes", path, nodes);
		goto out;
	}
	for (uint32_t id = 0; id < (uint64_t)nodes; id++) {
		int64_t len = profdb_tree_path_key(db, t, id, NULL, 0);
		if (len < 0) {
			e = pm_fail((int)len, "%s: %s", path, profdb_error_message());
			goto out;
		}
		size_t need = ((size_t)len + 4) * a->n_metrics;
		if (rk->cap - rk->len < need) {
			size_t cap = rk->cap ? 2 * rk->cap : 65536;
			while (cap - rk->len < need)
				cap *= 2;
			unsigned char *b = realloc(rk->arena, cap);
			if (!b) {
				e = pm_fail(-ENOMEM, "%s: out of memory for the call-path keys", path);
				goto out;
			}
			rk->arena = b;
			rk->cap = cap;
		}
		for (uint32_t k = 0; k < a->n_metrics; k++) {
			unsigned char *p = rk->arena + rk->len;
			double inc;
			profdb_tree_path_key(db, t, id, p, (size_t)len);
			for (int i = 0; i < 4; i++)   /* the metric's number, big-endian */
				p[len + i] = (unsigned char)(k >> (24 - 8 * i));
			profdb_tree_values(t, id, k, &inc, NULL);
			rk->recs[rk->n++] = (krec){rk->len, (uint32_t)len + 4, inc};
			rk->len += (size_t)len + 4;
		}
	}
	sort_arena = rk->arena;
	qsort(rk->recs, rk->n, sizeof *rk->recs, cmp_krec);
out:
	profdb_tree_free(t);
	free(prof);
	profdb_close(db);
	return e;
}

/* Fold run @p run's values into the sorted list @p l (a merge). */
static int fold_run(pm_list *l, const run_keys *rk, uint32_t run)
{
	pm_list out = {0};
	pm_rec x;
	size_t pos = 0, j = 0;
	int hx = pm_list_next(l, &pos, &x), e = 0;
	while (e == 0 && (hx || j < rk->n)) {
		const krec *y = j < rk->n ? &rk->recs[j] : NULL;
		int c = !hx ? 1 : !y ? -1 : pm_key_cmp(x.key, x.klen, rk->arena + y->off, y->len);
		if (c < 0) {
			e = pm_list_append(&out, x.key, x.klen, &x.acc);
			hx = pm_list_next(l, &pos, &x);
			continue;
		}
		profdb_stats_acc acc;
		memset(&acc, 0, sizeof acc);
		if (c == 0) {
			acc = x.acc;
			hx = pm_list_next(l, &pos, &x);
		} else {
			const unsigned char *m = rk->arena + y->off + y->len - 4;
			acc.metric = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
		}
		profdb_stats_acc_add(&acc, y->v, run);
		e = pm_list_append(&out, rk->arena + y->off, y->len, &acc);
		j++;
	}
	if (e < 0) {
		pm_list_free(&out);
		return e;
	}
	pm_list_free(l);
	*l = out;
	return 0;
}

static int fold_runs(const pm_args *a, const profdb_mpi_options *mo, MPI_Comm comm, size_t lo,
                     size_t hi, pm_list *l)
{
	for (size_t i = lo; i < hi; i++) {
		run_keys rk;
		memset(&rk, 0, sizeof rk);
		int e = run_values(a->paths[i], a, mo, comm, &rk);
		if (e == 0)
			e = fold_run(l, &rk, (uint32_t)i);
		free(rk.arena);
		free(rk.recs);
		if (e < 0)
			return e;
	}
	return 0;
}

/* ---- the metrics --------------------------------------------------------------- */

/* Without -m: the default metric of the first database ('profdb top' and
 * 'profdb diff' take the same), named by rank 0 and sent to every rank. */
static int default_metric(pm_args *a, MPI_Comm comm, int rank, char *name, size_t cap)
{
	int e = 0;
	memset(name, 0, cap);
	if (rank == 0) {
		profdb *db = NULL;
		profdb_metric m;
		if ((e = profdb_open(&db, a->paths[0], NULL)) < 0 ||
		    (e = report_default_metric(db, &m)) < 0)
			e = pm_fail(e, "%s: %s", a->paths[0], profdb_error_message());
		else if (m.name.len >= cap || m.name.len == 0 || memchr(m.name.ptr, 0, m.name.len))
			e = pm_fail(-EINVAL, "%s: the default metric has no name that can be looked up "
			            "(give -m)", a->paths[0]);
		else
			memcpy(name, m.name.ptr, m.name.len);
		profdb_close(db);
	}
	if ((e = pm_agree(comm, e)) < 0)
		return e;
	MPI_Bcast(name, (int)cap, MPI_BYTE, 0, comm);
	a->metrics[0] = name;
	a->n_metrics = 1;
	return 0;
}

/* ---- the collective ------------------------------------------------------------ */

int pm_ensemble(pm_args *a, MPI_Comm comm, int rank)
{
	profdb_mpi_options mo = PROFDB_MPI_OPTIONS_INIT;
	char name[1024];
	pm_list mine = {0};
	int size, e = 0;
	MPI_Comm_size(comm, &size);
	if (a->paths[0][0] == '@' && a->n_paths == 1)
		e = read_list(a);   /* the same outcome on every rank */
	if (e == 0 && a->n_paths > UINT32_MAX - 1)
		e = pm_fail(-EINVAL, "more runs than run indices");
	if ((e = pm_agree(comm, e)) == 0 && a->n_metrics == 0)
		e = default_metric(a, comm, rank, name, sizeof name);
	if (e < 0)
		goto fail;
	size_t lo, hi;
	pm_partition(NULL, a->n_paths, rank, size, &lo, &hi);
	if (a->fixed) {
		pm_list start;
		e = pm_chain_recv(&start, comm);
		mine = start;
		if (e == 0)
			e = fold_runs(a, &mo, comm, lo, hi, &mine);
		int s = pm_chain_send(&mine, e, comm);
		if ((e = pm_agree(comm, e < 0 ? e : s)) < 0)
			goto fail;
		e = pm_move(&mine, size - 1, 0, comm);
	} else {
		e = fold_runs(a, &mo, comm, lo, hi, &mine);
		if ((e = pm_agree(comm, e)) < 0)
			goto fail;
		if ((e = pm_tree_reduce(&mine, comm)) < 0)
			MPI_Abort(comm, 1);   /* a half-done reduction cannot be agreed */
	}
	if ((e = pm_agree(comm, e)) < 0)
		goto fail;
	pm_report_time(a, comm);
	int status = rank == 0 ? pm_print_ensemble(a, &mine) : 0;
	pm_list_free(&mine);
	return status;
fail:
	if (rank == 0)
		fprintf(stderr, "profdb-mpi: %s\n", profdb_mpi_error_message());
	pm_list_free(&mine);
	return EXIT_INPUT;
}
