/* Resource limits: a small input can never make the library allocate much
 * or work long. Heap use is measured with glibc's mallinfo2() while the
 * database is open and every lazy structure has been built (tc_drive), and
 * must stay within a budget proportional to the input size. ASan replaces
 * the allocator (mallinfo2 then reports nothing useful), so under ASan these
 * tests skip; the gcc and -Werror builds in CI run them. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common.h"
#include "writer.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Allowed heap growth: a constant for the handle and small tables, plus a
 * multiple of the input size (the metric table, the context index and the
 * per-block marks are each bounded by their section's bytes). */
#define FIXED_BUDGET (64u * 1024)
#define PER_BYTE 16u
#define TIME_BUDGET_S 1.0

static void skip_under_asan(void)
{
#ifdef UNDER_ASAN
	cr_skip_test("mallinfo2() does not see ASan's allocator");
#endif
}

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

/* Open, drive everything, check heap growth and time, close. */
static void check_bounded(unsigned char *files[TW_NFILES], const size_t sizes[TW_NFILES],
                          const char *what)
{
	profdb_blob blobs[PROFDB_HPCTK_NFILES] = {{0}};
	size_t total = 0;
	for (int f = 0; f < TW_NFILES; f++) {
		blobs[f].data = files[f];
		blobs[f].size = files[f] ? sizes[f] : 0;
		total += blobs[f].size;
	}
	size_t before = heap_in_use();
	double t0 = tc_now();
	profdb_hpctk *db = NULL;
	if (profdb_hpctk_open_mem(&db, blobs, NULL) == 0) {
		tc_drive_stats st;
		tc_drive(db, 10000, &st);
		size_t grown = heap_in_use() - before;
		cr_assert_leq(grown, FIXED_BUDGET + PER_BYTE * total,
		              "%s: %zu bytes of heap for %zu bytes of input", what, grown, total);
		profdb_hpctk_close(db);
	}
	double dt = tc_now() - t0;
	cr_assert_lt(dt, TIME_BUDGET_S, "%s: took %.3f s", what, dt);
}

static void sample(tw_blob out[TW_NFILES])
{
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write(&d, out), 0);
}

static uint64_t le64_at(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Counts patched to their maximum in each file's top-level table: the
 * library must reject them from the section sizes, without allocating. */
Test(limits, absurd_counts)
{
	skip_under_asan();
	static const struct {
		int file;
		uint64_t header_ptr;   /* where the section pointer is in the file header */
		uint64_t field;        /* count field offset inside the section */
		int bytes;
		const char *name;
	} cases[] = {
		{TW_META, 0x38, 0x08, 4, "nMetrics"},
		{TW_META, 0x38, 0x18, 2, "nScopes"},
		{TW_META, 0x48, 0x08, 2, "nEntryPoints"},
		{TW_META, 0x68, 0x08, 4, "nModules"},
		{TW_META, 0x78, 0x08, 4, "nFiles"},
		{TW_META, 0x88, 0x08, 4, "nFunctions"},
		{TW_META, 0x28, 0x08, 1, "nKinds"},
		{TW_PROFILE, 0x18, 0x08, 4, "nProfiles"},
		{TW_CCT, 0x18, 0x08, 4, "nCtxs"},
		{TW_TRACE, 0x18, 0x08, 4, "nTraces"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		tw_blob b[TW_NFILES];
		sample(b);
		unsigned char *files[TW_NFILES];
		size_t sizes[TW_NFILES];
		for (int f = 0; f < TW_NFILES; f++)
			files[f] = b[f].data, sizes[f] = b[f].size;
		unsigned char *p = files[cases[c].file];
		uint64_t sec = le64_at(p + cases[c].header_ptr);
		cr_assert_lt(sec + cases[c].field + cases[c].bytes, sizes[cases[c].file]);
		put(p + sec + cases[c].field, UINT64_MAX, cases[c].bytes);
		check_bounded(files, sizes, cases[c].name);
		for (int f = 0; f < TW_NFILES; f++)
			tw_blob_free(&b[f]);
	}
}

/* A value block claiming 2^60 values and a trace line claiming the whole
 * address space: rejected when the block is first used. */
Test(limits, absurd_block_sizes)
{
	skip_under_asan();
	tw_blob b[TW_NFILES];
	sample(b);
	unsigned char *files[TW_NFILES];
	size_t sizes[TW_NFILES];
	for (int f = 0; f < TW_NFILES; f++)
		files[f] = b[f].data, sizes[f] = b[f].size;
	unsigned char *prof = files[TW_PROFILE];
	uint64_t infos = le64_at(prof + 0x18);
	uint64_t first = le64_at(prof + infos);          /* pProfiles */
	put(prof + first + 0x30, UINT64_C(1) << 60, 8);  /* profile 1: nValues */
	unsigned char *tr = files[TW_TRACE];
	uint64_t th = le64_at(tr + 0x18);
	uint64_t line = le64_at(tr + th);                /* pTraces */
	put(tr + line + 0x10, UINT64_MAX - 11, 8);       /* trace 0: pEnd */
	check_bounded(files, sizes, "block sizes");
	for (int f = 0; f < TW_NFILES; f++)
		tw_blob_free(&b[f]);
}

/* Every byte of every file of the sample set to 0xff (the largest count or
 * pointer a field can hold) and to 0x7f: heap and time stay bounded. */
Test(limits, every_byte_maximal, .timeout = 300)
{
	skip_under_asan();
	static const unsigned char patterns[] = {0xff, 0x7f};
	tw_blob b[TW_NFILES];
	sample(b);
	for (int f = 0; f < TW_NFILES; f++) {
		for (size_t off = 0; off < b[f].size; off++) {
			for (size_t k = 0; k < sizeof patterns; k++) {
				unsigned char *files[TW_NFILES];
				size_t sizes[TW_NFILES];
				for (int g = 0; g < TW_NFILES; g++)
					files[g] = b[g].data, sizes[g] = b[g].size;
				unsigned char *copy = malloc(b[f].size);
				cr_assert_not_null(copy);
				memcpy(copy, b[f].data, b[f].size);
				copy[off] = patterns[k];
				files[f] = copy;
				char what[64];
				snprintf(what, sizeof what, "%s byte 0x%zx = 0x%02x", tc_file_names[f], off,
				         patterns[k]);
				check_bounded(files, sizes, what);
				free(copy);
			}
		}
	}
	for (int f = 0; f < TW_NFILES; f++)
		tw_blob_free(&b[f]);
}

TC_MAIN
