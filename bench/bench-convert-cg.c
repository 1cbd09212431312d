/* bench-convert-cg: profdb_convert() to Callgrind and pprof.
 *
 *   bench-convert-cg PATH FORMAT...      (FORMAT: callgrind, pprof, ...)
 *
 * Opens PATH once (timed separately), then converts it to each FORMAT into
 * a sink that only counts bytes: the best of up to 5 runs (at most 3 for
 * conversions over a second), the output size, and the memory: the
 * process's peak RSS (VmHWM) and the peak of its anonymous memory
 * (RssAnon, what the library allocated, sampled every 1 MiB of output and
 * at the end; the mapped input is file-backed and not in it). One
 * greppable line per case:
 *   convert-cg: input=NAME format=F best_ms=.. runs=.. bytes=.. open_ms=..
 *               peak_anon_mib=.. anon_before_mib=.. hwm_mib=.. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "profdb/profdb.h"

typedef struct sink {
	uint64_t bytes, calls;
	long peak_anon;
} sink;

static void sample_anon(sink *s)
{
	bench_mem m = bench_mem_now();
	if (m.anon_kib > s->peak_anon)
		s->peak_anon = m.anon_kib;
}

static int count(const void *data, size_t len, void *userdata)
{
	sink *s = userdata;
	(void)data;
	s->bytes += len;
	if (!(++s->calls & 15))
		sample_anon(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench-convert-cg PATH FORMAT...\n");
		return 2;
	}
	const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	double t0 = bench_now_ns();
	profdb *db;
	if (profdb_open(&db, argv[1], NULL) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], profdb_error_message());
		return 1;
	}
	double open_ms = (bench_now_ns() - t0) / 1e6;
	bench_mem before = bench_mem_now();
	for (int a = 2; a < argc; a++) {
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		if (profdb_convert_format_find(argv[a], &o.format) < 0) {
			fprintf(stderr, "%s\n", profdb_error_message());
			return 2;
		}
		double best = 1e300;
		int runs = 0;
		sink s = {0, 0, before.anon_kib};
		for (; runs < 5 && !(runs >= 3 && best > 1e9) && !(runs >= 1 && best > 5e9); runs++) {
			s.bytes = s.calls = 0;
			double t = bench_now_ns();
			int r = profdb_convert(db, &o, count, &s);
			t = bench_now_ns() - t;
			sample_anon(&s);
			if (r < 0) {
				fprintf(stderr, "%s -> %s: %s\n", argv[1], argv[a], profdb_error_message());
				return 1;
			}
			if (t < best)
				best = t;
		}
		bench_mem m = bench_mem_now();
		printf("convert-cg: input=%s format=%s best_ms=%.2f runs=%d bytes=%llu open_ms=%.1f "
		       "peak_anon_mib=%.1f anon_before_mib=%.1f hwm_mib=%.1f\n", name, argv[a],
		       best / 1e6, runs, (unsigned long long)s.bytes, open_ms, s.peak_anon / 1024.0,
		       before.anon_kib / 1024.0, m.hwm_kib / 1024.0);
		fflush(stdout);
	}
	profdb_close(db);
	return 0;
}
