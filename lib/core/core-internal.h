/* The small core shared by every format module: input files (mapped or
 * caller-owned), the one bounds-checked range helper, per-thread error
 * messages, warnings, and thread-safe lazy initialisation. */
#ifndef PROFDB_CORE_CORE_H
#define PROFDB_CORE_CORE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profdb-config.h"   /* what this build has (generated) */
#include "profdb/common.h"
#include "bytes-internal.h"

#define PROFDB__PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ---- errors (error.c) ---------------------------------------------------- */

/* Record a message for the calling thread and return @p code (negative). */
int profdb__fail(int code, const char *fmt, ...) PROFDB__PRINTF(2, 3);
/* The calling thread's message buffer (read by the once helper). */
const char *profdb__message(void);
void profdb__set_message(const char *msg);

/* ---- an input file ------------------------------------------------------- */

typedef struct profdb__input {
	const unsigned char *base;  /* first byte; never written */
	uint64_t size;
	const char *name;           /* for messages: "meta.db", or the path */
	void *owned;                /* mapping or copy to release, or NULL */
	size_t owned_size;
	int owned_is_map;
	int map_slot;               /* its slot in the table of mappings, or -1 */
	/* The last min(8, size) bytes (the footer of every format that has one),
	 * read with pread(2) at open so checking them does not fault in, and
	 * keep resident, the last page of a mapping nobody else may touch. */
	unsigned char tail[8];
} profdb__input;

/* Map (or, with PROFDB_OPEN_COPY, read) @p path. @p name is used in
 * messages and must outlive the input. -ENOENT when the file is absent. */
/* 1 when @p path exists (a file, a folder, anything stat() follows to), 0
 * when nothing is there; a negative errno with a message naming it when
 * the entry exists but cannot be followed (a dangling or looping symbolic
 * link) or cannot be looked at. */
int profdb__entry_present(const char *path);

int profdb__input_open(profdb__input *in, const char *path, const char *name,
                       uint32_t flags);
/* Test seam (tests/test-truncation.c): when set, called with the path after
 * a file is mapped and before its size is re-checked, so a test can shrink
 * the file exactly there. NULL in normal use; not exported. */
extern void (*profdb__input_mapped_hook)(const char *path);
/* Open @p path read-only without blocking (a FIFO or device returns at
 * once) and fstat it: the descriptor (>= 0) of a regular file, else a
 * negative errno with a message naming the path and what it is (a FIFO, a
 * directory, a symbolic link that cannot be followed, ...). (file.c) */
struct stat;
int profdb__open_regular(const char *path, struct stat *st);
/* Up to @p cap leading bytes of the regular file @p path into @p buf, their
 * number into @p n (fewer at the end of the file). 0, or a negative errno
 * with a message naming the path. Never blocks. (file.c) */
int profdb__read_head(const char *path, unsigned char *buf, size_t cap, size_t *n);
/* Whether @p path may be opened as an input: 0 absent (nothing there, not
 * even a link), 1 a regular file (or a link to one), or a negative errno
 * with a message for anything else (a FIFO, a link that cannot be
 * followed, ...). Never blocks. (file.c) */
int profdb__path_problem(const char *path);
/* The table of mapped inputs read by profdb_mapping_path_of(): the slot
 * (or -1 when the table is full), and its release. (file.c) */
int profdb__mapping_add(const void *base, size_t len, const char *path);
void profdb__mapping_remove(int slot);
void profdb__input_mem(profdb__input *in, const void *data, size_t size, const char *name);
void profdb__input_close(profdb__input *in);
/* Map the pages of [off, off + len) of a mapped input into the page table
 * in one call (MADV_POPULATE_READ), for a reader about to read all of
 * them: a page fault per few pages costs more, most of all in a VM. Only
 * a hint: nothing happens for a copy, the caller's memory, or a kernel
 * without it; the bytes read are the same. */
void profdb__input_prefault(const profdb__input *in, uint64_t off, uint64_t len);
/* A reader of a mapped input is about to read all of it, front to back:
 * the mapping asks for huge pages (MADV_HUGEPAGE). A file read from disk
 * through it is then cached in 2 MiB folios, each mapped by one page-table
 * entry, so mapping 66 MB and unmapping it take well under a millisecond
 * instead of several (doc/PERFORMANCE.md, "The page cache"). Pages already
 * cached in smaller folios (a file just written) are mapped as they are.
 * A hint, as above; not for readers that look up a few places of a large
 * file, whose faults would each read 2 MiB. */
void profdb__input_read_through(const profdb__input *in);
/* The same for fresh memory of our own about to be written in full (a
 * large table): its whole pages in [p, p + len) are made present and
 * writable in one call (MADV_POPULATE_WRITE). A hint, as above. */
void profdb__prefault_write(void *p, size_t len);

/* The bounds check: [off, off + len) must lie inside [lo, hi) of the input,
 * with hi <= size. All arithmetic is overflow-safe in 64 bits. On success
 * *out points at off. On failure the message names the input, @p what and
 * the offset, and -EBADMSG is returned (or -ENODATA when the range would
 * only fit in a longer file, i.e. the file looks truncated). */
int profdb__span(const profdb__input *in, uint64_t lo, uint64_t hi, uint64_t off,
                 uint64_t len, const char *what, const unsigned char **out);

/* Same over the whole file. */
static inline int profdb__range(const profdb__input *in, uint64_t off, uint64_t len,
                                const char *what, const unsigned char **out)
{
	return profdb__span(in, 0, in->size, off, len, what, out);
}

/* [off, off + len) of the file, or NULL without a message: for checks
 * that judge only what they can read and leave the rest to the checks of
 * first use, which report it. */
static inline const unsigned char *profdb__peek(const profdb__input *in, uint64_t off,
                                                uint64_t len)
{
	return off <= in->size && len <= in->size - off ? in->base + off : NULL;
}

/* a * b into *out; -EBADMSG with a message on overflow. */
int profdb__mul(const profdb__input *in, uint64_t a, uint64_t b, const char *what,
                uint64_t *out);

/* NUL-terminated string starting at @p off that ends before @p hi. */
int profdb__string(const profdb__input *in, uint64_t lo, uint64_t hi, uint64_t off,
                   const char *what, const char **out);

/* ---- warnings ------------------------------------------------------------ */

void profdb__warn(const profdb_options *opts, const char *fmt, ...) PROFDB__PRINTF(2, 3);

/* Tolerant mode (PROFDB_OPEN_TOLERANT): a damaged block -- @p r is
 * -EBADMSG or -ENODATA -- is reported through the warn callback (the
 * calling thread's message, then "(tolerant mode: <what> reads as
 * absent)") and 0 is returned, so the caller reads the block as absent.
 * Any other code, or strict mode, returns @p r unchanged. @p warned (may be
 * NULL) makes the warning once per block. */
int profdb__tolerate(const profdb_options *opts, int r, atomic_bool *warned,
                     const char *what, ...) PROFDB__PRINTF(4, 5);

/* Files of one database that disagree (@p r, with the calling thread's
 * message naming both): @p r in strict mode; in tolerant mode the message
 * as a warning, "(tolerant mode: reading on)", and 0. */
static inline int profdb__disagree(const profdb_options *opts, int r)
{
	if (!(opts->flags & PROFDB_OPEN_TOLERANT))
		return r;
	profdb__warn(opts, "%s (tolerant mode: reading on)", profdb__message());
	return 0;
}

/* Check caller options at a public open (@p fn names it in the message):
 * -EINVAL when size < sizeof(size_t), when bytes past the fields this
 * version knows are not zero, or when flags has an unknown bit
 * (doc/CONVENTIONS.md, "Options"). NULL is fine. */
int profdb__options_check(const profdb_options *o, const char *fn);

/* Copy checked caller options (a shorter, older struct gets defaults). */
void profdb__options_copy(profdb_options *dst, const profdb_options *src);
/* Copies a caller's options struct of any version over @p dst, which holds
 * the defaults (its first field is the size_t size): a NULL @p in keeps
 * them; a smaller size takes only the fields it covers; bytes past the
 * fields this version knows must be zero. @p fn and @p init name the call
 * and the struct's initialiser in the message. @return 0 or -EINVAL. */
int profdb__options_take(void *dst, size_t dst_size, const void *in, const char *fn,
                         const char *init);

/* ---- per-block state (block.c) ------------------------------------------- */

/* One state byte per block of the three kinds the HPCToolkit databases
 * have (profile value blocks, context value blocks, trace lines), zero
 * until the format module marks the block (validated, ...); read and
 * written with acquire/release. */
typedef struct profdb__block_state {
	_Atomic unsigned char *profile, *ctx, *trace;
} profdb__block_state;

/* Allocate the three arrays zeroed (at least one byte each); -ENOMEM with
 * a message. What was allocated before a failure is left for
 * profdb__block_state_free. */
int profdb__block_state_alloc(profdb__block_state *s, uint64_t n_profiles, uint64_t n_ctxs,
                              uint64_t n_traces);
void profdb__block_state_free(profdb__block_state *s);

/* ---- threads (threads.c) ----------------------------------------------- */

/* The cores online (at least 1). */
unsigned profdb__cores(void);
/* The threads an operation may start beside the calling one, for a handle
 * opened with profdb_options.threads = @p threads: N - 1 for N (none for
 * 1), and for 0, the default, one per online core beside the calling
 * one. */
unsigned profdb__spare_threads(uint32_t threads);

/* ---- once: thread-safe lazy initialisation (once.c) ---------------------- */

typedef struct profdb__once {
	atomic_int done;       /* 1 after init ran; acquire/release */
	int result;            /* init's return value */
	pthread_mutex_t lock;
	char *message;         /* init's error message, replayed to every caller */
} profdb__once;

void profdb__once_init(profdb__once *o);
void profdb__once_destroy(profdb__once *o);
/* Run fn(arg) exactly once; every caller gets its result, and on failure the
 * calling thread's error message is set to the one fn produced. */
int profdb__once_run(profdb__once *o, int (*fn)(void *), void *arg);
/* 1 when fn has run and succeeded (what it built may be read), else 0:
 * never runs it, never waits. */
int profdb__once_ok(const profdb__once *o);

/* Does @p name end with @p suffix? 0 for a NULL name (an input without
 * one). */
static inline int profdb__ends_with(const char *name, const char *suffix)
{
	size_t n = name ? strlen(name) : 0, s = strlen(suffix);
	return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* The last component of @p path (what follows its last '/'); NULL for a
 * NULL path. */
static inline const char *profdb__base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

#endif
