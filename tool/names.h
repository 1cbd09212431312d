/* How the tool names things: the label of a context, the key that groups a
 * function's contexts under `--by function`. */
#ifndef PROFDB_TOOL_NAMES_H
#define PROFDB_TOOL_NAMES_H

#include "tool.h"

/* The function name under which `--by function` groups a context of
 * format @p f: Callgrind's --separate-callers ("f'caller'caller") and
 * recursion ("f'2") suffixes folded away; other names unchanged. The
 * result points into @p name. */
profdb_str names_fold(profdb_format f, profdb_str name);

#endif
