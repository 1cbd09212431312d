/* Callgrind scanner: the name table (every distinct name once, a view
 * into the text), the compressed names "(id) name" per space (object,
 * file, function), the functions keyed by (object, file, name) and the
 * rows of (profile, function). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/search-internal.h"
#include "scan-internal.h"

/* ---- names --------------------------------------------------------------- */

static int name_eq(const void *ctx, uint32_t e, const void *key)
{
	const cg_name *n = &((const profdb_cg *)ctx)->names[e], *k = key;
	return n->hash == k->hash && n->len == k->len && memcmp(n->p, k->p, k->len) == 0;
}

/* A name's hash, 8 bytes a step: a step xors a word in, multiplies by an
 * odd constant and folds the high half down, one multiply in the chain
 * from one word to the next where mix64 has two (names are long, 60 to
 * 100 bytes in C++ or Python profiles, and hashing them was most of
 * interning); mix64 at the end. */
static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	memcpy(&w, p + i, n - i);
	return profdb__mix64(h ^ w ^ n);
}

/* Intern a name view; *idx gets its index. */
int intern(parser *ps, const char *p, size_t n, uint32_t *idx)
{
	if (n && memchr(p, 0, n) && once(&ps->warned.nul))
		pwarn(ps, "name contains a NUL byte (kept as part of the name)");
	return profdb__cgs_intern_hashed(ps, p, n, n ? (uint32_t)hash_bytes(p, n) : 0, idx);
}

int profdb__cgs_intern_hashed(parser *ps, const char *p, size_t n, uint32_t hash, uint32_t *idx)
{
	profdb_cg *cg = ps->cg;
	profdb__tmap *m = &ps->b->name_map;
	if (n == 0) {
		*idx = 0;
		return 0;
	}
	int r = profdb__tmap_init(m);
	if (r < 0)
		return r;
	cg_name k = {p, (uint32_t)n, hash};
	profdb__tslot *slot = profdb__tmap_slot(m, hash, name_eq, cg, &k);
	if (slot->row1) {
		*idx = slot->row1 - 1;
		return 0;
	}
	r = grow((void **)&cg->names, &cg->cap_names, (uint64_t)cg->n_names + 1,
	         sizeof *cg->names);
	if (r < 0)
		return r;
	cg->names[cg->n_names] = k;
	*idx = cg->n_names++;
	*slot = (profdb__tslot){cg->n_names, hash};
	return profdb__tmap_added(m);
}

int profdb__cgs_placeholder(parser *ps, int sp, uint64_t id, uint32_t *idx)
{
	profdb_cg *cg = ps->cg;
	cg_spec *sc = &ps->spec;
	int r = grow((void **)&cg->names, &cg->cap_names, (uint64_t)cg->n_names + 1,
	             sizeof *cg->names);
	if (r < 0 || (r = grow((void **)&sc->ph, &sc->cap_ph, (uint64_t)sc->n_ph + 1,
	                       sizeof *sc->ph)) < 0)
		return r;
	cg->names[cg->n_names] = (cg_name){NULL, 0, 0};   /* never interned */
	sc->ph[sc->n_ph++] = (cg_ph){cg->n_names, (uint32_t)sp, id};
	*idx = cg->n_names++;
	return 0;
}

/* Large ids are keyed by (id, space), hashed with one multiply (every
 * id of a piece of the parallel scan is looked up here, at nearly every
 * name line): the high half folded into the low one, which the index
 * takes, so that every bit of the id counts. */
static uint64_t bigid_key_hash(const cg_bigid *b)
{
	uint64_t h = (b->id ^ (uint64_t)b->sp << 62) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 32;
}

static uint64_t bigid_hash(const void *ctx, uint32_t e)
{
	return bigid_key_hash(&((const cg_ids *)ctx)->big[e]);
}

static int bigid_eq(const void *ctx, uint32_t e, const void *key)
{
	const cg_bigid *b = &((const cg_ids *)ctx)->big[e], *k = key;
	return b->id == k->id && b->sp == k->sp;
}

void profdb__cgs_ids_clear(cg_ids *t, int release)
{
	if (release) {
		free(t->old);
		free(t->lit);
		free(t->set);
		t->old = NULL;
		t->lit = NULL;
		t->set = NULL;
		t->n_old = t->n_lit = t->n_set = 0;
		t->cap_old = t->cap_lit = t->cap_set = 0;
	}
	profdb__hindex_free(&t->index);
	t->n_big = 0;
	if (!release && t->track) {   /* only the ids set since the last clear */
		for (uint32_t i = 0; i < t->n_set; i++)
			t->dense[t->set[i].sp][t->set[i].id] = CG_EMPTY;
		t->n_set = 0;
		return;
	}
	t->track = !release;
	for (int i = 0; i < 3; i++) {
		if (release) {
			free(t->dense[i]);
			t->dense[i] = NULL;
		} else if (t->dense[i]) {
			memset(t->dense[i], 0xff, t->cap[i] * sizeof(uint32_t));
		}
	}
	if (release) {
		free(t->big);
		t->big = NULL;
		t->cap_big = 0;
	}
}

void profdb__cgs_ids_forget(parser *ps)
{
	cg_ids *t = &ps->ids;
	const cg_spec *sc = &ps->spec;
	/* every small id a piece sets is in defs (defined) or ph (used first) */
	for (uint32_t i = 0; i < sc->n_defs; i++)
		t->dense[sc->defs[i].sp][sc->defs[i].id] = CG_EMPTY;
	for (uint32_t i = 0; i < sc->n_ph; i++)
		if (sc->ph[i].id < t->limit)
			t->dense[sc->ph[i].sp][sc->ph[i].id] = CG_EMPTY;
	profdb__hindex_free(&t->index);
	t->n_big = 0;
	t->n_old = t->n_lit = 0;
}

static const char *const space_name[] = {"object", "file", "function"};

static uint32_t ids_get(const cg_ids *t, int sp, uint64_t id)
{
	if (id < t->limit)
		return id < t->cap[sp] ? t->dense[sp][id] : CG_UNDEF;
	if (!t->index.slot)
		return CG_UNDEF;
	cg_bigid k = {id, (uint32_t)sp, CG_UNDEF};
	uint32_t *slot = profdb__hindex_slot(&t->index, bigid_key_hash(&k), bigid_eq, t, &k);
	return *slot ? t->big[*slot - 1].name : CG_UNDEF;
}

uint32_t profdb__cgs_id_get(const parser *ps, int sp, uint64_t id)
{
	return ids_get(&ps->ids, sp, id);
}

/* Earlier meanings in order of space, id, end. */
static int old_cmp(const void *a, const void *b)
{
	const cg_idold *x = a, *y = b;
	if (x->sp != y->sp)
		return x->sp < y->sp ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* The key of an earlier-meaning search: a meaning sorts before it when
 * its (sp, id) is smaller, or equal with an end at or before off. */
typedef struct old_key {
	const cg_idold *old;
	uint64_t id, off;
	uint32_t sp;
} old_key;

static int old_before(const void *ctx, size_t i)
{
	const old_key *k = ctx;
	const cg_idold *o = &k->old[i];
	if (o->sp != k->sp)
		return o->sp < k->sp;
	return o->id != k->id ? o->id < k->id : o->end <= k->off;
}

typedef struct lit_key {
	const cg_litname *lit;
	uint64_t off;
} lit_key;

static int lit_before(const void *ctx, size_t i)
{
	const lit_key *k = ctx;
	return k->lit[i].off < k->off;
}

uint32_t profdb__cg_file_id_at(const cg_file *f, int sp, uint64_t id, uint64_t off)
{
	const cg_ids *t = f->ids;
	if (!t)
		return CG_UNDEF;
	/* the first earlier meaning of (sp, id) that ends after @p off */
	old_key k = {t->old, id, off, (uint32_t)sp};
	size_t i = profdb__lower_bound(0, t->n_old, &k, old_before);
	if (i < t->n_old && t->old[i].sp == (uint32_t)sp && t->old[i].id == id)
		return t->old[i].name;
	return ids_get(t, sp, id);
}

uint32_t profdb__cg_file_literal_at(const cg_file *f, uint64_t off)
{
	const cg_ids *t = f->ids;
	if (!t)
		return CG_UNDEF;
	lit_key k = {t->lit, off};
	size_t i = profdb__lower_bound(0, t->n_lit, &k, lit_before);
	return i < t->n_lit && t->lit[i].off == off ? t->lit[i].name : CG_UNDEF;
}

/* Id (@p sp, @p id) meant @p name up to the current line. Object ids are
 * not kept: no line inside a block names an object. */
static int retire(parser *ps, int sp, uint64_t id, uint32_t name)
{
	cg_ids *t = &ps->ids;
	if (sp == CG_SP_OB)
		return 0;
	int r = grow((void **)&t->old, &t->cap_old, (uint64_t)t->n_old + 1, sizeof *t->old);
	if (r == 0)
		t->old[t->n_old++] = (cg_idold){id, ps->at.off, (uint32_t)sp, name};
	return r;
}

int profdb__cgs_ids_retire(parser *ps)
{
	cg_ids *t = &ps->ids;
	int r = 0;
	for (uint32_t i = 0; t->track && i < t->n_set && r == 0; i++) {
		const cg_ph *k = &t->set[i];
		if (t->dense[k->sp][k->id] < CG_UNDEF)
			r = retire(ps, (int)k->sp, k->id, t->dense[k->sp][k->id]);
	}
	for (int sp = CG_SP_FILE; !t->track && sp <= CG_SP_FN && r == 0; sp++)
		for (size_t id = 0; id < t->cap[sp] && r == 0; id++)
			if (t->dense[sp][id] < CG_UNDEF)
				r = retire(ps, sp, id, t->dense[sp][id]);
	for (uint32_t i = 0; i < t->n_big && r == 0; i++)
		if (t->big[i].name < CG_UNDEF)
			r = retire(ps, (int)t->big[i].sp, t->big[i].id, t->big[i].name);
	return r;
}

void profdb__cgs_ids_trim(cg_ids *t)
{
	if (t->n_old > 1)
		qsort(t->old, t->n_old, sizeof *t->old, old_cmp);
	free(t->set);   /* (no "====" line follows) */
	t->set = NULL;
	t->n_set = 0;
	t->cap_set = 0;
	t->track = 0;
	free(t->dense[CG_SP_OB]);   /* (a block names no object) */
	t->dense[CG_SP_OB] = NULL;
	t->cap[CG_SP_OB] = 0;
	for (int sp = CG_SP_FILE; sp <= CG_SP_FN; sp++) {
		size_t n = t->cap[sp];
		while (n > 0 && t->dense[sp][n - 1] == CG_EMPTY)
			n--;
		uint32_t *q = n ? realloc(t->dense[sp], n * sizeof *q) : NULL;
		if (n == 0) {
			free(t->dense[sp]);
			t->dense[sp] = NULL;
			t->cap[sp] = 0;
		} else if (q) {
			t->dense[sp] = q;
			t->cap[sp] = n;
		}
	}
}

void profdb__cg_file_ids_free(cg_file *f)
{
	if (f->ids) {
		ids_clear(f->ids, 1);
		free(f->ids);
		f->ids = NULL;
	}
}

static int id_slot(parser *ps, int sp, uint64_t id, uint32_t **out);

/* Id (@p sp, @p id) defined as @p name where it was @p old: a second
 * definition with another name makes the id mean two things in one text,
 * and the lines before this one keep the first (retire). A piece of the
 * parallel scan cannot record that (the offsets of its lines before are
 * not all its own): it leaves itself to the sequential scan. An id the
 * piece used before defining it (a placeholder) is checked when the
 * piece is merged (profdb__cgs_ids_agree). */
static int note_define(parser *ps, int sp, uint64_t id, uint32_t old, uint32_t name)
{
	if (old >= CG_UNDEF || old == name)
		return 0;
	if (!ps->spec.on)
		return retire(ps, sp, id, old);
	if (ps->cg->names[old].p)
		ps->spec.unsafe = 1;
	return 0;
}

/* Names @p a of @p ca and @p b of @p cb have the same bytes. */
static int same_name(const profdb_cg *ca, uint32_t a, const profdb_cg *cb, uint32_t b)
{
	const cg_name *x = &ca->names[a], *y = &cb->names[b];
	return x->len == y->len && (x->len == 0 || memcmp(x->p, y->p, x->len) == 0);
}

int profdb__cgs_ids_agree(const parser *dst, const parser *src)
{
	const cg_ids *t = &src->ids;
	for (uint32_t i = 0; i < src->spec.n_defs; i++) {
		const cg_ph *d = &src->spec.defs[i];
		uint32_t now = ids_get(&dst->ids, (int)d->sp, d->id);
		if (now < CG_UNDEF && !same_name(dst->cg, now, src->cg, t->dense[d->sp][d->id]))
			return 0;
	}
	/* (a placeholder stands for the name before the piece: guesses_hold) */
	for (uint32_t i = 0; i < t->n_big; i++) {
		if (i + CG_AHEAD < t->n_big)
			cg_prefetch_id(dst, (int)t->big[i + CG_AHEAD].sp, t->big[i + CG_AHEAD].id);
		uint32_t name = t->big[i].name;
		if (name >= CG_UNDEF || !src->cg->names[name].p)
			continue;
		uint32_t now = ids_get(&dst->ids, (int)t->big[i].sp, t->big[i].id);
		if (now < CG_UNDEF && !same_name(dst->cg, now, src->cg, name))
			return 0;
	}
	return 1;
}

/* A piece remembers the small ids it defines, so that merging it costs
 * what it defined, not its dense arrays' length. */
static int grow_defs(cg_spec *sc, int sp, uint64_t id)
{
	int r = grow((void **)&sc->defs, &sc->cap_defs, (uint64_t)sc->n_defs + 1, sizeof *sc->defs);
	if (r == 0)
		sc->defs[sc->n_defs++] = (cg_ph){0, (uint32_t)sp, id};
	return r;
}

int profdb__cgs_ids_merge(parser *dst, const parser *src, const uint32_t *nmap)
{
	const cg_ids *t = &src->ids;
	uint32_t *slot;
	int r;
	/* ids used before the piece defines them are the placeholders: their
	 * names are the real ones already */
	for (uint32_t i = 0; i < src->spec.n_defs; i++) {
		const cg_ph *d = &src->spec.defs[i];
		if ((r = id_slot(dst, (int)d->sp, d->id, &slot)) < 0)
			return r;
		*slot = nmap[t->dense[d->sp][d->id]];
	}
	for (uint32_t i = 0; i < t->n_big; i++)
		if (t->big[i].name < CG_UNDEF) {
			if (i + CG_AHEAD < t->n_big)
				cg_prefetch_id(dst, (int)t->big[i + CG_AHEAD].sp, t->big[i + CG_AHEAD].id);
			if ((r = id_slot(dst, (int)t->big[i].sp, t->big[i].id, &slot)) < 0)
				return r;
			*slot = nmap[t->big[i].name];
		}
	/* the piece's literal name lines follow the ones before it */
	cg_ids *d = &dst->ids;
	if ((r = grow((void **)&d->lit, &d->cap_lit, (uint64_t)d->n_lit + t->n_lit,
	              sizeof *d->lit)) < 0)
		return r;
	for (uint32_t i = 0; i < t->n_lit; i++)
		d->lit[d->n_lit++] = (cg_litname){t->lit[i].off, nmap[t->lit[i].name]};
	return 0;
}

/* Where the name of (space, id) lives: a dense array for the small ids
 * writers use (callgrind numbers from 0 or 1), a hash index beyond. */
static int id_slot(parser *ps, int sp, uint64_t id, uint32_t **out)
{
	if (id < ps->ids.limit) {
		size_t old = ps->ids.cap[sp];
		if (id >= old) {
			int r = grow((void **)&ps->ids.dense[sp], &ps->ids.cap[sp], id + 1,
			                        sizeof(uint32_t));
			if (r < 0)
				return r;
			size_t add = (ps->ids.cap[sp] - old) * sizeof(uint32_t);
			/* its pages, all written by the fill below, in one call */
			profdb__prefault_write(ps->ids.dense[sp] + old, add);
			memset(ps->ids.dense[sp] + old, 0xff, add);
		}
		cg_ids *t = &ps->ids;
		if (t->track && t->dense[sp][id] == CG_EMPTY) {   /* about to be set */
			int r = grow((void **)&t->set, &t->cap_set, (uint64_t)t->n_set + 1,
			             sizeof *t->set);
			if (r < 0)
				return r;
			t->set[t->n_set++] = (cg_ph){0, (uint32_t)sp, id};
		}
		*out = &t->dense[sp][id];
		return 0;
	}
	cg_ids *t = &ps->ids;
	int r = 0;
	/* (a piece keeps all its ids here: thousands) */
	if (!t->index.slot && (r = profdb__hindex_init(&t->index, ps->spec.on ? 4096 : 64)) < 0)
		return r;
	cg_bigid k = {id, (uint32_t)sp, CG_UNDEF};
	uint32_t *slot = profdb__hindex_slot(&t->index, bigid_key_hash(&k), bigid_eq, t, &k);
	if (!*slot) {  /* a new id, not defined yet */
		if ((r = grow((void **)&t->big, &t->cap_big, (uint64_t)t->n_big + 1, sizeof *t->big)) < 0)
			return r;
		t->big[t->n_big++] = k;
		*slot = t->n_big;
		if ((r = profdb__hindex_added(&t->index, bigid_hash, t)) < 0)
			return r;
		*out = &t->big[t->n_big - 1].name;
		return 0;
	}
	*out = &t->big[*slot - 1].name;
	return 0;
}

/* The value of a name line in ID space @p sp: "(id) name", "(id)" or a
 * literal name. Only '(' followed by a digit starts the compressed form. */
int resolve_name(parser *ps, int sp, const char *v, size_t n, uint32_t *idx)
{
	while (n && cg_is_space(*v)) {
		v++;
		n--;
	}
	rstrip(v, &n);
	if (n >= 2 && v[0] == '(' && cg_is_digit(v[1])) {
		size_t i = 1;
		uint64_t id = 0;
		int ovf = 0;
		while (i < n && cg_is_digit(v[i])) {
			if (__builtin_mul_overflow(id, 10, &id) ||
			    __builtin_add_overflow(id, (uint64_t)(v[i] - '0'), &id))
				ovf = 1;
			i++;
		}
		if (i < n && v[i] == ')') {
			if (ovf)
				return perr(ps, -EBADMSG, "%s name id overflows 64 bits", space_name[sp]);
			size_t tok_len = i + 1;
			const char *rest = v + tok_len;
			size_t rn = n - tok_len;
			while (rn && cg_is_space(*rest)) {
				rest++;
				rn--;
			}
			uint32_t *slot;
			int r = id_slot(ps, sp, id, &slot);
			if (r < 0)
				return r;
			if (rn == 0) {
				if (*slot < CG_UNDEF) {
					*idx = *slot;
					return 0;
				}
				/* In a piece of the parallel scan: defined before the piece,
				 * or undefined (parallel.c tells when it merges). */
				if (ps->spec.on) {
					r = profdb__cgs_placeholder(ps, sp, id, idx);
					if (r >= 0 && (r = id_slot(ps, sp, id, &slot)) >= 0)
						*slot = *idx;
					return r;
				}
				/* Undefined id: a soft error (callgrind 0.10, some other
				 * writers). The token "(id)" itself becomes the name, and
				 * the id's until it is defined (note_define). */
				if (once(&ps->warned.undef))
					pwarn(ps,
					      "undefined %s id %" PRIu64 "; \"(%" PRIu64 ")\" is used as the "
					      "name (further ones silently)",
					      space_name[sp], id, id);
				rest = v;
				rn = tok_len;
			}
			uint32_t ni;   /* (interning moves no id slot) */
			r = intern(ps, rest, rn, &ni);
			if (r < 0)
				return r;
			if ((r = note_define(ps, sp, id, *slot, ni)) < 0)
				return r;
			*slot = ni;  /* a redefinition replaces */
			*idx = ni;
			if (ps->spec.on && id < ps->ids.limit)   /* for profdb__cgs_ids_merge */
				return grow_defs(&ps->spec, sp, id);
			return 0;
		}
	}
	return intern(ps, v, n, idx);
}


/* Functions are keyed by (object, file, name), as KCachegrind's
 * TraceData::function(): the file is the fl= in effect at fn= (or the
 * callee file bound at cfn=), so two C static functions of one name in two
 * files of an object stay two; fi=/fe= and a cfi= after cfn= never split
 * one (doc/FORMATS.md, "Callgrind"). */
static uint32_t fn_tag(const cg_fn *f)
{
	return (uint32_t)(profdb__mix64(((uint64_t)f->ob << 32 | f->fl) ^ profdb__mix64(f->fn)) >> 32);
}

static int fn_eq(const void *ctx, uint32_t e, const void *key)
{
	const cg_fn *f = &((const profdb_cg *)ctx)->fns[e], *k = key;
	return f->fn == k->fn && f->ob == k->ob && f->fl == k->fl;
}

/* A new function (@p ob, @p fl, @p fn): its id in *out. */
static int add_fn(profdb_cg *cg, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
	int r = grow((void **)&cg->fns, &cg->cap_fns, (uint64_t)cg->n_fns + 1, sizeof *cg->fns);
	if (r < 0)
		return r;
	*out = cg->n_fns++;
	cg->fns[*out] = (cg_fn){ob, fl, fn, 0};
	return 0;
}

/* Function (@p ob, @p fl, @p fn) in fn_map: found, or made (*out). */
static int fn_in_map(parser *ps, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
	profdb_cg *cg = ps->cg;
	profdb__tmap *m = &ps->b->fn_map;
	int r = profdb__tmap_init(m);
	if (r < 0)
		return r;
	cg_fn k = {.ob = ob, .fl = fl, .fn = fn};
	uint32_t tag = fn_tag(&k);
	profdb__tslot *slot = profdb__tmap_slot(m, tag, fn_eq, cg, &k);
	if (slot->row1) {
		*out = slot->row1 - 1;
		return 0;
	}
	/* (*out set: the function exists, not in the map yet) */
	if (*out == CG_EMPTY && (r = add_fn(cg, ob, fl, fn, out)) < 0)
		return r;
	*slot = (profdb__tslot){*out + 1, tag};
	return profdb__tmap_added(m);
}

/* Nearly every name has one function: fn_by_name finds it, and fn_map
 * holds only the functions of names that several have (the first of them
 * joins it when the second is made). A function made is in one of the
 * two; looking a function up or making one costs one read of
 * fn_by_name, where a hash index of every function costs a read at a
 * random place of a table as large as all of them. */
int get_fn(parser *ps, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
	profdb_cg *cg = ps->cg;
	cg_build *b = ps->b;
	int r;
	if (fn >= b->n_fn_by_name &&
	    (r = profdb__cg_reach((void **)&b->fn_by_name, &b->n_fn_by_name, &b->room_fn_by_name,
	                          fn, sizeof *b->fn_by_name)) < 0)
		return r;
	cg_fnkey *e = &b->fn_by_name[fn];
	if (e->fn != CG_EMPTY && e->ob == ob && e->fl == fl) {
		*out = e->fn;
		return 0;
	}
	uint32_t i = CG_EMPTY;
	if (e->fn != CG_EMPTY) {
		if (!e->shared) {   /* its one function joins fn_map */
			i = e->fn;
			if ((r = fn_in_map(ps, e->ob, e->fl, fn, &i)) < 0)
				return r;
			i = CG_EMPTY;
		}
		if ((r = fn_in_map(ps, ob, fl, fn, &i)) < 0)
			return r;
		*e = (cg_fnkey){i, ob, fl, 1};
		*out = i;
		return 0;
	}
	if ((r = add_fn(cg, ob, fl, fn, &i)) < 0)
		return r;
	*e = (cg_fnkey){i, ob, fl, 0};
	*out = i;
	return 0;
}

/* The row of (current profile, fn). row_of_fn[fn] is the last row made
 * for fn. Profiles are scanned one after the other and never resumed, so
 * the rows of the current profile are the ones from row0 on (the row
 * count when the profile made its first row): when fn's last row is
 * before row0, the row does not exist yet. That tells it without
 * reading the row, at a random place of a table as large as all rows. */
int get_row(parser *ps, uint32_t fn, uint32_t *out)
{
	profdb_cg *cg = ps->cg;
	cg_build *b = ps->b;
	int r;
	if (fn >= b->n_row_of_fn &&
	    (r = profdb__cg_reach((void **)&b->row_of_fn, &b->n_row_of_fn, &b->room_row_of_fn, fn,
	                          sizeof *b->row_of_fn)) < 0)
		return r;
	if (b->row_prof != ps->part.prof) {   /* no row of this profile yet */
		b->row_prof = ps->part.prof;
		b->row0 = cg->n_rows;
	}
	uint32_t i = b->row_of_fn[fn];
	if (i != CG_EMPTY && i >= b->row0) {
		*out = i;
		return 0;
	}
	r = profdb__cg_self_new_row(cg);
	if (r < 0)
		return r;
	i = cg->n_rows++;
	cg->rows[i] = (cg_row){ps->part.prof, fn};
	b->row_of_fn[fn] = i;
	*out = i;
	return 0;
}

/* The current function and its row, resolved on first use after a change
 * of ob=/fl=/fn=. */

