/* Fuzz target: one metric's index and data members (<id>.index, <id>.data)
 * next to a fixed, valid anchor.xml.
 *
 * Input format:
 *
 *     selector (1 byte) | index member | "#PDBSEP#" | data member
 *
 * Selector bits 0-2: the metric id modulo 5 (the sample anchor's metrics:
 * 0 time EXCLUSIVE DOUBLE, 1 mintime MINDOUBLE, 2 visits INCLUSIVE UINT64,
 * 3 bytes INT32, 4 small INT16); bit 3: the anchor declares metric 4 SIMPLE
 * (rows in cnode id order); bit 4: the members were written with DENSE
 * indexes (used only by the strict check below). Without a separator the
 * whole rest is the index and the data member is empty. The separator is
 * the one of fuzz-hpctk-db (in cube.dict), chosen over a length prefix so
 * that inserting bytes into the index does not shift the data.
 *
 * The target builds a tar: <id>.data, <id>.index (in Score-P's order), then
 * the test-data writer's sample anchor.xml (tests/writer/cube.c), and drives
 * it through the shared driver (drive-cube.h lists the invariants).
 *
 * Strict mode (the committed seeds: members cut out of the writer's sample
 * archives, meson compile -C BUILD fuzz-cube-corpus): besides opening and
 * reading without an error, every value of the metric must be the one the
 * writer stored (tw_cube_expected()), bit for bit. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-cube.h"
#include "drive-hpctk.h"
#include "drive-query.h"
#include "writer.h"

static char *anchors[2];   /* plain, metric 4 SIMPLE */

typedef struct expect {
	uint32_t metric;
	unsigned flags;
} expect;

/* Strict: the values are the writer's. */
static void check_values(const profdb_cube *c, void *arg)
{
	const expect *e = arg;
	for (uint32_t n = 0; n < TW_CUBE_CNODES; n++)
		for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++) {
			double v = 0, want = 0;
			int r = profdb_cube_value_get(c, l, n, e->metric, &v);
			int w = tw_cube_expected(e->flags, e->metric, n, l, &want);
			/* == : the writer's expectation of an integer metric may be -0.0 */
			CUBE_CHECK(r == w && (v == want || memcmp(&v, &want, sizeof v) == 0),
			           "strict: metric %u cnode %u location %u: %d %a, the writer stored %d %a",
			           e->metric, n, l, r, v, w, want);
		}
}

static const uint8_t *find_sep(const uint8_t *p, const uint8_t *end)
{
	for (; (size_t)(end - p) >= FUZZ_HPCTK_SEP_LEN; p++)
		if (memcmp(p, FUZZ_HPCTK_SEP, FUZZ_HPCTK_SEP_LEN) == 0)
			return p;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!anchors[0]) {
		anchors[0] = tw_cube_anchor(0);
		anchors[1] = tw_cube_anchor(TW_CUBE_SIMPLE);
		CUBE_CHECK(anchors[0] && anchors[1], "the writer's anchor");
	}
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	expect e = {(uint32_t)(sel & 7) % TW_CUBE_METRICS,
	            ((sel & 8) ? TW_CUBE_SIMPLE : 0u) | ((sel & 16) ? TW_CUBE_DENSE : 0u)};
	const uint8_t *p = data + 1, *end = data + size, *sep = find_sep(p, end);
	const uint8_t *idx = p, *dat = sep ? sep + FUZZ_HPCTK_SEP_LEN : end;
	size_t n_idx = (size_t)((sep ? sep : end) - p), n_dat = (size_t)(end - dat);

	char iname[32], dname[32];
	snprintf(iname, sizeof iname, "%u.index", e.metric);
	snprintf(dname, sizeof dname, "%u.data", e.metric);
	const char *anchor = anchors[(sel & 8) != 0];
	tw_blob tar = {NULL, 0};
	CUBE_CHECK(tw_tar_add(&tar, dname, dat, n_dat, 0, 0) == 0 &&
	           tw_tar_add(&tar, iname, idx, n_idx, 0, 0) == 0 &&
	           tw_tar_add(&tar, "anchor.xml", anchor, strlen(anchor), 0, 0) == 0 &&
	           tw_tar_end(&tar) == 0, "cannot build the archive");
	unsigned char *exact = malloc(tar.size);
	CUBE_CHECK(exact != NULL, "out of memory");
	memcpy(exact, tar.data, tar.size);
	free(tar.data);
	fuzz_cube_run(exact, tar.size, fuzz_hpctk_strict ? check_values : NULL, &e);
	fuzz_query_run1("x.cubex", exact, tar.size, 0);
	free(exact);
	return 0;
}
