/* Statistics over profiles (profdb/analysis.h): the options, the result
 * and its lookups. The pass itself is stats-run.c; doc/model.md
 * ("Statistics over profiles") defines every number. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/table-internal.h"
#include "stats-internal.h"
#include "core/search-internal.h"

struct profdb_stats {
	profdb_stat *rows;        /* by metric id, then context id */
	profdb_stats_acc *accs;   /* what each row was finished from */
	uint64_t n;
	uint32_t *metric_ids;     /* the metrics with rows, ascending */
	uint64_t *first;          /* rows of metric_ids[k]: [first[k], first[k + 1]) */
	size_t n_metrics;
	uint64_t n_profiles;      /* n: the profiles selected (0: each row over its count) */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* ---- options ------------------------------------------------------------ */

static int copy_options(const profdb_stats_options *in, profdb_stats_options *o)
{
	profdb_stats_options def = PROFDB_STATS_OPTIONS_INIT;
	*o = def;
	return profdb__options_take(o, sizeof *o, in, "profdb_stats_new",
	                            "PROFDB_STATS_OPTIONS_INIT");
}

/* The profiles, ascending: the caller's (checked) or every non-summary one.
 * *has_summary tells whether a summary profile is among them. */
static int pick_profiles(const profdb *db, const profdb_stats_options *o, uint32_t **out,
                         size_t *n, int *has_summary)
{
	int64_t count = profdb_profile_count(db);
	*out = NULL;
	*n = 0;
	*has_summary = 0;
	if (count < 0)
		return (int)count;
	if (!o->profiles) {
		int64_t k = profdb_profiles_select(db, NULL, NULL, 0);
		if (k < 0)
			return (int)k;
		if (!(*out = malloc(((size_t)k + 1) * sizeof **out)))
			return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
		*n = (size_t)profdb_profiles_select(db, NULL, *out, (size_t)k);
		return 0;
	}
	if (!(*out = malloc((o->n_profiles + 1) * sizeof **out)))
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
	for (size_t i = 0; i < o->n_profiles; i++) {
		profdb_profile pr;
		if (o->profiles[i] >= (uint64_t)count)
			return profdb__fail(-EINVAL, "profdb_stats_new: profile %" PRIu32 " does not "
			                    "exist (%lld profiles)", o->profiles[i], (long long)count);
		int r = profdb_profile_at(db, o->profiles[i], &pr);
		if (r < 0)
			return r;
		*has_summary |= pr.is_summary;
		(*out)[i] = o->profiles[i];
	}
	qsort(*out, o->n_profiles, sizeof **out, cmp_u32);
	for (size_t i = 1; i < o->n_profiles; i++)
		if ((*out)[i] == (*out)[i - 1])
			return profdb__fail(-EINVAL, "profdb_stats_new: profile %" PRIu32 " is listed "
			                    "twice", (*out)[i]);
	*n = o->n_profiles;
	return 0;
}

/* The metric ids, ascending and distinct: the caller's (checked) or every
 * metric that can have stored values in the chosen profiles (statistic-only
 * ids only when a summary profile is chosen). */
static int pick_metrics(const profdb *db, const profdb_stats_options *o, int has_summary,
                        uint32_t **out, size_t *n)
{
	int64_t count = profdb_metric_count(db);
	size_t k = 0;
	*out = NULL;
	*n = 0;
	if (count < 0)
		return (int)count;
	size_t cap = o->metrics ? o->n_metrics : (size_t)count;
	if (!(*out = malloc((cap + 1) * sizeof **out)))
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
	for (size_t i = 0; i < cap; i++) {
		profdb_metric m;
		int r = o->metrics ? profdb_metric_get(db, o->metrics[i], &m)
		                   : profdb_metric_at(db, (uint32_t)i, &m);
		if (r == -ENOENT)
			return profdb__fail(-EINVAL, "profdb_stats_new: no metric has id %" PRIu32,
			                    o->metrics[i]);
		if (r < 0)
			return r;
		if (!o->metrics && (m.kind == PROFDB_METRIC_DERIVED || !m.has_data ||
		                    (m.kind == PROFDB_METRIC_SUMMARY && !has_summary)))
			continue;
		(*out)[k++] = m.id;
	}
	qsort(*out, k, sizeof **out, cmp_u32);
	size_t d = 0;
	for (size_t i = 0; i < k; i++)
		if (d == 0 || (*out)[d - 1] != (*out)[i])
			(*out)[d++] = (*out)[i];
	*n = d;
	return 0;
}

/* ---- the result ------------------------------------------------------------ */

/* A row from its accumulator. Over n > count profiles (a metric that
 * adds), the n - count without a value are zeros: mean = sum / n, and the
 * squared deviations grow by Chan et al.'s pairwise term for a group of
 * zeros (its mean 0, its own M2 0): count (n - count) / n * mean_c^2. */
static void finish(const profdb_stats_acc *a, uint64_t n, profdb_stat *s)
{
	double m2 = a->m2, top;
	memset(s, 0, sizeof *s);   /* the reserved words too: rows are handed out whole */
	s->context = a->context;
	s->metric = a->metric;
	s->count = a->count;
	s->sum = a->sum;
	if (n <= a->count)
		n = a->count;
	else
		m2 += a->mean * a->mean * ((double)a->count * (double)(n - a->count) / (double)n);
	s->mean = a->sum / (double)n;
	s->stddev = m2 > 0 ? sqrt(m2 / (double)n) : m2 == m2 ? 0.0 : m2;
	if (a->min_profile == PROFDB_NONE) {   /* every value NaN */
		s->min = s->max = NAN;
		s->min_profile = s->max_profile = a->first_profile;
	} else {
		s->min = a->min;
		s->max = a->max;
		s->min_profile = a->min_profile;
		s->max_profile = a->max_profile;
	}
	top = n > a->count && s->max < 0 ? 0.0 : s->max;   /* the zeros take part */
	s->imbalance = s->mean == 0 ? NAN : top / s->mean;
	s->imbalance_pct = top == 0 ? NAN : (top - s->mean) / top;
}

static int alloc_rows(profdb_stats *st, uint64_t n, size_t n_metrics)
{
	st->rows = malloc((n ? n : 1) * sizeof *st->rows);
	st->accs = malloc((n ? n : 1) * sizeof *st->accs);
	st->metric_ids = malloc((n_metrics + 1) * sizeof *st->metric_ids);
	st->first = malloc((n_metrics + 1) * sizeof *st->first);
	if (!st->rows || !st->accs || !st->metric_ids || !st->first)
		return profdb__fail(-ENOMEM, "profdb_stats: out of memory for %" PRIu64 " rows", n);
	profdb__advise_big(st->rows, n * sizeof *st->rows);
	profdb__advise_big(st->accs, n * sizeof *st->accs);
	st->first[0] = 0;
	return 0;
}

/* Append a row (rows come by metric id, then context id), finished over
 * @p n profiles (0: over its count). */
static void add_row(profdb_stats *st, const profdb_stats_acc *a, uint64_t n)
{
	if (st->n == 0 || st->metric_ids[st->n_metrics - 1] != a->metric) {
		st->metric_ids[st->n_metrics] = a->metric;
		st->first[st->n_metrics++] = st->n;
	}
	st->accs[st->n] = *a;
	/* a caller's accumulator may carry anything there; ours export zeros */
	memset(st->accs[st->n].reserved, 0, sizeof st->accs[st->n].reserved);
	finish(a, n, &st->rows[st->n++]);
	st->first[st->n_metrics] = st->n;
}

/* The n a row of @p metric is finished over: the result's n when the
 * metric adds (PROFDB_COMBINE_SUM), else 0 (its count). */
static int row_n(const profdb *db, const profdb_stats *st, uint32_t metric, uint64_t *n)
{
	profdb_metric m;
	int r = profdb_metric_get(db, metric, &m);
	if (r < 0)
		return r == -ENOENT ? profdb__fail(-EINVAL, "profdb_stats: the database has no "
		                                   "metric %" PRIu32, metric) : r;
	*n = m.combine == PROFDB_COMBINE_SUM ? st->n_profiles : 0;
	return 0;
}

static int build_rows(profdb_stats *st, const profdb__stats_pass *p, const profdb *db)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < p->n_rows * p->n_slots; i++)
		n += p->acc[i].count > 0;
	int r = alloc_rows(st, n, p->n_slots);
	for (size_t s = 0; r == 0 && s < p->n_slots; s++) {
		uint64_t over = 0;
		if ((r = row_n(db, st, p->metric_ids[s], &over)) < 0)
			break;
		for (uint64_t row = 0; row < p->n_rows; row++) {
			const profdb__acc *a = &p->acc[row * p->n_slots + s];
			if (!a->count)
				continue;
			profdb_stats_acc pub = {
				p->ids ? p->ids[row] : (uint32_t)row, p->metric_ids[s], a->count, a->sum,
				a->mean, a->m2, a->min, a->max, a->first_profile, a->min_profile,
				a->max_profile, {0}};
			add_row(st, &pub, over);
		}
	}
	return r;
}

/* Strictly increasing by (metric, context), every count >= 1. */
static int check_accs(const char *fn, const profdb_stats_acc *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].count == 0)
			return profdb__fail(-EINVAL, "%s: accumulator %zu has count 0", fn, i);
		if (i && (a[i].metric < a[i - 1].metric ||
		          (a[i].metric == a[i - 1].metric && a[i].context <= a[i - 1].context)))
			return profdb__fail(-EINVAL, "%s: accumulator %zu (context %" PRIu32 ", metric %"
			                    PRIu32 ") is out of order or repeated (sort by metric, then "
			                    "context)", fn, i, a[i].context, a[i].metric);
	}
	return 0;
}

/* The start states: sorted, their metrics selected, their profiles first. */
static int check_start(const profdb_stats_options *o, const uint32_t *profiles, size_t n_profiles,
                       const uint32_t *metrics, size_t n_metrics)
{
	if (o->n_start && !o->start)
		return profdb__fail(-EINVAL, "profdb_stats_new: n_start without start");
	int r = check_accs("profdb_stats_new: options.start", o->start, o->n_start);
	if (r < 0)
		return r;
	for (size_t i = 0; i < o->n_start; i++) {
		const profdb_stats_acc *a = &o->start[i];
		size_t at = profdb__lower_u32(metrics, 0, n_metrics, a->metric);
		if (at == n_metrics || metrics[at] != a->metric)
			return profdb__fail(-EINVAL, "profdb_stats_new: options.start names metric %"
			                    PRIu32 ", which is not selected", a->metric);
		uint32_t last = a->first_profile;
		if (a->min_profile != PROFDB_NONE) {
			last = a->min_profile > last ? a->min_profile : last;
			last = a->max_profile > last ? a->max_profile : last;
		}
		if (n_profiles && last >= profiles[0])
			return profdb__fail(-EINVAL, "profdb_stats_new: options.start holds profile %"
			                    PRIu32 ", not before the first selected profile %" PRIu32,
			                    last, profiles[0]);
	}
	return 0;
}

PROFDB_EXPORT int profdb_stats_new(profdb_stats **ret, const profdb *db,
                                   const profdb_stats_options *opts)
{
	profdb_stats_options o;
	uint32_t *profiles = NULL, *metrics = NULL;
	size_t n_profiles = 0, n_metrics = 0;
	int has_summary = 0, r;
	profdb__stats_pass pass;
	profdb_stats *st = NULL;
	memset(&pass, 0, sizeof pass);
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_stats_new: NULL result pointer");
	*ret = NULL;
	if (!db)
		return profdb__fail(-EINVAL, "profdb_stats_new: NULL database handle");
	if ((r = copy_options(opts, &o)) < 0)
		return r;
	if ((o.n_profiles && !o.profiles) || (o.n_metrics && !o.metrics))
		return profdb__fail(-EINVAL, "profdb_stats_new: a count without its array");
	if ((r = pick_profiles(db, &o, &profiles, &n_profiles, &has_summary)) < 0 ||
	    (r = pick_metrics(db, &o, has_summary, &metrics, &n_metrics)) < 0 ||
	    (r = check_start(&o, profiles, n_profiles, metrics, n_metrics)) < 0)
		goto out;
	unsigned threads = o.threads;
	if (threads == 0)
		threads = profdb__cores();
	if ((r = profdb__stats_run(db, profiles, n_profiles, metrics, n_metrics, threads, o.start,
	                           o.n_start, &pass)) < 0)
		goto out;
	if (!(st = calloc(1, sizeof *st))) {
		r = profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
		goto out;
	}
	st->n_profiles = n_profiles + o.start_profiles;
	if ((r = build_rows(st, &pass, db)) < 0)
		goto out;
	*ret = st;
	st = NULL;
out:
	profdb_stats_free(st);
	profdb__stats_pass_free(&pass);
	free(profiles);
	free(metrics);
	return r < 0 ? r : 0;
}

PROFDB_EXPORT int64_t profdb_stats_profiles(const profdb_stats *s)
{
	if (!s)
		return profdb__fail(-EINVAL, "profdb_stats_profiles: NULL result");
	return (int64_t)s->n_profiles;
}

PROFDB_EXPORT int64_t profdb_stats_count(const profdb_stats *s)
{
	if (!s)
		return profdb__fail(-EINVAL, "profdb_stats_count: NULL result");
	return (int64_t)s->n;
}

PROFDB_EXPORT int profdb_stats_at(const profdb_stats *s, uint64_t index, profdb_stat *out)
{
	if (!s || !out)
		return profdb__fail(-EINVAL, "profdb_stats_at: NULL argument");
	if (index >= s->n) {
		memset(out, 0, sizeof *out);
		return profdb__fail(-ENOENT, "profdb_stats_at: row %" PRIu64 " is out of range (%"
		                    PRIu64 " rows)", index, s->n);
	}
	*out = s->rows[index];
	return 0;
}

/* The position of @p metric in s->metric_ids, or -1. */
static int64_t metric_pos(const profdb_stats *s, uint32_t metric)
{
	size_t lo = profdb__lower_u32(s->metric_ids, 0, s->n_metrics, metric);
	return lo < s->n_metrics && s->metric_ids[lo] == metric ? (int64_t)lo : -1;
}

PROFDB_EXPORT int profdb_stats_get(const profdb_stats *s, uint32_t context, uint32_t metric,
                                   profdb_stat *out)
{
	if (!s || !out)
		return profdb__fail(-EINVAL, "profdb_stats_get: NULL argument");
	memset(out, 0, sizeof *out);
	int64_t k = metric_pos(s, metric);
	if (k < 0)
		return 0;
	size_t lo = profdb__lower_u32_field(s->rows, sizeof *s->rows, offsetof(profdb_stat, context),
	                                    s->first[k], s->first[k + 1], context);
	if (lo == s->first[k + 1] || s->rows[lo].context != context)
		return 0;
	*out = s->rows[lo];
	return 1;
}

PROFDB_EXPORT int profdb_stats_view(const profdb_stats *s, uint32_t metric, size_t field_offset,
                                    profdb_view *out)
{
	static const size_t fields[] = {
		offsetof(profdb_stat, sum), offsetof(profdb_stat, min), offsetof(profdb_stat, max),
		offsetof(profdb_stat, mean), offsetof(profdb_stat, stddev),
		offsetof(profdb_stat, imbalance), offsetof(profdb_stat, imbalance_pct)};
	if (!s || !out)
		return profdb__fail(-EINVAL, "profdb_stats_view: NULL argument");
	memset(out, 0, sizeof *out);
	size_t i = 0;
	while (i < sizeof fields / sizeof *fields && fields[i] != field_offset)
		i++;
	if (i == sizeof fields / sizeof *fields)
		return profdb__fail(-EINVAL, "profdb_stats_view: offset %zu is not one of "
		                    "profdb_stat's double fields", field_offset);
	out->stride = sizeof(profdb_stat);
	out->key_offset = offsetof(profdb_stat, context);
	out->key_type = PROFDB_FIELD_U32;
	out->value_offset = (uint8_t)field_offset;
	out->value_type = PROFDB_FIELD_F64;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	out->big_endian = 1;   /* the rows are in host order */
#endif
	int64_t k = metric_pos(s, metric);
	if (k >= 0) {
		out->base = (const unsigned char *)&s->rows[s->first[k]];
		out->count = s->first[k + 1] - s->first[k];
	}
	return 0;
}

PROFDB_EXPORT void profdb_stats_free(profdb_stats *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s->accs);
	free(s->metric_ids);
	free(s->first);
	free(s);
}

/* ---- partial statistics ------------------------------------------------------- */

PROFDB_EXPORT int64_t profdb_stats_accs(const profdb_stats *s, profdb_stats_acc *out, size_t cap)
{
	if (!s || (!out && cap))
		return profdb__fail(-EINVAL, "profdb_stats_accs: NULL argument");
	if (out)
		memcpy(out, s->accs, (cap < s->n ? cap : s->n) * sizeof *out);
	return (int64_t)s->n;
}

/* A result of @p accs; with @p db, finished over @p n_profiles for the
 * metrics that add. */
static int from_accs(const char *fn, profdb_stats **ret, const profdb_stats_acc *accs, size_t n,
                     const profdb *db, uint64_t n_profiles)
{
	if (ret)
		*ret = NULL;
	if (!ret || (!accs && n))
		return profdb__fail(-EINVAL, "%s: NULL argument", fn);
	int r = check_accs(fn, accs, n);
	if (r < 0)
		return r;
	for (size_t i = 0; db && i < n; i++)
		if (accs[i].count > n_profiles)
			return profdb__fail(-EINVAL, "%s: accumulator %zu holds %" PRIu64 " values, more "
			                    "than the %" PRIu64 " profiles", fn, i, accs[i].count,
			                    n_profiles);
	size_t n_metrics = 0;
	for (size_t i = 0; i < n; i++)
		n_metrics += i == 0 || accs[i].metric != accs[i - 1].metric;
	profdb_stats *st = calloc(1, sizeof *st);
	if (!st)
		return profdb__fail(-ENOMEM, "%s: out of memory", fn);
	st->n_profiles = db ? n_profiles : 0;
	uint64_t over = 0;
	if ((r = alloc_rows(st, n, n_metrics)) < 0) {
		profdb_stats_free(st);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		if (db && (i == 0 || accs[i].metric != accs[i - 1].metric) &&
		    (r = row_n(db, st, accs[i].metric, &over)) < 0) {
			profdb_stats_free(st);
			return r;
		}
		add_row(st, &accs[i], over);
	}
	*ret = st;
	return 0;
}

PROFDB_EXPORT int profdb_stats_from_accs(profdb_stats **ret, const profdb_stats_acc *accs,
                                         size_t n)
{
	return from_accs("profdb_stats_from_accs", ret, accs, n, NULL, 0);
}

PROFDB_EXPORT int profdb_stats_from_accs_over(profdb_stats **ret, const profdb_stats_acc *accs,
                                              size_t n, const profdb *db, uint64_t n_profiles)
{
	if (!db) {
		if (ret)
			*ret = NULL;
		return profdb__fail(-EINVAL, "profdb_stats_from_accs_over: NULL database handle");
	}
	return from_accs("profdb_stats_from_accs_over", ret, accs, n, db, n_profiles);
}

PROFDB_EXPORT int profdb_stats_acc_add(profdb_stats_acc *acc, double v, uint32_t profile)
{
	if (!acc)
		return profdb__fail(-EINVAL, "profdb_stats_acc_add: NULL accumulator");
	PROFDB__ACC_ADD(acc, v, profile);
	return 0;
}

PROFDB_EXPORT int profdb_stats_acc_merge(profdb_stats_acc *into, const profdb_stats_acc *later)
{
	if (!into || !later)
		return profdb__fail(-EINVAL, "profdb_stats_acc_merge: NULL argument");
	if (!later->count)
		return 0;
	if (!into->count) {
		*into = *later;
		return 0;
	}
	if (into->context != later->context || into->metric != later->metric)
		return profdb__fail(-EINVAL, "profdb_stats_acc_merge: (context %" PRIu32 ", metric %"
		                    PRIu32 ") and (%" PRIu32 ", %" PRIu32 ") are different rows",
		                    into->context, into->metric, later->context, later->metric);
	double na = (double)into->count, nb = (double)later->count, n = na + nb;
	double delta = later->mean - into->mean;
	/* One pass turns m2 into NaN as soon as an infinity meets another value
	 * (inf - inf); the pairwise formula would give inf: keep the pass's. */
	int finite = isfinite(into->mean) && isfinite(later->mean);
	into->m2 = finite ? into->m2 + later->m2 + delta * delta * (na * nb / n) : NAN;
	into->mean = finite ? into->mean + delta * (nb / n) : into->mean + later->mean;
	into->sum += later->sum;
	into->count += later->count;
	/* Strict comparisons: an equal later value keeps the earlier holder. */
	if (later->min_profile != PROFDB_NONE &&
	    (into->min_profile == PROFDB_NONE || later->min < into->min)) {
		into->min = later->min;
		into->min_profile = later->min_profile;
	}
	if (later->max_profile != PROFDB_NONE &&
	    (into->max_profile == PROFDB_NONE || later->max > into->max)) {
		into->max = later->max;
		into->max_profile = later->max_profile;
	}
	return 0;
}
