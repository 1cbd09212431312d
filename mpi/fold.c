/* The ensemble's per-rank fold (mpi-internal.h, pm_fold): accumulators
 * under call-path keys in a hash index, sorted once at the end.
 *
 * Why not a sorted list merged run by run: each merge copies the whole
 * list, so r runs of p paths cost O(r × total paths) — quadratic in the
 * runs when their paths differ. Here each value costs one hash look-up
 * (O(key bytes)) and the sort O(u log u) key comparisons for u distinct
 * (path, metric) keys. Each accumulator still receives its values in run
 * order through profdb_stats_acc_add, so every bit equals the merge's.
 *
 * lib/core's hash index (table-internal.h) is not exported by libprofdb,
 * so this file keeps its own: open addressing, linear probing, at most
 * half full, each entry's hash kept for growing and for a cheap compare. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-internal.h"

typedef struct pm_fold_entry {
	uint64_t hash;
	size_t off;                 /* of the key in the arena */
	uint32_t klen;
	profdb_stats_acc acc;
} pm_fold_entry;

/* MurmurHash3's finaliser, as lib/core's profdb__mix64. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

/* Eight bytes at a time: keys are a few hundred bytes (every level's
 * names), so byte-wise FNV would dominate the fold. */
static uint64_t key_hash(const unsigned char *p, uint32_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325), w;
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = mix64(h ^ w);
	}
	w = 0;
	memcpy(&w, p + i, n - i);
	return mix64(h ^ w ^ n);
}

void pm_fold_free(pm_fold *f)
{
	free(f->arena);
	free(f->entries);
	free(f->slots);
	memset(f, 0, sizeof *f);
}

static int grow_slots(pm_fold *f)
{
	size_t n = f->mask ? 2 * (f->mask + 1) : 1024;
	if (n > SIZE_MAX / sizeof *f->slots || f->n_entries >= UINT32_MAX - 1)
		return pm_fail(-ENOMEM, "too many call paths for one rank (%zu)", f->n_entries);
	uint32_t *s = calloc(n, sizeof *s);
	if (!s)
		return pm_fail(-ENOMEM, "out of memory for the call-path index (%zu slots)", n);
	for (size_t e = 0; e < f->n_entries; e++) {
		size_t i = (size_t)f->entries[e].hash & (n - 1);
		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)e + 1;
	}
	free(f->slots);
	f->slots = s;
	f->mask = n - 1;
	return 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem, const char *what)
{
	if (need <= *cap)
		return 0;
	size_t cap2 = *cap ? *cap : 1024;
	while (cap2 < need) {
		if (cap2 > SIZE_MAX / 2 / elem)
			return pm_fail(-ENOMEM, "%s too large (%zu)", what, need);
		cap2 *= 2;
	}
	void *q = realloc(*p, cap2 * elem);
	if (!q)
		return pm_fail(-ENOMEM, "out of memory for %s (%zu bytes)", what, cap2 * elem);
	*p = q;
	*cap = cap2;
	return 0;
}

/* The entry of @p key, created empty (count 0, its metric from the key's
 * last 4 bytes, big-endian) when absent. 0 or -ENOMEM. */
static int entry_of(pm_fold *f, const unsigned char *key, uint32_t klen, pm_fold_entry **out)
{
	uint64_t h = key_hash(key, klen);
	int e;
	if (2 * (f->n_entries + 1) > (f->mask ? f->mask + 1 : 0) && (e = grow_slots(f)) < 0)
		return e;
	size_t i = (size_t)h & f->mask;
	for (; f->slots[i]; i = (i + 1) & f->mask) {
		pm_fold_entry *x = &f->entries[f->slots[i] - 1];
		if (x->hash == h && x->klen == klen && memcmp(f->arena + x->off, key, klen) == 0) {
			*out = x;
			return 0;
		}
	}
	if ((e = grow((void **)&f->entries, &f->cap_entries, f->n_entries + 1, sizeof *f->entries,
	              "the call-path accumulators")) < 0 ||
	    (e = grow((void **)&f->arena, &f->cap_arena, f->len_arena + klen, 1,
	              "the call-path keys")) < 0)
		return e;
	pm_fold_entry *x = &f->entries[f->n_entries];
	memset(x, 0, sizeof *x);
	x->hash = h;
	x->off = f->len_arena;
	x->klen = klen;
	if (klen >= 4) {
		const unsigned char *m = key + klen - 4;
		x->acc.metric = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
	}
	memcpy(f->arena + f->len_arena, key, klen);
	f->len_arena += klen;
	f->slots[i] = (uint32_t)f->n_entries + 1;
	f->n_entries++;
	*out = x;
	return 0;
}

int pm_fold_add(pm_fold *f, const void *key, uint32_t klen, double v, uint32_t run)
{
	pm_fold_entry *x;
	int e = entry_of(f, key, klen, &x);
	if (e < 0)
		return e;
	profdb_stats_acc_add(&x->acc, v, run);
	return 0;
}

int pm_fold_start(pm_fold *f, const pm_list *l)
{
	pm_rec r;
	size_t pos = 0;
	while (pm_list_next(l, &pos, &r)) {
		pm_fold_entry *x;
		int e = entry_of(f, r.key, r.klen, &x);
		if (e < 0)
			return e;
		if (x->acc.count)   /* a list has one record per key */
			return pm_fail(-EINVAL, "a partial result holds a call path twice");
		x->acc = r.acc;
	}
	return 0;
}

typedef struct sort_item {
	const unsigned char *key;
	uint32_t klen;
	const profdb_stats_acc *acc;
} sort_item;

static int cmp_item(const void *pa, const void *pb)
{
	const sort_item *a = pa, *b = pb;
	return pm_key_cmp(a->key, a->klen, b->key, b->klen);
}

int pm_fold_finish(pm_fold *f, pm_list *out)
{
	sort_item *items = malloc((f->n_entries + 1) * sizeof *items);
	int e = 0;
	if (!items)
		return pm_fail(-ENOMEM, "out of memory sorting %zu call paths", f->n_entries);
	for (size_t i = 0; i < f->n_entries; i++)
		items[i] = (sort_item){f->arena + f->entries[i].off, f->entries[i].klen,
		                       &f->entries[i].acc};
	qsort(items, f->n_entries, sizeof *items, cmp_item);
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < f->n_entries && e == 0; i++)
		e = pm_list_append(out, items[i].key, items[i].klen, items[i].acc);
	free(items);
	if (e < 0)
		pm_list_free(out);
	return e;
}
