/* The fixed-size records of .hpcrun files, declared the way
 * lib/core/layout-internal.h says: record sizes as enums, one checked
 * accessor per field. doc/FORMATS.md, "hpcrun and hpctrace" (sections
 * "02.00 and 03.00", "04.00", "Metric flags") is the source; every integer
 * is big-endian except the partner of the raw metric flags. The .hpctrace
 * records are lib/core/hpctrace-internal.h's, shared with lib/hpctkpre.
 *
 * The accessors take a pointer to the first byte of a record that the
 * caller has range-checked (profdb__range or a hr_cur) for the record's
 * size; they never check bounds themselves. Variable-length parts
 * (strings, name/value pairs, the load map's names) are read through the
 * bounded cursor of read.c instead. */
#ifndef PROFDB_HPCRUN_LAYOUT_INTERNAL_H
#define PROFDB_HPCRUN_LAYOUT_INTERNAL_H

#include <stdint.h>

#include "../core/layout-internal.h"

#define HR_FIELD(name, size, off, bits) PROFDB_FIELD_BE(name, size, off, bits)

/* ---- file header (both kinds): magic[18] "MM.mm" 'b' ------------------- */
enum {
	HR_HDR_MAGIC = 0,         /* "HPCRUN-profile____" / "HPCRUN-trace______" */
	HR_HDR_MAGIC_LEN = 18,
	HR_HDR_VERSION = 18,      /* "MM.mm" */
	HR_HDR_ENDIAN = 23,       /* 'b' */
	HR_HDR = 24,
};
_Static_assert(HR_HDR_VERSION + 5 == HR_HDR_ENDIAN && HR_HDR_ENDIAN + 1 == HR_HDR,
               ".hpcrun/.hpctrace header is 24 bytes");

/* ---- CCT node records ------------------------------------------------------ */
/* 02.00/03.00: i32 id, u32 parent, [u32 lush_assoc], u16 lm_id, u64 ip,
 * [u8 lip[16]], n_metrics x u64 (dense values). [] with logical unwinding.
 * 04.00: i32 id, u32 parent, u16 lm_id, u64 ip, u8 flags. */
enum {
	HR_NODE_PARENT = 4,       /* u32, 0 = root; named for messages */
	HR_NODE2_FIXED = 18,      /* id, parent, lm_id, ip: the bytes before the values */
	HR_NODE2_LUSH = 38,       /* the same with lush_assoc and lip */
	HR_NODE_LIP = 22,         /* lip[16] with logical unwinding */
	HR_NODE_LIP_SIZE = 16,
	HR_NODE4_SIZE = 19,
};
HR_FIELD(hr_node_id, HR_NODE2_FIXED, 0, 32)          /* 02.00/03.00 negate leaf ids */
HR_FIELD(hr_node_parent, HR_NODE2_FIXED, HR_NODE_PARENT, 32)
HR_FIELD(hr_node_plain_lm, HR_NODE2_FIXED, 8, 16)
HR_FIELD(hr_node_plain_ip, HR_NODE2_FIXED, 10, 64)
HR_FIELD(hr_node_lush, HR_NODE2_LUSH, 8, 32)
HR_FIELD(hr_node_lush_lm, HR_NODE2_LUSH, 12, 16)
HR_FIELD(hr_node_lush_ip, HR_NODE2_LUSH, 14, 64)
HR_FIELD(hr_node4_flags, HR_NODE4_SIZE, 18, 8)
_Static_assert(10 + 8 == HR_NODE2_FIXED && HR_NODE_LIP + HR_NODE_LIP_SIZE == HR_NODE2_LUSH &&
               14 + 8 == HR_NODE_LIP, "02.00 node heads are 18 bytes, 38 with lush fields");
_Static_assert(18 + 1 == HR_NODE4_SIZE, "04.00 CCT records are 19 bytes");

static inline int32_t hr_node_sid(const unsigned char *r)
{
	return (int32_t)hr_node_id(r);
}
/* lm_id and ip sit after lush_assoc when the file has logical unwinding;
 * 04.00 records have the layout without. */
static inline uint16_t hr_node_lm(const unsigned char *r, int lush)
{
	return lush ? hr_node_lush_lm(r) : hr_node_plain_lm(r);
}
static inline uint64_t hr_node_ip(const unsigned char *r, int lush)
{
	return lush ? hr_node_lush_ip(r) : hr_node_plain_ip(r);
}
/* Logical-unwinding ip (16 bytes), 02.00/03.00 with lush only. */
static inline const unsigned char *hr_node_lip(const unsigned char *r)
{
	return r + HR_NODE_LIP;
}
/* Where the dense values of a 02.00/03.00 record start. */
static inline uint32_t hr_node2_values_at(int lush)
{
	return lush ? HR_NODE2_LUSH : HR_NODE2_FIXED;
}

/* ---- 04.00 sparse metrics -------------------------------------------------- */
/* Id tuple element {u16 kind (bits 13-0 kind, 15-14 interpretation), u64
 * physical, u64 logical}; sparse value {u64 bits, u16 metric index}; sparse
 * index entry {u32 cct id ("end!" in the last entry), u64 first value}. */
enum { HR_IDT_SIZE = 18, HR_SVAL_SIZE = 10, HR_SIDX_SIZE = 12 };
HR_FIELD(hr_idt_kind, HR_IDT_SIZE, 0, 16)
HR_FIELD(hr_idt_physical, HR_IDT_SIZE, 2, 64)
HR_FIELD(hr_idt_logical, HR_IDT_SIZE, 10, 64)
HR_FIELD(hr_sval_value, HR_SVAL_SIZE, 0, 64)
HR_FIELD(hr_sval_metric, HR_SVAL_SIZE, 8, 16)
HR_FIELD(hr_sidx_cct, HR_SIDX_SIZE, 0, 32)
HR_FIELD(hr_sidx_start, HR_SIDX_SIZE, 4, 64)
_Static_assert(10 + 8 == HR_IDT_SIZE && 8 + 2 == HR_SVAL_SIZE && 4 + 8 == HR_SIDX_SIZE,
               "id tuple elements, sparse values and index entries are 18, 10 and 12 bytes");

/* ---- 04.00 footer: 14 x u64 ---------------------------------------------- */
/* 6 sections x [start, end), the footer's own start, the magic. */
enum {
	HR_FOOTER_WORDS = 14,
	HR_FOOTER = 112,
	HR_FOOTER_START = 96,
	HR_FOOTER_MAGIC = 104,    /* "HPCRUNsm" */
};
HR_FIELD(hr_footer_start, HR_FOOTER, HR_FOOTER_START, 64)
HR_FIELD(hr_footer_magic, HR_FOOTER, HR_FOOTER_MAGIC, 64)
_Static_assert(HR_FOOTER_WORDS * 8 == HR_FOOTER && HR_FOOTER_MAGIC + 8 == HR_FOOTER,
               "04.00 footer is 14 u64");
/* Section word @p k (0-13) of a footer. */
static inline uint64_t hr_footer_word(const unsigned char *f, int k)
{
	return profdb__be64(f + 8 * k);
}

/* ---- metric descriptor fixed parts ----------------------------------------- */
/* The flags are hpcrun's raw in-memory struct (x86-64): u8 type, val_type,
 * val_fmt, move2proc, u16 partner (little-endian), u8 show, show_percent,
 * 8 unused bytes; or, from older writers, a packed big-endian u64 bitfield.
 * The 2017 trailer: u16 is_frequency, u16 is_multiplexed, f64 threshold,
 * u64 samples. */
enum { HR_MFLAGS_SIZE = 16, HR_MTRL_SIZE = 20 };
HR_FIELD(hr_mflags_type, HR_MFLAGS_SIZE, 0, 8)
HR_FIELD(hr_mflags_val_type, HR_MFLAGS_SIZE, 1, 8)
HR_FIELD(hr_mflags_val_fmt, HR_MFLAGS_SIZE, 2, 8)
HR_FIELD(hr_mflags_move2proc, HR_MFLAGS_SIZE, 3, 8)
PROFDB_FIELD_LE(hr_mflags_partner, HR_MFLAGS_SIZE, 4, 16)
HR_FIELD(hr_mflags_show, HR_MFLAGS_SIZE, 6, 8)
HR_FIELD(hr_mflags_show_percent, HR_MFLAGS_SIZE, 7, 8)
HR_FIELD(hr_mflags_packed, HR_MFLAGS_SIZE, 0, 64)
HR_FIELD(hr_mtrl_frequency, HR_MTRL_SIZE, 0, 16)
HR_FIELD(hr_mtrl_multiplexed, HR_MTRL_SIZE, 2, 16)
HR_FIELD(hr_mtrl_threshold, HR_MTRL_SIZE, 4, 64)
HR_FIELD(hr_mtrl_samples, HR_MTRL_SIZE, 12, 64)
_Static_assert(12 + 8 == HR_MTRL_SIZE, "the 2017 metric trailer is 20 bytes");

#endif
