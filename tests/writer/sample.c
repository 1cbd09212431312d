/* tw_hpctk4_sample(): the hand-made database documented in writer.h. Keep the two in sync: tests
 * assert on the documented content. */
#include <string.h>

#include "writer.h"

static const tw_scope scopes[] = {
    {"point", 1, 255},
    {"function", 3, 0},
    {"execution", 2, 255},
    {"lex_aware", 0, 255},
};

static const tw_propagation cpu_props[] = {{0, 0}, {1, 1}, {2, 2}};
static const tw_summary cpu_sums[] = {{0, "$$", 0, 0}, {1, "$$", 0, 1}, {2, "$$", 0, 2}};
static const tw_propagation cyc_props[] = {{2, 3}, {3, 4}};
static const tw_summary cyc_sums[] = {{2, "$$", 0, 3}, {2, "$$", 2, 4}, {3, "$$", 0, 5}};

static const tw_metric metrics[] = {
    {"CPUTIME (sec)", 3, cpu_props, 3, cpu_sums},
    {"cycles", 2, cyc_props, 3, cyc_sums},
};

static const tw_module modules[] = {{"/usr/bin/sample"}, {"/lib/x86_64-linux-gnu/libc.so.6"}};
static const tw_file files[] = {{"/src/sample.c", 0}, {"src/util.h", 1}};
static const tw_function functions[] = {
    {"main", 0, 0x1130, 0, 10},
    {"compute", 0, 0x1200, 0, 30},
    {"helper", -1, 0, 1, 5},
    {"memcpy", 1, 0x9a0c0, -1, 0},
    {NULL, 1, 0x2000, -1, 0},
};

/* id, parent index, relation, lexical type, function, file, line, module, offset, propagation */
#define CTX(id, par, rel, lex, fn, file, line, mod, off, prop) \
    {id, par, rel, lex, fn, file, line, mod, off, prop, 0, NULL}
#define ENTRY(id, ep, name) {id, -1, 0, 0, -1, -1, 0, -1, 0, 0, ep, name}

static const tw_context contexts[] = {
    ENTRY(1, 1, "main thread"),
    CTX(2, 0, 1, 0, 0, -1, 0, -1, 0, 0),           /* call main */
    CTX(3, 1, 0, 1, -1, 0, 12, 0, 0x1140, 1),      /* loop: srcloc + point (flags 6, as hpcprof) */
    CTX(4, 2, 0, 2, -1, 0, 13, -1, 0, 1),          /* line */
    CTX(5, 3, 0, 3, -1, -1, 0, 0, 0x1158, 1),      /* instruction */
    CTX(7, 4, 1, 0, 1, -1, 0, -1, 0, 0),           /* call compute */
    CTX(8, 5, 0, 2, -1, 0, 32, -1, 0, 1),          /* line */
    CTX(9, 6, 2, 0, 2, -1, 0, -1, 0, 0),           /* inlined call helper */
    CTX(10, 7, 0, 2, -1, 1, 6, -1, 0, 1),          /* line (id 11 below it is elided) */
    CTX(12, 5, 0, 1, -1, 0, 40, -1, 0, 1),         /* loop */
    CTX(13, 9, 0, 3, -1, -1, 0, 0, 0x1248, 1),     /* instruction */
    CTX(14, 10, 1, 0, 3, -1, 0, -1, 0, 0),         /* call memcpy */
    ENTRY(15, 0, NULL),                            /* default name "unknown entry" */
    CTX(16, 12, 1, 0, 4, -1, 0, -1, 0, 0),         /* call to an anonymous function */
};

static const tw_id tuple1[] = {{1, 1, 0, 0x7f000101}, {3, 0, 0, 0}};
static const tw_id tuple2[] = {{1, 1, 0, 0x7f000101}, {3, 0, 1, 1}};

/* Listed metric-major on purpose: the writer must sort them into (ctx, metric) order. */
static const tw_value values1[] = {
    {5, 0, 1.0}, {11, 0, 0.5}, {13, 0, 2.0}, {14, 0, 0.25},
    {2, 1, 1.0}, {3, 1, 1.0}, {4, 1, 1.0}, {5, 1, 1.0}, {7, 1, 2.0}, {9, 1, 0.5}, {10, 1, 0.5},
    {11, 1, 0.5}, {12, 1, 2.0}, {13, 1, 2.0}, {14, 1, 0.25},
    {0, 2, 3.75}, {1, 2, 3.75}, {2, 2, 3.75}, {3, 2, 3.75}, {4, 2, 3.75}, {5, 2, 3.75},
    {7, 2, 2.75}, {8, 2, 0.5}, {9, 2, 0.5}, {10, 2, 0.5}, {11, 2, 0.5}, {12, 2, 2.25},
    {13, 2, 2.25}, {14, 2, 0.25},
    {0, 3, 4096}, {13, 3, 4096},
    {13, 4, 4096},
};

static const tw_value values2[] = {
    {5, 0, 0.5}, {13, 0, 1.0}, {16, 0, 0.125},
    {2, 1, 0.5}, {3, 1, 0.5}, {4, 1, 0.5}, {5, 1, 0.5}, {7, 1, 1.0}, {12, 1, 1.0}, {13, 1, 1.0},
    {16, 1, 0.125},
    {0, 2, 1.625}, {1, 2, 1.5}, {2, 2, 1.5}, {3, 2, 1.5}, {4, 2, 1.5}, {5, 2, 1.5}, {7, 2, 1.0},
    {12, 2, 1.0}, {13, 2, 1.0}, {15, 2, 0.125}, {16, 2, 0.125},
    {0, 3, 2048}, {13, 3, 2048},
    {13, 4, 2048},
};

/* Summary: statMetricIds 0-2 = CPUTIME point/function/execution sums, 3 = cycles execution sum,
 * 4 = cycles execution max, 5 = cycles lex_aware sum. */
static const tw_value values0[] = {
    {5, 0, 1.5}, {11, 0, 0.5}, {13, 0, 3.0}, {14, 0, 0.25}, {16, 0, 0.125},
    {2, 1, 1.5}, {3, 1, 1.5}, {4, 1, 1.5}, {5, 1, 1.5}, {7, 1, 3.0}, {9, 1, 0.5}, {10, 1, 0.5},
    {11, 1, 0.5}, {12, 1, 3.0}, {13, 1, 3.0}, {14, 1, 0.25}, {16, 1, 0.125},
    {0, 2, 5.375}, {1, 2, 5.25}, {2, 2, 5.25}, {3, 2, 5.25}, {4, 2, 5.25}, {5, 2, 5.25},
    {7, 2, 3.75}, {8, 2, 0.5}, {9, 2, 0.5}, {10, 2, 0.5}, {11, 2, 0.5}, {12, 2, 3.25},
    {13, 2, 3.25}, {14, 2, 0.25}, {15, 2, 0.125}, {16, 2, 0.125},
    {0, 3, 6144}, {13, 3, 6144},
    {0, 4, 4096}, {13, 4, 4096},
    {13, 5, 6144},
};

#define N(a) (sizeof(a) / sizeof *(a))

static const tw_profile profiles[] = {
    {1, 0, NULL, N(values0), values0},
    {0, N(tuple1), tuple1, N(values1), values1},
    {0, N(tuple2), tuple2, N(values2), values2},
};

static const tw_sample samples1[] = {
    {TW_SAMPLE_T0 + 1000, 5}, {TW_SAMPLE_T0 + 2000, 13}, {TW_SAMPLE_T0 + 3000, 0},
    {TW_SAMPLE_T0 + 4000, 14}, {TW_SAMPLE_T0 + 5000, 10}, {TW_SAMPLE_T0 + 6000, 13},
};

static const tw_trace traces[] = {
    {1, N(samples1), samples1},
    {2, 0, NULL},
};

void tw_hpctk4_sample(tw_hpctk4 *d)
{
    memset(d, 0, sizeof *d);
    d->title = "profdb sample";
    d->description = "Hand-made HPCToolkit 4.0 test database (profdb tests/writer).";
    d->n_scopes = N(scopes);
    d->scopes = scopes;
    d->n_metrics = N(metrics);
    d->metrics = metrics;
    d->n_modules = N(modules);
    d->modules = modules;
    d->n_files = N(files);
    d->files = files;
    d->n_functions = N(functions);
    d->functions = functions;
    d->n_contexts = N(contexts);
    d->contexts = contexts;
    d->n_profiles = N(profiles);
    d->profiles = profiles;
    d->n_traces = N(traces);
    d->traces = traces;
}
