/* Callgrind line contexts read one at a time (lib/callgrind/query-lines.c):
 * each thread reads a function's rows from a memo of its own once it asked
 * for the function's first row. Several threads walking one handle at
 * once, rows read in an order no walk takes, and two handles read in turn
 * by one thread (their contexts have the same ids) must all give the
 * values the text holds. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "callgrind/query-internal.h"   /* cg_query.memos_on */
#include "query/query-internal.h"       /* struct profdb */

/* Does @p s hold the bytes of @p want? */
static int str_is(profdb_str s, const char *want)
{
	return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

enum { F = 40, P = 3, THREADS = 4, WALKS = 3 };

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
	size_t cap = 64 * 1024, k = 0;
	char *t = malloc(cap);
	cr_assert_not_null(t);
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
	cr_assert_lt(k, cap);
	*n = k;
	return t;
}

/* The memos serve a handle whose functions' rows do not all fit the
 * shared cache: a quarter of max_memory here, 2 KiB (@p memos), else the
 * default 4 MiB, which these few functions fit. */
static profdb *open_scaled(uint64_t scale, int memos, char **text)
{
	size_t n;
	*text = make_text(scale, &n);
	profdb_input in = {"callgrind.out", *text, n};
	profdb_options o = {.size = sizeof o, .max_memory = 8192};
	profdb *db = NULL;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, memos ? &o : NULL), 0, "%s",
	             profdb_error_message());
	return db;
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
	if (c->file.len != strlen(file) || memcmp(c->file.ptr, file, c->file.len) != 0)
		w->bad++;
	for (uint32_t p = 0; p < P; p++) {
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

typedef struct job {
	const profdb *db;
	pthread_barrier_t *start;
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

Test(cg_line_reads, threads_walk_one_handle)
{
	for (int memos = 1; memos >= 0; memos--) {
		char *text;
		profdb *db = open_scaled(1, memos, &text);
		pthread_barrier_t start;
		pthread_t th[THREADS];
		job jobs[THREADS];
		cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
		for (int i = 0; i < THREADS; i++) {
			jobs[i] = (job){db, &start, 0, 0};
			cr_assert_eq(pthread_create(&th[i], NULL, walker, &jobs[i]), 0);
		}
		for (int i = 0; i < THREADS; i++) {
			cr_assert_eq(pthread_join(th[i], NULL), 0);
			cr_assert_eq(jobs[i].bad, 0, "memos %d, thread %d: %ld wrong answers", memos, i,
			             jobs[i].bad);
			cr_assert_eq(jobs[i].lines, WALKS * expected_lines(), "thread %d: %ld lines", i,
			             jobs[i].lines);
		}
		pthread_barrier_destroy(&start);
		profdb_close(db);
		free(text);
	}
}

/* Every line context in descending id order (a function's last row
 * first, which no walk asks for first), then its first row, then the
 * rest: the same positions and values as a walk reads. */
Test(cg_line_reads, rows_out_of_order)
{
	char *text;
	profdb *db = open_scaled(1, 1, &text);
	walk w;
	walk_begin(&w, db, 1);
	uint32_t ids[F * 5], fns[F * 5];
	size_t n = 0;
	while (walk_step(&w))
		if (w.c.type == PROFDB_CTX_LINE) {
			cr_assert_lt(n, sizeof ids / sizeof ids[0]);
			fns[n] = w.c.parent;
			ids[n++] = w.c.id;
		}
	cr_assert_eq(w.bad, 0);
	cr_assert_eq((long)n, expected_lines());
	long lines = w.lines;
	for (size_t i = n; i-- > 0;) {
		profdb_context fn;
		cr_assert_eq(profdb_context_get(db, fns[i], &fn), 0);
		w.f = atoi(fn.function.ptr + 1);
		cr_assert_eq(profdb_context_get(db, ids[i], &w.c), 0, "%s", profdb_error_message());
		cr_assert_eq(w.c.parent, fns[i]);
		check_line(&w);
	}
	cr_assert_eq(w.bad, 0, "%ld wrong answers", w.bad);
	cr_assert_eq(w.lines, 2 * lines);
	profdb_close(db);
	free(text);
}

/* Two handles whose contexts have the same ids and other values, read in
 * turn by one thread, and a handle opened after another one closed: each
 * answers with its own values. */
Test(cg_line_reads, handles_in_turn)
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
	cr_assert_eq(wa.bad, 0, "first handle: %ld wrong answers", wa.bad);
	cr_assert_eq(wb.bad, 0, "second handle: %ld wrong answers", wb.bad);
	cr_assert_eq(wa.lines, expected_lines());
	cr_assert_eq(wb.lines, expected_lines());
	profdb_close(a);
	free(ta);
	a = open_scaled(3, 1, &ta);
	walk_begin(&wa, a, 3);
	while (walk_step(&wa))
		;
	cr_assert_eq(wa.bad, 0, "reopened: %ld wrong answers", wa.bad);
	cr_assert_eq(wa.lines, expected_lines());
	profdb_close(a);
	profdb_close(b);
	free(ta);
	free(tb);
}

static int memos_on(const profdb *db)
{
	return ((const cg_query *)db->impl)->memos_on;
}

/* Memos serve a handle whose rows cannot all stay in lines.c's cache
 * (a walk per profile then finds every function there), and no handle
 * without line contexts. */
Test(cg_line_reads, memos_only_where_the_cache_cannot_hold_the_rows)
{
	char *t1, *t2;
	profdb *fits = open_scaled(1, 0, &t1), *small = open_scaled(1, 1, &t2);
	cr_expect_eq(memos_on(fits), 0, "a few functions fit the cache's 4 MiB");
	cr_expect_eq(memos_on(small), 1, "nothing fits a cache of 2 KiB");
	profdb_close(fits);
	profdb_close(small);
	free(t2);
	size_t n = strlen(t1);
	profdb_input in = {"callgrind.out", t1, n};
	profdb_options o = {.size = sizeof o, .max_memory = 8192,
	                    .flags = PROFDB_OPEN_FUNCTIONS_ONLY};
	profdb *fo = NULL;
	cr_assert_eq(profdb_open_inputs(&fo, &in, 1, &o), 0, "%s", profdb_error_message());
	cr_expect_eq(memos_on(fo), 0, "no line contexts");
	profdb_close(fo);
	free(t1);
}

/* A function whose rows take more than a memo keeps (50 000 rows of 8
 * events, about 4.6 MB), read after a small one and before it again: the
 * memo gives its room back and reads each function whole. */
Test(cg_line_reads, a_function_larger_than_a_memo_keeps)
{
	enum { BIG = 50000 };
	size_t cap = (size_t)BIG * 48 + 4096, k = 0;
	char *t = malloc(cap);
	cr_assert_not_null(t);
	k += (size_t)snprintf(t + k, cap - k, "events: A B C D E F G H\nfl=b.c\nfn=big\n");
	for (int i = 0; i < BIG; i++)
		k += (size_t)snprintf(t + k, cap - k, "%d %d 1 2 3 4 5 6 7\n", i + 1, i + 1);
	k += (size_t)snprintf(t + k, cap - k, "fn=small\n1 9 9\n2 9 9\n");
	cr_assert_lt(k, cap);
	profdb_input in = {"callgrind.out", t, k};
	profdb *db = NULL;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(memos_on(db), 1, "50 000 rows do not fit 4 MiB");
	uint32_t root, fns[2];
	profdb_context c;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	cr_assert_eq(profdb_context_get(db, root, &c), 0);
	fns[0] = c.first_child;   /* big, the heavier, then small */
	cr_assert_eq(profdb_context_get(db, fns[0], &c), 0);
	fns[1] = c.next_sibling;
	uint32_t order[] = {0, 1, 0, 1};
	for (size_t r = 0; r < sizeof order / sizeof order[0]; r++) {
		profdb_context f;
		cr_assert_eq(profdb_context_get(db, fns[order[r]], &f), 0);
		int big = order[r] == 0;
		cr_assert(str_is(f.function, big ? "big" : "small"));
		uint64_t n = 0;
		for (uint32_t id = f.first_child; id != PROFDB_NONE; id = c.next_sibling) {
			cr_assert_eq(profdb_context_get(db, id, &c), 0, "%s", profdb_error_message());
			if (c.parent != f.id)
				break;   /* past the lines: the callees (none here) */
			n++;
			cr_assert_eq(c.line, n);
			profdb_number v;
			cr_assert_eq(profdb_exclusive(db, 0, id, 0, &v), 1);
			cr_assert_eq(v.as.u64, big ? n : 9);
			cr_assert_eq(profdb_exclusive(db, 0, id, 7, &v), big ? 1 : 0);
		}
		cr_assert_eq(n, big ? BIG : 2, "round %zu: %" PRIu64 " rows", r, n);
	}
	profdb_close(db);
	free(t);
}

TC_MAIN
