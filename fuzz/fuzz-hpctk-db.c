/* Fuzz target: a whole HPCToolkit 4.0 database (meta.db, profile.db, cct.db,
 * trace.db) carved out of one input.
 *
 * Input format: the four files in profdb_hpctk_file order, separated by the
 * 8 bytes "#PDBSEP#" (FUZZ_HPCTK_SEP):
 *
 *     meta.db "#PDBSEP#" profile.db "#PDBSEP#" cct.db "#PDBSEP#" trace.db
 *
 * Only the first three separators split; everything after the third one,
 * further separators included, is trace.db. A missing or empty segment means
 * "file absent" (profdb_input.data == NULL). A separator was chosen over a
 * length prefix so that a mutation inserting or deleting bytes in one file
 * does not shift the others; the dictionary holds the separator. The bytes
 * never occur in a real database (they are not a magic, footer or likely
 * string), and if a mutation puts them inside a file the input is simply a
 * different split.
 *
 * Each file is copied into its own exact-size heap buffer, so a read past
 * the end of one file is caught by AddressSanitizer instead of landing in
 * the next file. The database is then driven by fuzz_hpctk_run(), which also
 * compares profile.db with cct.db (drive-hpctk.h), then, with the present
 * files named meta.db, profile.db, cct.db and trace.db, through the common
 * query interface (drive-query.h). */
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "drive-query.h"

static const uint8_t *find_sep(const uint8_t *p, const uint8_t *end)
{
	while ((size_t)(end - p) >= FUZZ_HPCTK_SEP_LEN) {
		const uint8_t *hit = memchr(p, FUZZ_HPCTK_SEP[0], (size_t)(end - p));
		if (!hit || (size_t)(end - hit) < FUZZ_HPCTK_SEP_LEN)
			return NULL;
		if (memcmp(hit, FUZZ_HPCTK_SEP, FUZZ_HPCTK_SEP_LEN) == 0)
			return hit;
		p = hit + 1;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	profdb_input files[PROFDB_HPCTK_NFILES] = {{NULL, NULL, 0}};
	const uint8_t *p = data, *end = data + size;
	if (!data)
		return 0;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		const uint8_t *sep = f + 1 < PROFDB_HPCTK_NFILES ? find_sep(p, end) : NULL;
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
		if (!sep) {
			p = end;
			continue;
		}
		p = sep + FUZZ_HPCTK_SEP_LEN;
	}
	fuzz_hpctk_run(files);   /* all absent: the -ENOENT path */
	static const char *const names[PROFDB_HPCTK_NFILES] = {"meta.db", "profile.db", "cct.db",
	                                                       "trace.db"};
	profdb_input in[PROFDB_HPCTK_NFILES];
	size_t n = 0;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		if (files[f].data)
			in[n++] = (profdb_input){names[f], files[f].data, files[f].size};
	if (n)
		fuzz_query_run(in, n, fuzz_hpctk_strict);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		free((void *)files[f].data);
	return 0;
}
