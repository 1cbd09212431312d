/* gather.c — the dense tables behind the pandas frames, built in C in one
 * pass over the profile views (the GIL released), so that a DataFrame of
 * every value costs a few numpy allocations instead of a Python loop.
 */
#include "ext.h"

#include <errno.h>
#include <stdlib.h>

int pd_u32_list(PyObject *seq, const char *what, uint32_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (seq == Py_None)
		return 0;
	PyObject *fast = PySequence_Fast(seq, what);
	if (!fast)
		return -1;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
	uint32_t *a = PyMem_Malloc(((size_t)len + 1) * sizeof *a);
	if (!a) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(fast, i));
		if (PyErr_Occurred() || v > UINT32_MAX) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_OverflowError, "%s: %lu does not fit 32 bits", what, v);
			PyMem_Free(a);
			Py_DECREF(fast);
			return -1;
		}
		a[i] = (uint32_t)v;
	}
	Py_DECREF(fast);
	*out = a;
	*n = (size_t)len;
	return 0;
}

/* Metric id -> column, by binary search over (id, column) sorted by id. */
typedef struct {
	uint32_t id, col;
} id_col;

static int cmp_id_col(const void *a, const void *b)
{
	uint32_t x = ((const id_col *)a)->id, y = ((const id_col *)b)->id;
	return (x > y) - (x < y);
}

static int64_t column_of(const id_col *map, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (map[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && map[lo].id == id ? (int64_t)map[lo].col : -1;
}

/* The stored number converted to the column's type (the metric's declared
 * type): bits unchanged when the types agree, which is the rule. */
static uint64_t bits_as(profdb_number n, profdb_type col)
{
	uint64_t bits;
	if (n.type == col || (col == PROFDB_TYPE_NONE && n.type == PROFDB_TYPE_F64)) {
		memcpy(&bits, &n.as, sizeof bits);
		return bits;
	}
	double d = profdb_number_to_double(n);
	switch (col) {
	case PROFDB_TYPE_U64:
		return d <= 0 ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)d;
	case PROFDB_TYPE_I64: {
		int64_t i = d <= -9223372036854775808.0 ? INT64_MIN
		          : d >= 9223372036854775808.0 ? INT64_MAX : (int64_t)d;
		memcpy(&bits, &i, sizeof bits);
		return bits;
	}
	default:
		memcpy(&bits, &d, sizeof bits);
		return bits;
	}
}

typedef struct {
	const profdb *db;
	const uint32_t *profiles;
	size_t n_profiles;
	const id_col *map;
	size_t n_metrics;
	const int32_t *dense;        /* column by metric id below n_dense (-1: none) */
	uint64_t n_dense;
	const profdb_type *types;    /* per column */
	profdb_view *views;          /* 2 per profile */
	uint64_t rows;
	/* pass 2 outputs */
	uint32_t *ctx, *prof;
	uint64_t *bits;              /* [n_metrics][rows] */
	npy_bool *present;           /* [n_metrics][rows] */
} gather_job;

static inline int64_t column(const gather_job *j, uint64_t id)
{
	if (id < j->n_dense)
		return j->dense[id];
	return j->dense ? -1 : column_of(j->map, j->n_metrics, id);
}

#if defined(__GNUC__)
#define PD_INLINE static inline __attribute__((always_inline))
#else
#define PD_INLINE static inline
#endif

/* Whether a context's run holds a value of a column; with @p fill, each
 * such value into its column at @p row. The field layout comes as
 * arguments so that the common one (constants at the call) compiles to a
 * loop without a test of the layout per record. */
PD_INLINE int visit_run(const gather_job *j, const profdb_view *run, uint64_t row, int fill,
                        unsigned key_size, unsigned value_type, int big_endian)
{
	int any = 0;
	for (uint64_t k = 0; k < run->count; k++) {
		const unsigned char *r = run->base + k * run->stride;
		int64_t col = column(j, profdb_load_uint(r + run->key_offset, key_size, big_endian));
		if (col < 0)
			continue;
		any = 1;
		if (!fill)
			break;
		profdb_number n;
		if (value_type == PROFDB_FIELD_F64) {
			uint64_t b = profdb_load_uint(r + run->value_offset, 8, big_endian);
			n.type = PROFDB_TYPE_F64;
			memcpy(&n.as, &b, sizeof b);
		} else {
			n = profdb_view_value(run, k);
		}
		uint64_t at = (uint64_t)col * j->rows + row;
		j->bits[at] = bits_as(n, j->types[col]);
		j->present[at] = 1;
	}
	return any;
}

static int gather_pass(gather_job *j, int fill)
{
	uint64_t row = 0;
	for (size_t p = 0; p < j->n_profiles; p++) {
		profdb_view *index = &j->views[2 * p], *values = &j->views[2 * p + 1];
		if (!fill) {
			int rc = profdb_profile_view(j->db, j->profiles[p], index, values);
			if (rc < 0)
				return rc;
		}
		/* HPCToolkit's profile.db: 16-bit metric ids, f64 values */
		int common = values->key_type == PROFDB_FIELD_U16 &&
		             values->value_type == PROFDB_FIELD_F64 && !values->big_endian;
		PROFDB_VIEW_FOREACH(index, i) {
			profdb_view run = profdb_view_run(index, i, values);
			int any = common ? visit_run(j, &run, row, fill, 2, PROFDB_FIELD_F64, 0)
			                 : visit_run(j, &run, row, fill, profdb_field_size(run.key_type),
			                             run.value_type, run.big_endian);
			if (!any)
				continue;
			if (fill) {
				j->ctx[row] = (uint32_t)profdb_view_key(index, i);
				j->prof[row] = j->profiles[p];
			}
			row++;
		}
	}
	j->rows = row;
	return 0;
}

/* _gather(profiles, metrics) -> (context, profile, bits, present): one row
 * per (profile, context) with a stored value of one of the metrics, in
 * profile order then context order; bits[m] are the 64 bits of column m in
 * its metric's type, present[m] says where a value is stored. */
static PyObject *db_gather(DatabaseObject *self, PyObject *args)
{
	PyObject *prof_obj, *met_obj;
	if (!PyArg_ParseTuple(args, "OO:_gather", &prof_obj, &met_obj))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	gather_job j = {.db = db};
	uint32_t *profiles = NULL, *metrics = NULL;
	size_t n_metrics = 0;
	id_col *map = NULL;
	int32_t *dense = NULL;
	profdb_type *types = NULL;
	PyObject *out = NULL, *a_ctx = NULL, *a_prof = NULL, *a_bits = NULL, *a_present = NULL;
	if (pd_u32_list(prof_obj, "profiles", &profiles, &j.n_profiles) < 0 ||
	    pd_u32_list(met_obj, "metrics", &metrics, &n_metrics) < 0)
		goto done;
	map = PyMem_Malloc((n_metrics + 1) * sizeof *map);
	types = PyMem_Malloc((n_metrics + 1) * sizeof *types);
	j.views = PyMem_Malloc((j.n_profiles + 1) * 2 * sizeof *j.views);
	if (!map || !types || !j.views) {
		PyErr_NoMemory();
		goto done;
	}
	for (size_t m = 0; m < n_metrics; m++) {
		profdb_metric info;
		int rc = profdb_metric_get(db, metrics[m], &info);
		if (rc < 0) {
			pd_raise(rc);
			goto done;
		}
		map[m] = (id_col){metrics[m], (uint32_t)m};
		types[m] = info.type;
	}
	qsort(map, n_metrics, sizeof *map, cmp_id_col);
	for (size_t m = 1; m < n_metrics; m++)
		if (map[m].id == map[m - 1].id) {
			PyErr_Format(PyExc_ValueError, "metric %u appears twice", map[m].id);
			goto done;
		}
	/* metric ids are small in every format: a table by id where it is */
	uint32_t top = n_metrics ? map[n_metrics - 1].id : 0;
	if (n_metrics && top < 4096) {
		if (!(dense = PyMem_Malloc(((size_t)top + 1) * sizeof *dense))) {
			PyErr_NoMemory();
			goto done;
		}
		for (uint32_t id = 0; id <= top; id++)
			dense[id] = -1;
		for (size_t m = 0; m < n_metrics; m++)
			dense[map[m].id] = (int32_t)map[m].col;
		j.dense = dense;
		j.n_dense = (uint64_t)top + 1;
	}
	j.profiles = profiles;
	j.map = map;
	j.n_metrics = n_metrics;
	j.types = types;
	int rc;
	PD_NOGIL(self, rc = gather_pass(&j, 0));
	if (rc < 0) {
		pd_raise(rc);
		goto done;
	}
	npy_intp n = (npy_intp)j.rows, dims2[2] = {(npy_intp)n_metrics, n};
	a_ctx = PyArray_SimpleNew(1, &n, NPY_UINT32);
	a_prof = PyArray_SimpleNew(1, &n, NPY_UINT32);
	a_bits = PyArray_ZEROS(2, dims2, NPY_UINT64, 0);
	a_present = PyArray_ZEROS(2, dims2, NPY_BOOL, 0);
	if (!a_ctx || !a_prof || !a_bits || !a_present)
		goto done;
	j.ctx = PyArray_DATA((PyArrayObject *)a_ctx);
	j.prof = PyArray_DATA((PyArrayObject *)a_prof);
	j.bits = PyArray_DATA((PyArrayObject *)a_bits);
	j.present = PyArray_DATA((PyArrayObject *)a_present);
	PD_NOGIL(self, rc = gather_pass(&j, 1));
	out = Py_BuildValue("(OOOO)", a_ctx, a_prof, a_bits, a_present);
done:
	Py_XDECREF(a_ctx);
	Py_XDECREF(a_prof);
	Py_XDECREF(a_bits);
	Py_XDECREF(a_present);
	PyMem_Free(profiles);
	PyMem_Free(metrics);
	PyMem_Free(map);
	PyMem_Free(dense);
	PyMem_Free(types);
	PyMem_Free(j.views);
	return out;
}

/* A string column: codes into a list of distinct strings. The strings of
 * a database are mostly the same few bytes of its mapping again and
 * again (a function's name at each of its calling contexts), so a table
 * by address (pointer, length, and for a loop or line scope's name its
 * kind and line) finds the code of most rows without making a Python
 * string; the dict by value makes strings at different addresses one. */
typedef struct {
	const char *ptr;
	size_t len;
	uint64_t line;
	int kind;        /* 0: the string; 1: "loop at <file>:<line>"; 2: "<file>:<line>" */
	int32_t code;
} seen_str;

typedef struct {
	PyObject *index;   /* dict str -> code */
	PyObject *list;    /* the categories */
	int32_t *codes;
	seen_str *seen;    /* open addressing, NULL ptr: empty slot */
	size_t mask, used;
} str_column;

static void str_column_free(str_column *c)
{
	PyMem_Free(c->seen);
	c->seen = NULL;
}

static seen_str *seen_slot(str_column *c, const char *ptr, size_t len, uint64_t line, int kind)
{
	if (!c->seen)
		return NULL;
	uint64_t h = ((uint64_t)(uintptr_t)ptr ^ len * 0x9E3779B97F4A7C15u ^ line * 0xC2B2AE3D27D4EB4Fu ^
	              (uint64_t)kind) * 0xFF51AFD7ED558CCDu;
	for (size_t i = (size_t)(h >> 20) & c->mask;; i = (i + 1) & c->mask) {
		seen_str *s = &c->seen[i];
		if (!s->ptr || (s->ptr == ptr && s->len == len && s->line == line && s->kind == kind))
			return s;
	}
}

/* An empty table (grown as strings come: most columns hold a few
 * hundred distinct strings, and each page of a table is a page fault). */
static int str_column_cache(str_column *c)
{
	c->seen = PyMem_Calloc(256, sizeof *c->seen);
	if (!c->seen) {
		PyErr_NoMemory();
		return -1;
	}
	c->mask = 255;
	c->used = 0;
	return 0;
}

/* Twice the slots, or the table as it is when there is no memory for that
 * (a row then goes through the dict). */
static void seen_grow(str_column *c)
{
	size_t n = 2 * (c->mask + 1);
	seen_str *old = c->seen, *at = n < ((size_t)1 << 28) ? PyMem_Calloc(n, sizeof *at) : NULL;
	if (!at)
		return;
	size_t old_n = c->mask + 1;
	c->seen = at;
	c->mask = n - 1;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].ptr)
			*seen_slot(c, old[i].ptr, old[i].len, old[i].line, old[i].kind) = old[i];
	PyMem_Free(old);
}

/* Row @p row's code for @p key (a new reference, released here). */
static int str_add_key(str_column *c, size_t row, PyObject *key)
{
	if (!key)
		return -1;
	PyObject *code = PyDict_GetItemWithError(c->index, key);
	if (code) {
		c->codes[row] = (int32_t)PyLong_AsLong(code);
		Py_DECREF(key);
		return 0;
	}
	if (PyErr_Occurred()) {
		Py_DECREF(key);
		return -1;
	}
	Py_ssize_t next = PyList_GET_SIZE(c->list);
	code = PyLong_FromSsize_t(next);
	int rc = code && PyDict_SetItem(c->index, key, code) == 0 && PyList_Append(c->list, key) == 0
	         ? 0 : -1;
	Py_XDECREF(code);
	Py_DECREF(key);
	c->codes[row] = (int32_t)next;
	return rc;
}

/* Remember row @p row's code under an address (a slot from seen_slot). */
static void seen_add(str_column *c, seen_str *slot, seen_str key, size_t row)
{
	if (!slot || c->used + 1 >= c->mask)   /* an empty slot ends every search */
		return;
	key.code = c->codes[row];
	*slot = key;
	if (++c->used > (c->mask + 1) / 2)
		seen_grow(c);
}

static int str_add(str_column *c, size_t row, profdb_str s)
{
	static const char empty[1] = "";
	seen_str key = {s.len ? s.ptr : empty, s.len, 0, 0, 0};
	seen_str *slot = seen_slot(c, key.ptr, key.len, 0, 0);
	if (slot && slot->ptr) {
		c->codes[row] = slot->code;
		return 0;
	}
	if (str_add_key(c, row, pd_str(s)) < 0)
		return -1;
	seen_add(c, slot, key, row);
	return 0;
}

/* A context's name in the frames: its function, or for an unnamed loop
 * or line scope the name the profdb tool prints ("loop at file.c:12",
 * "file.c:13", the file without its folders), so that grouping by name
 * keeps them apart. */
static int name_add(str_column *c, size_t row, const profdb_context *ctx)
{
	if (ctx->function.len || (ctx->type != PROFDB_CTX_LOOP && ctx->type != PROFDB_CTX_LINE))
		return str_add(c, row, ctx->function);
	profdb_str file = ctx->file;
	static const char empty[1] = "";
	seen_str key = {file.len ? file.ptr : empty, file.len, ctx->line,
	                ctx->type == PROFDB_CTX_LOOP ? 1 : 2, 0};
	seen_str *slot = seen_slot(c, key.ptr, key.len, key.line, key.kind);
	if (slot && slot->ptr) {
		c->codes[row] = slot->code;
		return 0;
	}
	for (size_t i = file.len; i > 0; i--)
		if (file.ptr[i - 1] == '/') {
			file.ptr += i;
			file.len -= i;
			break;
		}
	PyObject *base = file.len ? pd_str(file) : PyUnicode_FromString("?");
	if (!base)
		return -1;
	PyObject *name = PyUnicode_FromFormat(ctx->type == PROFDB_CTX_LOOP ? "loop at %U:%llu" : "%U:%llu",
	                                      base, (unsigned long long)ctx->line);
	Py_DECREF(base);
	if (str_add_key(c, row, name) < 0)
		return -1;
	seen_add(c, slot, key, row);
	return 0;
}

/* The nodes from a root down to the one a pre-order walk is at: what the
 * way up needs of each. */
typedef struct {
	uint32_t id, parent, next_sibling;
} hop;

typedef struct {
	hop *at;
	size_t n, cap;
} hop_path;

static int path_push(hop_path *p, const profdb_context *c)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		hop *at = PyMem_Realloc(p->at, cap * sizeof *at);
		if (!at) {
			PyErr_NoMemory();
			return -1;
		}
		p->at = at;
		p->cap = cap;
	}
	p->at[p->n++] = (hop){c->id, c->parent, c->next_sibling};
	return 0;
}

/* _context_table() -> dict of numpy arrays, one entry per tree node in
 * pre-order: id, parent (-1 for a root), depth, line, type codes, and the
 * codes of name, file and module into the lists name_values, ...; and
 * name_index, ...: the dicts string -> code of those lists. */
static PyObject *db_context_table(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	int64_t count;
	PD_NOGIL(self, count = profdb_context_count(db));
	if (count < 0)
		return pd_raise(count);
	uint32_t id = PROFDB_NONE;
	int rc = count ? profdb_context_root(db, &id) : 0;
	if (rc < 0)
		return pd_raise(rc);
	npy_intp n = (npy_intp)count;
	PyObject *a_id = PyArray_SimpleNew(1, &n, NPY_UINT32), *a_parent = PyArray_SimpleNew(1, &n, NPY_INT64),
	         *a_depth = PyArray_SimpleNew(1, &n, NPY_UINT32), *a_line = PyArray_SimpleNew(1, &n, NPY_UINT64),
	         *a_type = PyArray_SimpleNew(1, &n, NPY_INT8), *a_name = PyArray_SimpleNew(1, &n, NPY_INT32),
	         *a_file = PyArray_SimpleNew(1, &n, NPY_INT32), *a_module = PyArray_SimpleNew(1, &n, NPY_INT32);
	str_column cols[3] = {{PyDict_New(), PyList_New(0)}, {PyDict_New(), PyList_New(0)},
	                      {PyDict_New(), PyList_New(0)}};
	hop_path path = {NULL, 0, 0};
	PyObject *out = NULL;
	if (!a_id || !a_parent || !a_depth || !a_line || !a_type || !a_name || !a_file || !a_module)
		goto done;
	for (int k = 0; k < 3; k++)
		if (!cols[k].index || !cols[k].list || str_column_cache(&cols[k]) < 0)
			goto done;
	cols[0].codes = PyArray_DATA((PyArrayObject *)a_name);
	cols[1].codes = PyArray_DATA((PyArrayObject *)a_file);
	cols[2].codes = PyArray_DATA((PyArrayObject *)a_module);
	uint32_t *ids = PyArray_DATA((PyArrayObject *)a_id), *depth = PyArray_DATA((PyArrayObject *)a_depth);
	int64_t *parent = PyArray_DATA((PyArrayObject *)a_parent);
	uint64_t *line = PyArray_DATA((PyArrayObject *)a_line);
	int8_t *type = PyArray_DATA((PyArrayObject *)a_type);
	npy_intp row = 0;
	/* Pre-order walk over first_child / next_sibling / parent. */
	while (id != PROFDB_NONE) {
		profdb_context c;
		if ((rc = profdb_context_get(db, id, &c)) < 0) {
			pd_raise(rc);
			goto done;
		}
		if (row >= n) {
			pd_raise_msg(-EBADMSG, "the context tree has more nodes than its count %lld",
			             (long long)count);
			goto done;
		}
		ids[row] = c.id;
		parent[row] = c.parent == PROFDB_NONE ? -1 : (int64_t)c.parent;
		depth[row] = c.depth;
		line[row] = c.line;
		type[row] = (int8_t)c.type;
		if (name_add(&cols[0], (size_t)row, &c) < 0 ||
		    str_add(&cols[1], (size_t)row, c.file) < 0 ||
		    str_add(&cols[2], (size_t)row, c.module) < 0)
			goto done;
		row++;
		if (c.first_child != PROFDB_NONE) {
			if (path_push(&path, &c) < 0)
				goto done;
			id = c.first_child;
			continue;
		}
		/* up until a node with a next sibling: the nodes on the way down,
		 * or by parent where the tree's links disagree with that path */
		hop up = {c.id, c.parent, c.next_sibling};
		while (up.next_sibling == PROFDB_NONE && up.parent != PROFDB_NONE) {
			if (path.n && path.at[path.n - 1].id == up.parent) {
				up = path.at[--path.n];
				continue;
			}
			if ((rc = profdb_context_get(db, up.parent, &c)) < 0) {
				pd_raise(rc);
				goto done;
			}
			up = (hop){c.id, c.parent, c.next_sibling};
		}
		id = up.next_sibling;
	}
	if (row != n) {
		pd_raise_msg(-EBADMSG, "the context tree walk met %lld nodes, its count says %lld",
		             (long long)row, (long long)count);
		goto done;
	}
	out = Py_BuildValue("{sOsOsOsOsOsOsOsOsOsOsOsOsOsO}", "id", a_id, "parent", a_parent, "depth",
	                    a_depth, "line", a_line, "type", a_type, "name", a_name, "file", a_file,
	                    "module", a_module, "name_values", cols[0].list, "file_values",
	                    cols[1].list, "module_values", cols[2].list, "name_index", cols[0].index,
	                    "file_index", cols[1].index, "module_index", cols[2].index);
done:
	Py_XDECREF(a_id);
	Py_XDECREF(a_parent);
	Py_XDECREF(a_depth);
	Py_XDECREF(a_line);
	Py_XDECREF(a_type);
	Py_XDECREF(a_name);
	Py_XDECREF(a_file);
	Py_XDECREF(a_module);
	for (int k = 0; k < 3; k++) {
		Py_XDECREF(cols[k].index);
		Py_XDECREF(cols[k].list);
		str_column_free(&cols[k]);
	}
	PyMem_Free(path.at);
	return out;
}

/* _context_rows(ids, name_index, name_list, file_index, file_list,
 * module_index, module_list) -> (name, file, module, line): the columns of
 * _context_table() for the contexts @p ids (a uint32 array), their string
 * codes added to the given dicts and lists (the caller's copies), which
 * grow by the strings not yet in them. A context the database cannot name
 * (-ENOENT: a trace's "no context" id 0) reads as empty strings and line
 * 0. The first frame of a database calls this for the contexts with
 * values but no tree node, thousands in some databases. */
static PyObject *db_context_rows(DatabaseObject *self, PyObject *args)
{
	PyObject *ids_arg;
	str_column cols[3] = {{NULL}, {NULL}, {NULL}};
	if (!PyArg_ParseTuple(args, "OO!O!O!O!O!O!", &ids_arg, &PyDict_Type, &cols[0].index,
	                      &PyList_Type, &cols[0].list, &PyDict_Type, &cols[1].index,
	                      &PyList_Type, &cols[1].list, &PyDict_Type, &cols[2].index,
	                      &PyList_Type, &cols[2].list))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	PyArrayObject *ids = (PyArrayObject *)PyArray_FROMANY(ids_arg, NPY_UINT32, 1, 1,
	                                                      NPY_ARRAY_IN_ARRAY);
	if (!ids)
		return NULL;
	npy_intp n = PyArray_DIM(ids, 0);
	PyObject *a_code[3] = {PyArray_SimpleNew(1, &n, NPY_INT32), PyArray_SimpleNew(1, &n, NPY_INT32),
	                       PyArray_SimpleNew(1, &n, NPY_INT32)};
	PyObject *a_line = PyArray_SimpleNew(1, &n, NPY_UINT64), *out = NULL;
	if (!a_code[0] || !a_code[1] || !a_code[2] || !a_line)
		goto done;
	for (int k = 0; k < 3; k++) {
		cols[k].codes = PyArray_DATA((PyArrayObject *)a_code[k]);
		if (str_column_cache(&cols[k]) < 0)
			goto done;
	}
	const uint32_t *id = PyArray_DATA(ids);
	uint64_t *line = PyArray_DATA((PyArrayObject *)a_line);
	static const profdb_str none = {"", 0};
	for (npy_intp i = 0; i < n; i++) {
		profdb_context c;
		int rc = profdb_context_get(db, id[i], &c);
		if (rc == -ENOENT) {
			line[i] = 0;
			if (str_add(&cols[0], (size_t)i, none) < 0 || str_add(&cols[1], (size_t)i, none) < 0 ||
			    str_add(&cols[2], (size_t)i, none) < 0)
				goto done;
			continue;
		}
		if (rc < 0) {
			pd_raise(rc);
			goto done;
		}
		line[i] = c.line;
		if (name_add(&cols[0], (size_t)i, &c) < 0 || str_add(&cols[1], (size_t)i, c.file) < 0 ||
		    str_add(&cols[2], (size_t)i, c.module) < 0)
			goto done;
	}
	out = PyTuple_Pack(4, a_code[0], a_code[1], a_code[2], a_line);
done:
	Py_DECREF(ids);
	for (int k = 0; k < 3; k++) {
		Py_XDECREF(a_code[k]);
		str_column_free(&cols[k]);
	}
	Py_XDECREF(a_line);
	return out;
}

/* _levels(ids) -> (level, codes) or None: the sorted distinct values of
 * @p ids (a uint32 array) and the position of each id among them (intp),
 * what pandas finds by hashing every row for a MultiIndex level; here a
 * table as long as the largest id, in three passes without temporaries.
 * None when the ids are too sparse for such a table (the caller hashes). */
static PyObject *db_levels(PyObject *self, PyObject *arg)
{
	(void)self;
	PyArrayObject *ids = (PyArrayObject *)PyArray_FROMANY(arg, NPY_UINT32, 1, 1, NPY_ARRAY_IN_ARRAY);
	if (!ids)
		return NULL;
	npy_intp n = PyArray_DIM(ids, 0), distinct = 0;
	const uint32_t *id = PyArray_DATA(ids);
	uint32_t top = 0;
	for (npy_intp i = 0; i < n; i++)
		top = id[i] > top ? id[i] : top;
	if ((uint64_t)top >= 16 * (uint64_t)n + 65536 || (uint64_t)n >= UINT32_MAX) {
		Py_DECREF(ids);
		Py_RETURN_NONE;
	}
	PyObject *out = NULL, *a_level = NULL, *a_codes = NULL;
	uint32_t *rank = PyMem_Calloc((size_t)top + 1, sizeof *rank);
	if (!rank) {
		PyErr_NoMemory();
		goto done;
	}
	for (npy_intp i = 0; i < n; i++)
		rank[id[i]] = 1;
	for (uint64_t v = 0; v <= top; v++)
		if (rank[v])
			rank[v] = (uint32_t)++distinct;   /* 1-based: 0 stays "absent" */
	a_level = PyArray_SimpleNew(1, &distinct, NPY_UINT32);
	a_codes = PyArray_SimpleNew(1, &n, NPY_INTP);
	if (!a_level || !a_codes)
		goto done;
	uint32_t *level = PyArray_DATA((PyArrayObject *)a_level);
	npy_intp *codes = PyArray_DATA((PyArrayObject *)a_codes);
	for (uint64_t v = 0; v <= top; v++)
		if (rank[v])
			level[rank[v] - 1] = (uint32_t)v;
	for (npy_intp i = 0; i < n; i++)
		codes[i] = (npy_intp)rank[id[i]] - 1;
	out = PyTuple_Pack(2, a_level, a_codes);
done:
	PyMem_Free(rank);
	Py_XDECREF(a_level);
	Py_XDECREF(a_codes);
	Py_DECREF(ids);
	return out;
}

PyMethodDef pd_gather_methods[] = {
	{"_levels", (PyCFunction)db_levels, METH_O, NULL},
	{"_context_rows", (PyCFunction)db_context_rows, METH_VARARGS, NULL},
	{"_gather", (PyCFunction)db_gather, METH_VARARGS, NULL},
	{"_context_table", (PyCFunction)db_context_table, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};
