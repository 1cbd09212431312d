/* Shared driver of the Cube4 fuzz targets (fuzz-cube, fuzz-cube-anchor,
 * fuzz-cube-data): open an archive with profdb_cube_open_mem(), call every
 * public Cube function on everything it claims to hold, check invariants.
 * A violation prints the invariant and aborts (a crash for libFuzzer and the
 * standalone driver alike).
 *
 * Invariants (drive-cube.c has the exact list):
 *  - a failed call returns a documented negative errno, sets a non-empty
 *    profdb_error_message(), and a failed open leaves the handle NULL;
 *  - the counts agree with profdb_cube_get_info(); every id below a count
 *    reads, the count itself is -ENOENT; strings are non-NULL and
 *    NUL-terminated (ASan sees a read past their end);
 *  - the call tree and the metric tree: a walk from the first root along
 *    first_child / next_sibling visits every node exactly once, each child
 *    names its parent, roots have none;
 *  - values: profdb_cube_value_get() and profdb_cube_row_get() agree on presence and
 *    on the number (every scalar dtype, converted as documented); a second
 *    read gives the same bits (the inflated-row cache agrees with the first
 *    inflation); a missing row reads as the neutral value;
 *  - inclusive values computed by the walk (post-order sums of the exclusive
 *    values of integer metrics) equal the plain sum over all cnodes, i.e.
 *    the walk covers the tree exactly once;
 *  - strict mode (fuzz_hpctk_strict, --strict of the standalone driver; used
 *    on the committed seeds, which are valid archives): the archive opens
 *    and every value reads without an error.
 * Rows are copied into caller memory and strings live in the handle, so no
 * pointer into the input is ever handed out: there is no view to check.
 * The work per input is capped (values read, tree nodes walked). */
#ifndef PROFDB_FUZZ_DRIVE_CUBE_H
#define PROFDB_FUZZ_DRIVE_CUBE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz-common.h"
#include "profdb/profdb.h"

/* What one run found out, for targets that check more (fuzz-cube-data). */
typedef struct fuzz_cube_result {
	int open;            /* result of profdb_cube_open_mem() */
	uint64_t values;     /* values read */
} fuzz_cube_result;

/* Open [data, data + size) (which must stay alive until it returns), drive,
 * close. @p check, when not NULL, is called with the open handle before it
 * is closed. Returns the result of the open. */
int fuzz_cube_run(const uint8_t *data, size_t size,
                  void (*check)(const profdb_cube *c, void *arg), void *arg);

/* Abort with a message when @p cond is false. */
#define CUBE_CHECK(cond, ...) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

#endif
