/* Fuzz target: one .hpcrun profile (any version), opened with
 * profdb_hpcrun_open_inputs() and driven through every public hpcrun function
 * (drive-hpcrun.c lists the invariants). When it opens alone it is opened a
 * second time together with the test writer's sample .hpctrace under the
 * matching name, so trace joining and cct id lookups are reached too.
 * --strict (the committed seeds, valid files): everything must succeed. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "drive-hpcrun.h"
#include "drive-query.h"
#include "profdb/profdb.h"
#ifdef PROFDB_FUZZ_HAVE_WRITER
#include "writer.h"
#endif

#define NAME "fuzz-000000-000-7f000101-1-0"

static int run(const profdb_input *in, size_t n, int strict)
{
	profdb_hpcrun *h = NULL;
	fuzz_hpcrun_stats st;
	memset(&st, 0, sizeof st);
	int r = profdb_hpcrun_open_inputs(&h, in, n, NULL);
	if (r < 0) {
		if (!fuzz_hpcrun_documented(r) || h) {
			fprintf(stderr, "fuzz-hpcrun: bad failure %d\n", r);
			abort();
		}
		if (strict) {
			fprintf(stderr, "fuzz-hpcrun: strict input did not open: %s\n",
			        profdb_error_message());
			abort();
		}
		return r;
	}
	fuzz_hpcrun_drive(h, strict, &st);
	profdb_hpcrun_close(h);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	profdb_input q[2] = {{NAME ".hpcrun", copy, size}, {NAME ".hpctrace", NULL, 0}};
	int r = run(q, 1, fuzz_hpctk_strict);
	fuzz_query_run(q, 1, fuzz_hpctk_strict);
#ifdef PROFDB_FUZZ_HAVE_WRITER
	if (r == 0) {
		const tw_hpctrace_rec *recs;
		size_t nr;
		tw_blob t;
		tw_hpctrace_sample(&recs, &nr);
		if (tw_hpctrace_write(0, recs, nr, &t) == 0) {
			q[1].data = t.data;
			q[1].size = t.size;
			run(q, 2, 0); /* the sample's ids need not exist here */
			fuzz_query_run(q, 2, 0);
			tw_blob_free(&t);
		}
	}
#else
	(void)r;
#endif
	free(copy);
	return 0;
}
