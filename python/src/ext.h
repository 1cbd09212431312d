/* ext.h — what the C files of the profdb Python extension share.
 *
 * The extension is written over the public API only (the headers in include/profdb).
 * Objects:
 *   Database  a profdb handle (database.c); the Python class
 *             profdb.Database subclasses it with the pandas helpers.
 *   View      one profdb_view, exported through the buffer protocol
 *             (view.c); every numpy array over the handle's memory has a
 *             View as its base, and the View holds the Database.
 *   Stats     a profdb_stats result (analysis.c); Tree a profdb_tree.
 * Lifetime rule: the handle's memory must outlive every View, Stats and
 * Tree. Each of them holds a strong reference to its Database and counts
 * in Database.exports; close() raises BufferError while that count is not
 * zero (as mmap.close() does), so no array can ever point at unmapped
 * memory.
 */
#ifndef PROFDB_PY_EXT_H
#define PROFDB_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <profdb/analysis.h>

/* numpy's C API table lives in module.c; the other files import it. */
#define PY_ARRAY_UNIQUE_SYMBOL profdb_py_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef PROFDB_PY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

typedef struct {
	PyObject_HEAD
	profdb *db;              /* NULL once closed */
	PyObject *path;          /* str */
	Py_ssize_t exports;      /* live View, Stats and Tree objects over db */
	Py_ssize_t busy;         /* calls running with the GIL released */
	PyObject *metrics;       /* cached tuple of Metric, or NULL */
	PyObject *profiles;      /* cached tuple of Profile, or NULL */
	PyObject *warnings;      /* list of str the library reported */
	PyObject *weakrefs;
} DatabaseObject;

extern PyTypeObject pd_DatabaseType;
extern PyTypeObject pd_ViewType;
extern PyTypeObject pd_StatsType;
extern PyTypeObject pd_TreeType;

/* errors.c: the exception classes and the errno -> class rule. */
extern PyObject *pd_Error, *pd_NotFound, *pd_NotSupported, *pd_Corrupt;
int pd_errors_init(PyObject *module);
/* Raise the exception for library code @p rc (< 0) with the thread's
 * profdb_error_message(); returns NULL for `return pd_raise(rc);`. */
PyObject *pd_raise(int64_t rc);
/* As pd_raise, with a message of our own. */
PyObject *pd_raise_msg(int64_t rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A context id, metric id or profile index argument: 0 and *out set, or
 * -1 with TypeError (not an int) or OverflowError (negative, past 2^32 - 1). */
int pd_u32_arg(PyObject *arg, const char *what, uint32_t *out);
/* The same as PyArg "O&" converters (1 on success, 0 with the exception):
 * uint32_t and uint64_t (unsigned long long) arguments, range-checked. */
int pd_u32_conv(PyObject *arg, void *out);
int pd_u64_conv(PyObject *arg, void *out);

/* Run a library call with the GIL released, marking the handle busy so
 * that close() from another thread cannot free it underneath. */
#define PD_NOGIL(self, stmt)                   \
	do {                                   \
		(self)->busy++;                \
		Py_BEGIN_ALLOW_THREADS         \
		stmt;                          \
		Py_END_ALLOW_THREADS           \
		(self)->busy--;                \
	} while (0)

/* database.c */
/* The open handle of @p self, or NULL with ValueError when it is closed. */
profdb *pd_db(DatabaseObject *self);
PyObject *pd_str(profdb_str s);
PyObject *pd_number(profdb_number n);

/* records.c: metrics, profiles, contexts as struct sequences. */
int pd_records_init(PyObject *module);
PyObject *pd_metric_tuple(const profdb_metric *m);
PyObject *pd_profile_tuple(DatabaseObject *self, uint32_t index);
PyObject *pd_context_tuple(DatabaseObject *self, const profdb_context *c);
PyObject *pd_counts_tuple(const profdb_counts *c);
extern PyMethodDef pd_record_methods[];   /* Database methods of records.c */

/* view.c: a profdb_view as a numpy structured array. @p names are the
 * field names of the key and the value ("context", "start", ...); @p owner
 * is the object the memory belongs to (the Database, or a Stats). */
PyObject *pd_view_array(DatabaseObject *db, PyObject *owner, const profdb_view *v,
                        const char *key_name, const char *value_name);
int pd_view_init(PyObject *module);
extern PyMethodDef pd_view_methods[];     /* Database methods of view.c */

/* gather.c: the dense tables behind the pandas frames. */
extern PyMethodDef pd_gather_methods[];
extern PyMethodDef pd_arena_methods[];   /* _frame_memory: arena.c */

/* analysis.c: statistics, edges and views. */
extern PyMethodDef pd_analysis_methods[];
int pd_analysis_init(PyObject *module);

/* match.c: Database._match (profdb_match_new, copied out). */
extern PyMethodDef pd_match_methods[];

/* scopes.c: Database._scopes (profdb_exclusive/profdb_inclusive per cell). */
extern PyMethodDef pd_scopes_methods[];

/* convert.c: Database._convert (profdb_convert to a file descriptor). */
extern PyMethodDef pd_convert_methods[];

/* Parse a sequence of ints (or None) into a malloc'ed uint32_t array.
 * Returns 0 (and *out NULL, *n 0 for None) or -1 with an exception. */
int pd_u32_list(PyObject *seq, const char *what, uint32_t **out, size_t *n);

#endif
