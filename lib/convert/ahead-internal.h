/* Work done ahead on a second thread (ahead.c), for the writers whose
 * input is decoded piece by piece in the order they write it: decoding a
 * function's lines costs about as much as writing them, and the readers'
 * handles serve any number of threads, so one thread makes job k + 1 ..
 * while the calling thread writes job k. The results come in job order,
 * so the output does not depend on the thread. Jobs that do not depend
 * on each other (PROFDB__AHEAD_SHARED) are made by the calling thread
 * too, whenever the next result is not ready: both threads make jobs,
 * and the calling thread also writes them. */
#ifndef PROFDB_CONVERT_AHEAD_INTERNAL_H
#define PROFDB_CONVERT_AHEAD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/core-internal.h"

/* Make job @p job: 0, *out and the bytes it holds in *bytes (which bound
 * how far ahead the threads go and how many spent results are kept), or
 * < 0 with a message. @p old: a result taken and done with (NULL: none),
 * now the maker's, to make the job in its memory or to free (a failed
 * job frees it too). @p worker:
 * 0 on the calling thread, 1 on the making thread, for state kept per
 * thread. Without PROFDB__AHEAD_SHARED jobs come in order 0, 1, ..., on
 * one thread; with it, on either thread, in any order. */
typedef int (*profdb__ahead_make_fn)(void *ctx, unsigned worker, uint64_t job, void *old,
                                     void **out, size_t *bytes);
/* Free a result. */
typedef void (*profdb__ahead_drop_fn)(void *ctx, void *result);

typedef struct profdb__ahead profdb__ahead;

/* About how many bytes of results are made and not yet taken (one result
 * may pass it), and as many again of spent ones kept for the next jobs
 * (ahead.c says why this much). */
#define PROFDB__AHEAD_BYTES ((size_t)1 << 20)

/* The jobs do not depend on each other: either thread makes any job. */
#define PROFDB__AHEAD_SHARED 1u

/* Start making jobs 0 .. @p n_jobs - 1. @p ctx is used by the making
 * thread until profdb__ahead_stop(): the caller leaves it alone. @p spare:
 * the threads the conversion may still start (profdb__spare_threads()
 * less those the writer runs itself, such as pprof's compressor); the
 * making thread starts only when one is left, since without a core of its
 * own it only adds switches to the same work. Otherwise each job is made
 * when taken. @p flags: 0 or PROFDB__AHEAD_SHARED. */
int profdb__ahead_start(profdb__ahead **out, uint64_t n_jobs, profdb__ahead_make_fn make,
                        profdb__ahead_drop_fn drop, void *ctx, unsigned spare, unsigned flags);
/* Does a thread make the jobs? Without one, a caller that can take a
 * job's work directly need not have it collected first. */
int profdb__ahead_threaded(const profdb__ahead *a);
/* The next job's result, alive until the next call or
 * profdb__ahead_stop() (which free it); a job's error (with its message),
 * after which nothing more is taken. */
int profdb__ahead_next(profdb__ahead *a, void **result);
/* Stop the thread and free the results. NULL: nothing. */
void profdb__ahead_stop(profdb__ahead *a);

#endif
