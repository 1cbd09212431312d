/* The decoded metadata (from experiment.xml or a draft meta.db): id indexes
 * (sorted keys searched through profdb_view_find), duplicate checks, the getters and
 * profdb_hpctkpre_check(), the full validation pass. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const pre_key *)a)->key, y = ((const pre_key *)b)->key;
	return (x > y) - (x < y);
}

/* Node ids are signed: adding 2^63 keeps their order as unsigned keys. */
static uint64_t node_key(int64_t id)
{
	return (uint64_t)id ^ (UINT64_C(1) << 63);
}

static uint64_t metric_key(int is_summary, uint32_t id)
{
	return (uint64_t)(is_summary != 0) << 32 | id;
}

/* @p n keys (filled by the caller through @p *keys) sorted, and their view
 * (host byte order: the records are this process's own). */
static int key_index(pre_key **keys, uint32_t n, profdb_view *v)
{
	static const uint16_t one = 1;
	*keys = calloc(n ? n : 1, sizeof **keys);
	if (!*keys)
		return profdb__fail(-ENOMEM, "out of memory");
	profdb__advise_big(*keys, (size_t)n * sizeof **keys);
	memset(v, 0, sizeof *v);
	v->base = n ? (const unsigned char *)*keys : NULL;
	v->count = n;
	v->stride = sizeof **keys;
	v->key_offset = offsetof(pre_key, key);
	v->key_type = PROFDB_FIELD_U64;
	v->value_offset = offsetof(pre_key, index);
	v->value_type = PROFDB_FIELD_U32;
	v->big_endian = *(const unsigned char *)&one == 0;
	return 0;
}

static const char *meta_name(const profdb_hpctkpre *db)
{
	return db->in[PRE_META].name ? db->in[PRE_META].name : "metadata";
}

static int64_t max_node_id(const profdb_hpctkpre *db)
{
	return (int64_t)(db->node_keys[db->n_nodes - 1].key ^ (UINT64_C(1) << 63));
}

/* Writers number the nodes in document order, so the keys mostly come
 * sorted already: a linear check saves the sort. */
static void sort_keys(pre_key *keys, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (keys[i].key < keys[i - 1].key) {
			qsort(keys, n, sizeof *keys, cmp_key);
			return;
		}
}

static int build_indexes(profdb_hpctkpre *db)
{
	int r;
	if ((r = key_index(&db->metric_keys, db->n_metrics, &db->metric_view)) < 0 ||
	    (r = key_index(&db->node_keys, db->n_nodes, &db->node_view)) < 0)
		return r;
	for (uint32_t i = 0; i < db->n_metrics; i++)
		db->metric_keys[i] = (pre_key){metric_key(db->metrics[i].is_summary, db->metrics[i].id),
		                               i, 0};
	for (uint32_t i = 0; i < db->n_nodes; i++)
		db->node_keys[i] = (pre_key){node_key(db->nodes[i].id), i, 0};
	sort_keys(db->metric_keys, db->n_metrics);
	sort_keys(db->node_keys, db->n_nodes);
	return 0;
}

int profdb__hpctkpre_meta_finish(profdb_hpctkpre *db)
{
	static const char *const tname[PROFDB_HPCTKPRE_NTABLES] = {
		"load module", "file", "procedure", "identifier kind"};
	for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++)
		for (uint32_t i = 1; i < db->n_tab[t]; i++)
			if (db->tab[t][i].id == db->tab[t][i - 1].id)
				return profdb__fail(-EBADMSG, "%s: two %s entries with id %" PRId64,
				                    meta_name(db), tname[t], db->tab[t][i].id);
	int r = build_indexes(db);
	if (r < 0)
		return r;
	for (uint32_t i = 1; i < db->n_metrics; i++) {
		const pre_metric *a = &db->metrics[db->metric_keys[i - 1].index];
		const pre_metric *b = &db->metrics[db->metric_keys[i].index];
		if (db->metric_keys[i - 1].key == db->metric_keys[i].key)
			return profdb__fail(-EBADMSG, "%s: two %s metrics with id %" PRIu32 " (\"%s\" and "
			                    "\"%s\")", meta_name(db), a->is_summary ? "summary" : "profile",
			                    a->id, a->name, b->name);
	}
	for (uint32_t i = 1; i < db->n_nodes; i++)
		if (db->node_keys[i].key == db->node_keys[i - 1].key)
			return profdb__fail(-EBADMSG, "%s: two calling-context nodes with id %" PRId64
			                    " (nodes %" PRIu32 " and %" PRIu32 " in document order)",
			                    meta_name(db), db->nodes[db->node_keys[i].index].id,
			                    db->node_keys[i - 1].index, db->node_keys[i].index);
	return 0;
}

static int find_key(const profdb_view *v, uint64_t key, uint32_t *index)
{
	uint64_t i;
	if (profdb_view_find(v, key, &i) != 1)
		return 0;
	*index = (uint32_t)profdb_view_value(v, i).as.u64;
	return 1;
}

int profdb__hpctkpre_metric_index(const profdb_hpctkpre *db, int is_summary, uint32_t id,
                                  uint32_t *index)
{
	return find_key(&db->metric_view, metric_key(is_summary, id), index);
}

int profdb__hpctkpre_node_index(const profdb_hpctkpre *db, int64_t id, uint32_t *index)
{
	return find_key(&db->node_view, node_key(id), index);
}

profdb_str profdb__hpctkpre_str(const char *s)
{
	profdb_str r = {s ? s : "", s ? strlen(s) : 0};
	return r;
}

PROFDB_EXPORT int profdb_hpctkpre_table_at(const profdb_hpctkpre *db, int table, uint32_t i,
                                           profdb_hpctkpre_name *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!db || !out || table < 0 || table >= PROFDB_HPCTKPRE_NTABLES)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_table_at: bad argument");
	out->id = 0;
	out->name = profdb__hpctkpre_str(NULL);
	if (i >= db->n_tab[table])
		return profdb__fail(-ENOENT, "name table %d has %" PRIu32 " entries, not %" PRIu64,
		                    table, db->n_tab[table], (uint64_t)i + 1);
	out->id = db->tab[table][i].id;
	out->name = profdb__hpctkpre_str(db->tab[table][i].name);
	return 0;
}

static void metric_out(const profdb_hpctkpre *db, uint32_t index, profdb_hpctkpre_metric *out)
{
	const pre_metric *m = &db->metrics[index];
	out->index = index;
	out->id = m->id;
	out->is_summary = m->is_summary;
	out->name = profdb__hpctkpre_str(m->name);
	out->inclusive = m->inclusive;
	out->partner = m->partner;
	out->formula = profdb__hpctkpre_str(m->formula);
	out->formula_type = profdb__hpctkpre_str(m->formula_type);
	out->units = profdb__hpctkpre_str(m->units);
	out->combine = m->combine;
	out->show = m->show;
}

/* Clear a metric output ({"", 0} strings, no partner); -EINVAL for a NULL
 * handle or output. */
static int metric_start(const profdb_hpctkpre *db, profdb_hpctkpre_metric *out, const char *fn)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "%s: NULL argument", fn);
	memset(out, 0, sizeof *out);
	out->name = out->formula = out->formula_type = out->units = profdb__hpctkpre_str(NULL);
	out->index = out->partner = PROFDB_NONE;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_metric_at(const profdb_hpctkpre *db, uint32_t index,
                                            profdb_hpctkpre_metric *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	int r = metric_start(db, out, "profdb_hpctkpre_metric_at");
	if (r < 0)
		return r;
	if (index >= db->n_metrics)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " does not exist (%" PRIu32 " metrics)",
		                    index, db->n_metrics);
	metric_out(db, index, out);
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_metric_get(const profdb_hpctkpre *db, int is_summary,
                                             uint32_t id, profdb_hpctkpre_metric *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	uint32_t i;
	int r = metric_start(db, out, "profdb_hpctkpre_metric_get");
	if (r < 0)
		return r;
	if (!profdb__hpctkpre_metric_index(db, is_summary != 0, id, &i))
		return profdb__fail(-ENOENT, "no %s metric with id %" PRIu32,
		                    is_summary ? "summary" : "thread-profile", id);
	metric_out(db, i, out);
	return 0;
}

static profdb_str tab_name(const profdb_hpctkpre *db, int t, uint32_t i)
{
	return profdb__hpctkpre_str(i < db->n_tab[t] ? db->tab[t][i].name : NULL);
}

/* Clear a context output (links PROFDB_NONE, strings {"", 0}). */
static int context_start(const profdb_hpctkpre *db, profdb_hpctkpre_context *out,
                         const char *fn)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "%s: NULL argument", fn);
	memset(out, 0, sizeof *out);
	out->index = out->parent = out->first_child = out->next_sibling = PROFDB_NONE;
	out->procedure = out->file = out->module = profdb__hpctkpre_str(NULL);
	out->trace_id = -1;
	return 0;
}

static void context_out(const profdb_hpctkpre *db, uint32_t index, profdb_hpctkpre_context *out)
{
	const pre_node *n = &db->nodes[index];
	out->index = index;
	out->id = n->id;
	out->parent = n->parent;
	out->first_child = n->first_child;
	out->next_sibling = n->next_sibling;
	out->depth = n->depth;
	out->type = n->type;
	out->procedure = tab_name(db, PROFDB_HPCTKPRE_PROCEDURES, n->proc);
	out->file = tab_name(db, PROFDB_HPCTKPRE_FILES, n->file);
	out->line = n->line;
	out->module = tab_name(db, PROFDB_HPCTKPRE_MODULES, n->module);
	out->address = n->address;
	out->has_address = n->has_address;
	out->trace_id = n->trace_id;
}

PROFDB_EXPORT int profdb_hpctkpre_context_at(const profdb_hpctkpre *db, uint32_t index,
                                             profdb_hpctkpre_context *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	int r = context_start(db, out, "profdb_hpctkpre_context_at");
	if (r < 0)
		return r;
	if (index >= db->n_nodes)
		return profdb__fail(-ENOENT, "context node %" PRIu32 " does not exist (%" PRIu32
		                    " nodes)", index, db->n_nodes);
	context_out(db, index, out);
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_context_get(const profdb_hpctkpre *db, int64_t id,
                                              profdb_hpctkpre_context *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	uint32_t index;
	int r = context_start(db, out, "profdb_hpctkpre_context_get");
	if (r < 0)
		return r;
	if (!profdb__hpctkpre_node_index(db, id, &index))
		return profdb__fail(-ENOENT, "no calling-context node has id %" PRId64, id);
	context_out(db, index, out);
	return 0;
}

/* ---- the full check ------------------------------------------------------- */

/* Every value's metric id named by the metadata (marked in @p used). */
static int check_metric_ids(const profdb_hpctkpre *db, uint32_t p, int is_summary,
                            const profdb_view *values, unsigned char *used)
{
	PROFDB_VIEW_FOREACH(values, v) {
		uint32_t m, mid = (uint32_t)profdb_view_key(values, v);
		if (!profdb__hpctkpre_metric_index(db, is_summary, mid, &m))
			return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " has values of "
			                    "%s metric id %" PRIu32 " (value record at 0x%" PRIx64
			                    "), which %s does not name", p,
			                    is_summary ? "summary" : "profile", mid,
			                    (uint64_t)(values->base + v * values->stride -
			                               db->in[PRE_PROFILE].base), meta_name(db));
		used[m] = 1;
	}
	return 0;
}

static int check_profiles(const profdb_hpctkpre *db, unsigned char *used)
{
	for (uint32_t i = 0; i < db->n_profiles; i++) {
		profdb_hpctkpre_profile pr;
		profdb_view index, values;
		int r;
		if ((r = profdb_hpctkpre_profile_at(db, i, &pr)) < 0 ||
		    (r = profdb_hpctkpre_profile_view(db, i, &index, &values)) < 0)
			return r;
		for (uint32_t k = 0; k < pr.n_ids; k++) {
			profdb_hpctkpre_id id;
			if ((r = profdb_hpctkpre_profile_id_at(db, i, k, &id)) < 0)
				return r;
		}
		if (values.count != pr.n_values) {
			r = profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " plane has %" PRIu64
			                 " values, its info %" PRIu64, i, values.count, pr.n_values);
			/* tolerant: the plane is what counts (a damaged plane let
			 * through above reads as empty and lands here too) */
			if ((r = profdb__tolerate(&db->opts, r, NULL, "the value count in the info of "
			                          "profile %" PRIu32, i)) < 0)
				return r;
		}
		/* a context cct.db has no slot for: the files disagree (keys are
		 * sorted, so the last is the largest) */
		uint64_t last = index.count ? profdb_view_key(&index, index.count - 1) : 0;
		if (db->present[PRE_CCT] && index.count && last >= db->n_ctx)
			return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " has values "
			                    "of context %" PRIu64 ", cct.db has %" PRIu32 " contexts "
			                    "(mismatched files)", i, last, db->n_ctx);
		if (db->meta_kind != PROFDB_HPCTKPRE_META_NONE &&
		    (r = check_metric_ids(db, i, pr.is_summary, &values, used)) < 0)
			return r;
	}
	return 0;
}

static int check_cct(const profdb_hpctkpre *db)
{
	for (uint32_t c = 0; c < db->n_ctx; c++) {
		profdb_view index, values;
		int r = profdb_hpctkpre_context_view(db, c, &index, &values);
		if (r < 0)
			return r;
		PROFDB_VIEW_FOREACH(&values, v)
			if (db->present[PRE_PROFILE] && profdb_view_key(&values, v) >= db->n_profiles)
				return profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 " has a value of "
				                    "profile %" PRIu64 ", profile.db has %" PRIu32, c,
				                    profdb_view_key(&values, v), db->n_profiles);
	}
	return 0;
}

/* A metric named but never stored may be all zeros, or derived (an XML
 * "view" formula): a warning, not an error. */
static void warn_unused(const profdb_hpctkpre *db, const unsigned char *used)
{
	uint32_t unused = 0, first = 0;
	for (uint32_t m = 0; m < db->n_metrics; m++)
		if (!used[m] && unused++ == 0)
			first = m;
	if (unused)
		profdb__warn(&db->opts, "%s: %" PRIu32 " metric(s) have no value in profile.db, "
		             "first %s id %" PRIu32 " \"%s\"", meta_name(db), unused,
		             db->metrics[first].is_summary ? "summary" : "profile",
		             db->metrics[first].id, db->metrics[first].name);
}

PROFDB_EXPORT int profdb_hpctkpre_check(const profdb_hpctkpre *db)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_check: NULL handle");
	int r = 0;
	unsigned char *used = calloc(db->n_metrics ? db->n_metrics : 1, 1);
	if (!used)
		return profdb__fail(-ENOMEM, "out of memory");
	if (db->present[PRE_CCT] && db->n_nodes && max_node_id(db) >= (int64_t)db->n_ctx) {
		r = profdb__fail(-EBADMSG, "%s: context id %" PRId64 " is beyond cct.db's %" PRIu32
		                 " contexts (mismatched files)", meta_name(db), max_node_id(db),
		                 db->n_ctx);
		goto out;
	}
	if (db->present[PRE_PROFILE] && (r = check_profiles(db, used)) < 0)
		goto out;
	if (db->present[PRE_CCT] && (r = check_cct(db)) < 0)
		goto out;
	for (uint32_t t = 0; db->present[PRE_TRACE] && t < db->n_traces; t++) {
		profdb_hpctkpre_trace tr;
		if ((r = profdb_hpctkpre_trace_line_at(db, t, &tr)) < 0)
			goto out;
	}
	if (db->present[PRE_PROFILE] && db->meta_kind != PROFDB_HPCTKPRE_META_NONE)
		warn_unused(db, used);
out:
	free(used);
	return r;
}
