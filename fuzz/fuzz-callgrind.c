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
 * and invalid ones alike, so they run --lenient.
 *
 * A plain-text input without '\r' is also read with CRLF line ends after
 * its first line: the same result code and, when it opens, the same
 * profile (fuzz_cg_compare()). The scanner reads that copy on its general
 * path (crlf_compare()), so this holds its fast paths to it. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drive-callgrind.h"
#include "drive-hpctk.h"
#include "drive-query.h"

/* The same text with "\r\n" line ends after the first line reads the
 * same. The scanner takes its fast paths for "\r\n" only when the first
 * line ends so: the copy goes to its general path, and this compares its
 * fast paths with it. (The detail decoder reads the copy on its fast
 * paths, and its rows must add up to the self costs of that general
 * path.) */
static void crlf_compare(const unsigned char *text, size_t n, int ra, const profdb_cg *a)
{
	size_t nl = 0;
	for (size_t i = 0; i < n; i++)
		nl += text[i] == '\n';
	unsigned char *c = malloc(n + nl);
	if (!c)
		abort();
	size_t k = 0;
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		if (text[i] != '\n' || first) {
			first &= text[i] != '\n';
			c[k++] = text[i];
			continue;
		}
		c[k++] = '\r';
		c[k++] = '\n';
	}
	profdb_cg *b = NULL;
	int rb = fuzz_cg_run(c, k, 1, &b);
	/* The content check looks at the first 2047 bytes, which now hold
	 * less text. */
	if (rb != -ENOMEM && rb != -EFBIG &&
	    !((ra == -EPROTONOSUPPORT) != (rb == -EPROTONOSUPPORT) && k > 2047)) {
		CG_CHECK(ra == rb, "LF open %d, CRLF open %d", ra, rb);
		if (a && b)
			fuzz_cg_compare(a, b);
	}
	profdb_cg_close(b);
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = calloc(size ? size : 1, 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	int gz = size >= 2 && copy[0] == 0x1f && copy[1] == 0x8b;
	profdb_cg *a = NULL;
	int ra = fuzz_cg_run(copy, size, !gz, &a);
	if (!gz && size && !memchr(data, '\r', size) && ra != -ENOMEM && ra != -EFBIG)
		crlf_compare(copy, size, ra, a);
	profdb_cg_close(a);
	fuzz_query_run1("callgrind.out", copy, size, 0);
	free(copy);
	return 0;
}
