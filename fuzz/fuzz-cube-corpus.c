/* Writes the seed corpora of the Cube fuzz targets from the test writer's
 * sample archive:
 *     meson compile -C BUILD fuzz-cube-corpus
 * runs "fuzz-cube-corpus CUBE-DIR [ANCHOR-DIR DATA-DIR]":
 *  - CUBE-DIR (fuzz-cube): one whole archive per layout variant;
 *  - ANCHOR-DIR (fuzz-cube-anchor): the sample's anchor.xml texts;
 *  - DATA-DIR (fuzz-cube-data): per metric with data and per variant, the
 *    selector byte, <id>.index, "#PDBSEP#", <id>.data (fuzz-cube-data.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "writer.h"

static int write_file(const char *dir, const char *name, const void *a, size_t na,
                      const void *b, size_t nb, const void *c, size_t nc)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(a, 1, na, f) != na || fwrite(b, 1, nb, f) != nb ||
	    fwrite(c, 1, nc, f) != nc || fclose(f) != 0) {
		fprintf(stderr, "%s: cannot write\n", path);
		return -1;
	}
	return 0;
}

/* The bytes of member @p name of a plain ustar archive. */
static int member(const tw_blob *tar, const char *name, const unsigned char **data, size_t *size)
{
	for (size_t at = 0; at + 512 <= tar->size;) {
		const unsigned char *h = tar->data + at;
		if (h[0] == 0)
			break;
		size_t n = (size_t)strtoull((const char *)h + 124, NULL, 8);
		if (at + 512 + n > tar->size)
			break;
		if (strncmp((const char *)h, name, 100) == 0) {
			*data = h + 512;
			*size = n;
			return 0;
		}
		at += 512 + (n + 511) / 512 * 512;
	}
	return -1;
}

static int anchor_seeds(const char *dir)
{
	static const struct {
		const char *name;
		unsigned flags;
	} seeds[] = {{"sample.xml", 0}, {"simple.xml", TW_CUBE_SIMPLE}, {"derived.xml", TW_CUBE_DERIVED}};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		char *a = tw_cube_anchor(seeds[i].flags);
		if (!a || write_file(dir, seeds[i].name, a, strlen(a), "", 0, "", 0) < 0) {
			free(a);
			return -1;
		}
		free(a);
	}
	return 0;
}

static int data_seeds(const char *dir)
{
	static const struct {
		const char *name;
		unsigned flags;
	} variants[] = {
		{"plain", 0}, {"big-endian", TW_CUBE_BIG_ENDIAN}, {"zcubex", TW_CUBE_ZCUBEX},
		{"dense", TW_CUBE_DENSE}, {"simple", TW_CUBE_SIMPLE},
		{"all", TW_CUBE_BIG_ENDIAN | TW_CUBE_ZCUBEX | TW_CUBE_DENSE},
	};
	static const unsigned metrics[] = {0, 1, 2, 4};
	for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
		tw_blob b;
		int r = tw_cube_write(&b, variants[v].flags, NULL);
		if (r == -ENOTSUP)
			continue;
		if (r < 0)
			return -1;
		for (size_t k = 0; k < sizeof metrics / sizeof metrics[0]; k++) {
			unsigned m = metrics[k];
			if ((variants[v].flags & TW_CUBE_SIMPLE) && m != 4)
				continue;
			char iname[32], dname[32], name[64];
			const unsigned char *idx, *dat;
			size_t ni, nd;
			snprintf(iname, sizeof iname, "%u.index", m);
			snprintf(dname, sizeof dname, "%u.data", m);
			if (member(&b, iname, &idx, &ni) < 0 || member(&b, dname, &dat, &nd) < 0) {
				fprintf(stderr, "%s: no member %s\n", variants[v].name, iname);
				free(b.data);
				return -1;
			}
			unsigned char sel[1];
			sel[0] = (unsigned char)(m | ((variants[v].flags & TW_CUBE_SIMPLE) ? 8 : 0) |
			                         ((variants[v].flags & TW_CUBE_DENSE) ? 16 : 0));
			snprintf(name, sizeof name, "%s-%u", variants[v].name, m);
			unsigned char *tail = malloc(8 + nd);   /* separator and data */
			if (!tail) {
				free(b.data);
				return -1;
			}
			memcpy(tail, "#PDBSEP#", 8);
			memcpy(tail + 8, dat, nd);
			r = write_file(dir, name, sel, 1, idx, ni, tail, 8 + nd);
			free(tail);
			if (r < 0) {
				free(b.data);
				return -1;
			}
		}
		free(b.data);
	}
	return 0;
}

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
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: %s CUBE-DIR [ANCHOR-DIR DATA-DIR]\n", argv[0]);
		return 2;
	}
	if (argc == 4 && (anchor_seeds(argv[2]) < 0 || data_seeds(argv[3]) < 0))
		return 1;
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
