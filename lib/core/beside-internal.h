/* One function run beside the calling thread: on a thread of its own when
 * the caller may start one, else on the calling thread or not at all
 * (beside.c). For one-shot work that overlaps the caller's (mapping in
 * memory the caller fills next, a walk whose result the caller takes when
 * it is ready); not for a worker the caller feeds. */
#ifndef PROFDB_CORE_BESIDE_H
#define PROFDB_CORE_BESIDE_H

#include <pthread.h>
#include <stdatomic.h>

typedef struct profdb__beside {
	int (*fn)(void *);
	void *arg;
	int r;                 /* fn's result, once done */
	char msg[512];         /* the message fn left when r < 0 (messages are
	                          per thread) */
	atomic_int done;       /* r and what fn wrote are set (release, acquire) */
	int started;           /* fn runs on th */
	pthread_t th;
} profdb__beside;

/* Start fn(@p arg): on a thread of its own when @p may_start and one
 * starts (1), else here and now when @p here (0 once it returned), else
 * not at all (0; profdb__beside_join() then gives 0). */
int profdb__beside_start(profdb__beside *b, int may_start, int here, int (*fn)(void *),
                         void *arg);
/* Has fn returned (or never been run)? Never waits; what fn wrote may be
 * read once it says 1. */
int profdb__beside_done(profdb__beside *b);
/* Wait for fn (joining its thread): its result, 0 when it did not run;
 * b->msg holds its message when the result is < 0. Once only. */
int profdb__beside_join(profdb__beside *b);

#endif
