/* view-fingerprint: read every stored value and every trace sample of a
 * profile database of any format through the common views only, and print
 * how many there are with an order-independent fingerprint of each set.
 *
 *   cc view-fingerprint.c $(pkg-config --cflags --libs profdb)
 *   ./a.out hpctoolkit-database/        (or a .cubex, a callgrind.out, ...)
 *
 * A view is an array of fixed-size records read in place: no call per
 * value, no copy where the file lays the records out contiguously. The
 * project's tests compile this file with VIEW_FINGERPRINT_NO_MAIN and check
 * that its numbers equal those of profdb_values_next() and
 * profdb_trace_sample_at() on every sample they have. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <profdb/query.h>

typedef struct view_fingerprint {
	uint64_t values, value_hash;    /* (profile, context, metric, type, bits) */
	uint64_t samples, sample_hash;  /* (profile, time, context) */
} view_fingerprint;

/* A well-mixed hash of one tuple; the set's hash is the sum of its tuples'
 * hashes, so the order of the walk does not matter. */
static uint64_t vf_mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	h *= UINT64_C(0xff51afd7ed558ccd);
	return h ^ (h >> 32);
}

static uint64_t vf_value_tuple(uint32_t p, uint32_t c, uint32_t m, profdb_number v)
{
	uint64_t bits;
	memcpy(&bits, &v.as, sizeof bits);
	return vf_mix(vf_mix(vf_mix(vf_mix(vf_mix(1, p), c), m), (uint64_t)v.type), bits);
}

static uint64_t vf_sample_tuple(uint32_t p, uint64_t t, uint32_t c)
{
	return vf_mix(vf_mix(vf_mix(2, p), t), c);
}

/* Fill @p out from the views of @p db. Returns 0 or the first error. */
static int view_fingerprint_of(const profdb *db, view_fingerprint *out)
{
	memset(out, 0, sizeof *out);
	int64_t np = profdb_profile_count(db);
	if (np < 0)
		return (int)np;
	for (uint32_t p = 0; p < (uint64_t)np; p++) {
		profdb_view index, values, trace;
		int r = profdb_profile_view(db, p, &index, &values);
		if (r < 0)
			return r;
		/* index: one record per context, its values a run of `values` */
		PROFDB_VIEW_FOREACH(&index, i) {
			uint32_t context = (uint32_t)profdb_view_key(&index, i);
			profdb_view run = profdb_view_run(&index, i, &values);
			PROFDB_VIEW_FOREACH(&run, k) {
				uint32_t metric = (uint32_t)profdb_view_key(&run, k);
				out->value_hash += vf_value_tuple(p, context, metric,
				                                  profdb_view_value(&run, k));
				out->values++;
			}
		}
		r = profdb_trace_view(db, p, &trace);
		if (r == -ENOTSUP)
			continue;   /* a format without traces */
		if (r < 0)
			return r;
		PROFDB_VIEW_FOREACH(&trace, i) {
			uint64_t time = profdb_view_key(&trace, i);
			uint32_t context = (uint32_t)profdb_view_value(&trace, i).as.u64;
			out->sample_hash += vf_sample_tuple(p, time, context);
			out->samples++;
		}
	}
	return 0;
}

#ifndef VIEW_FINGERPRINT_NO_MAIN
int main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DATABASE\n", argv[0]);
		return 2;
	}
	profdb *db;
	view_fingerprint f;
	if (profdb_open(&db, argv[1], NULL) < 0 || view_fingerprint_of(db, &f) < 0) {
		fprintf(stderr, "%s\n", profdb_error_message());
		return 1;
	}
	printf("values %" PRIu64 " hash %016" PRIx64 "\nsamples %" PRIu64 " hash %016" PRIx64 "\n",
	       f.values, f.value_hash, f.samples, f.sample_hash);
	profdb_close(db);
	return 0;
}
#endif
