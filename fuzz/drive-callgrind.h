/* Shared driver of the Callgrind fuzz targets (fuzz-callgrind,
 * fuzz-callgrind-gz): open with profdb_cg_open_mem(), call every public
 * Callgrind function on everything the profile holds, check invariants; a
 * violation prints the invariant and aborts.
 *
 * Invariants (drive-callgrind.c has the exact list):
 *  - a failed open returns a documented negative errno, leaves the handle
 *    NULL and sets a message; a failing getter likewise;
 *  - every getter succeeds below its count and returns -ENOENT at it;
 *  - views: every name (event, function, object, file, line file) of a
 *    plain-text input lies inside the caller's buffer (they are views, not
 *    copies); of a gzip input, it is at least readable for its length;
 *  - per profile and over all profiles: the totals are the sum of the self
 *    costs (stored events, when the sum does not wrap), a function's detail
 *    rows are sorted by (line, instruction) and add up to its self cost
 *    (profdb_cg_detail_new() fails only with -ENOMEM once the open
 *    succeeded: it re-reads lines the scanner accepted), no
 *    inclusive cost is below the self cost or above the totals, the lazily
 *    built inclusive table gives the same answer twice, a function absent
 *    from a profile has zero cost there, and each "all profiles" self cost
 *    is the sum over the profiles;
 *  - call edges name existing functions; an edge read in one profile is the
 *    same edge with at most the summed call count;
 *  - the parallel scan (options.threads 2 to 9, whatever the size) gives
 *    what one thread gives: result, error message, every warning, and the
 *    profile (fuzz_cg_compare());
 *  - fuzz_cg_compare(): a profile read from gzip equals the same text read
 *    plain, byte for byte and cost for cost (per profile: self costs,
 *    detail rows and jumps too); fuzz-callgrind also compares the text with
 *    its CRLF copy, which the scanner's fast paths leave to its general one.
 * The work per input is capped (functions, line rows, call edges visited). */
#ifndef PROFDB_FUZZ_DRIVE_CALLGRIND_H
#define PROFDB_FUZZ_DRIVE_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz-common.h"
#include "profdb/profdb.h"

/* Open [data, data + size) (alive until the handle is closed) and drive it.
 * @p plain: the input is the text itself (names must point into it), not
 * gzip. On success returns 0 and, when @p keep is not NULL, hands the open
 * handle to the caller (who closes it); otherwise closes it. Returns the
 * result of the open. */
int fuzz_cg_run(const uint8_t *data, size_t size, int plain, profdb_cg **keep);

/* Abort unless @p a and @p b describe the same profile. */
void fuzz_cg_compare(const profdb_cg *a, const profdb_cg *b);

#define CG_CHECK(cond, ...) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

#endif
