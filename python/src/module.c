/* module.c — the profdb._profdb extension module: numpy's C API, the
 * exception classes and the types. The public face is the profdb package
 * (python/profdb/__init__.py), which subclasses Database.
 */
#define PROFDB_PY_MODULE_C
#include "ext.h"

int pd_database_methods_init(void);

static PyObject *version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	uint32_t v = profdb_version_number();
	return PyUnicode_FromFormat("%u.%u.%u", (unsigned)(v / 10000), (unsigned)(v / 100 % 100),
	                            (unsigned)(v % 100));
}

static PyMethodDef module_methods[] = {
	{"library_version", version, METH_NOARGS,
	 "library_version()\n--\n\nThe version of the libprofdb actually loaded."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "profdb._profdb",
	.m_doc = "The C core of the profdb package (use `import profdb`).",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__profdb(void);
PyMODINIT_FUNC PyInit__profdb(void)
{
	import_array();
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (pd_errors_init(m) < 0 || pd_records_init(m) < 0 || pd_view_init(m) < 0 ||
	    pd_analysis_init(m) < 0 || pd_database_methods_init() < 0 ||
	    PyType_Ready(&pd_DatabaseType) < 0 ||
	    PyModule_AddObjectRef(m, "Database", (PyObject *)&pd_DatabaseType) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
