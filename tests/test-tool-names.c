/* The tool's naming rules (tool/names.c): Callgrind's separate-callers and
 * recursion suffixes folded for `--by function`, names an apostrophe
 * belongs to left whole, unnamed functions labelled with their object. */
#include <criterion/criterion.h>
#include <string.h>

#include "../tool/names.h"

static char out[256];

static const char *fold(profdb_format f, const char *name)
{
	profdb_str r = names_fold(f, str_of(name));
	cr_assert(r.ptr == name || r.len == 0, "the fold points into the name");
	snprintf(out, sizeof out, "%.*s", (int)r.len, r.ptr);
	return out;
}

static const char *cg(const char *name)
{
	return fold(PROFDB_FORMAT_CALLGRIND, name);
}

Test(tool_names, callgrind_suffixes_fold)
{
	/* as callgrind writes them (10_sep_callers2.out, 22/23_recursion*.out) */
	cr_expect_str_eq(cg("fact'2"), "fact");
	cr_expect_str_eq(cg("a'17"), "a");
	cr_expect_str_eq(cg("wcschr'_dl_relocate_object'dl_main"), "wcschr");
	cr_expect_str_eq(cg("msort_with_tmp.part.0'2'qsort_r'qsort"), "msort_with_tmp.part.0");
	cr_expect_str_eq(cg("_PyEval_EvalFrameDefault'0x00000000001b2c40'PyEval_EvalCode'run_mod"),
	                 "_PyEval_EvalFrameDefault");
	cr_expect_str_eq(cg("0x0000000000001050'0x00000000000010c0'_dl_call_fini"),
	                 "0x0000000000001050");
	cr_expect_str_eq(cg("(below main)'__libc_start_main@@GLIBC_2.34'(below main)"),
	                 "(below main)");
	cr_expect_str_eq(cg("0x00012C30'2"), "0x00012C30");
	/* a C++ name, then the suffix (googlecode-issue34.callgrind) */
	cr_expect_str_eq(cg("std::_Rb_tree<int, std::less<int> >::_M_erase(std::_Rb_tree_node<int>*)'2"),
	                 "std::_Rb_tree<int, std::less<int> >::_M_erase(std::_Rb_tree_node<int>*)");
	cr_expect_str_eq(cg("X::operator<<(int)'2'main"), "X::operator<<(int)");
	cr_expect_str_eq(cg("X::operator<(X const&)'main"), "X::operator<(X const&)");
	cr_expect_str_eq(cg("X::operator->() const'3"), "X::operator->() const");
	cr_expect_str_eq(cg("X::operator()()'f'g"), "X::operator()()");
	cr_expect_str_eq(cg("f<decltype(a->b)>()'g"), "f<decltype(a->b)>()");
}

Test(tool_names, apostrophes_of_the_name_stay)
{
	const char *keep[] = {
		"main",
		"operator\"\" _x(char const*)",                    /* c++filt's literal operator */
		"void f<(char)39>()",                              /* a char template argument */
		"<method 'add' of 'set' objects>",                 /* gprof2dot's bzr.callgrind */
		"<&'a str as core::fmt::Display>::fmt",            /* a Rust lifetime */
		"core::ptr::drop_in_place<for<'a> fn(&'a u8)>",
		"parse::<'x'>",                                    /* a Rust char constant */
		"ns::'lambda'(int)::operator()(int) const",         /* libc++abi */
		"'quoted'",
		"trailing'",
		"",
	};
	for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
		cr_expect_str_eq(cg(keep[i]), keep[i]);
	/* with a suffix after them, only the suffix goes */
	cr_expect_str_eq(cg("<method 'add' of 'set' objects>'2"), "<method 'add' of 'set' objects>");
	cr_expect_str_eq(cg("ns::'lambda'(int)::operator()(int) const'main"),
	                 "ns::'lambda'(int)::operator()(int) const");
	/* unbalanced brackets never cut inside them, never crash */
	cr_expect_str_eq(cg("f<a'b"), "f<a'b");
	cr_expect_str_eq(cg(">>>x'y"), ">>>x");
	cr_expect_str_eq(cg("operator"), "operator");
	cr_expect_str_eq(cg("operator<"), "operator<");
}

Test(tool_names, other_formats_unchanged)
{
	cr_expect_str_eq(fold(PROFDB_FORMAT_CUBE, "fact'2"), "fact'2");
	cr_expect_str_eq(fold(PROFDB_FORMAT_HPCTK4, "a'b"), "a'b");
	profdb_str none = {NULL, 0};
	cr_expect_eq(names_fold(PROFDB_FORMAT_CALLGRIND, none).len, 0);
}

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
	names_key(PROFDB_FORMAT_CALLGRIND, &c, out, sizeof out);
	cr_expect_str_eq(out, "0x14cb0 [ls]");
	c.function = str_of("f\033'2");
	names_key(PROFDB_FORMAT_CALLGRIND, &c, out, sizeof out);
	cr_expect_str_eq(out, "f?");
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

/* names_function_unchanged() says when the key is the name itself, so that
 * `top` may key a Callgrind function by a view of its name: it must never
 * say so when names_key_of() would write something else. */
static void check_unchanged(const char *name, size_t n, int want)
{
	char key[64];
	profdb_str s = {name, strlen(name)};
	int got = names_function_unchanged(s, n);
	cr_expect_eq(got, want, "names_function_unchanged(\"%s\", %zu) = %d", name, n, got);
	names_key_of(s, str_of("/usr/lib/libc.so.6"), key, n < sizeof key ? n : sizeof key);
	if (got)
		cr_expect_str_eq(key, name, "a name said unchanged is its own key");
	else if (*name)   /* (the nameless one is the walk's to label) */
		cr_expect_str_neq(key, name, "\"%s\" said changed, but is its own key", name);
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
	check_unchanged("tab\there", 64, 0);          /* a control byte becomes '?' */
	check_unchanged("del\x7f", 64, 0);
	check_unchanged("", 64, 0);                   /* nameless: labelled by the walk */
	check_unchanged("0123456789", 10, 0);         /* cut at n - 1 bytes */
	check_unchanged("0123456789", 11, 1);
}
