/* The HPCToolkit 4.0 backend: the tree's links, profiles and contexts
 * (doc/model.md, "HPCToolkit 4.0"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"

/* ---- the tree's links ---------------------------------------------------------- */

static int cmp_ctx(const void *a, const void *b)
{
	uint32_t x = ((const hq_ctx *)a)->id, y = ((const hq_ctx *)b)->id;
	return x < y ? -1 : x > y;
}

/* One pre-order walk: a node's parent is the last node seen one level up;
 * its previous sibling is the last node seen at its own level since then. */
static int build_ctx(void *arg)
{
	hq *q = arg;
	int64_t n = profdb_hpctk_context_count(q->db);
	if (n < 0)
		return (int)n;
	int r = budget(q, (uint64_t)n * sizeof(hq_ctx), "the context tree's links");
	if (r < 0)
		return r;
	hq_ctx *ctx = malloc((n ? (size_t)n : 1) * sizeof *ctx);
	size_t cap = 0, cap_last = 0;
	uint64_t *at = NULL, *last = NULL;
	profdb_hpctk_walk *w = NULL;   /* before the first goto: out frees it */
	uint64_t k = 0;
	if ((r = profdb__grow((void **)&at, &cap, 64, sizeof *at)) < 0 ||
	    (r = profdb__grow((void **)&last, &cap_last, 64, sizeof *last)) < 0)
		goto out;
	if (!ctx || !at || !last) {
		r = profdb__fail(-ENOMEM, "out of memory");
		goto out;
	}
	if ((r = profdb_hpctk_walk_new(&w, q->db)) < 0)
		goto out;
	last[1] = UINT64_MAX;
	q->first_root = PROFDB_NONE;
	for (;;) {
		profdb_hpctk_context c;
		uint32_t d;
		if ((r = profdb_hpctk_walk_next(w, &c, &d)) < 0)
			goto out;
		if (r == 0)
			break;
		if (d == 0)
			continue;   /* the implicit global context */
		if (c.id == PROFDB_NONE) {   /* the model's "no context": cannot be a node */
			r = profdb__fail(-EBADMSG, "%s: a context with id 0x%" PRIx32 " (reserved: "
			                 "PROFDB_NONE) in the tree", q->db->in[PROFDB_HPCTK_META].name,
			                 c.id);
			goto out;
		}
		if (k >= (uint64_t)n) {
			r = profdb__fail(-EBADMSG, "%s: the context tree walk found more nodes than the "
			                 "%" PRId64 " it counted", q->db->in[PROFDB_HPCTK_META].name, n);
			goto out;
		}
		if ((r = profdb__grow((void **)&at, &cap, (size_t)d + 2, sizeof *at)) < 0 ||
		    (r = profdb__grow((void **)&last, &cap_last, (size_t)d + 2, sizeof *last)) < 0)
			goto out;
		hq_ctx *e = &ctx[k];
		e->id = c.id;
		e->parent = d > 1 ? ctx[at[d - 1]].id : PROFDB_NONE;
		e->first_child = e->next_sibling = PROFDB_NONE;
		e->depth = d - 1;
		if (last[d] != UINT64_MAX)
			ctx[last[d]].next_sibling = c.id;
		else if (d > 1)
			ctx[at[d - 1]].first_child = c.id;
		else
			q->first_root = c.id;
		last[d] = at[d] = k;
		last[d + 1] = UINT64_MAX;   /* the new node has no children yet */
		k++;
	}
	qsort(ctx, k, sizeof *ctx, cmp_ctx);
	q->ctx = ctx;
	q->n_ctx = k;
	ctx = NULL;
	r = 0;
out:
	profdb_hpctk_walk_free(w);
	free(ctx);
	free(at);
	free(last);
	return r;
}

static int ensure_ctx(const hq *q)
{
	hq *mut = (hq *)q;
	return profdb__once_run(&mut->ctx_once, build_ctx, mut);
}

static const hq_ctx *find_ctx(const hq *q, uint32_t id)
{
	profdb_view v = profdb__hpctk_u32_table(q->ctx, q->n_ctx, sizeof *q->ctx);
	uint64_t i;
	return profdb_view_find(&v, id, &i) == 1 ? &q->ctx[i] : NULL;
}

/* ---- profiles ------------------------------------------------------------------ */

static char *kind_name(const profdb_hpctk *db, uint32_t kind)
{
	static const struct {
		const char *stored, *model;
	} known[] = {
		{"SUMMARY", "summary"}, {"NODE", "node"}, {"RANK", "rank"}, {"THREAD", "thread"},
		{"GPUDEVICE", "gpu-device"}, {"GPUCONTEXT", "gpu-context"},
		{"GPUSTREAM", "gpu-stream"}, {"CORE", "core"},
	};
	profdb_str name = {"", 0};
	char buf[64];
	if (profdb_hpctk_has(db, PROFDB_HPCTK_META) == 1 && profdb_hpctk_id_kind_at(db, kind, &name) < 0)
		name.len = 0;
	const char *s = name.ptr;   /* NUL-terminated in meta.db */
	if (!name.len) {   /* no name, or an empty one: never an empty kind */
		snprintf(buf, sizeof buf, "kind-%" PRIu32, kind);
		return strdup(buf);
	}
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(s, known[i].stored) == 0)
			return strdup(known[i].model);
	char *r = strdup(s);
	for (char *p = r; p && *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

static int build_profiles(void *arg)
{
	hq *q = arg;
	uint32_t n = q->n_profiles;
	size_t cap = 0;
	uint64_t len = 0;
	int r = 0;
	q->name_at = malloc(((size_t)n + 1) * sizeof *q->name_at);
	q->is_summary = calloc(n ? n : 1, 1);
	q->summaries = malloc((n ? n : 1) * sizeof *q->summaries);
	if (!q->name_at || !q->is_summary || !q->summaries)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		profdb_hpctk_profile p;
		char name[1024];
		size_t k = 0;
		if ((r = profdb_hpctk_profile_at(q->db, i, &p)) < 0)
			return r;
		q->is_summary[i] = (unsigned char)(p.is_summary != 0);
		if (p.is_summary)
			q->summaries[q->n_summaries++] = i;
		if (p.is_summary)
			k = (size_t)snprintf(name, sizeof name, "summary");
		for (uint32_t j = 0; j < p.n_ids && k < sizeof name - 1; j++) {
			profdb_hpctk_id id;
			if ((r = profdb_hpctk_profile_id_at(q->db, i, j, &id)) < 0)
				return r;
			if (!q->kinds[id.kind] && !(q->kinds[id.kind] = kind_name(q->db, id.kind)))
				return profdb__fail(-ENOMEM, "out of memory");
			int w = snprintf(name + k, sizeof name - k, "%s%s %" PRIu32, k ? " " : "",
			                 q->kinds[id.kind], id.logical_id);
			k = w < 0 ? k : k + (size_t)w >= sizeof name ? sizeof name - 1 : k + (size_t)w;
		}
		if (k == 0)
			k = (size_t)snprintf(name, sizeof name, "profile %" PRIu32, i);
		if ((r = budget(q, len + k + 1, "the profile names")) < 0)
			return r;
		if ((r = profdb__grow((void **)&q->names, &cap, (size_t)(len + k + 1), 1)) < 0)
			return r;
		memcpy(q->names + len, name, k + 1);
		q->name_at[i] = len;
		len += k + 1;
	}
	return 0;
}

int profdb__hpctkq_profiles(const hq *q)
{
	hq *mut = (hq *)q;
	return profdb__once_run(&mut->prof_once, build_profiles, mut);
}

int64_t profdb__hpctkq_profile_count(const void *impl)
{
	return ((const hq *)impl)->n_profiles;
}

int profdb__hpctkq_profile_get(const void *impl, uint32_t index, profdb_profile *out)
{
	const hq *q = impl;
	profdb_hpctk_profile p;
	int r;
	if ((r = profdb__hpctkq_profiles(q)) < 0 ||
	    (r = profdb_hpctk_profile_at(q->db, index, &p)) < 0)
		return r;
	memset(out, 0, sizeof *out);
	out->index = index;
	out->is_summary = q->is_summary[index];
	out->name = profdb__str(q->names + q->name_at[index]);
	out->n_identity = p.n_ids;
	return 0;
}

int profdb__hpctkq_profile_identity(const void *impl, uint32_t index, uint32_t i,
                                    profdb_str *kind, uint64_t *value)
{
	const hq *q = impl;
	profdb_hpctk_id id;
	int r;
	if ((r = profdb__hpctkq_profiles(q)) < 0 ||
	    (r = profdb_hpctk_profile_id_at(q->db, index, i, &id)) < 0)
		return r;
	*kind = profdb__str(q->kinds[id.kind]);
	*value = id.logical_id;
	return 0;
}

/* ---- contexts ------------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Without cct.db: every context id some profile stores values for. */
static int build_vctx(void *arg)
{
	hq *q = arg;
	uint64_t total = 0, k = 0;
	int r;
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_view index, values;
		if ((r = profdb__hpctkq_prof_plane(q, p, &index, &values)) < 0)
			return r;
		total += index.count;
	}
	if ((r = budget(q, total * 4, "the list of contexts with values")) < 0)
		return r;
	uint32_t *ids = malloc((total ? (size_t)total : 1) * sizeof *ids);
	if (!ids)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_view index, values;
		if ((r = profdb__hpctkq_prof_plane(q, p, &index, &values)) < 0) {
			free(ids);
			return r;
		}
		for (uint64_t i = 0; i < index.count && k < total; i++)
			ids[k++] = (uint32_t)profdb_view_key(&index, i);
	}
	qsort(ids, k, sizeof *ids, cmp_u32);
	uint64_t u = 0;
	for (uint64_t i = 0; i < k; i++)
		if (u == 0 || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	q->vctx = ids;
	q->n_vctx = u;
	return 0;
}

/* 1 if some profile stores a value for context @p id, 0 if none, < 0. */
static int has_values(const hq *q, uint32_t id)
{
	int r;
	if (!q->has[PROFDB_HPCTK_PROFILE])
		return 0;
	if (!q->has[PROFDB_HPCTK_CCT]) {
		hq *mut = (hq *)q;
		if ((r = profdb__once_run(&mut->vctx_once, build_vctx, mut)) < 0)
			return r;
		profdb_view v = profdb__hpctk_u32_table(q->vctx, q->n_vctx, sizeof *q->vctx);
		uint64_t i;
		return profdb_view_find(&v, id, &i);
	}
	/* cct.db holds every profile but the summaries. Its context table's
	 * count answers for them: naming the thousands of elided contexts of
	 * a frame does not check each one's block, which reading its values
	 * does. */
	profdb_view index, values;
	uint64_t i, declared;
	if ((r = profdb__hpctkq_cct_declared(q, id, &declared)) < 0)
		return r;
	if (declared)
		return 1;
	if ((r = profdb__hpctkq_profiles(q)) < 0)
		return r;
	for (uint32_t s = 0; s < q->n_summaries; s++) {
		if ((r = profdb__hpctkq_prof_plane(q, q->summaries[s], &index, &values)) < 0)
			return r;
		if (profdb_view_find(&index, id, &i) == 1)
			return 1;
	}
	return 0;
}

int64_t profdb__hpctkq_context_count(const void *impl)
{
	const hq *q = impl;
	if (!q->has[PROFDB_HPCTK_META])
		return 0;
	return profdb_hpctk_context_count(q->db);
}

int profdb__hpctkq_context_root(const void *impl, uint32_t *id)
{
	const hq *q = impl;
	int r;
	if (!q->has[PROFDB_HPCTK_META])
		return profdb__fail(-ENOENT, "the database has no meta.db, so no context tree");
	if ((r = ensure_ctx(q)) < 0)
		return r;
	if (q->first_root == PROFDB_NONE)
		return profdb__fail(-ENOENT, "the context tree is empty");
	*id = q->first_root;
	return 0;
}

static profdb_str entry_name(const profdb_hpctk_context *c)
{
	if (c->entry_name.len)
		return c->entry_name;
	switch (c->entry_point) {
	case PROFDB_ENTRY_MAIN_THREAD: return profdb__str("main thread");
	case PROFDB_ENTRY_APP_THREAD: return profdb__str("application thread");
	default: return profdb__str("unknown entry");
	}
}

static int fill_context(const hq *q, const hq_ctx *e, profdb_context *out)
{
	profdb_hpctk_context c;
	profdb_hpctk_function fn;
	profdb_str s;
	int copied;
	int r = profdb_hpctk_context_get(q->db, e->id, &c);
	if (r < 0)
		return r;
	profdb__blank_context(out, e->id);
	out->parent = e->parent;
	out->first_child = e->first_child;
	out->next_sibling = e->next_sibling;
	out->depth = e->depth;
	out->in_tree = 1;
	if (e->parent == PROFDB_NONE)
		out->relation = PROFDB_RELATION_NONE;
	else
		switch (c.relation) {
		case PROFDB_REL_LEXICAL: out->relation = PROFDB_RELATION_LEXICAL; break;
		case PROFDB_REL_CALL: out->relation = PROFDB_RELATION_CALL; break;
		case PROFDB_REL_INLINED_CALL: out->relation = PROFDB_RELATION_INLINED; break;
		default: out->relation = PROFDB_RELATION_UNKNOWN;
		}
	switch (c.lexical_type) {
	case PROFDB_LEX_FUNCTION: out->type = PROFDB_CTX_FUNCTION; break;
	case PROFDB_LEX_LOOP: out->type = PROFDB_CTX_LOOP; break;
	case PROFDB_LEX_LINE: out->type = PROFDB_CTX_LINE; break;
	case PROFDB_LEX_INSTRUCTION: out->type = PROFDB_CTX_INSTRUCTION; break;
	case PROFDB_LEX_ENTRY:
	case PROFDB_LEX_ROOT: out->type = PROFDB_CTX_ROOT; break;
	default: out->type = PROFDB_CTX_UNKNOWN;
	}
	if (c.lexical_type == PROFDB_LEX_ENTRY) {
		out->function = entry_name(&c);
		return 0;
	}
	int have_fn = c.function != PROFDB_NONE &&
	              profdb_hpctk_function_at(q->db, c.function, &fn) == 0;
	if (have_fn)
		out->function = fn.name;
	/* The context's own source line and address; a function context that
	 * has none gets its function's definition and entry point. */
	if (c.file != PROFDB_NONE && profdb_hpctk_file_at(q->db, c.file, &s, &copied) == 0) {
		out->file = s;
		out->line = c.line;
	} else if (have_fn && fn.file != PROFDB_NONE &&
	           profdb_hpctk_file_at(q->db, fn.file, &s, &copied) == 0) {
		out->file = s;
		out->line = fn.line;
	}
	if (c.module != PROFDB_NONE && profdb_hpctk_module_at(q->db, c.module, &s) == 0) {
		out->module = s;
		out->offset = c.offset;
		out->has_offset = 1;
	} else if (have_fn && fn.module != PROFDB_NONE &&
	           profdb_hpctk_module_at(q->db, fn.module, &s) == 0) {
		out->module = s;
		out->offset = fn.offset;
		out->has_offset = 1;
	}
	return 0;
}

/* Where context @p id comes from: *e its tree node, or NULL for the
 * implicit root (id 0) and for an id hpcprof elided from the tree but
 * that carries values; -ENOENT for neither. */
static int locate(const hq *q, uint32_t id, const hq_ctx **e)
{
	int r;
	*e = NULL;
	if (q->has[PROFDB_HPCTK_META]) {
		if ((r = ensure_ctx(q)) < 0)
			return r;
		if ((*e = find_ctx(q, id)) != NULL)
			return 0;
	}
	if (id == 0)
		return 0;
	if ((r = has_values(q, id)) < 0)
		return r;
	if (r == 0)
		return profdb__fail(-ENOENT, "context %" PRIu32 " is neither a node of the tree nor "
		                    "carries values", id);
	return 0;
}

int profdb__hpctkq_context_known(const void *impl, uint32_t id)
{
	const hq_ctx *e;
	return locate(impl, id, &e);
}

int profdb__hpctkq_context_get(const void *impl, uint32_t id, profdb_context *out)
{
	const hq *q = impl;
	const hq_ctx *e;
	int r = locate(q, id, &e);
	if (r < 0)
		return r;
	if (e)
		return fill_context(q, e, out);
	if (id == 0) {
		/* The implicit global context: the whole program. */
		profdb__blank_context(out, 0);
		out->type = PROFDB_CTX_ROOT;
		return 0;
	}
	/* Elided by hpcprof: values, no tree node. */
	profdb__blank_context(out, id);
	out->relation = PROFDB_RELATION_UNKNOWN;
	out->type = PROFDB_CTX_UNKNOWN;
	return 0;
}
