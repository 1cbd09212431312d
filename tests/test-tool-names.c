/* The tool's naming rules (tool/names.c): unnamed functions labelled with
 * their object, keys and labels. The fold of Callgrind's suffixes is the
 * library's (tests/test-functions.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "../tool/names.h"

static char out[256];

/* A string literal's bytes, a NUL among them too. */
#define LITERAL(s) ((profdb_str){s, sizeof s - 1})

static const char *fn(const char *name, const char *module)
{
	names_function(str_of(name), str_of(module), out, sizeof out);
	return out;
}

Test(tool_names, unnamed_functions_show_their_object)
{
	cr_expect_str_eq(fn("0x0000000000014cb0", "/usr/bin/ls"), "0x14cb0 [ls]");
	cr_expect_str_eq(fn("0x0000000000000000", "/usr/bin/ls"), "0x0 [ls]");
	cr_expect_str_eq(fn("0x00012C30'2", "/lib/libglib.so"), "0x12C30'2 [libglib.so]");
	cr_expect_str_eq(fn("0x0000000000001050'0x00000000000010c0'_dl_call_fini", "ls"),
	                 "0x1050'0x10c0'_dl_call_fini [ls]");
	cr_expect_str_eq(fn("0x14cb0", "???"), "0x14cb0");
	cr_expect_str_eq(fn("0x14cb0", ""), "0x14cb0");
	/* named functions as stored, their callers' addresses shortened */
	cr_expect_str_eq(fn("malloc", "/lib/libc.so.6"), "malloc");
	cr_expect_str_eq(fn("(below main)'0x000000000001ab70", "/lib/ld.so"), "(below main)'0x1ab70");
	cr_expect_str_eq(fn("0x", "/bin/x"), "0x");
	cr_expect_str_eq(fn("0xgg", "/bin/x"), "0xgg");
	cr_expect_str_eq(fn("a0x0001", "/bin/x"), "a0x0001");
	/* truncation stays NUL-terminated */
	char small[6];
	names_function(str_of("0x0000000000014cb0"), str_of("/usr/bin/ls"), small, sizeof small);
	cr_expect_str_eq(small, "0x14c");
}

Test(tool_names, keys_and_labels)
{
	profdb_context c;
	memset(&c, 0, sizeof c);
	c.type = PROFDB_CTX_FUNCTION;
	c.relation = PROFDB_RELATION_CALL;
	c.module = str_of("/usr/bin/ls");
	c.function = str_of("0x0000000000014cb0'2'main");
	cr_expect_eq(names_function(str_of("0x0000000000014cb0"), c.module, out, sizeof out), 12);
	cr_expect_str_eq(out, "0x14cb0 [ls]");
	/* the label keeps the whole stored name: the tree shows the contexts */
	char buf[64];
	c.function = str_of("0x0000000000014cb0'2");
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "0x14cb0'2 [ls]");
	c.relation = PROFDB_RELATION_INLINED;
	c.function = str_of("0x00000000000000ff");
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "[I] 0xff [ls]");
	char tiny[3];
	context_label(&c, tiny, sizeof tiny);
	cr_expect_str_eq(tiny, "[I");
}

/* A name is its bytes, a NUL among them (Xdebug's anonymous classes):
 * written whole, with its length, and shown with '?' for each control
 * byte, never cut at the NUL. */
Test(tool_names, control_bytes_are_kept_and_shown_as_question_marks)
{
	static const char anon[] = "class@anonymous\0/x.php:3$0\t\033\x7f";
	profdb_str name = {anon, sizeof anon - 1};
	size_t len = names_function(name, str_of("php:internal"), out, sizeof out);
	cr_assert_eq(len, name.len, "the whole name, not up to the NUL");
	cr_expect_eq(memcmp(out, anon, len), 0);
	names_show(out, len);
	cr_expect_str_eq(out, "class@anonymous?/x.php:3$0???");
	cr_expect_str_eq(names_shown(name, out, sizeof out), "class@anonymous?/x.php:3$0???");
	cr_expect_str_eq(names_shown(name, out, 6), "class");
	/* the other parts of a label too */
	len = names_function_where(LITERAL("f\0g"), LITERAL("/src/a\tb.c"), LITERAL("/lib/m\0.so"),
	                           out, sizeof out);
	cr_assert_eq(len, 19);
	cr_expect_eq(memcmp(out, "f\0g (a\tb.c) [m\0.so]", len + 1), 0);
	profdb_context c;
	memset(&c, 0, sizeof c);
	c.type = PROFDB_CTX_FUNCTION;
	c.relation = PROFDB_RELATION_INLINED;
	c.function = name;
	char buf[64];
	len = context_label_bytes(&c, buf, sizeof buf);
	cr_assert_eq(len, 4 + name.len);
	cr_expect(memcmp(buf, "[I] ", 4) == 0 && memcmp(buf + 4, anon, name.len) == 0);
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "[I] class@anonymous?/x.php:3$0???");
	c.type = PROFDB_CTX_LINE;
	c.file = LITERAL("/src/\0x.php");
	c.line = 12;
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "?x.php:12");
}

/* names_function_unchanged() says when the key is the name itself, so that
 * `top` may key a Callgrind function by a view of its name: it must never
 * say so when names_function() would write something else. */
static void check_unchanged(const char *name, size_t n, int want)
{
	char key[64];
	profdb_str s = {name, strlen(name)};
	int got = names_function_unchanged(s, n);
	cr_expect_eq(got, want, "names_function_unchanged(\"%s\", %zu) = %d", name, n, got);
	size_t len = names_function(s, str_of("/usr/lib/libc.so.6"), key,
	                            n < sizeof key ? n : sizeof key);
	int same = len == s.len && memcmp(key, name, len) == 0;
	if (got)
		cr_expect(same, "\"%s\": a name said unchanged is its own key", name);
	else if (*name)   /* (the nameless one is the walk's to label) */
		cr_expect(!same, "\"%s\" said changed, but is its own key", name);
}

Test(tool_names, function_unchanged_iff_key_is_the_name)
{
	check_unchanged("main", 64, 1);
	check_unchanged("std::vector<int>::push_back(int const&)", 64, 1);
	check_unchanged("operator<<", 64, 1);
	check_unchanged("f0x10", 64, 1);              /* "0x" inside a word: not an address */
	check_unchanged("0x0000000000014cb0", 64, 0); /* shortened, the object added */
	check_unchanged("0x10c0", 64, 0);             /* the object added */
	check_unchanged("f'0x00000000000010c0", 64, 0); /* a segment after an apostrophe */
	check_unchanged("tab\there", 64, 1);          /* a key keeps control bytes */
	check_unchanged("del\x7f", 64, 1);
	check_unchanged("", 64, 0);                   /* nameless: labelled by the walk */
	check_unchanged("0123456789", 10, 0);         /* cut at n - 1 bytes */
	check_unchanged("0123456789", 11, 1);
	/* eight bytes at a time: what stops the look in the first word, a
	 * later one and the last bytes, on names of 8, 16 and more bytes */
	check_unchanged("abcdefgh", 64, 1);
	check_unchanged("abcdefghijklmnop", 64, 1);
	check_unchanged("std::basic_string<char>::append(char const*, unsigned long)", 64, 1);
	check_unchanged("caf\xc3\xa9_\xe2\x82\xac_r\xc3\xa9sum\xc3\xa9", 64, 1);  /* UTF-8 */
	check_unchanged("abcdefghij\x01", 64, 1);
	check_unchanged("abcdefghijklmnopq\x1f", 64, 1);
	check_unchanged("abcdefgh\x7f", 64, 1);
	check_unchanged("abcdefghijklmno\x7f", 64, 1);
	check_unchanged("abcdefghij\x01'0x0001", 64, 0);  /* an address after one */
	check_unchanged("abcdefghi'0x00000000000010c0", 64, 0);  /* a segment in the second word */
	check_unchanged("abcdefghijklmnopq'0x01", 64, 0);  /* in the last bytes */
	check_unchanged("<method 'add' of 'set' objects>", 64, 1);  /* apostrophes alone */
	check_unchanged("f'x0", 64, 1);
	check_unchanged("0y", 64, 1);
	check_unchanged("0", 64, 1);
}
