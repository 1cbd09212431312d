/* Resource limits: a small input can never make the library allocate much
 * or work long. Heap use is measured while the input is open and every lazy
 * structure has been built, and must stay within a budget proportional to
 * the input size; each case must finish within a time budget.
 *
 * Heap use comes from glibc's mallinfo2(), or, under AddressSanitizer (whose
 * allocator mallinfo2 does not see), from the sanitizer's own counter
 * __sanitizer_get_current_allocated_bytes(); the time budget is then
 * multiplied by ASAN_SLOWDOWN. So the suite runs in every build. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "common.h"
#include "writer.h"

#if UNDER_ASAN
/* From the sanitizer runtime (gcc's libasan and clang's); declared here
 * because gcc ships no <sanitizer/allocator_interface.h>. */
size_t __sanitizer_get_current_allocated_bytes(void);
size_t __sanitizer_get_allocated_size(const volatile void *p);
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
#define ASAN_SLOWDOWN 5.0
#else
#define ASAN_SLOWDOWN 1.0
#endif

/* Allowed heap growth: a constant for the handle and small tables, plus a
 * multiple of the input size (the metric table, the context index and the
 * per-block marks are each bounded by their section's bytes). */
#define FIXED_BUDGET (64u * 1024)
#define PER_BYTE 16u
/* The guard against a hang or a quadratic path is CPU time (every thread of
 * the process), so other work on the machine cannot fail it. */
#define TIME_BUDGET_S (1.0 * ASAN_SLOWDOWN)

static size_t heap_in_use(void)
{
#if UNDER_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	return mallinfo2().uordblks;
#endif
}

/* Heap growth since @p before, 0 if it shrank. */
static size_t grown_since(size_t before)
{
	size_t now = heap_in_use();
	return now > before ? now - before : 0;
}

/* Open, drive everything, check heap growth and time, close. */
static void check_bounded(unsigned char *files[TW_NFILES], const size_t sizes[TW_NFILES],
                          const char *what)
{
	profdb_input blobs[PROFDB_HPCTK_NFILES] = {{0}};
	size_t total = 0;
	for (int f = 0; f < TW_NFILES; f++) {
		blobs[f].data = files[f];
		blobs[f].size = files[f] ? sizes[f] : 0;
		total += blobs[f].size;
	}
	size_t before = heap_in_use();
	double t0 = tc_cpu_now();
	profdb_hpctk *db = NULL;
	if (profdb_hpctk_open_mem(&db, blobs, NULL) == 0) {
		tc_drive_stats st;
		tc_drive(db, 10000, &st);
		size_t grown = grown_since(before);
		cr_assert_leq(grown, FIXED_BUDGET + PER_BYTE * total,
		              "%s: %zu bytes of heap for %zu bytes of input", what, grown, total);
		profdb_hpctk_close(db);
	}
	double dt = tc_cpu_now() - t0;
	cr_assert_lt(dt, TIME_BUDGET_S, "%s: took %.3f s of CPU", what, dt);
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

/* ---- peak memory of an open that fails ---------------------------------------
 * A failed open frees everything, so heap-in-use after it shows nothing; the
 * peak shows what was allocated on the way. Without ASan the peak resident
 * size (getrusage; each Criterion test runs in its own process, so it starts
 * fresh) is the measure, with PEAK_SLACK for the allocator's own noise.
 * Under ASan, whose shadow memory and quarantine make resident sizes
 * meaningless, the sanitizer's malloc/free hooks track the live bytes and
 * their peak exactly. */
#include <sys/resource.h>

#if UNDER_ASAN
static size_t hook_live, hook_peak;

static void on_malloc(const volatile void *p, size_t n)
{
	(void)p;
	hook_live += n;
	if (hook_live > hook_peak)
		hook_peak = hook_live;
}

static void on_free(const volatile void *p)
{
	hook_live -= __sanitizer_get_allocated_size(p);
}

#define PEAK_SLACK ((size_t)1 << 20)

/* Start a measurement: returns the baseline. */
static size_t peak_mark(void)
{
	static int installed;
	if (!installed) {
		cr_assert(__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free));
		installed = 1;
	}
	hook_peak = hook_live;
	return hook_live;
}

/* Peak bytes above the baseline since peak_mark(). */
static size_t peak_since(size_t mark)
{
	return hook_peak - mark;
}
#else
#define PEAK_SLACK ((size_t)16 << 20)

static size_t peak_mark(void)
{
	struct rusage ru;
	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	return (size_t)ru.ru_maxrss * 1024;
}

static size_t peak_since(size_t mark)
{
	size_t now = peak_mark();
	return now > mark ? now - mark : 0;
}
#endif

#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>

static unsigned char *gz(const unsigned char *p, size_t n, size_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	unsigned char *o = malloc(cap);
	cr_assert_not_null(o);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out = cap - z.avail_out;
	deflateEnd(&z);
	return o;
}

/* deflate expands at most ~1032:1, so one gzip layer is "proportional to
 * the input" with that factor (and max_memory above it). */
#define DEFLATE_RATIO 1032u

/* gzip of @p n zero bytes, streamed from a small buffer so that making the
 * input does not itself raise the peak resident size the test measures. */
static unsigned char *gz_zeros(size_t n, size_t *out)
{
	static const unsigned char zero[65536];
	z_stream z;
	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = n / 512 + 4096;
	unsigned char *o = malloc(cap);
	cr_assert_not_null(o);
	z.next_out = o;
	z.avail_out = (uInt)cap;
	for (size_t left = n;;) {
		size_t k = left < sizeof zero ? left : sizeof zero;
		z.next_in = (Bytef *)(uintptr_t)zero;
		z.avail_in = (uInt)k;
		left -= k;
		int zr = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
		cr_assert(zr == Z_OK || zr == Z_STREAM_END);
		cr_assert_gt(z.avail_out, 0, "gz_zeros: output buffer too small");
		if (zr == Z_STREAM_END)
			break;
	}
	*out = cap - z.avail_out;
	deflateEnd(&z);
	return o;
}

#endif

/* ---- Cube ------------------------------------------------------------------------ */
#ifdef PROFDB_HAVE_CUBE

/* Open from memory, read every value (up to a cap) and every row, check
 * heap growth against @p budget and the time. */
static void cube_bounded(const unsigned char *data, size_t size, size_t budget, const char *what)
{
	size_t before = heap_in_use();
	size_t mark = peak_mark();
	double t0 = tc_cpu_now();
	profdb_cube *c = NULL;
	if (profdb_cube_open_mem(&c, data, size, NULL) == 0) {
		profdb_cube_info info;
		cr_assert_eq(profdb_cube_get_info(c, &info), 0);
		uint64_t left = 1000000;
		for (uint32_t m = 0; m < info.n_metrics; m++) {
			profdb_cube_metric md;
			cr_assert_eq(profdb_cube_metric_get(c, m, &md), 0);
			uint64_t rb = (uint64_t)md.value_size * info.n_locations;
			unsigned char *row = rb <= budget ? malloc(rb + 1) : NULL;
			for (uint32_t n = 0; n < info.n_cnodes && left; n++) {
				if (row)
					(void)profdb_cube_row_get(c, n, m, row, rb);
				for (uint32_t l = 0; l < info.n_locations && left; l++, left--) {
					double v;
					(void)profdb_cube_value_get(c, l, n, m, &v);
				}
			}
			free(row);
		}
		size_t grown = grown_since(before);
		cr_assert_leq(grown, budget, "%s: %zu bytes of heap for %zu bytes of input", what,
		              grown, size);
		profdb_cube_close(c);
	}
	size_t peak = peak_since(mark);
	cr_assert_leq(peak, budget + PEAK_SLACK,
	              "%s: the peak grew by %zu KiB for %zu bytes of input", what, peak >> 10, size);
	double dt = tc_cpu_now() - t0;
	cr_assert_lt(dt, TIME_BUDGET_S, "%s: took %.3f s of CPU", what, dt);
}

/* The sample archive and variants with absurd counts: bounded by the input. */
Test(limits, cube_crafted)
{
	static const unsigned flags[] = {0, TW_CUBE_ABSURD_COUNT, TW_CUBE_BAD_POSITION,
	                                 TW_CUBE_SHORT_DATA, TW_CUBE_DENSE | TW_CUBE_ZCUBEX};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		tw_blob b;
		int r = tw_cube_write(&b, flags[i], NULL);
		if (r == -ENOTSUP)
			continue;
		cr_assert_eq(r, 0);
		char what[64];
		snprintf(what, sizeof what, "cube flags 0x%x", flags[i]);
		cube_bounded(b.data, b.size, FIXED_BUDGET + PER_BYTE * b.size, what);
		free(b.data);
	}
}

/* Every byte of the plain sample archive set to 0xff and to '9' (the largest
 * octal digit in tar headers is '7': '9' is invalid there, a big number in
 * XML and an odd byte in the index). */
Test(limits, cube_every_byte, .timeout = 300)
{
	tw_blob b;
	cr_assert_eq(tw_cube_write(&b, 0, NULL), 0);
	unsigned char *copy = malloc(b.size);
	cr_assert_not_null(copy);
	static const unsigned char patterns[] = {0xff, '9'};
	for (size_t off = 0; off < b.size; off++)
		for (size_t k = 0; k < sizeof patterns; k++) {
			memcpy(copy, b.data, b.size);
			copy[off] = patterns[k];
			char what[64];
			snprintf(what, sizeof what, "cube byte 0x%zx = 0x%02x", off, patterns[k]);
			cube_bounded(copy, b.size, FIXED_BUDGET + PER_BYTE * b.size, what);
		}
	free(copy);
	free(b.data);
}

/* A call tree 20000 deep (nested <cnode> elements): memory proportional,
 * no recursion on the C stack, fast. */
Test(limits, cube_deep_tree)
{
	enum { DEPTH = 20000 };
	char *anchor = tw_cube_anchor(0);
	cr_assert_not_null(anchor);
	/* Replace the sample's call tree by one chain of DEPTH cnodes. */
	char *start = strstr(anchor, "<cnode"), *end = strstr(anchor, "</program>");
	cr_assert(start && end && start < end);
	size_t cap = strlen(anchor) + (size_t)DEPTH * 48;
	char *xml = malloc(cap);
	cr_assert_not_null(xml);
	size_t n = (size_t)(start - anchor);
	memcpy(xml, anchor, n);
	for (int i = 0; i < DEPTH; i++)
		n += (size_t)snprintf(xml + n, cap - n, "<cnode id=\"%d\" calleeId=\"0\">", i);
	for (int i = 0; i < DEPTH; i++)
		n += (size_t)snprintf(xml + n, cap - n, "</cnode>");
	n += (size_t)snprintf(xml + n, cap - n, "%s", end);
	tw_blob b;
	cr_assert_eq(tw_cube_write(&b, TW_CUBE_NO_ANCHOR, NULL), 0);
	b.size -= 1024;   /* reopen the archive: drop its end blocks */
	cr_assert_eq(tw_tar_add(&b, "anchor.xml", xml, n, 0, 0), 0);
	cr_assert_eq(tw_tar_end(&b), 0);
	profdb_cube *c = NULL;
	int r = profdb_cube_open_mem(&c, b.data, b.size, NULL);
	cr_assert_eq(r, 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_cube_cnode_count(c), DEPTH);
	profdb_cube_close(c);
	cube_bounded(b.data, b.size, FIXED_BUDGET + PER_BYTE * b.size, "deep call tree");
	free(b.data);
	free(xml);
	free(anchor);
}

#ifdef PROFDB_HAVE_ZLIB
/* A gzip-compressed archive that is gzip-compressed again: each layer is
 * bounded by the deflate ratio, but layers multiply, so a decompressor that
 * peels more than the one layer the format has turns ~300 bytes into
 * 64 MiB (and ~2 KiB into gigabytes). Allowed: what one layer can produce.
 * Found 2026-11-23 (doc/ROBUSTNESS.md, "Fuzzing"): libarchive applies its
 * gzip filter again to the output of the first. */
Test(limits, cube_nested_gzip)
{
	size_t big = (size_t)64 << 20, n1, n2;
	unsigned char *one = gz_zeros(big, &n1);
	unsigned char *two = gz(one, n1, &n2);
	free(one);
	cube_bounded(two, n2, FIXED_BUDGET + 2 * DEFLATE_RATIO * n2, "gzip inside gzip");
	free(two);
}
#endif /* PROFDB_HAVE_ZLIB */
#endif /* PROFDB_HAVE_CUBE */

/* ---- Callgrind ------------------------------------------------------------------- */

static const char cg_sample[] =
	"# callgrind format\nversion: 1\ncreator: limits\npositions: instr line\n"
	"events: Ir Dr\nevent: Sum = Ir + 2 Dr\nsummary: 30 6\n"
	"ob=(1) /bin/a\nfl=(1) a.c\nfn=(1) main\n0x10 3 10 1\n+4 * 2\n"
	"cfn=(2) f\ncalls=2 0x40 9\n0x14 4 5 2\n"
	"fn=(2)\n0x40 9 12 3\njump=1 0x48 10\njcnd=1/2 0x4c 11\n0x44 * 1\n";

/* A Callgrind handle starts with fixed-size tables (name maps, the
 * profile table) of about 110 KiB whatever the input. */
#define CG_FIXED_BUDGET (256u * 1024)

static void cg_bounded(const void *data, size_t size, size_t budget, const char *what)
{
	size_t before = heap_in_use();
	size_t mark = peak_mark();
	double t0 = tc_cpu_now();
	profdb_cg *cg = NULL;
	if (profdb_cg_open_mem(&cg, data, size, NULL) == 0) {
		int64_t nf = profdb_cg_function_count(cg), np = profdb_cg_profile_count(cg);
		for (int64_t p = -1; p < np && p < 8; p++) {
			uint32_t prof = p < 0 ? PROFDB_CG_ALL : (uint32_t)p;
			for (int64_t i = 0; i < nf && i < 100000; i++) {
				const uint64_t *c;
				(void)profdb_cg_self(cg, prof, (uint32_t)i, &c);
				(void)profdb_cg_inclusive(cg, prof, (uint32_t)i, &c);
				profdb_cg_detail *d = NULL;
				if (profdb_cg_detail_new(&d, cg, prof, (uint32_t)i) == 0)
					profdb_cg_detail_free(d);
			}
		}
		size_t grown = grown_since(before);
		cr_assert_leq(grown, budget, "%s: %zu bytes of heap for %zu bytes of input", what,
		              grown, size);
		profdb_cg_close(cg);
	}
	size_t peak = peak_since(mark);
	cr_assert_leq(peak, budget + PEAK_SLACK,
	              "%s: the peak grew by %zu KiB for %zu bytes of input", what, peak >> 10, size);
	double dt = tc_cpu_now() - t0;
	cr_assert_lt(dt, TIME_BUDGET_S, "%s: took %.3f s of CPU", what, dt);
}

/* Crafted texts: the largest numbers, compressed-name ids and positions a
 * line can hold must not turn into allocations or loops. */
Test(limits, callgrind_crafted)
{
	static const char *const texts[] = {
		cg_sample,
		"events: Ir\nfn=(4294967295) f\n1 1\ncfn=(4294967294) g\ncalls=1 1\n1 1\n",
		"events: Ir\nfl=(4000000000) a.c\nfi=(3999999999) b.h\nfn=f\n1 1\n",
		"events: Ir\nfn=f\n18446744073709551615 18446744073709551615\n",
		"events: Ir\nfn=f\ncfn=f\ncalls=18446744073709551615 1\n1 18446744073709551615\n",
		"positions: instr line\nevents: Ir\nfn=f\n0xffffffffffffffff 1 1\n"
		"-18446744073709551615 +18446744073709551615 1\n",
		"events: Ir\nevent: A = Ir + Ir + Ir + Ir + Ir + Ir + Ir + Ir + Ir + Ir + Ir + Ir + Ir + "
		"Ir + Ir + Ir + Ir + Ir\nfn=f\n1 1\n",
		"events: Ir\nfn=f\njump=18446744073709551615 0xffffffffffffffff\n"
		"jcnd=18446744073709551615/18446744073709551615 1\n1 1\n",
		"events: Ir\nfn=f\n1 1\npart: 4294967295\nevents: Ir\nfn=f\n1 1\npart: 4294967296\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		char what[32];
		snprintf(what, sizeof what, "callgrind text %zu", i);
		size_t n = strlen(texts[i]);
		cg_bounded(texts[i], n, CG_FIXED_BUDGET + PER_BYTE * n, what);
	}
	/* 300 events: over the limit of 256, refused. */
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof text, "events:");
	for (int e = 0; e < 300; e++)
		n += (size_t)snprintf(text + n, sizeof text - n, " e%d", e);
	n += (size_t)snprintf(text + n, sizeof text - n, "\nfn=f\n1 1\n");
	profdb_cg *cg = NULL;
	cr_assert_lt(profdb_cg_open_mem(&cg, text, n, NULL), 0);
	cg_bounded(text, n, CG_FIXED_BUDGET + PER_BYTE * n, "300 events");
}

/* Every byte of the sample text set to 0xff, '9', '(' and '\n'. */
Test(limits, callgrind_every_byte, .timeout = 120)
{
	size_t n = sizeof cg_sample - 1;
	char *copy = malloc(n);
	cr_assert_not_null(copy);
	static const char patterns[] = {(char)0xff, '9', '(', '\n'};
	for (size_t off = 0; off < n; off++)
		for (size_t k = 0; k < sizeof patterns; k++) {
			memcpy(copy, cg_sample, n);
			copy[off] = patterns[k];
			char what[64];
			snprintf(what, sizeof what, "callgrind byte %zu = 0x%02x", off,
			         (unsigned char)patterns[k]);
			cg_bounded(copy, n, CG_FIXED_BUDGET + PER_BYTE * n, what);
		}
	free(copy);
}

#ifdef PROFDB_HAVE_ZLIB
/* A gzip file inflates once (one layer: ~1032:1 at most); a gzip of gzip is
 * binary text after the one layer and is refused, never inflated twice. */
Test(limits, callgrind_gzip_ratio)
{
	size_t big = (size_t)16 << 20, n1, n2;
	unsigned char *one = gz_zeros(big, &n1);
	cg_bounded(one, n1, CG_FIXED_BUDGET + 2 * DEFLATE_RATIO * n1, "gzip");
	unsigned char *two = gz(one, n1, &n2);
	cg_bounded(two, n2, CG_FIXED_BUDGET + 2 * DEFLATE_RATIO * n2, "gzip inside gzip");
	free(one);
	free(two);
}
#endif

TC_MAIN
