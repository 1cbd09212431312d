/* profdb-mpi stats --ensemble: per call path and metric, statistics across
 * runs. Each database (run i, in the order given) contributes one value per
 * path of its top-down view and metric: the inclusive value over its
 * non-summary profiles, combined by the metric's rule (profdb_tree_new).
 * Paths are matched by profdb_tree_path_key, i.e. by the rules of
 * profdb_match_new / `profdb diff`. Runs are cut into contiguous ranges,
 * one per rank; each rank folds its runs in order into (path, metric)
 * accumulators under a hash index (pm_fold), sorted into a list once at the
 * end; the lists are reduced as in profdb_mpi_stats_new (tree, or the chain
 * with --fixed-order). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Fold every (path, metric) of run @p run (database a->paths[run]) with its
 * inclusive value into @p f. */
static int fold_run(const pm_args *a, const profdb_mpi_options *mo, MPI_Comm comm,
                    uint32_t run, pm_fold *f)
{
	const char *path = a->paths[run];
	profdb *db = NULL;
	profdb_tree *t = NULL;
	uint32_t ids[64], *prof = NULL;
	unsigned char *key = NULL;
	size_t key_cap = 0;
	int e;
	if (pm_fault(mo, comm, "open"))
		return pm_fail(-EIO, "%s: injected fault (PROFDB_MPI_FAULT) while opening", path);
	profdb_options oo;
	if ((e = profdb_open(&db, path, pm_open_options(&oo))) < 0)   /* the message names the file */
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
	for (uint32_t id = 0; id < (uint64_t)nodes && e == 0; id++) {
		int64_t len = profdb_tree_path_key(db, t, id, NULL, 0);
		if (len < 0 || len > UINT32_MAX - 4) {
			e = pm_fail(len < 0 ? (int)len : -EOVERFLOW, "%s: %s", path,
			            len < 0 ? profdb_error_message() : "call-path key too long");
			break;
		}
		if (key_cap < (size_t)len + 4) {   /* the key, then the metric's number */
			size_t cap = key_cap ? 2 * key_cap : 4096;
			while (cap < (size_t)len + 4)
				cap *= 2;
			unsigned char *b = realloc(key, cap);
			if (!b) {
				e = pm_fail(-ENOMEM, "%s: out of memory for a call-path key", path);
				break;
			}
			key = b;
			key_cap = cap;
		}
		profdb_tree_path_key(db, t, id, key, (size_t)len);
		for (uint32_t k = 0; k < a->n_metrics && e == 0; k++) {
			double inc;
			for (int i = 0; i < 4; i++)   /* the metric's number, big-endian */
				key[len + i] = (unsigned char)(k >> (24 - 8 * i));
			profdb_tree_values(t, id, k, &inc, NULL);
			e = pm_fold_add(f, key, (uint32_t)len + 4, inc, run);
		}
	}
out:
	free(key);
	profdb_tree_free(t);
	free(prof);
	profdb_close(db);
	return e;
}

/* Fold runs [lo, hi), in order, after the list @p l holds (the chain's
 * earlier ranks; empty otherwise), into @p l. Each (path, metric) takes its
 * values in run order, so the result is the left fold doc/model.md
 * describes, whatever the number of runs or paths. */
static int fold_runs(const pm_args *a, const profdb_mpi_options *mo, MPI_Comm comm, size_t lo,
                     size_t hi, pm_list *l)
{
	pm_fold f;
	memset(&f, 0, sizeof f);
	int e = pm_fold_start(&f, l);
	for (size_t i = lo; i < hi && e == 0; i++)
		e = fold_run(a, mo, comm, (uint32_t)i, &f);
	if (e == 0) {
		pm_list_free(l);
		e = pm_fold_finish(&f, l);
	}
	pm_fold_free(&f);
	return e;
}

/* ---- the metrics --------------------------------------------------------------- */

/* The metrics by name, as the first database names them: without -m its
 * default metric ('profdb top' and 'profdb diff' take the same); a name
 * given as such; a number, the name of the first database's metric with
 * that id (each run numbers its metrics its own way, so the runs would
 * otherwise combine different quantities). Rank 0 decides and sends the
 * names to every rank; @p names holds them (PM_NAME_BYTES each). */
static int resolve_metrics(pm_args *a, MPI_Comm comm, int rank, char *names)
{
	int e = 0;
	size_t n = a->n_metrics ? a->n_metrics : 1;
	memset(names, 0, n * PM_NAME_BYTES);
	profdb *db = NULL;
	profdb_options oo;
	if (rank == 0 && (e = profdb_open(&db, a->paths[0], pm_open_options(&oo))) < 0)
		e = pm_fail(e, "%s", profdb_error_message());
	for (size_t k = 0; rank == 0 && e == 0 && k < n; k++) {
		profdb_metric m;
		const char *key = a->n_metrics ? a->metrics[k] : NULL;
		if ((e = key ? profdb_metric_find(db, key, &m) : profdb_metric_default(db, &m)) < 0)
			e = key && e == -ENOENT
			    ? pm_fail(e, "%s: no metric named or numbered '%s'", a->paths[0], key)
			    : pm_fail(e, "%s: %s", a->paths[0], profdb_error_message());
		else if (m.name.len >= PM_NAME_BYTES || m.name.len == 0 ||
		         memchr(m.name.ptr, 0, m.name.len))
			e = pm_fail(-EINVAL, "%s: metric %" PRIu32 " has no name that can be looked "
			            "up in the other runs (give -m NAME)", a->paths[0], m.id);
		else
			memcpy(names + k * PM_NAME_BYTES, m.name.ptr, m.name.len);
	}
	profdb_close(db);
	if ((e = pm_agree(comm, e)) < 0)
		return e;
	MPI_Bcast(names, (int)(n * PM_NAME_BYTES), MPI_BYTE, 0, comm);
	for (size_t k = 0; k < n; k++)
		a->metrics[k] = names + k * PM_NAME_BYTES;
	a->n_metrics = n;
	return 0;
}

/* ---- the collective ------------------------------------------------------------ */

int pm_ensemble(pm_args *a, MPI_Comm comm, int rank)
{
	profdb_mpi_options mo = PROFDB_MPI_OPTIONS_INIT;
	char *names = malloc(sizeof a->metrics / sizeof *a->metrics * PM_NAME_BYTES);
	pm_list mine = {0};
	int size, e = 0;
	MPI_Comm_size(comm, &size);
	if (a->paths[0][0] == '@' && a->n_paths == 1)
		e = read_list(a);   /* the same outcome on every rank */
	if (e == 0 && a->n_paths > UINT32_MAX - 1)
		e = pm_fail(-EINVAL, "more runs than run indices");
	if (e == 0 && !names)
		e = pm_fail(-ENOMEM, "out of memory");
	if ((e = pm_agree(comm, e)) == 0 && pm_agree_inputs(a, comm) < 0) {
		if (rank == 0)   /* ranks that disagree: a usage error, as without --ensemble */
			fprintf(stderr, "profdb-mpi: %s\n", profdb_mpi_error_message());
		free(names);
		return EXIT_USAGE;
	}
	if (e == 0)
		e = resolve_metrics(a, comm, rank, names);
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
	free(names);
	return status;
fail:
	if (rank == 0)
		fprintf(stderr, "profdb-mpi: %s\n", profdb_mpi_error_message());
	pm_list_free(&mine);
	free(names);
	return EXIT_INPUT;
}
