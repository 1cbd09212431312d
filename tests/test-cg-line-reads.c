/* Callgrind line contexts read one at a time through the common interface
 * (lib/callgrind/lines.c's cache, read without a lock). Several threads
 * walking one handle at once, threads reading the same and different
 * functions of a handle whose cache holds only a few of them (so entries
 * are evicted while others are read), rows read in an order no walk takes,
 * a function larger than the cache, and two handles read in turn by one
 * thread (their contexts have the same ids) must all give the values the
 * text holds, and the cache must stay within its budget; a reader held up
 * between the two halves of a read while its entry's memory takes another
 * entry must drop what it read there; rows of many parts are read in each.
 *
 * CI runs this under ThreadSanitizer too (suite "threads"). Criterion's
 * runner cannot start under TSan, so with -DTHREADS_STANDALONE the same
 * tests are built as a plain program, as tests/test-threads.c is. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <profdb/profdb.h>

#include "callgrind/line-cache-internal.h"   /* profdb__cgc_init */
#include "callgrind/query-internal.h"   /* cg_query.lines */
#include "query/query-internal.h"       /* struct profdb */

#include "standalone-check.h"

/* Does @p s hold the bytes of @p want? */
static int str_is(profdb_str s, const char *want)
{
	return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

enum { F = 40, THREADS = 4, WALKS = 3, READERS = 6, ROUNDS = 40 };

/* The parts of the text make_text() writes (many_parts() sets more). */
static int P = 3;

/* Lines of function f (1 to 5). */
static int n_lines(int f)
{
	return f % 5 + 1;
}

/* Is function f in part p? */
static int present(int f, int p)
{
	return (f + p) % 4 != 0;
}

/* Line j of function f, as the text numbers it. */
static uint64_t line_of(int f, int j)
{
	return (uint64_t)(10 * j + 1 + f);
}

/* Event A's cost of line j of f in part p; event B's is j (none for j 0). */
static uint64_t cost_a(int f, int j, int p, uint64_t scale)
{
	return (uint64_t)(f + 1) * (uint64_t)(j + 1) * (uint64_t)(p + 1) * scale;
}

/* The profile: P parts, F functions f0..f39 with their lines; every cost
 * of event A times @p scale. */
static char *make_text(uint64_t scale, size_t *n)
{
	size_t cap = 64 * 1024 * (size_t)P, k = 0;
	char *t = malloc(cap);
	CHECK(t != NULL);
	for (int p = 0; p < P; p++) {
		k += (size_t)snprintf(t + k, cap - k, p ? "part: %d\n" : "part: %d\nevents: A B\n",
		                      p + 1);
		for (int f = 0; f < F; f++) {
			if (!present(f, p))
				continue;
			k += (size_t)snprintf(t + k, cap - k, "fl=f%d.c\nfn=f%d\n", f, f);
			for (int j = 0; j < n_lines(f); j++)
				k += (size_t)snprintf(t + k, cap - k, "%" PRIu64 " %" PRIu64 " %d\n",
				                      line_of(f, j), cost_a(f, j, p, scale), j);
		}
	}
	CHECK(k < cap);
	*n = k;
	return t;
}

/* The handle of make_text(@p scale); with @p small a max_memory of 8 KiB,
 * so the cache (a quarter of it) holds a few functions, else the default
 * 4 MiB, which all of them fit. */
static profdb *open_scaled(uint64_t scale, int small, char **text)
{
	size_t n;
	*text = make_text(scale, &n);
	profdb_input in = {"callgrind.out", *text, n};
	profdb_options o = {.size = sizeof o, .max_memory = 8192};
	profdb *db = NULL;
	CHECKF(profdb_open_inputs(&db, &in, 1, small ? &o : NULL) == 0, "%s",
	       profdb_error_message());
	return db;
}

/* What the line cache of @p db holds and may hold. */
static void usage(const profdb *db, uint64_t *bytes, uint64_t *budget, uint64_t *entries)
{
	profdb__cgl_usage(((const cg_query *)db->impl)->lines, bytes, budget, entries);
}

/* A walk over one handle's tree, a step at a time. */
typedef struct walk {
	const profdb *db;
	uint64_t scale;
	profdb_context c;
	int f;            /* the function of the lines being read, -1 none */
	int done;
	long lines, bad;  /* lines checked; mismatches and errors */
} walk;

static void walk_begin(walk *w, const profdb *db, uint64_t scale)
{
	uint32_t root;
	memset(w, 0, sizeof *w);
	w->db = db;
	w->scale = scale;
	w->f = -1;
	if (profdb_context_root(db, &root) < 0 || profdb_context_get(db, root, &w->c) < 0)
		w->bad++, w->done = 1;
}

/* One value of line context @p id against the text's. */
static void check_value(walk *w, uint32_t id, uint32_t p, uint32_t m, uint64_t want)
{
	profdb_number v;
	int r = profdb_exclusive(w->db, p, id, m, &v);
	uint64_t got = r > 0 ? v.as.u64 : 0;
	if (r < 0 || got != want)
		w->bad++;
	r = profdb_value(w->db, p, id, m, &v);
	got = r > 0 ? v.as.u64 : 0;
	if (r < 0 || got != want)
		w->bad++;
}

/* The line context w->c against the text. */
static void check_line(walk *w)
{
	const profdb_context *c = &w->c;
	int f = w->f, j = f < 0 ? -1 : ((int)c->line - 1 - f) / 10;
	if (f < 0 || j < 0 || j >= n_lines(f) || c->line != line_of(f, j)) {
		w->bad++;
		return;
	}
	char file[16];
	snprintf(file, sizeof file, "f%d.c", f);
	if (!str_is(c->file, file))
		w->bad++;
	for (uint32_t p = 0; p < (uint32_t)P; p++) {
		int in = present(f, (int)p);
		check_value(w, c->id, p, 0, in ? cost_a(f, j, (int)p, w->scale) : 0);
		check_value(w, c->id, p, 1, in ? (uint64_t)j : 0);
	}
	w->lines++;
}

/* The next node in pre-order, checked: 1, or 0 at the end. */
static int walk_step(walk *w)
{
	profdb_context *c = &w->c;
	uint32_t next = c->first_child;
	while (!w->done && next == PROFDB_NONE) {
		if (c->next_sibling != PROFDB_NONE)
			next = c->next_sibling;
		else if (c->parent == PROFDB_NONE || profdb_context_get(w->db, c->parent, c) < 0)
			w->done = 1;
	}
	if (w->done)
		return 0;
	if (profdb_context_get(w->db, next, c) < 0) {
		w->bad++;
		w->done = 1;
		return 0;
	}
	if (c->type == PROFDB_CTX_FUNCTION)
		w->f = c->function.len > 1 ? atoi(c->function.ptr + 1) : -1;
	else if (c->type == PROFDB_CTX_LINE)
		check_line(w);
	else
		w->bad++;
	return 1;
}

static long expected_lines(void)
{
	long n = 0;
	for (int f = 0; f < F; f++)
		n += n_lines(f);
	return n;
}

/* Every line context of @p db: its id, its function's context and the
 * function's number in the text. */
typedef struct line_ids {
	uint32_t id[F * 5], fn[F * 5];
	int f[F * 5];
	size_t n;
} line_ids;

static void collect(const profdb *db, line_ids *out)
{
	walk w;
	walk_begin(&w, db, 1);
	out->n = 0;
	while (walk_step(&w))
		if (w.c.type == PROFDB_CTX_LINE) {
			CHECK(out->n < F * 5);
			out->fn[out->n] = w.c.parent;
			out->f[out->n] = w.f;
			out->id[out->n++] = w.c.id;
		}
	CHECKF(w.bad == 0, "%ld wrong answers", w.bad);
	CHECKF((long)out->n == expected_lines(), "%zu lines", out->n);
}

/* ---- threads ----------------------------------------------------------------- */

typedef struct job {
	const profdb *db;
	const line_ids *ids;
	pthread_barrier_t *start;
	int which;        /* readers: the thread's number */
	long lines, bad;
} job;

static void *walker(void *arg)
{
	job *j = arg;
	pthread_barrier_wait(j->start);
	for (int i = 0; i < WALKS; i++) {
		walk w;
		walk_begin(&w, j->db, 1);
		while (walk_step(&w))
			;
		j->lines += w.lines;
		j->bad += w.bad;
	}
	return NULL;
}

static int t_threads_walk_one_handle(void)
{
	for (int small = 1; small >= 0; small--) {
		char *text;
		profdb *db = open_scaled(1, small, &text);
		pthread_barrier_t start;
		pthread_t th[THREADS];
		job jobs[THREADS];
		CHECK(pthread_barrier_init(&start, NULL, THREADS) == 0);
		for (int i = 0; i < THREADS; i++) {
			jobs[i] = (job){db, NULL, &start, i, 0, 0};
			CHECK(pthread_create(&th[i], NULL, walker, &jobs[i]) == 0);
		}
		for (int i = 0; i < THREADS; i++) {
			CHECK(pthread_join(th[i], NULL) == 0);
			CHECKF(jobs[i].bad == 0, "small %d, thread %d: %ld wrong answers", small, i,
			       jobs[i].bad);
			CHECKF(jobs[i].lines == WALKS * expected_lines(), "thread %d: %ld lines", i,
			       jobs[i].lines);
		}
		pthread_barrier_destroy(&start);
		profdb_close(db);
		free(text);
	}
	return 0;
}

/* Line @p i of the list, read and checked. */
static void read_line(job *j, size_t i)
{
	walk w;
	memset(&w, 0, sizeof w);
	w.db = j->db;
	w.scale = 1;
	w.f = j->ids->f[i];
	if (profdb_context_get(j->db, j->ids->id[i], &w.c) < 0 || w.c.parent != j->ids->fn[i]) {
		j->bad++;
		return;
	}
	check_line(&w);
	j->lines += w.lines;
	j->bad += w.bad;
}

/* Readers 0 and 1 read the lines of the same three functions over and
 * over; the others go through all lines, each in an order of its own
 * (forwards, backwards, with strides), so most reads find their function
 * evicted by another thread and entries go while others are read. */
static void *reader(void *arg)
{
	job *j = arg;
	size_t n = j->ids->n;
	pthread_barrier_wait(j->start);
	for (int round = 0; round < ROUNDS; round++) {
		if (j->which < 2) {
			for (size_t i = 0; i < n; i++)
				if (j->ids->f[i] < 3)
					read_line(j, i);
			continue;
		}
		size_t step = (size_t)(2 * j->which - 3);   /* 1, 3, 5, 7: prime to n = 120 */
		for (size_t k = 0; k < n; k++) {
			size_t i = k * step % n;
			read_line(j, j->which == 2 ? n - 1 - i : i);
		}
	}
	return NULL;
}

static int t_threads_read_while_evicting(void)
{
	char *text;
	profdb *db = open_scaled(1, 1, &text);
	line_ids ids;
	collect(db, &ids);
	pthread_barrier_t start;
	pthread_t th[READERS];
	job jobs[READERS];
	CHECK(pthread_barrier_init(&start, NULL, READERS) == 0);
	for (int i = 0; i < READERS; i++) {
		jobs[i] = (job){db, &ids, &start, i, 0, 0};
		CHECK(pthread_create(&th[i], NULL, reader, &jobs[i]) == 0);
	}
	long hot = 0;
	for (int f = 0; f < 3; f++)
		hot += n_lines(f);
	for (int i = 0; i < READERS; i++) {
		CHECK(pthread_join(th[i], NULL) == 0);
		CHECKF(jobs[i].bad == 0, "thread %d: %ld wrong answers", i, jobs[i].bad);
		CHECKF(jobs[i].lines == ROUNDS * (i < 2 ? hot : (long)ids.n), "thread %d: %ld lines",
		       i, jobs[i].lines);
	}
	pthread_barrier_destroy(&start);
	/* The budget holds a few functions only; once no thread reads, the
	 * next function added leaves the cache within it. */
	uint64_t bytes, budget, entries;
	usage(db, &bytes, &budget, &entries);
	CHECKF(budget == 2048, "budget %" PRIu64, budget);
	job last = {db, &ids, NULL, 0, 0, 0};
	for (size_t i = 0; i < ids.n; i++)
		read_line(&last, i);
	CHECKF(last.bad == 0, "%ld wrong answers", last.bad);
	usage(db, &bytes, &budget, &entries);
	CHECKF(bytes <= budget && entries >= 2, "%" PRIu64 " bytes in %" PRIu64 " entries",
	       bytes, entries);
	profdb_close(db);
	free(text);
	return 0;
}

/* ---- one thread ------------------------------------------------------------------ */

/* A reader held up between the two halves of its read (it has the slot
 * of f0 in hand) while other functions are read, until f0 is evicted and
 * another function's entry is written where f0's was: read there, the
 * words make a whole row, of the other function, which the check of the
 * slot drops. A read after that decodes f0 again and gets its values. */
static int t_a_rewritten_entry_is_dropped(void)
{
	char *text;
	profdb *db = open_scaled(1, 1, &text);
	line_ids ids;
	collect(db, &ids);   /* the ids are the same in a handle of the same text */
	profdb_close(db);
	free(text);
	db = open_scaled(1, 1, &text);   /* a cache with nothing in it */
	cg_lines *l = ((const cg_query *)db->impl)->lines;
	size_t first = ids.n;
	for (size_t i = 0; i < ids.n && first == ids.n; i++)
		if (ids.f[i] == 0)
			first = i;   /* f0's first line: row 0 */
	CHECK(first < ids.n);
	job j = {db, &ids, NULL, 0, 0, 0};
	read_line(&j, first);
	cgl_snap s0, s;
	cgl_row row;
	CHECK(profdb__cgl_snap(l, ids.fn[first] - 1, &s0) == 1);
	CHECK(profdb__cgl_snap_row(l, &s0, 0, 1, &row) == 1);
	CHECKF(row.line == line_of(0, 0) && row.k == 0, "line %" PRIu64, row.line);
	int other = -1;
	for (int round = 0; round < 4 && other < 0; round++)
		for (size_t i = 0; i < ids.n && other < 0; i++) {
			if (ids.f[i] == 0)
				continue;
			read_line(&j, i);
			if (profdb__cgl_snap(l, ids.fn[i] - 1, &s) == 1 && s.where == s0.where)
				other = ids.f[i];
		}
	CHECKF(other > 0, "no entry was written where f0's was");
	/* unchecked, the words there are the other function's row 0 */
	CHECK(profdb__cgl_snap_row(l, &s0, 0, 0, &row) == 1);
	CHECKF(row.line == line_of(other, 0), "line %" PRIu64 ", f%d", row.line, other);
	CHECK(profdb__cgl_snap_row(l, &s0, 0, 1, &row) == 0);
	read_line(&j, first);
	CHECKF(j.bad == 0, "%ld wrong answers", j.bad);
	profdb_close(db);
	free(text);
	return 0;
}

/* Every line context in descending id order (a function's last row
 * first, which no walk asks for first), then its first row, then the
 * rest: the same positions and values as a walk reads. */
static int t_rows_out_of_order(void)
{
	char *text;
	profdb *db = open_scaled(1, 1, &text);
	line_ids ids;
	collect(db, &ids);
	job j = {db, &ids, NULL, 0, 0, 0};
	for (size_t i = ids.n; i-- > 0;)
		read_line(&j, i);
	CHECKF(j.bad == 0, "%ld wrong answers", j.bad);
	CHECK(j.lines == expected_lines());
	profdb_close(db);
	free(text);
	return 0;
}

/* Two handles whose contexts have the same ids and other values, read in
 * turn by one thread, and a handle opened after another one closed: each
 * answers with its own values. */
static int t_handles_in_turn(void)
{
	char *ta, *tb;
	profdb *a = open_scaled(1, 1, &ta), *b = open_scaled(7, 1, &tb);
	walk wa, wb;
	walk_begin(&wa, a, 1);
	walk_begin(&wb, b, 7);
	int more_a = 1, more_b = 1;
	while (more_a || more_b) {
		more_a = more_a && walk_step(&wa);
		more_b = more_b && walk_step(&wb);
	}
	CHECKF(wa.bad == 0, "first handle: %ld wrong answers", wa.bad);
	CHECKF(wb.bad == 0, "second handle: %ld wrong answers", wb.bad);
	CHECK(wa.lines == expected_lines());
	CHECK(wb.lines == expected_lines());
	profdb_close(a);
	free(ta);
	a = open_scaled(3, 1, &ta);
	walk_begin(&wa, a, 3);
	while (walk_step(&wa))
		;
	CHECKF(wa.bad == 0, "reopened: %ld wrong answers", wa.bad);
	CHECK(wa.lines == expected_lines());
	profdb_close(a);
	profdb_close(b);
	free(ta);
	free(tb);
	return 0;
}

/* A function whose rows take more than the cache's 4 MiB (50 000 rows of
 * 8 events, about 4.6 MB), read after a small one and before it again:
 * it is kept alone while it is read, and goes when the small one comes. */
static int t_a_function_larger_than_the_cache(void)
{
	enum { BIG = 50000 };
	size_t cap = (size_t)BIG * 48 + 4096, k = 0;
	char *t = malloc(cap);
	CHECK(t != NULL);
	k += (size_t)snprintf(t + k, cap - k, "events: A B C D E F G H\nfl=b.c\nfn=big\n");
	for (int i = 0; i < BIG; i++)
		k += (size_t)snprintf(t + k, cap - k, "%d %d 1 2 3 4 5 6 7\n", i + 1, i + 1);
	k += (size_t)snprintf(t + k, cap - k, "fn=small\n1 9 9\n2 9 9\n");
	CHECK(k < cap);
	profdb_input in = {"callgrind.out", t, k};
	profdb *db = NULL;
	CHECKF(profdb_open_inputs(&db, &in, 1, NULL) == 0, "%s", profdb_error_message());
	uint32_t root, fns[2];
	profdb_context c;
	CHECK(profdb_context_root(db, &root) == 0);
	CHECK(profdb_context_get(db, root, &c) == 0);
	fns[0] = c.first_child;   /* big, the heavier, then small */
	CHECK(profdb_context_get(db, fns[0], &c) == 0);
	fns[1] = c.next_sibling;
	uint32_t order[] = {0, 1, 0, 1};
	for (size_t r = 0; r < sizeof order / sizeof order[0]; r++) {
		profdb_context f;
		CHECK(profdb_context_get(db, fns[order[r]], &f) == 0);
		int big = order[r] == 0;
		CHECK(str_is(f.function, big ? "big" : "small"));
		uint64_t n = 0;
		for (uint32_t id = f.first_child; id != PROFDB_NONE; id = c.next_sibling) {
			CHECKF(profdb_context_get(db, id, &c) == 0, "%s", profdb_error_message());
			if (c.parent != f.id)
				break;   /* past the lines: the callees (none here) */
			n++;
			CHECK(c.line == n);
			profdb_number v;
			CHECK(profdb_exclusive(db, 0, id, 0, &v) == 1);
			CHECK(v.as.u64 == (big ? n : 9));
			CHECK(profdb_exclusive(db, 0, id, 7, &v) == (big ? 1 : 0));
		}
		CHECKF(n == (big ? BIG : 2), "round %zu: %" PRIu64 " rows", r, n);
		uint64_t bytes, budget, entries;
		usage(db, &bytes, &budget, &entries);
		CHECKF(entries == 1 && (big ? bytes > budget : bytes <= budget),
		       "round %zu: %" PRIu64 " bytes in %" PRIu64 " entries", r, bytes, entries);
	}
	profdb_close(db);
	free(t);
	return 0;
}

/* A text of many parts, each line's row read in every profile, from the
 * cache and on a miss: a row holds an entry per part that has its
 * function (gaps where it has not), which a read finds by halves
 * (line-cache-internal.h). */
static int t_many_parts(void)
{
	P = 37;
	for (int small = 1; small >= 0; small--) {
		char *text;
		profdb *db = open_scaled(1, small, &text);
		for (int i = 0; i < 2; i++) {
			walk w;
			walk_begin(&w, db, 1);
			while (walk_step(&w))
				;
			CHECKF(w.bad == 0, "small %d, walk %d: %ld wrong answers", small, i, w.bad);
			CHECKF(w.lines == expected_lines(), "walk %d: %ld lines", i, w.lines);
		}
		profdb_close(db);
		free(text);
	}
	P = 3;
	return 0;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

/* A small text's cache takes what all its functions' rows could take, not
 * the whole budget (4 MiB), when its first function is read (with the
 * tree, a few KiB). (Under a sanitizer's allocator, which mallinfo2()
 * does not see, nothing to check.) */
static int t_a_small_text_has_a_small_cache(void)
{
	char *text;
	profdb *db = open_scaled(1, 0, &text);
	line_ids ids;
	collect(db, &ids);
	profdb_close(db);
	free(text);
	db = open_scaled(1, 0, &text);
	job j = {db, &ids, NULL, 0, 0, 0};
	struct mallinfo2 a = mallinfo2();
	read_line(&j, 0);
	struct mallinfo2 b = mallinfo2();
	size_t grew = b.hblkhd + b.uordblks - (a.hblkhd + a.uordblks);
	CHECKF(j.bad == 0, "%ld wrong answers", j.bad);
	CHECKF(grew < (size_t)1 << 20, "%zu bytes for the rows of one function", grew);
	profdb_close(db);
	free(text);
	return 0;
}

/* The cache's slot table (16 bytes a function, made at every open that
 * keeps line contexts) is calloc's zeros, which are the empty slots: the
 * open writes none of it, so its fresh pages stay out of memory until
 * functions are cached. The table is mapped on its own (a fixed mmap
 * threshold, so that no freed heap block is reused and cleared, and no
 * MALLOC_PERTURB_, which has calloc clear it too); mincore()
 * then tells which pages were touched: at most the first, where malloc
 * keeps its header. Under a sanitizer's allocator, which clears what it
 * hands out, only the slots' values are checked. */
static int t_slots_untouched_until_used(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	const int sanitized = 1;
#elif defined(__has_feature)
	const int sanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
	const int sanitized = 0;
#endif
	CHECKF(sanitized || (mallopt(M_MMAP_THRESHOLD, 64 << 10) == 1 && mallopt(M_PERTURB, 0) == 1),
	       "mallopt failed");
	const uint32_t n = 1u << 16;   /* 1 MiB of slots */
	cgl_cache c;
	CHECKF(profdb__cgc_init(&c, n, 4u << 20, 1u << 20, 2) == 0, "out of memory");
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)c.slot + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	uintptr_t hi = ((uintptr_t)(c.slot + n)) & ~((uintptr_t)page - 1);
	size_t pages = (size_t)(hi - lo) / (size_t)page, resident = 0;
	unsigned char *vec = malloc(pages ? pages : 1);
	CHECKF(vec && mincore((void *)lo, hi - lo, vec) == 0, "mincore failed");
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	CHECKF(sanitized || resident <= 1, "%zu of %zu pages of the slot table touched at init",
	       resident, pages);
	for (uint32_t f = 0; f < n; f += 997)
		CHECKF(atomic_load(&c.slot[f].seq) == 0 && atomic_load(&c.slot[f].where) == 0,
		       "slot %" PRIu32 " is not empty", f);
	profdb__cgc_free(&c);
	return 0;
}
#endif

static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{"threads_walk_one_handle", t_threads_walk_one_handle},
	{"threads_read_while_evicting", t_threads_read_while_evicting},
	{"rows_out_of_order", t_rows_out_of_order},
	{"handles_in_turn", t_handles_in_turn},
	{"a_function_larger_than_the_cache", t_a_function_larger_than_the_cache},
	{"a_rewritten_entry_is_dropped", t_a_rewritten_entry_is_dropped},
	{"many_parts", t_many_parts},
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	{"a_small_text_has_a_small_cache", t_a_small_text_has_a_small_cache},
	{"slots_untouched_until_used", t_slots_untouched_until_used},
#endif
};

#ifdef THREADS_STANDALONE
int main(void)
{
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		tests[i].fn();   /* a failed check exits 1 */
		printf("PASS %s\n", tests[i].name);
	}
	return 0;
}
#else
Test(cg_line_reads, threads_walk_one_handle) { tests[0].fn(); }
Test(cg_line_reads, threads_read_while_evicting) { tests[1].fn(); }
Test(cg_line_reads, rows_out_of_order) { tests[2].fn(); }
Test(cg_line_reads, handles_in_turn) { tests[3].fn(); }
Test(cg_line_reads, a_function_larger_than_the_cache) { tests[4].fn(); }
Test(cg_line_reads, a_rewritten_entry_is_dropped) { tests[5].fn(); }
Test(cg_line_reads, many_parts) { tests[6].fn(); }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
Test(cg_line_reads, a_small_text_has_a_small_cache) { tests[7].fn(); }
Test(cg_line_reads, slots_untouched_until_used) { tests[8].fn(); }
#endif
TC_MAIN
#endif
