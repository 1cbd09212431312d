/* profdb-mpi's checks that every rank works on the same thing, and its
 * output file.
 *
 * Every rank parses its own command line and opens its own inputs, so an
 * MPMD launch (`mpirun -n 2 profdb-mpi stats A : -n 2 profdb-mpi stats B`),
 * an option given to one rank only, or a file that differs between the
 * nodes' file systems would otherwise combine unrelated numbers, or leave
 * one rank in a collective the others never enter. Before parsing, the
 * ranks compare a hash of their argument list; once the inputs are known
 * (an @FILE list read), a hash of their names, then one hash per input
 * (its type, size and modification time; for a directory, those of each
 * of its entries, by name), with one MPI_Allreduce each. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tool/tool.h"
#include "mpi-internal.h"
#include "tool-mpi.h"

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

/* A number as 8 little-endian bytes, whatever the host's order. */
static uint64_t hash_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return hash_bytes(h, b, sizeof b);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	size_t n = strlen(s);
	return hash_bytes(hash_u64(h, n), s, n);
}

static uint64_t hash_stat(uint64_t h, const struct stat *st)
{
	h = hash_u64(h, (uint64_t)(st->st_mode & S_IFMT));
	h = hash_u64(h, (uint64_t)st->st_size);
	h = hash_u64(h, (uint64_t)st->st_mtim.tv_sec);
	return hash_u64(h, (uint64_t)st->st_mtim.tv_nsec);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* What this rank sees at @p path: a failure to look counts as its errno,
 * so that ranks failing the same way agree (and then fail as one). */
static uint64_t hash_input(const char *path)
{
	struct stat st;
	uint64_t h = hash_str(FNV_OFFSET, path);
	if (stat(path, &st) != 0)
		return hash_u64(h, (uint64_t)errno);
	h = hash_stat(h, &st);
	if (!S_ISDIR(st.st_mode))
		return h;
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, by_name);
	if (n < 0)
		return hash_u64(h, (uint64_t)errno);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
			size_t len = strlen(path) + strlen(name) + 2;
			char *full = malloc(len);
			h = hash_str(h, name);
			if (!full)
				h = hash_u64(h, ENOMEM);
			else {
				snprintf(full, len, "%s/%s", path, name);
				h = lstat(full, &st) == 0 ? hash_stat(h, &st) : hash_u64(h, (uint64_t)errno);
				free(full);
			}
		}
		free(ents[i]);
	}
	free(ents);
	return h;
}

/* Do all ranks hold the same @p n hashes? The index of the first that
 * differs, -1 when none, or -2 when MPI failed. */
static int64_t first_difference(const uint64_t *h, size_t n, MPI_Comm comm)
{
	/* the minimum of h and of ~h (which is ~ the maximum) in one reduction */
	uint64_t *both = malloc(2 * (n ? n : 1) * sizeof *both);
	if (!both)
		return -2;
	for (size_t i = 0; i < n; i++) {
		both[2 * i] = h[i];
		both[2 * i + 1] = ~h[i];
	}
	int64_t at = -1;
	if (MPI_Allreduce(MPI_IN_PLACE, both, (int)(2 * n), MPI_UINT64_T, MPI_MIN, comm) !=
	    MPI_SUCCESS)
		at = -2;
	for (size_t i = 0; at == -1 && i < n; i++)
		if (both[2 * i] != ~both[2 * i + 1])
			at = (int64_t)i;
	free(both);
	return at;
}

int pm_agree_args(int argc, char **argv, MPI_Comm comm)
{
	uint64_t args = hash_u64(FNV_OFFSET, (uint64_t)argc);
	for (int i = 0; i < argc; i++)
		args = hash_str(args, argv[i]);
	int64_t d = first_difference(&args, 1, comm);
	if (d == 0)
		return pm_fail(-EINVAL, "the ranks were started with different arguments (an MPMD "
		               "launch, or options given to some ranks only); every rank must run "
		               "the same command");
	return d < -1 ? pm_fail(-EIO, "MPI_Allreduce failed while comparing the arguments") : 0;
}

int pm_agree_inputs(const pm_args *a, MPI_Comm comm)
{
	/* the names first: an @FILE list is read by each rank */
	uint64_t args = hash_u64(FNV_OFFSET, a->n_paths);
	for (size_t i = 0; i < a->n_paths; i++)
		args = hash_str(args, a->paths[i]);
	int64_t d = first_difference(&args, 1, comm);
	if (d == 0)
		return pm_fail(-EINVAL, "the ranks read different @FILE lists; every rank must read "
		               "the same list");
	if (d < -1 || a->n_paths > (size_t)(INT32_MAX / 2))
		return pm_fail(-EIO, "MPI_Allreduce failed while comparing the inputs");
	uint64_t *h = malloc((a->n_paths ? a->n_paths : 1) * sizeof *h);
	int e = h ? 0 : pm_fail(-ENOMEM, "out of memory comparing the inputs");
	for (size_t i = 0; h && i < a->n_paths; i++)
		h[i] = hash_input(a->paths[i]);
	/* every rank reduces, even one out of memory: an array of one */
	d = first_difference(h ? h : &args, h ? a->n_paths : 1, comm);
	free(h);
	if (e == 0 && d >= 0)
		e = pm_fail(-EINVAL, "%s: the ranks see different files (the size or modification "
		            "time of the input, or of a file in it, differs between ranks); every "
		            "rank must read the same data", a->paths[d]);
	else if (e == 0 && d < -1)
		e = pm_fail(-EIO, "MPI_Allreduce failed while comparing the inputs");
	return pm_agree(comm, e);
}

/* ---- -o FILE ---------------------------------------------------------------- */

static char *tmp_name;      /* the new file, renamed to the output at the end */
static int redirected;      /* standard output goes to the output */
static int saved_stdout = -1;

int pm_output_open(const char *path)
{
	struct stat st;
	int fd;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a pipe is written in place, never replaced */
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
			return pm_fail(-errno, "%s: cannot open the output: %s", path, strerror(errno));
	} else {
		const char *dir_end = strrchr(path, '/');
		int dir_len = dir_end ? (int)(dir_end - path + 1) : 0;
		size_t len = (size_t)dir_len + sizeof ".profdb-mpi-XXXXXX";
		if (!(tmp_name = malloc(len)))
			return pm_fail(-ENOMEM, "out of memory");
		snprintf(tmp_name, len, "%.*s.profdb-mpi-XXXXXX", dir_len, path);
		if ((fd = mkstemp(tmp_name)) < 0) {
			int e = errno;
			free(tmp_name);
			tmp_name = NULL;
			return pm_fail(-e, "%s: cannot create the output beside it: %s", path,
			               strerror(e));
		}
		mode_t mask = umask(0);   /* the mode a new file gets, not mkstemp's 0600 */
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	redirected = 1;
	fflush(stdout);
	saved_stdout = dup(STDOUT_FILENO);
	if (saved_stdout < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		int e = errno;
		close(fd);
		pm_output_close(path, 0);
		return pm_fail(-e, "%s: cannot redirect the output: %s", path, strerror(e));
	}
	close(fd);
	return 0;
}

int pm_output_close(const char *path, int ok)
{
	int e = 0;
	if (!redirected)
		return 0;
	redirected = 0;
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		e = errno ? errno : EIO;
	else if (ok && tmp_name && fsync(STDOUT_FILENO) != 0)
		e = errno;
	if (saved_stdout >= 0) {
		dup2(saved_stdout, STDOUT_FILENO);
		close(saved_stdout);
		saved_stdout = -1;
	}
	clearerr(stdout);
	if (tmp_name && ok && e == 0 && rename(tmp_name, path) != 0)
		e = errno;
	if (tmp_name && (!ok || e))
		unlink(tmp_name);
	free(tmp_name);
	tmp_name = NULL;
	if (e)
		fprintf(stderr, "profdb-mpi: %s: writing the output failed: %s\n", path, strerror(e));
	return e ? -e : 0;
}
