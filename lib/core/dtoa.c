/* Shortest round-trip doubles and integers as text (dtoa-internal.h says
 * what comes out; this file says how).
 *
 * A finite double is m2 x 2^e2. Every decimal strictly inside (or, when
 * m2 is even, also on the ends of) the interval halfway to its two
 * neighbours reads back as the same double. With the interval's ends and
 * the value all multiplied by 4 (so that the halves are integers) and
 * scaled by 10^-q for a q chosen so the results fit 64 bits, the shortest
 * decimal is found by dropping digits of the three scaled numbers while
 * the ends still differ. The scaling multiplies by 5^q or 5^-q (the
 * factor of two is a shift), kept as 125-bit fixed-point numbers whose
 * precision is enough for the truncated products to be exact in the
 * digits that matter (Ryu's theorem); where a truncated product might end
 * in zeros that decide the rounding, the exact test is done on m2. */
#include <string.h>

#include "dtoa-internal.h"
#include "dtoa-table-internal.h"

#define MANTISSA_BITS 52
#define EXPONENT_BIAS 1023

/* floor(log10(2^e)) for 0 <= e <= 1650. */
static uint32_t log10_pow2(int32_t e) { return (uint32_t)((e * 78913) >> 18); }
/* floor(log10(5^e)) for 0 <= e <= 2620. */
static uint32_t log10_pow5(int32_t e) { return (uint32_t)((e * 732923) >> 20); }
/* The bit length of 5^e (1 for e = 0), for 0 <= e <= 3528. */
static int32_t pow5_bits(int32_t e) { return (int32_t)(((uint32_t)e * 1217359) >> 19) + 1; }

static uint32_t pow5_factor(uint64_t v)
{
	uint32_t n = 0;
	while (v % 5 == 0) {
		v /= 5;
		n++;
	}
	return n;
}

static int multiple_of_pow5(uint64_t v, uint32_t p) { return pow5_factor(v) >= p; }
static int multiple_of_pow2(uint64_t v, uint32_t p) { return (v & ((1ull << p) - 1)) == 0; }

/* The high 64 bits of a x b, and the low ones in *lo. */
static uint64_t mul_hi(uint64_t a, uint64_t b, uint64_t *lo)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	u128 p = (u128)a * b;
	*lo = (uint64_t)p;
	return (uint64_t)(p >> 64);
#else
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	*lo = (mid << 32) | (ll & 0xffffffffu);
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* (m x mul) >> j for a 125-bit mul {low, high} and 64 <= j < 128+64;
 * m < 2^55, so the product fits 180 bits. */
static uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int32_t j)
{
	uint64_t lo0, lo1;
	uint64_t hi0 = mul_hi(m, mul[0], &lo0);
	uint64_t hi1 = mul_hi(m, mul[1], &lo1);
	uint64_t mid = hi0 + lo1;           /* bits 64..127 of the product */
	hi1 += mid < hi0;                   /* bits 128..191 */
	int32_t s = j - 64;
	if (s == 0)
		return mid;
	if (s < 64)
		return (hi1 << (64 - s)) | (mid >> s);
	return hi1 >> (s - 64);
}

typedef struct scaled {
	uint64_t vr, vp, vm;     /* the value and the interval's ends, x 10^-e10 */
	int32_t e10;
	int vm_zeros, vr_zeros;  /* what was dropped from vm (vr) was all zeros */
} scaled;

/* Step 1-3: the value and its interval, scaled to 64-bit integers. */
static void scale(uint64_t m2, int32_t e2, uint32_t mm_shift, int accept, scaled *s)
{
	uint64_t mv = 4 * m2;
	s->vm_zeros = s->vr_zeros = 0;
	if (e2 >= 0) {
		uint32_t q = log10_pow2(e2) - (e2 > 3);
		int32_t k = PROFDB__POW5_INV_BITS + pow5_bits((int32_t)q) - 1;
		int32_t i = -e2 + (int32_t)q + k;
		s->e10 = (int32_t)q;
		s->vr = mul_shift(4 * m2, profdb__pow5_inv[q], i);
		s->vp = mul_shift(4 * m2 + 2, profdb__pow5_inv[q], i);
		s->vm = mul_shift(4 * m2 - 1 - mm_shift, profdb__pow5_inv[q], i);
		if (q <= 21) {
			/* At most one of mv - 1 - mm_shift, mv, mv + 2 is a multiple of 5. */
			if (mv % 5 == 0)
				s->vr_zeros = multiple_of_pow5(mv, q);
			else if (accept)
				s->vm_zeros = multiple_of_pow5(mv - 1 - mm_shift, q);
			else
				s->vp -= (uint64_t)multiple_of_pow5(mv + 2, q);
		}
	} else {
		uint32_t q = log10_pow5(-e2) - (-e2 > 1);
		int32_t i = -e2 - (int32_t)q;
		int32_t k = pow5_bits(i) - PROFDB__POW5_BITS;
		int32_t j = (int32_t)q - k;
		s->e10 = (int32_t)q + e2;
		s->vr = mul_shift(4 * m2, profdb__pow5[i], j);
		s->vp = mul_shift(4 * m2 + 2, profdb__pow5[i], j);
		s->vm = mul_shift(4 * m2 - 1 - mm_shift, profdb__pow5[i], j);
		if (q <= 1) {
			/* mv has at least q trailing zero bits, and vr's digits are exact */
			s->vr_zeros = 1;
			if (accept)
				s->vm_zeros = mm_shift == 1;
			else
				s->vp--;
		} else if (q < 63) {
			s->vr_zeros = multiple_of_pow2(mv, q);
		}
	}
}

/* Step 4: drop digits while the interval's ends still differ; round. */
static uint64_t shorten(scaled *s, int accept, int32_t *removed)
{
	uint64_t vr = s->vr, vp = s->vp, vm = s->vm;
	int32_t n = 0;
	unsigned last = 0;
	if (s->vm_zeros || s->vr_zeros) {
		/* The rare exact cases: ends that are themselves representable,
		 * and ties that round to even. */
		int vmz = s->vm_zeros, vrz = s->vr_zeros;
		while (vp / 10 > vm / 10) {
			vmz &= vm % 10 == 0;
			vrz &= last == 0;
			last = (unsigned)(vr % 10);
			vr /= 10, vp /= 10, vm /= 10, n++;
		}
		if (vmz) {
			while (vm % 10 == 0) {
				vrz &= last == 0;
				last = (unsigned)(vr % 10);
				vr /= 10, vp /= 10, vm /= 10, n++;
			}
		}
		if (vrz && last == 5 && vr % 2 == 0)
			last = 4;   /* exactly halfway: round to even */
		*removed = n;
		return vr + ((vr == vm && (!accept || !vmz)) || last >= 5);
	}
	/* The common case: two digits at a time first. */
	int round_up = 0;
	if (vp / 100 > vm / 100) {
		round_up = vr % 100 >= 50;
		vr /= 100, vp /= 100, vm /= 100, n += 2;
	}
	while (vp / 10 > vm / 10) {
		round_up = vr % 10 >= 5;
		vr /= 10, vp /= 10, vm /= 10, n++;
	}
	*removed = n;
	return vr + (vr == vm || round_up);
}

void profdb__shortest(double v, uint64_t *digits, int *exp10)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	uint64_t mant = bits & ((1ull << MANTISSA_BITS) - 1);
	uint32_t bexp = (uint32_t)(bits >> MANTISSA_BITS) & 0x7ff;
	*digits = 0;
	*exp10 = 0;
	if (bexp == 0x7ff || (bexp == 0 && mant == 0))
		return;
	uint64_t m2 = bexp ? mant | 1ull << MANTISSA_BITS : mant;
	int32_t e2 = (int32_t)(bexp ? bexp : 1) - EXPONENT_BIAS - MANTISSA_BITS - 2;
	/* Integers below 2^53 are their own shortest digits. */
	if (bexp && e2 + 2 <= 0 && e2 + 2 > -MANTISSA_BITS - 1) {
		uint64_t mask = (1ull << -(e2 + 2)) - 1;
		if ((m2 & mask) == 0) {
			uint64_t d = m2 >> -(e2 + 2);
			int e = 0;
			while (d % 10 == 0)
				d /= 10, e++;
			*digits = d;
			*exp10 = e;
			return;
		}
	}
	int accept = (m2 & 1) == 0;
	/* The gap below is half as wide at a power of two (except the smallest). */
	uint32_t mm_shift = mant != 0 || bexp <= 1;
	scaled s;
	int32_t removed;
	scale(m2, e2, mm_shift, accept, &s);
	uint64_t d = shorten(&s, accept, &removed);
	int32_t e = s.e10 + removed;
	while (d % 10 == 0)   /* only after rounding up to 10^k */
		d /= 10, e++;
	*digits = d;
	*exp10 = e;
}

/* "00".."99", so integers take one division per two digits. */
static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The decimal digits of @p v, ending just before @p end; returns the start. */
static char *digits_before(char *end, uint64_t v)
{
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		end -= 2;
		memcpy(end, two_digits + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, two_digits + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* The digits are written in place, from the end the count gives: no copy
 * of a variable length (a library call) per number. */
size_t profdb__fmt_u64(char *buf, uint64_t v)
{
	size_t n = 1;
	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	digits_before(buf + n, v);
	return n;
}

size_t profdb__fmt_i64(char *buf, int64_t v)
{
	if (v >= 0)
		return profdb__fmt_u64(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + profdb__fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
}

/* d.ddd x 10^x as "%.17g" lays it out; @p dig holds @p n digits. */
static size_t layout(char *out, const char *dig, int n, int x)
{
	char *p = out;
	if (x < -4 || x >= 17) {
		*p++ = dig[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, dig + 1, (size_t)n - 1);
			p += n - 1;
		}
		*p++ = 'e';
		*p++ = x < 0 ? '-' : '+';
		unsigned ax = (unsigned)(x < 0 ? -x : x);
		if (ax < 10)
			*p++ = '0';
		p += profdb__fmt_u64(p, ax);
	} else if (x < 0) {
		memcpy(p, "0.0000", (size_t)(1 - x));   /* "0." and -x-1 zeros */
		p += 1 - x;
		memcpy(p, dig, (size_t)n);
		p += n;
	} else if (x >= n - 1) {
		memcpy(p, dig, (size_t)n);
		p += n;
		memset(p, '0', (size_t)(x - n + 1));
		p += x - n + 1;
	} else {
		memcpy(p, dig, (size_t)x + 1);
		p += x + 1;
		*p++ = '.';
		memcpy(p, dig + x + 1, (size_t)(n - x - 1));
		p += n - x - 1;
	}
	return (size_t)(p - out);
}

size_t profdb__fmt_double(char *buf, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	size_t neg = bits >> 63;
	if (((bits >> MANTISSA_BITS) & 0x7ff) == 0x7ff) {
		if (bits & ((1ull << MANTISSA_BITS) - 1)) {
			memcpy(buf, "nan", 3);
			return 3;
		}
		memcpy(buf, &"-inf"[!neg], 4 - !neg);
		return 4 - !neg;
	}
	buf[0] = '-';
	uint64_t d;
	int e;
	profdb__shortest(v, &d, &e);
	if (d == 0) {
		buf[neg] = '0';
		return neg + 1;
	}
	char tmp[20];
	char *first = digits_before(tmp + sizeof tmp, d);
	int n = (int)(tmp + sizeof tmp - first);
	return neg + layout(buf + neg, first, n, e + n - 1);
}
