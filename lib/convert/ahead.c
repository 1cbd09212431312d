/* Work done ahead on a second thread (ahead-internal.h): the jobs 0, 1,
 * ... made by one thread (and, when they are independent, by the calling
 * thread as well) while the calling thread takes their results in order,
 * at most AHEAD_RING apart. Without a thread (none to spare, or one
 * cannot start) each job is made when taken. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead-internal.h"

/* Results made and not yet taken, at most AHEAD_RING of them and about
 * PROFDB__AHEAD_BYTES (one result may pass it): the making thread signals
 * only when the taker waits, and then (jobs made in order) once half of that
 * is ready, or (shared jobs) once the result the taker waits for is;
 * the taker signals only when the making thread waits and half of it is
 * free again (shared jobs: an eighth, since the ring fills only while
 * the taker is off making a long job or off its core, and the making
 * thread would otherwise idle while half the ring is written). Most jobs
 * are small (a function's lines), and a wake-up per job would cost more
 * than making it: the two threads take turns by tens of jobs or more.
 * The spent results, up to as many and as many bytes, wait for the next
 * jobs to be made in their memory. A MiB holds tens of Callgrind texts (16
 * functions each) or the rows of hundreds of functions for pprof: more
 * gains no time and holds more memory (the Callgrind writer on
 * py_full_sc5 at 4 MiB: the same wall time, 1.6 MiB more peak RSS;
 * doc/PERFORMANCE.md). */
#define AHEAD_RING 1024u
#define AHEAD_NONE UINT64_MAX

typedef struct ahead_slot {
	void *result;
	size_t bytes;        /* what the maker said it holds */
	int r;               /* < 0: the job failed */
	int ready;           /* made, not taken */
} ahead_slot;

struct profdb__ahead {
	profdb__ahead_make_fn make;
	profdb__ahead_drop_fn drop;
	void *ctx;
	uint64_t n_jobs;
	int threaded, shared;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t made_cv, free_cv;   /* the awaited result made, half the ring free */
	uint64_t claimed, taken;    /* jobs given to a maker, results handed out */
	uint64_t failed;            /* the first job that failed (AHEAD_NONE: none) */
	size_t bytes;               /* of the results made and not taken */
	int quit, broken;           /* stop; an error was handed out */
	int taker_waits, maker_waits;
	uint64_t resume_below;      /* the making thread waits until this much is free */
	void *spent[AHEAD_RING];    /* results taken and done with, for the next jobs */
	size_t spent_bytes[AHEAD_RING];
	size_t n_spent, spent_total;
	void *held;                 /* the result handed out last, and its bytes */
	size_t held_bytes;
	ahead_slot ring[AHEAD_RING];   /* job j in ring[j % AHEAD_RING] */
	char msg[512];              /* the failed job's message (messages are
	                             * per thread); no job is made after it */
};

/* Can a job be claimed: one is left, none failed, and the ring has room? */
static int claimable(const profdb__ahead *a)
{
	return a->claimed < a->n_jobs && a->failed == AHEAD_NONE &&
	       a->claimed - a->taken < AHEAD_RING && a->bytes < PROFDB__AHEAD_BYTES;
}

/* A spent result for the next job to reuse (NULL: none); under the lock. */
static void *pop_spent(profdb__ahead *a)
{
	if (!a->n_spent)
		return NULL;
	a->n_spent--;
	a->spent_total -= a->spent_bytes[a->n_spent];
	return a->spent[a->n_spent];
}

/* Make job @p j, the lock released meanwhile, and put its result in the
 * ring. */
static void make_one(profdb__ahead *a, unsigned worker, uint64_t j)
{
	void *old = pop_spent(a);
	pthread_mutex_unlock(&a->lock);
	ahead_slot s = {NULL, 0, 0, 1};
	s.r = a->make(a->ctx, worker, j, old, &s.result, &s.bytes);
	pthread_mutex_lock(&a->lock);
	if (s.r < 0 && j < a->failed) {
		a->failed = j;
		snprintf(a->msg, sizeof a->msg, "%s", profdb__message());
	}
	a->ring[j % AHEAD_RING] = s;
	a->bytes += s.bytes;
}

static void *maker(void *arg)
{
	profdb__ahead *a = arg;
	pthread_mutex_lock(&a->lock);
	while (!a->quit && a->claimed < a->n_jobs && a->failed == AHEAD_NONE) {
		if (!claimable(a)) {
			a->maker_waits = 1;
			pthread_cond_wait(&a->free_cv, &a->lock);
			a->maker_waits = 0;
			continue;
		}
		uint64_t j = a->claimed++;
		make_one(a, 1, j);
		if (a->taker_waits &&
		    (a->shared ? j == a->taken
		               : a->claimed - a->taken >= AHEAD_RING / 2 ||
		                 a->bytes >= PROFDB__AHEAD_BYTES / 2 || a->claimed == a->n_jobs ||
		                 a->failed != AHEAD_NONE))
			pthread_cond_signal(&a->made_cv);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int profdb__ahead_start(profdb__ahead **out, uint64_t n_jobs, profdb__ahead_make_fn make,
                        profdb__ahead_drop_fn drop, void *ctx, unsigned spare, unsigned flags)
{
	profdb__ahead *a = calloc(1, sizeof *a);
	*out = NULL;
	if (!a)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	a->make = make;
	a->drop = drop;
	a->ctx = ctx;
	a->n_jobs = n_jobs;
	a->shared = !!(flags & PROFDB__AHEAD_SHARED);
	a->failed = AHEAD_NONE;
	a->resume_below = a->shared ? AHEAD_RING / 8 : AHEAD_RING / 2;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->made_cv, NULL);
	pthread_cond_init(&a->free_cv, NULL);
	a->threaded = n_jobs > 1 && spare > 0 && pthread_create(&a->th, NULL, maker, a) == 0;
	*out = a;
	return 0;
}

int profdb__ahead_threaded(const profdb__ahead *a) { return a->threaded; }

int profdb__ahead_next(profdb__ahead *a, void **result)
{
	*result = NULL;
	void *done = a->held;
	size_t done_bytes = a->held_bytes;
	a->held = NULL;
	if (a->taken == a->n_jobs || a->broken) {
		if (done)
			a->drop(a->ctx, done);
		return profdb__fail(-EINVAL, "profdb: internal error: no job left to take");
	}
	ahead_slot s;
	if (!a->threaded) {
		s.result = NULL;
		s.bytes = 0;
		s.r = a->make(a->ctx, 0, a->taken++, done, &s.result, &s.bytes);
		if (s.r < 0)
			a->broken = 1;   /* (the message is this thread's already) */
	} else {
		pthread_mutex_lock(&a->lock);
		if (done && a->n_spent < AHEAD_RING &&
		    done_bytes <= PROFDB__AHEAD_BYTES - a->spent_total) {
			a->spent_bytes[a->n_spent] = done_bytes;
			a->spent[a->n_spent++] = done;
			a->spent_total += done_bytes;
			done = NULL;
		}
		/* the next result; meanwhile, shared jobs are made here too */
		while (!a->ring[a->taken % AHEAD_RING].ready) {
			if (a->shared && claimable(a)) {
				make_one(a, 0, a->claimed++);
				continue;
			}
			a->taker_waits = 1;
			pthread_cond_wait(&a->made_cv, &a->lock);
			a->taker_waits = 0;
		}
		ahead_slot *t = &a->ring[a->taken++ % AHEAD_RING];
		s = *t;
		t->ready = 0;
		a->bytes -= s.bytes;
		if (a->maker_waits && a->claimed - a->taken <= AHEAD_RING - a->resume_below &&
		    a->bytes <= PROFDB__AHEAD_BYTES / AHEAD_RING * (AHEAD_RING - a->resume_below))
			pthread_cond_signal(&a->free_cv);
		pthread_mutex_unlock(&a->lock);
		if (done)   /* more spent results than are kept */
			a->drop(a->ctx, done);
		if (s.r < 0) {
			a->broken = 1;
			profdb__set_message(a->msg);
		}
	}
	if (s.r < 0)
		return s.r;
	*result = a->held = s.result;
	a->held_bytes = s.bytes;
	return 0;
}

void profdb__ahead_stop(profdb__ahead *a)
{
	if (!a)
		return;
	if (a->threaded) {
		pthread_mutex_lock(&a->lock);
		a->quit = 1;
		pthread_cond_signal(&a->free_cv);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->th, NULL);
		/* what was made and not taken (every job claimed is made by now) */
		for (uint64_t j = a->taken; j < a->claimed; j++)
			if (a->ring[j % AHEAD_RING].r >= 0)
				a->drop(a->ctx, a->ring[j % AHEAD_RING].result);
		for (size_t i = 0; i < a->n_spent; i++)
			a->drop(a->ctx, a->spent[i]);
	}
	if (a->held)
		a->drop(a->ctx, a->held);
	pthread_cond_destroy(&a->made_cv);
	pthread_cond_destroy(&a->free_cv);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
