/* Shared pieces of the profdb command-line tool (the .c files in tool/).
 *
 * Every subcommand reads its input through the library's common query
 * interface (profdb_open and friends), so it works the same for every
 * format. Exit status: 0 ok, 1 bad input, 2 bad usage.
 *
 * Locale: the program never calls setlocale(), so it runs in the "C" locale
 * whatever LANG/LC_* say, and printf/strtod use '.' as the decimal point.
 * That is what keeps JSON, CSV and the text tables locale-independent. */
#ifndef PROFDB_TOOL_H
#define PROFDB_TOOL_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include <profdb/analysis.h>
#include <profdb/common.h>
#include <profdb/convert.h>
#include <profdb/query.h>

#define EXIT_INPUT 1
#define EXIT_USAGE 2

extern const char *const tool_prog;

/* ---- subcommands (argc/argv start at the command name) ---- */
int cmd_info(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_bottom_up(int argc, char **argv);
int cmd_flat(int argc, char **argv);
int cmd_value(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_callers(int argc, char **argv);
int cmd_callees(int argc, char **argv);
int cmd_profiles(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* ---- the statistics' printer (cmd-stats.c; profdb-mpi prints with it too) ---- */
/* The whole output of `profdb stats` for @p st (text, --json or --csv). */
int stats_print(const char *path, profdb *db, const profdb_stats *st, const uint32_t *profiles,
                int64_t n_profiles, int json, int csv);
/* One row; @p n the profiles selected (profdb_stats_profiles), @p label the
 * text table's last column (unused by json/csv). */
void stats_print_row(const profdb_stat *s, uint64_t n, const char *label, int json, int csv);
/* The column header of the text table or the CSV, @p first naming the key
 * column ("context"). */
void stats_print_columns(int csv, const char *first);

/* ---- opening and errors (common.c) ---- */
/* Opens @p path with a warning printer and, when stderr is a terminal, a
 * progress indicator. Prints the library's message and returns EXIT_INPUT
 * on failure, 0 on success. */
int tool_open(const char *path, profdb **db);
/* Installs the SIGBUS handler that names an input file shortened while
 * mapped ("PROG: PATH changed size while being read") and exits 1. */
void tool_catch_sigbus(const char *prog);
/* PROFDB_OPEN_* flags tool_open() passes (a command sets them first). */
extern uint32_t tool_open_flags;
/* Prints "profdb: PATH: <library message>" and returns EXIT_INPUT. */
int tool_fail(const char *path);
/* The tool's own allocation failed: a status apart from the library's
 * negative errno values, whose message the library keeps. */
#define TOOL_OOM (-0x7fff)
/* Says why status @p e < 0 failed: "profdb: out of memory" for TOOL_OOM,
 * else as tool_fail(@p path). @return EXIT_INPUT. */
int tool_fail_status(const char *path, int e);
/* The tool's own progress (dump): shown only when stderr is a terminal. */
void tool_progress(uint64_t done, uint64_t total);
/* Erases the progress line if one is showing. */
void tool_progress_done(void);
/* Usage error: prints @p usage on stderr, returns EXIT_USAGE. */
int tool_usage_error(const char *usage);
/* Flushes stdout; EXIT_INPUT (with a message) if writing failed. */
int tool_finish_output(int status);

/* Strict decimal parsers: 0 ok, -1 malformed or out of range. */
int parse_u32(const char *s, uint32_t *out);
int parse_u64(const char *s, uint64_t *out);
int parse_percent(const char *s, double *out);
/* Option values: 0, or EXIT_USAGE after printing
 * "profdb: --depth: '-1' is not a non-negative integer" (no usage text). */
int tool_bad_value(const char *opt, const char *arg, const char *what);
int opt_u64(const char *opt, const char *arg, uint64_t *out);
int opt_u32(const char *opt, const char *arg, uint32_t *out);
int opt_percent(const char *opt, const char *arg, double *out);

/* Usage errors name the problem in one line, without the usage text:
 * "profdb: CMD: MESSAGE" on stderr; @return EXIT_USAGE. */
int tool_usage_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* After option parsing, argc - optind != 1: "profdb: CMD: no PATH given"
 * or "unexpected argument 'X'"; @return EXIT_USAGE. argv[0] is the
 * command name. */
int tool_args_error(int argc, char **argv);
/* getopt_long's own messages with the "profdb: CMD: " prefix
 * ("profdb: top: unrecognized option '--x'", "option '--depth' requires an
 * argument", "invalid option -- 'x'", ...). Call it when getopt_long,
 * run with opterr = 0, returned '?' (or ':'); the same @p optstring and
 * @p lo; argv[0] is the command name. @return EXIT_USAGE. */
int tool_getopt_error(int argc, char **argv, const char *optstring, const struct option *lo);
/* getopt_long with opterr = 0 that prints tool_getopt_error()'s message
 * itself and returns '?': the caller's "case '?'" returns EXIT_USAGE. */
int tool_getopt(int argc, char **argv, const char *optstring, const struct option *lo);

/* ---- colour (common.c) ---- */
/* 1 when stdout gets SGR escape sequences: --color=always, or auto (the
 * default) on a terminal with NO_COLOR unset or empty and TERM not dumb. */
extern int tool_color;
/* Resolves --color=WHEN (NULL: auto); EXIT_USAGE with a message for
 * another word. main() calls it before the command runs. */
int tool_color_setup(const char *when);
typedef enum tool_style {
	TOOL_RESET,     /* back to plain */
	TOOL_HEADER,    /* bold: a table's header row */
	TOOL_PERCENT,   /* cyan: a percentage column */
	TOOL_DIM        /* faint: ids and notes beside the data */
} tool_style;
/* The escape sequence of @p s, "" when colour is off: printf("%s...%s",
 * tool_sgr(TOOL_HEADER), tool_sgr(TOOL_RESET)). Only on stdout, never in
 * --json or --csv output. */
const char *tool_sgr(tool_style s);

/* ---- printing (print.c) ---- */
/* A string view for humans: control bytes become '?' (names.h,
 * names_show's rule). */
void put_text(FILE *f, profdb_str s);
/* A string view as a JSON string literal (quotes included), every byte
 * of it: control bytes as \u00XX (a NUL too; a tab and a newline as \t
 * and \n), and invalid UTF-8 bytes as \u00XX as well, so the output is
 * always valid JSON. */
void put_json_str(FILE *f, profdb_str s);
void put_json_cstr(FILE *f, const char *s);
/* A CSV field (RFC 4180 quoting when needed). */
void put_csv_str(FILE *f, profdb_str s);
/* Typed number, exactly: integers in decimal, floating point with the
 * shortest digits that read back bit-for-bit (laid out as "%.17g" would,
 * lib/core/dtoa-internal.h), NaN as nan(0x<the 64 bits in 16 hex digits>)
 * (sign and payload included: nan(0xfff8000000000000) is the negative
 * quiet NaN), inf, -inf. json != 0: NaN/±Inf as strings ("nan(0x…)",
 * "inf", "-inf") and integral floats keep a ".0" so the type survives.
 * Absent (PROFDB_TYPE_NONE) prints null / empty. */
void put_number(FILE *f, profdb_number v, int json);
/* The same text into @p buf (at least TOOL_NUMBER_MAX bytes, no NUL);
 * returns its length. For loops that build a whole row before writing. */
#define TOOL_NUMBER_MAX 48
size_t format_number(char *buf, profdb_number v, int json);
/* An unsigned integer's digits into @p buf (TOOL_NUMBER_MAX); the length. */
size_t format_u64(char *buf, uint64_t v);
/* A double for the aligned tables: integral values below 2^53 exactly,
 * others with 6 significant digits. Width @p w. */
void put_table_value(FILE *f, double v, int w);
/* Name of a context, its bytes as stored (NUL-terminated after them, cut
 * at @p n - 1): "<program root>", "main", "[I] helper", "loop at
 * sample.c:12", "sample.c:13", "sample+0x1158". @return its length (a
 * name may hold a NUL: JSON prints these bytes). */
size_t context_label_bytes(const profdb_context *c, char *buf, size_t n);
/* context_label_bytes() as people read it (names_show): no control byte,
 * the whole name up to its NUL terminator. */
void context_label(const profdb_context *c, char *buf, size_t n);
/* Bytes that hold context_label(@p c) whole, its NUL included (of
 * context_label_bytes() too). */
size_t context_label_size(const profdb_context *c);
/* context_label(@p c) whole in a new buffer (the caller frees it);
 * NULL when out of memory. */
char *context_label_new(const profdb_context *c);
/* context_label_bytes(@p c) whole in a new buffer (the caller frees it),
 * as a string of its bytes (*@p out); NULL when out of memory. */
char *context_label_bytes_new(const profdb_context *c, profdb_str *out);
/* One metric as a JSON object (metrics --json, dump). */
void put_metric_json(FILE *f, const profdb_metric *m);
const char *metric_kind_name(profdb_metric_kind k);
/* "sum", "min", "max", "none" (cmd-info.c). */
const char *combine_name(profdb_combine c);
const char *number_type_name(profdb_type t);
const char *relation_name(profdb_relation r);
const char *context_type_name(profdb_context_type t);
/* profdb_str from a C string. */
profdb_str str_of(const char *s);

/* ---- walking the tree (walk.c) ---- */
/* Depth-first pre-order walk over every tree node through first_child /
 * next_sibling / parent links, without recursion (trees can be deep);
 * links that loop end it with -EBADMSG. */
typedef struct walk_guard {
	uint32_t mark;
	uint64_t span, steps;
} walk_guard;              /* walk.c's guard against links that loop */
typedef struct tool_walk {
	const profdb *db;
	profdb_context node[2];   /* node[cur]: the node returned last; the other:
	                           * the node likely next, read ahead (has_ahead) */
	int cur, has_ahead;
	int state;             /* 0 not started, 1 walking, 2 done */
	walk_guard guard;      /* over the nodes returned */
} tool_walk;
int walk_begin(tool_walk *w, const profdb *db);
/* @return 1 (a node in *out), 0 (end), < 0 error. skip_children: do not
 * descend below the node returned by the previous call. */
int walk_next(tool_walk *w, profdb_context *out, int skip_children);
/* The node with id @p id when the walk has it read ahead (the first child,
 * or the next sibling, of the node returned last), else NULL: a caller
 * that looks at that node now need not ask for it again. Valid until the
 * next walk_next(). */
const profdb_context *walk_peek(const tool_walk *w, uint32_t id);

#endif
