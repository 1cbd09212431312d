/* The argument checks lib/query makes for every format before it calls a
 * backend (lib/core/backend-internal.h): a profile index past
 * profdb_profile_count and an identity entry past n_identity fail with
 * -ENOENT and a message naming the function, the index and the count;
 * -ENOTSUP still wins for what the format cannot answer. Callgrind text
 * needs no writer, so these run in every build. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "common.h"
#include "profdb/profdb.h"

static const char text[] =
	"# callgrind format\n"
	"cmd: ./prog\n"
	"events: Ir\n"
	"fn=main\n"
	"1 10\n";

static profdb *open_text(void)
{
	profdb_input in = {"callgrind.out.1", text, sizeof text - 1};
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, &in, 1, NULL);
	cr_assert_eq(r, 0, "open: %d %s", r, profdb_error_message());
	cr_assert_eq(profdb_profile_count(db), 1);
	return db;
}

static void expect_enoent(int r, const char *fn, const char *what)
{
	cr_assert_eq(r, -ENOENT, "%s: %d", fn, r);
	cr_assert(strstr(profdb_error_message(), fn), "%s", profdb_error_message());
	cr_assert(strstr(profdb_error_message(), what), "%s", profdb_error_message());
}

Test(query_args, profile_index)
{
	profdb *db = open_text();
	profdb_number n;
	profdb_profile p;
	profdb_str kind;
	uint64_t value;
	profdb_view index, values;
	const char *gone = "profile 1 does not exist";
	expect_enoent(profdb_value(db, 1, 0, 0, &n), "profdb_value", gone);
	cr_assert_eq(n.type, PROFDB_TYPE_NONE, "output cleared");
	expect_enoent(profdb_inclusive(db, 1, 0, 0, &n), "profdb_inclusive", gone);
	expect_enoent(profdb_exclusive(db, 7, 0, 0, &n), "profdb_exclusive", "profile 7");
	expect_enoent(profdb_profile_at(db, 1, &p), "profdb_profile_at", gone);
	expect_enoent(profdb_profile_identity(db, 1, 0, &kind, &value),
	              "profdb_profile_identity", gone);
	expect_enoent(profdb_profile_view(db, 1, &index, &values), "profdb_profile_view", gone);
	/* the count is in the message */
	cr_assert(strstr(profdb_error_message(), "1 profiles"), "%s", profdb_error_message());
	/* a format without traces: -ENOTSUP, whatever the index */
	cr_assert_eq(profdb_trace_length(db, 1), -ENOTSUP);
	cr_assert_eq(profdb_trace_sample_at(db, 1, 0, &(profdb_sample){0}), -ENOTSUP);
	/* in range: the backend answers */
	cr_assert_eq(profdb_profile_at(db, 0, &p), 0);
	cr_assert_geq(profdb_value(db, 0, 0, 0, &n), 0);
	profdb_close(db);
}

Test(query_args, identity_entry)
{
	profdb *db = open_text();
	profdb_profile p;
	profdb_str kind;
	uint64_t value;
	cr_assert_eq(profdb_profile_at(db, 0, &p), 0);
	cr_assert_gt(p.n_identity, 0);
	for (uint32_t i = 0; i < p.n_identity; i++)
		cr_assert_eq(profdb_profile_identity(db, 0, i, &kind, &value), 0);
	expect_enoent(profdb_profile_identity(db, 0, p.n_identity, &kind, &value),
	              "profdb_profile_identity", "identity entries");
	profdb_close(db);
}

TC_MAIN
