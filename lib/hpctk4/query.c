/* The HPCToolkit 4.0 backend of the common query interface: opening,
 * description, metrics, tolerant mode, and the backend table (the model is
 * in query.h and doc/model.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "query-internal.h"

/* ---- tolerant mode ----------------------------------------------------------- */

/* The warn-once flags of every block (a byte per profile, cct.db slot and
 * trace line), at open in tolerant mode. */
static int alloc_warned(hq *q)
{
	uint32_t n[3] = {q->n_profiles, q->n_slots, q->n_traces};
	for (int i = 0; i < 3; i++)
		if (!(q->warned[i] = calloc(n[i] ? n[i] : 1, sizeof *q->warned[i])))
			return profdb__fail(-ENOMEM, "out of memory");
	return 0;
}

/* profdb__tolerate with the block's own warn-once flag: 0 to read block @p i
 * as absent, or @p r when the failure stands. */
static int tolerate(const hq *q, int r, int which, uint32_t i, const char *what)
{
	atomic_bool *warned = q->warned[which] ? &q->warned[which][i] : NULL;
	return profdb__tolerate(&q->opts, r, warned, "%s %" PRIu32, what, i);
}

/* A damaged block read as empty: the views keep their layout, count 0. */
static void empty(profdb_view *v)
{
	v->base = NULL;
	v->count = 0;
}

/* A plane just read with result @p r: a tolerated damaged one reads as
 * absent (both views empty). */
static int plane(const hq *q, int r, int which, uint32_t i, const char *what,
                 profdb_view *index, profdb_view *values)
{
	if (r < 0 && (r = tolerate(q, r, which, i, what)) == 0) {
		empty(index);
		empty(values);
	}
	return r;
}

int profdb__hpctkq_prof_plane(const hq *q, uint32_t p, profdb_view *index, profdb_view *values)
{
	return plane(q, profdb__hpctk_profile_plane(q->db, p, index, values), W_PROFILE, p,
	             "profile", index, values);
}

int profdb__hpctkq_cct_plane(const hq *q, uint32_t c, profdb_view *index, profdb_view *values)
{
	return plane(q, profdb_hpctk_context_plane(q->db, c, index, values), W_CCT, c,
	             "cct.db context", index, values);
}

int profdb__hpctkq_cct_declared(const hq *q, uint32_t c, uint64_t *n_values)
{
	int r = profdb__hpctk_context_declared(q->db, c, n_values);
	return r < 0 ? tolerate(q, r, W_CCT, c, "cct.db context") : r;
}

int profdb__hpctkq_trace_line(const hq *q, uint32_t t, profdb_hpctk_trace *out)
{
	int r = profdb_hpctk_trace_line_at(q->db, t, out);
	if (r < 0 && (r = tolerate(q, r, W_TRACE, t, "trace line")) == 0)
		empty(&out->samples);
	return r;
}

/* ---- metrics --------------------------------------------------------------- */

static const char *combine_name(uint8_t c)
{
	return c == PROFDB_HPCTK_COMBINE_SUM ? "sum" : c == PROFDB_HPCTK_COMBINE_MIN ? "min"
	       : c == PROFDB_HPCTK_COMBINE_MAX ? "max" : NULL;
}

/* What the summary profile holds under a statistic's id. */
static char *statistic_text(const profdb_hpctk_summary *s)
{
	const char *c = combine_name(s->combine), *f = s->formula.ptr;  /* NUL-terminated in meta.db */
	char buf[256];
	if (c && strcmp(f, "$$") == 0)
		snprintf(buf, sizeof buf, "%s", c);
	else if (s->combine == PROFDB_HPCTK_COMBINE_SUM && strcmp(f, "1") == 0)
		snprintf(buf, sizeof buf, "count");
	else if (s->combine == PROFDB_HPCTK_COMBINE_SUM &&
	         (strcmp(f, "$$^2") == 0 || strcmp(f, "$$*$$") == 0 || strcmp(f, "($$)^2") == 0))
		snprintf(buf, sizeof buf, "sum of squares");
	else if (c)
		snprintf(buf, sizeof buf, "%s(%s)", c, f);
	else
		snprintf(buf, sizeof buf, "combine %u (%s)", s->combine, f);
	return strdup(buf);
}

/* How a statistic-only id's values combine: hpcprof's combine when the
 * formula is the value itself ("$$"). A count ("1") counts each profile
 * once whatever the scope, and a sum of squares (stored as Σv, see
 * doc/FORMATS.md) is not the metric's quantity: neither adds up to a
 * total a percentage could divide. */
static profdb_combine statistic_combine(const profdb_hpctk_summary *s)
{
	if (strcmp(s->formula.ptr, "$$") != 0)
		return PROFDB_COMBINE_NONE;
	return profdb__hpctkq_combine(s->combine);
}

static profdb_metric_kind scope_kind(const char *scope, uint8_t type)
{
	if (type == PROFDB_SCOPE_POINT)
		return PROFDB_METRIC_POINT;
	if (type == PROFDB_SCOPE_EXECUTION)
		return PROFDB_METRIC_INCLUSIVE;
	if (scope && strcmp(scope, "function") == 0)
		return PROFDB_METRIC_EXCLUSIVE;
	return PROFDB_METRIC_OTHER;
}

static int add_metric(hq *q, uint32_t id, const char *name, profdb_metric_kind kind,
                      const char *description, hq_metric **out)
{
	*out = NULL;
	if (id < q->n_by_id && q->by_id[id])
		return 0;   /* already there */
	hq_metric *m = &q->metrics[q->n_metrics];
	memset(m, 0, sizeof *m);
	m->id = id;
	m->name = name ? name : "";
	m->kind = kind;
	m->exclusive_id = m->inclusive_id = PROFDB_NONE;
	/* A propagated id holds, in every thread profile, samples that add
	 * across profiles (hpcprof's own "$$"/sum statistic adds them). */
	m->combine = PROFDB_COMBINE_SUM;
	if (!(m->description = strdup(description)))
		return profdb__fail(-ENOMEM, "out of memory");
	q->by_id[id] = ++q->n_metrics;
	*out = m;
	return 0;
}

static int build_metrics(hq *q)
{
	const profdb_hpctk *db = q->db;
	int64_t n64 = profdb_hpctk_metric_count(db);
	if (n64 < 0)
		return (int)n64;
	int n = n64 > INT32_MAX ? INT32_MAX : (int)n64;
	uint64_t total = 0;
	uint32_t max_id = 0;
	for (int m = 0; m < n; m++) {
		profdb_hpctk_metric md;
		int r = profdb_hpctk_metric_at(db, (uint32_t)m, &md);
		if (r < 0)
			return r;
		total += md.n_props + md.n_summaries;
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop p;
			if ((r = profdb_hpctk_metric_prop_at(db, (uint32_t)m, i, &p)) < 0)
				return r;
			max_id = p.prop_metric_id > max_id ? p.prop_metric_id : max_id;
		}
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			if ((r = profdb_hpctk_metric_summary_at(db, (uint32_t)m, i, &s)) < 0)
				return r;
			max_id = s.stat_metric_id > max_id ? s.stat_metric_id : max_id;
		}
	}
	q->n_by_id = total ? max_id + 1 : 0;
	q->by_id = calloc(q->n_by_id ? q->n_by_id : 1, sizeof *q->by_id);
	q->metrics = calloc(total ? total : 1, sizeof *q->metrics);
	if (!q->by_id || !q->metrics)
		return profdb__fail(-ENOMEM, "out of memory");

	/* Pass 1: the propagated ids, and the scope links within each metric. */
	for (int m = 0; m < n; m++) {
		profdb_hpctk_metric md;
		uint32_t excl = PROFDB_NONE, incl = PROFDB_NONE, first = q->n_metrics;
		profdb_hpctk_metric_at(db, (uint32_t)m, &md);
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop p;
			hq_metric *e;
			char desc[160];
			profdb_hpctk_metric_prop_at(db, (uint32_t)m, i, &p);
			profdb_metric_kind k = scope_kind(p.scope.ptr, p.scope_type);
			snprintf(desc, sizeof desc, "%s scope", p.scope.len ? p.scope.ptr : "unnamed");
			int r = add_metric(q, p.prop_metric_id, md.name.ptr, k, desc, &e);
			if (r < 0)
				return r;
			if (e)
				q->n_propagated++;
			if (!e) {
				profdb__warn(&q->opts, "%s: metric \"%s\" reuses propagated metric id %u; "
				             "the id keeps its first meaning", db->in[PROFDB_HPCTK_META].name,
				             md.name.ptr, p.prop_metric_id);
				continue;
			}
			if (k == PROFDB_METRIC_EXCLUSIVE && excl == PROFDB_NONE)
				excl = p.prop_metric_id;
			if (k == PROFDB_METRIC_INCLUSIVE && incl == PROFDB_NONE)
				incl = p.prop_metric_id;
		}
		for (uint32_t i = first; i < q->n_metrics; i++) {
			q->metrics[i].exclusive_id = excl;
			q->metrics[i].inclusive_id = incl;
		}
	}
	/* Pass 2: the statistic ids. An id that is also a propagated id gets
	 * its statistic; one that is not becomes a SUMMARY metric, linked to
	 * the same statistic of the function and execution scopes. */
	for (int m = 0; m < n; m++) {
		profdb_hpctk_metric md;
		profdb_hpctk_metric_at(db, (uint32_t)m, &md);
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			hq_metric *e = NULL;
			profdb_hpctk_metric_summary_at(db, (uint32_t)m, i, &s);
			hq_metric *have = metric_of(q, s.stat_metric_id);
			if (have) {
				if (!have->statistic && !(have->statistic = statistic_text(&s)))
					return profdb__fail(-ENOMEM, "out of memory");
				continue;
			}
			char desc[200];
			snprintf(desc, sizeof desc, "summary statistic over the profiles, %s scope",
			         s.scope.len ? s.scope.ptr : "unnamed");
			int r = add_metric(q, s.stat_metric_id, md.name.ptr, PROFDB_METRIC_SUMMARY, desc, &e);
			if (r < 0)
				return r;
			if (!(e->statistic = statistic_text(&s)))
				return profdb__fail(-ENOMEM, "out of memory");
			e->combine = statistic_combine(&s);
			for (uint32_t j = 0; j < md.n_summaries; j++) {
				profdb_hpctk_summary o;
				profdb_hpctk_metric_summary_at(db, (uint32_t)m, j, &o);
				if (o.combine != s.combine || strcmp(o.formula.ptr, s.formula.ptr) != 0)
					continue;
				profdb_metric_kind k = scope_kind(o.scope.ptr, o.scope_type);
				if (k == PROFDB_METRIC_EXCLUSIVE && e->exclusive_id == PROFDB_NONE)
					e->exclusive_id = o.stat_metric_id;
				if (k == PROFDB_METRIC_INCLUSIVE && e->inclusive_id == PROFDB_NONE)
					e->inclusive_id = o.stat_metric_id;
			}
		}
	}
	return 0;
}

static void fill_metric(const hq_metric *m, profdb_metric *out)
{
	memset(out, 0, sizeof *out);
	out->id = m->id;
	out->name = profdb__str(m->name);
	out->unit = profdb__str(NULL);
	out->description = profdb__str(m->description);
	out->kind = m->kind;
	out->statistic = profdb__str(m->statistic);
	out->type = PROFDB_TYPE_F64;
	out->exclusive_id = m->exclusive_id;
	out->inclusive_id = m->inclusive_id;
	out->has_data = 1;
	out->combine = m->combine;
	out->scale = 1;
}

static int64_t q_metric_count(const void *impl)
{
	return ((const hq *)impl)->n_metrics;
}

static int q_metric_at(const void *impl, uint32_t index, profdb_metric *out)
{
	const hq *q = impl;
	if (index >= q->n_metrics)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " does not exist (%" PRIu32 " metrics)",
		                    index, q->n_metrics);
	fill_metric(&q->metrics[index], out);
	return 0;
}

static int q_metric_get(const void *impl, uint32_t id, profdb_metric *out)
{
	const hq_metric *m = metric_of(impl, id);
	if (!m)
		return profdb__fail(-ENOENT, "no metric with id %" PRIu32, id);
	fill_metric(m, out);
	return 0;
}

/* ---- description ---------------------------------------------------------------- */

static int q_about(const void *impl, profdb_about *out)
{
	const hq *q = impl;
	profdb_str title, description;
	out->format = PROFDB_FORMAT_HPCTK4;
	out->version = profdb__str(q->version);
	out->title = profdb__str(NULL);
	if (q->has[PROFDB_HPCTK_META]) {
		int r = profdb_hpctk_title(q->db, &title, &description);
		if (r < 0)
			return r;
		out->title = title;
	}
	return 0;
}

/* The counts both q_counts and q_header_counts take from the tables:
 * profiles, metrics, contexts; the rest zeroed. */
static int count_tables(const hq *q, profdb_counts *out)
{
	memset(out, 0, sizeof *out);
	out->profiles = q->n_profiles;
	/* The normative count is the distinct propagated ids; statistic-only
	 * ids (kind SUMMARY) are listed by profdb_metric_at but not counted
	 * (doc/model.md). hpcprof never writes one. */
	out->metrics = q->n_propagated;
	if (q->has[PROFDB_HPCTK_META] && (out->contexts = profdb_hpctk_context_count(q->db)) < 0)
		return (int)out->contexts;
	return 0;
}

static int q_counts(const void *impl, profdb_counts *out)
{
	const hq *q = impl;
	int r = count_tables(q, out);
	if (r < 0)
		return r;
	uint64_t total = (uint64_t)q->n_profiles + q->n_traces;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_view index, values;
		if ((r = progress(q, p, total)) < 0 ||
		    (r = profdb__hpctkq_prof_plane(q, p, &index, &values)) < 0)
			return r;
		out->values += (int64_t)values.count;
	}
	out->traces = q->n_traces;
	for (uint32_t t = 0; t < q->n_traces; t++) {
		profdb_hpctk_trace tr;
		if ((r = progress(q, q->n_profiles + (uint64_t)t, total)) < 0 ||
		    (r = profdb__hpctkq_trace_line(q, t, &tr)) < 0)
			return r;
		out->samples += (int64_t)tr.samples.count;
	}
	return progress(q, total, total);
}

/* q_counts from the profile and trace headers alone: a damaged header is
 * tolerated as in q_counts, a block whose contents are out of order is
 * counted as its header declares. */
static int q_header_counts(const void *impl, profdb_counts *out)
{
	const hq *q = impl;
	uint64_t n;
	int r = count_tables(q, out);
	if (r < 0)
		return r;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		if ((r = profdb__hpctk_profile_declared(q->db, p, &n)) < 0 &&
		    (r = tolerate(q, r, W_PROFILE, p, "profile")) < 0)
			return r;
		out->values += (int64_t)n;   /* 0 for a tolerated damaged header */
	}
	out->traces = q->n_traces;
	for (uint32_t t = 0; t < q->n_traces; t++) {
		if ((r = profdb__hpctk_trace_declared(q->db, t, &n)) < 0 &&
		    (r = tolerate(q, r, W_TRACE, t, "trace line")) < 0)
			return r;
		out->samples += (int64_t)n;
	}
	return 0;
}

/* ---- opening ---------------------------------------------------------------------- */

static void q_close(void *impl)
{
	hq *q = impl;
	if (!q)
		return;
	profdb_hpctk_close(q->db);
	for (uint32_t i = 0; i < q->n_metrics; i++) {
		free(q->metrics[i].description);
		free(q->metrics[i].statistic);
	}
	free(q->metrics);
	free(q->by_id);
	profdb__once_destroy(&q->ctx_once);
	profdb__once_destroy(&q->prof_once);
	profdb__once_destroy(&q->trace_once);
	profdb__once_destroy(&q->vctx_once);
	free(q->ctx);
	free(q->names);
	free(q->name_at);
	free(q->is_summary);
	free(q->summaries);
	for (int i = 0; i < 256; i++)
		free(q->kinds[i]);
	free(q->trace_of);
	free(q->vctx);
	for (int i = 0; i < 3; i++)
		free((void *)q->warned[i]);
	free(q);
}

/* Wrap an open reader; takes ownership of @p db. */
static int wrap(void **impl, profdb_hpctk *db, const profdb_options *opts)
{
	hq *q = calloc(1, sizeof *q);
	if (!q) {
		profdb_hpctk_close(db);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	q->db = db;
	profdb__options_copy(&q->opts, opts);
	q->max_memory = q->opts.max_memory ? q->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	profdb__once_init(&q->ctx_once);
	profdb__once_init(&q->prof_once);
	profdb__once_init(&q->trace_once);
	profdb__once_init(&q->vctx_once);
	int r = 0;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		q->has[f] = profdb_hpctk_has(db, (profdb_hpctk_file)f);
	if (q->has[PROFDB_HPCTK_PROFILE])
		q->n_profiles = (uint32_t)profdb_hpctk_profile_count(db);
	if (q->has[PROFDB_HPCTK_CCT])
		q->n_slots = (uint32_t)profdb_hpctk_cct_slot_count(db);
	if (q->has[PROFDB_HPCTK_TRACE])
		q->n_traces = (uint32_t)profdb_hpctk_trace_count(db);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		uint8_t major, minor;
		if (q->has[f] && profdb_hpctk_version(db, (profdb_hpctk_file)f, &major, &minor) == 0) {
			snprintf(q->version, sizeof q->version, "%u.%u", major, minor);
			break;
		}
	}
	if (q->has[PROFDB_HPCTK_META])
		r = build_metrics(q);
	if (r == 0 && (q->opts.flags & PROFDB_OPEN_TOLERANT))
		r = alloc_warned(q);
	if (r < 0) {
		q_close(q);
		return r;
	}
	*impl = q;
	return 0;
}

/* A database folder without meta.db opens in the low-level reader (it reads
 * profile.db alone), but the metrics, the context tree and every name are in
 * meta.db: through the common interface everything would look empty without
 * a word. Strict mode refuses the folder; tolerant mode says so. */
static int check_meta_db(profdb_hpctk *db, const char *path, const profdb_options *opts)
{
	struct stat st;
	if (profdb_hpctk_has(db, PROFDB_HPCTK_META) || stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (opts && (opts->flags & PROFDB_OPEN_TOLERANT)) {
		profdb__warn(opts, "%s/meta.db: missing: the metrics, contexts and names are there; "
		             "reading the other files without them", path);
		return 0;
	}
	return profdb__fail(-ENOENT, "%s/meta.db: missing: the metrics, contexts and names are there",
	                    path);
}

static int q_open_path(void **impl, const char *path, const profdb_options *opts)
{
	profdb_hpctk *db;
	int r = profdb_hpctk_open(&db, path, opts);
	if (r < 0)
		return r;
	r = check_meta_db(db, path, opts);
	if (r < 0) {
		profdb_hpctk_close(db);
		return r;
	}
	return wrap(impl, db, opts);
}

static int q_sniff(const unsigned char *head, size_t n, const char *name)
{
	static const char *const kinds[] = {"meta", "prof", "ctxt", "trce"};
	(void)name;
	if (n < 14 || memcmp(head, "HPCTOOLKIT", 10) != 0)
		return 0;
	for (int i = 0; i < 4; i++)
		if (memcmp(head + 10, kinds[i], 4) == 0)
			return 1;
	return 0;
}

/* The buffers go to their slots by magic; the names only name them. */
static int q_open_inputs(void **impl, const profdb_input *in, size_t n,
                         const profdb_options *opts)
{
	static const char *const kinds[] = {"meta", "prof", "ctxt", "trce"};
	profdb_input blobs[PROFDB_HPCTK_NFILES] = {{NULL, NULL, 0}};
	const char *names[PROFDB_HPCTK_NFILES] = {NULL};
	for (size_t i = 0; i < n; i++) {
		const char *name = in[i].name ? in[i].name : "";
		int slot = -1;
		if (in[i].size >= 14 && memcmp(in[i].data, "HPCTOOLKIT", 10) == 0)
			for (int k = 0; k < 4; k++)
				if (memcmp((const unsigned char *)in[i].data + 10, kinds[k], 4) == 0)
					slot = k;
		if (slot < 0)
			return profdb__fail(-EINVAL, "input %zu (\"%s\") is not an HPCToolkit 4.0 file, "
			                    "but the other inputs are", i, name);
		if (blobs[slot].data)
			return profdb__fail(-EINVAL, "inputs \"%s\" and \"%s\" are both an HPCToolkit "
			                    "4.0 HPCTOOLKIT%s file", names[slot], name, kinds[slot]);
		blobs[slot].name = in[i].name;
		blobs[slot].data = in[i].data;
		blobs[slot].size = in[i].size;
		names[slot] = name;
	}
	profdb_hpctk *db;
	int r = profdb_hpctk_open_mem(&db, blobs, opts);
	return r < 0 ? r : wrap(impl, db, opts);
}

/* profile.db's profile table: 10 bytes per value, 12 per context. */
static int q_profile_bytes(const void *impl, uint32_t index, uint64_t *bytes)
{
	profdb_hpctk_profile p;
	int r = profdb_hpctk_profile_at(((const hq *)impl)->db, index, &p);
	if (r == 0)
		*bytes = p.n_values * 10 + (uint64_t)p.n_contexts * 12;
	return r;
}

static int q_file_name(const void *impl, size_t index, profdb_str *out)
{
	static const char *const names[PROFDB_HPCTK_NFILES] = {"meta.db", "profile.db", "cct.db",
	                                                       "trace.db"};
	const hq *q = impl;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		if (q->has[f] && index-- == 0) {
			*out = profdb__str(names[f]);
			return 0;
		}
	return -ENOENT;
}

static int q_check(const void *impl)
{
	return profdb_hpctk_check(((const hq *)impl)->db);
}

static const void *q_native(const void *impl)
{
	return ((const hq *)impl)->db;
}

const profdb__backend profdb__hpctk4_backend = {
	.format = PROFDB_FORMAT_HPCTK4,
	.self_from_inclusive = 1,
	.inclusive_stored = 1,
	.sniff = q_sniff,
	.open_path = q_open_path,
	.open_inputs = q_open_inputs,
	.close = q_close,
	.about = q_about,
	.counts = q_counts,
	.header_counts = q_header_counts,
	.metric_count = q_metric_count,
	.metric_at = q_metric_at,
	.metric_get = q_metric_get,
	.context_count = profdb__hpctkq_context_count,
	.context_root = profdb__hpctkq_context_root,
	.context_get = profdb__hpctkq_context_get,
	.context_known = profdb__hpctkq_context_known,
	.profile_count = profdb__hpctkq_profile_count,
	.profile_get = profdb__hpctkq_profile_get,
	.profile_identity = profdb__hpctkq_profile_identity,
	.profile_bytes = q_profile_bytes,
	.value = profdb__hpctkq_value,
	.scoped = profdb__hpctkq_scoped,
	.cursor_begin = profdb__hpctkq_cursor_begin,
	.cursor_next = profdb__hpctkq_cursor_next,
	.cursor_free = profdb__hpctkq_cursor_free,
	.trace_length = profdb__hpctkq_trace_length,
	.trace_at = profdb__hpctkq_trace_at,
	.trace_seek = profdb__hpctkq_trace_seek,
	.profile_view = profdb__hpctkq_profile_view,
	.context_view = profdb__hpctkq_context_view,
	.trace_view = profdb__hpctkq_trace_view,
	.file_name = q_file_name,
	.check = q_check,
	.summary_stats = profdb__hpctkq_summary_stats,
	.summary_scope = profdb__hpctkq_summary_scope,
	.native = q_native,
};
