/* The one way a binary format declares its on-disk records (doc/FORMATS.md,
 * "How layouts are declared"): per record, an enum of its size (and of any
 * offset a view or a message needs by name), and per fixed field one
 * accessor declared by a PROFDB_FIELD_* macro, which checks at compile time
 * that the field lies inside its record and reads it through the memcpy
 * loads of bytes-internal.h (no struct is ever laid over untrusted bytes).
 *
 * An accessor takes a pointer to the first byte of a record that the caller
 * has range-checked (profdb__range, profdb__span), normally for the record's
 * size and at least to the end of the field; it never checks bounds
 * itself. */
#ifndef PROFDB_CORE_LAYOUT_H
#define PROFDB_CORE_LAYOUT_H

#include <stdint.h>

#include "bytes-internal.h"

#define PROFDB__LOAD_LE8(p) (*(p))
#define PROFDB__LOAD_LE16(p) profdb__le16(p)
#define PROFDB__LOAD_LE32(p) profdb__le32(p)
#define PROFDB__LOAD_LE64(p) profdb__le64(p)
#define PROFDB__LOAD_BE8(p) (*(p))
#define PROFDB__LOAD_BE16(p) profdb__be16(p)
#define PROFDB__LOAD_BE32(p) profdb__be32(p)
#define PROFDB__LOAD_BE64(p) profdb__be64(p)

/* The compile-time check of one field: @p bits wide at @p off of a record
 * of @p size bytes. */
#define PROFDB_FIELD_CHECK(name, size, off, bits) \
	_Static_assert((off) + (bits) / 8 <= (size), #name " lies outside its record")

/* NAME(p): the @p bits-wide unsigned field at @p off of a record of @p size
 * bytes, in byte order @p order (LE or BE). */
#define PROFDB_FIELD(name, size, off, bits, order)                           \
	PROFDB_FIELD_CHECK(name, size, off, bits);                           \
	static inline uint##bits##_t name(const unsigned char *p)           \
	{                                                                   \
		return (uint##bits##_t)PROFDB__LOAD_##order##bits(p + (off)); \
	}
#define PROFDB_FIELD_LE(name, size, off, bits) PROFDB_FIELD(name, size, off, bits, LE)
#define PROFDB_FIELD_BE(name, size, off, bits) PROFDB_FIELD(name, size, off, bits, BE)

/* NAME(p, swap): as PROFDB_FIELD, for formats stored in their writer's byte
 * order: little-endian, or big-endian when @p swap is 1. */
#define PROFDB_FIELD_SWAP(name, size, off, bits)                              \
	PROFDB_FIELD_CHECK(name, size, off, bits);                            \
	static inline uint##bits##_t name(const unsigned char *p, int swap)  \
	{                                                                    \
		return swap ? (uint##bits##_t)PROFDB__LOAD_BE##bits(p + (off)) \
		            : (uint##bits##_t)PROFDB__LOAD_LE##bits(p + (off)); \
	}

#endif
