/* Unit tests of the core on hand-built bytes: the bounds check, overflow-safe
 * multiplication, strings, byte loads, bit-exact doubles, per-thread error
 * messages, the lazy-initialisation helper, a function run beside the
 * calling thread and the arena expat parses in. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "common.h"
#include "core/beside-internal.h"
#include "core/core-internal.h"
#include "core/table-internal.h"
#include "core/xml-arena-internal.h"

static unsigned char buf[100];
static profdb__input in;

static void setup(void)
{
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)i;
	profdb__input_mem(&in, buf, sizeof buf, "unit.db");
}

TestSuite(core, .init = setup, .timeout = 20);

/* ---- profdb__span ----------------------------------------------------------- */

static int span(uint64_t lo, uint64_t hi, uint64_t off, uint64_t len)
{
	const unsigned char *p = NULL;
	profdb__set_message("");
	int r = profdb__span(&in, lo, hi, off, len, "thing", &p);
	if (r == 0)
		cr_assert_eq(p, buf + off);
	else
		cr_assert(strstr(profdb_error_message(), "unit.db") &&
		          strstr(profdb_error_message(), "thing"),
		          "message names neither file nor structure: %s", profdb_error_message());
	return r;
}

Test(core, span_inside)
{
	cr_assert_eq(span(0, 100, 0, 100), 0);
	cr_assert_eq(span(0, 100, 0, 0), 0);
	cr_assert_eq(span(0, 100, 99, 1), 0);
	cr_assert_eq(span(10, 20, 10, 10), 0);
	cr_assert_eq(span(10, 20, 19, 1), 0);
	/* A NULL out pointer is allowed. */
	cr_assert_eq(profdb__span(&in, 0, 100, 5, 5, "x", NULL), 0);
}

Test(core, span_end_boundaries)
{
	/* Offset at the end with length 0 is an empty range at the end: fine. */
	cr_assert_eq(span(0, 100, 100, 0), 0);
	cr_assert_eq(span(10, 20, 20, 0), 0);
	/* One byte at the end of the file: would fit in a longer file. */
	cr_assert_eq(span(0, 100, 100, 1), -ENODATA);
	cr_assert_eq(span(0, 100, 99, 2), -ENODATA);
	cr_assert_eq(span(0, 100, 0, 101), -ENODATA);
	/* hi past the file is clamped to the file: still truncation. */
	cr_assert_eq(span(0, 1000, 96, 8), -ENODATA);
	/* Past the end of a window that ends before the file: corrupt. */
	cr_assert_eq(span(0, 92, 90, 4), -EBADMSG);
	cr_assert_eq(span(10, 20, 20, 1), -EBADMSG);
	cr_assert_eq(span(10, 20, 15, 6), -EBADMSG);
	/* Starting beyond the end of the file is a wild pointer, not truncation. */
	cr_assert_eq(span(0, 100, 101, 0), -EBADMSG);
	cr_assert_eq(span(0, 100, 4096, 8), -EBADMSG);
}

Test(core, span_lo_window)
{
	cr_assert_eq(span(10, 20, 9, 1), -EBADMSG);
	cr_assert_eq(span(10, 20, 9, 0), -EBADMSG);
	cr_assert_eq(span(10, 100, 0, 100), -EBADMSG);
	/* lo above hi, and lo beyond the file. */
	cr_assert_eq(span(30, 20, 25, 0), -EBADMSG);
	cr_assert_eq(span(200, 300, 200, 0), -EBADMSG);
	cr_assert_eq(span(100, 100, 100, 0), 0);
}

Test(core, span_overflow)
{
	/* off + len wraps around to a small value: must not pass. */
	cr_assert_eq(span(0, 100, UINT64_MAX - 3, 8), -EBADMSG);
	cr_assert_eq(span(0, 100, UINT64_MAX - 10, 20), -EBADMSG);
	cr_assert_eq(span(0, 100, UINT64_MAX, 1), -EBADMSG);
	cr_assert_eq(span(0, 100, UINT64_MAX, 0), -EBADMSG);
	cr_assert_eq(span(0, 100, 8, UINT64_MAX), -ENODATA);
	cr_assert_eq(span(0, 100, 8, UINT64_MAX - 7), -ENODATA);
	cr_assert_eq(span(10, 20, 12, UINT64_MAX - 11), -EBADMSG);
	cr_assert_eq(span(UINT64_MAX - 1, UINT64_MAX, UINT64_MAX - 1, 1), -EBADMSG);
	cr_assert_eq(span(0, UINT64_MAX, 50, 50), 0);
	cr_assert_eq(span(0, UINT64_MAX, 50, 51), -ENODATA);
}

Test(core, span_empty_input)
{
	profdb__input e;
	profdb__input_mem(&e, NULL, 0, "empty.db");
	cr_assert_eq(profdb__span(&e, 0, 0, 0, 0, "x", NULL), 0);
	cr_assert_eq(profdb__span(&e, 0, 0, 0, 1, "x", NULL), -ENODATA);
	cr_assert(strstr(profdb_error_message(), "empty.db"));
	cr_assert_eq(profdb__range(&e, 0, 16, "file header", NULL), -ENODATA);
}

Test(core, range_whole_file)
{
	cr_assert_eq(profdb__range(&in, 92, 8, "footer", NULL), 0);
	cr_assert_eq(profdb__range(&in, 93, 8, "footer", NULL), -ENODATA);
}

/* ---- profdb__mul ------------------------------------------------------------ */

Test(core, mul)
{
	uint64_t out = 7;
	cr_assert_eq(profdb__mul(&in, 0, UINT64_MAX, "a", &out), 0);
	cr_assert_eq(out, 0);
	cr_assert_eq(profdb__mul(&in, UINT64_MAX, 1, "a", &out), 0);
	cr_assert_eq(out, UINT64_MAX);
	cr_assert_eq(profdb__mul(&in, UINT32_MAX, UINT32_MAX, "a", &out), 0);
	cr_assert_eq(out, (uint64_t)UINT32_MAX * UINT32_MAX);
	cr_assert_eq(profdb__mul(&in, UINT64_C(1) << 32, UINT64_C(1) << 32, "big array", &out),
	             -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "unit.db") &&
	          strstr(profdb_error_message(), "big array"));
	cr_assert_eq(profdb__mul(&in, UINT64_MAX, 2, "a", &out), -EBADMSG);
	cr_assert_eq(profdb__mul(&in, UINT64_MAX / 12 + 1, 12, "a", &out), -EBADMSG);
	cr_assert_eq(profdb__mul(&in, UINT64_MAX / 12, 12, "a", &out), 0);
}

/* ---- profdb__string --------------------------------------------------------- */

Test(core, string)
{
	static unsigned char s[16] = {'a', 'b', 'c', 0, 'x', 'y', 0, 'l', 'o', 'n', 'g', 'e', 'r',
	                              'q', 'r', 0};
	profdb__input si;
	const char *out = NULL;
	profdb__input_mem(&si, s, sizeof s, "str.db");

	cr_assert_eq(profdb__string(&si, 0, 16, 0, "name", &out), 0);
	cr_assert_str_eq(out, "abc");
	cr_assert_eq((const unsigned char *)out, s);
	cr_assert_eq(profdb__string(&si, 0, 16, 3, "name", &out), 0);
	cr_assert_str_eq(out, "");
	/* NUL exactly at the last byte of the window. */
	cr_assert_eq(profdb__string(&si, 0, 16, 7, "name", &out), 0);
	cr_assert_str_eq(out, "longerqr");
	cr_assert_eq(profdb__string(&si, 4, 7, 4, "name", &out), 0);
	cr_assert_str_eq(out, "xy");
	/* The NUL lies just past the window: missing. */
	cr_assert_eq(profdb__string(&si, 4, 6, 4, "name", &out), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "str.db") && strstr(profdb_error_message(), "name"));
	cr_assert_eq(profdb__string(&si, 0, 15, 7, "name", &out), -EBADMSG);
	/* Start outside the window, at its end, past the file. */
	cr_assert_eq(profdb__string(&si, 4, 16, 0, "name", &out), -EBADMSG);
	cr_assert_eq(profdb__string(&si, 0, 7, 7, "name", &out), -EBADMSG);
	cr_assert_eq(profdb__string(&si, 0, 16, 16, "name", &out), -ENODATA);
	cr_assert_eq(profdb__string(&si, 0, 16, UINT64_MAX, "name", &out), -EBADMSG);
	/* hi past the file is clamped. */
	cr_assert_eq(profdb__string(&si, 0, 1000, 7, "name", &out), 0);

	/* No NUL anywhere in the file. */
	static const unsigned char nonul[4] = {'a', 'b', 'c', 'd'};
	profdb__input ni;
	profdb__input_mem(&ni, nonul, sizeof nonul, "nonul.db");
	cr_assert_eq(profdb__string(&ni, 0, 4, 0, "title", &out), -EBADMSG);
	cr_assert_eq(profdb__string(&ni, 0, 4, 3, "title", &out), -EBADMSG);
}

/* ---- byte loads --------------------------------------------------------------- */

Test(core, loads_unaligned)
{
	/* 8-aligned storage, then read at every misalignment. */
	static _Alignas(8) unsigned char b[32];
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)(0x10 + i * 7);
	for (int o = 0; o < 8; o++) {
		const unsigned char *p = b + 1 + o;
		uint64_t le = 0, be = 0;
		for (int k = 7; k >= 0; k--)
			le = le << 8 | p[k];
		for (int k = 0; k < 8; k++)
			be = be << 8 | p[k];
		cr_assert_eq(profdb__le64(p), le);
		cr_assert_eq(profdb__be64(p), be);
		cr_assert_eq(profdb__le32(p), (uint32_t)le);
		cr_assert_eq(profdb__be32(p), (uint32_t)(be >> 32));
		cr_assert_eq(profdb__le16(p), (uint16_t)le);
		cr_assert_eq(profdb__be16(p), (uint16_t)(be >> 48));
	}
	static const unsigned char k[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
	cr_assert_eq(profdb__le64(k), UINT64_C(0x8807060504030201));
	cr_assert_eq(profdb__be64(k), UINT64_C(0x0102030405060788));
	cr_assert_eq(profdb__le32(k + 4), UINT32_C(0x88070605));
	cr_assert_eq(profdb__be32(k + 4), UINT32_C(0x05060788));
	cr_assert_eq(profdb__le16(k + 6), 0x8807);
	cr_assert_eq(profdb__be16(k + 6), 0x0788);
}

/* ---- bit-exact doubles ---------------------------------------------------------- */

Test(core, f64_bits_round_trip)
{
	static const uint64_t pats[] = {
		UINT64_C(0x7ff0000000000001), /* signalling NaN, smallest payload */
		UINT64_C(0x7ff4000000000000), /* signalling NaN */
		UINT64_C(0x7ff8000000000000), /* quiet NaN */
		UINT64_C(0x7ff8deadbeef1234), /* quiet NaN with payload */
		UINT64_C(0xfff0000000c0ffee), /* negative signalling NaN with payload */
		UINT64_C(0xffffffffffffffff), /* all ones */
		UINT64_C(0x8000000000000000), /* -0.0 */
		UINT64_C(0x0000000000000000), /* +0.0 */
		UINT64_C(0x0000000000000001), /* smallest denormal */
		UINT64_C(0x000fffffffffffff), /* largest denormal */
		UINT64_C(0x800fffffffffffff), /* negative denormal */
		UINT64_C(0x7ff0000000000000), /* +inf */
		UINT64_C(0xfff0000000000000), /* -inf */
		UINT64_C(0x3ff0000000000000), /* 1.0 */
	};
	for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		volatile double d = profdb__f64_bits(pats[i]);
		double copy = d;
		uint64_t back;
		memcpy(&back, &copy, 8);
		cr_assert_eq(back, pats[i], "bits 0x%016llx came back as 0x%016llx",
		             (unsigned long long)pats[i], (unsigned long long)back);
	}
	cr_assert(profdb__f64_bits(UINT64_C(0x8000000000000000)) == 0.0);
	cr_assert(profdb__f64_bits(UINT64_C(0x4000000000000000)) == 2.0);
}

/* ---- error messages ------------------------------------------------------------- */

Test(core, fail_formats_and_keeps_message)
{
	cr_assert_eq(profdb__fail(-EBADMSG, "%s: %d", "meta.db", 42), -EBADMSG);
	cr_assert_str_eq(profdb_error_message(), "meta.db: 42");
	cr_assert_eq(profdb__message(), profdb_error_message());
	/* A successful call does not clear it. */
	cr_assert_eq(profdb__span(&in, 0, 100, 0, 1, "x", NULL), 0);
	cr_assert_str_eq(profdb_error_message(), "meta.db: 42");
	profdb__set_message(NULL);
	cr_assert_str_eq(profdb_error_message(), "");
	/* Long messages are truncated, still NUL-terminated. */
	char big[2000];
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = 0;
	profdb__fail(-EIO, "%s", big);
	size_t n = strlen(profdb_error_message());
	cr_assert(n > 100 && n < sizeof big - 1);
}

typedef struct msg_arg {
	pthread_barrier_t *bar;
	int index;
	int ok;
} msg_arg;

static void *msg_thread(void *p)
{
	msg_arg *a = p;
	char mine[64];
	snprintf(mine, sizeof mine, "thread %d: its own failure", a->index);
	/* A fresh thread starts with an empty message. */
	int fresh = profdb_error_message()[0] == 0;
	pthread_barrier_wait(a->bar);
	profdb__fail(-EBADMSG, "%s", mine);
	pthread_barrier_wait(a->bar); /* every thread has now failed */
	a->ok = fresh && strcmp(profdb_error_message(), mine) == 0;
	return NULL;
}

Test(core, thread_local_messages)
{
	enum { N = 8 };
	pthread_t t[N];
	msg_arg a[N];
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, N + 1);
	profdb__fail(-EIO, "main thread message");
	for (int i = 0; i < N; i++) {
		a[i] = (msg_arg){&bar, i, 0};
		cr_assert_eq(pthread_create(&t[i], NULL, msg_thread, &a[i]), 0);
	}
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		cr_assert(a[i].ok, "thread %d saw another thread's message", i);
	}
	pthread_barrier_destroy(&bar);
	cr_assert_str_eq(profdb_error_message(), "main thread message");
}

/* ---- once ------------------------------------------------------------------------ */

typedef struct once_ctx {
	profdb__once once;
	atomic_int runs;
	int fail;
	pthread_barrier_t bar;
} once_ctx;

typedef struct once_arg {
	once_ctx *ctx;
	int result;
	char message[128];
} once_arg;

static int init_fn(void *p)
{
	once_ctx *c = p;
	atomic_fetch_add(&c->runs, 1);
	usleep(20000); /* let the other threads pile up on the lock */
	if (c->fail)
		return profdb__fail(-EBADMSG, "fake.db: lazy index at 0x%x is corrupt", 0x40);
	return 7;
}

static void *once_thread(void *p)
{
	once_arg *a = p;
	profdb__set_message("");
	pthread_barrier_wait(&a->ctx->bar);
	a->result = profdb__once_run(&a->ctx->once, init_fn, a->ctx);
	snprintf(a->message, sizeof a->message, "%s", profdb_error_message());
	return NULL;
}

static void run_once_threads(int fail)
{
	enum { N = 8 };
	once_ctx c;
	once_arg a[N];
	pthread_t t[N];
	profdb__once_init(&c.once);
	atomic_init(&c.runs, 0);
	c.fail = fail;
	pthread_barrier_init(&c.bar, NULL, N);
	for (int i = 0; i < N; i++) {
		a[i].ctx = &c;
		cr_assert_eq(pthread_create(&t[i], NULL, once_thread, &a[i]), 0);
	}
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(atomic_load(&c.runs), 1, "init ran %d times", atomic_load(&c.runs));
	for (int i = 0; i < N; i++) {
		cr_assert_eq(a[i].result, fail ? -EBADMSG : 7);
		if (fail)
			cr_assert_str_eq(a[i].message, "fake.db: lazy index at 0x40 is corrupt");
		else
			cr_assert_str_eq(a[i].message, "");
	}
	/* A late caller (fast path) gets the same result and message. */
	profdb__set_message("");
	cr_assert_eq(profdb__once_run(&c.once, init_fn, &c), fail ? -EBADMSG : 7);
	cr_assert_str_eq(profdb_error_message(), fail ? "fake.db: lazy index at 0x40 is corrupt" : "");
	cr_assert_eq(atomic_load(&c.runs), 1);
	pthread_barrier_destroy(&c.bar);
	profdb__once_destroy(&c.once);
}

Test(core, once_success_under_8_threads)
{
	run_once_threads(0);
}

Test(core, once_failure_replayed_to_every_caller)
{
	run_once_threads(1);
}

/* ---- beside: one function run beside the calling thread ------------------------ */

typedef struct beside_arg {
	pthread_t caller;
	int ran_here;     /* ran on the caller's thread */
	atomic_int go;    /* the caller lets it return */
	int fail;
} beside_arg;

static int beside_fn(void *p)
{
	beside_arg *a = p;
	a->ran_here = pthread_equal(pthread_self(), a->caller);
	while (!a->ran_here && !atomic_load(&a->go))
		usleep(100);
	return a->fail ? profdb__fail(-EBADMSG, "fake.db: marks at 0x%x are corrupt", 0x10) : 3;
}

/* On a thread of its own: not done until it returns, its result and its
 * message (set on that thread) carried to the caller by the join. */
Test(core, beside_on_a_thread_carries_the_result_and_message)
{
	for (int fail = 0; fail <= 1; fail++) {
		beside_arg a = {pthread_self(), 0, 0, fail};
		profdb__beside b;
		profdb__set_message("");
		cr_assert_eq(profdb__beside_start(&b, 1, 1, beside_fn, &a), 1);
		cr_assert_eq(profdb__beside_done(&b), 0);
		atomic_store(&a.go, 1);
		while (!profdb__beside_done(&b))
			usleep(100);
		cr_assert_eq(profdb__beside_join(&b), fail ? -EBADMSG : 3);
		cr_assert_eq(a.ran_here, 0);
		cr_assert_str_eq(b.msg, fail ? "fake.db: marks at 0x10 are corrupt" : "");
		cr_assert_str_eq(profdb_error_message(), "");   /* the caller's stays */
		cr_assert_eq(profdb__beside_join(&b), fail ? -EBADMSG : 3);   /* joined once */
	}
}

/* No thread allowed: run here and now (done at once), or not at all. */
Test(core, beside_without_a_thread_runs_here_or_not_at_all)
{
	beside_arg a = {pthread_self(), 0, 0, 1};
	profdb__beside b;
	cr_assert_eq(profdb__beside_start(&b, 0, 1, beside_fn, &a), 0);
	cr_assert_eq(a.ran_here, 1);
	cr_assert_eq(profdb__beside_done(&b), 1);
	cr_assert_eq(profdb__beside_join(&b), -EBADMSG);
	cr_assert_str_eq(b.msg, "fake.db: marks at 0x10 are corrupt");

	beside_arg c = {pthread_self(), 7, 0, 0};
	cr_assert_eq(profdb__beside_start(&b, 0, 0, beside_fn, &c), 0);
	cr_assert_eq(c.ran_here, 7);   /* never called */
	cr_assert_eq(profdb__beside_done(&b), 1);
	cr_assert_eq(profdb__beside_join(&b), 0);
}

/* ---- inputs and options --------------------------------------------------------- */

Test(core, input_open_missing_and_copy)
{
	profdb__input f;
	cr_assert_eq(profdb__input_open(&f, "/nonexistent/profdb/meta.db", "meta.db", 0), -ENOENT);
	cr_assert(strstr(profdb_error_message(), "/nonexistent/profdb/meta.db"));
	cr_assert_eq(profdb__input_open(&f, "/", "root", 0), -EINVAL);

	char path[] = "/tmp/profdb-core-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "hello", 5), 5);
	close(fd);
	for (uint32_t flags = 0; flags <= PROFDB_OPEN_COPY; flags++) {
		cr_assert_eq(profdb__input_open(&f, path, "tmp", flags), 0);
		cr_assert_eq(f.size, 5);
		cr_assert_eq(memcmp(f.base, "hello", 5), 0);
		profdb__input_close(&f);
	}
	/* An empty file opens with size 0. */
	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	cr_assert_eq(profdb__input_open(&f, path, "tmp", 0), 0);
	cr_assert_eq(f.size, 0);
	cr_assert_eq(profdb__range(&f, 0, 1, "x", NULL), -ENODATA);
	profdb__input_close(&f);
	unlink(path);
}

static void count_warn(const char *msg, void *ud)
{
	(void)msg;
	++*(int *)ud;
}

Test(core, options_copy_short_struct_and_warn)
{
	int n = 0;
	profdb_options src = {sizeof src, PROFDB_OPEN_COPY, count_warn, &n}, dst;
	profdb__options_copy(&dst, &src);
	cr_assert(dst.flags == PROFDB_OPEN_COPY && dst.warn == count_warn && dst.warn_userdata == &n);
	profdb__warn(&dst, "w %d", 1);
	cr_assert_eq(n, 1);
	/* A caller compiled against an older, shorter struct: the rest is zero. */
	src.size = offsetof(profdb_options, warn);
	profdb__options_copy(&dst, &src);
	cr_assert(dst.size == sizeof dst && dst.flags == PROFDB_OPEN_COPY && dst.warn == NULL);
	profdb__warn(&dst, "not delivered");
	profdb__warn(NULL, "not delivered");
	cr_assert_eq(n, 1);
	profdb__options_copy(&dst, NULL);
	cr_assert(dst.flags == 0 && dst.warn == NULL);
}

/* ---- gzip (lib/core/gunzip.c) ------------------------------------------------ */

#include "core/gunzip-internal.h"
#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>

/* One gzip member of [p, p + n) appended at out + *len. */
static void gz_member(const void *p, size_t n, unsigned char *out, size_t *len, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = out + *len;
	z.avail_out = (uInt)(cap - *len);
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*len = cap - z.avail_out;
	deflateEnd(&z);
}

static int gz(const unsigned char *src, size_t n, unsigned char **out, uint64_t *len)
{
	return profdb__gunzip_alloc(src, n, "t.gz", 1 << 20, "test", out, len);
}

Test(core, gunzip_members_and_trailers)
{
	static unsigned char text[5000], g[12000];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (unsigned char)("profdb "[i % 7] ^ (i / 700));
	size_t n = 0;
	gz_member(text, 3000, g, &n, sizeof g);
	size_t first = n;
	gz_member(text + 3000, 2000, g, &n, sizeof g);
	unsigned char *out;
	uint64_t len;
	/* two members, then bytes that start no member: ignored */
	memcpy(g + n, "junk", 4);
	cr_assert_eq(gz(g, n + 4, &out, &len), 0, "%s", profdb_error_message());
	cr_assert_eq(len, sizeof text);
	cr_assert_eq(memcmp(out, text, sizeof text), 0);
	free(out);
	/* the second member's CRC-32, then its ISIZE, one bit off */
	struct {
		size_t at;
		const char *says;
	} flips[] = {{n - 8, "CRC-32"}, {n - 4, "ISIZE"}, {first - 7, "CRC-32"}};
	for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
		g[flips[i].at] ^= 0x10;
		cr_assert_eq(gz(g, n, &out, &len), -EBADMSG, "flip at %zu", flips[i].at);
		const char *m = profdb_error_message();
		cr_assert(strstr(m, "t.gz") && strstr(m, flips[i].says), "%s", m);
		cr_assert(strstr(m, flips[i].at < first ? "gzip member 1" : "gzip member 2"), "%s", m);
		g[flips[i].at] ^= 0x10;
	}
	/* cut short: -ENODATA naming the member */
	cr_assert_eq(gz(g, n - 8, &out, &len), -ENODATA);
	cr_assert(strstr(profdb_error_message(), "gzip member 2"), "%s", profdb_error_message());
	/* reserved header flags */
	g[3] = 0xe0;
	cr_assert_eq(gz(g, n, &out, &len), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "reserved flag"), "%s", profdb_error_message());
	g[3] = 0;
	/* the limit: exactly the size inflates, one byte less is -EFBIG */
	cr_assert_eq(profdb__gunzip_alloc(g, n, "t.gz", sizeof text, "test", &out, &len), 0);
	free(out);
	cr_assert_eq(profdb__gunzip_alloc(g, n, "t.gz", sizeof text - 1, "test", &out, &len),
	             -EFBIG);
}
#else
/* Without zlib every gzip input is refused, saying why. */
Test(core, gunzip_without_zlib)
{
	static const unsigned char g[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0};
	unsigned char *out;
	uint64_t len;
	cr_assert_eq(profdb__gunzip_alloc(g, sizeof g, "t.gz", 1 << 20, "test", &out, &len),
	             -ENOTSUP);
	cr_assert(strstr(profdb_error_message(), "t.gz") &&
	          strstr(profdb_error_message(), "no zlib"), "%s", profdb_error_message());
}
#endif

TC_MAIN

/* ---- views (lib/core/view.c, include/profdb/common.h) ------------------------ */

/* A trace-like view: 12-byte records {u64 time, u32 context}, little- or
 * big-endian, at an odd address so every load is unaligned. */
static unsigned char trace_bytes[1 + 6 * 12];

static profdb_view trace_view(int big, uint64_t n, const uint64_t *times)
{
	for (uint64_t i = 0; i < n; i++) {
		unsigned char *r = trace_bytes + 1 + i * 12;
		for (unsigned k = 0; k < 8; k++)
			r[big ? 7 - k : k] = (unsigned char)(times[i] >> (8 * k));
		for (unsigned k = 0; k < 4; k++)
			r[8 + (big ? 3 - k : k)] = (unsigned char)((100 + i) >> (8 * k));
	}
	profdb_view v = {0};
	v.base = n ? trace_bytes + 1 : NULL;
	v.count = n;
	v.stride = 12;
	v.key_offset = 0;
	v.key_type = PROFDB_FIELD_U64;
	v.value_offset = 8;
	v.value_type = PROFDB_FIELD_U32;
	v.big_endian = (uint8_t)big;
	return v;
}

Test(core, view_search_both_byte_orders)
{
	const uint64_t t[6] = {10, 20, 20, 30, 0x0102030405060708ull, UINT64_MAX};
	for (int big = 0; big <= 1; big++) {
		profdb_view v = trace_view(big, 6, t);
		uint64_t i = 99, e = 99;
		cr_assert_eq(profdb_view_key(&v, 4), 0x0102030405060708ull);
		profdb_number n = profdb_view_value(&v, 3);
		cr_assert_eq(n.type, PROFDB_TYPE_U64);
		cr_assert_eq(n.as.u64, 103);
		cr_assert_eq(profdb_view_find(&v, 20, &i), 1);
		cr_assert_eq(i, 1); /* the first of equal keys */
		cr_assert_eq(profdb_view_find(&v, 25, &i), 0);
		cr_assert_eq(i, 3);
		cr_assert_eq(profdb_view_seek(&v, 0, &i), 0);
		cr_assert_eq(i, 0);
		cr_assert_eq(profdb_view_seek(&v, 31, &i), 0);
		cr_assert_eq(i, 4);
		i = 99;
		cr_assert_eq(profdb_view_in_effect(&v, 9, &i), 0);
		cr_assert_eq(i, 0);   /* cleared */
		cr_assert_eq(profdb_view_in_effect(&v, 20, &i), 1);
		cr_assert_eq(i, 2); /* the last of equal keys is in effect */
		cr_assert_eq(profdb_view_in_effect(&v, 29, &i), 1);
		cr_assert_eq(i, 2);
		cr_assert_eq(profdb_view_in_effect(&v, UINT64_MAX, &i), 1);
		cr_assert_eq(i, 5);
		cr_assert_eq(profdb_view_window(&v, 20, 30, &i, &e), 0);
		cr_assert(i == 1 && e == 3);
		cr_assert_eq(profdb_view_window(&v, 30, 20, &i, &e), 0);
		cr_assert(i == 3 && e == 3);
		uint64_t seen = 0;
		PROFDB_VIEW_FOREACH(&v, k)
			seen += profdb_view_value(&v, k).as.u64;
		cr_assert_eq(seen, 100 + 101 + 102 + 103 + 104 + 105);
	}
}

Test(core, view_empty_and_bad)
{
	profdb_view v = trace_view(0, 0, NULL);
	uint64_t i = 7, e = 7;
	cr_assert_eq(profdb_view_find(&v, 1, &i), 0);
	cr_assert_eq(i, 0);
	cr_assert_eq(profdb_view_in_effect(&v, 1, &i), 0);
	cr_assert_eq(profdb_view_window(&v, 0, 10, &i, &e), 0);
	cr_assert(i == 0 && e == 0);
	cr_assert_eq(profdb_view_seek(NULL, 1, &i), -EINVAL);
	cr_assert_eq(profdb_view_seek(&v, 1, NULL), -EINVAL);
	v.key_type = PROFDB_FIELD_F64;
	cr_assert_eq(profdb_view_seek(&v, 1, &i), -EINVAL);
}

Test(core, view_runs_and_tagged_values)
{
	/* An index {u32 context, u64 start} over records {u16 metric, f64}
	 * (HPCToolkit 4.0's profile plane layout), and a tagged record. */
	unsigned char idx[2 * 12], rec[3 * 10];
	const uint32_t ctx[2] = {5, 9};
	const uint64_t start[2] = {0, 2};
	for (int r = 0; r < 2; r++) {
		memcpy(idx + r * 12, &ctx[r], 4);
		memcpy(idx + r * 12 + 4, &start[r], 8);
	}
	const double val[3] = {-0.0, 1.5, 2.5};
	for (int r = 0; r < 3; r++) {
		uint16_t m = (uint16_t)(r + 1);
		memcpy(rec + r * 10, &m, 2);
		memcpy(rec + r * 10 + 2, &val[r], 8);
	}
	profdb_view index = {idx, 2, 12, 0, PROFDB_FIELD_U32, 4, PROFDB_FIELD_U64, 0, 0, {0}};
	profdb_view values = {rec, 3, 10, 0, PROFDB_FIELD_U16, 2, PROFDB_FIELD_F64, 0, 0, {0}};
	uint64_t i;
	cr_assert_eq(profdb_view_find(&index, 9, &i), 1);
	profdb_view run = profdb_view_run(&index, i, &values);
	cr_assert_eq(run.count, 1);
	cr_assert_eq(profdb_view_key(&run, 0), 3);
	run = profdb_view_run(&index, 0, &values);
	cr_assert_eq(run.count, 2);
	profdb_number n = profdb_view_value(&run, 0);
	cr_assert_eq(n.type, PROFDB_TYPE_F64);
	uint64_t bits;
	memcpy(&bits, &n.as.f64, 8);
	cr_assert_eq(bits, 0x8000000000000000ull); /* -0.0 kept */
	/* a record past the index is an empty run, read from nowhere */
	run = profdb_view_run(&index, 2, &values);
	cr_assert(run.count == 0 && run.base == NULL);
	run = profdb_view_run(&index, UINT64_MAX, &values);
	cr_assert(run.count == 0 && run.base == NULL);

	unsigned char tagged[16] = {0};
	tagged[4] = PROFDB_TYPE_I64;
	int64_t neg = -3;
	memcpy(tagged + 8, &neg, 8);
	profdb_view t = {tagged, 1, 16, 0, PROFDB_FIELD_U32, 8, PROFDB_FIELD_TAGGED, 4, 0, {0}};
	n = profdb_view_value(&t, 0);
	cr_assert_eq(n.type, PROFDB_TYPE_I64);
	cr_assert_eq(n.as.i64, -3);
}

/* ---- tables (lib/core/table.c) ------------------------------------------------- */

#include "core/table-internal.h"

static uint64_t keys_hash(const void *ctx, uint32_t e)
{
	return profdb__mix64(((const uint64_t *)ctx)[e]);
}

static int keys_eq(const void *ctx, uint32_t e, const void *key)
{
	return ((const uint64_t *)ctx)[e] == *(const uint64_t *)key;
}

Test(core, grow_and_hindex)
{
	uint64_t *keys = NULL;
	size_t cap = 0;
	profdb__hindex h;
	cr_assert_eq(profdb__hindex_init(&h, 0), 0);
	/* 5000 keys, each inserted once, found again after many rehashes. */
	for (uint32_t n = 0; n < 5000; n++) {
		uint64_t k = (uint64_t)n * 7919 + 3;
		cr_assert_eq(profdb__grow((void **)&keys, &cap, n + 1, sizeof *keys), 0);
		cr_assert_geq(cap, n + 1);
		uint32_t *s = profdb__hindex_slot(&h, profdb__mix64(k), keys_eq, keys, &k);
		cr_assert_eq(*s, 0);
		keys[n] = k;
		*s = n + 1;
		cr_assert_eq(profdb__hindex_added(&h, keys_hash, keys), 0);
	}
	for (uint32_t n = 0; n < 5000; n++) {
		uint64_t k = (uint64_t)n * 7919 + 3, absent = k + 1;
		cr_assert_eq(*profdb__hindex_slot(&h, profdb__mix64(k), keys_eq, keys, &k), n + 1);
		cr_assert_eq(*profdb__hindex_slot(&h, profdb__mix64(absent), keys_eq, keys, &absent), 0);
	}
	void *big = NULL;
	size_t bcap = 0;
	cr_assert_eq(profdb__grow(&big, &bcap, SIZE_MAX / 2, 16), -ENOMEM);
	cr_assert_null(big);
	profdb__hindex_free(&h);
	free(keys);
	cr_assert_neq(profdb__hash_bytes("ab", 2, 0), profdb__hash_bytes("ba", 2, 0));
}

/* The tagged index: 20 000 keys through several doublings (at 7/8 load),
 * each found again, absent keys not; a tag shared by every key (all
 * probes match tags, so the entries decide) still finds the right one. */
Test(core, tmap)
{
	enum { N = 20000 };
	uint64_t *keys = malloc(N * sizeof *keys);
	cr_assert_not_null(keys);
	for (int same_tag = 0; same_tag < 2; same_tag++) {
		uint32_t n_keys = same_tag ? 300 : N;
		profdb__tmap m;
		memset(&m, 0, sizeof m);
		cr_assert_eq(profdb__tmap_init(&m), 0);
		for (uint32_t n = 0; n < n_keys; n++) {
			uint64_t k = (uint64_t)n * 7919 + 3;
			uint32_t tag = same_tag ? 5 : (uint32_t)(profdb__mix64(k) >> 32);
			profdb__tslot *s = profdb__tmap_slot(&m, tag, keys_eq, keys, &k);
			cr_assert_eq(s->row1, 0);
			keys[n] = k;
			*s = (profdb__tslot){n + 1, tag};
			cr_assert_eq(profdb__tmap_added(&m), 0);
		}
		cr_assert_gt(m.mask + 1, n_keys, "the index grew");
		for (uint32_t n = 0; n < n_keys; n++) {
			uint64_t k = (uint64_t)n * 7919 + 3, absent = k + 1;
			uint32_t tag = same_tag ? 5 : (uint32_t)(profdb__mix64(k) >> 32);
			uint32_t atag = same_tag ? 5 : (uint32_t)(profdb__mix64(absent) >> 32);
			cr_assert_eq(profdb__tmap_slot(&m, tag, keys_eq, keys, &k)->row1, n + 1);
			cr_assert_eq(profdb__tmap_slot(&m, atag, keys_eq, keys, &absent)->row1, 0);
		}
		profdb__tmap_free(&m);
		cr_assert_null(m.slot);
	}
	free(keys);
}

/* ---- options (doc/CONVENTIONS.md, "Options") -------------------------------- */

Test(core, options_validated)
{
	static const char text[] = "not a profile";
	profdb_input input = {"x.txt", text, sizeof text - 1};
	profdb *db;
	struct {
		profdb_options o;
		unsigned char newer[16];   /* fields of a later version */
	} big;
	memset(&big, 0, sizeof big);
	big.o = (profdb_options)PROFDB_OPTIONS_INIT;
	/* The defaults pass the check: the input itself is then refused. */
	cr_assert_eq(profdb_open_inputs(&db, &input, 1, &big.o), -EPROTONOSUPPORT);
	big.o.size = 0;   /* forgot to set size: was silently "no options" */
	cr_assert_eq(profdb_open_inputs(&db, &input, 1, &big.o), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "PROFDB_OPTIONS_INIT"));
	big.o.size = sizeof big;   /* a newer caller; its unknown bytes are zero */
	cr_assert_eq(profdb_open_inputs(&db, &input, 1, &big.o), -EPROTONOSUPPORT);
	big.newer[3] = 1;          /* ... and now one of them is used */
	cr_assert_eq(profdb_open_inputs(&db, &input, 1, &big.o), -EINVAL);
	big.newer[3] = 0;
	big.o.flags = 1u << 30;    /* a flag this version does not define */
	cr_assert_eq(profdb_open_inputs(&db, &input, 1, &big.o), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "flags"));
	cr_assert_eq(profdb_open(&db, "/nonexistent", &big.o), -EINVAL);

	/* Every format's own open checks them the same way. */
	big.o.flags = 0;
	big.o.size = 0;
	profdb_cg *cg;
	profdb_cube *cube;
	profdb_hpcrun *hr;
	profdb_hpctkpre *pre;
	profdb_input four[PROFDB_HPCTKPRE_NFILES] = {{"experiment.xml", text, sizeof text - 1}};
	cr_assert_eq(profdb_cg_open_mem(&cg, text, sizeof text - 1, &big.o), -EINVAL);
	cr_assert_eq(profdb_cg_open(&cg, "/nonexistent", &big.o), -EINVAL);
#ifdef PROFDB_HAVE_CUBE
	cr_assert_eq(profdb_cube_open_mem(&cube, text, sizeof text - 1, &big.o), -EINVAL);
#else
	(void)cube;
#endif
	cr_assert_eq(profdb_hpcrun_open_inputs(&hr, &input, 1, &big.o), -EINVAL);
	cr_assert_eq(profdb_hpcrun_open(&hr, "/nonexistent", &big.o), -EINVAL);
	cr_assert_eq(profdb_hpctkpre_open_mem(&pre, four, &big.o), -EINVAL);
	profdb_hpctk *hk;
	profdb_input meta[PROFDB_HPCTK_NFILES] = {{"meta.db", text, sizeof text - 1}};
	cr_assert_eq(profdb_hpctk_open_mem(&hk, meta, &big.o), -EINVAL);
	cr_assert_eq(profdb_hpctk_open(&hk, "/nonexistent", &big.o), -EINVAL);
	cr_assert_null(hk);
	cr_assert_null(cg);
	cr_assert_null(hr);
	cr_assert_null(pre);
}

/* ---- tolerant mode ------------------------------------------------------------ */

static int warnings;
static char last_warning[512];

static void count_warning(const char *m, void *u)
{
	(void)u;
	warnings++;
	snprintf(last_warning, sizeof last_warning, "%s", m);
}

Test(core, tolerate)
{
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.warn = count_warning;
	atomic_bool warned = false;
	warnings = 0;
	profdb__fail(-EBADMSG, "unit.db: block 3 at offset 0x40: unsorted");
	/* strict: the failure stands, nothing is reported */
	cr_assert_eq(profdb__tolerate(&o, -EBADMSG, &warned, "profile %d", 3), -EBADMSG);
	cr_assert_eq(warnings, 0);
	o.flags = PROFDB_OPEN_TOLERANT;
	cr_assert_eq(profdb__tolerate(&o, -EBADMSG, &warned, "profile %d", 3), 0);
	cr_assert_eq(warnings, 1);
	cr_assert(strstr(last_warning, "offset 0x40") && strstr(last_warning, "profile 3 reads as absent"),
	          "%s", last_warning);
	cr_assert_eq(profdb__tolerate(&o, -ENODATA, &warned, "profile %d", 3), 0);
	cr_assert_eq(warnings, 1);   /* once per block */
	cr_assert_eq(profdb__tolerate(&o, -ENODATA, NULL, "trace %d", 1), 0);
	cr_assert_eq(warnings, 2);
	/* not damage: resources and arguments fail in tolerant mode too */
	cr_assert_eq(profdb__tolerate(&o, -ENOMEM, NULL, "profile %d", 3), -ENOMEM);
	cr_assert_eq(profdb__tolerate(&o, -EINVAL, NULL, "profile %d", 3), -EINVAL);
	cr_assert_eq(warnings, 2);
}

/* The arena: blocks keep their bytes through realloc (in place for the
 * newest, copied for an older one), a freed newest block is taken back,
 * a block bigger than a chunk gets its own, and nothing is served outside
 * an entered arena. */
Test(core, xml_arena_blocks)
{
	const profdb__xml_arena_suite *m = &profdb__xml_arena_fns;
	profdb__xml_arena a, *saved;
	cr_assert_null(m->malloc_fcn(8), "no arena entered: no memory");
	profdb__xml_arena_enter(&a, &saved);
	unsigned char *p = m->malloc_fcn(40), *q = m->malloc_fcn(24);
	cr_assert(p && q && q > p);
	cr_assert_eq((uintptr_t)p % 16, 0);
	memset(p, 0xab, 40);
	memset(q, 0xcd, 24);
	cr_assert_eq(m->realloc_fcn(q, 200), q, "the newest block grows in place");
	unsigned char *p2 = m->realloc_fcn(p, 100);
	cr_assert(p2 && p2 != p, "an older block moves");
	for (int i = 0; i < 40; i++)
		cr_assert_eq(p2[i], 0xab, "byte %d kept", i);
	for (int i = 0; i < 24; i++)
		cr_assert_eq(q[i], 0xcd);
	m->free_fcn(p2);
	cr_assert_eq(m->malloc_fcn(100), p2, "the freed newest block is reused");
	unsigned char *big = m->malloc_fcn((size_t)6 << 20);
	cr_assert_not_null(big);
	big[0] = 1;
	big[((size_t)6 << 20) - 1] = 2;
	cr_assert_null(m->realloc_fcn(big, SIZE_MAX), "an impossible size fails");
	cr_assert_eq(big[((size_t)6 << 20) - 1], 2);
	profdb__xml_arena_leave(&a, saved);
	cr_assert_null(a.top);
	cr_assert_null(m->malloc_fcn(8), "left: no memory");
}

/* A table that grows past the huge-page size keeps its elements. */
Test(core, grow_big_keeps)
{
	uint32_t *t = NULL;
	size_t cap = 0;
	for (uint32_t i = 0; i < (3u << 20); i++) {
		cr_assert_eq(profdb__grow((void **)&t, &cap, (size_t)i + 1, sizeof *t), 0);
		t[i] = i * 7u;
	}
	for (uint32_t i = 0; i < (3u << 20); i += 4099)
		cr_assert_eq(t[i], i * 7u);
	free(t);
}

/* A table written in full from 1 MiB sits on whole huge pages: aligned on
 * 2 MiB (so no 4 KiB head shares a huge page with another block), its old
 * bytes copied, released by free(); below 1 MiB it is a plain realloc. */
Test(core, realloc_huge_aligned_and_copied)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	unsigned char *p = malloc(4096);
	cr_assert_not_null(p);
	for (size_t i = 0; i < 4096; i++)
		p[i] = (unsigned char)(i * 13u);
	unsigned char *q = profdb__realloc_huge(p, 4096, (size_t)3 << 20);
	cr_assert_not_null(q);
#ifdef __linux__
	cr_assert_eq((uintptr_t)q % huge, 0, "a block from 1 MiB starts on a huge page");
#endif
	for (size_t i = 0; i < 4096; i++)
		cr_assert_eq(q[i], (unsigned char)(i * 13u));
	q[((size_t)3 << 20) - 1] = 7;   /* the whole length is writable */
	unsigned char *r = profdb__realloc_huge(q, (size_t)3 << 20, 100);   /* small: realloc */
	cr_assert_not_null(r);
	cr_assert_eq(r[99], (unsigned char)(99 * 13u));
	free(r);
	cr_assert_null(profdb__realloc_huge(NULL, 0, SIZE_MAX - 5), "an impossible size fails");
	/* a big table grown by need takes the same blocks */
	unsigned char *b = profdb__realloc_big(NULL, 0, (size_t)5 << 20);
	cr_assert_not_null(b);
#ifdef __linux__
	cr_assert_eq((uintptr_t)b % huge, 0);
#endif
	free(b);
}

/* Work arrays carved from one block: each on a 64-byte boundary, in order,
 * none overlapping the next, empty ones included. */
Test(core, carve_arrays)
{
	uint32_t *a;
	double *b;
	unsigned char *c, *d;
	void **const out[] = {(void **)&a, (void **)&b, (void **)&c, (void **)&d};
	const size_t size[] = {3 * sizeof *a, 1000 * sizeof *b, 0, (size_t)2 << 20};
	void *block = profdb__carve(out, size, 4);
	cr_assert_not_null(block);
	cr_assert_eq((void *)a, block);
	cr_assert_eq((uintptr_t)b % 64, 0);
	cr_assert_eq((uintptr_t)d % 64, 0);
	cr_assert_geq((uintptr_t)b, (uintptr_t)(a + 3));
	cr_assert_geq((uintptr_t)c, (uintptr_t)(b + 1000));
	cr_assert_geq((uintptr_t)d, (uintptr_t)c);
	memset(a, 1, size[0]);
	memset(b, 2, size[1]);
	memset(d, 3, size[3]);
	cr_assert_eq(a[2], 0x01010101u);
	cr_assert_eq(d[0], 3);
	cr_assert_eq(((unsigned char *)b)[size[1] - 1], 2, "the arrays do not overlap");
	free(block);
	const size_t huge[] = {SIZE_MAX - 10, 100};
	cr_assert_null(profdb__carve(out, huge, 2), "sizes that overflow fail");
}
