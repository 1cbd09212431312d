// Packaging check: <profdb/profdb.h> from C++11 (-pedantic -Wall -Wextra
// -Werror). Linking proves the declarations have C linkage (extern "C").
#include <profdb/profdb.h>

#include <cstdio>
#include <cstring>

static_assert(PROFDB_VERSION_CHECK(0, 1, 0), "PROFDB_VERSION_CHECK from C++");

int main()
{
	profdb_options opts = PROFDB_OPTIONS_INIT;
	opts.flags = PROFDB_OPEN_COPY;

	/* The view helpers are inline: they must compile as C++ too. */
	static const unsigned char rec[12] = {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0};
	profdb_view v = profdb_view();
	v.base = rec;
	v.count = 1;
	v.stride = 12;
	v.key_type = PROFDB_FIELD_U64;
	v.value_offset = 8;
	v.value_type = PROFDB_FIELD_U32;
	profdb_view s = profdb_view_slice(&v, 0, 1);
	PROFDB_VIEW_FOREACH(&s, i)
		if (profdb_view_key(&s, i) != 1 || profdb_view_value(&s, i).as.u64 != 7)
			return 1;

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
