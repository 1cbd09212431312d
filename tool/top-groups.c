/* `profdb top`'s rows and groups: see top.h. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "top.h"

/* Byte order (a key may hold a NUL: its length ends it). */
static int cmp_name(const row *x, const row *y)
{
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = n ? memcmp(x->name, y->name, n) : 0;
	return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

int cmp_row(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	if (x->name && y->name)
		return cmp_name(x, y);
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/* ---- sorting ---------------------------------------------------------------
 * Context rows (no name) whose keys are numbers sort by (key descending,
 * context ascending): a strict order (a context is one row), which a
 * radix sort of 16-byte keys gives without a call per comparison. It
 * sorts in place, most significant byte first (no second block of keys:
 * -n 0 sorts millions of line rows). */

uint64_t descending_bits(double v)
{
	uint64_t u;
	if (v == 0)
		v = 0;
	memcpy(&u, &v, sizeof u);
	u = u >> 63 ? ~u : u | (uint64_t)1 << 63;   /* ascending as the values */
	return ~u;
}

double from_descending_bits(uint64_t u)
{
	double v;
	u = ~u;
	u = u >> 63 ? u & ~((uint64_t)1 << 63) : ~u;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* Byte @p d of a key's 12, most significant first: the key's 8, then the
 * context's 4. */
static unsigned key_byte(const sort_key *k, int d)
{
	return d < 8 ? (unsigned)(k->key >> (56 - 8 * d)) & 0xff
	             : (unsigned)(k->ctx >> (88 - 8 * d)) & 0xff;
}

static int key_less(const sort_key *x, const sort_key *y)
{
	return x->key != y->key ? x->key < y->key : x->ctx < y->ctx;
}

static void insertion_sort(sort_key *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		sort_key x = a[i];
		size_t j = i;
		for (; j > 0 && key_less(&x, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* @p a (n keys equal in their bytes before @p d) by their bytes from
 * @p d on: each key is swapped into its byte's bucket, then each bucket
 * is sorted by the next byte. */
static void flag_sort(sort_key *a, size_t n, int d)
{
	size_t count[256], next[256], end[256];
	for (; n > 32 && d < 12; d++) {
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[key_byte(&a[i], d)]++;
		if (count[key_byte(&a[0], d)] == n)
			continue;   /* one byte for all: nothing moves */
		size_t at = 0;
		for (unsigned b = 0; b < 256; b++) {
			next[b] = at;
			at += count[b];
			end[b] = at;
		}
		for (unsigned b = 0; b < 256; b++)
			while (next[b] < end[b]) {
				sort_key x = a[next[b]];
				for (unsigned c = key_byte(&x, d); c != b; c = key_byte(&x, d)) {
					sort_key t = a[next[c]];
					a[next[c]++] = x;
					x = t;
				}
				a[next[b]++] = x;
			}
		size_t from = 0;
		for (unsigned b = 0; b < 256; b++) {
			if (count[b] > 1)
				flag_sort(a + from, count[b], d + 1);
			from += count[b];
		}
		return;
	}
	insertion_sort(a, n);
}

/* cmp_row's rule on keys: values descending, then contexts ascending. */
static int cmp_key(const void *a, const void *b)
{
	const sort_key *x = a, *y = b;
	double u = from_descending_bits(x->key), v = from_descending_bits(y->key);
	if (u != v)
		return u < v ? 1 : -1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

void sort_keys(sort_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(from_descending_bits(k[i].key))) {   /* no place in the radix order */
			qsort(k, n, sizeof *k, cmp_key);
			return;
		}
	flag_sort(k, n, 0);
}

/* What a sorted context row needs of its place before the sort, besides
 * the key and context its sort key holds (no wider than a sort key). */
typedef struct row_rest {
	double *v;
	uint32_t label;
} row_rest;

void sort_rows(row *rows, size_t n)
{
	int plain = n >= 2 && n <= UINT32_MAX && n <= SIZE_MAX / (2 * sizeof(sort_key));
	for (size_t i = 0; plain && i < n; i++)
		plain = !rows[i].name && !rows[i].name_len && !isnan(rows[i].key) &&
		        rows[i].n_ctx == 1 && rows[i].pass;   /* a context row */
	sort_key *k = plain ? malloc(2 * n * sizeof *k) : NULL;
	if (!k) {   /* names, a NaN, or no memory: qsort */
		if (n)
			qsort(rows, n, sizeof *rows, cmp_row);
		return;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (sort_key){descending_bits(rows[i].key), rows[i].ctx, (uint32_t)i};
	sort_keys(k, n);
	_Static_assert(sizeof(row_rest) <= sizeof(sort_key), "a row's rest fits a sort key");
	/* Row i is rows[k[i].at]: the rest of each row is gathered in sorted
	 * order into the second half of the block (loads that do not wait
	 * for each other, where following the cycles in place would chain two
	 * cache misses a row), then the rows are written over in order from
	 * both: no copy of the rows is needed. */
	row_rest *rest = (row_rest *)(void *)(k + n);
	for (size_t i = 0; i < n; i++) {
		const row *f = &rows[k[i].at];
		rest[i] = (row_rest){f->v, f->label};
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = (row){from_descending_bits(k[i].key), rest[i].v, k[i].ctx, 1, NULL, 0, 1,
		                rest[i].label};
	free(k);
}

/* ---- the best N contexts: a heap with the worst kept row at its root ----- */

static void swap_rows(row *a, row *b)
{
	row t = *a;
	*a = *b;
	*b = t;
}

/* Offer @p r to the heap rows[0..*n) of at most @p cap rows. @return the
 * values of the row that did not make it (for a context row to free), or
 * NULL. */
double *heap_offer(row *rows, size_t *n, size_t cap, row r)
{
	size_t i;
	if (*n < cap) {
		rows[i = (*n)++] = r;
		while (i > 0 && cmp_row(&rows[(i - 1) / 2], &rows[i]) < 0) {
			swap_rows(&rows[(i - 1) / 2], &rows[i]);
			i = (i - 1) / 2;
		}
		return NULL;
	}
	if (cmp_row(&r, &rows[0]) >= 0)
		return r.v;   /* no better than the worst kept */
	double *out = rows[0].v;
	rows[i = 0] = r;
	for (;;) {
		size_t w = i, a = 2 * i + 1, b = a + 1;
		if (a < *n && cmp_row(&rows[a], &rows[w]) > 0)
			w = a;
		if (b < *n && cmp_row(&rows[b], &rows[w]) > 0)
			w = b;
		if (w == i)
			return out;
		swap_rows(&rows[i], &rows[w]);
		i = w;
	}
}


/* ---- label texts ----------------------------------------------------------- */

static int same_text(const label_text *a, const label_text *b)
{
	return a->ptr == b->ptr && a->len == b->len && a->type == b->type &&
	       a->has_offset == b->has_offset && a->num_hi == b->num_hi;
}

static size_t text_slot(const label_text *x, size_t nslots)
{
	uint64_t h = ((uint64_t)(uintptr_t)x->ptr ^ ((uint64_t)x->len << 32) ^ x->num_hi ^
	              ((uint64_t)x->type << 40) ^ ((uint64_t)x->has_offset << 48)) *
	             0x9e3779b97f4a7c15u;
	return (size_t)(h >> 32) & (nslots - 1);
}

static int grow_text_slots(label_texts *s)
{
	size_t ns = s->nslots ? 2 * s->nslots : 256;
	uint32_t *sl = ns <= SIZE_MAX / sizeof *sl ? calloc(ns, sizeof *sl) : NULL;
	if (!sl)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		size_t k = text_slot(&s->t[i], ns);
		while (sl[k])
			k = (k + 1) & (ns - 1);
		sl[k] = (uint32_t)i + 1;
	}
	free(s->slots);
	s->slots = sl;
	s->nslots = ns;
	return 0;
}

uint32_t label_text_find(label_texts *s, const label_text *x)
{
	if (s->last && same_text(&s->t[s->last - 1], x))
		return s->last;
	if (2 * (s->n + 1) > s->nslots && grow_text_slots(s) < 0)
		return 0;
	size_t k = text_slot(x, s->nslots);
	for (; s->slots[k]; k = (k + 1) & (s->nslots - 1))
		if (same_text(&s->t[s->slots[k] - 1], x))
			return s->last = s->slots[k];
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 64;
		label_text *nt = nc < UINT32_MAX ? realloc(s->t, nc * sizeof *nt) : NULL;
		if (!nt)
			return 0;
		s->t = nt;
		s->cap = nc;
	}
	s->t[s->n++] = *x;
	s->slots[k] = (uint32_t)s->n;
	return s->last = (uint32_t)s->n;
}

void label_texts_free(label_texts *s)
{
	free(s->t);
	free(s->slots);
	memset(s, 0, sizeof *s);
}

#define BYTES(c) ((uint64_t)0x0101010101010101u * (unsigned char)(c))

/* @p w with each control byte as '?' (names_show's rule on eight bytes at
 * once: exact per byte, no carry crosses one). */
static uint64_t shown_word(uint64_t w)
{
	uint64_t low7 = w & BYTES(0x7f);
	uint64_t below = ~((low7 + BYTES(0x60)) | w) & BYTES(0x80);   /* < 0x20 */
	uint64_t del = (low7 + BYTES(0x01)) & ~w & BYTES(0x80);       /* 0x7f */
	uint64_t m = ((below | del) >> 7) * 0xff;
	return (w & ~m) | (BYTES('?') & m);
}

/* The hash of a key as it is shown: names that print alike hash alike,
 * so that a probe meets them (the namesakes of group_lookup). Eight bytes
 * at a time: most keys are 10 to 60 bytes long. */
static uint64_t hash_key(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ shown_word(w)) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ shown_word(w)) * 0xc4ceb9fe1a85ec53u;
	return h ^ (h >> 29);
}

static unsigned char shown_byte(unsigned char c)
{
	return names_control(c) ? '?' : c;
}

/* Do keys @p a and @p b (@p n bytes each) print alike? */
static int shown_alike(const char *a, const char *b, size_t n)
{
	if (memcmp(a, b, n) == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (shown_byte((unsigned char)a[i]) != shown_byte((unsigned char)b[i]))
			return 0;
	return 1;
}

/* The slots of @p t built anew, @p ns of them (a power of 2). */
static int build_slots(group_table *t, size_t ns)
{
	uint32_t *s = calloc(ns, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = t->hash[i] & (ns - 1);
		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

static int grow_slots(group_table *t)
{
	return build_slots(t, t->nslots ? 2 * t->nslots : 1024);
}

static int grow_rows(group_table *t)
{
	size_t nc = t->cap ? 2 * t->cap : 1024;
	row *nr = realloc(t->rows, nc * sizeof *nr);
	if (nr)
		t->rows = nr;
	group_ident *ni = realloc(t->ident, nc * sizeof *ni);
	if (ni)
		t->ident = ni;
	uint64_t *nh = realloc(t->hash, nc * sizeof *nh);
	if (nh)
		t->hash = nh;
	double *nv = realloc(t->vals, nc * (t->nv ? t->nv : 1) * sizeof *nv);
	if (nv)
		t->vals = nv;
	if (!nr || !ni || !nh || !nv)
		return -1;
	t->cap = nc;
	return 0;
}

/* A copy of @p name that the table owns; NULL when out of memory. */
static const char *own_key(group_table *t, const char *name, size_t len)
{
	if (t->n_owned == t->cap_owned) {
		size_t nc = t->cap_owned ? 2 * t->cap_owned : 64;
		char **no = realloc(t->owned, nc * sizeof *no);
		if (!no)
			return NULL;
		t->owned = no;
		t->cap_owned = nc;
	}
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, name, len);
	c[len] = '\0';
	return t->owned[t->n_owned++] = c;
}

ptrdiff_t group_lookup(group_table *t, const char *name, size_t len, const group_ident *id,
                       int lasting, int *created)
{
	return group_lookup_hashed(t, name, len, hash_key(name, len), id, lasting, created);
}

/* Is @p a the identity @p b, the keys being equal? */
static inline int same_ident(const group_ident *a, const group_ident *b)
{
	if (!same_str(a->module, b->module) || !same_str(a->file, b->file))
		return 0;
	/* no fold: the key's bytes, which both have (and a fold given is
	 * not the key) */
	if (!a->fold.ptr || !b->fold.ptr)
		return !a->fold.ptr && !b->fold.ptr;
	return same_str(a->fold, b->fold);
}

ptrdiff_t group_lookup_hashed(group_table *t, const char *name, size_t len, uint64_t h,
                              const group_ident *id, int lasting, int *created)
{
	static const group_ident none;
	ptrdiff_t namesake = -1;
	*created = 0;
	if (!id)
		id = &none;
	if (2 * (t->n + 1) > t->nslots && grow_slots(t) < 0)
		return -1;
	size_t k = h & (t->nslots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->nslots - 1)) {
		size_t i = t->slots[k] - 1;
		if (t->hash[i] != h || t->rows[i].name_len != len)
			continue;
		if (memcmp(t->rows[i].name, name, len) == 0) {
			if (same_ident(&t->ident[i], id))
				return (ptrdiff_t)i;
		} else if (!shown_alike(t->rows[i].name, name, len)) {
			continue;
		}
		namesake = (ptrdiff_t)i;   /* another group that prints alike */
	}
	if (t->n == t->cap && grow_rows(t) < 0)
		return -1;
	if (!lasting && !(name = own_key(t, name, len)))
		return -1;
	row *r = &t->rows[t->n];
	memset(r, 0, sizeof *r);
	r->name = name;
	r->name_len = len;
	r->ctx = PROFDB_NONE;
	r->pass = 1;
	for (size_t m = 0; m < t->nv; m++)   /* a group no context is added to ranks 0 */
		t->vals[t->n * t->nv + m] = 0;
	t->ident[t->n] = *id;
	/* Keys are never removed: of two groups of one key, the later one's
	 * probe passed the earlier one. */
	if (namesake >= 0)
		t->ident[namesake].namesake = t->ident[t->n].namesake = 1;
	t->hash[t->n] = h;
	t->slots[k] = (uint32_t)++t->n;
	*created = 1;
	return (ptrdiff_t)(t->n - 1);
}

/* Does a group other than @p i print as @p i does? */
static int key_shared(const group_table *t, size_t i)
{
	const row *r = &t->rows[i];
	for (size_t k = t->hash[i] & (t->nslots - 1); t->slots[k]; k = (k + 1) & (t->nslots - 1)) {
		size_t j = t->slots[k] - 1;
		if (j != i && t->hash[j] == t->hash[i] && t->rows[j].name_len == r->name_len &&
		    shown_alike(t->rows[j].name, r->name, r->name_len))
			return 1;
	}
	return 0;
}

/* Group @p i's key becomes @p name (@p len bytes, copied). */
static int rename_group(group_table *t, size_t i, const char *name, size_t len)
{
	const char *key = own_key(t, name, len);
	if (!key)
		return TOOL_OOM;
	t->rows[i].name = key;
	t->rows[i].name_len = len;
	t->hash[i] = hash_key(key, len);
	return 0;
}

int group_tell_namesakes(group_table *t)
{
	int renamed = 0, r;
	for (size_t i = 0; i < t->n; i++) {
		const group_ident *id = &t->ident[i];
		const row *g = &t->rows[i];
		if (!id->namesake || !id->function)
			continue;
		profdb_str fold = id->fold.ptr ? id->fold : (profdb_str){g->name, g->name_len};
		size_t need = fold.len + names_base(id->file).len + names_base(id->module).len + 32;
		char *plain = malloc(need), *where = malloc(need);
		r = TOOL_OOM;
		if (plain && where) {
			/* the name as a key has it, without the object that
			 * names_function() gives an address: it follows anyway */
			profdb_str name = {plain, names_function(fold, (profdb_str){NULL, 0}, plain, need)};
			r = rename_group(t, i, where,
			                 names_function_where(name, id->file, id->module, where, need));
		}
		free(plain);
		free(where);
		if (r < 0)
			return r;
		renamed = 1;
	}
	if (!renamed)
		return 0;
	if (build_slots(t, t->nslots) < 0)
		return TOOL_OOM;
	/* Names that still print alike (a '?' for different control bytes,
	 * an address written with other zeros, a file and module of the same
	 * base names, another group's literal name) get their first
	 * context's id, as `callers` takes it: two groups never share a
	 * context. */
	unsigned char *alike = calloc(t->n ? t->n : 1, 1);
	if (!alike)
		return TOOL_OOM;
	int again = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->ident[i].namesake && t->ident[i].function && t->rows[i].ctx != PROFDB_NONE &&
		    key_shared(t, i))
			alike[i] = again = 1;
	for (size_t i = 0; i < t->n; i++) {
		const row *g = &t->rows[i];
		if (!alike[i])
			continue;
		char *name = malloc(g->name_len + 16);
		int len = name ? snprintf(name + g->name_len, 16, " #%" PRIu32, g->ctx) : -1;
		if (len > 0)
			memcpy(name, g->name, g->name_len);   /* (its bytes: a NUL too) */
		r = len > 0 ? rename_group(t, i, name, g->name_len + (size_t)len) : TOOL_OOM;
		free(name);
		if (r < 0) {
			free(alike);
			return r;
		}
	}
	free(alike);
	return again && build_slots(t, t->nslots) < 0 ? TOOL_OOM : 0;
}

/* Add the values @p v of one context to group @p i by the metrics' rules:
 * Cube's flat profile takes the minimum of a MINDOUBLE metric over a
 * region's cnodes. */
void group_add(group_table *t, size_t i, const report *rep, const double *v, uint32_t ctx)
{
	row *g = &t->rows[i];
	double *gv = t->vals + i * t->nv;
	for (size_t m = 0; m < rep->n; m++) {
		profdb_combine rule = rep->m[m].metric.combine;
		if (g->n_ctx == 0)
			gv[m] = v[m];
		else if (profdb_combine_extreme(rule))
			gv[m] = profdb_combine_pair(rule, gv[m], v[m]);
		else
			gv[m] += v[m];
	}
	if (g->n_ctx++ == 0)
		g->ctx = ctx;
}

void group_take(group_table *t, size_t i, const report *rep, const group_table *from, size_t j)
{
	row *g = &t->rows[i];
	const row *f = &from->rows[j];
	double *gv = t->vals + i * t->nv;
	const double *fv = from->vals + j * from->nv;
	if (f->n_ctx == 0)
		return;
	for (size_t m = 0; m < rep->n; m++) {
		profdb_combine rule = rep->m[m].metric.combine;
		if (g->n_ctx == 0)
			gv[m] = fv[m];
		else if (profdb_combine_extreme(rule))
			gv[m] = profdb_combine_pair(rule, gv[m], fv[m]);
		else
			gv[m] += fv[m];
	}
	if (g->n_ctx == 0)
		g->ctx = f->ctx;
	g->n_ctx += f->n_ctx;
}

int group_adopt_keys(group_table *t, group_table *from)
{
	size_t need = t->n_owned + from->n_owned;
	if (need > t->cap_owned) {
		char **no = realloc(t->owned, need * sizeof *no);
		if (!no)
			return -1;
		t->owned = no;
		t->cap_owned = need;
	}
	if (from->n_owned)   /* (a table that owns no key has no array of them) */
		memcpy(t->owned + t->n_owned, from->owned, from->n_owned * sizeof *from->owned);
	t->n_owned = need;
	from->n_owned = 0;
	return 0;
}

void group_member(group_table *t, size_t i, uint32_t ctx)
{
	row *g = &t->rows[i];
	if (g->n_ctx++ == 0)
		g->ctx = ctx;
}

int group_inclusive_possible(const report *rep)
{
	for (size_t m = 0; m < rep->n; m++) {
		const report_metric *rm = &rep->m[m];
		if ((rm->mode != REPORT_ONE && rm->mode != REPORT_SUMMARY && rm->mode != REPORT_SEL) ||
		    !profdb_combine_adds(rm->metric.combine) || !rm->has_inc || !rm->has_exc)
			return 0;
	}
	return 1;
}

/* The values of groups [first, t->n), @p group_of numbering them from
 * @p first. */
static int inclusive_from(group_table *t, size_t first, const report *rep,
                          const uint32_t *group_of, size_t n)
{
	size_t ng = t->n - first;
	double *v = malloc((ng ? ng : 1) * sizeof *v);
	int r = v ? 0 : TOOL_OOM;
	for (size_t m = 0; m < rep->n && r == 0; m++) {
		const report_metric *rm = &rep->m[m];
		int sel = rm->mode == REPORT_SEL;
		size_t np = sel ? rep->n_sel : 1;
		for (size_t i = 0; i < np && r == 0; i++) {
			uint32_t p = sel ? rep->sel[i] : rm->profile;
			r = profdb_group_inclusive(rep->db, group_of, n, p, rm->metric.id, v, ng);
			for (size_t g = 0; g < ng && r == 0; g++) {
				double *gv = &t->vals[(first + g) * t->nv + m];
				*gv = i ? *gv + v[g] : v[g];
			}
		}
		for (size_t g = first; g < t->n && r == 0; g++)
			t->vals[g * t->nv + m] *= rm->scale;
	}
	free(v);
	return r;
}

int group_inclusive(group_table *t, const report *rep, const uint32_t *group_of, size_t n)
{
	return inclusive_from(t, 0, rep, group_of, n);
}

/* The name of cycle @p c: "<cycle N> (M functions: a, b, c, ...)", the
 * first three members named in full. -1 when out of memory. */
static ptrdiff_t cycle_group(group_table *t, const uint32_t *cycle_of, size_t ng, uint32_t c)
{
	size_t members = 0, len = 0, cap = 64;
	for (size_t g = 0; g < ng; g++)
		if (cycle_of[g] == c && members++ < 3)
			cap += t->rows[g].name_len + 2;
	char *name = malloc(cap);
	if (!name)
		return -1;
	len = (size_t)snprintf(name, cap, "<cycle %u> (%zu functions: ", (unsigned)c + 1, members);
	for (size_t g = 0, k = 0; g < ng && k < 3; g++) {
		if (cycle_of[g] != c)
			continue;
		if (k++) {
			memcpy(name + len, ", ", 2);
			len += 2;
		}
		memcpy(name + len, t->rows[g].name, t->rows[g].name_len);
		len += t->rows[g].name_len;
	}
	len += (size_t)snprintf(name + len, cap - len, "%s)", members > 3 ? ", ..." : "");
	int created;
	ptrdiff_t i = group_lookup(t, name, len, NULL, 0, &created);
	free(name);
	if (i >= 0)
		t->rows[i].n_ctx = (uint32_t)members;   /* no one context: ctx stays PROFDB_NONE */
	return i;
}

int group_cycles(group_table *t, const report *rep, const uint32_t *group_of, size_t n)
{
	size_t ng = t->n;
	uint32_t *cycle_of = malloc((ng + 1) * sizeof *cycle_of);
	uint32_t *in_cycle = malloc((n + 1) * sizeof *in_cycle);
	int64_t nc = cycle_of && in_cycle ? profdb_group_cycles(rep->db, group_of, n, cycle_of, ng)
	                                  : TOOL_OOM;
	int r = nc < 0 ? (int)nc : 0;
	for (uint32_t c = 0; r == 0 && c < (uint64_t)nc; c++)
		if (cycle_group(t, cycle_of, ng, c) < 0)
			r = TOOL_OOM;
	for (size_t i = 0; r == 0 && i < n; i++)
		in_cycle[i] = group_of[i] == PROFDB_NONE ? PROFDB_NONE : cycle_of[group_of[i]];
	if (r == 0 && nc > 0)
		r = inclusive_from(t, ng, rep, in_cycle, n);
	free(cycle_of);
	free(in_cycle);
	return r;
}

/* The rows point at their values: no group is added any more. */
void group_rows(group_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->rows[i].v = t->vals + i * t->nv;
}

void group_free(group_table *t)
{
	for (size_t i = 0; i < t->n_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->rows);
	free(t->ident);
	free(t->hash);
	free(t->vals);
	free(t->slots);
	memset(t, 0, sizeof *t);
}
