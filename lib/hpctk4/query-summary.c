/* The HPCToolkit 4.0 backend's summary records (backend-internal.h,
 * summary_stats and summary_scope): what each statistic id of the summary
 * profile combines, read from meta.db's metric table, for the check of
 * hpcprof's stored statistics (lib/analysis/summary-check.c). */
#include <errno.h>
#include <string.h>

#include "query-internal.h"

static int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

profdb_combine profdb__hpctkq_combine(uint8_t code)
{
	switch (code) {
	case PROFDB_HPCTK_COMBINE_SUM: return PROFDB_COMBINE_SUM;
	case PROFDB_HPCTK_COMBINE_MIN: return PROFDB_COMBINE_MIN;
	case PROFDB_HPCTK_COMBINE_MAX: return PROFDB_COMBINE_MAX;
	default: return PROFDB_COMBINE_NONE;
	}
}

/* Summary record @p s of metric @p m as a statistic: its values are those
 * of the metric's first propagated id of the same scope. 1, 0 (no such
 * scope), < 0. */
static int stat_of(const profdb_hpctk *h, uint32_t m, uint32_t n_props,
                   const profdb_hpctk_summary *s, profdb__summary_stat *out)
{
	for (uint32_t j = 0; j < n_props; j++) {
		profdb_hpctk_prop p;
		int r = profdb_hpctk_metric_prop_at(h, m, j, &p);
		if (r < 0)
			return r;
		if (!same_str(p.scope, s->scope))
			continue;
		out->id = s->stat_metric_id;
		out->of = p.prop_metric_id;
		out->quantity = m;
		out->combine = profdb__hpctkq_combine(s->combine);
		out->formula = s->formula;
		out->loop_own_body = same_str(s->scope, profdb__str("lex_aware"));
		return 1;
	}
	return 0;
}

int64_t profdb__hpctkq_summary_stats(const void *impl, profdb__summary_stat *out, size_t cap)
{
	const profdb_hpctk *h = ((const hq *)impl)->db;
	int64_t n = profdb_hpctk_metric_count(h), k = 0;
	if (n < 0)
		return n;
	for (uint32_t m = 0; m < (uint64_t)n; m++) {
		profdb_hpctk_metric md;
		int r = profdb_hpctk_metric_at(h, m, &md);
		if (r < 0)
			return r;
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			profdb__summary_stat st;
			if ((r = profdb_hpctk_metric_summary_at(h, m, i, &s)) < 0 ||
			    (r = stat_of(h, m, md.n_props, &s, &st)) < 0)
				return r;
			if (r && (uint64_t)k < cap)
				out[k] = st;
			k += r;
		}
	}
	return k;
}

int profdb__hpctkq_summary_scope(const void *impl, uint32_t quantity, uint32_t i, uint32_t *id)
{
	const profdb_hpctk *h = ((const hq *)impl)->db;
	profdb_hpctk_metric md;
	profdb_hpctk_prop p;
	int r = profdb_hpctk_metric_at(h, quantity, &md);
	if (r < 0)
		return r;
	if (i >= md.n_props)
		return -ENOENT;
	if ((r = profdb_hpctk_metric_prop_at(h, quantity, i, &p)) < 0)
		return r;
	*id = p.prop_metric_id;
	return 0;
}
