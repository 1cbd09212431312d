/* Fuzz target: one HPCToolkit 4.0 meta.db, read through the whole API.
 *
 * The input is the file itself (no prefix). It is opened twice with
 * profdb_hpctk_open_mem(): alone, in the PROFDB_HPCTK_META slot, and then --
 * when it opened -- together with the other files of the test-data writer's
 * sample database, so that cross-file paths (layout decided by meta.db,
 * metric ids, the tree next to the value planes) are reached with a valid
 * companion. fuzz_hpctk_run_slot() in drive-hpctk.c does both.
 *
 * Then the same two passes through the common query interface
 * (profdb_open_inputs(), fuzz_query_hpctk_slot() in drive-query.c). */
#include "drive-hpctk.h"
#include "drive-query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_hpctk_run_slot(PROFDB_HPCTK_META, data, size);
	fuzz_query_hpctk_slot(PROFDB_HPCTK_META, data, size, fuzz_hpctk_strict);
	return 0;
}
