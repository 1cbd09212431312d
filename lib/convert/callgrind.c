/* The Callgrind writer (doc/CONVERT.md, "Callgrind"): the text helpers,
 * and the choice between the writer for Callgrind input (cg-native.c,
 * exact: line and instruction costs, call sites and jumps as read) and
 * the one for the tree formats (cg-tree.c). */
#include <stdlib.h>
#include <string.h>

#include "cgout-internal.h"
#include "query/hints-internal.h"

int profdb__cgw_init(profdb__cgw *w, profdb__cv_out *o, const profdb__cv_event *ev, size_t n_ev)
{
	memset(w, 0, sizeof *w);
	w->o = o;
	w->ev = ev;
	w->n_ev = n_ev;
	w->totals = calloc(n_ev + 1, sizeof *w->totals);
	if (!w->totals || profdb__cv_names_init(&w->ob) < 0 || profdb__cv_names_init(&w->fl) < 0 ||
	    profdb__cv_names_init(&w->fn) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	return 0;
}

/* A name's id by its address (per table: ob, fl, fn), direct-mapped. */
#define CGW_SEEN 4096u
struct profdb__cgw_seen {
	const char *ptr;
	size_t len;
	uint32_t id;
};

int profdb__cgw_stable_names(profdb__cgw *w)
{
	if (!w->seen && !(w->seen = calloc(3 * CGW_SEEN, sizeof *w->seen)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	return 0;
}

void profdb__cgw_free(profdb__cgw *w)
{
	free(w->seen);
	w->seen = NULL;
	profdb__cv_names_free(&w->ob);
	profdb__cv_names_free(&w->fl);
	profdb__cv_names_free(&w->fn);
	free(w->totals);
}

int profdb__cgw_reset(profdb__cgw *w)
{
	profdb__cv_names_free(&w->ob);
	profdb__cv_names_free(&w->fl);
	profdb__cv_names_free(&w->fn);
	memset(w->totals, 0, w->n_ev * sizeof *w->totals);
	if (w->seen)
		memset(w->seen, 0, 3 * CGW_SEEN * sizeof *w->seen);
	if (profdb__cv_names_init(&w->ob) < 0 || profdb__cv_names_init(&w->fl) < 0 ||
	    profdb__cv_names_init(&w->fn) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	return 0;
}

/* A name on one line: a line break in it would end the line early. */
static void put_line_text(profdb__cv_out *o, profdb_str s)
{
	size_t run = 0;
	for (size_t i = 0; i < s.len; i++) {
		if (s.ptr[i] != '\n' && s.ptr[i] != '\r') {
			run++;
			continue;
		}
		profdb__cv_put(o, s.ptr + i - run, run);
		profdb__cv_putc(o, ' ');
		run = 0;
	}
	profdb__cv_put(o, s.ptr + s.len - run, run);
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
	 * rule), so the first part's header comes first; the later parts keep
	 * the columns. */
	if (first_part >= 0)
		profdb__cgw_part(w, db, (uint32_t)first_part);
	profdb__cv_puts(o, "positions: ");
	profdb__cv_puts(o, positions);
	profdb__cv_putc(o, '\n');
	for (size_t k = 0; k < w->n_ev; k++) {
		if (w->ev[k].hidden || !w->ev[k].long_name[0])
			continue;
		profdb__cv_puts(o, "event: ");
		profdb__cv_puts(o, w->ev[k].name);
		profdb__cv_puts(o, " : ");
		profdb__cv_puts(o, w->ev[k].long_name);
		profdb__cv_putc(o, '\n');
	}
	profdb__cv_puts(o, "events:");
	for (size_t k = 0; k < w->n_ev; k++)
		if (!w->ev[k].hidden) {
			profdb__cv_putc(o, ' ');
			profdb__cv_puts(o, w->ev[k].name);
		}
	profdb__cv_putc(o, '\n');
}

int profdb__cgw_name(profdb__cgw *w, const char *key, profdb_str s)
{
	profdb__cv_out *o = w->o;
	size_t kn = strlen(key);   /* fl, fi, fe, fn, ob and their c-, j- forms */
	profdb__cv_names *t = kn >= 2 && key[kn - 2] == 'f' && key[kn - 1] == 'n' ? &w->fn
	                    : kn >= 2 && key[kn - 2] == 'o' && key[kn - 1] == 'b' ? &w->ob : &w->fl;
	if (!s.len && t == &w->fl)
		s = (profdb_str){"???", 3};   /* an unknown file, as valgrind names it */
	uint32_t id = 0;
	int fresh = 0, r = 0;
	struct profdb__cgw_seen *e = NULL;
	if (s.len && w->seen) {
		uintptr_t p = (uintptr_t)s.ptr;
		size_t at = (size_t)((p * UINT64_C(0x9e3779b97f4a7c15)) >> 52) & (CGW_SEEN - 1);
		e = &w->seen[(t == &w->ob ? 0 : t == &w->fl ? 1 : 2) * CGW_SEEN + at];
	}
	if (!s.len) {
		/* "key=" */
	} else if (e && e->ptr == s.ptr && e->len == s.len) {
		id = e->id;
	} else if ((r = profdb__cv_intern(t, s, &id, &fresh)) < 0) {
		return r;
	} else if (e) {
		*e = (struct profdb__cgw_seen){s.ptr, s.len, id};
	}
	/* "key=(id)", the room checked once */
	unsigned char *q = profdb__cv_room(o, kn + PROFDB__CV_U64_MAX + 4);
	if (!q)
		return 0;   /* the error sticks in o */
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
	return 0;
}

void profdb__cgw_costs(profdb__cgw *w, const uint64_t *costs, int self)
{
	/* Trailing zero costs may be left out (the format's rule). */
	size_t end = 0;
	for (size_t k = 0; k < w->n_ev; k++)
		if (!w->ev[k].hidden && costs[w->by_src ? w->ev[k].src : k])
			end = k + 1;
	for (size_t k = 0; self && k < end; k++) {
		uint64_t v = costs[w->by_src ? w->ev[k].src : k];
		if (!w->ev[k].hidden)
			w->totals[k] = UINT64_MAX - w->totals[k] < v ? UINT64_MAX : w->totals[k] + v;
	}
	/* the line in place, the room checked once (a line longer than the
	 * buffer, of thousands of events, a value at a time) */
	unsigned char *q = profdb__cv_room(w->o, end * (PROFDB__CV_U64_MAX + 1) + 1);
	if (!q) {
		for (size_t k = 0; k < end; k++) {
			if (w->ev[k].hidden)
				continue;
			profdb__cv_putc(w->o, ' ');
			profdb__cv_u64(w->o, costs[w->by_src ? w->ev[k].src : k]);
		}
		profdb__cv_putc(w->o, '\n');
		return;
	}
	char *at = (char *)q;
	for (size_t k = 0; k < end; k++) {
		if (w->ev[k].hidden)
			continue;
		*at++ = ' ';
		at += profdb__cv_fmt_u64(at, costs[w->by_src ? w->ev[k].src : k]);
	}
	*at++ = '\n';
	w->o->len += (size_t)(at - (char *)q);
}

void profdb__cgw_totals(profdb__cgw *w)
{
	profdb__cv_puts(w->o, "totals:");
	for (size_t k = 0; k < w->n_ev; k++)
		if (!w->ev[k].hidden) {
			profdb__cv_putc(w->o, ' ');
			profdb__cv_u64(w->o, w->totals[k]);
		}
	profdb__cv_putc(w->o, '\n');
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
