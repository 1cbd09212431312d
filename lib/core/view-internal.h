/* The lower-bound search behind every profdb_view search (view.c), one
 * instantiation per key size and byte order. Inline here so that the
 * point-lookup paths (HPCToolkit planes) search a view of a known layout
 * without a call or a key-type switch; everything else goes through
 * profdb_view_find/seek/in_effect/window. */
#ifndef PROFDB_CORE_VIEW_INTERNAL_H
#define PROFDB_CORE_VIEW_INTERNAL_H

#include <stdint.h>

#include "bytes-internal.h"

/* The first of @p count records of @p stride bytes from @p base (pointing at
 * the key of record 0) whose key is >= @p key; @p count when none is. */
#define PROFDB__LOWER_BOUND(name, load)                                                  \
	static inline uint64_t name(const unsigned char *base, uint64_t count, uint32_t stride, \
	                            uint64_t key)                                               \
	{                                                                                      \
		uint64_t lo = 0, n = count;                                                    \
		while (n > 0) {                                                                \
			uint64_t half = n / 2;                                                 \
			if ((uint64_t)load(base + (lo + half) * stride) < key) {               \
				lo += half + 1;                                                \
				n -= half + 1;                                                 \
			} else {                                                               \
				n = half;                                                      \
			}                                                                      \
		}                                                                              \
		return lo;                                                                     \
	}

PROFDB__LOWER_BOUND(profdb__lb_le16, profdb__le16)
PROFDB__LOWER_BOUND(profdb__lb_le32, profdb__le32)
PROFDB__LOWER_BOUND(profdb__lb_le64, profdb__le64)
PROFDB__LOWER_BOUND(profdb__lb_be16, profdb__be16)
PROFDB__LOWER_BOUND(profdb__lb_be32, profdb__be32)
PROFDB__LOWER_BOUND(profdb__lb_be64, profdb__be64)

#endif
