/* Byte layouts of the binary parts of a .cubex archive, declared the way
 * lib/core/layout-internal.h says (record sizes and named offsets as enums,
 * one checked accessor per integer field): doc/FORMATS.md, "Cube4 .cubex"
 * → "The archive" (ustar headers) and "Index and data members"
 * (<id>.index, <id>.data).
 *
 * Index and data integers are in the writer's byte order: @p swap is 1
 * when the index's endianness marker reads 0x01000000 (a big-endian
 * writer), and then every integer and value of that metric is swapped. */
#ifndef PROFDB_CUBE_LAYOUT_INTERNAL_H
#define PROFDB_CUBE_LAYOUT_INTERNAL_H

#include <stdint.h>

#include "../core/layout-internal.h"

/* ---- ustar header (one 512-byte block) ------------------------------------------- */
enum {
	TAR_BLOCK = 512,
	TAR_NAME = 0, TAR_NAME_LEN = 100,
	TAR_SIZE = 124, TAR_SIZE_LEN = 12,      /* octal, or base-256 */
	TAR_CHKSUM = 148, TAR_CHKSUM_LEN = 8,
	TAR_TYPEFLAG = 156,
	TAR_MAGIC = 257, TAR_MAGIC_LEN = 5      /* "ustar" */
};
_Static_assert(TAR_NAME + TAR_NAME_LEN <= TAR_SIZE && TAR_SIZE + TAR_SIZE_LEN <= TAR_CHKSUM &&
               TAR_CHKSUM + TAR_CHKSUM_LEN <= TAR_TYPEFLAG &&
               TAR_MAGIC + TAR_MAGIC_LEN <= TAR_BLOCK, "ustar text fields in order, in the block");

/* ---- <id>.index --------------------------------------------------------------------- */
#define CUBE_INDEX_MAGIC "CUBEX.INDEX"
enum {
	CUBE_INDEX_MAGIC_LEN = 11,
	CUBE_INDEX_MARKER = 11,     /* u32, 1 in the writer's byte order */
	CUBE_INDEX_FORMAT = 17,     /* u8: 1 SPARSE, 2 BITVECTOR, 3 DENSE */
	CUBE_INDEX_HEADER = 18,     /* bytes before the SPARSE count */
	CUBE_INDEX_COUNT = 18,      /* SPARSE: u32 n */
	CUBE_INDEX_POSITIONS = 22,  /* SPARSE: n ascending u32 positions */
	CUBE_INDEX_SPARSE = 1, CUBE_INDEX_BITVECTOR = 2, CUBE_INDEX_DENSE = 3
};
/* The marker is read little-endian: 1 from a little-endian writer,
 * 0x01000000 from a big-endian one. */
PROFDB_FIELD_LE(cube_index_marker, CUBE_INDEX_HEADER, CUBE_INDEX_MARKER, 32)
PROFDB_FIELD_LE(cube_index_format, CUBE_INDEX_HEADER, CUBE_INDEX_FORMAT, 8)
PROFDB_FIELD_SWAP(cube_index_count, CUBE_INDEX_POSITIONS, CUBE_INDEX_COUNT, 32)
_Static_assert(CUBE_INDEX_POSITIONS == CUBE_INDEX_COUNT + 4, "SPARSE count is a u32");
enum { CUBE_POSITION = 4 };   /* one u32 position */
PROFDB_FIELD_SWAP(cube_position, CUBE_POSITION, 0, 32)

/* ---- <id>.data ---------------------------------------------------------------------- */
#define CUBE_DATA_MAGIC "CUBEX.DATA"
#define CUBE_ZDATA_MAGIC "ZCUBEX.DATA"
enum {
	CUBE_DATA_ROWS = 10,        /* CUBEX.DATA: rows follow the magic */
	CUBE_ZDATA_MAGIC_LEN = 11,
	CUBE_ZDATA_COUNT = 11,      /* ZCUBEX.DATA: u64 n */
	CUBE_ZDATA_TABLE = 19,      /* n entries */
	CUBE_ZENTRY_SIZE = 24       /* {u64 start_uncompressed, start_compressed, size} */
};
_Static_assert(CUBE_DATA_ROWS == sizeof CUBE_DATA_MAGIC - 1, "rows follow the magic");
_Static_assert(CUBE_ZDATA_MAGIC_LEN == sizeof CUBE_ZDATA_MAGIC - 1, "ZCUBEX magic");
_Static_assert(CUBE_ZDATA_TABLE == CUBE_ZDATA_COUNT + 8, "ZCUBEX count is a u64");
_Static_assert(CUBE_ZENTRY_SIZE == 3 * 8, "a ZCUBEX entry is three u64");

PROFDB_FIELD_SWAP(cube_zdata_count, CUBE_ZDATA_TABLE, CUBE_ZDATA_COUNT, 64)
/* A ZCUBEX entry (CUBE_ZENTRY_SIZE bytes). */
PROFDB_FIELD_SWAP(cube_zentry_start_uncompressed, CUBE_ZENTRY_SIZE, 0, 64)
PROFDB_FIELD_SWAP(cube_zentry_start_compressed, CUBE_ZENTRY_SIZE, 8, 64)
PROFDB_FIELD_SWAP(cube_zentry_size, CUBE_ZENTRY_SIZE, 16, 64)

/* Loads of the stored values of a metric's rows (not a layout: the row's
 * dtype says what each element is), in the writer's byte order. */
static inline uint32_t cube_ld32(const unsigned char *p, int swap)
{
	return swap ? profdb__be32(p) : profdb__le32(p);
}

static inline uint64_t cube_ld64(const unsigned char *p, int swap)
{
	return swap ? profdb__be64(p) : profdb__le64(p);
}

#endif
