/* Shared driver of the HPCToolkit 4.0 fuzz targets.
 *
 * fuzz_hpctk_run() opens the given files with profdb_hpctk_open_mem() and, if
 * that succeeds, calls every public function of the HPCToolkit reader on
 * everything the database says it holds, checking invariants as it goes. Any
 * violation prints a line naming the invariant to stderr and calls abort(),
 * which libFuzzer and the standalone driver both report as a crash.
 *
 * Invariants checked (see drive-hpctk.c for the exact list):
 *  - a failed call returns a documented negative errno and leaves a non-empty
 *    profdb_error_message();
 *  - every pointer handed out (strings with their NUL, plane index and value
 *    arrays, runs, trace elements) lies inside the buffer of the file it
 *    comes from;
 *  - lazily validated objects give the same answer on the second call (the
 *    "already checked" fast path agrees with the validating path);
 *  - the walk visits context_count + 1 nodes, each agreeing with
 *    context_by_id, context_parent and the children iterator of its parent;
 *  - planes, runs and traces are sorted, their binary searches agree with
 *    their scans, and seek/window agree with the definition;
 *  - cross-file consistency of profile.db and cct.db, see
 *    fuzz_hpctk_strict below.
 *
 * The work per input is capped (profiles, cct.db slots, trace lines and
 * elements visited) so one run stays fast whatever the counts claim. */
#ifndef PROFDB_FUZZ_DRIVE_HPCTK_H
#define PROFDB_FUZZ_DRIVE_HPCTK_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz-common.h"
#include "profdb/profdb.h"

/* Cross-file consistency (profile.db vs cct.db): when every profile and
 * context plane validated, each (profile >= 1, context, metric) value found
 * through one file must be found with the same bits through the other, or
 * the lookup must fail with an error.
 *
 * The library validates each file on its own and does not compare the two,
 * so a database whose profile.db and cct.db disagree is read without an
 * error. A mutated input almost always disagrees, so by default a mismatch
 * is only counted (fuzz_hpctk_stats). With fuzz_hpctk_strict set (the
 * standalone driver's --strict, or PROFDB_FUZZ_STRICT=1 in the environment)
 * a mismatch aborts: used on the committed seed corpus, whose databases are
 * consistent by construction. The companion pass of the single-file targets
 * (fuzz_hpctk_run_slot) pairs a file with files of another database, so its
 * mismatches are never fatal. */
extern int fuzz_hpctk_strict;

/* PROFDB_FUZZ_VERBOSE=1: print why an input did not open. */
extern int fuzz_hpctk_verbose;

typedef struct fuzz_hpctk_stats {
	uint64_t opened;       /* successful opens */
	uint64_t compared;     /* cross-file value comparisons made */
	uint64_t mismatches;   /* ... that disagreed without an error */
} fuzz_hpctk_stats;

extern fuzz_hpctk_stats fuzz_hpctk_stats_total;

/* Open @p files (indexed by profdb_hpctk_file; data == NULL means absent),
 * drive the whole API, close. Returns the result of the open. */
int fuzz_hpctk_run(const profdb_input files[PROFDB_HPCTK_NFILES]);

/* A fixed, valid database from the test-data writer's sample (final or
 * dev-stage layout) in exact-size heap buffers, built on first use. Returns
 * NULL when the fuzzers were built without the writer. */
const profdb_input *fuzz_hpctk_companions(profdb_hpctk_layout layout);

/* The single-file targets: run the input as file @p which, first alone,
 * then -- if it opened alone -- together with the other three files of the
 * companion database, so the fuzzed file is also read against a valid
 * meta.db/profile.db (layout decisions, tree, metric ids). The companion
 * layout is the layout the file alone was opened with. */
void fuzz_hpctk_run_slot(profdb_hpctk_file which, const uint8_t *data, size_t size);

/* fuzz-hpctk-db: the separator between the four files of one input (see
 * fuzz-hpctk-db.c). Also in hpctk.dict. */
#define FUZZ_HPCTK_SEP "#PDBSEP#"
#define FUZZ_HPCTK_SEP_LEN 8

/* libFuzzer's entry point, defined by each fuzz-*.c target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message when @p cond is false. */
#define FUZZ_CHECK(cond, ...) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

#endif
