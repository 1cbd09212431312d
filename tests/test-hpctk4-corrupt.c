/* Corruption tests: truncated and bit-flipped databases, opened from memory
 * and driven through the whole API (tc_drive). Nothing may crash (CI runs
 * this under ASan/UBSan), every failure must be a negative errno with a
 * message naming the file, and a truncated file must fail at open with
 * -ENODATA (its footer is gone).
 *
 * (a) every real sample database: sampled cuts and byte mutations, within
 *     a time budget ($PROFDB_TEST_BUDGET seconds per test, default 2);
 * (b) tiny databases, exhaustively: every byte flipped and every length cut,
 *     for a hand-built meta.db/profile.db pair and for the writer's sample
 *     database in several layouts. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/core-internal.h"

/* Under ASan a cut is made by poisoning the tail of the file's buffer:
 * any read past the cut is reported, without copying large files. */
#if UNDER_ASAN
#include <sanitizer/asan_interface.h>
#endif
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#include "hpctk-views.h"
#endif

static double budget(void)
{
	const char *e = getenv("PROFDB_TEST_BUDGET");
	double b = e ? atof(e) : 0;
	return b > 0 ? b : 2.0;
}

/* A failed open: the documented codes and a message naming a file. */
static void check_open_failure(int r, const profdb_hpctk *db, int file, const char *ctx)
{
	const char *msg = profdb_error_message();
	cr_assert(r == -EBADMSG || r == -ENODATA || r == -EPROTONOSUPPORT,
	          "%s: open returned %d (%s): %s", ctx, r, strerror(-r), msg);
	cr_assert_null(db, "%s: failed open left a handle", ctx);
	cr_assert(msg && *msg, "%s: failed open without a message", ctx);
	if (file >= 0)
		cr_assert(strstr(msg, tc_file_names[file]), "%s: message does not name %s: %s", ctx,
		          tc_file_names[file], msg);
}

typedef struct tally {
	uint64_t trials, opened, open_failed, drive_failures;
} tally;

/* Open the current buffers and drive everything. */
static void trial(profdb_input blobs[PROFDB_HPCTK_NFILES], int file, uint64_t cross_budget,
                  const char *ctx, tally *t)
{
	profdb_hpctk *db = (profdb_hpctk *)1;
	profdb__set_message("");
	int r = profdb_hpctk_open_mem(&db, blobs, NULL);
	t->trials++;
	if (r < 0) {
		check_open_failure(r, db, file, ctx);
		t->open_failed++;
		return;
	}
	cr_assert_eq(r, 0);
	tc_drive_stats st;
	tc_drive(db, cross_budget, &st);
	t->opened++;
	t->drive_failures += st.failures;
	profdb_hpctk_close(db);
}

/* Exact-size private copies of the files, so that ASan sees any read past
 * the end of a (cut) buffer. */
static void copy_files(unsigned char *const src[PROFDB_HPCTK_NFILES],
                       const size_t size[PROFDB_HPCTK_NFILES],
                       unsigned char *dst[PROFDB_HPCTK_NFILES],
                       profdb_input blobs[PROFDB_HPCTK_NFILES])
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		dst[f] = NULL;
		blobs[f] = (profdb_input){NULL, NULL, 0};
		if (!src[f])
			continue;
		dst[f] = malloc(size[f] ? size[f] : 1);
		cr_assert(dst[f]);
		memcpy(dst[f], src[f], size[f]);
		blobs[f] = (profdb_input){NULL, dst[f], size[f]};
	}
}

/* Cut file f (its exact-size buffer @p buf of @p size bytes) to @p len
 * bytes: must fail at open with -ENODATA. Without ASan, short cuts are
 * copied into buffers of exactly len bytes (so any overread is an overread
 * of the heap block); long ones reuse the buffer. */
static void cut(profdb_input blobs[PROFDB_HPCTK_NFILES], unsigned char *buf, size_t size, int f,
                size_t len, const char *name)
{
	unsigned char *b = buf, *own = NULL;
#if UNDER_ASAN
	ASAN_POISON_MEMORY_REGION(buf + len, size - len);
#else
	(void)size;
	if (len <= 65536) {
		own = b = malloc(len ? len : 1);
		cr_assert(b);
		memcpy(b, buf, len);
	}
#endif
	profdb_input saved = blobs[f];
	blobs[f] = (profdb_input){NULL, b, len};
	profdb_hpctk *db = (profdb_hpctk *)1;
	profdb__set_message("");
	int r = profdb_hpctk_open_mem(&db, blobs, NULL);
#if UNDER_ASAN
	ASAN_UNPOISON_MEMORY_REGION(buf + len, size - len);
#endif
	char ctx[256];
	snprintf(ctx, sizeof ctx, "%s: %s cut to %zu bytes", name, tc_file_names[f], len);
	cr_assert_eq(r, -ENODATA, "%s: open returned %d: %s", ctx, r, profdb_error_message());
	check_open_failure(r, db, f, ctx);
	blobs[f] = saved;
	free(own);
}

enum { MUT_XOR_FF, MUT_XOR_80, MUT_SET_00, MUT_SET_FF, MUT_N };

static unsigned char mutated(unsigned char v, int mut)
{
	switch (mut) {
	case MUT_XOR_FF: return (unsigned char)(v ^ 0xff);
	case MUT_XOR_80: return (unsigned char)(v ^ 0x80);
	case MUT_SET_00: return 0x00;
	default: return 0xff;
	}
}

/* Mutate byte @p pos of file f in place, run a trial, restore. */
static void flip(profdb_input blobs[PROFDB_HPCTK_NFILES], unsigned char *buf, int f, size_t pos,
                 int mut, uint64_t cross_budget, const char *name, tally *t)
{
	unsigned char old = buf[pos], v = mutated(old, mut);
	if (v == old)
		return;
	buf[pos] = v;
	char ctx[256];
	snprintf(ctx, sizeof ctx, "%s: %s byte 0x%zx 0x%02x -> 0x%02x", name, tc_file_names[f], pos,
	         old, v);
	trial(blobs, -1, cross_budget, ctx, t);
	buf[pos] = old;
}

/* ---- (b) exhaustive: every offset, every length -------------------------------- */

static void every_offset(unsigned char *const files[PROFDB_HPCTK_NFILES],
                         const size_t sizes[PROFDB_HPCTK_NFILES], const char *name)
{
	unsigned char *copy[PROFDB_HPCTK_NFILES];
	profdb_input blobs[PROFDB_HPCTK_NFILES];
	tally t = {0};
	copy_files(files, sizes, copy, blobs);

	/* The pristine database reads without a single failure. */
	profdb_hpctk *db;
	cr_assert_eq(profdb_hpctk_open_mem(&db, blobs, NULL), 0, "%s: %s", name,
	             profdb_error_message());
	tc_drive_stats st;
	tc_drive(db, 0, &st);
	cr_assert_eq(st.failures, 0, "%s: pristine database fails: %s", name, profdb_error_message());
	cr_assert(st.contexts > 0 || !profdb_hpctk_has(db, PROFDB_HPCTK_META));
	profdb_hpctk_close(db);

	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		if (!copy[f])
			continue;
		for (size_t len = 0; len < sizes[f]; len++)
			cut(blobs, copy[f], sizes[f], f, len, name);
		for (size_t pos = 0; pos < sizes[f]; pos++) {
			flip(blobs, copy[f], f, pos, MUT_XOR_FF, 0, name, &t);
			flip(blobs, copy[f], f, pos, MUT_SET_00, 0, name, &t);
		}
	}
	cr_log_info("%s: %llu mutations, %llu opened (%llu failing calls), %llu rejected at open",
	            name, (unsigned long long)t.trials, (unsigned long long)t.opened,
	            (unsigned long long)t.drive_failures, (unsigned long long)t.open_failed);
	/* Both outcomes must occur, or the mutations did not reach the reader. */
	cr_assert(t.opened > 0 && t.open_failed > 0 && t.drive_failures > 0);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		free(copy[f]);
}

/* A tiny final-layout meta.db and profile.db built here byte by byte,
 * independent of the writer. */
typedef struct bb {
	unsigned char b[1024];
	size_t n;
} bb;

static void p8(bb *x, size_t at, uint8_t v) { x->b[at] = v; }
static void p16(bb *x, size_t at, uint16_t v) { for (int i = 0; i < 2; i++) x->b[at + i] = (unsigned char)(v >> 8 * i); }
static void p32(bb *x, size_t at, uint32_t v) { for (int i = 0; i < 4; i++) x->b[at + i] = (unsigned char)(v >> 8 * i); }
static void p64(bb *x, size_t at, uint64_t v) { for (int i = 0; i < 8; i++) x->b[at + i] = (unsigned char)(v >> 8 * i); }
static size_t pstr(bb *x, const char *s) { size_t at = x->n; memcpy(x->b + at, s, strlen(s) + 1); x->n += strlen(s) + 1; return at; }
static size_t reserve(bb *x, size_t len) { size_t at = x->n; x->n += len; return at; }
static void align(bb *x, size_t a) { while (x->n % a) x->n++; }
static void section(bb *x, int i, size_t off) { p64(x, 0x10 + 16 * (size_t)i, x->n - off); p64(x, 0x18 + 16 * (size_t)i, off); }

static size_t tiny_meta(bb *m)
{
	memset(m, 0, sizeof *m);
	memcpy(m->b, "HPCTOOLKITmeta\x04\x00", 16);
	m->n = 0x90;
	/* General */
	size_t gen = reserve(m, 16);
	p64(m, gen, pstr(m, "tiny"));
	p64(m, gen + 8, pstr(m, "hand-built"));
	section(m, 0, gen);
	align(m, 8);
	/* IdNames: 2 kinds */
	size_t idn = reserve(m, 16), ptrs = reserve(m, 16);
	p64(m, idn, ptrs);
	p8(m, idn + 8, 2);
	p64(m, ptrs, pstr(m, "SUMMARY"));
	p64(m, ptrs + 8, pstr(m, "THREAD"));
	section(m, 1, idn);
	align(m, 8);
	/* Metrics: 1 metric, 1 scope, 1 propagation, 1 summary */
	size_t met = reserve(m, 0x20), md = reserve(m, 0x20), psi = reserve(m, 0x10),
	       ss = reserve(m, 0x18), ps = reserve(m, 0x10);
	p64(m, met, md);
	p32(m, met + 8, 1);
	p8(m, met + 0x0c, 0x20);
	p8(m, met + 0x0d, 0x10);
	p8(m, met + 0x0e, 0x18);
	p64(m, met + 0x10, ps);
	p16(m, met + 0x18, 1);
	p8(m, met + 0x1a, 0x10);
	p64(m, md, pstr(m, "time"));
	p64(m, md + 8, psi);
	p64(m, md + 0x10, ss);
	p16(m, md + 0x18, 1);
	p16(m, md + 0x1a, 1);
	p64(m, psi, ps);
	p16(m, psi + 8, 0);
	p64(m, ss, ps);
	p64(m, ss + 8, pstr(m, "$$"));
	p8(m, ss + 0x10, 0);
	p16(m, ss + 0x12, 0);
	p64(m, ps, pstr(m, "point"));
	p8(m, ps + 8, 1);
	p8(m, ps + 9, 255);
	section(m, 2, met);
	align(m, 8);
	/* Strings */
	size_t str = m->n, s_mod = pstr(m, "/bin/tiny"), s_file = pstr(m, "tiny.c"),
	       s_fn = pstr(m, "main"), s_entry = pstr(m, "main thread");
	section(m, 4, str);
	align(m, 8);
	/* Modules, Files, Functions: 16-byte headers, one record each */
	size_t mods = reserve(m, 16), lms = reserve(m, 16);
	p64(m, mods, lms);
	p32(m, mods + 8, 1);
	p16(m, mods + 0x0c, 16);
	p64(m, lms + 8, s_mod);
	section(m, 5, mods);
	size_t fils = reserve(m, 16), sfs = reserve(m, 16);
	p64(m, fils, sfs);
	p32(m, fils + 8, 1);
	p16(m, fils + 0x0c, 16);
	p64(m, sfs + 8, s_file);
	section(m, 6, fils);
	size_t fns = reserve(m, 16), fs = reserve(m, 40);
	p64(m, fns, fs);
	p32(m, fns + 8, 1);
	p16(m, fns + 0x0c, 40);
	p64(m, fs, s_fn);
	p64(m, fs + 8, lms);
	p64(m, fs + 0x10, 0x1000);
	p64(m, fs + 0x18, sfs);
	p32(m, fs + 0x20, 3);
	section(m, 7, fns);
	/* Context: entry 1 -> call main (id 2, function + srcloc) -> line (id 3) */
	size_t ctx = reserve(m, 16), entry = reserve(m, 0x20), c2 = reserve(m, 0x20 + 24),
	       c3 = reserve(m, 0x20 + 16);
	p64(m, ctx, entry);
	p16(m, ctx + 8, 1);
	p8(m, ctx + 0x0a, 0x20);
	p64(m, entry, 0x38);
	p64(m, entry + 8, c2);
	p32(m, entry + 0x10, 1);
	p16(m, entry + 0x14, 1);
	p64(m, entry + 0x18, s_entry);
	p64(m, c2, 0x30);
	p64(m, c2 + 8, c3);
	p32(m, c2 + 0x10, 2);
	p8(m, c2 + 0x14, 3);
	p8(m, c2 + 0x15, 1);
	p8(m, c2 + 0x16, 0);
	p8(m, c2 + 0x17, 3);
	p64(m, c2 + 0x20, fs);
	p64(m, c2 + 0x28, sfs);
	p32(m, c2 + 0x30, 3);
	p32(m, c3 + 0x10, 3);
	p8(m, c3 + 0x14, 2);
	p8(m, c3 + 0x15, 0);
	p8(m, c3 + 0x16, 2);
	p8(m, c3 + 0x17, 2);
	p16(m, c3 + 0x18, 1);
	p64(m, c3 + 0x20, sfs);
	p32(m, c3 + 0x28, 4);
	section(m, 3, ctx);
	memcpy(m->b + m->n, "_meta.db", 8);
	m->n += 8;
	return m->n;
}

static size_t tiny_profile(bb *p)
{
	memset(p, 0, sizeof *p);
	memcpy(p->b, "HPCTOOLKITprof\x04\x00", 16);
	p->n = 0x30;
	size_t infos = reserve(p, 16), pi = reserve(p, 2 * 0x30);
	p64(p, infos, pi);
	p32(p, infos + 8, 2);
	p8(p, infos + 0x0c, 0x30);
	p64(p, 0x10, p->n - infos);
	p64(p, 0x18, infos);
	size_t tup = reserve(p, 8 + 16);
	p16(p, tup, 1);
	p8(p, tup + 8, 1);  /* THREAD */
	p32(p, tup + 12, 7); /* logical id */
	p64(p, 0x20, p->n - tup);
	p64(p, 0x28, tup);
	for (int k = 0; k < 2; k++) {
		size_t at = pi + 0x30 * (size_t)k;
		align(p, 8);
		size_t vals = reserve(p, 2 * 10);
		p16(p, vals, 0);
		p64(p, vals + 2, k ? UINT64_C(0x4000000000000000) : UINT64_C(0x4008000000000000));
		p16(p, vals + 10, 0);
		p64(p, vals + 12, UINT64_C(0x3ff8000000000000)); /* 1.5 */
		align(p, 4);
		size_t idx = reserve(p, 2 * 12);
		p32(p, idx, 2);
		p64(p, idx + 4, 0);
		p32(p, idx + 12, 3);
		p64(p, idx + 16, 1);
		p64(p, at, 2);
		p64(p, at + 8, vals);
		p32(p, at + 0x10, 2);
		p64(p, at + 0x18, idx);
		p64(p, at + 0x20, k ? tup : 0);
		p32(p, at + 0x28, k ? 0 : 1);
	}
	align(p, 4);
	memcpy(p->b + p->n, "_prof.db", 8);
	p->n += 8;
	return p->n;
}

Test(corrupt_generated, hand_built_tiny_every_offset, .timeout = 120)
{
	static bb meta, prof;
	unsigned char *files[PROFDB_HPCTK_NFILES] = {meta.b, prof.b, NULL, NULL};
	size_t sizes[PROFDB_HPCTK_NFILES] = {tiny_meta(&meta), tiny_profile(&prof), 0, 0};

	/* First, it is the database it is meant to be. */
	profdb_input blobs[PROFDB_HPCTK_NFILES] = {{NULL, meta.b, sizes[0]}, {NULL, prof.b, sizes[1]}};
	profdb_hpctk *db;
	cr_assert_eq(profdb_hpctk_open_mem(&db, blobs, NULL), 0, "%s", profdb_error_message());
	profdb_str s, d;
	profdb_hpctk_context c;
	profdb_hpctk_function fn;
	double v;
	uint32_t parent;
	cr_assert_eq(profdb_hpctk_title(db, &s, &d), 0);
	cr_assert(s.len == 4 && strcmp(s.ptr, "tiny") == 0);
	cr_assert_eq(profdb_hpctk_context_count(db), 3);
	cr_assert_eq(profdb_hpctk_context_get(db, 2, &c), 0);
	cr_assert(c.relation == PROFDB_REL_CALL && c.function == 0 && c.file == 0 && c.line == 3);
	cr_assert_eq(profdb_hpctk_context_parent(db, 3, &parent), 0);
	cr_assert_eq(parent, 2);
	cr_assert_eq(profdb_hpctk_context_get(db, 1, &c), 0);
	cr_assert(c.relation == PROFDB_REL_ENTRY && strcmp(c.entry_name.ptr, "main thread") == 0);
	cr_assert_eq(profdb_hpctk_function_at(db, 0, &fn), 0);
	cr_assert(strcmp(fn.name.ptr, "main") == 0 && fn.module == 0 && fn.file == 0 && fn.offset == 0x1000);
	cr_assert_eq(profdb_hpctk_metric_count(db), 1);
	cr_assert_eq(profdb_hpctk_value(db, 0, 2, 0, &v), 1);
	cr_assert(v == 3.0);
	cr_assert_eq(profdb_hpctk_value(db, 1, 2, 0, &v), 1);
	cr_assert(v == 2.0);
	cr_assert_eq(profdb_hpctk_value(db, 1, 3, 0, &v), 1);
	cr_assert(v == 1.5);
	cr_assert_eq(profdb_hpctk_id_kind_at(db, 1, &s), 0);
	cr_assert(s.len == 6 && strcmp(s.ptr, "THREAD") == 0);
	profdb_hpctk_close(db);

	every_offset(files, sizes, "hand-built");
}

#ifdef HAVE_TEST_WRITER
static void writer_every_offset(int devstage, int unaligned, uint8_t extra, uint8_t minor,
                                const char *name)
{
	tw_hpctk4 d;
	tw_blob out[TW_NFILES];
	tw_hpctk4_sample(&d);
	d.devstage = devstage;
	d.unaligned = unaligned;
	d.extra = extra;
	d.minor = minor;
	cr_assert_eq(tw_hpctk4_write(&d, out), 0);
	unsigned char *files[PROFDB_HPCTK_NFILES];
	size_t sizes[PROFDB_HPCTK_NFILES];
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		files[f] = out[f].data;
		sizes[f] = out[f].size;
	}
	every_offset(files, sizes, name);
	for (int f = 0; f < TW_NFILES; f++)
		tw_blob_free(&out[f]);
}

Test(corrupt_generated, sample_final_every_offset, .timeout = 300)
{
	writer_every_offset(0, 0, 0, 0, "writer sample (final)");
}

Test(corrupt_generated, sample_devstage_every_offset, .timeout = 300)
{
	writer_every_offset(1, 0, 0, 0, "writer sample (dev-stage)");
}

Test(corrupt_generated, sample_unaligned_extra_every_offset, .timeout = 300)
{
	writer_every_offset(0, 1, 8, 1, "writer sample (unaligned, extra 8, minor 1)");
}
#else
Test(corrupt_generated, writer_samples)
{
	cr_skip_test("tests/writer is not available: generated databases not tested");
}
#endif

/* ---- (a) real samples ---------------------------------------------------------- */

typedef struct sample_db {
	char *path;
	unsigned char *data[PROFDB_HPCTK_NFILES];
	size_t size[PROFDB_HPCTK_NFILES];
} sample_db;

/* Every database under hpctoolkit/v4 and v4-devstage; skips when none. */
static sample_db *load_all(size_t *n)
{
	static const char *const fams[2] = {"hpctoolkit/v4", "hpctoolkit/v4-devstage"};
	char *root = tc_sample_path("hpctoolkit");
	sample_db *all = NULL;
	*n = 0;
	for (int k = 0; k < 2; k++) {
		size_t m;
		char **list = tc_list_dbs(fams[k], &m);
		all = realloc(all, (*n + m + 1) * sizeof *all);
		cr_assert(all);
		for (size_t i = 0; i < m; i++) {
			sample_db *s = &all[(*n)++];
			s->path = strdup(list[i]);
			tc_slurp_db(list[i], s->data, s->size);
		}
		tc_free_list(list);
	}
	if (*n == 0)
		cr_skip_test("no HPCToolkit 4.0 databases under %s", root);
	free(root);
	return all;
}

static void free_all(sample_db *all, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tc_free_files(all[i].data);
		free(all[i].path);
	}
	free(all);
}

static uint64_t seed_of(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

Test(corrupt_real, truncations, .timeout = 300)
{
	size_t n;
	sample_db *all = load_all(&n);
	uint64_t cuts = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char *copy[PROFDB_HPCTK_NFILES];
		profdb_input blobs[PROFDB_HPCTK_NFILES];
		const char *name = tc_basename(all[i].path);
		tc_rng rng = {seed_of(name)};
		copy_files(all[i].data, all[i].size, copy, blobs);
		for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
			size_t size = all[i].size[f];
			if (!copy[f])
				continue;
			/* Every cut in the first 256 and the last 64 bytes, 64 in between. */
			for (size_t len = 0; len < size && len < 256; len++, cuts++)
				cut(blobs, copy[f], size, f, len, name);
			for (size_t len = size > 64 ? size - 64 : 0; len < size; len++, cuts++)
				cut(blobs, copy[f], size, f, len, name);
			for (int k = 0; k < 64; k++, cuts++)
				cut(blobs, copy[f], size, f, (size_t)tc_below(&rng, size), name);
		}
		for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
			free(copy[f]);
	}
	cr_log_info("%llu truncations of %zu databases, all rejected at open with -ENODATA",
	            (unsigned long long)cuts, n);
	cr_assert(cuts > 0);
	free_all(all, n);
}

/* Sampled byte mutations: per file, 256 positions (the first 32 among the
 * first 256 bytes, where the headers are), 4 mutations each, round-robin
 * over the files of a database so each gets its share of the time budget. */
static void real_flips(int devstage_only)
{
	size_t n;
	sample_db *all = load_all(&n);
	size_t used = 0;
	for (size_t i = 0; i < n; i++)
		used += (strstr(all[i].path, "v4-devstage") != NULL) == devstage_only;
	cr_assert(used > 0 || !devstage_only);
	if (!used)
		cr_skip_test("no databases in this family");
	double per_db = budget() / (double)used;
	tally total = {0};
	size_t complete = 0;
	for (size_t i = 0; i < n; i++) {
		if ((strstr(all[i].path, "v4-devstage") != NULL) != devstage_only)
			continue;
		unsigned char *copy[PROFDB_HPCTK_NFILES];
		profdb_input blobs[PROFDB_HPCTK_NFILES];
		const char *name = tc_basename(all[i].path);
		tc_rng rng = {seed_of(name) ^ 0xf1f1};
		tally t = {0};
		double start = tc_now();
		int round;
		copy_files(all[i].data, all[i].size, copy, blobs);
		int stop = 0;
		for (round = 0; round < 256 && !stop; round++) {
			for (int f = 0; f < PROFDB_HPCTK_NFILES && !stop; f++) {
				size_t size = all[i].size[f];
				if (!copy[f] || !size)
					continue;
				size_t pos = (size_t)tc_below(&rng, round < 32 && size > 256 ? 256 : size);
				for (int mut = 0; mut < MUT_N && !stop; mut++) {
					/* Every file gets at least one mutation. */
					if ((round > 0 || mut > 0) && tc_now() - start > per_db)
						stop = 1;
					else
						flip(blobs, copy[f], f, pos, mut, 4096, name, &t);
				}
			}
		}
		if (stop)
			round--;
		complete += round == 256;
		cr_assert(t.trials > 0, "%s: no mutation ran", name);
		total.trials += t.trials;
		total.opened += t.opened;
		total.open_failed += t.open_failed;
		total.drive_failures += t.drive_failures;
		for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
			free(copy[f]);
	}
	cr_log_info("%llu mutations over %zu databases (%zu complete, budget %.1fs): %llu opened "
	            "(%llu failing calls), %llu rejected at open",
	            (unsigned long long)total.trials, used, complete, budget(),
	            (unsigned long long)total.opened, (unsigned long long)total.drive_failures,
	            (unsigned long long)total.open_failed);
	cr_assert(total.opened > 0 && total.open_failed > 0);
	free_all(all, n);
}

Test(corrupt_real, flips_final, .timeout = 300)
{
	real_flips(0);
}

Test(corrupt_real, flips_devstage, .timeout = 300)
{
	real_flips(1);
}

TC_MAIN
