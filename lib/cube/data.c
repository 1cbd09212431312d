/* Index and data members: validated at open (cheap: headers and the sparse
 * position lists); rows are read on demand. Uncompressed rows are read in
 * place from the archive bytes; ZCUBEX rows are inflated on first use into a
 * per-metric cache whose slots are installed with compare-and-swap.
 *
 * Row addressing (doc/FORMATS.md, "Cube"): position p of a cnode is its
 * index in the metric's enumeration of the call tree, depth-first for
 * EXCLUSIVE metrics, "wide" for INCLUSIVE ones, id order for SIMPLE ones; row k of the data belongs to
 * position index[k] (SPARSE) or to position k (DENSE); column j of a row is
 * the location with id j. */
#include <float.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profdb-config.h"
#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "cube-internal.h"
#include "layout-internal.h"

/* ---- dtypes --------------------------------------------------------------- */

static const struct {
	const char *name;
	profdb_cube_dtype dtype;
} dtype_names[] = {
	{"INT8", PROFDB_CUBE_INT8},
	{"UINT8", PROFDB_CUBE_UINT8}, {"CHAR", PROFDB_CUBE_UINT8},
	{"INT16", PROFDB_CUBE_INT16}, {"SHORT INT", PROFDB_CUBE_INT16},
	{"SIGNED SHORT INT", PROFDB_CUBE_INT16},
	{"UINT16", PROFDB_CUBE_UINT16}, {"UNSIGNED SHORT INT", PROFDB_CUBE_UINT16},
	{"INT32", PROFDB_CUBE_INT32}, {"INT", PROFDB_CUBE_INT32}, {"SIGNED INT", PROFDB_CUBE_INT32},
	{"UINT32", PROFDB_CUBE_UINT32}, {"UNSIGNED INT", PROFDB_CUBE_UINT32},
	{"INT64", PROFDB_CUBE_INT64}, {"INTEGER", PROFDB_CUBE_INT64},
	{"SIGNED INTEGER", PROFDB_CUBE_INT64},
	{"UINT64", PROFDB_CUBE_UINT64}, {"UNSIGNED INTEGER", PROFDB_CUBE_UINT64},
	{"DOUBLE", PROFDB_CUBE_DOUBLE}, {"FLOAT", PROFDB_CUBE_DOUBLE},
	{"MINDOUBLE", PROFDB_CUBE_MINDOUBLE}, {"MAXDOUBLE", PROFDB_CUBE_MAXDOUBLE},
	{"COMPLEX", PROFDB_CUBE_COMPLEX}, {"RATE", PROFDB_CUBE_RATE},
	{"TAU_ATOMIC", PROFDB_CUBE_TAU_ATOMIC},
	{"HISTOGRAM", PROFDB_CUBE_HISTOGRAM}, {"NDOUBLES", PROFDB_CUBE_NDOUBLES},
	{"SCALE_FUNC", PROFDB_CUBE_SCALE_FUNC},
};

/* Upper bound on HISTOGRAM(n) / NDOUBLES(n) arguments: keeps a row's value
 * size far from overflow. */
#define MAX_DTYPE_ARG 65536u

static int parse_dtype(profdb_cube *c, cube_metric *m)
{
	const char *t = profdb__cube_s(c, m->dtype_text);
	size_t len = strcspn(t, "(");
	uint32_t arg = 0;
	int found = 0;
	if (t[len] == '(') {
		const char *q = t + len + 1;
		uint64_t v = 0;
		while (*q >= '0' && *q <= '9' && v <= MAX_DTYPE_ARG)
			v = v * 10 + (uint64_t)(*q++ - '0');
		if (*q != ')' && *q != ',')
			v = MAX_DTYPE_ARG + 1;
		if (v > MAX_DTYPE_ARG)
			return profdb__fail(-EBADMSG, "%s: member anchor.xml: metric %" PRIu32
			                    " has dtype '%s' with a bad argument", c->path, m->id, t);
		arg = (uint32_t)v;
	}
	for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
		if (strlen(dtype_names[i].name) == len && !strncmp(t, dtype_names[i].name, len)) {
			m->dtype = dtype_names[i].dtype;
			found = 1;
			break;
		}
	if (!found) {
		profdb__warn(&c->opts, "%s: member anchor.xml: metric %" PRIu32
		             " has unknown dtype '%s', read as DOUBLE", c->path, m->id, t);
		m->dtype = PROFDB_CUBE_DOUBLE;
	}
	/* CubeW forces derived metrics to DOUBLE. */
	if (m->kind >= PROFDB_CUBE_POSTDERIVED)
		m->dtype = PROFDB_CUBE_DOUBLE;
	m->dtype_arg = 0;
	switch (m->dtype) {
	case PROFDB_CUBE_INT8: case PROFDB_CUBE_UINT8: m->vsize = 1; break;
	case PROFDB_CUBE_INT16: case PROFDB_CUBE_UINT16: m->vsize = 2; break;
	case PROFDB_CUBE_INT32: case PROFDB_CUBE_UINT32: m->vsize = 4; break;
	case PROFDB_CUBE_COMPLEX: case PROFDB_CUBE_RATE: m->vsize = 16; break;
	case PROFDB_CUBE_TAU_ATOMIC: m->vsize = 36; break;
	case PROFDB_CUBE_HISTOGRAM: m->dtype_arg = arg; m->vsize = (2 + arg) * 8; break;
	case PROFDB_CUBE_NDOUBLES: m->dtype_arg = arg; m->vsize = arg * 8; break;
	case PROFDB_CUBE_SCALE_FUNC: m->vsize = 848; break;
	default: m->vsize = 8; break;
	}
	return 0;
}

/* ---- enumerations ------------------------------------------------------------ */

static int enumerate(profdb_cube *c)
{
	uint32_t n = c->n_cnodes;
	size_t sz = ((size_t)n + 1) * sizeof(uint32_t);
	c->pos_deep = malloc(sz);
	c->pos_wide = malloc(sz);
	uint32_t *stack_node = malloc(sz), *stack_cur = malloc(sz);
	int r = 0;
	if (!c->pos_deep || !c->pos_wide || !stack_node || !stack_cur) {
		r = profdb__fail(-ENOMEM, "%s: out of memory", c->path);
		goto out;
	}
	/* Document order of nested elements is depth-first pre-order. */
	for (uint32_t i = 0; i < n; i++)
		c->pos_deep[c->doc_order[i]] = i;
	/* Wide: per root, the root, then wide(root), where wide(x) emits all
	 * children of x and then wide(child) for each child in order. */
	/* depth of every cnode: parents precede children in document order */
	c->max_depth = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = c->doc_order[i], par = c->cnodes[id].parent;
		uint32_t d = par == PROFDB_NONE ? 0 : stack_node[par] + 1;
		stack_node[id] = d;
		c->cnodes[id].depth = d;
		if (d > c->max_depth)
			c->max_depth = d;
	}
	uint32_t k = 0;
	for (uint32_t root = c->first_root; root != PROFDB_NONE; root = c->cnodes[root].next_sibling) {
		size_t depth = 0;
		c->pos_wide[root] = k++;
		stack_node[depth] = root;
		stack_cur[depth] = PROFDB_NONE;
		depth = 1;
		for (uint32_t ch = c->cnodes[root].first_child; ch != PROFDB_NONE;
		     ch = c->cnodes[ch].next_sibling)
			c->pos_wide[ch] = k++;
		stack_cur[0] = c->cnodes[root].first_child;
		while (depth) {
			uint32_t cur = stack_cur[depth - 1];
			if (cur == PROFDB_NONE) {
				depth--;
				continue;
			}
			stack_cur[depth - 1] = c->cnodes[cur].next_sibling;
			for (uint32_t ch = c->cnodes[cur].first_child; ch != PROFDB_NONE;
			     ch = c->cnodes[ch].next_sibling)
				c->pos_wide[ch] = k++;
			stack_node[depth] = cur;
			stack_cur[depth] = c->cnodes[cur].first_child;
			depth++;
		}
	}
	if (k != n)
		r = profdb__fail(-EBADMSG, "%s: member anchor.xml: call tree enumerates %" PRIu32
		                 " of %" PRIu32 " cnodes", c->path, k, n);
out:
	free(stack_node);
	free(stack_cur);
	return r;
}

/* ---- members ----------------------------------------------------------------- */

/* The index member: its header, and for a SPARSE index the ascending list
 * of positions. */
static int setup_index(profdb_cube *c, cube_metric *m, const char *iname,
                       const cube_member *im)
{
	const profdb__input *in = &c->tar;
	const unsigned char *h;
	int r;
	if (im->size < CUBE_INDEX_HEADER)
		return profdb__fail(-ENODATA, "%s: member '%s' (at offset %" PRIu64
		                    "): %" PRIu64 " bytes, the header needs %d", c->path, iname,
		                    im->off, im->size, CUBE_INDEX_HEADER);
	if ((r = profdb__range(in, im->off, CUBE_INDEX_HEADER, iname, &h)) < 0)
		return r;
	if (memcmp(h, CUBE_INDEX_MAGIC, CUBE_INDEX_MAGIC_LEN) != 0)
		return profdb__fail(-EBADMSG, "%s: member '%s' (at offset %" PRIu64
		                    "): no CUBEX.INDEX magic", c->path, iname, im->off);
	uint32_t marker = cube_index_marker(h);
	if (marker != 1 && marker != 0x01000000u)
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): endianness marker 0x%08" PRIx32 " is neither 1 nor 1 swapped",
		                    c->path, iname, im->off + CUBE_INDEX_MARKER, marker);
	m->swap = marker != 1;
	uint8_t format = cube_index_format(h);
	if (format == CUBE_INDEX_DENSE) {
		m->dense = 1;
		m->nrows = c->n_cnodes;
		return 0;
	}
	if (format != CUBE_INDEX_SPARSE)
		return profdb__fail(format == CUBE_INDEX_BITVECTOR ? -ENOTSUP : -EBADMSG, "%s: member '%s' (offset %"
		                    PRIu64 "): index format %u %s", c->path, iname, im->off + CUBE_INDEX_FORMAT,
		                    format, format == CUBE_INDEX_BITVECTOR ? "(bit vector) is not supported" : "is invalid");
	const unsigned char *q;
	if (im->size < CUBE_INDEX_POSITIONS)
		return profdb__fail(-ENODATA, "%s: member '%s' (at offset %" PRIu64
		                    "): sparse index without its count", c->path, iname, im->off);
	if ((r = profdb__range(in, im->off, CUBE_INDEX_POSITIONS, iname, &q)) < 0)
		return r;
	uint32_t cnt = cube_index_count(q, m->swap);
	if ((uint64_t)cnt * CUBE_POSITION > im->size - CUBE_INDEX_POSITIONS)
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): index claims %" PRIu32 " entries, the member holds %"
		                    PRIu64, c->path, iname, im->off + CUBE_INDEX_COUNT, cnt,
		                    (im->size - CUBE_INDEX_POSITIONS) / CUBE_POSITION);
	if ((r = profdb__range(in, im->off + CUBE_INDEX_POSITIONS, (uint64_t)cnt * CUBE_POSITION, iname,
	                       &m->positions)) < 0)
		return r;
	uint32_t prev = 0;
	for (uint32_t k = 0; k < cnt; k++) {
		uint32_t pos = cube_position(m->positions + (size_t)k * CUBE_POSITION, m->swap);
		if (pos >= c->n_cnodes)
			return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
			                    "): entry %" PRIu32 " names position %" PRIu32
			                    ", the call tree has %" PRIu32 " cnodes", c->path, iname,
			                    im->off + CUBE_INDEX_POSITIONS + (uint64_t)k * 4, k, pos, c->n_cnodes);
		if (k && pos <= prev)
			return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
			                    "): entries not ascending (%" PRIu32 " after %" PRIu32 ")",
			                    c->path, iname, im->off + CUBE_INDEX_POSITIONS + (uint64_t)k * 4, pos, prev);
		prev = pos;
	}
	m->nrows = cnt;
	return 0;
}

/* Entry @p e of a ZCUBEX block table (the blocks start at byte @p blocks
 * of the member): 0 and the row it holds placed, or -EBADMSG (a damaged
 * entry). */
static int zblock(profdb_cube *c, cube_metric *m, const char *dname, const cube_member *dm,
                  uint64_t e, uint64_t blocks, uint64_t row_bytes)
{
	const unsigned char *q;
	uint64_t eoff = dm->off + CUBE_ZDATA_TABLE + CUBE_ZENTRY_SIZE * e;
	int r = profdb__range(&c->tar, eoff, CUBE_ZENTRY_SIZE, dname, &q);
	if (r < 0)
		return r;
	uint64_t su = cube_zentry_start_uncompressed(q, m->swap);
	uint64_t sc = cube_zentry_start_compressed(q, m->swap), sz = cube_zentry_size(q, m->swap);
	if (sz == 0)
		return 0;
	if (row_bytes == 0 || su % row_bytes || su / row_bytes >= m->nrows)
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): block %" PRIu64 " starts at uncompressed byte %" PRIu64
		                    ", not a row of %" PRIu32 " rows of %" PRIu64 " bytes",
		                    c->path, dname, eoff, e, su, m->nrows, row_bytes);
	uint64_t k = su / row_bytes;
	if (sc > dm->size - blocks || sz > dm->size - blocks - sc)
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): block %" PRIu64 " (%" PRIu64 " bytes at %" PRIu64
		                    ") lies outside the member (%" PRIu64 " bytes)", c->path,
		                    dname, eoff, e, sz, sc, dm->size);
	if (m->zsize[k])
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): row %" PRIu64 " stored twice", c->path, dname, eoff, k);
	/* deflate expands at most ~1032:1; refusing rows that no block of
	 * this size can hold keeps allocations proportional to the input */
	if (row_bytes / 1032 > sz + 64)
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): block %" PRIu64 " (%" PRIu64 " bytes) cannot inflate "
		                    "to a row of %" PRIu64 " bytes", c->path, dname, eoff, e,
		                    sz, row_bytes);
	m->zoff[k] = dm->off + blocks + sc;
	m->zsize[k] = sz;
	return 0;
}

/* A ZCUBEX.DATA member: the block table. */
static int setup_zdata(profdb_cube *c, cube_metric *m, const char *dname,
                       const cube_member *dm, uint64_t row_bytes)
{
	const unsigned char *q;
	int r;
	m->zipped = 1;
	if (dm->size < CUBE_ZDATA_TABLE)
		return profdb__fail(-ENODATA, "%s: member '%s' (at offset %" PRIu64
		                    "): ZCUBEX header truncated", c->path, dname, dm->off);
	if ((r = profdb__range(&c->tar, dm->off, CUBE_ZDATA_TABLE, dname, &q)) < 0)
		return r;
	uint64_t cnt = cube_zdata_count(q, m->swap);
	if (cnt > (dm->size - CUBE_ZDATA_TABLE) / CUBE_ZENTRY_SIZE)
		return profdb__fail(-EBADMSG, "%s: member '%s' (offset %" PRIu64
		                    "): %" PRIu64 " compressed blocks claimed, room for %" PRIu64,
		                    c->path, dname, dm->off + CUBE_ZDATA_COUNT, cnt,
		                    (dm->size - CUBE_ZDATA_TABLE) / CUBE_ZENTRY_SIZE);
	size_t nr = m->nrows ? m->nrows : 1;
	m->zoff = calloc(nr, sizeof *m->zoff);
	m->zsize = calloc(nr, sizeof *m->zsize);
	m->zcache = calloc(nr, sizeof *m->zcache);
	if (!m->zoff || !m->zsize || !m->zcache)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	uint64_t skipped = 0, blocks = CUBE_ZDATA_TABLE + CUBE_ZENTRY_SIZE * cnt;
	atomic_bool warned = false;   /* the first damaged block is told; the rest counted */
	for (uint64_t e = 0; e < cnt; e++) {
		if ((r = zblock(c, m, dname, dm, e, blocks, row_bytes)) == 0)
			continue;
		if ((r = profdb__tolerate(&c->opts, r, &warned, "metric %" PRIu32 ": the row of "
		                          "block %" PRIu64, m->id, e)) < 0)
			return r;
		skipped++;
	}
	if (skipped > 1)
		profdb__warn(&c->opts, "%s: member '%s': %" PRIu64 " damaged blocks in all read as "
		             "absent", c->path, dname, skipped);
	return 0;
}

/* A CUBEX.DATA member: rows in place after the magic. */
static int setup_plain(profdb_cube *c, cube_metric *m, const char *iname, const char *dname,
                       const cube_member *dm, uint64_t row_bytes)
{
	const unsigned char *h;
	int r;
	if (dm->size < CUBE_DATA_ROWS ||
	    (r = profdb__range(&c->tar, dm->off, CUBE_DATA_ROWS, dname, &h)) < 0 ||
	    memcmp(h, CUBE_DATA_MAGIC, CUBE_DATA_ROWS) != 0)
		return profdb__fail(dm->size < CUBE_DATA_ROWS ? -ENODATA : -EBADMSG, "%s: member '%s' (at "
		                    "offset %" PRIu64 "): no CUBEX.DATA or ZCUBEX.DATA magic",
		                    c->path, dname, dm->off);
	m->rows_off = dm->off + CUBE_DATA_ROWS;
	m->rows_avail = row_bytes ? (dm->size - CUBE_DATA_ROWS) / row_bytes : m->nrows;
	if (!m->dense && m->rows_avail < m->nrows) {
		r = profdb__fail(-EBADMSG, "%s: member '%s' (at offset %" PRIu64
		                 "): '%s' names %" PRIu32 " rows of %" PRIu64
		                 " bytes, the member holds %" PRIu64, c->path, dname, dm->off,
		                 iname, m->nrows, row_bytes, m->rows_avail);
		if ((r = profdb__tolerate(&c->opts, r, NULL, "metric %" PRIu32 ": the rows past "
		                          "the end of the member", m->id)) < 0)
			return r;
	}
	if (m->rows_avail > m->nrows)
		m->rows_avail = m->nrows;
	return 0;
}

static int setup_members(profdb_cube *c, cube_metric *m, uint64_t row_bytes)
{
	char iname[64], dname[64];
	const unsigned char *h;
	snprintf(iname, sizeof iname, "%s%" PRIu32 ".index", m->ghost ? "ghost_" : "", m->id);
	snprintf(dname, sizeof dname, "%s%" PRIu32 ".data", m->ghost ? "ghost_" : "", m->id);
	const cube_member *im = profdb__cube_member_find(c, iname);
	const cube_member *dm = profdb__cube_member_find(c, dname);
	if (m->kind >= PROFDB_CUBE_POSTDERIVED || (!im && !dm))
		return 0;
	if (!im || !dm)
		return profdb__fail(-EBADMSG, "%s: member '%s' present but '%s' missing", c->path,
		                    im ? iname : dname, im ? dname : iname);
	m->index_member = im;
	m->data_member = dm;
	int r = setup_index(c, m, iname, im);
	if (r < 0)
		return r;
	if (dm->size >= CUBE_ZDATA_MAGIC_LEN &&
	    profdb__range(&c->tar, dm->off, CUBE_ZDATA_MAGIC_LEN, dname, &h) == 0 &&
	    memcmp(h, CUBE_ZDATA_MAGIC, CUBE_ZDATA_MAGIC_LEN) == 0)
		r = setup_zdata(c, m, dname, dm, row_bytes);
	else
		r = setup_plain(c, m, iname, dname, dm, row_bytes);
	if (r < 0)
		return r;
	m->has_data = 1;
	return 0;
}

/* The index and data members of metric @p m. With PROFDB_OPEN_TOLERANT a
 * damaged pair (-EBADMSG, -ENODATA) warns and the metric reads as having
 * no rows. */
static int setup_metric(profdb_cube *c, cube_metric *m, uint64_t row_bytes)
{
	int r = setup_members(c, m, row_bytes);
	if (r >= 0 || (r = profdb__tolerate(&c->opts, r, NULL, "metric %" PRIu32 ": every row",
	                                    m->id)) < 0)
		return r;
	free(m->zoff);
	free(m->zsize);
	free((void *)m->zcache);
	m->zoff = m->zsize = NULL;
	m->zcache = NULL;
	m->has_data = m->dense = m->zipped = 0;
	m->positions = NULL;
	m->nrows = 0;
	m->rows_avail = 0;
	return 0;
}

int profdb__cube_data_setup(profdb_cube *c)
{
	int r;
	if ((r = enumerate(c)) < 0)
		return r;
	for (uint32_t i = 0; i < c->n_metrics; i++) {
		cube_metric *m = &c->metrics[i];
		if ((r = parse_dtype(c, m)) < 0)
			return r;
		uint64_t row_bytes;
		if ((r = profdb__mul(&c->tar, c->n_locs, m->vsize, "row size", &row_bytes)) < 0)
			return r;
		if ((r = setup_metric(c, m, row_bytes)) < 0)
			return r;
	}
	return 0;
}

void profdb__cube_data_free(profdb_cube *c)
{
	for (uint32_t i = 0; c->metrics && i < c->n_metrics; i++) {
		cube_metric *m = &c->metrics[i];
		if (m->zcache)
			for (uint32_t k = 0; k < m->nrows; k++)
				free(atomic_load_explicit(&m->zcache[k], memory_order_relaxed));
		free((void *)m->zcache);
		free(atomic_load_explicit(&m->incl_table, memory_order_relaxed));
		free(m->zoff);
		free(m->zsize);
	}
	free(c->pos_deep);
	free(c->pos_wide);
}

/* ---- rows ------------------------------------------------------------------------ */

static int row_index(const profdb_cube *c, const cube_metric *m, uint32_t cnode, uint32_t *k)
{
	/* SIMPLE: CubeW writes the cnodes in definition order, i.e. by id. */
	uint32_t p = m->kind == PROFDB_CUBE_INCLUSIVE ? c->pos_wide[cnode]
	             : m->kind == PROFDB_CUBE_SIMPLE  ? cnode
	                                              : c->pos_deep[cnode];
	if (m->dense) {
		*k = p;
		return 1;
	}
	/* SPARSE: the positions (validated ascending at open) as a view */
	profdb_view v = {0};
	v.base = m->nrows ? m->positions : NULL;
	v.count = m->nrows;
	v.stride = 4;
	v.key_type = v.value_type = PROFDB_FIELD_U32;
	v.big_endian = (uint8_t)m->swap;
	uint64_t i;
	if (profdb_view_find(&v, p, &i) != 1)
		return 0;
	*k = (uint32_t)i;
	return 1;
}

#ifdef PROFDB_HAVE_ZLIB
/* Inflate row @p k of a ZCUBEX metric into a new buffer (*out). */
static int inflate_row(const profdb_cube *c, const cube_metric *m, uint32_t k,
                       uint64_t row_bytes, unsigned char **out)
{
	const unsigned char *src;
	int r = profdb__range(&c->tar, m->zoff[k], m->zsize[k], m->data_member->name, &src);
	if (r < 0)
		return r;
	if (row_bytes > (uLongf)-1 || m->zsize[k] > (uLong)-1)
		return profdb__fail(-EFBIG, "%s: member '%s': row too large", c->path,
		                    m->data_member->name);
	unsigned char *buf = malloc(row_bytes ? (size_t)row_bytes : 1);
	if (!buf)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	uLongf dlen = (uLongf)row_bytes;
	int zr = uncompress(buf, &dlen, src, (uLong)m->zsize[k]);
	if (zr != Z_OK || dlen != row_bytes) {
		free(buf);
		return profdb__fail(-EBADMSG, "%s: member '%s': row %" PRIu32 " (block at archive "
		                    "offset %" PRIu64 ", %" PRIu64 " bytes) does not inflate to %"
		                    PRIu64 " bytes (zlib: %s)", c->path, m->data_member->name, k,
		                    m->zoff[k], m->zsize[k], row_bytes,
		                    zr == Z_OK ? "wrong size" : zError(zr));
	}
	*out = buf;
	return 0;
}

/* Row @p k of a ZCUBEX metric: from the cache, or inflated and cached (or
 * handed to the caller in *tmp once the cache is full). */
static int zrow(const profdb_cube *c, cube_metric *m, uint32_t k, const unsigned char **row,
                unsigned char **tmp)
{
	uint64_t row_bytes = (uint64_t)c->n_locs * m->vsize;
	unsigned char *cached = atomic_load_explicit(&m->zcache[k], memory_order_acquire);
	if (cached) {
		*row = cached;
		return 1;
	}
	unsigned char *buf = NULL;
	int r = inflate_row(c, m, k, row_bytes, &buf);
	if (r < 0)   /* tolerant: a damaged row reads as absent, told once per metric */
		return profdb__tolerate(&c->opts, r, &m->warned_row, "metric %" PRIu32 ": row %"
		                        PRIu32 " and any other damaged one", m->id, k);
	profdb_cube *mc = (profdb_cube *)c; /* the cache is the only mutable state */
	if (atomic_fetch_add(&mc->zcache_bytes, row_bytes) + row_bytes <= CUBE_ZCACHE_CAP) {
		unsigned char *expected = NULL;
		if (!atomic_compare_exchange_strong_explicit(&m->zcache[k], &expected, buf,
		                                             memory_order_acq_rel,
		                                             memory_order_acquire)) {
			free(buf);
			buf = expected;
		}
		*row = buf;
		return 1;
	}
	atomic_fetch_sub(&mc->zcache_bytes, row_bytes);
	*tmp = buf;
	*row = buf;
	return 1;
}
#endif

/* The stored bytes of row (metric, cnode): 1 and *row (in the writer's byte
 * order; *tmp set when the caller must free it), or 0 when there is none. */
int profdb__cube_get_row(const profdb_cube *c, cube_metric *m, uint32_t cnode,
                         const unsigned char **row, unsigned char **tmp)
{
	uint64_t row_bytes = (uint64_t)c->n_locs * m->vsize;
	uint32_t k;
	*tmp = NULL;
	if (!m->has_data || !row_index(c, m, cnode, &k))
		return 0;
	if (!m->zipped) {
		if (k >= m->rows_avail)
			return 0;
		return profdb__range(&c->tar, m->rows_off + (uint64_t)k * row_bytes, row_bytes,
		                     m->data_member->name, row) < 0 ? -EBADMSG : 1;
	}
	if (!m->zsize[k])
		return 0;
#ifdef PROFDB_HAVE_ZLIB
	return zrow(c, m, k, row, tmp);
#else
	return profdb__fail(-ENOTSUP, "%s: member '%s' is ZCUBEX-compressed and profdb was built "
	                    "without zlib", c->path, m->data_member->name);
#endif
}

double profdb__cube_neutral(const cube_metric *m)
{
	if (m->dtype == PROFDB_CUBE_MINDOUBLE)
		return DBL_MAX;
	if (m->dtype == PROFDB_CUBE_MAXDOUBLE)
		return -DBL_MAX;
	return 0.0;
}

static int check_ids(const profdb_cube *c, uint32_t metric, uint32_t cnode)
{
	if (!c)
		return profdb__fail(-EINVAL, "profdb_cube: NULL handle");
	if (metric >= c->n_metrics)
		return profdb__fail(-ENOENT, "%s: no metric %" PRIu32 " (%" PRIu32 " metrics)",
		                    c->path, metric, c->n_metrics);
	if (cnode >= c->n_cnodes)
		return profdb__fail(-ENOENT, "%s: no cnode %" PRIu32 " (%" PRIu32 " cnodes)",
		                    c->path, cnode, c->n_cnodes);
	return 0;
}

PROFDB_EXPORT int profdb_cube_value_get(const profdb_cube *c, uint32_t location, uint32_t cnode,
                                        uint32_t metric, double *out)
{
	if (!out)
		return profdb__fail(-EINVAL, "profdb_cube_value_get: NULL output");
	*out = 0.0;
	int r = check_ids(c, metric, cnode);
	if (r < 0)
		return r;
	if (location >= c->n_locs)
		return profdb__fail(-ENOENT, "%s: no location %" PRIu32 " (%" PRIu32 " locations)",
		                    c->path, location, c->n_locs);
	cube_metric *m = &c->metrics[metric];
	if (m->dtype == PROFDB_CUBE_SCALE_FUNC)
		return profdb__fail(-ENOTSUP, "%s: metric %" PRIu32 " ('%s') has dtype %s, not one "
		                    "number; use profdb_cube_row_get()", c->path, metric,
		                    profdb__cube_s(c, m->name), profdb__cube_s(c, m->dtype_text));
	const unsigned char *row;
	unsigned char *tmp;
	r = profdb__cube_get_row(c, m, cnode, &row, &tmp);
	if (r <= 0) {
		if (r == 0)
			*out = profdb__cube_neutral(m);
		return r;
	}
	*out = profdb__cube_cell(m, row, location, 0);
	free(tmp);
	return 1;
}

static double f64_at(const unsigned char *v, int swap)
{
	return profdb__f64_bits(cube_ld64(v, swap));
}

double profdb__cube_cell(const cube_metric *m, const unsigned char *row, uint32_t location,
                         int cubelib)
{
	const unsigned char *v = row + (size_t)location * m->vsize;
	int s = m->swap;
	switch (m->dtype) {
	case PROFDB_CUBE_INT8: return (int8_t)v[0];
	case PROFDB_CUBE_UINT8: return v[0];
	case PROFDB_CUBE_INT16: return (int16_t)(s ? profdb__be16(v) : profdb__le16(v));
	case PROFDB_CUBE_UINT16: return s ? profdb__be16(v) : profdb__le16(v);
	case PROFDB_CUBE_INT32: return (int32_t)cube_ld32(v, s);
	case PROFDB_CUBE_UINT32: return cube_ld32(v, s);
	case PROFDB_CUBE_INT64: return (double)(int64_t)cube_ld64(v, s);
	case PROFDB_CUBE_UINT64: {
		uint64_t u = cube_ld64(v, s);
		/* CubeLib passes these through double and back to uint64_t; above
		 * this bound the double is 2^64 and the conversion yields 0. */
		if (cubelib && u > UINT64_C(0xFFFFFFFFFFFFFBFF))
			return 0.0;
		return (double)u;
	}
	case PROFDB_CUBE_COMPLEX: {
		double re = f64_at(v, s), im = f64_at(v + 8, s);
		return sqrt(re * re + im * im);
	}
	case PROFDB_CUBE_RATE: {
		double num = f64_at(v, s), dur = f64_at(v + 8, s);
		return dur == 0.0 ? NAN : num / dur;
	}
	case PROFDB_CUBE_TAU_ATOMIC: {
		/* the average, CubeLib's default view: sum / N, and for N = 0
		 * sum / 1e-256 (0 for the usual sum 0), as TauAtomicValue does */
		uint32_t n = cube_ld32(v, s);
		double sum = f64_at(v + 4 + 16, s);
		return n ? sum / n : sum / 1e-256;
	}
	case PROFDB_CUBE_NDOUBLES: case PROFDB_CUBE_HISTOGRAM: {
		/* the sum of the doubles (a histogram's bins, after min and max) */
		uint32_t first = m->dtype == PROFDB_CUBE_HISTOGRAM ? 2 : 0;
		double sum = 0.0;
		for (uint32_t i = first; i < m->vsize / 8; i++)
			sum += f64_at(v + (size_t)i * 8, s);
		return sum;
	}
	case PROFDB_CUBE_SCALE_FUNC: return NAN;
	default: return f64_at(v, s);
	}
}

static void swap_bytes(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		unsigned char t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* Bring one stored field of @p n bytes to host order. */
static void to_host(unsigned char *p, size_t n, int file_be)
{
	int host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	if (n > 1 && file_be != host_be)
		swap_bytes(p, n);
}

PROFDB_EXPORT int profdb_cube_row_get(const profdb_cube *c, uint32_t cnode, uint32_t metric,
                                      void *buf, size_t size)
{
	if (!buf)
		return profdb__fail(-EINVAL, "profdb_cube_row_get: NULL buffer");
	int r = check_ids(c, metric, cnode);
	if (r < 0)
		return r;
	cube_metric *m = &c->metrics[metric];
	uint64_t row_bytes = (uint64_t)c->n_locs * m->vsize;
	if (!buf || size < row_bytes)
		return profdb__fail(buf ? -ERANGE : -EINVAL, "%s: metric %" PRIu32 ": a row needs %"
		                    PRIu64 " bytes, the buffer has %zu", c->path, metric, row_bytes,
		                    size);
	const unsigned char *row;
	unsigned char *tmp;
	r = profdb__cube_get_row(c, m, cnode, &row, &tmp);
	unsigned char *o = buf;
	if (r <= 0) {
		if (m->dtype == PROFDB_CUBE_MINDOUBLE || m->dtype == PROFDB_CUBE_MAXDOUBLE) {
			double d = profdb__cube_neutral(m);
			for (uint32_t l = 0; l < c->n_locs; l++)
				memcpy(o + (size_t)l * 8, &d, 8);
		} else {
			memset(o, 0, (size_t)row_bytes);
		}
		return r;
	}
	memcpy(o, row, (size_t)row_bytes);
	free(tmp);
	/* swap == 1: the writer was big-endian (its marker reads 1 big-endian). */
	int file_be = m->swap;
	for (uint32_t l = 0; l < c->n_locs; l++) {
		unsigned char *v = o + (size_t)l * m->vsize;
		switch (m->dtype) {
		case PROFDB_CUBE_SCALE_FUNC:
			break; /* opaque, as stored */
		case PROFDB_CUBE_TAU_ATOMIC:
			to_host(v, 4, file_be);
			for (int f = 0; f < 4; f++)
				to_host(v + 4 + f * 8, 8, file_be);
			break;
		case PROFDB_CUBE_COMPLEX: case PROFDB_CUBE_RATE: case PROFDB_CUBE_HISTOGRAM:
		case PROFDB_CUBE_NDOUBLES:
			for (uint32_t f = 0; f < m->vsize / 8; f++)
				to_host(v + (size_t)f * 8, 8, file_be);
			break;
		default:
			to_host(v, m->vsize, file_be);
			break;
		}
	}
	return 1;
}
