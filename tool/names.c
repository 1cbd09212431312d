/* Names: see names.h.
 *
 * Callgrind's name suffixes (valgrind's callgrind/dump.c, checked on the
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

#include "names.h"

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

profdb_str names_fold(profdb_format f, profdb_str name)
{
	if (f != PROFDB_FORMAT_CALLGRIND || !name.ptr)
		return name;
	const char *s = name.ptr;
	size_t depth = 0;
	for (size_t i = 0; i < name.len; i++) {
		size_t op = s[i] == 'o' ? operator_at(s, name.len, i) : 0;   /* the hot loop */
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
				const char *q = memchr(s + i + 1, '\'', name.len - i - 1);
				if (q) {
					i = (size_t)(q - s);
					break;
				}
			}
			/* callgrind appends a non-empty part to a non-empty name */
			if (depth == 0 && i > 0 && i + 1 < name.len) {
				profdb_str r = {s, i};
				return r;
			}
			break;
		default:
			break;
		}
	}
	return name;
}

/* Length of "0x" + hex digits at @p i, ending at the end or an apostrophe
 * (one segment of a Callgrind name), else 0. */
static size_t hex_segment(const char *s, size_t len, size_t i)
{
	if (len - i < 3 || s[i] != '0' || s[i + 1] != 'x')
		return 0;
	size_t j = i + 2;
	while (j < len && ((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f') ||
	                   (s[j] >= 'A' && s[j] <= 'F')))
		j++;
	return j > i + 2 && (j == len || s[j] == '\'') ? j - i : 0;
}

static void put(char *buf, size_t n, size_t *at, const char *s, size_t len)
{
	for (size_t k = 0; k < len && *at + 1 < n; k++)
		buf[(*at)++] = s[k];
}

profdb_str names_base(profdb_str path)
{
	for (size_t i = path.len; i > 0; i--)
		if (path.ptr[i - 1] == '/') {
			profdb_str r = {path.ptr + i, path.len - i};
			return r;
		}
	return path;
}

void names_function(profdb_str name, profdb_str module, char *buf, size_t n)
{
	if (!n)
		return;
	size_t at = 0;
	const char *s = name.ptr ? name.ptr : "";
	int unnamed = hex_segment(s, name.len, 0) != 0;
	/* Shorten every address segment ("0x00000000000010c0" -> "0x10c0"), as
	 * the callers of a separate-callers name are often unnamed too. */
	for (size_t i = 0; i < name.len;) {
		size_t h = (i == 0 || s[i - 1] == '\'') ? hex_segment(s, name.len, i) : 0;
		if (!h) {
			put(buf, n, &at, s + i, 1);
			i++;
			continue;
		}
		size_t d = i + 2, end = i + h;
		while (d + 1 < end && s[d] == '0')
			d++;
		put(buf, n, &at, "0x", 2);
		put(buf, n, &at, s + d, end - d);
		i = end;
	}
	profdb_str obj = names_base(module);
	if (unnamed && obj.len && !(obj.len == 3 && memcmp(obj.ptr, "???", 3) == 0)) {
		put(buf, n, &at, " [", 2);
		put(buf, n, &at, obj.ptr, obj.len);
		put(buf, n, &at, "]", 1);
	}
	buf[at] = '\0';
}

int names_function_unchanged(profdb_str name, size_t n)
{
	const char *s = name.ptr;
	if (name.len == 0 || name.len >= n)
		return 0;
	for (size_t i = 0; i < name.len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 0;   /* names_key writes '?' (and a NUL would cut) */
		/* where hex_segment() is tried: an address to shorten */
		if (c == '0' && (i == 0 || s[i - 1] == '\'') && i + 1 < name.len && s[i + 1] == 'x')
			return 0;
	}
	return 1;
}

void names_key_of(profdb_str folded, profdb_str module, char *buf, size_t n)
{
	names_function(folded, module, buf, n);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

void names_key(profdb_format f, const profdb_context *c, char *buf, size_t n)
{
	names_key_of(names_fold(f, c->function), c->module, buf, n);
}
