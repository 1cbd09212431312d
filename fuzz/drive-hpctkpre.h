/* Drives every query of the pre-release reader (lib/hpctkpre) over one open
 * database, checking invariants; shared by the fuzz targets
 * fuzz-hpctkpre-db, fuzz-hpctkpre-xml, fuzz-hpctk-draft and by
 * tests/test-hpctkpre.c. A violated invariant prints what and aborts. */
#ifndef PROFDB_FUZZ_DRIVE_HPCTKPRE_H
#define PROFDB_FUZZ_DRIVE_HPCTKPRE_H

#include <stddef.h>
#include <stdint.h>

#include "profdb/profdb.h"

typedef struct fuzz_pre_stats {
	uint64_t failures;   /* failing calls (each with a documented code and a message) */
	uint64_t values;     /* value pairs read through the plane views */
	uint64_t samples;    /* trace samples read */
	int first_error;     /* first negative result, 0 if none */
} fuzz_pre_stats;

/* Every query on @p db. With @p strict, any failure aborts (the input is
 * known to be consistent). Work is capped so one call stays fast. */
void fuzz_hpctkpre_drive(const profdb_hpctkpre *db, int strict, fuzz_pre_stats *st);

/* Open @p files with profdb_hpctkpre_open_mem (also in tolerant mode) and
 * drive the result. Returns what the strict open returned. */
int fuzz_hpctkpre_run(const profdb_input files[PROFDB_HPCTKPRE_NFILES], int strict,
                      fuzz_pre_stats *st);

/* Accept @p r as a documented failure (abort otherwise). */
void fuzz_hpctkpre_failure(int r);

#endif
