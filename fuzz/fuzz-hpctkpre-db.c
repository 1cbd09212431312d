/* Fuzz target: a whole pre-release HPCToolkit database carved out of one
 * input: profile.db, cct.db, trace.db and the metadata (experiment.xml or a
 * draft meta.db), in profdb_hpctkpre_file order, separated by the 8 bytes
 * "#PDBSEP#" as in fuzz-hpctk-db.c (only the first three separators split;
 * an empty segment means "file absent"). Each file gets its own exact-size
 * heap copy so a read past its end is caught by AddressSanitizer. The
 * database is opened with profdb_hpctkpre_open_mem (strict, then tolerant)
 * and every query is driven (drive-hpctkpre.c). *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "drive-hpctkpre.h"
#include "drive-query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	profdb_input files[PROFDB_HPCTKPRE_NFILES] = {{NULL, NULL, 0}};
	const uint8_t *p = data, *end = data + size;
	if (!data)
		return 0;
	for (int f = 0; f < PROFDB_HPCTKPRE_NFILES; f++) {
		const uint8_t *sep = NULL;
		if (f + 1 < PROFDB_HPCTKPRE_NFILES)
			for (const uint8_t *q = p; (size_t)(end - q) >= FUZZ_HPCTK_SEP_LEN; q++)
				if (memcmp(q, FUZZ_HPCTK_SEP, FUZZ_HPCTK_SEP_LEN) == 0) {
					sep = q;
					break;
				}
		const uint8_t *stop = sep ? sep : end;
		size_t len = (size_t)(stop - p);
		if (len > 0) {
			unsigned char *copy = malloc(len);
			if (!copy)
				abort();
			memcpy(copy, p, len);
			files[f].data = copy;
			files[f].size = len;
		}
		p = sep ? sep + FUZZ_HPCTK_SEP_LEN : end;
	}
	fuzz_pre_stats st = {0};
	fuzz_hpctkpre_run(files, fuzz_hpctk_strict, &st);
	fuzz_query_hpctkpre(files, fuzz_hpctk_strict);
	for (int f = 0; f < PROFDB_HPCTKPRE_NFILES; f++)
		free((void *)files[f].data);
	return 0;
}
