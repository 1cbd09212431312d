/* Callgrind: table growth with checked sizes (for every file of the
 * module), number parsing, and widening the cost tables when an events:
 * line adds an event. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

int profdb__cg_grow(void **p, size_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	if (need >= UINT32_MAX - 1)
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	return profdb__grow(p, cap, (size_t)need, elem);
}

/* *p resized to @p n elements by @p resize (profdb__realloc_big or
 * profdb__realloc_huge), or -ENOMEM with nothing changed and no message. */
static int try_resize(void **p, size_t *cap, uint64_t n, size_t elem,
                      void *(*resize)(void *, size_t, size_t))
{
	size_t bytes;
	if (n >= UINT32_MAX - 1 || __builtin_mul_overflow((size_t)n, elem, &bytes))
		return -ENOMEM;
	void *q = resize(*p, *cap * elem, bytes);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = (size_t)n;
	return 0;
}

int profdb__cg_reach(void **p, size_t *n, size_t *room, uint32_t id, size_t elem)
{
	if (id < *n)
		return 0;
	size_t need = (size_t)id + 1;
	if (need > *room) {
		/* not realloc, which copies the whole room, written or not */
		size_t nr = *room >= 16 ? *room : 16, bytes;
		while (nr < need)
			nr = nr <= SIZE_MAX / 2 ? nr * 2 : SIZE_MAX;
		void *q = __builtin_mul_overflow(nr, elem, &bytes) ? NULL : malloc(bytes);
		if (!q)
			return profdb__fail(-ENOMEM, "callgrind: out of memory (index of %zu entries)",
			                    nr);
		if (*n) {
			profdb__prefault_write(q, *n * elem);   /* one call, not a fault a page */
			memcpy(q, *p, *n * elem);
		}
		free(*p);
		*p = q;
		*room = nr;
	}
	size_t step = elem < CG_REACH_STEP ? CG_REACH_STEP / elem : 1;
	size_t to = need + (step - need % step) % step;
	if (to > *room)
		to = *room;
	char *at = (char *)*p + *n * elem;
	profdb__prefault_write(at, (to - *n) * elem);
	memset(at, 0xff, (to - *n) * elem);
	*n = to;
	return 0;
}

void profdb__cg_reserve(void **p, size_t *cap, uint64_t want, size_t elem)
{
	if (want > *cap)
		(void)try_resize(p, cap, want, elem, profdb__realloc_big);
}

int profdb__cg_bytes(size_t n, size_t m, size_t elem, size_t *out)
{
	if (__builtin_mul_overflow(n, m, out) || __builtin_mul_overflow(*out, elem, out))
		return profdb__fail(-ENOMEM, "callgrind: table too large");
	return 0;
}

void *profdb__cg_array(size_t n, size_t m, size_t elem)
{
	size_t bytes;
	if (profdb__cg_bytes(n, m, elem, &bytes) < 0 || bytes > SIZE_MAX - elem)
		return NULL;
	return malloc(bytes + elem);
}

void profdb__cg_build_free(cg_build *b)
{
	profdb__tmap_free(&b->name_map);
	profdb__tmap_free(&b->fn_map);
	free(b->fn_by_name);
	free(b->row_of_fn);
	free(b->defs);
	memset(b, 0, sizeof *b);
}

int profdb__cg_u64(const char *t, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0)
		return -1;
	if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		for (size_t i = 2; i < n; i++) {
			char c = t[i];
			unsigned d;
			if (c >= '0' && c <= '9')
				d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				d = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				d = (unsigned)(c - 'A' + 10);
			else
				return -1;
			if (v >> 60)
				return -2;
			v = v << 4 | d;
		}
		*out = v;
		return 0;
	}
	if (n <= 19) {  /* cannot overflow: the common case, no checks */
		for (size_t i = 0; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)t[i] - '0';
			if (d > 9)
				return -1;
			v = v * 10 + d;
		}
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!cg_is_digit(t[i]))
			return -1;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(t[i] - '0'), &v))
			return -2;
	}
	*out = v;
	return 0;
}

int profdb__cg_subpos(const char *t, size_t n, uint64_t last, uint64_t *out)
{
	uint64_t x;
	int r;
	if (n == 1 && t[0] == '*') {
		*out = last;
		return 0;
	}
	if (t[0] == '+' || t[0] == '-') {
		r = profdb__cg_u64(t + 1, n - 1, &x);
		if (r < 0)
			return r;
		if (t[0] == '+')
			return __builtin_add_overflow(last, x, out) ? -2 : 0;
		if (x > last)
			return -3;
		*out = last - x;
		return 0;
	}
	return profdb__cg_u64(t, n, out);
}


/* ---- tables -------------------------------------------------------------- */

/* Re-stride a table of @p cap rows, @p n of them in use, from @p old to
 * @p ne columns (new columns zero). */
static int restride(uint64_t **t, size_t cap, size_t n, uint32_t old, uint32_t ne)
{
	if (!*t || cap == 0)
		return 0;
	size_t bytes;
	int r = profdb__cg_bytes(cap, ne, sizeof(uint64_t), &bytes);
	if (r < 0)
		return r;
	uint64_t *q = calloc(1, bytes);
	if (!q)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	for (size_t i = 0; i < n; i++)
		memcpy(q + i * ne, *t + i * old, old * sizeof *q);
	free(*t);
	*t = q;
	return 0;
}

/* A zeroed n x ne table (one spare element: never NULL when empty). */
static int zeros(uint64_t **t, size_t n, uint32_t ne)
{
	size_t bytes;
	int r = profdb__cg_bytes(n, ne, sizeof(uint64_t), &bytes);
	if (r < 0)
		return r;
	free(*t);
	if (!(*t = calloc(1, bytes + sizeof(uint64_t))))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	return 0;
}

int profdb__cg_widen(profdb_cg *cg, uint32_t ne)
{
	uint32_t old = cg->n_events;
	if (ne <= old)
		return 0;
	int r = 0;
	if (old == 0) {
		/* Tables allocated with stride 0 hold nothing: start them over. */
		if ((r = zeros(&cg->p_totals, cg->cap_profiles, ne)) < 0 ||
		    (r = zeros(&cg->p_summary, cg->cap_profiles, ne)) < 0 ||
		    (r = zeros(&cg->p_totline, cg->cap_profiles, ne)) < 0 ||
		    (cg->row_cost && (r = zeros(&cg->row_cost, cg->cap_rows, ne)) < 0) ||
		    (r = zeros(&cg->crow_cost, cg->cap_crows, ne)) < 0)
			return r;
	} else if ((r = restride(&cg->p_totals, cg->cap_profiles, cg->cap_profiles, old, ne)) < 0 ||
	           (r = restride(&cg->p_summary, cg->cap_profiles, cg->cap_profiles, old, ne)) < 0 ||
	           (r = restride(&cg->p_totline, cg->cap_profiles, cg->cap_profiles, old, ne)) < 0 ||
	           (r = restride(&cg->row_cost, cg->cap_rows, cg->n_rows, old, ne)) < 0 ||
	           (r = restride(&cg->crow_cost, cg->cap_crows, cg->n_crows, old, ne)) < 0) {
		return r;
	}
	if (cg->row_narrow && (r = profdb__cg_self_restride(cg, old, ne)) < 0)
		return r;
	cg->n_events = ne;
	return 0;
}

/* A cost table resized (the call rows; the self-cost rows: self-rows.c).
 * Its rows are zeroed one by one as they come: where it is big, the pages
 * not yet touched get huge pages (one fault where 4 KiB pages take 512).
 * realloc, not profdb__realloc_big: a big block is moved without a copy,
 * so the old and the new never take memory at once. */
static void *realloc_advised(void *p, size_t bytes)
{
	void *q = realloc(p, bytes);
	profdb__advise_big(q, bytes);
	return q;
}

static int grow_cost_rows(void **rows, uint64_t **costs, size_t *cap, uint32_t n, size_t elem,
                          uint32_t ne)
{
	size_t old = *cap, bytes;
	int r = grow(rows, cap, (uint64_t)n + 1, elem);
	if (r < 0 || *cap == old || ne == 0)
		return r;
	if ((r = profdb__cg_bytes(*cap, ne, sizeof(uint64_t), &bytes)) < 0) {
		*cap = old;
		return r;
	}
	uint64_t *q = realloc_advised(*costs, bytes);
	if (!q) {
		*cap = old;
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	*costs = q;
	return 0;
}

void profdb__cg_reserve_costed(void **rows, uint64_t **costs, size_t *cap, uint64_t want,
                               size_t elem, uint32_t ne)
{
	size_t old = *cap, cost_cap = old;
	/* both about to be written row by row up to their end, or nearly */
	if (want <= old || try_resize(rows, cap, want, elem, profdb__realloc_huge) < 0 || ne == 0)
		return;
	if (try_resize((void **)costs, &cost_cap, want, (size_t)ne * sizeof(uint64_t),
	               profdb__realloc_huge) < 0)
		*cap = old;   /* (the row table keeps its larger block) */
}

/* Grow a cost table in step with its row table, and zero row @p n (the one
 * about to be created). Rows are zeroed one at a time, not the new
 * capacity at once: the spare capacity then stays untouched, outside the
 * resident set. */
int grow_rows(void **rows, uint64_t **costs, size_t *cap, uint32_t n, size_t elem, uint32_t ne)
{
	int r = grow_cost_rows(rows, costs, cap, n, elem, ne);
	if (r == 0)
		memset(*costs + (size_t)n * ne, 0, ne * sizeof **costs);
	return r;
}
