/* Shared driver of the HPCToolkit 4.0 fuzz targets: open, call every public
 * function on everything the database claims to hold, assert invariants.
 * The header lists the invariants; each FUZZ_CHECK below names one. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "fuzz-common.h"

#include "../tests/hpctk-views.h"
#ifdef PROFDB_FUZZ_HAVE_WRITER
#include "writer.h"
#endif

int fuzz_hpctk_strict;
int fuzz_hpctk_verbose;
fuzz_hpctk_stats fuzz_hpctk_stats_total;

/* Caps on the work done per input. Counts in a file are bounded by its size
 * (every array is checked to lie inside it), but blocks may be shared, so
 * the number of elements reachable can grow quadratically. */
enum {
	MAX_TABLE = 1 << 16,          /* metrics, modules, files, functions */
	MAX_PROFILES = 4096,
	MAX_SLOTS = 16384,            /* cct.db context slots */
	MAX_TRACES = 4096,
	MAX_PAIRS = 1 << 20,          /* plane pairs visited, all planes together */
	MAX_ELEMS = 1 << 18,          /* trace elements visited, all lines together */
	MAX_SEEKS_PER_LINE = 512,     /* elements of a line that get seek/window probes */
};

typedef struct drv {
	const profdb_hpctk *db;
	const profdb_input *files;
	int present[PROFDB_HPCTK_NFILES];
	/* meta.db table sizes, PROFDB_NONE-checked indices must be below them */
	int64_t n_modules, n_files, n_functions;
	/* 1 while every profile and cct.db plane was visited and valid */
	int complete;
	/* the files come from different databases (a single-file target's
	 * companion pass): value mismatches are expected, never fatal */
	int mixed;
	int check_ok;          /* profdb_hpctk_check() found the files consistent */
	int64_t metrics;       /* profdb_hpctk_metric_count(): < 0 when the table failed */
	uint8_t prop_ids[65536 / 8], stat_ids[65536 / 8];   /* ids meta.db defines */
	uint64_t pairs, elems;
} drv;

/* ---- calls: every failure must carry a documented errno and a message ---- */

/* Clear the message, make the call, check a failure's code and message
 * (fuzz-common.h). */
#define CALL FUZZ_CALL

/* ---- views must lie inside the buffers ------------------------------------ */

static int inside(const profdb_input *b, const void *p, uint64_t len)
{
	if (!b->data || !p)
		return 0;
	uintptr_t lo = (uintptr_t)b->data, x = (uintptr_t)p;
	return x >= lo && x - lo <= b->size && len <= b->size - (x - lo);
}

static void check_string(const drv *d, profdb_hpctk_file f, profdb_str str, const char *what)
{
	const profdb_input *b = &d->files[f];
	const char *s = str.ptr;
	FUZZ_CHECK(s != NULL, "%s is NULL", what);
	FUZZ_CHECK(inside(b, s, 1), "%s %p is outside file %d [%p, +%zu)", what, (const void *)s,
	           (int)f, b->data, b->size);
	size_t room = b->size - (size_t)((uintptr_t)s - (uintptr_t)b->data);
	FUZZ_CHECK(memchr(s, 0, room) != NULL, "%s has no NUL inside file %d", what, (int)f);
	FUZZ_CHECK(strlen(s) == str.len, "%s: length %zu, but the string has %zu bytes", what,
	           str.len, strlen(s));
}

static void check_index(int64_t count, uint32_t i, const char *what)
{
	FUZZ_CHECK(i == PROFDB_NONE || (count >= 0 && i < (uint64_t)count),
	           "%s index %" PRIu32 " is neither PROFDB_NONE nor below the count %" PRId64, what,
	           i, count);
}

static int same_bits(double a, double b)
{
	uint64_t x, y;
	memcpy(&x, &a, 8);
	memcpy(&y, &b, 8);
	return x == y;
}

/* ---- file-level ------------------------------------------------------------ */

static void drive_files(drv *d)
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		uint8_t major = 0, minor = 0;
		FUZZ_CHECK(profdb_hpctk_has(d->db, (profdb_hpctk_file)f) == d->present[f],
		           "profdb_hpctk_has(%d) disagrees with the input", f);
		int64_t r = CALL(profdb_hpctk_version(d->db, (profdb_hpctk_file)f, &major, &minor));
		FUZZ_CHECK(d->present[f] ? r == 0 && major == 4 : r == -ENOENT,
		           "version of file %d: %" PRId64 ", major %u", f, r, major);
	}
	FUZZ_CHECK(CALL(profdb_hpctk_has(d->db, PROFDB_HPCTK_NFILES)) == -EINVAL, "has(NFILES) is not -EINVAL");
	FUZZ_CHECK(CALL(profdb_hpctk_version(d->db, PROFDB_HPCTK_NFILES, NULL, NULL)) == -EINVAL,
	           "version(NFILES) is not -EINVAL");
	profdb_hpctk_layout l = profdb_hpctk_get_layout(d->db);
	FUZZ_CHECK(l == PROFDB_HPCTK_FINAL || l == PROFDB_HPCTK_DEVSTAGE, "layout %d", (int)l);
}

/* ---- meta.db: title, identifier kinds, metrics, tables --------------------- */

static void drive_general(drv *d)
{
	profdb_str t = {"", 0}, desc = {"", 0};
	int64_t r = CALL(profdb_hpctk_title(d->db, &t, &desc));
	if (!d->present[PROFDB_HPCTK_META])
		FUZZ_CHECK(r == -ENOENT, "title without meta.db: %" PRId64, r);
	if (r == 0) {
		check_string(d, PROFDB_HPCTK_META, t, "title");
		check_string(d, PROFDB_HPCTK_META, desc, "description");
	}
	FUZZ_CHECK(CALL(profdb_hpctk_title(d->db, NULL, NULL)) == -EINVAL,
	           "title(NULL, NULL) is not -EINVAL");

	int64_t n = CALL(profdb_hpctk_id_kind_count(d->db));
	FUZZ_CHECK(n < 256, "%" PRId64 " identifier kinds from a u8 count", n);
	for (int64_t k = 0; k < n; k++) {
		profdb_str name = {"", 0};
		if (CALL(profdb_hpctk_id_kind_at(d->db, (uint32_t)k, &name)) == 0)
			check_string(d, PROFDB_HPCTK_META, name, "identifier kind name");
	}
	if (n >= 0) {
		profdb_str name;
		FUZZ_CHECK(CALL(profdb_hpctk_id_kind_at(d->db, (uint32_t)n, &name)) == -ENOENT,
		           "identifier kind past the count exists");
	}
}

static void drive_metrics(drv *d)
{
	int64_t n = CALL(profdb_hpctk_metric_count(d->db));
	FUZZ_CHECK(CALL(profdb_hpctk_metric_count(d->db)) == n, "metric count changed");
	d->metrics = n;
	if (n > MAX_TABLE)
		d->metrics = -1;   /* not every id is collected: lookups are not predicted */
	for (int64_t m = 0; m < n && m < MAX_TABLE; m++) {
		profdb_hpctk_metric md;
		FUZZ_CHECK(CALL(profdb_hpctk_metric_at(d->db, (uint32_t)m, &md)) == 0,
		           "metric %" PRId64 " below the count fails", m);
		check_string(d, PROFDB_HPCTK_META, md.name, "metric name");
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop p;
			FUZZ_CHECK(CALL(profdb_hpctk_metric_prop_at(d->db, (uint32_t)m, i, &p)) == 0,
			           "metric %" PRId64 " prop %" PRIu32 " fails", m, i);
			d->prop_ids[p.prop_metric_id >> 3] |= (uint8_t)(1u << (p.prop_metric_id & 7));
			check_string(d, PROFDB_HPCTK_META, p.scope, "scope name");
		}
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			FUZZ_CHECK(CALL(profdb_hpctk_metric_summary_at(d->db, (uint32_t)m, i, &s)) == 0,
			           "metric %" PRId64 " summary %" PRIu32 " fails", m, i);
			d->stat_ids[s.stat_metric_id >> 3] |= (uint8_t)(1u << (s.stat_metric_id & 7));
			check_string(d, PROFDB_HPCTK_META, s.scope, "summary scope name");
			check_string(d, PROFDB_HPCTK_META, s.formula, "summary formula");
		}
		profdb_hpctk_prop p;
		profdb_hpctk_summary s;
		FUZZ_CHECK(CALL(profdb_hpctk_metric_prop_at(d->db, (uint32_t)m, md.n_props, &p)) == -ENOENT,
		           "prop past n_props exists");
		FUZZ_CHECK(CALL(profdb_hpctk_metric_summary_at(d->db, (uint32_t)m, md.n_summaries, &s)) ==
		           -ENOENT, "summary past n_summaries exists");
	}
	if (n >= 0) {
		profdb_hpctk_metric md;
		FUZZ_CHECK(CALL(profdb_hpctk_metric_at(d->db, (uint32_t)n, &md)) == -ENOENT,
		           "metric past the count exists");
	}
}

static void drive_tables(drv *d)
{
	d->n_modules = CALL(profdb_hpctk_module_count(d->db));
	d->n_files = CALL(profdb_hpctk_file_count(d->db));
	d->n_functions = CALL(profdb_hpctk_function_count(d->db));
	for (int64_t i = 0; i < d->n_modules && i < MAX_TABLE; i++) {
		profdb_str path;
		if (CALL(profdb_hpctk_module_at(d->db, (uint32_t)i, &path)) == 0)
			check_string(d, PROFDB_HPCTK_META, path, "module path");
	}
	for (int64_t i = 0; i < d->n_files && i < MAX_TABLE; i++) {
		profdb_str path;
		int copied = -1;
		if (CALL(profdb_hpctk_file_at(d->db, (uint32_t)i, &path, &copied)) == 0) {
			check_string(d, PROFDB_HPCTK_META, path, "file path");
			FUZZ_CHECK(copied == 0 || copied == 1, "copied flag %d", copied);
		}
	}
	for (int64_t i = 0; i < d->n_functions && i < MAX_TABLE; i++) {
		profdb_hpctk_function f;
		if (CALL(profdb_hpctk_function_at(d->db, (uint32_t)i, &f)) != 0)
			continue;
		if (f.name.len)
			check_string(d, PROFDB_HPCTK_META, f.name, "function name");
		check_index(d->n_modules, f.module, "function module");
		check_index(d->n_files, f.file, "function file");
	}
	profdb_str path;
	int copied;
	profdb_hpctk_function f;
	if (d->n_modules >= 0 && d->n_modules < INT32_MAX)
		FUZZ_CHECK(CALL(profdb_hpctk_module_at(d->db, (uint32_t)d->n_modules, &path)) == -ENOENT,
		           "module past the count exists");
	if (d->n_files >= 0 && d->n_files < INT32_MAX)
		FUZZ_CHECK(CALL(profdb_hpctk_file_at(d->db, (uint32_t)d->n_files, &path, &copied)) == -ENOENT,
		           "file past the count exists");
	if (d->n_functions >= 0 && d->n_functions < INT32_MAX)
		FUZZ_CHECK(CALL(profdb_hpctk_function_at(d->db, (uint32_t)d->n_functions, &f)) == -ENOENT,
		           "function past the count exists");
}

/* ---- meta.db: the context tree --------------------------------------------- */

static int same_context(const profdb_hpctk_context *a, const profdb_hpctk_context *b)
{
	return a->id == b->id && a->relation == b->relation && a->lexical_type == b->lexical_type &&
	       a->propagation == b->propagation && a->function == b->function &&
	       a->file == b->file && a->line == b->line && a->module == b->module &&
	       a->offset == b->offset && a->entry_point == b->entry_point &&
	       a->entry_name.ptr == b->entry_name.ptr && a->entry_name.len == b->entry_name.len &&
	       a->pos == b->pos;
}

static void check_context(const drv *d, const profdb_hpctk_context *c)
{
	check_index(d->n_functions, c->function, "context function");
	check_index(d->n_files, c->file, "context file");
	check_index(d->n_modules, c->module, "context module");
	if (c->entry_name.len)
		check_string(d, PROFDB_HPCTK_META, c->entry_name, "entry point name");
	if (c->lexical_type == PROFDB_LEX_ROOT && c->relation == PROFDB_REL_NONE && c->pos == 0)
		FUZZ_CHECK(c->id == 0, "root with id %" PRIu32, c->id);
	else
		FUZZ_CHECK(c->pos > 0 && c->pos < d->files[PROFDB_HPCTK_META].size,
		           "context %" PRIu32 " position 0x%" PRIx64 " outside meta.db", c->id, c->pos);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void drive_tree(drv *d)
{
	profdb_hpctk_context root, c;
	profdb_hpctk_walk *w = NULL;
	int64_t cnt = CALL(profdb_hpctk_context_count(d->db));
	if (!d->present[PROFDB_HPCTK_META])
		FUZZ_CHECK(cnt == -ENOENT, "context count without meta.db: %" PRId64, cnt);
	if (cnt < 0) {
		/* The failure is remembered: every tree call reports it. */
		FUZZ_CHECK(CALL(profdb_hpctk_root(d->db, &root)) == cnt, "root after a failed tree");
		FUZZ_CHECK(CALL(profdb_hpctk_context_get(d->db, 0, &c)) == cnt, "by_id after a failed tree");
		FUZZ_CHECK(CALL(profdb_hpctk_walk_new(&w, d->db)) == cnt, "walk after a failed tree");
		return;
	}
	FUZZ_CHECK(CALL(profdb_hpctk_context_count(d->db)) == cnt, "context count changed");
	FUZZ_CHECK(CALL(profdb_hpctk_root(d->db, &root)) == 0, "root fails");
	FUZZ_CHECK(root.id == 0 && root.lexical_type == PROFDB_LEX_ROOT &&
	           root.relation == PROFDB_REL_NONE && root.pos == 0, "root is not the global root");
	FUZZ_CHECK(CALL(profdb_hpctk_context_get(d->db, 0, &c)) == 0 && same_context(&c, &root),
	           "context_by_id(0) is not the root");
	uint32_t parent = 0;
	FUZZ_CHECK(CALL(profdb_hpctk_context_parent(d->db, 0, &parent)) == 0 && parent == PROFDB_NONE,
	           "the root has parent %" PRIu32, parent);

	uint32_t *stack = malloc(((size_t)cnt + 1) * sizeof *stack);
	uint32_t *ids = malloc(((size_t)cnt + 1) * sizeof *ids);
	FUZZ_CHECK(stack != NULL && ids != NULL, "out of memory for %" PRId64 " contexts", cnt);
	FUZZ_CHECK(CALL(profdb_hpctk_walk_new(&w, d->db)) == 0, "walk_new fails on a valid tree");
	uint64_t seen = 0, children = 0;
	uint32_t depth = 0, prev_depth = 0;
	int64_t r;
	while ((r = CALL(profdb_hpctk_walk_next(w, &c, &depth))) == 1) {
		seen++;
		FUZZ_CHECK(seen <= (uint64_t)cnt + 1, "walk visits more than %" PRId64 " + 1 nodes", cnt);
		if (seen == 1)
			FUZZ_CHECK(depth == 0 && same_context(&c, &root), "walk does not start at the root");
		else
			FUZZ_CHECK(depth >= 1 && depth <= prev_depth + 1 && depth <= cnt,
			           "walk depth %" PRIu32 " after %" PRIu32, depth, prev_depth);
		prev_depth = depth;
		stack[depth] = c.id;
		ids[seen - 1] = c.id;
		check_context(d, &c);

		profdb_hpctk_context byid;
		FUZZ_CHECK(CALL(profdb_hpctk_context_get(d->db, c.id, &byid)) == 0 &&
		           same_context(&byid, &c), "context_by_id(%" PRIu32 ") differs from the walk",
		           c.id);
		FUZZ_CHECK(CALL(profdb_hpctk_context_parent(d->db, c.id, &parent)) == 0 &&
		           parent == (depth ? stack[depth - 1] : PROFDB_NONE),
		           "parent of %" PRIu32 " is %" PRIu32 ", the walk says %" PRIu32, c.id, parent,
		           depth ? stack[depth - 1] : PROFDB_NONE);

		profdb_hpctk_children it;
		profdb_hpctk_context kid;
		FUZZ_CHECK(CALL(profdb_hpctk_children_begin(d->db, &c, &it)) == 0,
		           "children_begin fails for walked context %" PRIu32, c.id);
		int64_t k;
		while ((k = CALL(profdb_hpctk_children_next(&it, &kid))) == 1) {
			children++;
			FUZZ_CHECK(children <= (uint64_t)cnt, "more children than contexts");
			FUZZ_CHECK(CALL(profdb_hpctk_context_parent(d->db, kid.id, &parent)) == 0 &&
			           parent == c.id, "child %" PRIu32 " of %" PRIu32 " has parent %" PRIu32,
			           kid.id, c.id, parent);
			FUZZ_CHECK(CALL(profdb_hpctk_context_get(d->db, kid.id, &byid)) == 0 &&
			           same_context(&byid, &kid), "child %" PRIu32 " differs from by_id", kid.id);
		}
		FUZZ_CHECK(k == 0, "children_next fails (%" PRId64 ") on a validated tree", k);
	}
	FUZZ_CHECK(r == 0, "walk_next fails (%" PRId64 ") on a validated tree", r);
	FUZZ_CHECK(seen == (uint64_t)cnt + 1, "walk visited %" PRIu64 " nodes, context_count %" PRId64,
	           seen, cnt);
	FUZZ_CHECK(children == (uint64_t)cnt, "children iteration found %" PRIu64 " of %" PRId64,
	           children, cnt);
	FUZZ_CHECK(CALL(profdb_hpctk_walk_next(w, &c, &depth)) == 0, "walk restarts after its end");
	profdb_hpctk_walk_free(w);
	free(stack);

	/* Ids are unique; the smallest id that is not a node is not found. */
	qsort(ids, seen, sizeof *ids, cmp_u32);
	uint32_t gap = 0;
	for (uint64_t i = 0; i < seen; i++) {
		FUZZ_CHECK(i == 0 || ids[i] != ids[i - 1], "context id %" PRIu32 " walked twice", ids[i]);
		if (ids[i] == gap)
			gap++;
	}
	free(ids);
	if (gap != 0) {   /* all of 0..UINT32_MAX cannot be nodes */
		FUZZ_CHECK(CALL(profdb_hpctk_context_get(d->db, gap, &c)) == -ENOENT,
		           "context_by_id(%" PRIu32 ") finds a context the walk did not visit", gap);
		FUZZ_CHECK(CALL(profdb_hpctk_context_parent(d->db, gap, &parent)) == -ENOENT,
		           "context_parent(%" PRIu32 ") of a context the walk did not visit", gap);
	}

	/* A forged position token is refused, not followed. */
	profdb_hpctk_context forged = root;
	forged.lexical_type = PROFDB_LEX_FUNCTION;
	forged.pos = 1;
	profdb_hpctk_children it;
	FUZZ_CHECK(CALL(profdb_hpctk_children_begin(d->db, &forged, &it)) == -EINVAL,
	           "children_begin accepts a forged position");
}

/* ---- profile.db and cct.db planes ----------------------------------------- */

typedef void (*pair_fn)(drv *d, uint32_t outer, uint32_t ikey, uint32_t vkey, double v);

static int same_plane(const tv_plane *a, const tv_plane *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* Everything a valid plane promises. @p on_pair (may be NULL) sees each
 * (index key, value key, value). Returns 0 if the pair budget ran out. */
static int check_plane(drv *d, profdb_hpctk_file f, uint32_t outer, const tv_plane *pl,
                       unsigned ik, unsigned vk, pair_fn on_pair)
{
	const profdb_input *b = &d->files[f];
	const uint64_t is = ik + 8u, vs = vk + 8u;
	const uint32_t kmax = vk == 2 ? UINT16_MAX : UINT32_MAX;
	const uint32_t imax = ik == 2 ? UINT16_MAX : UINT32_MAX;
	FUZZ_CHECK(profdb_field_size(pl->index.key_type) == ik && pl->index.stride == is &&
	           pl->index.key_offset == 0 && pl->index.value_offset == ik &&
	           pl->index.value_type == PROFDB_FIELD_U64 &&
	           profdb_field_size(pl->values.key_type) == vk && pl->values.stride == vs &&
	           pl->values.key_offset == 0 && pl->values.value_offset == vk &&
	           pl->values.value_type == PROFDB_FIELD_F64 && !pl->index.big_endian &&
	           !pl->values.big_endian, "plane views have the wrong layout (key sizes %u/%u, "
	           "expected %u/%u)", profdb_field_size(pl->index.key_type),
	           profdb_field_size(pl->values.key_type), ik, vk);
	FUZZ_CHECK((pl->index.base == NULL) == (pl->index.count == 0) &&
	           (pl->values.base == NULL) == (pl->values.count == 0),
	           "plane view base and count disagree");
	profdb_view run;
	if (pl->index.count == 0) {
		FUZZ_CHECK(pl->values.count == 0, "plane with no index has %" PRIu64 " values", pl->values.count);
		FUZZ_CHECK(CALL(tv_plane_find(pl, 0, &run)) == 0, "empty plane finds a key");
		return 1;
	}
	FUZZ_CHECK(pl->index.count <= b->size / is && inside(b, pl->index.base, pl->index.count * is),
	           "plane index (%" PRIu64 " x %" PRIu64 ") outside file %d", pl->index.count, is, (int)f);
	FUZZ_CHECK(pl->values.count <= b->size / vs && inside(b, pl->values.base, pl->values.count * vs),
	           "plane values (%" PRIu64 " x %" PRIu64 ") outside file %d", pl->values.count, vs, (int)f);
	uint64_t total = 0;
	uint32_t prev_key = 0;
	for (uint64_t i = 0; i < pl->index.count; i++) {
		uint32_t key = 0;
		FUZZ_CHECK(CALL(tv_plane_at(pl, i, &key, &run)) == 0, "plane_at(%" PRIu64 ")", i);
		FUZZ_CHECK(i == 0 || key > prev_key, "index keys not increasing: %" PRIu32 " after %"
		           PRIu32, key, prev_key);
		FUZZ_CHECK(key <= imax, "index key %" PRIu32 " too wide", key);
		FUZZ_CHECK(run.key_type == pl->values.key_type && run.stride == vs, "run layout");
		FUZZ_CHECK((run.count == 0 || run.base == pl->values.base + total * vs) &&
		           run.count <= pl->values.count - total,
		           "run %" PRIu64 " is not the next %" PRIu64 " values", i, run.count);
		/* Gaps in the key space must be reported absent. */
		if (i == 0 && key > 0)
			FUZZ_CHECK(CALL(tv_plane_find(pl, key - 1, NULL)) == 0,
			           "plane_find finds a key below the first");
		if (i > 0 && key - prev_key > 1)
			FUZZ_CHECK(CALL(tv_plane_find(pl, key - 1, NULL)) == 0,
			           "plane_find finds a missing key %" PRIu32, key - 1);
		profdb_view found;
		FUZZ_CHECK(CALL(tv_plane_find(pl, key, &found)) == 1 &&
		           found.base == run.base && found.count == run.count &&
		           found.key_type == run.key_type, "plane_find(%" PRIu32 ") disagrees with plane_at",
		           key);
		uint32_t prev_vkey = 0;
		for (uint64_t j = 0; j < run.count; j++) {
			uint32_t vkey = 0;
			double v = 0, w = 0;
			if (++d->pairs > MAX_PAIRS)
				return 0;
			FUZZ_CHECK(CALL(tv_run_at(&run, j, &vkey, &v)) == 0, "run_at(%" PRIu64 ")", j);
			FUZZ_CHECK(j == 0 || vkey > prev_vkey, "run keys not increasing: %" PRIu32 " after %"
			           PRIu32, vkey, prev_vkey);
			FUZZ_CHECK(vkey <= kmax, "value key %" PRIu32 " too wide", vkey);
			FUZZ_CHECK(CALL(tv_run_find(&run, vkey, &w)) == 1 && same_bits(v, w),
			           "run_find(%" PRIu32 ") disagrees with run_at", vkey);
			if (j > 0 && vkey - prev_vkey > 1)
				FUZZ_CHECK(CALL(tv_run_find(&run, vkey - 1, &w)) == 0,
				           "run_find finds a missing key");
			if (on_pair)
				on_pair(d, outer, key, vkey, v);
			prev_vkey = vkey;
		}
		if (run.count > 0 && prev_vkey < kmax)
			FUZZ_CHECK(CALL(tv_run_find(&run, prev_vkey + 1, NULL)) == 0,
			           "run_find finds a key past the last");
		FUZZ_CHECK(tv_run_at(&run, run.count, NULL, NULL) == -ENOENT,
		           "run_at past the end");
		total += run.count;
		prev_key = key;
	}
	FUZZ_CHECK(total == pl->values.count, "runs cover %" PRIu64 " of %" PRIu64 " values", total,
	           pl->values.count);
	if (prev_key < imax)
		FUZZ_CHECK(CALL(tv_plane_find(pl, prev_key + 1, NULL)) == 0,
		           "plane_find finds a key past the last");
	FUZZ_CHECK(tv_plane_at(pl, pl->index.count, NULL, NULL) == -ENOENT,
	           "plane_at past the end");
	return 1;
}

/* What a lookup of metric id @p m must answer besides "found": -ENOENT for
 * an id meta.db does not define (as a propagated or a summary statistic id;
 * both lookups accept both, include/profdb/hpctk.h), or the metric table's
 * failure. 1 when the id is known (or there is no meta.db), 0 when the
 * lookup must fail. */
static int id_known(const drv *d, uint32_t m)
{
	if (!d->present[PROFDB_HPCTK_META])
		return 1;
	if (d->metrics < 0 || m >= 65536)
		return 0;
	return (d->prop_ids[m >> 3] >> (m & 7) & 1) || (d->stat_ids[m >> 3] >> (m & 7) & 1);
}

/* Point lookups must agree with the scan. */
static void profile_pair(drv *d, uint32_t profile, uint32_t ctx, uint32_t metric, double v)
{
	double w = 0;
	if (!id_known(d, metric)) {
		FUZZ_CHECK(CALL(profdb_hpctk_value(d->db, profile, ctx, metric, &w)) < 0 && w == 0,
		           "profdb_hpctk_value with metric id %" PRIu32 " that meta.db does not "
		           "define does not fail", metric);
		return;
	}
	FUZZ_CHECK(CALL(profdb_hpctk_value(d->db, profile, ctx, metric, &w)) == 1 && same_bits(v, w),
	           "profdb_hpctk_value(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") disagrees with the plane",
	           profile, ctx, metric);
}

static void cct_pair(drv *d, uint32_t ctx, uint32_t metric, uint32_t profile, double v)
{
	double w = 0;
	int64_t np = d->present[PROFDB_HPCTK_PROFILE] ? profdb_hpctk_profile_count(d->db) : -1;
	if (!id_known(d, metric) || (np >= 0 && profile >= np)) {
		FUZZ_CHECK(CALL(profdb_hpctk_value_cct(d->db, profile, ctx, metric, &w)) < 0 && w == 0,
		           "profdb_hpctk_value_cct(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") with an "
		           "unknown metric or profile does not fail", profile, ctx, metric);
		return;
	}
	FUZZ_CHECK(CALL(profdb_hpctk_value_cct(d->db, profile, ctx, metric, &w)) == 1 && same_bits(v, w),
	           "profdb_hpctk_value_cct(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") disagrees with the "
	           "plane", profile, ctx, metric);
}

static void drive_profiles(drv *d)
{
	int64_t np = CALL(profdb_hpctk_profile_count(d->db));
	if (!d->present[PROFDB_HPCTK_PROFILE])
		FUZZ_CHECK(np == -ENOENT, "profile count without profile.db: %" PRId64, np);
	if (np < 0)
		return;
	if (np > MAX_PROFILES)
		d->complete = 0;
	for (int64_t p = 0; p < np && p < MAX_PROFILES; p++) {
		profdb_hpctk_profile prof;
		tv_plane pl, again;
		if (CALL(profdb_hpctk_profile_at(d->db, (uint32_t)p, &prof)) == 0) {
			FUZZ_CHECK(prof.index == p && (prof.is_summary == 0 || prof.is_summary == 1),
			           "profile %" PRId64 ": index %" PRIu32 " summary %d", p, prof.index,
			           prof.is_summary);
			for (uint32_t i = 0; i < prof.n_ids; i++) {
				profdb_hpctk_id id;
				FUZZ_CHECK(CALL(profdb_hpctk_profile_id_at(d->db, (uint32_t)p, i, &id)) == 0,
				           "identifier %" PRIu32 " of %" PRIu32 " fails", i, prof.n_ids);
			}
			profdb_hpctk_id id;
			FUZZ_CHECK(CALL(profdb_hpctk_profile_id_at(d->db, (uint32_t)p, prof.n_ids, &id)) == -ENOENT,
			           "identifier past n_ids exists");
		}
		int64_t r = CALL(tv_profile_plane(d->db, (uint32_t)p, &pl));
		int64_t r2 = CALL(tv_profile_plane(d->db, (uint32_t)p, &again));
		FUZZ_CHECK(r == r2, "profile plane %" PRId64 ": %" PRId64 " then %" PRId64, p, r, r2);
		if (r < 0) {
			d->complete = 0;
			continue;
		}
		FUZZ_CHECK(same_plane(&pl, &again), "profile plane %" PRId64 " differs on the second "
		           "(already validated) call", p);
		if (!check_plane(d, PROFDB_HPCTK_PROFILE, (uint32_t)p, &pl, 4, 2, profile_pair)) {
			d->complete = 0;
			return;
		}
		/* Contexts with values need not be tree nodes (elided ids). */
		for (uint64_t i = 0; i < pl.index.count && i < 64; i++) {
			uint32_t key;
			profdb_hpctk_context c;
			FUZZ_CHECK(CALL(tv_plane_at(&pl, i, &key, NULL)) == 0, "plane_at");
			int64_t rc = CALL(profdb_hpctk_context_get(d->db, key, &c));
			FUZZ_CHECK(rc < 0 || c.id == key, "context_by_id(%" PRIu32 ") returns id %" PRIu32,
			           key, c.id);
		}
	}
	profdb_hpctk_profile prof;
	tv_plane pl;
	if (np < UINT32_MAX) {
		FUZZ_CHECK(CALL(profdb_hpctk_profile_at(d->db, (uint32_t)np, &prof)) == -ENOENT,
		           "profile past the count exists");
		FUZZ_CHECK(CALL(tv_profile_plane(d->db, (uint32_t)np, &pl)) == -ENOENT,
		           "plane of a profile past the count exists");
	}
}

static void drive_cct(drv *d)
{
	int64_t ns = CALL(profdb_hpctk_cct_slot_count(d->db));
	if (!d->present[PROFDB_HPCTK_CCT])
		FUZZ_CHECK(ns == -ENOENT, "slot count without cct.db: %" PRId64, ns);
	if (ns < 0)
		return;
	if (ns > MAX_SLOTS)
		d->complete = 0;
	for (int64_t c = 0; c < ns && c < MAX_SLOTS; c++) {
		tv_plane pl, again;
		int64_t r = CALL(tv_context_plane(d->db, (uint32_t)c, &pl));
		int64_t r2 = CALL(tv_context_plane(d->db, (uint32_t)c, &again));
		FUZZ_CHECK(r == r2, "context plane %" PRId64 ": %" PRId64 " then %" PRId64, c, r, r2);
		if (r < 0) {
			d->complete = 0;
			continue;
		}
		FUZZ_CHECK(same_plane(&pl, &again), "context plane %" PRId64 " differs on the second "
		           "(already validated) call", c);
		if (!check_plane(d, PROFDB_HPCTK_CCT, (uint32_t)c, &pl, 2, 4, cct_pair)) {
			d->complete = 0;
			return;
		}
	}
	/* Ids past the table have no values. */
	tv_plane pl;
	double v;
	if (ns < UINT32_MAX) {
		FUZZ_CHECK(CALL(tv_context_plane(d->db, (uint32_t)ns, &pl)) == 0 &&
		           pl.index.count == 0 && pl.values.count == 0, "slot past the count has values");
		int64_t np = d->present[PROFDB_HPCTK_PROFILE] ? profdb_hpctk_profile_count(d->db) : -1;
		int64_t want = id_known(d, 0) && (np < 0 || np > 1) ? 0 : -1;
		int64_t got = CALL(profdb_hpctk_value_cct(d->db, 1, (uint32_t)ns, 0, &v));
		FUZZ_CHECK(want == 0 ? got == 0 : got < 0, "cct_value past the count: %" PRId64, got);
		FUZZ_CHECK(v == 0, "cct_value past the count leaves %g", v);
	}
}

/* ---- cross-file consistency ------------------------------------------------ */

static void mismatch(drv *d, const char *dir, uint32_t profile, uint32_t ctx, uint32_t metric,
                     int64_t r)
{
	fuzz_hpctk_stats_total.mismatches++;
	FUZZ_CHECK(!d->check_ok, "%s: profile %" PRIu32 " context %" PRIu32 " metric %" PRIu32
	           ": the files disagree but profdb_hpctk_check() said they do not", dir, profile,
	           ctx, metric);
	FUZZ_CHECK(!fuzz_hpctk_strict || d->mixed, "%s: profile %" PRIu32 " context %" PRIu32 " metric %" PRIu32
	           ": lookup returned %" PRId64 " (absent or different bits) without an error", dir,
	           profile, ctx, metric, r);
}

static int64_t summary_flag(drv *d, uint32_t profile)
{
	profdb_hpctk_profile prof;
	int64_t r = CALL(profdb_hpctk_profile_at(d->db, profile, &prof));
	return r < 0 ? r : prof.is_summary;
}

static void cross_profile_pair(drv *d, uint32_t profile, uint32_t ctx, uint32_t metric, double v)
{
	double w = 0;
	if (profile == 0 || summary_flag(d, profile) != 0)
		return;   /* summaries are not in cct.db */
	fuzz_hpctk_stats_total.compared++;
	int64_t r = CALL(profdb_hpctk_value_cct(d->db, profile, ctx, metric, &w));
	if (r == 0 || (r == 1 && !same_bits(v, w)))
		mismatch(d, "profile.db -> cct.db", profile, ctx, metric, r);
}

static void cross_cct_pair(drv *d, uint32_t ctx, uint32_t metric, uint32_t profile, double v)
{
	double w = 0;
	fuzz_hpctk_stats_total.compared++;
	int64_t s = summary_flag(d, profile);
	if (s < 0)
		return;   /* a profile index that does not exist: reported as an error */
	if (profile == 0 || s) {
		mismatch(d, "cct.db names a summary profile", profile, ctx, metric, 1);
		return;
	}
	int64_t r = CALL(profdb_hpctk_value(d->db, profile, ctx, metric, &w));
	if (r == 0 || (r == 1 && !same_bits(v, w)))
		mismatch(d, "cct.db -> profile.db", profile, ctx, metric, r);
}

static void drive_consistency(drv *d)
{
	if (!d->complete || !d->present[PROFDB_HPCTK_PROFILE] || !d->present[PROFDB_HPCTK_CCT])
		return;
	int64_t np = CALL(profdb_hpctk_profile_count(d->db));
	int64_t ns = CALL(profdb_hpctk_cct_slot_count(d->db));
	d->pairs = 0;
	d->check_ok = CALL(profdb_hpctk_check(d->db)) == 0;
	for (int64_t p = 1; p < np; p++) {
		tv_plane pl;
		FUZZ_CHECK(CALL(tv_profile_plane(d->db, (uint32_t)p, &pl)) == 0,
		           "validated profile plane %" PRId64 " fails", p);
		if (!check_plane(d, PROFDB_HPCTK_PROFILE, (uint32_t)p, &pl, 4, 2, cross_profile_pair))
			return;
	}
	for (int64_t c = 0; c < ns; c++) {
		tv_plane pl;
		FUZZ_CHECK(CALL(tv_context_plane(d->db, (uint32_t)c, &pl)) == 0,
		           "validated context plane %" PRId64 " fails", c);
		if (!check_plane(d, PROFDB_HPCTK_CCT, (uint32_t)c, &pl, 2, 4, cross_cct_pair))
			return;
	}
}

/* ---- trace.db ------------------------------------------------------------- */

static uint64_t elem_time(const profdb_hpctk_trace *t, uint64_t i)
{
	uint64_t time = 0;
	FUZZ_CHECK(CALL(tv_sample(t, i, &time, NULL)) == 0, "trace_at(%" PRIu64 ")", i);
	return time;
}

/* seek(q): the last element with time <= q. */
static void check_seek(const profdb_hpctk_trace *t, uint64_t q)
{
	uint64_t k = UINT64_MAX;
	int64_t r = CALL(profdb_view_in_effect(&t->samples, q, &k));
	if (r == 0) {
		FUZZ_CHECK(t->samples.count == 0 || elem_time(t, 0) > q, "seek(%" PRIu64 ") found nothing", q);
		return;
	}
	FUZZ_CHECK(r == 1 && k < t->samples.count, "seek(%" PRIu64 ") = %" PRId64 ", index %" PRIu64, q, r, k);
	FUZZ_CHECK(elem_time(t, k) <= q, "seek(%" PRIu64 ") gives a later element", q);
	FUZZ_CHECK(k + 1 == t->samples.count || elem_time(t, k + 1) > q, "seek(%" PRIu64 ") is not the last "
	           "element at or before it", q);
}

/* window(from, to): [first, last) = the elements with from <= time < to. */
static void check_window(const profdb_hpctk_trace *t, uint64_t from, uint64_t to)
{
	uint64_t first = UINT64_MAX, last = UINT64_MAX;
	FUZZ_CHECK(CALL(profdb_view_window(&t->samples, from, to, &first, &last)) == 0, "window fails");
	FUZZ_CHECK(first <= last && last <= t->samples.count, "window [%" PRIu64 ", %" PRIu64 ") of %" PRIu64,
	           first, last, t->samples.count);
	FUZZ_CHECK(first == 0 || elem_time(t, first - 1) < from, "window starts late");
	FUZZ_CHECK(first == t->samples.count || elem_time(t, first) >= from, "window starts early");
	if (to <= from) {
		FUZZ_CHECK(first == last, "empty window is not empty");
		return;
	}
	FUZZ_CHECK(last == first || elem_time(t, last - 1) < to, "window ends late");
	FUZZ_CHECK(last == t->samples.count || elem_time(t, last) >= to, "window ends early");
}

static void drive_traces(drv *d)
{
	int64_t nt = CALL(profdb_hpctk_trace_count(d->db));
	uint64_t lo = 0, hi = 0;
	int64_t rb = CALL(profdb_hpctk_trace_bounds(d->db, &lo, &hi));
	if (!d->present[PROFDB_HPCTK_TRACE]) {
		FUZZ_CHECK(nt == 0 && rb == -ENOENT, "trace calls without trace.db");
		return;
	}
	/* 1 = "has samples" needs min <= max; the hpcprof sentinels (min =
	 * INT64_MAX, max = INT64_MIN) are "no samples" although they are
	 * ordered as unsigned numbers. */
	FUZZ_CHECK(nt >= 0 && (rb == 0 || rb == 1), "trace count %" PRId64 ", bounds %" PRId64, nt, rb);
	FUZZ_CHECK(rb == 0 || lo <= hi, "bounds say samples but min %" PRIu64 " > max %" PRIu64, lo, hi);
	FUZZ_CHECK(!(lo == INT64_MAX && hi == (uint64_t)INT64_MAX + 1) || rb == 0,
	           "the hpcprof 'no samples' sentinels are reported as samples");
	const profdb_input *b = &d->files[PROFDB_HPCTK_TRACE];
	for (int64_t i = 0; i < nt && i < MAX_TRACES; i++) {
		profdb_hpctk_trace t, again;
		int64_t r = CALL(profdb_hpctk_trace_line_at(d->db, (uint32_t)i, &t));
		int64_t r2 = CALL(profdb_hpctk_trace_line_at(d->db, (uint32_t)i, &again));
		FUZZ_CHECK(r == r2, "trace %" PRId64 ": %" PRId64 " then %" PRId64, i, r, r2);
		if (r < 0)
			continue;
		FUZZ_CHECK(t.profile == again.profile && t.samples.base == again.samples.base && t.samples.count == again.samples.count,
		           "trace %" PRId64 " differs on the second (already validated) call", i);
		FUZZ_CHECK((t.samples.base == NULL) == (t.samples.count == 0), "trace %" PRId64 ": elems %p, count %"
		           PRIu64, i, (const void *)t.samples.base, t.samples.count);
		if (t.samples.count)
			FUZZ_CHECK(t.samples.count <= b->size / 12 && inside(b, t.samples.base, t.samples.count * 12),
			           "trace %" PRId64 " (%" PRIu64 " elements) outside trace.db", i, t.samples.count);
		uint64_t prev = 0;
		for (uint64_t k = 0; k < t.samples.count; k++) {
			uint64_t time = 0;
			uint32_t ctx = 0;
			if (++d->elems > MAX_ELEMS)
				return;
			FUZZ_CHECK(CALL(tv_sample(&t, k, &time, &ctx)) == 0, "trace_at");
			FUZZ_CHECK(k == 0 || time >= prev, "trace %" PRId64 " not sorted at %" PRIu64, i, k);
			if (k < MAX_SEEKS_PER_LINE) {
				check_seek(&t, time);
				if (time > 0)
					check_seek(&t, time - 1);
				check_window(&t, time, time + 1);
				check_window(&t, prev, time);
				check_window(&t, time, UINT64_MAX);
			}
			prev = time;
		}
		FUZZ_CHECK(tv_sample(&t, t.samples.count, NULL, NULL) == -ENOENT,
		           "trace_at past the end");
		check_seek(&t, 0);
		check_seek(&t, UINT64_MAX);
		check_seek(&t, lo);
		check_seek(&t, hi);
		check_window(&t, 0, UINT64_MAX);
		check_window(&t, lo, hi);
		check_window(&t, hi, lo);
	}
	profdb_hpctk_trace t;
	if (nt < UINT32_MAX)
		FUZZ_CHECK(CALL(profdb_hpctk_trace_line_at(d->db, (uint32_t)nt, &t)) == -ENOENT,
		           "trace past the count exists");
}

/* ---- bad arguments: -EINVAL with a message, never a crash ----------------- */

#define EXPECT_EINVAL(expr) \
	FUZZ_CHECK(CALL(expr) == -EINVAL, "%s does not return -EINVAL", #expr)

static void drive_bad_args(drv *d)
{
	const profdb_hpctk *db = d->db;
	profdb_hpctk_children it = {0};
	uint64_t a, b;

	/* A NULL handle is a bad argument everywhere. */
	EXPECT_EINVAL(profdb_hpctk_title(NULL, NULL, NULL));
	EXPECT_EINVAL(profdb_hpctk_metric_count(NULL));
	EXPECT_EINVAL(profdb_hpctk_context_count(NULL));
	EXPECT_EINVAL(profdb_hpctk_profile_count(NULL));
	EXPECT_EINVAL(profdb_hpctk_cct_slot_count(NULL));
	EXPECT_EINVAL(profdb_hpctk_trace_count(NULL));
	FUZZ_CHECK(CALL(profdb_hpctk_has(NULL, PROFDB_HPCTK_META)) == -EINVAL, "has(NULL)");
	FUZZ_CHECK(profdb_hpctk_get_layout(NULL) == PROFDB_HPCTK_FINAL, "get_layout(NULL)");

	/* NULL outputs, where the object exists (else the lookup fails first). */
	if (CALL(profdb_hpctk_metric_count(db)) > 0) {
		EXPECT_EINVAL(profdb_hpctk_metric_at(db, 0, NULL));
		EXPECT_EINVAL(profdb_hpctk_metric_prop_at(db, 0, 0, NULL));
		EXPECT_EINVAL(profdb_hpctk_metric_summary_at(db, 0, 0, NULL));
	}
	if (d->n_functions > 0)
		EXPECT_EINVAL(profdb_hpctk_function_at(db, 0, NULL));
	if (CALL(profdb_hpctk_context_count(db)) >= 0) {
		EXPECT_EINVAL(profdb_hpctk_root(db, NULL));
		EXPECT_EINVAL(profdb_hpctk_context_get(db, 0, NULL));
		EXPECT_EINVAL(profdb_hpctk_children_begin(db, NULL, &it));
		EXPECT_EINVAL(profdb_hpctk_walk_new(NULL, db));
	}
	EXPECT_EINVAL(profdb_hpctk_children_next(NULL, NULL));
	EXPECT_EINVAL(profdb_hpctk_children_next(&it, NULL));   /* never begun: no db */
	EXPECT_EINVAL(profdb_hpctk_walk_next(NULL, NULL, NULL));
	if (CALL(profdb_hpctk_profile_count(db)) > 0) {
		EXPECT_EINVAL(profdb_hpctk_profile_at(db, 0, NULL));
		EXPECT_EINVAL(profdb_hpctk_profile_plane(db, 0, NULL, NULL));
		EXPECT_EINVAL(profdb_hpctk_value(db, 0, 0, 0, NULL));
	}
	if (d->present[PROFDB_HPCTK_PROFILE])
		EXPECT_EINVAL(profdb_hpctk_profile_id_at(db, 0, 0, NULL));
	if (d->present[PROFDB_HPCTK_CCT])
		EXPECT_EINVAL(profdb_hpctk_context_plane(db, 0, NULL, NULL));
	if (CALL(profdb_hpctk_trace_count(db)) > 0)
		EXPECT_EINVAL(profdb_hpctk_trace_line_at(db, 0, NULL));
	EXPECT_EINVAL(profdb_view_in_effect(NULL, 0, &a));
	EXPECT_EINVAL(profdb_view_window(NULL, 0, 1, &a, &b));
}

/* ---- entry points ----------------------------------------------------------- */

static void on_warning(const char *message, void *userdata)
{
	(void)userdata;
	FUZZ_CHECK(message != NULL && message[0] != '\0' && strlen(message) < 4096,
	           "warning callback got an empty or unterminated message");
}

static int run_files(const profdb_input files[PROFDB_HPCTK_NFILES], int mixed,
                     profdb_hpctk_layout *layout)
{
	static int env_checked;
	if (!env_checked) {
		const char *s = getenv("PROFDB_FUZZ_STRICT");
		if (s && *s && strcmp(s, "0") != 0)
			fuzz_hpctk_strict = 1;
		s = getenv("PROFDB_FUZZ_VERBOSE");
		if (s && *s && strcmp(s, "0") != 0)
			fuzz_hpctk_verbose = 1;
		env_checked = 1;
		profdb_hpctk *none = (profdb_hpctk *)&env_checked;
		FUZZ_CHECK(CALL(profdb_hpctk_open_mem(NULL, files, NULL)) == -EINVAL, "open_mem(NULL)");
		FUZZ_CHECK(CALL(profdb_hpctk_open_mem(&none, NULL, NULL)) == -EINVAL && none == NULL,
		           "open_mem(files NULL)");
		profdb_hpctk_close(NULL);
	}
	profdb_options opts = {sizeof opts, 0, on_warning, NULL};
	profdb_hpctk *db = NULL;
	int r = (int)CALL(profdb_hpctk_open_mem(&db, files, &opts));
	if (r < 0) {
		FUZZ_CHECK(db == NULL, "failed open returned a handle");
		if (fuzz_hpctk_verbose)
			fprintf(stderr, "  open: %d: %s\n", r, profdb_error_message());
		return r;
	}
	FUZZ_CHECK(r == 0 && db != NULL, "open returned %d and handle %p", r, (void *)db);
	fuzz_hpctk_stats_total.opened++;

	drv d = {0};
	d.db = db;
	d.files = files;
	d.complete = 1;
	d.mixed = mixed;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		d.present[f] = files[f].data != NULL;
	drive_files(&d);
	drive_general(&d);
	drive_metrics(&d);
	drive_tables(&d);
	drive_tree(&d);
	drive_profiles(&d);
	drive_cct(&d);
	drive_consistency(&d);
	drive_traces(&d);
	drive_bad_args(&d);
	if (layout)
		*layout = profdb_hpctk_get_layout(db);
	profdb_hpctk_close(db);
	return 0;
}

int fuzz_hpctk_run(const profdb_input files[PROFDB_HPCTK_NFILES])
{
	return run_files(files, 0, NULL);
}

#ifdef PROFDB_FUZZ_HAVE_WRITER
static profdb_input companions[2][PROFDB_HPCTK_NFILES];
static int companions_built[2];

static void build_companions(int devstage)
{
	tw_hpctk4 desc;
	tw_blob out[TW_NFILES];
	tw_hpctk4_sample(&desc);
	desc.devstage = devstage;
	int r = tw_hpctk4_write(&desc, out);
	FUZZ_CHECK(r == 0, "the writer cannot produce its sample (%d)", r);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		/* Exact-size copies, so ASan sees a read past the end of a file. */
		unsigned char *copy = out[f].size ? malloc(out[f].size) : NULL;
		FUZZ_CHECK(out[f].data != NULL && copy != NULL, "companion file %d missing", f);
		memcpy(copy, out[f].data, out[f].size);
		companions[devstage][f] = (profdb_input){NULL, copy, out[f].size};
		tw_blob_free(&out[f]);
	}
	companions_built[devstage] = 1;
}
#endif

const profdb_input *fuzz_hpctk_companions(profdb_hpctk_layout layout)
{
#ifdef PROFDB_FUZZ_HAVE_WRITER
	int i = layout == PROFDB_HPCTK_DEVSTAGE;
	if (!companions_built[i])
		build_companions(i);
	return companions[i];
#else
	(void)layout;
	return NULL;
#endif
}

void fuzz_hpctk_run_slot(profdb_hpctk_file which, const uint8_t *data, size_t size)
{
	static const uint8_t empty[1];
	profdb_input files[PROFDB_HPCTK_NFILES] = {{NULL, NULL, 0}};
	profdb_hpctk_layout layout = PROFDB_HPCTK_FINAL;
	files[which].data = data ? data : empty;
	files[which].size = data ? size : 0;
	if (run_files(files, 0, &layout) < 0)
		return;   /* the companions would not get it further: open checks each file alone */
	const profdb_input *comp = fuzz_hpctk_companions(layout);
	if (!comp)
		return;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		if (f != (int)which)
			files[f] = comp[f];
	run_files(files, 1, NULL);
}
