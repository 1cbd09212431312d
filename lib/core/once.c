/* Lazy, thread-safe initialisation: double-checked with an acquire load so
 * the common path (already built) costs one atomic read and no lock. */
#include <stdlib.h>
#include <string.h>

#include "core-internal.h"

void profdb__once_init(profdb__once *o)
{
	atomic_init(&o->done, 0);
	o->result = 0;
	o->message = NULL;
	pthread_mutex_init(&o->lock, NULL);
}

void profdb__once_destroy(profdb__once *o)
{
	pthread_mutex_destroy(&o->lock);
	free(o->message);
	o->message = NULL;
}

static int replay(const profdb__once *o)
{
	if (o->result < 0)
		profdb__set_message(o->message ? o->message : "out of memory");
	return o->result;
}

int profdb__once_run(profdb__once *o, int (*fn)(void *), void *arg)
{
	if (atomic_load_explicit(&o->done, memory_order_acquire))
		return replay(o);
	pthread_mutex_lock(&o->lock);
	if (!atomic_load_explicit(&o->done, memory_order_relaxed)) {
		o->result = fn(arg);
		if (o->result < 0)
			o->message = strdup(profdb__message());
		atomic_store_explicit(&o->done, 1, memory_order_release);
	}
	pthread_mutex_unlock(&o->lock);
	return replay(o);
}

int profdb__once_ok(const profdb__once *o)
{
	return atomic_load_explicit(&o->done, memory_order_acquire) && o->result >= 0;
}
