/* profdb's statistics against hpcprof's stored summaries (stats-check.h).
 *
 * For every value of the summary profile stored under a statistic id,
 * meta.db's summary record says which metric, scope (hence which
 * propagated id), formula and combine produced it. The expected value is
 * profdb's statistic of that propagated id at that context over the thread
 * profiles: the sum for "$$"/sum, the min or max for "$$"/min or max, the
 * count for "1", and the sum of squares (read from the context's values)
 * for "($$^2)". A sum agrees within 2*gamma(n-1)*sum|v|, gamma(k) =
 * k*u/(1-k*u), u = 2^-53: both hpcprof's left fold, in an order the
 * database does not record, and profdb's ascending-order fold are within
 * gamma(n-1)*sum|v| of the exact sum. Min, max and count must be exact.
 * A disagreement is then tested against hpcprof's documented defects,
 * except a lex_aware value at a loop context: hpcprof stores the loop's own
 * body there, which profdb does not recompute, so such a disagreement is
 * counted as unchecked and is never called a defect. The statistics are
 * hpcprof's: count, sum, min and max over the profiles with a value. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats-check.h"

enum { F_VALUE, F_SQUARE, F_COUNT, F_OTHER };

typedef struct stat_entry {
	int valid;
	uint16_t prop;
	uint8_t combine;      /* PROFDB_HPCTK_COMBINE_* */
	uint8_t formula;      /* F_* */
	int lex_aware;
	uint32_t metric;      /* meta.db metric index */
	char name[32];        /* "sum", "min", ... or the formula */
} stat_entry;

typedef struct checker {
	const profdb *db;
	const profdb_hpctk *h;
	const profdb_stats *st;
	stat_entry *map;      /* by statistic id (u16) */
	profdb_view sidx, sval;   /* the summary profile */
	sc_result *res;
} checker;

const char *sc_reason_name(sc_reason r)
{
	switch (r) {
	case SC_SQUARE_STORES_SUM: return "hpcprof-square-stores-sum";
	case SC_COUNT_ANY_SCOPE: return "hpcprof-count-any-scope";
	case SC_UNCHECKED_LEX_AWARE: return "unchecked-lex-aware-loop";
	case SC_MIN_ZERO_UNSET: return "hpcprof-min-zero-unset";
	case SC_ZERO_NOT_STORED: return "hpcprof-zero-not-stored";
	default: return "none";
	}
}

static double gamma_k(uint64_t k)
{
	const double u = ldexp(1.0, -53);
	return (double)k * u / (1.0 - (double)k * u);
}

static int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

static int is_formula(profdb_str f, const char *s)
{
	return f.len == strlen(s) && memcmp(f.ptr, s, f.len) == 0;
}

/* meta.db's summary records: statistic id -> propagated id, formula, combine. */
static int build_map(checker *c)
{
	int64_t n = profdb_hpctk_metric_count(c->h);
	if (n < 0)
		return (int)n;
	for (uint32_t m = 0; m < (uint64_t)n; m++) {
		profdb_hpctk_metric md;
		int r = profdb_hpctk_metric_at(c->h, m, &md);
		if (r < 0)
			return r;
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			if ((r = profdb_hpctk_metric_summary_at(c->h, m, i, &s)) < 0)
				return r;
			stat_entry *e = &c->map[s.stat_metric_id];
			for (uint32_t j = 0; j < md.n_props && !e->valid; j++) {
				profdb_hpctk_prop p;
				if ((r = profdb_hpctk_metric_prop_at(c->h, m, j, &p)) < 0)
					return r;
				if (!same_str(p.scope, s.scope))
					continue;
				e->valid = 1;
				e->prop = p.prop_metric_id;
				e->combine = s.combine;
				e->metric = m;
				e->lex_aware = is_formula(s.scope, "lex_aware");
				e->formula = is_formula(s.formula, "$$") ? F_VALUE
				           : is_formula(s.formula, "($$^2)") ? F_SQUARE
				           : is_formula(s.formula, "1") ? F_COUNT : F_OTHER;
				const char *cn = s.combine == PROFDB_HPCTK_COMBINE_SUM ? "sum"
				               : s.combine == PROFDB_HPCTK_COMBINE_MIN ? "min"
				               : s.combine == PROFDB_HPCTK_COMBINE_MAX ? "max" : "combine?";
				if (e->formula == F_VALUE)
					snprintf(e->name, sizeof e->name, "%s", cn);
				else if (e->formula == F_SQUARE && s.combine == PROFDB_HPCTK_COMBINE_SUM)
					snprintf(e->name, sizeof e->name, "sum of squares");
				else if (e->formula == F_COUNT && s.combine == PROFDB_HPCTK_COMBINE_SUM)
					snprintf(e->name, sizeof e->name, "count");
				else
					snprintf(e->name, sizeof e->name, "%s(%.*s)", cn, (int)s.formula.len,
					         s.formula.ptr);
			}
		}
	}
	return 0;
}

/* The thread values of (ctx, prop), from the context's view: sum |v|,
 * sum v^2 (ascending profile order) and how many. */
static int terms(const checker *c, uint32_t ctx, uint32_t prop, double *abs_sum, double *sq_sum,
                 double *sum)
{
	profdb_view idx, val;
	uint64_t k;
	*abs_sum = *sq_sum = *sum = 0;
	int r = profdb_context_view(c->db, ctx, &idx, &val);
	if (r < 0)
		return r;
	if (profdb_view_find(&idx, prop, &k) != 1)
		return 0;
	profdb_view run = profdb_view_run(&idx, k, &val);
	PROFDB_VIEW_FOREACH(&run, j) {
		if (profdb_view_key(&run, j) == c->res->summary)
			continue;
		double v = profdb_number_to_double(profdb_view_value(&run, j));
		*abs_sum += fabs(v);
		*sq_sum += v * v;
		*sum += v;
	}
	return 0;
}

/* Profiles with any propagated id of the metric at @p ctx (hpcprof's count). */
static int64_t any_scope_count(const checker *c, uint32_t ctx, uint32_t metric)
{
	profdb_hpctk_metric md;
	int64_t np = profdb_profile_count(c->db), n = 0;
	int r = profdb_hpctk_metric_at(c->h, metric, &md);
	if (r < 0 || np < 0)
		return r < 0 ? r : np;
	for (uint32_t p = 0; p < (uint64_t)np; p++) {
		if (p == c->res->summary)
			continue;
		int any = 0;
		for (uint32_t j = 0; j < md.n_props && !any; j++) {
			profdb_hpctk_prop pr;
			double v;
			if ((r = profdb_hpctk_metric_prop_at(c->h, metric, j, &pr)) < 0 ||
			    (r = profdb_hpctk_value(c->h, p, ctx, pr.prop_metric_id, &v)) < 0)
				return r;
			any = r;
		}
		n += any;
	}
	return n;
}

static int is_loop(const checker *c, uint32_t ctx)
{
	profdb_hpctk_context hc;
	return profdb_hpctk_context_get(c->h, ctx, &hc) == 0 && hc.lexical_type == PROFDB_LEX_LOOP;
}

static int add_issue(sc_result *res, sc_issue *is, const stat_entry *e)
{
	memcpy(is->statistic, e->name, sizeof is->statistic);
	if (res->n_issues == res->cap) {
		size_t nc = res->cap ? 2 * res->cap : 64;
		sc_issue *ni = realloc(res->issues, nc * sizeof *ni);
		if (!ni)
			return -ENOMEM;
		res->issues = ni;
		res->cap = nc;
	}
	res->issues[res->n_issues++] = *is;
	return 0;
}

static int agrees(double stored, double expected, double bound)
{
	if (isnan(stored) || isnan(expected))
		return isnan(stored) && isnan(expected);
	return stored == expected || fabs(stored - expected) <= bound;
}

/* One stored summary value. */
static int check_one(checker *c, uint32_t ctx, uint32_t sid, double stored)
{
	const stat_entry *e = &c->map[sid];
	sc_issue is = {ctx, sid, e->prop, 0, "", stored, NAN, 0, 0, SC_NONE};
	profdb_stat s;
	double abs_sum = 0, sq_sum = 0, plain = 0;
	int r = profdb_stats_get(c->st, ctx, e->prop, &s);
	if (r < 0)
		return r;
	is.terms = s.count;
	int sum = e->combine == PROFDB_HPCTK_COMBINE_SUM;
	if (r && (e->formula == F_SQUARE || (e->formula == F_VALUE && sum && !(s.min >= 0))))
		if ((r = terms(c, ctx, e->prop, &abs_sum, &sq_sum, &plain)) < 0)
			return r;
	if (s.count && e->formula == F_VALUE && sum) {
		is.expected = s.sum;
		is.bound = 2 * gamma_k(s.count - 1) * (s.min >= 0 ? s.sum : abs_sum);
	} else if (s.count && e->formula == F_VALUE && e->combine == PROFDB_HPCTK_COMBINE_MIN) {
		is.expected = s.min;
	} else if (s.count && e->formula == F_VALUE && e->combine == PROFDB_HPCTK_COMBINE_MAX) {
		is.expected = s.max;
	} else if (s.count && e->formula == F_SQUARE && sum) {
		is.expected = sq_sum;
		is.bound = 2 * gamma_k(s.count - 1) * sq_sum;
	} else if (s.count && e->formula == F_COUNT && sum) {
		is.expected = (double)s.count;
	}
	c->res->checked++;
	if (agrees(stored, is.expected, is.bound)) {
		c->res->agree++;
		return 0;
	}
	/* hpcprof's lex_aware value at a loop is the loop's own body, which
	 * the thread profiles' lex_aware values do not give: no evidence either
	 * way, so the value is reported as unchecked, not as a defect. */
	if (e->lex_aware && is_loop(c, ctx)) {
		is.reason = SC_UNCHECKED_LEX_AWARE;
		c->res->unchecked++;
		return add_issue(c->res, &is, e) < 0 ? -ENOMEM : 0;
	}
	/* Which documented defect, if any, explains it. */
	if (s.count && e->formula == F_SQUARE && sum &&
	         agrees(stored, s.sum, 2 * gamma_k(s.count - 1) * abs_sum))
		is.reason = SC_SQUARE_STORES_SUM;
	else if (s.count && e->formula == F_VALUE && e->combine == PROFDB_HPCTK_COMBINE_MIN &&
	         s.min == 0)
		is.reason = SC_MIN_ZERO_UNSET;
	else if (e->formula == F_COUNT && sum) {
		int64_t any = any_scope_count(c, ctx, e->metric);
		if (any < 0)
			return (int)any;
		if ((double)any == stored)
			is.reason = SC_COUNT_ANY_SCOPE;
	}
	if (is.reason)
		c->res->explained++;
	else
		c->res->unexplained++;
	return add_issue(c->res, &is, e) < 0 ? -ENOMEM : 0;
}

/* Thread values whose statistic @p sid has no stored summary value. */
static int check_missing(checker *c, uint32_t sid)
{
	const stat_entry *e = &c->map[sid];
	profdb_view v;
	int r = profdb_stats_view(c->st, e->prop, offsetof(profdb_stat, sum), &v);
	if (r < 0)
		return r;
	PROFDB_VIEW_FOREACH(&v, i) {
		uint32_t ctx = (uint32_t)profdb_view_key(&v, i);
		uint64_t k, j;
		if (profdb_view_find(&c->sidx, ctx, &k) == 1) {
			profdb_view run = profdb_view_run(&c->sidx, k, &c->sval);
			if (profdb_view_find(&run, sid, &j) == 1)
				continue;
		}
		profdb_stat s;
		profdb_stats_get(c->st, ctx, e->prop, &s);
		sc_issue is = {ctx, sid, e->prop, 1, "", NAN, NAN, 0, s.count, SC_NONE};
		int sum = e->combine == PROFDB_HPCTK_COMBINE_SUM;
		is.expected = e->formula == F_COUNT ? (double)s.count
		            : e->formula == F_VALUE && e->combine == PROFDB_HPCTK_COMBINE_MIN ? s.min
		            : e->formula == F_VALUE && e->combine == PROFDB_HPCTK_COMBINE_MAX ? s.max
		            : s.sum;
		/* hpcprof stores no zero result (a sum of squares is 0 only with the sum) */
		if (is.expected == 0 && (sum || e->formula == F_VALUE))
			is.reason = SC_ZERO_NOT_STORED;
		else if (e->lex_aware && is_loop(c, ctx))   /* not recomputed (check_one) */
			is.reason = SC_UNCHECKED_LEX_AWARE;
		c->res->missing++;
		c->res->missing_unchecked += is.reason == SC_UNCHECKED_LEX_AWARE;
		c->res->missing_explained += is.reason != SC_NONE && is.reason != SC_UNCHECKED_LEX_AWARE;
		if (add_issue(c->res, &is, e) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int find_summary(const profdb *db, uint32_t *out)
{
	int64_t n = profdb_profile_count(db);
	if (n < 0)
		return (int)n;
	for (uint32_t p = 0; p < (uint64_t)n; p++) {
		profdb_profile pr;
		int r = profdb_profile_get(db, p, &pr);
		if (r < 0)
			return r;
		if (pr.is_summary) {
			*out = p;
			return 0;
		}
	}
	return -ENOTSUP;
}

int sc_check(const profdb *db, unsigned threads, sc_result *out)
{
	checker c = {db, profdb_get_hpctk(db), NULL, NULL, {0}, {0}, out};
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	profdb_stats *st = NULL;
	memset(out, 0, sizeof *out);
	if (!c.h)
		return -ENOTSUP;
	int r = find_summary(db, &out->summary);
	if (r < 0)
		return r;
	if (!(c.map = calloc(65536, sizeof *c.map)))
		return -ENOMEM;
	o.threads = threads;
	if ((r = build_map(&c)) < 0 || (r = profdb_stats_new(&st, db, &o)) < 0 ||
	    (r = profdb_profile_view(db, out->summary, &c.sidx, &c.sval)) < 0)
		goto done;
	c.st = st;
	out->stored = c.sval.count;
	PROFDB_VIEW_FOREACH(&c.sidx, i) {
		uint32_t ctx = (uint32_t)profdb_view_key(&c.sidx, i);
		profdb_view run = profdb_view_run(&c.sidx, i, &c.sval);
		PROFDB_VIEW_FOREACH(&run, j) {
			uint64_t sid = profdb_view_key(&run, j);
			if (sid > 65535 || !c.map[sid].valid) {
				out->unknown_ids++;
				continue;
			}
			double v = profdb_number_to_double(profdb_view_value(&run, j));
			if ((r = check_one(&c, ctx, (uint32_t)sid, v)) < 0)
				goto done;
		}
	}
	for (uint32_t sid = 0; sid < 65536; sid++)
		if (c.map[sid].valid && (r = check_missing(&c, sid)) < 0)
			goto done;
	r = 0;
done:
	profdb_stats_free(st);
	free(c.map);
	if (r < 0)
		sc_free(out);
	return r;
}

void sc_free(sc_result *r)
{
	free(r->issues);
	r->issues = NULL;
	r->n_issues = r->cap = 0;
}
