// Packaging check: <profdb/profdb.h> from C++11 (-pedantic -Wall -Wextra
// -Werror). Linking proves the declarations have C linkage (extern "C").
#include <profdb/profdb.h>

#include <cstdio>
#include <cstring>

static_assert(PROFDB_VERSION_CHECK(0, 1, 0), "PROFDB_VERSION_CHECK from C++");

int main()
{
	profdb_options opts = profdb_options();
	opts.size = sizeof opts;
	opts.flags = PROFDB_OPEN_COPY;

	profdb_hpctk *db = nullptr;
	int rc = profdb_hpctk_open(&db, "/nonexistent/profdb-packaging-check", &opts);
	const char *msg = profdb_error_message();
	std::printf("C++: headers %s, library %lu, open -> %d (%s)\n", PROFDB_VERSION_STRING,
	            static_cast<unsigned long>(profdb_version_number()), rc, msg);
	profdb_hpctk_close(db);
	if (profdb_version_number() != PROFDB_VERSION_NUMBER || rc >= 0 || db != nullptr ||
	    msg == nullptr || std::strlen(msg) == 0) {
		std::fprintf(stderr, "FAIL: unexpected result from C++\n");
		return 1;
	}
	return 0;
}
