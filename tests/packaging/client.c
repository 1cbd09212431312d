/* Packaging check: a client that reads a database, built from the installed
 * tree with nothing but `pkg-config --cflags --libs profdb` (or --static).
 * The same file is compiled as C and as C++ (it keeps to what both
 * languages accept), so both link against the C symbols of libprofdb.
 *
 *   client DIR   DIR is `profdb-mksample sample DIR`; tests/writer/writer.h
 *                documents the values checked below.
 * Prints one line per check; exits 1 when one fails. */
#include <profdb/profdb.h>

#include <errno.h>
#include <stdio.h>

static int failed;

static void expect_value(const profdb *db, uint32_t profile, uint32_t ctx, uint32_t metric,
                         int want_rc, double want)
{
	profdb_number n;
	int rc = profdb_value(db, profile, ctx, metric, &n);
	double got = profdb_number_to_double(n);
	printf("value(profile %u, context %u, metric %u) = %d, %g\n", (unsigned)profile,
	       (unsigned)ctx, (unsigned)metric, rc, got);
	if (rc != want_rc || (rc == 1 && got != want)) {
		fprintf(stderr, "FAIL: expected %d, %g\n", want_rc, want);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	profdb *db = NULL;
	if (argc != 2) {
		fprintf(stderr, "usage: client DATABASE\n");
		return 2;
	}
	int rc = profdb_open(&db, argv[1], NULL);
	if (rc != 0) {
		fprintf(stderr, "FAIL: profdb_open(%s) = %d: %s\n", argv[1], rc, profdb_error_message());
		return 1;
	}
	printf("profdb %s, %s: %lld profiles, %lld metrics\n", PROFDB_VERSION_STRING, argv[1],
	       (long long)profdb_profile_count(db), (long long)profdb_metric_count(db));
	if (profdb_profile_count(db) != 3) {
		fprintf(stderr, "FAIL: expected 3 profiles (summary and two threads)\n");
		failed = 1;
	}
	expect_value(db, 1, 5, 0, 1, 1.0);
	expect_value(db, 0, 13, 5, 1, 6144.0);
	expect_value(db, 1, 13, 5, 0, 0.0);            /* not stored */
	expect_value(db, 1, 4000000, 0, -ENOENT, 0.0); /* no such context */
	profdb_close(db);
	return failed;
}
