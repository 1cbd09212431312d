/* The pprof writer (doc/CONVERT.md, "pprof"): a gzip-compressed
 * profile.proto with one sample per context that has a self cost, its
 * stack the frames above it (cost-internal.h), a value per event. The
 * top-level message streams: sample_type, then samples interleaved with
 * the functions and locations they introduce, then the string table
 * (protobuf allows a repeated field to be split), so memory holds the
 * tables and one message, not the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	 * functions that more than one frame names, and the others of one
	 * function at a time in @c local */
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

/* A sample message: the locations of p->stack, the values. */
static int put_stack(pp *p, size_t depth, const uint64_t *values, size_t nv)
{
	profdb__pbs_packed2(&p->s, P_SAMPLE, p->stack, depth, values, nv, &p->m);
	return p->m.err;
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
 * locations only while its lines are written. */

/* A frame's names as the first walk met them, so that the second walks
 * the same functions without fetching their contexts again; a name
 * profdb makes up (in a buffer of the moment) or one of 4 GiB is left out
 * (name NULL) and fetched again when asked for. */
typedef struct frame_names {
	const char *name, *file, *module;
	uint32_t name_len, file_len, module_len;
	uint32_t id;             /* the frame's context */
	uint64_t line;
} frame_names;

typedef struct bulk {
	pp *p;
	const profdb *db;
	uint64_t fn;              /* the frame being written */
	uint32_t root_fid, fn_fid;
	uint64_t root_lid;
	uint64_t last_line, last_lid;   /* the location of the frame's previous line */
	int have_last;
	int fn_unique;            /* no other frame has fn's identity */
	uint64_t *key;            /* per frame: its function identity's hash */
	unsigned char *shared;    /* per frame: another frame has that hash */
	frame_names *names;       /* per frame */
	uint32_t *order;          /* the functions' contexts (frames 1 ..), for the second walk */
	size_t n_frames;
	loctab *fn_locs;
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

/* Frames whose names the first walk hashes later: the names of a frame
 * are asked for when it comes and hashed this many frames after, so that
 * their cache misses overlap. */
#define KEY_LAG 8

/* The identity hash of kept names @p f. */
static uint64_t names_key(const frame_names *f)
{
	uint64_t h = profdb__cv_hash(f->name, f->name_len, 0);
	h = profdb__cv_hash(f->file, f->file_len, h);
	return profdb__cv_hash(f->module, f->module_len, h);
}

static int key_frame(void *ud, const profdb_context *c, uint64_t index, uint64_t count)
{
	bulk *b = ud;
	if (!b->key) {
		b->key = calloc(count + 1, sizeof *b->key);
		b->names = calloc(count + 1, sizeof *b->names);
		b->order = malloc((count + 1) * sizeof *b->order);
		if (!b->key || !b->names || !b->order)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
		memset(b->order, 0xff, (count + 1) * sizeof *b->order);   /* PROFDB_NONE */
	}
	if (index >= count || !c)
		return profdb__fail(-EBADMSG, "profdb_convert: more frames than functions");
	char buf[256];
	profdb_str name, file, module;
	uint64_t line;
	profdb__cv_context_names(c, buf, sizeof buf, &name, &file, &module, &line);
	b->n_frames = index + 1;
	if (index > 0)
		b->order[index - 1] = c->id;
	if (name.ptr != buf && name.len <= UINT32_MAX && file.len <= UINT32_MAX &&
	    module.len <= UINT32_MAX) {
		b->names[index] = (frame_names){name.ptr, file.ptr, module.ptr, (uint32_t)name.len,
		                                (uint32_t)file.len, (uint32_t)module.len, c->id, line};
		prefetch_str(name);
		prefetch_str(file);
	} else {   /* (names of the moment: hashed now) */
		b->names[index] = (frame_names){NULL, NULL, NULL, 0, 0, 0, c->id, line};
		uint64_t h = profdb__cv_hash(name.ptr, name.len, 0);
		h = profdb__cv_hash(file.ptr, file.len, h);
		b->key[index] = profdb__cv_hash(module.ptr, module.len, h);
	}
	if (index >= KEY_LAG && b->names[index - KEY_LAG].name)
		b->key[index - KEY_LAG] = names_key(&b->names[index - KEY_LAG]);
	return 0;
}

/* The function of frame @p index of the bulk path, as function_named(). */
static int frame_function(bulk *b, uint64_t index, int unique, uint32_t *cache, uint64_t *fid)
{
	if (*cache) {
		*fid = *cache;
		return 0;
	}
	const frame_names *f = &b->names[index];
	if (!f->name) {
		profdb_context c;
		int r = profdb_context_get(b->db, f->id, &c);
		return r < 0 ? r : function_of(b->p, &c, unique, cache, fid);
	}
	return function_named(b->p, (profdb_str){f->name, f->name_len},
	                      (profdb_str){f->file, f->file_len},
	                      (profdb_str){f->module, f->module_len}, f->line, unique, cache, fid);
}

/* shared[]: the frames whose identity hash another frame has too (a
 * collision only keeps more locations than needed), once the hashes that
 * key_frame left are taken: the (hash, frame) pairs sorted by hash, so
 * that each run of one hash names its frames. */
static int mark_shared(bulk *b)
{
	size_t n = b->n_frames;
	for (size_t i = n > KEY_LAG ? n - KEY_LAG : 0; i < n; i++)   /* the last ones key_frame left */
		if (b->names[i].name)
			b->key[i] = names_key(&b->names[i]);
	profdb__sort_pair *pairs = malloc(n * sizeof *pairs + 1), *tmp = malloc(n * sizeof *tmp + 1);
	uint32_t *count = malloc(PROFDB_RADIX_SIZE * sizeof *count);
	b->shared = calloc(n + 1, 1);
	int r = 0;
	if (!pairs || !tmp || !count || !b->shared) {
		r = profdb__fail(-ENOMEM, "profdb_convert: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pairs[i] = (profdb__sort_pair){b->key[i], (uint32_t)i};
	profdb__radix_pairs(&pairs, &tmp, n, count);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && pairs[end].key == pairs[i].key; end++)
			;
		for (size_t j = i; end - i > 1 && j < end; j++)
			b->shared[pairs[j].at] = 1;
	}
out:
	free(pairs);
	free(tmp);
	free(count);
	return r;
}

static int bulk_frame(void *ud, const profdb_context *c, uint64_t index, uint64_t count)
{
	bulk *b = ud;
	pp *p = b->p;
	const profdb_convert_options *opts = p->opts;
	(void)c;   /* the first walk's names serve (this walk goes by its order) */
	if (opts->progress && !(index & 1023) && opts->progress(index, count, opts->progress_userdata))
		return profdb__fail(-ECANCELED, "profdb_convert: cancelled");
	if (index >= b->n_frames)
		return profdb__fail(-EBADMSG, "profdb_convert: the functions changed between walks");
	b->fn = index;
	b->fn_fid = 0;
	const frame_names *f = &b->names[index];
	if (f->name) {
		prefetch_str((profdb_str){f->name, f->name_len});
		prefetch_str((profdb_str){f->file, f->file_len});
	}
	b->have_last = 0;
	b->fn_unique = !b->shared[index];
	loctab_clear(&p->local);
	b->fn_locs = b->shared[index] ? &p->locs : &p->local;
	return 0;
}

static int bulk_line(void *ud, uint32_t ctx, uint64_t line, const uint64_t *self)
{
	bulk *b = ud;
	pp *p = b->p;
	size_t nv;
	uint64_t fid;
	const uint64_t *values;
	(void)ctx;
	int r = line_values(p, self, &values, &nv);
	if (r <= 0)
		return r;
	if (profdb__grow((void **)&p->stack, &p->cap_stack, 2, sizeof *p->stack) < 0)
		return -ENOMEM;
	/* a function's lines come by line number: the rows of one line (its
	 * instructions, files) are one location, looked up once */
	if (b->have_last && line == b->last_line) {
		p->stack[0] = b->last_lid;
	} else {
		if ((r = frame_function(b, b->fn, b->fn_unique, &b->fn_fid, &fid)) < 0 ||
		    (r = location(p, b->fn_locs, fid, line, &p->stack[0])) < 0)
			return r;
		b->have_last = 1;
		b->last_line = line;
		b->last_lid = p->stack[0];
	}
	/* the root's location is kept whatever table it went to */
	if (!b->root_lid &&
	    ((r = frame_function(b, 0, !b->shared[0], &b->root_fid, &fid)) < 0 ||
	     (r = location(p, &p->locs, fid, b->names[0].line, &b->root_lid)) < 0))
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
	int r = profdb__cv_graph_walk(db, p->ev, p->n_ev, profiles, n_profiles, key_frame, NULL, &b,
	                              0, NULL);
	if (r > 0 && (r = mark_shared(&b)) >= 0)
		r = 1;
	free(b.key);   /* (the second walk needs the marks only) */
	b.key = NULL;
	if (r > 0 && (r = profdb__hindex_init(&p->locs.index, 1024)) >= 0 &&
	    (r = profdb__hindex_init(&p->local.index, 1024)) >= 0)
		r = profdb__cv_graph_walk(db, p->ev, p->n_ev, profiles, n_profiles, bulk_frame,
		                          bulk_line, &b, p->spare ? p->spare - 1 : 0,   /* one: the compressor */
		                          b.order);
	free(b.shared);
	free(b.names);
	free(b.order);
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
	    !(p.values = calloc(n_ev + 1, sizeof *p.values)))
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
	free(ev);
	free(profiles);
	return r;
}
