/* The traces as a timeline in one self-contained SVG file (doc/CONVERT.md,
 * "SVG timeline"): one row per trace line, one pixel column per slice of
 * the window, each coloured by the function in effect at the column's
 * centre time. A row costs one galloping search per column in its trace
 * view, so the work follows rows x columns, never the number of samples;
 * runs of equal columns are one rect. timeline-page.c writes the rest of
 * the page. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline-internal.h"
#include "core/search-internal.h"

#define NO_FN PROFDB_NONE
/* The most pixel cells a picture has (256 MiB of columns). */
#define MAX_CELLS ((size_t)1 << 26)

/* ---- functions ---------------------------------------------------------- */

/* Grows a cache of uint32_t to @p need entries, the new ones 0 (unknown). */
static int cache_grow(uint32_t **a, size_t *cap, size_t need)
{
	size_t old = *cap;
	if (profdb__grow((void **)a, cap, need, sizeof **a) < 0)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
	if (*cap > old)
		memset(*a + old, 0, (*cap - old) * sizeof **a);
	return 0;
}

static uint64_t label_hash(profdb_str s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < s.len; i++)
		h = (h ^ (unsigned char)s.ptr[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static int fn_slots_grow(timeline *t)
{
	size_t ns = t->n_fn_slots ? 2 * t->n_fn_slots : 256;
	uint32_t *s = calloc(ns, sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
	for (size_t i = 0; i < t->n_fn; i++) {
		size_t k = (size_t)label_hash(tl_fn_name(t, (uint32_t)i)) & (ns - 1);
		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(t->fn_slots);
	t->fn_slots = s, t->n_fn_slots = ns;
	return 0;
}

/* The function of frame @p frame: frames with one label (one function
 * met on several lines or files) are one function, one colour. */
static int fn_of_frame(timeline *t, uint32_t frame, uint32_t *out)
{
	int r = cache_grow(&t->frame_fn, &t->frame_fn_cap, t->frames.n);
	if (r < 0)
		return r;
	if (t->frame_fn[frame]) {
		*out = t->frame_fn[frame] - 1;
		return 0;
	}
	if (2 * (t->n_fn + 1) > t->n_fn_slots && (r = fn_slots_grow(t)) < 0)
		return r;
	profdb_str name = profdb__cv_frame_label(&t->frames, frame);
	size_t k = (size_t)label_hash(name) & (t->n_fn_slots - 1);
	for (; t->fn_slots[k]; k = (k + 1) & (t->n_fn_slots - 1)) {
		profdb_str o = tl_fn_name(t, t->fn_slots[k] - 1);
		if (o.len == name.len && (!o.len || !memcmp(o.ptr, name.ptr, o.len)))
			break;
	}
	if (!t->fn_slots[k]) {
		if (profdb__grow((void **)&t->fn, &t->fn_cap, t->n_fn + 1, sizeof *t->fn) < 0)
			return profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
		t->fn[t->n_fn].frame = frame, t->fn[t->n_fn].pixels = 0;
		t->fn_slots[k] = (uint32_t)++t->n_fn;
	}
	t->frame_fn[frame] = t->fn_slots[k];
	*out = t->fn_slots[k] - 1;
	return 0;
}

/* The function context @p ctx shows: its path's frame at the depth asked
 * (its innermost when the path is shorter, or when the depth is 0);
 * NO_FN when the sample runs nothing. */
static int fn_of_context(timeline *t, uint32_t ctx, uint32_t *out)
{
	uint32_t node;
	int r = profdb__cv_path_of(&t->paths, ctx, &node);
	if (r < 0)
		return r;
	if (node == PROFDB_NONE) {
		*out = NO_FN;
		return 0;
	}
	if ((r = cache_grow(&t->node_fn, &t->node_fn_cap, t->paths.n)) < 0)
		return r;
	if (t->node_fn[node]) {
		*out = t->node_fn[node] - 1;
		return 0;
	}
	uint32_t at = node, depth = t->opts->depth;
	while (depth && t->paths.p[at].depth > depth)
		at = t->paths.p[at].parent;
	if ((r = fn_of_frame(t, t->paths.p[at].frame, out)) < 0)
		return r;
	t->node_fn[node] = *out + 1;
	return 0;
}

/* ---- one row ------------------------------------------------------------ */

/* The absolute time at the centre of column @p c: the window's start plus
 * (c + 1/2) columns, rounded down to a nanosecond, exactly. */
static uint64_t column_time(const timeline *t, uint32_t c)
{
	uint64_t span = t->to - t->from, w2 = 2 * (uint64_t)t->columns, k = 2 * (uint64_t)c + 1;
	return t->start + t->from + k * (span / w2) + k * (span % w2) / w2;
}

typedef struct timeline_key {
	const profdb_view *v;
	uint64_t time;
} timeline_key;

static int not_after(const void *ctx, size_t i)
{
	const timeline_key *k = ctx;
	return profdb_view_key(k->v, i) <= k->time;
}

/* The first sample at or after @p lo whose time is after @p time, given
 * that those before @p lo are not: galloping, then a binary search, so a
 * row's columns cost O(columns log(samples / columns)). */
static uint64_t first_after(const profdb_view *v, uint64_t lo, uint64_t time)
{
	uint64_t n = v->count, hi = lo, step = 1;
	while (hi < n && profdb_view_key(v, hi) <= time) {
		lo = hi + 1;
		hi = step < n - hi ? hi + step : n;
		step *= 2;
	}
	timeline_key key = {v, time};
	return profdb__lower_bound(lo, hi, &key, not_after);   /* the upper bound of time */
}

/* The function of each column of one trace line (NO_FN: before its first
 * sample, after its last, or running nothing). */
static int row_columns(timeline *t, const profdb_view *v, uint32_t *col)
{
	if (!v->count) {
		for (uint32_t c = 0; c < t->columns; c++)
			col[c] = NO_FN;
		return 0;
	}
	uint64_t next = 0, last = profdb_view_key(v, v->count - 1), prev_ctx = UINT64_MAX;
	uint32_t fn = NO_FN;
	int r;
	for (uint32_t c = 0; c < t->columns; c++) {
		uint64_t time = column_time(t, c);
		if (time > last) {
			for (; c < t->columns; c++)
				col[c] = NO_FN;
			break;
		}
		next = first_after(v, next, time);
		if (!next) {
			col[c] = NO_FN;
			continue;
		}
		uint64_t ctx = profdb_view_value(v, next - 1).as.u64;
		if (ctx != prev_ctx) {
			if (ctx > UINT32_MAX)
				return profdb__fail(-EBADMSG, "profdb_convert: trace sample %" PRIu64 " names "
				                    "context %" PRIu64 ", past 2^32-1", next - 1, ctx);
			if ((r = fn_of_context(t, (uint32_t)ctx, &fn)) < 0)
				return r;
			prev_ctx = ctx;
		}
		col[c] = fn;
		if (fn != NO_FN)
			t->fn[fn].pixels++;
	}
	return 0;
}

/* One row: its group, with the label on the left where it fits, and one
 * rect per run of columns of one function. */
static int put_row(profdb__cv_out *o, const timeline *t, size_t i, const uint32_t *col,
                   profdb__cv_buf *name)
{
	name->len = 0;
	int r = profdb__cv_profile_name(name, t->db, t->rows[i]);
	if (r < 0)
		return r;
	int y = TL_TOP + (int)i * t->row_h, h = t->row_h >= 6 ? t->row_h - 1 : t->row_h;
	profdb_str label = {name->p, name->len};
	char height[32];
	snprintf(height, sizeof height, "\" height=\"%d", h);
	profdb__svg_putf(o, "<g class=\"row\" data-profile=\"%" PRIu32 "\" transform=\"translate(0,%d)\">"
	                 "<title>", t->rows[i], y);
	profdb__svg_putf(o, "%" PRIu32 ": ", t->rows[i]);
	profdb__svg_xml(o, label, SIZE_MAX);
	profdb__cv_puts(o, "</title>");
	/* a label where there is room: every row from 10 px, else one in k */
	int every = t->row_h >= 10 ? 1 : (12 + t->row_h - 1) / t->row_h;
	if (i % (size_t)every == 0) {
		profdb__svg_putf(o, "<text x=\"%d\" y=\"%.1f\" class=\"l\">%" PRIu32 ": ", TL_MARGIN,
		                 t->row_h >= 10 ? h / 2.0 + 4 : 4.0, t->rows[i]);
		profdb__svg_xml(o, label, 28);
		profdb__cv_puts(o, "</text>");
	}
	for (uint32_t c = 0, end; c < t->columns; c = end) {
		for (end = c + 1; end < t->columns && col[end] == col[c]; end++)
			;
		if (col[c] == NO_FN)
			continue;
		profdb__cv_puts(o, "<rect x=\"");
		profdb__cv_u64(o, (uint64_t)tl_x0() + c);
		profdb__cv_puts(o, "\" width=\"");
		profdb__cv_u64(o, end - c);
		profdb__cv_puts(o, height);
		const tl_fn *f = &t->fn[col[c]];
		profdb__cv_put(o, t->tails.p + f->tail_off, f->tail_len);
	}
	profdb__cv_puts(o, "</g>\n");
	return o->err;
}

static int append(const void *data, size_t len, void *userdata)
{
	return profdb__cv_buf_put(userdata, data, len);
}

/* The end of the rects of each function drawn, escaped once. */
static int make_tails(timeline *t)
{
	profdb__cv_out *o = malloc(sizeof *o);
	if (!o)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
	profdb__cv_init(o, append, &t->tails);
	for (size_t i = 0; i < t->n_fn; i++) {
		if (!t->fn[i].pixels)
			continue;
		char colour[8];
		profdb__tl_colour(t, (uint32_t)i, colour);
		int r = profdb__cv_flush(o);
		if (r < 0)
			break;
		t->fn[i].tail_off = t->tails.len;
		profdb__svg_putf(o, "\" fill=\"%s\" data-fn=\"", colour);
		profdb__svg_xml(o, tl_fn_name(t, (uint32_t)i), SIZE_MAX);
		profdb__cv_puts(o, "\"/>");
		if ((r = profdb__cv_flush(o)) < 0)
			break;
		t->fn[i].tail_len = t->tails.len - t->fn[i].tail_off;
	}
	int r = profdb__cv_flush(o);
	free(o);
	return r;
}

/* ---- the writer ---------------------------------------------------------- */

/* The trace's start (the earliest sample of any profile, as `profdb trace`
 * counts, so that --profiles does not move it), the rows (every selected
 * profile: one without samples is an empty row, as an empty trace line is
 * in hpctraceviewer) and the window's end. */
static int find_rows(timeline *t, const uint32_t *sel, size_t n_sel)
{
	uint64_t t0, samples, last = 0;
	size_t lines;
	int r = profdb__cv_trace_span(t->db, sel, n_sel, 1, &t0, &samples, &lines);
	if (r < 0)
		return r;
	int64_t np = profdb_profile_count(t->db);
	if (np < 0)
		return (int)np;
	t->start = UINT64_MAX;
	for (int64_t p = 0; p < np; p++) {
		profdb_view v;
		if ((r = profdb_trace_view(t->db, (uint32_t)p, &v)) < 0)
			return r;
		if (v.count && profdb_view_key(&v, 0) < t->start)
			t->start = profdb_view_key(&v, 0);
	}
	if (!(t->rows = malloc((n_sel + 1) * sizeof *t->rows)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
	for (size_t i = 0; i < n_sel; i++) {
		profdb_view v;
		if ((r = profdb_trace_view(t->db, sel[i], &v)) < 0)
			return r;
		t->rows[t->n_rows++] = sel[i];
		t->empty += !v.count;
		if (v.count && profdb_view_key(&v, v.count - 1) > last)
			last = profdb_view_key(&v, v.count - 1);
	}
	t->from = t->opts->from_ns;
	/* Up to the last sample, which the window then holds. */
	t->to = t->opts->to_ns ? t->opts->to_ns
	      : last - t->start < UINT64_MAX ? last - t->start + 1 : UINT64_MAX;
	if (t->to <= t->from)
		return profdb__fail(-EINVAL, "profdb_convert: the timeline's window starts at %" PRIu64
		                    " ns, at or after the last sample (%" PRIu64 " ns since the "
		                    "trace's start)", t->from, last - t->start);
	if (t->to > UINT64_MAX - t->start)
		return profdb__fail(-EINVAL, "profdb_convert: the timeline's window ends past 2^64-1 ns "
		                    "since the epoch");
	return 0;
}

static void timeline_free(timeline *t)
{
	profdb__cv_paths_free(&t->paths);
	profdb__cv_frames_free(&t->frames);
	free(t->frame_fn);
	free(t->node_fn);
	free(t->fn);
	free(t->fn_slots);
	free(t->rows);
	profdb__cv_buf_free(&t->tails);
}

int profdb__convert_timeline(const profdb *db, const profdb_convert_options *opts,
                             profdb__cv_out *o)
{
	if (opts->n_metrics)
		return profdb__fail(-EINVAL, "profdb_convert: a timeline draws the traces, which carry "
		                    "no metric values: give no metric");
	timeline t;
	memset(&t, 0, sizeof t);
	t.db = db, t.opts = opts;
	t.paths.db = db, t.paths.frames = &t.frames;
	double w = opts->width > 0 ? opts->width : 1200;
	t.columns = w < 1 ? 1 : (uint32_t)floor(w + 0.5);
	uint32_t *sel = NULL, *col = NULL;
	size_t n_sel;
	profdb__cv_buf name = {0};
	int r = profdb__cv_profiles(db, opts, &sel, &n_sel);
	if (r >= 0)
		r = find_rows(&t, sel, n_sel);
	/* Every row's columns first: the legend's size, in the header, needs
	 * the functions of them all. */
	if (r >= 0 && t.n_rows > MAX_CELLS / t.columns)
		r = profdb__fail(-EFBIG, "profdb_convert: a timeline of %zu trace lines by %" PRIu32
		                 " columns has more than 2^26 cells: choose fewer profiles or a "
		                 "smaller width", t.n_rows, t.columns);
	if (r >= 0 && !(col = malloc(t.n_rows * t.columns * sizeof *col + 1)))
		r = profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
	for (size_t i = 0; r >= 0 && i < t.n_rows; i++) {
		profdb_view v;
		if ((r = profdb_trace_view(db, t.rows[i], &v)) < 0 ||
		    (r = row_columns(&t, &v, col + i * t.columns)) < 0)
			break;
		if (opts->progress && opts->progress(i + 1, t.n_rows, opts->progress_userdata))
			r = profdb__fail(-ECANCELED, "profdb_convert: cancelled");
	}
	if (r >= 0)
		r = make_tails(&t);
	if (r >= 0) {
		int h = t.n_rows ? 720 / (int)(t.n_rows > 720 ? 720 : t.n_rows) : 20;
		t.row_h = h < 2 ? 2 : h > 20 ? 20 : h;
		r = profdb__tl_head(o, &t);
	}
	for (size_t i = 0; r >= 0 && i < t.n_rows; i++)
		r = put_row(o, &t, i, col + i * t.columns, &name);
	if (r >= 0)
		r = profdb__tl_tail(o, &t);
	profdb__cv_buf_free(&name);
	free(col);
	free(sel);
	timeline_free(&t);
	return r < 0 ? r : o->err;
}
