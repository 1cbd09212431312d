/* Callgrind inclusive costs with KCachegrind's cycles (cycle detection on,
 * tracedata.cpp: TraceFunction::cycleDFS and ::update).
 *
 * The cycles are the strongly connected components of more than one
 * function of the call graph summed over all profiles (a function calling
 * only itself is no cycle), found once, numbered 1, 2, ... in the order of
 * their lowest function id. Per profile and overall:
 *  - a function's inclusive cost = its self cost + the inclusive cost of
 *    its calls to other functions outside its cycle (its calls to itself
 *    and, for a cycle member, its calls to members of the same cycle add
 *    nothing: Callgrind's call costs of nested calls count the same
 *    instructions again);
 *  - a cycle's inclusive cost (KCachegrind's `<cycle N>`) = the sum of its
 *    members' inclusive costs, i.e. their self costs + every call leaving
 *    the cycle.
 * Exact 64-bit sums (saturating, which no real profile reaches), in any
 * order. Nothing is clamped: a call cost above the total is the file's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind-internal.h"

typedef struct tarjan {
	uint32_t *start, *adj, *idx, *low, *stk, *cs_v, *cs_e, *comp;
	unsigned char *on;
	void *block;   /* the arrays above (profdb__carve) */
} tarjan;

static int tarjan_alloc(tarjan *t, uint32_t nf, uint32_t nc)
{
	size_t fns = ((size_t)nf + 1) * sizeof(uint32_t);
	void **const out[] = {(void **)&t->start, (void **)&t->adj,  (void **)&t->idx,
	                      (void **)&t->low,   (void **)&t->stk,  (void **)&t->cs_v,
	                      (void **)&t->cs_e,  (void **)&t->comp, (void **)&t->on};
	const size_t size[] = {fns, ((size_t)nc + 1) * sizeof(uint32_t), fns, fns, fns, fns, fns,
	                       fns, (size_t)nf + 1};
	if (!(t->block = profdb__carve(out, size, sizeof size / sizeof *size)))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	memset(t->start, 0, fns);
	memset(t->on, 0, (size_t)nf + 1);
	return 0;
}

/* t->comp[f] = the component of f (iterative Tarjan: no recursion, so
 * any call depth). Returns the number of components. */
static uint32_t components(tarjan *t, uint32_t nf, uint32_t nc, const cg_edge *e)
{
	uint32_t *comp = t->comp;
	for (uint32_t c = 0; c < nc; c++)
		t->start[e[c].caller + 1]++;
	for (uint32_t f = 0; f < nf; f++)
		t->start[f + 1] += t->start[f];
	uint32_t *fill = t->idx;  /* the fill pointers, before idx is used */
	memcpy(fill, t->start, (size_t)nf * sizeof *fill);
	for (uint32_t c = 0; c < nc; c++)
		t->adj[fill[e[c].caller]++] = e[c].callee;
	for (uint32_t f = 0; f < nf; f++)
		t->idx[f] = CG_EMPTY;
	uint32_t next_idx = 0, sp = 0, n_comp = 0;
	for (uint32_t root = 0; root < nf; root++) {
		if (t->idx[root] != CG_EMPTY)
			continue;
		uint32_t depth = 1;
		t->cs_v[0] = root;
		t->cs_e[0] = t->start[root];
		t->idx[root] = t->low[root] = next_idx++;
		t->stk[sp++] = root;
		t->on[root] = 1;
		while (depth) {
			uint32_t v = t->cs_v[depth - 1];
			if (t->cs_e[depth - 1] < t->start[v + 1]) {
				uint32_t w = t->adj[t->cs_e[depth - 1]++];
				if (t->idx[w] == CG_EMPTY) {
					t->idx[w] = t->low[w] = next_idx++;
					t->stk[sp++] = w;
					t->on[w] = 1;
					t->cs_v[depth] = w;
					t->cs_e[depth] = t->start[w];
					depth++;
				} else if (t->on[w] && t->idx[w] < t->low[v]) {
					t->low[v] = t->idx[w];
				}
				continue;
			}
			if (t->low[v] == t->idx[v]) {
				uint32_t w;
				do {
					w = t->stk[--sp];
					t->on[w] = 0;
					comp[w] = n_comp;
				} while (w != v);
				n_comp++;
			}
			depth--;
			if (depth) {
				uint32_t u = t->cs_v[depth - 1];
				if (t->low[v] < t->low[u])
					t->low[u] = t->low[v];
			}
		}
	}
	return n_comp;
}

int profdb__cg_find_cycles(profdb_cg *cg)
{
	uint32_t nf = cg->n_fns;
	tarjan t = {0};
	uint32_t *size = NULL;
	int r = tarjan_alloc(&t, nf, cg->n_edges);
	if (r == 0) {
		const uint32_t *comp = t.comp;
		uint32_t n_comp = components(&t, nf, cg->n_edges, cg->edges);
		/* component -> cycle number: numbered as their lowest member
		 * comes in function order; singletons get 0 */
		size = calloc((size_t)n_comp + 1, sizeof *size);
		cg->fn_cycle = malloc(((size_t)nf + 1) * sizeof *cg->fn_cycle);
		if (!size || !cg->fn_cycle) {
			r = profdb__fail(-ENOMEM, "callgrind: out of memory");
		} else {
			uint32_t *num = t.stk;  /* reused: n_comp <= nf */
			for (uint32_t f = 0; f < nf; f++)
				size[comp[f]]++;
			for (uint32_t c = 0; c < n_comp; c++)
				num[c] = 0;
			cg->n_cycles = 0;
			for (uint32_t f = 0; f < nf; f++) {
				uint32_t c = comp[f];
				if (size[c] > 1 && num[c] == 0)
					num[c] = ++cg->n_cycles;
				cg->fn_cycle[f] = size[c] > 1 ? num[c] : 0;
			}
		}
	}
	free(t.block);
	free(size);
	return r;
}

static void add_sat(uint64_t *d, const uint64_t *s, size_t ne)
{
	for (size_t e = 0; e < ne; e++)
		if (__builtin_add_overflow(d[e], s[e], &d[e]))
			d[e] = UINT64_MAX;
}

/* Is a call from @p a to @p b (function ids) part of @p a's inclusive cost? */
static int call_counts(const profdb_cg *cg, uint32_t a, uint32_t b)
{
	return a != b && (cg->fn_cycle[a] == 0 || cg->fn_cycle[a] != cg->fn_cycle[b]);
}

/* base + off, without forming an offset from NULL (empty tables are NULL). */
static const uint64_t *cost_at(const uint64_t *base, size_t off)
{
	return base ? base + off : NULL;
}

static const cg_row *row_at(const cg_row *base, size_t off)
{
	return base ? base + off : NULL;
}

static const cg_crow *crow_at(const cg_crow *base, size_t off)
{
	return base ? base + off : NULL;
}

/* The n_rows function rows, then one row per cycle, of @p width events
 * from event @p first (the whole table: 0 and n_events; one event's
 * column: its id and 1). @p fn_of maps a row to its function (NULL: the
 * row is the function). */
static void fill(const profdb_cg *cg, uint32_t n_rows, const cg_row *fn_of, const uint64_t *self,
                 uint32_t nc, const cg_crow *calls, uint32_t row0, const uint64_t *ccost,
                 uint32_t first, uint32_t width, uint64_t *incl)
{
	size_t ne = cg->n_events, bytes = ((size_t)n_rows + cg->n_cycles) * width * sizeof *incl;
	/* Written in full at once: huge pages where the kernel gives them on
	 * request, a page fault per 2 MiB instead of per 4 KiB. */
	profdb__advise_big(incl, bytes);
	if (n_rows && width == ne)
		memcpy(incl, self, (size_t)n_rows * ne * sizeof *incl);
	else
		for (uint32_t r = 0; r < n_rows; r++)
			memcpy(incl + (size_t)r * width, self + (size_t)r * ne + first, width * sizeof *incl);
	memset(incl + (size_t)n_rows * width, 0, (size_t)cg->n_cycles * width * sizeof *incl);
	for (uint32_t c = 0; c < nc; c++)
		if (call_counts(cg, calls[c].caller, calls[c].callee)) {
			uint32_t r = fn_of ? profdb__cg_find_row(cg, calls[c].profile, calls[c].caller) - row0
			                   : calls[c].caller;
			add_sat(incl + (size_t)r * width, ccost + (size_t)c * ne + first, width);
		}
	for (uint32_t r = 0; r < n_rows; r++) {
		uint32_t cyc = cg->fn_cycle[fn_of ? fn_of[r].fn : r];
		if (cyc)
			add_sat(incl + ((size_t)n_rows + cyc - 1) * width, incl + (size_t)r * width, width);
	}
}

int profdb__cg_build_inclusive_event(profdb_cg *cg, uint32_t event)
{
	uint64_t *col = profdb__cg_array((size_t)cg->n_fns + cg->n_cycles, 1, sizeof *col);
	if (!col)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	fill(cg, cg->n_fns, NULL, cg->self, cg->n_edges, cg->edges, 0, cg->edge_cost, event, 1, col);
	cg->incl[profdb__cg_event_table(cg, event)] = col;
	return 0;
}

int profdb__cg_build_inclusive(profdb_cg *cg, uint32_t k)
{
	size_t ne = cg->n_events;
	if (k == 0) {
		uint64_t *incl = profdb__cg_array((size_t)cg->n_fns + cg->n_cycles, ne, sizeof *incl);
		if (!incl)
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		fill(cg, cg->n_fns, NULL, cg->self, cg->n_edges, cg->edges, 0, cg->edge_cost, 0,
		     (uint32_t)ne, incl);
		cg->incl[0] = incl;
		return 0;
	}
	if (cg->self_alias && cg->edge_alias) {
		/* One profile whose rows are the functions and whose call rows
		 * are the edges: its table would be table 0 again, row for row. */
		cg->incl[k] = cg->incl[0];
		return 0;
	}
	const cg_profile *p = &cg->profiles[k - 1];
	uint64_t *incl = profdb__cg_array((size_t)p->n_rows + cg->n_cycles, ne, sizeof *incl);
	if (!incl)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	for (uint32_t c = 0; c < p->n_crows; c++) {
		const cg_crow *w = &cg->crows[p->crow_first + c];
		if (profdb__cg_find_row(cg, k - 1, w->caller) == CG_EMPTY) {
			free(incl);  /* the scanner adds a row for every caller */
			return profdb__fail(-EBADMSG, "callgrind: internal error: call row without a row");
		}
	}
	fill(cg, p->n_rows, row_at(cg->rows, p->row_first),
	     cost_at(cg->row_cost, (size_t)p->row_first * ne), p->n_crows,
	     crow_at(cg->crows, p->crow_first), p->row_first,
	     cost_at(cg->crow_cost, (size_t)p->crow_first * ne), 0, (uint32_t)ne, incl);
	cg->incl[k] = incl;
	return 0;
}
