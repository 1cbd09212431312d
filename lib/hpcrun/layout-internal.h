/* The fixed-size records of .hpcrun and .hpctrace files: field offsets,
 * record sizes and named accessors. doc/FORMATS.md, "hpcrun and hpctrace"
 * (sections "02.00 and 03.00", "04.00", "Metric flags", ".hpctrace 01.01")
 * is the source; every integer is big-endian.
 *
 * The accessors take a pointer to the first byte of a record that the
 * caller has range-checked (profdb__range or a hr_cur) for the record's
 * size; they never check bounds themselves. Variable-length parts
 * (strings, name/value pairs, the load map's names) are read through the
 * bounded cursor of read.c instead. */
#ifndef PROFDB_HPCRUN_LAYOUT_INTERNAL_H
#define PROFDB_HPCRUN_LAYOUT_INTERNAL_H

#include <stdint.h>

#include "../core/bytes-internal.h"

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
 * [u8 lip[16]], n_metrics x u64 (dense values). [] with logical unwinding. */
enum {
	HR_NODE_ID = 0,           /* i32; 02.00/03.00 negate leaf ids */
	HR_NODE_PARENT = 4,       /* u32, 0 = root */
	HR_NODE_LUSH = 8,         /* u32, logical unwinding only */
	HR_NODE_LIP_SIZE = 16,
	HR_NODE2_FIXED = 18,      /* id, parent, lm_id, ip: the bytes before the values */
	HR_NODE2_LUSH_EXTRA = 20, /* lush_assoc + lip */
};
_Static_assert(HR_NODE_PARENT + 4 + 2 + 8 == HR_NODE2_FIXED, "02.00 node head is 18 bytes");
_Static_assert(4 + HR_NODE_LIP_SIZE == HR_NODE2_LUSH_EXTRA, "lush fields are 20 bytes");

/* 04.00: i32 id, u32 parent, u16 lm_id, u64 ip, u8 flags. */
enum {
	HR_NODE4_LM = 8,
	HR_NODE4_IP = 10,
	HR_NODE4_FLAGS = 18,
	HR_NODE4_SIZE = 19,
};
_Static_assert(HR_NODE4_LM + 2 == HR_NODE4_IP && HR_NODE4_IP + 8 == HR_NODE4_FLAGS &&
               HR_NODE4_FLAGS + 1 == HR_NODE4_SIZE, "04.00 CCT records are 19 bytes");

static inline int32_t hr_node_sid(const unsigned char *r)
{
	return (int32_t)profdb__be32(r + HR_NODE_ID);
}
static inline uint32_t hr_node_parent(const unsigned char *r)
{
	return profdb__be32(r + HR_NODE_PARENT);
}
static inline uint32_t hr_node_lush(const unsigned char *r)
{
	return profdb__be32(r + HR_NODE_LUSH);
}
/* Offset of lm_id (ip follows it): after lush_assoc when present. */
static inline unsigned hr_node_lm_at(int lush)
{
	return HR_NODE4_LM + (lush ? 4u : 0u);
}
static inline uint16_t hr_node_lm(const unsigned char *r, int lush)
{
	return profdb__be16(r + hr_node_lm_at(lush));
}
static inline uint64_t hr_node_ip(const unsigned char *r, int lush)
{
	return profdb__be64(r + hr_node_lm_at(lush) + 2);
}
/* Logical-unwinding ip (16 bytes), 02.00/03.00 with lush only. */
static inline const unsigned char *hr_node_lip(const unsigned char *r)
{
	return r + hr_node_lm_at(1) + 10;
}
static inline uint8_t hr_node4_flags(const unsigned char *r)
{
	return r[HR_NODE4_FLAGS];
}
/* Where the dense values of a 02.00/03.00 record start. */
static inline uint32_t hr_node2_values_at(int lush)
{
	return HR_NODE2_FIXED + (lush ? HR_NODE2_LUSH_EXTRA : 0u);
}

/* ---- 04.00 sparse metrics -------------------------------------------------- */
enum {
	HR_IDT_KIND = 0,          /* u16: bits 13-0 kind, 15-14 interpretation */
	HR_IDT_PHYSICAL = 2,
	HR_IDT_LOGICAL = 10,
	HR_IDT_SIZE = 18,
	HR_SVAL_VALUE = 0,        /* u64 bits */
	HR_SVAL_METRIC = 8,       /* u16 metric index */
	HR_SVAL_SIZE = 10,
	HR_SIDX_CCT = 0,          /* u32 cct id ("end!" in the last entry) */
	HR_SIDX_START = 4,        /* u64 first value */
	HR_SIDX_SIZE = 12,
};
_Static_assert(HR_IDT_LOGICAL + 8 == HR_IDT_SIZE, "id tuple elements are 18 bytes");
_Static_assert(HR_SVAL_METRIC + 2 == HR_SVAL_SIZE, "sparse values are 10 bytes");
_Static_assert(HR_SIDX_START + 8 == HR_SIDX_SIZE, "sparse index entries are 12 bytes");

static inline uint16_t hr_idt_kind(const unsigned char *e)
{
	return profdb__be16(e + HR_IDT_KIND);
}
static inline uint64_t hr_idt_physical(const unsigned char *e)
{
	return profdb__be64(e + HR_IDT_PHYSICAL);
}
static inline uint64_t hr_idt_logical(const unsigned char *e)
{
	return profdb__be64(e + HR_IDT_LOGICAL);
}
static inline uint64_t hr_sval_value(const unsigned char *v)
{
	return profdb__be64(v + HR_SVAL_VALUE);
}
static inline uint16_t hr_sval_metric(const unsigned char *v)
{
	return profdb__be16(v + HR_SVAL_METRIC);
}
static inline uint32_t hr_sidx_cct(const unsigned char *e)
{
	return profdb__be32(e + HR_SIDX_CCT);
}
static inline uint64_t hr_sidx_start(const unsigned char *e)
{
	return profdb__be64(e + HR_SIDX_START);
}

/* ---- 04.00 footer: 14 x u64 ---------------------------------------------- */
enum {
	HR_FOOTER_WORDS = 14,     /* 6 sections x [start, end), footer start, magic */
	HR_FOOTER = 112,
	HR_FOOTER_MAGIC = 104,    /* "HPCRUNsm" */
};
_Static_assert(HR_FOOTER_WORDS * 8 == HR_FOOTER && HR_FOOTER_MAGIC + 8 == HR_FOOTER,
               "04.00 footer is 14 u64");

/* ---- metric descriptor fixed parts ----------------------------------------- */
enum {
	HR_MFLAGS_SIZE = 16,      /* the raw x86-64 flag struct */
	HR_MTRL_FREQ = 0,         /* u16 is_frequency */
	HR_MTRL_MUX = 2,          /* u16 is_multiplexed */
	HR_MTRL_THRESHOLD = 4,    /* f64 */
	HR_MTRL_SAMPLES = 12,     /* u64 */
	HR_MTRL_SIZE = 20,
};
_Static_assert(HR_MTRL_SAMPLES + 8 == HR_MTRL_SIZE, "the 2017 metric trailer is 20 bytes");

#endif
