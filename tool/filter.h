/* Name filters of `top`, `tree`, `bottom-up` and `flat`: --match and
 * --exclude take POSIX extended regular expressions (regcomp REG_EXTENDED,
 * unanchored: a row is kept when its name contains a match). */
#ifndef PROFDB_TOOL_FILTER_H
#define PROFDB_TOOL_FILTER_H

#include <regex.h>

typedef struct filter {
	regex_t match, exclude;
	int has_match, has_exclude;
} filter;

/* Compile @p re as --match (@p exclude 0) or --exclude (1); a second one
 * replaces the first. @return 0, or EXIT_USAGE after printing
 * "profdb: --match: 'RE' is not a regular expression (...)". */
int filter_set(filter *f, int exclude, const char *re);
/* Does @p name pass: matches --match (when given) and not --exclude? */
int filter_pass(const filter *f, const char *name);
/* Is there a name filter at all? */
int filter_any(const filter *f);
void filter_free(filter *f);

#endif
