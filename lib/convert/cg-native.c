/* Callgrind from Callgrind: every function's line and instruction costs,
 * call sites and jumps as the backend's own records give them
 * (profdb__backend.native_records), per profile or summed, so that reading
 * the output back gives the same self costs per (profile, function,
 * position, event), the same call edges and totals (doc/CONVERT.md,
 * "Callgrind"; tests/convert_check.py). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead-internal.h"
#include "cgout-internal.h"
#include "query/query-internal.h"

typedef struct native {
	profdb__cgw w;
	const profdb__native_table *t;
	const void *impl;
	int instr;                 /* positions: instr line */
	profdb_str cur;            /* the cost lines' file */
	uint32_t cur_key;          /* its name key */
	int have_last;             /* a position was written: the next may be relative */
	uint64_t last_instr, last_line;
	unsigned spare;            /* threads it may start (profdb__spare_threads()) */
} native;

static int same(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.ptr == b.ptr || !memcmp(a.ptr, b.ptr, a.len));
}

static void put_hex(profdb__cv_out *o, uint64_t v)
{
	char tmp[17];
	int i = 16;
	tmp[16] = 0;
	do
		tmp[--i] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	profdb__cv_puts(o, tmp + i);
}

/* An absolute position (calls= and jump targets). */
static void put_pos(native *n, uint64_t instr, uint64_t line)
{
	if (n->instr) {
		profdb__cv_puts(n->w.o, "0x");
		put_hex(n->w.o, instr);
		profdb__cv_putc(n->w.o, ' ');
	}
	profdb__cv_u64(n->w.o, line);
}

/* A relative subposition at @p at, in decimal (callgrind_annotate reads
 * "+N" and "-N" as decimal only, hex addresses included): its length. */
static size_t fmt_rel(char *at, uint64_t v, uint64_t last)
{
	if (v == last) {
		*at = '*';
		return 1;
	}
	*at = v > last ? '+' : '-';
	return 1 + profdb__cv_fmt_u64(at + 1, v > last ? v - last : last - v);
}

/* The position of a cost line, relative to the previous one as valgrind
 * writes them (--compress-pos): the output stays near the input's size. */
static void put_cost_pos(native *n, uint64_t instr, uint64_t line)
{
	unsigned char *q = n->have_last ? profdb__cv_room(n->w.o, 2 * (PROFDB__CV_U64_MAX + 2))
	                                : NULL;
	if (!n->have_last) {
		put_pos(n, instr, line);
	} else if (q) {
		char *at = (char *)q;
		if (n->instr) {
			at += fmt_rel(at, instr, n->last_instr);
			*at++ = ' ';
		}
		at += fmt_rel(at, line, n->last_line);
		n->w.o->len += (size_t)(at - (char *)q);
	}
	n->have_last = 1;
	n->last_instr = instr;
	n->last_line = line;
}

static int put_file(native *n, profdb_str file, uint32_t key)
{
	if (key == n->cur_key || same(file, n->cur))
		return 0;
	n->cur = file;
	n->cur_key = key;
	return profdb__cgw_name_key(&n->w, "fi", file, key);
}

static int put_lines(native *n, const void *d)
{
	int64_t nl = n->t->record_count(d, PROFDB__NATIVE_LINE);
	profdb__native_line rows[256];   /* a batch at a time */
	uint32_t got;
	for (int64_t i = 0; i < nl; i += got) {
		if (!(got = n->t->lines(d, (uint32_t)i, 256, rows)))
			return profdb__fail(-EIO, "profdb_convert: internal error: line record %" PRId64
			                    " of %" PRId64 " missing", i, nl);
		for (uint32_t k = 0; k < got; k++) {
			const profdb__native_line *ln = &rows[k];
			int r;
			/* the costs were written by the thread that decoded them:
			 * ask for them a few rows ahead */
			if (k + 8 < got) {
				__builtin_prefetch(rows[k + 8].costs);
				__builtin_prefetch(rows[k + 8].costs + 7);
			}
			size_t end = profdb__cgw_cost_end(&n->w, ln->costs);
			if (!end && !profdb__cgw_hidden_cost(&n->w, ln->costs))
				continue;   /* no cost at all */
			if ((r = put_file(n, ln->file, ln->file_key)) < 0)
				return r;
			put_cost_pos(n, ln->instr, ln->line);
			profdb__cgw_put_costs(&n->w, ln->costs, 1, end);
		}
	}
	return nl < 0 ? (int)nl : 0;
}

static int put_calls(native *n, const void *d)
{
	int64_t nc = n->t->record_count(d, PROFDB__NATIVE_CALL);
	for (int64_t i = 0; i < nc; i++) {
		profdb__native_row cs;
		profdb__native_fn callee;
		int r = n->t->record_at(d, PROFDB__NATIVE_CALL, (uint32_t)i, &cs);
		if (r < 0 || (r = n->t->function(n->impl, cs.callee, &callee)) < 0 ||
		    (r = put_file(n, cs.file, cs.file_key)) < 0 ||
		    (r = profdb__cgw_name_key(&n->w, "cob", callee.object, callee.object_key)) < 0 ||
		    (r = profdb__cgw_name_key(&n->w, "cfi", callee.file, callee.file_key)) < 0 ||
		    (r = profdb__cgw_name_key(&n->w, "cfn", callee.name, callee.name_key)) < 0)
			return r;
		profdb__cv_puts(n->w.o, "calls=");
		profdb__cv_u64(n->w.o, cs.count);
		profdb__cv_putc(n->w.o, ' ');
		put_pos(n, 0, 0);
		profdb__cv_putc(n->w.o, '\n');
		put_cost_pos(n, cs.instr, cs.line);
		profdb__cgw_costs(&n->w, cs.costs, 0);
	}
	return nc < 0 ? (int)nc : 0;
}

/* Jumps as written: jfi= and jfn= each time (they name the target). */
static int put_jumps(native *n, const void *d)
{
	int64_t nj = n->t->record_count(d, PROFDB__NATIVE_JUMP);
	for (int64_t i = 0; i < nj; i++) {
		profdb__native_row j;
		int r = n->t->record_at(d, PROFDB__NATIVE_JUMP, (uint32_t)i, &j);
		if (r < 0 || (r = profdb__cgw_name_key(&n->w, "jfi", j.file, j.file_key)) < 0 ||
		    (r = profdb__cgw_name_key(&n->w, "jfn", j.to_function, j.to_function_key)) < 0)
			return r;
		/* The jump's source is the position in effect at jump= (profdb's
		 * reading; valgrind also repeats it on the line after). */
		if (!n->have_last || n->last_instr != j.instr || n->last_line != j.line) {
			put_cost_pos(n, j.instr, j.line);
			profdb__cv_putc(n->w.o, '\n');
		}
		/* valgrind's own forms: jump=COUNT, jcnd=FOLLOWED/EXECUTED */
		profdb__cv_puts(n->w.o, j.conditional ? "jcnd=" : "jump=");
		profdb__cv_u64(n->w.o, j.count);
		if (j.conditional) {
			profdb__cv_putc(n->w.o, '/');
			profdb__cv_u64(n->w.o, j.executed);
		}
		profdb__cv_putc(n->w.o, ' ');
		put_pos(n, j.to_instr, j.to_line);
		profdb__cv_putc(n->w.o, '\n');
		put_cost_pos(n, j.instr, j.line);
		profdb__cv_putc(n->w.o, '\n');
	}
	return nj < 0 ? (int)nj : 0;
}

/* The records of every function in turn, each for every profile of
 * @c profiles (NULL: once, of every profile summed): job j is function
 * j / n_profiles. Made ahead on a second thread (ahead-internal.h), in
 * the memory of records taken and done with (spare: as many as the two
 * threads pass in a turn, AHEAD_RING, up to SPARE_BYTES): the rows' room
 * is allocated once, not per function. */
#define SPARE_RECORDS 256u
#define SPARE_BYTES ((size_t)8 << 20)
typedef struct records_jobs {
	const profdb__native_table *t;
	const void *impl;
	const uint32_t *profiles;
	size_t n_profiles;
	size_t n_metrics;
	pthread_mutex_t lock;      /* of spare: records are dropped on either thread */
	void *spare[SPARE_RECORDS];
	size_t spare_bytes[SPARE_RECORDS];
	size_t n_spare, bytes;
} records_jobs;

static int make_records(void *ctx, uint64_t j, void **out, size_t *bytes)
{
	records_jobs *x = ctx;
	uint32_t fn = (uint32_t)(j / x->n_profiles);
	uint32_t profile = x->profiles ? x->profiles[j % x->n_profiles] : PROFDB_NONE;
	void *old = NULL;
	pthread_mutex_lock(&x->lock);
	if (x->n_spare) {
		old = x->spare[--x->n_spare];
		x->bytes -= x->spare_bytes[x->n_spare];
	}
	pthread_mutex_unlock(&x->lock);
	int r = x->t->records_renew(x->impl, profile, fn, old, out);
	if (r < 0)
		return r;
	/* about a row's position and costs each (the costs are most of it) */
	int64_t rows = 0;
	for (int kind = PROFDB__NATIVE_LINE; kind <= PROFDB__NATIVE_JUMP; kind++)
		rows += x->t->record_count(*out, kind);
	*bytes = (size_t)rows * (32 + x->n_metrics * sizeof(uint64_t));
	return 0;
}

static void drop_records(void *ctx, void *records)
{
	records_jobs *x = ctx;
	size_t bytes = x->t->records_room(records);
	pthread_mutex_lock(&x->lock);
	if (x->n_spare < SPARE_RECORDS && bytes <= SPARE_BYTES - x->bytes) {
		x->spare_bytes[x->n_spare] = bytes;
		x->spare[x->n_spare++] = records;
		x->bytes += bytes;
		records = NULL;
	}
	pthread_mutex_unlock(&x->lock);
	if (records)
		x->t->records_free(records);
}

/* Function @p fn's block, from its next records (of one profile, or of
 * all summed). */
static int put_function(native *n, profdb__ahead *a, uint32_t fn)
{
	void *d;
	profdb__native_fn f;
	int r = profdb__ahead_next(a, &d);   /* d: alive until the next one */
	if (r < 0 || (r = n->t->function(n->impl, fn, &f)) < 0)
		return r;
	if (n->t->record_count(d, PROFDB__NATIVE_LINE) > 0 ||
	    n->t->record_count(d, PROFDB__NATIVE_CALL) > 0 ||
	    n->t->record_count(d, PROFDB__NATIVE_JUMP) > 0) {
		if ((r = profdb__cgw_name_key(&n->w, "ob", f.object, f.object_key)) >= 0 &&
		    (r = profdb__cgw_name_key(&n->w, "fl", f.file, f.file_key)) >= 0 &&
		    (r = profdb__cgw_name_key(&n->w, "fn", f.name, f.name_key)) >= 0) {
			n->cur = f.file;
			n->cur_key = f.file_key;
			if ((r = put_lines(n, d)) >= 0 && (r = put_calls(n, d)) >= 0)
				r = put_jumps(n, d);
		}
	}
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

static int put_part(native *n, const profdb_convert_options *opts, const uint32_t *profiles,
                    size_t n_profiles, int all)
{
	int64_t n_fn = n->t->function_count(n->impl);
	profdb__ahead *a;
	if (n_fn < 0)
		return (int)n_fn;
	records_jobs jobs = {n->t, n->impl, all ? NULL : profiles, all ? 1 : n_profiles, n->w.n_ev,
	                     PTHREAD_MUTEX_INITIALIZER, {NULL}, {0}, 0, 0};
	int r = profdb__ahead_start(&a, (uint64_t)n_fn * jobs.n_profiles, make_records, drop_records,
	                            &jobs, n->spare);
	for (int64_t f = 0; f < n_fn && r >= 0; f++) {
		for (size_t p = 0; p < (all ? 1 : n_profiles) && r >= 0; p++)
			r = put_function(n, a, (uint32_t)f);
		if (r >= 0 && n->w.o->err)
			r = n->w.o->err;
		if (r >= 0 && opts->progress && !(f & 255) &&
		    opts->progress((uint64_t)f, (uint64_t)n_fn, opts->progress_userdata))
			r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
	}
	profdb__ahead_stop(a);
	for (size_t i = 0; i < jobs.n_spare; i++)
		n->t->records_free(jobs.spare[i]);
	pthread_mutex_destroy(&jobs.lock);
	if (r >= 0)
		profdb__cgw_totals(&n->w);
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
			if ((r = profdb__cgw_reset(&n.w)) >= 0)
				r = put_part(&n, opts, &profiles[p], 1, 0);
		}
	}
	profdb__cgw_free(&n.w);
	free(ev);
	return r;
}
