/* Names: see names.h. Which function a context stands for is the
 * library's rule (profdb_function_fold, lib/analysis/functions.c); this
 * file only writes names for people. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "names.h"

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

void names_function_where(profdb_str name, profdb_str file, profdb_str module, char *buf,
                          size_t n)
{
	profdb_str f = names_base(file), m = names_base(module);
	if (!n)
		return;
	if (!name.len)
		name = str_of("<unknown function>");
	int l = snprintf(buf, n, "%.*s", (int)name.len, name.ptr);
	/* HPCToolkit names an unknown file "[module]": the module says it. */
	if (file.len && !(file.ptr[0] == '[' && file.ptr[file.len - 1] == ']') && l >= 0 &&
	    (size_t)l < n)
		l += snprintf(buf + l, n - (size_t)l, " (%.*s)", (int)f.len, f.ptr);
	if (module.len && l >= 0 && (size_t)l < n)
		snprintf(buf + l, n - (size_t)l, " [%.*s]", (int)m.len, m.ptr);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* names_function_unchanged() byte by byte. */
static int unchanged_walk(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 0;   /* names_key_of writes '?' (and a NUL would cut) */
		/* where hex_segment() is tried: an address to shorten */
		if (c == '0' && (i == 0 || s[i - 1] == '\'') && i + 1 < len && s[i + 1] == 'x')
			return 0;
	}
	return 1;
}

#define BYTES(c) ((uint64_t)0x0101010101010101u * (unsigned char)(c))

/* Does @p w hold a byte below 0x20, a DEL or an apostrophe? (The tests
 * of a byte below a bound and of a zero byte in a word, exact about the
 * word as a whole.) */
static int word_stops(uint64_t w)
{
	uint64_t del = w ^ BYTES(0x7f), apostrophe = w ^ BYTES('\'');
	uint64_t low = (w - BYTES(0x20)) & ~w;
	del = (del - BYTES(1)) & ~del;
	apostrophe = (apostrophe - BYTES(1)) & ~apostrophe;
	return ((low | del | apostrophe) & BYTES(0x80)) != 0;
}

/* `top` asks this of every function of a large profile: eight bytes at a
 * time, an address to shorten only at the start when no apostrophe
 * starts another segment (nor a control byte needs the walk's look). */
int names_function_unchanged(profdb_str name, size_t n)
{
	const char *s = name.ptr;
	size_t len = name.len, i = 0;
	uint64_t w;
	if (len == 0 || len >= n)
		return 0;
	if (s[0] == '0' && len > 1 && s[1] == 'x')
		return 0;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		if (word_stops(w))
			return unchanged_walk(s, len);
	}
	w = BYTES('a');   /* the last bytes, with letters after them */
	memcpy(&w, s + i, len - i);
	return word_stops(w) ? unchanged_walk(s, len) : 1;
}

void names_key_of(profdb_str folded, profdb_str module, char *buf, size_t n)
{
	names_function(folded, module, buf, n);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}
