/* The number formatter of lib/core/dtoa.c: shortest round-trip doubles
 * and integers. strtod and printf are the references: every double must
 * read back bit for bit, with no more digits than the shortest "%.*e"
 * that reads back, and with those same digits when the interval around
 * the double is symmetric (at a power of two the lower gap is half as wide
 * and a farther decimal may be the only one of that length inside it). */
#include <criterion/criterion.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/dtoa-internal.h"
#include "profdb-config.h"

static double of_bits(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static uint64_t bits_of(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

static const char *fmt(double v, char buf[PROFDB__NUMBER_MAX + 1])
{
	size_t n = profdb__fmt_double(buf, v);
	cr_assert(n > 0 && n <= PROFDB__NUMBER_MAX - 8, "length %zu for %a", n, v);
	buf[n] = 0;
	return buf;
}

/* 1 when the text reads back as exactly @p v (every bit, -0 included). */
static int reads_back(const char *s, double v)
{
	char *end;
	errno = 0;
	double back = strtod(s, &end);
	return *end == 0 && bits_of(back) == bits_of(v);
}

Test(dtoa, exact_text)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{0.0, "0"}, {-0.0, "-0"}, {1.0, "1"}, {-5.0, "-5"}, {0.1, "0.1"}, {0.3, "0.3"},
		{1.0 / 3, "0.3333333333333333"}, {2.0 / 3, "0.6666666666666666"},
		{481.372716139, "481.372716139"}, {6144.0, "6144"}, {1e16, "10000000000000000"},
		{1e17, "1e+17"}, {1.5e17, "1.5e+17"}, {1e20, "1e+20"}, {1e23, "1e+23"},
		{123456789012345678.0, "1.2345678901234568e+17"},
		{9223372036854775808.0, "9.223372036854776e+18"},
		{9007199254740993.0, "9007199254740992"}, {9007199254740991.0, "9007199254740991"},
		{0.0001, "0.0001"}, {0.00012345, "0.00012345"}, {1e-5, "1e-05"}, {1.5e-5, "1.5e-05"},
		{5e-324, "5e-324"}, {-5e-324, "-5e-324"}, {DBL_MIN, "2.2250738585072014e-308"},
		{DBL_MAX, "1.7976931348623157e+308"}, {-DBL_MAX, "-1.7976931348623157e+308"},
		{1e300, "1e+300"}, {1e-300, "1e-300"}, {2.5, "2.5"}, {0.5, "0.5"},
		{4.35, "4.35"}, {1e15 + 0.25, "1000000000000000.2"}, {HUGE_VAL, "inf"},
		{-HUGE_VAL, "-inf"}, {NAN, "nan"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char buf[PROFDB__NUMBER_MAX + 1];
		cr_expect_str_eq(fmt(cases[i].v, buf), cases[i].text, "%a", cases[i].v);
	}
	/* NaN payloads and signs are the tool's to print (nan(0x...)); the
	 * formatter says "nan" for every one of them */
	char buf[PROFDB__NUMBER_MAX + 1];
	cr_expect_str_eq(fmt(of_bits(0xfff800000000beefULL), buf), "nan");
	cr_expect_str_eq(fmt(of_bits(0x7ff0000000000001ULL), buf), "nan");
}

/* Every denormal exponent, the powers of two and ten, their neighbours. */
Test(dtoa, boundaries_round_trip)
{
	char buf[PROFDB__NUMBER_MAX + 1];
	long n = 0;
	for (int e = 0; e < 2047; e++) {
		for (int k = -2; k <= 2; k++) {
			uint64_t b = ((uint64_t)e << 52) + (uint64_t)(int64_t)k;
			if (k < 0 && e == 0)
				continue;
			for (int sign = 0; sign < 2; sign++) {
				double v = of_bits(b | (uint64_t)sign << 63);
				if (!isfinite(v))
					continue;
				cr_assert(reads_back(fmt(v, buf), v), "%s is not %a", buf, v);
				n++;
			}
		}
	}
	for (int e = -323; e <= 308; e++) {
		double v = strtod("1e0", NULL) * pow(10, e);
		for (int k = -1; k <= 1; k++) {
			double w = of_bits(bits_of(v) + (uint64_t)(int64_t)k);
			if (isfinite(w) && w > 0) {
				cr_assert(reads_back(fmt(w, buf), w), "%s is not %a", buf, w);
				n++;
			}
		}
	}
	cr_log_info("%ld boundary doubles read back", n);
}

/* Random bit patterns, weighted towards denormals and short mantissas. */
static double random_double(tc_rng *r, long i)
{
	uint64_t b = tc_rand(r);
	if (i % 4 == 1)
		b &= 0x800fffffffffffffULL;                       /* denormal */
	else if (i % 4 == 2)
		b = (b & 0xfff0000000000000ULL) | (tc_rand(r) & 0xff);   /* few bits */
	else if (i % 4 == 3)
		b = (b & 0x800fffffffffffffULL) | (uint64_t)(1023 + tc_below(r, 80)) << 52;
	return of_bits(b);
}

Test(dtoa, random_bits_read_back)
{
	tc_rng r = {20};
	char buf[PROFDB__NUMBER_MAX + 1];
	long n = 0;
	for (long i = 0; i < 2000000; i++) {
		double v = random_double(&r, i);
		if (!isfinite(v))
			continue;
		cr_assert(reads_back(fmt(v, buf), v), "%s is not %a", buf, v);
		n++;
	}
	cr_log_info("%ld random doubles read back", n);
}

/* The digits of a "%.*e" text without trailing zeros, and its exponent
 * as digits x 10^exp. */
static void digits_of(const char *s, char *dig, int *exp10)
{
	int k = 0;
	const char *e = strchr(s, 'e');
	for (const char *p = s; p < e; p++)
		if (*p >= '0' && *p <= '9')
			dig[k++] = *p;
	while (k > 1 && dig[k - 1] == '0')
		k--;
	dig[k] = 0;
	*exp10 = atoi(e + 1) - (k - 1);
}

Test(dtoa, shortest_and_closest)
{
	tc_rng r = {21};
	long same_as_17g = 0;
	for (long i = 0; i < 60000; i++) {
		double v = fabs(random_double(&r, i));
		if (!isfinite(v) || v == 0)
			continue;
		char ref[64];
		int p;
		for (p = 1; p <= 17; p++) {
			snprintf(ref, sizeof ref, "%.*e", p - 1, v);
			if (strtod(ref, NULL) == v)
				break;
		}
		uint64_t d;
		int e;
		profdb__shortest(v, &d, &e);
		char mine[24], want[24];
		int n = snprintf(mine, sizeof mine, "%" PRIu64, d), want_e;
		cr_assert(d % 10 != 0, "%a: trailing zero in %s", v, mine);
		cr_assert(n <= p, "%a: %d digits (%s), %.*e has %d", v, n, mine, p - 1, v, p);
		digits_of(ref, want, &want_e);
		if (n == p && (bits_of(v) & 0xfffffffffffffULL))
			cr_assert(strcmp(mine, want) == 0 && e == want_e, "%a: %se%d, printf %s", v,
			          mine, e, ref);
		if (n == 17) {
			/* all 17 digits needed: the text is "%.17g"'s */
			char buf[PROFDB__NUMBER_MAX + 1], g[40];
			snprintf(g, sizeof g, "%.17g", v);
			cr_assert_str_eq(fmt(v, buf), g);
			same_as_17g++;
		}
	}
	cr_expect(same_as_17g > 1000, "only %ld doubles needed 17 digits", same_as_17g);
}

Test(dtoa, integers)
{
	static const uint64_t u[] = {0, 1, 9, 10, 99, 100, 12345, 4294967295u, 4294967296u,
	                             10000000000000000000u, UINT64_MAX};
	static const int64_t s[] = {0, -1, 1, INT64_MAX, INT64_MIN, -1000000007};
	char buf[PROFDB__NUMBER_MAX + 1], want[32];
	for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
		buf[profdb__fmt_u64(buf, u[i])] = 0;
		snprintf(want, sizeof want, "%" PRIu64, u[i]);
		cr_expect_str_eq(buf, want);
	}
	for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
		buf[profdb__fmt_i64(buf, s[i])] = 0;
		snprintf(want, sizeof want, "%" PRId64, s[i]);
		cr_expect_str_eq(buf, want);
	}
	tc_rng r = {22};
	for (int i = 0; i < 100000; i++) {
		uint64_t v = tc_rand(&r) >> tc_below(&r, 64);
		buf[profdb__fmt_i64(buf, (int64_t)v)] = 0;
		snprintf(want, sizeof want, "%" PRId64, (int64_t)v);
		cr_assert_str_eq(buf, want);
	}
}

/* ---- every value of every real sample ------------------------------------- */
/* (Callgrind stores only integers: no doubles to check there.) */

static int unreadable;
static uint64_t n_checked;

static int check_sample(const char *path)
{
	profdb *db;
	profdb_values *it;
	profdb_entry e;
	int r = profdb_open(&db, path, NULL);
	if (r < 0) {
		unreadable += r == -ENOTSUP;
		cr_log_info("%s: does not open (%s)", path, profdb_error_message());
		return 0;
	}
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0, "%s: %s", path,
	             profdb_error_message());
	uint64_t n = 0;
	char buf[PROFDB__NUMBER_MAX + 1];
	while ((r = profdb_values_next(it, &e)) > 0) {
		if (e.value.type != PROFDB_TYPE_F64 || !isfinite(e.value.as.f64))
			continue;
		double v = e.value.as.f64;
		cr_assert(reads_back(fmt(v, buf), v), "%s: %s is not %a", path, buf, v);
		n++;
	}
	cr_assert_geq(r, 0, "%s: %s", path, profdb_error_message());
	profdb_values_free(it);
	profdb_close(db);
	n_checked += n;
	cr_log_info("%s: %" PRIu64 " doubles read back", path, n);
	return 1;
}

static void check_dirs(const char *rel) { tc_check_samples(rel, 1, check_sample, &unreadable); }

Test(dtoa_real, hpctoolkit_v4) { check_dirs("hpctoolkit/v4"); }
Test(dtoa_real, hpctoolkit_devstage) { check_dirs("hpctoolkit/v4-devstage"); }
Test(dtoa_real, hpctoolkit_prerelease) { check_dirs("hpctoolkit/prerelease"); }
Test(dtoa_real, hpcrun) { check_dirs("hpctoolkit/hpcrun"); }
#ifdef PROFDB_HAVE_CUBE
Test(dtoa_real, cube) { check_dirs("cube"); }
#endif

TC_MAIN
