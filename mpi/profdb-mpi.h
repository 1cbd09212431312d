/* profdb/profdb-mpi.h — statistics over profiles and over run ensembles,
 * distributed with MPI (libprofdb-mpi; installed only when profdb was built
 * with the `mpi` feature). libprofdb itself never links MPI.
 *
 * Every function here is COLLECTIVE over @p comm: every rank calls it with
 * the same arguments (paths, options). A rank that fails (cannot open or
 * read its part, runs out of memory) does not leave the others waiting:
 * the ranks agree on the outcome at fixed points, and every rank returns
 * the same negative errno, the one of the lowest failing rank, with the
 * same message (profdb_mpi_error_message(), "rank R: <what failed, naming
 * the file>"). Results are complete on rank 0 only. doc/SCALING.md
 * describes the partition, the reductions and their cost. @since 0.11
 */
#ifndef PROFDB_MPI_H
#define PROFDB_MPI_H

#include <mpi.h>

#include <profdb/analysis.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How the partial results are combined. @since 0.11 */
typedef enum profdb_mpi_order {
	/** A binomial tree over the ranks (log2 N steps, ranks in parallel):
	 *  count, min, max and their profiles exact; sum, mean and stddev
	 *  differ from one process only by the summation order, within the
	 *  bound of doc/model.md ("Statistics in parts"). */
	PROFDB_MPI_TREE = 0,
	/** A chain in rank order: rank r continues rank r-1's fold over its own
	 *  profiles (profdb_stats_options.start), so every number is bit for
	 *  bit the one-process result (`profdb stats --threads 1`). The ranks
	 *  then run one after another: as slow as one process plus the
	 *  transfers, for verification. */
	PROFDB_MPI_FIXED = 1
} profdb_mpi_order;

/** Options of the distributed calls. Start from PROFDB_MPI_OPTIONS_INIT.
 *  @since 0.11 */
typedef struct profdb_mpi_options {
	size_t size;                /**< sizeof(profdb_mpi_options) */
	profdb_mpi_order order;
	/** For tests: fail on purpose on this rank (-EIO, the message names
	 *  the file) when opening ("open") or reading its part ("read");
	 *  NULL: the environment variable PROFDB_MPI_FAULT ("RANK:open" or
	 *  "RANK:read") if set, else never. */
	const char *fault;
} profdb_mpi_options;

/** The default options (tree reduction). @since 0.11 */
#define PROFDB_MPI_OPTIONS_INIT { sizeof(profdb_mpi_options), PROFDB_MPI_TREE, PROFDB__NULL }

/** Open @p path on every rank (collective).
 *  @return 0 on every rank, or on every rank the error of the lowest rank
 *  that failed (its message in profdb_mpi_error_message()); *ret is then
 *  NULL everywhere. Lifetime: profdb_close() on every rank. @since 0.11 */
PROFDB_EXPORT int profdb_mpi_open(profdb **ret, const char *path, const profdb_options *opts,
                                  const profdb_mpi_options *mo, MPI_Comm comm);

/** Statistics over profiles (profdb_stats_new) computed by the ranks of
 *  @p comm together (collective): the selected profiles are cut into one
 *  contiguous range per rank, balanced by value-block bytes, each rank
 *  reads only its range's blocks, and the partial results are reduced.
 *  @p opts as for profdb_stats_new (the same on every rank; start must be
 *  NULL; threads is per rank).
 *  @param ret  rank 0: receives the result (free with profdb_stats_free());
 *              other ranks: NULL.
 *  @return 0 on every rank, or the same negative errno on every rank
 *  (profdb_mpi_error_message() names the rank and the file): -EINVAL (bad
 *  arguments or options), what profdb_stats_new() returns, -EIO (an MPI
 *  call failed, or an injected fault). Memory per rank: O(contexts x
 *  metrics). @since 0.11 */
PROFDB_EXPORT int profdb_mpi_stats_new(profdb_stats **ret, const profdb *db,
                                       const profdb_stats_options *opts,
                                       const profdb_mpi_options *mo, MPI_Comm comm);

/** The message of the last failure of a profdb_mpi_* call in this thread
 *  (the same on every rank after a collective failure); "" when none.
 *  @since 0.11 */
PROFDB_EXPORT const char *profdb_mpi_error_message(void);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_MPI_H */
