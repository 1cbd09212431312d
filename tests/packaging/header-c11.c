/* Packaging check: <profdb/profdb.h> as a strict C11 consumer sees it
 * (-std=c11 -pedantic -Wall -Wextra -Werror), linked against the built
 * shared library. Also checks the version macros against the library. */
#include <profdb/profdb.h>
#include <profdb/profdb.h> /* include guards */

#include <stdio.h>
#include <string.h>

#if !defined(PROFDB_VERSION_MAJOR) || !defined(PROFDB_VERSION_MINOR) || \
    !defined(PROFDB_VERSION_PATCH) || !defined(PROFDB_VERSION_STRING)
#error "profdb-version.h is incomplete"
#endif

/* PROFDB_VERSION_CHECK must work in #if. */
#if !PROFDB_VERSION_CHECK(0, 1, 0)
#error "PROFDB_VERSION_CHECK(0, 1, 0) is false"
#endif
#if PROFDB_VERSION_CHECK(PROFDB_VERSION_MAJOR + 1, 0, 0)
#error "PROFDB_VERSION_CHECK(next major) is true"
#endif

/* The options struct must start with its size field (ABI convention). */
_Static_assert(offsetof(profdb_options, size) == 0, "profdb_options.size first");

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

int main(void)
{
	char expected[32];
	uint32_t runtime = profdb_version_number();
	profdb_options opts = PROFDB_OPTIONS_INIT;
	static const unsigned char rec[12] = {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0};
	profdb_view v = {rec, 1, 12, 0, PROFDB_FIELD_U64, 8, PROFDB_FIELD_U32, 0, 0, {0}};
	profdb_view s = profdb_view_slice(&v, 0, 1);
	PROFDB_VIEW_FOREACH(&s, i)
		if (profdb_view_key(&s, i) != 1 || profdb_view_value(&s, i).as.u64 != 7 ||
		    opts.size != sizeof opts)
			return 1;

	printf("headers %s (%d), library %lu\n", PROFDB_VERSION_STRING,
	       PROFDB_VERSION_NUMBER, (unsigned long)runtime);
	expect(runtime == PROFDB_VERSION_NUMBER,
	       "profdb_version_number() == PROFDB_VERSION_NUMBER");
	expect(PROFDB_VERSION_CHECK(PROFDB_VERSION_MAJOR, PROFDB_VERSION_MINOR,
	                            PROFDB_VERSION_PATCH),
	       "PROFDB_VERSION_CHECK(own version)");
	expect(!PROFDB_VERSION_CHECK(PROFDB_VERSION_MAJOR, PROFDB_VERSION_MINOR,
	                             PROFDB_VERSION_PATCH + 1),
	       "!PROFDB_VERSION_CHECK(next patch)");
	snprintf(expected, sizeof expected, "%d.%d.%d", PROFDB_VERSION_MAJOR,
	         PROFDB_VERSION_MINOR, PROFDB_VERSION_PATCH);
	expect(strcmp(expected, PROFDB_VERSION_STRING) == 0,
	       "PROFDB_VERSION_STRING == MAJOR.MINOR.PATCH");
	expect(PROFDB_VERSION_NUMBER == PROFDB_VERSION_MAJOR * 10000 +
	       PROFDB_VERSION_MINOR * 100 + PROFDB_VERSION_PATCH,
	       "PROFDB_VERSION_NUMBER encoding");
	/* No failed call yet in this thread: the message is "" (not NULL). */
	expect(profdb_error_message() != NULL, "profdb_error_message() != NULL");
	return failures ? 1 : 0;
}
