/* Callgrind from Callgrind (cg-native.c): the texts of a few functions
 * each, made by the threads that decode them (cg-text.c), and what both
 * sides read. */
#ifndef PROFDB_CONVERT_CG_TEXT_INTERNAL_H
#define PROFDB_CONVERT_CG_TEXT_INTERNAL_H

#include <stdint.h>

#include "cgout-internal.h"
#include "query/query-internal.h"

/* The names a reader keeps from one block to the next: ob= and fl= stay
 * until changed (valgrind writes them only then), and the file in effect
 * at a block's end is the file a reader gives the next block's fn= when
 * no fl= comes: KCachegrind and profdb go back to the last fl=,
 * callgrind_annotate keeps the last fl=, fi= or fe=. A block leaves out
 * ob= and fl= only where every reader takes the same names without. */
typedef struct head {
	int known;                 /* a block was written before (in this part) */
	uint32_t ob, fl, cur;      /* its object's and file's keys, and the key of
	                            * the file in effect at its end */
} head;

/* A function's block is made by the thread that decodes it, where its
 * bytes are in the cache, into a text (fn_text) with the blocks of the
 * functions next to it (ITEMS_PER_JOB); the calling thread writes the
 * texts in order. What depends on the blocks before a
 * text is left as a gap for the writer to fill: each name line (its id,
 * and the name itself the first time), the first block's ob= and fl=
 * (written unless the previous text's last block left the same, head)
 * and the first position (relative to the previous text's last one). */
enum { GAP_NAME, GAP_HEAD, GAP_POS, GAP_JUMP_POS };

/* The keys of the name lines, by a gap's key index. */
enum { K_OB, K_FL, K_FN, K_FI, K_COB, K_CFI, K_CFN, K_JFI, K_JFN };
static const struct {
	char key[4];
	unsigned char len, table;
} keys[] = {
	{"ob", 2, PROFDB__CGW_OB},   {"fl", 2, PROFDB__CGW_FL},   {"fn", 2, PROFDB__CGW_FN},
	{"fi", 2, PROFDB__CGW_FL},   {"cob", 3, PROFDB__CGW_OB},  {"cfi", 3, PROFDB__CGW_FL},
	{"cfn", 3, PROFDB__CGW_FN},  {"jfi", 3, PROFDB__CGW_FL},  {"jfn", 3, PROFDB__CGW_FN},
};

typedef struct gap {
	size_t at;                 /* where in the text */
	unsigned char kind, key;   /* GAP_*; GAP_NAME, GAP_HEAD: its key in keys[] */
	uint32_t name_key;         /* GAP_NAME, GAP_HEAD: the input's key of the name */
	uint32_t ob_key;           /* GAP_NAME of a function: its object's key */
	union {
		profdb_str name;       /* GAP_NAME, GAP_HEAD */
		struct {
			uint64_t instr, line;
		} pos;                 /* GAP_POS: a cost line's position; GAP_JUMP_POS: a
		                        * jump's source, written when not in effect */
	} u;
} gap;

typedef struct fn_text {
	char *text;
	size_t len, cap;
	gap *gaps;
	size_t n_gaps, cap_gaps;
	int placed;                /* a position was written: the last is last_instr/line */
	uint64_t last_instr, last_line;
	head head;                 /* what its last block left (known: it has one) */
	size_t overflow;           /* 1 + a visible event whose total passed 2^64 - 1 */
	uint64_t totals[];         /* per visible event: the self costs written */
} fn_text;

/* The blocks (functions, or a function in one profile) a text holds:
 * handing a text over between the threads costs about as much as making
 * a small one, and a profile has tens of thousands of functions of a few
 * dozen lines. */
#define ITEMS_PER_JOB 16u

/* The longest position: "0x" hex and a line, or two relative ones. */
#define POS_MAX (2 * (PROFDB__CV_U64_MAX + 3))

/* (for the formatting of a cost line's position: a call per subposition
 * cost as much as formatting it) */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

static inline size_t fmt_hex(char *at, uint64_t v)
{
	size_t n = 1;
	for (uint64_t x = v >> 4; x; x >>= 4)
		n++;
	for (size_t i = n; i-- > 0; v >>= 4)
		at[i] = "0123456789abcdef"[v & 15];
	return n;
}

/* An absolute position (calls= and jump targets, the first cost line of
 * a part): its length. */
static inline size_t fmt_pos(char *at, int instr_col, uint64_t instr, uint64_t line)
{
	char *p = at;
	if (instr_col) {
		*p++ = '0';
		*p++ = 'x';
		p += fmt_hex(p, instr);
		*p++ = ' ';
	}
	p += profdb__cv_fmt_u64(p, line);
	return (size_t)(p - at);
}

/* A relative subposition at @p at, in decimal (callgrind_annotate reads
 * "+N" and "-N" as decimal only, hex addresses included): its length. */
ALWAYS_INLINE size_t fmt_rel(char *at, uint64_t v, uint64_t last)
{
	if (v == last) {
		*at = '*';
		return 1;
	}
	*at = v > last ? '+' : '-';
	return 1 + profdb__cv_fmt_u64(at + 1, v > last ? v - last : last - v);
}

/* The position of a cost line, relative to the previous one as valgrind
 * writes them (--compress-pos), so the output stays near the input's
 * size; absolute when there is none (@p have_last 0). */
ALWAYS_INLINE size_t fmt_cost_pos(char *at, int instr_col, int have_last, uint64_t last_instr,
                                  uint64_t last_line, uint64_t instr, uint64_t line)
{
	if (!have_last)
		return fmt_pos(at, instr_col, instr, line);
	char *p = at;
	if (instr_col) {
		p += fmt_rel(p, instr, last_instr);
		*p++ = ' ';
	}
	p += fmt_rel(p, line, last_line);
	return (size_t)(p - at);
}



/* What a making thread keeps: the records it decoded last, the next
 * decoded in their memory. A cache line of its own: each thread writes
 * its own per function, and a line the other thread reads meanwhile would
 * be taken from its core at each write. */
typedef struct text_worker {
	_Alignas(64) void *records;
} text_worker;

/* What the making threads read (the same for both) and keep per thread
 * (ahead-internal.h's worker). The writer's columns and name ids are read
 * from a copy of its state made when the jobs start (w): the writer's
 * own changes as it writes (its name counts, beside the name ids' arrays)
 * would otherwise take the line from the making core at each new name.
 * The arrays the copy points to are the writer's (the ids it gives are
 * read with atomic loads, cgout-internal.h). */
typedef struct text_jobs {
	_Alignas(64) const profdb__native_table *t;
	const void *impl;
	profdb__cgw w;             /* the writer's state when the jobs start: its
	                            * columns and name ids' arrays */
	int instr;
	const uint32_t *profiles;  /* NULL: every profile summed */
	size_t n_profiles;
	uint64_t n_items;          /* blocks: functions x n_profiles */
	text_worker worker[2];
} text_jobs;


/* ob= unless @p h's object is @p f's; fl= unless @p h's file is @p f's
 * and in effect (struct head). Before a text's first block the writer
 * decides (GAP_HEAD). */
static inline int head_omits(const head *h, int key, uint32_t name_key)
{
	return h->known && (key == K_OB ? h->ob == name_key : h->fl == name_key && h->cur == name_key);
}


/* The end of job @p j's blocks. */
static inline uint64_t job_end(const text_jobs *x, uint64_t j)
{
	return x->n_items - j * ITEMS_PER_JOB > ITEMS_PER_JOB ? (j + 1) * ITEMS_PER_JOB : x->n_items;
}


/* cg-text.c: job @p j's text (ahead-internal.h's make, @p ctx a
 * text_jobs), and a text dropped (its drop). */
int profdb__cgt_make(void *ctx, unsigned worker, uint64_t j, void *old, void **out,
                     size_t *bytes);
void profdb__cgt_drop(void *ctx, void *text);

#endif
