/* Errors that every rank agrees on (mpi-internal.h says why), the
 * injected faults of the tests, and the options. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-internal.h"

#define MSG_BYTES 1024

static _Thread_local char message[MSG_BYTES];
static _Thread_local int have_message;

PROFDB_EXPORT const char *profdb_mpi_error_message(void)
{
	return message;
}

int pm_fail(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	have_message = 1;
	return err;
}

int pm_agree(MPI_Comm comm, int err)
{
	int rank, size, first;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int mine = err < 0 ? rank : size;
	if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
		return pm_fail(-EIO, "MPI_Allreduce failed while agreeing on the outcome");
	if (first == size) {
		have_message = 0;
		return 0;
	}
	/* The failing rank's code and message, prefixed with its rank. */
	struct {
		int err;
		char msg[MSG_BYTES];
	} what;
	memset(&what, 0, sizeof what);
	if (rank == first) {
		what.err = err;
		const char *m = have_message ? message : profdb_error_message();
		int n = snprintf(what.msg, sizeof what.msg, "rank %d: ", rank);
		size_t room = sizeof what.msg - (size_t)n - 1, len = strlen(m);
		memcpy(what.msg + n, m, len < room ? len : room);   /* NUL: memset above */
	}
	if (MPI_Bcast(&what, (int)sizeof what, MPI_BYTE, first, comm) != MPI_SUCCESS)
		return pm_fail(-EIO, "MPI_Bcast failed while agreeing on rank %d's error", first);
	memcpy(message, what.msg, sizeof message);
	message[sizeof message - 1] = 0;
	have_message = 0;
	return what.err;
}

int pm_fault(const profdb_mpi_options *mo, MPI_Comm comm, const char *stage)
{
	const char *spec = mo->fault ? mo->fault : getenv("PROFDB_MPI_FAULT");
	int rank;
	char *end;
	if (!spec || !*spec)
		return 0;
	MPI_Comm_rank(comm, &rank);
	long r = strtol(spec, &end, 10);
	return end != spec && *end == ':' && r == rank && strcmp(end + 1, stage) == 0;
}

int pm_copy_options(const profdb_mpi_options *in, profdb_mpi_options *out)
{
	profdb_mpi_options def = PROFDB_MPI_OPTIONS_INIT;
	*out = def;
	if (!in)
		return 0;
	if (in->size < sizeof(size_t) || in->size > sizeof *out)
		return pm_fail(-EINVAL, "profdb_mpi: options.size %zu is not one this library knows "
		               "(start from PROFDB_MPI_OPTIONS_INIT)", in->size);
	memcpy(out, in, in->size);
	out->size = sizeof *out;
	if (out->order != PROFDB_MPI_TREE && out->order != PROFDB_MPI_FIXED)
		return pm_fail(-EINVAL, "profdb_mpi: unknown order %d", (int)out->order);
	return 0;
}
