/* Writes the seed corpus of fuzz-cube (fuzz/corpus/fuzz-cube/) from the test
 * writer's sample archive, one file per layout variant:
 *     meson compile -C BUILD fuzz-cube-corpus */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "writer.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned flags;
	} seeds[] = {
		{"plain.cubex", 0},
		{"big-endian.cubex", TW_CUBE_BIG_ENDIAN},
		{"zcubex.cubex", TW_CUBE_ZCUBEX},
		{"dense.cubex", TW_CUBE_DENSE},
		{"bad-checksum.cubex", TW_CUBE_BAD_CHECKSUM},
		{"cubew-pad.cubex", TW_CUBE_CUBEW_PAD | TW_CUBE_EXACT_BLOCK},
		{"derived.cubex", TW_CUBE_DERIVED},
		{"simple.cubex", TW_CUBE_SIMPLE | TW_CUBE_CUBEW_PAD},
		{"gzip-anchor.cubex", TW_CUBE_GZIP_ANCHOR},
		{"gzip-archive.cubex", TW_CUBE_GZIP_ARCHIVE},
		{"everything.cubex", TW_CUBE_BIG_ENDIAN | TW_CUBE_ZCUBEX | TW_CUBE_DENSE |
		                     TW_CUBE_DERIVED | TW_CUBE_BAD_CHECKSUM},
	};
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTPUT-DIRECTORY\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		tw_blob b;
		int r = tw_cube_write(&b, seeds[i].flags, NULL);
		if (r == -ENOTSUP)
			continue;
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", seeds[i].name, strerror(-r));
			return 1;
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], seeds[i].name);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(b.data, 1, b.size, f) != b.size || fclose(f) != 0) {
			fprintf(stderr, "%s: cannot write\n", path);
			return 1;
		}
		free(b.data);
	}
	return 0;
}
