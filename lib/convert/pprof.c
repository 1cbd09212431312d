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

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6,
	P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13, P_DEFAULT_TYPE = 14,
};

/* A location: a function at a line. */
typedef struct loc {
	uint64_t fid, line;
} loc;

typedef struct pp {
	profdb__pbs s;
	profdb__pbm m, sub;
	profdb__cv_names str, fns;
	/* the locations, ids from 1 in order of first use: a table of their
	 * own, as there are about as many as contexts (names would hash and
	 * copy 16-byte strings) */
	loc *locs;
	size_t n_locs, cap_locs;
	profdb__hindex loc_index;
	profdb__cv_tree t;
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

/* The function of frame @p f: its id, the message the first time. */
static int function_of(pp *p, uint32_t f, uint64_t *fid)
{
	if (p->fn_of[f]) {
		*fid = p->fn_of[f];
		return 0;
	}
	char buf[256];
	profdb_str name, file, module;
	uint64_t line;
	profdb__cv_frame_names(&p->t, f, buf, sizeof buf, &name, &file, &module, &line);
	/* The function's identity, (module, file, full name), never cut: each
	 * part after its length, so no byte of a name can end it early. */
	size_t n = 2 * sizeof(size_t) + name.len + file.len + module.len;
	char *key = malloc(n);
	*fid = 0;
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
	uint32_t id;
	int fresh;
	int r = profdb__cv_intern(&p->fns, (profdb_str){key, n}, &id, &fresh);
	free(key);
	*fid = id;
	p->fn_of[f] = id;
	if (r < 0 || !fresh)
		return r;
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

static uint64_t loc_hash(uint64_t fid, uint64_t line)
{
	return profdb__mix64(fid * UINT64_C(0x9e3779b97f4a7c15) ^ line);
}

static uint64_t hash_loc(const void *ctx, uint32_t e)
{
	const pp *p = ctx;
	return loc_hash(p->locs[e].fid, p->locs[e].line);
}

static int eq_loc(const void *ctx, uint32_t e, const void *key)
{
	const loc *a = &((const pp *)ctx)->locs[e], *b = key;
	return a->fid == b->fid && a->line == b->line;
}

/* The location of node @p i: its frame's function at its line. */
static int location_of(pp *p, uint32_t i, uint64_t *lid)
{
	if (p->loc_of[i]) {
		*lid = p->loc_of[i];
		return 0;
	}
	uint64_t fid, line = profdb__cv_node_line(&p->t, i);
	int r = function_of(p, p->t.node[i].frame, &fid);
	if (r < 0)
		return r;
	loc key = {fid, line};
	uint32_t *slot = profdb__hindex_slot(&p->loc_index, loc_hash(fid, line), eq_loc, p, &key);
	if (*slot) {
		*lid = p->loc_of[i] = *slot;
		return 0;
	}
	if (p->n_locs >= UINT32_MAX - 1 ||
	    profdb__grow((void **)&p->locs, &p->cap_locs, p->n_locs + 1, sizeof *p->locs))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (locations)");
	p->locs[p->n_locs] = key;
	uint32_t id = *slot = (uint32_t)++p->n_locs;
	*lid = p->loc_of[i] = id;
	if ((r = profdb__hindex_added(&p->loc_index, hash_loc, p)) < 0)
		return r;
	profdb__pbm_reset(&p->sub);
	profdb__pbm_uint(&p->sub, 1, fid);
	profdb__pbm_uint(&p->sub, 2, line);
	profdb__pbm_reset(&p->m);
	profdb__pbm_uint(&p->m, 1, id);
	profdb__pbm_bytes(&p->m, 4, p->sub.p, p->sub.len);
	profdb__pbs_msg(&p->s, P_LOCATION, &p->m);
	return p->m.err ? p->m.err : p->sub.err;
}

/* The sample of node @p i, when it has a self cost. */
static int put_sample(pp *p, uint32_t i)
{
	const profdb__cv_tree *t = &p->t;
	size_t nv = 0, depth = 0;
	int any = 0;
	for (size_t k = 0; k < t->n_ev; k++) {
		if (t->ev[k].hidden)
			continue;
		uint64_t v = t->self[(size_t)i * t->n_ev + k];
		if (v > (uint64_t)INT64_MAX)
			return profdb__fail(-ERANGE, "profdb_convert: metric '%s': the self cost %llu "
			                    "does not fit pprof's int64", t->ev[k].name,
			                    (unsigned long long)v);
		any |= v != 0;
		p->values[nv++] = v;
	}
	if (!any)
		return 0;
	for (uint32_t j = i; j != PROFDB_NONE; j = t->node[t->node[j].frame].parent) {
		if (profdb__grow((void **)&p->stack, &p->cap_stack, depth + 1, sizeof *p->stack) < 0)
			return -ENOMEM;
		int r = location_of(p, j, &p->stack[depth]);
		if (r < 0)
			return r;
		depth++;
	}
	profdb__pbm_reset(&p->m);
	profdb__pbm_packed(&p->m, 1, p->stack, depth);
	profdb__pbm_packed(&p->m, 2, p->values, nv);
	profdb__pbs_msg(&p->s, P_SAMPLE, &p->m);
	return p->m.err;
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

static int write_all(pp *p, const profdb *db, const profdb_convert_options *opts,
                     const uint32_t *profiles, size_t n_profiles)
{
	const profdb__cv_tree *t = &p->t;
	int r = profdb__cv_tree_fill(&p->t, profiles, n_profiles);
	const profdb__cv_event *first = NULL;
	for (size_t k = 0; k < t->n_ev && r >= 0; k++)
		if (!t->ev[k].hidden) {
			first = first ? first : &t->ev[k];
			r = put_value_type(p, P_SAMPLE_TYPE, &t->ev[k]);
		}
	if (r >= 0)
		r = put_period(p, db, first);
	for (size_t i = 0; i < t->n && r >= 0; i++) {
		r = put_sample(p, (uint32_t)i);
		if (r >= 0 && opts->progress && !(i & 1023) &&
		    opts->progress(i, t->n, opts->progress_userdata))
			r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
		if (r >= 0 && (p->s.err || p->s.o->err))
			r = p->s.err ? p->s.err : p->s.o->err;
	}
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
	if (r >= 0 && (r = profdb__cv_names_init(&p.str)) >= 0 &&
	    (r = profdb__cv_names_init(&p.fns)) >= 0)
		r = profdb__cv_tree_build(&p.t, db, ev, n_ev, opts->progress, opts->progress_userdata);
	/* at most a location per node: sized once, never rehashed */
	if (r >= 0)
		r = profdb__hindex_init(&p.loc_index, p.t.n);
	if (r >= 0) {
		p.loc_of = calloc(p.t.n + 1, sizeof *p.loc_of);
		p.fn_of = calloc(p.t.n + 1, sizeof *p.fn_of);
		p.values = calloc(n_ev + 1, sizeof *p.values);
		if (!p.loc_of || !p.fn_of || !p.values)
			r = profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	}
	if (r >= 0 && (r = profdb__pbs_init(&p.s, o)) >= 0) {
		r = write_all(&p, db, opts, profiles, n_profiles);
		int f = profdb__pbs_finish(&p.s);
		r = r < 0 ? r : f;
	}
	profdb__pbs_free(&p.s);
	profdb__pbm_free(&p.m);
	profdb__pbm_free(&p.sub);
	profdb__cv_names_free(&p.str);
	profdb__cv_names_free(&p.fns);
	profdb__hindex_free(&p.loc_index);
	free(p.locs);
	profdb__cv_tree_free(&p.t);
	free(p.loc_of);
	free(p.fn_of);
	free(p.stack);
	free(p.values);
	free(ev);
	free(profiles);
	return r;
}
