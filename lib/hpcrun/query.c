/* The hpcrun backend of the common query interface (lib/query/backend.h):
 * a set of .hpcrun/.hpctrace files seen as one database. Everything is read
 * through the reader's public API (lib/hpcrun/api.c), which bounds-checks
 * every byte; this file never touches the mapping. doc/model.md ("hpcrun
 * measurements") is the normative description; in short:
 *
 *  - profiles: the reader's profiles, in its order (file name, epoch).
 *  - metrics: the profiles' metric tables merged by (name, integer/real),
 *    in order of first appearance; id = index. Each profile maps its own
 *    metric indices to merged ids.
 *  - contexts: the per-profile CCTs merged into one tree as hpcprof does:
 *    a merged node is keyed by (merged parent, load-module NAME, offset),
 *    because lm ids are per file. Ids are dense from 1 in order of first
 *    appearance (profiles in order, each tree in pre-order). Built lazily
 *    and once, bounded by max_memory.
 *  - values: the stored raw values (dense files: non-zero bit patterns),
 *    inclusive values summed up the merged tree per profile.
 *  - traces: the .hpctrace records, cct ids mapped to merged contexts.
 *
 * Duplicates: when one profile holds two metrics with the same key, or two
 * sibling nodes with the same key (hpcrun does not write either), the k-th
 * of them merges with the k-th of the other profiles. So a merged entry
 * stands for at most one entry of each profile: every stored value stays
 * addressable, nothing is summed, and a context's inclusive value for a
 * profile covers exactly that profile's subtree. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"
#include "../core/table-internal.h"
#include "../core/search-internal.h"

profdb_str profdb__hq_str(const char *p, size_t len)
{
	profdb_str s = {"", 0};
	if (p && len) {
		s.ptr = p;
		s.len = len;
	}
	return s;
}

int profdb__hq_str_eq(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

uint64_t profdb__hq_max_memory(const hq *q)
{
	return q->opts.max_memory ? q->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
}

uint32_t profdb__hq_search(const uint64_t *v, uint64_t n, uint32_t key)
{
	return profdb__hpcrun_search(v, n, key);
}

int profdb__hq_check_context(const hq *q, uint32_t id)
{
	if (id == 0 || id > q->n_nodes)
		return profdb__fail(-ENOENT, "hpcrun: no context %" PRIu32 " (ids 1 to %" PRIu32 ")", id,
		                    q->n_nodes);
	return 0;
}

int profdb__hq_check_metric(const hq *q, uint32_t id)
{
	if (id >= q->n_metrics)
		return profdb__fail(-ENOENT, "hpcrun: no metric %" PRIu32 " (%" PRIu32 " metrics)", id,
		                    q->n_metrics);
	return 0;
}

/* ---- the common interface: description ------------------------------------------------- */

static int q_about(const void *impl, profdb_about *out)
{
	const hq *q = impl;
	out->format = PROFDB_FORMAT_HPCRUN;
	out->version = profdb__str(q->version);
	out->title = q->title;
	return 0;
}

/* Stored values: every sparse pair, the non-zero dense cells. */
static int count_values(void *arg)
{
	hq *q = arg;
	int64_t total = 0;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		if (!profdb__hq_usable(&q->prof[p]))
			continue;
		for (uint32_t i = 0; i < q->prof[p].n_nodes; i++) {
			profdb_view run;
			int r = profdb_hpcrun_values(q->h, p, i, &run);
			if (r < 0)
				return r;
			if (!q->prof[p].dense) {
				total += (int64_t)run.count;
				continue;
			}
			PROFDB_VIEW_FOREACH(&run, k)
				total += profdb_view_value(&run, k).as.u64 != 0;
		}
	}
	q->n_values = total;
	return 0;
}

static int q_counts(const void *impl, profdb_counts *out)
{
	const hq *q = impl;
	int r = profdb__hq_tree_ready(q);
	if (r < 0 || (r = profdb__once_run((profdb__once *)&q->count_once, count_values,
	                                   (void *)q)) < 0)
		return r;
	memset(out, 0, sizeof *out);
	out->profiles = q->n_profiles;
	out->contexts = q->n_nodes;
	out->metrics = q->n_metrics;
	out->values = q->n_values;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_view t;
		if ((r = profdb_hpcrun_trace_at(q->h, p, &t)) < 0)
			return r;
		out->traces += r;
		out->samples += r ? (int64_t)t.count : 0;
	}
	return 0;
}

/* ---- metrics ------------------------------------------------------------------------------ */

static int64_t q_metric_count(const void *impl)
{
	return ((const hq *)impl)->n_metrics;
}

static int q_metric_at(const void *impl, uint32_t index, profdb_metric *out)
{
	const hq *q = impl;
	int r = profdb__hq_check_metric(q, index);
	if (r < 0)
		return r;
	const hq_metric *m = &q->metrics[index];
	memset(out, 0, sizeof *out);
	out->id = index;
	out->name = m->name;
	out->unit = profdb__str(NULL);
	out->description = m->description;
	out->kind = PROFDB_METRIC_POINT;
	out->statistic = profdb__str(NULL);
	out->type = m->is_real ? PROFDB_TYPE_F64 : PROFDB_TYPE_U64;
	/* one stored scope (raw); profdb_inclusive sums it up the tree */
	out->exclusive_id = out->inclusive_id = index;
	out->has_data = 1;
	/* hpcprof (2023 on) multiplies every stored value by the descriptor's
	 * period, whatever the event: CPUTIME and frequency-mode events record
	 * period 1 (their values are already seconds or event counts), a
	 * perf event sampled every N events records N. A formula metric is a
	 * ratio hpcprof recomputes from sums: it does not add up. */
	out->combine = m->has_formula ? PROFDB_COMBINE_NONE : PROFDB_COMBINE_SUM;
	out->period = m->period;
	out->scale = m->period && !m->has_formula ? (double)m->period : 1;
	return 0;
}

/* ---- contexts ----------------------------------------------------------------------------- */

static int64_t q_context_count(const void *impl)
{
	const hq *q = impl;
	int r = profdb__hq_tree_ready(q);
	return r < 0 ? r : (int64_t)q->n_nodes;
}

static int q_context_root(const void *impl, uint32_t *id)
{
	const hq *q = impl;
	int r = profdb__hq_tree_ready(q);
	if (r < 0)
		return r;
	if (q->n_nodes == 0)
		return profdb__fail(-ENOENT, "hpcrun: the calling-context tree is empty");
	*id = q->first_root;
	return 0;
}

/* ---- placeholder names ------------------------------------------------------------------ */

/* hpcrun's placeholder nodes (lm id 0) carry an 8-byte ASCII tag as their
 * offset, read big-endian. The names are the ones hpcrun's placeholder
 * table gives hpcprof for them ("<program root>" for "| Main  ", ...);
 * the four that table leaves out are named after what hpcprof does with
 * them: the primary root (hpcprof's global context, "<primary root>" in
 * its messages), the partial-unwind root (its "<partial call paths>"),
 * idleness and an address hpcrun could not normalise. */
static const struct {
	char tag[9];
	const char *name;
} placeholder_names[] = {
	{"^Primary", "<primary root>"},     {"^Partial", "<partial call paths>"},
	{"NoActvty", "<no activity>"},      {"*Unnorm ", "<unnormalized ip>"},
	{"| Main  ", "<program root>"},     {"| Thread", "<thread root>"},
	{"OMP Idle", "<omp idle>"},         {"OMPOvrHd", "<omp overhead>"},
	{"OMPBarrW", "<omp barrier wait>"}, {"OMPTaskW", "<omp task wait>"},
	{"OMPMtexW", "<omp mutex wait>"},   {"OMPUresv", "<omp region unresolved>"},
	{"OMTAlloc", "<omp tgt alloc>"},    {"OMTDelte", "<omp tgt delete>"},
	{"OMTCpIn ", "<omp tgt copyin>"},   {"OMTCpOut", "<omp tgt copyout>"},
	{"OMTKernl", "<omp tgt kernel>"},   {"OMT None", "<omp tgt none>"},
	{"GPUCp?2?", "<gpu copy>"},         {"GPUCpH2D", "<gpu copyin>"},
	{"GPUCpD2H", "<gpu copyout>"},      {"GPUAlloc", "<gpu alloc>"},
	{"GPUDelte", "<gpu delete>"},       {"GPUKernl", "<gpu kernel>"},
	{"GPUMemst", "<gpu memset>"},       {"GPU Sync", "<gpu sync>"},
	{"GPUTrace", "<gpu kernel>"},
};

static void tag_bytes(uint64_t tag, char out[8])
{
	for (int k = 0; k < 8; k++)
		out[k] = (char)(tag >> (56 - 8 * k));
}

static const char *known_placeholder(uint64_t tag)
{
	char b[8];
	tag_bytes(tag, b);
	for (size_t i = 0; i < sizeof placeholder_names / sizeof *placeholder_names; i++)
		if (memcmp(b, placeholder_names[i].tag, 8) == 0)
			return placeholder_names[i].name;
	return NULL;
}

/* "<TAG>" for a printable tag (trailing spaces dropped), else
 * "<placeholder 0x...>". */
static void made_up_name(uint64_t tag, char *out, size_t n)
{
	char b[8];
	size_t len = 8;
	tag_bytes(tag, b);
	while (len > 0 && b[len - 1] == ' ')
		len--;
	int printable = len > 0;
	for (size_t k = 0; k < len; k++)   /* inner spaces as in "| Main  " */
		printable &= (b[k] > ' ' || (b[k] == ' ' && k > 0)) && b[k] <= '~';
	if (printable)
		snprintf(out, n, "<%.*s>", (int)len, b);
	else
		snprintf(out, n, "<placeholder 0x%" PRIx64 ">", tag);
}

static int cmp_tag_name(const void *a, const void *b)
{
	uint64_t x = ((const hq_tag_name *)a)->tag, y = ((const hq_tag_name *)b)->tag;
	return (x > y) - (x < y);
}

int profdb__hq_name_placeholders(hq *q)
{
	uint32_t n = 0;
	for (uint32_t id = 1; id <= q->n_nodes; id++)
		n += q->modules[q->nodes[id].module].missing == 1 &&
		     !known_placeholder(q->nodes[id].offset);
	if (!n)
		return 0;
	q->tag_names = malloc((size_t)n * sizeof *q->tag_names);
	if (!q->tag_names)
		return profdb__fail(-ENOMEM, "out of memory (hpcrun placeholder names)");
	for (uint32_t id = 1; id <= q->n_nodes; id++) {
		const hq_node *nd = &q->nodes[id];
		if (q->modules[nd->module].missing == 1 && !known_placeholder(nd->offset)) {
			hq_tag_name *t = &q->tag_names[q->n_tag_names++];
			t->tag = nd->offset;
			made_up_name(nd->offset, t->name, sizeof t->name);
		}
	}
	qsort(q->tag_names, n, sizeof *q->tag_names, cmp_tag_name);
	uint32_t w = 0;   /* one entry per tag */
	for (uint32_t i = 0; i < n; i++)
		if (w == 0 || q->tag_names[w - 1].tag != q->tag_names[i].tag)
			q->tag_names[w++] = q->tag_names[i];
	q->n_tag_names = w;
	return 0;
}

typedef struct tag_key {
	const hq_tag_name *names;
	uint64_t tag;
} tag_key;

static int tag_before(const void *ctx, size_t i)
{
	const tag_key *k = ctx;
	return k->names[i].tag < k->tag;
}

/* The function name of placeholder node @p nd. An lm-id-0 root whose tag
 * hpcrun's table does not know (02.00 files predate the tags: offset 0) is
 * still the primary root: hpcprof accepts no other placeholder as a root. */
static profdb_str placeholder_name(const hq *q, const hq_node *nd)
{
	const char *s = known_placeholder(nd->offset);
	if (!s && nd->parent == 0)
		s = placeholder_names[0].name;
	if (!s) {
		tag_key key = {q->tag_names, nd->offset};
		size_t k = profdb__lower_bound(0, q->n_tag_names, &key, tag_before);
		if (k < q->n_tag_names && q->tag_names[k].tag == nd->offset)
			s = q->tag_names[k].name;
	}
	return s ? profdb__hq_str(s, strlen(s)) : profdb__hq_str(NULL, 0);
}

static uint32_t link_id(uint32_t id)
{
	return id ? id : NONE;
}

static int q_context_get(const void *impl, uint32_t id, profdb_context *out)
{
	const hq *q = impl;
	int r = profdb__hq_tree_ready(q);
	if (r < 0 || (r = profdb__hq_check_context(q, id)) < 0)
		return r;
	const hq_node *n = &q->nodes[id];
	const hq_module *mod = &q->modules[n->module];
	memset(out, 0, sizeof *out);
	out->id = id;
	out->parent = link_id(n->parent);
	out->first_child = link_id(n->first_child);
	out->next_sibling = link_id(n->next_sibling);
	out->depth = n->depth;
	out->relation = n->parent ? PROFDB_RELATION_CALL : PROFDB_RELATION_NONE;
	out->type = mod->missing == 1 ? PROFDB_CTX_UNKNOWN : PROFDB_CTX_INSTRUCTION;
	out->function = out->file = profdb__str(NULL);
	if (mod->missing == 1)
		out->function = placeholder_name(q, n);
	out->module = mod->name;
	out->offset = n->offset;
	out->has_offset = 1;
	out->in_tree = 1;
	return 0;
}

/* ---- profiles ----------------------------------------------------------------------------- */

static int64_t q_profile_count(const void *impl)
{
	return ((const hq *)impl)->n_profiles;
}

static int q_profile_get(const void *impl, uint32_t index, profdb_profile *out)
{
	const hq *q = impl;
	const hq_profile *pr = &q->prof[index];
	memset(out, 0, sizeof *out);
	out->index = index;
	out->is_summary = 0;
	out->name = profdb__hq_str(q->names + pr->name_at, pr->name_len);
	out->n_identity = pr->n_ident;
	return 0;
}

static int q_profile_identity(const void *impl, uint32_t index, uint32_t i, profdb_str *kind,
                              uint64_t *value)
{
	const hq *q = impl;
	const hq_profile *pr = &q->prof[index];
	*kind = q->ident[pr->ident_at + i].kind;
	*value = q->ident[pr->ident_at + i].value;
	return 0;
}

/* ---- traces ------------------------------------------------------------------------------- */

/* The profile's trace: 1, or 0 when it has none (t empty). lib/query has
 * checked @p p. */
static int trace_of(const hq *q, uint32_t p, profdb_view *t)
{
	return profdb_hpcrun_trace_at(q->h, p, t);
}

static int64_t q_trace_length(const void *impl, uint32_t p)
{
	profdb_view t;
	int r = trace_of(impl, p, &t);
	return r < 0 ? r : (int64_t)t.count;
}

/* A record's cct id is a node id of the same profile's CCT; one that names
 * no node (a trace-only profile) maps to context 0, which is no context. */
static int q_trace_at(const void *impl, uint32_t p, uint64_t i, profdb_sample *out)
{
	const hq *q = impl;
	profdb_view t;
	uint32_t node;
	int r = trace_of(q, p, &t);
	if (r == 0)
		return profdb__fail(-ENOENT, "hpcrun: profile %" PRIu32 " has no trace", p);
	if (r < 0)
		return r;
	if (i >= t.count)
		return profdb__fail(-ENOENT, "hpcrun: profile %" PRIu32 ": no trace record %" PRIu64
		                    " (%" PRIu64 " records)", p, i, t.count);
	if ((r = profdb__hq_tree_ready(q)) < 0)
		return r;
	out->time_ns = profdb_view_key(&t, i);
	out->context = 0;
	if (!profdb__hq_usable(&q->prof[p]))
		return 0;
	if ((r = profdb_hpcrun_node_find(q->h, p, (uint32_t)profdb_view_value(&t, i).as.u64,
	                                 &node)) < 0)
		return r;
	if (r == 1)
		out->context = q->prof[p].merged[node];
	return 0;
}

/* The lower bound: the first record at or after @p time. */
static int q_trace_seek(const void *impl, uint32_t p, uint64_t time, uint64_t *index)
{
	profdb_view t;
	int r = trace_of(impl, p, &t);
	if (r <= 0) {
		*index = 0;   /* no trace: length 0 */
		return r;
	}
	return profdb_view_seek(&t, time, index);
}

/* ---- opening ------------------------------------------------------------------------------ */

static void q_close(void *impl)
{
	hq *q = impl;
	if (!q)
		return;
	for (uint32_t p = 0; q->prof && p < q->n_profiles; p++) {
		hq_profile *pr = &q->prof[p];
		free(pr->metric);
		free(pr->metric_sorted);
		free(pr->merged);
		free(pr->by_merged);
		free(pr->incl);
		profdb__once_destroy(&pr->incl_once);
	}
	free(q->prof);
	free(q->metrics);
	free(q->ident);
	free(q->names);
	free(q->nodes);
	free(q->modules);
	free(q->tag_names);
	profdb__once_destroy(&q->tree_once);
	profdb__once_destroy(&q->count_once);
	profdb_hpcrun_close(q->h);
	free(q);
}

static int wrap(void **impl, profdb_hpcrun *h, const profdb_options *opts)
{
	hq *q = calloc(1, sizeof *q);
	if (!q) {
		profdb_hpcrun_close(h);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	q->h = h;
	profdb__options_copy(&q->opts, opts);
	profdb__once_init(&q->tree_once);
	profdb__once_init(&q->count_once);
	int64_t np = profdb_hpcrun_profile_count(h);
	int r = np < 0 ? (int)np : 0;
	if (r == 0 && np >= NONE)
		r = profdb__fail(-EFBIG, "%" PRId64 " hpcrun profiles: more than 32-bit indices", np);
	if (r == 0) {
		q->prof = calloc((size_t)(np ? np : 1), sizeof *q->prof);
		if (!q->prof)
			r = profdb__fail(-ENOMEM, "out of memory");
	}
	if (r == 0) {
		q->n_profiles = (uint32_t)np;
		for (uint32_t p = 0; p < q->n_profiles; p++)
			profdb__once_init(&q->prof[p].incl_once);
		r = profdb__hq_merge_metrics(q);
	}
	if (r == 0)
		r = profdb__hq_build_identities(q);
	if (r < 0) {
		q_close(q);
		return r;
	}
	profdb__hq_describe(q);
	*impl = q;
	return 0;
}

static int q_open_path(void **impl, const char *path, const profdb_options *opts)
{
	profdb_hpcrun *h;
	*impl = NULL;
	int r = profdb_hpcrun_open(&h, path, opts);
	return r < 0 ? r : wrap(impl, h, opts);
}

static int hpcrun_name(const char *name)
{
	return profdb__ends_with(name, ".hpcrun") || profdb__ends_with(name, ".hpctrace");
}

/* The two magics; or, for a file named like one, the "HPCRUN-" prefix, so
 * that a damaged file gets the reader's precise message. */
static int q_sniff(const unsigned char *head, size_t n, const char *name)
{
	if (n >= 18 && (memcmp(head, "HPCRUN-profile____", 18) == 0 ||
	                memcmp(head, "HPCRUN-trace______", 18) == 0))
		return 1;
	return hpcrun_name(name) && n >= 7 && memcmp(head, "HPCRUN-", 7) == 0;
}

/* Inputs that are neither hpcrun bytes nor named .hpcrun/.hpctrace (a .log
 * or all.lm given along) are left out, as in a directory. */
static int q_open_inputs(void **impl, const profdb_input *in, size_t n,
                         const profdb_options *opts)
{
	*impl = NULL;
	profdb_input *keep = calloc(n ? n : 1, sizeof *keep);
	if (!keep)
		return profdb__fail(-ENOMEM, "out of memory");
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *head = in[i].data ? in[i].data : (const unsigned char *)"";
		const char *base = profdb__base_name(in[i].name);
		if (!q_sniff(head, in[i].data ? in[i].size : 0, base) && !hpcrun_name(base))
			continue;
		keep[k++] = in[i];
	}
	profdb_hpcrun *h;
	int r = profdb_hpcrun_open_inputs(&h, keep, k, opts);
	free(keep);
	return r < 0 ? r : wrap(impl, h, opts);
}

static const void *q_native(const void *impl)
{
	return ((const hq *)impl)->h;
}

const profdb__backend profdb__hpcrun_backend = {
	.format = PROFDB_FORMAT_HPCRUN,
	.unnamed_contexts = 1,
	.sniff = q_sniff,
	.open_path = q_open_path,
	.open_inputs = q_open_inputs,
	.close = q_close,
	.about = q_about,
	.counts = q_counts,
	.metric_count = q_metric_count,
	.metric_at = q_metric_at,
	.metric_get = q_metric_at,
	.context_count = q_context_count,
	.context_root = q_context_root,
	.context_get = q_context_get,
	.profile_count = q_profile_count,
	.profile_get = q_profile_get,
	.profile_identity = q_profile_identity,
	.value = profdb__hq_value,
	.scoped = profdb__hq_scoped,
	.cursor_begin = profdb__hq_cursor_begin,
	.cursor_next = profdb__hq_cursor_next,
	.cursor_free = profdb__hq_cursor_free,
	.trace_length = q_trace_length,
	.trace_at = q_trace_at,
	.trace_seek = q_trace_seek,
	.native = q_native,
};
