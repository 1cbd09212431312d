/* Jobs made ahead (lib/convert/ahead.c): results come in job order
 * whichever thread made them; jobs made in order stay in order on one
 * thread; shared jobs are made by the calling thread too; spent results
 * come back to the makers as the memory of the next jobs; a failed job's
 * error and message come back at its place, and every result is freed
 * once, whether taken, spent or left in the ring. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "convert/ahead-internal.h"

typedef struct result {
	uint64_t job;
	unsigned worker;
	size_t bytes;
} result;

typedef struct jobs {
	pthread_mutex_t lock;
	uint64_t fail_at;          /* the job that fails (UINT64_MAX: none) */
	uint64_t next_in_order;    /* without sharing: the job expected next */
	int out_of_order;
	unsigned long made[2];     /* per worker */
	unsigned long allocs, frees, reused;
} jobs;

static void count(jobs *x, unsigned long *c)
{
	pthread_mutex_lock(&x->lock);
	++*c;
	pthread_mutex_unlock(&x->lock);
}

static int make(void *ctx, unsigned worker, uint64_t job, void *old, void **out, size_t *bytes)
{
	jobs *x = ctx;
	cr_assert_lt(worker, 2u);
	pthread_mutex_lock(&x->lock);
	x->made[worker]++;
	x->out_of_order |= job != x->next_in_order;
	x->next_in_order = job + 1;
	pthread_mutex_unlock(&x->lock);
	result *r = old;
	if (r) {
		count(x, &x->reused);
	} else {
		cr_assert((r = malloc(sizeof *r)));
		count(x, &x->allocs);
	}
	if (job == x->fail_at) {
		free(r);
		count(x, &x->frees);
		return profdb__fail(-EBADMSG, "job %llu failed", (unsigned long long)job);
	}
	/* every 97th result a quarter of the byte bound: that bound is met,
	 * not only the ring's, and the spent results it lets keep still
	 * serve the next jobs */
	r->job = job;
	r->worker = worker;
	r->bytes = job % 97 == 0 ? PROFDB__AHEAD_BYTES / 4 : 100;
	*out = r;
	*bytes = r->bytes;
	return 0;
}

static void drop(void *ctx, void *p)
{
	jobs *x = ctx;
	free(p);
	count(x, &x->frees);
}

/* Take @p n_take of @p n jobs (all when n_take is n). */
static void run(jobs *x, uint64_t n, uint64_t n_take, unsigned spare, unsigned flags)
{
	profdb__ahead *a;
	cr_assert_eq(profdb__ahead_start(&a, n, make, drop, x, spare, flags), 0);
	cr_assert_eq(profdb__ahead_threaded(a), spare > 0 && n > 1);
	for (uint64_t j = 0; j < n_take; j++) {
		void *p;
		int r = profdb__ahead_next(a, &p);
		if (j == x->fail_at) {
			cr_assert_eq(r, -EBADMSG);
			char want[64];
			snprintf(want, sizeof want, "job %llu failed", (unsigned long long)j);
			cr_assert_str_eq(profdb_error_message(), want);
			cr_assert_null(p);
			cr_assert_lt(profdb__ahead_next(a, &p), 0, "nothing after an error");
			break;
		}
		cr_assert_eq(r, 0, "job %llu: %s", (unsigned long long)j, profdb_error_message());
		cr_assert_eq(((result *)p)->job, j, "in job order");
	}
	profdb__ahead_stop(a);
	cr_assert_eq(x->allocs, x->frees, "every result freed once");
}

static jobs fresh(void)
{
	jobs x;
	memset(&x, 0, sizeof x);
	pthread_mutex_init(&x.lock, NULL);
	x.fail_at = UINT64_MAX;
	return x;
}

Test(ahead, shared_jobs_come_in_order_from_both_threads)
{
	enum { N = 20000 };
	jobs x = fresh();
	run(&x, N, N, 1, PROFDB__AHEAD_SHARED);
	cr_assert_eq(x.made[0] + x.made[1], N, "each job made once");
	cr_assert_gt(x.reused, 0, "spent results reused");
	cr_assert_lt(x.allocs, N / 4, "%lu results allocated", x.allocs);
}

Test(ahead, ordered_jobs_stay_on_the_making_thread_in_order)
{
	enum { N = 5000 };
	jobs x = fresh();
	run(&x, N, N, 1, 0);
	cr_assert_eq(x.made[1], N, "every job on the making thread");
	cr_assert_eq(x.made[0], 0);
	cr_assert_eq(x.out_of_order, 0);
	cr_assert_gt(x.reused, 0);
}

Test(ahead, without_a_thread_each_job_is_made_when_taken)
{
	enum { N = 3000 };
	for (unsigned flags = 0; flags <= PROFDB__AHEAD_SHARED; flags++) {
		jobs x = fresh();
		run(&x, N, N, 0, flags);
		cr_assert_eq(x.made[0], N);
		cr_assert_eq(x.out_of_order, 0);
		cr_assert_eq(x.allocs, 1, "one result, made again in its memory");
	}
}

Test(ahead, a_failed_job_comes_back_at_its_place)
{
	for (unsigned spare = 0; spare <= 1; spare++)
		for (unsigned flags = 0; flags <= PROFDB__AHEAD_SHARED; flags++) {
			jobs x = fresh();
			x.fail_at = 1500;
			run(&x, 4000, 4000, spare, flags);
			cr_assert_lt(x.made[0] + x.made[1], 4000, "the jobs stop at the failure");
		}
}

Test(ahead, stopped_early_every_result_is_freed)
{
	for (unsigned spare = 0; spare <= 1; spare++)
		for (unsigned flags = 0; flags <= PROFDB__AHEAD_SHARED; flags++)
			for (uint64_t take = 0; take < 3000; take += 999) {
				jobs x = fresh();
				run(&x, 3000, take, spare, flags);
			}
}
