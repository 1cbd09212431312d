/* The parallel Callgrind scan (lib/callgrind/parallel.c) against the
 * sequential one: the same text opened with options.threads = 1 and with 2
 * to 8 threads must give the same result code, the same error message,
 * the same warnings in the same order and, when it opens, the same answers
 * to every query (tests/query-hash.c: tree, names, every value). On
 * generated texts that put every kind of line at the cuts (compressed ids
 * defined before the cut, ob=/fl=/fi= state, cob=/cfi=, calls= at the end
 * of a piece, a new part, totals:, undefined ids, NUL bytes, overflowing
 * sums, sums past 32 bits; an id defined twice; "\r\n" line ends), and on every real sample under callgrind/
 * (big/ is left to tests/cg-parallel-dump.sh). Two threads also open the same text at once,
 * each with four scanning threads: CI runs this program under
 * ThreadSanitizer (suite "threads").
 *
 * A plain program (no Criterion, which cannot start under TSan): exit 0,
 * 1 on a failed check, 77 when there was nothing to check. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profdb-config.h"
#include "common.h"      /* UNDER_ASAN */
#include "profdb/profdb.h"
#include "query-hash.h"
#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif

static int failures;

/* ThreadSanitizer runs the program ten times slower: there it checks the
 * threads with fewer thread counts and fewer inputs. AddressSanitizer runs
 * it five times slower: there every input still goes through the parallel
 * scan, cut in 3 and in 8 pieces (an odd cut and the most pieces), and the
 * other counts are left to the uninstrumented builds. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#define CHECKF(cond, ...)                                                            \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
			        #cond);                                              \
			fprintf(stderr, __VA_ARGS__);                                \
			fputc('\n', stderr);                                         \
			failures++;                                                  \
		}                                                                    \
	} while (0)

/* ---- one open, everything it says ----------------------------------------- */

typedef struct outcome {
	int rc;
	char msg[512];
	uint64_t n_warn, warn_hash;
	int nul_warnings;   /* warnings about a name with a NUL byte */
	uint64_t hash;   /* qh_hash of the handle when it opened */
} outcome;

static void collect(const char *msg, void *ud)
{
	outcome *o = ud;
	o->n_warn++;
	o->nul_warnings += strstr(msg, "NUL byte") != NULL;
	for (const char *p = msg; *p; p++)
		o->warn_hash = (o->warn_hash ^ (unsigned char)*p) * 0x100000001b3ULL;
	o->warn_hash = (o->warn_hash ^ '\n') * 0x100000001b3ULL;
}

static void open_one(const char *name, const void *data, size_t size, uint32_t threads,
                     outcome *o)
{
	memset(o, 0, sizeof *o);
	o->warn_hash = 0xcbf29ce484222325ULL;
	profdb_options opts = PROFDB_OPTIONS_INIT;
	opts.warn = collect;
	opts.warn_userdata = o;
	opts.threads = threads;
	profdb_input in = {name, data, size};
	profdb *db = NULL;
	o->rc = profdb_open_inputs(&db, &in, 1, &opts);
	if (o->rc < 0) {
		snprintf(o->msg, sizeof o->msg, "%s", profdb_error_message());
		return;
	}
	o->hash = qh_hash(db);
	profdb_close(db);
}

/* The thread counts compared with one thread: 2, 3, 5, 8 (ASan: 3, 8;
 * TSan: 3). */
static const uint32_t thread_counts[] = {
#if UNDER_TSAN
	3,
#elif UNDER_ASAN
	3, 8,
#else
	2, 3, 5, 8,
#endif
};

/* Opens @p data with 1 thread and with each of thread_counts; 1 when they
 * all agree. */
static int same_every_way(const char *what, const void *data, size_t size, int *opened)
{
	outcome a, b;
	open_one("callgrind.out", data, size, 1, &a);
	*opened = a.rc >= 0;
	for (size_t i = 0; i < sizeof thread_counts / sizeof *thread_counts; i++) {
		uint32_t t = thread_counts[i];
		open_one("callgrind.out", data, size, t, &b);
		int before = failures;
		CHECKF(a.rc == b.rc, "%s, %u threads: open %d, one thread: %d (%s)", what, t, b.rc, a.rc,
		       b.msg);
		CHECKF(strcmp(a.msg, b.msg) == 0, "%s, %u threads: \"%s\", one thread: \"%s\"", what, t,
		       b.msg, a.msg);
		CHECKF(a.n_warn == b.n_warn && a.warn_hash == b.warn_hash,
		       "%s, %u threads: %" PRIu64 " warnings, one thread: %" PRIu64 " (or other text)",
		       what, t, b.n_warn, a.n_warn);
		CHECKF(a.hash == b.hash, "%s, %u threads: answers differ from one thread's", what, t);
		if (failures != before)
			return 0;
	}
	return 1;
}

/* ---- generated texts ------------------------------------------------------ */

typedef struct text {
	char *p;
	size_t n, cap;
} text;

/* An empty text that put() grows. */
static text text_new(void)
{
	text t = {malloc(4096), 0, 4096};
	if (!t.p)
		abort();
	return t;
}

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
		va_end(ap);
		if (k >= 0 && (size_t)k < t->cap - t->n) {
			t->n += (size_t)k;
			return;
		}
		t->cap = t->cap * 2 + (size_t)k + 64;
		t->p = realloc(t->p, t->cap);
		if (!t->p)
			abort();
	}
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

enum {
	V_PLAIN, V_NEW_PART, V_UNDEFINED_ID, V_NUL, V_OVERFLOW, V_CALLS_AT_END, V_COB_AT_CUT,
	V_NO_FL, V_TRUNCATED, V_RELATIVE_FIRST, V_WIDE, V_COUNT
};

/* A profile of @p n_fn function blocks; @p variant puts one kind of
 * trouble somewhere in the middle. */
static void generate(text *t, uint64_t seed, int n_fn, int variant)
{
	uint64_t s = seed * 2654435761u + 1;
	t->n = 0;
	put(t, "# callgrind format\nversion: 1\ncreator: test-cg-parallel\npositions: instr line\n"
	       "events: Ir Dr\nsummary: 1 1\n\n");
	int defined_fn = 0, defined_fl = 0, defined_ob = 0;
	for (int b = 0; b < n_fn; b++) {
		int mid = b == n_fn / 2;
		if (rng(&s) % 4 == 0 || b == 0) {
			int ob = (int)(rng(&s) % 4);
			if (ob >= defined_ob)
				put(t, "ob=(%d) /lib/obj%d.so\n", ob, ob), defined_ob = ob + 1;
			else
				put(t, "ob=(%d)\n", ob);
		}
		if (!(variant == V_NO_FL && b > 0) && (rng(&s) % 3 == 0 || b == 0)) {
			int fl = (int)(rng(&s) % 6);
			if (fl >= defined_fl)
				put(t, "fl=(%d) src/file%d.c\n", fl, fl), defined_fl = fl + 1;
			else
				put(t, "fl=(%d)\n", fl);
		}
		if (variant == V_NEW_PART && mid)
			put(t, "events: Ir Dr Dw\n");
		if (variant == V_COB_AT_CUT && mid)
			put(t, "cob=(0)\n");
		int fn = (int)(rng(&s) % (uint64_t)(n_fn / 2 + 1));
		if (variant == V_UNDEFINED_ID && mid)
			put(t, "fn=(%d)\n", 100000 + b);
		else if (variant == V_NUL && mid)
			put(t, "fn=name%cwith nul\n", 0);
		else if (fn >= defined_fn)
			put(t, "fn=(%d) func_%d'%d\n", defined_fn, defined_fn, b), defined_fn++;
		else
			put(t, "fn=(%d)\n", fn);
		uint64_t addr = 0x1000 + rng(&s) % 0x10000;
		int line = 1 + (int)(rng(&s) % 500);
		if (variant == V_RELATIVE_FIRST && b % 2)
			put(t, "+%d * %d\n", (int)(rng(&s) % 9) + 1, (int)(rng(&s) % 9));
		else
			put(t, "0x%" PRIx64 " %d %d %d\n", addr, line, (int)(rng(&s) % 100), (int)(rng(&s) % 7));
		int lines = 1 + (int)(rng(&s) % 6);
		for (int l = 0; l < lines; l++) {
			switch (rng(&s) % 7) {
			case 0:
				put(t, "fi=(%d)\n+%d +%d 3\n", (int)(rng(&s) % (uint64_t)(defined_fl ? defined_fl : 1)),
				    (int)(rng(&s) % 9) + 1, (int)(rng(&s) % 9) + 1);
				break;
			case 1:
				put(t, "cfi=(%d)\ncfn=(%d)\ncalls=%d +%d *\n* * %d %d\n",
				    (int)(rng(&s) % (uint64_t)(defined_fl ? defined_fl : 1)),
				    (int)(rng(&s) % (uint64_t)(defined_fn ? defined_fn : 1)), (int)(rng(&s) % 5) + 1,
				    (int)(rng(&s) % 50), (int)(rng(&s) % 1000), (int)(rng(&s) % 10));
				break;
			case 2:
				put(t, "jfi=(%d)\njump=%d +%d *\n* *\n",
				    (int)(rng(&s) % (uint64_t)(defined_fl ? defined_fl : 1)),
				    (int)(rng(&s) % 9) + 1, (int)(rng(&s) % 20) + 1);
				break;
			case 3:
				put(t, "cfn=(%d) callee_%d\ncalls=1 -%d -%d\n* * 7\n", defined_fn, b,
				    (int)(rng(&s) % 3), (int)(rng(&s) % 2));   /* line >= 1: never below 0 */
				defined_fn++;
				break;
			default:
				put(t, "+%d +%d %d %d\n", (int)(rng(&s) % 9) + 1, (int)(rng(&s) % 2),
				    (int)(rng(&s) % 100), (int)(rng(&s) % 9));
			}
		}
		if (variant == V_WIDE)   /* sums past 32 bits, within a piece and across */
			put(t, "* * 3000000000 %d\n", b % 3 ? 1 : 2000000000);
		if (variant == V_OVERFLOW && (b == n_fn / 3 || b == 2 * n_fn / 3))
			put(t, "* * 18446744073709551000\n");
		if (variant == V_CALLS_AT_END && mid)
			put(t, "cfn=(0)\ncalls=1 0\n");
		put(t, "\n");
	}
	if (variant == V_TRUNCATED)
		t->n -= 3;   /* the last line cut short, without its '\n' */
	else if (rng(&s) % 2)
		put(t, "totals: 1 1\n");
}

static int t_generated(void)
{
	text t = text_new();
	int n = 0, opened = 0;
	for (int variant = 0; variant < V_COUNT; variant++)
		for (uint64_t seed = 1; seed <= (UNDER_TSAN ? 2u : 6u); seed++) {
			int n_fn = 5 + (int)(seed * 37 % 200);
			generate(&t, seed + 100 * (uint64_t)variant, n_fn, variant);
			char what[64];
			snprintf(what, sizeof what, "generated variant %d seed %" PRIu64, variant, seed);
			int o;
			same_every_way(what, t.p, t.n, &o);
			n++;
			opened += o;
		}
	printf("generated: %d texts (%d open), each with 1 to 8 threads\n", n, opened);
	CHECKF(opened > 0 && opened < n, "%d of %d generated texts open", opened, n);
	free(t.p);
	return 0;
}

/* A name with a NUL byte in the middle of a text read in pieces warns
 * once, as with one thread (its piece is read again by the sequential
 * scan, which warns; the merge does not look for NUL bytes). */
static int t_nul(void)
{
	text t = text_new();
	generate(&t, 42, 150, V_NUL);
	for (uint32_t threads = 1; threads <= 2; threads++) {
		outcome o;
		open_one("callgrind.out", t.p, t.n, threads, &o);
		CHECKF(o.rc >= 0 && o.nul_warnings == 1, "%u threads: open %d, %d NUL warnings (%s)",
		       threads, o.rc, o.nul_warnings, o.msg);
	}
	free(t.p);
	return 0;
}

/* Text @p t (freed here) opens, and the same with every thread count. */
static void opens_every_way(const char *what, const char *label, text *t)
{
	int o;
	same_every_way(what, t->p, t->n, &o);
	CHECKF(o, "%s: does not open", what);
	printf("%s: a text of %zu bytes, 1 to 8 threads\n", label, t->n);
	free(t->p);
}

/* A file id defined in the first block and defined again, with another
 * name, in a block near the end, in a text without warnings (a warning
 * sends a piece to the sequential scan): the piece with the second
 * definition does not know the first, the merge does (the sequential
 * scan reads that piece again and records the first meaning), and the
 * blocks of the first must still read it as the first name (the line
 * contexts of the answers; lib/callgrind/names.c). */
static int t_redefined(void)
{
	text t = text_new();
	put(&t, "# callgrind format\npositions: line\nevents: Ir\n\nfl=(0) a.c\nfl=(1) b.c\n");
	for (int b = 0; b < 8000; b++) {
		put(&t, "fl=(%d)\nfn=(%d) f%d\n%d 5\nfi=(1)\n+1 3\nfi=(0)\n+2 4\n", b % 2, b, b,
		    1 + b * 7 % 100);
		if (b == 0 || b == 6000)
			put(&t, "fi=(2) %s.c\n+1 1\n", b ? "renamed" : "early");
	}
	opens_every_way("an id defined twice", "redefined", &t);
	return 0;
}

/* Files named literally inside blocks all through the text: each piece
 * records its literal name lines, and the merge appends them in text
 * order with the names the sequential scan gives them. */
static int t_literal(void)
{
	text t = text_new();
	put(&t, "# callgrind format\npositions: line\nevents: Ir\n\nfl=(0) a.c\n");
	for (int b = 0; b < 8000; b++)
		put(&t, "fn=(%d) f%d\n%d 5\nfi=lit%d.h\n+1 3\nfe=(0)\n+2 4\njfi=j%d.c\njump=1 +3\n+1 1\n",
		    b, b, 1 + b * 7 % 100, b % 50, b % 7);
	opens_every_way("literal names in blocks", "literal", &t);
	return 0;
}

/* No ob= line anywhere, and each block's first call goes to the function
 * the block before named at cfn=: a piece that names a callee takes its
 * object from a placeholder that stands for "no object", and whoever reads
 * the next piece (a thread or the merge) must see the object the
 * sequential scan gives it, "" (and never an unnamed one). Over 3 MiB,
 * so that two threads cut it into six pieces or more: the calling thread
 * then reads a piece in place right after merging one (parallel.c). */
static int t_no_object(void)
{
	text t = text_new();
	put(&t, "# callgrind format\npositions: line\nevents: Ir\n\nfl=(0) a.c\n");
	for (int b = 0; b < 80000; b++) {
		put(&t, "fn=(%d) f%d\n%d 5\n", b, b, 1 + b % 90);
		if (b > 0)
			put(&t, "calls=2 4\n3 1\n");
		put(&t, "cfn=(%d) f%d\ncalls=1 3\n2 2\n", b + 1, b + 1);
	}
	opens_every_way("calls without ob=", "no object", &t);
	return 0;
}

/* ---- "\r\n" line ends ------------------------------------------------------ */

/* @p t with a CR put before every '\n' (@p every 1) or before every
 * second one (2), into @p out. */
static void crlf_text(const text *t, int every, text *out)
{
	out->n = 0;
	int k = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->p[i] == '\n' && k++ % every == 0)
			put(out, "\r");
		put(out, "%c", t->p[i]);
	}
}

/* The generated texts with "\r\n" line ends, all or every second one, so
 * that the pieces are cut after a "\r\n" and after a '\n': with every
 * thread count the same answers, and with one thread the answers, the
 * result code and the number of warnings of the text with '\n' line ends
 * (the messages name other offsets). */
static int t_crlf(void)
{
	text t = text_new(), c = text_new();
	int n = 0;
	for (int variant = 0; variant < V_COUNT; variant++)
		for (int every = 1; every <= 2; every++) {
			uint64_t seed = 7 + (uint64_t)every;
			generate(&t, seed + 100 * (uint64_t)variant, 150, variant);
			crlf_text(&t, every, &c);
			char what[64];
			snprintf(what, sizeof what, "CRLF (1 in %d) variant %d", every, variant);
			int o;
			same_every_way(what, c.p, c.n, &o);
			outcome a, b;
			open_one("callgrind.out", t.p, t.n, 1, &a);
			open_one("callgrind.out", c.p, c.n, 1, &b);
			CHECKF(a.rc == b.rc && a.n_warn == b.n_warn && a.hash == b.hash,
			       "%s: open %d, %" PRIu64 " warnings; with '\\n' line ends: %d, %" PRIu64
			       " (or other answers)", what, b.rc, b.n_warn, a.rc, a.n_warn);
			n++;
		}
	printf("CRLF: %d texts, each with 1 to 8 threads\n", n);
	free(t.p);
	free(c.p);
	return 0;
}

/* ---- gzip: inflated while scanned (lib/callgrind/stream.c) ------------------ */

#ifdef PROFDB_HAVE_ZLIB
/* The gzip of [p, p + n) into a malloc'ed buffer. */
static unsigned char *gzip_of(const char *p, size_t n, size_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	unsigned char *g = malloc(cap);
	if (!g)
		abort();
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = g;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*out = cap - z.avail_out;
	deflateEnd(&z);
	return g;
}

static int t_gzip(void)
{
	text t = text_new();
	int n = 0, opened = 0, o;
	static const int variants[] = {V_PLAIN, V_NUL, V_OVERFLOW, V_TRUNCATED, V_NEW_PART};
	for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
		/* large enough to arrive in several slices of the inflater */
		generate(&t, 7 + v, v == 0 ? (UNDER_TSAN ? 10000 : 30000) : (UNDER_TSAN ? 2000 : 8000),
		         variants[v]);
		size_t gn;
		unsigned char *g = gzip_of(t.p, t.n, &gn);
		char what[64];
		snprintf(what, sizeof what, "gzip variant %d (%zu bytes of text)", variants[v], t.n);
		same_every_way(what, g, gn, &o);
		n++, opened += o;
		/* cut short, and damaged in the middle: the inflate error wins */
		snprintf(what, sizeof what, "gzip variant %d cut short", variants[v]);
		same_every_way(what, g, gn / 2, &o);
		n++, opened += o;
		g[gn / 2] ^= 0x55;
		snprintf(what, sizeof what, "gzip variant %d damaged", variants[v]);
		same_every_way(what, g, gn, &o);
		n++, opened += o;
		free(g);
	}
	printf("gzip: %d inputs (%d open), each with 1 to 8 threads\n", n, opened);
	CHECKF(opened > 0 && opened < n, "%d of %d gzip inputs open", opened, n);
	free(t.p);
	return 0;
}
#endif

/* ---- two opens at once ---------------------------------------------------- */

typedef struct racer {
	const text *t;
	pthread_barrier_t *bar;
	outcome o;
} racer;

static void *race_open(void *arg)
{
	racer *r = arg;
	pthread_barrier_wait(r->bar);
	open_one("callgrind.out", r->t->p, r->t->n, 4, &r->o);
	return NULL;
}

typedef struct reader {
	const profdb *db;
	pthread_barrier_t *bar;
	uint64_t hash;
} reader;

static void *read_all(void *arg)
{
	reader *r = arg;
	pthread_barrier_wait(r->bar);
	r->hash = qh_hash(r->db);
	return NULL;
}

/* Two threads read every answer of one handle at once, the first line
 * detail of both included: the chain of each function's blocks
 * (lib/callgrind/first-use.c) is linked by whichever asks first, once. */
static void t_shared_handle(const text *t, uint64_t want)
{
	profdb_options opts = PROFDB_OPTIONS_INIT;
	opts.threads = 2;
	profdb_input in = {"callgrind.out", t->p, t->n};
	profdb *db = NULL;
	CHECKF(profdb_open_inputs(&db, &in, 1, &opts) == 0, "open: %s", profdb_error_message());
	if (!db)
		return;
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	reader r[2] = {{db, &bar, 0}, {db, &bar, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		CHECKF(pthread_create(&th[i], NULL, read_all, &r[i]) == 0, "thread %d", i);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECKF(r[i].hash == want, "reader %d of one handle: answers differ", i);
	}
	pthread_barrier_destroy(&bar);
	profdb_close(db);
}

static int t_concurrent(void)
{
	text t = text_new();
	generate(&t, 4242, 400, V_PLAIN);
	outcome want;
	open_one("callgrind.out", t.p, t.n, 1, &want);
	CHECKF(want.rc == 0, "the text does not open: %s", want.msg);
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	racer r[2] = {{&t, &bar, {0}}, {&t, &bar, {0}}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		CHECKF(pthread_create(&th[i], NULL, race_open, &r[i]) == 0, "thread %d", i);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECKF(r[i].o.rc == 0 && r[i].o.hash == want.hash, "racer %d: open %d", i, r[i].o.rc);
	}
	pthread_barrier_destroy(&bar);
	t_shared_handle(&t, want.hash);
	free(t.p);
	printf("concurrent: 2 opens at once, 4 scanning threads each; 2 readers of one handle\n");
	return 0;
}

/* ---- real samples --------------------------------------------------------- */

static int n_real, n_real_open;

static void real_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc(size > 0 ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		fclose(f);
		return;
	}
	fclose(f);
	int o;
	same_every_way(path, buf, (size_t)size, &o);
	n_real++;
	n_real_open += o;
	free(buf);
}

static void real_dir(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *p;
		struct stat st;
		if (name[0] != '.' && strncmp(name, "README", 6) != 0 && strcmp(name, "big") != 0 &&
		    asprintf(&p, "%s/%s", dir, name) >= 0) {
			if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
				real_dir(p);
			else if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				real_file(p);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
}

static int t_real(void)
{
	const char *root = getenv("PROFDB_SAMPLE_DATA");
	if (!root || !*root)
		root = getenv("PROFDB_SAMPLE_DATA_DEFAULT");
	char *dir;
	struct stat st;
	/* under TSan the valgrind samples only (every writer's shape is in the
	 * generated texts) */
	if (!root || !*root ||
	    asprintf(&dir, "%s/callgrind%s", root, UNDER_TSAN ? "/valgrind" : "") < 0)
		return 77;
	if (stat(dir, &st) != 0) {
		printf("SKIP real samples: %s not found\n", dir);
		free(dir);
		return 77;
	}
	real_dir(dir);
	free(dir);
	printf("real samples: %d files (%d open), each with 1 to 8 threads\n", n_real, n_real_open);
	CHECKF(n_real_open > 0, "no real sample opened");
	return 0;
}

int main(void)
{
	t_generated();
	t_nul();
	t_redefined();
	t_literal();
	t_no_object();
	t_crlf();
#ifdef PROFDB_HAVE_ZLIB
	t_gzip();
#endif
	t_concurrent();
	int real = t_real();
	if (real == 77)
		printf("SKIP real samples (1 of 3 parts)\n");
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
