/* profdb/convert.h — writing a database in the formats other viewers read:
 * folded stacks (flame graphs), speedscope JSON, Chrome Trace Event JSON
 * (Perfetto), Callgrind (KCachegrind), pprof profile.proto, and two
 * pictures drawn as self-contained SVG files: a flame graph and a
 * timeline of the traces.
 *
 * Compiles alone as C11 (-pedantic) and as C++. The conventions (return
 * codes, threads, lifetimes) are those of profdb/common.h; what each
 * writer produces from each input format, and which combination rule it
 * applies, is doc/CONVERT.md.
 */
#ifndef PROFDB_CONVERT_H
#define PROFDB_CONVERT_H

#include "analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The output formats. @since 0.11 */
typedef enum profdb_convert_format {
	PROFDB_CONVERT_FOLDED = 0,     /**< "main;solve;dgemm 1234" lines */
	PROFDB_CONVERT_SPEEDSCOPE = 1, /**< speedscope's file-format JSON */
	PROFDB_CONVERT_CHROME = 2,     /**< Chrome Trace Event JSON (traces only) */
	PROFDB_CONVERT_CALLGRIND = 3,  /**< Callgrind profile format */
	PROFDB_CONVERT_PPROF = 4,      /**< pprof profile.proto (gzip when zlib is built in) */
	PROFDB_CONVERT_SVG = 5,        /**< an interactive flame graph, SVG. @since 0.12 */
	PROFDB_CONVERT_TIMELINE = 6    /**< the traces as a timeline, SVG (traces only). @since 0.12 */
} profdb_convert_format;

/** What colours an SVG flame graph's frames. @since 0.12 */
typedef enum profdb_svg_color {
	PROFDB_SVG_COLOR_MODULE = 0,   /**< the load module (then the file, then the name) */
	PROFDB_SVG_COLOR_FILE = 1      /**< the source file (then the module, then the name) */
} profdb_svg_color;

/** Where output goes: write @p len bytes of @p data. Return 0, or a
 *  negative errno value, which stops the conversion and is returned by
 *  profdb_convert(). Called from the converting thread, with buffers of
 *  up to 64 KiB. @since 0.11 */
typedef int (*profdb_write_fn)(const void *data, size_t len, void *userdata);

/** What profdb_convert() writes. Start from PROFDB_CONVERT_OPTIONS_INIT;
 *  fields grow at the end as in profdb_options. @since 0.11 */
typedef struct profdb_convert_options {
	size_t size;                   /**< sizeof(profdb_convert_options) */
	profdb_convert_format format;
	/** The metric ids to write. NULL: the format's default (doc/CONVERT.md:
	 *  the first metric with values for the one-metric formats, every
	 *  convertible metric for Callgrind and pprof). */
	const uint32_t *metrics;
	size_t n_metrics;
	/** The profiles (indices). NULL: every non-summary profile. The
	 *  one-profile formats (folded, pprof, svg) combine them by each metric's
	 *  rule; speedscope and Chrome write one profile or track per profile;
	 *  Callgrind writes one part per profile when @c separate is set. */
	const uint32_t *profiles;
	size_t n_profiles;
	/** Callgrind: one part per profile instead of the combined profile. */
	int separate;
	/** Progress hook (done/total in contexts or samples); may be NULL. */
	profdb_progress_fn progress;
	void *progress_userdata;
	/** SVG: the root at the top (an icicle graph) instead of the bottom.
	 *  @since 0.12 */
	int icicle;
	/** SVG: the width of the frames' area in pixels; timeline: the number
	 *  of pixel columns of time; 0: 1200. @since 0.12 */
	double width;
	/** SVG: frames narrower than this many pixels (at @c width) are not
	 *  drawn, their value left to their parent; 0: 0.1. @since 0.12 */
	double min_width;
	/** SVG and timeline: what the picture is of (the tool gives the input's path),
	 *  shown in its title; NULL: the database's format name. Read during
	 *  the call only. @since 0.12 */
	const char *title;
	/** SVG: what colours the frames. @since 0.12 */
	profdb_svg_color color;
	/** Timeline: the window of time drawn, [@c from_ns, @c to_ns) in
	 *  nanoseconds since the trace's start (the earliest sample of any
	 *  profile, as `profdb trace` counts); @c to_ns 0: up to the last
	 *  sample of the selected profiles. @since 0.12 */
	uint64_t from_ns, to_ns;
	/** Timeline: the call depth whose function colours the picture, 1 the
	 *  outermost frame (a sample with fewer frames shows its innermost);
	 *  0: the innermost frame of each sample. @since 0.12 */
	uint32_t depth;
} profdb_convert_options;

/** The default conversion options (folded stacks, default metric, every
 *  profile combined). @since 0.11 */
#define PROFDB_CONVERT_OPTIONS_INIT \
	{ sizeof(profdb_convert_options), PROFDB_CONVERT_FOLDED, PROFDB__NULL, 0, PROFDB__NULL, 0, \
	  0, PROFDB__NULL, PROFDB__NULL, 0, 0, 0, PROFDB__NULL, PROFDB_SVG_COLOR_MODULE, 0, 0, 0 }

/** The name of a format ("folded", "speedscope", "chrome", "callgrind",
 *  "pprof", "svg", "timeline"); NULL for a value out of range. Thread-safe. @since 0.11 */
PROFDB_EXPORT const char *profdb_convert_format_name(profdb_convert_format format);

/** The format named @p name (as profdb_convert_format_name(), ASCII
 *  case-insensitive). @return 0 and *out set, -EINVAL (NULL argument),
 *  -ENOENT (no such format). Thread-safe. @since 0.11 */
PROFDB_EXPORT int profdb_convert_format_find(const char *name, profdb_convert_format *out);

/** Write @p db in the format of @p opts through @p write. Output streams:
 *  memory is bounded by the output's structure (its frame and function
 *  tables), never by a whole-output buffer.
 *  @return 0; -EINVAL (NULL argument, bad options, an id or index out of
 *  range); -ENOTSUP (a conversion the format cannot express, described by
 *  profdb_error_message(): e.g. traces asked of a database without
 *  traces, a metric that does not combine, negative or min/max values
 *  into Callgrind or pprof, pprof without zlib is written uncompressed and
 *  is not an error); -ERANGE (a Callgrind cost above 2^64-1, a pprof value
 *  above 2^63-1); -ENOMEM; -ECANCELED (the progress hook); what
 *  @p write returned; what reading the values met. On failure the output
 *  written so far is incomplete. Thread-safe on @p db. Threads: pprof may
 *  compress, and the Callgrind and pprof writers of call graph input may
 *  decode ahead, each on a thread of its own, as many as the open's
 *  profdb_options.threads leaves beside the calling thread (none for 1);
 *  they end before the call returns. @since 0.11 */
PROFDB_EXPORT int profdb_convert(const profdb *db, const profdb_convert_options *opts,
                                 profdb_write_fn write, void *userdata);

#ifdef __cplusplus
}
#endif
#endif /* PROFDB_CONVERT_H */
