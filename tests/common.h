/* Small helpers shared by the Criterion tests: sample-data discovery (with
 * visible skips), file slurping, a deterministic PRNG and the "drive
 * everything" pass used by the corruption and thread tests. */
#ifndef PROFDB_TESTS_COMMON_H
#define PROFDB_TESTS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "profdb/profdb.h"

/* ---- sanitizers ------------------------------------------------------------ */

/* UNDER_ASAN is 1 in a build with AddressSanitizer, else 0: gcc defines
 * __SANITIZE_ADDRESS__, clang answers __has_feature. Tests use it to scale
 * their time budgets, to read the sanitizer's heap counters and to leave
 * to the plain build what takes minutes under it. Test with #if. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* ---- runner ---------------------------------------------------------------- */

/* Criterion's main, plus a skip report: prints how many tests were skipped
 * and exits 77 (meson's SKIP) when every test was. Each test file has
 * TC_MAIN at its end. */
int tc_main(int argc, char *argv[]);
#define TC_MAIN                                                                \
	int main(int argc, char *argv[])                                       \
	{                                                                      \
		return tc_main(argc, argv);                                    \
	}

/* ---- sample data ---------------------------------------------------------- */

/* $PROFDB_SAMPLE_DATA if set and non-empty, else $PROFDB_SAMPLE_DATA_DEFAULT
 * (set by meson from the sample_data option), else NULL. Never skips. */
const char *tc_sample_root(void);

/* Full path of @p rel under the sample root (malloc'ed). Skips the current
 * test (cr_skip_test) when the root or the path does not exist. */
char *tc_sample_path(const char *rel);

/* Skips the current test in a build with AddressSanitizer: the two big
 * Callgrind profiles take minutes there and are checked by the plain build
 * (the reader itself still reads them under ASan, tests/test-callgrind.c). */
void tc_skip_big_under_asan(void);

/* The database directories (those holding meta.db or profile.db) directly
 * under $root/@p rel, sorted by name, as a malloc'ed NULL-terminated array of
 * malloc'ed full paths; *n gets the count. NULL with *n = 0 when the folder
 * does not exist. Free with tc_free_list. */
char **tc_list_dbs(const char *rel, size_t *n);
/* The regular files below $root/@p rel, recursively (dot files and README*
 * left out), sorted, in the same form as tc_list_dbs. */
char **tc_list_files(const char *rel, size_t *n);
void tc_free_list(char **list);

/* Run @p check on every sample of folder @p rel: its files, recursively
 * (entries = 0), or its entries, files and database directories alike
 * (entries = 1); dot files and README.md left out. @p check returns 1
 * when it checked the sample, 0 when not (it does not open, ...). Skips
 * when the data is absent, or when nothing was checked and *@p unreadable
 * (which @p check raises for an input this build cannot read, -ENOTSUP)
 * is non-zero; fails when nothing was checked otherwise. */
void tc_check_samples(const char *rel, int entries, int (*check)(const char *path),
                      const int *unreadable);

/* Last path component (points into @p path). */
const char *tc_basename(const char *path);

/* ---- files ---------------------------------------------------------------- */

/* Whole file into a malloc'ed buffer (at least 1 byte allocated); NULL when
 * it cannot be read. */
unsigned char *tc_slurp(const char *path, size_t *size);

/* The four files of a database directory (absent ones NULL); returns how
 * many were read. Free with tc_free_files. */
int tc_slurp_db(const char *dir, unsigned char *data[PROFDB_HPCTK_NFILES],
                size_t size[PROFDB_HPCTK_NFILES]);
void tc_free_files(unsigned char *data[PROFDB_HPCTK_NFILES]);

extern const char *const tc_file_names[PROFDB_HPCTK_NFILES];

/* One input from memory (@p name tells the format, as a file name would),
 * opened with the default options; fails the current test with the
 * library's message when it does not open. */
profdb *tc_open_mem(const char *name, const void *data, size_t size);

/* ---- PRNG (splitmix64: deterministic, seedable) --------------------------- */

typedef struct tc_rng {
	uint64_t s;
} tc_rng;
uint64_t tc_rand(tc_rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t tc_below(tc_rng *r, uint64_t n);

/* Monotonic clock in seconds. */
double tc_now(void);
/* CPU time of the whole process (every thread) in seconds: a bound that a
 * busy machine does not stretch, unlike the wall clock. */
double tc_cpu_now(void);

/* ---- drive everything ----------------------------------------------------- */

typedef struct tc_drive_stats {
	int64_t contexts;     /* from the walk, root excluded; -1 if the tree failed */
	uint64_t values;      /* pairs read through profile planes */
	uint64_t cct_values;  /* pairs read through context planes */
	uint64_t samples;     /* trace elements read */
	uint64_t failures;    /* failing calls (each checked, see below) */
	int first_error;      /* first negative result, 0 if none */
} tc_drive_stats;

/* Call every read function of the API on @p db with arguments derived from
 * the database itself: title, identifier names, metrics (props, summaries),
 * modules, files, functions, the context count, the walk, lookups by id,
 * parents, child iteration, every profile (identifiers, plane, runs), every
 * cct.db slot, cross lookups between the two planes, every trace line with
 * seeks and windows.
 *
 * It asserts (Criterion) what must hold even for corrupt input: every
 * failure is a negative errno from the documented set with a non-empty
 * message naming one of the four files; whatever was validated keeps
 * working (a tree that counted is walked, looked up and iterated without
 * error; a plane or trace handed out is readable everywhere). It never
 * stops at the first failure. @p budget_values bounds the cross lookups
 * (0 = unlimited). */
void tc_drive(const profdb_hpctk *db, uint64_t budget_values, tc_drive_stats *st);

#endif
