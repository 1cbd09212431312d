/* The tool's printers (tool/print.c): exact numbers, JSON and CSV strings,
 * context labels. The real data has no NaN, infinity, -0 or invalid UTF-8
 * to exercise them, so they are checked here directly. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool/names.h"
#include "../tool/tool.h"

/* Runs a printer into a string (freed by the caller). */
#define CAPTURE(buf, stmt)                                                                        \
	do {                                                                                      \
		size_t cap_len_;                                                                  \
		FILE *f = open_memstream(&(buf), &cap_len_);                                      \
		cr_assert_not_null(f);                                                            \
		stmt;                                                                             \
		cr_assert_eq(fclose(f), 0);                                                       \
	} while (0)

static profdb_number f64(double v)
{
	profdb_number n;
	n.type = PROFDB_TYPE_F64;
	n.as.f64 = v;
	return n;
}

static char *number(profdb_number n, int json)
{
	char *s = NULL;
	CAPTURE(s, put_number(f, n, json));
	return s;
}

Test(tool_print, integers_exact)
{
	profdb_number n;
	n.type = PROFDB_TYPE_U64;
	n.as.u64 = UINT64_MAX;
	char *s = number(n, 1);
	cr_expect_str_eq(s, "18446744073709551615");
	free(s);
	n.type = PROFDB_TYPE_I64;
	n.as.i64 = INT64_MIN;
	s = number(n, 0);
	cr_expect_str_eq(s, "-9223372036854775808");
	free(s);
	n.type = PROFDB_TYPE_NONE;
	s = number(n, 1);
	cr_expect_str_eq(s, "null");
	free(s);
}

static double of_bits(uint64_t bits)
{
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

/* NaN prints its 64 bits (sign, payload, quiet or signalling), so the
 * stored double can be rebuilt from any output. */
Test(tool_print, nan_and_infinities)
{
	const struct {
		double v;
		const char *json, *text;
	} cases[] = {
		{of_bits(0x7ff8000000000000ULL), "\"nan(0x7ff8000000000000)\"", "nan(0x7ff8000000000000)"},
		{of_bits(0xfff8000000000000ULL), "\"nan(0xfff8000000000000)\"", "nan(0xfff8000000000000)"},
		{of_bits(0x7ff800000000beefULL), "\"nan(0x7ff800000000beef)\"", "nan(0x7ff800000000beef)"},
		{of_bits(0x7ff0000000000001ULL), "\"nan(0x7ff0000000000001)\"", "nan(0x7ff0000000000001)"},
		{of_bits(0xffffffffffffffffULL), "\"nan(0xffffffffffffffff)\"", "nan(0xffffffffffffffff)"},
		{INFINITY, "\"inf\"", "inf"}, {-INFINITY, "\"-inf\"", "-inf"},
		{-0.0, "-0.0", "-0"}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *s = number(f64(cases[i].v), 1);
		cr_expect_str_eq(s, cases[i].json);
		free(s);
		s = number(f64(cases[i].v), 0);
		cr_expect_str_eq(s, cases[i].text);
		free(s);
	}
}

/* %.17g reads back bit-for-bit; JSON keeps a '.' or exponent on floats. */
Test(tool_print, floats_round_trip)
{
	const double cases[] = {0.0, -0.0, 0.1, 1.0 / 3, 5.0, 6144.0, 1e300, -2.5e-308,
	                        4.9406564584124654e-324, 9007199254740993.0, 1.7976931348623157e308};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *s = number(f64(cases[i]), 1);
		double back = strtod(s, NULL);
		cr_expect(memcmp(&back, &cases[i], sizeof back) == 0, "%s does not read back as %a",
		          s, cases[i]);
		cr_expect(strpbrk(s, ".e") != NULL, "JSON float %s looks like an integer", s);
		free(s);
	}
	char *s = number(f64(5.0), 1);
	cr_expect_str_eq(s, "5.0");
	free(s);
	s = number(f64(5.0), 0);
	cr_expect_str_eq(s, "5");
	free(s);
	s = number(f64(-0.0), 1);
	cr_expect_str_eq(s, "-0.0");
	free(s);
}

static char *json_str(const char *bytes, size_t n)
{
	char *s = NULL;
	profdb_str v = {bytes, n};
	CAPTURE(s, put_json_str(f, v));
	return s;
}

Test(tool_print, json_strings_always_valid)
{
	char *s = json_str("a\"b\\c\n\t\001", 8);
	cr_expect_str_eq(s, "\"a\\\"b\\\\c\\n\\t\\u0001\"");
	free(s);
	/* An embedded NUL (the view has a length) and DEL. */
	s = json_str("x\0y\x7f", 4);
	cr_expect_str_eq(s, "\"x\\u0000y\\u007f\"");
	free(s);
	/* Valid UTF-8 passes through; invalid bytes become \u00XX. */
	s = json_str("\xc3\xa9\xe2\x82\xac", 5);
	cr_expect_str_eq(s, "\"\xc3\xa9\xe2\x82\xac\"");
	free(s);
	s = json_str("\xff\xc3(\xed\xa0\x80\xc0\xaf", 8);
	cr_expect_str_eq(s, "\"\\u00ff\\u00c3(\\u00ed\\u00a0\\u0080\\u00c0\\u00af\"");
	free(s);
	/* A sequence cut short by the end of the view. */
	s = json_str("\xe2\x82", 2);
	cr_expect_str_eq(s, "\"\\u00e2\\u0082\"");
	free(s);
}

Test(tool_print, csv_quoting)
{
	char *s = NULL;
	CAPTURE(s, put_csv_str(f, str_of("plain")));
	cr_expect_str_eq(s, "plain");
	free(s);
	CAPTURE(s, put_csv_str(f, str_of("f(a, b) \"x\"")));
	cr_expect_str_eq(s, "\"f(a, b) \"\"x\"\"\"");
	free(s);
	CAPTURE(s, put_csv_str(f, str_of("two\nlines")));
	cr_expect_str_eq(s, "\"two\nlines\"");
	free(s);
}

Test(tool_print, table_values)
{
	char *s = NULL;
	CAPTURE(s, put_table_value(f, 123456789012.0, 14));
	cr_expect_str_eq(s, "  123456789012");
	free(s);
	CAPTURE(s, put_table_value(f, 5.375, 6));
	cr_expect_str_eq(s, " 5.375");
	free(s);
	CAPTURE(s, put_table_value(f, 1e20, 0));
	cr_expect_str_eq(s, "1e+20");
	free(s);
	/* tables round: every NaN is "nan" (the C library would say "-nan") */
	CAPTURE(s, put_table_value(f, of_bits(0xfff8000000000000ULL), 5));
	cr_expect_str_eq(s, "  nan");
	free(s);
}

Test(tool_print, context_labels)
{
	profdb_context c;
	char buf[128];
	memset(&c, 0, sizeof c);
	c.function = str_of("");
	c.file = str_of("/src/dir/sample.c");
	c.module = str_of("/usr/lib/libm.so.6");
	c.type = PROFDB_CTX_ROOT;
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "<program root>");
	c.function = str_of("main thread");
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "<main thread>");
	c.type = PROFDB_CTX_FUNCTION;
	c.relation = PROFDB_RELATION_INLINED;
	c.function = str_of("helper");
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "[I] helper");
	c.relation = PROFDB_RELATION_CALL;
	c.function = str_of("");
	c.has_offset = 1;
	c.offset = 0x2000;
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "<unknown function> libm.so.6+0x2000");
	c.type = PROFDB_CTX_LOOP;
	c.line = 12;
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "loop at sample.c:12");
	c.type = PROFDB_CTX_LINE;
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "sample.c:12");
	c.type = PROFDB_CTX_INSTRUCTION;
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "libm.so.6+0x2000");
	/* Control bytes in names never reach the terminal. */
	c.type = PROFDB_CTX_FUNCTION;
	c.function = str_of("a\033[2Jb");
	context_label(&c, buf, sizeof buf);
	cr_expect_str_eq(buf, "a?[2Jb");
	/* Truncation stays NUL-terminated. */
	char small[8];
	c.function = str_of("a_very_long_function_name");
	context_label(&c, small, sizeof small);
	cr_expect_str_eq(small, "a_very_");
}

/* Line and instruction labels read as snprintf's "%.*s:%" PRIu64 and
 * "%.*s+0x%" PRIx64 would write them of the name as shown, cut at any
 * buffer size, with a NUL inside the name (a '?', the name whole) and
 * without a file or module. */
Test(tool_print, line_and_instruction_labels_at_every_size)
{
	static const char with_nul[] = "dir/a\0b.c";
	const profdb_str names[] = {str_of("/src/dir/sample.c"), {with_nul, sizeof with_nul - 1},
	                            str_of("")};
	const uint64_t nums[] = {0, 7, 12, 4294967296u, 0xdeadbeefu, UINT64_MAX};
	profdb_context c;
	char want[128], got[128];
	memset(&c, 0, sizeof c);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		for (size_t j = 0; j < sizeof nums / sizeof *nums; j++)
			for (int type = 0; type < 2; type++) {
				profdb_str base = names_base(names[i]);
				char t[32] = "?";
				int tl = base.len ? (int)base.len : 1;
				memcpy(t, base.ptr, base.len);
				names_show(t, base.len);
				c.type = type ? PROFDB_CTX_INSTRUCTION : PROFDB_CTX_LINE;
				c.file = c.module = names[i];
				c.has_offset = 1;
				c.line = c.offset = nums[j];
				for (size_t n = 0; n < 40; n++) {
					memset(want, 'x', sizeof want);
					memset(got, 'x', sizeof got);
					if (type)
						snprintf(want, n, "%.*s+0x%" PRIx64, tl, t, nums[j]);
					else
						snprintf(want, n, "%.*s:%" PRIu64, tl, t, nums[j]);
					context_label(&c, got, n);
					cr_assert(memcmp(want, got, sizeof want) == 0, "%zu %zu %d, %zu bytes: '%s'",
					          i, j, type, n, n ? got : "");
				}
			}
}

Test(tool_print, number_parsers)
{
	uint32_t u;
	uint64_t v;
	double d;
	cr_expect_eq(parse_u32("4294967295", &u), 0);
	cr_expect_eq(u, UINT32_MAX);
	cr_expect_eq(parse_u32("4294967296", &u), -1);
	cr_expect_eq(parse_u32("-1", &u), -1);
	cr_expect_eq(parse_u32(" 1", &u), -1);
	cr_expect_eq(parse_u32("1x", &u), -1);
	cr_expect_eq(parse_u32("", &u), -1);
	cr_expect_eq(parse_u64("18446744073709551615", &v), 0);
	cr_expect_eq(parse_u64("18446744073709551616", &v), -1);
	cr_expect_eq(parse_percent("2.5", &d), 0);
	cr_expect_eq(d, 2.5);
	cr_expect_eq(parse_percent("2,5", &d), -1);
	cr_expect_eq(parse_percent("101", &d), -1);
	cr_expect_eq(parse_percent("nan", &d), -1);
}
