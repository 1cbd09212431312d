/* Interning: Callgrind's name compression and pprof's string table give
 * each distinct string a small id in order of first use. */
#include <stdlib.h>
#include <string.h>

#include "cost-internal.h"

enum { BLOCK = 64 * 1024 };

int profdb__cv_names_init(profdb__cv_names *t)
{
	memset(t, 0, sizeof *t);
	return profdb__hindex_init(&t->index, 256);
}

void profdb__cv_names_free(profdb__cv_names *t)
{
	for (size_t i = 0; i < t->n_blocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->str);
	profdb__hindex_free(&t->index);
	memset(t, 0, sizeof *t);
}

static uint64_t hash_entry(const void *ctx, uint32_t e)
{
	const profdb__cv_names *t = ctx;
	return profdb__hash_bytes(t->str[e].ptr, t->str[e].len, 0);
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
	uint64_t h = profdb__hash_bytes(s.ptr, s.len, 0);
	uint32_t *slot = profdb__hindex_slot(&t->index, h, eq_entry, t, &s);
	*fresh = 0;
	if (*slot) {
		*id = *slot;
		return 0;
	}
	if (t->n >= UINT32_MAX - 1 || profdb__grow((void **)&t->str, &t->cap, t->n + 1, sizeof *t->str))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (names)");
	const char *p = keep(t, s);
	if (!p)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (names)");
	t->str[t->n] = (profdb_str){p, s.len};
	*slot = (uint32_t)++t->n;
	*id = *slot;
	*fresh = 1;
	return profdb__hindex_added(&t->index, hash_entry, t);
}
