/* The table formatters (tool/format.c): fmt_percent writes what printf's
 * "%6.2f%%  " writes, for values spread over its whole range (from 0),
 * the halfway cases (ties to even) and their neighbours; a line put
 * together in pieces comes out as written. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../tool/format.h"

static void same_as_printf(double p)
{
	char want[64], got[16];
	snprintf(want, sizeof want, "%6.2f%%  ", p);
	size_t n = fmt_percent(got, p);
	cr_assert(n == strlen(want) && memcmp(got, want, n) == 0, "%.17g: '%.*s', not '%s'", p,
	          (int)n, got, want);
}

Test(tool_format, percent_is_printfs)
{
	uint64_t s = 1;
	for (int i = 0; i < 200000; i++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		/* log-uniform over 1e-6 .. 1e9 */
		double p = 1e-6 * pow(10, 15.0 * (double)(s >> 11) / 9007199254740992.0);
		if (p < 1e9)
			same_as_printf(p);
	}
	/* halfway between two hundredths: exact in binary for these */
	for (int k = 1; k < 4000; k += 2) {
		double p = k / 8.0;   /* x.125, x.375, ...: ties at the third decimal */
		same_as_printf(p);
		same_as_printf(nextafter(p, 0));
		same_as_printf(nextafter(p, INFINITY));
		same_as_printf(k / 200.0);   /* near ties that are not exact */
	}
	const double edge[] = {0, 1e-300, 4.9e-324, 0.000999, 0.001, 0.005, 0.00499999, 0.995,
	                       9.995, 99.995, 99.9949999, 100, 999999.995, 123456789.125,
	                       nextafter(1e9, 0), 1, 0.5, 0.25};
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
		same_as_printf(edge[i]);
}

Test(tool_format, percent_leaves_the_rest_to_printf)
{
	char buf[16];
	const double out[] = {-0.0, -1e-300, -1, 1e9, 1e300, INFINITY, -INFINITY, NAN};
	for (size_t i = 0; i < sizeof out / sizeof *out; i++)
		cr_assert_eq(fmt_percent(buf, out[i]), 0, "%g", out[i]);
}

static void redirect(void)
{
	cr_redirect_stdout();
}

/* A line put together in pieces comes out whole and in order: past the
 * buffer's end, with a piece longer than the buffer, cells padded on
 * either side, a percentage left to printf. */
Test(tool_format, a_line_comes_out_whole, .init = redirect)
{
	static char want[20000], big[10000];
	size_t n = 0;
	fmt_line l;
	l.n = 0;
	memset(big, 'z', sizeof big - 1);
	for (int i = 0; i < 3000; i++) {   /* 6000 bytes: the buffer fills */
		fmt_line_put(&l, "ab", 2);
		n += (size_t)sprintf(want + n, "ab");
	}
	fmt_line_put(&l, big, strlen(big));
	n += (size_t)sprintf(want + n, "%s", big);
	fmt_line_cell(&l, "12", 5);
	fmt_line_cell(&l, "x", -3);
	fmt_line_cell(&l, "toolong", 3);
	n += (size_t)sprintf(want + n, "   12x  toolong");
	fmt_line_percent(&l, 12.5);
	fmt_line_percent(&l, -3.0);
	n += (size_t)sprintf(want + n, "%6.2f%%  %6.2f%%  ", 12.5, -3.0);
	fmt_line_flush(&l);
	fflush(stdout);
	cr_assert_eq(n, strlen(want));
	cr_assert_stdout_eq_str(want);
}

/* A column is one character: a UTF-8 sequence, or a byte that belongs to
 * none (a terminal shows one replacement character for it). So a name of
 * stray bytes is shortened like any other, its end kept, in at most four
 * bytes a column. */
Test(tool_format, a_stray_byte_is_a_column)
{
	cr_assert_eq(fmt_width("a\x80\x80z"), 4);
	cr_assert_eq(fmt_width("\xc3\xa4\xf0\x9d\x94\xa2"), 2);   /* ä and a 4-byte character */
	cr_assert_eq(fmt_width("\xe2\x82z"), 3);                  /* a sequence cut short */
	cr_assert_eq(fmt_width("\xff\xc0\x80"), 3);
	static char name[3010], out[1024];
	name[0] = 'f';
	memset(name + 1, 0x80, 3000);
	strcpy(name + 3001, "_end");
	fmt_shorten(name, 40, out, sizeof out);
	size_t n = strlen(out);
	cr_assert(fmt_width(out) <= 40 && n <= 160, "%zu columns, %zu bytes", fmt_width(out), n);
	cr_assert(n >= 4 && strcmp(out + n - 4, "_end") == 0, "the end is lost");
}
