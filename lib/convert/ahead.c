/* Work done ahead on a second thread (ahead-internal.h): the jobs 0, 1,
 * ... made in order by one thread while the calling thread takes their
 * results in the same order, at most AHEAD_RING apart. Without a thread
 * (none to spare, or one cannot start) each job is made when taken. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead-internal.h"

/* Results made and not yet taken, at most AHEAD_RING of them and about
 * AHEAD_BYTES (one result may pass it): either side signals only when the
 * other waits, and then only once half of that is ready (made for the
 * taker, free for the maker) or the jobs are over. Most jobs are small
 * (a function's lines), and a wake-up per job would cost more than
 * making it: the two threads take turns by the hundred. */
#define AHEAD_RING 256u
#define AHEAD_BYTES ((size_t)4 << 20)

typedef struct ahead_slot {
	void *result;
	size_t bytes;        /* what the maker said it takes */
	int r;               /* < 0: the job failed, msg says why */
} ahead_slot;

struct profdb__ahead {
	profdb__ahead_make_fn make;
	profdb__ahead_drop_fn drop;
	void *ctx;
	uint64_t n_jobs;
	int threaded;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t made_cv, free_cv;   /* a job made, half the ring free */
	uint64_t made, taken;       /* jobs made, results handed out */
	size_t bytes;               /* of the results made and not taken */
	int quit;
	int taker_waits, maker_waits;
	int maker_on;               /* the maker has not ended */
	/* Results the taker is done with, for the maker to free: a result is
	 * freed by the thread that allocated it, where the allocator takes it
	 * back without a lock that the other thread holds. */
	void *spent[AHEAD_RING];
	size_t n_spent;
	void *held;                 /* the result handed out last */
	ahead_slot ring[AHEAD_RING];   /* job j in ring[j % AHEAD_RING] */
	char msg[512];              /* the failed job's message (messages are
	                             * per thread); no job is made after it */
};

static void run(profdb__ahead *a, uint64_t j, ahead_slot *s)
{
	s->result = NULL;
	s->bytes = 0;
	s->r = a->make(a->ctx, j, &s->result, &s->bytes);
	if (s->r < 0)
		snprintf(a->msg, sizeof a->msg, "%s", profdb__message());
}

static void *maker(void *arg)
{
	profdb__ahead *a = arg;
	void *spent[AHEAD_RING];
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->quit && a->made < a->n_jobs &&
		       (a->made - a->taken == AHEAD_RING || a->bytes >= AHEAD_BYTES)) {
			a->maker_waits = 1;
			pthread_cond_wait(&a->free_cv, &a->lock);
		}
		a->maker_waits = 0;
		size_t ns = a->n_spent;
		memcpy(spent, a->spent, ns * sizeof *spent);
		a->n_spent = 0;
		int end = a->quit || a->made == a->n_jobs;
		uint64_t j = a->made;
		pthread_mutex_unlock(&a->lock);
		for (size_t i = 0; i < ns; i++)
			a->drop(a->ctx, spent[i]);
		ahead_slot s;
		if (!end)
			run(a, j, &s);
		pthread_mutex_lock(&a->lock);
		if (end)
			break;
		a->ring[j % AHEAD_RING] = s;
		a->made++;
		a->bytes += s.bytes;
		if (a->taker_waits && (a->made - a->taken >= AHEAD_RING / 2 ||
		                       a->bytes >= AHEAD_BYTES / 2 || a->made == a->n_jobs || s.r < 0))
			pthread_cond_signal(&a->made_cv);
		if (s.r < 0)
			break;   /* the taker stops at it */
	}
	a->maker_on = 0;
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int profdb__ahead_start(profdb__ahead **out, uint64_t n_jobs, profdb__ahead_make_fn make,
                        profdb__ahead_drop_fn drop, void *ctx, unsigned spare)
{
	profdb__ahead *a = calloc(1, sizeof *a);
	*out = NULL;
	if (!a)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	a->make = make;
	a->drop = drop;
	a->ctx = ctx;
	a->n_jobs = n_jobs;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->made_cv, NULL);
	pthread_cond_init(&a->free_cv, NULL);
	a->maker_on = 1;
	a->threaded = n_jobs > 1 && spare > 0 && pthread_create(&a->th, NULL, maker, a) == 0;
	*out = a;
	return 0;
}

int profdb__ahead_threaded(const profdb__ahead *a) { return a->threaded; }

int profdb__ahead_next(profdb__ahead *a, void **result)
{
	*result = NULL;
	void *done = a->held;
	a->held = NULL;
	if (a->taken == a->n_jobs) {
		if (done)
			a->drop(a->ctx, done);
		return profdb__fail(-EINVAL, "profdb: internal error: no job left to take");
	}
	ahead_slot s;
	if (!a->threaded) {
		if (done)
			a->drop(a->ctx, done);
		run(a, a->taken++, &s);
	} else {
		pthread_mutex_lock(&a->lock);
		if (done && a->maker_on && a->n_spent < AHEAD_RING) {
			a->spent[a->n_spent++] = done;
			done = NULL;
		}
		while (a->made == a->taken) {
			a->taker_waits = 1;
			pthread_cond_wait(&a->made_cv, &a->lock);
		}
		a->taker_waits = 0;
		s = a->ring[a->taken++ % AHEAD_RING];
		a->bytes -= s.bytes;
		if (a->maker_waits && a->made - a->taken <= AHEAD_RING / 2 &&
		    a->bytes <= AHEAD_BYTES / 2)
			pthread_cond_signal(&a->free_cv);
		pthread_mutex_unlock(&a->lock);
		if (done)   /* the maker has ended, or has not freed the others yet */
			a->drop(a->ctx, done);
	}
	if (s.r < 0) {
		profdb__set_message(a->msg);
		return s.r;
	}
	*result = a->held = s.result;
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
		/* what was made and not taken, or not yet freed */
		for (uint64_t j = a->taken; j < a->made; j++)
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
