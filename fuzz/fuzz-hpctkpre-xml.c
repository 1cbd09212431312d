/* Fuzz target: one experiment.xml of a pre-release database (the input is
 * the file itself). Opened alone (profdb_hpctkpre_open_mem, META slot), then
 * with the test-data writer's sample profile.db, cct.db and trace.db, so
 * the cross-checks between the tree, the metric tables and the values run
 * against a valid companion; the companion run is never strict (the XML need
 * not match it). Every query is driven (drive-hpctkpre.c). *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "drive-hpctkpre.h"
#include "drive-query.h"
#include "writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static tw_blob sample[4];
	static int have;
	if (!data)
		return 0;
	if (!have) {
		tw_pre d;
		tw_pre_sample(&d);
		if (tw_pre_write(&d, sample) < 0)
			abort();
		have = 1;
	}
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	profdb_input files[PROFDB_HPCTKPRE_NFILES] = {{NULL, NULL, 0}};
	files[PROFDB_HPCTKPRE_META] = (profdb_input){NULL, copy, size};
	fuzz_pre_stats st = {0};
	fuzz_hpctkpre_run(files, fuzz_hpctk_strict, &st);
	fuzz_query_hpctkpre(files, fuzz_hpctk_strict);
	for (int f = 0; f < 3; f++)
		files[f] = (profdb_input){NULL, sample[f].data, sample[f].size};
	fuzz_hpctkpre_run(files, 0, &st);
	fuzz_query_hpctkpre(files, 0);
	free(copy);
	return 0;
}
