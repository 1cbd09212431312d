/* The Callgrind writer (doc/CONVERT.md, "Callgrind"): the text helpers,
 * and the choice between the writer for Callgrind input (cg-native.c,
 * exact: line and instruction costs, call sites and jumps as read) and
 * the one for the tree formats (cg-tree.c). */
#include <stdlib.h>
#include <string.h>

#include "cgout-internal.h"
#include "query/hints-internal.h"

static void set_col(profdb__cgw *w, const uint32_t *col)
{
	w->col = col;
	w->col_first = w->n_vis <= 64;
	for (size_t j = 0; j < w->n_vis; j++)
		w->col_first &= col[j] == j;
}

int profdb__cgw_init(profdb__cgw *w, profdb__cv_out *o, const profdb__cv_event *ev, size_t n_ev)
{
	memset(w, 0, sizeof *w);
	w->o = o;
	w->ev = ev;
	w->n_ev = n_ev;
	w->totals = calloc(2 * (n_ev + 1), sizeof *w->totals);
	w->all_parts = w->totals + n_ev + 1;
	w->by_num = malloc((n_ev + 1) * sizeof *w->by_num);
	w->by_src = malloc((n_ev + 1) * sizeof *w->by_src);
	if (!w->totals || !w->by_num || !w->by_src || profdb__cv_names_init(&w->ob) < 0 ||
	    profdb__cv_names_init(&w->fl) < 0 || profdb__cv_names_init(&w->fn) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	for (size_t k = 0; k < n_ev; k++)
		if (!ev[k].hidden) {
			w->by_num[w->n_vis] = (uint32_t)k;
			w->by_src[w->n_vis++] = ev[k].src;
		}
	set_col(w, w->by_num);
	return 0;
}

void profdb__cgw_costs_by_src(profdb__cgw *w) { set_col(w, w->by_src); }

int profdb__cgw_name_keys(profdb__cgw *w, size_t n_keys)
{
	for (int t = 0; t < 3; t++) {
		free(w->key_ids[t]);
		if (!(w->key_ids[t] = calloc(n_keys ? n_keys : 1, sizeof *w->key_ids[t])))
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	}
	free(w->fn_ob);
	/* (read only where key_ids[FN] has an id, which writes it first) */
	if (!(w->fn_ob = malloc((n_keys ? n_keys : 1) * sizeof *w->fn_ob)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	w->n_keys = n_keys;
	return 0;
}

static void forget_names(profdb__cgw *w)
{
	profdb__cv_names_free(&w->ob);
	profdb__cv_names_free(&w->fl);
	profdb__cv_names_free(&w->fn);
	for (int t = 0; t < 3; t++) {
		if (w->key_ids[t])
			memset(w->key_ids[t], 0, w->n_keys * sizeof *w->key_ids[t]);
		w->n_keyed[t] = 0;
	}
	profdb__tmap_free(&w->fn_others);
	w->n_fn_other = 0;
	w->n_fn_ids = w->ob_now = w->cob_now = 0;
}

void profdb__cgw_free(profdb__cgw *w)
{
	forget_names(w);
	for (int t = 0; t < 3; t++)
		free(w->key_ids[t]);
	free(w->fn_ob);
	free(w->fn_other);
	free(w->fn_first);
	free(w->totals);
	free(w->by_num);
	free(w->by_src);
}

int profdb__cgw_reset(profdb__cgw *w)
{
	forget_names(w);
	memset(w->totals, 0, w->n_ev * sizeof *w->totals);
	w->overflow = 0;
	if (profdb__cv_names_init(&w->ob) < 0 || profdb__cv_names_init(&w->fl) < 0 ||
	    profdb__cv_names_init(&w->fn) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	return 0;
}

/* A name on one line: a line break in it would end the line early, so
 * each is a blank. Names are long (a context's chain of callers) and
 * almost never hold one: memchr() finds the next '\n' and the next '\r'
 * before it, and each is searched for again only once passed. */
static void put_line_text(profdb__cv_out *o, profdb_str s)
{
	if (!s.len)
		return;
	const char *p = s.ptr, *end = s.ptr + s.len;
	const char *nl = memchr(p, '\n', s.len);
	for (;;) {
		if (nl && nl < p)
			nl = memchr(p, '\n', (size_t)(end - p));
		const char *cr = memchr(p, '\r', (size_t)((nl ? nl : end) - p));
		const char *brk = cr ? cr : nl;
		if (!brk) {
			profdb__cv_put(o, p, (size_t)(end - p));
			return;
		}
		profdb__cv_put(o, p, (size_t)(brk - p));
		profdb__cv_putc(o, ' ');
		p = brk + 1;
	}
}

static void put_positions(profdb__cgw *w)
{
	profdb__cv_puts(w->o, "positions: ");
	profdb__cv_puts(w->o, w->positions);
	profdb__cv_putc(w->o, '\n');
}

static void put_events(profdb__cgw *w)
{
	profdb__cv_puts(w->o, "events:");
	for (size_t k = 0; k < w->n_ev; k++)
		if (!w->ev[k].hidden) {
			profdb__cv_putc(w->o, ' ');
			profdb__cv_puts(w->o, w->ev[k].name);
		}
	profdb__cv_putc(w->o, '\n');
}

void profdb__cgw_header(profdb__cgw *w, const profdb *db, const char *positions,
                        int64_t first_part)
{
	profdb__cv_out *o = w->o;
	profdb_about ab;
	profdb__cv_puts(o, "# callgrind format\nversion: 1\ncreator: profdb " PROFDB_VERSION_STRING
	                   "\n");
	if (profdb_get_about(db, &ab) >= 0) {
		profdb__cv_puts(o, "# converted from ");
		profdb__cv_puts(o, profdb_format_name(ab.format));
		profdb__cv_puts(o, " (doc/CONVERT.md of profdb)\n");
		if (ab.title.len) {
			profdb__cv_puts(o, "cmd: ");
			put_line_text(o, ab.title);
			profdb__cv_putc(o, '\n');
		}
	}
	/* A part starts at part: only before the first events: (KCachegrind's
	 * rule), so the first part's header comes first. */
	if (first_part >= 0)
		profdb__cgw_part(w, db, (uint32_t)first_part);
	w->positions = positions;
	put_positions(w);
	for (size_t k = 0; k < w->n_ev; k++) {
		if (w->ev[k].hidden || !w->ev[k].long_name[0])
			continue;
		profdb__cv_puts(o, "event: ");
		profdb__cv_puts(o, w->ev[k].name);
		profdb__cv_puts(o, " : ");
		profdb__cv_puts(o, w->ev[k].long_name);
		profdb__cv_putc(o, '\n');
	}
	put_events(w);
}

/* "key=(id)", with the name the first time. */
static void put_name(profdb__cv_out *o, const char *key, size_t kn, profdb_str s, uint32_t id,
                     int fresh)
{
	unsigned char *q = profdb__cv_room(o, kn + PROFDB__CV_U64_MAX + 4);   /* checked once */
	if (!q)
		return;   /* the error sticks in o */
	char *at = (char *)q;
	memcpy(at, key, kn);
	at += kn;
	*at++ = '=';
	if (s.len) {
		*at++ = '(';
		at += profdb__cv_fmt_u64(at, id);
		*at++ = ')';
	}
	o->len += (size_t)(at - (char *)q);
	if (fresh) {
		profdb__cv_putc(o, ' ');
		put_line_text(o, s);
	}
	profdb__cv_putc(o, '\n');
}

/* The next id of a count of them (@p counter). */
static int next_id(uint32_t *counter, uint32_t *id)
{
	if (*counter >= UINT32_MAX - 1)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (names)");
	*id = ++*counter;
	return 0;
}

static uint64_t fn_other_hash(uint32_t ob_key, uint32_t name_key)
{
	return profdb__mix64((uint64_t)ob_key << 32 | name_key);
}

static int fn_other_is(const void *ctx, uint32_t e, const void *key)
{
	const struct profdb__cgw_fn *a = &((const profdb__cgw *)ctx)->fn_other[e], *b = key;
	return a->ob == b->ob && a->name == b->name;
}

/* The id of function (@p ob_key, @p name_key) of a name a function of
 * another object has taken first (struct profdb__cgw): *fresh when it is
 * given now. */
static int fn_other_id(profdb__cgw *w, uint32_t *counter, uint32_t ob_key, uint32_t name_key,
                       uint32_t *id, int *fresh)
{
	struct profdb__cgw_fn k = {ob_key, name_key, 0};
	uint32_t tag = (uint32_t)fn_other_hash(ob_key, name_key);
	int r;
	if ((r = profdb__tmap_init(&w->fn_others)) < 0)
		return r;
	profdb__tslot *slot = profdb__tmap_slot(&w->fn_others, tag, fn_other_is, w, &k);
	if ((*fresh = !slot->row1) == 0) {
		*id = w->fn_other[slot->row1 - 1].id;
		return 0;
	}
	/* (fewer than the ids: row1 fits) */
	if ((r = profdb__grow((void **)&w->fn_other, &w->cap_fn_other, w->n_fn_other + 1,
	                      sizeof *w->fn_other)) < 0 ||
	    (r = next_id(counter, &k.id)) < 0)
		return r;
	w->fn_other[w->n_fn_other++] = k;
	slot->row1 = (uint32_t)w->n_fn_other;
	slot->tag = tag;
	*id = k.id;
	return profdb__tmap_added(&w->fn_others);
}

/* The id of function (@p ob, @p name), where *@p first_id and
 * *@p first_ob are the id and object of the first function of that name
 * (0: none yet; struct profdb__cgw): the next id of @p counter for the
 * first, its id again in its object, else fn_others'. *fresh when the id
 * is given now. */
static int fn_id(profdb__cgw *w, uint32_t *counter, uint32_t *first_id, uint32_t *first_ob,
                 uint32_t ob, uint32_t name, uint32_t *id, int *fresh)
{
	if (*first_id) {
		if (*first_ob != ob)
			return fn_other_id(w, counter, ob, name, id, fresh);
		*id = *first_id;
		*fresh = 0;
		return 0;
	}
	int r = next_id(counter, id);
	if (r < 0)
		return r;
	*first_ob = ob;
	/* (read by the threads that format functions ahead, cgout-internal.h:
	 * the object before the id) */
	__atomic_store_n(first_id, *id, __ATOMIC_RELEASE);
	*fresh = 1;
	return 0;
}

static profdb__cv_names *table_of(profdb__cgw *w, int table)
{
	return table == PROFDB__CGW_FN ? &w->fn : table == PROFDB__CGW_OB ? &w->ob : &w->fl;
}

int profdb__cgw_name_in(profdb__cgw *w, int table, const char *key, size_t kn, profdb_str s)
{
	profdb__cv_names *t = table_of(w, table);
	if (!s.len && t == &w->fl)
		s = (profdb_str){"???", 3};   /* an unknown file, as valgrind names it */
	uint32_t id = 0;
	int fresh = 0, r;
	if (s.len && w->n_keyed[table])
		return profdb__fail(-EINVAL, "profdb_convert: internal error: a name by its bytes "
		                    "among names by key");
	if (s.len && (r = profdb__cv_intern(t, s, &id, &fresh)) < 0)
		return r;
	if (table == PROFDB__CGW_OB)
		*(kn == 3 ? &w->cob_now : &w->ob_now) = id;
	/* a function by its object too: cfn= the callee's (cob=), else ob= */
	if (table == PROFDB__CGW_FN && s.len) {
		uint32_t name = id;
		if ((r = profdb__grow((void **)&w->fn_first, &w->cap_fn_first, (size_t)name + 1,
		                      sizeof *w->fn_first)) < 0)
			return r;
		if (fresh)
			w->fn_first[name].id = 0;
		if ((r = fn_id(w, &w->n_fn_ids, &w->fn_first[name].id, &w->fn_first[name].ob,
		               kn == 3 && key[0] == 'c' ? w->cob_now : w->ob_now, name, &id,
		               &fresh)) < 0)
			return r;
	}
	put_name(w->o, key, kn, s, id, fresh);
	return 0;
}

int profdb__cgw_name_key_in(profdb__cgw *w, int table, const char *key, size_t kn, profdb_str s,
                            uint32_t name_key, uint32_t ob_key)
{
	uint32_t *ids = w->key_ids[table];
	if (!s.len || !ids || name_key >= w->n_keys)
		return profdb__cgw_name_in(w, table, key, kn, s);
	uint32_t id = ids[name_key];
	int fresh = !id, r;
	if (table == PROFDB__CGW_FN) {
		if ((r = fn_id(w, &w->n_keyed[table], &ids[name_key], &w->fn_ob[name_key], ob_key,
		               name_key, &id, &fresh)) < 0)
			return r;
	} else if (fresh) {
		/* files are met by their bytes too (the unknown file's "???"); distinct
		 * objects' keys, distinct names: the next id, without a copy */
		if ((r = table == PROFDB__CGW_FL ? profdb__cv_intern(&w->fl, s, &id, &fresh)
		                                 : next_id(&w->n_keyed[table], &id)) < 0)
			return r;
		/* (read by the threads that format functions ahead, cgout-internal.h) */
		__atomic_store_n(&ids[name_key], id, __ATOMIC_RELEASE);
	}
	put_name(w->o, key, kn, s, id, fresh);
	return 0;
}

void profdb__cgw_put_costs(profdb__cgw *w, const uint64_t *costs, int self, size_t end)
{
	const uint32_t *col = w->col;
	for (size_t j = 0; self && j < end; j++) {
		uint64_t v = costs[col[j]];
		if (__builtin_add_overflow(w->totals[j], v, &w->totals[j]))
			w->overflow = j + 1;
	}
	/* the line in place, the room checked once (a line longer than the
	 * buffer, of thousands of events, a value at a time) */
	unsigned char *q = profdb__cv_room(w->o, end * (PROFDB__CV_U64_MAX + 1) + 1);
	if (!q) {
		for (size_t j = 0; j < end; j++) {
			profdb__cv_putc(w->o, ' ');
			profdb__cv_u64(w->o, costs[col[j]]);
		}
		profdb__cv_putc(w->o, '\n');
		return;
	}
	char *at = (char *)q;
	for (size_t j = 0; j < end; j++) {
		uint64_t v = costs[col[j]];
		*at++ = ' ';
		at += profdb__cv_fmt_u64(at, v);
	}
	*at++ = '\n';
	w->o->len += (size_t)(at - (char *)q);
}

int profdb__cgw_hidden_cost(const profdb__cgw *w, const uint64_t *costs)
{
	for (size_t k = 0; w->n_vis < w->n_ev && k < w->n_ev; k++)
		if (w->ev[k].hidden && costs[w->col == w->by_src ? w->ev[k].src : k])
			return 1;
	return 0;
}

int profdb__cgw_totals(profdb__cgw *w)
{
	if (w->overflow)
		return profdb__fail(-ERANGE, "profdb_convert: the costs of event %s written pass 2^64 "
		                    "- 1 in total, which Callgrind's totals: cannot hold; choose "
		                    "other metrics or profiles", w->ev[w->by_num[w->overflow - 1]].name);
	/* A reader that adds the parts up (profdb's does, for the sum of the
	 * profiles) must be able to. */
	for (size_t j = 0; j < w->n_vis; j++)
		if (__builtin_add_overflow(w->all_parts[j], w->totals[j], &w->all_parts[j]))
			return profdb__fail(-ERANGE, "profdb_convert: the costs of event %s pass 2^64 - 1 "
			                    "over the parts together, which a reader that adds the parts "
			                    "up cannot hold; choose other metrics or profiles",
			                    w->ev[w->by_num[j]].name);
	profdb__cv_puts(w->o, "totals:");
	for (size_t j = 0; j < w->n_vis; j++) {
		profdb__cv_putc(w->o, ' ');
		profdb__cv_u64(w->o, w->totals[j]);
	}
	profdb__cv_putc(w->o, '\n');
	return 0;
}

void profdb__cgw_part(profdb__cgw *w, const profdb *db, uint32_t index)
{
	profdb_profile p;
	profdb__cv_puts(w->o, "part: ");
	profdb__cv_u64(w->o, (uint64_t)index + 1);
	profdb__cv_putc(w->o, '\n');
	if (profdb_profile_at(db, index, &p) >= 0 && p.name.len) {
		profdb__cv_puts(w->o, "desc: Profile: ");
		put_line_text(w->o, p.name);
		profdb__cv_putc(w->o, '\n');
	}
	/* A later part repeats the columns: a reader may start each part with
	 * the default positions (line), as profdb's own does. */
	if (w->positions) {
		put_positions(w);
		put_events(w);
	}
}

int profdb__convert_callgrind(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	uint32_t *profiles;
	size_t n;
	int r = profdb__cv_profiles(db, opts, &profiles, &n);
	if (r < 0)
		return r;
	if (profdb__call_graph(db))
		r = profdb__cg_write_native(db, opts, o, profiles, n);
	else
		r = profdb__cg_write_tree(db, opts, o, profiles, n);
	free(profiles);
	return r;
}
