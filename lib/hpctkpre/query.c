/* The pre-release backend of the common query interface (lib/query): the
 * pre-release HPCPROF-* databases (and the draft meta.db) over the reader's
 * own API.
 *
 *  - metrics: the thread-profile ids (<MetricDB>, draft raw ids) and the
 *    summary ids (<Metric>, draft summaries) keep their stored ids; only if
 *    the two sets collide do summary ids move up by 0x10000. Summary ids are
 *    kind SUMMARY (their "view" formulas DERIVED, without data).
 *  - contexts: tree nodes keep their stored ids; an XML call site with a
 *    negative id -n becomes 0x80000000 | n (the .db files never use such
 *    ids). Id 0 and ids with values but no node are addressable with
 *    in_tree = 0.
 *  - profiles: profile.db's (0 = summary); values: profile.db, which holds
 *    them all (the real writer left cct.db's blocks empty), so a scan by
 *    context binary-searches each profile.
 *  - traces: trace.db's lines, matched to profiles by prof_info_idx.
 * Tables are built at open and bounded by the metadata and profile.db's
 * profile table. An old experiment.xml database shares the metrics and
 * contexts and has its own profiles and values (query-old.c); its
 * experiment root, id 1 (row 0 of the .metric-db records), has no node. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-old-internal.h"

#define NEG_FLAG PRE_NEG_FLAG

typedef struct pq_metric {
	uint32_t id;               /* model id */
	uint32_t index;            /* reader's metric index */
	uint32_t exclusive_id, inclusive_id;
} pq_metric;

typedef struct pq {
	profdb_hpctkpre *db;
	profdb_hpctkpre_info info;
	char version[16];
	uint32_t summary_shift;    /* 0 or 0x10000 */
	pq_metric *metrics;        /* reader order */
	char *names;               /* profile names, NUL-separated */
	uint64_t *name_at;
} pq;

/* ---- ids ------------------------------------------------------------------ */

static uint32_t ctx_model_id(int64_t stored)
{
	return profdb__pre_ctx_model_id(stored);
}

static int64_t ctx_stored_id(uint32_t id)
{
	return (id & NEG_FLAG) && id != NEG_FLAG ? -(int64_t)(id & ~NEG_FLAG) : (int64_t)id;
}

/* The entry of model metric @p id (and its decoded metric in *m), or NULL. */
static const pq_metric *metric_by_model(const pq *q, uint32_t id, const pre_metric **m)
{
	uint32_t index;
	int found;
	if (q->summary_shift)
		found = id >= q->summary_shift ?
		        profdb__hpctkpre_metric_index(q->db, 1, id - q->summary_shift, &index) :
		        profdb__hpctkpre_metric_index(q->db, 0, id, &index);
	else
		found = profdb__hpctkpre_metric_index(q->db, 0, id, &index) ||
		        profdb__hpctkpre_metric_index(q->db, 1, id, &index);
	if (!found)
		return NULL;
	if (m)
		*m = &q->db->metrics[index];
	return &q->metrics[index];
}

/* ---- metrics --------------------------------------------------------------- */

static int64_t q_metric_count(const void *impl)
{
	return ((const pq *)impl)->info.n_metrics;
}

/* How a summary id's values combine (doc/model.md, "Combining numbers"):
 * experiment.xml says it in the formula of a t="combine" metric
 * ("sum($512, $512)"); the draft stores hpcprof's combine code and a
 * formula, of which only "$$" is the metric's own quantity. A "view" is
 * a derived copy without values. */
static profdb_combine summary_combine(const pre_metric *m)
{
	static const profdb_combine code[3] = {PROFDB_COMBINE_SUM, PROFDB_COMBINE_MIN,
	                                       PROFDB_COMBINE_MAX};
	static const char *const fn[3] = {"sum(", "min(", "max("};
	if (strcmp(m->formula_type, "view") == 0)
		return PROFDB_COMBINE_NONE;
	if (strcmp(m->formula_type, "combine") == 0) {
		for (int i = 0; i < 3; i++)
			if (strncmp(m->formula, fn[i], 4) == 0)
				return code[i];
		return PROFDB_COMBINE_NONE;
	}
	return strcmp(m->formula, "$$") == 0 && m->combine < 3 ? code[m->combine]
	                                                       : PROFDB_COMBINE_NONE;
}

static void fill_metric(const pq *q, uint32_t index, profdb_metric *out)
{
	const pre_metric *m = &q->db->metrics[index];
	const pq_metric *e = &q->metrics[index];
	memset(out, 0, sizeof *out);
	out->id = e->id;
	out->name = profdb__str(m->name);
	out->unit = profdb__str(m->units);
	out->description = profdb__str(m->formula);
	out->type = PROFDB_TYPE_F64;
	out->exclusive_id = e->exclusive_id;
	out->inclusive_id = e->inclusive_id;
	out->has_data = 1;
	out->statistic = profdb__str(NULL);
	out->combine = PROFDB_COMBINE_SUM;   /* thread values: samples, they add */
	out->scale = 1;
	if (m->is_summary) {
		out->combine = summary_combine(m);
		int view = strcmp(m->formula_type, "view") == 0;
		out->kind = view ? PROFDB_METRIC_DERIVED : PROFDB_METRIC_SUMMARY;
		out->has_data = !view;
		/* XML "combine" formulas are sums over threads ("sum($i, $i)"); the
		 * draft stores the combine code. */
		static const char *const comb[3] = {"sum", "min", "max"};
		out->statistic = profdb__str(view ? NULL : m->combine < 3 ? comb[m->combine] : "");
		if (q->db->old)
			out->description = profdb__str("the values experiment.xml prints in <M> elements, "
			                               "rounded to the printed digits (hpcprof prints 6 "
			                               "significant digits)");
	} else {
		out->kind = m->inclusive == 1 ? PROFDB_METRIC_INCLUSIVE :
		            m->inclusive == 0 ? PROFDB_METRIC_EXCLUSIVE : PROFDB_METRIC_OTHER;
	}
}

static int q_metric_at(const void *impl, uint32_t index, profdb_metric *out)
{
	const pq *q = impl;
	if (index >= q->info.n_metrics)
		return profdb__fail(-ENOENT, "metric index %" PRIu32 " past the %" PRIu32 " metrics",
		                    index, q->info.n_metrics);
	fill_metric(q, index, out);
	return 0;
}

static int q_metric_get(const void *impl, uint32_t id, profdb_metric *out)
{
	const pq *q = impl;
	const pq_metric *e = metric_by_model(q, id, NULL);
	if (!e)
		return profdb__fail(-ENOENT, "no metric with id %" PRIu32, id);
	fill_metric(q, e->index, out);
	return 0;
}

/* Partners: stored (XML partner, draft scopes) or, for <MetricDB>, the
 * entry whose name differs only in the " (I)"/" (E)" suffix. */
static void pair_metrics(pq *q)
{
	uint32_t n = q->info.n_metrics;
	for (uint32_t i = 0; i < n; i++) {
		const pre_metric *m = &q->db->metrics[i];
		pq_metric *e = &q->metrics[i];
		e->exclusive_id = m->inclusive == 0 ? e->id : PROFDB_NONE;
		e->inclusive_id = m->inclusive == 1 ? e->id : PROFDB_NONE;
		uint32_t partner = PROFDB_NONE;
		if (m->partner != PROFDB_NONE) {
			uint32_t k;
			if (profdb__hpctkpre_metric_index(q->db, m->is_summary, m->partner, &k))
				partner = q->metrics[k].id;
		} else if (!m->is_summary && m->inclusive >= 0 && n <= 4096) {
			size_t len = strlen(m->name);
			for (uint32_t k = 0; k < n && len >= 4; k++) {
				const pre_metric *o = &q->db->metrics[k];
				if (k != i && !o->is_summary && o->inclusive == !m->inclusive &&
				    strlen(o->name) == len && strncmp(o->name, m->name, len - 4) == 0)
					partner = q->metrics[k].id;
			}
		}
		if (partner != PROFDB_NONE) {
			if (m->inclusive == 1)
				e->exclusive_id = partner;
			else if (m->inclusive == 0)
				e->inclusive_id = partner;
		}
	}
}

/* ---- contexts -------------------------------------------------------------- */

static int64_t q_context_count(const void *impl)
{
	return ((const pq *)impl)->info.n_contexts;
}

static int q_context_root(const void *impl, uint32_t *id)
{
	const pq *q = impl;
	profdb_hpctkpre_context c;
	if (q->info.n_contexts == 0)
		return profdb__fail(-ENOENT, "the database has no context tree");
	profdb_hpctkpre_context_at(q->db, 0, &c);
	*id = ctx_model_id(c.id);
	return 0;
}

static uint32_t link_id(const pq *q, uint32_t index)
{
	profdb_hpctkpre_context c;
	if (index == PROFDB_NONE || profdb_hpctkpre_context_at(q->db, index, &c) < 0)
		return PROFDB_NONE;
	return ctx_model_id(c.id);
}

/* hpcprof's name for "no file" (experiment.xml's file 2147483647). */
static int no_file(profdb_str f)
{
	static const char unknown[] = "<unknown file>";
	return f.len == 0 || (f.len == sizeof unknown - 1 && memcmp(f.ptr, unknown, f.len) == 0);
}

/* The file of the nearest enclosing scope that has one, never past the
 * enclosing procedure: experiment.xml gives call sites and lines no file
 * of their own at times (or "<unknown file>" where the procedure says
 * "<unknown file> [libmonitor.so.0.0.0]"), and the draft's instruction
 * points have none. The walk is bounded so that a damaged tree without
 * procedures costs O(1) per context. */
#define FILE_WALK_MAX 256
static profdb_str enclosing_file(const pq *q, const profdb_hpctkpre_context *c)
{
	profdb_hpctkpre_context a = *c;
	for (int k = 0; k < FILE_WALK_MAX && a.parent != PROFDB_NONE; k++) {
		if (profdb_hpctkpre_context_at(q->db, a.parent, &a) < 0)
			break;
		if (!no_file(a.file))
			return a.file;
		if (a.type == PROFDB_HPCTKPRE_CTX_PROC)
			break;
	}
	return c->file;
}

static int q_context_get(const void *impl, uint32_t id, profdb_context *out)
{
	const pq *q = impl;
	uint32_t index;
	profdb_hpctkpre_context c;
	if (profdb__hpctkpre_node_index(q->db, ctx_stored_id(id), &index)) {
		profdb_hpctkpre_context_at(q->db, index, &c);
		profdb__blank_context(out, id);
		out->parent = link_id(q, c.parent);
		out->first_child = link_id(q, c.first_child);
		out->next_sibling = link_id(q, c.next_sibling);
		out->depth = c.depth;
		out->in_tree = 1;
		/* An XML <Pr> scope (code inlined into its frame when alien) is
		 * lexical: hpcprof counted its cost in the enclosing frame's
		 * exclusive value, so it is no frame of its own (doc/FORMATS.md). */
		int scope = q->db->nodes[index].inlined != 0;
		out->relation = c.parent == PROFDB_NONE ? PROFDB_RELATION_NONE :
		                c.type == PROFDB_HPCTKPRE_CTX_PROC && !scope ? PROFDB_RELATION_CALL :
		                PROFDB_RELATION_LEXICAL;
		switch (c.type) {
		case PROFDB_HPCTKPRE_CTX_PROC:
			out->type = scope ? PROFDB_CTX_LINE : PROFDB_CTX_FUNCTION;
			break;
		case PROFDB_HPCTKPRE_CTX_LOOP: out->type = PROFDB_CTX_LOOP; break;
		case PROFDB_HPCTKPRE_CTX_CALL:
		case PROFDB_HPCTKPRE_CTX_STMT: out->type = PROFDB_CTX_LINE; break;
		case PROFDB_HPCTKPRE_CTX_POINT: out->type = PROFDB_CTX_INSTRUCTION; break;
		default: out->type = PROFDB_CTX_UNKNOWN;
		}
		out->function = c.procedure;
		out->file = c.type != PROFDB_HPCTKPRE_CTX_PROC && no_file(c.file) ?
		            enclosing_file(q, &c) : c.file;
		out->line = c.line;
		out->module = c.module;
		out->offset = c.address;
		out->has_offset = c.has_address;
		return 0;
	}
	if (id == (q->db->old ? 1u : 0u)) {
		/* the implicit global context, the old format's row 0 */
		profdb__blank_context(out, id);
		out->type = PROFDB_CTX_ROOT;
		return 0;
	}
	/* Values without a node: any id below cct.db's slots (the .db files
	 * number contexts densely). */
	if (id < q->info.n_ctx_slots && (!q->db->old || id > 1)) {
		profdb__blank_context(out, id);
		out->relation = PROFDB_RELATION_UNKNOWN;
		return 0;
	}
	/* Otherwise (no cct.db slots, or an id past them): an id some profile
	 * stores values for (one binary search per profile, as a scan by
	 * context), so that every value a scan gives has a context. */
	for (uint32_t p = 0; p < q->info.n_profiles; p++) {
		profdb_view ix, values;
		uint64_t at;
		if (profdb_hpctkpre_profile_view(q->db, p, &ix, &values) == 0 &&
		    profdb_view_find(&ix, id, &at) == 1) {
			profdb__blank_context(out, id);
			out->relation = PROFDB_RELATION_UNKNOWN;
			return 0;
		}
	}
	return profdb__fail(-ENOENT, "context %" PRIu32 " is neither a tree node, a cct.db "
	                    "context nor one with values", id);
}

/* ---- profiles ---------------------------------------------------------------- */

static profdb_str kind_word(const profdb_hpctkpre_id *id)
{
	static const char *const words[8] = {"summary", "node", "rank", "thread", "gpu-device",
	                                     "gpu-context", "gpu-stream", "core"};
	/* A kind the identifier table does not name (a damaged file): never
	 * an empty kind (doc/model.md, profiles). */
	return id->kind < 8 ? profdb__str(words[id->kind]) :
	       id->kind_name.len ? id->kind_name : profdb__str("unknown");
}

static uint64_t id_value(const profdb_hpctkpre_id *id)
{
	return (id->interpretation & 2) ? id->logical : id->physical;
}

static int build_names(pq *q)
{
	size_t cap = 0, len = 0;
	uint32_t n = q->info.n_profiles;
	q->name_at = calloc(n ? n : 1, sizeof *q->name_at);
	if (!q->name_at)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t p = 0; p < n; p++) {
		char buf[256] = "";
		size_t b = 0;
		profdb_hpctkpre_profile pr;
		int r = profdb_hpctkpre_profile_at(q->db, p, &pr);
		if (r < 0)
			return r;
		for (uint32_t k = 0; k < pr.n_ids && k < 8 && b < sizeof buf - 64; k++) {
			profdb_hpctkpre_id id;
			if ((r = profdb_hpctkpre_profile_id_at(q->db, p, k, &id)) < 0)
				return r;
			profdb_str w = kind_word(&id);
			if (id.kind == 0)
				b += (size_t)snprintf(buf + b, sizeof buf - b, "%ssummary", b ? " " : "");
			else
				b += (size_t)snprintf(buf + b, sizeof buf - b, "%s%.*s %" PRIu64, b ? " " : "",
				                      (int)(w.len < 24 ? w.len : 24), w.ptr, id_value(&id));
		}
		if (!b)
			snprintf(buf, sizeof buf, p == 0 ? "summary" : "profile %" PRIu32, p);
		size_t need = strlen(buf) + 1;
		if ((r = profdb__grow((void **)&q->names, &cap, len + need, 1)) < 0)
			return r;
		memcpy(q->names + len, buf, need);
		q->name_at[p] = len;
		len += need;
	}
	return 0;
}

static int64_t q_profile_count(const void *impl)
{
	return ((const pq *)impl)->info.n_profiles;
}

static int q_profile_get(const void *impl, uint32_t index, profdb_profile *out)
{
	const pq *q = impl;
	profdb_hpctkpre_profile pr;
	if (q->db->old)
		return profdb__pre_old_profile_get(q->db, index, out);
	int r = profdb_hpctkpre_profile_at(q->db, index, &pr);
	if (r < 0)
		return r;
	memset(out, 0, sizeof *out);
	out->index = index;
	out->is_summary = pr.is_summary;
	out->name = profdb__str(q->names + q->name_at[index]);
	out->n_identity = pr.n_ids;
	return 0;
}

static int q_profile_identity(const void *impl, uint32_t index, uint32_t i, profdb_str *kind,
                              uint64_t *value)
{
	const pq *q = impl;
	profdb_hpctkpre_id id;
	if (q->db->old)
		return profdb__pre_old_identity(q->db, index, i, kind, value);
	int r = profdb_hpctkpre_profile_id_at(q->db, index, i, &id);
	if (r < 0)
		return r;
	*kind = kind_word(&id);
	*value = id_value(&id);
	return 0;
}

/* ---- values ------------------------------------------------------------------- */

/* The stored metric id of model metric @p m for profile @p p, or -1 when
 * the profile cannot hold it (a summary id in a thread profile, ...). */
static int64_t stored_metric(const pq *q, uint32_t p, uint32_t m, const pq_metric **e)
{
	const pre_metric *md;
	*e = metric_by_model(q, m, &md);
	if (!*e)
		return -1;
	if (md->is_summary != (p == 0))
		return -1;
	return md->id;
}

static int q_value(const void *impl, uint32_t p, uint32_t c, uint32_t m, profdb_number *out)
{
	const pq *q = impl;
	const pq_metric *e;
	double v;
	out->type = PROFDB_TYPE_NONE;
	/* Without metadata there is no metric table: the ids are profile.db's
	 * own and are not checked (as HPCToolkit 4.0 without meta.db), so what
	 * a scan returns can be looked up. */
	int64_t sm = m;
	if (q->info.meta_kind != PROFDB_HPCTKPRE_META_NONE) {
		sm = stored_metric(q, p, m, &e);
		if (!e)
			return profdb__fail(-ENOENT, "no metric with id %" PRIu32, m);
		if (sm < 0)
			return 0;
	}
	int r = q->db->old ? profdb__hpctkpre_old_value(q->db, p, c, (uint32_t)sm, &v)
	                   : profdb_hpctkpre_value(q->db, p, c, (uint32_t)sm, &v);
	if (r == 1) {
		out->type = PROFDB_TYPE_F64;
		out->as.f64 = v;
	}
	return r;
}

static int q_scoped(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
                    profdb_number *out)
{
	const pq *q = impl;
	const pre_metric *md;
	out->type = PROFDB_TYPE_NONE;
	const pq_metric *e = metric_by_model(q, m, &md);
	if (!e)
		return profdb__fail(-ENOENT, "no metric with id %" PRIu32, m);
	/* Summary ids live only in the summary profile and thread ids only in
	 * the others: the other combination cannot be answered. */
	if (md->is_summary != (p == 0))
		return profdb__fail(-ENOTSUP, "metric %" PRIu32 " is a %s metric; profile %" PRIu32
		                    " holds %s ids", m, md->is_summary ? "summary" : "thread-profile",
		                    p, p == 0 ? "summary" : "thread-profile");
	uint32_t want = inclusive ? e->inclusive_id : e->exclusive_id;
	if (want == PROFDB_NONE)
		return profdb__fail(-ENOTSUP, "metric %" PRIu32 " has no stored %s counterpart", m,
		                    inclusive ? "inclusive" : "exclusive");
	return q_value(impl, p, c, want, out);
}

/* Cursor state: pos[0] profile, pos[1] index entry, pos[2] pair in the run;
 * priv the views of the profile being read (validated once when the
 * cursor enters it, not again for every value). */
typedef struct pq_cur {
	uint32_t profile;          /* whose views these are, PROFDB_NONE: none yet */
	profdb_view index, values;
	uint64_t entry;            /* the index entry run is of, UINT64_MAX: none */
	profdb_view run;
} pq_cur;

static int q_cursor_begin(const void *impl, profdb__cursor *cur)
{
	const pq *q = impl;
	if (cur->scan == PROFDB_SCAN_PROFILE)
		cur->pos[0] = cur->key;
	/* a scan by context leaves out the summary profile, index 0 (its
	 * values are a profile scan's) */
	if (cur->scan == PROFDB_SCAN_CONTEXT)
		cur->pos[0] = 1;
	if (q->db->old)
		return 0;   /* the old cursor reads the rows in place: no state */
	pq_cur *c = calloc(1, sizeof *c);
	if (!c)
		return profdb__fail(-ENOMEM, "out of memory");
	c->profile = PROFDB_NONE;
	c->entry = UINT64_MAX;
	cur->priv = c;
	return 0;
}

static void q_cursor_free(const void *impl, profdb__cursor *cur)
{
	(void)impl;
	free(cur->priv);
	cur->priv = NULL;
}

static uint32_t model_metric(const pq *q, uint32_t p, uint32_t stored)
{
	return p == 0 && q->summary_shift ? stored + q->summary_shift : stored;
}

static int q_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out)
{
	const pq *q = impl;
	if (q->db->old)
		return profdb__pre_old_cursor_next(q->db, cur, q->summary_shift, out);
	pq_cur *c = cur->priv;
	for (;;) {
		uint32_t p = (uint32_t)cur->pos[0];
		if (p >= q->info.n_profiles || (cur->scan == PROFDB_SCAN_PROFILE && p != cur->key))
			return 0;
		uint64_t i = cur->pos[1];
		if (c->profile != p) {
			int r = profdb_hpctkpre_profile_view(q->db, p, &c->index, &c->values);
			if (r < 0)
				return r;
			c->profile = p;
			c->entry = UINT64_MAX;
		}
		/* a scan by context looks its context up in every profile */
		if (cur->scan == PROFDB_SCAN_CONTEXT && profdb_view_find(&c->index, cur->key, &i) != 1)
			i = c->index.count;
		if (i < c->index.count && i != c->entry) {
			c->run = profdb_view_run(&c->index, i, &c->values);
			c->entry = i;
		}
		if (i >= c->index.count || cur->pos[2] >= c->run.count) {
			if (cur->scan == PROFDB_SCAN_CONTEXT || i >= c->index.count) {
				cur->pos[0]++;
				cur->pos[1] = 0;
			} else {
				cur->pos[1]++;
			}
			cur->pos[2] = 0;
			continue;
		}
		uint64_t k = cur->pos[2]++;
		out->profile = p;
		out->context = (uint32_t)profdb_view_key(&c->index, i);
		out->metric = model_metric(q, p, (uint32_t)profdb_view_key(&c->run, k));
		out->value = profdb_view_value(&c->run, k);
		return 1;
	}
}

/* ---- traces -------------------------------------------------------------------- */

/* The calling-context line of profile @p p (checked by lib/query): 1 and
 * *out, or 0 (empty view). */
static int trace_of(const pq *q, uint32_t p, profdb_hpctkpre_trace *out)
{
	for (uint32_t t = 0; t < q->info.n_traces; t++) {
		int r = profdb_hpctkpre_trace_line_at(q->db, t, out);
		if (r < 0)
			return r;
		if (out->profile == p && out->type == 0)
			return 1;
	}
	memset(out, 0, sizeof *out);
	out->samples = profdb__hpctkpre_samples(NULL, 0);
	return 0;
}

static int64_t q_trace_length(const void *impl, uint32_t p)
{
	const pq *q = impl;
	if (q->db->old)
		return profdb__pre_old_trace_length(q->db, p);
	profdb_hpctkpre_trace t;
	int r = trace_of(impl, p, &t);
	return r < 0 ? r : (int64_t)t.samples.count;
}

static int q_trace_at(const void *impl, uint32_t p, uint64_t i, profdb_sample *out)
{
	const pq *q = impl;
	if (q->db->old)
		return profdb__pre_old_trace_at(q->db, p, i, out);
	profdb_hpctkpre_trace t;
	int r = trace_of(impl, p, &t);
	if (r < 0)
		return r;
	if (i >= t.samples.count)
		return profdb__fail(-ENOENT, "trace sample %" PRIu64 " of profile %" PRIu32 " out of "
		                    "range (%" PRIu64 " samples)", i, p, t.samples.count);
	out->time_ns = profdb_view_key(&t.samples, i);
	out->context = (uint32_t)profdb_view_value(&t.samples, i).as.u64;
	return 0;
}

static int q_trace_seek(const void *impl, uint32_t p, uint64_t time, uint64_t *index)
{
	const pq *q = impl;
	if (q->db->old)
		return profdb__pre_old_trace_seek(q->db, p, time, index);
	profdb_hpctkpre_trace t;
	int r = trace_of(impl, p, &t);
	if (r < 0)
		return r;
	return profdb_view_seek(&t.samples, time, index);
}

/* trace_at hands out the stored (time, context id) pairs unchanged (model
 * context ids are the stored unsigned ids, times are ns): the view is the
 * line in the mapping. */
static int q_trace_view(const void *impl, uint32_t p, profdb_view *out)
{
	const pq *q = impl;
	if (q->db->old)
		return PROFDB__VIEW_FALLBACK;   /* the ids are translated: lib/query builds it */
	profdb_hpctkpre_trace t;
	int r = trace_of(impl, p, &t);
	if (r < 0)
		return r;
	*out = t.samples;
	return 0;
}

/* ---- description and opening --------------------------------------------------------- */

static int q_about(const void *impl, profdb_about *out)
{
	const pq *q = impl;
	if (q->db->old) {
		out->format = PROFDB_FORMAT_HPCTK_XML;
		out->version = profdb__str(q->db->meta_version);
		out->title = q->info.title;
		return 0;
	}
	out->format = q->db->present[PRE_PROFILE] || q->db->present[PRE_CCT] ||
	              q->db->present[PRE_TRACE] || q->info.meta_kind != PROFDB_HPCTKPRE_META_DRAFT ?
	              PROFDB_FORMAT_HPCTK_PRE : PROFDB_FORMAT_HPCTK_DRAFT;
	out->version = profdb__str(q->version);
	out->title = q->info.title;
	return 0;
}

static int q_counts(const void *impl, profdb_counts *out)
{
	const pq *q = impl;
	memset(out, 0, sizeof *out);
	out->profiles = q->info.n_profiles;
	out->contexts = q->info.n_contexts;
	out->metrics = q->info.n_metrics;
	out->traces = q->info.n_traces;
	if (q->db->old) {
		out->values = profdb__pre_old_value_count(q->db);
		return profdb__pre_old_trace_counts(q->db, &out->traces, &out->samples);
	}
	for (uint32_t p = 0; p < q->info.n_profiles; p++) {
		profdb_view index, values;
		int r = profdb_hpctkpre_profile_view(q->db, p, &index, &values);
		if (r < 0)
			return r;
		out->values += (int64_t)values.count;
	}
	for (uint32_t t = 0; t < q->info.n_traces; t++) {
		profdb_hpctkpre_trace tr;
		int r = profdb_hpctkpre_trace_line_at(q->db, t, &tr);
		if (r < 0)
			return r;
		out->samples += (int64_t)tr.samples.count;
	}
	return 0;
}

static void q_close(void *impl)
{
	pq *q = impl;
	if (!q)
		return;
	profdb_hpctkpre_close(q->db);
	free(q->metrics);
	free(q->names);
	free(q->name_at);
	free(q);
}

static int wrap(void **impl, profdb_hpctkpre *db)
{
	pq *q = calloc(1, sizeof *q);
	if (!q) {
		profdb_hpctkpre_close(db);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	q->db = db;
	profdb_hpctkpre_get_info(db, &q->info);
	for (int f = 0; f < PRE_NFILES; f++) {
		uint8_t ma, mi;
		if (profdb_hpctkpre_version(db, (profdb_hpctkpre_file)f, &ma, &mi) == 0) {
			snprintf(q->version, sizeof q->version, "%u.%u", ma, mi);
			break;
		}
	}
	int r = 0;
	q->metrics = calloc(q->info.n_metrics ? q->info.n_metrics : 1, sizeof *q->metrics);
	if (!q->metrics)
		r = profdb__fail(-ENOMEM, "out of memory");
	/* Do the two id sets collide? Then summary ids move up. */
	for (uint32_t i = 0, k; r == 0 && i < q->info.n_metrics; i++)
		if (db->metrics[i].is_summary &&
		    profdb__hpctkpre_metric_index(db, 0, db->metrics[i].id, &k))
			q->summary_shift = 0x10000;
	for (uint32_t i = 0; r == 0 && i < q->info.n_metrics; i++) {
		const pre_metric *m = &db->metrics[i];
		q->metrics[i].index = i;
		q->metrics[i].id = m->is_summary ? m->id + q->summary_shift : m->id;
	}
	/* Every node needs a model id: not PROFDB_NONE (the model's "no
	 * context"), and positive and negative stored ids must not meet. */
	for (uint32_t i = 0; r == 0 && i < q->info.n_contexts; i++) {
		profdb_hpctkpre_context c;
		if (profdb_hpctkpre_context_at(db, i, &c) == 0 &&
		    (c.id >= (int64_t)NEG_FLAG || c.id <= -(int64_t)(NEG_FLAG - 1)))
			r = profdb__fail(-EBADMSG, "context %" PRIu32 " has id %" PRId64 ", which the "
			                 "common model cannot represent", i, c.id);
	}
	if (r == 0 && db->old) {
		q->info.n_profiles = (uint32_t)profdb__pre_old_profile_count(db);
		q->info.n_ctx_slots = db->o.n_rows + (db->o.n_rows < UINT32_MAX);
	}
	if (r == 0) {
		pair_metrics(q);
		r = db->old ? 0 : build_names(q);
	}
	if (r < 0) {
		q_close(q);
		return r;
	}
	*impl = q;
	return 0;
}

static int q_open_path(void **impl, const char *path, const profdb_options *opts)
{
	profdb_hpctkpre *db;
	int r = profdb_hpctkpre_open(&db, path, opts);
	return r < 0 ? r : wrap(impl, db);
}

static int q_sniff(const unsigned char *head, size_t n, const char *name)
{
	(void)name;
	static const char *const magics[4] = {"HPCPROF-profdb__", "HPCPROF-cctdb___",
	                                      "HPCPROF-tracedb_", "HPCTOOLKIT_expmt"};
	for (int i = 0; i < 4; i++)
		if (n >= 16 && memcmp(head, magics[i], 16) == 0)
			return 1;
	return 0;
}

/* experiment.xml: by name, or a document that starts like XML. */
static int looks_xml(const char *name, const void *data, size_t size)
{
	const unsigned char *p = data;
	while (size && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == 0xef ||
	                *p == 0xbb || *p == 0xbf))
		p++, size--;
	return profdb__ends_with(name, ".xml") || (size && *p == '<');
}

/* A .metric-db record, a trace or a packed file of an old database: by
 * name, or a record or trace by its magic. */
static int is_record(const profdb_input *in)
{
	return profdb__hpctkpre_old_file(in->name) != PRE_FILE_NONE ||
	       (in->size >= 16 && memcmp(in->data, "HPCPROF-metricdb", 16) == 0) ||
	       (in->size >= 12 && memcmp(in->data, "HPCRUN-trace", 12) == 0);
}

/* An old database from buffers: experiment.xml and the records. */
static int open_old_inputs(void **impl, const profdb_input *in, size_t n,
                           const profdb_options *opts)
{
	const profdb_input *xml = NULL;
	profdb_input *rec = calloc(n, sizeof *rec);
	size_t k = 0;
	if (!rec)
		return profdb__fail(-ENOMEM, "out of memory");
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		if (is_record(&in[i]))
			rec[k++] = in[i];
		else if (!xml && looks_xml(in[i].name ? in[i].name : "", in[i].data, in[i].size))
			xml = &in[i];
		else
			r = profdb__fail(-EINVAL, "input %zu (\"%s\") is neither experiment.xml nor a "
			                 ".metric-db record or trace of an old HPCToolkit database", i,
			                 in[i].name ? in[i].name : "");
	}
	if (r == 0 && !xml)
		r = profdb__fail(-EINVAL, ".metric-db records without the experiment.xml that "
		                 "describes them");
	profdb_hpctkpre *db = NULL;
	if (r == 0)
		r = profdb__hpctkpre_open_old_mem(&db, xml, rec, k, opts);
	free(rec);
	return r < 0 ? r : wrap(impl, db);
}

static int q_open_inputs(void **impl, const profdb_input *in, size_t n, const profdb_options *opts)
{
	static const char *const magics[4] = {"HPCPROF-profdb__", "HPCPROF-cctdb___",
	                                      "HPCPROF-tracedb_", "HPCTOOLKIT_expmt"};
	profdb_input files[PRE_NFILES] = {{NULL, NULL, 0}};
	for (size_t i = 0; i < n; i++)
		if (is_record(&in[i]))
			return open_old_inputs(impl, in, n, opts);
	for (size_t i = 0; i < n; i++) {
		const char *name = in[i].name ? in[i].name : "";
		int slot = -1;
		for (int k = 0; k < 4; k++)
			if (in[i].size >= 16 && memcmp(in[i].data, magics[k], 16) == 0)
				slot = k;
		if (slot < 0 && looks_xml(name, in[i].data, in[i].size))
			slot = PRE_META;
		if (slot < 0)
			return profdb__fail(-EINVAL, "input %zu (\"%s\") is not a file of a pre-release "
			                    "HPCToolkit database", i, name);
		if (files[slot].data)
			return profdb__fail(-EINVAL, "input %zu (\"%s\"): two %s inputs", i, name,
			                    profdb__hpctkpre_file_name(slot));
		files[slot] = in[i];
		files[slot].name = name[0] ? name : NULL;   /* NULL: the file's usual name */
	}
	profdb_hpctkpre *db;
	int r = profdb_hpctkpre_open_mem(&db, files, opts);
	return r < 0 ? r : wrap(impl, db);
}

static const void *q_native(const void *impl)
{
	return ((const pq *)impl)->db;
}

static int q_check(const void *impl)
{
	return profdb_hpctkpre_check(((const pq *)impl)->db);
}

const profdb__backend profdb__hpctkpre_backend = {
	.format = PROFDB_FORMAT_HPCTK_PRE,
	.self_from_inclusive = 1,
	.sniff = q_sniff,
	.open_path = q_open_path,
	.open_inputs = q_open_inputs,
	.close = q_close,
	.about = q_about,
	.counts = q_counts,
	.metric_count = q_metric_count,
	.metric_at = q_metric_at,
	.metric_get = q_metric_get,
	.context_count = q_context_count,
	.context_root = q_context_root,
	.context_get = q_context_get,
	.profile_count = q_profile_count,
	.profile_get = q_profile_get,
	.profile_identity = q_profile_identity,
	.value = q_value,
	.scoped = q_scoped,
	.cursor_begin = q_cursor_begin,
	.cursor_next = q_cursor_next,
	.cursor_free = q_cursor_free,
	.trace_length = q_trace_length,
	.trace_at = q_trace_at,
	.trace_seek = q_trace_seek,
	.trace_view = q_trace_view,
	.check = q_check,
	.native = q_native,
};
