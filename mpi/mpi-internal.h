/* libprofdb-mpi's shared pieces: the agreed error, lists of keyed
 * accumulators and their reductions over the ranks, the partition.
 *
 * The rule that keeps every rank out of a hang: between two agreement
 * points (pm_agree) a rank never waits for a message that a failing rank
 * would not send. Local work (opening, reading, folding) comes first and
 * ends in pm_agree; the reductions that follow exchange only data that
 * exists on every rank. The chain (fixed order) is the one exception,
 * handled by sending a failure marker instead of data (pm_chain_*). */
#ifndef PROFDB_MPI_INTERNAL_H
#define PROFDB_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "profdb-mpi.h"

#if defined(__GNUC__)
#define PM_HIDDEN __attribute__((visibility("hidden")))
#else
#define PM_HIDDEN
#endif

/* Sets this thread's message ("rank R: " is added by pm_agree); returns @p err. */
PM_HIDDEN int pm_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Collective: 0 when every rank passed err >= 0; otherwise the error of
 * the lowest failing rank on every rank, its message (prefixed with its
 * rank) copied to every rank. @p err < 0 with no message set: profdb's. */
PM_HIDDEN int pm_agree(MPI_Comm comm, int err);
/* The fault to inject on this rank at @p stage ("open", "read"): 1 yes. */
PM_HIDDEN int pm_fault(const profdb_mpi_options *mo, MPI_Comm comm, const char *stage);
PM_HIDDEN int pm_copy_options(const profdb_mpi_options *in, profdb_mpi_options *out);

/* A list of accumulators under byte keys, sorted by key (memcmp order, a
 * prefix first), one record per key: [u32 key length][key][acc]. It is
 * also the wire format (one host's byte order: all ranks share it). */
typedef struct pm_list {
	unsigned char *buf;
	size_t len, cap;
	uint64_t n;
} pm_list;

typedef struct pm_rec {
	const unsigned char *key;
	uint32_t klen;
	profdb_stats_acc acc;
} pm_rec;

PM_HIDDEN void pm_list_free(pm_list *l);
/* Appends a record (keys must come in increasing order). 0 or -ENOMEM. */
PM_HIDDEN int pm_list_append(pm_list *l, const void *key, uint32_t klen,
                             const profdb_stats_acc *acc);
/* Record at byte offset *pos; advances *pos. 1: a record, 0: the end. */
PM_HIDDEN int pm_list_next(const pm_list *l, size_t *pos, pm_rec *out);
/* memcmp order, the shorter first on a common prefix. */
PM_HIDDEN int pm_key_cmp(const void *a, uint32_t na, const void *b, uint32_t nb);
/* *a := a merged with b, whose values all come after a's
 * (profdb_stats_acc_merge on equal keys). 0 or -ENOMEM. */
PM_HIDDEN int pm_list_merge(pm_list *a, const pm_list *b);

/* Accumulators under byte keys while a rank folds its runs (fold.c): a
 * hash index, so folding r runs costs O(values) look-ups, not the
 * O(r × paths) of merging each run into a sorted list. The key's last 4
 * bytes are its metric's number, big-endian (the ensemble's keys). */
typedef struct pm_fold {
	unsigned char *arena;       /* the keys, back to back */
	size_t len_arena, cap_arena;
	struct pm_fold_entry *entries;
	size_t n_entries, cap_entries;
	uint32_t *slots;            /* entry + 1, 0: empty */
	size_t mask;                /* slots - 1; 0: no slots yet */
} pm_fold;

PM_HIDDEN void pm_fold_free(pm_fold *f);
/* Fold value @p v of run @p run into @p key's accumulator (created empty
 * if absent), after every value already there (profdb_stats_acc_add).
 * 0 or -ENOMEM. */
PM_HIDDEN int pm_fold_add(pm_fold *f, const void *key, uint32_t klen, double v, uint32_t run);
/* Start from a list of earlier runs (the chain): its accumulators become
 * the state of their keys. Call it on an empty fold. 0, -ENOMEM, -EINVAL. */
PM_HIDDEN int pm_fold_start(pm_fold *f, const pm_list *l);
/* The fold as a sorted list in *out (replaced). 0 or -ENOMEM. */
PM_HIDDEN int pm_fold_finish(pm_fold *f, pm_list *out);

/* Binomial-tree reduction of every rank's list to rank 0 (rank order kept:
 * the left operand is always the lower ranks). Collective; call it only
 * after pm_agree said every rank has its list. 0 or -EIO/-ENOMEM (then
 * the caller aborts the job: a half-done reduction cannot be agreed). */
PM_HIDDEN int pm_tree_reduce(pm_list *l, MPI_Comm comm);
/* The chain: receive rank r-1's list (rank 0: nothing). Returns 0 (list in
 * *l, empty at rank 0) or the failure rank r-1 passed on (-ECANCELED: an
 * earlier rank failed; its message comes with pm_agree). */
PM_HIDDEN int pm_chain_recv(pm_list *l, MPI_Comm comm);
/* The chain: pass @p l (or, when @p err < 0, a failure marker) to rank r+1
 * (the last rank: keep it). */
PM_HIDDEN int pm_chain_send(const pm_list *l, int err, MPI_Comm comm);

/* Move rank @p from's list to rank @p to (its own list replaced); other
 * ranks do nothing. Collective in the sense that both must call it after
 * an agreement. 0, -EIO, -ENOMEM. */
PM_HIDDEN int pm_move(pm_list *l, int from, int to, MPI_Comm comm);

/* Rank @p rank's share [*lo, *hi) of @p n items with weights @p w
 * (contiguous, balanced by weight; NULL: by count). */
PM_HIDDEN void pm_partition(const uint64_t *w, size_t n, int rank, int size, size_t *lo,
                            size_t *hi);

/* Keys of the statistics of one database: metric then context, big-endian,
 * so key order is the result's row order. */
PM_HIDDEN void pm_stats_key(unsigned char key[8], uint32_t metric, uint32_t context);

#endif
