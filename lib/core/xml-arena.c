/* expat's memory during one parse (xml-arena-internal.h).
 *
 * expat keeps a record of about 144 bytes (two allocations) for every open
 * element and frees them all only when the parser is freed: a 100 000-deep
 * context tree holds 200 000 of them at once. From malloc they cost a page
 * fault per 4 KiB page and stay behind as scattered small blocks. Here they
 * are carved from chunks that grow geometrically (the big ones asking for
 * huge pages, profdb__advise_big) and are released together after the
 * parse. A block's size sits in front of it, for realloc; freeing the
 * newest block takes it back, any other block waits for the release (expat
 * frees little before the end: its buffers grow by doubling). */
#include <stdlib.h>
#include <string.h>

#include "table-internal.h"
#include "xml-arena-internal.h"

enum { HEAD = 16, FIRST_CHUNK = 64 << 10, LAST_CHUNK = 32 << 20 };

typedef struct chunk {
	struct chunk *prev;
	size_t size, used;         /* bytes of data after this header */
	size_t last;               /* offset of the newest block's header, or SIZE_MAX */
	max_align_t pad[];         /* the data, aligned */
} chunk;

/* The arena of the parse running on this thread (NULL: none). */
static _Thread_local profdb__xml_arena *current;

void profdb__xml_arena_enter(profdb__xml_arena *a, profdb__xml_arena **saved)
{
	memset(a, 0, sizeof *a);
	*saved = current;
	current = a;
}

void profdb__xml_arena_leave(profdb__xml_arena *a, profdb__xml_arena *saved)
{
	for (chunk *c = a->top, *p; c; c = p) {
		p = c->prev;
		free(c);
	}
	a->top = NULL;
	current = saved;
}

static unsigned char *data_of(chunk *c)
{
	return (unsigned char *)c->pad;
}

static void *arena_malloc(size_t n)
{
	profdb__xml_arena *a = current;
	if (!a || n > SIZE_MAX / 2)
		return NULL;
	size_t need = HEAD + ((n + HEAD - 1) & ~(size_t)(HEAD - 1));
	chunk *c = a->top;
	if (!c || c->size - c->used < need) {
		size_t size = c ? (c->size < LAST_CHUNK ? 2 * c->size : c->size) : FIRST_CHUNK;
		if (size < need)
			size = need;
		c = malloc(sizeof *c + size);
		if (!c)
			return NULL;
		profdb__advise_big(c, sizeof *c + size);
		c->prev = a->top;
		c->size = size;
		c->used = 0;
		c->last = SIZE_MAX;
		a->top = c;
	}
	unsigned char *h = data_of(c) + c->used;
	memcpy(h, &n, sizeof n);
	c->last = c->used;
	c->used += need;
	return h + HEAD;
}

/* Is @p p the newest block of the newest chunk? */
static int is_newest(const profdb__xml_arena *a, const void *p)
{
	chunk *c = a ? a->top : NULL;
	return c && c->last != SIZE_MAX && (const unsigned char *)p == data_of(c) + c->last + HEAD;
}

static void arena_free(void *p)
{
	profdb__xml_arena *a = current;
	if (p && is_newest(a, p)) {
		a->top->used = a->top->last;
		a->top->last = SIZE_MAX;
	}
}

static void *arena_realloc(void *p, size_t n)
{
	profdb__xml_arena *a = current;
	if (!p)
		return arena_malloc(n);
	size_t old;
	memcpy(&old, (unsigned char *)p - HEAD, sizeof old);
	if (is_newest(a, p) && n <= SIZE_MAX / 2) {
		chunk *c = a->top;
		size_t need = HEAD + ((n + HEAD - 1) & ~(size_t)(HEAD - 1));
		if (c->size - c->last >= need) {   /* grow or shrink in place */
			memcpy((unsigned char *)p - HEAD, &n, sizeof n);
			c->used = c->last + need;
			return p;
		}
	}
	void *q = arena_malloc(n);
	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;   /* the old block waits for the release */
}

const profdb__xml_arena_suite profdb__xml_arena_fns = {arena_malloc, arena_realloc, arena_free};
