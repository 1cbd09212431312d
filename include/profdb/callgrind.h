/* profdb/callgrind.h — Callgrind profiles (valgrind, KCachegrind, Xdebug, ...).
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions every
 * function follows (return codes, threads, lifetimes, argument order) are
 * in profdb/common.h.
 */
#ifndef PROFDB_CALLGRIND_H
#define PROFDB_CALLGRIND_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Callgrind profiles (valgrind --tool=callgrind, Xdebug, ...)   @since 0.9 */
/* ======================================================================== */
/*
 * A Callgrind file (text, optionally gzip-compressed) is scanned once at
 * open. doc/FORMATS.md ("Callgrind") lists the grammar accepted, the
 * decoding rules, the recoveries (each reported through the warn callback)
 * and the limits:
 *  - a line may hold at most 1 MiB (-EBADMSG beyond);
 *  - at most 256 event types (derived ones included);
 *  - a gzip file (recognised by its magic, any name) is decompressed once
 *    into memory, at most min(2 GiB, options.max_memory) of text (-EFBIG
 *    beyond); without zlib at build time it fails with -ENOTSUP.
 *
 * Model (doc/model.md): a profile is one part of one file: a file written
 * with --combine-dumps holds many, and a group (profdb_cg_open_group) holds
 * the files of a --separate-threads run (one per thread) or of a periodic
 * dump series (each dump holds the cost since the previous one: a time
 * slice). Functions are keyed by (object, fl= file, name) over the whole
 * group, as KCachegrind does: fi=/fe= (inlined code) never split one, a
 * call's callee is bound at cfn= (doc/FORMATS.md, "Callgrind"), and
 * writers without fl= give every function the file "". Self costs are
 * exclusive. A call edge (caller, callee) sums every calls= line between
 * the two functions: the call count and the inclusive cost per event.
 * Every "all profiles" value is the sum over profiles.
 *
 * Memory: the open keeps per (profile, function) one row of costs, and
 * 24 bytes per calls= line. The call edges are built from those lines when
 * first asked for (profdb_cg_call_*, profdb_cg_inclusive, the context tree
 * of the common interface), with per (profile, call edge) one row of
 * costs. Line/instruction costs and
 * jumps are decoded from the text when asked for (profdb_cg_detail_new):
 * the first such call reads the text once more to index the runs of body
 * lines of every function (~64 bytes per run). Both then live until close.
 * Building the call edges is where a call count or call cost over 64 bits
 * is found: the call that builds them, and every later one that needs
 * them, fails with -EBADMSG naming the file, line and byte offset; -EIO
 * when the text was changed while open.
 *
 * Errors: open returns -EPROTONOSUPPORT (not a Callgrind file, version >= 2),
 * -EBADMSG (malformed line, overflow, line too long, binary data), -ENODATA
 * (truncated file), -ENOTSUP, -ENOMEM, -EFBIG, -ECANCELED (progress hook)
 * or the errno of open(2)/mmap(2). The message names the file, the line
 * number and the byte offset.
 *
 * Threads: a handle is read-only after open; any number of threads may call
 * any function on it at once (the inclusive tables are built on first use,
 * thread-safely). A profdb_cg_detail belongs to one thread at a time.
 *
 * Lifetimes: every string is a profdb_str into the mapping, the caller's
 * buffer or the decompressed copy; names are NOT NUL-terminated and may
 * contain any byte except '\n' (a NUL byte in a name is kept, with a
 * warning); an absent string is {"", 0}. Cost arrays (a "cost row":
 * profdb_cg_event_count() values, indexed by event id) are owned by the
 * handle (or by the detail object). Everything stays valid until
 * profdb_cg_close() (profdb_cg_detail_free()).
 *
 * Cost rows are plain uint64_t arrays, not profdb_view: a row is dense and
 * indexed by event id, so it has no key field a view could describe.
 *
 * Options: PROFDB_OPEN_TOLERANT does not apply. The text is scanned whole
 * at open and every aggregate (self, inclusive, call edges) depends on
 * every line before it, so there is no independently damaged block to
 * read as absent: a malformed line fails the open in either mode. The
 * recoveries of doc/FORMATS.md (negative costs, undefined name ids,
 * unknown lines, extra columns, ...) are warnings in both modes.
 *
 * Ids: events, profiles, functions and call edges are numbered densely from
 * 0 (their ids: a function id is what profdb_cg_call.caller holds); the
 * rows of a detail object are addressed by index (the *_at calls).
 */

/** An open Callgrind profile or group of files (opaque). @since 0.9 */
typedef struct profdb_cg profdb_cg;

/** "Every profile" for the functions that take a profile id. @since 0.9 */
#define PROFDB_CG_ALL UINT32_MAX

/** Open and parse one file (plain or gzip).
 *  @param[out] ret  the handle; NULL on failure
 *  @param opts      NULL for the defaults (see the options note above)
 *  @return 0, -EINVAL (NULL @p ret or @p path, bad options) or the codes
 *  listed above. The handle lives until profdb_cg_close(). Thread-safe
 *  (opens of different handles run in parallel). @since 0.9 */
PROFDB_EXPORT int profdb_cg_open(profdb_cg **ret, const char *path, const profdb_options *opts);

/** Open @p path together with its siblings in the same directory: NAME-NN
 *  (--separate-threads), NAME.N (dumps) and NAME.N-NN, where NAME is @p path
 *  or @p path without such a suffix. Order: by dump number (NAME itself,
 *  the last dump, comes after NAME.N), then by thread. An empty file (the
 *  base file of --separate-threads) contributes no profile. Without
 *  siblings this is profdb_cg_open(). (profdb_open() calls this for a base
 *  name only, and profdb_cg_open() for a path naming one member.)
 *  @param[out] ret  the handle; NULL on failure
 *  @return as profdb_cg_open(), and -E2BIG (more than 4096 files).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_open_group(profdb_cg **ret, const char *path,
                                       const profdb_options *opts);

/** Parse a caller buffer (plain or gzip), which must stay unchanged and
 *  alive until close (names point into it; a gzip buffer is decompressed
 *  into a private copy instead).
 *  @param[out] ret  the handle; NULL on failure
 *  @return as profdb_cg_open(); -EINVAL for NULL @p data with a size.
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_open_mem(profdb_cg **ret, const void *data, size_t size,
                                     const profdb_options *opts);

/** Parse named caller buffers as one group (ordered by name as in
 *  profdb_cg_open_group; @p inputs[i].name may be NULL). The buffers must
 *  stay unchanged and alive until close.
 *  @param[out] ret  the handle; NULL on failure
 *  @return as profdb_cg_open(); -EINVAL for NULL @p inputs with @p n > 0,
 *  an input without data, or more than 4096 inputs. Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_cg_open_inputs(profdb_cg **ret, const struct profdb_input *inputs,
                                        size_t n, const profdb_options *opts);

/** Close; NULL is a no-op. Every string, cost row and detail-independent
 *  pointer handed out dies here (detail objects must be freed before).
 *  Not concurrently with other calls on @p cg. @since 0.9 */
PROFDB_EXPORT void profdb_cg_close(profdb_cg *cg);

/** An event type (a cost column). @since 0.9 */
typedef struct profdb_cg_event {
	profdb_str name;            /**< from events: ("Ir") */
	profdb_str long_name;       /**< from event: Ir : long name; {"", 0} if none */
	/** Derived (inherited) event, "event: Sum = Ir + 2 Dr": the formula as
	 *  written, {"", 0} for a stored event. Its values are computed from
	 *  the stored events everywhere (saturating at UINT64_MAX). */
	profdb_str formula;
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cg_event;

/** Number of event types (0 for a file without events:): the width of
 *  every cost row. @return the count, -EINVAL (NULL handle). Thread-safe.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_event_count(const profdb_cg *cg);

/** Event @p id (0 .. count-1). Strings live until close.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (id out of range; *out
 *  untouched). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_event_get(const profdb_cg *cg, uint32_t id, profdb_cg_event *out);

/** A profile: one part of one file. @since 0.9 */
typedef struct profdb_cg_profile {
	profdb_str file;            /**< the path or input name (ptr is NUL-terminated) */
	uint32_t file_index;        /**< position of the file in the group */
	int has_part, has_thread, has_pid;
	uint64_t part, thread, pid; /**< part:, thread:, pid: as stored */
	int has_dump;               /**< the file name ends in .N (a dump) */
	uint64_t dump;              /**< that N */
	profdb_str trigger;         /**< desc: Trigger: value ({"", 0} if none) */
	profdb_str cmd;             /**< cmd: value ({"", 0} if none) */
	const uint64_t *totals;     /**< computed sum of the profile's self costs */
	const uint64_t *summary;    /**< summary: as stored, or NULL */
	const uint64_t *totals_line;/**< totals: as stored, or NULL */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cg_profile;

/** Number of profiles. @return the count, -EINVAL (NULL handle).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_profile_count(const profdb_cg *cg);

/** Profile @p id (0 .. count-1). Strings and cost rows live until close.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (id out of range; *out
 *  untouched). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_profile_get(const profdb_cg *cg, uint32_t id,
                                        profdb_cg_profile *out);

/** A function. @since 0.9 */
typedef struct profdb_cg_function {
	profdb_str name;            /**< fn= */
	profdb_str object;          /**< ob= ({"", 0} if none) */
	profdb_str file;            /**< fl= ({"", 0} if none; not fi=/fe=) */
	const uint64_t *self;       /**< exclusive cost over all profiles, per event */
	uint64_t reserved[4];       /**< zero; room for fields of later versions */
} profdb_cg_function;

/** Number of functions (over the group). @return the count, -EINVAL (NULL
 *  handle). Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_function_count(const profdb_cg *cg);

/** Function @p id (0 .. count-1). Strings and cost row live until close.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (id out of range; *out
 *  untouched). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_function_get(const profdb_cg *cg, uint32_t id,
                                         profdb_cg_function *out);

/** Self cost of function @p fn in @p profile (or PROFDB_CG_ALL).
 *  @param[out] costs  the cost row (lives until close)
 *  @return 1 (the function occurs in the profile), 0 (it does not; *costs
 *  points at a row of zeros), -EINVAL (NULL argument), -ENOENT (@p fn or
 *  @p profile out of range). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_self(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                 const uint64_t **costs);

/** Inclusive cost of function @p fn in @p profile (or PROFDB_CG_ALL),
 *  KCachegrind's rule with cycle detection (doc/FORMATS.md "Callgrind"):
 *  the self cost plus the inclusive cost of the calls to other functions
 *  outside the function's cycle (calls to itself and, inside a cycle of
 *  mutually recursive functions, calls to the cycle's members add
 *  nothing); the cycle's own value is profdb_cg_cycle_inclusive(). Built
 *  for all functions of the profile on first use.
 *  @param[out] costs  the cost row (lives until close)
 *  @return 1, 0 (not in the profile: *costs points at zeros), -EINVAL,
 *  -ENOENT, -ENOMEM, or the call edges' -EBADMSG/-EIO (see Memory above).
 *  Thread-safe (the first call of a profile builds its table once, the
 *  others wait). @since 0.9 */
PROFDB_EXPORT int profdb_cg_inclusive(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                      const uint64_t **costs);

/** Number of cycles: the strongly connected components of two or more
 *  functions of the call graph summed over all profiles (KCachegrind's
 *  `<cycle N>`), numbered 1 .. count in the order of their lowest function
 *  id. @return the count, -EINVAL (NULL handle), -ENOMEM, or the call
 *  edges' -EBADMSG/-EIO. Thread-safe. @since 0.12 */
PROFDB_EXPORT int64_t profdb_cg_cycle_count(const profdb_cg *cg);

/** The cycle function @p fn belongs to.
 *  @param[out] cycle  its number (1 .. profdb_cg_cycle_count()), 0 for none
 *  @return 1 (in a cycle), 0 (in none), -EINVAL (NULL argument), -ENOENT
 *  (@p fn out of range), or the errors of profdb_cg_cycle_count().
 *  Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_cg_function_cycle(const profdb_cg *cg, uint32_t fn, uint32_t *cycle);

/** Inclusive cost of cycle @p cycle in @p profile (or PROFDB_CG_ALL): the
 *  sum of its members' inclusive costs, i.e. their self costs plus every
 *  call from a member to a function outside the cycle (KCachegrind's
 *  `<cycle N>` value).
 *  @param[out] costs  the cost row (lives until close)
 *  @return 1, -EINVAL (NULL argument), -ENOENT (no such cycle or profile),
 *  -ENOMEM, or the call edges' -EBADMSG/-EIO. Thread-safe. @since 0.12 */
PROFDB_EXPORT int profdb_cg_cycle_inclusive(const profdb_cg *cg, uint32_t profile,
                                            uint32_t cycle, const uint64_t **costs);

/** A call edge. @since 0.9 */
typedef struct profdb_cg_call {
	uint32_t caller, callee;    /**< function ids */
	uint64_t count;             /**< sum of the calls= counts */
	const uint64_t *inclusive;  /**< inclusive cost of the calls, per event */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cg_call;

/** Number of call edges (over all profiles). @return the count, -EINVAL
 *  (NULL handle), -ENOMEM, or the call edges' -EBADMSG/-EIO (see Memory
 *  above). Thread-safe. @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_call_count(const profdb_cg *cg);

/** Edge @p id (0 .. count-1) summed over all profiles (@p profile =
 *  PROFDB_CG_ALL) or in one profile. The cost row lives until close.
 *  @return 1, 0 (no such calls in that profile: caller and callee filled,
 *  count 0, inclusive at zeros), -EINVAL (NULL argument), -ENOENT (@p id
 *  or @p profile out of range), -ENOMEM, or the call edges' -EBADMSG/-EIO
 *  (see Memory above). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_call_get(const profdb_cg *cg, uint32_t profile, uint32_t id,
                                     profdb_cg_call *out);

/** The sum of all self costs of @p profile (or PROFDB_CG_ALL): one value
 *  per event (a row of zero values, not NULL, when there are no events).
 *  The row lives until close.
 *  @return 0, -EINVAL (NULL argument), -ENOENT (@p profile out of range).
 *  Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_totals(const profdb_cg *cg, uint32_t profile,
                                   const uint64_t **costs);

/** Which stored line profdb_cg_summary reads. @since 0.9 */
enum { PROFDB_CG_SUMMARY = 0, PROFDB_CG_TOTALS = 1 };

/** The summary: or totals: line as stored, summed over the profiles that
 *  have one. They may differ from profdb_cg_totals() (cache simulation,
 *  Xdebug); a totals: that differs is reported through the warn callback at
 *  open, and so is a part of a valgrind callgrind file (creator:
 *  callgrind-*) with summary: but no totals: (cut short; doc/FORMATS.md).
 *  The row lives until close.
 *  @param which  PROFDB_CG_SUMMARY or PROFDB_CG_TOTALS
 *  @return 1 (present), 0 (absent: *costs points at zeros), -EINVAL (NULL
 *  argument, bad @p which). Thread-safe. @since 0.9 */
PROFDB_EXPORT int profdb_cg_summary(const profdb_cg *cg, int which, const uint64_t **costs);

/** Line/instruction detail and jumps of one function, decoded on demand
 *  (owned by the caller, one thread at a time). @since 0.9 */
typedef struct profdb_cg_detail profdb_cg_detail;

/** Self cost of a function at one position: the current fl=/fi=/fe= file
 *  (inlined code has its own file), the line and the instruction address
 *  (0 when the file has no such position column). Rows of a function add
 *  up to its self cost. @since 0.9 */
typedef struct profdb_cg_line {
	profdb_str file;
	uint64_t line;
	uint64_t instr;
	const uint64_t *self;       /**< one value per event */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cg_line;

/** One jump=/jcnd= line, as written (not aggregated). @since 0.9 */
typedef struct profdb_cg_jump {
	uint32_t profile;
	uint64_t from_line, from_instr;   /**< the source position */
	profdb_str to_file;               /**< jfi= or the current file */
	profdb_str to_function;           /**< jfn= or the current function */
	uint64_t to_line, to_instr;
	int conditional;                  /**< 1 for jcnd= */
	uint64_t count;                   /**< jump=: times; jcnd=: times followed */
	uint64_t executed;                /**< jcnd=: times executed; jump=: = count */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cg_jump;

/** One call site: a calls= line of the function and its cost line, as
 *  written (not aggregated), in file order. The call edges
 *  (profdb_cg_call_get) are these summed per (caller, callee). @since 0.9 */
typedef struct profdb_cg_callsite {
	uint32_t profile;
	uint32_t callee;                  /**< function id */
	uint64_t line, instr;             /**< where the call is (0 without that column) */
	profdb_str file;                  /**< the caller's current file there */
	uint64_t count;                   /**< calls= count (a negative one reads 0) */
	const uint64_t *inclusive;        /**< inclusive cost of the calls, per event */
	uint64_t reserved[2];       /**< zero; room for fields of later versions */
} profdb_cg_callsite;

/** Decode function @p fn in @p profile (or PROFDB_CG_ALL). Time and memory
 *  are proportional to the function's text. The rows are records of
 *  several strings and a cost row each, so they come one at a time
 *  (the *_at calls), not as a profdb_view.
 *  @param[out] ret  the detail object (free with profdb_cg_detail_free(),
 *                   before closing @p cg); NULL on failure
 *  @return 0, -EINVAL (NULL @p ret or @p cg), -ENOENT (@p fn or @p profile
 *  out of range), -ENOMEM, -EBADMSG (the text contradicts the scan), -EIO
 *  (a text whose compressed names change meaning is read a second time
 *  by the first call, which found other functions: the caller's buffer or
 *  the file was changed while open).
 *  Thread-safe on @p cg; the detail belongs to one thread at a time.
 *  @since 0.9 */
PROFDB_EXPORT int profdb_cg_detail_new(profdb_cg_detail **ret, const profdb_cg *cg,
                                       uint32_t profile, uint32_t fn);

/** Free a detail object; NULL is a no-op. Its rows die here. One thread at
 *  a time. @since 0.9 */
PROFDB_EXPORT void profdb_cg_detail_free(profdb_cg_detail *d);

/** Number of line rows (sorted by line, then instruction, then file).
 *  @return the count, -EINVAL (NULL argument). One thread at a time.
 *  @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_detail_line_count(const profdb_cg_detail *d);

/** Line row @p index (0 .. count-1); it lives until
 *  profdb_cg_detail_free(). @return 0, -EINVAL (NULL argument), -ENOENT
 *  (index out of range). One thread at a time. @since 0.9 */
PROFDB_EXPORT int profdb_cg_detail_line_at(const profdb_cg_detail *d, uint32_t index,
                                           profdb_cg_line *out);

/** Number of call sites (in file order). @return the count, -EINVAL.
 *  One thread at a time. @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_detail_call_count(const profdb_cg_detail *d);

/** Call site @p index (0 .. count-1); it lives until
 *  profdb_cg_detail_free(). @return 0, -EINVAL (NULL argument), -ENOENT
 *  (index out of range). One thread at a time. @since 0.9 */
PROFDB_EXPORT int profdb_cg_detail_call_at(const profdb_cg_detail *d, uint32_t index,
                                           profdb_cg_callsite *out);

/** Number of jumps (in file order). @return the count, -EINVAL. One
 *  thread at a time. @since 0.9 */
PROFDB_EXPORT int64_t profdb_cg_detail_jump_count(const profdb_cg_detail *d);

/** Jump @p index (0 .. count-1); its strings live until profdb_cg_close().
 *  @return 0, -EINVAL (NULL argument), -ENOENT (index out of range). One
 *  thread at a time. @since 0.9 */
PROFDB_EXPORT int profdb_cg_detail_jump_at(const profdb_cg_detail *d, uint32_t index,
                                           profdb_cg_jump *out);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_CALLGRIND_H */
