/* profdb-tool-mkcube: writes the test-data writer's Cube4 sample archive
 * (tests/writer/writer.h, "Cube4 .cubex") to a file, with its derived
 * metric, so the tool tests have a Cube input with known content.
 *   profdb-tool-mkcube FILE.cubex */
#include <stdio.h>
#include <string.h>

#include "writer.h"

int main(int argc, char **argv)
{
	tw_blob b = {NULL, 0};
	if (argc != 2) {
		fputs("usage: profdb-tool-mkcube FILE.cubex\n", stderr);
		return 2;
	}
	int r = tw_cube_write(&b, TW_CUBE_DERIVED, NULL);
	if (r < 0) {
		fprintf(stderr, "profdb-tool-mkcube: tw_cube_write failed (%d)\n", r);
		return 1;
	}
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(b.data, 1, b.size, f) != b.size || fclose(f) != 0) {
		perror(argv[1]);
		tw_blob_free(&b);
		return 1;
	}
	tw_blob_free(&b);
	return 0;
}
