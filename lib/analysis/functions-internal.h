/* The rule of profdb_function_fold() for Callgrind, byte by byte
 * (functions.c). */
#ifndef PROFDB_ANALYSIS_FUNCTIONS_INTERNAL_H
#define PROFDB_ANALYSIS_FUNCTIONS_INTERNAL_H

#include <stddef.h>

/* The length of Callgrind name @p s (@p len bytes) without valgrind's
 * suffixes, walked byte by byte: what profdb_function_fold() gives, which
 * takes a shorter way for most names (the tests compare the two). */
size_t profdb__callgrind_fold_walk(const char *s, size_t len);

#endif
