/* The memory expat works in during one profdb__xml_parse() (xml-arena.c):
 * blocks carved from a few big chunks, all released when the parse ends.
 * expat's memory functions take no context, so the arena of the parse
 * running on a thread is a thread-local: enter before the parser is
 * created, leave after it is freed, on the same thread. */
#ifndef PROFDB_CORE_XML_ARENA_INTERNAL_H
#define PROFDB_CORE_XML_ARENA_INTERNAL_H

#include <stddef.h>

typedef struct profdb__xml_arena {
	struct chunk *top;          /* newest chunk; each links to the one before */
} profdb__xml_arena;

/* The three functions of an XML_Memory_Handling_Suite. */
typedef struct profdb__xml_arena_suite {
	void *(*malloc_fcn)(size_t size);
	void *(*realloc_fcn)(void *ptr, size_t size);
	void (*free_fcn)(void *ptr);
} profdb__xml_arena_suite;
extern const profdb__xml_arena_suite profdb__xml_arena_fns;

/* Make @p a the arena of this thread (*saved: the one it replaces). */
void profdb__xml_arena_enter(profdb__xml_arena *a, profdb__xml_arena **saved);
/* Release everything @p a holds and give the thread back @p saved. */
void profdb__xml_arena_leave(profdb__xml_arena *a, profdb__xml_arena *saved);

#endif
