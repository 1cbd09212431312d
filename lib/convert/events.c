/* Metrics as Callgrind events and pprof sample types: unsigned integer
 * costs in a named unit (doc/CONVERT.md, "Integer costs"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost-internal.h"
#include "query/hints-internal.h"

/* The point-scope sibling of @p m (same name, kind POINT, with values). */
static int point_sibling(const profdb *db, const profdb_metric *m, uint32_t *out)
{
	int64_t n = profdb_metric_count(db);
	for (int64_t i = 0; i < n; i++) {
		profdb_metric o;
		if (profdb_metric_at(db, (uint32_t)i, &o) < 0 || o.kind != PROFDB_METRIC_POINT ||
		    o.name.len != m->name.len || memcmp(o.name.ptr, m->name.ptr, o.name.len))
			continue;
		int r = profdb_metric_has_values(db, o.id);
		if (r < 0)
			return r;
		if (r) {
			*out = o.id;
			return 1;
		}
	}
	return 0;
}

/* Where the self costs of @p m are read (cost-internal.h, diff). */
static int resolve(const profdb *db, const profdb_metric *m, const char *fmt,
                   profdb__cv_event *e)
{
	e->metric = m->id;
	if (m->combine != PROFDB_COMBINE_SUM)
		return profdb__fail(-ENOTSUP, "profdb_convert: metric '%.*s' (id %u) combines by %s, "
		                    "but %s costs add up; only sum metrics convert", (int)m->name.len,
		                    m->name.ptr, m->id, m->combine == PROFDB_COMBINE_MIN ? "minimum"
		                    : m->combine == PROFDB_COMBINE_MAX ? "maximum" : "no rule", fmt);
	if (m->kind == PROFDB_METRIC_SUMMARY || m->kind == PROFDB_METRIC_DERIVED || !m->has_data)
		return profdb__fail(-ENOTSUP, "profdb_convert: metric '%.*s' (id %u) %s; %s needs "
		                    "per-profile values", (int)m->name.len, m->name.ptr, m->id,
		                    m->kind == PROFDB_METRIC_DERIVED ? "is derived (a formula)"
		                    : m->kind == PROFDB_METRIC_SUMMARY ? "is a summary statistic"
		                    : "stores no data", fmt);
	e->src = m->id;
	e->diff = 0;
	int elided = profdb__self_from_inclusive(db);
	/* HPCToolkit: the point scope sits largely at contexts hpcprof elided
	 * from the tree, and the function scope holds loops and lines twice;
	 * the inclusive scope less the children's is the cost at each node. */
	if (elided && m->inclusive_id != PROFDB_NONE) {
		e->src = m->inclusive_id;
		e->diff = 1;
		return 0;
	}
	if (m->kind == PROFDB_METRIC_POINT)
		return 0;
	int r = point_sibling(db, m, &e->src);
	if (r)
		return r < 0 ? r : 0;
	if (m->kind == PROFDB_METRIC_EXCLUSIVE && !elided)
		return 0;
	if (m->inclusive_id != PROFDB_NONE) {
		e->src = m->inclusive_id;
		e->diff = 1;
		return 0;
	}
	return profdb__fail(-ENOTSUP, "profdb_convert: metric '%.*s' (id %u) has no scope whose "
	                    "values count each cost once (point, self or inclusive), which %s "
	                    "needs", (int)m->name.len, m->name.ptr, m->id, fmt);
}

/* A time unit in @p s ("sec", "(usec)", ...): its factor to ns, else 0. */
static double time_factor(profdb_str s, size_t *cut, int bare)
{
	static const struct { const char *u; double f; } units[] = {
		{"(sec)", 1e9}, {"(s)", 1e9}, {"(seconds)", 1e9}, {"(msec)", 1e6}, {"(ms)", 1e6},
		{"(usec)", 1e3}, {"(us)", 1e3}, {"(nsec)", 1}, {"(ns)", 1},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t l = strlen(units[i].u);
		if (s.len >= l && !strncasecmp(s.ptr + s.len - l, units[i].u, l)) {
			*cut = s.len - l;
			return units[i].f;
		}
		/* a bare unit field: "sec", "s", "usec" */
		if (bare && s.len == l - 2 && !strncasecmp(s.ptr, units[i].u + 1, l - 2)) {
			*cut = s.len;
			return units[i].f;
		}
	}
	return 0;
}

/* [A-Za-z_][A-Za-z0-9_]* from the metric's name, without a time unit. */
static void event_name(const profdb_metric *m, size_t len, const char *suffix, char *out,
                       size_t cap)
{
	size_t o = 0;
	int gap = 0;
	for (size_t i = 0; i < len && o + 1 < cap - 16; i++) {
		unsigned char c = (unsigned char)m->name.ptr[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!ok) {
			gap = o > 0;
			continue;
		}
		if (gap)
			out[o++] = '_';
		gap = 0;
		if (!o && c >= '0' && c <= '9')
			out[o++] = '_';
		out[o++] = (char)c;
	}
	if (!o)
		o = (size_t)snprintf(out, cap, "metric%u", m->id);
	snprintf(out + o, cap - o, "%s", suffix);
}

/* Units and scale of @p e from @p m and its values (@p fractional: some
 * f64 value, times the scale, is not an integer). */
static void name_event(const profdb_metric *m, profdb__cv_event *e, int fractional)
{
	size_t cut = m->name.len;
	double tf = time_factor(m->name, &cut, 0);
	if (!tf && m->unit.len) {
		size_t ucut;
		tf = time_factor(m->unit, &ucut, 1);
	}
	double scale = m->scale > 0 ? m->scale : 1;
	const char *suffix = "";
	if (e->is_float && tf) {
		e->factor = tf * scale;
		snprintf(e->unit, sizeof e->unit, "nanoseconds");
		suffix = "_ns";
	} else if (e->is_float && fractional) {
		e->factor = 1e6 * scale;
		snprintf(e->unit, sizeof e->unit, "micro-%.*s", m->unit.len ? (int)m->unit.len : 5,
		         m->unit.len ? m->unit.ptr : "units");
		suffix = "_u";
	} else {
		e->factor = scale;
		snprintf(e->unit, sizeof e->unit, "%.*s", m->unit.len ? (int)m->unit.len : 5,
		         m->unit.len ? m->unit.ptr : "count");
	}
	event_name(m, tf ? cut : m->name.len, suffix, e->name, sizeof e->name);
	/* "NAME [metric ID], in UNIT (x F from the stored unit, rounded to
	 * nearest), x period P": what a reader needs to get the numbers back */
	int n = snprintf(e->long_name, sizeof e->long_name, "%.*s [metric %u]",
	                 (int)(m->name.len < 100 ? m->name.len : 100), m->name.ptr, m->id);
	double unit_factor = e->is_float ? e->factor / scale : 1;
	if (n > 0 && (size_t)n < sizeof e->long_name && unit_factor != 1)
		n += snprintf(e->long_name + n, sizeof e->long_name - (size_t)n, ", in %s (x %g from "
		              "%s, rounded to nearest)", e->unit, unit_factor, tf ? "the stored time unit"
		              : "the stored values");
	if (n > 0 && (size_t)n < sizeof e->long_name && scale != 1)
		snprintf(e->long_name + n, sizeof e->long_name - (size_t)n, ", x period %g%s", scale,
		         e->is_float && unit_factor == 1 ? " (rounded to nearest)" : "");
}

/* The stored values of the events' sources in @p profiles: refuse
 * negative and non-finite ones, note fractional ones. */
static int check_values(const profdb *db, profdb__cv_event *ev, size_t n, const char *fmt,
                        const uint32_t *profiles, size_t n_profiles, int *fractional)
{
	int need = 0;
	for (size_t k = 0; k < n; k++)
		need |= ev[k].type != PROFDB_TYPE_U64;
	if (!need)
		return 0;
	for (size_t p = 0; p < n_profiles; p++) {
		profdb_values *it;
		int r = profdb_values_new(&it, db, PROFDB_SCAN_PROFILE, profiles[p]);
		if (r < 0)
			return r;
		profdb_entry e;
		while ((r = profdb_values_next(it, &e)) > 0) {
			for (size_t k = 0; k < n; k++) {
				if (ev[k].src != e.metric)
					continue;
				double v = profdb_number_to_double(e.value);
				int neg = e.value.type == PROFDB_TYPE_I64 ? e.value.as.i64 < 0
				        : e.value.type == PROFDB_TYPE_F64 ? v < 0 : 0;
				if (neg || !isfinite(v)) {
					profdb_values_free(it);
					return profdb__fail(-ENOTSUP, "profdb_convert: metric id %u has a "
					                    "%s value (%g) at context %u of profile %u; %s "
					                    "costs are finite and not negative (choose other "
					                    "metrics with -m)", ev[k].metric, neg ? "negative"
					                    : "non-finite", v, e.context, e.profile, fmt);
				}
				if (e.value.type == PROFDB_TYPE_F64 && v * ev[k].factor != floor(v * ev[k].factor))
					fractional[k] = 1;
			}
		}
		profdb_values_free(it);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The ids asked for, or the default: every sum metric with values, one per
 * source (the scopes of one quantity read the same costs). */
static int pick(const profdb *db, const profdb_convert_options *opts, const char *fmt,
                profdb__cv_event **ret, size_t *n)
{
	int64_t nm = profdb_metric_count(db);
	if (nm < 0)
		return (int)nm;
	size_t cap = opts->metrics ? opts->n_metrics : (size_t)nm;
	profdb__cv_event *ev = calloc(cap + 2, sizeof *ev);
	if (!ev)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	size_t k = 0;
	for (size_t i = 0; i < cap; i++) {
		profdb_metric m;
		int r = opts->metrics ? profdb_metric_get(db, opts->metrics[i], &m)
		                      : profdb_metric_at(db, (uint32_t)i, &m);
		if (r < 0)
			goto fail;
		if (!opts->metrics) {
			if (m.combine != PROFDB_COMBINE_SUM || m.kind == PROFDB_METRIC_SUMMARY ||
			    m.kind == PROFDB_METRIC_DERIVED || !m.has_data)
				continue;
			/* declared events (Callgrind's) are kept as their writer declared them */
			if (!profdb__declared_events(db) && (r = profdb_metric_has_values(db, m.id)) <= 0) {
				if (r < 0)
					goto fail;
				continue;
			}
		}
		if ((r = resolve(db, &m, fmt, &ev[k])) < 0)
			goto fail;
		int dup = 0;
		for (size_t j = 0; j < k; j++)
			dup |= ev[j].src == ev[k].src;
		if (!dup)
			k++;
		continue;
fail:
		free(ev);
		return r;
	}
	*ret = ev;
	*n = k;
	return 0;
}

/* A format that records call counts as a metric (Cube's "visits",
 * doc/model.md "Call edges"): read it too, hidden, when it adds up. */
static void add_visits(const profdb *db, profdb__cv_event *ev, size_t *n)
{
	profdb_metric m;
	if (profdb__call_count_metric(db, &m) <= 0 || m.combine != PROFDB_COMBINE_SUM ||
	    m.type == PROFDB_TYPE_F64 || !m.has_data)
		return;
	profdb__cv_event *e = &ev[*n];
	memset(e, 0, sizeof *e);
	/* the count of a call is the stored value at the callee (doc/model.md,
	 * "Call edges"), whichever scope the file declares */
	e->metric = e->src = m.id;
	e->hidden = 1;
	(*n)++;
}

void profdb__cv_unique_names(profdb__cv_event *ev, size_t n)
{
	for (size_t k = 1; k < n; k++)
		for (unsigned dup = 2;; dup++) {
			size_t j = 0;
			while (j < k && strcmp(ev[j].name, ev[k].name))
				j++;
			if (j == k)
				break;
			char tmp[sizeof ev[k].name];
			size_t l = strlen(ev[k].name);
			if (l > sizeof tmp - 12)
				l = sizeof tmp - 12;
			snprintf(tmp, sizeof tmp, "%.*s_%u", (int)l, ev[k].name, dup);
			memcpy(ev[k].name, tmp, sizeof tmp);
		}
}

int profdb__cv_events(const profdb *db, const profdb_convert_options *opts, const char *fmt,
                      const uint32_t *profiles, size_t n_profiles,
                      profdb__cv_event **ret, size_t *n)
{
	profdb__cv_event *ev = NULL;
	size_t k = 0;
	int r = pick(db, opts, fmt, &ev, &k);
	if (r < 0)
		return r;
	if (!k) {
		free(ev);
		profdb_counts c;
		int64_t traces = profdb_get_counts(db, &c) >= 0 ? c.traces : 0;
		return profdb__fail(-ENOTSUP, "profdb_convert: no metric to write: %s needs a metric "
		                    "that adds up (sum) and has values%s", fmt, traces
		                    ? "; traces are not written to it (use -t chrome or speedscope)"
		                    : "");
	}
	add_visits(db, ev, &k);
	int *fractional = calloc(k + 1, sizeof *fractional);
	if (!fractional) {
		free(ev);
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	}
	for (size_t i = 0; i < k && r >= 0; i++) {
		profdb_metric src;
		if ((r = profdb_metric_get(db, ev[i].src, &src)) < 0)
			break;
		double scale = src.scale > 0 ? src.scale : 1;
		ev[i].type = src.type;
		ev[i].is_float = src.type == PROFDB_TYPE_F64 || scale != floor(scale) || scale > 0x1p53;
		ev[i].ifactor = ev[i].is_float ? 1 : (uint64_t)scale;
		ev[i].factor = scale;
	}
	if (r >= 0)
		r = check_values(db, ev, k, fmt, profiles, n_profiles, fractional);
	for (size_t i = 0; i < k && r >= 0; i++) {
		profdb_metric m;
		if ((r = profdb_metric_get(db, ev[i].metric, &m)) >= 0)
			name_event(&m, &ev[i], fractional[i]);
	}
	free(fractional);
	if (r < 0) {
		free(ev);
		return r;
	}
	profdb__cv_unique_names(ev, k);
	*ret = ev;
	*n = k;
	return 0;
}
