/* view.c — a profdb_view as a numpy structured array, without copying.
 *
 * A View object holds one profdb_view and its owner (the Database, or a
 * Stats result) and exports the records through the buffer protocol: one
 * dimension, count records, the view's stride, a PEP 3118 struct format
 * with the key and value fields at their offsets and in the view's byte
 * order. The arrays this file makes lie over the same memory with the View
 * as their base: arr.base is the View, View.owner the Database. The buffer
 * is read-only (the mapping is PROT_READ): a writable request fails.
 */
#include "ext.h"

#include <errno.h>
#include <stdio.h>

typedef struct {
	PyObject_HEAD
	DatabaseObject *db;   /* counts this View in db->exports */
	PyObject *owner;      /* what the memory belongs to */
	profdb_view v;
	Py_ssize_t shape, stride, itemsize;
	char format[128];     /* PEP 3118, for the buffer protocol */
	const char *names[3]; /* key, value, tag field names */
} ViewObject;

static const char *const field_code = "?HIQqdQ";   /* by profdb_field; TAGGED: u64 bits */
static const char *const field_dtype = "?u2u4u8i8f8u8";

static unsigned record_size(const profdb_view *v)
{
	unsigned end = v->key_offset + profdb_field_size(v->key_type);
	unsigned vend = v->value_offset + profdb_field_size(v->value_type);
	if (vend > end)
		end = vend;
	if (v->value_type == PROFDB_FIELD_TAGGED && v->tag_offset + 1u > end)
		end = v->tag_offset + 1u;
	return end;
}

/* The fields of a record: name, offset, struct code, dtype string. */
typedef struct {
	const char *name;
	unsigned offset;
	char code;
	char dtype[4];
} field;

static int fields_of(const ViewObject *self, field out[3])
{
	const profdb_view *v = &self->v;
	int n = 0;
	unsigned kt = v->key_type, vt = v->value_type;
	if (kt < 1 || kt > 3 || vt < 1 || vt > 6)
		return -1;
	out[n].name = self->names[0];
	out[n].offset = v->key_offset;
	out[n].code = field_code[kt];
	memcpy(out[n].dtype, field_dtype + 2 * kt - 1, 2);
	n++;
	out[n].name = self->names[1];
	out[n].offset = v->value_offset;
	out[n].code = field_code[vt];
	memcpy(out[n].dtype, field_dtype + 2 * vt - 1, 2);
	n++;
	if (vt == PROFDB_FIELD_TAGGED) {
		out[n].name = self->names[2];
		out[n].offset = v->tag_offset;
		out[n].code = 'B';
		memcpy(out[n].dtype, "u1", 2);
		n++;
	}
	for (int i = 0; i < n; i++)
		out[i].dtype[2] = 0;
	return n;
}

/* The PEP 3118 format: fields in offset order, gaps as 'x' pad bytes. */
static int build_format(ViewObject *self)
{
	field f[3];
	int n = fields_of(self, f);
	if (n < 0)
		return -1;
	for (int i = 1; i < n; i++)      /* insertion sort by offset */
		for (int j = i; j > 0 && f[j].offset < f[j - 1].offset; j--) {
			field t = f[j];
			f[j] = f[j - 1];
			f[j - 1] = t;
		}
	char *p = self->format, *end = self->format + sizeof self->format;
	unsigned at = 0;
	p += snprintf(p, (size_t)(end - p), "T{");
	for (int i = 0; i < n; i++) {
		if (f[i].offset < at)
			return -1;   /* overlapping fields: not a struct */
		if (f[i].offset > at)
			p += snprintf(p, (size_t)(end - p), "%ux", f[i].offset - at);
		p += snprintf(p, (size_t)(end - p), "%c%c:%s:", self->v.big_endian ? '>' : '<',
		              f[i].code, f[i].name);
		at = f[i].offset + (f[i].code == 'B' ? 1u : f[i].code == 'H' ? 2u
		                    : f[i].code == 'I' ? 4u : 8u);
	}
	p += snprintf(p, (size_t)(end - p), "}");
	return p < end ? 0 : -1;
}

/* The numpy dtype of a view's records, cached by layout. */
static PyObject *dtype_cache;

static PyArray_Descr *descr_of(ViewObject *self)
{
	char key[160];
	snprintf(key, sizeof key, "%u:%u:%u:%u:%u:%u:%u:%s:%s:%s", self->v.key_type,
	         self->v.key_offset, self->v.value_type, self->v.value_offset, self->v.tag_offset,
	         self->v.big_endian, (unsigned)self->itemsize, self->names[0], self->names[1],
	         self->names[2]);
	PyObject *hit = PyDict_GetItemString(dtype_cache, key);
	if (hit) {
		Py_INCREF(hit);
		return (PyArray_Descr *)hit;
	}
	field f[3];
	int n = fields_of(self, f);
	if (n < 0) {
		pd_raise_msg(-ENOTSUP, "a view with field types %u/%u has no numpy dtype",
		             self->v.key_type, self->v.value_type);
		return NULL;
	}
	PyObject *names = PyList_New(n), *formats = PyList_New(n), *offsets = PyList_New(n);
	for (int i = 0; names && formats && offsets && i < n; i++) {
		char dt[8];
		snprintf(dt, sizeof dt, "%c%s", self->v.big_endian ? '>' : '<', f[i].dtype);
		PyList_SET_ITEM(names, i, PyUnicode_FromString(f[i].name));
		PyList_SET_ITEM(formats, i, PyUnicode_FromString(dt));
		PyList_SET_ITEM(offsets, i, PyLong_FromUnsignedLong(f[i].offset));
	}
	PyObject *spec = names && formats && offsets
		? Py_BuildValue("{sOsOsOsn}", "names", names, "formats", formats, "offsets", offsets,
		                "itemsize", self->itemsize)
		: NULL;
	Py_XDECREF(names);
	Py_XDECREF(formats);
	Py_XDECREF(offsets);
	PyArray_Descr *d = NULL;
	if (spec && PyArray_DescrConverter(spec, &d) == NPY_SUCCEED &&
	    PyDict_SetItemString(dtype_cache, key, (PyObject *)d) < 0)
		Py_CLEAR(d);
	Py_XDECREF(spec);
	return d;
}

static int view_getbuffer(ViewObject *self, Py_buffer *b, int flags)
{
	if (flags & PyBUF_WRITABLE) {
		PyErr_SetString(PyExc_BufferError, "profdb views are read-only");
		return -1;
	}
	if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES || !(flags & PyBUF_FORMAT)) {
		PyErr_SetString(PyExc_BufferError,
		                "a profdb view is a strided array of structs: ask for strides and format");
		return -1;
	}
	static const char dummy[8];
	b->buf = self->v.count ? (void *)self->v.base : (void *)dummy;
	b->obj = Py_NewRef(self);
	b->len = self->shape * self->itemsize;
	b->readonly = 1;
	b->itemsize = self->itemsize;
	b->format = self->format;
	b->ndim = 1;
	b->shape = &self->shape;
	b->strides = &self->stride;
	b->suboffsets = NULL;
	b->internal = NULL;
	return 0;
}

static PyBufferProcs view_as_buffer = {(getbufferproc)view_getbuffer, NULL};

static void view_dealloc(ViewObject *self)
{
	if (self->db)
		self->db->exports--;
	Py_XDECREF(self->db);
	Py_XDECREF(self->owner);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *view_get_owner(ViewObject *self, void *c)
{
	(void)c;
	return Py_NewRef(self->owner);
}

static PyObject *view_get_database(ViewObject *self, void *c)
{
	(void)c;
	return Py_NewRef((PyObject *)self->db);
}

static PyObject *view_get_address(ViewObject *self, void *c)
{
	(void)c;
	return PyLong_FromVoidPtr((void *)self->v.base);
}

static PyObject *view_repr(ViewObject *self)
{
	return PyUnicode_FromFormat("<profdb.View %s count=%zd stride=%zd>", self->format,
	                            self->shape, self->stride);
}

static PyGetSetDef view_getset[] = {
	{"owner", (getter)view_get_owner, NULL, "The object the memory belongs to.", NULL},
	{"database", (getter)view_get_database, NULL, "The Database the view came from.", NULL},
	{"address", (getter)view_get_address, NULL, "Address of record 0 (0 when empty).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pd_ViewType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "profdb.View",
	.tp_basicsize = sizeof(ViewObject),
	.tp_dealloc = (destructor)view_dealloc,
	.tp_repr = (reprfunc)view_repr,
	.tp_as_buffer = &view_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The records of a profdb view, exported through the buffer protocol "
	          "(read-only, strided). The base of every array over a database's memory.",
	.tp_getset = view_getset,
};

PyObject *pd_view_array(DatabaseObject *db, PyObject *owner, const profdb_view *v,
                        const char *key_name, const char *value_name)
{
	ViewObject *self = PyObject_New(ViewObject, &pd_ViewType);
	if (!self)
		return NULL;
	self->db = (DatabaseObject *)Py_NewRef((PyObject *)db);
	db->exports++;
	self->owner = Py_NewRef(owner);
	self->v = *v;
	if (v->count == 0 && (v->key_type < 1 || v->key_type > 3 || v->value_type < 1 ||
	                      v->value_type > 6)) {
		/* an empty view may come zeroed: give it a layout of its own */
		memset(&self->v, 0, sizeof self->v);
		self->v.key_type = PROFDB_FIELD_U32;
		self->v.value_type = PROFDB_FIELD_F64;
		self->v.value_offset = 4;
		self->v.stride = 12;
		v = &self->v;
	}
	self->shape = (Py_ssize_t)v->count;
	self->stride = v->stride;
	self->itemsize = record_size(v);
	self->names[0] = key_name;
	self->names[1] = value_name;
	self->names[2] = "tag";
	if (v->count > PY_SSIZE_T_MAX / (v->stride ? v->stride : 1) || build_format(self) < 0) {
		Py_DECREF(self);
		return pd_raise_msg(-ENOTSUP, "a view of %llu records of stride %u has no array form",
		                    (unsigned long long)v->count, v->stride);
	}
	PyArray_Descr *d = descr_of(self);
	if (!d) {
		Py_DECREF(self);
		return NULL;
	}
	static char dummy[8];
	npy_intp dim = self->shape, stride = self->stride;
	void *data = v->count ? (void *)v->base : (void *)dummy;
	PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, d, 1, &dim, &stride, data, 0, NULL);
	if (!arr) {
		Py_DECREF(self);
		return NULL;
	}
	if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)self) < 0) {
		Py_DECREF(arr);
		return NULL;
	}
	return arr;
}

/* ---- the Database methods that hand out views ---------------------------- */

static PyObject *pair(DatabaseObject *self, const profdb_view *index, const profdb_view *values,
                      const char *outer, const char *inner)
{
	PyObject *a = pd_view_array(self, (PyObject *)self, index, outer, "start");
	if (!a)
		return NULL;
	PyObject *b = pd_view_array(self, (PyObject *)self, values, inner, "value");
	if (!b) {
		Py_DECREF(a);
		return NULL;
	}
	return Py_BuildValue("(NN)", a, b);
}

/* The two views of one profile or one context (@p fn), as arrays. */
static PyObject *view_pair(DatabaseObject *self, PyObject *arg, const char *what,
                           int (*fn)(const profdb *, uint32_t, profdb_view *, profdb_view *),
                           const char *key, const char *column)
{
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	uint32_t id;
	if (pd_u32_arg(arg, what, &id) < 0)
		return NULL;
	profdb_view index, values;
	int rc;
	PD_NOGIL(self, rc = fn(db, id, &index, &values));
	if (rc < 0)
		return pd_raise(rc);
	return pair(self, &index, &values, key, column);
}

static PyObject *db_profile_arrays(DatabaseObject *self, PyObject *arg)
{
	return view_pair(self, arg, "profile", profdb_profile_view, "context", "metric");
}

static PyObject *db_context_arrays(DatabaseObject *self, PyObject *arg)
{
	return view_pair(self, arg, "context", profdb_context_view, "metric", "profile");
}

/* Every profile's views at once: the bulk path (one GIL release for the
 * whole validation pass, then only array construction). */
static PyObject *db_all_profile_arrays(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	int64_t n = profdb_profile_count(db);
	if (n < 0)
		return pd_raise(n);
	profdb_view *v = PyMem_Malloc(((size_t)n + 1) * 2 * sizeof *v);
	if (!v)
		return PyErr_NoMemory();
	int rc = 0;
	PD_NOGIL(self, for (int64_t i = 0; i < n && rc >= 0; i++)
		rc = profdb_profile_view(db, (uint32_t)i, &v[2 * i], &v[2 * i + 1]));
	PyObject *list = rc < 0 ? pd_raise(rc) : PyList_New((Py_ssize_t)n);
	for (int64_t i = 0; list && i < n; i++) {
		PyObject *t = pair(self, &v[2 * i], &v[2 * i + 1], "context", "metric");
		if (!t) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	PyMem_Free(v);
	return list;
}

static PyObject *db_trace(DatabaseObject *self, PyObject *arg)
{
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	uint32_t p;
	if (pd_u32_arg(arg, "profile", &p) < 0)
		return NULL;
	profdb_view t;
	int rc;
	PD_NOGIL(self, rc = profdb_trace_view(db, p, &t));
	if (rc < 0)
		return pd_raise(rc);
	return pd_view_array(self, (PyObject *)self, &t, "time", "context");
}

PyMethodDef pd_view_methods[] = {
	{"_profile_arrays", (PyCFunction)db_profile_arrays, METH_O, NULL},
	{"_context_arrays", (PyCFunction)db_context_arrays, METH_O, NULL},
	{"_all_profile_arrays", (PyCFunction)db_all_profile_arrays, METH_NOARGS, NULL},
	{"trace", (PyCFunction)db_trace, METH_O,
	 "trace($self, profile, /)\n--\n\nThe trace line of a profile as a read-only numpy structured array "
	 "with fields 'time' (ns, uint64) and 'context' (id, uint32), over the database's memory "
	 "(no copy where the file stores it contiguously). Empty when the profile has no trace; "
	 "raises NotSupported for formats without traces."},
	{NULL, NULL, 0, NULL},
};

int pd_view_init(PyObject *module)
{
	dtype_cache = PyDict_New();
	if (!dtype_cache || PyType_Ready(&pd_ViewType) < 0)
		return -1;
	return PyModule_AddObjectRef(module, "View", (PyObject *)&pd_ViewType);
}
