/* arena.c — the memory of the numpy arrays a frame is built from.
 *
 * Building a DataFrame allocates a few dozen arrays of a row count each
 * (the gathered columns, codes, masks, pandas' own copies) and touches
 * every page of them once. Each first touch of a 4 KiB page is a page
 * fault, and on virtual machines a fault costs tens of microseconds: the
 * faults, not the computation, are most of a first frame's time on
 * malloc's pages. While a frame is built, numpy's data allocations of
 * FRAME_ARENA_MIN bytes or more therefore come from chunks mapped on 2 MiB
 * boundaries with MADV_HUGEPAGE, which the kernel backs with one fault per
 * 2 MiB where transparent huge pages are allowed (elsewhere the advice
 * does nothing and the chunks behave as malloc's mappings do).
 *
 * The arena is numpy's data-memory handler (NEP 49), set for the calling
 * context only (numpy keeps it in a context variable). Every array keeps
 * a reference to the handler that allocated it, so the arena lives until
 * the last of its arrays is freed; a chunk is unmapped when its last
 * allocation is freed, and the current chunk is reused from its start
 * when everything in it is freed (the frame's temporaries). Small
 * allocations go to malloc. A lock guards the arena, as numpy may free an
 * array in any thread.
 */
#include "ext.h"

#if defined(NPY_1_22_API_VERSION) && NPY_FEATURE_VERSION >= NPY_1_22_API_VERSION && \
    defined(__linux__)
#define FRAME_ARENA 1
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#endif

#ifdef FRAME_ARENA
enum {
	FRAME_ARENA_MIN = 64 << 10,   /* smaller allocations go to malloc */
	HUGE = 2 << 20,
	CHUNK_MIN = 4 << 20,
	HEADER = 64,                  /* keeps the data 64-byte aligned */
};

typedef struct chunk {
	struct chunk *next;
	char *base;
	size_t size, used, live;
	size_t fresh;   /* bytes from here on were never handed out: zeros */
} chunk;

/* Before every allocation: its size and its chunk (NULL: malloc). */
typedef struct {
	size_t size;
	chunk *from;
} header;

typedef struct {
	pthread_mutex_t lock;
	chunk *chunks, *current;
	PyDataMem_Handler handler;
} arena;

/* A mapping of @p size bytes (a multiple of HUGE) on a HUGE boundary. */
static char *map_aligned(size_t size)
{
	char *p = mmap(NULL, size + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t head = (HUGE - (uintptr_t)p % HUGE) % HUGE;
	if (head)
		munmap(p, head);
	munmap(p + head + size, HUGE - head);
	p += head;
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE);
#endif
	return p;
}

/* Room for @p need bytes in the current chunk or a new one; NULL when
 * no mapping can be made. Called with the lock held. */
static chunk *room(arena *a, size_t need)
{
	chunk *c = a->current;
	if (c && c->size - c->used >= need)
		return c;
	size_t size = need > CHUNK_MIN ? (need + HUGE - 1) / HUGE * HUGE : CHUNK_MIN;
	chunk *n = malloc(sizeof *n);
	char *base = n ? map_aligned(size) : NULL;
	if (!base) {
		free(n);
		return NULL;
	}
	*n = (chunk){a->chunks, base, size, 0, 0, 0};
	a->chunks = n;
	/* a big request leaves the current chunk's free room in use */
	if (!c || size == CHUNK_MIN)
		a->current = n;
	return n;
}

/* @p size bytes; *@p zeroed says whether they are zeros already (pages
 * of a mapping never handed out; a chunk reused from its start holds old
 * bytes, and malloc's memory is not known to be zeros). */
static void *take(arena *a, size_t size, int *zeroed)
{
	size_t need = (size + HEADER + HEADER - 1) / HEADER * HEADER;
	chunk *c = NULL;
	char *p = NULL;
	*zeroed = 0;
	if (size >= FRAME_ARENA_MIN && need > size) {
		pthread_mutex_lock(&a->lock);
		if ((c = room(a, need))) {
			p = c->base + c->used;
			*zeroed = c->used >= c->fresh;
			c->used += need;
			c->live++;
			if (c->used > c->fresh)
				c->fresh = c->used;
		}
		pthread_mutex_unlock(&a->lock);
	}
	if (!p && (size > SIZE_MAX - HEADER || !(p = malloc(size + HEADER))))
		return NULL;
	*(header *)p = (header){size, c};
	return p + HEADER;
}

static void *arena_malloc(void *ctx, size_t size)
{
	int zeroed;
	return take(ctx, size, &zeroed);
}

static void *arena_calloc(void *ctx, size_t nelem, size_t elsize)
{
	if (elsize && nelem > SIZE_MAX / elsize)
		return NULL;
	int zeroed;
	void *p = take(ctx, nelem * elsize, &zeroed);
	/* writing zeros over fresh pages would fault them all in */
	if (p && !zeroed)
		memset(p, 0, nelem * elsize);
	return p;
}

static void arena_free(void *ctx, void *ptr, size_t size)
{
	(void)size;
	if (!ptr)
		return;
	arena *a = ctx;
	header *h = (header *)((char *)ptr - HEADER);
	chunk *c = h->from;
	if (!c) {
		free(h);
		return;
	}
	pthread_mutex_lock(&a->lock);
	if (--c->live == 0) {
		if (c == a->current) {
			c->used = 0;
		} else {
			chunk **at = &a->chunks;
			while (*at != c)
				at = &(*at)->next;
			*at = c->next;
			munmap(c->base, c->size);
			free(c);
		}
	}
	pthread_mutex_unlock(&a->lock);
}

static void *arena_realloc(void *ctx, void *ptr, size_t new_size)
{
	if (!ptr)
		return arena_malloc(ctx, new_size);
	header *h = (header *)((char *)ptr - HEADER);
	if (!h->from) {
		header *n = new_size <= SIZE_MAX - HEADER ? realloc(h, new_size + HEADER) : NULL;
		if (!n)
			return NULL;
		n->size = new_size;
		return (char *)n + HEADER;
	}
	void *p = arena_malloc(ctx, new_size);
	if (!p)
		return NULL;
	memcpy(p, ptr, h->size < new_size ? h->size : new_size);
	arena_free(ctx, ptr, h->size);
	return p;
}

static void arena_destroy(PyObject *capsule)
{
	arena *a = PyCapsule_GetContext(capsule);
	/* every array of the arena is gone: its chunks were unmapped, but the
	 * current one */
	while (a->chunks) {
		chunk *c = a->chunks;
		a->chunks = c->next;
		munmap(c->base, c->size);
		free(c);
	}
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* _frame_memory() -> token: numpy's data allocations in this context come
 * from a new arena until _frame_memory_end(token). */
static PyObject *frame_memory(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	arena *a = calloc(1, sizeof *a);
	if (!a)
		return PyErr_NoMemory();
	pthread_mutex_init(&a->lock, NULL);
	strcpy(a->handler.name, "profdb_frame_arena");
	a->handler.version = 1;
	a->handler.allocator = (PyDataMemAllocator){a, arena_malloc, arena_calloc, arena_realloc,
	                                            arena_free};
	PyObject *cap = PyCapsule_New(&a->handler, "mem_handler", arena_destroy);
	if (!cap || PyCapsule_SetContext(cap, a) < 0) {
		if (cap)
			Py_DECREF(cap);
		else
			free(a);
		return NULL;
	}
	PyObject *old = PyDataMem_SetHandler(cap);
	Py_DECREF(cap);
	return old;
}

/* _frame_memory_end(token): the allocator before _frame_memory() again. */
static PyObject *frame_memory_end(PyObject *self, PyObject *token)
{
	(void)self;
	if (!PyCapsule_IsValid(token, "mem_handler")) {
		PyErr_SetString(PyExc_TypeError, "_frame_memory_end: not a token of _frame_memory()");
		return NULL;
	}
	PyObject *mine = PyDataMem_SetHandler(token);
	if (!mine)
		return NULL;
	Py_DECREF(mine);
	Py_RETURN_NONE;
}
#else
static PyObject *frame_memory(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	Py_RETURN_NONE;
}

static PyObject *frame_memory_end(PyObject *self, PyObject *token)
{
	(void)self;
	(void)token;
	Py_RETURN_NONE;
}
#endif

PyMethodDef pd_arena_methods[] = {
	{"_frame_memory", frame_memory, METH_NOARGS, NULL},
	{"_frame_memory_end", frame_memory_end, METH_O, NULL},
	{NULL, NULL, 0, NULL},
};
