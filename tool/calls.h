/* profdb callers / callees: what tool/cmd-calls.c collects and
 * tool/calls-print.c prints. */
#ifndef PROFDB_TOOL_CALLS_H
#define PROFDB_TOOL_CALLS_H

#include "report.h"


/* One edge seen from the function: the other end and what it carries. */
typedef struct part {
	uint32_t section;   /* index into the sections */
	uint32_t other;     /* the other function's context */
	uint32_t caller, callee;   /* the edge's ends */
	uint32_t site;      /* the call site's context, PROFDB_NONE without one */
	profdb_str name, file, module;
	int has_count;
	uint64_t count;
	int nested;         /* a call inside one cycle of the call graph */
	size_t ci;          /* its costs: calls.costs[ci .. ci + metrics) */
} part;

/* A matched function: its contexts and its own values per metric. */
typedef struct section {
	profdb_str name, file, module;
	uint32_t *ctx;      /* its contexts, ascending */
	size_t n_ctx;
	double *inc, *exc;  /* per metric; NaN where the format cannot say */
	char *label;        /* owned: the name of a context that is no function */
} section;

/* The parts of one row (adjacent after sorting) merged. */
typedef struct row {
	size_t first, n;    /* its parts: parts[first .. first+n) */
	int has_count;
	uint64_t count;
	int nested;         /* calls inside a cycle: counted, no cost (NaN) */
	double *cost;       /* per metric, combined by each metric's rule */
} row;

typedef struct calls {
	report rep;
	report_opts o;
	int callees;        /* 0: callers, 1: callees */
	int sites;
	int fold;           /* the query matched folded names: rows fold too */
	const char *query;
	section *sec;
	size_t n_sec;
	part *parts;
	size_t n_parts, cap_parts;
	double *costs;      /* the parts' costs, rep.n per part */
	size_t n_costs, cap_costs;
	row *rows;
	size_t n_rows;
	double *row_costs;  /* rep.n per row */
	uint32_t *cycle_of; /* per context id below n_cycle_of: its cycle or PROFDB_NONE */
	size_t n_cycle_of;
} calls;

/* The row @p i's parts' distinct other contexts, ascending, into @p ids
 * (room for every part). @return their number. */
size_t calls_row_contexts(const calls *k, const row *rw, uint32_t *ids);
int calls_print_text(const calls *k);
int calls_print_json(const calls *k);

#endif
