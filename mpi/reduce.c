/* Moving partial results between ranks: the binomial tree and the chain
 * (mpi-internal.h). A message is a header {status, bytes, records} and
 * then the list's bytes in chunks MPI's int counts can express. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-internal.h"

#define TAG_HEAD 1801
#define TAG_DATA 1802
#define CHUNK (1u << 30)

typedef struct head {
	int64_t status;       /* 0: data follows; < 0: the sender's chain failed */
	uint64_t bytes, n;
} head;

static int send_list(const pm_list *l, int status, int to, MPI_Comm comm)
{
	head h = {status, status < 0 ? 0 : l->len, status < 0 ? 0 : l->n};
	if (MPI_Send(&h, (int)sizeof h, MPI_BYTE, to, TAG_HEAD, comm) != MPI_SUCCESS)
		return pm_fail(-EIO, "MPI_Send of a partial result to rank %d failed", to);
	for (uint64_t off = 0; off < h.bytes; off += CHUNK) {
		int n = (int)(h.bytes - off < CHUNK ? h.bytes - off : CHUNK);
		if (MPI_Send(l->buf + off, n, MPI_BYTE, to, TAG_DATA, comm) != MPI_SUCCESS)
			return pm_fail(-EIO, "MPI_Send of a partial result to rank %d failed", to);
	}
	return 0;
}

/* 0 (list in *l), the sender's failure status, or an error of our own. */
static int recv_list(pm_list *l, int from, MPI_Comm comm)
{
	head h;
	memset(l, 0, sizeof *l);
	if (MPI_Recv(&h, (int)sizeof h, MPI_BYTE, from, TAG_HEAD, comm, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return pm_fail(-EIO, "MPI_Recv of a partial result from rank %d failed", from);
	if (h.status < 0)
		return (int)h.status;
	if (h.bytes && !(l->buf = malloc(h.bytes)))
		return pm_fail(-ENOMEM, "out of memory for rank %d's partial result (%llu bytes)",
		               from, (unsigned long long)h.bytes);
	for (uint64_t off = 0; off < h.bytes; off += CHUNK) {
		int n = (int)(h.bytes - off < CHUNK ? h.bytes - off : CHUNK);
		if (MPI_Recv(l->buf + off, n, MPI_BYTE, from, TAG_DATA, comm, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS) {
			pm_list_free(l);
			return pm_fail(-EIO, "MPI_Recv of a partial result from rank %d failed", from);
		}
	}
	l->len = l->cap = h.bytes;
	l->n = h.n;
	return 0;
}

int pm_tree_reduce(pm_list *l, MPI_Comm comm)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	/* At step s, rank r (a multiple of 2s) holds ranks [r, r + s) and
	 * receives [r + s, r + 2s): always the later profiles on the right. */
	for (int step = 1; step < size; step *= 2) {
		if (rank % (2 * step) == step)
			return send_list(l, 0, rank - step, comm);
		if (rank % (2 * step) == 0 && rank + step < size) {
			pm_list other;
			int e = recv_list(&other, rank + step, comm);
			if (e == 0)
				e = pm_list_merge(l, &other);
			pm_list_free(&other);
			if (e < 0)
				return e;
		}
	}
	return 0;
}

int pm_chain_recv(pm_list *l, MPI_Comm comm)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	memset(l, 0, sizeof *l);
	if (rank == 0)
		return 0;
	return recv_list(l, rank - 1, comm);
}

int pm_chain_send(const pm_list *l, int err, MPI_Comm comm)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rank == size - 1)
		return 0;
	return send_list(l, err < 0 ? (err == -ECANCELED ? -ECANCELED : err) : 0, rank + 1, comm);
}

int pm_move(pm_list *l, int from, int to, MPI_Comm comm)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	if (from == to || (rank != from && rank != to))
		return 0;
	if (rank == from)
		return send_list(l, 0, to, comm);
	pm_list_free(l);
	return recv_list(l, from, comm);
}
