/* Input files: mapped read-only (or copied, or borrowed from the caller) and
 * read only through profdb__span, the single bounds check. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core-internal.h"

static const unsigned char empty[1];

void (*profdb__input_mapped_hook)(const char *path);

static int read_all(int fd, unsigned char *buf, size_t size)
{
	size_t done = 0;
	while (done < size) {
		ssize_t n = read(fd, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

int profdb__input_open(profdb__input *in, const char *path, const char *name, uint32_t flags)
{
	struct stat st;
	int r;

	memset(in, 0, sizeof *in);
	in->name = name;
	in->map_slot = -1;
	int fd = profdb__open_regular(path, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return profdb__fail(-EFBIG, "%s: file too large for this address space", path);
	}
	size_t size = (size_t)st.st_size;
	in->base = empty;
	in->size = size;
	if (size == 0) {
		close(fd);
		return 0;
	}
	if (flags & PROFDB_OPEN_COPY) {
		unsigned char *buf = malloc(size);
		if (!buf) {
			close(fd);
			return profdb__fail(-ENOMEM, "%s: cannot allocate %zu bytes", path, size);
		}
		r = read_all(fd, buf, size);
		close(fd);
		if (r < 0) {
			free(buf);
			return profdb__fail(r, "%s: read failed (file changed while reading?)", path);
		}
		in->base = buf;
		in->owned = buf;
		in->owned_size = size;
		memcpy(in->tail, buf + size - (size < 8 ? size : 8), size < 8 ? size : 8);
		return 0;
	}
	int mflags = MAP_PRIVATE;
#ifdef MAP_POPULATE
	if (flags & PROFDB_OPEN_POPULATE)
		mflags |= MAP_POPULATE;
#endif
	void *map = mmap(NULL, size, PROT_READ, mflags, fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		close(fd);
		return profdb__fail(r, "%s: mmap failed: %s", path, strerror(-r));
	}
	/* The size we map is the size we trust; re-check it so a file that was
	 * truncated between fstat and mmap is caught here rather than as a
	 * SIGBUS later (truncation after open is the caller's hazard: the
	 * table of mappings lets its SIGBUS handler name the file,
	 * doc/ROBUSTNESS.md). */
	if (profdb__input_mapped_hook)
		profdb__input_mapped_hook(path);
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < size) {
		munmap(map, size);
		close(fd);
		return profdb__fail(-ENODATA, "%s: file shrank while being opened", path);
	}
	size_t nt = size < sizeof in->tail ? size : sizeof in->tail;
	if (pread(fd, in->tail, nt, (off_t)(size - nt)) != (ssize_t)nt)
		memcpy(in->tail, (const unsigned char *)map + size - nt, nt);
	close(fd);
	in->base = map;
	in->owned = map;
	in->owned_size = size;
	in->owned_is_map = 1;
	in->map_slot = profdb__mapping_add(map, size, path);
	return 0;
}

void profdb__input_mem(profdb__input *in, const void *data, size_t size, const char *name)
{
	memset(in, 0, sizeof *in);
	in->map_slot = -1;
	in->base = data ? data : empty;
	in->size = data ? size : 0;
	in->name = name;
	size_t nt = in->size < sizeof in->tail ? (size_t)in->size : sizeof in->tail;
	memcpy(in->tail, in->base + in->size - nt, nt);
}

void profdb__input_prefault(const profdb__input *in, uint64_t off, uint64_t len)
{
#ifdef MADV_POPULATE_READ
	if (!in->owned_is_map || off >= in->size || len == 0)
		return;
	if (len > in->size - off)
		len = in->size - off;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)in->base + (uintptr_t)off, b = a + (uintptr_t)len;
	a &= ~((uintptr_t)(page > 0 ? page : 4096) - 1);
	(void)madvise((void *)a, (size_t)(b - a), MADV_POPULATE_READ);   /* a hint */
#else
	(void)in, (void)off, (void)len;
#endif
}

void profdb__input_read_through(const profdb__input *in)
{
#ifdef MADV_HUGEPAGE
	if (in->owned_is_map && in->owned_size >= ((size_t)2 << 20))
		(void)madvise((void *)in->owned, in->owned_size, MADV_HUGEPAGE);   /* a hint */
#else
	(void)in;
#endif
}

void profdb__prefault_write(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
	uintptr_t a = ((uintptr_t)p + mask) & ~mask, b = ((uintptr_t)p + len) & ~mask;
	if (p && b > a)
		(void)madvise((void *)a, (size_t)(b - a), MADV_POPULATE_WRITE);   /* a hint */
#else
	(void)p, (void)len;
#endif
}

void profdb__input_close(profdb__input *in)
{
	if (in->owned) {
		/* Out of the table before the pages go, so that a fault at an
		 * address reused by another mapping is never blamed on this file. */
		if (in->owned_is_map) {
			profdb__mapping_remove(in->map_slot);
			munmap(in->owned, in->owned_size);
		} else {
			free(in->owned);
		}
	}
	memset(in, 0, sizeof *in);
}

int profdb__span(const profdb__input *in, uint64_t lo, uint64_t hi, uint64_t off,
                 uint64_t len, const char *what, const unsigned char **out)
{
	if (hi > in->size)
		hi = in->size;
	if (lo <= hi && off >= lo && len <= hi - lo && off - lo <= (hi - lo) - len) {
		if (out)
			*out = in->base + off;
		return 0;
	}
	/* Past the end of the file itself looks like truncation; anything else
	 * (outside its section, below it) is a corrupt pointer. */
	int truncated = hi == in->size && off >= lo && off <= in->size &&
	                len > in->size - off;
	return profdb__fail(truncated ? -ENODATA : -EBADMSG,
	                    "%s: %s at offset 0x%" PRIx64 " (%" PRIu64 " bytes) %s "
	                    "[0x%" PRIx64 ", 0x%" PRIx64 ")",
	                    in->name, what, off, len,
	                    truncated ? "runs past the end of the file, which ends at"
	                              : "lies outside its allowed range",
	                    lo, hi);
}

int profdb__mul(const profdb__input *in, uint64_t a, uint64_t b, const char *what,
                uint64_t *out)
{
	if (__builtin_mul_overflow(a, b, out))
		return profdb__fail(-EBADMSG, "%s: %s: %" PRIu64 " x %" PRIu64 " overflows",
		                    in->name, what, a, b);
	return 0;
}

int profdb__string(const profdb__input *in, uint64_t lo, uint64_t hi, uint64_t off,
                   const char *what, const char **out)
{
	const unsigned char *p = NULL;
	if (hi > in->size)
		hi = in->size;
	int r = profdb__span(in, lo, hi, off, 1, what, &p);
	if (r < 0)
		return r;
	if (!memchr(p, 0, (size_t)(hi - off)))
		return profdb__fail(-EBADMSG,
		                    "%s: %s at offset 0x%" PRIx64 " has no NUL before 0x%" PRIx64,
		                    in->name, what, off, hi);
	*out = (const char *)p;
	return 0;
}
