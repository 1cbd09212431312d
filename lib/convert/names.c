/* Interning: Callgrind's name compression and pprof's string table give
 * each distinct string a small id in order of first use. */
#include <stdlib.h>
#include <string.h>

#include "cost-internal.h"

enum { BLOCK = 64 * 1024 };

int profdb__cv_names_init(profdb__cv_names *t)
{
	memset(t, 0, sizeof *t);
	return profdb__tmap_init(&t->index);
}

void profdb__cv_names_free(profdb__cv_names *t)
{
	for (size_t i = 0; i < t->n_blocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->str);
	profdb__tmap_free(&t->index);
	memset(t, 0, sizeof *t);
}

uint64_t profdb__cv_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = (seed ^ n) * UINT64_C(0x9e3779b97f4a7c15), w;
	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 29;
	}
	w = 0;
	if (n)
		memcpy(&w, s, n);
	return profdb__mix64(h ^ w);
}

static int eq_entry(const void *ctx, uint32_t e, const void *key)
{
	const profdb__cv_names *t = ctx;
	const profdb_str *k = key;
	return t->str[e].len == k->len && !memcmp(t->str[e].ptr, k->ptr, k->len);
}

/* A copy of @p s in the arena (names outlive nothing but the table). */
static const char *keep(profdb__cv_names *t, profdb_str s)
{
	if (s.len > t->left) {
		size_t size = s.len > BLOCK ? s.len : BLOCK;
		if (profdb__grow((void **)&t->blocks, &t->cap_blocks, t->n_blocks + 1, sizeof *t->blocks))
			return NULL;
		char *b = malloc(size);
		if (!b)
			return NULL;
		/* filled to its end: its pages mapped in one call, not a fault
		 * each (the pprof string table copies 4 MB of keys on a 69 MB
		 * Callgrind profile) */
		profdb__prefault_write(b, size);
		t->blocks[t->n_blocks++] = b;
		t->next = b;
		t->left = size;
	}
	char *p = t->next;
	if (s.len)
		memcpy(p, s.ptr, s.len);
	t->next += s.len;
	t->left -= s.len;
	return p;
}

int profdb__cv_intern(profdb__cv_names *t, profdb_str s, uint32_t *id, int *fresh)
{
	uint64_t h = profdb__cv_hash(s.ptr, s.len, 0);
	profdb__tslot *slot = profdb__tmap_slot(&t->index, (uint32_t)h, eq_entry, t, &s);
	*fresh = 0;
	if (slot->row1) {
		*id = slot->row1;
		return 0;
	}
	if (t->n >= UINT32_MAX - 1 || profdb__grow((void **)&t->str, &t->cap, t->n + 1, sizeof *t->str))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (names)");
	const char *p = keep(t, s);
	if (!p)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (names)");
	t->str[t->n] = (profdb_str){p, s.len};
	slot->row1 = (uint32_t)++t->n;
	slot->tag = (uint32_t)h;
	*id = slot->row1;
	*fresh = 1;
	return profdb__tmap_added(&t->index);
}
