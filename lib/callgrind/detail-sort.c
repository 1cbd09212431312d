/* The order of a function's line rows (profdb_cg_detail): by line, then
 * instruction, then file, as the rows are given out. The rows and their
 * costs stay where detail.c decoded them; perm lists them in order. */
#include <string.h>

#include "detail-internal.h"

/* Row order: line, then instruction, then file (the keys are distinct,
 * so any sort gives the one order). */
static inline int lord_less(const lord *x, const lord *y)
{
	if (x->line != y->line)
		return x->line < y->line;
	if (x->instr != y->instr)
		return x->instr < y->instr;
	return x->src < y->src;
}

#define LORD_RUN 16u

static inline int key_less(const uint64_t *x, const uint64_t *y) { return *x < *y; }

/* SORT_RUNS(name, T, less) defines name(T *a, uint32_t n, T *tmp): sort a
 * (n elements, distinct under less) ascending, tmp: room for n more. A
 * merge sort with the comparison inlined: with instruction positions a
 * function's rows follow addresses, so lines come in runs out of order,
 * and qsort()'s call per comparison cost more than the decoding. Runs of
 * LORD_RUN elements by insertion, then merges of neighbours, skipped
 * where the two already follow each other. Defined twice: for rows by
 * their three keys (sort_lord) and for one integer key (sort_keys). */
#define SORT_RUNS(name, T, less) \
	static void name(T *a, uint32_t n, T *tmp) \
	{ \
		for (size_t at = 0; at < n; at += LORD_RUN) { \
			size_t end = n - at < LORD_RUN ? n : at + LORD_RUN; \
			for (size_t i = at + 1; i < end; i++) { \
				T x = a[i]; \
				size_t j = i; \
				for (; j > at && less(&x, &a[j - 1]); j--) \
					a[j] = a[j - 1]; \
				a[j] = x; \
			} \
		} \
		T *src = a, *dst = tmp; \
		for (size_t w = LORD_RUN; w < n; w *= 2) { \
			for (size_t lo = 0; lo < n; lo += 2 * w) { \
				size_t mid = n - lo < w ? n : lo + w; \
				size_t hi = n - mid < w ? n : mid + w; \
				size_t i = lo, j = mid, k = lo; \
				if (mid == hi || less(&src[mid - 1], &src[mid])) { \
					memcpy(dst + lo, src + lo, (hi - lo) * sizeof *dst); /* in order */ \
					continue; \
				} \
				while (i < mid && j < hi) \
					dst[k++] = less(&src[j], &src[i]) ? src[j++] : src[i++]; \
				while (i < mid) \
					dst[k++] = src[i++]; \
				while (j < hi) \
					dst[k++] = src[j++]; \
			} \
			T *t = src; \
			src = dst; \
			dst = t; \
		} \
		if (src != a) \
			memcpy(a, src, (size_t)n * sizeof *a); \
	}

SORT_RUNS(sort_lord, lord, lord_less)
SORT_RUNS(sort_keys, uint64_t, key_less)

/* Are the rows in the order of lord_less() already? */
static int rows_sorted(const profdb_cg_detail *d)
{
	for (uint32_t i = 1; i < d->n_lines; i++) {
		const dline *a = &d->lines[i - 1], *b = &d->lines[i];
		if (a->line != b->line ? a->line > b->line
		    : a->instr != b->instr ? a->instr > b->instr
		    : a->src > b->src)
			return 0;
	}
	return 1;
}

/* Is row @p a before row @p b of the same line (instruction, then file)? */
static int tie_before(const dline *a, const dline *b)
{
	return a->instr != b->instr ? a->instr < b->instr : a->src < b->src;
}

/* Sort each run of rows of one line in perm (placed by sort_rows() in
 * index order) by instruction, then file, unless it is in that order
 * already, as it mostly is (a line's rows mostly come in address order):
 * the check reads the rows the sort would read, and the sort is spared. */
static void sort_ties(profdb_cg_detail *d)
{
	lord *o = d->sort_room;
	for (uint32_t at = 0, end; at < d->n_lines; at = end) {
		const dline *last = &d->lines[d->perm[at]];
		int in_order = 1;
		for (end = at + 1; end < d->n_lines && d->lines[d->perm[end]].line == last->line; end++) {
			const dline *l = &d->lines[d->perm[end]];
			in_order &= tie_before(last, l);
			last = l;
		}
		if (in_order)
			continue;
		for (uint32_t i = at; i < end; i++) {
			const dline *l = &d->lines[d->perm[i]];
			o[i - at] = (lord){l->line, l->instr, l->src, d->perm[i]};
		}
		sort_lord(o, end - at, o + (end - at));
		for (uint32_t i = at; i < end; i++)
			d->perm[i] = o[i - at].idx;
	}
}

/* Sort the rows by line, then instruction, then file. The rows and their
 * costs stay where they are: perm tells which is the i-th. Rows that came
 * in (instruction, line, file) order (@p in_order: no map was needed)
 * keep that order among equal lines when sorted by line, then by index.
 * A function's lines are mostly near each other: when they span at most
 * 8 lines per row, the rows are placed by counting (a pass to count each
 * line's rows, one to place them in index order), and runs of one line
 * sorted by their keys if they did not come in order (sort_ties()).
 * Otherwise, with lines below 2^32 rows in order are sorted as one
 * integer per row, (line << 32) | index; other rows by the three keys
 * (sort_lord()). */
static int sort_rows(profdb_cg_detail *d, int in_order)
{
	uint32_t n = d->n_lines;
	if (profdb__cg_grow((void **)&d->sort_room, &d->cap_sort, n, 2 * sizeof(lord)) < 0 ||
	    profdb__cg_grow((void **)&d->perm_room, &d->cap_perm, n, sizeof *d->perm_room) < 0)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	d->perm = d->perm_room;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t line = d->lines[i].line;
		lo = line < lo ? line : lo;
		hi = line > hi ? line : hi;
	}
	if (hi - lo < 8 * (uint64_t)n) {
		/* span + 1 <= 8 n + 1 counts fit in the room of 2 n lords */
		uint32_t *start = (uint32_t *)(void *)d->sort_room;
		size_t span = (size_t)(hi - lo) + 1;
		memset(start, 0, (span + 1) * sizeof *start);
		for (uint32_t i = 0; i < n; i++)
			start[d->lines[i].line - lo + 1]++;
		for (size_t c = 1; c < span; c++)
			start[c] += start[c - 1];
		for (uint32_t i = 0; i < n; i++)
			d->perm[start[d->lines[i].line - lo]++] = i;
		if (!in_order)
			sort_ties(d);
		return 0;
	}
	if (in_order && hi <= UINT32_MAX) {
		uint64_t *k = (uint64_t *)(void *)d->sort_room;   /* (2 n keys fit in 2 n lords) */
		for (uint32_t i = 0; i < n; i++)
			k[i] = d->lines[i].line << 32 | i;
		sort_keys(k, n, k + n);
		for (uint32_t i = 0; i < n; i++)
			d->perm[i] = (uint32_t)k[i];
		return 0;
	}
	lord *o = d->sort_room;
	for (uint32_t i = 0; i < n; i++)
		o[i] = (lord){d->lines[i].line, d->lines[i].instr, d->lines[i].src, i};
	sort_lord(o, n, o + n);
	for (uint32_t i = 0; i < n; i++)
		d->perm[i] = o[i].idx;
	return 0;
}

int profdb__cg_detail_sort(profdb_cg_detail *d, int in_order)
{
	/* rows without instructions mostly come in line order already */
	return rows_sorted(d) ? 0 : sort_rows(d, in_order);
}
