/* Folded stacks, "main;solve;dgemm 1234" (doc/CONVERT.md): the stacks of
 * the top-down view of one metric, one line per frame with a weight. */
#include <stdlib.h>
#include <string.h>

#include "stacks-internal.h"

typedef struct folded {
	profdb__cv_out *o;
	profdb__cv_frames frames;
	uint32_t *path;
	size_t depth, cap;
} folded;

static int push(void *ud, uint32_t frame)
{
	folded *f = ud;
	if (profdb__grow((void **)&f->path, &f->cap, f->depth + 1, sizeof *f->path) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	f->path[f->depth++] = frame;
	return 0;
}

static void pop(void *ud) { ((folded *)ud)->depth--; }

/* A frame's label with ';' (the separator) written as ':'. */
static void put_label(profdb__cv_out *o, profdb_str s)
{
	size_t from = 0;
	for (size_t i = 0; i < s.len; i++)
		if (s.ptr[i] == ';') {
			profdb__cv_put(o, s.ptr + from, i - from);
			profdb__cv_putc(o, ':');
			from = i + 1;
		}
	profdb__cv_put(o, s.ptr + from, s.len - from);
}

static int emit(void *ud, profdb__cv_weight w)
{
	folded *f = ud;
	for (size_t i = 0; i < f->depth; i++) {
		if (i)
			profdb__cv_putc(f->o, ';');
		put_label(f->o, profdb__cv_frame_label(&f->frames, f->path[i]));
	}
	profdb__cv_putc(f->o, ' ');
	profdb__cv_put_weight(f->o, w);
	profdb__cv_putc(f->o, '\n');
	return f->o->err;
}

int profdb__convert_folded(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	profdb__cv_metric m;
	int r = profdb__cv_metric_pick(db, opts, "folded stacks", &m);
	if (r < 0)
		return r;
	folded f = {o, {0}, NULL, 0, 0};
	profdb__cv_stack_sink sink = {push, pop, emit, &f, opts};
	/* No selection: the tree's default, the summary profile where the
	 * format stores the sum, else every non-summary profile. */
	r = profdb__cv_stacks(db, &m, opts->profiles, opts->n_profiles, &f.frames, &sink, NULL);
	profdb__cv_frames_free(&f.frames);
	free(f.path);
	return r;
}
