/* The Callgrind backend of the common query interface (lib/query/backend.h).
 *
 *  - profiles = the profiles of the group (parts of files; threads of a
 *    --separate-threads set; slices of a dump series), no summary profile;
 *  - metrics = event types (derived ones included), u64, self cost;
 *  - contexts = a synthetic root (id 0, the whole program: its inclusive
 *    value is the profile's total), every function a child of it (id =
 *    function index + 1), and below each function its source lines or
 *    instructions (lines.c: ids above the functions', decoded on demand).
 *    A function called from three places is the child of none of them:
 *    the calls are edges (profdb_edge_*), and the top-down view
 *    (lib/analysis/tree-cg.c) expands call paths from them;
 *  - values = the non-zero self costs of (profile, line, event); without
 *    line contexts (PROFDB_OPEN_FUNCTIONS_ONLY) of (profile, function,
 *    event): every cost is stored once (query-values.c);
 *  - inclusive = profdb_cg_inclusive (KCachegrind's rule with cycles,
 *    cycles.c), exclusive = self (a function's: the sum of its lines);
 *    a line's inclusive value is its self cost.
 *
 * The tree is built on first use, thread-safely, in O(F) time (a radix
 * sort of the root's children) and 16 bytes per function; the whole call
 * graph stays available through profdb_get_cg(). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"
#include "profdb-config.h"

#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif


/* ---- detection ------------------------------------------------------------ */

/* Text that starts like a Callgrind file: the "# callgrind format" banner,
 * or an "events:" header line within the head. */
static int looks_like_text(const unsigned char *h, size_t n)
{
	static const char banner[] = "# callgrind format";
	if (n >= sizeof banner - 1 && memcmp(h, banner, sizeof banner - 1) == 0)
		return 1;
	for (size_t i = 0; i + 7 <= n; i++)
		if ((i == 0 || h[i - 1] == '\n') && memcmp(h + i, "events:", 7) == 0)
			return 1;
	return 0;
}

static int base_is_callgrind(const char *name)
{
	if (!name)
		return 0;
	return strncmp(profdb__base_name(name), "callgrind.out", 13) == 0;
}

static int q_sniff(const unsigned char *head, size_t n, const char *name)
{
	if (base_is_callgrind(name))
		return 1;
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
#ifdef PROFDB_HAVE_ZLIB
		/* Inflate what the head holds and look at the text. */
		unsigned char text[4096];
		z_stream z;
		memset(&z, 0, sizeof z);
		if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
			return 0;
		z.next_in = (Bytef *)(uintptr_t)head;
		z.avail_in = (uInt)n;
		z.next_out = text;
		z.avail_out = sizeof text;
		(void)inflate(&z, Z_SYNC_FLUSH);
		size_t got = sizeof text - z.avail_out;
		inflateEnd(&z);
		return looks_like_text(text, got);
#else
		return 0;
#endif
	}
	return looks_like_text(head, n);
}

/* An empty file beside NAME-01, NAME.1 or NAME.1-01 that sniffs as
 * Callgrind: the base file valgrind leaves empty under --separate-threads
 * (the members hold the profile), or the base of a dump series. */
static int q_sniff_empty(const char *path)
{
	static const char *const suffixes[] = {"-01", ".1", ".1-01"};
	size_t len = strlen(path) + sizeof ".1-01";
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		char *sib = malloc(len);
		unsigned char head[4096];
		size_t n;
		if (!sib)
			return 0;
		snprintf(sib, len, "%s%s", path, suffixes[i]);
		int yes = profdb__read_head(sib, head, sizeof head, &n) == 0 && q_sniff(head, n, sib);
		free(sib);
		if (yes)
			return 1;
	}
	return 0;
}

/* ---- opening ------------------------------------------------------------------ */

static void q_close(void *impl)
{
	cg_query *q = impl;
	if (!q)
		return;
	for (uint32_t i = 0; q->names && i < q->cg->n_profiles; i++)
		free(q->names[i]);
	free(q->names);
	profdb__once_destroy(&q->tree_once);
	profdb__cgl_free(q->lines);
	free(q->node);
	profdb_cg_close(q->cg);
	free(q);
}

/* "thread 2", "dump 3 thread 1 part 2", or the file name when the profile
 * has none of dump, thread and part. */
static char *profile_name(const profdb_cg *cg, uint32_t i)
{
	profdb_cg_profile p;
	char buf[256];
	size_t k = 0;
	if (profdb_cg_profile_get(cg, i, &p) < 0)
		return NULL;
	if (p.has_dump)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "dump %" PRIu64, p.dump);
	if (p.has_thread && k < sizeof buf)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%sthread %" PRIu64, k ? " " : "",
		                      p.thread);
	if (p.has_part && k < sizeof buf)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%spart %" PRIu64, k ? " " : "",
		                      p.part);
	if (k == 0)
		snprintf(buf, sizeof buf, "%s", profdb__base_name(p.file.ptr));
	return strdup(buf);
}

static int wrap(void **impl, profdb_cg *cg, int r)
{
	*impl = NULL;
	if (r < 0)
		return r;
	cg_query *q = calloc(1, sizeof *q);
	if (!q) {
		profdb_cg_close(cg);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	q->cg = cg;
	profdb__once_init(&q->tree_once);
	if (cg->n_profiles && !(q->names = calloc(cg->n_profiles, sizeof *q->names))) {
		q_close(q);
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	}
	for (uint32_t i = 0; i < cg->n_profiles; i++)
		if (!(q->names[i] = profile_name(cg, i))) {
			q_close(q);
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		}
	if (!(cg->opts.flags & PROFDB_OPEN_FUNCTIONS_ONLY) && (r = profdb__cgl_new(&q->lines, cg)) < 0) {
		q_close(q);
		return r;
	}
	*impl = q;
	return 0;
}

static int q_open_path(void **impl, const char *path, const profdb_options *opts)
{
	/* The base name opens the whole set or series; a path naming one
	 * member (NAME-02, NAME.3) opens that file alone, as callgrind_annotate
	 * reads it. */
	profdb_cg *cg = NULL;
	int r = profdb__cg_names_member(path) ? profdb_cg_open(&cg, path, opts)
	                                      : profdb_cg_open_group(&cg, path, opts);
	return wrap(impl, cg, r);
}

static int q_open_inputs(void **impl, const profdb_input *in, size_t n,
                         const profdb_options *opts)
{
	profdb_cg *cg = NULL;
	int r = profdb_cg_open_inputs(&cg, in, n, opts);
	return wrap(impl, cg, r);
}

static const void *q_native(const void *impl)
{
	return ((const cg_query *)impl)->cg;
}

/* ---- description ------------------------------------------------------------------ */

static int q_about(const void *impl, profdb_about *out)
{
	const profdb_cg *cg = ((const cg_query *)impl)->cg;
	out->format = PROFDB_FORMAT_CALLGRIND;
	out->version = profdb__str("1");   /* the only version there is */
	out->title = profdb__str(NULL);
	for (uint32_t i = 0; i < cg->n_profiles; i++)
		if (cg->profiles[i].cmd.len) {
			out->title.ptr = cg->profiles[i].cmd.p;
			out->title.len = cg->profiles[i].cmd.len;
			break;
		}
	return 0;
}

/* Tree nodes: the root, the functions and @p lines line contexts. */
static int64_t n_contexts(const profdb_cg *cg, uint64_t lines)
{
	return cg->n_fns ? (int64_t)cg->n_fns + 1 + (int64_t)lines : 0;
}

/* Non-zero costs of a row. */
static int64_t nonzero(const uint64_t *c, uint32_t n)
{
	int64_t k = 0;
	for (uint32_t e = 0; e < n; e++)
		k += c[e] != 0;
	return k;
}

static int q_counts(const void *impl, profdb_counts *out)
{
	const cg_query *q = impl;
	const profdb_cg *cg = q->cg;
	uint64_t rows, values;
	int r = profdb__cgl_totals(q->lines, &rows, &values);
	if (r < 0)
		return r;
	memset(out, 0, sizeof *out);
	out->profiles = cg->n_profiles;
	out->contexts = n_contexts(cg, rows);
	out->metrics = cg->n_events;
	out->values = (int64_t)values;
	/* With line contexts the lines hold the costs and a function stores
	 * nothing of its own (query-values.c). */
	for (uint32_t i = 0; !q->lines && i < cg->n_rows; i++)
		out->values += nonzero(cg->row_cost + (size_t)i * cg->n_events, cg->n_events);
	return 0;
}

/* What the open knows without decoding a line: with line contexts, the
 * contexts and values are the line rows of every function, which only
 * q_counts decodes (-1: unknown). */
static int q_header_counts(const void *impl, profdb_counts *out)
{
	const cg_query *q = impl;
	const profdb_cg *cg = q->cg;
	if (!q->lines)
		return q_counts(impl, out);
	memset(out, 0, sizeof *out);
	out->profiles = cg->n_profiles;
	out->contexts = -1;
	out->metrics = cg->n_events;
	out->values = -1;
	return 0;
}

/* ---- metrics ----------------------------------------------------------------------- */

static int64_t q_metric_count(const void *impl)
{
	return ((const cg_query *)impl)->cg->n_events;
}

/* Costs are unsigned: an event has a non-zero value somewhere exactly when
 * its total is non-zero. The common answer would decode every line. */
static int q_metric_has_values(const void *impl, uint32_t id)
{
	const profdb_cg *cg = ((const cg_query *)impl)->cg;
	const uint64_t *row;
	int r;
	if (id >= cg->n_events)
		return profdb__fail(-ENOENT, "callgrind: no event %" PRIu32 " (%" PRIu32 " events)",
		                    id, cg->n_events);
	if ((r = profdb_cg_totals(cg, PROFDB_CG_ALL, &row)) < 0)
		return r;
	return row[id] != 0;
}

static int q_metric_at(const void *impl, uint32_t index, profdb_metric *out)
{
	const profdb_cg *cg = ((const cg_query *)impl)->cg;
	if (index >= cg->n_events)
		return profdb__fail(-ENOENT, "callgrind: no event %" PRIu32 " (%" PRIu32 " events)",
		                    index, cg->n_events);
	const cg_event *e = &cg->events[index];
	memset(out, 0, sizeof *out);
	out->id = index;
	out->name = cg_name_str(e->name);
	out->unit = profdb__str(NULL);
	/* a derived event's formula, else the long name of "event: Ir : ..." */
	out->description = cg_name_str(e->formula.len ? e->formula : e->long_name);
	out->kind = PROFDB_METRIC_EXCLUSIVE;
	out->statistic = profdb__str(NULL);
	out->type = PROFDB_TYPE_U64;
	out->exclusive_id = out->inclusive_id = index;   /* inclusive: computed */
	out->has_data = 1;
	/* Event counts add, as callgrind_annotate and KCachegrind add them; a
	 * derived event is a linear formula over counts, so it adds too. */
	out->combine = PROFDB_COMBINE_SUM;
	out->scale = 1;
	return 0;
}

/* ---- the tree ---------------------------------------------------------------------- */

/* a + b, saturating. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Links by context id (0 = the synthetic root, fn + 1 = function fn). */
static void link_child(cg_query *q, uint32_t *last, uint32_t parent, uint32_t child)
{
	q->node[child].parent = parent;
	if (last[parent] == PROFDB_NONE)
		q->node[parent].first_child = child;
	else
		q->node[last[parent]].next_sibling = child;
	last[parent] = child;
}

static int build_tree(void *arg)
{
	cg_query *q = arg;
	profdb_cg *cg = q->cg;
	int r0 = profdb__cg_calls(cg);   /* the order needs the call edges */
	if (r0 < 0)
		return r0;
	uint32_t nf = cg->n_fns, ne = cg->n_edges, nc = nf + 1;
	uint64_t limit = cg->opts.max_memory ? cg->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	uint64_t need = (uint64_t)nc * (32 + 2 * sizeof(profdb__sort_pair));
	if (need > limit)
		return profdb__fail(-EFBIG, "callgrind: the context tree needs %" PRIu64
		                    " bytes, more than profdb_options.max_memory", need);
	uint32_t *last, *count;
	uint64_t *weight;
	profdb__sort_pair *pairs, *tmp;
	void **const out[] = {(void **)&last, (void **)&weight, (void **)&pairs, (void **)&tmp,
	                      (void **)&count};
	const size_t size[] = {(size_t)nc * sizeof *last, (size_t)nc * sizeof *weight,
	                       (size_t)nc * sizeof *pairs, (size_t)nc * sizeof *tmp,
	                       PROFDB_RADIX_SIZE * sizeof *count};
	void *work = profdb__carve(out, size, sizeof size / sizeof *size);
	/* (kept: the tree's links, written in full) */
	q->node = profdb__realloc_huge(NULL, 0, (size_t)nc * sizeof *q->node);
	int r = 0;
	if (!work || !q->node) {
		r = profdb__fail(-ENOMEM, "callgrind: out of memory building the context tree");
		goto out;
	}
	memset(weight, 0, size[1]);
	for (uint32_t c = 0; c < nc; c++) {
		q->node[c] = (struct cgq_node){PROFDB_NONE, PROFDB_NONE, PROFDB_NONE, 0};
		last[c] = PROFDB_NONE;
	}
	/* Every function is a child of the root, heaviest first, then by
	 * index. Its weight: self + calls to other functions (first event).
	 * Not the inclusive cost, which would need the inclusive table that
	 * `top` by exclusive cost never builds; the two differ only inside
	 * cycles. (Saturating sums of non-negative costs: any order.) */
	if (cg->n_events) {
		for (uint32_t f = 0; f < nf; f++)
			weight[f + 1] = cg->self[(size_t)f * cg->n_events];
		for (uint32_t i = 0; i < ne; i++) {
			const cg_edge *e = &cg->edges[i];
			if (e->caller != e->callee)
				weight[e->caller + 1] = sat_add(weight[e->caller + 1],
				                                cg->edge_cost[(size_t)i * cg->n_events]);
		}
	}
	for (uint32_t c = 1; c < nc; c++)
		pairs[c - 1] = (profdb__sort_pair){~weight[c], c};
	/* A radix sort: qsort's indirect comparisons were slow on 100,000
	 * functions (doc/PERFORMANCE.md, "Callgrind reader"). Stable, so the
	 * order is by weight, then by index. */
	profdb__radix_pairs(&pairs, &tmp, nf, count);
	for (uint32_t i = 0; i < nf; i++) {
		link_child(q, last, 0, pairs[i].at);
		q->node[pairs[i].at].depth = 1;
	}
out:
	free(work);
	return r;
}

static int tree(const cg_query *q)
{
	return profdb__once_run((profdb__once *)&q->tree_once, build_tree, (void *)(uintptr_t)q);
}

/* ---- contexts ---------------------------------------------------------------------- */

static int64_t q_context_count(const void *impl)
{
	const cg_query *q = impl;
	uint64_t rows, values;
	int r = profdb__cgl_totals(q->lines, &rows, &values);
	if (r < 0)
		return r;
	return n_contexts(q->cg, rows);
}

static int q_context_root(const void *impl, uint32_t *id)
{
	const cg_query *q = impl;
	if (q->cg->n_fns == 0)
		return profdb__fail(-ENOENT, "callgrind: the profile has no functions");
	*id = 0;
	return 0;
}

/* 0 for the root or a function; an id above is a line (checked by lines.c). */
int check_ctx(const cg_query *q, uint32_t id)
{
	const profdb_cg *cg = q->cg;
	if ((id > cg->n_fns && !q->lines) || cg->n_fns == 0)
		return profdb__fail(-ENOENT, "callgrind: no context %" PRIu32
		                    " (0 is the root, 1..%" PRIu32 " the functions)", id, cg->n_fns);
	return 0;
}

/* A line or instruction (its row @p row): a lexical child of its
 * function, which is a child of the root (depth 1) and has no other
 * children (build_tree): no need of the tree's order, which the call
 * edges give. */
static int line_context(const cg_query *q, uint32_t id, const cgl_row *row,
                        profdb_context *out)
{
	const profdb_cg *cg = q->cg;
	const cg_fn *fn = &cg->fns[row->fn];
	out->parent = row->fn + 1;
	out->first_child = PROFDB_NONE;
	out->next_sibling = row->last ? PROFDB_NONE : id + 1;
	out->depth = 2;
	out->relation = PROFDB_RELATION_LEXICAL;
	out->type = row->has_instr ? PROFDB_CTX_INSTRUCTION : PROFDB_CTX_LINE;
	out->function = cg_name_at(cg, fn->fn);
	out->file = cg_name_at(cg, row->src);
	out->line = row->line;
	out->module = cg_name_at(cg, fn->ob);
	out->offset = row->instr;
	out->has_offset = row->has_instr;
	return 0;
}

static const profdb_context blank;

static int q_context_get(const void *impl, uint32_t id, profdb_context *out)
{
	const cg_query *q = impl;
	const profdb_cg *cg = q->cg;
	int r = check_ctx(q, id);
	if (r < 0 || (!is_line(q, id) && (r = tree(q)) < 0))
		return r;
	/* a line's row is read before *out is written: its atomic add then
	 * waits for no pending stores */
	cgl_row row;
	if (is_line(q, id) && (r = profdb__cgl_row(q->lines, id, &row)) < 0)
		return r;
	*out = blank;   /* a copy: an inline memset of this size starts slowly (rep stos) */
	out->id = id;
	out->in_tree = 1;
	if (is_line(q, id))
		return line_context(q, id, &row, out);
	const struct cgq_node *n = &q->node[id];
	out->parent = n->parent;
	out->first_child = n->first_child;
	out->next_sibling = n->next_sibling;
	out->depth = n->depth;
	uint32_t line = id > 0 ? profdb__cgl_first_child(q->lines, id - 1) : PROFDB_NONE;
	if (line != PROFDB_NONE) {   /* the lines come before the callees */
		out->first_child = line;
		profdb__cgl_prefetch(q->lines, id - 1);
	}
	if (id == 0) {
		out->relation = PROFDB_RELATION_NONE;
		out->type = PROFDB_CTX_ROOT;
		out->function = out->file = out->module = profdb__str(NULL);
		return 0;
	}
	const cg_fn *fn = &cg->fns[id - 1];
	out->relation = PROFDB_RELATION_CALL;
	out->type = PROFDB_CTX_FUNCTION;
	out->function = cg_name_at(cg, fn->fn);
	out->file = cg_name_at(cg, fn->fl);
	out->module = cg_name_at(cg, fn->ob);
	return 0;
}

/* The root and the functions are known from the scan; a line id needs the
 * line rows, which context_get reads without building the tree. */
static int q_context_known(const void *impl, uint32_t id)
{
	const cg_query *q = impl;
	int r = check_ctx(q, id);
	if (r < 0 || id <= q->cg->n_fns)
		return r;
	cgl_row row;
	return profdb__cgl_row(q->lines, id, &row);
}

/* ---- profiles ---------------------------------------------------------------------- */

static int64_t q_profile_count(const void *impl)
{
	return ((const cg_query *)impl)->cg->n_profiles;
}

/* The identity entries a profile has: file index, then dump, thread,
 * part and pid where stored. */
static uint32_t identity(const profdb_cg *cg, uint32_t p, const char **kinds, uint64_t *values)
{
	const cg_profile *pr = &cg->profiles[p];
	const cg_file *f = &cg->files[pr->file];
	const struct {
		int has;
		const char *kind;
		uint64_t value;
	} e[5] = {{1, "file", pr->file}, {f->has_seq, "dump", f->seq},
	          {pr->has_thread, "thread", pr->thread}, {pr->has_part, "part", pr->part},
	          {pr->has_pid, "pid", pr->pid}};
	uint32_t n = 0;
	for (int i = 0; i < 5; i++)
		if (e[i].has) {
			kinds[n] = e[i].kind;
			values[n++] = e[i].value;
		}
	return n;
}

static int q_profile_get(const void *impl, uint32_t index, profdb_profile *out)
{
	const cg_query *q = impl;
	const char *kinds[5];
	uint64_t values[5];
	out->index = index;
	out->is_summary = 0;
	out->name = profdb__str(q->names[index]);
	out->n_identity = identity(q->cg, index, kinds, values);
	return 0;
}

static int q_profile_identity(const void *impl, uint32_t index, uint32_t i, profdb_str *kind,
                              uint64_t *value)
{
	const cg_query *q = impl;
	const char *kinds[5];
	uint64_t values[5];
	identity(q->cg, index, kinds, values);   /* i < its count: checked by lib/query */
	*kind = profdb__str(kinds[i]);
	*value = values[i];
	return 0;
}

/* The files of the set or series, in group order, without their folder. */
static int q_file_name(const void *impl, size_t index, profdb_str *out)
{
	const profdb_cg *cg = ((const cg_query *)impl)->cg;
	if (index >= cg->n_files)
		return -ENOENT;
	*out = profdb__str(profdb__base_name(cg->files[index].label));
	return 0;
}

const profdb__backend profdb__cg_backend = {
	.format = PROFDB_FORMAT_CALLGRIND,
	.name_suffixes = 1,
	.declared_events = 1,
	.values_check_ids = 1,   /* check_ids(), and the line rows (query-values.c) */
	.sniff = q_sniff,
	.sniff_empty = q_sniff_empty,
	.open_path = q_open_path,
	.open_inputs = q_open_inputs,
	.close = q_close,
	.about = q_about,
	.counts = q_counts,
	.header_counts = q_header_counts,
	.metric_count = q_metric_count,
	.metric_at = q_metric_at,
	.metric_has_values = q_metric_has_values,
	.context_count = q_context_count,
	.context_root = q_context_root,
	.context_get = q_context_get,
	.context_known = q_context_known,
	.profile_count = q_profile_count,
	.profile_get = q_profile_get,
	.profile_identity = q_profile_identity,
	.value = q_value,
	.scoped = q_scoped,
	.cursor_begin = q_cursor_begin,
	.cursor_next = q_cursor_next,
	.cursor_free = q_cursor_free,
	.native_records = &profdb__cgq_native_records,
	.graph = &profdb__cgq_graph,
	.file_name = q_file_name,
	.native = q_native,
};
