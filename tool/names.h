/* How the tool names things: the label of a context, the key that groups a
 * function's contexts under `--by function`, a function with its place. */
#ifndef PROFDB_TOOL_NAMES_H
#define PROFDB_TOOL_NAMES_H

#include <stddef.h>

#include "tool.h"

/* The last path component of @p path (all of it without a '/'). */
profdb_str names_base(profdb_str path);

/* How a name is printed for people: each control byte (below 0x20, and
 * DEL) shows as '?', every other byte as it is, the whole name (a NUL is
 * a byte like the others, as in Xdebug's "class@anonymous\0/x.php:3$0").
 * Names and labels are written with the bytes as stored, each with its
 * length (JSON carries them exactly), and shown with this rule. */
static inline int names_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* @p s (@p len bytes) as shown, in place: a '?' for each control byte.
 * The length stays, so a name shown is NUL-free and NUL-terminated when
 * its bytes were. */
void names_show(char *s, size_t len);

/* @p s as shown into @p buf as a C string (cut at @p n - 1 bytes, n > 0),
 * for what takes one: a filter, a table cell. @return @p buf. */
char *names_shown(profdb_str s, char *buf, size_t n);

/* Bytes written into a buffer of @p n bytes (n > 0): cut at n - 1 bytes,
 * always NUL-terminated after them. */
typedef struct names_buf {
	char *p;
	size_t n, len;
} names_buf;
void names_put(names_buf *b, const char *s, size_t len);
static inline void names_put_str(names_buf *b, profdb_str s)
{
	names_put(b, s.ptr, s.len);
}

/* A function's name for humans into @p buf (cut at @p n - 1 bytes,
 * NUL-terminated after them), its bytes as stored: the name, except that
 * an address standing for an unnamed function (Callgrind's
 * "0x0000000000014cb0", a segment of a separate-callers name too) loses
 * its leading zeros, and an unnamed function gets its object's base name:
 * "0x14cb0 [ls]", as callgrind_annotate writes "0x... [/usr/bin/ls]". It
 * is also the `--by function` key of a function (@p name its folded name,
 * profdb_function_fold). @return the length written. */
size_t names_function(profdb_str name, profdb_str module, char *buf, size_t n);

/* "name (file) [module]", file and module by their base names (no file
 * when HPCToolkit's "[module]" stands for an unknown one, none of either
 * when empty), the bytes as stored, into @p buf as names_function()
 * writes: a function told apart from others of its name (`callers`,
 * `callees`, the namesakes of `top`). @return the length written. */
size_t names_function_where(profdb_str name, profdb_str file, profdb_str module, char *buf,
                            size_t n);
/* Bytes that hold names_function_where() whole, its NUL included. */
size_t names_function_where_size(profdb_str name, profdb_str file, profdb_str module);

/* Is names_function(@p folded, any module, buf, @p n) @p folded itself,
 * byte for byte? Yes for a non-empty name shorter than @p n with no
 * address segment to shorten (so no unnamed function either): the key can
 * then be the name, without a copy. */
int names_function_unchanged(profdb_str folded, size_t n);

#endif
