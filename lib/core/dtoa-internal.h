/* Numbers as text without printf: the shortest decimal that reads back
 * bit for bit, and integers.
 *
 * profdb__fmt_double() writes the fewest significant digits d such that
 * strtod(d) returns exactly the same double, and among those the one
 * closest to the exact binary value (ties to an even last digit). The
 * layout is that of printf's "%.17g" with those digits: plain notation
 * when the decimal exponent X (of d.ddd x 10^X) is in -4..16, otherwise
 * "d.ddde+XX" with at least two exponent digits; no trailing zeros after
 * a point; "-0" for negative zero. So wherever "%.17g" already printed the
 * shortest digits, the text is the same. The method is Ryu's (Adams,
 * PLDI 2018): the interval of decimals that round to the double, scaled by
 * a 125-bit power of five (dtoa-table-internal.h), narrowed a digit at a
 * time.
 *
 * Plain C on the caller's buffer: no locale, no allocation, no shared
 * state, so any thread may call them. This header needs nothing from the
 * library, so the command-line tool compiles dtoa.c into itself too. */
#ifndef PROFDB_CORE_DTOA_H
#define PROFDB_CORE_DTOA_H

#include <stddef.h>
#include <stdint.h>

/* Longest text of any of the formatters, without a terminating NUL:
 * "-2.2250738585072014e-308" is 24 characters. */
#define PROFDB__NUMBER_MAX 32

/* The shortest round-trip digits of a finite, non-zero |v|:
 * |v| == *digits x 10^*exp10 after strtod, with *digits free of trailing
 * zeros (1 to 17 digits). For 0 or a non-finite @p v: *digits = 0,
 * *exp10 = 0. */
void profdb__shortest(double v, uint64_t *digits, int *exp10);

/* Writes @p v into @p buf (at least PROFDB__NUMBER_MAX bytes, not
 * NUL-terminated); returns the length. Infinities are "inf" and "-inf",
 * every NaN "nan": callers that must keep a NaN's bits print them
 * themselves. */
size_t profdb__fmt_double(char *buf, double v);

/* Decimal integers; same buffer rule, return the length. */
size_t profdb__fmt_u64(char *buf, uint64_t v);
size_t profdb__fmt_i64(char *buf, int64_t v);

#endif /* PROFDB_CORE_DTOA_H */
