/* Name filters: see filter.h. */
#include <stdio.h>

#include "filter.h"
#include "tool.h"

int filter_set(filter *f, int exclude, const char *re)
{
	regex_t *rx = exclude ? &f->exclude : &f->match;
	int *has = exclude ? &f->has_exclude : &f->has_match;
	if (*has) {
		regfree(rx);
		*has = 0;
	}
	int e = regcomp(rx, re, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char msg[256];
		regerror(e, rx, msg, sizeof msg);
		fprintf(stderr, "%s: %s: '%s' is not a regular expression (%s)\n", tool_prog,
		        exclude ? "--exclude" : "--match", re, msg);
		return EXIT_USAGE;
	}
	*has = 1;
	return 0;
}

int filter_pass(const filter *f, const char *name)
{
	if (f->has_match && regexec(&f->match, name, 0, NULL, 0) != 0)
		return 0;
	return !(f->has_exclude && regexec(&f->exclude, name, 0, NULL, 0) == 0);
}

int filter_any(const filter *f)
{
	return f->has_match || f->has_exclude;
}

void filter_free(filter *f)
{
	if (f->has_match)
		regfree(&f->match);
	if (f->has_exclude)
		regfree(&f->exclude);
	f->has_match = f->has_exclude = 0;
}
