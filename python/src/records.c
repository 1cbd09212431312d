/* records.c — metrics, profiles, contexts and counts as struct sequences
 * (named tuples made in C), with the enum values as the strings
 * `profdb dump --json` prints.
 */
#include "ext.h"

#include <errno.h>

static PyTypeObject MetricType, ProfileType, ContextType, CountsType;

static PyStructSequence_Field metric_fields[] = {
	{"id", "metric id as stored"},
	{"name", NULL},
	{"unit", "'' when unknown"},
	{"description", "'' when unknown (a derived metric's formula)"},
	{"kind", "'point', 'exclusive', 'inclusive', 'summary', 'derived' or 'other'"},
	{"statistic", "what the summary profile holds under this id ('sum', ...), or ''"},
	{"type", "type of the stored values: 'u64', 'i64', 'f64' or 'none'"},
	{"exclusive_id", "id of the exclusive scope of the same quantity, or None"},
	{"inclusive_id", "id of the inclusive scope of the same quantity, or None"},
	{"has_data", "False for derived or data-less metrics"},
	{"combine", "how values combine: 'sum', 'min', 'max' or 'none'"},
	{"period", "hpcrun's sampling period, 0 when none"},
	{"scale", "factor from a stored value to what the format's viewer shows"},
	{NULL, NULL},
};
static PyStructSequence_Desc metric_desc = {"profdb.Metric", "A metric.", metric_fields, 13};

static PyStructSequence_Field profile_fields[] = {
	{"index", "profile index, 0 .. count-1"},
	{"is_summary", "True for the format's summary profile"},
	{"name", "human-readable identity ('rank 3 thread 1')"},
	{"identity", "tuple of (kind, value) pairs: ('rank', 3), ('thread', 1), ..."},
	{NULL, NULL},
};
static PyStructSequence_Desc profile_desc = {"profdb.Profile",
	"A measured thread, process, GPU stream, location ...", profile_fields, 4};

static PyStructSequence_Field context_fields[] = {
	{"id", "context id as stored"},
	{"parent", "parent id, None for a root"},
	{"children", "tuple of child ids, in the tree's order"},
	{"depth", "0 for a root"},
	{"relation", "to the parent: 'none', 'lexical', 'call', 'inlined', 'unknown'"},
	{"type", "'root', 'function', 'loop', 'line', 'instruction' or 'unknown'"},
	{"name", "function name, '' when unknown"},
	{"file", "source file, '' when unknown"},
	{"line", "source line, 0 when unknown"},
	{"module", "load module, '' when unknown"},
	{"offset", "offset in the module, or None"},
	{"in_tree", "False for a context that has values but no tree node"},
	{NULL, NULL},
};
static PyStructSequence_Desc context_desc = {"profdb.Context", "A calling-context tree node.",
	context_fields, 12};

static PyStructSequence_Field counts_fields[] = {
	{"profiles", NULL}, {"contexts", NULL}, {"metrics", NULL},
	{"values", "stored (profile, context, metric) entries"},
	{"traces", NULL}, {"samples", NULL}, {NULL, NULL},
};
static PyStructSequence_Desc counts_desc = {"profdb.Counts",
	"The normative counts (doc/model.md), as `profdb info` prints them.", counts_fields, 6};

static const char *name_of(unsigned v, const char *const *names, size_t n)
{
	return v < n ? names[v] : "unknown";
}
#define NAME_OF(v, names) name_of((unsigned)(v), names, sizeof names / sizeof *names)

static const char *const kind_names[] = {"other", "point", "exclusive", "inclusive", "summary",
                                         "derived"};
static const char *const type_names[] = {"none", "u64", "i64", "f64"};
static const char *const combine_names[] = {"none", "sum", "min", "max"};
static const char *const relation_names[] = {"none", "lexical", "call", "inlined", "unknown"};
static const char *const ctx_type_names[] = {"unknown", "root", "function", "loop", "line",
                                             "instruction"};

static PyObject *id_or_none(uint32_t id)
{
	if (id == PROFDB_NONE)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(id);
}

/* Fill a struct sequence from a NULL-terminated list of new references;
 * steals them all, also on failure. */
static PyObject *fill(PyTypeObject *type, PyObject **items, Py_ssize_t n)
{
	PyObject *t = PyStructSequence_New(type);
	int ok = t != NULL;
	for (Py_ssize_t i = 0; i < n; i++)
		ok = ok && items[i];
	if (!ok) {
		for (Py_ssize_t i = 0; i < n; i++)
			Py_XDECREF(items[i]);
		Py_XDECREF(t);
		return NULL;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		PyStructSequence_SET_ITEM(t, i, items[i]);
	return t;
}

PyObject *pd_metric_tuple(const profdb_metric *m)
{
	PyObject *items[] = {
		PyLong_FromUnsignedLong(m->id), pd_str(m->name), pd_str(m->unit),
		pd_str(m->description), PyUnicode_FromString(NAME_OF(m->kind, kind_names)),
		pd_str(m->statistic), PyUnicode_FromString(NAME_OF(m->type, type_names)),
		id_or_none(m->exclusive_id), id_or_none(m->inclusive_id), PyBool_FromLong(m->has_data),
		PyUnicode_FromString(NAME_OF(m->combine, combine_names)),
		PyLong_FromUnsignedLongLong(m->period), PyFloat_FromDouble(m->scale),
	};
	return fill(&MetricType, items, 13);
}

PyObject *pd_profile_tuple(DatabaseObject *self, uint32_t index)
{
	profdb_profile p;
	int rc = profdb_profile_at(self->db, index, &p);
	if (rc < 0)
		return pd_raise(rc);
	PyObject *ident = PyTuple_New(p.n_identity);
	for (uint32_t i = 0; ident && i < p.n_identity; i++) {
		profdb_str kind;
		uint64_t value;
		rc = profdb_profile_identity(self->db, index, i, &kind, &value);
		if (rc < 0) {
			Py_DECREF(ident);
			return pd_raise(rc);
		}
		PyObject *pair = Py_BuildValue("(NK)", pd_str(kind), (unsigned long long)value);
		if (!pair) {
			Py_CLEAR(ident);
			break;
		}
		PyTuple_SET_ITEM(ident, i, pair);
	}
	PyObject *items[] = {PyLong_FromUnsignedLong(p.index), PyBool_FromLong(p.is_summary),
	                     pd_str(p.name), ident};
	return fill(&ProfileType, items, 4);
}

PyObject *pd_context_tuple(DatabaseObject *self, const profdb_context *c)
{
	Py_ssize_t n = 0;
	profdb_context k;
	for (uint32_t id = c->first_child; id != PROFDB_NONE; id = k.next_sibling, n++) {
		int rc = profdb_context_get(self->db, id, &k);
		if (rc < 0)
			return pd_raise(rc);
	}
	PyObject *children = PyTuple_New(n);
	Py_ssize_t i = 0;
	for (uint32_t id = c->first_child; children && id != PROFDB_NONE; id = k.next_sibling) {
		profdb_context_get(self->db, id, &k);   /* succeeded above */
		PyObject *v = PyLong_FromUnsignedLong(id);
		if (!v) {
			Py_CLEAR(children);
			break;
		}
		PyTuple_SET_ITEM(children, i++, v);
	}
	PyObject *offset = c->has_offset ? PyLong_FromUnsignedLongLong(c->offset) : Py_NewRef(Py_None);
	PyObject *items[] = {
		PyLong_FromUnsignedLong(c->id), id_or_none(c->parent), children,
		PyLong_FromUnsignedLong(c->depth),
		PyUnicode_FromString(NAME_OF(c->relation, relation_names)),
		PyUnicode_FromString(NAME_OF(c->type, ctx_type_names)), pd_str(c->function),
		pd_str(c->file), PyLong_FromUnsignedLongLong(c->line), pd_str(c->module), offset,
		PyBool_FromLong(c->in_tree),
	};
	return fill(&ContextType, items, 12);
}

PyObject *pd_counts_tuple(const profdb_counts *c)
{
	PyObject *items[] = {
		PyLong_FromLongLong(c->profiles), PyLong_FromLongLong(c->contexts),
		PyLong_FromLongLong(c->metrics), PyLong_FromLongLong(c->values),
		PyLong_FromLongLong(c->traces), PyLong_FromLongLong(c->samples),
	};
	return fill(&CountsType, items, 6);
}

static PyObject *db_metrics(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	if (self->metrics)
		return Py_NewRef(self->metrics);
	int64_t n = profdb_metric_count(db);
	if (n < 0)
		return pd_raise(n);
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (int64_t i = 0; t && i < n; i++) {
		profdb_metric m;
		int rc = profdb_metric_at(db, (uint32_t)i, &m);
		PyObject *v = rc < 0 ? pd_raise(rc) : pd_metric_tuple(&m);
		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
	}
	self->metrics = Py_XNewRef(t);
	return t;
}

static PyObject *db_metric(DatabaseObject *self, PyObject *key)
{
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_metric m;
	int rc;
	if (PyLong_Check(key)) {
		uint32_t id;
		if (pd_u32_arg(key, "metric with id", &id) < 0)
			return NULL;
		rc = profdb_metric_get(db, id, &m);
	} else if (PyUnicode_Check(key)) {
		const char *s = PyUnicode_AsUTF8(key);
		if (!s)
			return NULL;
		rc = profdb_metric_find(db, s, &m);
	} else {
		PyErr_SetString(PyExc_TypeError, "metric(): an id (int) or a name (str)");
		return NULL;
	}
	if (rc < 0)
		return pd_raise(rc);
	return pd_metric_tuple(&m);
}

static PyObject *db_default_metric(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_metric m;
	int rc = profdb_metric_default(db, &m);
	return rc < 0 ? pd_raise(rc) : pd_metric_tuple(&m);
}

static PyObject *db_profiles(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	if (self->profiles)
		return Py_NewRef(self->profiles);
	int64_t n = profdb_profile_count(db);
	if (n < 0)
		return pd_raise(n);
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	for (int64_t i = 0; t && i < n; i++) {
		PyObject *v = pd_profile_tuple(self, (uint32_t)i);
		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
	}
	self->profiles = Py_XNewRef(t);
	return t;
}

/* _profile_count() -> int: what profile_indices() needs for every
 * profile, without making a Profile of each. */
static PyObject *db_profile_count(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	int64_t n = profdb_profile_count(db);
	return n < 0 ? pd_raise(n) : PyLong_FromLongLong(n);
}

static PyObject *db_select(DatabaseObject *self, PyObject *arg)
{
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	const char *spec = NULL;
	if (arg != Py_None && !(spec = PyUnicode_AsUTF8(arg)))
		return NULL;
	int64_t n = profdb_profiles_select(db, spec, NULL, 0);
	if (n < 0)
		return pd_raise(n);
	uint32_t *sel = PyMem_Malloc(((size_t)n + 1) * sizeof *sel);
	if (!sel)
		return PyErr_NoMemory();
	n = profdb_profiles_select(db, spec, sel, (size_t)n);
	PyObject *t = n < 0 ? pd_raise(n) : PyTuple_New((Py_ssize_t)n);
	for (int64_t i = 0; t && i < n; i++) {
		PyObject *v = PyLong_FromUnsignedLong(sel[i]);
		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
	}
	PyMem_Free(sel);
	return t;
}

static PyObject *db_context(DatabaseObject *self, PyObject *arg)
{
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	uint32_t id;
	if (pd_u32_arg(arg, "context with id", &id) < 0)
		return NULL;
	profdb_context c;
	int rc;
	PD_NOGIL(self, rc = profdb_context_get(db, id, &c));   /* may build the tree */
	if (rc < 0)
		return pd_raise(rc);
	return pd_context_tuple(self, &c);
}

static PyObject *db_roots(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	uint32_t id;
	int rc;
	PD_NOGIL(self, rc = profdb_context_root(db, &id));
	if (rc == -ENOENT)
		return PyTuple_New(0);
	if (rc < 0)
		return pd_raise(rc);
	PyObject *list = PyList_New(0);
	while (list && id != PROFDB_NONE) {
		profdb_context c;
		rc = profdb_context_get(db, id, &c);
		if (rc < 0) {
			Py_DECREF(list);
			return pd_raise(rc);
		}
		PyObject *v = PyLong_FromUnsignedLong(id);
		if (!v || PyList_Append(list, v) < 0)
			Py_CLEAR(list);
		Py_XDECREF(v);
		id = c.next_sibling;
	}
	if (!list)
		return NULL;
	PyObject *t = PyList_AsTuple(list);
	Py_DECREF(list);
	return t;
}

PyMethodDef pd_record_methods[] = {
	{"_metrics", (PyCFunction)db_metrics, METH_NOARGS, NULL},
	{"_profiles", (PyCFunction)db_profiles, METH_NOARGS, NULL},
	{"_profile_count", (PyCFunction)db_profile_count, METH_NOARGS, NULL},
	{"_roots", (PyCFunction)db_roots, METH_NOARGS, NULL},
	{"metric", (PyCFunction)db_metric, METH_O,
	 "metric($self, key, /)\n--\n\nThe Metric with id key (an int), or found by name (a str: exact, "
	 "then case-insensitive; when scopes share the name the inclusive one wins). Raises "
	 "NotFound."},
	{"default_metric", (PyCFunction)db_default_metric, METH_NOARGS,
	 "default_metric($self, /)\n--\n\nThe Metric shown when none is named: the one 'profdb top', "
	 "view(), the converters and profdb-mpi pick (profdb_metric_default: time first, then "
	 "the first metric with a non-zero value). Raises NotFound when no metric has one."},
	{"context", (PyCFunction)db_context, METH_O,
	 "context($self, id, /)\n--\n\nThe Context with that id (parent, children, name, file, line, "
	 "module, ...). Raises NotFound."},
	{"select", (PyCFunction)db_select, METH_O,
	 "select($self, spec, /)\n--\n\nThe profile indices a selection names: '0-15', 'rank=0-3,thread=0', "
	 "... (None or '': every non-summary profile), as a tuple."},
	{NULL, NULL, 0, NULL},
};

int pd_records_init(PyObject *module)
{
	if (PyStructSequence_InitType2(&MetricType, &metric_desc) < 0 ||
	    PyStructSequence_InitType2(&ProfileType, &profile_desc) < 0 ||
	    PyStructSequence_InitType2(&ContextType, &context_desc) < 0 ||
	    PyStructSequence_InitType2(&CountsType, &counts_desc) < 0)
		return -1;
	if (PyModule_AddObjectRef(module, "Metric", (PyObject *)&MetricType) < 0 ||
	    PyModule_AddObjectRef(module, "Profile", (PyObject *)&ProfileType) < 0 ||
	    PyModule_AddObjectRef(module, "Context", (PyObject *)&ContextType) < 0 ||
	    PyModule_AddObjectRef(module, "Counts", (PyObject *)&CountsType) < 0)
		return -1;
	return 0;
}
