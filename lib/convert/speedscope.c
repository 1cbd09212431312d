/* speedscope's JSON file format (doc/CONVERT.md): one sampled profile per
 * selected profile (the stacks of its top-down view) and one evented
 * profile per trace line. The frame table is shared and written last
 * (JSON objects are unordered), so that profiles stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb/profdb-version.h"
#include "stacks-internal.h"

typedef struct sscope {
	profdb__cv_out *o;
	profdb__cv_frames frames;
	int first;                  /* no element written yet in the current array */
	profdb__cv_buf weights;     /* the current profile's weights (u64 or double) */
	int integral;
} sscope;

static void sep(sscope *s)
{
	if (!s->first)
		profdb__cv_putc(s->o, ',');
	s->first = 0;
}

/* The path lives in this stack while a profile is walked. */
typedef struct spath {
	sscope *s;
	uint32_t *p;
	size_t depth, cap;
} spath;

static int path_push(void *ud, uint32_t frame)
{
	spath *x = ud;
	if (profdb__grow((void **)&x->p, &x->cap, x->depth + 1, sizeof *x->p) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	x->p[x->depth++] = frame;
	return 0;
}

static void path_pop(void *ud) { ((spath *)ud)->depth--; }

static int path_emit(void *ud, profdb__cv_weight w)
{
	spath *x = ud;
	sscope *s = x->s;
	sep(s);
	profdb__cv_putc(s->o, '[');
	for (size_t i = 0; i < x->depth; i++) {
		if (i)
			profdb__cv_putc(s->o, ',');
		profdb__cv_u64(s->o, x->p[i]);
	}
	profdb__cv_putc(s->o, ']');
	int r = w.integral ? profdb__cv_buf_put(&s->weights, &w.u, sizeof w.u)
	                   : profdb__cv_buf_put(&s->weights, &w.d, sizeof w.d);
	return r < 0 ? r : s->o->err;
}

/* The profile's name (profdb__cv_profile_name), then @p suffix and
 * @p suffix2; the index alone when that fails. */
static void put_profile_name(profdb__cv_out *o, const profdb *db, uint32_t profile,
                             const char *suffix, profdb_str suffix2)
{
	profdb__cv_buf b = {0};
	if (profdb__cv_profile_name(&b, db, profile) < 0 ||
	    profdb__cv_buf_put(&b, suffix, strlen(suffix)) < 0 ||
	    profdb__cv_buf_put(&b, suffix2.ptr, suffix2.len) < 0) {
		char idx[32];
		snprintf(idx, sizeof idx, "profile %u", (unsigned)profile);
		profdb__cv_json_str(o, (profdb_str){idx, strlen(idx)});
	} else {
		profdb__cv_json_str(o, (profdb_str){b.p, b.len});
	}
	profdb__cv_buf_free(&b);
}

/* One sampled profile: the stacks of @p profile's top-down view. */
static int sampled(sscope *s, const profdb *db, const profdb__cv_metric *m, uint32_t profile,
                   spath *path, profdb__cv_ctree *ctree)
{
	profdb__cv_out *o = s->o;
	profdb__cv_puts(o, "{\"type\":\"sampled\",\"name\":");
	put_profile_name(o, db, profile, ": ", m->m.name);
	profdb__cv_puts(o, ",\"unit\":\"");
	profdb__cv_puts(o, profdb__cv_unit(&m->m));
	profdb__cv_puts(o, "\",\"startValue\":0,\"samples\":[");
	s->first = 1;
	s->weights.len = 0;
	path->depth = 0;
	profdb__cv_stack_sink sink = {path_push, path_pop, path_emit, path, NULL};
	profdb__cv_weight total;
	/* One context walk for every profile where it can; else a view each. */
	int r = ctree ? profdb__cv_ctree_stacks(ctree, profile, &s->frames, &sink, &total)
	              : profdb__cv_stacks(db, m, &profile, 1, &s->frames, &sink, &total);
	if (r < 0)
		return r;
	profdb__cv_puts(o, "],\"weights\":[");
	size_t n = s->weights.len / 8;
	for (size_t i = 0; i < n; i++) {
		profdb__cv_weight w = {m->integral, 0, 0};
		memcpy(m->integral ? (void *)&w.u : (void *)&w.d, s->weights.p + 8 * i, 8);
		if (i)
			profdb__cv_putc(o, ',');
		profdb__cv_put_weight(o, w);
	}
	profdb__cv_puts(o, "],\"endValue\":");
	profdb__cv_put_weight(o, total);
	profdb__cv_putc(o, '}');
	return o->err;
}

typedef struct sevent {
	profdb__cv_out *o;
	uint64_t t0;
	int first;
} sevent;

static int event(sevent *e, char type, uint32_t frame, uint64_t t)
{
	profdb__cv_puts(e->o, e->first ? "{\"type\":\"" : ",{\"type\":\"");
	e->first = 0;
	profdb__cv_putc(e->o, type);
	profdb__cv_puts(e->o, "\",\"frame\":");
	profdb__cv_u64(e->o, frame);
	profdb__cv_puts(e->o, ",\"at\":");
	profdb__cv_u64(e->o, t - e->t0);
	profdb__cv_putc(e->o, '}');
	return e->o->err;
}

static int ev_open(void *ud, uint32_t frame, uint64_t t) { return event(ud, 'O', frame, t); }
static int ev_close(void *ud, uint32_t frame, uint64_t t) { return event(ud, 'C', frame, t); }

/* One evented profile: the trace line of @p profile, in ns since @p t0. */
static int evented(sscope *s, profdb__cv_paths *paths, uint32_t profile, uint64_t t0,
                   const profdb_convert_options *opts, uint64_t *done, uint64_t total)
{
	profdb_view v;
	int r = profdb_trace_view(paths->db, profile, &v);
	if (r < 0 || !v.count)
		return r;
	profdb__cv_out *o = s->o;
	sep(s);
	profdb__cv_puts(o, "{\"type\":\"evented\",\"name\":");
	put_profile_name(o, paths->db, profile, " (trace)", (profdb_str){"", 0});
	profdb__cv_puts(o, ",\"unit\":\"nanoseconds\",\"startValue\":");
	profdb__cv_u64(o, profdb_view_key(&v, 0) - t0);
	profdb__cv_puts(o, ",\"endValue\":");
	profdb__cv_u64(o, profdb_view_key(&v, v.count - 1) - t0);
	profdb__cv_puts(o, ",\"events\":[");
	sevent e = {o, t0, 1};
	profdb__cv_trace_sink sink = {ev_open, ev_close, &e};
	if ((r = profdb__cv_trace_walk(paths, profile, &sink, opts, done, total)) < 0)
		return r;
	profdb__cv_puts(o, "]}");
	return o->err;
}

static void put_frames(profdb__cv_out *o, const profdb__cv_frames *t)
{
	profdb__cv_puts(o, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < t->n; i++) {
		profdb__cv_puts(o, i ? ",{\"name\":" : "{\"name\":");
		profdb__cv_json_str(o, profdb__cv_frame_label(t, (uint32_t)i));
		if (t->f[i].file.len) {
			profdb__cv_puts(o, ",\"file\":");
			profdb__cv_json_str(o, t->f[i].file);
		}
		if (t->f[i].line) {
			profdb__cv_puts(o, ",\"line\":");
			profdb__cv_u64(o, t->f[i].line);
		}
		profdb__cv_putc(o, '}');
	}
	profdb__cv_puts(o, "]}");
}

int profdb__convert_speedscope(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	profdb__cv_metric m;
	uint32_t *profiles;
	size_t n;
	int r = profdb__cv_metric_pick(db, opts, "speedscope", &m);
	if (r < 0 || (r = profdb__cv_profiles(db, opts, &profiles, &n)) < 0)
		return r;
	uint64_t t0, samples;
	size_t lines;
	if ((r = profdb__cv_trace_span(db, profiles, n, 0, &t0, &samples, &lines)) < 0) {
		free(profiles);
		return r;
	}
	sscope s = {o, {0}, 1, {0}, m.integral};
	spath path = {&s, NULL, 0, 0};
	profdb__cv_paths paths = {0};
	paths.db = db, paths.frames = &s.frames;
	profdb_about about;
	profdb__cv_puts(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	                "\"exporter\":\"profdb " PROFDB_VERSION_STRING "\",\"name\":");
	profdb__cv_json_str(o, profdb_get_about(db, &about) == 0 && about.title.len ? about.title
	                                                                           : (profdb_str){"profdb", 6});
	profdb__cv_puts(o, ",\"activeProfileIndex\":0,\"profiles\":[");
	uint64_t done = 0, total = n + samples;
	profdb__cv_ctree *ctree = NULL;
	if (n && (r = profdb__cv_ctree_new(&ctree, db, &m)) == -ENOTSUP)
		r = 0;
	for (size_t i = 0; i < n && r >= 0; i++) {
		if (i)
			profdb__cv_putc(o, ',');
		r = sampled(&s, db, &m, profiles[i], &path, ctree);
		if (r >= 0 && opts->progress && opts->progress(++done, total, opts->progress_userdata))
			r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
	}
	s.first = n == 0;
	for (size_t i = 0; i < n && r >= 0 && lines; i++)
		r = evented(&s, &paths, profiles[i], t0, opts, &done, total);
	if (r >= 0) {
		profdb__cv_puts(o, "],");
		put_frames(o, &s.frames);
		profdb__cv_puts(o, "}\n");
	}
	profdb__cv_ctree_free(ctree);
	profdb__cv_paths_free(&paths);
	profdb__cv_frames_free(&s.frames);
	profdb__cv_buf_free(&s.weights);
	free(path.p);
	free(profiles);
	return r < 0 ? r : o->err;
}
