/* The HPCToolkit 4.0 backend of the common query interface (doc/model.md,
 * "HPCToolkit 4.0"): the wrapper handle and the helpers shared by its three
 * files: query.c (opening, description, metrics, tolerant mode),
 * query-tree.c (the tree's links, profiles, contexts) and query-values.c
 * (values, the cursor, traces).
 *
 *  - metrics: every id a value can be stored under, i.e. the propagated
 *    ids of every metric (thread profiles, cct.db) united with the summary
 *    statistic ids (the summary profile). Built at open: meta.db's metric
 *    table is small.
 *  - contexts: the meta.db tree below the implicit global context; its
 *    roots are the entry points (the dev-stage layout: the root contexts).
 *    The links (parent, first child, next sibling, depth) come from one
 *    walk, on first use. Id 0 and elided ids carry values without a tree
 *    node: in_tree = 0.
 *  - profiles: profile.db's, summary included; values: its stored entries;
 *    traces: trace.db's lines, matched to profiles by their profile index.
 *
 * Everything returned points into the mapping or into tables this wrapper
 * owns; every table is bounded by the input size and checked against
 * profdb_options.max_memory. */
#ifndef PROFDB_HPCTK4_QUERY_H
#define PROFDB_HPCTK4_QUERY_H

#include <inttypes.h>

#include "hpctk4-internal.h"
#include "../core/backend-internal.h"

typedef struct hq_metric {
	uint32_t id;
	const char *name;          /* in meta.db, NUL-terminated */
	char *description;         /* owned */
	char *statistic;           /* owned, NULL when the summary holds nothing under the id */
	profdb_metric_kind kind;
	uint32_t exclusive_id, inclusive_id;
	profdb_combine combine;    /* doc/model.md, "Combining numbers" */
} hq_metric;

/* One tree node's links (ids), sorted by id. */
typedef struct hq_ctx {
	uint32_t id, parent, first_child, next_sibling, depth;
} hq_ctx;

typedef struct hq {
	profdb_hpctk *db;
	profdb_options opts;
	uint64_t max_memory;
	int has[PROFDB_HPCTK_NFILES];
	uint32_t n_profiles, n_traces, n_slots;
	char version[16];

	hq_metric *metrics;
	uint32_t n_metrics;
	uint32_t n_propagated;     /* ids that are propagated ids (the normative count) */
	uint32_t *by_id;           /* metric id -> index + 1 (0: no such id) */
	uint32_t n_by_id;

	profdb__once ctx_once;     /* the tree's links */
	hq_ctx *ctx;
	uint64_t n_ctx;
	uint32_t first_root;

	profdb__once prof_once;    /* profile names, summary flags, kind names */
	char *names;               /* NUL-separated names */
	uint64_t *name_at;         /* offset of profile i's name */
	unsigned char *is_summary;
	uint32_t *summaries, n_summaries;
	char *kinds[256];          /* identifier kind names, as the model spells them */

	profdb__once trace_once;   /* profile -> trace line */
	uint32_t *trace_of;

	profdb__once vctx_once;    /* without cct.db: the context ids that carry values */
	uint32_t *vctx;
	uint64_t n_vctx;

	/* Tolerant mode only (else NULL): one warning per damaged block, by
	 * profile, cct.db slot and trace line. */
	atomic_bool *warned[3];
} hq;

enum { W_PROFILE, W_CCT, W_TRACE };

/* The name of the database for messages: its first present file. */
static inline const char *db_name(const hq *q)
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		if (q->has[f] && q->db->in[f].name)
			return q->db->in[f].name;
	return "HPCToolkit database";
}

static inline int budget(const hq *q, uint64_t bytes, const char *what)
{
	if (bytes > q->max_memory)
		return profdb__fail(-EFBIG, "%s: %s needs %" PRIu64 " bytes of memory, above the limit of "
		                    "%" PRIu64 " (profdb_options.max_memory)",
		                    db_name(q), what, bytes, q->max_memory);
	return 0;
}

static inline int progress(const hq *q, uint64_t done, uint64_t total)
{
	if (q->opts.progress && q->opts.progress(done, total, q->opts.progress_userdata))
		return profdb__fail(-ECANCELED, "cancelled by the progress callback");
	return 0;
}

static inline hq_metric *metric_of(const hq *q, uint32_t id)
{
	return id < q->n_by_id && q->by_id[id] ? &q->metrics[q->by_id[id] - 1] : NULL;
}

/* Blocks, in tolerant mode read as absent (once reported) when damaged. */
int profdb__hpctkq_prof_plane(const hq *q, uint32_t p, profdb_view *index, profdb_view *values);
int profdb__hpctkq_cct_plane(const hq *q, uint32_t c, profdb_view *index, profdb_view *values);
/* The value count cct.db declares for context @p c (its block located, not
 * read); a tolerated damaged header counts 0. */
int profdb__hpctkq_cct_declared(const hq *q, uint32_t c, uint64_t *n_values);
int profdb__hpctkq_trace_line(const hq *q, uint32_t t, profdb_hpctk_trace *out);

/* query-tree.c */
int profdb__hpctkq_profiles(const hq *q);   /* names, summary flags (lazily) */
int64_t profdb__hpctkq_context_count(const void *impl);
int profdb__hpctkq_context_root(const void *impl, uint32_t *id);
int profdb__hpctkq_context_get(const void *impl, uint32_t id, profdb_context *out);
int profdb__hpctkq_context_known(const void *impl, uint32_t id);
int64_t profdb__hpctkq_profile_count(const void *impl);
int profdb__hpctkq_profile_get(const void *impl, uint32_t index, profdb_profile *out);
int profdb__hpctkq_profile_identity(const void *impl, uint32_t index, uint32_t i,
                                    profdb_str *kind, uint64_t *value);

/* query-values.c */
int profdb__hpctkq_value(const void *impl, uint32_t p, uint32_t c, uint32_t m,
                         profdb_number *out);
int profdb__hpctkq_scoped(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
                          profdb_number *out);
int profdb__hpctkq_cursor_begin(const void *impl, profdb__cursor *cur);
int profdb__hpctkq_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out);
void profdb__hpctkq_cursor_free(const void *impl, profdb__cursor *cur);
int64_t profdb__hpctkq_trace_length(const void *impl, uint32_t p);
int profdb__hpctkq_trace_at(const void *impl, uint32_t p, uint64_t i, profdb_sample *out);
int profdb__hpctkq_trace_seek(const void *impl, uint32_t p, uint64_t time, uint64_t *index);
int profdb__hpctkq_profile_view(const void *impl, uint32_t p, profdb_view *index,
                                profdb_view *values);
int profdb__hpctkq_context_view(const void *impl, uint32_t c, profdb_view *index,
                                profdb_view *values);
int profdb__hpctkq_trace_view(const void *impl, uint32_t p, profdb_view *out);

/* query-summary.c */
/* The model's combine for meta.db's combine code (hpcprof's sum, min,
 * max; NONE for any other code). */
profdb_combine profdb__hpctkq_combine(uint8_t code);
int64_t profdb__hpctkq_summary_stats(const void *impl, profdb__summary_stat *out, size_t cap);
int profdb__hpctkq_summary_scope(const void *impl, uint32_t quantity, uint32_t i, uint32_t *id);

#endif
