/* database.c — the Database type: open, close, the context manager and the
 * properties of the whole handle (format, counts, values by coordinates).
 */
#include "ext.h"

#include <errno.h>
#include <pthread.h>

/* Warnings arrive from whichever thread met them, possibly without the
 * GIL: they are kept in a C list under a mutex and moved to the Python
 * list when .warnings is read. */
typedef struct pd_warning {
	struct pd_warning *next;
	char text[];
} pd_warning;

typedef struct {
	pthread_mutex_t lock;
	pd_warning *head, **tail;
} pd_warnings;

/* The extension's own part of the object, behind the public struct. */
typedef struct {
	DatabaseObject base;
	pd_warnings warn;
} DatabaseFull;

static void on_warning(const char *message, void *userdata)
{
	pd_warnings *w = userdata;
	size_t n = strlen(message) + 1;
	pd_warning *e = malloc(sizeof *e + n);
	if (!e)
		return;   /* a warning lost to lack of memory: nothing else to do */
	memcpy(e->text, message, n);
	e->next = NULL;
	pthread_mutex_lock(&w->lock);
	*w->tail = e;
	w->tail = &e->next;
	pthread_mutex_unlock(&w->lock);
}

static void drop_warnings(pd_warnings *w)
{
	pd_warning *e = w->head;
	while (e) {
		pd_warning *next = e->next;
		free(e);
		e = next;
	}
	w->head = NULL;
	w->tail = &w->head;
}

profdb *pd_db(DatabaseObject *self)
{
	if (!self->db)
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed profdb.Database");
	return self->db;
}

PyObject *pd_str(profdb_str s)
{
	/* surrogateescape: names are bytes in some formats (Callgrind); they
	 * come back to the same bytes with os.fsencode(). */
	return PyUnicode_DecodeUTF8(s.ptr, (Py_ssize_t)s.len, "surrogateescape");
}

PyObject *pd_number(profdb_number n)
{
	switch (n.type) {
	case PROFDB_TYPE_U64:
		return PyLong_FromUnsignedLongLong(n.as.u64);
	case PROFDB_TYPE_I64:
		return PyLong_FromLongLong(n.as.i64);
	case PROFDB_TYPE_F64:
		return PyFloat_FromDouble(n.as.f64);   /* bits as stored, NaN payloads too */
	default:
		Py_RETURN_NONE;
	}
}

static PyObject *db_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	DatabaseFull *full = (DatabaseFull *)type->tp_alloc(type, 0);
	if (!full)
		return NULL;
	pthread_mutex_init(&full->warn.lock, NULL);
	full->warn.head = NULL;
	full->warn.tail = &full->warn.head;
	full->base.warnings = PyList_New(0);
	if (!full->base.warnings) {
		Py_DECREF(full);
		return NULL;
	}
	return (PyObject *)full;
}

static int db_init(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"path", "copy", "populate", "tolerant", "functions_only",
	                        "max_memory", NULL};
	PyObject *path_obj;
	int copy = 0, populate = 0, tolerant = 0, functions_only = 0;
	unsigned long long max_memory = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|$ppppK:open", names, PyUnicode_FSConverter,
	                                 &path_obj, &copy, &populate, &tolerant, &functions_only,
	                                 &max_memory))
		return -1;
	if (self->db) {
		Py_DECREF(path_obj);
		PyErr_SetString(PyExc_RuntimeError, "profdb.Database is already open");
		return -1;
	}
	DatabaseFull *full = (DatabaseFull *)self;
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = (copy ? PROFDB_OPEN_COPY : 0) | (populate ? PROFDB_OPEN_POPULATE : 0) |
	          (tolerant ? PROFDB_OPEN_TOLERANT : 0) |
	          (functions_only ? PROFDB_OPEN_FUNCTIONS_ONLY : 0);
	o.max_memory = max_memory;
	o.warn = on_warning;
	o.warn_userdata = &full->warn;
	const char *path = PyBytes_AS_STRING(path_obj);
	profdb *db = NULL;
	int rc;
	PD_NOGIL(self, rc = profdb_open(&db, path, &o));
	if (rc < 0) {
		Py_DECREF(path_obj);
		pd_raise(rc);
		return -1;
	}
	self->db = db;
	Py_XSETREF(self->path, PyUnicode_DecodeFSDefault(path));
	Py_DECREF(path_obj);
	return self->path ? 0 : -1;
}

static void db_dealloc(DatabaseObject *self)
{
	DatabaseFull *full = (DatabaseFull *)self;
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Views, Stats and Trees hold a reference, so none is alive here. */
	profdb_close(self->db);
	self->db = NULL;
	drop_warnings(&full->warn);
	pthread_mutex_destroy(&full->warn.lock);
	Py_CLEAR(self->path);
	Py_CLEAR(self->metrics);
	Py_CLEAR(self->profiles);
	Py_CLEAR(self->warnings);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *db_close(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	if (!self->db)
		Py_RETURN_NONE;
	if (self->busy > 0) {
		PyErr_Format(PyExc_BufferError,
		             "cannot close the profdb.Database: %zd call(s) in other threads are "
		             "still reading it", self->busy);
		return NULL;
	}
	if (self->exports > 0) {
		PyErr_Format(PyExc_BufferError,
		             "cannot close the profdb.Database: %zd array(s) or result(s) over its "
		             "memory are still alive (delete them, or keep copies)", self->exports);
		return NULL;
	}
	profdb *db = self->db;
	self->db = NULL;
	Py_BEGIN_ALLOW_THREADS
	profdb_close(db);
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

static PyObject *db_enter(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	if (!pd_db(self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *db_exit(DatabaseObject *self, PyObject *args)
{
	/* With an exception on its way out, a refused close must not mask
	 * it: the handle then stays open until the last array dies. */
	if (PyTuple_GET_SIZE(args) > 0 && PyTuple_GET_ITEM(args, 0) != Py_None &&
	    (self->exports > 0 || self->busy > 0))
		Py_RETURN_FALSE;
	PyObject *r = db_close(self, NULL);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *db_get_closed(DatabaseObject *self, void *c)
{
	(void)c;
	return PyBool_FromLong(self->db == NULL);
}

static PyObject *db_get_path(DatabaseObject *self, void *c)
{
	(void)c;
	return Py_NewRef(self->path ? self->path : Py_None);
}

static PyObject *db_get_exports(DatabaseObject *self, void *c)
{
	(void)c;
	return PyLong_FromSsize_t(self->exports);
}

static PyObject *db_get_warnings(DatabaseObject *self, void *c)
{
	(void)c;
	pd_warnings *w = &((DatabaseFull *)self)->warn;
	pthread_mutex_lock(&w->lock);
	pd_warning *e = w->head;
	w->head = NULL;
	w->tail = &w->head;
	pthread_mutex_unlock(&w->lock);
	int failed = 0;
	while (e) {
		pd_warning *next = e->next;
		PyObject *s = failed ? NULL : PyUnicode_DecodeUTF8(e->text, (Py_ssize_t)strlen(e->text),
		                                                   "surrogateescape");
		if (!s || PyList_Append(self->warnings, s) < 0)
			failed = 1;
		Py_XDECREF(s);
		free(e);
		e = next;
	}
	if (failed)
		return NULL;
	return PyList_AsTuple(self->warnings);
}

static PyObject *about_field(DatabaseObject *self, int which)
{
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_about a;
	int rc = profdb_get_about(db, &a);
	if (rc < 0)
		return pd_raise(rc);
	switch (which) {
	case 0:
		return PyUnicode_FromString(profdb_format_name(a.format));
	case 1:
		return pd_str(a.version);
	default:
		return pd_str(a.title);
	}
}

static PyObject *db_get_format(DatabaseObject *self, void *c)
{
	(void)c;
	return about_field(self, 0);
}

static PyObject *db_get_version(DatabaseObject *self, void *c)
{
	(void)c;
	return about_field(self, 1);
}

static PyObject *db_get_title(DatabaseObject *self, void *c)
{
	(void)c;
	return about_field(self, 2);
}

static PyObject *db_get_counts(DatabaseObject *self, void *c)
{
	(void)c;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_counts n;
	int rc;
	PD_NOGIL(self, rc = profdb_get_counts(db, &n));   /* may build lazy indexes */
	if (rc < 0)
		return pd_raise(rc);
	return pd_counts_tuple(&n);
}

typedef int (*value_fn)(const profdb *, uint32_t, uint32_t, uint32_t, profdb_number *);

static PyObject *value_call(DatabaseObject *self, PyObject *args, PyObject *kw, value_fn fn,
                            const char *fmt)
{
	static char *names[] = {"profile", "context", "metric", NULL};
	uint32_t p, ctx, m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, names, pd_u32_conv, &p, pd_u32_conv, &ctx,
	                                 pd_u32_conv, &m))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_number n;
	int rc;
	PD_NOGIL(self, rc = fn(db, p, ctx, m, &n));
	if (rc < 0)
		return pd_raise(rc);
	return pd_number(n);
}

static PyObject *db_value(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	return value_call(self, args, kw, profdb_value, "O&O&O&:value");
}

static PyObject *db_inclusive(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	return value_call(self, args, kw, profdb_inclusive, "O&O&O&:inclusive");
}

static PyObject *db_exclusive(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	return value_call(self, args, kw, profdb_exclusive, "O&O&O&:exclusive");
}

static PyObject *db_repr(DatabaseObject *self)
{
	if (!self->db)
		return PyUnicode_FromFormat("<profdb.Database %R (closed)>", self->path);
	profdb_about a;
	profdb_get_about(self->db, &a);
	return PyUnicode_FromFormat("<profdb.Database %R format=%s>", self->path,
	                            profdb_format_name(a.format));
}

static PyMethodDef db_methods[] = {
	{"close", (PyCFunction)db_close, METH_NOARGS,
	 "close($self, /)\n--\n\nUnmap the database. Raises BufferError while arrays, statistics or "
	 "views over its memory are alive (as mmap.close() does); closing twice is a no-op."},
	{"__enter__", (PyCFunction)db_enter, METH_NOARGS, "__enter__($self, /)\n--\n\nThe handle itself."},
	{"__exit__", (PyCFunction)db_exit, METH_VARARGS,
	 "__exit__($self, *exc)\n--\n\nclose(), except while an exception propagates and arrays are alive."},
	{"value", (PyCFunction)(void (*)(void))db_value, METH_VARARGS | METH_KEYWORDS,
	 "value($self, /, profile, context, metric)\n--\n\nThe stored value, exactly as stored (int or "
	 "float, NaN payloads kept), or None when nothing is stored there. profile is an "
	 "index, context and metric are ids."},
	{"inclusive", (PyCFunction)(void (*)(void))db_inclusive, METH_VARARGS | METH_KEYWORDS,
	 "inclusive($self, /, profile, context, metric)\n--\n\nThe inclusive value of the quantity metric "
	 "measures: stored where the file has that scope, computed by the format's rule "
	 "otherwise (doc/model.md); None when there is nothing."},
	{"exclusive", (PyCFunction)(void (*)(void))db_exclusive, METH_VARARGS | METH_KEYWORDS,
	 "exclusive($self, /, profile, context, metric)\n--\n\nThe exclusive (self) value; as inclusive()."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef db_getset[] = {
	{"closed", (getter)db_get_closed, NULL, "True once close() succeeded.", NULL},
	{"path", (getter)db_get_path, NULL, "The path given to open().", NULL},
	{"format", (getter)db_get_format, NULL,
	 "The format: 'hpctoolkit-4.0', 'hpctoolkit-prerelease', 'hpctoolkit-draft', "
	 "'hpctoolkit-xml', 'hpcrun', 'cube' or 'callgrind'.", NULL},
	{"version", (getter)db_get_version, NULL, "The format version as stored.", NULL},
	{"title", (getter)db_get_title, NULL, "The title (program, command line) or ''.", NULL},
	{"counts", (getter)db_get_counts, NULL,
	 "The normative counts (profiles, contexts, metrics, values, traces, samples), as "
	 "`profdb info` prints them.", NULL},
	{"exports", (getter)db_get_exports, NULL,
	 "How many arrays' Views, Stats and Tree results over the handle's memory are alive.",
	 NULL},
	{"warnings", (getter)db_get_warnings, NULL,
	 "The warnings the library reported so far (tolerant mode: the damaged blocks).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

/* The methods of the other files are appended at module init. */
static PyMethodDef all_methods[64];

PyTypeObject pd_DatabaseType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "profdb._profdb.Database",
	.tp_basicsize = sizeof(DatabaseFull),
	.tp_dealloc = (destructor)db_dealloc,
	.tp_repr = (reprfunc)db_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Database(path, *, copy=False, populate=False, tolerant=False, "
	          "functions_only=False, max_memory=0)\n--\n\n"
	          "An open profile database of any format profdb reads (use profdb.open()).",
	.tp_weaklistoffset = offsetof(DatabaseObject, weakrefs),
	.tp_methods = all_methods,
	.tp_getset = db_getset,
	.tp_init = (initproc)db_init,
	.tp_new = db_new,
};

/* Gather the method tables of database.c and the other files (ext.h)
 * into the type's table, before PyType_Ready. */
int pd_database_methods_init(void);
int pd_database_methods_init(void)
{
	const PyMethodDef *tables[] = {db_methods, pd_record_methods, pd_view_methods,
	                               pd_gather_methods, pd_arena_methods, pd_analysis_methods,
	                               pd_match_methods, pd_scopes_methods, pd_convert_methods};
	size_t k = 0;
	for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
		for (const PyMethodDef *m = tables[t]; m->ml_name; m++) {
			if (k + 1 >= sizeof all_methods / sizeof *all_methods) {
				PyErr_SetString(PyExc_SystemError, "profdb: method table too small");
				return -1;
			}
			all_methods[k++] = *m;
		}
	return 0;
}
