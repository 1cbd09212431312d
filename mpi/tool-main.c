/* profdb-mpi: the statistics of `profdb stats` computed by the ranks of an
 * MPI job, over one huge database or over an ensemble of runs.
 *
 *   mpirun -n N profdb-mpi stats [options] DB
 *   mpirun -n N profdb-mpi stats --ensemble [options] DB1 DB2 ... | @LIST
 *
 * Rank 0 prints, with the printer of `profdb stats` itself (linked from
 * profdb's static library of shared commands), so the outputs are
 * byte-identical. Every rank takes the
 * same decisions from the same arguments; failures are agreed (profdb-mpi.h)
 * and every rank exits with the same status. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool/tool.h"
#include "mpi-internal.h"
#include "tool-mpi.h"

static const char usage[] =
	"usage: mpirun -n N profdb-mpi stats [-m METRIC]... [--profiles SEL] [--threads N]\n"
	"                  [--fixed-order] [--time] [--json|--csv] [-o FILE] PATH...\n"
	"       mpirun -n N profdb-mpi stats --ensemble [-m METRIC]... [--fixed-order] [--time]\n"
	"                  [--json|--csv] [-o FILE] DB1 DB2 ... (or @FILE: one path per line)\n"
	"The statistics of 'profdb stats', computed by the ranks together; rank 0 prints\n"
	"(several PATHs: each database in turn, one output after the other). Every rank\n"
	"must be given the same arguments and see the same files (checked at start).\n"
	"  -m, --metric M       a metric name or id (repeatable; default: every metric\n"
	"                       with stored values; --ensemble: a name, or an id of the\n"
	"                       first database's metrics, found by its name in every\n"
	"                       run; default: the first database's default metric)\n"
	"  -p, --profiles SEL   as 'profdb stats' (not with --ensemble)\n"
	"  -t, --threads N      worker threads per rank (default 1)\n"
	"  --fixed-order        continue the fold rank after rank: byte-identical to\n"
	"                       'profdb stats --threads 1', but the ranks run in turn\n"
	"  --ensemble           per call path across runs: each database contributes,\n"
	"                       per path and metric, its inclusive value over its\n"
	"                       non-summary profiles; paths matched as 'profdb diff' does\n"
	"  --time               print the seconds since every rank left MPI_Init and the\n"
	"                       CPU seconds of all ranks since then, on stderr (rank 0)\n"
	"  --json, --csv        as 'profdb stats'\n"
	"  -o, --output FILE    write the output to FILE (replaced only when all is\n"
	"                       written; a write error is reported and exits 1)\n"
	"  --copy               read the inputs into memory instead of mapping them:\n"
	"                       a file shortened while it is read cannot stop a rank\n";

static int one_database(const pm_args *a, const char *path, MPI_Comm comm, int rank)
{
	profdb_mpi_options mo = PROFDB_MPI_OPTIONS_INIT;
	mo.order = a->fixed ? PROFDB_MPI_FIXED : PROFDB_MPI_TREE;
	profdb_options oo;
	pm_open_options(&oo);
	profdb *db = NULL;
	uint32_t ids[64], *profiles = NULL;
	profdb_stats *st = NULL;
	int status = EXIT_INPUT, e;
	if (profdb_mpi_open(&db, path, &oo, &mo, comm) < 0) {
		if (rank == 0)
			fprintf(stderr, "profdb-mpi: %s: %s\n", path, profdb_mpi_error_message());
		return EXIT_INPUT;
	}
	/* Usage errors are the same on every rank (same database, same
	 * arguments): no agreement needed, rank 0 says it. */
	for (size_t i = 0; i < a->n_metrics; i++) {
		profdb_metric m;
		if ((e = profdb_metric_find(db, a->metrics[i], &m)) < 0) {
			if (rank == 0)
				fprintf(stderr, "profdb-mpi: stats: %s: no metric named or numbered '%s'\n",
				        path, a->metrics[i]);
			status = e == -ENOENT ? EXIT_USAGE : EXIT_INPUT;
			goto out;
		}
		ids[i] = m.id;
	}
	int64_t n = profdb_profiles_select(db, a->sel, NULL, 0);
	if (n < 0 || !(profiles = malloc(((size_t)n + 1) * sizeof *profiles))) {
		if (rank == 0)
			fprintf(stderr, "profdb-mpi: stats: --profiles: %s\n", profdb_error_message());
		status = n < 0 && a->sel ? EXIT_USAGE : EXIT_INPUT;
		goto out;
	}
	n = profdb_profiles_select(db, a->sel, profiles, (size_t)n);
	profdb_stats_options so = PROFDB_STATS_OPTIONS_INIT;
	so.profiles = profiles;
	so.n_profiles = (size_t)n;
	so.metrics = a->n_metrics ? ids : NULL;
	so.n_metrics = a->n_metrics;
	so.threads = a->threads;
	if (profdb_mpi_stats_new(&st, db, &so, &mo, comm) < 0) {
		if (rank == 0)
			fprintf(stderr, "profdb-mpi: %s: %s\n", path, profdb_mpi_error_message());
		goto out;
	}
	pm_report_time(a, comm);
	status = rank == 0 ? stats_print(path, db, st, profiles, n, a->json, a->csv) : 0;
out:
	profdb_stats_free(st);
	free(profiles);
	profdb_close(db);
	return status;
}

static int parse(int argc, char **argv, pm_args *a)
{
	static const struct option lo[] = {
		{"metric", required_argument, NULL, 'm'}, {"profiles", required_argument, NULL, 'p'},
		{"threads", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'c'}, {"fixed-order", no_argument, NULL, 'f'},
		{"ensemble", no_argument, NULL, 'e'}, {"time", no_argument, NULL, 'T'},
		{"output", required_argument, NULL, 'o'}, {"copy", no_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	int c;
	a->threads = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "m:p:t:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (a->n_metrics == 64)
				return pm_usage("at most 64 metrics (-m)");
			a->metrics[a->n_metrics++] = optarg;
			break;
		case 'p': a->sel = optarg; break;
		case 't':
			if (parse_u32(optarg, &a->threads))
				return pm_usage("--threads: not a non-negative integer");
			break;
		case 'j': a->json = 1; break;
		case 'c': a->csv = 1; break;
		case 'f': a->fixed = 1; break;
		case 'e': a->ensemble = 1; break;
		case 'T': a->time = 1; break;
		case 'o': a->output = optarg; break;
		case 'C': tool_open_flags |= PROFDB_OPEN_COPY; break;
		case 'h': a->help = 1; return 0;
		default: return pm_usage("unknown option or missing argument");
		}
	}
	if (a->json && a->csv)
		return pm_usage("--json and --csv exclude each other");
	if (a->ensemble && a->sel)
		return pm_usage("--profiles does not apply to --ensemble");
	a->paths = (const char **)argv + optind;
	a->n_paths = (size_t)(argc - optind);
	if (a->n_paths == 0)
		return pm_usage("no PATH given");
	return 0;
}

/* Several databases: each in turn, as many `profdb stats` would. */
static int each_database(pm_args *a, MPI_Comm comm, int rank)
{
	int status = 0, e = pm_agree_inputs(a, comm);
	if (e < 0) {
		if (rank == 0)
			fprintf(stderr, "profdb-mpi: %s\n", profdb_mpi_error_message());
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < a->n_paths; i++) {
		int s = one_database(a, a->paths[i], comm, rank);
		status = s > status ? s : status;
	}
	return status;
}

/* Run @p work with rank 0's standard output in -o's file, if given. */
static int with_output(pm_args *a, int rank, int (*work)(pm_args *, MPI_Comm, int))
{
	int e = rank == 0 && a->output ? pm_output_open(a->output) : 0;
	if ((e = pm_agree(MPI_COMM_WORLD, e)) < 0) {
		if (rank == 0)
			fprintf(stderr, "profdb-mpi: %s\n", profdb_mpi_error_message());
		return EXIT_INPUT;
	}
	int status = work(a, MPI_COMM_WORLD, rank);
	if (rank == 0 && a->output && pm_output_close(a->output, status == 0) < 0)
		status = EXIT_INPUT;
	return status;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	tool_catch_sigbus("profdb-mpi");
	pm_args a;
	memset(&a, 0, sizeof a);
	/* --time counts from the moment every rank is up: ranks leave MPI_Init
	 * up to tens of milliseconds apart, which is launcher start-up. */
	MPI_Barrier(MPI_COMM_WORLD);
	a.t0 = MPI_Wtime();
	a.cpu0 = pm_cpu_seconds();
	int rank, status;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pm_quiet = rank != 0;
	if (pm_agree_args(argc, argv, MPI_COMM_WORLD) < 0) {
		if (rank == 0)
			fprintf(stderr, "profdb-mpi: %s\n", profdb_mpi_error_message());
		status = EXIT_USAGE;
	} else if (argc < 2 || strcmp(argv[1], "stats") != 0) {
		if (rank == 0)
			fputs(usage, stderr);
		status = EXIT_USAGE;
	} else if ((status = parse(argc - 1, argv + 1, &a)) != 0) {
		/* parse printed the message */
	} else if (a.help) {
		if (rank == 0)
			fputs(usage, stdout);
	} else if (a.ensemble) {
		status = with_output(&a, rank, pm_ensemble);
	} else {
		status = with_output(&a, rank, each_database);
	}
	if (rank == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
		fprintf(stderr, "profdb-mpi: writing the output failed\n");
		status = EXIT_INPUT;
	}
	/* rank 0 alone writes: every rank exits with its status */
	MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	free(a.owned_paths);
	free(a.list_buf);
	MPI_Finalize();
	return status;
}
