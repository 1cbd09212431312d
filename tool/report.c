/* Metric selection and aggregation over profiles for `top`, `tree`,
 * `bottom-up` and `flat`.
 *
 * Default metric (-m not given): the first metric, in profdb_metric_at
 * order, with a non-zero stored value in the scope the view ranks by (the
 * exclusive id for `top`'s default exclusive ranking, the inclusive id for
 * the trees; a metric of the other scope whose counterpart has values
 * stands for it); summary statistics and derived metrics are never chosen.
 * A database with none is refused in one line (exit 1).
 * Default aggregation: the summary profile where the format has one, it
 * can answer for the metric and it holds the metric's own combination
 * (HPCToolkit may store a count under a propagated id); otherwise the
 * selected profiles (--profiles, default every non-summary profile)
 * combined by the metric's rule (sum, min or max; doc/model.md, "Combining
 * numbers"), in ascending profile order. --stat replaces the combination
 * by a statistic over the selection (profdb_stats_new: stored values of
 * the ranked scope). Values are multiplied by the metric's scale (hpcrun's
 * sampling period) unless --raw. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>


#include "format.h"
#include "names.h"
#include "report.h"

static const char *const stat_names[] = {"none", "sum", "mean", "min", "max", "stddev",
                                         "imbalance"};

const char *report_stat_name(report_stat s)
{
	return (unsigned)s <= RSTAT_IMBALANCE ? stat_names[s] : "none";
}

void report_opts_init(report_opts *o)
{
	memset(o, 0, sizeof *o);
	o->profile = -1;
	o->focus = -1;
	o->count = 20;
}

int report_option(report_opts *o, int c, const char *arg)
{
	uint32_t u;
	switch (c) {
	case 'm': o->metrics = arg; return 0;
	case 'p':
		if (opt_u32("--profile", arg, &u))
			return EXIT_USAGE;
		o->profile = u;
		return 0;
	case OPT_PROFILES: o->profiles = arg; return 0;
	case OPT_STAT:
		for (int s = RSTAT_SUM; s <= RSTAT_IMBALANCE; s++)
			if (strcmp(arg, stat_names[s]) == 0) {
				o->stat = (report_stat)s;
				return 0;
			}
		return tool_bad_value("--stat", arg,
		                      "a statistic (sum, mean, min, max, stddev, imbalance)");
	case 'n':
		o->count_given = 1;
		return opt_u64("-n", arg, &o->count);
	case OPT_MIN_PERCENT:
		o->min_percent_given = 1;
		return opt_percent("--min-percent", arg, &o->min_percent);
	case OPT_MATCH: return filter_set(&o->names, 0, arg);
	case OPT_EXCLUDE: return filter_set(&o->names, 1, arg);
	case OPT_FOCUS:
		if (opt_u32("--focus", arg, &u))
			return EXIT_USAGE;
		o->focus = u;
		return 0;
	case OPT_WIDE: o->wide = 1; return 0;
	case OPT_PLAIN: o->plain = 1; return 0;
	case 'r': o->raw = 1; return 0;
	case OPT_JSON: o->json = 1; return 0;
	default: return 1;
	}
}

/* ---- choosing the metrics -------------------------------------------------- */

/* Does metric @p m, or its counterpart of the scope ranked, hold a
 * non-zero stored value? 1, 0 or < 0. */
static int has_values(profdb *db, const profdb_metric *m, int inclusive)
{
	uint32_t other = inclusive ? m->inclusive_id : m->exclusive_id;
	int v = profdb_metric_has_values(db, m->id);
	if (v == -ENOTSUP)
		v = m->has_data;
	if (v >= 0 && other != PROFDB_NONE && other != m->id) {
		int w = profdb_metric_has_values(db, other);
		if (w == -ENOTSUP)
			w = m->has_data;
		v = w < 0 ? w : v || w;
	}
	return v;
}

static int usable_kind(profdb_metric_kind k)
{
	return k != PROFDB_METRIC_SUMMARY && k != PROFDB_METRIC_DERIVED;
}

/* The same quantity in another scope (HPCToolkit's point, exclusive and
 * inclusive ids of one metric). */
static uint32_t quantity(const profdb_metric *m)
{
	return m->inclusive_id != PROFDB_NONE ? m->inclusive_id
	       : m->exclusive_id != PROFDB_NONE ? m->exclusive_id : m->id;
}

static int add_metric(report *r, const profdb_metric *m)
{
	report_metric *nm = realloc(r->m, (r->n + 1) * sizeof *nm);
	if (!nm)
		return TOOL_OOM;
	r->m = nm;
	memset(&nm[r->n], 0, sizeof *nm);
	nm[r->n++].metric = *m;
	return 0;
}

/* The default metric, or every metric with values in either scope, one
 * per quantity (all != 0). 0, or -ENOENT (none has values), < 0. */
static int pick_metrics(report *r, int all)
{
	profdb_metric m;
	int e;
	if (!all)
		return (e = profdb_metric_default(r->db, &m)) < 0 ? e : add_metric(r, &m);
	int64_t n = profdb_metric_count(r->db);
	if (n < 0)
		return (int)n;
	for (int64_t i = 0; i < n; i++) {
		if ((e = profdb_metric_at(r->db, (uint32_t)i, &m)) < 0)
			return e;
		if (!usable_kind(m.kind))
			continue;
		if ((e = has_values(r->db, &m, 0)) < 0)
			return e;
		if (e == 0 && has_values(r->db, &m, 1) <= 0)
			continue;
		int dup = 0;
		for (size_t k = 0; k < r->n && !dup; k++)
			dup = quantity(&r->m[k].metric) == quantity(&m);
		if (!dup && (e = add_metric(r, &m)) < 0)
			return e;
	}
	return r->n ? 0 : -ENOENT;
}

/* -m's list: the whole argument as one name first (names may hold ','). */
static int find_metrics(report *r, const char *list)
{
	profdb_metric m;
	if (profdb_metric_find(r->db, list, &m) == 0)
		return add_metric(r, &m);
	char *copy = strdup(list);
	if (!copy)
		return TOOL_OOM;
	int e = 0;
	for (char *save = NULL, *name = strtok_r(copy, ",", &save); name && e == 0;
	     name = strtok_r(NULL, ",", &save)) {
		if (profdb_metric_find(r->db, name, &m) < 0) {
			fprintf(stderr, "%s: %s: no metric named or numbered '%s' (see 'profdb metrics')\n",
			        tool_prog, r->path, name);
			e = -EDOM;
		} else {
			e = add_metric(r, &m);
		}
	}
	if (e == 0 && r->n == 0) {
		fprintf(stderr, "%s: -m: '%s' names no metric\n", tool_prog, list);
		e = -EDOM;
	}
	free(copy);
	return e;
}

static int choose_metrics(report *r)
{
	const char *list = r->o->metrics;
	int e = list && strcmp(list, "all") != 0 ? find_metrics(r, list)
	        : pick_metrics(r, list != NULL);
	if (e == -ENOENT) {
		fprintf(stderr, "%s: %s: no metric has a non-zero value (see 'profdb metrics')\n",
		        tool_prog, r->path);
		return EXIT_INPUT;
	}
	if (e == -EDOM)
		return EXIT_USAGE;
	return e < 0 ? tool_fail_status(r->path, e) : 0;
}

/* ---- choosing the profiles ------------------------------------------------ */

static int choose_profiles(report *r)
{
	const report_opts *o = r->o;
	int64_t np = profdb_profile_count(r->db);
	if (np < 0)
		return tool_fail(r->path);
	if (o->profile >= 0 && o->profile >= np) {
		fprintf(stderr, "%s: %s: no profile %" PRId64 " (the database has %" PRId64 ")\n",
		        tool_prog, r->path, o->profile, np);
		return EXIT_USAGE;
	}
	int64_t n = profdb_profiles_select(r->db, o->profiles, NULL, 0);
	if (n < 0) {
		if (n != -EINVAL || !o->profiles)
			return tool_fail(r->path);
		fprintf(stderr, "%s: --profiles: %s\n", tool_prog, profdb_error_message());
		return EXIT_USAGE;
	}
	if (n == 0 && o->profiles) {
		fprintf(stderr, "%s: %s: --profiles '%s' selects no profile\n", tool_prog, r->path,
		        o->profiles);
		return EXIT_USAGE;
	}
	if (n > 0) {
		if (!(r->sel = malloc((size_t)n * sizeof *r->sel)))
			return tool_fail_status(r->path, TOOL_OOM);
		if (profdb_profiles_select(r->db, o->profiles, r->sel, (size_t)n) != n)
			return tool_fail(r->path);
	}
	r->n_sel = (size_t)n;
	return 0;
}

/* The summary profile's index, or -1. */
static int64_t summary_profile(const report *r)
{
	int64_t np = profdb_profile_count(r->db);
	for (int64_t p = 0; p < np; p++) {
		profdb_profile pr;
		if (profdb_profile_at(r->db, (uint32_t)p, &pr) == 0 && pr.is_summary)
			return p;
	}
	return -1;
}

/* ---- values ----------------------------------------------------------------- */

static double combine(profdb_combine c, double a, double b)
{
	return profdb_combine_pair(c, a, b);
}

static size_t stat_offset(report_stat s)
{
	switch (s) {
	case RSTAT_MEAN: return offsetof(profdb_stat, mean);
	case RSTAT_MIN: return offsetof(profdb_stat, min);
	case RSTAT_MAX: return offsetof(profdb_stat, max);
	case RSTAT_STDDEV: return offsetof(profdb_stat, stddev);
	case RSTAT_IMBALANCE: return offsetof(profdb_stat, imbalance);
	default: return offsetof(profdb_stat, sum);
	}
}

int report_value(const report *r, size_t k, uint32_t ctx, int inclusive, double *out)
{
	const report_metric *m = &r->m[k];
	int (*get)(const profdb *, uint32_t, uint32_t, uint32_t, profdb_number *) =
		inclusive ? profdb_inclusive : profdb_exclusive;
	profdb_number n;
	int e;
	*out = 0;
	if (inclusive ? !m->has_inc : !m->has_exc) {
		*out = NAN;   /* a column the format cannot give */
		return 0;
	}
	if (m->mode == REPORT_STAT) {
		profdb_stat st;
		if ((e = profdb_stats_get(r->stats, ctx, m->stored, &st)) < 0)
			return e;
		if (e > 0) {
			double v;
			memcpy(&v, (const char *)&st + stat_offset(r->o->stat), sizeof v);
			*out = r->o->stat == RSTAT_IMBALANCE ? v : v * m->scale;
		}
		return 0;
	}
	if (m->mode != REPORT_SEL) {
		if ((e = get(r->db, m->profile, ctx, m->metric.id, &n)) < 0)
			return e;
		if (e > 0)
			*out = profdb_number_to_double(n) * m->scale;
		return 0;
	}
	/* Profiles without a value take no part (a missing value is not a 0
	 * that would win a minimum). */
	double acc = 0;
	int any = 0;
	for (size_t i = 0; i < r->n_sel; i++) {
		if ((e = get(r->db, r->sel[i], ctx, m->metric.id, &n)) < 0)
			return e;
		if (e > 0) {
			double v = profdb_number_to_double(n);
			acc = any ? combine(m->metric.combine, acc, v) : v;
			any = 1;
		}
	}
	*out = acc * m->scale;
	return 0;
}

/* Does the chosen source answer for metric @p k at all? Asked of the first
 * root: -ENOTSUP means "the format cannot say". */
static int probe(report *r, size_t k, int inclusive)
{
	uint32_t root;
	double v;
	if (profdb_context_root(r->db, &root) < 0)
		return 1;   /* empty tree: nothing to ask */
	int e = report_value(r, k, root, inclusive, &v);
	return e == -ENOTSUP ? 0 : e < 0 ? e : 1;
}

static int probe_both(report *r, size_t k)
{
	report_metric *m = &r->m[k];
	int inc, exc;
	m->has_inc = m->has_exc = 1;   /* report_value asks whatever it is told */
	if ((inc = probe(r, k, 1)) < 0 || (exc = probe(r, k, 0)) < 0)
		return inc < 0 ? inc : exc;
	m->has_inc = inc;
	m->has_exc = exc;
	return 0;
}

/* The stored id of the scope --stat ranks: the metric or a counterpart of
 * that kind (a point metric stands for exclusive values). */
static uint32_t stored_scope(const report *r, const profdb_metric *m)
{
	uint32_t ids[3] = {m->id, m->inclusive_id, m->exclusive_id};
	profdb_metric_kind want = r->o->inclusive ? PROFDB_METRIC_INCLUSIVE : PROFDB_METRIC_EXCLUSIVE;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 3; i++) {
			profdb_metric x;
			if (ids[i] == PROFDB_NONE || profdb_metric_get(r->db, ids[i], &x) < 0)
				continue;
			if (x.kind == want || (pass && !r->o->inclusive && x.kind == PROFDB_METRIC_POINT))
				return x.id;
		}
	return PROFDB_NONE;
}

/* More than one non-summary profile in play? */
static int several_profiles(const report *r)
{
	return r->n_sel > 1;
}

/* The head of a message about metric @p m to stderr, its name whole:
 * "profdb: PATH: BEFOREmetric 'NAME' "; the caller ends it. */
static void metric_message(const report *r, const char *before, const report_metric *m)
{
	fprintf(stderr, "%s: %s: %smetric '", tool_prog, r->path, before);
	put_text(stderr, m->metric.name);
	fputs("' ", stderr);
}

/* The source of metric @p k: 0, 1 (-m all: leave it out), EXIT_* (message
 * printed) or < 0. */
static int setup_metric(report *r, size_t k, int64_t summary)
{
	const report_opts *o = r->o;
	report_metric *m = &r->m[k];
	int e;
	m->scale = o->raw || !(m->metric.scale > 0) ? 1 : m->metric.scale;
	if (o->stat != RSTAT_NONE) {
		m->mode = REPORT_STAT;
		if ((m->stored = stored_scope(r, &m->metric)) == PROFDB_NONE) {
			metric_message(r, "--stat: ", m);
			fprintf(stderr, "has no stored %s values (the format computes them)%s\n",
			        o->inclusive ? "inclusive" : "exclusive",
			        o->inclusive ? "; rank the exclusive ones" : "");
			return EXIT_USAGE;
		}
		m->has_inc = o->inclusive;
		m->has_exc = !o->inclusive;
		return 0;
	}
	if (o->profile >= 0) {
		m->mode = REPORT_ONE;
		m->profile = (uint32_t)o->profile;
	} else if (summary >= 0 && !o->profiles) {
		m->mode = REPORT_SUMMARY;
		m->profile = (uint32_t)summary;
		const char *rule = combine_name(m->metric.combine);
		profdb_str st = m->metric.statistic;
		if (m->metric.kind != PROFDB_METRIC_SUMMARY && st.len &&
		    (st.len != strlen(rule) || memcmp(st.ptr, rule, st.len)))
			m->mode = REPORT_SEL;   /* the summary holds another statistic under the id */
	} else {
		m->mode = REPORT_SEL;
	}
	if ((e = probe_both(r, k)) < 0)
		return e;
	if (m->mode == REPORT_SUMMARY && !m->has_inc && !m->has_exc) {
		m->mode = REPORT_SEL;   /* the summary has no statistic for this metric: add up */
		if ((e = probe_both(r, k)) < 0)
			return e;
	}
	if (!m->has_inc && !m->has_exc) {
		if (o->metrics && strcmp(o->metrics, "all") == 0)
			return 1;
		metric_message(r, "", m);
		fprintf(stderr, "has neither inclusive nor exclusive values (a %s metric)\n",
		        metric_kind_name(m->metric.kind));
		return EXIT_INPUT;
	}
	if (m->mode == REPORT_SEL && !profdb_combine_ok(m->metric.combine) &&
	    several_profiles(r)) {
		if (o->metrics && strcmp(o->metrics, "all") == 0)
			return 1;
		metric_message(r, "the values of ", m);
		fprintf(stderr, "do not combine across profiles (a %s metric: doc/model.md, "
		        "\"Combining numbers\"); choose one with --profile P\n",
		        metric_kind_name(m->metric.kind));
		return EXIT_USAGE;
	}
	return 0;
}

/* The total of metric @p k: the roots' inclusive values (a call graph made
 * a tree may have several), combined by the metric's rule. */
static int metric_total(report *r, size_t k)
{
	report_metric *m = &r->m[k];
	tool_walk w;
	profdb_context c;
	int first = 1, e;
	m->total = 0;
	if (!m->has_inc || m->mode == REPORT_STAT)
		return 0;
	/* A call graph's one synthetic root (Callgrind's context 0): asked for
	 * by id, it spares building the context tree, which `top` by function
	 * and exclusive value needs for nothing else. */
	uint32_t root;
	if ((e = profdb_total_root(r->db, &root)) != 0)
		return e < 0 ? e : report_value(r, k, root, 1, &m->total);
	if ((e = walk_begin(&w, r->db)) < 0)
		return e;
	while ((e = walk_next(&w, &c, 1)) > 0) {
		double v;
		if ((e = report_value(r, k, c.id, 1, &v)) < 0)
			return e;
		m->total = first ? v : combine(m->metric.combine, m->total, v);
		first = 0;
	}
	return e;
}

static int build_stats(report *r)
{
	uint32_t *ids = malloc(r->n * sizeof *ids);
	if (!ids)
		return TOOL_OOM;
	for (size_t k = 0; k < r->n; k++)
		ids[k] = r->m[k].stored;
	/* duplicates (two columns of one stored id) would be refused */
	size_t n = 0;
	for (size_t k = 0; k < r->n; k++) {
		size_t j = 0;
		while (j < n && ids[j] != ids[k])
			j++;
		if (j == n)
			ids[n++] = ids[k];
	}
	profdb_stats_options so = PROFDB_STATS_OPTIONS_INIT;
	so.profiles = r->sel;
	so.n_profiles = r->n_sel;
	so.metrics = ids;
	so.n_metrics = n;
	int e = profdb_stats_new(&r->stats, r->db, &so);
	free(ids);
	return e;
}

static int setup(report *r)
{
	const report_opts *o = r->o;
	int e;
	if (o->profile >= 0 && o->profiles) {
		fprintf(stderr, "%s: --profile and --profiles exclude each other\n", tool_prog);
		return EXIT_USAGE;
	}
	if ((e = choose_metrics(r)) || (e = choose_profiles(r)))
		return e;
	if (o->stat != RSTAT_NONE && o->profile >= 0) {
		fprintf(stderr, "%s: --stat combines a selection of profiles (--profiles), not "
		        "--profile\n", tool_prog);
		return EXIT_USAGE;
	}
	int64_t summary = summary_profile(r);
	for (size_t k = 0; k < r->n;) {
		if ((e = setup_metric(r, k, summary)) < 0)
			return tool_fail_status(r->path, e);
		if (e > 1)
			return e;
		if (e == 1) {   /* -m all: a metric this source cannot show */
			memmove(&r->m[k], &r->m[k + 1], (r->n - k - 1) * sizeof *r->m);
			r->n--;
			r->skipped++;
			continue;
		}
		k++;
	}
	if (r->n == 0) {
		fprintf(stderr, "%s: %s: no metric has values to show\n", tool_prog, r->path);
		return EXIT_INPUT;
	}
	if (o->stat != RSTAT_NONE && (e = build_stats(r)) < 0)
		return tool_fail_status(r->path, e);
	for (size_t k = 0; k < r->n; k++) {
		if ((e = metric_total(r, k)) < 0)
			return tool_fail_status(r->path, e);
		/* A summary profile holding nothing for a metric that has values
		 * elsewhere: the profiles are combined instead. */
		report_metric *m = &r->m[k];
		if (m->mode == REPORT_SUMMARY && m->total == 0 && r->n_sel &&
		    has_values(r->db, &m->metric, 1) > 0) {
			m->mode = REPORT_SEL;
			if ((e = probe_both(r, k)) < 0 || (e = metric_total(r, k)) < 0)
				return tool_fail_status(r->path, e);
		}
	}
	return 0;
}

int report_open(report *r, const char *path, const report_opts *o)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->o = o;
	if (tool_open(path, &r->db))
		return EXIT_INPUT;
	profdb_about a;
	if (profdb_get_about(r->db, &a) == 0)
		r->format = a.format;
	int e = setup(r);
	if (e)
		report_close(r);
	return e;
}

void report_close(report *r)
{
	profdb_stats_free(r->stats);
	r->stats = NULL;
	profdb_close(r->db);
	r->db = NULL;
	free(r->m);
	r->m = NULL;
	free(r->sel);
	r->sel = NULL;
	r->n = r->n_sel = 0;
}

int report_fail(const report *r, int e)
{
	return tool_fail_status(r->path, e);
}

/* ---- describing ----------------------------------------------------------- */

/* "profile 3 (rank 3 thread 0)" as people read it, whole in a new buffer
 * (the caller frees it); NULL when out of memory. */
static char *profile_name(const report *r, uint32_t p)
{
	profdb_profile pr;
	int named = profdb_profile_at(r->db, p, &pr) == 0 && pr.name.len;
	size_t n = sizeof "profile 4294967295 ()" + (named ? pr.name.len : 0);
	char *buf = malloc(n);
	if (!buf)
		return NULL;
	int l = snprintf(buf, n, "profile %" PRIu32, p);
	if (named) {
		names_buf b = {buf, n, (size_t)l};
		names_put(&b, " (", 2);
		names_put_str(&b, pr.name);
		names_put(&b, ")", 1);
		names_show(buf, b.len);   /* a description: as people read it */
	}
	return buf;
}

/* Where metric @p k's values come from: "summary profile", "profile 3
 * (rank 3 thread 0)", "sum over 135 profiles", "mean over 8 profiles
 * (--profiles 0-7)"; whole in a new buffer (the caller frees it), NULL
 * when out of memory. */
static char *source(const report *r, size_t k)
{
	const report_metric *m = &r->m[k];
	if (m->mode == REPORT_ONE)
		return profile_name(r, m->profile);
	if (m->mode == REPORT_SUMMARY)
		return strdup("summary profile");
	if (r->n_sel == 1 && m->mode == REPORT_SEL)
		return profile_name(r, r->sel[0]);
	const char *rule = m->mode == REPORT_STAT ? report_stat_name(r->o->stat)
	                   : combine_name(m->metric.combine);
	size_t n = strlen(rule) + sizeof " over 18446744073709551615 profiles (--profiles )" +
	           (r->o->profiles ? strlen(r->o->profiles) : 0);
	char *buf = malloc(n);
	if (!buf)
		return NULL;
	int l = snprintf(buf, n, "%s over %zu profile%s", rule, r->n_sel, r->n_sel == 1 ? "" : "s");
	if (r->o->profiles)
		snprintf(buf + l, n - (size_t)l, " (--profiles %s)", r->o->profiles);
	return buf;
}

/* The sources of every metric, each in a new buffer (free_sources()
 * frees them). @return them, NULL when out of memory. */
static char **sources(const report *r)
{
	char **src = calloc(r->n, sizeof *src);
	for (size_t k = 0; src && k < r->n; k++)
		if (!(src[k] = source(r, k))) {
			while (k-- > 0)
				free(src[k]);
			free(src);
			return NULL;
		}
	return src;
}

static void free_sources(const report *r, char **src)
{
	for (size_t k = 0; k < r->n; k++)
		free(src[k]);
	free(src);
}

int report_describe(const report *r, const char *headline)
{
	char buf[64];
	char **src = sources(r);
	if (!src)
		return TOOL_OOM;
	printf("%s; %s\n", headline, src[0]);
	for (size_t k = 0; k < r->n; k++) {
		const report_metric *m = &r->m[k];
		printf("metric: ");
		put_text(stdout, m->metric.name);
		printf(" (id %" PRIu32 ", %s", m->metric.id, metric_kind_name(m->metric.kind));
		if (m->metric.unit.len) {
			printf(", unit ");
			put_text(stdout, m->metric.unit);
		}
		printf(")");
		/* a total of a min or max metric means nothing: its rows say what
		 * they show (the note below) */
		if (m->has_inc && m->mode != REPORT_STAT && profdb_combine_adds(m->metric.combine)) {
			fmt_value(buf, sizeof buf, m->total, r->o->plain);
			printf(", total %s", buf);
		}
		if (strcmp(src[k], src[0]) != 0)
			printf("; %s", src[k]);
		printf("\n");
	}
	free_sources(r, src);
	if (r->skipped)
		printf("note: %zu metric%s with values left out: %s do not combine over the profiles "
		       "(--profile P shows them)\n", r->skipped, r->skipped == 1 ? "" : "s",
		       r->skipped == 1 ? "its values" : "their values");
	const report_metric *m0 = &r->m[0];
	if (m0->mode == REPORT_STAT)
		printf("note: %s of the stored %s values over the profiles that store one; no "
		       "percentages\n", report_stat_name(r->o->stat),
		       r->o->inclusive ? "inclusive" : "exclusive");
	else if (profdb_combine_extreme(m0->metric.combine))
		printf("note: %s combines by %s: rows show and are ranked by their own "
		       "(exclusive) %s; no total, no percentages\n",
		       r->n > 1 ? "the first metric" : "the metric", combine_name(m0->metric.combine),
		       profdb_combine_extreme(m0->metric.combine));
	else if (!profdb_combine_adds(m0->metric.combine))
		printf("note: %s combines by %s, not by sum: no percentages\n",
		       r->n > 1 ? "the first metric" : "the metric", combine_name(m0->metric.combine));
	for (size_t k = 0; k < r->n; k++) {
		m0 = &r->m[k];
		if (m0->metric.scale == 1 || !(m0->metric.scale > 0))
			continue;
		if (r->o->raw)
			printf("note: raw stored values (sample counts); hpcprof shows them x the sampling "
			       "period (%.17g for the first scaled metric)\n", m0->metric.scale);
		else
			printf("note: values x the sampling period (%.17g for the first scaled metric), "
			       "as hpcprof shows them (--raw: the stored sample counts)\n",
			       m0->metric.scale);
		break;
	}
	if (profdb_has_names(r->db) == 0)
		printf("note: hpcrun files carry no function or source names; contexts are load "
		       "module + offset (hpcstruct/hpcprof attribute them)\n");
	return 0;
}

void put_json_value(double v)
{
	if (isnan(v))
		printf("null");
	else
		put_json_double(v);
}

void put_json_double(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	put_number(stdout, n, 1);
}

static const char *source_key(const report *r, size_t k)
{
	const report_metric *m = &r->m[k];
	switch (m->mode) {
	case REPORT_ONE: return "profile";
	case REPORT_SUMMARY: return "summary";
	case REPORT_STAT: return "stat";
	default: return combine_name(m->metric.combine);
	}
}

static void put_metric_head(const report *r, size_t k)
{
	const report_metric *m = &r->m[k];
	printf("{\"id\": %" PRIu32 ", \"name\": ", m->metric.id);
	put_json_str(stdout, m->metric.name);
	printf(", \"kind\": \"%s\", \"combine\": \"%s\", \"scale\": ",
	       metric_kind_name(m->metric.kind), combine_name(m->metric.combine));
	put_json_double(m->scale);
}

int report_describe_json(const report *r, const char *schema)
{
	const report_metric *m0 = &r->m[0];
	char **src = sources(r);
	if (!src)
		return TOOL_OOM;
	printf("{\"schema\": \"%s\", \"metric\": ", schema);
	put_metric_head(r, 0);
	printf("}, \"source\": \"%s\", \"profile\": ", source_key(r, 0));
	if (m0->mode == REPORT_ONE || m0->mode == REPORT_SUMMARY)
		printf("%" PRIu32, m0->profile);
	else
		printf("null");
	printf(", \"total\": ");
	put_json_double(m0->total);
	printf(", \"metrics\": [");
	for (size_t k = 0; k < r->n; k++) {
		const report_metric *m = &r->m[k];
		printf("%s", k ? ", " : "");
		put_metric_head(r, k);
		printf(", \"unit\": ");
		put_json_str(stdout, m->metric.unit);
		printf(", \"source\": \"%s\", \"total\": ", source_key(r, k));
		put_json_double(m->total);
		printf(", \"combined\": ");
		put_json_cstr(stdout, src[k]);
		printf("}");
	}
	printf("], \"selection\": ");
	if (r->o->profiles)
		put_json_cstr(stdout, r->o->profiles);
	else
		printf("null");
	printf(", \"profiles\": [");
	/* the profiles that were combined: the selection, or the one profile */
	if (m0->mode == REPORT_ONE || m0->mode == REPORT_SUMMARY)
		printf("%" PRIu32, m0->profile);
	else
		for (size_t i = 0; i < r->n_sel; i++)
			printf("%s%" PRIu32, i ? ", " : "", r->sel[i]);
	printf("], \"stat\": ");
	if (r->o->stat != RSTAT_NONE)
		printf("\"%s\"", report_stat_name(r->o->stat));
	else
		printf("null");
	free_sources(r, src);
	return 0;
}

int report_has_percent(const report *r, size_t k)
{
	const report_metric *m = &r->m[k];
	return m->mode != REPORT_STAT && profdb_combine_adds(m->metric.combine) &&
	       m->total != 0 && !isnan(m->total);
}

double report_percent(const report *r, size_t k, double v)
{
	return report_has_percent(r, k) ? 100.0 * v / r->m[k].total : NAN;
}

char *report_column_name(const report *r, size_t k, size_t width)
{
	profdb_str s = r->m[k].metric.name;
	char *name = malloc(s.len + 1);
	if (!name)
		return NULL;
	char *col = fmt_shorten_new(names_shown(s, name, s.len + 1), width);
	free(name);
	return col;
}

int report_column_width(const report *r, size_t k)
{
	char *col = report_column_name(r, k, 16);
	if (!col)
		return TOOL_OOM;
	int w = (int)fmt_width(col);
	free(col);
	return w;
}

int report_put_column(const report *r, size_t k, int w)
{
	char *col = report_column_name(r, k, (size_t)w);
	if (!col)
		return TOOL_OOM;
	fmt_put(col, w);
	free(col);
	return 0;
}
