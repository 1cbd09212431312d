/* The Cube backend of the common query interface (lib/query/backend.h):
 * metrics = the anchor's metrics (derived ones included, without values),
 * contexts = cnodes, profiles = locations, values = stored cells.
 *
 * The handle itself is the backend's impl; nothing is built lazily here.
 * Values: integer dtypes come back as U64/I64 exactly as stored, DOUBLE and
 * MIN/MAXDOUBLE bit for bit as F64, the structured dtypes as one F64 number
 * (profdb__cube_cell's rule). Inclusive/exclusive use profdb_cube_severity_get
 * at one location (CubeLib's rule, doc/FORMATS.md "Cube"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cube-internal.h"
#include "layout-internal.h"
#include "../core/backend-internal.h"

/* ---- opening ---------------------------------------------------------------------- */

/* A ustar archive whose first member is one a .cubex file starts with, or
 * anything (a gzip stream too) named *.cubex. */
static int q_sniff(const unsigned char *head, size_t n, const char *name)
{
	if (profdb__ends_with(name, ".cubex"))
		return (n >= TAR_MAGIC + TAR_MAGIC_LEN &&
		        memcmp(head + TAR_MAGIC, "ustar", TAR_MAGIC_LEN) == 0) ||
		       (n >= 2 && head[0] == 0x1f && head[1] == 0x8b);
	if (n < TAR_MAGIC + TAR_MAGIC_LEN || memcmp(head + TAR_MAGIC, "ustar", TAR_MAGIC_LEN) != 0)
		return 0;
	char first[TAR_NAME_LEN + 1];
	memcpy(first, head + TAR_NAME, TAR_NAME_LEN);
	first[TAR_NAME_LEN] = 0;
	if (!strcmp(first, "anchor.xml") || !strcmp(first, "remapping.spec"))
		return 1;
	size_t i = strncmp(first, "ghost_", 6) == 0 ? 6 : 0, d = i;
	while (first[i] >= '0' && first[i] <= '9')
		i++;
	return i > d && (!strcmp(first + i, ".data") || !strcmp(first + i, ".index"));
}

static int q_open_path(void **impl, const char *path, const profdb_options *opts)
{
	profdb_cube *c;
	int r = profdb_cube_open(&c, path, opts);
	*impl = r < 0 ? NULL : c;
	return r;
}

static int q_open_inputs(void **impl, const profdb_input *in, size_t n,
                         const profdb_options *opts)
{
	*impl = NULL;
	if (n != 1)
		return profdb__fail(-EINVAL, "a Cube archive is one input, not %zu", n);
	profdb_cube *c;
	int r = profdb_cube_open_mem(&c, in[0].data, in[0].size, opts);
	if (r == 0)
		*impl = c;
	return r;
}

static void q_close(void *impl)
{
	profdb_cube_close(impl);
}

/* ---- description ------------------------------------------------------------------ */

static int q_about(const void *impl, profdb_about *out)
{
	const profdb_cube *c = impl;
	out->format = PROFDB_FORMAT_CUBE;
	out->version = profdb__str(profdb__cube_s(c, c->anchor_version));
	out->title = profdb__str(profdb__cube_s(c, c->creator));
	return 0;
}

/* Rows present for metric m (ZCUBEX: entries with a block; uncompressed:
 * the rows the member holds). */
static uint64_t rows_present(const cube_metric *m)
{
	if (!m->has_data)
		return 0;
	if (!m->zipped)
		return m->rows_avail;
	uint64_t n = 0;
	for (uint32_t k = 0; k < m->nrows; k++)
		n += m->zsize[k] != 0;
	return n;
}

static int q_counts(const void *impl, profdb_counts *out)
{
	const profdb_cube *c = impl;
	memset(out, 0, sizeof *out);
	out->profiles = c->n_locs;
	out->contexts = c->n_cnodes;
	out->metrics = c->n_metrics;
	for (uint32_t i = 0; i < c->n_metrics; i++)
		out->values += (int64_t)(rows_present(&c->metrics[i]) * c->n_locs);
	return 0;
}

/* ---- metrics ------------------------------------------------------------------------- */

static int64_t q_metric_count(const void *impl)
{
	return ((const profdb_cube *)impl)->n_metrics;
}

static profdb_type type_of(const cube_metric *m)
{
	switch (m->dtype) {
	case PROFDB_CUBE_UINT8: case PROFDB_CUBE_UINT16: case PROFDB_CUBE_UINT32:
	case PROFDB_CUBE_UINT64:
		return PROFDB_TYPE_U64;
	case PROFDB_CUBE_INT8: case PROFDB_CUBE_INT16: case PROFDB_CUBE_INT32:
	case PROFDB_CUBE_INT64:
		return PROFDB_TYPE_I64;
	default:
		return PROFDB_TYPE_F64;
	}
}

/* CubeLib's value class for the dtype, as far as the single number the
 * common model gives (profdb_cube_value_get) combines: numbers and NDOUBLES
 * (the sum of their doubles) add, MINDOUBLE / MAXDOUBLE take the minimum /
 * maximum; |z| of a COMPLEX, a RATE's quotient and a TAU_ATOMIC's mean do
 * not add, and HISTOGRAM / SCALE_FUNC are not one additive number either.
 * doc/model.md, "Combining numbers". */
static profdb_combine combine_of(const cube_metric *m)
{
	if (m->kind >= PROFDB_CUBE_POSTDERIVED)
		return PROFDB_COMBINE_NONE;   /* CubePL: not evaluated, no values */
	switch (m->dtype) {
	case PROFDB_CUBE_MINDOUBLE: return PROFDB_COMBINE_MIN;
	case PROFDB_CUBE_MAXDOUBLE: return PROFDB_COMBINE_MAX;
	case PROFDB_CUBE_COMPLEX: case PROFDB_CUBE_RATE: case PROFDB_CUBE_TAU_ATOMIC:
	case PROFDB_CUBE_HISTOGRAM: case PROFDB_CUBE_SCALE_FUNC:
		return PROFDB_COMBINE_NONE;
	default:
		return PROFDB_COMBINE_SUM;    /* integers, DOUBLE, NDOUBLES */
	}
}

static int q_metric_at(const void *impl, uint32_t index, profdb_metric *out)
{
	const profdb_cube *c = impl;
	if (index >= c->n_metrics)
		return profdb__fail(-ENOENT, "%s: no metric %" PRIu32 " (%" PRIu32 " metrics)",
		                    c->path, index, c->n_metrics);
	const cube_metric *m = &c->metrics[index];
	memset(out, 0, sizeof *out);
	out->id = index;
	out->name = profdb__str(profdb__cube_s(c, m->name));
	out->unit = profdb__str(profdb__cube_s(c, m->unit));
	int derived = m->kind >= PROFDB_CUBE_POSTDERIVED;
	out->description = profdb__str(profdb__cube_s(c, derived ? m->expr : m->descr));
	out->kind = derived ? PROFDB_METRIC_DERIVED
	            : m->kind == PROFDB_CUBE_INCLUSIVE ? PROFDB_METRIC_INCLUSIVE
	                                               : PROFDB_METRIC_EXCLUSIVE;
	out->statistic = profdb__str(NULL);
	out->type = type_of(m);
	/* one stored scope; the other is computed (profdb_cube_severity_get) */
	out->exclusive_id = out->inclusive_id = derived ? PROFDB_NONE : index;
	out->has_data = m->has_data;
	out->combine = combine_of(m);
	out->scale = 1;
	return 0;
}

/* CubeLib's "visits": how often each cnode was entered, stored at it. */
static int q_call_count_metric(const void *impl, uint32_t *id)
{
	const profdb_cube *c = impl;
	for (uint32_t i = 0; i < c->n_metrics; i++) {
		const cube_metric *m = &c->metrics[i];
		if (m->has_data && m->kind < PROFDB_CUBE_POSTDERIVED &&
		    strcmp(profdb__cube_s(c, m->name), "visits") == 0) {
			*id = i;
			return 1;
		}
	}
	return 0;
}

/* ---- contexts ------------------------------------------------------------------------ */

static int64_t q_context_count(const void *impl)
{
	return ((const profdb_cube *)impl)->n_cnodes;
}

static int q_context_root(const void *impl, uint32_t *id)
{
	const profdb_cube *c = impl;
	if (c->first_root == PROFDB_NONE)
		return profdb__fail(-ENOENT, "%s: the call tree is empty", c->path);
	*id = c->first_root;
	return 0;
}

static int q_context_get(const void *impl, uint32_t id, profdb_context *out)
{
	const profdb_cube *c = impl;
	if (id >= c->n_cnodes)
		return profdb__fail(-ENOENT, "%s: no cnode %" PRIu32 " (%" PRIu32 " cnodes)", c->path,
		                    id, c->n_cnodes);
	const cube_cnode *n = &c->cnodes[id];
	const cube_region *g = &c->regions[n->region];
	memset(out, 0, sizeof *out);
	out->id = id;
	out->parent = n->parent;
	out->first_child = n->first_child;
	out->next_sibling = n->next_sibling;
	out->depth = n->depth;
	out->relation = n->parent == PROFDB_NONE ? PROFDB_RELATION_NONE : PROFDB_RELATION_CALL;
	out->type = PROFDB_CTX_FUNCTION;
	out->function = profdb__str(profdb__cube_s(c, g->name));
	out->file = profdb__str(profdb__cube_s(c, n->mod ? n->mod : g->mod));
	out->line = n->line > 0 ? (uint64_t)n->line : g->begin > 0 ? (uint64_t)g->begin : 0;
	out->module = profdb__str(NULL);
	out->in_tree = 1;
	return 0;
}

/* ---- profiles ------------------------------------------------------------------------ */

static int64_t q_profile_count(const void *impl)
{
	return ((const profdb_cube *)impl)->n_locs;
}

static int q_profile_get(const void *impl, uint32_t index, profdb_profile *out)
{
	const profdb_cube *c = impl;
	out->index = index;
	out->is_summary = 0;
	out->name = profdb__str(profdb__cube_s(c, c->locs[index].name));
	if (out->name.len == 0)   /* a profile name is never empty (doc/model.md) */
		out->name = profdb__str("<unnamed location>");
	out->n_identity = 3;
	return 0;
}

/* rank (of the location group), thread (the location's rank), location id */
static int q_profile_identity(const void *impl, uint32_t index, uint32_t i, profdb_str *kind,
                              uint64_t *value)
{
	const profdb_cube *c = impl;
	const cube_location *l = &c->locs[index];
	static const char *const kinds[3] = {"rank", "thread", "location"};
	const int64_t v[3] = {c->groups[l->group].rank, l->rank, index};
	*kind = profdb__str(kinds[i]);   /* i < n_identity = 3: checked by lib/query */
	*value = (uint64_t)v[i];
	return 0;
}

/* ---- values ---------------------------------------------------------------------------- */

/* Cnode and metric in range (lib/query has checked the location). */
static int check_ids(const profdb_cube *c, uint32_t ctx, uint32_t m)
{
	if (ctx >= c->n_cnodes)
		return profdb__fail(-ENOENT, "%s: no cnode %" PRIu32, c->path, ctx);
	if (m >= c->n_metrics)
		return profdb__fail(-ENOENT, "%s: no metric %" PRIu32, c->path, m);
	return 0;
}

/* Location @p p's number in a stored @p row of metric @p m. */
static void decode(const cube_metric *m, const unsigned char *row, uint32_t p,
                   profdb_number *out)
{
	const unsigned char *v = row + (size_t)p * m->vsize;
	int s = m->swap;
	out->type = type_of(m);
	switch (m->dtype) {
	case PROFDB_CUBE_UINT8: out->as.u64 = v[0]; break;
	case PROFDB_CUBE_INT8: out->as.i64 = (int8_t)v[0]; break;
	case PROFDB_CUBE_UINT16: out->as.u64 = s ? profdb__be16(v) : profdb__le16(v); break;
	case PROFDB_CUBE_INT16: out->as.i64 = (int16_t)(s ? profdb__be16(v) : profdb__le16(v)); break;
	case PROFDB_CUBE_UINT32: out->as.u64 = s ? profdb__be32(v) : profdb__le32(v); break;
	case PROFDB_CUBE_INT32: out->as.i64 = (int32_t)(s ? profdb__be32(v) : profdb__le32(v)); break;
	case PROFDB_CUBE_UINT64: out->as.u64 = s ? profdb__be64(v) : profdb__le64(v); break;
	case PROFDB_CUBE_INT64: out->as.i64 = (int64_t)(s ? profdb__be64(v) : profdb__le64(v)); break;
	/* the stored bits, as profdb__cube_cell reads them, without its call */
	case PROFDB_CUBE_DOUBLE: case PROFDB_CUBE_MINDOUBLE: case PROFDB_CUBE_MAXDOUBLE:
		out->as.u64 = cube_ld64(v, s);
		break;
	default: out->as.f64 = profdb__cube_cell(m, row, p, 0); break;
	}
}

/* The stored cell as a typed number: 1, or 0 (no row) with type NONE. */
static int cell(const profdb_cube *c, uint32_t p, uint32_t ctx, uint32_t mi, profdb_number *out)
{
	cube_metric *m = &c->metrics[mi];
	const unsigned char *row;
	unsigned char *tmp;
	out->type = PROFDB_TYPE_NONE;
	out->as.u64 = 0;
	int r = profdb__cube_get_row(c, m, ctx, &row, &tmp);
	if (r <= 0)
		return r;
	decode(m, row, p, out);
	free(tmp);
	return 1;
}

static int q_value(const void *impl, uint32_t p, uint32_t ctx, uint32_t m, profdb_number *out)
{
	const profdb_cube *c = impl;
	int r = check_ids(c, ctx, m);
	return r < 0 ? r : cell(c, p, ctx, m, out);
}

static int q_scoped(const void *impl, uint32_t p, uint32_t ctx, uint32_t m, int inclusive,
                    profdb_number *out)
{
	const profdb_cube *c = impl;
	int r = check_ids(c, ctx, m);
	if (r < 0)
		return r;
	double v;
	r = profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_LOCATION, p, ctx, m,
	                         inclusive ? PROFDB_CUBE_CALL_INCLUSIVE : 0, &v);
	if (r < 0)
		return r;
	out->type = PROFDB_TYPE_F64;
	out->as.f64 = v;
	return profdb__cube_is_value(&c->metrics[m], v);
}

/* The views' one pass (lib/core/backend-internal.h, scoped_all). */
static int q_scoped_all(const void *impl, uint32_t m, int inclusive, const uint32_t *profiles,
                        size_t np, double *out, uint8_t *found)
{
	const profdb_cube *c = impl;
	if (m >= c->n_metrics)
		return profdb__fail(-ENOENT, "%s: no metric %" PRIu32, c->path, m);
	return profdb__cube_call_view_all(c, m, inclusive, profiles, np, out, found);
}

/* ---- the cursor: pos[0] profile, pos[1] context (id order), pos[2] metric ------------
 * Orders: SCAN_PROFILE (one location) yields its stored cells by (context id,
 * metric id); SCAN_CONTEXT (one cnode) by (profile, metric id); a full scan
 * by (profile, context id, metric id). profile_view / context_view /
 * trace_view are left NULL: lib/query materialises the views from this
 * cursor, and Cube has no traces. */

/* A full scan wants the cells profile by profile, but a row holds one
 * (cnode, metric) cell of every location: read in that order, each cell
 * would be a cache miss of its own. So the scan decodes a tile: the cells
 * of a few consecutive profiles from every row, each row decoded once per
 * tile, then hands them out profile by profile from the tile. The tile
 * aims at TILE_BYTES, a part of the L2 cache; TILE_MAX_WIDTH profiles of
 * 8-byte cells are one cache line of a row. The rows found for the first
 * tile are kept for the others (NO_ROW: not stored; UNKEPT: a ZCUBEX row
 * inflated past the shared cache, inflated again for each tile). Past
 * MEMO_CAP no tile: every cell is looked up. */
#define TILE_BYTES ((uint64_t)512 << 10)
#define MEMO_CAP ((uint64_t)64 << 20)
enum { TILE_MAX_WIDTH = 8 };
static const unsigned char NO_ROW[1], UNKEPT[1];

typedef struct scan_tile {
	uint32_t p0, np;          /* profiles [p0, p0 + np) are decoded */
	uint32_t width;           /* profiles per tile */
	size_t slots;             /* n_cnodes x n_metrics, slot = cnode x n_metrics + metric */
	const unsigned char **row;   /* per slot: the row, NO_ROW, UNKEPT, NULL: not yet found */
	uint64_t *bits;           /* bits[(p - p0) * slots + slot]: the number's bits */
	profdb_type *type;        /* n_metrics: the numbers' type */
} scan_tile;

static void tile_free(scan_tile *t)
{
	if (!t)
		return;
	free(t->row);
	free(t->bits);
	free(t->type);
	free(t);
}

/* A tile for a full scan of @p c, or NULL (too large, out of memory: the
 * scan then looks up every cell). */
static scan_tile *tile_new(const profdb_cube *c)
{
	uint64_t slots = (uint64_t)c->n_cnodes * c->n_metrics, w = TILE_MAX_WIDTH;
	if (c->n_locs < 2 || slots == 0)
		return NULL;
	while (w > 1 && slots * 8 * w > TILE_BYTES)
		w /= 2;
	if (w > c->n_locs)
		w = c->n_locs;
	if (slots * (8 * w + sizeof(void *)) > MEMO_CAP)
		return NULL;
	scan_tile *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->width = (uint32_t)w;
	t->slots = (size_t)slots;
	t->row = calloc(t->slots, sizeof *t->row);
	t->bits = malloc(t->slots * w * sizeof *t->bits);
	t->type = malloc(c->n_metrics * sizeof *t->type);
	if (!t->row || !t->bits || !t->type) {
		tile_free(t);
		return NULL;
	}
	for (uint32_t mi = 0; mi < c->n_metrics; mi++)
		t->type[mi] = type_of(&c->metrics[mi]);
	/* the first tile writes nearly every cell: its pages in one call */
	profdb__prefault_write(t->bits, t->slots * w * sizeof *t->bits);
	return t;
}

/* Decode the cells of profiles [p0, p0 + np) of rows x0 .. x0 + n - 1 of
 * metric @p mi: all rows found and their cells prefetched first, then
 * decoded, so that the reads of the file's first touch overlap. */
enum { FILL_AHEAD = 32 };

static int tile_fill_rows(const profdb_cube *c, scan_tile *t, uint32_t mi, uint32_t x0,
                          uint32_t n, uint32_t p0, uint32_t np)
{
	cube_metric *m = &c->metrics[mi];
	const unsigned char *rows[FILL_AHEAD];
	unsigned char *tmp[FILL_AHEAD];
	for (uint32_t j = 0; j < n; j++) {
		const unsigned char **known = &t->row[(size_t)(x0 + j) * c->n_metrics + mi];
		tmp[j] = NULL;
		rows[j] = *known == NO_ROW ? NULL : *known;
		if (!*known || *known == UNKEPT) {
			int r = profdb__cube_get_row(c, m, x0 + j, &rows[j], &tmp[j]);
			if (r < 0) {
				while (j > 0)
					free(tmp[--j]);
				return r;
			}
			if (r == 0)
				rows[j] = NULL;
			*known = r == 0 ? NO_ROW : tmp[j] ? UNKEPT : rows[j];
		}
		if (rows[j]) {
			const unsigned char *cells = rows[j] + (size_t)p0 * m->vsize;
			__builtin_prefetch(cells);
			__builtin_prefetch(cells + (size_t)np * m->vsize - 1);
		}
	}
	for (uint32_t j = 0; j < n; j++) {
		size_t slot = (size_t)(x0 + j) * c->n_metrics + mi;
		for (uint32_t k = 0; rows[j] && k < np; k++) {
			profdb_number v;
			decode(m, rows[j], p0 + k, &v);
			t->bits[(size_t)k * t->slots + slot] = v.as.u64;
		}
		free(tmp[j]);
	}
	return 0;
}

/* Decode the cells of profiles [p0, p0 + width) of every row. */
static int tile_fill(const profdb_cube *c, scan_tile *t, uint32_t p0)
{
	uint32_t np = c->n_locs - p0 < t->width ? c->n_locs - p0 : t->width;
	t->p0 = p0;
	t->np = 0;   /* nothing valid until the whole tile is */
	for (uint32_t mi = 0; mi < c->n_metrics; mi++) {
		for (uint32_t x = 0; x < c->n_cnodes; x += FILL_AHEAD) {
			uint32_t n = c->n_cnodes - x < FILL_AHEAD ? c->n_cnodes - x : FILL_AHEAD;
			int r = tile_fill_rows(c, t, mi, x, n, p0, np);
			if (r < 0)
				return r;
		}
	}
	t->np = np;
	return 0;
}

/* An entry with every byte set, padding too (callers compare them whole). */
static void put_entry(profdb_entry *e, uint32_t p, uint32_t x, uint32_t m, profdb_type type,
                      uint64_t bits)
{
	memset(e, 0, sizeof *e);
	e->profile = p;
	e->context = x;
	e->metric = m;
	e->value.type = type;
	e->value.as.u64 = bits;
}

/* Up to @p n entries of a full scan through the tile; a row that cannot
 * be read drops the tile (cur->priv NULL) and ends the block early. */
static int64_t tile_block(const profdb_cube *c, profdb__cursor *cur, profdb_entry *out,
                          size_t n)
{
	scan_tile *t = cur->priv;
	uint64_t *p = &cur->pos[0], *x = &cur->pos[1], *m = &cur->pos[2];
	size_t k = 0;
	while (k < n) {
		if (*m >= c->n_metrics) {
			*m = 0;
			if (++*x >= c->n_cnodes) {
				*x = 0;
				++*p;
			}
		}
		if (*p >= c->n_locs || c->n_cnodes == 0)
			break;
		if (*p >= (uint64_t)t->p0 + t->np || *p < t->p0) {
			if (tile_fill(c, t, (uint32_t)*p) < 0) {
				tile_free(t);   /* the caller goes on cell by cell */
				cur->priv = NULL;
				break;
			}
		}
		uint32_t mi = (uint32_t)(*m)++;
		size_t slot = (size_t)*x * c->n_metrics + mi;
		if (t->row[slot] == NO_ROW)
			continue;
		put_entry(&out[k++], (uint32_t)*p, (uint32_t)*x, mi, t->type[mi],
		          t->bits[(size_t)(*p - t->p0) * t->slots + slot]);
	}
	return (int64_t)k;
}

static int q_cursor_begin(const void *impl, profdb__cursor *cur)
{
	const profdb_cube *c = impl;
	memset(cur->pos, 0, sizeof cur->pos);
	cur->priv = NULL;
	switch (cur->scan) {
	case PROFDB_SCAN_PROFILE:
		cur->pos[0] = cur->key;
		break;
	case PROFDB_SCAN_CONTEXT:
		if (cur->key >= c->n_cnodes)
			return profdb__fail(-ENOENT, "%s: no cnode %" PRIu32, c->path, cur->key);
		cur->pos[1] = cur->key;
		break;
	default:
		cur->priv = tile_new(c);
		break;
	}
	return 0;
}

static void q_cursor_free(const void *impl, profdb__cursor *cur)
{
	(void)impl;
	tile_free(cur->priv);
	cur->priv = NULL;
}

static int64_t q_cursor_block(const void *impl, profdb__cursor *cur, profdb_entry *out,
                              size_t n)
{
	const profdb_cube *c = impl;
	size_t k = 0;
	if (cur->priv) {
		int64_t r = tile_block(c, cur, out, n);
		if (cur->priv)
			return r;
		/* A row could not be read: the rest cell by cell, so that the
		 * error comes where a reading of single cells meets it. */
		k = (size_t)r;
	}
	uint64_t *p = &cur->pos[0], *x = &cur->pos[1], *m = &cur->pos[2];
	while (k < n) {
		if (*m >= c->n_metrics) {
			*m = 0;
			if (cur->scan == PROFDB_SCAN_CONTEXT) {
				++*p;
			} else if (++*x >= c->n_cnodes) {
				*x = 0;
				if (cur->scan == PROFDB_SCAN_PROFILE)
					*p = c->n_locs;
				else
					++*p;
			}
		}
		if (*p >= c->n_locs || c->n_cnodes == 0)
			break;
		uint32_t mi = (uint32_t)(*m)++;
		profdb_number v;
		int r = cell(c, (uint32_t)*p, (uint32_t)*x, mi, &v);
		if (r < 0 && k) {
			--*m;   /* this cell again on the next call, which returns the error */
			return (int64_t)k;
		}
		if (r < 0)
			return r;
		if (r)
			put_entry(&out[k++], (uint32_t)*p, (uint32_t)*x, mi, v.type, v.as.u64);
	}
	return (int64_t)k;
}

static int q_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out)
{
	return (int)q_cursor_block(impl, cur, out, 1);
}

const profdb__backend profdb__cube_backend = {
	.format = PROFDB_FORMAT_CUBE,
	.sniff = q_sniff,
	.open_path = q_open_path,
	.open_inputs = q_open_inputs,
	.close = q_close,
	.about = q_about,
	.counts = q_counts,
	.metric_count = q_metric_count,
	.metric_at = q_metric_at,
	.call_count_metric = q_call_count_metric,
	.context_count = q_context_count,
	.context_root = q_context_root,
	.context_get = q_context_get,
	.profile_count = q_profile_count,
	.profile_get = q_profile_get,
	.profile_identity = q_profile_identity,
	.value = q_value,
	.scoped = q_scoped,
	.scoped_all = q_scoped_all,
	.cursor_begin = q_cursor_begin,
	.cursor_next = q_cursor_next,
	.cursor_free = q_cursor_free,
	.cursor_block = q_cursor_block,
};
