/* The line cache (line-cache-internal.h): the decoded rows of the
 * functions read last, at most a budget of bytes, so memory stays bounded
 * whatever the file, and a scan that goes through the functions once per
 * profile decodes each function once, not once per profile, while they
 * fit.
 *
 * Threads: any number read the cache at once, writing nothing shared:
 * a read is a seqlock's. Each function has a slot, a sequence number and
 * where its entry is (0: nowhere); a reader (cgl_cache_read(), inline in
 * the header) reads the number (acquire), the place and the words of the
 * entry there, then the number again, and keeps what it read only if the
 * number is even and unchanged; else the caller decodes the function
 * itself. The words are read and written as relaxed atomics (plain moves
 * on x86; a racing plain access would be undefined), and every index a
 * reader takes from them is checked, so words being rewritten never lead
 * it out of the memory it reads. Entries are
 * added and evicted under one mutex, which only threads that decoded
 * take; every change of a slot makes its number odd, then even again. The
 * entries are words in a ring (a region of budget bytes, or of what all
 * entries of the text could take when that is less, allocated at first
 * use) whose memory is never freed before the handle, only
 * rewritten by later entries, so a reader slow enough to see its entry
 * evicted and the memory rewritten reads live memory, and sees the new
 * number (the fences of slot_set() and profdb__cgc_insert_and_read()).
 * Eviction is oldest first (the ring is a queue). An entry larger than
 * the ring gets a new ring, twice the old one or its size, the old one
 * kept, unused, until close (the budget still bounds the entries' bytes,
 * so the entry is then kept alone). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "line-cache-internal.h"

int profdb__cgc_init(cgl_cache *c, uint32_t n_slots, uint64_t budget, uint64_t first, size_t ne)
{
	memset(c, 0, sizeof *c);
	/* calloc's zero bytes are each slot's 0 (no entry), as they are the
	 * regions' words: gcc and clang give an _Atomic uint64_t the bytes of
	 * its value. No slot is written before a function is cached, so the
	 * open writes none of the table (16 bytes a function), whose fresh
	 * pages calloc leaves untouched. */
	if (!(c->slot = calloc(n_slots ? n_slots : 1, sizeof *c->slot)))
		return -ENOMEM;
	c->ne = ne;
	c->budget = budget;
	c->first_ring = first < budget / sizeof(uint64_t) ? first : budget / sizeof(uint64_t);
	pthread_mutex_init(&c->lock, NULL);
	return 0;
}

void profdb__cgc_free(cgl_cache *c)
{
	for (uint32_t i = 0; i < c->n_reg; i++)
		free(c->reg[i].w);
	free(c->slot);
	pthread_mutex_destroy(&c->lock);
}

void profdb__cgc_usage(cgl_cache *c, uint64_t *bytes, uint64_t *budget, uint64_t *entries)
{
	pthread_mutex_lock(&c->lock);
	*bytes = c->bytes;
	*budget = c->budget;
	*entries = c->n_entries;
	pthread_mutex_unlock(&c->lock);
}

/* Slot @p s's entry changes to @p where (0: none). Lock held. The odd
 * number is stored first, then a release fence: a reader whose words
 * come from anything written after it (the slot, or the entry's memory
 * holding another entry) sees that number or a later one when it reads
 * the number again (the fences synchronize), and drops its answer. */
static void slot_set(cgl_slot *s, uint64_t where)
{
	uint64_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s->where, where, memory_order_release);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* The oldest entry goes. Lock held, an entry there. */
static void evict_oldest(cgl_cache *c)
{
	const cgl_region *r = &c->reg[c->n_reg - 1];
	const _Atomic uint64_t *w = r->w + c->tail;
	uint64_t h = cgl_ld(&w[0]), n = cgl_entry_words((uint32_t)h, h >> 32, c->ne);
	slot_set(&c->slot[cgl_ld(&w[1]) >> 32], 0);
	c->bytes -= n * sizeof *w;
	c->n_entries--;
	c->tail += n;
	if (c->wrapped && c->tail == c->wrap) {
		c->tail = 0;
		c->wrapped = 0;
	}
	if (!c->n_entries) {
		c->head = c->tail = c->wrapped = 0;
		return;
	}
#if defined(__GNUC__) || defined(__clang__)
	/* The next entry to go: its slot, and the header after it (this
	 * one's was fetched the same way), asked for now, so that the next
	 * eviction, mostly a function later, finds them in the cache. */
	w = r->w + c->tail;
	h = cgl_ld(&w[0]);
	__builtin_prefetch(&c->slot[cgl_ld(&w[1]) >> 32]);
	n = c->tail + cgl_entry_words((uint32_t)h, h >> 32, c->ne);
	if (n < r->n)
		__builtin_prefetch(r->w + n);
#endif
}

/* Room for an entry of @p n words: the oldest entries go while the cache
 * would exceed its budget (all of them for an entry larger than it, which
 * is then kept alone) or the ring has no @p n free words in a row; a ring
 * smaller than the entry is replaced by one twice as large or the
 * entry's size (the old one is kept, unused, until close: a reader may
 * still be reading it). *off: where in the ring. Lock held. */
static int make_room(cgl_cache *c, uint64_t n, uint64_t *off)
{
	while (c->n_entries && c->bytes + n * sizeof(uint64_t) > c->budget)
		evict_oldest(c);
	cgl_region *r = c->n_reg ? &c->reg[c->n_reg - 1] : NULL;
	if (!r || r->n < n) {
		while (c->n_entries)
			evict_oldest(c);
		uint64_t size = r ? 2 * r->n : c->first_ring;
		if (size < n)
			size = n;
		if (c->n_reg == CGL_REGIONS || size > CGL_WHERE_OFF || size > SIZE_MAX / sizeof(uint64_t))
			return -ENOMEM;
		r = &c->reg[c->n_reg];
		/* zeros: a torn read may look at words no entry wrote yet */
		if (!(r->w = calloc((size_t)size, sizeof *r->w)))
			return -ENOMEM;
		r->n = size;
		c->n_reg++;
		c->head = c->tail = c->wrapped = 0;
	}
	for (;;) {
		if (!c->wrapped) {   /* live: [tail, head) */
			if (r->n - c->head >= n)
				break;
			c->wrap = c->head;   /* the rest of the ring stays unused this turn */
			c->head = 0;
			c->wrapped = 1;
		}
		if (c->tail - c->head >= n)   /* live: [tail, wrap) and [0, head) */
			break;
		evict_oldest(c);
		if (!c->n_entries)
			break;   /* head 0 in a ring of at least n words */
	}
	*off = c->head;
	c->head += n;
	return 0;
}

int profdb__cgc_insert_and_read(cgl_cache *c, uint32_t fn, uint64_t n, cgl_write_fn write,
                                const void *src, cgl_read *q)
{
	cgl_slot *s = &c->slot[fn];
	uint64_t off, where;
	int got = CGL_READ_TORN;
	pthread_mutex_lock(&c->lock);
	/* "where" changes only under the lock: stable here */
	if (!(where = atomic_load_explicit(&s->where, memory_order_relaxed)) &&
	    make_room(c, n, &off) == 0) {
		_Atomic uint64_t *to = c->reg[c->n_reg - 1].w + off;
		/* the words are rewritten after every eviction before them
		 * (here or under the lock before): a reader that sees one of
		 * them sees the evicted slot's new number (slot_set) */
		atomic_thread_fence(memory_order_release);
		write(src, to);
		where = (uint64_t)c->n_reg << CGL_WHERE_SHIFT | off;
		slot_set(s, where);
		c->bytes += n * sizeof *to;
		c->n_entries++;
	}
	if (where) {   /* not evicted while the lock is held */
		const cgl_region *r = &c->reg[(where >> CGL_WHERE_SHIFT) - 1];
		off = where & CGL_WHERE_OFF;
		got = cgl_read_entry(r->w + off, r->n - off, c->ne, q);
	}
	pthread_mutex_unlock(&c->lock);
	return got;
}
