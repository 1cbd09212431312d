/* Profiles and value scans of the old experiment.xml databases (see
 * query-old-internal.h). The thread values are read from the dense rows
 * in the mapping on every call: a lookup is one index computation, a scan
 * skips the zero cells (not stored, doc/model.md). The views
 * (profdb_profile_view, ...) are the common layer's, built once from these
 * scans (doc/FORMATS.md gives the measurements behind that choice). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "query-old-internal.h"
#include "../core/search-internal.h"

int64_t profdb__pre_old_profile_count(const profdb_hpctkpre *db)
{
	return (int64_t)db->o.n_mdb + 1;
}

int profdb__pre_old_profile_get(const profdb_hpctkpre *db, uint32_t index, profdb_profile *out)
{
	memset(out, 0, sizeof *out);
	out->index = index;
	if (index == 0) {
		out->is_summary = 1;
		out->name = profdb__str("summary (as printed in experiment.xml)");
		out->n_identity = 1;
		return 0;
	}
	const pre_mdb *m = &db->o.mdb[index - 1];
	out->name = profdb__str(m->label);
	out->n_identity = m->has_id ? 2 : 0;
	return 0;
}

int profdb__pre_old_identity(const profdb_hpctkpre *db, uint32_t index, uint32_t i,
                             profdb_str *kind, uint64_t *value)
{
	if (index == 0) {
		*kind = profdb__str("summary");
		*value = 0;
		return 0;
	}
	const pre_mdb *m = &db->o.mdb[index - 1];
	*kind = profdb__str(i == 0 ? "rank" : "thread");
	*value = i == 0 ? m->rank : m->thread;
	return 0;
}

/* The summary values in (context, metric) order; a scan by context never
 * comes here (it starts at profile 1, query.c). */
static int next_summary(const profdb_hpctkpre *db, profdb__cursor *cur, uint32_t shift,
                        profdb_entry *out)
{
	const pre_old *o = &db->o;
	uint64_t i = cur->pos[1];
	if (i >= o->n_svals)
		return 0;
	cur->pos[1] = i + 1;
	out->profile = 0;
	out->context = o->svals[i].ctx;
	out->metric = o->svals[i].metric + shift;
	out->value.type = PROFDB_TYPE_F64;
	out->value.as.f64 = o->svals[i].value;
	return 1;
}

/* The next non-zero cell of row pos[1] (the key's row in a scan by
 * context) from column rank pos[2] on: 1, or 0 at the row's end. */
static int next_cell(const pre_old *o, const pre_mdb *m, uint64_t row, profdb__cursor *cur,
                     profdb_entry *out)
{
	while (cur->pos[2] < o->n_columns) {
		uint32_t col = o->metric_columns[cur->pos[2]++];
		if (col >= m->n_metrics || o->column_metric[col] == PROFDB_NONE)
			continue;
		/* here n_metrics > 0, so rows is not NULL (no offset from NULL) */
		uint64_t bits = profdb__be64(m->rows + (row * m->n_metrics + col) * 8);
		if (!bits)
			continue;
		out->context = (uint32_t)row + 1;
		out->metric = o->column_metric[col];
		out->value.type = PROFDB_TYPE_F64;
		memcpy(&out->value.as.f64, &bits, 8);
		return 1;
	}
	return 0;
}

int profdb__pre_old_cursor_next(const profdb_hpctkpre *db, profdb__cursor *cur, uint32_t shift,
                                profdb_entry *out)
{
	const pre_old *o = &db->o;
	for (;;) {
		uint32_t p = (uint32_t)cur->pos[0];
		if (p > o->n_mdb || (cur->scan == PROFDB_SCAN_PROFILE && p != cur->key))
			return 0;
		if (p == 0) {
			if (next_summary(db, cur, shift, out))
				return 1;
		} else {
			const pre_mdb *m = &o->mdb[p - 1];
			uint64_t row = cur->scan != PROFDB_SCAN_CONTEXT ? cur->pos[1] :
			               cur->key ? (uint64_t)cur->key - 1 : UINT64_MAX;
			/* (a record of no metrics has no cells, however many rows its
			 * header claims: a tolerant open keeps such a record) */
			if (row < m->n_rows && m->n_metrics) {
				out->profile = p;
				if (next_cell(o, m, row, cur, out))
					return 1;
				cur->pos[2] = 0;
				if (cur->scan != PROFDB_SCAN_CONTEXT) {
					cur->pos[1]++;
					continue;
				}
			}
		}
		cur->pos[0]++;
		cur->pos[1] = cur->pos[2] = 0;
	}
}

int64_t profdb__pre_old_value_count(const profdb_hpctkpre *db)
{
	const pre_old *o = &db->o;
	int64_t n = (int64_t)o->n_svals;
	for (uint32_t p = 0; p < o->n_mdb; p++) {
		const pre_mdb *m = &o->mdb[p];
		uint64_t cells = (uint64_t)m->n_rows * m->n_metrics;
		for (uint64_t k = 0; k < cells; k++)
			n += profdb__be64(m->rows + k * 8) != 0;
	}
	return n;
}

/* ---- traces: samples name nodes by their it attribute; the model's
 * contexts are the nodes' i ids, so every sample is translated ---------- */

int64_t profdb__pre_old_trace_length(const profdb_hpctkpre *db, uint32_t p)
{
	const pre_xtrace *t = NULL;
	int r = profdb__hpctkpre_old_trace(db, p, &t);
	return r < 0 ? r : r ? (int64_t)t->count : 0;
}

int profdb__pre_old_trace_at(const profdb_hpctkpre *db, uint32_t p, uint64_t i,
                             profdb_sample *out)
{
	const pre_xtrace *t = NULL;
	int r = profdb__hpctkpre_old_trace(db, p, &t);
	if (r < 0)
		return r;
	uint64_t n = r ? t->count : 0;
	if (i >= n)
		return profdb__fail(-ENOENT, "trace sample %" PRIu64 " of profile %" PRIu32 " out of "
		                    "range (%" PRIu64 " samples)", i, p, n);
	int64_t id;
	profdb__hpctkpre_old_sample(db, t, i, &out->time_ns, &id);
	out->context = profdb__pre_ctx_model_id(id);
	return 0;
}

typedef struct sample_key {
	const profdb_hpctkpre *db;
	const pre_xtrace *t;
	uint64_t time;
} sample_key;

static int sample_before(const void *ctx, size_t i)
{
	const sample_key *k = ctx;
	uint64_t ns;
	int64_t id;
	profdb__hpctkpre_old_sample(k->db, k->t, i, &ns, &id);
	return ns < k->time;
}

int profdb__pre_old_trace_seek(const profdb_hpctkpre *db, uint32_t p, uint64_t time,
                               uint64_t *index)
{
	const pre_xtrace *t = NULL;
	int r = profdb__hpctkpre_old_trace(db, p, &t);
	*index = 0;
	if (r <= 0)
		return r;
	sample_key key = {db, t, time};
	*index = profdb__lower_bound(0, t->count, &key, sample_before);
	return 0;
}

int profdb__pre_old_trace_counts(const profdb_hpctkpre *db, int64_t *traces, int64_t *samples)
{
	*traces = *samples = 0;
	for (uint32_t p = 1; p <= db->o.n_mdb; p++) {
		const pre_xtrace *t = NULL;
		if (db->o.mdb[p - 1].trace == PROFDB_NONE)
			continue;
		int r = profdb__hpctkpre_old_trace(db, p, &t);   /* checks its samples */
		if (r < 0)
			return r;
		++*traces;
		*samples += r ? (int64_t)t->count : 0;
	}
	return 0;
}
