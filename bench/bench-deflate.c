/* bench-deflate: the pprof writer's deflater beside zlib's level 1, in one
 * run, on the same bytes.
 *
 *   bench-deflate FILE [RUNS]
 *
 * FILE is read into memory (a pprof protobuf: zcat OUT.pb.gz > FILE), then
 * compressed RUNS times (default 5) by each, in pieces of 256 KiB as the
 * writer hands them over, the gzip trailer's CRC-32 included in both. Each
 * output is checked to inflate to FILE. One greppable line each:
 *   deflate: input=NAME deflater=profdb|zlib-1 best_ms=.. bytes=.. ratio=..
 * (ratio: the deflater's best wall time over profdb's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bench.h"
#include "convert/gzip-out-internal.h"

#define PIECE ((size_t)256 * 1024)

typedef struct out {
	unsigned char *p;
	size_t len, cap;
} out;

static int ours(const unsigned char *in, size_t n, out *o)
{
	profdb__gzo *g = profdb__gzo_new();
	int r = g ? 0 : -1;
	for (size_t at = 0; r == 0 && at < n; at += PIECE)
		r = profdb__gzo_put(g, in + at, n - at < PIECE ? n - at : PIECE, 0, &o->p, &o->len,
		                    &o->cap);
	if (r == 0)
		r = profdb__gzo_put(g, NULL, 0, 1, &o->p, &o->len, &o->cap);
	profdb__gzo_free(g);
	return r;
}

static int zlib1(const unsigned char *in, size_t n, out *o)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t bound = deflateBound(&z, (uLong)n);
	if (o->cap < bound) {
		free(o->p);
		if (!(o->p = malloc(bound)))
			return -1;
		o->cap = bound;
	}
	int r = Z_OK;
	z.next_out = o->p;
	z.avail_out = (uInt)bound;
	for (size_t at = 0; r == Z_OK && at < n; at += PIECE) {
		size_t k = n - at < PIECE ? n - at : PIECE;
		z.next_in = (unsigned char *)(uintptr_t)(in + at);
		z.avail_in = (uInt)k;
		r = deflate(&z, Z_NO_FLUSH);
	}
	if (r == Z_OK)
		r = deflate(&z, Z_FINISH);
	o->len = z.total_out;
	deflateEnd(&z);
	return r == Z_STREAM_END ? 0 : -1;
}

static int inflates_to(const out *o, const unsigned char *in, size_t n)
{
	unsigned char *back = malloc(n + 1);
	z_stream z;
	memset(&z, 0, sizeof z);
	if (!back || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(back);
		return 0;
	}
	z.next_in = o->p;
	z.avail_in = (uInt)o->len;
	z.next_out = back;
	z.avail_out = (uInt)(n + 1);
	int ok = inflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out == n && !memcmp(back, in, n);
	inflateEnd(&z);
	free(back);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-deflate FILE [RUNS]\n");
		return 2;
	}
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	FILE *f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0) {
		perror(argv[1]);
		return 1;
	}
	long size = ftell(f);
	rewind(f);
	unsigned char *in = malloc(size > 0 ? (size_t)size : 1);
	size_t n = in ? fread(in, 1, (size_t)(size > 0 ? size : 0), f) : 0;
	fclose(f);
	if (!in || size < 0 || n != (size_t)size || n > UINT32_MAX) {
		fprintf(stderr, "%s: cannot read it (at most 4 GiB)\n", argv[1]);
		return 1;
	}
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	static const char *names[2] = {"profdb", "zlib-1"};
	int (*const fn[2])(const unsigned char *, size_t, out *) = {ours, zlib1};
	double best[2];
	for (int d = 0; d < 2; d++) {
		out o = {NULL, 0, 0};
		best[d] = 1e300;
		for (int k = 0; k < runs; k++) {
			o.len = 0;
			double t = bench_now_ns();
			if (fn[d](in, n, &o) < 0) {
				fprintf(stderr, "%s: %s failed\n", argv[1], names[d]);
				return 1;
			}
			t = bench_now_ns() - t;
			best[d] = t < best[d] ? t : best[d];
		}
		if (!inflates_to(&o, in, n)) {
			fprintf(stderr, "%s: %s's output does not inflate to the input\n", argv[1],
			        names[d]);
			return 1;
		}
		printf("deflate: input=%s deflater=%s best_ms=%.1f bytes=%zu ratio=%.2f\n", name,
		       names[d], best[d] / 1e6, o.len, best[d] / best[0]);
		free(o.p);
	}
	free(in);
	return 0;
}
