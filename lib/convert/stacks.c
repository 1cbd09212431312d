/* The stack formats' common parts: the metric, the frame table and the
 * weighted stacks of the top-down view (doc/CONVERT.md, "Common rules"). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stacks-internal.h"

int profdb__cv_buf_put(profdb__cv_buf *b, const void *data, size_t len)
{
	if (b->cap - b->len < len && profdb__grow((void **)&b->p, &b->cap, b->len + len, 1) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

void profdb__cv_buf_free(profdb__cv_buf *b)
{
	free(b->p);
	*b = (profdb__cv_buf){0};
}

/* One identity entry as `profdb profiles` prints it: "kind=value", bytes
 * that would split the words as '_'. */
int profdb__cv_identity_word(profdb__cv_buf *b, profdb_str kind, uint64_t v)
{
	char num[32];
	int n = snprintf(num, sizeof num, "=%" PRIu64, v), r = 0;
	for (size_t j = 0; r == 0 && j < kind.len; j++) {
		unsigned char ch = (unsigned char)kind.ptr[j];
		char put = ch < 0x21 || ch == 0x7f || ch == '=' ? '_' : (char)ch;
		r = profdb__cv_buf_put(b, &put, 1);
	}
	return r < 0 ? r : profdb__cv_buf_put(b, num, (size_t)n);
}

int profdb__cv_profile_name(profdb__cv_buf *b, const profdb *db, uint32_t profile)
{
	profdb_profile p;
	char idx[32];
	int r = profdb_profile_at(db, profile, &p);
	if (r < 0)
		return r;
	if (!p.name.len) {
		snprintf(idx, sizeof idx, "profile %u", (unsigned)profile);
		p.name = (profdb_str){idx, strlen(idx)};
	}
	r = profdb__cv_buf_put(b, p.name.ptr, p.name.len);
	for (uint32_t i = 0; r == 0 && i < p.n_identity; i++) {
		profdb_str kind;
		uint64_t v;
		if ((r = profdb_profile_identity(db, profile, i, &kind, &v)) < 0 ||
		    (r = profdb__cv_buf_put(b, i ? " " : " (", i ? 1 : 2)) < 0)
			break;
		r = profdb__cv_identity_word(b, kind, v);
	}
	if (r == 0 && p.n_identity)
		r = profdb__cv_buf_put(b, ")", 1);
	return r;
}

/* ---- the metric ----------------------------------------------------------- */

static int check_metric(const profdb_metric *m, const char *fmt)
{
	static const char *const rules[] = {"none", "sum", "min", "max"};
	if (m->combine == PROFDB_COMBINE_SUM)
		return 0;
	return profdb__fail(-ENOTSUP, "profdb_convert: %s needs a metric that adds up (combine sum): "
	                    "'%.*s' (id %" PRIu32 ") combines by %s, so its stacks would not add up "
	                    "to a total", fmt, (int)m->name.len, m->name.ptr, m->id,
	                    (unsigned)m->combine < 4 ? rules[m->combine] : "an unknown rule");
}

int profdb__cv_metric_pick(const profdb *db, const profdb_convert_options *opts, const char *fmt,
                           profdb__cv_metric *out)
{
	int r;
	memset(out, 0, sizeof *out);
	if (opts->n_metrics > 1)
		return profdb__fail(-EINVAL, "profdb_convert: %s writes one metric (%zu given)", fmt,
		                    opts->n_metrics);
	if (opts->n_metrics == 1) {
		if ((r = profdb_metric_get(db, opts->metrics[0], &out->m)) < 0)
			return r == -ENOENT ? profdb__fail(-EINVAL, "profdb_convert: no metric id %" PRIu32,
			                                   opts->metrics[0]) : r;
		if ((r = check_metric(&out->m, fmt)) < 0)
			return r;
	} else {
		/* The default metric (profdb_metric_default), as every front-end
		 * shows it; one that does not add up is refused by name. */
		if ((r = profdb_metric_default(db, &out->m)) < 0)
			return r == -ENOENT ? profdb__fail(-ENOTSUP, "profdb_convert: %s: no metric that "
			                                   "adds up (combine sum) has a non-zero value",
			                                   fmt) : r;
		if ((r = check_metric(&out->m, fmt)) < 0)
			return r;
	}
	out->scale = out->m.scale > 0 ? out->m.scale : 1;
	out->integral = (out->m.type == PROFDB_TYPE_U64 || out->m.type == PROFDB_TYPE_I64) &&
	                out->scale == floor(out->scale) && out->scale < 9007199254740992.0;
	return 0;
}

/* A unit speedscope knows, from a spelling: "sec", "(ns)", "bytes" ... */
static const char *unit_word(const char *p, size_t n)
{
	static const struct { const char *w, *unit; } words[] = {
		{"s", "seconds"}, {"sec", "seconds"}, {"secs", "seconds"}, {"second", "seconds"},
		{"seconds", "seconds"}, {"ms", "milliseconds"}, {"msec", "milliseconds"},
		{"milliseconds", "milliseconds"}, {"us", "microseconds"}, {"usec", "microseconds"},
		{"microseconds", "microseconds"}, {"ns", "nanoseconds"}, {"nsec", "nanoseconds"},
		{"nanoseconds", "nanoseconds"}, {"b", "bytes"}, {"byte", "bytes"}, {"bytes", "bytes"},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i].w) == n && !strncasecmp(p, words[i].w, n))
			return words[i].unit;
	return NULL;
}

const char *profdb__cv_unit(const profdb_metric *m)
{
	const char *u = unit_word(m->unit.ptr, m->unit.len);
	for (size_t i = 0; !u && i < m->name.len; i++)
		if (m->name.ptr[i] == '(') {
			size_t j = i + 1;
			while (j < m->name.len && m->name.ptr[j] != ')')
				j++;
			if (j < m->name.len)
				u = unit_word(m->name.ptr + i + 1, j - i - 1);
		}
	return u ? u : "none";
}

int profdb__cv_profiles(const profdb *db, const profdb_convert_options *opts, uint32_t **out,
                        size_t *n)
{
	*out = NULL, *n = 0;
	int64_t count = profdb_profile_count(db);
	if (count < 0)
		return (int)count;
	if (opts->profiles) {
		for (size_t i = 0; i < opts->n_profiles; i++)
			if (opts->profiles[i] >= (uint64_t)count)
				return profdb__fail(-EINVAL, "profdb_convert: profile index %" PRIu32 " past "
				                    "the last (%" PRId64 ")", opts->profiles[i], count - 1);
		if (!(*out = malloc((opts->n_profiles + 1) * sizeof **out)))
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
		memcpy(*out, opts->profiles, opts->n_profiles * sizeof **out);
		*n = opts->n_profiles;
		return 0;
	}
	int64_t k = profdb_profiles_select(db, NULL, NULL, 0);
	if (k < 0)
		return (int)k;
	if (!(*out = malloc(((size_t)k + 1) * sizeof **out)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	k = profdb_profiles_select(db, NULL, *out, (size_t)k);
	if (k < 0) {
		free(*out), *out = NULL;
		return (int)k;
	}
	*n = (size_t)k;
	return 0;
}

/* ---- frames ---------------------------------------------------------------- */

int profdb__cv_is_frame(const profdb_context *c)
{
	return c->type == PROFDB_CTX_FUNCTION || c->type == PROFDB_CTX_ROOT ||
	       c->relation == PROFDB_RELATION_CALL || c->relation == PROFDB_RELATION_INLINED ||
	       c->parent == PROFDB_NONE;
}

static profdb_str base_name(profdb_str s)
{
	for (size_t i = s.len; i > 0; i--)
		if (s.ptr[i - 1] == '/')
			return (profdb_str){s.ptr + i, s.len - i};
	return s;
}

static int put_fmt(profdb__cv_buf *b, const char *fmt, ...) PROFDB__PRINTF(2, 3);
static int put_fmt(profdb__cv_buf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	return profdb__cv_buf_put(b, tmp, n < 0 ? 0 : (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* "module+0x1a2b" (the module's base name). */
static int put_address(profdb__cv_buf *b, const profdb_context *c)
{
	profdb_str m = base_name(c->module);
	int r = profdb__cv_buf_put(b, m.ptr, m.len);
	return r < 0 ? r : put_fmt(b, "+0x%" PRIx64, c->offset);
}

int profdb__cv_label(profdb__cv_buf *b, const profdb_context *c)
{
	int r = 0;
	const profdb_str fn = c->function;
	if (c->type == PROFDB_CTX_ROOT) {
		if (!fn.len)
			return profdb__cv_buf_put(b, "<program root>", 14);
		if (fn.ptr[0] == '<')
			return profdb__cv_buf_put(b, fn.ptr, fn.len);
		if ((r = profdb__cv_buf_put(b, "<", 1)) < 0 || (r = profdb__cv_buf_put(b, fn.ptr, fn.len)) < 0)
			return r;
		return profdb__cv_buf_put(b, ">", 1);
	}
	if (fn.len)
		return profdb__cv_buf_put(b, fn.ptr, fn.len);
	if (c->type == PROFDB_CTX_FUNCTION) {
		if ((r = profdb__cv_buf_put(b, "<unknown function>", 18)) < 0 || !c->has_offset)
			return r;
		return (r = profdb__cv_buf_put(b, " ", 1)) < 0 ? r : put_address(b, c);
	}
	if (c->has_offset)
		return put_address(b, c);
	if (c->file.len) {
		profdb_str f = base_name(c->file);
		return (r = profdb__cv_buf_put(b, f.ptr, f.len)) < 0 ? r : put_fmt(b, ":%" PRIu64, c->line);
	}
	return put_fmt(b, "<context %" PRIu32 ">", c->id);
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t frame_hash(profdb_str lab, profdb_str file, uint64_t line)
{
	uint64_t h = hash_bytes(0xcbf29ce484222325ull, lab.ptr, lab.len);
	h = hash_bytes(h ^ 0xff, file.ptr, file.len);
	return hash_bytes(h ^ 0xfe, &line, sizeof line);
}

static int frames_grow(profdb__cv_frames *t)
{
	size_t ns = t->n_slots ? t->n_slots * 2 : 1024;
	uint32_t *s = calloc(ns, sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (frame table)");
	for (size_t i = 0; i < t->n; i++) {
		const profdb__cv_frame *f = &t->f[i];
		uint64_t h = frame_hash(profdb__cv_frame_label(t, (uint32_t)i), f->file, f->line);
		size_t k = (size_t)h & (ns - 1);
		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s, t->n_slots = ns;
	return 0;
}

int profdb__cv_frame_intern(profdb__cv_frames *t, const profdb_context *c, uint32_t *index)
{
	int r;
	t->tmp.len = 0;
	if ((r = profdb__cv_label(&t->tmp, c)) < 0)
		return r;
	for (size_t i = 0; i < t->tmp.len; i++)   /* no control bytes in a name */
		if ((unsigned char)t->tmp.p[i] < 0x20 || t->tmp.p[i] == 0x7f)
			t->tmp.p[i] = '?';
	profdb_str lab = {t->tmp.p, t->tmp.len};
	uint64_t h = frame_hash(lab, c->file, c->line);
	if (2 * (t->n + 1) > t->n_slots && (r = frames_grow(t)) < 0)
		return r;
	size_t k = (size_t)h & (t->n_slots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->n_slots - 1)) {
		const profdb__cv_frame *f = &t->f[t->slots[k] - 1];
		if (f->label_len == lab.len && f->line == c->line && f->file.len == c->file.len &&
		    !memcmp(t->labels.p + f->label_off, lab.ptr, lab.len) &&
		    (!f->file.len || !memcmp(f->file.ptr, c->file.ptr, f->file.len))) {
			*index = t->slots[k] - 1;
			return 0;
		}
	}
	if (t->n == UINT32_MAX - 1)
		return profdb__fail(-EFBIG, "profdb_convert: more than 2^32 frames");
	if (profdb__grow((void **)&t->f, &t->cap, t->n + 1, sizeof *t->f) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (frame table)");
	profdb__cv_frame *f = &t->f[t->n];
	f->label_off = t->labels.len, f->label_len = lab.len;
	f->file = c->file, f->line = c->line, f->module = c->module;
	if ((r = profdb__cv_buf_put(&t->labels, lab.ptr, lab.len)) < 0)
		return r;
	t->slots[k] = (uint32_t)t->n + 1;
	*index = (uint32_t)t->n++;
	return 0;
}

void profdb__cv_frames_free(profdb__cv_frames *t)
{
	free(t->f);
	free(t->slots);
	profdb__cv_buf_free(&t->labels);
	profdb__cv_buf_free(&t->tmp);
	*t = (profdb__cv_frames){0};
}

void profdb__cv_put_weight(profdb__cv_out *o, profdb__cv_weight w)
{
	if (w.integral)
		profdb__cv_u64(o, w.u);
	else
		profdb__cv_double(o, w.d);
}

/* ---- the weighted stacks of a top-down view ------------------------------------- */

typedef struct sentry {
	uint32_t node;
	uint32_t next_child;  /* the child to visit next, PROFDB_NONE when done */
	uint32_t up;          /* the nearest frame entry strictly above, PROFDB_NONE: the root */
	uint32_t seq;         /* pre-order number: the view's node id */
	int is_frame;
	double inc, sub;      /* inclusive; the child frames' inclusive values */
	uint32_t n_sub;
} sentry;

typedef struct swalk {
	const profdb__cv_metric *m;
	const profdb__cv_stack_sink *sink;
	double cum;           /* integral metrics: the weights so far, unrounded */
	uint64_t written;     /* ... and rounded (what was emitted) */
	double root_sub;
	uint32_t root_n;
} swalk;

/* The weight of a frame whose inclusive value is @p inc, with @p v the
 * inclusive value less that of its @p n child frames. A difference within
 * its rounding error is zero; a negative one beyond it (the database holds
 * callees above their caller: synthetic test files, Cube files with
 * inconsistent sums) leaves the caller nothing of its own, and the flame
 * graph is wider than the total by that much (doc/CONVERT.md). */
static double own_part(double v, double inc, uint32_t n)
{
	return fabs(v) <= (n + 2) * DBL_EPSILON * fabs(inc) || v < 0 ? 0 : v;
}

/* Weight @p v of a frame whose inclusive value is @p inc with @p n child
 * frames; the sink's leave() hears of the frame first, as @p shown
 * inclusive (@p inc, but the root's leftover for a stack of the root
 * alone). */
static int emit(swalk *w, double v, double inc, uint32_t n, uint32_t node, double shown)
{
	if (isnan(v))
		return profdb__fail(-ENOTSUP, "profdb_convert: metric '%.*s' has no value (NaN) at "
		                    "top-down node %" PRIu32, (int)w->m->m.name.len, w->m->m.name.ptr, node);
	v = own_part(v, inc, n);
	int heard = w->sink->leave ? w->sink->leave(w->sink->ud, shown, v) : 0;
	if (heard < 0)
		return heard;
	profdb__cv_weight x = {w->m->integral, 0, v};
	if (w->m->integral) {
		/* Round the running sum, not each weight: the weights then add up
		 * to the rounded total exactly. */
		w->cum += v;
		double r = nearbyint(w->cum);
		if (r >= 0x1p64)
			return profdb__fail(-ERANGE, "profdb_convert: metric '%.*s': the weights written "
			                    "pass 2^64 at top-down node %" PRIu32, (int)w->m->m.name.len,
			                    w->m->m.name.ptr, node);
		uint64_t upto = r > 0 ? (uint64_t)r : 0;
		if (upto <= w->written)
			return 0;
		x.u = upto - w->written;
		w->written = upto;
		x.d = (double)x.u;
	} else if (v == 0) {
		return 0;
	}
	return w->sink->emit(w->sink->ud, x);
}

int profdb__cv_walk(const profdb__cv_source *src, const profdb__cv_metric *m,
                    profdb__cv_frames *frames, const profdb__cv_stack_sink *sink,
                    profdb__cv_weight *total)
{
	int64_t count = src->count;
	sentry *st = malloc((size_t)(count > 0 ? count : 1) * sizeof *st);
	swalk w = {m, sink, 0, 0, 0, 0};
	size_t sp = 0;
	uint32_t seq = 0;
	double root_inc = 0;
	int r = 0;
	if (!st)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (%" PRId64 " nodes)", count);
	/* Pre-order down, post-order up: a frame's weight is known when its
	 * subtree is done. */
	uint32_t cur = count > 0 ? src->root : PROFDB_NONE;
	for (;;) {
		if (cur != PROFDB_NONE) {          /* enter node cur */
			profdb__cv_snode nd;
			uint32_t id = seq++;
			if ((r = src->enter(src->ud, cur, frames, &nd)) < 0)
				break;
			if (sp && nd.other) {   /* its cost stays with the parent */
				cur = PROFDB_NONE;
				continue;
			}
			sentry *e = &st[sp];
			e->node = cur, e->seq = id, e->next_child = nd.first_child;
			e->is_frame = nd.frame != PROFDB_NONE;
			e->sub = 0, e->n_sub = 0;
			e->up = !sp ? PROFDB_NONE : st[sp - 1].is_frame ? (uint32_t)(sp - 1) : st[sp - 1].up;
			e->inc = nd.inc * m->scale;
			if (!sp)
				root_inc = e->inc;
			if (e->is_frame && (r = sink->push(sink->ud, nd.frame)) < 0)
				break;
			sp++;
			const profdb_convert_options *po = sink->progress;
			if (po && po->progress && !(id & 0xfff) && id &&
			    po->progress(id, (uint64_t)count, po->progress_userdata)) {
				r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
				break;
			}
		}
		if (!sp)
			break;
		sentry *e = &st[sp - 1];
		if ((cur = e->next_child) != PROFDB_NONE) {
			if ((r = src->next(src->ud, cur, &e->next_child)) < 0)
				break;
			continue;
		}
		/* leave e */
		if (e->is_frame) {
			if ((r = emit(&w, e->inc - e->sub, e->inc, e->n_sub, e->seq, e->inc)) < 0)
				break;
			sink->pop(sink->ud);
			if (e->up == PROFDB_NONE)
				w.root_sub += e->inc, w.root_n++;
			else
				st[e->up].sub += e->inc, st[e->up].n_sub++;
		}
		sp--;
	}
	/* What no frame holds (costs at the root, a cut-off at the top): one
	 * stack of the root alone. */
	if (r >= 0 && count > 0) {
		double v = root_inc - w.root_sub;
		if (own_part(v, root_inc, w.root_n) > 0 || v < 0) {
			profdb_context c = {0};
			uint32_t fi;
			c.type = PROFDB_CTX_ROOT;
			c.parent = PROFDB_NONE;
			if ((r = profdb__cv_frame_intern(frames, &c, &fi)) >= 0 &&
			    (r = sink->push(sink->ud, fi)) >= 0) {
				r = emit(&w, v, root_inc, w.root_n, 0, own_part(v, root_inc, w.root_n));
				sink->pop(sink->ud);
			}
		}
	}
	if (r >= 0 && total) {
		total->integral = m->integral;
		total->d = root_inc;
		total->u = m->integral ? w.written : 0;
	}
	free(st);
	return r < 0 ? r : 0;
}

/* ---- the source: a built view (profdb_tree_new) ------------------------------------ */

typedef struct tsrc {
	const profdb *db;
	const profdb_tree *t;
} tsrc;

/* Node @p id: its first child, inclusive value, and frame (node 0 only
 * when it stands for a real context that is not a root). */
static int tree_enter(void *ud, uint32_t id, profdb__cv_frames *frames, profdb__cv_snode *out)
{
	const tsrc *s = ud;
	profdb_node nd;
	profdb_context c;
	int r = profdb_tree_get(s->t, id, &nd);
	out->frame = PROFDB_NONE;
	out->other = nd.type == PROFDB_NODE_OTHER;
	out->first_child = nd.first_child;
	if (r < 0)
		return r;
	if (nd.context != PROFDB_NONE && !out->other) {
		if ((r = profdb_context_get(s->db, nd.context, &c)) < 0)
			return r;
		if (profdb__cv_is_frame(&c) && !(nd.id == 0 && c.type == PROFDB_CTX_ROOT) &&
		    (r = profdb__cv_frame_intern(frames, &c, &out->frame)) < 0)
			return r;
	}
	return out->other ? 0 : profdb_tree_values(s->t, id, 0, &out->inc, NULL);
}

static int tree_next(void *ud, uint32_t id, uint32_t *sibling)
{
	profdb_node nd;
	int r = profdb_tree_get(((const tsrc *)ud)->t, id, &nd);
	*sibling = r < 0 ? PROFDB_NONE : nd.next_sibling;
	return r;
}

int profdb__cv_stacks(const profdb *db, const profdb__cv_metric *m, const uint32_t *profiles,
                      size_t n_profiles, profdb__cv_frames *frames,
                      const profdb__cv_stack_sink *sink, profdb__cv_weight *total)
{
	profdb_tree_options to = PROFDB_TREE_OPTIONS_INIT;
	to.metrics = &m->m.id, to.n_metrics = 1;
	to.profiles = profiles, to.n_profiles = n_profiles;
	profdb_tree *t;
	int r = profdb_tree_new(&t, db, &to);
	if (r < 0)
		return r;
	tsrc ts = {db, t};
	profdb__cv_source src = {tree_enter, tree_next, &ts, 0, profdb_tree_count(t)};
	r = profdb__cv_walk(&src, m, frames, sink, total);
	profdb_tree_free(t);
	return r;
}
