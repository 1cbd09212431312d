/* page-touch: what the first write to fresh anonymous memory costs on this
 * machine, per 4 KiB page, three ways (one line each, medians of RUNS):
 *
 *     page-touch: <way> us_per_4k=<x> runs=<n>
 *
 * fault     a write to each page: a page fault per 4 KiB;
 * populate  madvise(MADV_POPULATE_WRITE) over the block, then the writes;
 * huge      madvise(MADV_HUGEPAGE) on a block aligned on 2 MiB, then the
 *           writes: a fault per 2 MiB where the kernel has huge pages.
 *
 * usage: page-touch [MIB [RUNS]]   (default 16 MiB, 7 runs) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Seconds to write one byte of every page of a fresh @p len-byte block
 * prepared by @p way. */
static double once(size_t len, int way)
{
	const size_t huge = (size_t)2 << 20;
	char *map = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	char *p = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));
	double t = now();
#ifdef MADV_POPULATE_WRITE
	if (way == 1)
		madvise(p, len, MADV_POPULATE_WRITE);
#endif
	if (way == 2)
		madvise(p, len, MADV_HUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	t = now() - t;
	munmap(map, len + huge);
	return t;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	static const char *const name[] = {"fault", "populate", "huge"};
	if (mib == 0 || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: page-touch [MIB [RUNS]]\n");
		return 2;
	}
	size_t len = mib << 20;
	double per[3][99];
	for (int r = 0; r < runs; r++)   /* the three ways in turn: the same load */
		for (int w = 0; w < 3; w++)
			per[w][r] = once(len, w) / (double)(len / 4096) * 1e6;
	for (int w = 0; w < 3; w++) {
		qsort(per[w], (size_t)runs, sizeof per[w][0], cmp);
		printf("page-touch: %s us_per_4k=%.2f runs=%d\n", name[w], per[w][runs / 2], runs);
	}
	return 0;
}
