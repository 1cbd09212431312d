/* The HPCToolkit 4.0 backend: values, inclusive/exclusive, the cursor and
 * traces (doc/model.md, "HPCToolkit 4.0"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"
#include "layout-internal.h"

/* ---- values ---------------------------------------------------------------------- */

static int check_metric(const hq *q, uint32_t m)
{
	if (q->has[PROFDB_HPCTK_META] && !metric_of(q, m))
		return profdb__fail(-ENOENT, "no metric with id %" PRIu32, m);
	return 0;
}

static void set_f64(profdb_number *out, double v)
{
	out->type = PROFDB_TYPE_F64;
	out->as.f64 = v;
}

/* The F64 of record @p i of a plane's values view. */
static inline double f64_at(const profdb_view *v, uint64_t i)
{
	return profdb__hpctk_f64(v, i);
}

int profdb__hpctkq_value(const void *impl, uint32_t p, uint32_t c, uint32_t m,
                         profdb_number *out)
{
	const hq *q = impl;
	profdb_view index, values;
	uint64_t i, j;
	int r;
	if ((r = check_metric(q, m)) < 0 ||
	    (r = profdb__hpctkq_prof_plane(q, p, &index, &values)) < 0)
		return r;
	/* Two searches over the validated plane, through the core search. */
	if (profdb__hpctk_find(&index, c, &i) != 1)
		return 0;
	profdb_view run;
	profdb__hpctk_run(&index, i, &values, &run);
	if (profdb__hpctk_find(&run, m, &j) != 1)
		return 0;
	set_f64(out, f64_at(&run, j));
	return 1;
}

/* The stored scope of the same quantity: HPCToolkit stores both, nothing is
 * computed (doc/model.md). */
int profdb__hpctkq_scoped(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
                          profdb_number *out)
{
	const hq *q = impl;
	int r;
	if (!q->has[PROFDB_HPCTK_META])
		return profdb__fail(-ENOTSUP, "without meta.db the scopes of metric %" PRIu32
		                    " are unknown", m);
	const hq_metric *e = metric_of(q, m);
	if (!e)
		return profdb__fail(-ENOENT, "no metric with id %" PRIu32, m);
	if (e->kind == PROFDB_METRIC_SUMMARY) {
		if ((r = profdb__hpctkq_profiles(q)) < 0)
			return r;
		if (!q->is_summary[p])
			return profdb__fail(-ENOTSUP, "metric %" PRIu32 " is a summary statistic: "
			                    "profile %" PRIu32 " is not a summary profile", m, p);
	}
	uint32_t target = inclusive ? e->inclusive_id : e->exclusive_id;
	if (target == PROFDB_NONE)
		return profdb__fail(-ENOTSUP, "metric %" PRIu32 " (\"%s\") has no %s scope", m,
		                    e->name, inclusive ? "execution (inclusive)"
		                                       : "function (exclusive)");
	return profdb__hpctkq_value(q, p, c, target, out);
}

/* ---- the cursor ------------------------------------------------------------------ */

enum { CUR_PROFILES, CUR_CCT, CUR_SCAN };

/* A context's values come from its cct.db plane, which holds exactly the
 * thread profiles' values (checked against profile.db on first use, cross.c),
 * when both files are open; else from each thread profile's plane. */
static int zero_copy_context(const hq *q)
{
	return q->has[PROFDB_HPCTK_CCT] && q->has[PROFDB_HPCTK_PROFILE];
}

typedef struct hq_cur {
	int mode;
	uint32_t p, p_end;           /* profile range (CUR_PROFILES, CUR_SCAN) */
	int have_plane, have_run;
	profdb_view index, values;   /* the current plane */
	profdb_view run;             /* the current run of values */
	uint64_t i, j;
	uint32_t key;                /* the current run's key (context or metric) */
} hq_cur;

int profdb__hpctkq_cursor_begin(const void *impl, profdb__cursor *cur)
{
	const hq *q = impl;
	int r;
	hq_cur *c = calloc(1, sizeof *c);
	if (!c)
		return profdb__fail(-ENOMEM, "out of memory");
	cur->priv = c;
	switch (cur->scan) {
	case PROFDB_SCAN_PROFILE:
		c->mode = CUR_PROFILES;
		c->p = cur->key;
		c->p_end = cur->key + 1;
		break;
	case PROFDB_SCAN_CONTEXT:
		if ((r = profdb__hpctkq_profiles(q)) < 0)
			return r;
		c->mode = zero_copy_context(q) ? CUR_CCT : CUR_SCAN;
		c->p_end = q->n_profiles;
		break;
	default:
		c->mode = CUR_PROFILES;
		c->p_end = q->n_profiles;
	}
	return 0;
}

static void emit(profdb_entry *out, uint32_t p, uint32_t ctx, uint32_t m, double v)
{
	out->profile = p;
	out->context = ctx;
	out->metric = m;
	set_f64(&out->value, v);
}

/* Start run @p i of the current plane. */
static void start_run(hq_cur *c, uint64_t i)
{
	c->key = (uint32_t)profdb_view_key(&c->index, i);
	profdb__hpctk_run(&c->index, i, &c->values, &c->run);
	c->have_run = 1;
	c->j = 0;
}

/* The next record of the current plane, run by run: 1 and its index in
 * c->run, 0 when the plane is exhausted. */
static int plane_next(hq_cur *c, uint64_t *j)
{
	for (;;) {
		if (!c->have_run) {
			if (c->i >= c->index.count)
				return 0;
			start_run(c, c->i);
		}
		if (c->j < c->run.count) {
			*j = c->j++;
			return 1;
		}
		c->have_run = 0;
		c->i++;
	}
}

/* Profile-major: the planes of profiles p .. p_end-1, whole. */
static int next_profiles(const hq *q, profdb__cursor *cur, hq_cur *c, profdb_entry *out)
{
	int r;
	for (;;) {
		if (!c->have_plane) {
			if (c->p >= c->p_end)
				return 0;
			if (cur->scan == PROFDB_SCAN_ALL && (r = progress(q, c->p, q->n_profiles)) < 0)
				return r;
			if ((r = profdb__hpctkq_prof_plane(q, c->p, &c->index, &c->values)) < 0)
				return r;
			c->have_plane = 1;
			c->have_run = 0;
			c->i = 0;
		}
		uint64_t j;
		if (!plane_next(c, &j)) {
			c->have_plane = 0;
			c->p++;
			continue;
		}
		emit(out, c->p, c->key, (uint32_t)profdb_view_key(&c->run, j), f64_at(&c->run, j));
		return 1;
	}
}

/* One context, read from profile @p p's plane, one search. */
static int next_run_of(const hq *q, hq_cur *c, uint32_t p, uint32_t ctx, profdb_entry *out)
{
	int r;
	if (!c->have_run) {
		uint64_t i;
		if ((r = profdb__hpctkq_prof_plane(q, p, &c->index, &c->values)) < 0)
			return r;
		if (profdb__hpctk_find(&c->index, ctx, &i) == 1) {
			start_run(c, i);
		} else {
			c->run.count = 0;
			c->have_run = 1;
			c->j = 0;
		}
	}
	if (c->j >= c->run.count) {
		c->have_run = 0;
		return 0;
	}
	uint64_t j = c->j++;
	emit(out, p, ctx, (uint32_t)profdb_view_key(&c->run, j), f64_at(&c->run, j));
	return 1;
}

/* SCAN_CONTEXT without cct.db: the thread profiles' planes, in order. */
static int next_scan(const hq *q, profdb__cursor *cur, hq_cur *c, profdb_entry *out)
{
	for (; c->p < c->p_end; c->p++) {
		if (q->is_summary[c->p])
			continue;
		int r = next_run_of(q, c, c->p, cur->key, out);
		if (r != 0)
			return r;
	}
	return 0;
}

/* SCAN_CONTEXT: the context's cct.db plane, metric-major, as it is. */
static int next_cct(const hq *q, profdb__cursor *cur, hq_cur *c, profdb_entry *out)
{
	int r;
	for (;;) {
		if (!c->have_plane) {
			if ((r = profdb__hpctkq_cct_plane(q, cur->key, &c->index, &c->values)) < 0)
				return r;
			c->have_plane = 1;
			c->have_run = 0;
			c->i = 0;
		}
		uint64_t j;
		if (!plane_next(c, &j))
			return 0;
		emit(out, (uint32_t)profdb_view_key(&c->run, j), cur->key, c->key,
		     f64_at(&c->run, j));
		return 1;
	}
}

int profdb__hpctkq_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out)
{
	const hq *q = impl;
	hq_cur *c = cur->priv;
	switch (c->mode) {
	case CUR_CCT: return next_cct(q, cur, c, out);
	case CUR_SCAN: return next_scan(q, cur, c, out);
	default: return next_profiles(q, cur, c, out);
	}
}

void profdb__hpctkq_cursor_free(const void *impl, profdb__cursor *cur)
{
	(void)impl;
	free(cur->priv);
	cur->priv = NULL;
}

/* ---- traces ---------------------------------------------------------------------- */

/* Which trace line belongs to each profile: read from the line headers
 * only (no line is validated here). */
static int build_traces(void *arg)
{
	hq *q = arg;
	const profdb_hpctk *db = q->db;
	q->trace_of = malloc((q->n_profiles ? q->n_profiles : 1) * sizeof *q->trace_of);
	if (!q->trace_of)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t p = 0; p < q->n_profiles; p++)
		q->trace_of[p] = PROFDB_NONE;
	const profdb__input *in = &db->in[PROFDB_HPCTK_TRACE];
	for (uint32_t t = 0; t < q->n_traces; t++) {
		const unsigned char *h;
		uint64_t at = db->p_traces + (uint64_t)t * db->sz_trace;
		int r = profdb__range(in, at, 4, "trace header", &h);
		if (r < 0)
			return r;
		uint32_t p = hl_trace_profile(h);   /* its first 4 bytes, checked above */
		if (p >= q->n_profiles)
			profdb__warn(&q->opts, "%s: trace line %" PRIu32 " at 0x%" PRIx64 " belongs to "
			             "profile %" PRIu32 ", which profile.db does not have", in->name, t,
			             at, p);
		else if (q->trace_of[p] != PROFDB_NONE)
			profdb__warn(&q->opts, "%s: trace line %" PRIu32 " at 0x%" PRIx64 " is a second "
			             "line of profile %" PRIu32 "; the first one is used", in->name, t,
			             at, p);
		else
			q->trace_of[p] = t;
	}
	return 0;
}

/* The trace of profile @p p (an empty view when it has none). */
static int trace_of(const hq *q, uint32_t p, profdb_view *out)
{
	profdb_hpctk_trace t;
	int r;
	memset(out, 0, sizeof *out);
	out->stride = HL_SAMPLE;
	out->key_type = PROFDB_FIELD_U64;
	out->value_offset = 8;
	out->value_type = PROFDB_FIELD_U32;
	if (!q->has[PROFDB_HPCTK_TRACE])
		return 0;
	hq *mut = (hq *)q;
	if ((r = profdb__once_run(&mut->trace_once, build_traces, mut)) < 0)
		return r;
	if (q->trace_of[p] == PROFDB_NONE)
		return 0;
	if ((r = profdb__hpctkq_trace_line(q, q->trace_of[p], &t)) < 0)
		return r;
	*out = t.samples;
	return 0;
}

int64_t profdb__hpctkq_trace_length(const void *impl, uint32_t p)
{
	profdb_view t;
	int r = trace_of(impl, p, &t);
	return r < 0 ? r : (int64_t)t.count;
}

int profdb__hpctkq_trace_at(const void *impl, uint32_t p, uint64_t i, profdb_sample *out)
{
	profdb_view t;
	int r = trace_of(impl, p, &t);
	if (r < 0)
		return r;
	if (i >= t.count)
		return profdb__fail(-ENOENT, "sample %" PRIu64 " of profile %" PRIu32 " does not exist "
		                    "(%" PRIu64 " samples)", i, p, t.count);
	memset(out, 0, sizeof *out);
	out->time_ns = profdb_view_key(&t, i);
	out->context = (uint32_t)profdb_view_value(&t, i).as.u64;
	return 0;
}

int profdb__hpctkq_trace_seek(const void *impl, uint32_t p, uint64_t time, uint64_t *index)
{
	profdb_view t;
	int r = trace_of(impl, p, &t);
	if (r < 0)
		return r;
	return profdb_view_seek(&t, time, index);
}

/* ---- views ------------------------------------------------------------------------ */

/* profile.db's plane as it is: the common metric ids are the stored ids and
 * the common profile indices profile.db's, and SCAN_PROFILE emits the plane
 * in its own order (next_profiles). */
int profdb__hpctkq_profile_view(const void *impl, uint32_t p, profdb_view *index,
                                profdb_view *values)
{
	return profdb__hpctkq_prof_plane(impl, p, index, values);
}

/* cct.db's plane as it is: SCAN_CONTEXT emits it in its own order
 * (next_cct), and its first use checked that it names thread profiles of
 * profile.db only (cross.c). A damaged plane reads as empty in tolerant
 * mode, for the view and the scan alike. */
int profdb__hpctkq_context_view(const void *impl, uint32_t ctx, profdb_view *index,
                                profdb_view *values)
{
	const hq *q = impl;
	if (!zero_copy_context(q))
		return PROFDB__VIEW_FALLBACK;
	return profdb__hpctkq_cct_plane(q, ctx, index, values);
}

int profdb__hpctkq_trace_view(const void *impl, uint32_t p, profdb_view *out)
{
	return trace_of(impl, p, out);
}
