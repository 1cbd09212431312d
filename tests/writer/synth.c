/* tw_hpctk4_synth_dir(): synthetic databases of any size for benchmarks (content documented in
 * writer.h).
 *
 * Every value is a pure function of (seed, profile, context, metric), so nothing has to be
 * transposed or kept in memory: profile.db is written profile-major in one pass, and cct.db plus
 * the summary profile (which needs the same per-context sums) context-major in a second pass.
 * Memory stays proportional to the context tree and the profile count. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tw-internal.h"

/* ---- deterministic pseudo-random numbers ---- */

/* SplitMix64 finaliser: cheap, and good enough that neighbouring inputs give unrelated outputs. */
static inline uint64_t mix64(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t pair_hash(uint64_t seed, uint32_t p, uint32_t c, uint32_t m)
{
    return mix64(mix64(seed ^ ((uint64_t)p << 32 | c)) ^ m);
}

/* density as a threshold on the top 53 bits: 1.0 keeps everything, 0.0 nothing. */
static inline uint64_t density_threshold(double density)
{
    return (uint64_t)(density * 9007199254740992.0); /* 2^53 */
}

static inline int present_h(uint64_t h, uint64_t threshold)
{
    return (h >> 11) < threshold;
}

/* The three propagated values of one (profile, ctx, metric) pair from its hash: multiples of 1/1024
 * below 3072, so sums over up to 2^30 threads are exact in any order. */
static inline void values_h(uint64_t h, double v[3])
{
    uint64_t r = mix64(h ^ UINT64_C(0x5bd1e9955bd1e995));
    uint64_t a = (r & 0xfffff) + 1, b = (r >> 20) & 0xfffff, c = (r >> 40) & 0xfffff;
    v[0] = (double)a / 1024.0;           /* point */
    v[1] = (double)(a + b) / 1024.0;     /* function */
    v[2] = (double)(a + b + c) / 1024.0; /* execution */
}

int tw_hpctk4_synth_present(uint64_t seed, uint32_t p, uint32_t c, uint32_t m, double density)
{
    return present_h(pair_hash(seed, p, c, m), density_threshold(density));
}

double tw_hpctk4_synth_value(uint64_t seed, uint32_t p, uint32_t c, uint32_t m, unsigned s)
{
    double v[3];
    values_h(pair_hash(seed, p, c, m), v);
    return v[s < 3 ? s : 2];
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    r->s += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(r->s);
}

/* Uniform-enough integer in [0, n). */
static uint32_t rnd_below(rng *r, uint32_t n)
{
    return (uint32_t)(rnd(r) % n);
}

/* ---- the context tree ---- */

enum kind { K_ENTRY, K_FUNC, K_LOOP, K_LINE, K_INSTR };

typedef struct synth {
    uint64_t seed;
    uint32_t n_profiles, n_contexts;
    uint16_t n_metrics;
    uint64_t thr; /* density threshold */
    /* meta.db description */
    tw_scope scopes[3];
    tw_metric *metrics;
    tw_propagation *props;
    tw_summary *sums;
    char **names; /* metric names, function names, file paths */
    size_t n_names;
    tw_module modules[3];
    tw_file *files;
    uint32_t n_files;
    tw_function *functions;
    uint32_t n_functions;
    tw_context *ctx;
    uint8_t *kind;
    int32_t *fn;    /* enclosing function of each node */
    uint16_t *depth;
    /* value-bearing ids, ascending: 0, every node, every elided id */
    uint32_t *vids;
    uint32_t n_vids, max_id;
    tw_profile *profiles;
    tw_id *ids;
} synth;

static void synth_free(synth *s)
{
    for (size_t i = 0; s->names && i < s->n_names; i++)
        free(s->names[i]);
    free(s->names);
    free(s->metrics);
    free(s->props);
    free(s->sums);
    free(s->files);
    free(s->functions);
    free(s->ctx);
    free(s->kind);
    free(s->fn);
    free(s->depth);
    free(s->vids);
    free(s->profiles);
    free(s->ids);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static char *fmt_name(const char *prefix, uint32_t i, const char *suffix)
{
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s%u%s", prefix, (unsigned)i, suffix);
    return dup_str(tmp);
}

static int build_tables(synth *s)
{
    s->scopes[0] = (tw_scope){"point", 1, 255};
    s->scopes[1] = (tw_scope){"function", 3, 0};
    s->scopes[2] = (tw_scope){"execution", 2, 255};
    s->modules[0] = (tw_module){"/usr/bin/synth-app"};
    s->modules[1] = (tw_module){"/usr/lib/libsynth.so.1"};
    s->modules[2] = (tw_module){"/lib/x86_64-linux-gnu/libc.so.6"};

    /* About one function per 40 contexts, one file per 4 functions: enough reuse to look like a
     * program. */
    s->n_functions = s->n_contexts / 40 + 4;
    s->n_files = s->n_functions / 4 + 1;
    size_t nm = s->n_metrics;
    s->n_names = nm + s->n_functions + s->n_files;
    s->names = calloc(s->n_names, sizeof *s->names);
    s->metrics = calloc(nm ? nm : 1, sizeof *s->metrics);
    s->props = calloc(nm ? 3 * nm : 1, sizeof *s->props);
    s->sums = calloc(nm ? 3 * nm : 1, sizeof *s->sums);
    s->files = calloc(s->n_files, sizeof *s->files);
    s->functions = calloc(s->n_functions, sizeof *s->functions);
    if (!s->names || !s->metrics || !s->props || !s->sums || !s->files || !s->functions)
        return -ENOMEM;
    for (uint32_t m = 0; m < nm; m++) {
        if (!(s->names[m] = fmt_name("metric-", m, "")))
            return -ENOMEM;
        for (uint16_t k = 0; k < 3; k++) {
            uint16_t id = (uint16_t)(3 * m + k);
            s->props[3 * m + k] = (tw_propagation){k, id};
            s->sums[3 * m + k] = (tw_summary){k, "$$", 0, id};
        }
        s->metrics[m] = (tw_metric){s->names[m], 3, &s->props[3 * m], 3, &s->sums[3 * m]};
    }
    for (uint32_t f = 0; f < s->n_files; f++) {
        /* every fifth file was "copied into the database": relative path, flags bit0 */
        int copied = f % 5 == 0;
        char *path = copied ? fmt_name("src/synth/copied", f, ".c")
                           : fmt_name("/home/user/synth/src/file", f, ".c");
        if (!path)
            return -ENOMEM;
        s->names[nm + s->n_functions + f] = path;
        s->files[f] = (tw_file){path, (uint32_t)copied};
    }
    for (uint32_t f = 0; f < s->n_functions; f++) {
        char *name = f == 0 ? dup_str("main") : f == 1 ? dup_str("worker") : fmt_name("fn_", f, "");
        if (!name)
            return -ENOMEM;
        s->names[nm + f] = name;
        tw_function *fd = &s->functions[f];
        fd->name = name;
        fd->module = f < 2 ? 0 : (int32_t)(f % 3);
        fd->offset = 0x1000 + (uint64_t)f * 0x400;
        /* libc functions have no source file: their bodies are instructions only */
        fd->file = fd->module == 2 ? -1 : (int32_t)(f % s->n_files);
        fd->line = fd->file < 0 ? 0 : 10 + (f * 37) % 500;
    }
    return 0;
}

typedef struct tree_state {
    synth *s;
    rng r;
    uint32_t n, next_id;
} tree_state;

/* Appends one node (and maybe an id gap before it / an elided id after it); returns its index. */
static int32_t add_node(tree_state *t, int32_t parent, enum kind k, uint8_t relation, int32_t fn)
{
    synth *s = t->s;
    if (t->n >= s->n_contexts)
        return -1;
    if (t->n > 1 && rnd_below(&t->r, 16) == 0)
        t->next_id++; /* unused id: an empty cct.db slot */
    uint32_t i = t->n++;
    tw_context *c = &s->ctx[i];
    const tw_function *f = fn >= 0 ? &s->functions[fn] : NULL;
    memset(c, 0, sizeof *c);
    c->id = t->next_id++;
    c->parent = parent;
    c->relation = relation;
    c->function = c->file = c->module = -1;
    s->vids[s->n_vids++] = c->id;
    switch (k) {
    case K_ENTRY:
        break;
    case K_FUNC:
        c->lexical_type = 0;
        c->function = fn;
        break;
    case K_LOOP:
        c->lexical_type = 1;
        c->file = f->file;
        c->line = f->line + 1 + rnd_below(&t->r, 50);
        c->module = f->module;
        c->offset = f->offset + rnd_below(&t->r, 0x400);
        break;
    case K_LINE:
        c->lexical_type = 2;
        c->file = f->file;
        c->line = f->line + 1 + rnd_below(&t->r, 80);
        break;
    case K_INSTR:
        c->lexical_type = 3;
        c->module = f->module;
        c->offset = f->offset + rnd_below(&t->r, 0x400);
        break;
    }
    /* hpcprof sets propagation bit 0 exactly on lexical edges */
    c->propagation = k != K_ENTRY && relation == 0;
    s->kind[i] = (uint8_t)k;
    s->fn[i] = fn;
    s->depth[i] = parent < 0 ? 0 : (uint16_t)(s->depth[parent] + (s->depth[parent] < UINT16_MAX));
    if (k == K_LINE && rnd_below(&t->r, 4) == 0)
        s->vids[s->n_vids++] = t->next_id++; /* elided instruction: values but no node */
    s->max_id = t->next_id - 1;            /* ids only grow */
    return (int32_t)i;
}

static int32_t pick_callee(tree_state *t)
{
    uint32_t n = t->s->n_functions;
    return (int32_t)(2 + rnd_below(&t->r, n - 2)); /* never main/worker again */
}

/* Adds the children of node v (as far as the budget allows). */
static void expand(tree_state *t, int32_t v)
{
    synth *s = t->s;
    if (s->depth[v] >= 200)
        return;
    int32_t fn = s->fn[v];
    int has_src = fn >= 0 && s->functions[fn].file >= 0;
    uint32_t n;
    switch ((enum kind)s->kind[v]) {
    case K_FUNC:
        if (!has_src) {
            n = 1 + rnd_below(&t->r, 2);
            for (uint32_t i = 0; i < n; i++)
                add_node(t, v, K_INSTR, 0, fn);
            return;
        }
        n = 1 + rnd_below(&t->r, 4);
        for (uint32_t i = 0; i < n; i++)
            add_node(t, v, rnd_below(&t->r, 100) < 30 ? K_LOOP : K_LINE, 0, fn);
        return;
    case K_LOOP:
        n = 1 + rnd_below(&t->r, 3);
        for (uint32_t i = 0; i < n; i++)
            add_node(t, v, rnd_below(&t->r, 100) < 25 ? K_LOOP : K_LINE, 0, fn);
        return;
    case K_LINE:
        n = rnd_below(&t->r, 3);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = rnd_below(&t->r, 100);
            if (r < 45) {
                add_node(t, v, K_INSTR, 0, fn);
            } else {
                int32_t callee = pick_callee(t);
                /* inline only what has source (the inlined body needs lines) */
                int inl = r >= 85 && s->functions[callee].file >= 0;
                add_node(t, v, K_FUNC, inl ? 2 : 1, callee);
            }
        }
        return;
    case K_INSTR:
        if (rnd_below(&t->r, 100) < 40)
            add_node(t, v, K_FUNC, 1, pick_callee(t));
        return;
    case K_ENTRY:
        return;
    }
}

static int build_tree(synth *s)
{
    uint32_t n = s->n_contexts;
    s->ctx = calloc(n, sizeof *s->ctx);
    s->kind = calloc(n, sizeof *s->kind);
    s->fn = calloc(n, sizeof *s->fn);
    s->depth = calloc(n, sizeof *s->depth);
    /* every node may add a gap-free id and an elided id, plus id 0 */
    s->vids = calloc(2 * (size_t)n + 1, sizeof *s->vids);
    if (!s->ctx || !s->kind || !s->fn || !s->depth || !s->vids)
        return -ENOMEM;

    tree_state t = {s, {s->seed ^ UINT64_C(0x7265657274796d73)}, 0, 1};
    s->vids[s->n_vids++] = 0; /* the global context carries values too */
    int32_t main_entry = add_node(&t, -1, K_ENTRY, 0, -1);
    s->ctx[main_entry].entry_point = 1;
    int32_t app_entry = -1;
    if (n >= 8) {
        app_entry = add_node(&t, -1, K_ENTRY, 0, -1);
        s->ctx[app_entry].entry_point = 2;
    }
    add_node(&t, main_entry, K_FUNC, 1, 0);
    if (app_entry >= 0)
        add_node(&t, app_entry, K_FUNC, 1, 1);
    /* Breadth-first growth: the array order is the creation order, so parents precede children. */
    for (uint32_t head = 0; t.n < n; head++) {
        if (head == t.n) /* everything expanded but budget left: call main again */
            add_node(&t, main_entry, K_FUNC, 1, 0);
        expand(&t, (int32_t)head);
    }
    return 0;
}

static int build_profiles(synth *s)
{
    size_t np = (size_t)s->n_profiles + 1;
    s->profiles = calloc(np, sizeof *s->profiles);
    s->ids = calloc(2 * np, sizeof *s->ids);
    if (!s->profiles || !s->ids)
        return -ENOMEM;
    s->profiles[0].is_summary = 1;
    for (uint32_t p = 1; p < np; p++) {
        tw_id *id = &s->ids[2 * p];
        uint32_t node = (p - 1) / 64, thread = (p - 1) % 64;
        id[0] = (tw_id){1, 1, node, UINT64_C(0x7f000001) + node};
        id[1] = (tw_id){3, 0, thread, thread};
        s->profiles[p].n_ids = 2;
        s->profiles[p].ids = id;
    }
    return 0;
}

static int write_meta(synth *s, const char *dir)
{
    tw_hpctk4 d;
    memset(&d, 0, sizeof d);
    d.title = "profdb synthetic database";
    d.description = "Synthetic HPCToolkit 4.0 database written by profdb tests/writer (synth.c).";
    d.n_scopes = 3;
    d.scopes = s->scopes;
    d.n_metrics = s->n_metrics;
    d.metrics = s->metrics;
    d.n_modules = 3;
    d.modules = s->modules;
    d.n_files = s->n_files;
    d.files = s->files;
    d.n_functions = s->n_functions;
    d.functions = s->functions;
    d.n_contexts = s->n_contexts;
    d.contexts = s->ctx;
    tw__buf b;
    tw_blob blob = {NULL, 0};
    tw__buf_init_mem(&b);
    int err = tw__meta_write(&d, &b);
    if (err)
        tw__buf_discard(&b);
    else
        err = tw__buf_finish(&b, &blob);
    if (!err)
        err = tw__write_file(dir, "meta.db", &blob);
    tw_blob_free(&blob);
    return err;
}

/* Output file helper: an fd-backed buffer that is flushed and closed exactly once. */
typedef struct out_file {
    int fd;
    tw__buf b;
} out_file;

static int out_open(out_file *o, const char *dir, const char *name)
{
    o->fd = tw__open_out(dir, name);
    if (o->fd < 0)
        return o->fd;
    tw__buf_init_fd(&o->b, o->fd);
    return 0;
}

static int out_close(out_file *o, int err)
{
    if (o->fd < 0)
        return err;
    int e = tw__buf_finish(&o->b, NULL);
    if (close(o->fd) < 0 && !e)
        e = -errno;
    o->fd = -1;
    return err ? err : e;
}

/* Pass A: thread profiles 1..P, profile-major.  The summary (profile 0) is appended in pass B. */
static int write_threads(synth *s, tw__pdb *w)
{
    int err = 0;
    for (uint32_t p = 1; p <= s->n_profiles && !err; p++) {
        err = tw__pdb_profile_begin(w, p);
        for (uint32_t i = 0; i < s->n_vids && !err; i++) {
            uint32_t c = s->vids[i];
            for (uint32_t m = 0; m < s->n_metrics && !err; m++) {
                uint64_t h = pair_hash(s->seed, p, c, m);
                if (!present_h(h, s->thr))
                    continue;
                double v[3];
                values_h(h, v);
                for (unsigned k = 0; k < 3 && !err; k++)
                    err = tw__pdb_value(w, c, (uint16_t)(3 * m + k), v[k]);
            }
        }
        if (!err)
            err = tw__pdb_profile_end(w);
    }
    return err;
}

/* Pass B: cct.db context-major, and the summary profile from the same per-(ctx, metric) thread
 * lists. */
static int write_cct_and_summary(synth *s, tw__pdb *pw, tw__cdb *cw)
{
    size_t np = s->n_profiles ? s->n_profiles : 1;
    uint32_t *plist = malloc(np * sizeof *plist);
    double *vals = malloc(3 * np * sizeof *vals);
    int err = plist && vals ? 0 : -ENOMEM;
    if (!err)
        err = tw__pdb_profile_begin(pw, 0);
    for (uint32_t i = 0; i < s->n_vids && !err; i++) {
        uint32_t c = s->vids[i];
        err = tw__cdb_ctx_begin(cw, c);
        for (uint32_t m = 0; m < s->n_metrics && !err; m++) {
            uint32_t k = 0;
            for (uint32_t p = 1; p <= s->n_profiles; p++) {
                uint64_t h = pair_hash(s->seed, p, c, m);
                if (!present_h(h, s->thr))
                    continue;
                plist[k] = p;
                values_h(h, &vals[3 * (size_t)k]);
                k++;
            }
            for (unsigned sc = 0; sc < 3 && k > 0 && !err; sc++) {
                uint16_t id = (uint16_t)(3 * m + sc);
                double sum = 0;
                for (uint32_t j = 0; j < k && !err; j++) {
                    double v = vals[3 * (size_t)j + sc];
                    err = tw__cdb_value(cw, id, plist[j], v);
                    sum += v;
                }
                if (!err)
                    /* statMetricId == propMetricId, "$$" sum */
                    err = tw__pdb_value(pw, c, id, sum);
            }
        }
        if (!err)
            err = tw__cdb_ctx_end(cw);
    }
    if (!err)
        err = tw__pdb_profile_end(pw);
    free(plist);
    free(vals);
    return err;
}

static int write_traces(synth *s, tw__tdb *w, uint64_t n_samples)
{
    /* Samples land on tree nodes other than entry points; elided ids never appear in traces
     * (hpcprof maps them to their parent). */
    uint32_t *nodes = malloc(s->n_contexts * sizeof *nodes);
    if (!nodes)
        return -ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_contexts; i++)
        if (s->kind[i] != K_ENTRY)
            nodes[n++] = s->ctx[i].id;
    int err = 0;
    uint64_t salt = s->seed ^ UINT64_C(0x74726163652e6462);
    for (uint32_t p = 1; p <= s->n_profiles && !err; p++) {
        err = tw__tdb_trace_begin(w, p - 1, p);
        uint32_t prev = 1;
        for (uint64_t k = 0; k < n_samples && !err; k++) {
            uint64_t h = pair_hash(salt, p, (uint32_t)k, (uint32_t)(k >> 32));
            /* one sample per simulated millisecond with jitter below the period: times stay
             * sorted */
            uint64_t time = TW_SAMPLE_T0 + k * 1000000 + p % 1000 + (h % 900000);
            uint32_t ctx = prev != 0 && (h >> 32) % 16 == 0 ? 0 : nodes[(h >> 36) % n];
            err = tw__tdb_sample(w, time, ctx);
            prev = ctx;
        }
        if (!err)
            err = tw__tdb_trace_end(w);
    }
    free(nodes);
    return err;
}

int tw_hpctk4_synth_dir(const char *dir, uint32_t n_profiles, uint32_t n_contexts,
                        uint16_t n_metrics, double density, uint64_t n_samples, uint64_t seed)
{
    if (!dir || n_contexts < 2 || n_metrics > 21845 || !(density >= 0.0 && density <= 1.0) ||
        n_profiles == UINT32_MAX || n_contexts > INT32_MAX / 2)
        return -EINVAL;
    synth s;
    memset(&s, 0, sizeof s);
    s.seed = seed;
    s.n_profiles = n_profiles;
    s.n_contexts = n_contexts;
    s.n_metrics = n_metrics;
    s.thr = density_threshold(density);

    int err = build_tables(&s);
    if (!err)
        err = build_tree(&s);
    if (!err)
        err = build_profiles(&s);
    if (!err)
        err = tw__mkdirs(dir);
    if (!err)
        err = write_meta(&s, dir);

    tw__opts o = {0, 0, 0, 0};
    out_file pf = {-1, {0}}, cf = {-1, {0}}, tf = {-1, {0}};
    tw__pdb pw;
    tw__cdb cw;
    tw__tdb tw;
    int pw_live = 0, cw_live = 0, tw_live = 0;
    if (!err)
        err = out_open(&pf, dir, "profile.db");
    if (!err) {
        pw_live = 1;
        err = tw__pdb_begin(&pw, &pf.b, &o, n_profiles + 1, s.profiles);
    }
    if (!err)
        err = write_threads(&s, &pw);
    if (!err)
        err = out_open(&cf, dir, "cct.db");
    if (!err) {
        cw_live = 1;
        err = tw__cdb_begin(&cw, &cf.b, &o, s.max_id + 1);
    }
    if (!err)
        err = write_cct_and_summary(&s, &pw, &cw);
    if (!err) {
        cw_live = 0;
        err = tw__cdb_finish(&cw);
    }
    if (!err) {
        pw_live = 0;
        err = tw__pdb_finish(&pw);
    }
    if (!err)
        err = out_open(&tf, dir, "trace.db");
    if (!err) {
        tw_live = 1;
        err = tw__tdb_begin(&tw, &tf.b, &o, n_profiles);
    }
    if (!err)
        err = write_traces(&s, &tw, n_samples);
    if (!err) {
        tw_live = 0;
        err = tw__tdb_finish(&tw, 0, 0);
    }
    if (pw_live)
        tw__pdb_free(&pw);
    if (cw_live)
        tw__cdb_free(&cw);
    if (tw_live)
        tw__tdb_free(&tw);
    err = out_close(&pf, err);
    err = out_close(&cf, err);
    err = out_close(&tf, err);
    synth_free(&s);
    return err;
}
