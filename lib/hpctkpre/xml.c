/* experiment.xml of a pre-release database, streamed through expat: the
 * metric tables, the name tables and the calling-context tree go into the
 * handle's tables; no document tree is built. Strings are copied once into
 * one arena (attribute values are decoded by expat, so they cannot point
 * into the input). While parsing, string fields hold arena offsets; they
 * become pointers when the arena stops moving (fixup()).
 *
 * Untrusted XML: the expat wrapper (lib/core/xml-internal.h) refuses entity
 * declarations (no expansion attacks) and never loads external entities;
 * everything kept, the wrapper's stack and text included, is bounded by
 * profdb_options.max_memory. A DOCTYPE is accepted: HPCToolkit writes one
 * with an internal DTD subset. */
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"
#include "../core/xml-internal.h"
#include "../core/search-internal.h"

enum { EL_OTHER, EL_METRIC, EL_DATA, EL_NODE, EL_SKIP };

typedef struct frame {
	uint8_t kind;
	uint32_t node;       /* EL_NODE: node index */
} frame;

typedef struct parser {
	profdb_hpctkpre *db;
	profdb__xml x;        /* parser, element stack (frames), errors */
	uint64_t budget;      /* bytes we may still allocate */
	char *arena;
	size_t arena_len, arena_cap;
	size_t cap_metrics, cap_nodes, cap_svals, cap_tab[PROFDB_HPCTKPRE_NTABLES];
	int seen_root, seen_data;
	uint32_t cur_metric;  /* inside <Metric>, else PROFDB_NONE */
	uint32_t last_root;   /* last top-level node, PROFDB_NONE */
	uint64_t unresolved, skipped;
	uint64_t title_off, version_off;
} parser;

#define OFF(x) ((const char *)(uintptr_t)(x))   /* an arena offset in a string field */

#define stop(p, ...) profdb__xml_stop(&(p)->x, __VA_ARGS__)

/* Grow an array within the memory budget. */
static int grow(parser *p, void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / elem || (uint64_t)(n - *cap) * elem > p->budget) {
		stop(p, -EFBIG, "experiment.xml needs more than profdb_options.max_memory");
		return -1;
	}
	void *q = profdb__realloc_big(*arr, *cap * elem, n * elem);
	if (!q) {
		stop(p, -ENOMEM, "out of memory");
		return -1;
	}
	p->budget -= (uint64_t)(n - *cap) * elem;
	*arr = q;
	*cap = n;
	return 0;
}

#define attr profdb__xml_attr

/* Copy @p s into the arena; returns its offset (0 = the empty string). */
static uint64_t keep(parser *p, const char *s)
{
	if (!s || !*s)
		return 0;
	size_t n = strlen(s) + 1;
	if (grow(p, (void **)&p->arena, &p->arena_cap, p->arena_len + n, 1) < 0)
		return 0;
	memcpy(p->arena + p->arena_len, s, n);
	p->arena_len += n;
	return p->arena_len - n;
}

/* The common spellings of an unsigned number, read without strtoull: up
 * to 18 decimal digits with no leading zero (which strtoull's base 0 would
 * read as octal), or 0x and up to 16 hex digits. 1 and *out, or 0: ask
 * strto(u)ll, which gives the same value for these. */
static int quick_number(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < 18; i++) {
			unsigned char c = (unsigned char)s[i];
			unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			           : c >= 'a' && c <= 'f' ? c - 'a' + 10u
			           : c >= 'A' && c <= 'F' ? c - 'A' + 10u : 16u;
			if (d == 16)
				break;
			v = v << 4 | d;
		}
		if (i == 2 || s[i])
			return 0;
	} else {
		if (s[0] == '0')
			return s[1] == 0 ? (*out = 0, 1) : 0;
		for (; i < 18 && s[i] >= '0' && s[i] <= '9'; i++)
			v = v * 10 + (uint64_t)(s[i] - '0');
		if (i == 0 || s[i])
			return 0;
	}
	*out = v;
	return 1;
}

/* Signed integer value @p s of attribute @p name: 1 and *out, or -1
 * (malformed or out of [lo, hi]: stopped). */
static int num_value(parser *p, const char *s, const char *el, const char *name,
                     int64_t lo, int64_t hi, int64_t *out)
{
	uint64_t u;
	long long v;
	int neg = s[0] == '-', bad = 0;
	if (quick_number(s + neg, &u) && u <= INT64_MAX) {
		v = neg ? -(long long)u : (long long)u;
	} else {
		char *end;
		errno = 0;
		v = strtoll(s, &end, 0);
		bad = end == s || *end || errno;
	}
	if (bad || v < lo || v > hi) {
		char what[64];
		snprintf(what, sizeof what, "<%.20s %.20s=", el, name);
		stop(p, -EBADMSG, "%s\"%.60s\" is not an integer in range", what, s);
		return -1;
	}
	*out = v;
	return 1;
}

/* A signed integer attribute; 0 absent, 1 present, -1 malformed (stopped). */
static int num(parser *p, const char **atts, const char *el, const char *name,
               int64_t lo, int64_t hi, int64_t *out)
{
	const char *s = attr(atts, name);
	return s ? num_value(p, s, el, name, lo, hi, out) : 0;
}

/* An unsigned value; 1 and *out, or -1 (stopped). */
static int unum_value(parser *p, const char *s, const char *el, const char *name,
                      uint64_t *out)
{
	if (*s == '-') {
		stop(p, -EBADMSG, "negative %s value \"%.60s\"", name, s);
		return -1;
	}
	if (quick_number(s, out))
		return 1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (end == s || *end || errno) {
		char what[64];
		snprintf(what, sizeof what, "<%.20s %.20s=", el, name);
		stop(p, -EBADMSG, "%s\"%.60s\" is not an unsigned integer", what, s);
		return -1;
	}
	*out = v;
	return 1;
}

static void add_name(parser *p, int t, const char **atts, const char *el)
{
	profdb_hpctkpre *db = p->db;
	int64_t id;
	int r = num(p, atts, el, "i", INT64_MIN, INT64_MAX, &id);
	if (r <= 0) {
		if (r == 0)
			stop(p, -EBADMSG, "<%s> without an i attribute", el);
		return;
	}
	if (grow(p, (void **)&db->tab[t], &p->cap_tab[t], db->n_tab[t] + 1, sizeof(pre_name)) < 0)
		return;
	pre_name *e = &db->tab[t][db->n_tab[t]++];
	e->id = id;
	e->name = OFF(keep(p, attr(atts, "n")));
}

static int cmp_name(const void *a, const void *b)
{
	int64_t x = ((const pre_name *)a)->id, y = ((const pre_name *)b)->id;
	return (x > y) - (x < y);
}

/* Index of the table entry with id @p id, or PROFDB_NONE (with a warning
 * the first time: a reference the tables do not resolve). */
typedef struct name_key {
	const pre_name *tab;
	int64_t id;
} name_key;

static int name_before(const void *ctx, size_t i)
{
	const name_key *k = ctx;
	return k->tab[i].id < k->id;
}

static uint32_t resolve(parser *p, int t, int64_t id, const char *el, const char *name)
{
	profdb_hpctkpre *db = p->db;
	name_key key = {db->tab[t], id};
	size_t lo = profdb__lower_bound(0, db->n_tab[t], &key, name_before);
	if (lo < db->n_tab[t] && db->tab[t][lo].id == id)
		return (uint32_t)lo;
	if (p->unresolved++ == 0)
		profdb__warn(&db->opts, "%s: line %lu: <%s %s=\"%" PRId64 "\"> names no entry of its "
		             "table; the reference reads as unknown", db->in[PRE_META].name,
		             profdb__xml_line(&p->x), el, name, id);
	return PROFDB_NONE;
}

static void start_metric(parser *p, const char **atts, const char *el, int is_summary)
{
	profdb_hpctkpre *db = p->db;
	int64_t id, partner = -1, show = 1, db_id = -1;
	int r = num(p, atts, el, "i", 0, UINT16_MAX, &id);
	if (r <= 0) {
		if (r == 0)
			stop(p, -EBADMSG, "<%s> without an i attribute", el);
		return;
	}
	if (num(p, atts, el, "partner", -1, UINT16_MAX, &partner) < 0 ||
	    num(p, atts, el, "show", INT64_MIN, INT64_MAX, &show) < 0 ||
	    (!is_summary && num(p, atts, el, "db-id", 0, UINT16_MAX, &db_id) < 0))
		return;
	if (grow(p, (void **)&db->metrics, &p->cap_metrics, db->n_metrics + 1,
	         sizeof *db->metrics) < 0)
		return;
	pre_metric *m = &db->metrics[db->n_metrics];
	memset(m, 0, sizeof *m);
	m->id = (uint32_t)id;
	m->is_summary = is_summary;
	m->name = OFF(keep(p, attr(atts, "n")));
	m->partner = partner < 0 ? PROFDB_NONE : (uint32_t)partner;
	m->show = show != 0;
	m->db_id = db_id;
	const char *t = attr(atts, "t");
	const char *n = attr(atts, "n");
	size_t nl = n ? strlen(n) : 0;
	if (t)
		m->inclusive = strcmp(t, "inclusive") == 0 ? 1 : strcmp(t, "exclusive") == 0 ? 0 : -1;
	else if (nl >= 4 && strcmp(n + nl - 4, " (I)") == 0)
		m->inclusive = 1;   /* <MetricDB> carries only the name */
	else if (nl >= 4 && strcmp(n + nl - 4, " (E)") == 0)
		m->inclusive = 0;
	else
		m->inclusive = -1;
	p->cur_metric = db->n_metrics++;
}

/* The attributes of a tree node, in one pass (a deep tree has millions). */
enum { NA_I, NA_N, NA_F, NA_LM, NA_L, NA_IT, NA_V, NA_COUNT };

static void node_attrs(const char **atts, const char *val[NA_COUNT])
{
	for (int k = 0; k < NA_COUNT; k++)
		val[k] = NULL;
	for (size_t i = 0; atts && atts[i]; i += 2) {
		const char *a = atts[i];
		int k = a[0] == 'i' ? (a[1] == 0 ? NA_I : strcmp(a + 1, "t") == 0 ? NA_IT : -1)
		      : a[0] == 'l' ? (a[1] == 0 ? NA_L : strcmp(a + 1, "m") == 0 ? NA_LM : -1)
		      : a[1] != 0 ? -1
		      : a[0] == 'n' ? NA_N : a[0] == 'f' ? NA_F : a[0] == 'v' ? NA_V : -1;
		if (k >= 0)
			val[k] = atts[i + 1];
	}
}

static void start_node(parser *p, const char **atts, const char *el, uint8_t type,
                       uint8_t inlined)
{
	profdb_hpctkpre *db = p->db;
	int64_t id, proc = 0, file = 0, module = 0, line = 0, it = -1;
	uint64_t v = 0;
	const char *a[NA_COUNT];
	node_attrs(atts, a);
	if (!a[NA_I]) {
		stop(p, -EBADMSG, "<%s> without an i attribute", el);
		return;
	}
	if (num_value(p, a[NA_I], el, "i", -(int64_t)INT32_MAX, INT32_MAX, &id) < 0 ||
	    (a[NA_N] && num_value(p, a[NA_N], el, "n", INT64_MIN, INT64_MAX, &proc) < 0) ||
	    (a[NA_F] && num_value(p, a[NA_F], el, "f", INT64_MIN, INT64_MAX, &file) < 0) ||
	    (a[NA_LM] && num_value(p, a[NA_LM], el, "lm", INT64_MIN, INT64_MAX, &module) < 0) ||
	    (a[NA_L] && num_value(p, a[NA_L], el, "l", 0, UINT32_MAX, &line) < 0) ||
	    (a[NA_IT] && num_value(p, a[NA_IT], el, "it", INT64_MIN, INT64_MAX, &it) < 0) ||
	    (a[NA_V] && unum_value(p, a[NA_V], el, "v", &v) < 0))
		return;
	int has_proc = a[NA_N] != NULL, has_file = a[NA_F] != NULL, has_module = a[NA_LM] != NULL;
	int has_v = a[NA_V] != NULL;
	if (type != PROFDB_HPCTKPRE_CTX_PROC)
		has_proc = 0;   /* <S s=...> etc. name source scopes, not procedures */
	if (grow(p, (void **)&db->nodes, &p->cap_nodes, (size_t)db->n_nodes + 1,
	         sizeof *db->nodes) < 0)
		return;
	uint32_t idx = db->n_nodes;
	pre_node *n = &db->nodes[idx];
	memset(n, 0, sizeof *n);
	n->id = id;
	n->type = type;
	n->first_child = n->next_sibling = n->last_child = PROFDB_NONE;
	n->parent = PROFDB_NONE;
	/* The parent is the nearest enclosing node element. */
	for (size_t k = p->x.depth; k-- > 0;) {
		const frame *fk = profdb__xml_frame(&p->x, k);
		if (fk->kind == EL_NODE) {
			n->parent = fk->node;
			break;
		} else if (fk->kind == EL_DATA) {
			break;
		}
	}
	n->proc = n->module = n->file = PROFDB_NONE;
	if (n->parent != PROFDB_NONE) {
		pre_node *par = &db->nodes[n->parent];
		n->depth = par->depth + 1;
		n->proc = par->proc;
		n->module = par->module;
		if (par->last_child == PROFDB_NONE)
			par->first_child = idx;
		else
			db->nodes[par->last_child].next_sibling = idx;
		par->last_child = idx;
	} else {
		/* roots are chained in document order too */
		if (p->last_root != PROFDB_NONE)
			db->nodes[p->last_root].next_sibling = idx;
		p->last_root = idx;
	}
	if (has_proc)
		n->proc = resolve(p, PROFDB_HPCTKPRE_PROCEDURES, proc, el, "n");
	if (has_module)
		n->module = resolve(p, PROFDB_HPCTKPRE_MODULES, module, el, "lm");
	if (has_file)
		n->file = resolve(p, PROFDB_HPCTKPRE_FILES, file, el, "f");
	n->line = (uint32_t)line;
	n->address = v;
	n->has_address = has_v > 0;
	n->trace_id = it;
	n->inlined = inlined;
	db->n_nodes++;
	frame *top = profdb__xml_top(&p->x);
	top->kind = EL_NODE;
	top->node = idx;
}

static int node_type(const char *el)
{
	if (strcmp(el, "PF") == 0 || strcmp(el, "Pr") == 0)
		return PROFDB_HPCTKPRE_CTX_PROC;
	if (strcmp(el, "C") == 0)
		return PROFDB_HPCTKPRE_CTX_CALL;
	if (strcmp(el, "L") == 0)
		return PROFDB_HPCTKPRE_CTX_LOOP;
	if (strcmp(el, "S") == 0)
		return PROFDB_HPCTKPRE_CTX_STMT;
	return -1;
}

/* <M n= v=/>: a summary value as experiment.xml prints it, for the
 * enclosing node (or, directly inside the data section, the experiment
 * root, id 1). The text is read in the C locale (see parse_values). */
static void add_value(parser *p, const char **atts, const frame *parent)
{
	profdb_hpctkpre *db = p->db;
	int64_t metric;
	int r = num(p, atts, "M", "n", 0, UINT16_MAX, &metric);
	const char *v = attr(atts, "v");
	if (r <= 0 || !v) {
		if (r == 0 || !v)
			stop(p, -EBADMSG, "<M> without %s attribute", r == 0 ? "an n" : "a v");
		return;
	}
	int64_t ctx = parent->kind == EL_NODE ? db->nodes[parent->node].id : 1;
	if (ctx < 0) {
		stop(p, -EBADMSG, "<M n=\"%" PRId64 "\"> inside a node with negative id %" PRId64,
		     metric, ctx);
		return;
	}
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !isfinite(d)) {
		stop(p, -EBADMSG, "<M n=\"%" PRId64 "\" v=\"%.40s\">: not a finite number", metric, v);
		return;
	}
	if (grow(p, (void **)&db->o.svals, &p->cap_svals, (size_t)db->o.n_svals + 1,
	         sizeof *db->o.svals) < 0)
		return;
	db->o.svals[db->o.n_svals++] = (pre_sval){(uint32_t)ctx, (uint32_t)metric, d};
}

static void on_start(profdb__xml *x, const char *el, const char **atts)
{
	parser *p = x->user;
	profdb_hpctkpre *db = p->db;
	frame *parent = profdb__xml_parent(x);
	frame *f = profdb__xml_top(x);
	f->kind = EL_OTHER;
	f->node = PROFDB_NONE;
	if (!parent) {
		if (strcmp(el, "HPCToolkitExperiment") != 0) {
			stop(p, -EPROTONOSUPPORT, "root element <%.40s> is not <HPCToolkitExperiment>: "
			     "not an experiment.xml", el);
			return;
		}
		p->seen_root = 1;
		p->version_off = keep(p, attr(atts, "version"));
		return;
	}
	if (parent->kind == EL_SKIP) {
		f->kind = EL_SKIP;
		return;
	}
	if ((parent->kind == EL_DATA || parent->kind == EL_NODE) && strcmp(el, "M") == 0) {
		add_value(p, atts, parent);
		f->kind = EL_SKIP;
		return;
	}
	if (parent->kind == EL_DATA || parent->kind == EL_NODE) {
		int t = node_type(el);
		if (t < 0) {
			/* Not a CCT element this reader knows (e.g. an alien <A>): say
			 * so and leave its subtree out. */
			if (p->skipped++ == 0)
				profdb__warn(&db->opts, "%s: line %lu: unknown calling-context element <%s> "
				             "left out with its subtree", db->in[PRE_META].name,
				             profdb__xml_line(&p->x), el);
			f->kind = EL_SKIP;
			return;
		}
		uint8_t inlined = 0;
		if (strcmp(el, "Pr") == 0) {
			const char *a = attr(atts, "a");
			inlined = a && strcmp(a, "1") == 0 ? 1 : 2;
		}
		start_node(p, atts, el, (uint8_t)t, inlined);
		return;
	}
	if (strcmp(el, "SecCallPathProfileData") == 0) {
		if (p->seen_data++) {
			stop(p, -EBADMSG, "a second <SecCallPathProfileData>");
			return;
		}
		f->kind = EL_DATA;
		/* The name tables are complete: sort them for the references. */
		for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++)
			if (db->n_tab[t])
				qsort(db->tab[t], db->n_tab[t], sizeof(pre_name), cmp_name);
	} else if (strcmp(el, "Header") == 0 && !p->title_off) {
		p->title_off = keep(p, attr(atts, "n"));
	} else if (strcmp(el, "Metric") == 0) {
		start_metric(p, atts, el, 1);
		f->kind = EL_METRIC;
	} else if (strcmp(el, "MetricDB") == 0) {
		start_metric(p, atts, el, 0);
		f->kind = EL_METRIC;
	} else if (strcmp(el, "MetricFormula") == 0 && parent->kind == EL_METRIC &&
	           p->cur_metric != PROFDB_NONE) {
		/* A metric of an old database has a combine and a finalize
		 * formula: the combine one names the rule across threads. */
		pre_metric *m = &db->metrics[p->cur_metric];
		if (strcmp(p->arena + (uintptr_t)m->formula_type, "combine") != 0) {
			m->formula = OFF(keep(p, attr(atts, "frm")));
			m->formula_type = OFF(keep(p, attr(atts, "t")));
		}
	} else if (strcmp(el, "TraceDB") == 0) {
		/* u: trace time units per second (old databases' traces) */
		int64_t u;
		if (num(p, atts, el, "u", 1, INT64_MAX, &u) == 1)
			db->o.trace_unit = u;
	} else if (strcmp(el, "NV") == 0 && p->cur_metric != PROFDB_NONE) {
		const char *n = attr(atts, "n");
		if (n && strcmp(n, "units") == 0)
			db->metrics[p->cur_metric].units = OFF(keep(p, attr(atts, "v")));
	} else if (p->seen_data && (strcmp(el, "Identifier") == 0 || strcmp(el, "LoadModule") == 0 ||
	                            strcmp(el, "File") == 0 || strcmp(el, "Procedure") == 0)) {
		/* The tree's references were resolved against the tables as they
		 * stood when it began. */
		stop(p, -EBADMSG, "<%.40s> after <SecCallPathProfileData>", el);
	} else if (strcmp(el, "Identifier") == 0) {
		add_name(p, PROFDB_HPCTKPRE_ID_KINDS, atts, el);
	} else if (strcmp(el, "LoadModule") == 0) {
		add_name(p, PROFDB_HPCTKPRE_MODULES, atts, el);
	} else if (strcmp(el, "File") == 0) {
		add_name(p, PROFDB_HPCTKPRE_FILES, atts, el);
	} else if (strcmp(el, "Procedure") == 0) {
		add_name(p, PROFDB_HPCTKPRE_PROCEDURES, atts, el);
	}
}

static void on_end(profdb__xml *x, const char *el)
{
	parser *p = x->user;
	(void)el;
	if (((const frame *)profdb__xml_top(x))->kind == EL_METRIC)
		p->cur_metric = PROFDB_NONE;
}

/* Arena offsets to pointers, now that the arena no longer moves. */
static void fixup(parser *p)
{
	profdb_hpctkpre *db = p->db;
	const char *a = p->arena;
#define FIX(field) ((field) = a + (uintptr_t)(field))
	for (uint32_t i = 0; i < db->n_metrics; i++) {
		pre_metric *m = &db->metrics[i];
		FIX(m->name);
		FIX(m->formula);
		FIX(m->formula_type);
		FIX(m->units);
	}
	for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++)
		for (uint32_t i = 0; i < db->n_tab[t]; i++)
			FIX(db->tab[t][i].name);
#undef FIX
	db->title = a + p->title_off;
	db->meta_version = a + p->version_off;
}

/* Parse with this thread in the C locale: strtod reads the <M v=>
 * numbers with a '.' whatever LC_NUMERIC the program chose. uselocale()
 * changes only the calling thread. */
static int parse_values(parser *p, const profdb__input *in)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return profdb__fail(-ENOMEM, "out of memory");
	locale_t old = uselocale(c);
	int r = profdb__xml_parse(&p->x, in->base, in->size);
	uselocale(old);
	freelocale(c);
	return r;
}

int profdb__hpctkpre_xml_parse(profdb_hpctkpre *db)
{
	const profdb__input *in = &db->in[PRE_META];
	parser p;
	memset(&p, 0, sizeof p);
	p.db = db;
	p.cur_metric = PROFDB_NONE;
	p.last_root = PROFDB_NONE;
	p.budget = db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	profdb__xml_init(&p.x, in->name, sizeof(frame), on_start, on_end, &p);
	p.x.budget = &p.budget;
	/* Offset 0 of the arena is the empty string. */
	if (grow(&p, (void **)&p.arena, &p.arena_cap, 1, 1) < 0)
		return p.x.err;
	p.arena[0] = 0;
	p.arena_len = 1;
	int r = parse_values(&p, in);
	if (r == 0 && !p.seen_root)
		r = profdb__fail(-EPROTONOSUPPORT, "%s: empty document, not an experiment.xml",
		                 in->name);
	db->arena = p.arena;   /* freed with the handle, also on failure */
	if (r < 0)
		return r;
	if (!p.seen_data)
		for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++)
			if (db->n_tab[t])
				qsort(db->tab[t], db->n_tab[t], sizeof(pre_name), cmp_name);
	fixup(&p);
	if (p.unresolved > 1)
		profdb__warn(&db->opts, "%s: %" PRIu64 " references in all named no table entry",
		             in->name, p.unresolved);
	if (p.skipped > 1)
		profdb__warn(&db->opts, "%s: %" PRIu64 " unknown calling-context elements in all "
		             "were left out", in->name, p.skipped);
	/* Old databases say 2.x (2.0 to 2.2 seen), pre-release ones 4.0. */
	if (db->meta_version[0] != (db->old ? '2' : '4'))
		profdb__warn(&db->opts, "%s: <HPCToolkitExperiment version=\"%s\">: %s databases "
		             "come with version %s", in->name, db->meta_version,
		             db->old ? "experiment.xml" : "pre-release", db->old ? "2.x" : "4.0");
	return 0;
}
