/* Fuzz target: anchor.xml alone. The input is the text of anchor.xml; the
 * target wraps it into a .cubex archive itself and opens that with
 * profdb_cube_open_mem(), twice:
 *  1. an archive holding only anchor.xml (every metric without data);
 *  2. the index and data members of the test-data writer's sample archive
 *     (tests/writer/cube.c) followed by the input as anchor.xml, so the
 *     anchor's metrics, call tree and locations are checked against real
 *     rows. The sample variant is picked by the input size modulo 4: plain,
 *     big-endian, ZCUBEX-compressed rows, dense indexes.
 * Both runs go through the shared driver (drive-cube.h lists the
 * invariants). Mutating the text directly, instead of a whole archive,
 * keeps the fuzzer inside the XML and away from the tar checksums.
 *
 * The seeds in corpus/fuzz-cube-anchor/ are the writer's anchors
 * (meson compile -C BUILD fuzz-cube-corpus) and run strict. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <stdlib.h>
#include <string.h>

#include "drive-cube.h"
#include "drive-hpctk.h"
#include "drive-query.h"
#include "writer.h"

enum { VARIANTS = 4 };

/* The members of each sample variant: a tar without its end blocks. */
static tw_blob prefix[VARIANTS];
static int prefix_built;

static void build_prefixes(void)
{
	static const unsigned flags[VARIANTS] = {0, TW_CUBE_BIG_ENDIAN, TW_CUBE_ZCUBEX,
	                                         TW_CUBE_DENSE};
	for (int v = 0; v < VARIANTS; v++) {
		int r = tw_cube_write(&prefix[v], TW_CUBE_NO_ANCHOR | flags[v], NULL);
		if (r < 0)   /* ZCUBEX without zlib */
			r = tw_cube_write(&prefix[v], TW_CUBE_NO_ANCHOR, NULL);
		CUBE_CHECK(r == 0 && prefix[v].size >= 1024, "the writer's sample (%d)", r);
		prefix[v].size -= 1024;   /* the two zero blocks that end the archive */
	}
	prefix_built = 1;
}

/* An archive: @p members (may be empty), anchor.xml = the input, end. */
static void run(const tw_blob *members, const uint8_t *data, size_t size)
{
	tw_blob tar = {NULL, 0};
	if (members->size) {
		tar.data = malloc(members->size + 1);
		CUBE_CHECK(tar.data != NULL, "out of memory");
		memcpy(tar.data, members->data, members->size);
		tar.size = members->size;
	}
	CUBE_CHECK(tw_tar_add(&tar, "anchor.xml", data, size, 0, 0) == 0 && tw_tar_end(&tar) == 0,
	           "cannot build the archive");
	/* Exact size, so ASan sees a read past the end of the archive. */
	unsigned char *exact = malloc(tar.size);
	CUBE_CHECK(exact != NULL, "out of memory");
	memcpy(exact, tar.data, tar.size);
	free(tar.data);
	fuzz_cube_run(exact, tar.size, NULL, NULL);
	fuzz_query_run1("x.cubex", exact, tar.size, 0);
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t none[1];
	static const tw_blob empty = {NULL, 0};
	if (!prefix_built)
		build_prefixes();
	if (!data)
		data = none;
	/* Strict applies to the archive with the members: a seed anchor alone
	 * has metrics whose rows are missing, which is valid too. */
	run(&empty, data, size);
	run(&prefix[size % VARIANTS], data, size);
	return 0;
}
