/* tw_hpctk4_write(): a whole database from a description. Sorts what the format requires sorted,
 * derives cct.db by transposing the thread profiles, and drives the streaming writers in memory. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tw-internal.h"

/* ---- files ---- */

int tw__mkdirs(const char *dir)
{
    if (!dir || !*dir)
        return -EINVAL;
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (!p)
        return -ENOMEM;
    memcpy(p, dir, n + 1);
    int err = 0;
    /* Create every prefix ending before a '/', then the whole path. */
    for (size_t i = 1; i <= n && !err; i++) {
        if (i < n && p[i] != '/')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST)
            err = -errno;
        p[i] = c;
    }
    struct stat st;
    if (!err && stat(dir, &st) < 0)
        err = -errno;
    else if (!err && !S_ISDIR(st.st_mode))
        err = -ENOTDIR;
    free(p);
    return err;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

int tw__open_out(const char *dir, const char *name)
{
    char *path = join(dir, name);
    if (!path)
        return -ENOMEM;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = fd < 0 ? -errno : fd;
    free(path);
    return err;
}

int tw__write_file(const char *dir, const char *name, const tw_blob *blob)
{
    int fd = tw__open_out(dir, name);
    if (fd < 0)
        return fd;
    tw__buf b;
    tw__buf_init_fd(&b, fd);
    tw__buf_put(&b, blob->data, blob->size);
    int err = tw__buf_finish(&b, NULL);
    if (close(fd) < 0 && !err)
        err = -errno;
    return err;
}

static int remove_file(const char *dir, const char *name)
{
    char *path = join(dir, name);
    if (!path)
        return -ENOMEM;
    int err = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
    free(path);
    return err;
}

/* ---- sorting ---- */

static int cmp_value(const void *a, const void *b)
{
    const tw_value *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return (x->metric > y->metric) - (x->metric < y->metric);
}

typedef struct cct_value {
    uint32_t ctx, prof;
    uint16_t metric;
    double value;
} cct_value;

static int cmp_cct(const void *a, const void *b)
{
    const cct_value *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    return (x->prof > y->prof) - (x->prof < y->prof);
}

typedef struct sample_at {
    tw_sample s;
    size_t at; /* original position: makes qsort stable */
} sample_at;

static int cmp_sample(const void *a, const void *b)
{
    const sample_at *x = a, *y = b;
    if (x->s.time != y->s.time)
        return x->s.time < y->s.time ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* ---- the three data files ---- */

static int write_profiles(const tw_hpctk4 *d, const tw__opts *o, tw_blob *out)
{
    tw__buf b;
    tw__pdb w;
    tw__buf_init_mem(&b);
    int err = tw__pdb_begin(&w, &b, o, (uint32_t)d->n_profiles, d->profiles);
    tw_value *tmp = NULL;
    for (size_t p = 0; p < d->n_profiles && !err; p++) {
        const tw_profile *pr = &d->profiles[p];
        tw_value *t = realloc(tmp, (pr->n_values ? pr->n_values : 1) * sizeof *t);
        if (!t) {
            err = -ENOMEM;
            break;
        }
        tmp = t;
        if (pr->n_values)
            memcpy(tmp, pr->values, pr->n_values * sizeof *tmp);
        qsort(tmp, pr->n_values, sizeof *tmp, cmp_value);
        err = tw__pdb_profile_begin(&w, (uint32_t)p);
        for (size_t i = 0; i < pr->n_values && !err; i++)
            /* tw__pdb_value() rejects duplicates */
            err = tw__pdb_value(&w, tmp[i].ctx, tmp[i].metric, tmp[i].value);
        if (!err)
            err = tw__pdb_profile_end(&w);
    }
    free(tmp);
    if (err) {
        tw__pdb_free(&w);
        tw__buf_discard(&b);
        return err;
    }
    err = tw__pdb_finish(&w);
    if (err) {
        tw__buf_discard(&b);
        return err;
    }
    return tw__buf_finish(&b, out);
}

/* nCtxs: every id that is a tree node or carries a value gets a slot; 0 (the global context)
 * always. */
static uint32_t cct_slots(const tw_hpctk4 *d)
{
    uint32_t max = 0;
    for (size_t i = 0; i < d->n_contexts; i++)
        if (d->contexts[i].id > max)
            max = d->contexts[i].id;
    for (size_t p = 0; p < d->n_profiles; p++)
        for (size_t i = 0; i < d->profiles[p].n_values; i++)
            if (d->profiles[p].values[i].ctx > max)
                max = d->profiles[p].values[i].ctx;
    return max == UINT32_MAX ? max : max + 1;
}

static int write_cct(const tw_hpctk4 *d, const tw__opts *o, tw_blob *out)
{
    size_t n = 0;
    for (size_t p = 0; p < d->n_profiles; p++)
        if (!d->profiles[p].is_summary)
            n += d->profiles[p].n_values;
    cct_value *all = malloc((n ? n : 1) * sizeof *all);
    if (!all)
        return -ENOMEM;
    size_t k = 0;
    for (size_t p = 0; p < d->n_profiles; p++) {
        const tw_profile *pr = &d->profiles[p];
        if (pr->is_summary)
            continue;
        for (size_t i = 0; i < pr->n_values; i++) {
            all[k].ctx = pr->values[i].ctx;
            all[k].metric = pr->values[i].metric;
            all[k].prof = (uint32_t)p;
            all[k].value = pr->values[i].value;
            k++;
        }
    }
    qsort(all, n, sizeof *all, cmp_cct);

    tw__buf b;
    tw__cdb w;
    tw__buf_init_mem(&b);
    int err = tw__cdb_begin(&w, &b, o, cct_slots(d));
    for (size_t i = 0; i < n && !err;) {
        uint32_t ctx = all[i].ctx;
        err = tw__cdb_ctx_begin(&w, ctx);
        for (; i < n && all[i].ctx == ctx && !err; i++)
            err = tw__cdb_value(&w, all[i].metric, all[i].prof, all[i].value);
        if (!err)
            err = tw__cdb_ctx_end(&w);
    }
    free(all);
    if (err) {
        tw__cdb_free(&w);
        tw__buf_discard(&b);
        return err;
    }
    err = tw__cdb_finish(&w);
    if (err) {
        tw__buf_discard(&b);
        return err;
    }
    return tw__buf_finish(&b, out);
}

static int write_traces(const tw_hpctk4 *d, const tw__opts *o, tw_blob *out)
{
    tw__buf b;
    tw__tdb w;
    tw__buf_init_mem(&b);
    int err = tw__tdb_begin(&w, &b, o, (uint32_t)d->n_traces);
    sample_at *tmp = NULL;
    for (size_t t = 0; t < d->n_traces && !err; t++) {
        const tw_trace *tr = &d->traces[t];
        sample_at *s = realloc(tmp, (tr->n_samples ? tr->n_samples : 1) * sizeof *s);
        if (!s) {
            err = -ENOMEM;
            break;
        }
        tmp = s;
        for (size_t i = 0; i < tr->n_samples; i++) {
            tmp[i].s = tr->samples[i];
            tmp[i].at = i;
        }
        qsort(tmp, tr->n_samples, sizeof *tmp, cmp_sample);
        err = tw__tdb_trace_begin(&w, (uint32_t)t, tr->profile);
        for (size_t i = 0; i < tr->n_samples && !err; i++)
            err = tw__tdb_sample(&w, tmp[i].s.time, tmp[i].s.ctx);
        if (!err)
            err = tw__tdb_trace_end(&w);
    }
    free(tmp);
    if (err) {
        tw__tdb_free(&w);
        tw__buf_discard(&b);
        return err;
    }
    err = tw__tdb_finish(&w, d->trace_min, d->trace_max);
    if (err) {
        tw__buf_discard(&b);
        return err;
    }
    return tw__buf_finish(&b, out);
}

int tw_hpctk4_write(const tw_hpctk4 *d, tw_blob out[TW_NFILES])
{
    if (!out)
        return -EINVAL;
    for (int i = 0; i < TW_NFILES; i++)
        out[i] = (tw_blob){NULL, 0};
    int err = tw__check_desc(d);
    if (err)
        return err;
    tw__opts o = {d->minor, d->extra, d->devstage, d->unaligned};

    tw__buf b;
    tw__buf_init_mem(&b);
    err = tw__meta_write(d, &b);
    if (err)
        tw__buf_discard(&b);
    else
        err = tw__buf_finish(&b, &out[TW_META]);
    if (!err)
        err = write_profiles(d, &o, &out[TW_PROFILE]);
    if (!err && !d->no_cct)
        err = write_cct(d, &o, &out[TW_CCT]);
    if (!err && !d->no_trace)
        err = write_traces(d, &o, &out[TW_TRACE]);
    if (err)
        for (int i = 0; i < TW_NFILES; i++)
            tw_blob_free(&out[i]);
    return err;
}

int tw_hpctk4_write_dir(const tw_hpctk4 *d, const char *dir)
{
    static const char *const names[TW_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};
    tw_blob out[TW_NFILES];
    int err = tw__mkdirs(dir);
    if (err)
        return err;
    err = tw_hpctk4_write(d, out);
    if (err)
        return err;
    for (int i = 0; i < TW_NFILES && !err; i++)
        err = out[i].data ? tw__write_file(dir, names[i], &out[i]) : remove_file(dir, names[i]);
    for (int i = 0; i < TW_NFILES; i++)
        tw_blob_free(&out[i]);
    return err;
}
