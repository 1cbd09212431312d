/* One function run beside the calling thread (beside-internal.h). */
#include <stdio.h>

#include "beside-internal.h"
#include "core-internal.h"

static void *run(void *arg)
{
	profdb__beside *b = arg;
	b->r = b->fn(b->arg);
	if (b->r < 0)
		snprintf(b->msg, sizeof b->msg, "%s", profdb__message());
	atomic_store_explicit(&b->done, 1, memory_order_release);
	return NULL;
}

int profdb__beside_start(profdb__beside *b, int may_start, int here, int (*fn)(void *),
                         void *arg)
{
	b->fn = fn;
	b->arg = arg;
	b->r = 0;
	b->msg[0] = '\0';
	atomic_init(&b->done, 0);
	b->started = may_start && pthread_create(&b->th, NULL, run, b) == 0;
	if (b->started)
		return 1;
	if (here)
		run(b);
	else
		atomic_store_explicit(&b->done, 1, memory_order_relaxed);
	return 0;
}

int profdb__beside_done(profdb__beside *b)
{
	return atomic_load_explicit(&b->done, memory_order_acquire);
}

int profdb__beside_join(profdb__beside *b)
{
	if (b->started) {
		pthread_join(b->th, NULL);
		b->started = 0;
	}
	return b->r;
}
