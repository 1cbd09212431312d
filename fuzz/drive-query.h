/* Shared driver of the common query interface (profdb.h, "The common query
 * interface"), called by every fuzz target after its format's own driver,
 * with the same buffers under the file names the format expects.
 *
 * fuzz_query_run() opens the buffers with profdb_open_inputs() twice, in
 * tolerant mode (PROFDB_OPEN_TOLERANT) and in strict mode, each time with a
 * warn callback and max_memory = 256 MiB, and walks whatever opened. Any
 * violated invariant prints it and calls abort().
 *
 * Invariants (drive-query.c has the exact list):
 *  - a failed call (open included) returns a documented negative errno
 *    (fuzz_documented(), the list in profdb/common.h) and leaves a non-empty
 *    profdb_error_message(); a failed open leaves the handle NULL; every
 *    warning is a non-empty message;
 *  - strings: every profdb_str has a non-NULL pointer; one that points into an
 *    input buffer ends inside it; all its bytes are readable (ASan checks
 *    the ones the handle owns);
 *  - counts agree with the enumerations: metric_count - (SUMMARY-kind ids) ==
 *    counts.metrics, context_count == counts.contexts, profile_count ==
 *    counts.profiles; every metric_at, profile_get, ... below a count succeeds and the one at
 *    the count is -ENOENT; metric_get(id) and metric_find(name) find the
 *    metric, its exclusive_id/inclusive_id exist;
 *  - the tree: walked from context_root through first_child/next_sibling
 *    only, each node once, never more than context_count nodes, exactly that
 *    many when the walk completes; parent/depth/relation/in_tree consistent;
 *  - values: every entry of a PROFDB_SCAN_ALL cursor equals profdb_value()
 *    bit for bit, profiles ascend, and a complete scan counts counts.values;
 *    PROFDB_SCAN_PROFILE scans give the ALL entries of their profile in the
 *    same order, PROFDB_SCAN_CONTEXT scans the ALL entries of their context in
 *    the profiles that are not summary profiles, as a set (HPCToolkit 4.0
 *    reads those from cct.db: a mismatch is fatal only
 *    when @p consistent, as in drive-hpctk.h); a finished or failed cursor
 *    stays so; a context carrying values is addressable;
 *  - profdb_inclusive/profdb_exclusive on a sample of (profile, context,
 *    metric) return 0, 1 or a documented error, the same bits twice; for
 *    HPCToolkit 4.0 and Callgrind the exclusive value of a metric that is its
 *    own exclusive id is the stored value;
 *  - traces: times do not decrease, trace_seek(t) is the first sample at or
 *    after t, past the end -ENOENT; -ENOTSUP only when counts.traces == 0;
 *    the samples read never exceed counts.samples.
 * The work per open is capped (FUZZ_QUERY_BUDGET entries per kind of scan,
 * 4096 profiles, 2^17 tree nodes, 2^18 trace samples) so a big input does
 * not time out; past a cap the "complete" comparisons are skipped. */
#ifndef PROFDB_FUZZ_DRIVE_QUERY_H
#define PROFDB_FUZZ_DRIVE_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz-common.h"
#include "profdb/profdb.h"

/* Stored values visited per scan kind (ALL, PROFILE, CONTEXT) per open. */
#define FUZZ_QUERY_BUDGET 100000

typedef struct fuzz_query_stats {
	uint64_t runs;         /* fuzz_query_run calls */
	uint64_t opened;       /* successful opens (tolerant and strict count apart) */
	uint64_t values;       /* entries of ALL scans checked against profdb_value */
	uint64_t mismatches;   /* CONTEXT-scan disagreements tolerated (!consistent) */
} fuzz_query_stats;

extern fuzz_query_stats fuzz_query_stats_total;

/* Open @p in[0 .. n) with profdb_open_inputs(), tolerant then strict, and
 * check every invariant above on what opened. @p consistent: the input is
 * known to be consistent across files (a seed run --strict), so cross-file
 * disagreements abort. Returns the result of the tolerant open. */
int fuzz_query_run(const profdb_input *in, size_t n, int consistent);

/* drive-analysis.c: the analysis layer (profile selections, statistics,
 * call edges, the three views) on an open handle; its invariants are listed
 * at the top of that file. */
void fuzz_analysis_run(const profdb *db);

/* drive-convert.c: every output format of profdb_convert() on an open
 * handle, and on @p db1 (the same inputs opened with one thread; may be
 * NULL) for the same bytes; its invariants are listed at the top of that
 * file. */
void fuzz_convert_run(const profdb *db, const profdb *db1);

/* The writers' work grows with profiles times functions (a part per
 * profile decodes each function per part): with more profiles than this,
 * each format is written once (no second handle, no part per profile),
 * so one input stays well inside the fuzzer's time limit. */
#define FUZZ_CONVERT_FEW_PROFILES 8

/* The same, for one buffer named @p name. */
int fuzz_query_run1(const char *name, const void *data, size_t size, int consistent);

/* The HPCToolkit 4.0 single-file targets: the file alone (as meta.db,
 * profile.db, cct.db or trace.db by @p which), then -- if it opened -- with
 * the other three files of the writer's sample database in the layout it
 * opened with (fuzz_hpctk_companions()), never consistent. */
void fuzz_query_hpctk_slot(profdb_hpctk_file which, const uint8_t *data, size_t size,
                           int consistent);

/* The pre-release targets: the present files of @p files (indexed by
 * profdb_hpctkpre_file) as profile.db, cct.db, trace.db and experiment.xml
 * (meta.db when the META slot holds a draft meta.db's magic). */
void fuzz_query_hpctkpre(const profdb_input files[PROFDB_HPCTKPRE_NFILES], int consistent);

/* Abort with a message when @p cond is false. */
#define QUERY_CHECK(cond, ...) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

#endif
