/* Streaming writer for trace.db (notes §4.6; dev-stage file header 0x30, §5). */
#include <errno.h>
#include <stdlib.h>

#include "tw-internal.h"

/* What hpcprof writes when no trace line has a sample (min > max means "no samples"). */
#define TW_NO_MIN UINT64_C(0x7fffffffffffffff)
#define TW_NO_MAX UINT64_C(0x8000000000000000)

static int set_err(int *err, int e)
{
    if (!*err)
        *err = e;
    return *err;
}

int tw__tdb_begin(tw__tdb *w, tw__buf *b, const tw__opts *o, uint32_t n_traces)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->o = *o;
    w->n_traces = n_traces;
    w->szth = 0x18u + o->extra;
    w->ths = calloc(n_traces ? n_traces : 1, w->szth);
    if (!w->ths)
        return set_err(&w->err, -ENOMEM);

    tw__file_magic(b, "trce", o->minor);
    tw__buf_zero(b, (o->devstage ? 0x30 : 0x20) - 0x10);

    w->sec_hdr = tw__buf_pos(b);
    tw__buf_zero(b, 0x20 + o->extra);
    tw__buf_align(b, 8);
    w->th_array = tw__buf_pos(b);
    tw__buf_zero(b, (size_t)n_traces * w->szth);
    tw__buf_set_u64(b, w->sec_hdr + 0x00, w->th_array);
    tw__buf_set_u32(b, w->sec_hdr + 0x08, n_traces);
    tw__buf_set_u8(b, w->sec_hdr + 0x0c, (uint8_t)w->szth);
    tw__buf_set_u64(b, 0x10, tw__buf_pos(b) - w->sec_hdr);
    tw__buf_set_u64(b, 0x18, w->sec_hdr);
    return set_err(&w->err, b->err);
}

int tw__tdb_trace_begin(tw__tdb *w, uint32_t index, uint32_t prof)
{
    if (w->err)
        return w->err;
    if (w->open || index >= w->n_traces)
        return set_err(&w->err, -EINVAL);
    w->open = 1;
    w->cur = index;
    tw__buf_align(w->b, 8); /* pStart is {Elem}*(8) */
    w->p_start = tw__buf_pos(w->b);
    tw__le32(w->ths + (size_t)index * w->szth, prof);
    return set_err(&w->err, w->b->err);
}

int tw__tdb_sample(tw__tdb *w, uint64_t time, uint32_t ctx)
{
    if (w->err)
        return w->err;
    if (!w->open)
        return set_err(&w->err, -EINVAL);
    int first = tw__buf_pos(w->b) == w->p_start;
    if (!first && time < w->last_time)
        return set_err(&w->err, -EINVAL);
    unsigned char *r = tw__buf_grow(w->b, 12);
    if (!r)
        return set_err(&w->err, w->b->err);
    tw__le64(r, time);
    tw__le32(r + 8, ctx);
    w->last_time = time;
    if (!w->any || time < w->min)
        w->min = time;
    if (!w->any || time > w->max)
        w->max = time;
    w->any = 1;
    return 0;
}

int tw__tdb_trace_end(tw__tdb *w)
{
    if (w->err)
        return w->err;
    if (!w->open)
        return set_err(&w->err, -EINVAL);
    unsigned char *th = w->ths + (size_t)w->cur * w->szth;
    tw__le64(th + 0x08, w->p_start);
    tw__le64(th + 0x10, tw__buf_pos(w->b));
    w->open = 0;
    return 0;
}

void tw__tdb_free(tw__tdb *w)
{
    free(w->ths);
    w->ths = NULL;
}

int tw__tdb_finish(tw__tdb *w, uint64_t min, uint64_t max)
{
    if (!w->err && w->open)
        set_err(&w->err, -EINVAL);
    if (!w->err) {
        if (min == 0 && max == 0) {
            min = w->any ? w->min : TW_NO_MIN;
            max = w->any ? w->max : TW_NO_MAX;
        }
        tw__buf_patch(w->b, w->th_array, w->ths, (size_t)w->n_traces * w->szth);
        tw__buf_set_u64(w->b, w->sec_hdr + 0x10, min);
        tw__buf_set_u64(w->b, w->sec_hdr + 0x18, max);
        tw__buf_align(w->b, 8);
        tw__buf_put(w->b, "trace.db", 8);
        set_err(&w->err, w->b->err);
    }
    tw__tdb_free(w);
    return w->err;
}
