/* profdb-mpi's pieces (tool-main.c, tool-ensemble.c). */
#ifndef PROFDB_MPI_TOOL_H
#define PROFDB_MPI_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "../tool/tool.h"
#include "profdb-mpi.h"

/* The longest metric name --ensemble passes between ranks, NUL included. */
#define PM_NAME_BYTES 1024

typedef struct pm_args {
	const char *metrics[64];
	size_t n_metrics;
	const char *sel;
	uint32_t threads;
	int json, csv, fixed, ensemble, time, help;
	const char *output;         /* -o FILE: rank 0 writes there, not to stdout */
	const char **paths;
	size_t n_paths;
	double t0;                  /* MPI_Wtime() right after MPI_Init */
	double cpu0;                /* this process's CPU seconds then */
	const char **owned_paths;   /* @FILE's lines */
	char *list_buf;
} pm_args;

/* The open options of every database: --copy's PROFDB_OPEN_COPY (kept in
 * tool_open_flags, as profdb keeps it). */
static inline const profdb_options *pm_open_options(profdb_options *o)
{
	memset(o, 0, sizeof *o);
	o->size = sizeof *o;
	o->flags = tool_open_flags;
	return o;
}

/* 1 on the ranks that must not print (all but rank 0). */
extern int pm_quiet;
/* "profdb-mpi: stats: MSG" on rank 0; @return EXIT_USAGE (2). */
int pm_usage(const char *msg);
/* This process's CPU time (user + system, every thread) in seconds. */
double pm_cpu_seconds(void);
/* --time: "profdb-mpi: time: ranks=N seconds=S cpu_seconds=C" on stderr
 * from rank 0 (C: the CPU time of all ranks since t0, summed). Collective
 * when --time was given. */
void pm_report_time(const pm_args *a, MPI_Comm comm);
struct pm_list;
/* stats --ensemble's output from the reduced list (rank 0;
 * tool-ensemble-print.c). @return 0 or EXIT_INPUT (out of memory). */
int pm_print_ensemble(const pm_args *a, const struct pm_list *l);
/* Were all ranks given the same arguments? 0, or < 0 on every rank
 * (pm_fail's message). Collective; before parsing, so that every rank
 * then takes the same path (tool-agree.c). */
int pm_agree_args(int argc, char **argv, MPI_Comm comm);
/* Do all ranks have the same @FILE list and inputs (type, size and
 * modification time; for a directory, of each entry)? 0, or an agreed
 * error naming what differs. Collective. */
int pm_agree_inputs(const pm_args *a, MPI_Comm comm);
/* -o FILE on rank 0: standard output goes to a new file beside @p path,
 * which pm_output_close() renames to @p path when @p ok and every write
 * succeeded, and removes otherwise (reporting a write error on stderr); an
 * existing @p path that is no regular file (a device, a FIFO) is written in
 * place. 0 or < 0 (pm_fail's message). */
int pm_output_open(const char *path);
int pm_output_close(const char *path, int ok);
/* stats --ensemble. @return the exit status (the same on every rank). */
int pm_ensemble(pm_args *a, MPI_Comm comm, int rank);

#endif
