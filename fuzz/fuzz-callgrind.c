/* Fuzz target: one Callgrind profile, the input as a file would hold it
 * (text, or gzip when it starts with the gzip magic: profdb_cg_open_mem()
 * recognises it the same way), driven through the whole public API by the
 * shared driver (drive-callgrind.h lists the invariants). The input is
 * copied into an exact-size heap buffer so a read past its end is an ASan
 * report; for a plain-text input every name must be a view into that buffer.
 *
 * fuzz-callgrind-gz fuzzes the gzip path with valid compression around a
 * fuzzed text. The seeds in corpus/fuzz-callgrind/ are the hand-made inputs
 * of tests/test-callgrind.c (PROFDB_CG_DUMP_CORPUS=DIR writes them), valid
 * and invalid ones alike, so they run --lenient. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdlib.h>
#include <string.h>

#include "drive-callgrind.h"
#include "drive-hpctk.h"
#include "drive-query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	int gz = size >= 2 && copy[0] == 0x1f && copy[1] == 0x8b;
	fuzz_cg_run(copy, size, !gz, NULL);
	fuzz_query_run1("callgrind.out", copy, size, 0);
	free(copy);
	return 0;
}
