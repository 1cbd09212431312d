/* Drive every public hpcrun function on an open set and check invariants
 * (a violation prints what failed and aborts). Shared by the fuzz targets
 * fuzz-hpcrun / fuzz-hpctrace and by tests/test-hpcrun.c. */
#ifndef PROFDB_FUZZ_DRIVE_HPCRUN_H
#define PROFDB_FUZZ_DRIVE_HPCRUN_H

#include <stdint.h>

#include "profdb/profdb.h"

typedef struct fuzz_hpcrun_stats {
	uint64_t profiles, nodes, values, inclusive, samples;
	uint64_t failures;        /* failing calls (each with a documented code) */
	uint64_t unresolved;      /* trace cct ids with no node in the joined CCT */
	int first_error;
} fuzz_hpcrun_stats;

/* @p strict: every call must succeed (valid inputs). Work is capped per
 * input (profiles, nodes, values, trace records). */
void fuzz_hpcrun_drive(const profdb_hpcrun *h, int strict, fuzz_hpcrun_stats *st);

/* Is @p r one of the documented codes (fuzz_documented()) with a message
 * set? */
int fuzz_hpcrun_documented(int r);

#endif
