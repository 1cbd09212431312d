/* profdb's statistics against the summaries a format stores
 * (profdb_summary_check_new(), profdb/analysis.h).
 *
 * The backend names, for every statistic id of the summary profile, the
 * metric id it combines, the rule and the formula (summary_stats; HPCToolkit
 * 4.0: meta.db's summary records). The expected value is profdb's statistic
 * of that metric at that context over the other profiles: the sum for
 * "$$"/sum, the min or max for "$$"/min or max, the count for "1", and the
 * sum of squares (read from the context's values) for "($$^2)". A sum
 * agrees within 2*gamma(n-1)*sum|v|, gamma(k) = k*u/(1-k*u), u = 2^-53:
 * both hpcprof's left fold, in an order the database does not record, and
 * profdb's ascending-order fold are within gamma(n-1)*sum|v| of the exact
 * sum. Min, max and count must be exact. A disagreement is then tested
 * against hpcprof's documented defects, except a value of a scope that
 * keeps a loop's own body (lex_aware) at a loop context, which profdb does
 * not recompute: such a disagreement is counted as unchecked and is never
 * called a defect. The statistics are hpcprof's: count, sum, min and max
 * over the profiles with a value. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query-internal.h"
#include "core/search-internal.h"

enum { F_VALUE, F_SQUARE, F_COUNT, F_OTHER };

/* A statistic id: what it combines and how. */
typedef struct stat_entry {
	profdb__summary_stat s;
	uint32_t order;       /* the backend's order, first one of an id wins */
	uint8_t formula;      /* F_* */
	char *name;           /* "sum", "min", ... or the formula */
} stat_entry;

struct profdb_summary_check {
	profdb_summary_counts counts;
	stat_entry *stats;    /* by id, one per id */
	size_t n_stats;
	profdb_summary_issue *issues;
	size_t cap;
};

typedef struct checker {
	const profdb *db;
	const profdb_stats *st;
	profdb_view sidx, sval;   /* the summary profile */
	profdb_summary_check *res;
} checker;

const char *profdb_summary_reason_name(profdb_summary_reason reason)
{
	switch (reason) {
	case PROFDB_SUMMARY_SQUARE_STORES_SUM: return "hpcprof-square-stores-sum";
	case PROFDB_SUMMARY_COUNT_ANY_SCOPE: return "hpcprof-count-any-scope";
	case PROFDB_SUMMARY_UNCHECKED_LOOP: return "unchecked-lex-aware-loop";
	case PROFDB_SUMMARY_MIN_ZERO_UNSET: return "hpcprof-min-zero-unset";
	case PROFDB_SUMMARY_ZERO_NOT_STORED: return "hpcprof-zero-not-stored";
	default: return "none";
	}
}

static double gamma_k(uint64_t k)
{
	const double u = ldexp(1.0, -53);
	return (double)k * u / (1.0 - (double)k * u);
}

static int is_formula(profdb_str f, const char *s)
{
	return f.len == strlen(s) && memcmp(f.ptr, s, f.len) == 0;
}

static int cmp_stat(const void *a, const void *b)
{
	const stat_entry *x = a, *y = b;
	if (x->s.id != y->s.id)
		return x->s.id < y->s.id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The entry's name, as the summary records say it. */
static int name_stat(stat_entry *e)
{
	const profdb__summary_stat *s = &e->s;
	const char *cn = s->combine == PROFDB_COMBINE_SUM ? "sum"
	               : s->combine == PROFDB_COMBINE_MIN ? "min"
	               : s->combine == PROFDB_COMBINE_MAX ? "max" : "combine?";
	e->formula = is_formula(s->formula, "$$") ? F_VALUE
	           : is_formula(s->formula, "($$^2)") ? F_SQUARE
	           : is_formula(s->formula, "1") ? F_COUNT : F_OTHER;
	size_t cap = s->formula.len + 16;
	if (!(e->name = malloc(cap)))
		return -ENOMEM;
	if (e->formula == F_VALUE)
		snprintf(e->name, cap, "%s", cn);
	else if (e->formula == F_SQUARE && s->combine == PROFDB_COMBINE_SUM)
		snprintf(e->name, cap, "sum of squares");
	else if (e->formula == F_COUNT && s->combine == PROFDB_COMBINE_SUM)
		snprintf(e->name, cap, "count");
	else
		snprintf(e->name, cap, "%s(%.*s)", cn, (int)s->formula.len, s->formula.ptr);
	return 0;
}

/* The backend's statistics, sorted by id, the first of each id kept. */
static int load_stats(const profdb *db, profdb_summary_check *res)
{
	int64_t n = db->be->summary_stats(db->impl, NULL, 0);
	if (n < 0)
		return (int)n;
	profdb__summary_stat *raw = calloc(n ? (size_t)n : 1, sizeof *raw);
	stat_entry *e = calloc(n ? (size_t)n : 1, sizeof *e);
	int64_t got = raw && e ? db->be->summary_stats(db->impl, raw, (size_t)n) : -ENOMEM;
	int r = got < 0 ? (int)got
	      : got != n ? profdb__fail(-EIO, "the summary statistics changed while read") : 0;
	for (int64_t i = 0; r == 0 && i < n; i++) {
		e[i].s = raw[i];
		e[i].order = (uint32_t)i;
	}
	free(raw);
	if (r < 0) {
		free(e);
		return r;
	}
	if (n > 1)   /* qsort(NULL, 0, ...) is undefined */
		qsort(e, (size_t)n, sizeof *e, cmp_stat);
	size_t k = 0;
	for (int64_t i = 0; i < n; i++)
		if (!k || e[k - 1].s.id != e[i].s.id)
			e[k++] = e[i];
	res->stats = e;
	res->n_stats = k;
	for (size_t i = 0; i < k; i++)
		if ((r = name_stat(&e[i])) < 0)
			return r;
	return 0;
}

typedef struct stat_key {
	const stat_entry *stats;
	uint64_t id;
} stat_key;

static int stat_before(const void *ctx, size_t i)
{
	const stat_key *k = ctx;
	return k->stats[i].s.id < k->id;
}

static const stat_entry *stat_by_id(const profdb_summary_check *res, uint64_t id)
{
	stat_key key = {res->stats, id};
	size_t lo = profdb__lower_bound(0, res->n_stats, &key, stat_before);
	return lo < res->n_stats && res->stats[lo].s.id == id ? &res->stats[lo] : NULL;
}

/* The thread profiles' values of (ctx, metric), from the context's view
 * (which holds no summary profile): sum |v|, sum v^2 (ascending profile
 * order) and sum v. */
static int terms(const checker *c, uint32_t ctx, uint32_t metric, double *abs_sum,
                 double *sq_sum, double *sum)
{
	profdb_view idx, val;
	uint64_t k;
	*abs_sum = *sq_sum = *sum = 0;
	int r = profdb_context_view(c->db, ctx, &idx, &val);
	if (r < 0)
		return r;
	if (profdb_view_find(&idx, metric, &k) != 1)
		return 0;
	profdb_view run = profdb_view_run(&idx, k, &val);
	PROFDB_VIEW_FOREACH(&run, j) {
		double v = profdb_number_to_double(profdb_view_value(&run, j));
		*abs_sum += fabs(v);
		*sq_sum += v * v;
		*sum += v;
	}
	return 0;
}

/* Profiles with a value of any scope of @p e's quantity at @p ctx (how
 * hpcprof counts). */
static int64_t any_scope_count(const checker *c, uint32_t ctx, const stat_entry *e)
{
	int64_t np = profdb_profile_count(c->db), n = 0;
	if (np < 0)
		return np;
	for (uint32_t p = 0; p < (uint64_t)np; p++) {
		if (p == c->res->counts.summary)
			continue;
		int any = 0;
		for (uint32_t j = 0; !any; j++) {
			uint32_t id;
			profdb_number v;
			int r = c->db->be->summary_scope(c->db->impl, e->s.quantity, j, &id);
			if (r == -ENOENT)
				break;
			if (r < 0 || (r = profdb_value(c->db, p, ctx, id, &v)) < 0)
				return r;
			any = r;
		}
		n += any;
	}
	return n;
}

/* A value of this statistic at @p ctx is the loop's own body. */
static int own_body(const checker *c, uint32_t ctx, const stat_entry *e)
{
	profdb_context cx;
	return e->s.loop_own_body && profdb_context_get(c->db, ctx, &cx) == 0 &&
	       cx.type == PROFDB_CTX_LOOP;
}

static int add_issue(profdb_summary_check *res, profdb_summary_issue *is, const stat_entry *e)
{
	is->statistic = profdb__str(e->name);
	if (res->counts.issues == res->cap) {
		size_t nc = res->cap ? 2 * res->cap : 64;
		profdb_summary_issue *ni = realloc(res->issues, nc * sizeof *ni);
		if (!ni)
			return -ENOMEM;
		res->issues = ni;
		res->cap = nc;
	}
	res->issues[res->counts.issues++] = *is;
	return 0;
}

static int agrees(double stored, double expected, double bound)
{
	if (isnan(stored) || isnan(expected))
		return isnan(stored) && isnan(expected);
	return stored == expected || fabs(stored - expected) <= bound;
}

/* Which documented defect, if any, explains a disagreement. */
static int explain(const checker *c, uint32_t ctx, const stat_entry *e, const profdb_stat *s,
                   double abs_sum, profdb_summary_issue *is)
{
	int sum = e->s.combine == PROFDB_COMBINE_SUM;
	if (s->count && e->formula == F_SQUARE && sum &&
	    agrees(is->stored, s->sum, 2 * gamma_k(s->count - 1) * abs_sum)) {
		is->reason = PROFDB_SUMMARY_SQUARE_STORES_SUM;
	} else if (s->count && e->formula == F_VALUE && e->s.combine == PROFDB_COMBINE_MIN &&
	           s->min == 0) {
		is->reason = PROFDB_SUMMARY_MIN_ZERO_UNSET;
	} else if (e->formula == F_COUNT && sum) {
		int64_t any = any_scope_count(c, ctx, e);
		if (any < 0)
			return (int)any;
		if ((double)any == is->stored)
			is->reason = PROFDB_SUMMARY_COUNT_ANY_SCOPE;
	}
	return 0;
}

/* One stored summary value. */
static int check_one(checker *c, uint32_t ctx, const stat_entry *e, double stored)
{
	profdb_summary_counts *n = &c->res->counts;
	profdb_summary_issue is = {ctx, e->s.id, e->s.of, 0, {"", 0}, stored, NAN, 0, 0,
	                           PROFDB_SUMMARY_UNEXPLAINED};
	profdb_stat s;
	double abs_sum = 0, sq_sum = 0, plain = 0;
	int r = profdb_stats_get(c->st, ctx, e->s.of, &s);
	if (r < 0)
		return r;
	is.terms = s.count;
	int sum = e->s.combine == PROFDB_COMBINE_SUM;
	if (r && (e->formula == F_SQUARE || (e->formula == F_VALUE && sum && !(s.min >= 0))))
		if ((r = terms(c, ctx, e->s.of, &abs_sum, &sq_sum, &plain)) < 0)
			return r;
	if (s.count && e->formula == F_VALUE && sum) {
		is.expected = s.sum;
		is.bound = 2 * gamma_k(s.count - 1) * (s.min >= 0 ? s.sum : abs_sum);
	} else if (s.count && e->formula == F_VALUE && e->s.combine == PROFDB_COMBINE_MIN) {
		is.expected = s.min;
	} else if (s.count && e->formula == F_VALUE && e->s.combine == PROFDB_COMBINE_MAX) {
		is.expected = s.max;
	} else if (s.count && e->formula == F_SQUARE && sum) {
		is.expected = sq_sum;
		is.bound = 2 * gamma_k(s.count - 1) * sq_sum;
	} else if (s.count && e->formula == F_COUNT && sum) {
		is.expected = (double)s.count;
	}
	n->checked++;
	if (agrees(stored, is.expected, is.bound)) {
		n->agree++;
		return 0;
	}
	/* The loop's own body is not what the other profiles' values at the
	 * loop give: no evidence either way, so unchecked, not a defect. */
	if (own_body(c, ctx, e)) {
		is.reason = PROFDB_SUMMARY_UNCHECKED_LOOP;
		n->unchecked++;
		return add_issue(c->res, &is, e);
	}
	if ((r = explain(c, ctx, e, &s, abs_sum, &is)) < 0)
		return r;
	if (is.reason)
		n->explained++;
	else
		n->unexplained++;
	return add_issue(c->res, &is, e);
}

/* Values of the other profiles whose statistic @p e has no stored value. */
static int check_missing(checker *c, const stat_entry *e)
{
	profdb_summary_counts *n = &c->res->counts;
	profdb_view v;
	int r = profdb_stats_view(c->st, e->s.of, offsetof(profdb_stat, sum), &v);
	if (r < 0)
		return r;
	PROFDB_VIEW_FOREACH(&v, i) {
		uint32_t ctx = (uint32_t)profdb_view_key(&v, i);
		uint64_t k, j;
		if (profdb_view_find(&c->sidx, ctx, &k) == 1) {
			profdb_view run = profdb_view_run(&c->sidx, k, &c->sval);
			if (profdb_view_find(&run, e->s.id, &j) == 1)
				continue;
		}
		profdb_stat s;
		profdb_stats_get(c->st, ctx, e->s.of, &s);
		profdb_summary_issue is = {ctx, e->s.id, e->s.of, 1, {"", 0}, NAN, NAN, 0, s.count,
		                           PROFDB_SUMMARY_UNEXPLAINED};
		int sum = e->s.combine == PROFDB_COMBINE_SUM;
		is.expected = e->formula == F_COUNT ? (double)s.count
		            : e->formula == F_VALUE && e->s.combine == PROFDB_COMBINE_MIN ? s.min
		            : e->formula == F_VALUE && e->s.combine == PROFDB_COMBINE_MAX ? s.max
		            : s.sum;
		/* no zero result is stored (a sum of squares is 0 only with the sum) */
		if (is.expected == 0 && (sum || e->formula == F_VALUE))
			is.reason = PROFDB_SUMMARY_ZERO_NOT_STORED;
		else if (own_body(c, ctx, e))   /* not recomputed (check_one) */
			is.reason = PROFDB_SUMMARY_UNCHECKED_LOOP;
		n->missing++;
		n->missing_unchecked += is.reason == PROFDB_SUMMARY_UNCHECKED_LOOP;
		n->missing_explained += is.reason != PROFDB_SUMMARY_UNEXPLAINED &&
		                        is.reason != PROFDB_SUMMARY_UNCHECKED_LOOP;
		if ((r = add_issue(c->res, &is, e)) < 0)
			return r;
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
		int r = profdb_profile_at(db, p, &pr);
		if (r < 0)
			return r;
		if (pr.is_summary) {
			*out = p;
			return 0;
		}
	}
	return profdb__fail(-ENOTSUP, "no summary profile");
}

/* Every value of the summary profile, then every statistic of the other
 * profiles' values without one. */
static int run_checks(checker *c)
{
	profdb_summary_counts *n = &c->res->counts;
	int r;
	n->stored = c->sval.count;
	PROFDB_VIEW_FOREACH(&c->sidx, i) {
		uint32_t ctx = (uint32_t)profdb_view_key(&c->sidx, i);
		profdb_view run = profdb_view_run(&c->sidx, i, &c->sval);
		PROFDB_VIEW_FOREACH(&run, j) {
			const stat_entry *e = stat_by_id(c->res, profdb_view_key(&run, j));
			if (!e) {
				n->unknown_ids++;
				continue;
			}
			double v = profdb_number_to_double(profdb_view_value(&run, j));
			if ((r = check_one(c, ctx, e, v)) < 0)
				return r;
		}
	}
	for (size_t k = 0; k < c->res->n_stats; k++)
		if ((r = check_missing(c, &c->res->stats[k])) < 0)
			return r;
	return 0;
}

int profdb_summary_check_new(profdb_summary_check **ret, const profdb *db, unsigned threads)
{
	if (ret)
		*ret = NULL;
	if (!ret || !db)
		return profdb__fail(-EINVAL, "profdb_summary_check_new: NULL argument");
	if (!db->be->summary_stats || !db->be->summary_scope)
		return profdb__fail(-ENOTSUP, "%s stores no summary statistics",
		                    profdb_format_name(db->be->format));
	profdb_summary_check *res = calloc(1, sizeof *res);
	if (!res)
		return profdb__fail(-ENOMEM, "out of memory");
	checker c = {db, NULL, {0}, {0}, res};
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	profdb_stats *st = NULL;
	o.threads = threads;
	int r = find_summary(db, &res->counts.summary);
	if (r >= 0 && (r = load_stats(db, res)) >= 0 && (r = profdb_stats_new(&st, db, &o)) >= 0 &&
	    (r = profdb_profile_view(db, res->counts.summary, &c.sidx, &c.sval)) >= 0) {
		c.st = st;
		r = run_checks(&c);
	}
	profdb_stats_free(st);
	if (r < 0) {
		profdb_summary_check_free(res);
		return r == -ENOMEM ? profdb__fail(r, "out of memory") : r;
	}
	*ret = res;
	return 0;
}

int profdb_summary_check_counts(const profdb_summary_check *c, profdb_summary_counts *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!c || !out)
		return profdb__fail(-EINVAL, "profdb_summary_check_counts: NULL argument");
	*out = c->counts;
	return 0;
}

int profdb_summary_check_issue_at(const profdb_summary_check *c, uint64_t index,
                                  profdb_summary_issue *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!c || !out)
		return profdb__fail(-EINVAL, "profdb_summary_check_issue_at: NULL argument");
	if (index >= c->counts.issues)
		return profdb__fail(-ENOENT, "profdb_summary_check_issue_at: issue %llu of %llu",
		                    (unsigned long long)index, (unsigned long long)c->counts.issues);
	*out = c->issues[index];
	return 0;
}

void profdb_summary_check_free(profdb_summary_check *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_stats; i++)
		free(c->stats[i].name);
	free(c->stats);
	free(c->issues);
	free(c);
}
