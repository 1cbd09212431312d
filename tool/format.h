/* Numbers and names for the text tables of `top`, `tree`, `bottom-up` and
 * `flat`: thousands separators, shortened names, padded columns. JSON and
 * CSV never go through here (they print exact values, print.c). */
#ifndef PROFDB_TOOL_FORMAT_H
#define PROFDB_TOOL_FORMAT_H

#include <stddef.h>

/* A value for a table cell in @p buf (at least 40 bytes): "-" for NaN
 * (no value), integral values below 2^53 in full with ',' between groups
 * of three digits (none when @p plain), others with 6 significant digits.
 * @return the length written. */
size_t fmt_value(char *buf, size_t n, double v, int plain);

/* Display width of a UTF-8 string: code points, and one column for each
 * byte that is not part of a UTF-8 sequence (no wide-character table;
 * names are mostly ASCII). A column is at most four bytes. */
size_t fmt_width(const char *s);

/* @p name shortened to at most @p width display columns into @p out
 * (@p cap bytes): first the arguments of templates ("<...>") and of
 * parameter lists ("(...)") are elided, the innermost level first, then
 * the middle of what is left gives way to "...". A name that fits is
 * copied unchanged; @p width below 8 counts as 8. */
void fmt_shorten(const char *name, size_t width, char *out, size_t cap);
/* fmt_shorten() whole, however many bytes the columns take, in a new
 * buffer (the caller frees it); NULL when out of memory. */
char *fmt_shorten_new(const char *name, size_t width);

/* @p s right-aligned in @p w display columns (left-aligned when w < 0). */
void fmt_put(const char *s, int w);

/* A percentage as printf's "%6.2f%%  " writes it (the exact binary value
 * rounded to two decimals, ties to even) into @p buf, without a format
 * string: tables show millions of them. @return the length, or 0 when
 * @p p is not in 0 <= p < 1e9 (printf's then). */
size_t fmt_percent(char buf[static 16], double p);

/* A line of a text table put together before it goes to stdout: one
 * stdio call for many cells, not one a cell (tables print millions of
 * lines). What does not fit goes out as it comes. */
typedef struct fmt_line {
	size_t n;
	char b[4096];
} fmt_line;

void fmt_line_put(fmt_line *l, const char *s, size_t n);
/* fmt_put() into the line. */
void fmt_line_cell(fmt_line *l, const char *s, int w);
/* "%6.2f%%  " of @p p into the line (fmt_percent(), else printf's). */
void fmt_line_percent(fmt_line *l, double p);
/* What the line holds, to stdout. */
void fmt_line_flush(fmt_line *l);

#endif
