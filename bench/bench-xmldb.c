/* Old experiment.xml databases through the common query interface: the
 * CPU time of profdb_open + profdb_close, of one PROFDB_SCAN_ALL over every
 * stored value, of the first profdb_profile_view of every profile
 * (which the common layer materialises from the scan), of one pass of
 * profdb_trace_sample_at over every trace sample, and of the first
 * profdb_trace_view of every profile (materialised, the ids translated).
 * Process CPU time,
 * so a loaded machine does not inflate it (doc/PERFORMANCE.md).
 * usage: bench-xmldb DATABASE-FOLDER [REPEATS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "profdb/profdb.h"

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DATABASE-FOLDER [REPEATS]\n", argv[0]);
		return 2;
	}
	int n = argc > 2 ? atoi(argv[2]) : 200;
	if (n < 1)
		n = 1;
	profdb *db;
	double t0 = cpu();
	for (int i = 0; i < n; i++) {
		if (profdb_open(&db, argv[1], NULL) < 0) {
			fprintf(stderr, "%s\n", profdb_error_message());
			return 1;
		}
		profdb_close(db);
	}
	double t1 = cpu();
	if (profdb_open(&db, argv[1], NULL) < 0)
		return 1;
	long values = 0;
	double t2 = cpu();
	for (int i = 0; i < n; i++) {
		profdb_values *it;
		profdb_entry e;
		if (profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0) < 0)
			return 1;
		while (profdb_values_next(it, &e) == 1)
			values++;
		profdb_values_free(it);
	}
	double t3 = cpu();
	profdb_view index, vals;
	for (int64_t p = 0; p < profdb_profile_count(db); p++)
		if (profdb_profile_view(db, (uint32_t)p, &index, &vals) < 0)
			return 1;
	double t4 = cpu();
	long samples = 0;
	uint64_t sum = 0;   /* used, so the reads are not optimised away */
	for (int i = 0; i < n; i++)
		for (int64_t p = 0; p < profdb_profile_count(db); p++) {
			int64_t len = profdb_trace_length(db, (uint32_t)p);
			profdb_sample s;
			for (int64_t k = 0; k < len; k++) {
				if (profdb_trace_sample_at(db, (uint32_t)p, (uint64_t)k, &s) < 0)
					return 1;
				sum += s.time_ns + s.context;
			}
			samples += len > 0 ? len : 0;
		}
	double t5 = cpu();
	profdb_view tv;
	for (int64_t p = 0; p < profdb_profile_count(db); p++)
		if (profdb_trace_view(db, (uint32_t)p, &tv) < 0)
			return 1;
	double t6 = cpu();
	printf("open+close %.1f us; full scan %.1f us (%ld values); first views of %lld profiles "
	       "%.1f us\n", (t1 - t0) / n * 1e6, (t3 - t2) / n * 1e6, values / n,
	       (long long)profdb_profile_count(db), (t4 - t3) * 1e6);
	printf("trace scan %.1f us (%ld samples, %.1f ns each; check %llu); first trace views "
	       "%.1f us\n", (t5 - t4) / n * 1e6, samples / n,
	       samples ? (t5 - t4) / (double)samples * 1e9 : 0.0, (unsigned long long)(sum & 0xff),
	       (t6 - t5) * 1e6);
	profdb_close(db);
	return 0;
}
