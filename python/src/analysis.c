/* analysis.c — statistics over profiles (Stats), the check of a stored
 * summary profile, call edges and the three views (Tree) of
 * profdb/analysis.h.
 *
 * Stats and Tree results hold their Database and count in its exports:
 * their memory and strings live in the handle, so it may not close before
 * them. Building them releases the GIL.
 */
#include "ext.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

typedef struct {
	PyObject_HEAD
	DatabaseObject *db;
	profdb_stats *stats;
} StatsObject;

typedef struct {
	PyObject_HEAD
	DatabaseObject *db;
	profdb_tree *tree;
	Py_ssize_t n_metrics;
} TreeObject;

static PyTypeObject StatType, NodeType, EdgeType;

static PyStructSequence_Field stat_fields[] = {
	{"context", NULL}, {"metric", NULL},
	{"count", "profiles with a stored value"},
	{"sum", NULL}, {"min", NULL}, {"max", NULL}, {"mean", NULL},
	{"stddev", "population standard deviation"},
	{"imbalance", "max / mean"}, {"imbalance_pct", "(max - mean) / max"},
	{"min_profile", NULL}, {"max_profile", NULL}, {NULL, NULL},
};
static PyStructSequence_Desc stat_desc = {"profdb.Stat",
	"Statistics of one (context, metric) over the selected profiles.", stat_fields, 12};

static PyStructSequence_Field node_fields[] = {
	{"id", "node id, 0 is the root"}, {"parent", "None for the root"},
	{"children", "tuple of node ids, heaviest first"}, {"depth", NULL},
	{"type", "'root', 'module', 'file', 'function', 'loop', 'line', 'instruction', "
	         "'other' or 'unknown'"},
	{"recursive", "True where recursion was cut"},
	{"context", "a context the node stands for, or None"},
	{"name", NULL}, {"file", NULL}, {"line", NULL}, {"module", NULL}, {NULL, NULL},
};
static PyStructSequence_Desc node_desc = {"profdb.Node", "A node of a view (Tree).", node_fields,
	11};

static PyStructSequence_Field edge_fields[] = {
	{"caller", "context id of the calling function (or the root)"},
	{"callee", "context id of the called function"},
	{"site", "context id of the call site, None where the format records none"},
	{"calls", "the call count, summed over profiles; None where the format records none"},
	{"cost", "the calls' inclusive cost of the metric asked for, None without one"},
	{NULL, NULL},
};
static PyStructSequence_Desc edge_desc = {"profdb.Edge",
	"A call edge (Database.edges_of()).", edge_fields, 5};

static const char *const node_type_names[] = {"root", "module", "file", "function", "loop",
                                              "line", "instruction", "other", "unknown"};

/* ---- Stats --------------------------------------------------------------- */

static void stats_dealloc(StatsObject *self)
{
	profdb_stats_free(self->stats);
	if (self->db)
		self->db->exports--;
	Py_XDECREF(self->db);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t stats_len(StatsObject *self)
{
	return (Py_ssize_t)profdb_stats_count(self->stats);
}

static PyObject *stat_tuple(const profdb_stat *s)
{
	PyObject *t = PyStructSequence_New(&StatType);
	if (!t)
		return NULL;
	PyObject *items[] = {
		PyLong_FromUnsignedLong(s->context), PyLong_FromUnsignedLong(s->metric),
		PyLong_FromUnsignedLongLong(s->count), PyFloat_FromDouble(s->sum),
		PyFloat_FromDouble(s->min), PyFloat_FromDouble(s->max), PyFloat_FromDouble(s->mean),
		PyFloat_FromDouble(s->stddev), PyFloat_FromDouble(s->imbalance),
		PyFloat_FromDouble(s->imbalance_pct), PyLong_FromUnsignedLong(s->min_profile),
		PyLong_FromUnsignedLong(s->max_profile),
	};
	int ok = 1;
	for (int i = 0; i < 12; i++) {
		ok = ok && items[i];
		PyStructSequence_SET_ITEM(t, i, items[i] ? items[i] : Py_NewRef(Py_None));
	}
	if (!ok)
		Py_CLEAR(t);
	return t;
}

static PyObject *stats_get(StatsObject *self, PyObject *args)
{
	uint32_t ctx, m;
	if (!PyArg_ParseTuple(args, "O&O&:get", pd_u32_conv, &ctx, pd_u32_conv, &m))
		return NULL;
	profdb_stat s;
	int rc = profdb_stats_get(self->stats, ctx, m, &s);
	if (rc < 0)
		return pd_raise(rc);
	if (rc == 0)
		Py_RETURN_NONE;
	return stat_tuple(&s);
}

static PyObject *stats_item(StatsObject *self, Py_ssize_t i)
{
	profdb_stat s;
	int rc = i < 0 ? -ENOENT : profdb_stats_at(self->stats, (uint64_t)i, &s);
	if (rc == -ENOENT) {
		PyErr_SetString(PyExc_IndexError, "Stats index out of range");
		return NULL;
	}
	if (rc < 0)
		return pd_raise(rc);
	return stat_tuple(&s);
}

/* The numpy dtype of profdb_stat, field for field. */
static PyArray_Descr *stat_descr(void)
{
	PyObject *spec = Py_BuildValue(
		"{s[ssssssssssss]s[ssssssssssss]s[nnnnnnnnnnnn]sn}",
		"names", "context", "metric", "count", "sum", "min", "max", "mean", "stddev", "imbalance",
		"imbalance_pct", "min_profile", "max_profile",
		"formats", "=u4", "=u4", "=u8", "=f8", "=f8", "=f8", "=f8", "=f8", "=f8", "=f8", "=u4", "=u4",
		"offsets", offsetof(profdb_stat, context), offsetof(profdb_stat, metric),
		offsetof(profdb_stat, count), offsetof(profdb_stat, sum), offsetof(profdb_stat, min),
		offsetof(profdb_stat, max), offsetof(profdb_stat, mean), offsetof(profdb_stat, stddev),
		offsetof(profdb_stat, imbalance), offsetof(profdb_stat, imbalance_pct),
		offsetof(profdb_stat, min_profile), offsetof(profdb_stat, max_profile),
		"itemsize", (Py_ssize_t)sizeof(profdb_stat));
	PyArray_Descr *d = NULL;
	if (spec)
		PyArray_DescrConverter(spec, &d);
	Py_XDECREF(spec);
	return d;
}

static PyObject *stats_rows(StatsObject *self, PyObject *unused)
{
	(void)unused;
	int64_t n = profdb_stats_count(self->stats);
	if (n < 0)
		return pd_raise(n);
	PyArray_Descr *d = stat_descr();
	if (!d)
		return NULL;
	npy_intp dim = (npy_intp)n;
	PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, d, 1, &dim, NULL, NULL, 0, NULL);
	if (!arr)
		return NULL;
	profdb_stat *rows = PyArray_DATA((PyArrayObject *)arr);
	int rc = 0;
	Py_BEGIN_ALLOW_THREADS
	for (int64_t i = 0; i < n && rc >= 0; i++)
		rc = profdb_stats_at(self->stats, (uint64_t)i, &rows[i]);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		Py_DECREF(arr);
		return pd_raise(rc);
	}
	return arr;
}

static PyObject *stats_view(StatsObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"metric", "field", NULL};
	static const struct {
		const char *name;
		size_t offset;
	} fields[] = {
		{"sum", offsetof(profdb_stat, sum)}, {"min", offsetof(profdb_stat, min)},
		{"max", offsetof(profdb_stat, max)}, {"mean", offsetof(profdb_stat, mean)},
		{"stddev", offsetof(profdb_stat, stddev)},
		{"imbalance", offsetof(profdb_stat, imbalance)},
		{"imbalance_pct", offsetof(profdb_stat, imbalance_pct)},
	};
	uint32_t metric;
	const char *field = "sum";
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|s:view", names, pd_u32_conv, &metric, &field))
		return NULL;
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (!strcmp(fields[i].name, field)) {
			profdb_view v;
			int rc = profdb_stats_view(self->stats, metric, fields[i].offset, &v);
			if (rc < 0)
				return pd_raise(rc);
			return pd_view_array(self->db, (PyObject *)self, &v, "context", fields[i].name);
		}
	PyErr_Format(PyExc_ValueError, "no statistic %s (sum, min, max, mean, stddev, imbalance, "
	             "imbalance_pct)", field);
	return NULL;
}

static PyMethodDef stats_methods[] = {
	{"get", (PyCFunction)stats_get, METH_VARARGS,
	 "get($self, context, metric, /)\n--\n\nThe Stat of (context, metric), None when no selected "
	 "profile stores a value there."},
	{"rows", (PyCFunction)stats_rows, METH_NOARGS,
	 "rows($self, /)\n--\n\nEvery row as a numpy structured array (a copy), sorted by metric, then "
	 "context."},
	{"view", (PyCFunction)(void (*)(void))stats_view, METH_VARARGS | METH_KEYWORDS,
	 "view($self, /, metric, field='sum')\n--\n\nOne statistic of one metric over the contexts, as a "
	 "read-only array (fields 'context' and the statistic) over the result's memory, "
	 "without copying."},
	{NULL, NULL, 0, NULL},
};

static PyObject *stats_n(StatsObject *self, void *unused)
{
	(void)unused;
	return PyLong_FromLongLong((long long)profdb_stats_profiles(self->stats));
}

static PyGetSetDef stats_getset[] = {
	{"n", (getter)stats_n, NULL,
	 "The number of profiles selected: for a metric that adds, mean, stddev and the "
	 "imbalance count the n - count profiles without a value as 0.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods stats_as_sequence = {
	.sq_length = (lenfunc)stats_len,
	.sq_item = (ssizeargfunc)stats_item,
};

PyTypeObject pd_StatsType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "profdb.Stats",
	.tp_basicsize = sizeof(StatsObject),
	.tp_dealloc = (destructor)stats_dealloc,
	.tp_as_sequence = &stats_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Statistics over profiles (Database.stats()): a sequence of Stat rows, sorted "
	          "by metric, then context.",
	.tp_methods = stats_methods,
	.tp_getset = stats_getset,
};

static PyObject *db_stats(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"profiles", "metrics", "threads", NULL};
	PyObject *prof_obj = Py_None, *met_obj = Py_None;
	uint32_t threads = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO&:_stats", names, &prof_obj, &met_obj,
	                                 pd_u32_conv, &threads))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_stats_options o = PROFDB_STATS_OPTIONS_INIT;
	uint32_t *profiles = NULL, *metrics = NULL;
	if (pd_u32_list(prof_obj, "profiles", &profiles, &o.n_profiles) < 0 ||
	    pd_u32_list(met_obj, "metrics", &metrics, &o.n_metrics) < 0) {
		PyMem_Free(profiles);
		return NULL;
	}
	o.profiles = profiles;
	o.metrics = metrics;
	o.threads = threads;
	profdb_stats *st = NULL;
	int rc;
	PD_NOGIL(self, rc = profdb_stats_new(&st, db, &o));
	PyMem_Free(profiles);
	PyMem_Free(metrics);
	if (rc < 0)
		return pd_raise(rc);
	StatsObject *s = PyObject_New(StatsObject, &pd_StatsType);
	if (!s) {
		profdb_stats_free(st);
		return NULL;
	}
	s->stats = st;
	s->db = (DatabaseObject *)Py_NewRef((PyObject *)self);
	self->exports++;
	return (PyObject *)s;
}

/* ---- edges --------------------------------------------------------------- */

static PyObject *db_edges(DatabaseObject *self, PyObject *unused)
{
	(void)unused;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	int64_t n;
	PD_NOGIL(self, n = profdb_edge_count(db));
	if (n < 0)
		return pd_raise(n);
	PyObject *spec = Py_BuildValue("[(ss)(ss)(ss)(ss)(ss)]", "caller", "=u4", "callee", "=u4",
	                               "site", "=u4", "has_count", "?", "count", "=u8");
	PyArray_Descr *d = NULL;
	if (!spec || PyArray_DescrConverter(spec, &d) != NPY_SUCCEED) {
		Py_XDECREF(spec);
		return NULL;
	}
	Py_DECREF(spec);
	npy_intp dim = (npy_intp)n;
	PyArrayObject *arr = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, d, 1, &dim, NULL,
	                                                           NULL, 0, NULL);
	if (!arr)
		return NULL;
	char *base = PyArray_DATA(arr);
	npy_intp stride = PyArray_STRIDE(arr, 0);
	int rc = 0;
	PD_NOGIL(self, for (int64_t i = 0; i < n && rc >= 0; i++) {
		profdb_edge e = {0};
		rc = profdb_edge_at(db, (uint64_t)i, &e);
		char *r = base + i * stride;
		unsigned char has = e.has_count != 0;
		memcpy(r, &e.caller, 4);
		memcpy(r + 4, &e.callee, 4);
		memcpy(r + 8, &e.site, 4);
		memcpy(r + 12, &has, 1);
		memcpy(r + 13, &e.count, 8);
	});
	if (rc < 0) {
		Py_DECREF(arr);
		return pd_raise(rc);
	}
	return (PyObject *)arr;
}

static PyObject *db_edge_cost(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"index", "metric", "profile", NULL};
	unsigned long long index;
	uint32_t metric;
	PyObject *prof_obj = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O:edge_cost", names, pd_u64_conv, &index,
	                                 pd_u32_conv, &metric, &prof_obj))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	uint32_t profile = PROFDB_NONE;
	if (prof_obj != Py_None) {
		if (pd_u32_arg(prof_obj, "profile", &profile) < 0)
			return NULL;
	}
	profdb_number v;
	int rc;
	PD_NOGIL(self, rc = profdb_edge_inclusive(db, profile, index, metric, &v));
	if (rc < 0)
		return pd_raise(rc);
	return pd_number(v);
}

/* The context ids of @p obj (an int or an iterable of ints) in *ids. */
static int context_ids(PyObject *obj, uint32_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	if (PyLong_Check(obj)) {
		if (!(*ids = PyMem_Malloc(sizeof **ids))) {
			PyErr_NoMemory();
			return -1;
		}
		*n = 1;
		return pd_u32_arg(obj, "context", *ids);
	}
	PyObject *seq = PySequence_Fast(obj, "contexts must be an int or an iterable of ints");
	if (!seq)
		return -1;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
	if (!(*ids = PyMem_Malloc((size_t)(len + 1) * sizeof **ids))) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	int rc = 0;
	for (Py_ssize_t i = 0; i < len && rc == 0; i++)
		rc = pd_u32_arg(PySequence_Fast_GET_ITEM(seq, i), "context", &(*ids)[i]);
	*n = (size_t)len;
	Py_DECREF(seq);
	return rc;
}

/* Edge @p i of @p set as an Edge, with its cost of @p metric (PROFDB_NONE:
 * none asked) in @p profile. */
static PyObject *edge_tuple(const profdb_edge_set *set, uint64_t i, uint32_t metric,
                            uint32_t profile)
{
	profdb_edge e;
	profdb_number v;
	int rc = profdb_edge_set_at(set, i, &e), got = 0;
	if (rc == 0 && metric != PROFDB_NONE)
		got = rc = profdb_edge_set_inclusive(set, profile, i, metric, &v);
	if (rc < 0)
		return pd_raise(rc);
	PyObject *t = PyStructSequence_New(&EdgeType);
	if (!t)
		return NULL;
	PyObject *items[] = {
		PyLong_FromUnsignedLong(e.caller), PyLong_FromUnsignedLong(e.callee),
		e.site == PROFDB_NONE ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(e.site),
		e.has_count ? PyLong_FromUnsignedLongLong(e.count) : Py_NewRef(Py_None),
		got > 0 ? pd_number(v) : Py_NewRef(Py_None),
	};
	for (size_t k = 0; k < sizeof items / sizeof *items; k++) {
		if (!items[k]) {
			for (size_t j = k + 1; j < sizeof items / sizeof *items; j++)
				Py_XDECREF(items[j]);
			Py_DECREF(t);
			return NULL;
		}
		PyStructSequence_SET_ITEM(t, (Py_ssize_t)k, items[k]);
	}
	return t;
}

/* profdb_edge_set_new as a list of Edge, the set freed before returning. */
static PyObject *db_edges_of(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"contexts", "side", "metric", "profile", NULL};
	PyObject *ctx_obj, *metric_obj = Py_None, *prof_obj = Py_None;
	const char *side_name = "into";
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|sOO:edges_of", names, &ctx_obj, &side_name,
	                                 &metric_obj, &prof_obj))
		return NULL;
	profdb_edge_side side;
	if (strcmp(side_name, "into") == 0)
		side = PROFDB_EDGES_INTO;
	else if (strcmp(side_name, "out_of") == 0)
		side = PROFDB_EDGES_OUT_OF;
	else
		return PyErr_Format(PyExc_ValueError, "side must be 'into' or 'out_of', not '%s'",
		                    side_name);
	uint32_t metric = PROFDB_NONE, profile = PROFDB_NONE;
	if ((metric_obj != Py_None && pd_u32_arg(metric_obj, "metric", &metric) < 0) ||
	    (prof_obj != Py_None && pd_u32_arg(prof_obj, "profile", &profile) < 0))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	uint32_t *ids;
	size_t n;
	if (context_ids(ctx_obj, &ids, &n) < 0) {
		PyMem_Free(ids);
		return NULL;
	}
	profdb_edge_set *set = NULL;
	int rc;
	PD_NOGIL(self, rc = profdb_edge_set_new(&set, db, ids, n, side));
	PyMem_Free(ids);
	if (rc < 0)
		return pd_raise(rc);
	int64_t ne = profdb_edge_set_count(set);
	PyObject *list = PyList_New(0);
	for (int64_t i = 0; list && i < ne; i++) {
		PyObject *t = edge_tuple(set, (uint64_t)i, metric, profile);
		if (!t || PyList_Append(list, t) < 0)
			Py_CLEAR(list);
		Py_XDECREF(t);
	}
	profdb_edge_set_free(set);
	return list;
}

/* ---- the check of a stored summary profile -------------------------------- */

/* Issue @p is as a tuple (context, statistic_id, metric, statistic,
 * missing, stored, expected, bound, terms, reason); stored is None when
 * missing. */
static PyObject *issue_tuple(const profdb_summary_issue *is)
{
	PyObject *stored = is->missing ? Py_NewRef(Py_None) : PyFloat_FromDouble(is->stored);
	if (!stored)
		return NULL;
	return Py_BuildValue("(kkkNONddKs)", (unsigned long)is->context,
	                     (unsigned long)is->statistic_id, (unsigned long)is->metric,
	                     pd_str(is->statistic), is->missing ? Py_True : Py_False, stored,
	                     is->expected, is->bound, (unsigned long long)is->terms,
	                     profdb_summary_reason_name(is->reason));
}

/* profdb_summary_check_new as (counts tuple, list of issue tuples): a copy,
 * the result freed before returning. */
static PyObject *db_summary_check(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"threads", NULL};
	uint32_t threads = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:_summary_check", names, pd_u32_conv,
	                                 &threads))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_summary_check *chk = NULL;
	profdb_summary_counts n;
	int rc;
	PD_NOGIL(self, rc = profdb_summary_check_new(&chk, db, threads));
	if (rc < 0 || (rc = profdb_summary_check_counts(chk, &n)) < 0) {
		profdb_summary_check_free(chk);
		return pd_raise(rc);
	}
	PyObject *issues = PyList_New(0), *out = NULL;
	for (uint64_t i = 0; issues && i < n.issues; i++) {
		profdb_summary_issue is;
		PyObject *t = NULL;
		if ((rc = profdb_summary_check_issue_at(chk, i, &is)) < 0)
			pd_raise(rc);
		else
			t = issue_tuple(&is);
		if (!t || PyList_Append(issues, t) < 0) {
			Py_XDECREF(t);
			Py_CLEAR(issues);
			break;
		}
		Py_DECREF(t);
	}
	if (issues)
		out = Py_BuildValue("((kKKKKKKKKKK)O)", (unsigned long)n.summary,
		                    (unsigned long long)n.stored, (unsigned long long)n.checked,
		                    (unsigned long long)n.agree, (unsigned long long)n.explained,
		                    (unsigned long long)n.unexplained, (unsigned long long)n.unchecked,
		                    (unsigned long long)n.unknown_ids, (unsigned long long)n.missing,
		                    (unsigned long long)n.missing_explained,
		                    (unsigned long long)n.missing_unchecked, issues);
	Py_XDECREF(issues);
	profdb_summary_check_free(chk);
	return out;
}

/* ---- Tree (the three views) ---------------------------------------------- */

static void tree_dealloc(TreeObject *self)
{
	profdb_tree_free(self->tree);
	if (self->db)
		self->db->exports--;
	Py_XDECREF(self->db);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t tree_len(TreeObject *self)
{
	return (Py_ssize_t)profdb_tree_count(self->tree);
}

static PyObject *tree_item(TreeObject *self, Py_ssize_t i)
{
	profdb_node n, k;
	if (i < 0 || i >= tree_len(self) || profdb_tree_get(self->tree, (uint32_t)i, &n) < 0) {
		PyErr_SetString(PyExc_IndexError, "Tree node out of range");
		return NULL;
	}
	Py_ssize_t count = 0;
	for (uint32_t c = n.first_child; c != PROFDB_NONE; c = k.next_sibling, count++)
		profdb_tree_get(self->tree, c, &k);
	PyObject *children = PyTuple_New(count);
	Py_ssize_t j = 0;
	for (uint32_t c = n.first_child; children && c != PROFDB_NONE; c = k.next_sibling) {
		profdb_tree_get(self->tree, c, &k);
		PyTuple_SET_ITEM(children, j++, PyLong_FromUnsignedLong(c));
	}
	PyObject *t = PyStructSequence_New(&NodeType);
	if (!t || !children) {
		Py_XDECREF(t);
		Py_XDECREF(children);
		return NULL;
	}
	PyObject *items[] = {
		PyLong_FromUnsignedLong(n.id),
		n.parent == PROFDB_NONE ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(n.parent),
		children, PyLong_FromUnsignedLong(n.depth),
		PyUnicode_FromString(n.type < 9 ? node_type_names[n.type] : "unknown"),
		PyBool_FromLong((n.flags & PROFDB_NODE_RECURSIVE) != 0),
		n.context == PROFDB_NONE ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(n.context),
		pd_str(n.name), pd_str(n.file), PyLong_FromUnsignedLongLong(n.line), pd_str(n.module),
	};
	int ok = 1;
	for (int f = 0; f < 11; f++) {
		ok = ok && items[f];
		PyStructSequence_SET_ITEM(t, f, items[f] ? items[f] : Py_NewRef(Py_None));
	}
	if (!ok)
		Py_CLEAR(t);
	return t;
}

/* values(k) -> (inclusive, exclusive): float64 arrays indexed by node id. */
static PyObject *tree_values(TreeObject *self, PyObject *arg)
{
	Py_ssize_t k = PyLong_AsSsize_t(arg);
	if (k == -1 && PyErr_Occurred())
		return NULL;
	if (k < 0 || k >= self->n_metrics) {
		PyErr_SetString(PyExc_IndexError, "metric number out of range");
		return NULL;
	}
	npy_intp n = tree_len(self);
	PyObject *inc = PyArray_SimpleNew(1, &n, NPY_FLOAT64), *exc = PyArray_SimpleNew(1, &n, NPY_FLOAT64);
	if (!inc || !exc) {
		Py_XDECREF(inc);
		Py_XDECREF(exc);
		return NULL;
	}
	double *a = PyArray_DATA((PyArrayObject *)inc), *b = PyArray_DATA((PyArrayObject *)exc);
	for (npy_intp i = 0; i < n; i++)
		profdb_tree_values(self->tree, (uint32_t)i, (size_t)k, &a[i], &b[i]);
	return Py_BuildValue("(NN)", inc, exc);
}

static PyMethodDef tree_methods[] = {
	{"values", (PyCFunction)tree_values, METH_O,
	 "values($self, k, /)\n--\n\n(inclusive, exclusive) of metric number k of the view, as float64 "
	 "arrays indexed by node id."},
	{NULL, NULL, 0, NULL},
};

static PySequenceMethods tree_as_sequence = {
	.sq_length = (lenfunc)tree_len,
	.sq_item = (ssizeargfunc)tree_item,
};

PyTypeObject pd_TreeType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "profdb.Tree",
	.tp_basicsize = sizeof(TreeObject),
	.tp_dealloc = (destructor)tree_dealloc,
	.tp_as_sequence = &tree_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A top-down, bottom-up or flat view (Database.view()): a sequence of Node, "
	          "0 is the root.",
	.tp_methods = tree_methods,
};

static PyObject *db_view(DatabaseObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"kind", "metrics", "profiles", "cutoff", NULL};
	int kind;
	PyObject *met_obj, *prof_obj = Py_None;
	double cutoff = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "iO|Od:_view", names, &kind, &met_obj, &prof_obj,
	                                 &cutoff))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	uint32_t *metrics = NULL, *profiles = NULL;
	if (pd_u32_list(met_obj, "metrics", &metrics, &o.n_metrics) < 0 ||
	    pd_u32_list(prof_obj, "profiles", &profiles, &o.n_profiles) < 0) {
		PyMem_Free(metrics);
		return NULL;
	}
	o.kind = (profdb_tree_kind)kind;
	o.metrics = metrics;
	o.profiles = profiles;
	o.cutoff = cutoff;
	profdb_tree *t = NULL;
	int rc;
	PD_NOGIL(self, rc = profdb_tree_new(&t, db, &o));
	PyMem_Free(metrics);
	PyMem_Free(profiles);
	if (rc < 0)
		return pd_raise(rc);
	TreeObject *obj = PyObject_New(TreeObject, &pd_TreeType);
	if (!obj) {
		profdb_tree_free(t);
		return NULL;
	}
	obj->tree = t;
	obj->n_metrics = (Py_ssize_t)o.n_metrics;
	obj->db = (DatabaseObject *)Py_NewRef((PyObject *)self);
	self->exports++;
	return (PyObject *)obj;
}

PyMethodDef pd_analysis_methods[] = {
	{"_stats", (PyCFunction)(void (*)(void))db_stats, METH_VARARGS | METH_KEYWORDS, NULL},
	{"_view", (PyCFunction)(void (*)(void))db_view, METH_VARARGS | METH_KEYWORDS, NULL},
	{"_summary_check", (PyCFunction)(void (*)(void))db_summary_check,
	 METH_VARARGS | METH_KEYWORDS, NULL},
	{"edges", (PyCFunction)db_edges, METH_NOARGS,
	 "edges($self, /)\n--\n\nThe call edges as a numpy structured array (caller, callee, site, "
	 "has_count, count); site is 4294967295 where the format records none. Sorted by "
	 "caller, callee, site."},
	{"edges_of", (PyCFunction)(void (*)(void))db_edges_of, METH_VARARGS | METH_KEYWORDS,
	 "edges_of($self, /, contexts, side='into', metric=None, profile=None)\n--\n\nThe call "
	 "edges into the contexts (an id or ids; side 'into') or out of them ('out_of': their "
	 "calls, or the calls at a call site), as a list of Edge in the order of edges(), each "
	 "with its inclusive cost of metric (exact) in profile, or combined (None) over the "
	 "non-summary profiles. Reads only what those edges need."},
	{"edge_cost", (PyCFunction)(void (*)(void))db_edge_cost, METH_VARARGS | METH_KEYWORDS,
	 "edge_cost($self, /, index, metric, profile=None)\n--\n\nThe inclusive cost of edge number index "
	 "for a metric, in one profile or (None) combined over the non-summary profiles; None "
	 "when there is none."},
	{NULL, NULL, 0, NULL},
};

int pd_analysis_init(PyObject *module)
{
	if (PyStructSequence_InitType2(&StatType, &stat_desc) < 0 ||
	    PyStructSequence_InitType2(&NodeType, &node_desc) < 0 ||
	    PyStructSequence_InitType2(&EdgeType, &edge_desc) < 0 ||
	    PyType_Ready(&pd_StatsType) < 0 || PyType_Ready(&pd_TreeType) < 0)
		return -1;
	if (PyModule_AddObjectRef(module, "Stat", (PyObject *)&StatType) < 0 ||
	    PyModule_AddObjectRef(module, "Node", (PyObject *)&NodeType) < 0 ||
	    PyModule_AddObjectRef(module, "Edge", (PyObject *)&EdgeType) < 0 ||
	    PyModule_AddObjectRef(module, "Stats", (PyObject *)&pd_StatsType) < 0 ||
	    PyModule_AddObjectRef(module, "Tree", (PyObject *)&pd_TreeType) < 0)
		return -1;
	return 0;
}
