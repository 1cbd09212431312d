/* A function's identity (profdb/analysis.h): (module, file, full name),
 * with the suffixes a format appends to a function's name removed.
 *
 * Callgrind's suffixes (valgrind's callgrind/dump.c, checked on the
 * samples in ../shared/data/callgrind): a function context is written as
 * the function's own name, then "'N" (N >= 2) when --separate-recs gives
 * a recursion level its own entry, then "'CALLER" for each level of
 * --separate-callers, innermost caller first:
 *     fact'2
 *     wcschr'_dl_relocate_object'dl_main
 *     0x0000000000001050'0x00000000000010c0'_dl_call_fini
 *     (below main)'__libc_start_main@@GLIBC_2.34'(below main)
 * So the function is what comes before the first apostrophe callgrind
 * added. A name can hold apostrophes of its own, but never outside
 * brackets: demangled C++ writes a char template argument as "(char)39"
 * and a literal operator as 'operator"" _x', Rust puts its lifetimes and
 * char constants inside "<...>", Python profilers converted to the format
 * write "<method 'add' of 'set' objects>" (gprof2dot's bzr.callgrind);
 * libc++abi's demangler quotes a lambda after "::" ("f::'lambda'(int)").
 * The fold therefore cuts at the first apostrophe at bracket depth 0 that
 * does not open such a quoted word. */
#include <string.h>

#include "functions-internal.h"
#include "query/query-internal.h"
#include "profdb/analysis.h"

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* The operators whose spelling holds a bracket character; longest first
 * so that "operator<<" is not read as "operator<" and a stray '<'. */
static const char *const bracket_ops[] = {
	"<=>", "->*", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "<=", ">=", "<", ">",
};

/* Length of "operator" + spaces + a bracket operator at @p i, 0 if none. */
static size_t operator_at(const char *s, size_t len, size_t i)
{
	static const char kw[] = "operator";
	size_t k = sizeof kw - 1;
	if (len - i < k || memcmp(s + i, kw, k) != 0 || (i > 0 && ident_char(s[i - 1])))
		return 0;
	size_t j = i + k;
	while (j < len && s[j] == ' ')
		j++;
	for (size_t o = 0; o < sizeof bracket_ops / sizeof *bracket_ops; o++) {
		size_t ol = strlen(bracket_ops[o]);
		if (len - j >= ol && memcmp(s + j, bracket_ops[o], ol) == 0)
			return j + ol - i;
	}
	return 0;
}

/* (functions-internal.h) */
size_t profdb__callgrind_fold_walk(const char *s, size_t len)
{
	size_t depth = 0;
	for (size_t i = 0; i < len; i++) {
		size_t op = s[i] == 'o' ? operator_at(s, len, i) : 0;
		if (op) {
			i += op - 1;
			continue;
		}
		switch (s[i]) {
		case '(': case '<': case '[': case '{':
			depth++;
			break;
		case ')': case '>': case ']': case '}':
			/* "->" inside a template argument is not a bracket */
			if (!(s[i] == '>' && i > 0 && s[i - 1] == '-') && depth > 0)
				depth--;
			break;
		case '\'':
			/* libc++abi's "ns::'lambda'(int)": a quoted word after "::"
			 * (callgrind's part follows a whole name, never "::") */
			if (i == 0 || (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':')) {
				const char *q = memchr(s + i + 1, '\'', len - i - 1);
				if (q) {
					i = (size_t)(q - s);
					break;
				}
			}
			/* callgrind appends a non-empty part to a non-empty name */
			if (depth == 0 && i > 0 && i + 1 < len)
				return i;
			break;
		default:
			break;
		}
	}
	return len;
}

/* What the walk stops at: a bracket (the depth, and every operator that
 * operator_at() skips holds one) or an apostrophe. */
enum { PLAIN, BRACKET, APOSTROPHE };
static const unsigned char stop[256] = {
	['('] = BRACKET, [')'] = BRACKET, ['<'] = BRACKET, ['>'] = BRACKET,
	['['] = BRACKET, [']'] = BRACKET, ['{'] = BRACKET, ['}'] = BRACKET,
	['\''] = APOSTROPHE,
};

/* The length of Callgrind name @p s without valgrind's suffixes. Most
 * names hold no bracket before their first apostrophe ("wcschr'main":
 * nearly every name of a profile recorded with --separate-callers), so
 * the walk would stop there, at depth 0, unless it opens a quoted word:
 * those are cut with a look at the bytes before it, the others walked. */
static size_t callgrind_base(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && stop[(unsigned char)s[i]] == PLAIN)
		i++;
	if (i == len)
		return len;   /* only an apostrophe ends the name early */
	if (stop[(unsigned char)s[i]] == BRACKET || i == 0 || i + 1 == len ||
	    (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':'))
		return profdb__callgrind_fold_walk(s, len);
	return i;
}

profdb_str profdb_function_fold(const profdb *db, profdb_str name)
{
	if (!db || !db->be->name_suffixes || !name.ptr)
		return name;
	name.len = callgrind_base(name.ptr, name.len);
	return name;
}

int profdb_function_identity(const profdb *db, uint32_t context, profdb_function_id *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_function_identity: NULL argument");
	profdb_context c;
	int r = profdb_context_get(db, context, &c);
	if (r < 0)
		return r;
	if (c.type != PROFDB_CTX_FUNCTION || !c.function.len)
		return profdb__fail(-ENOENT, "profdb_function_identity: context %u is not a named "
		                    "function", (unsigned)context);
	out->name = profdb_function_fold(db, c.function);
	out->file = c.file;
	out->module = c.module;
	return 0;
}
