/* Fuzz target: a whole Cube4 .cubex archive (plain tar, or a gzip- or
 * otherwise-compressed one), as the input, opened with
 * profdb_cube_open_mem() and driven through every public Cube function by
 * the shared driver (drive-cube.h lists the invariants).
 *
 * The seeds in corpus/fuzz-cube/ are valid archives written by
 * tests/writer/cube.c (meson compile -C BUILD fuzz-cube-corpus) and run in
 * strict mode: they must open and every value must read. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdlib.h>
#include <string.h>

#include "drive-cube.h"
#include "drive-hpctk.h"
#include "drive-query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size private copy: a read past the end is an ASan report. */
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	fuzz_cube_run(copy, size, NULL, NULL);
	fuzz_query_run1("x.cubex", copy, size, fuzz_hpctk_strict);
	free(copy);
	return 0;
}
