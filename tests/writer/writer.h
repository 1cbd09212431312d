/* Test-data writer for HPCToolkit 4.0 databases (meta.db, profile.db, cct.db, trace.db).
 *
 * This is test infrastructure, not part of libprofdb: it produces databases with known content so
 * the reader can be tested on data whose every byte we chose, including layouts the real sample
 * files do not cover (forward-compatible stride growth, unaligned value arrays, the 2022 dev-stage
 * layout, databases above 1 GiB).
 *
 * Layout follows ../shared/notes/hpctoolkit.md §4 (final, as written by hpcprof >= 2022.10.01) and
 * §5 (dev-stage); where the seed spec disagrees with the notes, the notes win.  Everything is
 * little-endian, written byte by byte, so the output does not depend on the host.
 *
 * Layout choices (all valid per the notes, most identical to hpcprof):
 *  - meta.db sections in hpcprof's physical order: General, IdNames, Metrics, Strings, Modules,
 *    Files, Functions, Context (entry-point table last).  Every section and struct array starts
 *    8-aligned.
 *  - An array with no elements gets pointer 0 in meta.db (pChildren/szChildren 0 for leaves; real
 *    files sometimes leave a non-zero pChildren on leaves whose children were elided).
 *  - profile.db: header 0x30, ProfileInfos at 0x30, IdTuples next, then one value block per
 *    profile in desc.profiles order.  pValues is 8-aligned (≡ 1 mod 8 with `unaligned`);
 *    pCtxIndices follows at the next 4-byte boundary (0 or 2 padding bytes), or immediately
 *    (0 padding) with `unaligned`.  An empty block has pValues == pCtxIndices.  The footer follows
 *    at the next 4-byte boundary.
 *  - cct.db: header 0x30 (pCtxInfo 0x30; u64 1 at 0x28 in the final layout, as hpcprof writes),
 *    CI[0 .. nCtxs-1] with nCtxs = 1 + the largest context id used anywhere (tree or values).
 *    Non-empty blocks start 8-aligned (≡ 1 mod 8 with `unaligned`), pMetricIndices follows
 *    immediately.  Empty slots have nValues 0 and pValues == pMetricIndices == the write position
 *    at that point.
 *  - trace.db: header 0x20 (0x30 dev-stage, bytes 0x20..0x2f zero), one trace line per
 *    desc.traces entry, each starting 8-aligned; an empty line has pStart == pEnd.
 *
 * Errors: functions return 0 or a negative errno: -EINVAL (inconsistent description: index out of
 * range, parent after child, duplicate (ctx, metric) in a profile, counts overflowing their on-disk
 * field, a dev-stage summary whose scope the metric does not propagate), -ENOMEM, or the errno of a
 * failed system call.
 */
#ifndef PROFDB_TESTS_WRITER_H
#define PROFDB_TESTS_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A malloc'ed byte string (one database file).  Free with tw_blob_free(). */
typedef struct tw_blob {
    unsigned char *data;
    size_t size;
} tw_blob;

/** Frees b->data and resets *b to {NULL, 0}.  NULL is a no-op. */
void tw_blob_free(tw_blob *b);

/** A propagation scope ({PS}).  type: 0 custom, 1 point, 2 execution, 3 transitive;
 *  prop_index: propagation bit for transitive scopes, 255 = none.
 *  Dev-stage writes only the name. */
typedef struct tw_scope {
    const char *name;
    uint8_t type;
    uint8_t prop_index;
} tw_scope;

/** One propagated metric ({PSI}): scope = index into tw_hpctk4.scopes. */
typedef struct tw_propagation {
    uint16_t scope;
    uint16_t prop_metric_id;
} tw_propagation;

/** One summary statistic ({SS}): scope = index into tw_hpctk4.scopes;
 *  combine 0 sum, 1 min, 2 max. */
typedef struct tw_summary {
    uint16_t scope;
    const char *formula;
    uint8_t combine;
    uint16_t stat_metric_id;
} tw_summary;

typedef struct tw_metric {
    const char *name;
    size_t n_props;
    const tw_propagation *props;
    size_t n_summaries;
    const tw_summary *summaries;
} tw_metric;

typedef struct tw_module {
    const char *path;
} tw_module;

/** flags bit0 = copied into the database's src/ directory. */
typedef struct tw_file {
    const char *path;
    uint32_t flags;
} tw_file;

/** module/file: index or -1 = none; name NULL = anonymous function (pName 0). */
typedef struct tw_function {
    const char *name;
    int32_t module;
    uint64_t offset;
    int32_t file;
    uint32_t line;
} tw_function;

/** One calling context.  The flex words follow from the optional fields: function >= 0 sets
 *  hasFunction, file >= 0 sets hasSrcLoc (with line), module >= 0 sets hasPoint (with offset). */
typedef struct tw_context {
    uint32_t id;
    int32_t parent;          /* index into desc.contexts, or -1 for a top-level node (an entry
                                point in the final layout, a root {Ctx} in dev-stage) */
    uint8_t relation;        /* 0 lexical nest, 1 call, 2 inlined call */
    uint8_t lexical_type;    /* 0 function, 1 loop, 2 line, 3 instruction */
    int32_t function, file;  /* -1 = absent */
    uint32_t line;
    int32_t module;          /* -1 = absent */
    uint64_t offset;
    uint16_t propagation;    /* final layout only; not written in dev-stage or for entry points */
    uint16_t entry_point;    /* top-level nodes, final layout: 0 unknown entry, 1 main thread,
                                2 application thread */
    const char *pretty_name; /* entry points; NULL => "unknown entry" / "main thread" /
                                "application thread" by entry_point */
} tw_context;

/** One identification of a hierarchical id tuple.  flags bit0 = isPhysical. */
typedef struct tw_id {
    uint8_t kind;
    uint16_t flags;
    uint32_t logical;
    uint64_t physical;
} tw_id;

/** One value of a profile: any order, the writer sorts by (ctx, metric).  A (ctx, metric) pair
 *  may appear only once per profile. */
typedef struct tw_value {
    uint32_t ctx;
    uint16_t metric;
    double value;
} tw_value;

/** A profile.  is_summary sets {PI}.flags bit0 and keeps the profile out of cct.db.
 *  n_ids == 0 writes pIdTuple = 0 (as hpcprof does for the summary profile). */
typedef struct tw_profile {
    int is_summary;
    size_t n_ids;
    const tw_id *ids;
    size_t n_values;
    const tw_value *values;
} tw_profile;

typedef struct tw_sample {
    uint64_t time;
    uint32_t ctx;
} tw_sample;

/** One trace line.  profile = index into desc.profiles.  Samples in any order; the writer sorts
 *  them by time (stable). */
typedef struct tw_trace {
    uint32_t profile;
    size_t n_samples;
    const tw_sample *samples;
} tw_trace;

/** Description of a whole database. */
typedef struct tw_hpctk4 {
    const char *title, *description; /* NULL => "" */
    uint8_t minor;        /* minor version byte written into every file */
    uint8_t extra;        /* extra zero bytes appended to every stored-stride struct (szMetric,
                             szScopeInst, szSummary, szScope, szModule, szFile, szFunction,
                             szEntryPoint, szProfile, szCtx, szTrace; the sz fields say so) and to
                             every section header, to test forward compatibility; 0 = exact
                             sizes; at most 200 */
    int devstage;         /* write the 2022 dev-stage layout instead of the final one */
    int unaligned;        /* profile.db/cct.db value arrays at odd offsets (pValues ≡ 1 mod 8)
                             and index arrays right after them (no padding) */
    int no_cct, no_trace; /* do not produce these files */
    size_t n_id_names;
    const char *const *id_names; /* NULL => SUMMARY NODE RANK THREAD GPUDEVICE GPUCONTEXT
                                    GPUSTREAM CORE */
    size_t n_scopes;
    const tw_scope *scopes;
    size_t n_metrics;
    const tw_metric *metrics;
    size_t n_modules;
    const tw_module *modules;
    size_t n_files;
    const tw_file *files;
    size_t n_functions;
    const tw_function *functions;
    size_t n_contexts;
    const tw_context *contexts;    /* a parent must come before its children in this array;
                                      siblings are written in array order */
    size_t n_profiles;
    const tw_profile *profiles;    /* profile 0 should be the summary */
    size_t n_traces;
    const tw_trace *traces;
    uint64_t trace_min, trace_max; /* 0,0 => computed from the samples (0x7fffffffffffffff and
                                      0x8000000000000000 when there are none) */
} tw_hpctk4;

enum { TW_META, TW_PROFILE, TW_CCT, TW_TRACE, TW_NFILES };

/** Writes the database to memory.  out[TW_META..TW_TRACE] receive malloc'ed files; absent files
 *  (no_cct, no_trace) get {NULL, 0}.  On error every out[] is {NULL, 0}.
 *  cct.db is the transposition of every profile with is_summary == 0 (profIndex = position in
 *  desc.profiles), sorted by context, then metric, then profile.
 *  @return 0, -EINVAL, -ENOMEM. */
int tw_hpctk4_write(const tw_hpctk4 *d, tw_blob out[TW_NFILES]);

/** mkdir -p dir, then writes meta.db, profile.db and, unless disabled, cct.db and trace.db.
 *  A disabled file left over from an earlier run is removed so the directory always matches the
 *  description.
 *  @return 0, -EINVAL, -ENOMEM, -errno of mkdir/open/write. */
int tw_hpctk4_write_dir(const tw_hpctk4 *d, const char *dir);

/* ---------------------------------------------------------------------------------------------
 * tw_hpctk4_sample(): a small but complete hand-made database.  *d points to static storage (do
 * not free; callers may copy *d and change minor, extra, devstage, unaligned, no_cct or no_trace
 * before writing).
 *
 * title "profdb sample",
 * description "Hand-made HPCToolkit 4.0 test database (profdb tests/writer).",
 * default id names (8 kinds).
 *
 * Scopes (index: name type propagationIndex): 0 point 1 255; 1 function 3 0; 2 execution 2 255;
 * 3 lex_aware 0 255.
 *
 * Metrics:
 *   0 "CPUTIME (sec)"  props point->0  function->1  execution->2
 *                      summaries (scope, formula, combine -> statMetricId):
 *                      (point "$$" sum -> 0) (function "$$" sum -> 1) (execution "$$" sum -> 2)
 *   1 "cycles"         props execution->3  lex_aware->4
 *                      summaries (execution "$$" sum -> 3) (execution "$$" max -> 4)
 *                                (lex_aware "$$" sum -> 5)
 *
 * Modules: 0 "/usr/bin/sample"  1 "/lib/x86_64-linux-gnu/libc.so.6"
 * Files:   0 "/src/sample.c" flags 0   1 "src/util.h" flags 1 (copied, relative)
 * Functions (name, module, offset, file, line):
 *   0 "main"    0 0x1130  0 10        1 "compute" 0 0x1200  0 30
 *   2 "helper" -1 0       1 5         3 "memcpy"  1 0x9a0c0 -1 0
 *   4 NULL (anonymous) 1 0x2000 -1 0
 *
 * Contexts (array index: id, parent id, relation, lexical type, fields, flags, propagation).
 * In the final layout ids 1 and 15 are entry points; in dev-stage they are root {Ctx} with
 * flags 0 (lexical type function, relation 0).
 *   0: id 1  top-level  entry "main thread" (entryPoint 1)
 *   1: id 2  <- 1   call     function  function 0 (main)                    flags 1  prop 0
 *   2: id 3  <- 2   lexical  loop      file 0 line 12, module 0 +0x1140     flags 6  prop 1
 *   3: id 4  <- 3   lexical  line      file 0 line 13                       flags 2  prop 1
 *   4: id 5  <- 4   lexical  instr     module 0 +0x1158                     flags 4  prop 1
 *   5: id 7  <- 5   call     function  function 1 (compute)                 flags 1  prop 0
 *   6: id 8  <- 7   lexical  line      file 0 line 32                       flags 2  prop 1
 *   7: id 9  <- 8   inlined  function  function 2 (helper)                  flags 1  prop 0
 *   8: id 10 <- 9   lexical  line      file 1 line 6                        flags 2  prop 1
 *   9: id 12 <- 7   lexical  loop      file 0 line 40                       flags 2  prop 1
 *  10: id 13 <- 12  lexical  instr     module 0 +0x1248                     flags 4  prop 1
 *  11: id 14 <- 13  call     function  function 3 (memcpy)                  flags 1  prop 0
 *  12: id 15 top-level  entry "unknown entry" (entryPoint 0)
 *  13: id 16 <- 15  call     function  function 4 (anonymous)               flags 1  prop 0
 * Id 11 is ELIDED: it has values (an instruction under line 10) but no tree node.  Id 6 is
 * unused.  Id 0 (global context) has values.  cct.db nCtxs = 17.
 *
 * Profiles: 0 summary (isSummary, pIdTuple 0);
 *   1 (NODE kind 1 flags 1 logical 0 physical 0x7f000101, THREAD kind 3 flags 0 logical 0
 *      physical 0);
 *   2 (NODE kind 1 flags 1 logical 0 physical 0x7f000101, THREAD kind 3 flags 0 logical 1
 *      physical 1).
 *
 * Values (prop metric ids in profiles 1-2 and cct.db, stat metric ids in profile 0).  Profile 1
 * has 32 values in 14 contexts, profile 2 has 25 in 11, profile 0 has 38 in 16:
 *   ctx  profile 1                 profile 2                 profile 0 (summary)
 *     0  2:3.75 3:4096             2:1.625 3:2048            2:5.375 3:6144 4:4096
 *     1  2:3.75                    2:1.5                     2:5.25
 *     2  1:1 2:3.75                1:0.5 2:1.5               1:1.5 2:5.25
 *     3  1:1 2:3.75                1:0.5 2:1.5               1:1.5 2:5.25
 *     4  1:1 2:3.75                1:0.5 2:1.5               1:1.5 2:5.25
 *     5  0:1 1:1 2:3.75            0:0.5 1:0.5 2:1.5         0:1.5 1:1.5 2:5.25
 *     7  1:2 2:2.75                1:1 2:1                   1:3 2:3.75
 *     8  2:0.5                     -                         2:0.5
 *     9  1:0.5 2:0.5               -                         1:0.5 2:0.5
 *    10  1:0.5 2:0.5               -                         1:0.5 2:0.5
 *    11  0:0.5 1:0.5 2:0.5         -                         0:0.5 1:0.5 2:0.5
 *    12  1:2 2:2.25                1:1 2:1                   1:3 2:3.25
 *    13  0:2 1:2 2:2.25            0:1 1:1 2:1               0:3 1:3 2:3.25
 *        3:4096 4:4096             3:2048 4:2048             3:6144 4:4096 5:6144
 *    14  0:0.25 1:0.25 2:0.25      -                         0:0.25 1:0.25 2:0.25
 *    15  -                         2:0.125                   2:0.125
 *    16  -                         0:0.125 1:0.125 2:0.125   0:0.125 1:0.125 2:0.125
 * (CPUTIME: point = samples, function = exclusive over lexical edges, execution = inclusive; the
 * summary is the sum over both threads, stat 4 the max, stat 5 the lex_aware sum.)
 *
 * Traces: trace 0 = profile 1, 6 samples (time, ctx) at TW_SAMPLE_T0 + 1000*k:
 *   (+1000, 5) (+2000, 13) (+3000, 0) (+4000, 14) (+5000, 10) (+6000, 13);
 * trace 1 = profile 2, empty.
 * trace.db minTimestamp TW_SAMPLE_T0 + 1000, maxTimestamp TW_SAMPLE_T0 + 6000.
 * --------------------------------------------------------------------------------------------- */
#define TW_SAMPLE_T0 UINT64_C(1700000000000000000)
void tw_hpctk4_sample(tw_hpctk4 *d);

/* ---------------------------------------------------------------------------------------------
 * tw_hpctk4_synth_dir(): synthetic database for benchmarks, streamed to dir (mkdir -p) so it
 * scales to many GiB with memory proportional to the context tree, not to the values.
 *
 *  - meta.db: title "profdb synthetic database"; modules /usr/bin/synth-app,
 *    /usr/lib/libsynth.so.1, /lib/x86_64-linux-gnu/libc.so.6; n_contexts/40 + 4 functions
 *    (main, worker, fn_<k>; the ones in libc have no source file); one file per 4 functions
 *    (every fifth relative with flags 1).
 *    2 entry points ("main thread" id 1 -> main(), and "application thread" -> worker() when
 *    n_contexts >= 8), then a tree grown breadth-first to exactly n_contexts nodes (entry points
 *    included) from functions (calls and inlined calls), loops, lines and instructions;
 *    propagation bit 0 set exactly on lexical (relation 0) edges.  Context ids increase in
 *    creation order with occasional unused gaps; some lines are followed by an ELIDED id
 *    (values, no tree node).
 *  - scopes: point(1,255) function(3,0) execution(2,255); metric m ("metric-<m>") has props
 *    point -> 3m, function -> 3m+1, execution -> 3m+2 and one "$$" sum summary per scope with
 *    statMetricId == propMetricId.  n_metrics <= 21845.
 *  - profiles: 0 = summary, 1..n_profiles = threads with tuple (NODE flags 1 logical (p-1)/64
 *    physical 0x7f000001+(p-1)/64, THREAD flags 0 logical = physical = (p-1)%64).
 *    For every value-bearing id c (0, tree nodes, elided ids) and metric m,
 *    tw_hpctk4_synth_present(seed, p, c, m, density) decides whether thread p stores the pair;
 *    if so it stores the three values tw_hpctk4_synth_value(seed, p, c, m, s) for s = 0 point,
 *    1 function, 2 execution (multiples of 1/1024 below 3072, point <= function <= execution,
 *    never 0, so every sum is exact).  The summary stores, for every pair at least one thread
 *    has, the sum over threads.
 *  - cct.db: the transposition of the thread profiles.
 *  - trace.db: one line per thread (trace i = profile i+1) with n_samples samples, sample k at
 *    TW_SAMPLE_T0 + k*1000000 + jitter (< 1000000, so strictly increasing), ctx ids of tree
 *    nodes other than entry points (0 = idle now and then, never twice in a row);
 *    min/max = first/last sample.
 *  - Cost: about 22 bytes of profile.db + cct.db per stored value, 3 values per stored pair.
 * @return 0, -EINVAL (n_contexts < 2, n_metrics > 21845, density outside [0,1]), -ENOMEM,
 *         -errno. */
int tw_hpctk4_synth_dir(const char *dir, uint32_t n_profiles, uint32_t n_contexts,
                        uint16_t n_metrics, double density, uint64_t n_samples, uint64_t seed);

/** Whether synthetic thread profile p (1-based) stores metric m at context id c. */
int tw_hpctk4_synth_present(uint64_t seed, uint32_t p, uint32_t c, uint32_t m, double density);

/** The synthetic value of thread p, context id c, metric m, scope s (0 point, 1 function,
 *  2 execution); meaningful only where tw_hpctk4_synth_present() is true. */
double tw_hpctk4_synth_value(uint64_t seed, uint32_t p, uint32_t c, uint32_t m, unsigned s);

/* ---- Cube4 .cubex (tests/writer/cube.c) ------------------------------------------------------
 *
 * A tiny ustar writer plus a fixed sample archive with known values, for the Cube reader's tests
 * and fuzz seeds.  The sample (see tw_cube_expected()):
 *  - regions 0 main, 1 foo, 2 bar, 3 init;
 *  - cnodes, XML order: root id 3 (main) { id 0 (foo) { id 4 (bar) }, id 1 (bar) }, root id 2
 *    (init, two parameters); deep order 3 0 4 1 2, wide order 3 0 1 4 2;
 *  - locations in XML order ids 0, 2, 1 (two processes, under system-tree nodes 0 > 1);
 *  - attributes: Creator and CUBE_CT_AGGR on the file, "note" on cnode 2, "gpu" on location 1;
 *  - topologies: "Process x Thread" (2 x 2, locId coords) and an unnamed 1-d one (lgId, stnId);
 *  - metrics: 0 time (EXCLUSIVE DOUBLE) { 1 mintime (EXCLUSIVE MINDOUBLE) }, 2 visits (INCLUSIVE
 *    UINT64), 3 bytes (EXCLUSIVE INT32, no data members), 4 small (EXCLUSIVE INT16), and with
 *    TW_CUBE_DERIVED 5 ratio (POSTDERIVED with the unquoted CubePL attributes CubeLib writes).
 *  Members are written as Score-P does: binary members first (.data before .index, metrics not in
 *  id order), anchor.xml last. */

enum {
    TW_CUBE_BIG_ENDIAN = 1 << 0,    /* index and data in big-endian order */
    TW_CUBE_ZCUBEX = 1 << 1,        /* ZCUBEX.DATA rows, blocks in reverse order (needs zlib) */
    TW_CUBE_DENSE = 1 << 2,         /* DENSE indexes (every row stored) */
    TW_CUBE_BAD_CHECKSUM = 1 << 3,  /* wrong header checksums, typeflag NUL, as Score-P 9.4 */
    TW_CUBE_CUBEW_PAD = 1 << 4,     /* CubeW padding: an extra zero block after 512-multiples */
    TW_CUBE_DERIVED = 1 << 5,       /* add a derived metric with unquoted <cubepl> attributes */
    TW_CUBE_NO_ANCHOR = 1 << 6,     /* leave anchor.xml out */
    TW_CUBE_GZIP_ANCHOR = 1 << 7,   /* gzip anchor.xml (needs zlib) */
    TW_CUBE_GZIP_ARCHIVE = 1 << 8,  /* gzip the whole archive (needs zlib) */
    TW_CUBE_BAD_POSITION = 1 << 9,  /* metric 0's index names a position past the call tree */
    TW_CUBE_ABSURD_COUNT = 1 << 10, /* metric 0's index claims 0x7fffffff entries */
    TW_CUBE_SHORT_DATA = 1 << 11,   /* metric 2's data member lacks its last row */
    TW_CUBE_EXACT_BLOCK = 1 << 12,  /* add a 512-byte "padding.bin" member first */
    TW_CUBE_SIMPLE = 1 << 13        /* metric 4 is SIMPLE: rows in cnode id order */
};

/** Append one member (ustar header, data, zero padding to 512; with @p cubew_pad an extra zero
 *  block when size is a multiple of 512; with @p bad_checksum the header checksum is off by 32 and
 *  the typeflag is NUL).  0 or -ENOMEM. */
int tw_tar_add(tw_blob *tar, const char *name, const void *data, size_t size, int cubew_pad,
               int bad_checksum);
/** Append the two zero blocks that end an archive. */
int tw_tar_end(tw_blob *tar);

/** The sample's anchor.xml text (malloc'ed, NUL-terminated). */
char *tw_cube_anchor(unsigned flags);

/** Write the sample archive.  @p anchor, when not NULL, replaces anchor.xml's text.
 *  0, -ENOMEM, or -ENOTSUP for a flag that needs zlib in a build without it. */
int tw_cube_write(tw_blob *out, unsigned flags, const char *anchor);

/** Sample counts. */
enum { TW_CUBE_METRICS = 5, TW_CUBE_CNODES = 5, TW_CUBE_LOCATIONS = 3, TW_CUBE_REGIONS = 4 };

/** The value stored for (metric, cnode, location) with @p flags: returns 1 and *value when the
 *  row exists, 0 (and the neutral value) when it does not. */
int tw_cube_expected(unsigned flags, uint32_t metric, uint32_t cnode, uint32_t location,
                     double *value);

/** A second sample with the structured dtypes: call tree 0 (root) -> 1, 2; locations 0 and 1;
 *  metrics 0 COMPLEX, 1 RATE (no row for cnode 2), 2 TAU_ATOMIC, 3 HISTOGRAM(4), 4 NDOUBLES(3)
 *  (no row for cnode 2), all EXCLUSIVE; 5 RATE, 6 TAU_ATOMIC, INCLUSIVE; 7 SCALE_FUNC (848 zero
 *  bytes per cell); 8 HISTOGRAM(4), INCLUSIVE. The stored fields are listed in tests/writer/cube.c
 *  (dt_cells). Flags: TW_CUBE_BIG_ENDIAN only. */
enum { TW_CUBE_DT_METRICS = 9, TW_CUBE_DT_CNODES = 3, TW_CUBE_DT_LOCATIONS = 2 };
int tw_cube_write_dtypes(tw_blob *out, unsigned flags);

/** A large archive for benchmarks, streamed to @p path: an 8-ary call tree of @p cnodes (cnode
 *  i's children are 8i+1 .. 8i+8), @p locations threads in groups of 16, two EXCLUSIVE metrics
 *  with DENSE indexes, 0 DOUBLE and 1 UINT64, cnodes x locations x 16 bytes of rows (20000 x 1600
 *  is 512 MB). Flags: TW_CUBE_ZCUBEX (one zlib block per row). 0, -EINVAL, -ENOMEM, -EIO,
 *  -ENOTSUP (ZCUBEX without zlib). */
int tw_cube_write_big(const char *path, uint32_t cnodes, uint32_t locations, unsigned flags);
/** The value it stores for (metric, cnode, location). */
double tw_cube_big_value(uint32_t metric, uint32_t cnode, uint32_t location);

/* ---- hpcrun .hpcrun / .hpctrace (tests/writer/hpcrun.c) ----------------------------------------
 *
 * Writes .hpcrun 02.00 (with or without the 2017 metric trailer), 03.00 and 04.00 and .hpctrace
 * 01.01, big-endian, laid out as ../shared/notes/hpctoolkit.md §8 says the real writer does (04.00:
 * sections padded to 1024 bytes, 8-entry id-tuple dictionary, sparse index in node order, "end!"
 * marker, 112-byte footer).  Compiled into the executables that use it (like cube.c).
 *
 * The sample (tw_hpcrun_sample): attrs program-name app, mpi-rank 0, thread-id 0, host-id
 * 7f000101, process-id 4242; metrics 0 "CPUTIME (sec)" real, 1 "cycles" int (period 1000,
 * num_samples 12, is_frequency 1), 2 "GPUOP (sec)" real (formula "#0/2", format "%6.2f");
 * modules 1 /usr/bin/app (flags 1), 2 /lib/x86_64-linux-gnu/libc.so.6, 3 [vdso];
 * nodes (index: id parent lm ip) 0: 1 0 0 "^Primary"; 1: 3 1 1 0x1000; 2: 5 3 1 0x1010;
 * 3: 7 5 2 0x2000; 4: 9 3 1 0x1020; 5: 11 9 3 0x3000 (04.00 flags 0, others 1); 6: 13 1 2 0x2100
 * (02.00/03.00 store leaves 3, 5, 6 with negative ids);
 * raw values (node, metric, value): (1,0,1.5) (2,2,3.0) (3,0,2.0) (3,1,100) (5,0,0.25) (5,1,7)
 * (6,1,5); inclusive at node 0: 3.75, 112, 3.0;  04.00 id tuple NODE 0x4001 phys 0x7f000101,
 * THREAD 0xC003 0.
 * The sample trace (tw_hpctrace_sample), (time, cct id, metric id): (T0+1000, 7, 0)
 * (T0+2000, 11, 1) (T0+2000, 13, 1) (T0+5000, 3, 0) (T0+9000, 7, 2), T0 = TW_HPCRUN_T0. */

typedef struct tw_hpcrun_metric {
    const char *name, *description;   /* description NULL = the name */
    int is_real;
    uint64_t period;
    const char *formula, *format;
    const unsigned char *raw_flags;    /* 16 bytes to store instead of the usual flags, or NULL */
    uint16_t is_frequency;             /* trailer fields */
    uint64_t num_samples;
} tw_hpcrun_metric;

typedef struct tw_hpcrun_module {
    uint16_t id;
    const char *name;
    uint64_t flags;
} tw_hpcrun_module;

typedef struct tw_hpcrun_node {
    int32_t id;           /* stored as is (negative leaves in 02.00/03.00) */
    uint32_t parent_id;   /* 0 = root */
    uint16_t lm_id;
    uint64_t ip;
    uint8_t flags;        /* 04.00 only */
} tw_hpcrun_node;

/** One raw value; sorted by node index, then metric. */
typedef struct tw_hpcrun_value {
    uint32_t node;        /* index into nodes */
    uint16_t metric;
    uint64_t bits;
} tw_hpcrun_value;

typedef struct tw_hpcrun_id {
    uint16_t kind;
    uint64_t physical, logical;
} tw_hpcrun_id;

typedef struct tw_hpcrun {
    unsigned version;            /* 2, 3 or 4 */
    int trailer;                 /* 02.00: write the 20-byte metric trailer (03.00/04.00 always) */
    int lush;                    /* 02.00/03.00: logical-unwinding fields in each node */
    uint32_t n_epochs;           /* 02.00/03.00: the epoch is repeated (0 = 1) */
    const char *const *attrs;    /* 2 * n_attrs strings: name, value, ... */
    uint32_t n_attrs;
    const tw_hpcrun_metric *metrics;
    uint32_t n_metrics;
    const tw_hpcrun_module *modules;
    uint32_t n_modules;
    const tw_hpcrun_node *nodes;
    uint64_t n_nodes;
    const tw_hpcrun_value *values;
    uint64_t n_values;
    const tw_hpcrun_id *ids;     /* 04.00 id tuple */
    uint32_t n_ids;
} tw_hpcrun;

typedef struct tw_hpctrace_rec {
    uint64_t time;
    uint32_t cct_id, metric_id;  /* metric_id written only with flags bit 0 */
} tw_hpctrace_rec;

#define TW_HPCRUN_T0 UINT64_C(1714000000000000000)

/** 0, -EINVAL (bad version, values unsorted or out of range), -ENOMEM. */
int tw_hpcrun_write(const tw_hpcrun *d, tw_blob *out);
int tw_hpctrace_write(uint64_t flags, const tw_hpctrace_rec *recs, size_t n, tw_blob *out);
/** Fills *d with the sample (static storage; copy and change fields freely). */
void tw_hpcrun_sample(tw_hpcrun *d, unsigned version, int trailer);
void tw_hpctrace_sample(const tw_hpctrace_rec **recs, size_t *n);
/** The IEEE bits of x. */
uint64_t tw_hpcrun_f64(double x);

/* ---- HPCToolkit experiment.xml databases (tests/writer/hpctkxml.c) ---------------------------
 * experiment.xml with .metric-db records: 32-byte header "HPCPROF-metricdb__00.10b", u32 rows,
 * u32 metrics, then rows x metrics f64, all big-endian; row r is context r + 1. */

/** Rows of the sample database: contexts 1 (the experiment root) to 7. */
#define TW_XMLDB_ROWS 7u
/** One .metric-db record of @p n_rows x @p n_metrics values (row-major). */
int tw_mdb_record(tw_blob *out, uint32_t n_rows, uint32_t n_metrics, const double *values);
/** A packed experiment-N.mdb or experiment.mt (the same layout for metric-db records and
 *  hpcrun traces): u32 kind (bit 0: a rank is not 0, bit 1: a thread is not 0), u32 n,
 *  n x {u32 rank, u32 thread, u64 offset}, the records in table order, the 8-byte end marker
 *  ff ff ff ff de ad f0 0d. */
int tw_mdb_packed(tw_blob *out, uint32_t n, const uint32_t *rank, const uint32_t *thread,
                  const tw_blob *records);
/** The sample's experiment.xml: metrics 2/3 (summary), 0/1 (threads); tree PF 2 > C 3 >
 *  Pr 4 (alien) > L 5 > S 6, PF 2 > S 7; printed values = the two threads' sums; trace ids
 *  it="60" on S 6, it="70" on S 7; <TraceDB u="1000000000"> (times in ns). */
const char *tw_xmldb_sample_xml(void);
/** Thread @p t's (0 or 1) value at row @p r, column @p k (0 inclusive, 1 exclusive). */
double tw_xmldb_value(uint32_t t, uint32_t r, uint32_t k);
/** The first trace time of the sample (ns since the epoch, 2024). */
#define TW_XMLDB_T0 UINT64_C(1714000000000000000)
/** Thread @p t's trace samples (time, it id): thread 0 three, thread 1 four (two equal). */
void tw_xmldb_trace(uint32_t t, const tw_hpctrace_rec **recs, size_t *n);
/** tw_xmldb_write_dir flags. */
enum {
    TW_XMLDB_PACKED = 1,      /* experiment-1.mdb (and experiment.mt) instead of loose files */
    TW_XMLDB_TRACES = 2,      /* one trace per thread: *.hpctrace, or packed experiment.mt */
    TW_XMLDB_NO_RECORDS = 4,  /* no .metric-db / .mdb (hpcprof's default output) */
    TW_XMLDB_RANKS = 8        /* thread t is rank t thread 2t (0/0 and 1/2), not rank 0 thread t */
};
/** Rank and thread of the sample's thread @p t under @p flags. */
void tw_xmldb_identity(uint32_t t, int flags, uint32_t *rank, uint32_t *thread);
/** The sample into @p dir (created): experiment.xml and two .metric-db files named
 *  1.app-RRRRRR-TTT-7f000001-P-0.metric-db (rank 0, threads 0 and 1 unless TW_XMLDB_RANKS),
 *  with TW_XMLDB_PACKED one experiment-1.mdb; with TW_XMLDB_TRACES the traces likewise
 *  (.hpctrace or experiment.mt). @p flags: TW_XMLDB_*, 0 for loose records alone. */
int tw_xmldb_write_dir(const char *dir, int flags);

/* ---- HPCToolkit pre-release databases and the draft meta.db (tests/writer/hpctkpre.c) ---------
 *
 * Writes pre-release HPCPROF-profdb__ / HPCPROF-cctdb___ / HPCPROF-tracedb_ files (big-endian,
 * version 1.0, headers padded to 128 bytes, byte-reversed footers, trace.db without footer, empty
 * trace lines pointing past the end of the file) plus experiment.xml, and the draft
 * HPCTOOLKIT_expmt meta.db, as ../shared/notes/hpctoolkit.md §6-7 describe them.  Compiled into
 * the executables that use it (like cube.c).
 *
 * The sample (tw_pre_sample): 3 profiles (0 summary [SUMMARY], 1 and 2 threads [NODE 0x7f000001,
 * THREAD 0xC003 logical 0/1]); 10 cct.db slots; experiment.xml tree (document order, id):
 * PF 1 main { L 2 { S 3, C 4 { PF 5 foo { S 6 } } }, C -8 { PF 8 memcpy { S 9 } } }; metrics
 * <Metric> 512 inclusive / 256 exclusive (summary), 767 view (no values), <MetricDB> 2 (I) / 1 (E).
 * Thread p: exclusive (1) 1.5p at ctx 3, 0.25p at 6, 2p at 9; inclusive (2) on ctxs 0 1 2 3 4 5 6
 * 8 9 summed up the tree; the summary holds the sums over both threads (ids 256/512).  Trace 0 is
 * profile 1: (T0+1000, 3) (T0+2000, 6) (T0+2000, 9) (T0+5000, 0); trace 1 (profile 2) is empty.
 *
 * The draft sample (tw_draft_write): title "tw-draft", kinds SUMMARY NODE RANK THREAD, metric
 * "time" {execution raw 2 {512 sum "$$"}, function raw 1 {256 sum "$$"}}, module /usr/bin/app,
 * file main.c, functions main (main.c:3, 0x1000) and foo; tree 1 main { 2 loop main.c:5 { 3 line
 * main.c:6 }, 4 call foo from main.c:7 { 5 point app+0x1010 } }. */

#define TW_PRE_T0 UINT64_C(1650000000000000000)
#define TW_PRE_SAMPLE_VALUES 36

typedef struct tw_pre_value {
    uint32_t profile, ctx;
    uint16_t metric;
    double value;
} tw_pre_value;

typedef struct tw_pre_tsample {
    uint64_t time;
    uint32_t ctx;
} tw_pre_tsample;

typedef struct tw_pre_trace {
    uint32_t profile;
    uint16_t type;
    const tw_pre_tsample *samples;
    size_t n;
} tw_pre_trace;

typedef struct tw_pre {
    uint32_t n_profiles;            /* profile 0 is the summary */
    uint32_t n_ctx;                 /* cct.db slots; every value's ctx must be below */
    const tw_pre_value *values;     /* sorted by (profile, ctx, metric) */
    size_t n_values;
    const tw_pre_trace *traces;
    size_t n_traces;
    const char *xml;                /* experiment.xml text; NULL = the sample's */
    uint8_t major, minor;           /* 0, 0 = 1.0 */
    int zero_cct;                   /* cct.db value blocks all zero, as the real writer left them */
    int native_footer;              /* "PROFDBft"/"CCTDBftr" (a big-endian host) */
    int no_footer;                  /* leave the footers out */
    int zero_trace_bounds;          /* min/max time 0, as real files */
} tw_pre;

enum {
    TW_DRAFT_DOC7 = 1 << 0,   /* 7 sections, identifier table inside General (the document) */
    TW_DRAFT_FOOTER = 1 << 1, /* append the optional "nmBDFORP" footer */
    TW_DRAFT_CYCLE = 1 << 2   /* context 3's children block is the root block */
};

/** The sample (static storage; copy and change fields freely). */
void tw_pre_sample(tw_pre *d);
const char *tw_pre_sample_xml(void);
/** profile.db, cct.db, trace.db, experiment.xml into out[0..3] (profdb_hpctkpre_file order).
 *  0, -EINVAL (values unsorted or out of range), -ENOMEM. */
int tw_pre_write(const tw_pre *d, tw_blob out[4]);
/** The same four files into directory @p dir (created if missing). */
int tw_pre_write_dir(const tw_pre *d, const char *dir);
/** The draft meta.db sample. 0 or -ENOMEM. */
int tw_draft_write(tw_blob *out, unsigned flags);

/* ---- Deep call chains in every format (tests/writer/chain.c) -----------------------------------
 *
 * For stress tests and benchmarks of deep call trees: frame k (k = 0 .. depth-1) is function "f<k>"
 * and calls frame k+1, so the call tree is one path @p depth frames deep. One metric, one thread
 * (plus the summary profile where the format has one). With @p every = 0 only the leaf has self
 * cost (1); with @p every = 1 every frame has self cost 1, so frame k's inclusive cost is depth-k.
 *  - Callgrind: text, event Ir, compressed names, one call line per frame;
 *  - Cube: one EXCLUSIVE DOUBLE metric "time", DENSE rows, one region per frame, cnode k = frame k;
 *  - hpcrun 04.00: the "^Primary" root, then frame k as node id 2k+3;
 *  - HPCToolkit 4.0 (meta.db, profile.db, cct.db): the "main thread" entry point, then frame k as
 *    context id k+2 (a call to function k); point, function and execution values as hpcprof
 *    stores them (inclusive at every frame);
 *  - pre-release: frame k is a <PF> (id 2k+1) inside the call site <C> (id 2k) of its caller.
 * Compiled into the executables that use it, with cube.c, hpcrun.c and hpctkpre.c.
 * @return 0, -EINVAL (depth 0 or too large for the format), -ENOMEM, -errno. */
int tw_chain_callgrind(const char *path, uint32_t depth, int every);
int tw_chain_cube(const char *path, uint32_t depth, int every);
int tw_chain_hpcrun(const char *path, uint32_t depth, int every);
int tw_chain_hpctk4(const char *dir, uint32_t depth, int every);
int tw_chain_pre(const char *dir, uint32_t depth, int every);

#ifdef __cplusplus
}
#endif

#endif
