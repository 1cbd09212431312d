/* match.c — Database._match(): profdb_match_new() over two databases
 * (include/profdb/analysis.h, "matching two databases"), copied out into
 * numpy arrays and freed before returning.
 *
 * The result is a copy on purpose: it is small (a few words per call path)
 * and a copy holds neither Database, so either may close while the arrays
 * live. The profdb_match itself, whose views' strings live in both
 * handles, never outlives the call.
 */
#include "ext.h"

#include <errno.h>
#include <string.h>

/* A sequence of metric names or ids (or None) as the C strings
 * profdb_match_options wants: ints become their decimal id. *keep holds
 * the str objects the pointers lie in. */
static int metric_keys(PyObject *seq, const char ***out, size_t *n, PyObject **keep)
{
	*out = NULL;
	*n = 0;
	*keep = NULL;
	if (seq == Py_None)
		return 0;
	PyObject *fast = PySequence_Fast(seq, "metrics must be a sequence of names or ids");
	if (!fast)
		return -1;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
	PyObject *strs = PyList_New(0);
	const char **keys = PyMem_Malloc(((size_t)len + 1) * sizeof *keys);
	if (!strs || !keys) {
		Py_DECREF(fast);
		Py_XDECREF(strs);
		PyMem_Free(keys);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
		PyObject *s = PyLong_Check(item) ? PyObject_Str(item) : Py_NewRef(item);
		Py_ssize_t size = 0;
		const char *c = s && PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &size) : NULL;
		if (c && strlen(c) != (size_t)size) {
			PyErr_SetString(PyExc_ValueError, "metrics: a name holds a NUL character");
			c = NULL;
		}
		if (!c || PyList_Append(strs, s) < 0) {
			if (s && !PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError, "metrics: names (str) or ids (int)");
			Py_XDECREF(s);
			Py_DECREF(fast);
			Py_DECREF(strs);
			PyMem_Free(keys);
			return -1;
		}
		keys[i] = c;
		Py_DECREF(s);
	}
	Py_DECREF(fast);
	*out = keys;
	*n = (size_t)len;
	*keep = strs;
	return 0;
}

static uint32_t node_context(const profdb_tree *t, uint32_t node)
{
	profdb_node n;
	if (node == PROFDB_NONE || profdb_tree_get(t, node, &n) < 0)
		return PROFDB_NONE;
	return n.context;
}

/* What the copy needs, filled with the GIL released. */
typedef struct {
	const profdb_match *m;
	uint64_t rows;
	size_t n_metrics;
	uint32_t *pairs;    /* [rows][6]: node_a, node_b, context_a, context_b, parent, depth */
	double *values;     /* [n_metrics][rows][4], profdb_pair_values' order */
} match_copy;

static int copy_rows(match_copy *c)
{
	const profdb_tree *ta = profdb_match_tree(c->m, 0), *tb = profdb_match_tree(c->m, 1);
	for (uint64_t r = 0; r < c->rows; r++) {
		profdb_pair p;
		int rc = profdb_match_at(c->m, r, &p);
		if (rc < 0)
			return rc;
		uint32_t *o = c->pairs + 6 * r;
		o[0] = p.a;
		o[1] = p.b;
		o[2] = node_context(ta, p.a);
		o[3] = node_context(tb, p.b);
		o[4] = p.parent;
		o[5] = p.depth;
		for (size_t k = 0; k < c->n_metrics; k++) {
			profdb_pair_values v;
			if ((rc = profdb_match_values(c->m, r, k, &v)) < 0)
				return rc;
			double *d = c->values + 4 * (k * c->rows + r);
			d[0] = v.inclusive_a;
			d[1] = v.exclusive_a;
			d[2] = v.inclusive_b;
			d[3] = v.exclusive_b;
		}
	}
	return 0;
}

/* _match(other, metrics_a, metrics_b, profiles_a, profiles_b, cutoff) ->
 * (pairs uint32 [rows, 6], values float64 [metrics, rows, 4],
 *  metric ids [(id_a | None, id_b | None)], (metrics, rows, matched, only_a, only_b)) */
static PyObject *db_match(DatabaseObject *self, PyObject *args)
{
	PyObject *other_obj, *ma_obj, *mb_obj, *pa_obj, *pb_obj;
	double cutoff;
	if (!PyArg_ParseTuple(args, "OOOOOd:_match", &other_obj, &ma_obj, &mb_obj, &pa_obj, &pb_obj,
	                      &cutoff))
		return NULL;
	if (!PyObject_TypeCheck(other_obj, &pd_DatabaseType)) {
		PyErr_SetString(PyExc_TypeError, "match(): other must be a profdb.Database");
		return NULL;
	}
	DatabaseObject *other = (DatabaseObject *)other_obj;
	profdb *a = pd_db(self), *b = a ? pd_db(other) : NULL;
	if (!b)
		return NULL;
	profdb_match_options o = PROFDB_MATCH_OPTIONS_INIT;
	PyObject *keep_a = NULL, *keep_b = NULL, *out = NULL, *pairs = NULL, *values = NULL,
	         *ids = NULL;
	const char **ka = NULL, **kb = NULL;
	size_t na = 0, nb = 0;
	uint32_t *pa = NULL, *pb = NULL;
	profdb_match *m = NULL;
	if (metric_keys(ma_obj, &ka, &na, &keep_a) < 0 || metric_keys(mb_obj, &kb, &nb, &keep_b) < 0 ||
	    pd_u32_list(pa_obj, "profiles", &pa, &o.n_profiles_a) < 0 ||
	    pd_u32_list(pb_obj, "other_profiles", &pb, &o.n_profiles_b) < 0)
		goto done;
	if (ka && kb && na != nb) {
		PyErr_Format(PyExc_ValueError,
		             "match(): %zu metrics of self but %zu of other (they pair one to one)", na,
		             nb);
		goto done;
	}
	if (!ka && kb) {
		PyErr_SetString(PyExc_ValueError, "match(): other_metrics needs metrics");
		goto done;
	}
	o.metrics_a = ka;
	o.metrics_b = kb;
	o.n_metrics = na;
	o.profiles_a = pa;
	o.profiles_b = pb;
	o.cutoff = cutoff;
	int rc;
	/* Both handles are in use while the GIL is released: neither may close. */
	other->busy++;
	PD_NOGIL(self, rc = profdb_match_new(&m, a, b, &o));
	other->busy--;
	if (rc < 0) {
		pd_raise(rc);
		goto done;
	}
	profdb_match_counts counts;
	int64_t rows = profdb_match_count(m);
	if (rows < 0 || (rc = profdb_match_counts_get(m, &counts)) < 0) {
		pd_raise(rows < 0 ? rows : rc);
		goto done;
	}
	npy_intp pdims[2] = {(npy_intp)rows, 6},
	         vdims[3] = {(npy_intp)counts.metrics, (npy_intp)rows, 4};
	pairs = PyArray_SimpleNew(2, pdims, NPY_UINT32);
	values = PyArray_SimpleNew(3, vdims, NPY_FLOAT64);
	ids = PyList_New(0);
	if (!pairs || !values || !ids)
		goto done;
	match_copy c = {m, (uint64_t)rows, (size_t)counts.metrics,
	                PyArray_DATA((PyArrayObject *)pairs), PyArray_DATA((PyArrayObject *)values)};
	PD_NOGIL(self, rc = copy_rows(&c));
	if (rc < 0) {
		pd_raise(rc);
		goto done;
	}
	for (size_t k = 0; k < c.n_metrics; k++) {
		uint32_t ia = PROFDB_NONE, ib = PROFDB_NONE;
		if ((rc = profdb_match_metric(m, k, &ia, &ib)) < 0) {
			pd_raise(rc);
			goto done;
		}
		PyObject *t = Py_BuildValue("(NN)",
		                            ia == PROFDB_NONE ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(ia),
		                            ib == PROFDB_NONE ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(ib));
		if (!t || PyList_Append(ids, t) < 0) {
			Py_XDECREF(t);
			goto done;
		}
		Py_DECREF(t);
	}
	out = Py_BuildValue("(OOO(KKKKK))", pairs, values, ids,
	                    (unsigned long long)counts.metrics, (unsigned long long)counts.rows,
	                    (unsigned long long)counts.matched, (unsigned long long)counts.only_a,
	                    (unsigned long long)counts.only_b);
done:
	profdb_match_free(m);
	Py_XDECREF(pairs);
	Py_XDECREF(values);
	Py_XDECREF(ids);
	Py_XDECREF(keep_a);
	Py_XDECREF(keep_b);
	PyMem_Free(ka);
	PyMem_Free(kb);
	PyMem_Free(pa);
	PyMem_Free(pb);
	return out;
}

PyMethodDef pd_match_methods[] = {
	{"_match", (PyCFunction)db_match, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};
