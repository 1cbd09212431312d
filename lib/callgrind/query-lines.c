/* The line contexts as the Callgrind backend serves them one at a time
 * (query-internal.h, profdb__cgq_line_row and profdb__cgq_line_cost).
 *
 * A walk over the tree (profdb top --by line, the tree views) asks for
 * every row of a function in id order, its context and then its values,
 * one call each. lines.c's shared cache serves any order, under its mutex
 * at every call, and keeps a merged copy of the function. Here each
 * thread keeps the rows of the function it read last, a memo of its own,
 * so that the calls after the first need no lock at all: a row is an
 * index into the memo. A memo is filled when a thread asks for the first
 * row of a function (how a walk enters one), straight from the decoder
 * (profdb__cgl_each, which leaves the shared cache alone); any other row
 * the memo does not hold comes from the shared cache as before.
 *
 * Only when the rows of every function cannot all stay in the shared
 * cache (profdb__cgl_all_fit): a cache smaller than what a walk goes
 * through finds nothing again on the next walk (least recently used
 * first: each function is gone when the walk comes back to it), so it
 * only copies and frees; one that holds everything serves a walk per
 * profile (tests, dump series of hundreds of parts) without decoding a
 * function twice, which memos, dropped at the next function, would do.
 *
 * Threads: the memos belong to the handle, one per thread that read a
 * line through it, found by pthread_self() under the handle's memo lock
 * when a thread first uses the handle (or comes back to it after another
 * handle), and freed at close. A thread-local pointer remembers the memo
 * last used together with the handle's serial number, which no other
 * handle ever has (an address can be reused after a close; a serial
 * cannot), so a stale pointer is never followed. A thread that ends
 * leaves its memo to a later thread with the same id. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"

/* One row: its position and where its entries (profile and costs) start. */
typedef struct memo_row {
	uint64_t line, instr;
	uint32_t src, first;
} memo_row;

struct cgq_memo {
	pthread_t owner;
	uint32_t fn, base, n_rows;   /* rows: ids base .. base + n_rows - 1; fn PROFDB_NONE: none */
	int has_instr;
	memo_row *row;               /* n_rows + 1: the last one's first ends the entries */
	size_t row_cap;
	uint32_t *prof;              /* per entry: its profile, ascending within a row */
	uint64_t *cost;              /* per entry: n_events costs */
	size_t n_ent, prof_cap, cost_cap;   /* entries used, room in prof and cost */
	struct cgq_memo *next;       /* the handle's list */
};

static atomic_uint_fast64_t last_serial;

/* The memo this thread used last and its handle's serial (0: none). */
static _Thread_local struct {
	uint64_t serial;
	cgq_memo *memo;
} mine;

void profdb__cgq_memo_init(cg_query *q)
{
	q->serial = (uint64_t)atomic_fetch_add(&last_serial, 1) + 1;
	q->memos = NULL;
	pthread_mutex_init(&q->memo_lock, NULL);
}

static void drop_arrays(cgq_memo *m)
{
	free(m->row);
	free(m->prof);
	free(m->cost);
	m->row = NULL;
	m->prof = NULL;
	m->cost = NULL;
	m->row_cap = m->prof_cap = m->cost_cap = 0;
}

void profdb__cgq_memo_free(cg_query *q)
{
	while (q->memos) {
		cgq_memo *m = q->memos;
		q->memos = m->next;
		drop_arrays(m);
		free(m);
	}
	pthread_mutex_destroy(&q->memo_lock);
}

/* The calling thread's memo of handle @p q, made on its first use; NULL
 * when out of memory (the shared cache serves then). */
static cgq_memo *memo_of(const cg_query *q)
{
	if (mine.serial == q->serial)
		return mine.memo;
	cg_query *w = (cg_query *)(uintptr_t)q;   /* the memo list: guarded by memo_lock */
	pthread_t self = pthread_self();
	pthread_mutex_lock(&w->memo_lock);
	cgq_memo *m = w->memos;
	while (m && !pthread_equal(m->owner, self))
		m = m->next;
	if (!m && (m = calloc(1, sizeof *m))) {
		m->owner = self;
		m->fn = PROFDB_NONE;
		m->next = w->memos;
		w->memos = m;
	}
	pthread_mutex_unlock(&w->memo_lock);
	if (m) {
		mine.serial = q->serial;
		mine.memo = m;
	}
	return m;
}

/* ---- filling ----------------------------------------------------------------- */

typedef struct fill {
	cgq_memo *m;
	size_t ne;
} fill;

static int keep_row(void *ud, uint32_t id, const cgl_row *row, uint32_t n,
                    const uint32_t *profiles, const uint64_t *costs)
{
	fill *f = ud;
	cgq_memo *m = f->m;
	int r;
	if (m->n_rows == 0) {
		m->base = id;
		m->has_instr = row->has_instr;
	}
	if ((r = profdb__grow((void **)&m->row, &m->row_cap, (size_t)m->n_rows + 2, sizeof *m->row)) < 0 ||
	    (r = profdb__grow((void **)&m->prof, &m->prof_cap, m->n_ent + n, sizeof *m->prof)) < 0 ||
	    (f->ne && (r = profdb__grow((void **)&m->cost, &m->cost_cap, m->n_ent + n,
	                                f->ne * sizeof *m->cost)) < 0))
		return r;
	m->row[m->n_rows++] = (memo_row){row->line, row->instr, row->src, (uint32_t)m->n_ent};
	memcpy(m->prof + m->n_ent, profiles, n * sizeof *profiles);
	if (f->ne)
		memcpy(m->cost + m->n_ent * f->ne, costs, (size_t)n * f->ne * sizeof *costs);
	m->n_ent += n;
	m->row[m->n_rows].first = (uint32_t)m->n_ent;
	return 0;
}

/* A memo keeps its room for the next function up to this many bytes;
 * what one huge function took is given back before the next is read (a
 * fresh memo's state), so a thread holds at most the larger of this and
 * the function it reads. */
#define MEMO_KEEP ((size_t)4 << 20)

static void give_back(cgq_memo *m, size_t ne)
{
	size_t bytes = m->row_cap * sizeof *m->row + m->prof_cap * sizeof *m->prof +
	               m->cost_cap * ne * sizeof *m->cost;
	if (bytes > MEMO_KEEP)
		drop_arrays(m);
}

/* The rows of function @p fn into @p m. */
static int fill_memo(const cg_query *q, cgq_memo *m, uint32_t fn)
{
	fill f = {m, q->cg->n_events};
	give_back(m, f.ne);
	m->fn = PROFDB_NONE;
	m->n_rows = 0;
	m->n_ent = 0;
	int r = profdb__cgl_each(q->lines, fn, keep_row, &f);
	if (r < 0 || m->n_rows == 0) {
		m->n_rows = 0;
		return r;
	}
	m->fn = fn;
	return 0;
}

/* The memo holding line @p id (filled when @p id is the first row of a
 * function), or NULL: the shared cache serves @p id. < 0 in *err for an
 * error (decoding, or no such id). */
static const cgq_memo *memo_at(const cg_query *q, uint32_t id, int *err)
{
	uint32_t fn, k;
	*err = 0;
	if (!q->memos_on)
		return NULL;
	cgq_memo *m = memo_of(q);
	if (!m)
		return NULL;
	if (m->fn != PROFDB_NONE && id - m->base < m->n_rows)
		return m;
	if ((*err = profdb__cgl_owner(q->lines, id, &fn, &k)) < 0 || k != 0 ||
	    profdb__cgl_first_child(q->lines, fn) == PROFDB_NONE)
		return NULL;
	if ((*err = fill_memo(q, m, fn)) < 0 || m->fn == PROFDB_NONE)
		return NULL;
	return m;
}

/* ---- the rows ------------------------------------------------------------------- */

int profdb__cgq_line_row(const cg_query *q, uint32_t id, cgl_row *out)
{
	int r;
	const cgq_memo *m = memo_at(q, id, &r);
	if (r < 0)
		return r;
	if (!m)
		return profdb__cgl_row(q->lines, id, out);
	uint32_t k = id - m->base;
	const memo_row *w = &m->row[k];
	*out = (cgl_row){m->fn, k, w->src, w->line, w->instr, m->has_instr, k + 1 == m->n_rows};
	return 0;
}

int profdb__cgq_line_cost(const cg_query *q, uint32_t id, uint32_t p, uint32_t e,
                          uint64_t *out)
{
	int r;
	const cgq_memo *m = memo_at(q, id, &r);
	if (r < 0)
		return r;
	if (m) {
		const memo_row *w = &m->row[id - m->base];
		size_t ne = q->cg->n_events;
		for (uint32_t i = w->first; i < w[1].first; i++)
			if (m->prof[i] == p) {
				*out = m->cost[i * ne + e];
				return 1;
			}
		*out = 0;
		return 0;
	}
	uint64_t small[16], *c = small;
	uint32_t ne = q->cg->n_events;
	if (ne > 16 && !(c = malloc(ne * sizeof *c)))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	r = profdb__cgl_cost(q->lines, id, p, c);
	*out = r >= 0 ? c[e] : 0;
	if (c != small)
		free(c);
	return r;
}
