/* Callgrind model after the scan: derived events, per-profile rows sorted,
 * sums over profiles (functions, call edges, totals); the inclusive costs
 * are in cycles.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind-internal.h"

/* ---- derived events ------------------------------------------------------ */

static int find_event(const profdb_cg *cg, uint32_t upto, const char *p, size_t n)
{
	for (uint32_t e = 0; e < upto; e++)
		if (cg->events[e].name.len == n && memcmp(cg->events[e].name.p, p, n) == 0)
			return (int)e;
	return -1;
}

/* "Name | Number [*] Name | Expr + Expr" (spec: InheritedExpr). Terms must
 * name stored events; a coefficient is a non-negative integer. 0, or -1
 * with @p why (@p cap bytes) saying what is wrong. */
static int parse_formula(const profdb_cg *cg, cg_name f, cg_event *ev, char *why, size_t cap)
{
	const char *p = f.p, *end = f.p + f.len;
	ev->n_terms = 0;
	for (;;) {
		while (p < end && cg_is_space(*p))
			p++;
		uint64_t coef = 1;
		if (p < end && cg_is_digit(*p)) {
			const char *s = p;
			while (p < end && cg_is_digit(*p))
				p++;
			if (profdb__cg_u64(s, (size_t)(p - s), &coef) < 0) {
				snprintf(why, cap, "has a coefficient that overflows 64 bits");
				return -1;
			}
			if (p < end && !cg_is_space(*p) && *p != '*') {
				while (p < end && !cg_is_space(*p) && *p != '*' && *p != '+')
					p++;
				snprintf(why, cap, "has a coefficient \"%.*s\" that is not a "
				         "non-negative integer", (int)(p - s), s);
				return -1;
			}
			while (p < end && cg_is_space(*p))
				p++;
			if (p < end && *p == '*')
				p++;
			while (p < end && cg_is_space(*p))
				p++;
		}
		const char *s = p;
		while (p < end && !cg_is_space(*p) && *p != '+')
			p++;
		if (p == s) {
			snprintf(why, cap, "has a term without an event name");
			return -1;
		}
		int e = find_event(cg, cg->n_stored, s, (size_t)(p - s));
		if (e < 0 && (*s == '-' || *s == '.' || cg_is_digit(*s))) {
			snprintf(why, cap, "has a coefficient \"%.*s\" that is not a non-negative "
			         "integer", (int)(p - s), s);
			return -1;
		}
		if (e < 0) {
			snprintf(why, cap, "names \"%.*s\", an event that is not in any events: line",
			         (int)(p - s) > 64 ? 64 : (int)(p - s), s);
			return -1;
		}
		if (ev->n_terms >= CG_MAX_TERMS) {
			snprintf(why, cap, "has more than 16 terms");
			return -1;
		}
		ev->terms[ev->n_terms++] = (cg_term){(uint32_t)e, coef};
		while (p < end && cg_is_space(*p))
			p++;
		if (p == end)
			return 0;
		if (*p != '+') {
			snprintf(why, cap, "has \"%c\" where '+' should join two terms", *p);
			return -1;
		}
		p++;
	}
}

int profdb__cg_derive(const profdb_cg *cg, uint64_t *row)
{
	for (uint32_t e = cg->n_stored; e < cg->n_events; e++) {
		const cg_event *ev = &cg->events[e];
		uint64_t v = 0, t;
		for (uint32_t i = 0; i < ev->n_terms; i++) {
			/* Saturate: a derived value is a view, not stored data. */
			if (__builtin_mul_overflow(ev->terms[i].coef, row[ev->terms[i].event], &t) ||
			    __builtin_add_overflow(v, t, &v)) {
				v = UINT64_MAX;
				break;
			}
		}
		row[e] = v;
	}
	return 0;
}

static int add_derived(profdb_cg *cg, cg_build *b)
{
	cg->n_stored = cg->n_events;
	for (uint32_t i = 0; i < b->n_defs; i++) {
		const cg_evdef *d = &b->defs[i];
		int e = find_event(cg, cg->n_events, d->name.p, d->name.len);
		if (d->formula.len == 0) {
			if (e >= 0)
				cg->events[e].long_name = d->long_name;
			continue;
		}
		if (e >= 0 && (uint32_t)e < cg->n_stored) {
			profdb__warn(&cg->opts,
			             "%s: line %" PRIu64 ": event %.*s is stored in the file; its "
			             "formula is ignored",
			             cg->files[d->file].label, d->lineno, (int)d->name.len, d->name.p);
			cg->events[e].long_name = d->long_name.len ? d->long_name : cg->events[e].long_name;
			continue;
		}
		if (e >= 0) {
			profdb__warn(&cg->opts, "%s: line %" PRIu64 ": event %.*s defined twice; first kept",
			             cg->files[d->file].label, d->lineno, (int)d->name.len, d->name.p);
			continue;
		}
		if (cg->n_events >= CG_MAX_EVENTS)
			return profdb__fail(-EBADMSG, "%s: line %" PRIu64 ": more than %u events",
			                    cg->files[d->file].label, d->lineno, CG_MAX_EVENTS);
		if (!cg->events) {
			cg->events = calloc(CG_MAX_EVENTS, sizeof *cg->events);
			if (!cg->events)
				return profdb__fail(-ENOMEM, "callgrind: out of memory");
		}
		cg_event *ev = &cg->events[cg->n_events];
		memset(ev, 0, sizeof *ev);
		char why[160] = "";
		if (parse_formula(cg, d->formula, ev, why, sizeof why) < 0) {
			profdb__warn(&cg->opts,
			             "%s: line %" PRIu64 ": derived event %.*s dropped: formula \"%.*s\" %s",
			             cg->files[d->file].label, d->lineno, (int)d->name.len, d->name.p,
			             (int)d->formula.len, d->formula.p, why);
			memset(ev, 0, sizeof *ev);
			continue;
		}
		ev->name = d->name;
		ev->formula = d->formula;
		ev->long_name = d->long_name;
		cg_event keep = *ev;
		uint32_t ne = cg->n_events;
		int r = profdb__cg_widen(cg, ne + 1);  /* new column, zero */
		if (r < 0)
			return r;
		cg->events[ne] = keep;
	}
	if (cg->n_events == cg->n_stored)
		return 0;
	size_t ne = cg->n_events;
	for (uint32_t i = 0; i < cg->n_rows; i++)
		profdb__cg_derive(cg, cg->row_cost + i * ne);
	for (uint32_t i = 0; i < cg->n_crows; i++)
		profdb__cg_derive(cg, cg->crow_cost + i * ne);
	for (uint32_t p = 0; p < cg->n_profiles; p++) {
		profdb__cg_derive(cg, cg->p_summary + p * ne);
		profdb__cg_derive(cg, cg->p_totline + p * ne);
	}
	return 0;
}

/* ---- sorting --------------------------------------------------------------- */

typedef struct ord {
	uint64_t k1, k2;
	uint32_t idx;
} ord;

static int cmp_ord(const void *a, const void *b)
{
	const ord *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reorder @p rows (elem bytes each) and @p costs (ne each) by @p o. */
static int permute(void *rows, size_t elem, uint64_t *costs, size_t ne, const ord *o, uint32_t n)
{
	unsigned char *nr = profdb__cg_array(n, 1, elem);
	uint64_t *nc = ne && costs ? profdb__cg_array(n, ne, sizeof *nc) : NULL;
	if (!nr || (ne && costs && !nc)) {
		free(nr);
		free(nc);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		memcpy(nr + (size_t)i * elem, (unsigned char *)rows + (size_t)o[i].idx * elem, elem);
		if (nc)
			memcpy(nc + (size_t)i * ne, costs + (size_t)o[i].idx * ne, ne * sizeof *nc);
	}
	memcpy(rows, nr, (size_t)n * elem);
	if (nc)
		memcpy(costs, nc, (size_t)n * ne * sizeof *nc);
	free(nr);
	free(nc);
	return 0;
}

static int add_row(const profdb_cg *cg, uint64_t *d, const uint64_t *s, const char *what)
{
	for (uint32_t e = 0; e < cg->n_stored; e++)
		if (__builtin_add_overflow(d[e], s[e], &d[e]))
			return profdb__fail(-EBADMSG, "%s: %s of event %.*s overflows 64 bits",
			                    cg->files[0].label, what, (int)cg->events[e].name.len,
			                    cg->events[e].name.p);
	return 0;
}

uint32_t profdb__cg_find_row(const profdb_cg *cg, uint32_t profile, uint32_t fn)
{
	const cg_profile *p = &cg->profiles[profile];
	/* A profile that holds every function up to fn (one file's usual
	 * case) has fn's row at place fn: the first row of fn there is the one
	 * the search finds, without its cache misses. */
	if (fn < p->n_rows) {
		const cg_row *at = cg->rows + p->row_first + fn;
		if (at->fn == fn && (fn == 0 || at[-1].fn < fn))
			return p->row_first + fn;
	}
	profdb_view v = profdb__cg_u32_view(cg->rows + p->row_first, p->n_rows, sizeof *cg->rows,
	                                    offsetof(cg_row, fn));
	uint64_t i;
	return profdb_view_find(&v, fn, &i) == 1 ? p->row_first + (uint32_t)i : CG_EMPTY;
}

static int rows_sorted(const profdb_cg *cg)
{
	for (uint32_t i = 1; i < cg->n_rows; i++) {
		const cg_row *x = &cg->rows[i - 1], *y = &cg->rows[i];
		if (x->profile > y->profile || (x->profile == y->profile && x->fn >= y->fn))
			return 0;
	}
	return 1;
}

static int crows_sorted(const profdb_cg *cg)
{
	for (uint32_t i = 1; i < cg->n_crows; i++) {
		const cg_crow *x = &cg->crows[i - 1], *y = &cg->crows[i];
		if (x->profile > y->profile || (x->profile == y->profile && x->edge >= y->edge))
			return 0;
	}
	return 1;
}

/* A zeroed table of @p n rows of @p ne values (never NULL: one spare). */
static uint64_t *zrows(size_t n, size_t ne)
{
	size_t bytes;
	if (profdb__cg_bytes(n, ne, sizeof(uint64_t), &bytes) < 0)
		return NULL;
	return calloc(1, bytes + sizeof(uint64_t));
}

static int finish_alloc(profdb_cg *cg)
{
	size_t ne = cg->n_events;
	cg->zero = zrows(1, ne);
	cg->totals = zrows(1, ne);
	cg->summary = zrows(1, ne);
	cg->totline = zrows(1, ne);
	if (!cg->p_totals && cg->n_profiles)
		cg->p_totals = zrows(cg->n_profiles, ne);
	if (!cg->zero || !cg->totals || !cg->summary || !cg->totline ||
	    (cg->n_profiles && !cg->p_totals))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	return 0;
}

/* Self rows by (profile, fn), the profiles' row ranges, self sums over
 * profiles and the profiles' totals. */
static int finish_self(profdb_cg *cg)
{
	size_t ne = cg->n_events;
	int r;
	/* Already in order for one profile: the scanner creates the row with
	 * the function. */
	if (!rows_sorted(cg)) {
		ord *o = malloc(((size_t)cg->n_rows + 1) * sizeof *o);
		if (!o)
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		for (uint32_t i = 0; i < cg->n_rows; i++)
			o[i] = (ord){cg->rows[i].profile, cg->rows[i].fn, i};
		qsort(o, cg->n_rows, sizeof *o, cmp_ord);
		r = permute(cg->rows, sizeof *cg->rows, cg->row_cost, ne, o, cg->n_rows);
		free(o);
		if (r < 0)
			return r;
	}
	/* One profile holding every function once: the sums are the rows. */
	cg->self_alias = cg->n_profiles == 1 && cg->n_rows == cg->n_fns && cg->n_rows > 0;
	if (cg->self_alias)
		cg->self = cg->row_cost;
	else if (!(cg->self = zrows(cg->n_fns, ne)))
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	for (uint32_t i = 0; i < cg->n_rows; i++) {
		const cg_row *w = &cg->rows[i];
		cg_profile *p = &cg->profiles[w->profile];
		if (p->n_rows++ == 0)
			p->row_first = i;
		const uint64_t *c = cg->row_cost + (size_t)i * ne;
		if (!cg->self_alias && (r = add_row(cg, cg->self + (size_t)w->fn * ne, c, "self cost")) < 0)
			return r;
		if ((r = add_row(cg, cg->p_totals + (size_t)w->profile * ne, c, "total")) < 0)
			return r;
	}
	if (!cg->self_alias)
		for (uint32_t f = 0; f < cg->n_fns; f++)
			profdb__cg_derive(cg, cg->self + (size_t)f * ne);
	return 0;
}

/* Edges are keyed by (caller, callee). */
static uint64_t edge_key_hash(const cg_edge *e)
{
	return profdb__mix64((uint64_t)e->caller << 32 | e->callee);
}

static uint64_t edge_hash(const void *ctx, uint32_t e)
{
	return edge_key_hash(&((const profdb_cg *)ctx)->edges[e]);
}

static int edge_eq(const void *ctx, uint32_t e, const void *key)
{
	const cg_edge *x = &((const profdb_cg *)ctx)->edges[e], *k = key;
	return x->caller == k->caller && x->callee == k->callee;
}

/* The edge of every call row (edges numbered in order of first appearance). */
static int number_edges(profdb_cg *cg)
{
	profdb__hindex m;
	size_t cap = 0;
	int r = profdb__hindex_init(&m, cg->n_crows < 65536 ? cg->n_crows : 65536);
	for (uint32_t i = 0; i < cg->n_crows && r == 0; i++) {
		cg_crow *c = &cg->crows[i];
		cg_edge k = {0, c->caller, c->callee, 0, 0};
		uint32_t *slot = profdb__hindex_slot(&m, edge_key_hash(&k), edge_eq, cg, &k);
		if (*slot) {
			c->edge = *slot - 1;
			continue;
		}
		r = profdb__cg_grow((void **)&cg->edges, &cap, (uint64_t)cg->n_edges + 1,
		                    sizeof *cg->edges);
		if (r < 0)
			break;
		k.edge = cg->n_edges;
		cg->edges[cg->n_edges] = k;
		c->edge = cg->n_edges++;
		*slot = cg->n_edges;
		r = profdb__hindex_added(&m, edge_hash, cg);  /* may move the slots */
	}
	profdb__hindex_free(&m);
	if (r == 0 && !cg->edges && !(cg->edges = calloc(1, sizeof *cg->edges)))
		r = profdb__fail(-ENOMEM, "callgrind: out of memory");
	return r;
}

/* Call rows: edges summed over profiles, then rows by (profile, edge). */
int profdb__cg_finish_calls(profdb_cg *cg)
{
	size_t ne = cg->n_events;
	int r;
	/* One profile: each call row is a distinct (caller, callee), so the
	 * rows are the edges, in the order they were met. */
	cg->edge_alias = cg->n_profiles == 1 && cg->n_crows > 0;
	if (cg->edge_alias) {
		for (uint32_t i = 0; i < cg->n_crows; i++)
			cg->crows[i].edge = i;
		cg->edges = cg->crows;
		cg->n_edges = cg->n_crows;
		cg->edge_cost = cg->crow_cost;
	} else if ((r = number_edges(cg)) < 0) {
		return r;
	} else if (!(cg->edge_cost = zrows(cg->n_edges, ne))) {
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	for (uint32_t i = 0; i < cg->n_crows && !cg->edge_alias; i++) {
		const cg_crow *c = &cg->crows[i];
		cg_edge *e = &cg->edges[c->edge];
		if (__builtin_add_overflow(e->count, c->count, &e->count))
			return profdb__fail(-EBADMSG, "%s: call count summed over profiles overflows "
			                    "64 bits", cg->files[0].label);
		r = add_row(cg, cg->edge_cost + (size_t)c->edge * ne, cg->crow_cost + (size_t)i * ne,
		            "inclusive call cost");
		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < cg->n_edges && !cg->edge_alias; i++)
		profdb__cg_derive(cg, cg->edge_cost + (size_t)i * ne);
	if (!crows_sorted(cg)) {
		ord *o = malloc(((size_t)cg->n_crows + 1) * sizeof *o);
		if (!o)
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		for (uint32_t i = 0; i < cg->n_crows; i++)
			o[i] = (ord){cg->crows[i].profile, cg->crows[i].edge, i};
		qsort(o, cg->n_crows, sizeof *o, cmp_ord);
		r = permute(cg->crows, sizeof *cg->crows, cg->crow_cost, ne, o, cg->n_crows);
		free(o);
		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < cg->n_crows; i++) {
		cg_profile *p = &cg->profiles[cg->crows[i].profile];
		if (p->n_crows++ == 0)
			p->crow_first = i;
	}
	return 0;
}

/* The totals: line of profile @p p against its computed totals @p pt. */
static void sum_totals_line(profdb_cg *cg, uint32_t p, const uint64_t *pt)
{
	const cg_profile *pr = &cg->profiles[p];
	const uint64_t *tl = cg->p_totline + (size_t)p * cg->n_events;
	cg->has_totals = 1;
	for (uint32_t e = 0; e < cg->n_stored; e++) {
		if (__builtin_add_overflow(cg->totline[e], tl[e], &cg->totline[e]))
			cg->totline[e] = UINT64_MAX;
	}
	for (uint32_t e = 0; e < cg->n_stored; e++) {
		if (tl[e] != pt[e]) {
			profdb__warn(&cg->opts,
			             "%s: profile %" PRIu32 ": totals: of event %.*s is %" PRIu64
			             " but the self costs add up to %" PRIu64,
			             cg->files[pr->file].label, p, (int)cg->events[e].name.len,
			             cg->events[e].name.p, tl[e], pt[e]);
			break;
		}
	}
}

/* A part of a file valgrind's callgrind wrote, with summary: but no
 * totals:. Callgrind writes totals: last in every part, so the part was cut
 * short (head -n of a file cuts at a line boundary and parses). The first
 * event whose summary: differs from the self costs is named, or the first
 * event when they agree (cut just before totals:). Other writers (Xdebug,
 * pyprof2calltree) write no totals: and a summary: of their own meaning
 * (doc/FORMATS.md): they are not warned about. */
static void warn_cut_short(profdb_cg *cg, uint32_t p, const uint64_t *pt)
{
	const cg_profile *pr = &cg->profiles[p];
	const uint64_t *sl = cg->p_summary + (size_t)p * cg->n_events;
	uint32_t e = 0;
	while (e < cg->n_stored && sl[e] == pt[e])
		e++;
	if (e == cg->n_stored)
		e = 0;
	if (cg->n_stored == 0)
		profdb__warn(&cg->opts, "%s: profile %" PRIu32 ": summary: but no totals: line (the "
		             "file may be cut short)", cg->files[pr->file].label, p);
	else
		profdb__warn(&cg->opts,
		             "%s: profile %" PRIu32 ": no totals: line (the file may be cut short): "
		             "summary: of event %.*s is %" PRIu64 " but the self costs add up to %" PRIu64,
		             cg->files[pr->file].label, p, (int)cg->events[e].name.len,
		             cg->events[e].name.p, sl[e], pt[e]);
}

/* Totals over profiles, and the check of totals: lines. */
static int finish_totals(profdb_cg *cg)
{
	size_t ne = cg->n_events;
	int r;
	for (uint32_t p = 0; p < cg->n_profiles; p++) {
		const cg_profile *pr = &cg->profiles[p];
		uint64_t *pt = cg->p_totals + (size_t)p * ne;
		profdb__cg_derive(cg, pt);
		if ((r = add_row(cg, cg->totals, pt, "total")) < 0)
			return r;
		if (pr->has_summary) {
			cg->has_summary = 1;
			for (uint32_t e = 0; e < cg->n_stored; e++)
				if (__builtin_add_overflow(cg->summary[e], cg->p_summary[p * ne + e],
				                           &cg->summary[e]))
					cg->summary[e] = UINT64_MAX;
		}
		if (pr->has_totals)
			sum_totals_line(cg, p, pt);
		else if (pr->has_summary && cg->files[pr->file].from_callgrind)
			warn_cut_short(cg, p, pt);
	}
	profdb__cg_derive(cg, cg->totals);
	profdb__cg_derive(cg, cg->summary);
	profdb__cg_derive(cg, cg->totline);
	return 0;
}

int profdb__cg_finish(profdb_cg *cg, cg_build *b)
{
	int r;
	if ((r = add_derived(cg, b)) < 0 || (r = finish_alloc(cg)) < 0 ||
	    (r = finish_self(cg)) < 0 || (r = finish_totals(cg)) < 0)
		return r;
	cg->n_incl = profdb__cg_event_table(cg, cg->n_events);
	cg->incl_once = calloc(cg->n_incl, sizeof *cg->incl_once);
	cg->incl = calloc(cg->n_incl, sizeof *cg->incl);
	if (!cg->incl_once || !cg->incl) {
		free(cg->incl_once);
		free(cg->incl);
		cg->incl_once = NULL;
		cg->incl = NULL;
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	for (uint32_t i = 0; i < cg->n_incl; i++)
		profdb__once_init(&cg->incl_once[i]);
	return 0;
}
