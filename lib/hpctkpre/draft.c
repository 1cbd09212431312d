/* The draft HPCTOOLKIT_expmt meta.db (doc/FORMATS.md): decoded at open into
 * the same tables experiment.xml fills. No real file is known; the layout
 * is the pre-release document's, with the draft code's differences from
 * ../shared/notes: a section count of 8 (an identifier-table section after
 * General) or 7 (the document's: the identifier table follows the title
 * inside General), big-endian integers, packed variable-length records and
 * an optional PROFDBmn footer (the draft code never wrote it).
 *
 * Strings stay in the mapping (checked NUL-terminated inside the Strings
 * section); the tables hold pointers to them. The tree walk has a visit
 * budget of (Context section size / 22) nodes, so a children pointer back
 * at an ancestor fails instead of looping. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"

typedef struct sec {
	uint64_t off, size;
} sec;

enum { S_GENERAL, S_IDTABLE, S_METRIC, S_CTREE, S_STR, S_MODULES, S_FILES, S_FUNCS, S_N };

typedef struct draft {
	profdb_hpctkpre *db;
	const profdb__input *in;
	sec s[S_N];
	int has_idtable;
	uint32_t n_arr[3];          /* modules, files, functions */
	uint16_t sz_arr[3];
	uint64_t budget;
} draft;

static int str_at(draft *d, uint64_t ptr, const char *what, const char **out)
{
	if (ptr == 0) {
		*out = "";
		return 0;
	}
	return profdb__string(d->in, d->s[S_STR].off, d->s[S_STR].off + d->s[S_STR].size, ptr, what,
	                      out);
}

static int alloc_within(draft *d, void **p, uint64_t n, size_t elem)
{
	uint64_t bytes;
	if (__builtin_mul_overflow(n, (uint64_t)elem, &bytes) || bytes > d->budget)
		return profdb__fail(-EFBIG, "%s: %" PRIu64 " entries exceed profdb_options.max_memory",
		                    d->in->name, n);
	d->budget -= bytes;
	*p = calloc(n ? n : 1, elem);
	return *p ? 0 : profdb__fail(-ENOMEM, "out of memory");
}

/* Identifier kinds: u16 count, then NUL-terminated names, within [at, hi). */
static int id_table(draft *d, uint64_t at, uint64_t hi)
{
	profdb_hpctkpre *db = d->db;
	const unsigned char *p;
	int r = profdb__span(d->in, at, hi, at, PRE_IDKINDS_HEAD, "identifier table", &p);
	if (r < 0)
		return r;
	uint16_t n = pre_idkinds_count(p);
	if ((r = alloc_within(d, (void **)&db->tab[PROFDB_HPCTKPRE_ID_KINDS], n, sizeof(pre_name))) < 0)
		return r;
	at += PRE_IDKINDS_HEAD;
	for (uint16_t k = 0; k < n; k++) {
		const char *s;
		if ((r = profdb__string(d->in, at, hi, at, "identifier kind name", &s)) < 0)
			return r;
		db->tab[PROFDB_HPCTKPRE_ID_KINDS][k] = (pre_name){k, s};
		db->n_tab[PROFDB_HPCTKPRE_ID_KINDS]++;
		at += strlen(s) + 1;
	}
	return 0;
}

static int general(draft *d)
{
	const sec *g = &d->s[S_GENERAL];
	const char *title;
	int r = profdb__string(d->in, g->off, g->off + g->size, g->off, "database title", &title);
	if (r < 0)
		return r;
	d->db->title = title;
	if (d->has_idtable)
		return id_table(d, d->s[S_IDTABLE].off, d->s[S_IDTABLE].off + d->s[S_IDTABLE].size);
	return id_table(d, g->off + strlen(title) + 1, g->off + g->size);
}

/* Binaries, files, functions: u32 count, u16 record size, records. */
static int array_head(draft *d, int which, int sidx, unsigned min, const char *what)
{
	const sec *s = &d->s[sidx];
	const unsigned char *p;
	uint64_t bytes;
	if (s->size == 0)
		return 0;
	int r = profdb__span(d->in, s->off, s->off + s->size, s->off, PRE_ARRAY_HEAD, what, &p);
	if (r < 0)
		return r;
	d->n_arr[which] = pre_array_count(p);
	d->sz_arr[which] = pre_array_stride(p);
	if (d->sz_arr[which] < min)
		return profdb__fail(-EBADMSG, "%s: %s record size %u at 0x%" PRIx64 " is below %u",
		                    d->in->name, what, d->sz_arr[which], s->off + 4, min);
	if ((r = profdb__mul(d->in, d->n_arr[which], d->sz_arr[which], what, &bytes)) < 0)
		return r;
	return profdb__span(d->in, s->off, s->off + s->size, s->off + PRE_ARRAY_HEAD, bytes, what,
	                    NULL);
}

/* Record @p k of array @p which (checked by array_head). */
static const unsigned char *record(const draft *d, int which, int sidx, uint64_t k)
{
	return d->in->base + d->s[sidx].off + PRE_ARRAY_HEAD + k * d->sz_arr[which];
}

/* Pointer to record k of array @p which -> k; 0 -> PROFDB_NONE. */
static int ref(draft *d, int which, int sidx, uint64_t ptr, const char *what, uint32_t *out)
{
	*out = PROFDB_NONE;
	if (ptr == 0)
		return 0;
	uint64_t base = d->s[sidx].off + PRE_ARRAY_HEAD, delta = ptr - base;
	if (ptr < base || d->sz_arr[which] == 0 || delta % d->sz_arr[which] ||
	    delta / d->sz_arr[which] >= d->n_arr[which])
		return profdb__fail(-EBADMSG, "%s: %s 0x%" PRIx64 " is not a record of the array at 0x%"
		                    PRIx64, d->in->name, what, ptr, base);
	*out = (uint32_t)(delta / d->sz_arr[which]);
	return 0;
}

static int names(draft *d)
{
	static const int sidx[3] = {S_MODULES, S_FILES, S_FUNCS};
	static const int tab[3] = {PROFDB_HPCTKPRE_MODULES, PROFDB_HPCTKPRE_FILES,
	                           PROFDB_HPCTKPRE_PROCEDURES};
	static const char *const what[3] = {"load module", "source file", "function"};
	profdb_hpctkpre *db = d->db;
	int r;
	for (int w = 0; w < 3; w++) {
		if ((r = array_head(d, w, sidx[w], w == 2 ? PRE_FUNC_MIN : PRE_SPEC_MIN, what[w])) < 0 ||
		    (r = alloc_within(d, (void **)&db->tab[tab[w]], d->n_arr[w], sizeof(pre_name))) < 0)
			return r;
		for (uint32_t k = 0; k < d->n_arr[w]; k++) {
			const char *s;
			if ((r = str_at(d, pre_spec_name(record(d, w, sidx[w], k)), what[w], &s)) < 0)
				return r;
			db->tab[tab[w]][k] = (pre_name){k, s};
			db->n_tab[tab[w]]++;
		}
	}
	return 0;
}

static int add_metric(draft *d, size_t *cap, const pre_metric *m)
{
	profdb_hpctkpre *db = d->db;
	if (sizeof *m > d->budget)
		return profdb__fail(-EFBIG, "%s: metrics exceed profdb_options.max_memory",
		                    d->in->name);
	int r = profdb__grow((void **)&db->metrics, cap, (size_t)db->n_metrics + 1, sizeof *m);
	if (r < 0)
		return r;
	d->budget -= sizeof *m;
	db->metrics[db->n_metrics++] = *m;
	return 0;
}

/* A packed record at *at: a fixed head of @p head bytes (*p), then a
 * NUL-terminated string (*str); *at moves past both. */
static int packed(const draft *d, uint64_t *at, uint64_t hi, unsigned head, const char *what,
                  const unsigned char **p, const char **str)
{
	int r = profdb__span(d->in, *at, hi, *at, head, what, p);
	if (r < 0 || (r = profdb__string(d->in, *at + head, hi, *at + head, what, str)) < 0)
		return r;
	*at += head + strlen(*str) + 1;
	return 0;
}

/* One propagation scope of metric @p name at *at: its raw id as a
 * thread-profile metric, each summary as a summary metric. */
static int scope(draft *d, uint64_t *at, uint64_t hi, const char *name, size_t *cap,
                 uint32_t *exec, uint32_t *func)
{
	const unsigned char *p;
	const char *scope_name, *formula;
	int r = packed(d, at, hi, PRE_SCOPE_HEAD, "propagation scope", &p, &scope_name);
	if (r < 0)
		return r;
	uint16_t nsum = pre_scope_num_summaries(p);
	pre_metric m = {.id = pre_scope_raw_id(p), .is_summary = 0, .name = name,
	                .inclusive = -1, .partner = PROFDB_NONE, .formula = "",
	                .formula_type = scope_name, .units = "", .combine = 0, .show = 1};
	if (strcmp(scope_name, "execution") == 0) {
		m.inclusive = 1;
		*exec = d->db->n_metrics;
	} else if (strcmp(scope_name, "function") == 0) {
		m.inclusive = 0;
		*func = d->db->n_metrics;
	}
	if ((r = add_metric(d, cap, &m)) < 0)
		return r;
	for (uint16_t q = 0; q < nsum; q++) {
		if ((r = packed(d, at, hi, PRE_SUMMARY_HEAD, "summary", &p, &formula)) < 0)
			return r;
		pre_metric sm = m;
		sm.id = pre_summary_id(p);
		sm.is_summary = 1;
		sm.formula = formula;
		sm.combine = pre_summary_combine(p);
		if ((r = add_metric(d, cap, &sm)) < 0)
			return r;
	}
	return 0;
}

/* Metric section: u32 count, then packed variable-length specifications. */
static int metrics(draft *d)
{
	const sec *s = &d->s[S_METRIC];
	uint64_t at = s->off, hi = s->off + s->size;
	const unsigned char *p;
	size_t cap = 0;
	int r;
	if (s->size == 0)
		return 0;
	if ((r = profdb__span(d->in, at, hi, at, PRE_METRICS_HEAD, "metric count", &p)) < 0)
		return r;
	uint32_t n = pre_metrics_count(p);
	at += PRE_METRICS_HEAD;
	for (uint32_t k = 0; k < n; k++) {
		const char *name;
		if ((r = packed(d, &at, hi, PRE_METRIC_HEAD, "metric", &p, &name)) < 0)
			return r;
		uint16_t nscopes = pre_metric_num_scopes(p);
		uint32_t exec = PROFDB_NONE, func = PROFDB_NONE;
		for (uint16_t j = 0; j < nscopes; j++)
			if ((r = scope(d, &at, hi, name, &cap, &exec, &func)) < 0)
				return r;
		if (exec != PROFDB_NONE && func != PROFDB_NONE) {
			d->db->metrics[exec].partner = d->db->metrics[func].id;
			d->db->metrics[func].partner = d->db->metrics[exec].id;
		}
	}
	return 0;
}

/* One context node at @p pos: fills @p n, its children range and size. */
static int node(draft *d, uint64_t pos, uint64_t end, pre_node *n, uint64_t *child_off,
                uint64_t *child_size, uint64_t *size)
{
	const profdb__input *in = d->in;
	const unsigned char *p;
	int r = profdb__span(in, pos, end, pos, PRE_NODE_SIZE, "context node", &p);
	if (r < 0)
		return r;
	n->id = pre_node_id(p);
	*child_off = pre_node_child_off(p);
	*child_size = pre_node_child_size(p);
	unsigned csz = pre_node_callee_size(p), lsz = pre_node_lexical_size(p);
	*size = PRE_NODE_SIZE + csz + lsz;
	if ((r = profdb__span(in, pos, end, pos, *size, "context node", &p)) < 0)
		return r;
	const unsigned char *c = p + PRE_NODE_SIZE, *l = p + PRE_NODE_SIZE + csz;
	if (csz) {
		unsigned need = (pre_callee_flags(c) & 1) ? PRE_CALLEE_LINE : PRE_CALLEE_HEAD;
		if (csz < need)
			return profdb__fail(-EBADMSG, "%s: context %" PRId64 " at 0x%" PRIx64 ": callee "
			                    "specification of %u bytes, its flags need %u", in->name, n->id,
			                    pos, csz, need);
		if ((pre_callee_flags(c) & 1) &&
		    ((r = ref(d, 1, S_FILES, pre_callee_file(c), "caller file", &n->call_file)) < 0))
			return r;
		n->call_line = (pre_callee_flags(c) & 1) ? pre_callee_line(c) : 0;
	}
	n->type = PROFDB_HPCTKPRE_CTX_PROC;
	if (!lsz)
		return 0;
	if (lsz < PRE_LEX_HEAD)
		return profdb__fail(-EBADMSG, "%s: context %" PRId64 " at 0x%" PRIx64 ": lexical "
		                    "specification of %u bytes is below 3", in->name, n->id, pos, lsz);
	uint8_t type = pre_lex_type(l);
	uint16_t flags = pre_lex_flags(l);
	unsigned need = PRE_LEX_HEAD + ((flags & 1) ? PRE_LEX_FUNCTION : 0) +
	                ((flags & 2) ? PRE_LEX_LINE : 0) + ((flags & 4) ? PRE_LEX_ADDRESS : 0);
	if (lsz < need)
		return profdb__fail(-EBADMSG, "%s: context %" PRId64 " at 0x%" PRIx64 ": lexical flags "
		                    "0x%x need %u bytes, the specification has %u", in->name, n->id,
		                    pos, flags, need, lsz);
	static const uint8_t types[4] = {PROFDB_HPCTKPRE_CTX_PROC, PROFDB_HPCTKPRE_CTX_LOOP,
	                                 PROFDB_HPCTKPRE_CTX_STMT, PROFDB_HPCTKPRE_CTX_POINT};
	if (type > 3)
		return profdb__fail(-EBADMSG, "%s: context %" PRId64 " at 0x%" PRIx64 ": lexical type %u "
		                    "is not 0-3", in->name, n->id, pos, type);
	n->type = types[type];
	l += PRE_LEX_HEAD;
	if (flags & 1) {
		uint32_t f;
		if ((r = ref(d, 2, S_FUNCS, pre_lex_function(l), "function", &f)) < 0)
			return r;
		n->proc = f;
		/* A function knows its binary: the context's module unless a point says. */
		if (f != PROFDB_NONE) {
			uint32_t m;
			if ((r = ref(d, 0, S_MODULES, pre_func_binary(record(d, 2, S_FUNCS, f)),
			             "function binary", &m)) < 0)
				return r;
			if (m != PROFDB_NONE)
				n->module = m;
		}
		l += PRE_LEX_FUNCTION;
	}
	if (flags & 2) {
		if ((r = ref(d, 1, S_FILES, pre_lex_file(l), "source file", &n->file)) < 0)
			return r;
		n->line = pre_lex_line(l);
		l += PRE_LEX_LINE;
	}
	if (flags & 4) {
		if ((r = ref(d, 0, S_MODULES, pre_lex_binary(l), "binary", &n->module)) < 0)
			return r;
		n->address = pre_lex_offset(l);
		n->has_address = 1;
	}
	return 0;
}

typedef struct walk_frame {
	uint64_t next, end;
	uint32_t parent, last;
} walk_frame;

static int tree(draft *d)
{
	profdb_hpctkpre *db = d->db;
	const sec *s = &d->s[S_CTREE];
	const profdb__input *in = d->in;
	const unsigned char *p;
	uint64_t lo = s->off, hi = s->off + s->size;
	if (s->size == 0)
		return 0;
	int r = profdb__span(in, lo, hi, lo, PRE_CONTEXTS_HEAD, "root block size", &p);
	if (r < 0)
		return r;
	uint64_t max_nodes = s->size / PRE_NODE_SIZE;
	walk_frame *stack = NULL;
	if ((r = alloc_within(d, (void **)&db->nodes, max_nodes, sizeof *db->nodes)) < 0 ||
	    (r = alloc_within(d, (void **)&stack, max_nodes + 1, sizeof *stack)) < 0)
		return r;
	uint64_t root_size = pre_contexts_root_size(p);
	if ((r = profdb__span(in, lo, hi, lo + 8, root_size, "root sibling block", NULL)) < 0)
		goto out;
	size_t depth = 1;
	stack[0] = (walk_frame){lo + PRE_CONTEXTS_HEAD, lo + PRE_CONTEXTS_HEAD + root_size, PROFDB_NONE, PROFDB_NONE};
	while (depth) {
		walk_frame *f = &stack[depth - 1];
		if (f->next == f->end) {
			depth--;
			continue;
		}
		if (db->n_nodes == max_nodes) {
			r = profdb__fail(-EBADMSG, "%s: the context tree at 0x%" PRIx64 " has more nodes "
			                 "than its %" PRIu64 " bytes can hold (a children pointer back at "
			                 "an ancestor?)", in->name, lo, s->size);
			goto out;
		}
		uint32_t idx = db->n_nodes;
		pre_node *n = &db->nodes[idx];
		uint64_t coff, csize, size;
		memset(n, 0, sizeof *n);
		n->parent = f->parent;
		n->first_child = n->next_sibling = n->last_child = PROFDB_NONE;
		n->trace_id = -1;
		n->proc = n->module = n->file = n->call_file = PROFDB_NONE;
		if (f->parent != PROFDB_NONE) {
			n->proc = db->nodes[f->parent].proc;
			n->module = db->nodes[f->parent].module;
			n->depth = db->nodes[f->parent].depth + 1;
		}
		if ((r = node(d, f->next, f->end, n, &coff, &csize, &size)) < 0)
			goto out;
		db->n_nodes++;
		if (f->last == PROFDB_NONE) {
			if (f->parent != PROFDB_NONE)
				db->nodes[f->parent].first_child = idx;
		} else {
			db->nodes[f->last].next_sibling = idx;
		}
		f->last = idx;
		f->next += size;
		if (csize) {
			if ((r = profdb__span(in, lo, hi, coff, csize, "children sibling block", NULL)) < 0)
				goto out;
			stack[depth++] = (walk_frame){coff, coff + csize, idx, PROFDB_NONE};
		}
	}
	r = 0;
out:
	free(stack);
	return r;
}

int profdb__hpctkpre_draft_parse(profdb_hpctkpre *db)
{
	draft d;
	memset(&d, 0, sizeof d);
	d.db = db;
	d.budget = db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	/* The decoded tables keep pointers to names (NUL-terminated, measured
	 * at every use): they must not see a mapped file rewritten in place
	 * later. A draft meta.db is small and decoded whole at open, so it is
	 * decoded from a private copy the handle keeps (db->arena, which only
	 * experiment.xml uses otherwise). */
	profdb__input copy = db->in[PRE_META];
	if (copy.size > d.budget)
		return profdb__fail(-EFBIG, "%s: %" PRIu64 " bytes exceed profdb_options.max_memory",
		                    copy.name, copy.size);
	if (!(db->arena = malloc(copy.size ? (size_t)copy.size : 1)))
		return profdb__fail(-ENOMEM, "%s: out of memory", copy.name);
	memcpy(db->arena, copy.base, (size_t)copy.size);
	copy.base = (const unsigned char *)db->arena;
	d.in = &copy;
	const profdb__input *in = d.in;
	const unsigned char *h;
	int r = profdb__range(in, 0, PRE_DRAFT_HDR_SIZE, "meta.db header", &h);
	if (r < 0)
		return r;
	uint8_t major = pre_draft_major(h), minor = pre_draft_minor(h);
	uint16_t nsec = pre_draft_num_sec(h);
	if (major != 4)
		return profdb__fail(-EPROTONOSUPPORT, "%s: draft meta.db version %u.%u at 0x10 is not "
		                    "supported (4.0 is)", in->name, major, minor);
	if (minor)
		profdb__warn(&db->opts, "%s: draft meta.db minor version 4.%u; reading the 4.0 layout",
		             in->name, minor);
	/* 8 sections: the draft code (with idtable); 7: the document. */
	if (nsec < 7)
		return profdb__fail(-EBADMSG, "%s: %u sections at 0x12; a draft meta.db has 7 (the "
		                    "document) or 8 (the draft code)", in->name, nsec);
	if (nsec > 8)
		profdb__warn(&db->opts, "%s: %u sections at 0x12, reading the first 8", in->name, nsec);
	d.has_idtable = nsec >= 8;
	static const int doc_order[7] = {S_GENERAL, S_METRIC, S_CTREE, S_STR, S_MODULES, S_FILES,
	                                 S_FUNCS};
	static const char *const what[S_N] = {"General section", "Identifier table section",
	                                      "Metric section", "Context Tree section",
	                                      "Strings section", "Binary section",
	                                      "Source File section", "Function section"};
	uint64_t header = PRE_DRAFT_HDR_SIZE + PRE_DRAFT_SEC_SIZE * (uint64_t)nsec;
	unsigned n = d.has_idtable ? 8 : 7;
	for (unsigned k = 0; k < n; k++) {
		int which = d.has_idtable ? (int)k : doc_order[k];
		if ((r = profdb__range(in, PRE_DRAFT_HDR_SIZE + PRE_DRAFT_SEC_SIZE * k,
		                       PRE_DRAFT_SEC_SIZE, "section table", &h)) < 0)
			return r;
		d.s[which].size = pre_draft_sec_size(h);
		d.s[which].off = pre_draft_sec_off(h);
		if ((r = profdb__hpctkpre_section(in, header, d.s[which].off, d.s[which].size,
		                                  what[which])) < 0)
			return r;
	}
	/* The PROFDBmn footer is optional (the draft code never wrote it); when
	 * present, sections must end before it. */
	int footer = in->size >= 8 && (memcmp(in->tail, "PROFDBmn", 8) == 0 ||
	                               memcmp(in->tail, "nmBDFORP", 8) == 0);
	for (int k = 0; footer && k < S_N; k++)
		if (d.s[k].size && d.s[k].off + d.s[k].size > in->size - 8)
			return profdb__fail(-EBADMSG, "%s: %s at 0x%" PRIx64 " overlaps the footer",
			                    in->name, what[k], d.s[k].off);
	if (d.s[S_GENERAL].size == 0)
		return profdb__fail(-EBADMSG, "%s: empty General section (no title)", in->name);
	if ((r = general(&d)) < 0 || (r = names(&d)) < 0 || (r = metrics(&d)) < 0 ||
	    (r = tree(&d)) < 0)
		return r;
	return 0;
}
