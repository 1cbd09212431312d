/* Metric selection and aggregation over profiles for `top` and `tree`.
 *
 * Default metric: the first metric (in profdb_metric_at order) that has a
 * non-zero stored value (profdb_metric_has_values) and is inclusive or
 * exclusive; failing that the first with values; then the same with
 * has_data; failing that the first. Default aggregation: the summary
 * profile where the format has one, it can answer for the metric and it
 * holds the metric's own combination (HPCToolkit may store a count under a
 * propagated id); otherwise every other profile combined by the metric's
 * rule (sum, min or max; doc/model.md, "Combining numbers"), in profile
 * order. Values are multiplied by the metric's scale (hpcrun's sampling
 * period) unless --raw. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report.h"

int report_raw;

static int pick_default(profdb *db, profdb_metric *out)
{
	int64_t n = profdb_metric_count(db);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENOENT;
	int best = -1;
	for (int64_t i = 0; i < n; i++) {
		profdb_metric m;
		int r = profdb_metric_at(db, (uint32_t)i, &m);
		if (r < 0)
			return r;
		int values = profdb_metric_has_values(db, m.id);
		if (values < 0 && values != -ENOTSUP)
			return values;
		if (values == -ENOTSUP)
			values = m.has_data;
		int scoped = m.kind == PROFDB_METRIC_INCLUSIVE || m.kind == PROFDB_METRIC_EXCLUSIVE;
		int rank = values ? 3 + scoped : m.has_data ? 1 + scoped : 0;
		if (rank > best) {
			best = rank;
			*out = m;
		}
		if (rank == 4)
			break;
	}
	return 0;
}

/* Does the chosen source answer for this metric at all? Asked of the
 * first root: -ENOTSUP means "the format cannot say". */
static int probe(report *r, int inclusive)
{
	uint32_t root;
	double v;
	if (profdb_context_root(r->db, &root) < 0)
		return 1;   /* empty tree: nothing to ask */
	int e = report_value(r, root, inclusive, &v);
	return e == -ENOTSUP ? 0 : e < 0 ? e : 1;
}

/* Sets has_inc and has_exc for the current mode. @return 0 or < 0. */
static int probe_both(report *r)
{
	int inc, exc;
	r->has_inc = r->has_exc = 1;   /* report_value asks whatever it is told */
	if ((inc = probe(r, 1)) < 0 || (exc = probe(r, 0)) < 0)
		return inc < 0 ? inc : exc;
	r->has_inc = inc;
	r->has_exc = exc;
	return 0;
}

/* a combined with b; NONE keeps a (nothing is added up). */
static double combine(profdb_combine c, double a, double b)
{
	switch (c) {
	case PROFDB_COMBINE_SUM: return a + b;
	case PROFDB_COMBINE_MIN: return b < a ? b : a;
	case PROFDB_COMBINE_MAX: return b > a ? b : a;
	default: return a;
	}
}

/* More than one non-summary profile? */
static int several_profiles(const report *r)
{
	uint32_t n = 0;
	for (uint32_t p = 0; p < r->n_profiles && n < 2; p++) {
		profdb_profile pr;
		if (profdb_profile_get(r->db, p, &pr) < 0 || !pr.is_summary)
			n++;
	}
	return n > 1;
}

int report_open(report *r, const char *path, const char *metric, int64_t profile)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	if (tool_open(path, &r->db))
		return EXIT_INPUT;
	int e;
	if (metric) {
		e = profdb_metric_find(r->db, metric, &r->metric);
		if (e == -ENOENT) {
			fprintf(stderr, "%s: %s: no metric named or numbered '%s' (see 'profdb metrics')\n",
			        tool_prog, path, metric);
			report_close(r);
			return EXIT_USAGE;
		}
	} else {
		e = pick_default(r->db, &r->metric);
		if (e == -ENOENT) {
			fprintf(stderr, "%s: %s: the database has no metrics\n", tool_prog, path);
			report_close(r);
			return EXIT_INPUT;
		}
	}
	int64_t np = profdb_profile_count(r->db);
	if (e < 0 || np < 0)
		goto fail;
	r->n_profiles = (uint32_t)np;
	if (profile >= 0) {
		if (profile >= np) {
			fprintf(stderr, "%s: %s: no profile %" PRId64 " (the database has %" PRId64 ")\n",
			        tool_prog, path, profile, np);
			report_close(r);
			return EXIT_USAGE;
		}
		r->mode = REPORT_ONE;
		r->profile = (uint32_t)profile;
	} else {
		r->mode = REPORT_SUM;
		for (uint32_t p = 0; p < r->n_profiles; p++) {
			profdb_profile pr;
			if ((e = profdb_profile_get(r->db, p, &pr)) < 0)
				goto fail;
			if (pr.is_summary) {
				r->mode = REPORT_SUMMARY;
				r->profile = p;
				break;
			}
		}
	}
	r->combine = r->metric.combine;
	r->scale = report_raw || !(r->metric.scale > 0) ? 1 : r->metric.scale;
	if (r->mode == REPORT_SUMMARY && r->metric.kind != PROFDB_METRIC_SUMMARY &&
	    r->metric.statistic.len &&
	    (r->metric.statistic.len != strlen(combine_name(r->combine)) ||
	     memcmp(r->metric.statistic.ptr, combine_name(r->combine), r->metric.statistic.len)))
		r->mode = REPORT_SUM;   /* the summary holds another statistic under the id */
	if ((e = probe_both(r)) < 0)
		goto fail;
	if (r->mode == REPORT_SUMMARY && !r->has_inc && !r->has_exc) {
		/* The summary profile has no statistic for this metric: add up. */
		r->mode = REPORT_SUM;
		if ((e = probe_both(r)) < 0)
			goto fail;
	}
	if (!r->has_inc && !r->has_exc) {
		fprintf(stderr, "%s: %s: metric '%.*s' has neither inclusive nor exclusive values "
		        "(a %s metric)\n", tool_prog, path, (int)r->metric.name.len,
		        r->metric.name.ptr, metric_kind_name(r->metric.kind));
		report_close(r);
		return EXIT_INPUT;
	}
	if (r->mode == REPORT_SUM && r->combine == PROFDB_COMBINE_NONE && several_profiles(r)) {
		fprintf(stderr, "%s: %s: the values of metric '%.*s' do not combine across profiles "
		        "(a %s metric: doc/model.md, \"Combining numbers\"); choose one with "
		        "--profile P\n", tool_prog, path, (int)r->metric.name.len, r->metric.name.ptr,
		        metric_kind_name(r->metric.kind));
		report_close(r);
		return EXIT_USAGE;
	}
	/* The total: inclusive values of the roots (a call graph made a tree
	 * may have several), combined by the metric's rule. */
	if (r->has_inc) {
		tool_walk w;
		profdb_context c;
		int first = 1;
		if ((e = walk_begin(&w, r->db)) < 0)
			goto fail;
		while ((e = walk_next(&w, &c, 1)) > 0) {
			double v;
			if ((e = report_value(r, c.id, 1, &v)) < 0)
				goto fail;
			r->total = first ? v : combine(r->combine, r->total, v);
			first = 0;
		}
		if (e < 0)
			goto fail;
	}
	return 0;
fail:
	e = tool_fail(path);
	report_close(r);
	return e;
}

void report_close(report *r)
{
	profdb_close(r->db);
	r->db = NULL;
}

int report_fail(const report *r)
{
	return tool_fail(r->path);
}

int report_value(const report *r, uint32_t ctx, int inclusive, double *out)
{
	int (*get)(const profdb *, uint32_t, uint32_t, uint32_t, profdb_number *) =
		inclusive ? profdb_inclusive : profdb_exclusive;
	profdb_number n;
	int e;
	*out = 0;
	if (r->mode != REPORT_SUM) {
		if ((e = get(r->db, r->profile, ctx, r->metric.id, &n)) < 0)
			return e;
		if (e > 0)
			*out = profdb_number_to_double(n) * r->scale;
		return 0;
	}
	/* Profiles without a value take no part (a missing value is not a 0
	 * that would win a minimum). */
	double acc = 0;
	int any = 0;
	for (uint32_t p = 0; p < r->n_profiles; p++) {
		profdb_profile pr;
		if ((e = profdb_profile_get(r->db, p, &pr)) < 0)
			return e;
		if (pr.is_summary)
			continue;
		if ((e = get(r->db, p, ctx, r->metric.id, &n)) < 0)
			return e;
		if (e > 0) {
			double v = profdb_number_to_double(n);
			acc = any ? combine(r->combine, acc, v) : v;
			any = 1;
		}
	}
	*out = acc * r->scale;
	return 0;
}

void report_describe(const report *r)
{
	printf("metric: ");
	put_text(stdout, r->metric.name);
	printf(" (id %" PRIu32 ", %s), ", r->metric.id, metric_kind_name(r->metric.kind));
	if (r->mode == REPORT_ONE) {
		profdb_profile p;
		printf("profile %" PRIu32, r->profile);
		if (profdb_profile_get(r->db, r->profile, &p) == 0 && p.name.len) {
			printf(" (");
			put_text(stdout, p.name);
			printf(")");
		}
		printf("\n");
	} else if (r->mode == REPORT_SUMMARY) {
		printf("summary profile\n");
	} else {
		printf("%s over all profiles\n", combine_name(r->combine));
	}
	if (r->combine != PROFDB_COMBINE_SUM)
		printf("note: the metric combines by %s, not by sum: no percentages\n",
		       combine_name(r->combine));
	if (r->metric.scale != 1 && r->metric.scale > 0) {
		if (report_raw)
			printf("note: raw stored values (sample counts); hpcprof shows them x %.17g, "
			       "the sampling period\n", r->metric.scale);
		else
			printf("note: values x %.17g, the sampling period, as hpcprof shows them "
			       "(--raw: the stored sample counts)\n", r->metric.scale);
	}
	profdb_about a;
	if (profdb_get_about(r->db, &a) == 0 && a.format == PROFDB_FORMAT_HPCRUN)
		printf("note: hpcrun files carry no function or source names; contexts are load "
		       "module + offset (hpcstruct/hpcprof attribute them)\n");
}

void put_json_double(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	put_number(stdout, n, 1);
}

void report_describe_json(const report *r, const char *schema)
{
	printf("{\"schema\": \"%s\", \"metric\": {\"id\": %" PRIu32 ", \"name\": ", schema,
	       r->metric.id);
	put_json_str(stdout, r->metric.name);
	printf(", \"kind\": \"%s\", \"combine\": \"%s\", \"scale\": ",
	       metric_kind_name(r->metric.kind), combine_name(r->combine));
	put_json_double(r->scale);
	printf("}, \"source\": \"%s\", \"profile\": ",
	       r->mode == REPORT_ONE ? "profile" : r->mode == REPORT_SUMMARY ? "summary"
	       : combine_name(r->combine));
	if (r->mode == REPORT_SUM)
		printf("null");
	else
		printf("%" PRIu32, r->profile);
	printf(", \"total\": ");
	put_json_double(r->total);
}

int report_has_percent(const report *r)
{
	return r->combine == PROFDB_COMBINE_SUM && r->total != 0;
}

double report_percent(const report *r, double v)
{
	return report_has_percent(r) ? 100.0 * v / r->total : NAN;
}

void put_percent(const report *r, double v)
{
	if (report_has_percent(r))
		printf(" %6.2f%%", report_percent(r, v));
	else
		printf(" %7s", "-");
}

void put_json_percent(const report *r, double v)
{
	if (report_has_percent(r))
		put_json_double(report_percent(r, v));
	else
		printf("null");
}

int report_default_metric(profdb *db, profdb_metric *out)
{
	return pick_default(db, out);
}
