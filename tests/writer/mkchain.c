/* profdb-mkchain: writes a deep call chain (tests/writer/writer.h, "Deep call
 * chains") in one format, for the depth tests, bench/deep-chains.sh and the
 * fuzz targets' stress inputs.
 *   profdb-mkchain FORMAT DEPTH leaf|every OUT
 * FORMAT: hpctk4 (OUT is a directory), pre (directory), hpcrun (file),
 * cube (file), callgrind (file). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

static int usage(void)
{
	fputs("usage: profdb-mkchain hpctk4|pre|hpcrun|cube|callgrind DEPTH leaf|every OUT\n"
	      "  DEPTH frames, f0 calling f1 calling ... ; self cost 1 at the leaf only\n"
	      "  (leaf) or at every frame (every); OUT is a directory for hpctk4 and pre\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return usage();
	char *end;
	errno = 0;
	uintmax_t depth = strtoumax(argv[2], &end, 10);
	if (errno || *end || depth == 0 || depth > UINT32_MAX / 8 || argv[2][0] == '-')
		return usage();
	int every = strcmp(argv[3], "every") == 0;
	if (!every && strcmp(argv[3], "leaf") != 0)
		return usage();
	static const struct {
		const char *name;
		int (*write)(const char *, uint32_t, int);
	} formats[] = {
		{"hpctk4", tw_chain_hpctk4}, {"pre", tw_chain_pre}, {"hpcrun", tw_chain_hpcrun},
		{"cube", tw_chain_cube}, {"callgrind", tw_chain_callgrind},
	};
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(argv[1], formats[i].name) == 0) {
			int r = formats[i].write(argv[4], (uint32_t)depth, every);
			if (r < 0) {
				fprintf(stderr, "profdb-mkchain: %s: %s\n", argv[4], strerror(-r));
				return 1;
			}
			return 0;
		}
	return usage();
}
