/* profdb-mpi's pieces (tool-main.c, tool-ensemble.c). */
#ifndef PROFDB_MPI_TOOL_H
#define PROFDB_MPI_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "../tool/tool.h"
#include "profdb-mpi.h"

typedef struct pm_args {
	const char *metrics[64];
	size_t n_metrics;
	const char *sel;
	uint32_t threads;
	int json, csv, fixed, ensemble, time, help;
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
/* stats --ensemble. @return the exit status (the same on every rank). */
int pm_ensemble(pm_args *a, MPI_Comm comm, int rank);

#endif
