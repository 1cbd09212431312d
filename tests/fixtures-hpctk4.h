/* The writer's HPCToolkit 4.0 database opened from memory: the fixture
 * that the tree and converter tests (and others) build the same way. */
#ifndef PROFDB_TESTS_FIXTURES_HPCTK4_H
#define PROFDB_TESTS_FIXTURES_HPCTK4_H

#ifdef HAVE_TEST_WRITER
#include "profdb/profdb.h"
#include "writer/writer.h"

/* The written files, which the open database reads in place. */
typedef struct tc_hpctk4_files {
	tw_blob b[TW_NFILES];
	profdb_input in[TW_NFILES];
	size_t n;
} tc_hpctk4_files;

/* Writes @p d (NULL: tw_hpctk4_sample()) into @p f and opens it; fails
 * the current test when either step does. Close the database, then
 * tc_hpctk4_free(@p f). */
profdb *tc_hpctk4_open(const tw_hpctk4 *d, tc_hpctk4_files *f);
void tc_hpctk4_free(tc_hpctk4_files *f);
#endif

#endif
