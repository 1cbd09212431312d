/* The decoded metadata (from experiment.xml or a draft meta.db): id indexes,
 * duplicate checks, the cross-check against the .db files, the getters and
 * profdb_hpctkpre_check(), the full validation pass. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"

static const profdb_hpctkpre *sort_db;   /* qsort has no context argument */
static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;

static int cmp_node(const void *a, const void *b)
{
	int64_t x = sort_db->nodes[*(const uint32_t *)a].id, y = sort_db->nodes[*(const uint32_t *)b].id;
	return (x > y) - (x < y);
}

static int cmp_metric(const void *a, const void *b)
{
	const profdb_hpctkpre_metric *x = &sort_db->metrics[*(const uint32_t *)a];
	const profdb_hpctkpre_metric *y = &sort_db->metrics[*(const uint32_t *)b];
	if (x->is_summary != y->is_summary)
		return x->is_summary - y->is_summary;
	return (x->id > y->id) - (x->id < y->id);
}

static uint32_t *sorted(const profdb_hpctkpre *db, uint32_t n, int (*cmp)(const void *, const void *))
{
	uint32_t *ix = malloc((n ? n : 1) * sizeof *ix);
	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	pthread_mutex_lock(&sort_lock);
	sort_db = db;
	qsort(ix, n, sizeof *ix, cmp);
	sort_db = NULL;
	pthread_mutex_unlock(&sort_lock);
	return ix;
}

static const char *meta_name(const profdb_hpctkpre *db)
{
	return db->in[PRE_META].name ? db->in[PRE_META].name : "metadata";
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
	if (!(db->metric_by_id = sorted(db, db->n_metrics, cmp_metric)) ||
	    !(db->by_id = sorted(db, db->n_nodes, cmp_node)))
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t i = 1; i < db->n_metrics; i++) {
		const profdb_hpctkpre_metric *a = &db->metrics[db->metric_by_id[i - 1]];
		const profdb_hpctkpre_metric *b = &db->metrics[db->metric_by_id[i]];
		if (a->is_summary == b->is_summary && a->id == b->id)
			return profdb__fail(-EBADMSG, "%s: two %s metrics with id %" PRIu32 " (\"%s\" and "
			                    "\"%s\")", meta_name(db), a->is_summary ? "summary" : "profile",
			                    a->id, a->name, b->name);
	}
	for (uint32_t i = 1; i < db->n_nodes; i++)
		if (db->nodes[db->by_id[i]].id == db->nodes[db->by_id[i - 1]].id)
			return profdb__fail(-EBADMSG, "%s: two calling-context nodes with id %" PRId64
			                    " (nodes %" PRIu32 " and %" PRIu32 " in document order)",
			                    meta_name(db), db->nodes[db->by_id[i]].id, db->by_id[i - 1],
			                    db->by_id[i]);
	/* The .db files number contexts densely 0 .. num_ctx-1; a tree node past
	 * that has no values anywhere. profdb_hpctkpre_check() makes it an error. */
	if (db->present[PRE_CCT] && db->n_nodes) {
		int64_t max = db->nodes[db->by_id[db->n_nodes - 1]].id;
		if (max >= (int64_t)db->n_ctx)
			profdb__warn(&db->opts, "%s: context id %" PRId64 " is beyond cct.db's %" PRIu32
			             " contexts (mismatched files?)", meta_name(db), max, db->n_ctx);
	}
	return 0;
}

int profdb__hpctkpre_metric_index(const profdb_hpctkpre *db, int is_summary, uint32_t id,
                                  uint32_t *index)
{
	uint32_t lo = 0, hi = db->n_metrics;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const profdb_hpctkpre_metric *m = &db->metrics[db->metric_by_id[mid]];
		if (m->is_summary < is_summary || (m->is_summary == is_summary && m->id < id))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == db->n_metrics)
		return 0;
	const profdb_hpctkpre_metric *m = &db->metrics[db->metric_by_id[lo]];
	if (m->is_summary != is_summary || m->id != id)
		return 0;
	*index = db->metric_by_id[lo];
	return 1;
}

PROFDB_EXPORT int profdb_hpctkpre_table_get(const profdb_hpctkpre *db, int table, uint32_t i,
                                            int64_t *id, const char **name)
{
	if (!db || table < 0 || table >= PROFDB_HPCTKPRE_NTABLES)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_table_get: bad argument");
	if (i >= db->n_tab[table])
		return profdb__fail(-ENOENT, "name table %d has %" PRIu32 " entries, not %" PRIu64,
		                    table, db->n_tab[table], (uint64_t)i + 1);
	if (id)
		*id = db->tab[table][i].id;
	if (name)
		*name = db->tab[table][i].name;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_metric_get(const profdb_hpctkpre *db, uint32_t index,
                                             profdb_hpctkpre_metric *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_metric_get: NULL argument");
	if (index >= db->n_metrics)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " does not exist (%" PRIu32 " metrics)",
		                    index, db->n_metrics);
	*out = db->metrics[index];
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_metric_find(const profdb_hpctkpre *db, int is_summary,
                                              uint32_t id, uint32_t *index)
{
	uint32_t i;
	if (!db)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_metric_find: NULL handle");
	if (!profdb__hpctkpre_metric_index(db, is_summary != 0, id, &i))
		return 0;
	if (index)
		*index = i;
	return 1;
}

static const char *tab_name(const profdb_hpctkpre *db, int t, uint32_t i)
{
	return i < db->n_tab[t] && db->tab[t][i].name ? db->tab[t][i].name : "";
}

PROFDB_EXPORT int profdb_hpctkpre_context_get(const profdb_hpctkpre *db, uint32_t index,
                                              profdb_hpctkpre_context *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_context_get: NULL argument");
	if (index >= db->n_nodes)
		return profdb__fail(-ENOENT, "context node %" PRIu32 " does not exist (%" PRIu32
		                    " nodes)", index, db->n_nodes);
	const pre_node *n = &db->nodes[index];
	memset(out, 0, sizeof *out);
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
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_context_find(const profdb_hpctkpre *db, int64_t id,
                                               uint32_t *index)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_context_find: NULL handle");
	uint32_t lo = 0, hi = db->n_nodes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (db->nodes[db->by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == db->n_nodes || db->nodes[db->by_id[lo]].id != id)
		return 0;
	if (index)
		*index = db->by_id[lo];
	return 1;
}

/* ---- the full check ------------------------------------------------------- */

static int check_profiles(const profdb_hpctkpre *db, unsigned char *used)
{
	for (uint32_t i = 0; i < db->n_profiles; i++) {
		profdb_hpctkpre_profile pr;
		profdb_hpctkpre_plane p;
		int r;
		if ((r = profdb_hpctkpre_profile_get(db, i, &pr)) < 0 ||
		    (r = profdb_hpctkpre_profile_plane(db, i, &p)) < 0)
			return r;
		for (uint32_t k = 0; k < pr.n_ids; k++) {
			profdb_hpctkpre_id id;
			if ((r = profdb_hpctkpre_profile_id(db, i, k, &id)) < 0)
				return r;
		}
		if (p.n_values != pr.n_values && !(db->opts.flags & PROFDB_OPEN_TOLERANT))
			return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " plane has %"
			                    PRIu64 " values, its info %" PRIu64, i, p.n_values,
			                    pr.n_values);
		/* a context cct.db has no slot for: the files disagree */
		for (uint64_t k = 0; db->present[PRE_CCT] && k < p.n_index; k++) {
			uint32_t ctx;
			profdb_hpctkpre_run run;
			if ((r = profdb_hpctkpre_plane_at(&p, k, &ctx, &run)) < 0)
				return r;
			if (ctx >= db->n_ctx)
				return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " has values "
				                    "of context %" PRIu32 ", cct.db has %" PRIu32 " contexts "
				                    "(mismatched files)", i, ctx, db->n_ctx);
		}
		if (db->meta_kind == PROFDB_HPCTKPRE_META_NONE)
			continue;
		for (uint64_t v = 0; v < p.n_values; v++) {
			uint32_t mid, m;
			const unsigned char *rec = p.values + v * 10;
			mid = profdb__be16(rec + 8);
			if (!profdb__hpctkpre_metric_index(db, pr.is_summary, mid, &m))
				return profdb__fail(-EBADMSG, "profile.db: profile %" PRIu32 " has values of "
				                    "%s metric id %" PRIu32 " (value record at 0x%" PRIx64
				                    "), which %s does not name", i,
				                    pr.is_summary ? "summary" : "profile", mid,
				                    (uint64_t)(rec - db->in[PRE_PROFILE].base),
				                    meta_name(db));
			used[m] = 1;
		}
	}
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_check(const profdb_hpctkpre *db)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_check: NULL handle");
	int r = 0;
	unsigned char *used = calloc(db->n_metrics ? db->n_metrics : 1, 1);
	if (!used)
		return profdb__fail(-ENOMEM, "out of memory");
	if (db->present[PRE_CCT] && db->n_nodes &&
	    db->nodes[db->by_id[db->n_nodes - 1]].id >= (int64_t)db->n_ctx) {
		r = profdb__fail(-EBADMSG, "%s: context id %" PRId64 " is beyond cct.db's %" PRIu32
		                 " contexts (mismatched files)", meta_name(db),
		                 db->nodes[db->by_id[db->n_nodes - 1]].id, db->n_ctx);
		goto out;
	}
	if (db->present[PRE_PROFILE] && (r = check_profiles(db, used)) < 0)
		goto out;
	for (uint32_t c = 0; db->present[PRE_CCT] && c < db->n_ctx; c++) {
		profdb_hpctkpre_plane p;
		if ((r = profdb_hpctkpre_context_plane(db, c, &p)) < 0)
			goto out;
		if (db->present[PRE_PROFILE])
			for (uint64_t v = 0; v < p.n_values; v++)
				if (profdb__be32(p.values + v * 12 + 8) >= db->n_profiles) {
					r = profdb__fail(-EBADMSG, "cct.db: context %" PRIu32 " has a value of "
					                 "profile %" PRIu32 ", profile.db has %" PRIu32, c,
					                 profdb__be32(p.values + v * 12 + 8), db->n_profiles);
					goto out;
				}
	}
	for (uint32_t t = 0; db->present[PRE_TRACE] && t < db->n_traces; t++) {
		profdb_hpctkpre_trace tr;
		if ((r = profdb_hpctkpre_trace_get(db, t, &tr)) < 0)
			goto out;
	}
	/* A metric named but never stored may be all zeros, or derived (an XML
	 * "view" formula): a warning, not an error. */
	if (db->present[PRE_PROFILE] && db->meta_kind != PROFDB_HPCTKPRE_META_NONE) {
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
out:
	free(used);
	return r;
}
