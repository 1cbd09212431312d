/* Callgrind model after the parse: per-function line rows grouped and
 * sorted, and the inclusive cost of every function (built lazily). */
#include <stdlib.h>
#include <string.h>

#include "cg-internal.h"

typedef struct line_ord {
	uint32_t fn, file;
	uint64_t line;
	uint32_t idx;
} line_ord;

static int cmp_line(const void *a, const void *b)
{
	const line_ord *x = a, *y = b;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return 0;
}

int profdb__cg_finish(profdb_cg *cg)
{
	uint32_t n = cg->n_lines;
	size_t ne = cg->n_events;
	profdb__cg_map_free(&cg->line_map);
	profdb__cg_map_free(&cg->name_map);
	profdb__cg_map_free(&cg->id_map);
	profdb__cg_map_free(&cg->fn_map);
	profdb__cg_map_free(&cg->call_map);
	if (n == 0)
		return 0;
	line_ord *o = malloc((size_t)n * sizeof *o);
	cg_line *nl = malloc((size_t)n * sizeof *nl);
	uint64_t *nc = malloc((size_t)n * ne * sizeof *nc);
	if (!o || !nl || !nc) {
		free(o);
		free(nl);
		free(nc);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	for (uint32_t i = 0; i < n; i++)
		o[i] = (line_ord){cg->lines[i].fn, cg->lines[i].file, cg->lines[i].line, i};
	qsort(o, n, sizeof *o, cmp_line);
	for (uint32_t i = 0; i < n; i++) {
		nl[i] = cg->lines[o[i].idx];
		memcpy(nc + (size_t)i * ne, cg->line_cost + (size_t)o[i].idx * ne,
		       ne * sizeof *nc);
		cg_fn *f = &cg->fns[o[i].fn];
		if (f->n_lines == 0)
			f->line_first = i;
		f->n_lines++;
	}
	free(o);
	free(cg->lines);
	free(cg->line_cost);
	cg->lines = nl;
	cg->line_cost = nc;
	cg->cap_lines = n;
	return 0;
}

/* Strongly connected components of the call graph (iterative Tarjan), then
 * for each component C: inclusive = sum of self(C) + sum of the inclusive
 * costs of calls leaving C, given to every member, clamped to the total. */
int profdb__cg_build_inclusive(void *arg)
{
	profdb_cg *cg = arg;
	uint32_t nf = cg->n_fns, nc = cg->n_calls;
	size_t ne = cg->n_events;
	int r = 0;
	if (nf == 0)
		return 0;
	uint32_t *start = calloc((size_t)nf + 1, sizeof *start);
	uint32_t *adj = malloc(((size_t)nc + 1) * sizeof *adj);
	uint32_t *idx = malloc((size_t)nf * sizeof *idx);
	uint32_t *low = malloc((size_t)nf * sizeof *low);
	uint32_t *comp = malloc((size_t)nf * sizeof *comp);
	uint32_t *stk = malloc((size_t)nf * sizeof *stk);
	uint32_t *cs_v = malloc((size_t)nf * sizeof *cs_v);
	uint32_t *cs_e = malloc((size_t)nf * sizeof *cs_e);
	unsigned char *on = calloc(nf, 1);
	uint64_t *csum = NULL;
	uint64_t *incl = malloc((size_t)nf * ne * sizeof *incl);
	if (!start || !adj || !idx || !low || !comp || !stk || !cs_v || !cs_e || !on || !incl) {
		r = profdb__fail(-ENOMEM, "callgrind: out of memory");
		goto out;
	}
	for (uint32_t c = 0; c < nc; c++)
		start[cg->calls[c].caller + 1]++;
	for (uint32_t f = 0; f < nf; f++)
		start[f + 1] += start[f];
	{
		uint32_t *fill = malloc((size_t)nf * sizeof *fill);
		if (!fill) {
			r = profdb__fail(-ENOMEM, "callgrind: out of memory");
			goto out;
		}
		memcpy(fill, start, (size_t)nf * sizeof *fill);
		for (uint32_t c = 0; c < nc; c++)
			adj[fill[cg->calls[c].caller]++] = c;
		free(fill);
	}
	for (uint32_t f = 0; f < nf; f++)
		idx[f] = CG_EMPTY;
	uint32_t next_idx = 0, sp = 0, n_comp = 0;
	for (uint32_t root = 0; root < nf; root++) {
		if (idx[root] != CG_EMPTY)
			continue;
		uint32_t depth = 0;
		cs_v[0] = root;
		cs_e[0] = start[root];
		idx[root] = low[root] = next_idx++;
		stk[sp++] = root;
		on[root] = 1;
		depth = 1;
		while (depth) {
			uint32_t v = cs_v[depth - 1];
			if (cs_e[depth - 1] < start[v + 1]) {
				uint32_t w = cg->calls[adj[cs_e[depth - 1]++]].callee;
				if (idx[w] == CG_EMPTY) {
					idx[w] = low[w] = next_idx++;
					stk[sp++] = w;
					on[w] = 1;
					cs_v[depth] = w;
					cs_e[depth] = start[w];
					depth++;
				} else if (on[w] && idx[w] < low[v]) {
					low[v] = idx[w];
				}
				continue;
			}
			if (low[v] == idx[v]) {
				uint32_t w;
				do {
					w = stk[--sp];
					on[w] = 0;
					comp[w] = n_comp;
				} while (w != v);
				n_comp++;
			}
			depth--;
			if (depth) {
				uint32_t u = cs_v[depth - 1];
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
	csum = calloc((size_t)n_comp * ne, sizeof *csum);
	if (!csum) {
		r = profdb__fail(-ENOMEM, "callgrind: out of memory");
		goto out;
	}
	for (uint32_t f = 0; f < nf; f++) {
		uint64_t *d = csum + (size_t)comp[f] * ne;
		const uint64_t *s = cg->self + (size_t)f * ne;
		for (size_t e = 0; e < ne; e++)
			if (__builtin_add_overflow(d[e], s[e], &d[e]))
				d[e] = UINT64_MAX;
	}
	for (uint32_t c = 0; c < nc; c++) {
		uint32_t a = comp[cg->calls[c].caller], b = comp[cg->calls[c].callee];
		if (a == b)
			continue;
		uint64_t *d = csum + (size_t)a * ne;
		const uint64_t *s = cg->call_incl + (size_t)c * ne;
		for (size_t e = 0; e < ne; e++)
			if (__builtin_add_overflow(d[e], s[e], &d[e]))
				d[e] = UINT64_MAX;
	}
	for (uint32_t f = 0; f < nf; f++) {
		const uint64_t *s = csum + (size_t)comp[f] * ne;
		uint64_t *d = incl + (size_t)f * ne;
		for (size_t e = 0; e < ne; e++)
			d[e] = s[e] < cg->totals[e] ? s[e] : cg->totals[e];
	}
	cg->incl = incl;
	incl = NULL;
out:
	free(start);
	free(adj);
	free(idx);
	free(low);
	free(comp);
	free(stk);
	free(cs_v);
	free(cs_e);
	free(on);
	free(csum);
	free(incl);
	return r;
}
