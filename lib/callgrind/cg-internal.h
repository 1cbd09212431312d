/* Callgrind reader: the handle and the helpers shared by parse.c and model.c.
 * Names are views into the text (the mapping, the caller's buffer or the one
 * decompressed copy); only numbers are materialised. */
#ifndef PROFDB_CALLGRIND_CG_INTERNAL_H
#define PROFDB_CALLGRIND_CG_INTERNAL_H

#include "core/core.h"

/* Limits (documented in doc/FORMATS.md and the public header). */
#define CG_MAX_LINE ((uint64_t)1 << 20)        /* bytes per line, '\n' excluded */
#define CG_MAX_EVENTS 256u                     /* distinct event types */
#define CG_MAX_INFLATED ((uint64_t)2 << 30)    /* decompressed gzip size */
#define CG_EMPTY UINT32_MAX

/* A name: a view into the text. Index 0 of the name table is "". */
typedef struct cg_name {
	const char *p;
	uint32_t len;
} cg_name;

/* Open-addressing map from a pair of 64-bit keys to a 32-bit index. */
typedef struct cg_slot {
	uint64_t a, b;
	uint32_t v;  /* CG_EMPTY when free */
} cg_slot;

typedef struct cg_map {
	cg_slot *s;
	size_t mask;  /* capacity - 1 (a power of two), 0 before the first insert */
	size_t n;
} cg_map;

typedef int (*cg_eq_fn)(const void *ctx, uint32_t v);

/* The slot holding (a, b) (for which eq, when not NULL, also holds), or the
 * free slot where it would go. The map must have been reserved. */
cg_slot *profdb__cg_map_find(const cg_map *m, uint64_t a, uint64_t b, cg_eq_fn eq, const void *ctx);
/* Make room for one more entry (may rehash: slot pointers die). */
int profdb__cg_map_reserve(cg_map *m);
void profdb__cg_map_free(cg_map *m);

typedef struct cg_fn {
	uint32_t ob, fl, fn;     /* name indices */
	uint32_t line_first;     /* into lines[] once sorted */
	uint32_t n_lines;
} cg_fn;

typedef struct cg_call {
	uint32_t caller, callee;
	uint64_t count;
} cg_call;

typedef struct cg_line {
	uint32_t fn, file;
	uint64_t line;
} cg_line;

typedef struct cg_event {
	cg_name name, long_name;
} cg_event;

struct profdb_cg {
	profdb__input in;
	unsigned char *inflated;     /* decompressed gzip text, or NULL */
	size_t inflated_size;
	char *label;                 /* file name used in messages */
	profdb_options opts;
	const char *text;            /* the text parsed: in.base or inflated */
	uint64_t text_size;

	uint32_t n_events;
	cg_event *events;
	uint32_t n_parts;

	cg_name *names;
	uint32_t n_names, cap_names;
	cg_map name_map, id_map;

	cg_fn *fns;
	uint64_t *self;              /* n_fns x n_events */
	uint32_t n_fns, cap_fns;
	cg_map fn_map;

	cg_call *calls;
	uint64_t *call_incl;         /* n_calls x n_events */
	uint32_t n_calls, cap_calls;
	cg_map call_map;

	cg_line *lines;
	uint64_t *line_cost;         /* n_lines x n_events */
	uint32_t n_lines, cap_lines;
	cg_map line_map;

	uint64_t *totals;            /* computed: sum of self costs */
	uint64_t *file_summary;      /* sum of summary: lines over parts */
	uint64_t *file_totals;       /* sum of totals: lines over parts */
	int has_summary, has_totals;

	profdb__once incl_once;
	uint64_t *incl;              /* n_fns x n_events, built lazily */
};

/* parse.c: parse cg->text into the tables. */
int profdb__cg_parse(profdb_cg *cg);
/* model.c: after the parse, group line rows by function. */
int profdb__cg_finish(profdb_cg *cg);
/* model.c: the inclusive table (run through incl_once). */
int profdb__cg_build_inclusive(void *arg);

/* Grow *p (elements of @p elem bytes, capacity *cap) to hold @p need. */
int profdb__cg_grow(void **p, uint32_t *cap, uint64_t need, size_t elem);

#endif
