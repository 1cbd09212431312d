/* CHECK and CHECKF for the tests that also build as plain programs
 * (-DTHREADS_STANDALONE: the Criterion runner cannot start under TSan):
 * there a failed check prints where and why and exits 1; under Criterion
 * it is cr_assert. */
#ifndef PROFDB_TESTS_STANDALONE_CHECK_H
#define PROFDB_TESTS_STANDALONE_CHECK_H

#ifdef THREADS_STANDALONE
#include <stdio.h>
#include <stdlib.h>
#define CHECKF(cond, ...)                                                                  \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,  \
			        #cond);                                                    \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			exit(1);                                                           \
		}                                                                          \
	} while (0)
#else
#include <criterion/criterion.h>
#include "common.h"
#define CHECKF(cond, ...) cr_assert(cond, __VA_ARGS__)
#endif
#define CHECK(cond) CHECKF(cond, "%s", "")

#endif
