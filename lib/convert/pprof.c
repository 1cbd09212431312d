/* The pprof writer (doc/CONVERT.md, "pprof"): a gzip-compressed
 * profile.proto with a sample per context that has a self cost (one for
 * consecutive contexts of the same stack), its stack the frames above it
 * (cost-internal.h), a value per event. The
 * top-level message streams: sample_type, then samples interleaved with
 * the functions and locations they introduce, then the string table
 * (protobuf allows a repeated field to be split), so memory holds the
 * tables and one message, not the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/beside-internal.h"
#include "pb-internal.h"
#include "query/query-internal.h"

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6,
	P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13, P_DEFAULT_TYPE = 14,
};

/* A location: a function at a line, and its id. */
typedef struct loc {
	uint64_t fid, line;
	uint32_t id;
} loc;

/* Locations by (function, line): entry numbers of @c e behind a hash
 * index. */
typedef struct loctab {
	loc *e;
	size_t n, cap;
	profdb__hindex index;
} loctab;

typedef struct pp {
	profdb__pbs s;
	profdb__pbm m, sub;
	profdb__cv_names str, fns;
	/* function ids, from 1 in order of first use: fid_of[i] is the id of
	 * the identity that @c fns numbers i + 1 (an identity known to be
	 * unique takes an id without going through @c fns) */
	uint32_t n_fids, *fid_of;
	size_t cap_fid_of;
	/* the locations, ids from 1 in order of first use: tables of their
	 * own, as there are about as many as contexts (names would hash and
	 * copy 16-byte strings); the bulk path keeps in @c locs only those of
	 * functions not known to be named by one frame only, and the others
	 * of one function at a time in @c local */
	loctab locs, local;
	uint32_t n_locs;
	const profdb__cv_event *ev;
	size_t n_ev;
	int none_hidden;       /* no event is hidden: a sample's values are its costs */
	const profdb_convert_options *opts;
	unsigned spare;        /* threads it may start (profdb__spare_threads()) */
	profdb__cv_tree t;     /* the context tree, when the bulk path does not apply */
	uint32_t *loc_of;      /* per node: its location id, 0 until made */
	uint32_t *fn_of;       /* per frame node: its function id, 0 until made */
	uint64_t *stack, *values;
	size_t cap_stack;
	/* the sample written last, held while the next ones have its stack
	 * (held_depth 0: none; a sample's stack has its context at least) */
	uint64_t *held_stack, *held_values;
	size_t held_depth, held_nv, cap_held;
} pp;

/* The string table index of @p s ("" is index 0). */
static int sidx(pp *p, profdb_str s, uint64_t *out)
{
	int fresh;
	uint32_t id = 0;
	int r = s.len ? profdb__cv_intern(&p->str, s, &id, &fresh) : 0;
	*out = id;
	return r;
}

static int put_value_type(pp *p, uint32_t field, const profdb__cv_event *e)
{
	uint64_t type, unit;
	int r = sidx(p, (profdb_str){e->name, strlen(e->name)}, &type);
	if (r < 0 || (r = sidx(p, (profdb_str){e->unit, strlen(e->unit)}, &unit)) < 0)
		return r;
	profdb__pbm_reset(&p->m);
	profdb__pbm_uint(&p->m, 1, type);
	profdb__pbm_uint(&p->m, 2, unit);
	profdb__pbs_msg(&p->s, field, &p->m);
	return p->m.err;
}

/* The function id of the identity (module, file, full name), through
 * @c fns: *fresh when it is new. */
static int identity_key(pp *p, profdb_str name, profdb_str file, profdb_str module,
                        uint32_t *id, int *fresh)
{
	/* never cut: each part after its length, so no byte of a name can end
	 * it early */
	size_t n = 2 * sizeof(size_t) + name.len + file.len + module.len;
	char *key = malloc(n);
	if (!key)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (pprof functions)");
	char *at = key;
	memcpy(at, &name.len, sizeof name.len);
	at += sizeof name.len;
	memcpy(at, &file.len, sizeof file.len);
	at += sizeof file.len;
	memcpy(at, name.ptr, name.len);
	memcpy(at + name.len, file.ptr, file.len);
	memcpy(at + name.len + file.len, module.ptr, module.len);
	uint32_t i;
	int r = profdb__cv_intern(&p->fns, (profdb_str){key, n}, &i, fresh);
	free(key);
	if (r < 0)
		return r;
	if (*fresh) {
		if (profdb__grow((void **)&p->fid_of, &p->cap_fid_of, i, sizeof *p->fid_of) < 0 ||
		    p->n_fids >= UINT32_MAX - 1)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory (pprof functions)");
		p->fid_of[i - 1] = ++p->n_fids;
	}
	*id = p->fid_of[i - 1];
	return 0;
}

/* The function of a frame named @p name, @p file, @p module, at @p line:
 * its id, the message the first time; *cache keeps the id. @p unique: no
 * other frame has its identity (so it is new here). */
static int function_named(pp *p, profdb_str name, profdb_str file, profdb_str module,
                          uint64_t line, int unique, uint32_t *cache, uint64_t *fid)
{
	uint32_t id = 0;
	int fresh = 1, r = 0;
	*fid = 0;
	if (unique) {
		if (p->n_fids >= UINT32_MAX - 1)
			return profdb__fail(-ENOMEM, "profdb_convert: too many pprof functions");
		id = ++p->n_fids;
	} else if ((r = identity_key(p, name, file, module, &id, &fresh)) < 0) {
		return r;
	}
	*fid = id;
	*cache = id;
	if (!fresh)
		return 0;
	uint64_t sname, sfile;
	if ((r = sidx(p, name, &sname)) < 0 || (r = sidx(p, file, &sfile)) < 0)
		return r;
	profdb__pbm_reset(&p->m);
	profdb__pbm_uint(&p->m, 1, id);
	profdb__pbm_uint(&p->m, 2, sname);
	/* A name profdb makes up ("<gpu kernel>", "<unknown function> m+0x1")
	 * has no system name: pprof would take it for a C++ name whose
	 * "<...>" it drops, leaving "<unknown>"; with a system name that
	 * differs, it shows the name as it is. */
	if (!(name.len && name.ptr[0] == '<'))
		profdb__pbm_uint(&p->m, 3, sname);
	profdb__pbm_uint(&p->m, 4, sfile);
	profdb__pbm_uint(&p->m, 5, line);
	profdb__pbs_msg(&p->s, P_FUNCTION, &p->m);
	return p->m.err;
}

/* The function of frame context @p c (NULL: the node of contexts off the
 * tree), as function_named(). */
static int function_of(pp *p, const profdb_context *c, int unique, uint32_t *cache,
                       uint64_t *fid)
{
	if (*cache) {
		*fid = *cache;
		return 0;
	}
	char buf[256];
	profdb_str name, file, module;
	uint64_t line;
	profdb__cv_context_names(c, buf, sizeof buf, &name, &file, &module, &line);
	return function_named(p, name, file, module, line, unique, cache, fid);
}

/* The function of tree node @p f, a frame. */
static int node_function(pp *p, uint32_t f, uint64_t *fid)
{
	profdb_context c;
	uint32_t ctx = p->t.node[f].ctx;
	if (p->fn_of[f]) {
		*fid = p->fn_of[f];
		return 0;
	}
	int known = ctx != PROFDB_NONE && profdb_context_get(p->t.db, ctx, &c) >= 0;
	return function_of(p, known ? &c : NULL, 0, &p->fn_of[f], fid);
}

static uint64_t loc_hash(uint64_t fid, uint64_t line)
{
	return profdb__mix64(fid * UINT64_C(0x9e3779b97f4a7c15) ^ line);
}

static uint64_t hash_loc(const void *ctx, uint32_t e)
{
	const loctab *t = ctx;
	return loc_hash(t->e[e].fid, t->e[e].line);
}

static int eq_loc(const void *ctx, uint32_t e, const void *key)
{
	const loc *a = &((const loctab *)ctx)->e[e], *b = key;
	return a->fid == b->fid && a->line == b->line;
}

/* Empty @p t, keeping its index's size: each entry's slot cleared (every
 * entry goes, so a probe may pass slots already cleared). */
static void loctab_clear(loctab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t j = (size_t)loc_hash(t->e[i].fid, t->e[i].line) & t->index.mask;
		while (t->index.slot[j] != i + 1)
			j = (j + 1) & t->index.mask;
		t->index.slot[j] = 0;
	}
	t->n = 0;
	t->index.used = 0;
}

static void loctab_free(loctab *t)
{
	free(t->e);
	profdb__hindex_free(&t->index);
	memset(t, 0, sizeof *t);
}

/* The location of function @p fid at @p line in @p t: its id, the
 * message the first time. */
static int location(pp *p, loctab *t, uint64_t fid, uint64_t line, uint64_t *lid)
{
	loc key = {fid, line, 0};
	uint32_t *slot = profdb__hindex_slot(&t->index, loc_hash(fid, line), eq_loc, t, &key);
	if (*slot) {
		*lid = t->e[*slot - 1].id;
		return 0;
	}
	if (p->n_locs >= UINT32_MAX - 1 || t->n >= UINT32_MAX - 1 ||
	    profdb__grow((void **)&t->e, &t->cap, t->n + 1, sizeof *t->e))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (locations)");
	key.id = ++p->n_locs;
	t->e[t->n] = key;
	*slot = (uint32_t)++t->n;
	*lid = key.id;
	int r = profdb__hindex_added(&t->index, hash_loc, t);
	if (r < 0)
		return r;
	profdb__pbm_reset(&p->sub);
	profdb__pbm_uint(&p->sub, 1, fid);
	profdb__pbm_uint(&p->sub, 2, line);
	profdb__pbm_reset(&p->m);
	profdb__pbm_uint(&p->m, 1, key.id);
	profdb__pbm_bytes(&p->m, 4, p->sub.p, p->sub.len);
	profdb__pbs_msg(&p->s, P_LOCATION, &p->m);
	return p->m.err ? p->m.err : p->sub.err;
}

/* The location of node @p i: its frame's function at its line. */
static int location_of(pp *p, uint32_t i, uint64_t *lid)
{
	if (p->loc_of[i]) {
		*lid = p->loc_of[i];
		return 0;
	}
	uint64_t fid;
	int r = node_function(p, p->t.node[i].frame, &fid);
	if (r < 0 || (r = location(p, &p->locs, fid, profdb__cv_node_line(&p->t, i), lid)) < 0)
		return r;
	p->loc_of[i] = (uint32_t)*lid;
	return 0;
}

/* The sample's values from a context's self costs (one per event) into
 * p->values: 1 when one is not zero, 0 when all are (no sample), < 0. */
static int sample_values(pp *p, const uint64_t *self, size_t *nv)
{
	const profdb__cv_event *ev = p->ev;
	int any = 0;
	*nv = 0;
	for (size_t k = 0; k < p->n_ev; k++) {
		if (ev[k].hidden)
			continue;
		uint64_t v = self[k];
		if (v > (uint64_t)INT64_MAX)
			return profdb__fail(-ERANGE, "profdb_convert: metric '%s': the self cost %llu "
			                    "does not fit pprof's int64", ev[k].name,
			                    (unsigned long long)v);
		any |= v != 0;
		p->values[(*nv)++] = v;
	}
	return any;
}

/* The held sample's message, if any. */
static int flush_held(pp *p)
{
	if (!p->held_depth)
		return 0;
	profdb__pbs_packed2(&p->s, P_SAMPLE, p->held_stack, p->held_depth, p->held_values,
	                    p->held_nv, &p->m);
	p->held_depth = 0;
	return p->m.err;
}

/* Is p->stack (@p depth locations) the held sample's? */
static int same_stack(const pp *p, size_t depth)
{
	if (depth != p->held_depth)
		return 0;
	for (size_t i = 0; i < depth; i++)   /* (most stacks are short) */
		if (p->stack[i] != p->held_stack[i])
			return 0;
	return 1;
}

/* A sample: the locations of p->stack, the values (each at most
 * INT64_MAX). Consecutive samples of one stack (a line's instructions)
 * are one: added to the held sample while the sums stay within int64;
 * else the held one is written and this one held. */
static int put_stack(pp *p, size_t depth, const uint64_t *values, size_t nv)
{
	if (same_stack(p, depth)) {   /* (nv is the events', the same for all) */
		int fits = 1;
		for (size_t k = 0; k < nv; k++)
			fits &= values[k] <= (uint64_t)INT64_MAX - p->held_values[k];
		if (fits) {
			for (size_t k = 0; k < nv; k++)
				p->held_values[k] += values[k];
			return 0;
		}
	}
	int r = flush_held(p);
	if (r < 0)
		return r;
	if (profdb__grow((void **)&p->held_stack, &p->cap_held, depth, sizeof *p->held_stack) < 0)
		return -ENOMEM;
	memcpy(p->held_stack, p->stack, depth * sizeof *p->stack);
	memcpy(p->held_values, values, nv * sizeof *values);
	p->held_depth = depth;
	p->held_nv = nv;
	return 0;
}

/* A line's sample values (sample_values()), when no event is hidden: its
 * self costs as they are, tested for zeros and for int64 all at once. */
static int line_values(pp *p, const uint64_t *self, const uint64_t **values, size_t *nv)
{
	*values = p->values;
	if (!p->none_hidden)
		return sample_values(p, self, nv);
	uint64_t any = 0;
	for (size_t k = 0; k < p->n_ev; k++)
		any |= self[k];
	if (any > (uint64_t)INT64_MAX)   /* (the event's message) */
		return sample_values(p, self, nv);
	*values = self;
	*nv = p->n_ev;
	return any != 0;
}

/* The sample of node @p i, when it has a self cost. */
static int put_sample(pp *p, uint32_t i)
{
	const profdb__cv_tree *t = &p->t;
	size_t nv, depth = 0;
	int r = sample_values(p, t->self + (size_t)i * t->n_ev, &nv);
	if (r <= 0)
		return r;
	for (uint32_t j = i; j != PROFDB_NONE; j = t->node[t->node[j].frame].parent) {
		if (profdb__grow((void **)&p->stack, &p->cap_stack, depth + 1, sizeof *p->stack) < 0)
			return -ENOMEM;
		if ((r = location_of(p, j, &p->stack[depth])) < 0)
			return r;
		depth++;
	}
	return put_stack(p, depth, p->values, nv);
}

/* The string table (index 0 is ""), the comment, the default type. */
static int put_tail(pp *p, const profdb *db, const profdb__cv_event *first)
{
	char text[160];
	profdb_about ab;
	snprintf(text, sizeof text, "converted by profdb " PROFDB_VERSION_STRING " from %s; "
	         "floating-point metrics scaled and rounded (doc/CONVERT.md)",
	         profdb_get_about(db, &ab) >= 0 ? profdb_format_name(ab.format) : "unknown");
	uint64_t comment, def = 0;
	int r = sidx(p, (profdb_str){text, strlen(text)}, &comment);
	if (r < 0 || (first && (r = sidx(p, (profdb_str){first->name, strlen(first->name)}, &def)) < 0))
		return r;
	profdb__pbm_reset(&p->m);
	profdb__pbm_uint(&p->m, P_COMMENT, comment);
	if (def)
		profdb__pbm_uint(&p->m, P_DEFAULT_TYPE, def);
	profdb__pbm_bytes(&p->m, P_STRING, "", 0);
	profdb__pbs_raw(&p->s, &p->m);
	for (size_t i = 0; i < p->str.n; i++) {
		profdb__pbm_reset(&p->m);
		profdb__pbm_bytes(&p->m, P_STRING, p->str.str[i].ptr, p->str.str[i].len);
		profdb__pbs_raw(&p->s, &p->m);
	}
	return p->m.err;
}

/* period_type and period: hpcrun's sampling period of the first event. */
static int put_period(pp *p, const profdb *db, const profdb__cv_event *first)
{
	profdb_metric m;
	if (!first || profdb_metric_get(db, first->src, &m) < 0 || !m.period)
		return 0;
	int r = put_value_type(p, P_PERIOD_TYPE, first);
	profdb__pbm_reset(&p->m);
	profdb__pbm_uint(&p->m, P_PERIOD, m.period);
	profdb__pbs_raw(&p->s, &p->m);
	return r;
}

/* The samples from the context tree: every context with its costs in
 * memory (ctree.c). */
static int tree_samples(pp *p, const profdb *db, const uint32_t *profiles, size_t n_profiles)
{
	const profdb_convert_options *opts = p->opts;
	int r = profdb__cv_tree_build(&p->t, db, p->ev, p->n_ev, opts->progress,
	                              opts->progress_userdata);
	/* at most a location per node: sized once, never rehashed */
	if (r >= 0)
		r = profdb__hindex_init(&p->locs.index, p->t.n);
	if (r >= 0) {
		p->loc_of = calloc(p->t.n + 1, sizeof *p->loc_of);
		p->fn_of = calloc(p->t.n + 1, sizeof *p->fn_of);
		if (!p->loc_of || !p->fn_of)
			r = profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	}
	if (r >= 0)
		r = profdb__cv_tree_fill(&p->t, profiles, n_profiles);
	for (size_t i = 0; i < p->t.n && r >= 0; i++) {
		r = put_sample(p, (uint32_t)i);
		if (r >= 0 && opts->progress && !(i & 1023) &&
		    opts->progress(i, p->t.n, opts->progress_userdata))
			r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
		if (r >= 0 && (p->s.err || p->s.o->err))
			r = p->s.err ? p->s.err : p->s.o->err;
	}
	return r;
}

/* The bulk path (graph-lines.c): the same samples in the same order, a
 * function's lines at a time. Every frame of a call graph's tree is the
 * root or a function below it, so a line's stack is its location and the
 * root's. A frame whose function identity no other frame has keeps its
 * locations only while its lines are written, and takes its function id
 * without the function table. Which frames those are (the marks) takes a
 * walk over every function's names before any is known; it runs on a
 * thread of its own while the writer starts, and until it is done the
 * writer takes every frame as shared: ids come in order of first use
 * either way, so the output is the same and only the tables hold more.
 * Meanwhile the compressing thread waits and its chunks are compressed
 * by the writer, so the conversion uses no more threads than it may. */

/* Frames whose names the marks' walk hashes later: the names of a frame
 * are asked for when it comes and hashed this many frames after, so that
 * their cache misses overlap. */
#define KEY_LAG 8

/* A frame's names waiting to be hashed (kept: 0 for names of the moment,
 * in a buffer of the walk's, which are hashed at once). */
typedef struct lag_names {
	profdb_str name, file, module;
	int kept;
} lag_names;

/* The marks: per frame of the walk, whether another frame has its
 * identity hash (a collision only keeps more locations than needed). */
typedef struct marks {
	const profdb *db;
	const profdb__cv_event *ev;
	size_t n_ev;
	const uint32_t *profiles;
	size_t n_profiles;
	uint64_t *key;            /* per frame: its identity hash */
	lag_names lag[KEY_LAG];   /* the last frames', at index % KEY_LAG */
	size_t n;                 /* frames walked */
	unsigned char *shared;    /* n of them, once made */
	int r;                    /* 1 made, 0 no bulk path, < 0 failed: once taken */
	atomic_int quit;          /* the writer failed: stop */
	profdb__beside walk;      /* the walk (run_marks) */
	int started, taken;
} marks;

typedef struct bulk {
	pp *p;
	const profdb *db;
	const uint32_t *profiles;
	size_t n_profiles;
	profdb_context fn, root;  /* the frame being written, the root */
	uint32_t root_fid, fn_fid;
	uint64_t root_lid;
	uint64_t last_line, last_lid;   /* the location of the frame's previous line */
	int have_last;
	int fn_unique;            /* no other frame has fn's identity */
	loctab *fn_locs;
	marks m;
	unsigned polls;           /* lines written while the marks were awaited */
} bulk;

/* Ask for the first bytes of @p s ahead of their use: a Callgrind name
 * lies anywhere in the mapped text, a cache and TLB miss each, which the
 * decoding of the function's lines can hide before its first sample asks
 * for its name. */
static void prefetch_str(profdb_str s)
{
#if defined(__GNUC__) || defined(__clang__)
	for (size_t at = 0; at < s.len && at < 192; at += 64)
		__builtin_prefetch(s.ptr + at);
#else
	(void)s;
#endif
}

static uint64_t names_key(profdb_str name, profdb_str file, profdb_str module)
{
	uint64_t h = profdb__cv_hash(name.ptr, name.len, 0);
	h = profdb__cv_hash(file.ptr, file.len, h);
	return profdb__cv_hash(module.ptr, module.len, h);
}

static int key_frame(void *ud, const profdb_context *c, uint64_t index, uint64_t count)
{
	marks *m = ud;
	if (atomic_load_explicit(&m->quit, memory_order_relaxed))
		return profdb__fail(-ECANCELED, "profdb_convert: cancelled");
	if (!m->key && !(m->key = calloc(count + 1, sizeof *m->key)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	if (index >= count || !c)
		return profdb__fail(-EBADMSG, "profdb_convert: more frames than functions");
	char buf[256];
	profdb_str name, file, module;
	uint64_t line;
	profdb__cv_context_names(c, buf, sizeof buf, &name, &file, &module, &line);
	lag_names *l = &m->lag[index % KEY_LAG];
	if (index >= KEY_LAG && l->kept)   /* frame index - KEY_LAG's */
		m->key[index - KEY_LAG] = names_key(l->name, l->file, l->module);
	m->n = index + 1;
	if (name.ptr != buf) {
		*l = (lag_names){name, file, module, 1};
		prefetch_str(name);
		prefetch_str(file);
	} else {
		l->kept = 0;
		m->key[index] = names_key(name, file, module);
	}
	return 0;
}

/* shared[], once the hashes that key_frame left are taken: the (hash,
 * frame) pairs sorted by hash, so that each run of one hash names its
 * frames. */
static int mark_shared(marks *m)
{
	size_t n = m->n;
	for (size_t i = n > KEY_LAG ? n - KEY_LAG : 0; i < n; i++) {
		const lag_names *l = &m->lag[i % KEY_LAG];
		if (l->kept)
			m->key[i] = names_key(l->name, l->file, l->module);
	}
	profdb__sort_pair *pairs = malloc(n * sizeof *pairs + 1), *tmp = malloc(n * sizeof *tmp + 1);
	uint32_t *count = malloc(PROFDB_RADIX_SIZE * sizeof *count);
	m->shared = calloc(n + 1, 1);
	int r = 0;
	if (!pairs || !tmp || !count || !m->shared) {
		r = profdb__fail(-ENOMEM, "profdb_convert: out of memory");
		goto out;
	}
	if (n > UINT32_MAX) {   /* (more frames than a pair numbers: none is unique) */
		memset(m->shared, 1, n);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pairs[i] = (profdb__sort_pair){m->key[i], (uint32_t)i};
	profdb__radix_pairs(&pairs, &tmp, n, count);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && pairs[end].key == pairs[i].key; end++)
			;
		for (size_t j = i; end - i > 1 && j < end; j++)
			m->shared[pairs[j].at] = 1;
	}
out:
	free(pairs);
	free(tmp);
	free(count);
	return r;
}

/* The marks' walk: the frames alone (graph-lines.c), then shared[].
 * 1 made, 0 no bulk path, < 0 failed. */
static int run_marks(void *arg)
{
	marks *m = arg;
	int r = profdb__cv_graph_walk(m->db, m->ev, m->n_ev, m->profiles, m->n_profiles, key_frame,
	                              NULL, m, 0);
	if (r > 0 && (r = mark_shared(m)) >= 0)
		r = 1;
	free(m->key);
	m->key = NULL;
	return r;
}

/* Take the marks when their walk is done (@p wait: wait for it); the
 * compressing thread may start from then on. 0, or the walk's error. */
static int take_marks(bulk *b, int wait)
{
	marks *m = &b->m;
	if (!m->started || m->taken || (!wait && !profdb__beside_done(&m->walk)))
		return 0;
	if ((m->r = profdb__beside_join(&m->walk)) < 0)
		profdb__set_message(m->walk.msg);
	m->taken = 1;
	profdb__pbs_hold_thread(&b->p->s, 0);
	return m->r < 0 ? m->r : 0;
}

/* Start the marks' walk, on a thread of its own when the conversion has
 * one to spare (the compressor's, which waits until the marks are
 * taken), else here. */
static int start_marks(bulk *b)
{
	marks *m = &b->m;
	m->db = b->db;
	m->ev = b->p->ev;
	m->n_ev = b->p->n_ev;
	m->profiles = b->profiles;
	m->n_profiles = b->n_profiles;
	atomic_init(&m->quit, 0);
	m->started = 1;
	if (b->p->spare)
		profdb__pbs_hold_thread(&b->p->s, 1);
	profdb__beside_start(&m->walk, b->p->spare > 0, 1, run_marks, m);
	return take_marks(b, 0);
}

/* Stop the marks' walk after an error of the writer's (whose message
 * stays). */
static void stop_marks(bulk *b)
{
	marks *m = &b->m;
	if (m->started && !m->taken) {   /* (a walk run here is taken at once) */
		atomic_store_explicit(&m->quit, 1, memory_order_relaxed);
		profdb__beside_join(&m->walk);
	}
	m->taken = 1;
}

/* Is frame @p index known to be the only one of its identity? */
static int frame_unique(const bulk *b, uint64_t index)
{
	const marks *m = &b->m;
	return m->taken && m->r > 0 && index < m->n && !m->shared[index];
}

static int bulk_frame(void *ud, const profdb_context *c, uint64_t index, uint64_t count)
{
	bulk *b = ud;
	pp *p = b->p;
	const profdb_convert_options *opts = p->opts;
	if (opts->progress && !(index & 1023) && opts->progress(index, count, opts->progress_userdata))
		return profdb__fail(-ECANCELED, "profdb_convert: cancelled");
	if (!c)
		return profdb__fail(-EINVAL, "profdb: internal error: a frame without its context");
	int r;
	if (index == 0) {
		/* the tables grow with the frames taken as shared until the
		 * marks come */
		if ((r = profdb__hindex_init(&p->locs.index, 1024)) < 0 ||
		    (r = profdb__hindex_init(&p->local.index, 1024)) < 0 || (r = start_marks(b)) < 0)
			return r;
		b->root = *c;
	} else if ((r = take_marks(b, 0)) < 0) {
		return r;
	}
	b->fn = *c;
	b->fn_fid = 0;
	prefetch_str(c->function);
	prefetch_str(c->file);
	b->have_last = 0;
	b->fn_unique = frame_unique(b, index);
	loctab_clear(&p->local);
	b->fn_locs = b->fn_unique ? &p->local : &p->locs;
	return 0;
}

static int bulk_line(void *ud, uint32_t ctx, uint64_t line, const uint64_t *self)
{
	bulk *b = ud;
	pp *p = b->p;
	size_t nv;
	uint64_t fid;
	const uint64_t *values;
	int r;
	(void)ctx;
	/* a long function's lines ask too, for the compressing thread */
	if (!b->m.taken && !(++b->polls & 255) && (r = take_marks(b, 0)) < 0)
		return r;
	if ((r = line_values(p, self, &values, &nv)) <= 0)
		return r;
	if (profdb__grow((void **)&p->stack, &p->cap_stack, 2, sizeof *p->stack) < 0)
		return -ENOMEM;
	/* a function's lines come by line number: the rows of one line (its
	 * instructions, files) are one location, looked up once */
	if (b->have_last && line == b->last_line) {
		p->stack[0] = b->last_lid;
	} else {
		if ((r = function_of(p, &b->fn, b->fn_unique, &b->fn_fid, &fid)) < 0 ||
		    (r = location(p, b->fn_locs, fid, line, &p->stack[0])) < 0)
			return r;
		b->have_last = 1;
		b->last_line = line;
		b->last_lid = p->stack[0];
	}
	/* the root's location is kept whatever table it went to */
	if (!b->root_lid &&
	    ((r = function_of(p, &b->root, frame_unique(b, 0), &b->root_fid, &fid)) < 0 ||
	     (r = location(p, &p->locs, fid, b->root.line, &b->root_lid)) < 0))
		return r;
	p->stack[1] = b->root_lid;
	if ((r = put_stack(p, 2, values, nv)) >= 0 && (p->s.err || p->s.o->err))
		r = p->s.err ? p->s.err : p->s.o->err;
	return r;
}

/* The samples by the bulk path: 1, 0 when it does not apply, < 0. */
static int bulk_samples(pp *p, const profdb *db, const uint32_t *profiles, size_t n_profiles)
{
	bulk b;
	memset(&b, 0, sizeof b);
	b.p = p;
	b.db = db;
	b.profiles = profiles;
	b.n_profiles = n_profiles;
	int r = profdb__cv_graph_walk(db, p->ev, p->n_ev, profiles, n_profiles, bulk_frame,
	                              bulk_line, &b, p->spare ? p->spare - 1 : 0);   /* one: the compressor */
	if (r < 0) {
		stop_marks(&b);
	} else {
		int t = take_marks(&b, 1);   /* (a small profile's walk may end first) */
		r = t < 0 ? t : r;
	}
	free(b.m.shared);
	free(b.m.key);
	return r;
}

static int write_all(pp *p, const profdb *db, const uint32_t *profiles, size_t n_profiles)
{
	const profdb__cv_event *first = NULL;
	int r = 0;
	for (size_t k = 0; k < p->n_ev && r >= 0; k++)
		if (!p->ev[k].hidden) {
			first = first ? first : &p->ev[k];
			r = put_value_type(p, P_SAMPLE_TYPE, &p->ev[k]);
		}
	if (r >= 0)
		r = put_period(p, db, first);
	if (r >= 0)
		r = bulk_samples(p, db, profiles, n_profiles);
	if (r == 0)   /* no bulk path */
		r = tree_samples(p, db, profiles, n_profiles);
	if (r >= 0)
		r = flush_held(p);
	if (r >= 0)
		r = put_tail(p, db, first);
	return r;
}

int profdb__convert_pprof(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	if (opts->separate)
		return profdb__fail(-EINVAL, "profdb_convert: 'separate' is for Callgrind; pprof "
		                    "combines the profiles");
	pp p;
	memset(&p, 0, sizeof p);
	uint32_t *profiles = NULL;
	size_t n_profiles = 0, n_ev = 0;
	profdb__cv_event *ev = NULL;
	int r = profdb__cv_profiles(db, opts, &profiles, &n_profiles);
	if (r >= 0)
		r = profdb__cv_events(db, opts, "pprof", profiles, n_profiles, &ev, &n_ev);
	p.ev = ev;
	p.n_ev = n_ev;
	p.none_hidden = 1;
	for (size_t k = 0; k < n_ev; k++)
		p.none_hidden &= !ev[k].hidden;
	p.opts = opts;
	if (r >= 0 && (r = profdb__cv_names_init(&p.str)) >= 0 &&
	    (r = profdb__cv_names_init(&p.fns)) >= 0 &&
	    (!(p.values = calloc(n_ev + 1, sizeof *p.values)) ||
	     !(p.held_values = calloc(n_ev + 1, sizeof *p.held_values))))
		r = profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	p.spare = profdb__spare_threads(db->opts.threads);
	if (r >= 0 && (r = profdb__pbs_init(&p.s, o, p.spare > 0)) >= 0) {
		r = write_all(&p, db, profiles, n_profiles);
		int f = profdb__pbs_finish(&p.s);
		r = r < 0 ? r : f;
	}
	profdb__pbs_free(&p.s);
	profdb__pbm_free(&p.m);
	profdb__pbm_free(&p.sub);
	profdb__cv_names_free(&p.str);
	profdb__cv_names_free(&p.fns);
	loctab_free(&p.locs);
	loctab_free(&p.local);
	profdb__cv_tree_free(&p.t);
	free(p.loc_of);
	free(p.fn_of);
	free(p.fid_of);
	free(p.stack);
	free(p.values);
	free(p.held_stack);
	free(p.held_values);
	free(ev);
	free(profiles);
	return r;
}
