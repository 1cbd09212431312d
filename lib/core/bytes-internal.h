/* Unaligned little- and big-endian loads. Every field of every input is read
 * through these: memcpy never faults on alignment and never lets the compiler
 * assume a struct layout onto untrusted bytes. And the stores the writers
 * share: a little-endian word, and the one LEB128 store, which the pprof
 * writer and the Callgrind call-cost record share. */
#ifndef PROFDB_CORE_BYTES_H
#define PROFDB_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t profdb__le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t profdb__le32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t profdb__le64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The store beside the loads, for the writers of little-endian fields
 * (the gzip stream's bit buffer and trailer). */
static inline void profdb__put_le32(unsigned char *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}

static inline uint16_t profdb__be16(const unsigned char *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t profdb__be32(const unsigned char *p)
{
	return __builtin_bswap32(profdb__le32(p));
}

static inline uint64_t profdb__be64(const unsigned char *p)
{
	return __builtin_bswap64(profdb__le64(p));
}

/* A double from its stored bit pattern, unchanged (NaN payloads, -0.0,
 * denormals): the bits are moved, never converted. */
static inline double profdb__f64_bits(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

/* @p v as unsigned LEB128 (protobuf's varint: 7 bits a byte, the low bits
 * first) at @p out, which has room for 10 bytes; the bytes written. */
static inline size_t profdb__leb128_put(unsigned char *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

#endif
