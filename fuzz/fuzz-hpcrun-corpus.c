/* Writes the seed corpora of fuzz-hpcrun and fuzz-hpctrace from the test
 * writer (tests/writer/hpcrun.c):
 *     meson compile -C BUILD fuzz-hpcrun-corpus
 * usage: fuzz-hpcrun-corpus CORPUS-DIRECTORY (the fuzz/corpus folder) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

static int save(const char *dir, const char *target, const char *name, const tw_blob *b)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->data, 1, b->size, f) != b->size || fclose(f) != 0) {
		fprintf(stderr, "%s: cannot write\n", path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned version;
		int trailer, lush;
		uint32_t epochs;
	} profiles[] = {
		{"v2-no-trailer.hpcrun", 2, 0, 0, 1}, {"v2-trailer.hpcrun", 2, 1, 0, 1},
		{"v3.hpcrun", 3, 1, 0, 1},            {"v3-lush-epochs.hpcrun", 3, 1, 1, 2},
		{"v4.hpcrun", 4, 1, 0, 1},
	};
	static const struct {
		const char *name;
		uint64_t flags;
		int empty;
	} traces[] = {
		{"cpu.hpctrace", 0, 0}, {"data-centric.hpctrace", 1, 0},
		/* empty, with LCA_RECORDED set: a flag combination of our own */
		{"gpu-call-trace.hpctrace", 4, 0}, {"empty.hpctrace", 2, 1},
	};
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS-DIRECTORY\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		tw_hpcrun d;
		tw_blob b;
		tw_hpcrun_sample(&d, profiles[i].version, profiles[i].trailer);
		d.lush = profiles[i].lush;
		d.n_epochs = profiles[i].epochs;
		if (tw_hpcrun_write(&d, &b) != 0 || save(argv[1], "fuzz-hpcrun", profiles[i].name, &b))
			return 1;
		tw_blob_free(&b);
	}
	for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
		const tw_hpctrace_rec *r;
		size_t n;
		tw_blob b;
		tw_hpctrace_sample(&r, &n);
		if (tw_hpctrace_write(traces[i].flags, r, traces[i].empty ? 0 : n, &b) != 0 ||
		    save(argv[1], "fuzz-hpctrace", traces[i].name, &b))
			return 1;
		tw_blob_free(&b);
	}
	return 0;
}
