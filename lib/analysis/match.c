/* Matching two databases (profdb/analysis.h; doc/model.md "Matching two
 * databases"): the top-down views of both, built by profdb_tree_new() for
 * the metrics matched by name, then paired node by node from the roots
 * down. Children of a matched pair are keyed by what they stand for in
 * source terms (function name and file, loop or line position, module and
 * offset), never by ids, which differ between two runs and two formats.
 * Both child lists are sorted by key and merged, so the k-th child with a
 * key in A meets the k-th with that key in B; view order (heaviest first)
 * breaks the tie among equal keys, which keeps the result deterministic. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tree-internal.h"

struct profdb_match {
	profdb_tree *t[2];
	size_t nm;
	uint32_t *metric[2];        /* nm metric ids per side */
	profdb_pair *rows;
	size_t n_rows;
	uint32_t *row_of[2];        /* node id -> row, per side */
	profdb_match_counts counts;
};

/* ---- metrics --------------------------------------------------------------- */

static int str_is(profdb_str s, const char *c)
{
	return s.len == strlen(c) && (s.len == 0 || memcmp(s.ptr, c, s.len) == 0);
}

static int find_metric(const profdb *db, const char *key, char side, profdb_metric *out)
{
	int r = profdb_metric_find(db, key, out);
	if (r == -ENOENT)
		return profdb__fail(-ENOENT, "profdb_match_new: database %c has no metric named or "
		                    "numbered '%s'", side, key);
	return r;
}

/* Can a metric take part in the default set? Stored values of a scope that
 * combine across profiles. */
static int eligible(const profdb_metric *m)
{
	return m->has_data && m->combine != PROFDB_COMBINE_NONE &&
	       (m->kind == PROFDB_METRIC_INCLUSIVE || m->kind == PROFDB_METRIC_EXCLUSIVE ||
	        m->kind == PROFDB_METRIC_POINT);
}

/* The name of @p m as a C string, in @p buf (NULL when it does not fit or
 * holds a NUL byte: such a name cannot be looked up). */
static const char *name_of(const profdb_metric *m, char *buf, size_t cap)
{
	if (m->name.len >= cap || memchr(m->name.ptr, 0, m->name.len))
		return NULL;
	memcpy(buf, m->name.ptr, m->name.len);
	buf[m->name.len] = 0;
	return buf;
}

/* Every metric name of A, in A's order, that B has under exactly that name,
 * both sides eligible; one per name (profdb_metric_find's choice). */
static int default_metrics(profdb_match *m, const profdb *a, const profdb *b)
{
	int64_t n = profdb_metric_count(a);
	if (n < 0)
		return (int)n;
	m->metric[0] = malloc(((size_t)n + 1) * sizeof(uint32_t));
	m->metric[1] = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!m->metric[0] || !m->metric[1])
		return profdb__fail(-ENOMEM, "profdb_match_new: out of memory");
	char buf[1024];
	for (int64_t i = 0; i < n; i++) {
		profdb_metric ma, fa, fb;
		int r = profdb_metric_at(a, (uint32_t)i, &ma);
		if (r < 0)
			return r;
		const char *name = name_of(&ma, buf, sizeof buf);
		if (!eligible(&ma) || !name || profdb_metric_find(a, name, &fa) < 0 || !eligible(&fa))
			continue;
		if ((r = profdb_metric_find(b, name, &fb)) == -ENOENT || (r == 0 && !eligible(&fb)))
			continue;
		if (r < 0)
			return r;
		if (!str_is(fb.name, name))
			continue;   /* found case-insensitively: not the same name */
		int dup = 0;
		for (size_t k = 0; k < m->nm && !dup; k++)
			dup = m->metric[0][k] == fa.id;
		if (dup)
			continue;
		m->metric[0][m->nm] = fa.id;
		m->metric[1][m->nm++] = fb.id;
	}
	if (m->nm == 0)
		return profdb__fail(-ENOENT, "profdb_match_new: the two databases have no metric "
		                    "name in common (give the pairs in the options)");
	return 0;
}

static int pick_metrics(profdb_match *m, const profdb *a, const profdb *b,
                        const profdb_match_options *o)
{
	if (!o->metrics_a)
		return default_metrics(m, a, b);
	m->metric[0] = malloc(o->n_metrics * sizeof(uint32_t));
	m->metric[1] = malloc(o->n_metrics * sizeof(uint32_t));
	if (!m->metric[0] || !m->metric[1])
		return profdb__fail(-ENOMEM, "profdb_match_new: out of memory");
	char buf[1024];
	for (size_t k = 0; k < o->n_metrics; k++) {
		profdb_metric ma, mb;
		if (!o->metrics_a[k] || (o->metrics_b && !o->metrics_b[k]))
			return profdb__fail(-EINVAL, "profdb_match_new: metric %zu is NULL", k);
		int r = find_metric(a, o->metrics_a[k], 'A', &ma);
		if (r < 0)
			return r;
		const char *kb = o->metrics_b ? o->metrics_b[k] : name_of(&ma, buf, sizeof buf);
		if (!kb)
			return profdb__fail(-ENOENT, "profdb_match_new: metric '%s' of A has a name B "
			                    "cannot be asked for", o->metrics_a[k]);
		if ((r = find_metric(b, kb, 'B', &mb)) < 0)
			return r;
		m->metric[0][k] = ma.id;
		m->metric[1][k] = mb.id;
	}
	m->nm = o->n_metrics;
	return 0;
}

/* ---- keys ------------------------------------------------------------------ */

/* What a node stands for, in source terms. */
typedef struct mkey {
	profdb_str name, file, module;
	uint64_t num;               /* line, or offset for code known by address */
	uint32_t node;              /* its id: view order among equal keys */
	uint8_t cls;                /* profdb_node_type */
} mkey;

static profdb_str base_name(profdb_str s)
{
	size_t i = s.len;
	while (i > 0 && s.ptr[i - 1] != '/')
		i--;
	profdb_str r = {s.ptr + i, s.len - i};
	return r;
}

static uint64_t offset_of(const profdb *db, uint32_t ctx)
{
	profdb_context c;
	if (ctx == PROFDB_NONE || profdb_context_get(db, ctx, &c) < 0 || !c.has_offset)
		return 0;
	return c.offset;
}

static mkey key_of(const profdb *db, const profdb_tree *t, uint32_t id)
{
	const tnode *n = &t->nodes[id];
	profdb_str name = profdb__tstr(t, n->name), file = profdb__tstr(t, n->file),
	           module = profdb__tstr(t, n->module);
	mkey k;
	memset(&k, 0, sizeof k);
	k.name = k.file = k.module = profdb__str(NULL);
	k.node = id;
	k.cls = n->type;
	switch ((profdb_node_type)n->type) {
	case PROFDB_NODE_ROOT:
		k.name = name;
		break;
	case PROFDB_NODE_FUNCTION:
		if (name.len) {   /* one function whatever its recursion level */
			k.name = profdb_function_fold(db, name);
			k.file = base_name(file);
		} else {            /* an anonymous function: its address */
			k.module = base_name(module);
			k.num = offset_of(db, n->context);
		}
		break;
	case PROFDB_NODE_LOOP:
	case PROFDB_NODE_LINE:
		k.file = base_name(file);
		k.num = n->line;
		break;
	case PROFDB_NODE_INSTRUCTION:
		k.module = base_name(module);
		k.num = offset_of(db, n->context);
		break;
	case PROFDB_NODE_OTHER:
		break;
	default:
		k.name = name;
		k.file = base_name(file);
		k.module = base_name(module);
		k.num = n->line;
		break;
	}
	return k;
}

static int cmp_str(profdb_str a, profdb_str b)
{
	size_t m = a.len < b.len ? a.len : b.len;
	int c = m ? memcmp(a.ptr, b.ptr, m) : 0;
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int cmp_key(const mkey *a, const mkey *b)
{
	int c = (a->cls > b->cls) - (a->cls < b->cls);
	if (!c)
		c = cmp_str(a->name, b->name);
	if (!c)
		c = cmp_str(a->file, b->file);
	if (!c)
		c = cmp_str(a->module, b->module);
	if (!c)
		c = (a->num > b->num) - (a->num < b->num);
	return c;
}

static int cmp_mkey(const void *pa, const void *pb)
{
	const mkey *a = pa, *b = pb;
	int c = cmp_key(a, b);
	return c ? c : (a->node > b->node) - (a->node < b->node);
}

/* ---- pairing --------------------------------------------------------------- */

typedef struct mwork {
	const profdb *db[2];
	profdb_match *m;
	uint32_t *partner[2];       /* node -> the other side's node, PROFDB_NONE */
	mkey *keys[2];              /* scratch: one child list per side */
} mwork;

static size_t children(const mwork *w, int s, uint32_t id)
{
	const profdb_tree *t = w->m->t[s];
	size_t n = 0;
	for (uint32_t c = t->nodes[id].first_child; c != PROFDB_NONE; c = t->nodes[c].next_sibling)
		w->keys[s][n++] = key_of(w->db[s], t, c);
	qsort(w->keys[s], n, sizeof(mkey), cmp_mkey);
	return n;
}

/* Pair the children of A's node @p a and B's node @p b by key. */
static void pair_children(mwork *w, uint32_t a, uint32_t b)
{
	size_t na = children(w, 0, a), nb = children(w, 1, b), i = 0, j = 0;
	while (i < na && j < nb) {
		int c = cmp_key(&w->keys[0][i], &w->keys[1][j]);
		if (c == 0) {
			w->partner[0][w->keys[0][i].node] = w->keys[1][j].node;
			w->partner[1][w->keys[1][j].node] = w->keys[0][i].node;
			i++;
			j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
}

/* ---- rows ------------------------------------------------------------------ */

typedef struct mframe {
	uint32_t a, b, parent;
} mframe;

/* Rows in pre-order of the union: below a row, A's children in view order
 * (with their partners), then B's children that have none, in view order. */
static void emit_rows(mwork *w, mframe *stack, mframe *tmp)
{
	profdb_match *m = w->m;
	const profdb_tree *ta = m->t[0], *tb = m->t[1];
	size_t sp = 0;
	stack[sp++] = (mframe){0, 0, PROFDB_NONE};
	while (sp) {
		mframe f = stack[--sp];
		uint32_t row = (uint32_t)m->n_rows++;
		profdb_pair *p = &m->rows[row];
		memset(p, 0, sizeof *p);   /* the reserved words too: profdb_match_at copies it */
		p->a = f.a;
		p->b = f.b;
		p->parent = f.parent;
		p->depth = f.parent == PROFDB_NONE ? 0 : m->rows[f.parent].depth + 1;
		if (f.a != PROFDB_NONE)
			m->row_of[0][f.a] = row;
		if (f.b != PROFDB_NONE)
			m->row_of[1][f.b] = row;
		if (f.a != PROFDB_NONE && f.b != PROFDB_NONE)
			m->counts.matched++;
		else if (f.a != PROFDB_NONE)
			m->counts.only_a++;
		else
			m->counts.only_b++;
		size_t nk = 0;
		if (f.a != PROFDB_NONE)
			for (uint32_t c = ta->nodes[f.a].first_child; c != PROFDB_NONE;
			     c = ta->nodes[c].next_sibling)
				tmp[nk++] = (mframe){c, w->partner[0][c], row};
		if (f.b != PROFDB_NONE)
			for (uint32_t c = tb->nodes[f.b].first_child; c != PROFDB_NONE;
			     c = tb->nodes[c].next_sibling)
				if (f.a == PROFDB_NONE || w->partner[1][c] == PROFDB_NONE)
					tmp[nk++] = (mframe){PROFDB_NONE, c, row};
		while (nk)
			stack[sp++] = tmp[--nk];
	}
	m->counts.rows = m->n_rows;
}

/* Bytes per node of either view while matching: partner, row_of, a key,
 * two frames and (at most) one row. */
#define MATCH_NODE_BYTES (2 * sizeof(uint32_t) + sizeof(mkey) + 2 * sizeof(mframe) + \
                          sizeof(profdb_pair))

static uint64_t limit_of(const profdb *db)
{
	return db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
}

static int correspond(profdb_match *m, const profdb *a, const profdb *b)
{
	size_t n[2] = {m->t[0]->n, m->t[1]->n}, total = n[0] + n[1];
	uint64_t limit = limit_of(a) < limit_of(b) ? limit_of(a) : limit_of(b);
	if ((uint64_t)total * MATCH_NODE_BYTES > limit)
		return profdb__fail(-EFBIG, "profdb_match_new: matching %zu and %zu nodes would "
		                    "exceed profdb_options.max_memory (%" PRIu64 " bytes)", n[0], n[1],
		                    limit);
	mwork w = {{a, b}, m, {NULL, NULL}, {NULL, NULL}};
	mframe *stack = malloc(total * sizeof *stack), *tmp = malloc(total * sizeof *tmp);
	m->rows = malloc(total * sizeof *m->rows);
	int r = 0;
	for (int s = 0; s < 2; s++) {
		w.partner[s] = malloc(n[s] * sizeof(uint32_t));
		w.keys[s] = malloc(n[s] * sizeof(mkey));
		m->row_of[s] = malloc(n[s] * sizeof(uint32_t));
		if (!w.partner[s] || !w.keys[s] || !m->row_of[s])
			r = -ENOMEM;
		for (size_t i = 0; r == 0 && i < n[s]; i++)
			w.partner[s][i] = PROFDB_NONE;
	}
	if (r < 0 || !stack || !tmp || !m->rows) {
		r = profdb__fail(-ENOMEM, "profdb_match_new: out of memory (%zu nodes)", total);
	} else {
		w.partner[0][0] = 0;
		w.partner[1][0] = 0;
		/* Pre-order ids: a node's partner is known before its children. */
		for (uint32_t i = 0; i < n[0]; i++)
			if (w.partner[0][i] != PROFDB_NONE)
				pair_children(&w, i, w.partner[0][i]);
		emit_rows(&w, stack, tmp);
	}
	for (int s = 0; s < 2; s++) {
		free(w.partner[s]);
		free(w.keys[s]);
	}
	free(stack);
	free(tmp);
	return r;
}

/* ---- the API --------------------------------------------------------------- */

static int copy_options(const profdb_match_options *in, profdb_match_options *o)
{
	profdb_match_options def = PROFDB_MATCH_OPTIONS_INIT;
	*o = def;
	int r = profdb__options_take(o, sizeof *o, in, "profdb_match_new",
	                             "PROFDB_MATCH_OPTIONS_INIT");
	if (r < 0 || !in)
		return r;
	if ((o->metrics_a && (o->n_metrics == 0 || o->n_metrics > 4096)) ||
	    (!o->metrics_a && (o->metrics_b || o->n_metrics)))
		return profdb__fail(-EINVAL, "profdb_match_new: bad options (metrics_a, metrics_b "
		                    "and n_metrics disagree)");
	return 0;
}

static int build_view(profdb_match *m, int s, const profdb *db, const profdb_match_options *o)
{
	profdb_tree_options to = PROFDB_TREE_OPTIONS_INIT;
	to.kind = PROFDB_TREE_TOP_DOWN;
	to.metrics = m->metric[s];
	to.n_metrics = m->nm;
	to.profiles = s ? o->profiles_b : o->profiles_a;
	to.n_profiles = s ? o->n_profiles_b : o->n_profiles_a;
	to.cutoff = o->cutoff;
	return profdb_tree_new(&m->t[s], db, &to);
}

int profdb_match_new(profdb_match **ret, const profdb *a, const profdb *b,
                     const profdb_match_options *opts)
{
	if (ret)
		*ret = NULL;
	if (!ret || !a || !b)
		return profdb__fail(-EINVAL, "profdb_match_new: NULL argument");
	profdb_match_options o;
	int r = copy_options(opts, &o);
	if (r < 0)
		return r;
	profdb_match *m = calloc(1, sizeof *m);
	if (!m)
		return profdb__fail(-ENOMEM, "profdb_match_new: out of memory");
	if ((r = pick_metrics(m, a, b, &o)) == 0 && (r = build_view(m, 0, a, &o)) == 0 &&
	    (r = build_view(m, 1, b, &o)) == 0)
		r = correspond(m, a, b);
	if (r < 0) {
		profdb_match_free(m);
		return r;
	}
	m->counts.metrics = m->nm;
	*ret = m;
	return 0;
}

int64_t profdb_match_count(const profdb_match *m)
{
	if (!m)
		return profdb__fail(-EINVAL, "profdb_match_count: NULL match");
	return (int64_t)m->n_rows;
}

int profdb_match_at(const profdb_match *m, uint64_t row, profdb_pair *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!m || !out)
		return profdb__fail(-EINVAL, "profdb_match_at: NULL argument");
	if (row >= m->n_rows)
		return profdb__fail(-ENOENT, "profdb_match_at: no row %" PRIu64 " (%zu rows)", row,
		                    m->n_rows);
	*out = m->rows[row];
	return 0;
}

int profdb_match_values(const profdb_match *m, uint64_t row, size_t k, profdb_pair_values *out)
{
	if (!m || !out)
		return profdb__fail(-EINVAL, "profdb_match_values: NULL argument");
	if (row >= m->n_rows || k >= m->nm)
		return profdb__fail(-ENOENT, "profdb_match_values: no row %" PRIu64 " or metric number "
		                    "%zu (%zu rows, %zu metrics)", row, k, m->n_rows, m->nm);
	const profdb_pair *p = &m->rows[row];
	memset(out, 0, sizeof *out);
	if (p->a != PROFDB_NONE)
		profdb_tree_values(m->t[0], p->a, k, &out->inclusive_a, &out->exclusive_a);
	if (p->b != PROFDB_NONE)
		profdb_tree_values(m->t[1], p->b, k, &out->inclusive_b, &out->exclusive_b);
	return 0;
}

int profdb_match_metric(const profdb_match *m, size_t k, uint32_t *id_a, uint32_t *id_b)
{
	if (!m)
		return profdb__fail(-EINVAL, "profdb_match_metric: NULL match");
	if (k >= m->nm)
		return profdb__fail(-ENOENT, "profdb_match_metric: no metric number %zu (%zu matched)",
		                    k, m->nm);
	if (id_a)
		*id_a = m->metric[0][k];
	if (id_b)
		*id_b = m->metric[1][k];
	return 0;
}

const profdb_tree *profdb_match_tree(const profdb_match *m, int side)
{
	return m && (side == 0 || side == 1) ? m->t[side] : NULL;
}

int profdb_match_row(const profdb_match *m, int side, uint32_t node, uint64_t *row)
{
	if (!m || !row || (side != 0 && side != 1))
		return profdb__fail(-EINVAL, "profdb_match_row: NULL argument or bad side");
	if (node >= m->t[side]->n)
		return profdb__fail(-ENOENT, "profdb_match_row: no node %" PRIu32 " in view %c (%zu "
		                    "nodes)", node, side ? 'B' : 'A', m->t[side]->n);
	*row = m->row_of[side][node];
	return 0;
}

int profdb_match_counts_get(const profdb_match *m, profdb_match_counts *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!m || !out)
		return profdb__fail(-EINVAL, "profdb_match_counts_get: NULL argument");
	*out = m->counts;
	return 0;
}

void profdb_match_free(profdb_match *m)
{
	if (!m)
		return;
	for (int s = 0; s < 2; s++) {
		profdb_tree_free(m->t[s]);
		free(m->metric[s]);
		free(m->row_of[s]);
	}
	free(m->rows);
	free(m);
}

/* ---- call-path keys ------------------------------------------------------------ */

/* Appends @p n bytes at *len (only what fits in @p cap is written). */
static void put_bytes(unsigned char *buf, size_t cap, uint64_t *len, const void *p, size_t n)
{
	if (*len < cap)
		memcpy(buf + *len, p, cap - *len < n ? (size_t)(cap - *len) : n);
	*len += n;
}

static void put_be(unsigned char *buf, size_t cap, uint64_t *len, uint64_t v, int bytes)
{
	unsigned char b[8];
	for (int i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
	put_bytes(buf, cap, len, b, (size_t)bytes);
}

static void put_str(unsigned char *buf, size_t cap, uint64_t *len, profdb_str s)
{
	put_be(buf, cap, len, s.len, 4);
	put_bytes(buf, cap, len, s.ptr, s.len);
}

/* One level of the key: what pair_children() compares, and which of the
 * siblings with that key this is (the k-th pairs with the k-th). */
static void put_level(const profdb *db, const profdb_tree *t, uint32_t id, unsigned char *buf,
                      size_t cap, uint64_t *len)
{
	mkey k = key_of(db, t, id);
	uint32_t nth = 0;
	for (uint32_t c = t->nodes[t->nodes[id].parent].first_child; c != id && c != PROFDB_NONE;
	     c = t->nodes[c].next_sibling) {
		mkey o = key_of(db, t, c);
		nth += cmp_key(&o, &k) == 0;
	}
	unsigned char cls = k.cls;
	put_bytes(buf, cap, len, &cls, 1);
	put_str(buf, cap, len, k.name);
	put_str(buf, cap, len, k.file);
	put_str(buf, cap, len, k.module);
	put_be(buf, cap, len, k.num, 8);
	put_be(buf, cap, len, nth, 4);
}

int64_t profdb_tree_path_key(const profdb *db, const profdb_tree *t, uint32_t node, void *buf,
                             size_t cap)
{
	if (!db || !t || (!buf && cap))
		return profdb__fail(-EINVAL, "profdb_tree_path_key: NULL argument");
	if (node >= t->n)
		return profdb__fail(-ENOENT, "profdb_tree_path_key: no node %" PRIu32 " (%zu nodes)",
		                    node, t->n);
	/* The path from the root: walk up, then write the levels down. */
	uint32_t depth = t->nodes[node].depth, stack_small[64], *path = stack_small;
	if (depth > 64 && !(path = malloc(depth * sizeof *path)))
		return profdb__fail(-ENOMEM, "profdb_tree_path_key: out of memory (depth %" PRIu32
		                    ")", depth);
	uint32_t n = 0;
	for (uint32_t id = node; id != 0 && n < depth; id = t->nodes[id].parent)
		path[n++] = id;
	uint64_t len = 0;
	while (n)
		put_level(db, t, path[--n], buf, cap, &len);
	if (path != stack_small)
		free(path);
	return (int64_t)len;
}
