/* Names: see names.h. Which function a context stands for is the
 * library's rule (profdb_function_fold, lib/analysis/functions.c); this
 * file only writes names for people. */
#include <stdint.h>
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

void names_show(char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (names_control((unsigned char)s[i]))
			s[i] = '?';
}

char *names_shown(profdb_str s, char *buf, size_t n)
{
	names_buf b = {buf, n, 0};
	names_put_str(&b, s);
	names_show(buf, b.len);
	return buf;
}

void names_put(names_buf *b, const char *s, size_t len)
{
	size_t room = b->n - 1 - b->len;
	if (len > room)
		len = room;
	if (len)
		memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
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

size_t names_function(profdb_str name, profdb_str module, char *buf, size_t n)
{
	if (!n)
		return 0;
	names_buf b = {buf, n, 0};
	const char *s = name.ptr ? name.ptr : "";
	int unnamed = hex_segment(s, name.len, 0) != 0;
	buf[0] = '\0';
	/* Shorten every address segment ("0x00000000000010c0" -> "0x10c0"), as
	 * the callers of a separate-callers name are often unnamed too. */
	for (size_t i = 0; i < name.len;) {
		size_t h = (i == 0 || s[i - 1] == '\'') ? hex_segment(s, name.len, i) : 0;
		if (!h) {
			size_t end = i + 1;   /* up to where the next segment may start */
			while (end < name.len && s[end - 1] != '\'')
				end++;
			names_put(&b, s + i, end - i);
			i = end;
			continue;
		}
		size_t d = i + 2, end = i + h;
		while (d + 1 < end && s[d] == '0')
			d++;
		names_put(&b, "0x", 2);
		names_put(&b, s + d, end - d);
		i = end;
	}
	profdb_str obj = names_base(module);
	if (unnamed && obj.len && !(obj.len == 3 && memcmp(obj.ptr, "???", 3) == 0)) {
		names_put(&b, " [", 2);
		names_put_str(&b, obj);
		names_put(&b, "]", 1);
	}
	return b.len;
}

size_t names_function_where(profdb_str name, profdb_str file, profdb_str module, char *buf,
                            size_t n)
{
	if (!n)
		return 0;
	names_buf b = {buf, n, 0};
	buf[0] = '\0';
	names_put_str(&b, name.len ? name : str_of("<unknown function>"));
	/* HPCToolkit names an unknown file "[module]": the module says it. */
	if (file.len && !(file.ptr[0] == '[' && file.ptr[file.len - 1] == ']')) {
		names_put(&b, " (", 2);
		names_put_str(&b, names_base(file));
		names_put(&b, ")", 1);
	}
	if (module.len) {
		names_put(&b, " [", 2);
		names_put_str(&b, names_base(module));
		names_put(&b, "]", 1);
	}
	return b.len;
}

size_t names_function_where_size(profdb_str name, profdb_str file, profdb_str module)
{
	return (name.len ? name.len : sizeof "<unknown function>") + file.len + module.len +
	       sizeof " () []";
}

/* names_function_unchanged() byte by byte: an address where
 * hex_segment() is tried. */
static int unchanged_walk(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '0' && (i == 0 || s[i - 1] == '\'') && i + 1 < len && s[i + 1] == 'x')
			return 0;
	return 1;
}

#define BYTES(c) ((uint64_t)0x0101010101010101u * (unsigned char)(c))

/* Does @p w hold an apostrophe? (The test of a zero byte in a word, exact
 * about the word as a whole.) */
static int word_stops(uint64_t w)
{
	uint64_t apostrophe = w ^ BYTES('\'');
	return ((apostrophe - BYTES(1)) & ~apostrophe & BYTES(0x80)) != 0;
}

/* `top` asks this of every function of a large profile: eight bytes at a
 * time, an address to shorten only at the start when no apostrophe
 * starts another segment. */
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
