/* Packaging check: a consumer built only from the installed files, with
 * exactly `cc app.c $(pkg-config --cflags --libs profdb)` (or --static).
 * Opens a path that does not exist and checks the documented failure:
 * -ENOENT, a NULL handle and a non-empty error message. */
#include <profdb/profdb.h>

#include <errno.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	static char sentinel;
	const char *path = argc > 1 ? argv[1] : "/nonexistent/profdb/database";
	profdb_hpctk *db = (profdb_hpctk *)(void *)&sentinel;
	int rc = profdb_hpctk_open(&db, path, NULL);
	const char *msg = profdb_error_message();
	unsigned long runtime = (unsigned long)profdb_version_number();
	int failed = 0;

	printf("profdb %s (headers %d, library %lu)\n", PROFDB_VERSION_STRING,
	       PROFDB_VERSION_NUMBER, runtime);
	printf("profdb_hpctk_open(\"%s\") = %d: %s\n", path, rc, msg ? msg : "(null)");
	if (rc != -ENOENT) {
		fprintf(stderr, "FAIL: expected -ENOENT (%d), got %d\n", -ENOENT, rc);
		failed = 1;
	}
	if (db != NULL) {
		fprintf(stderr, "FAIL: the handle is not NULL after a failed open\n");
		failed = 1;
	} else {
		profdb_hpctk_close(db); /* documented no-op */
	}
	if (msg == NULL || msg[0] == '\0') {
		fprintf(stderr, "FAIL: profdb_error_message() is empty after a failure\n");
		failed = 1;
	}
	if (runtime != PROFDB_VERSION_NUMBER) {
		fprintf(stderr, "FAIL: library version %lu != header version %d\n", runtime,
		        PROFDB_VERSION_NUMBER);
		failed = 1;
	}
	return failed;
}
