/* A plain main() for the fuzz targets, so the committed corpus and the
 * regression inputs run under any compiler (gcc included) without libFuzzer.
 *
 * usage: fuzz-TARGET [--strict | --lenient] PATH...
 *
 * Every PATH is either a file, which is run through LLVMFuzzerTestOneInput(),
 * or a directory, whose files are run recursively in name order. Names that
 * start with '.' or with "README" are skipped, so a directory can hold a
 * .gitkeep or a README and otherwise be empty. --strict makes the paths after
 * it abort on a profile.db/cct.db value mismatch (see drive-hpctk.h);
 * --lenient switches back. A crash or a violated invariant aborts the
 * process, which the test runner reports; exit status 1 means an unreadable
 * path. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "drive-hpctk.h"
#include "drive-query.h"

static unsigned long long n_inputs;

static int skipped_name(const char *name)
{
	return name[0] == '.' || strncmp(name, "README", 6) == 0;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, size = 0;
	unsigned char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fprintf(stderr, "%s: out of memory\n", path);
			fclose(f);
			return -1;
		}
		size += fread(buf + size, 1, cap - size, f);
		if (size < cap)
			break;
		unsigned char *g = realloc(buf, cap * 2);
		if (!g)
			free(buf);
		buf = g;
		cap *= 2;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		fprintf(stderr, "%s: read error\n", path);
		free(buf);
		return -1;
	}
	/* An exact-size copy, as libFuzzer passes it, so a sanitizer sees any
	 * read past the end. */
	unsigned char *exact = malloc(size ? size : 1);
	if (!exact) {
		free(buf);
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	memcpy(exact, buf, size);
	free(buf);
	fprintf(stderr, "running %s (%zu bytes)\n", path, size);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	n_inputs++;
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	int r = 0;
	for (int i = 0; i < n; i++) {
		if (r == 0 && !skipped_name(names[i]->d_name)) {
			size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
			char *sub = malloc(len);
			if (!sub) {
				r = -1;
			} else {
				snprintf(sub, len, "%s/%s", path, names[i]->d_name);
				r = run_path(sub);
				free(sub);
			}
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	int status = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--strict") == 0)
			fuzz_hpctk_strict = 1;
		else if (strcmp(argv[i], "--lenient") == 0)
			fuzz_hpctk_strict = 0;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("usage: %s [--strict | --lenient] FILE-OR-DIRECTORY...\n", argv[0]);
			return 0;
		} else if (run_path(argv[i]) < 0)
			status = 1;
	}
	printf("%s: %llu inputs, %" PRIu64 " databases opened, %" PRIu64 " cross-file values compared, "
	       "%" PRIu64 " mismatches\n", argc > 0 ? argv[0] : "fuzz", n_inputs,
	       fuzz_hpctk_stats_total.opened, fuzz_hpctk_stats_total.compared,
	       fuzz_hpctk_stats_total.mismatches);
	printf("%s: query interface: %" PRIu64 " runs, %" PRIu64 " opens, %" PRIu64 " values "
	       "checked, %" PRIu64 " tolerated cross-file mismatches\n", argc > 0 ? argv[0] : "fuzz",
	       fuzz_query_stats_total.runs, fuzz_query_stats_total.opened,
	       fuzz_query_stats_total.values, fuzz_query_stats_total.mismatches);
	return status;
}
