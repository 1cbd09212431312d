/* How the tool names things: the label of a context, the key that groups a
 * function's contexts under `--by function`, a function with its place. */
#ifndef PROFDB_TOOL_NAMES_H
#define PROFDB_TOOL_NAMES_H

#include <stddef.h>

#include "tool.h"

/* The last path component of @p path (all of it without a '/'). */
profdb_str names_base(profdb_str path);

/* A function's name for humans, NUL-terminated in @p buf (cut at @p n - 1
 * bytes): the name as stored, except that an address standing for an
 * unnamed function (Callgrind's "0x0000000000014cb0", a segment of a
 * separate-callers name too) loses its leading zeros, and an unnamed
 * function gets its object's base name: "0x14cb0 [ls]", as
 * callgrind_annotate writes "0x... [/usr/bin/ls]". */
void names_function(profdb_str name, profdb_str module, char *buf, size_t n);

/* The `--by function` key of a function, @p folded its folded name
 * (profdb_function_fold) and @p module its module: names_function(),
 * control bytes as '?'. */
void names_key_of(profdb_str folded, profdb_str module, char *buf, size_t n);

/* "name (file) [module]", file and module by their base names (no file
 * when HPCToolkit's "[module]" stands for an unknown one, none of either
 * when empty), control bytes as '?': a function told apart from others of
 * its name (`callers`, `callees`, the namesakes of `top`). */
void names_function_where(profdb_str name, profdb_str file, profdb_str module, char *buf,
                          size_t n);

/* Is names_key_of(@p folded, any module, buf, @p n) @p folded itself, byte
 * for byte? Yes for a non-empty name shorter than @p n with no control
 * byte and no address segment to shorten (so no unnamed function either):
 * the key can then be the name, without a copy. */
int names_function_unchanged(profdb_str folded, size_t n);

#endif
