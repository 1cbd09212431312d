/* Streaming writers for profile.db (notes §4.4) and cct.db (§4.5).
 *
 * Values arrive already sorted and go straight to the output buffer, so a multi-GiB file never sits
 * in memory: only the per-block index being built and the fixed-size PI / CI arrays are kept, and
 * the latter are patched into their reserved place at the end. */
#include <errno.h>
#include <stdlib.h>

#include "tw-internal.h"

/* Appends n bytes to a growable byte array. */
static int bytes_push(unsigned char **a, size_t *len, size_t *cap, const unsigned char *p, size_t n)
{
    if (n > *cap - *len) {
        size_t want = *cap ? *cap : 256;
        while (want - *len < n) {
            if (want > SIZE_MAX / 2)
                return -ENOMEM;
            want *= 2;
        }
        unsigned char *q = realloc(*a, want);
        if (!q)
            return -ENOMEM;
        *a = q;
        *cap = want;
    }
    memcpy(*a + *len, p, n);
    *len += n;
    return 0;
}

static int set_err(int *err, int e)
{
    if (!*err)
        *err = e;
    return *err;
}

/* ================================ profile.db ================================ */

int tw__pdb_begin(tw__pdb *w, tw__buf *b, const tw__opts *o, uint32_t n, const tw_profile *profiles)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->o = *o;
    w->n_profiles = n;
    w->cur = -1;
    /* {PI}: 0x30 with flags at 0x28; dev-stage 0x28 without flags. */
    w->szpi = (o->devstage ? 0x28u : 0x30u) + o->extra;
    w->pis = calloc(n ? n : 1, w->szpi);
    if (!w->pis)
        return set_err(&w->err, -ENOMEM);

    tw__file_magic(b, "prof", o->minor);
    tw__buf_zero(b, 0x30 - 0x10);

    uint64_t sec = tw__buf_pos(b); /* 0x30 */
    tw__buf_zero(b, 0x0d + o->extra);
    tw__buf_align(b, 8);
    w->pi_array = tw__buf_pos(b);
    tw__buf_zero(b, (size_t)n * w->szpi);
    tw__buf_set_u64(b, sec + 0x00, w->pi_array);
    tw__buf_set_u32(b, sec + 0x08, n);
    tw__buf_set_u8(b, sec + 0x0c, (uint8_t)w->szpi);
    tw__buf_set_u64(b, 0x10, tw__buf_pos(b) - sec);
    tw__buf_set_u64(b, 0x18, sec);

    tw__buf_align(b, 8);
    uint64_t tsec = tw__buf_pos(b);
    for (uint32_t p = 0; p < n; p++) {
        const tw_profile *pr = &profiles[p];
        unsigned char *pi = w->pis + (size_t)p * w->szpi;
        if (!o->devstage && pr->is_summary)
            tw__le32(pi + 0x28, 1);
        if (pr->n_ids == 0)
            continue; /* pIdTuple 0, as hpcprof writes for the summary profile */
        tw__buf_align(b, 8);
        tw__le64(pi + 0x20, tw__buf_pos(b));
        tw__buf_u16(b, (uint16_t)pr->n_ids);
        tw__buf_zero(b, 6);
        for (size_t i = 0; i < pr->n_ids; i++) {
            unsigned char *r = tw__buf_grow(b, 16);
            if (!r)
                break;
            r[0] = pr->ids[i].kind;
            tw__le16(r + 2, pr->ids[i].flags);
            tw__le32(r + 4, pr->ids[i].logical);
            tw__le64(r + 8, pr->ids[i].physical);
        }
    }
    tw__buf_set_u64(b, 0x20, tw__buf_pos(b) - tsec);
    tw__buf_set_u64(b, 0x28, tsec);
    return set_err(&w->err, b->err);
}

int tw__pdb_profile_begin(tw__pdb *w, uint32_t index)
{
    if (w->err)
        return w->err;
    if (index >= w->n_profiles || w->cur >= 0)
        return set_err(&w->err, -EINVAL);
    w->cur = index;
    tw__block_start(w->b, &w->o);
    w->p_values = tw__buf_pos(w->b);
    w->n_values = 0;
    w->n_ctxs = 0;
    w->idx_len = 0;
    return w->b->err;
}

int tw__pdb_value(tw__pdb *w, uint32_t ctx, uint16_t metric, double v)
{
    if (w->err)
        return w->err;
    if (w->cur < 0)
        return set_err(&w->err, -EINVAL);
    if (w->n_values == 0 || ctx != w->last_ctx) {
        if (w->n_values > 0 && ctx < w->last_ctx)
            return set_err(&w->err, -EINVAL);
        if (w->n_ctxs == UINT32_MAX)
            return set_err(&w->err, -EINVAL);
        unsigned char rec[12];
        tw__le32(rec, ctx);
        tw__le64(rec + 4, w->n_values);
        if (bytes_push(&w->idx, &w->idx_len, &w->idx_cap, rec, sizeof rec) < 0)
            return set_err(&w->err, -ENOMEM);
        w->n_ctxs++;
    } else if (metric <= w->last_metric) {
        return set_err(&w->err, -EINVAL); /* unsorted or duplicate (ctx, metric) */
    }
    w->last_ctx = ctx;
    w->last_metric = metric;
    unsigned char *r = tw__buf_grow(w->b, 10);
    if (!r)
        return set_err(&w->err, w->b->err);
    tw__le16(r, metric);
    tw__lef64(r + 2, v);
    w->n_values++;
    return 0;
}

int tw__pdb_profile_end(tw__pdb *w)
{
    if (w->err)
        return w->err;
    if (w->cur < 0)
        return set_err(&w->err, -EINVAL);
    /* {Idx} is 4-aligned after the 10-byte {Val}s (0 or 2 padding bytes), or packed right after
     * them when testing unaligned access. */
    if (!w->o.unaligned)
        tw__buf_align(w->b, 4);
    uint64_t p_idx = tw__buf_pos(w->b);
    tw__buf_put(w->b, w->idx, w->idx_len);
    unsigned char *pi = w->pis + (size_t)w->cur * w->szpi;
    tw__le64(pi + 0x00, w->n_values);
    tw__le64(pi + 0x08, w->p_values);
    tw__le32(pi + 0x10, w->n_ctxs);
    tw__le64(pi + 0x18, p_idx);
    w->cur = -1;
    return set_err(&w->err, w->b->err);
}

void tw__pdb_free(tw__pdb *w)
{
    free(w->pis);
    free(w->idx);
    w->pis = w->idx = NULL;
}

int tw__pdb_finish(tw__pdb *w)
{
    if (!w->err && w->cur >= 0)
        set_err(&w->err, -EINVAL);
    if (!w->err) {
        tw__buf_patch(w->b, w->pi_array, w->pis, (size_t)w->n_profiles * w->szpi);
        tw__buf_align(w->b, 4); /* hpcprof's footers are only 4-aligned here */
        tw__buf_put(w->b, "_prof.db", 8);
        set_err(&w->err, w->b->err);
    }
    tw__pdb_free(w);
    return w->err;
}

/* ================================ cct.db ================================ */

int tw__cdb_begin(tw__cdb *w, tw__buf *b, const tw__opts *o, uint32_t n_ctxs)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->o = *o;
    w->n_ctxs = n_ctxs;
    w->szci = 0x20u + o->extra;
    w->cis = calloc(n_ctxs ? n_ctxs : 1, w->szci);
    if (!w->cis)
        return set_err(&w->err, -ENOMEM);

    /* hpcprof writes a 0x30-byte header whose bytes 0x20..0x2f are undocumented (u64 1 at 0x28 in
     * every final-layout file); copying that keeps readers honest about ignoring them. */
    tw__file_magic(b, "ctxt", o->minor);
    tw__buf_zero(b, 0x30 - 0x10);
    if (!o->devstage)
        tw__buf_set_u64(b, 0x28, 1);

    uint64_t sec = tw__buf_pos(b);
    tw__buf_zero(b, 0x0d + o->extra);
    tw__buf_align(b, 8);
    w->ci_array = tw__buf_pos(b);
    tw__buf_zero(b, (size_t)n_ctxs * w->szci);
    tw__buf_set_u64(b, sec + 0x00, w->ci_array);
    tw__buf_set_u32(b, sec + 0x08, n_ctxs);
    tw__buf_set_u8(b, sec + 0x0c, (uint8_t)w->szci);
    tw__buf_set_u64(b, 0x10, tw__buf_pos(b) - sec);
    tw__buf_set_u64(b, 0x18, sec);
    return set_err(&w->err, b->err);
}

/* Empty slots point at the current position with no values, like hpcprof's. */
static void fill_empty(tw__cdb *w, uint32_t upto)
{
    uint64_t here = tw__buf_pos(w->b);
    for (; w->next_slot < upto; w->next_slot++) {
        unsigned char *ci = w->cis + (size_t)w->next_slot * w->szci;
        tw__le64(ci + 0x08, here);
        tw__le64(ci + 0x18, here);
    }
}

int tw__cdb_ctx_begin(tw__cdb *w, uint32_t ctx)
{
    if (w->err)
        return w->err;
    if (w->open || ctx >= w->n_ctxs || ctx < w->next_slot)
        return set_err(&w->err, -EINVAL);
    fill_empty(w, ctx);
    w->open = 1;
    w->cur = ctx;
    w->n_values = 0;
    w->n_metrics = 0;
    w->midx_len = 0;
    return 0;
}

int tw__cdb_value(tw__cdb *w, uint16_t metric, uint32_t prof, double v)
{
    if (w->err)
        return w->err;
    if (!w->open)
        return set_err(&w->err, -EINVAL);
    if (w->n_values == 0) {
        tw__block_start(w->b, &w->o);
        w->p_values = tw__buf_pos(w->b);
    }
    if (w->n_values == 0 || metric != w->last_metric) {
        if (w->n_values > 0 && metric < w->last_metric)
            return set_err(&w->err, -EINVAL);
        if (w->n_metrics == UINT16_MAX)
            return set_err(&w->err, -EINVAL); /* nMetrics is u16 */
        unsigned char rec[10];
        tw__le16(rec, metric);
        tw__le64(rec + 2, w->n_values);
        if (bytes_push(&w->midx, &w->midx_len, &w->midx_cap, rec, sizeof rec) < 0)
            return set_err(&w->err, -ENOMEM);
        w->n_metrics++;
    } else if (prof <= w->last_prof) {
        return set_err(&w->err, -EINVAL);
    }
    w->last_metric = metric;
    w->last_prof = prof;
    unsigned char *r = tw__buf_grow(w->b, 12);
    if (!r)
        return set_err(&w->err, w->b->err);
    tw__le32(r, prof);
    tw__lef64(r + 4, v);
    w->n_values++;
    return 0;
}

int tw__cdb_ctx_end(tw__cdb *w)
{
    if (w->err)
        return w->err;
    if (!w->open)
        return set_err(&w->err, -EINVAL);
    unsigned char *ci = w->cis + (size_t)w->cur * w->szci;
    uint64_t here = tw__buf_pos(w->b);
    /* {MIdx} (align 2) follows the 12-byte {PVal}s directly: no padding is ever needed. */
    tw__le64(ci + 0x00, w->n_values);
    tw__le64(ci + 0x08, w->n_values ? w->p_values : here);
    tw__le16(ci + 0x10, (uint16_t)w->n_metrics);
    tw__le64(ci + 0x18, here);
    tw__buf_put(w->b, w->midx, w->midx_len);
    w->open = 0;
    w->next_slot = w->cur + 1;
    return set_err(&w->err, w->b->err);
}

void tw__cdb_free(tw__cdb *w)
{
    free(w->cis);
    free(w->midx);
    w->cis = w->midx = NULL;
}

int tw__cdb_finish(tw__cdb *w)
{
    if (!w->err && w->open)
        set_err(&w->err, -EINVAL);
    if (!w->err) {
        fill_empty(w, w->n_ctxs);
        tw__buf_patch(w->b, w->ci_array, w->cis, (size_t)w->n_ctxs * w->szci);
        tw__buf_align(w->b, 4);
        tw__buf_put(w->b, "__ctx.db", 8);
        set_err(&w->err, w->b->err);
    }
    tw__cdb_free(w);
    return w->err;
}
