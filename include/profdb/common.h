/* profdb/common.h — what every part of the profdb API shares: version,
 * errors, options, strings, numbers and views.
 *
 * Compiles alone as C11 (-pedantic) and as C++. doc/CONVENTIONS.md is the
 * long form of the rules below.
 *
 * Return values. Every function returning int returns >= 0 on success and
 * a negative errno value on failure:
 *   - a count is an int64_t >= 0;
 *   - a lookup returns 1 (stored; *out filled) or 0 (not stored; *out
 *     cleared to its empty value);
 *   - a cursor returns 1 (moved), 0 (end).
 * The complete list of codes:
 *   -EINVAL           a bad argument: NULL handle or output, bad options
 *   -ENOENT           no such file, or an id or index out of range
 *   -EBADMSG          corrupt structure (pointer out of range, unsorted
 *                     index, cycle, count that contradicts a pointer, ...)
 *   -ENODATA          the file is truncated
 *   -EPROTONOSUPPORT  wrong magic, unknown format or unsupported version
 *   -ENOTSUP          the format, or this build, cannot answer (no traces
 *                     in Cube; Cube without libarchive/expat; gzip without
 *                     zlib; a statistic that has no inclusive value)
 *   -EFBIG            the answer would need more than options.max_memory
 *   -ERANGE           a number does not fit the requested type
 *   -ECANCELED        the progress callback asked to stop
 *   -ENOMEM, -EIO and the errno values of open(2), fstat(2) and mmap(2)
 * After a call failed, profdb_error_message() describes it, naming the
 * file, the structure and the byte offset. The message is thread-local and
 * belongs to the calling thread's most recent failed call; successful calls
 * do not clear it.
 *
 * Threads. A handle is read-only after open: any number of threads may call
 * any function on the same handle at once, including the first call that
 * builds a lazy index. Cursor and walker objects belong to one thread at a
 * time. Warnings go to the callback in profdb_options, from whichever
 * thread met them; nothing is printed.
 *
 * Lifetimes. Everything a call hands out (strings, views, tables) points
 * into the input's mapping or into memory the handle owns, and stays valid
 * until the handle is closed, unless the function says otherwise.
 *
 * Argument order. A constructor returns its handle through its first
 * argument (profdb_open(&db, ...)); every other call takes its handle first
 * and its outputs last. Names: *_get addresses by id, *_at by index
 * (0 .. count-1), *_count returns an int64_t.
 */
#ifndef PROFDB_COMMON_H
#define PROFDB_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profdb/profdb-version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A cast that is neither an old-style cast in C++ nor C++ in C. */
#ifdef __cplusplus
#define PROFDB__CAST(type, x) static_cast<type>(x)
#define PROFDB__NULL nullptr
#else
#define PROFDB__CAST(type, x) ((type)(x))
#define PROFDB__NULL NULL
#endif

#if defined(__GNUC__) && !defined(PROFDB_STATIC_BUILD)
#define PROFDB_EXPORT __attribute__((visibility("default")))
#else
#define PROFDB_EXPORT
#endif

/** Index or id meaning "none". @since 0.9 */
#define PROFDB_NONE UINT32_MAX

/** Runtime version: PROFDB_VERSION_NUMBER of the library actually loaded,
 *  to compare with the one the program was built against.
 *  @return the version number; cannot fail. Thread-safe. @since 0.9 */
PROFDB_EXPORT uint32_t profdb_version_number(void);

/** Description of the most recent failure of a profdb call in this thread
 *  (naming the file, structure and byte offset); successful calls leave it
 *  unchanged.
 *  @return a NUL-terminated string, "" if no call has failed in this
 *  thread; never NULL, cannot fail. Lifetime: a per-thread buffer, whose
 *  text the next failing call in the same thread overwrites; copy it to
 *  keep it. Thread-safe (each thread has its own message). @since 0.9 */
PROFDB_EXPORT const char *profdb_error_message(void);

/** The input file whose mapping holds @p addr, for a SIGBUS handler: a
 *  file that shrinks while profdb has it mapped raises SIGBUS at the next
 *  read of a page past its new end, in whichever thread reads it. A handler
 *  installed with sigaction(SA_SIGINFO) passes si_addr here, writes the
 *  name with write(2) and ends the process with _exit(2) (returning from
 *  the handler would fault again). PROFDB_OPEN_COPY avoids the hazard.
 *  Inputs given as memory (profdb_open_inputs) and files opened with
 *  PROFDB_OPEN_COPY are not in the table.
 *  @return the path of the file as it was opened (possibly shortened to
 *  its last 236 bytes behind "..."), or NULL when no open input is mapped
 *  there (or when it was opened while 1024 other mapped inputs were open:
 *  the table has that many slots). Lifetime: until that input is closed. Async-signal-safe: takes
 *  no lock and allocates nothing; callable from any thread at any time.
 *  @since 0.12 */
PROFDB_EXPORT const char *profdb_mapping_path_of(const void *addr);

/** Warning callback: @p message (NUL-terminated, valid during the call)
 *  names the file, structure and offset. Called from whichever thread met
 *  the warning. @since 0.9 */
typedef void (*profdb_warn_fn)(const char *message, void *userdata);

/** Progress hook: @p done out of @p total units (bytes, usually) of the
 *  current operation. Return 0 to go on, non-zero to cancel: the operation
 *  then fails with -ECANCELED. Called from the thread doing the work.
 *  @since 0.9 */
typedef int (*profdb_progress_fn)(uint64_t done, uint64_t total, void *userdata);

/** Open flags. @since 0.9 */
enum {
	/** Read whole files into private memory instead of mapping them: a file
	 *  that is truncated while open can then not raise SIGBUS (see
	 *  doc/ROBUSTNESS.md). Costs memory and time proportional to file size. */
	PROFDB_OPEN_COPY = 1u << 0,
	/** Prefault the mapping at open (MAP_POPULATE). */
	PROFDB_OPEN_POPULATE = 1u << 1,
	/** Tolerant mode: a damaged block (one profile's values, one trace
	 *  line, one Cube row, ...) is reported through the warn callback and
	 *  then reads as absent, instead of failing the call. Damage to what
	 *  the whole input depends on (headers, section tables, the context
	 *  tree) still fails. Default: strict. */
	PROFDB_OPEN_TOLERANT = 1u << 2,
	/** Common interface, Callgrind: leave the line and instruction
	 *  contexts out of the tree (functions only). They are decoded from
	 *  the text on demand, so counting or walking them costs a second
	 *  pass over the text; a caller that ranks functions skips it. Other
	 *  formats ignore the flag. */
	PROFDB_OPEN_FUNCTIONS_ONLY = 1u << 3,
};

/** Options for every open function. Start from PROFDB_OPTIONS_INIT (or
 *  zero the struct and set @c size to sizeof(profdb_options)); a NULL
 *  options pointer means all defaults.
 *
 *  Growing: later versions only append fields. A program built against an
 *  older header passes a smaller size and gets the defaults for the fields
 *  it does not know; one built against a newer header may pass a larger
 *  size if every byte past the fields this library knows is zero. Open
 *  fails with -EINVAL when @c size is below sizeof(size_t), when unknown
 *  trailing bytes are not zero, or when @c flags has an unknown bit.
 *  @since 0.9 */
typedef struct profdb_options {
	size_t size;           /**< sizeof(profdb_options) */
	uint32_t flags;        /**< PROFDB_OPEN_* */
	profdb_warn_fn warn;   /**< may be NULL */
	void *warn_userdata;
	/** Upper bound, in bytes, on what a decoder may materialise in memory
	 *  (inflated archives and rows, parsed tables, indexes, views of
	 *  decoded formats): -EFBIG beyond it. 0 means the default,
	 *  PROFDB_DEFAULT_MAX_MEMORY. */
	uint64_t max_memory;
	/** Progress/cancel hook for long operations (open of big text or
	 *  compressed inputs, full scans); may be NULL. */
	profdb_progress_fn progress;
	void *progress_userdata;
	/** Threads an open may use to read one input (the Callgrind text
	 *  scan uses them: it cuts a text into pieces and gives exactly what one
	 *  thread gives: the same tables, ids, errors and warnings). 0 means
	 *  the default: one per online core for texts of 4 MiB and more; 1
	 *  reads with the calling thread only; N > 1 uses N threads whatever
	 *  the size. Warnings still come in text order, from the calling
	 *  thread. The threads end before the open returns. profdb_convert()
	 *  on the handle counts its helper threads against the same number
	 *  (0: one per core). @since 0.11 */
	uint32_t threads;
} profdb_options;

/** The default options, for initialisation: `profdb_options o =
 *  PROFDB_OPTIONS_INIT;`. @since 0.9 */
#define PROFDB_OPTIONS_INIT \
	{ sizeof(profdb_options), 0, PROFDB__NULL, PROFDB__NULL, 0, PROFDB__NULL, PROFDB__NULL, 0 }

/** Default of profdb_options.max_memory: 4 GiB. @since 0.9 */
#define PROFDB_DEFAULT_MAX_MEMORY ((uint64_t)4 << 30)

/** A string view: pointer and length, NOT necessarily NUL-terminated. An
 *  absent string is {"", 0}. @since 0.9 */
typedef struct profdb_str {
	const char *ptr;
	size_t len;
} profdb_str;

/** A named caller buffer, for the open-from-memory calls: @c name is the
 *  file name the bytes would have on disk ("meta.db", "run.cubex",
 *  "callgrind.out.123-01", "experiment.xml", "x-000-1.hpcrun"); it guides
 *  grouping and appears in messages, while the format is detected from the
 *  bytes. Calls that take a format's files by position (the HPCToolkit
 *  and pre-release open_mem calls) read data == NULL as "file absent" and
 *  a NULL name as the file's usual name. The buffers must stay unchanged
 *  and alive until the handle is closed; nothing is copied. @since 0.9 */
typedef struct profdb_input {
	const char *name;
	const void *data;
	size_t size;
} profdb_input;

/* ---- numbers ------------------------------------------------------------ */

/** Type of a stored value. @since 0.9 */
typedef enum profdb_type {
	PROFDB_TYPE_NONE = 0,  /**< no value */
	PROFDB_TYPE_U64 = 1,
	PROFDB_TYPE_I64 = 2,
	PROFDB_TYPE_F64 = 3    /**< bit-for-bit as stored (NaN payloads, -0) */
} profdb_type;

/** A typed number. @since 0.9 */
typedef struct profdb_number {
	profdb_type type;
	union {
		uint64_t u64;
		int64_t i64;
		double f64;
	} as;
} profdb_number;

/** The number as a double: integers above 2^53 are rounded, F64 comes
 *  back as stored, NONE and unknown types give 0.
 *  @return the double; cannot fail. Thread-safe. @since 0.9 */
PROFDB_EXPORT double profdb_number_to_double(profdb_number n);

/* ---- views: arrays of fixed-size records -------------------------------- */
/*
 * Every array profdb hands out — a profile's values, a context's values
 * over profiles, a trace line, a hpcrun node's values — is a profdb_view:
 * @c count records of @c stride bytes from @c base, each with a key and a
 * value at fixed offsets. Keys are unsigned and sorted (non-decreasing;
 * strictly increasing in index views); the library checks this before it
 * hands a view out. Fields are read byte by byte in the view's byte order,
 * never through a cast, so views over unaligned file bytes are safe.
 *
 * Where a file stores the records contiguously (HPCToolkit 4.0 profile
 * and context planes and trace lines, pre-release trace lines, hpctrace
 * files) the view
 * points into the mapping; elsewhere it points into memory the handle owns. Either
 * way it stays valid until the handle is closed. doc/CONVENTIONS.md shows
 * how a view maps onto a numpy structured dtype with strides.
 */

/** Type of a field in a view's records. @since 0.9 */
typedef enum profdb_field {
	PROFDB_FIELD_NONE = 0,
	PROFDB_FIELD_U16 = 1,
	PROFDB_FIELD_U32 = 2,
	PROFDB_FIELD_U64 = 3,
	PROFDB_FIELD_I64 = 4,
	PROFDB_FIELD_F64 = 5,   /**< IEEE-754 binary64, bits as stored */
	/** 8 bytes whose profdb_type is the u8 at the view's tag_offset: a
	 *  view of values of several types (decoded formats mix integer and
	 *  floating-point metrics). */
	PROFDB_FIELD_TAGGED = 6
} profdb_field;

/** A read-only array of fixed-size records. Transparent; copy freely.
 *  @since 0.9 */
typedef struct profdb_view {
	const unsigned char *base;  /**< record 0 (NULL when count is 0) */
	uint64_t count;             /**< number of records */
	uint32_t stride;            /**< bytes from one record to the next */
	uint8_t key_offset;         /**< byte offset of the key in a record */
	uint8_t key_type;           /**< profdb_field: U16, U32 or U64 */
	uint8_t value_offset;       /**< byte offset of the value */
	uint8_t value_type;         /**< profdb_field */
	uint8_t tag_offset;         /**< PROFDB_FIELD_TAGGED: offset of the type byte */
	uint8_t big_endian;         /**< 1: fields are big-endian, 0: little-endian */
	uint8_t reserved[6];        /**< zero */
} profdb_view;

/** Size in bytes of a field type.
 *  @param type  a profdb_field value.
 *  @return 2 (U16), 4 (U32), 0 (NONE), 8 (U64, I64, F64, TAGGED and any
 *  other value); cannot fail. Thread-safe. @since 0.9 */
static inline unsigned profdb_field_size(unsigned type)
{
	return type == PROFDB_FIELD_U16 ? 2u : type == PROFDB_FIELD_U32 ? 4u
	     : type == PROFDB_FIELD_NONE ? 0u : 8u;
}

/** The unsigned integer of @p size bytes at @p p in the given byte order.
 *  Each size is its own constant-size expression, which compilers turn
 *  into one load (and a byte swap).
 *  @param p           the first byte; @p size bytes must be readable (not
 *                     checked); no alignment needed.
 *  @param size        2, 4 or 8.
 *  @param big_endian  non-zero: big-endian, 0: little-endian.
 *  @return the integer, 0 for any other @p size; cannot fail. Thread-safe.
 *  @since 0.9 */
static inline uint64_t profdb_load_uint(const unsigned char *p, unsigned size, int big_endian)
{
#define PROFDB__B(i) PROFDB__CAST(uint64_t, p[i])
	switch (size) {
	case 2:
		return big_endian ? PROFDB__B(0) << 8 | PROFDB__B(1) : PROFDB__B(1) << 8 | PROFDB__B(0);
	case 4:
		return big_endian ? PROFDB__B(0) << 24 | PROFDB__B(1) << 16 | PROFDB__B(2) << 8 | PROFDB__B(3)
		                  : PROFDB__B(3) << 24 | PROFDB__B(2) << 16 | PROFDB__B(1) << 8 | PROFDB__B(0);
	case 8:
		return big_endian
		     ? PROFDB__B(0) << 56 | PROFDB__B(1) << 48 | PROFDB__B(2) << 40 | PROFDB__B(3) << 32 |
		       PROFDB__B(4) << 24 | PROFDB__B(5) << 16 | PROFDB__B(6) << 8 | PROFDB__B(7)
		     : PROFDB__B(7) << 56 | PROFDB__B(6) << 48 | PROFDB__B(5) << 40 | PROFDB__B(4) << 32 |
		       PROFDB__B(3) << 24 | PROFDB__B(2) << 16 | PROFDB__B(1) << 8 | PROFDB__B(0);
	default:
		return 0;
	}
#undef PROFDB__B
}

/** The key of record @p i of @p v (i < count; not checked).
 *  @return the key, widened to 64 bits; cannot fail. Thread-safe.
 *  @since 0.9 */
static inline uint64_t profdb_view_key(const profdb_view *v, uint64_t i)
{
	return profdb_load_uint(v->base + i * v->stride + v->key_offset,
	                        profdb_field_size(v->key_type), v->big_endian);
}

/** The value of record @p i of @p v (i < count; not checked), bit-for-bit.
 *  @return the number: U16, U32 and U64 come back as PROFDB_TYPE_U64, I64
 *  as I64, F64 as F64, TAGGED with the type its tag byte names, NONE as
 *  PROFDB_TYPE_NONE; cannot fail. Thread-safe. @since 0.9 */
static inline profdb_number profdb_view_value(const profdb_view *v, uint64_t i)
{
	const unsigned char *r = v->base + i * v->stride;
	profdb_number n;
	uint64_t bits = profdb_load_uint(r + v->value_offset,
	                                 profdb_field_size(v->value_type), v->big_endian);
	switch (v->value_type) {
	case PROFDB_FIELD_F64: n.type = PROFDB_TYPE_F64; break;
	case PROFDB_FIELD_I64: n.type = PROFDB_TYPE_I64; break;
	case PROFDB_FIELD_TAGGED: n.type = PROFDB__CAST(profdb_type, r[v->tag_offset]); break;
	case PROFDB_FIELD_NONE: n.type = PROFDB_TYPE_NONE; break;
	default: n.type = PROFDB_TYPE_U64; break;
	}
	memcpy(&n.as, &bits, sizeof bits);
	return n;
}

/** Records [first, end) of @p v as a view of their own (first <= end <=
 *  count; not checked).
 *  @return the slice (base NULL when it is empty); cannot fail. Lifetime:
 *  it points into the same memory as @p v and stays valid as long as
 *  @p v does. Thread-safe. @since 0.9 */
static inline profdb_view profdb_view_slice(const profdb_view *v, uint64_t first, uint64_t end)
{
	profdb_view s = *v;
	s.base = end > first ? v->base + first * v->stride : PROFDB__NULL;
	s.count = end - first;
	return s;
}

/** Record @p i of an index view (whose values are start positions in
 *  @p records, e.g. a profile's per-context index) as the slice of
 *  @p records it covers: [value(i), value(i + 1)), the last one up to
 *  records->count. The library checked the starts when it handed the two
 *  views out; they are clamped to records->count here all the same, so a
 *  mapped file rewritten in place since then gives a wrong slice, never
 *  one outside @p records (doc/ROBUSTNESS.md). An @p i past the index
 *  (index->count or more) gives an empty slice, and reads nothing.
 *  @param index    an index view, as profdb_profile_view() fills it.
 *  @param i        the record of @p index (0 .. index->count-1).
 *  @param records  the records view handed out with @p index.
 *  @return the slice; cannot fail. Lifetime: as @p records. Thread-safe.
 *  @since 0.9 */
static inline profdb_view profdb_view_run(const profdb_view *index, uint64_t i,
                                          const profdb_view *records)
{
	if (i >= index->count)
		return profdb_view_slice(records, records->count, records->count);
	uint64_t first = profdb_view_value(index, i).as.u64;
	uint64_t end = i + 1 < index->count ? profdb_view_value(index, i + 1).as.u64
	                                    : records->count;
	end = end < records->count ? end : records->count;
	return profdb_view_slice(records, first < end ? first : end, end);
}

/** Loop over the records of a view: `PROFDB_VIEW_FOREACH(&v, i) { ... }`.
 *  @since 0.9 */
#define PROFDB_VIEW_FOREACH(v, i) for (uint64_t i = 0; i < (v)->count; i++)

/** Binary search for @p key in a view sorted by key. O(log count).
 *  @param index  receives the position: of the first record with @p key,
 *                or, when there is none, where it would go (the lower
 *                bound; count when past the end).
 *  @return 1 (found), 0 (not found; *index is the insertion point, not
 *  cleared), -EINVAL (NULL @p v or @p index, records without a base, key
 *  type not U16/U32/U64). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_view_find(const profdb_view *v, uint64_t key, uint64_t *index);

/** The lower bound: *index = the first record with key >= @p key, or
 *  count when there is none. For a trace line: the first sample at or
 *  after a time. O(log count).
 *  @return 0, -EINVAL (NULL @p v or @p index, records without a base, key
 *  type not U16/U32/U64). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_view_seek(const profdb_view *v, uint64_t key, uint64_t *index);

/** The record in effect at @p key: the last one with key <= @p key (for a
 *  trace line, the sample whose interval holds that time). O(log count).
 *  @return 1 (*index set), 0 (@p key precedes the first record, or the
 *  view is empty), -EINVAL (NULL @p v or @p index, records without a
 *  base, key type not U16/U32/U64). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_view_in_effect(const profdb_view *v, uint64_t key, uint64_t *index);

/** The records with from <= key < to: [*first, *end), an empty range
 *  (*end = *first) when @p to <= @p from. O(log count).
 *  @param first  receives the first record with key >= @p from.
 *  @param end    receives the first record with key >= @p to.
 *  @return 0, -EINVAL (NULL @p v, @p first or @p end, records without a
 *  base, key type not U16/U32/U64). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_view_window(const profdb_view *v, uint64_t from, uint64_t to,
                                     uint64_t *first, uint64_t *end);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_COMMON_H */
