/* Callgrind from Callgrind: every function's line and instruction costs,
 * call sites and jumps as the backend's own records give them
 * (profdb__backend.native_records: its cost lines copied from the text
 * where they read back the same), per profile or summed, so that reading
 * the output back gives the same self costs per (profile, function,
 * position, event), the same call edges and totals (doc/CONVERT.md,
 * "Callgrind"; tests/convert_check.py). The texts of a few functions each
 * are made on either thread (cg-text.c) and written here in order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead-internal.h"
#include "cg-text-internal.h"

typedef struct native {
	profdb__cgw w;
	const profdb__native_table *t;
	const void *impl;
	int instr;                 /* positions: instr line */
	int have_last;             /* a position was written: the next may be relative */
	uint64_t last_instr, last_line;
	head head;                 /* the names the last block written left */
	unsigned spare;            /* threads it may start (profdb__spare_threads()) */
} native;

/* ---- the texts in order, on the calling thread ------------------------------------ */

static void write_cost_pos(native *n, uint64_t instr, uint64_t line)
{
	unsigned char *q = profdb__cv_room(n->w.o, POS_MAX);
	if (q)
		n->w.o->len += fmt_cost_pos((char *)q, n->instr, n->have_last, n->last_instr,
		                            n->last_line, instr, line);
	n->have_last = 1;
	n->last_instr = instr;
	n->last_line = line;
}

/* A function's text with its gaps filled, and its totals. */
static int write_text(native *n, const fn_text *x)
{
	profdb__cv_out *o = n->w.o;
	size_t at = 0;
	int r = 0;
	for (size_t i = 0; i < x->n_gaps && r >= 0; i++) {
		const gap *g = &x->gaps[i];
		if (g->at > at)   /* (a function without text has none) */
			profdb__cv_put(o, x->text + at, g->at - at);
		at = g->at;
		if (g->kind == GAP_HEAD && head_omits(&n->head, g->key, g->name_key))
			continue;   /* as the previous text's last block left it */
		if (g->kind == GAP_NAME || g->kind == GAP_HEAD) {
			r = profdb__cgw_name_key_in(&n->w, keys[g->key].table, keys[g->key].key,
			                            keys[g->key].len, g->u.name, g->name_key, g->ob_key);
		} else if (g->kind == GAP_POS || !n->have_last || n->last_instr != g->u.pos.instr ||
		           n->last_line != g->u.pos.line) {
			write_cost_pos(n, g->u.pos.instr, g->u.pos.line);
			if (g->kind == GAP_JUMP_POS)
				profdb__cv_putc(o, '\n');
		}
	}
	if (x->len > at)
		profdb__cv_put(o, x->text + at, x->len - at);
	if (x->head.known)
		n->head = x->head;
	if (x->placed) {
		n->have_last = 1;
		n->last_instr = x->last_instr;
		n->last_line = x->last_line;
	}
	uint64_t *t = n->w.totals;
	if (x->overflow)
		n->w.overflow = x->overflow;
	for (size_t j = 0; j < n->w.n_vis; j++)
		if (__builtin_add_overflow(t[j], x->totals[j], &t[j]))
			n->w.overflow = j + 1;
	return r;
}

/* Does the input carry instruction addresses? The first functions with
 * line rows tell (positions are a property of the writer, the same in
 * every part valgrind writes). */
static int probe_instr(const native *n, int64_t n_fn)
{
	int seen = 0;
	for (int64_t f = 0; f < n_fn && seen < 16; f++) {
		void *d;
		if (n->t->records_new(n->impl, PROFDB_NONE, (uint32_t)f, &d) < 0)
			return 0;
		int64_t nl = n->t->record_count(d, PROFDB__NATIVE_LINE);
		for (int64_t i = 0; i < nl; i++) {
			profdb__native_row ln;
			if (n->t->record_at(d, PROFDB__NATIVE_LINE, (uint32_t)i, &ln) >= 0 && ln.instr) {
				n->t->records_free(d);
				return 1;
			}
		}
		seen += nl > 0;
		n->t->records_free(d);
	}
	return 0;
}

/* The blocks of every function in turn, each for every profile of
 * @c profiles (NULL: once, of every profile summed), ITEMS_PER_JOB to a
 * job (make_text()), decoded and formatted by either thread
 * (ahead-internal.h, PROFDB__AHEAD_SHARED) and written here in order;
 * the progress is told after every 256th function. */
static int put_part(native *n, const profdb_convert_options *opts, const uint32_t *profiles,
                    size_t n_profiles, int all)
{
	int64_t n_fn = n->t->function_count(n->impl);
	profdb__ahead *a;
	if (n_fn < 0)
		return (int)n_fn;
	text_jobs jobs = {n->t, n->impl, n->w, n->instr, all ? NULL : profiles,
	                  all ? 1 : n_profiles, 0, {{NULL}, {NULL}}};
	jobs.n_items = (uint64_t)n_fn * jobs.n_profiles;
	uint64_t n_jobs = (jobs.n_items + ITEMS_PER_JOB - 1) / ITEMS_PER_JOB;
	int r = profdb__ahead_start(&a, n_jobs, profdb__cgt_make, profdb__cgt_drop, &jobs, n->spare,
	                            PROFDB__AHEAD_SHARED);
	for (uint64_t j = 0; j < n_jobs && r >= 0; j++) {
		void *text;   /* alive until the next one */
		if ((r = profdb__ahead_next(a, &text)) >= 0)
			r = write_text(n, text);
		if (r >= 0 && n->w.o->err)
			r = n->w.o->err;
		for (uint64_t i = j * ITEMS_PER_JOB; i < job_end(&jobs, j) && r >= 0; i++) {
			uint64_t f = i / jobs.n_profiles;
			if (i % jobs.n_profiles == jobs.n_profiles - 1 && !(f & 255) && opts->progress &&
			    opts->progress(f, (uint64_t)n_fn, opts->progress_userdata))
				r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
		}
	}
	profdb__ahead_stop(a);
	for (int i = 0; i < 2; i++)
		if (jobs.worker[i].records)
			n->t->records_free(jobs.worker[i].records);
	if (r >= 0)
		r = profdb__cgw_totals(&n->w);
	return r < 0 ? r : 0;
}

/* An input's event name is written as it is when the output reads it back
 * as the same token: no blank, control byte or NUL (the reader takes any
 * other byte in a name), and no ':' or '=' (which end a name in an
 * "event:" line). Any other name is made from the metric's
 * (profdb__cv_events). */
static int writable_event_name(profdb_str name)
{
	for (size_t i = 0; i < name.len; i++) {
		unsigned char c = (unsigned char)name.ptr[i];
		if (c <= ' ' || c == 0x7f || c == ':' || c == '=')
			return 0;
	}
	return name.len > 0;
}

int profdb__cg_write_native(const profdb *db, const profdb_convert_options *opts,
                            profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles)
{
	native n;
	memset(&n, 0, sizeof n);
	n.t = db->be->native_records;
	n.impl = db->impl;
	n.spare = profdb__spare_threads(db->opts.threads);
	if (!n.t)
		return profdb__fail(-ENOTSUP, "profdb_convert: %s keeps no records of its own to write "
		                    "as Callgrind", profdb_format_name(db->be->format));
	profdb__cv_event *ev = NULL;
	size_t n_ev = 0;
	int r = profdb__cv_events(db, opts, "Callgrind", profiles, n_profiles, &ev, &n_ev);
	if (r < 0)
		return r;
	for (size_t k = 0; k < n_ev; k++) {     /* the input's own names */
		profdb_str name, long_name, formula;
		if (n.t->event(n.impl, ev[k].src, &name, &long_name, &formula) < 0 ||
		    name.len >= sizeof ev[k].name || !writable_event_name(name))
			continue;
		memcpy(ev[k].name, name.ptr, name.len);
		ev[k].name[name.len] = 0;
		snprintf(ev[k].long_name, sizeof ev[k].long_name, "%.*s%s%.*s",
		         (int)long_name.len, long_name.ptr,
		         formula.len ? (long_name.len ? ", derived: " : "derived: ") : "",
		         (int)formula.len, formula.ptr);
	}
	/* An input name kept beside a made one may meet it ("Ir" next to an
	 * "Ir<NUL>" written as "Ir"): the output's names must differ. */
	profdb__cv_unique_names(ev, n_ev);
	if ((r = profdb__cgw_init(&n.w, o, ev, n_ev)) < 0) {
		free(ev);
		return r;
	}
	profdb__cgw_costs_by_src(&n.w);
	int64_t n_keys = n.t->name_keys(n.impl);
	if ((r = n_keys < 0 ? (int)n_keys : profdb__cgw_name_keys(&n.w, (size_t)n_keys)) < 0) {
		profdb__cgw_free(&n.w);
		free(ev);
		return r;
	}
	int64_t np = profdb_profile_count(db);
	int all = (int64_t)n_profiles == np;
	n.instr = probe_instr(&n, n.t->function_count(n.impl));
	profdb__cgw_header(&n.w, db, n.instr ? "instr line" : "line",
	                   opts->separate && n_profiles ? (int64_t)profiles[0] : -1);
	if (!opts->separate) {
		r = put_part(&n, opts, profiles, n_profiles, all);
	} else {
		for (size_t p = 0; p < n_profiles && r >= 0; p++) {
			if (p)
				profdb__cgw_part(&n.w, db, profiles[p]);
			n.have_last = 0;
			n.head.known = 0;
			if ((r = profdb__cgw_reset(&n.w)) >= 0)
				r = put_part(&n, opts, &profiles[p], 1, 0);
		}
	}
	profdb__cgw_free(&n.w);
	free(ev);
	return r;
}
