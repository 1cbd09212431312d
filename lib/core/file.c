/* Opening input files without ever blocking, and the table of mapped files
 * that a SIGBUS handler consults.
 *
 * Every file a reader opens goes through profdb__open_regular: O_NONBLOCK,
 * so that a FIFO (or a device) in place of a profile returns at once, and
 * fstat before the first read, so that anything but a regular file is
 * refused with its kind named. A symbolic link that cannot be followed is
 * named as such rather than reported as "no such file".
 *
 * A mapping whose file is truncated while open raises SIGBUS on the next
 * touch of a page past the new end. The library cannot recover from that
 * (worker threads fault too, so there is no safe longjmp), but a program
 * can die with a message naming the file: profdb_mapping_path_of() finds
 * the mapped input that holds a faulting address. The table is a fixed
 * array of slots, each published with a release store of its state, so
 * the lookup takes no lock and allocates nothing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core-internal.h"

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO (named pipe)"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	                     : "not a regular file";
}

/* The message for an open(2) that failed with @p e. */
static int open_failed(const char *path, int e)
{
	struct stat ls;
	if ((e == ENOENT || e == ELOOP) && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) {
		char target[256];
		ssize_t n = readlink(path, target, sizeof target - 1);
		target[n > 0 ? n : 0] = 0;
		return profdb__fail(e == ELOOP ? -ELOOP : -ENOENT,
		                    "%s: a symbolic link (to \"%s\") that cannot be followed: %s",
		                    path, target,
		                    e == ELOOP ? "it loops" : "its target does not exist");
	}
	if (e == ENXIO && stat(path, &ls) == 0)
		return profdb__fail(-EINVAL, "%s: %s, not a regular file", path, kind_of(ls.st_mode));
	return profdb__fail(-e, "%s: cannot open: %s", path, strerror(e));
}

int profdb__open_regular(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return open_failed(path, errno);
	if (fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		return profdb__fail(-e, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return profdb__fail(-EINVAL, "%s: %s, not a regular file", path,
		                    kind_of(st->st_mode));
	}
	/* Regular files ignore O_NONBLOCK; clear it anyway so that reads keep
	 * their ordinary meaning on every file system. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int profdb__read_head(const char *path, unsigned char *buf, size_t cap, size_t *n)
{
	struct stat st;
	int fd = profdb__open_regular(path, &st);
	if (fd < 0)
		return fd;
	size_t done = 0;
	while (done < cap) {
		ssize_t k = read(fd, buf + done, cap - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			close(fd);
			return profdb__fail(-e, "%s: cannot read: %s", path, strerror(e));
		}
		if (k == 0)
			break;
		done += (size_t)k;
	}
	close(fd);
	*n = done;
	return 0;
}

int profdb__path_problem(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : profdb__fail(-errno, "%s: %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode) && stat(path, &st) < 0)
		return open_failed(path, errno);
	if (!S_ISREG(st.st_mode))
		return profdb__fail(-EINVAL, "%s: %s, not a regular file", path, kind_of(st.st_mode));
	return 1;
}

/* ---- the table of mappings -------------------------------------------------- */

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };
#define MAPPING_SLOTS 1024
#define MAPPING_PATH 240

typedef struct mapping_slot {
	_Atomic int state;
	const unsigned char *_Atomic base;
	_Atomic size_t len;
	char path[MAPPING_PATH];
} mapping_slot;

static mapping_slot slots[MAPPING_SLOTS];
static _Atomic unsigned next_hint;

int profdb__mapping_add(const void *base, size_t len, const char *path)
{
	unsigned start = atomic_fetch_add_explicit(&next_hint, 1, memory_order_relaxed);
	for (unsigned k = 0; k < MAPPING_SLOTS; k++) {
		mapping_slot *s = &slots[(start + k) % MAPPING_SLOTS];
		int want = SLOT_FREE;
		if (!atomic_compare_exchange_strong(&s->state, &want, SLOT_BUSY))
			continue;
		size_t n = strlen(path);
		/* A long path keeps its end, which names the file. */
		const char *from = n < MAPPING_PATH ? path : path + n - (MAPPING_PATH - 4);
		snprintf(s->path, sizeof s->path, "%s%s", from == path ? "" : "...", from);
		atomic_store_explicit(&s->base, base, memory_order_relaxed);
		/* The mapping covers whole pages: a fault may lie past len. */
		long page = sysconf(_SC_PAGESIZE);
		if (page > 0 && len % (size_t)page)
			len += (size_t)page - len % (size_t)page;
		atomic_store_explicit(&s->len, len, memory_order_relaxed);
		atomic_store_explicit(&s->state, SLOT_LIVE, memory_order_release);
		return (int)(s - slots);
	}
	return -1;   /* full: that mapping is simply not named on SIGBUS */
}

void profdb__mapping_remove(int slot)
{
	if (slot < 0 || slot >= MAPPING_SLOTS)
		return;
	mapping_slot *s = &slots[slot];
	atomic_store_explicit(&s->state, SLOT_BUSY, memory_order_release);
	atomic_store_explicit(&s->base, NULL, memory_order_relaxed);
	atomic_store_explicit(&s->len, 0, memory_order_relaxed);
	atomic_store_explicit(&s->state, SLOT_FREE, memory_order_release);
}

PROFDB_EXPORT const char *profdb_mapping_path_of(const void *addr)
{
	const unsigned char *a = addr;
	for (unsigned i = 0; i < MAPPING_SLOTS; i++) {
		mapping_slot *s = &slots[i];
		if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_LIVE)
			continue;
		const unsigned char *b = atomic_load_explicit(&s->base, memory_order_relaxed);
		size_t n = atomic_load_explicit(&s->len, memory_order_relaxed);
		if (b && (uintptr_t)a >= (uintptr_t)b && (uintptr_t)a - (uintptr_t)b < n)
			return s->path;
	}
	return NULL;
}
