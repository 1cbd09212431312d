/* scopes.c — Database._scopes(): the exclusive and inclusive value of each
 * (profile, context, metric) through profdb_exclusive()/profdb_inclusive(),
 * the table behind dataframe(computed=True). The library computes each
 * scope by the metric's rule (doc/model.md); this file only lays the
 * answers out in columns, with the GIL released.
 */
#include "ext.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const profdb *db;
	const uint32_t *profiles, *contexts, *metrics;
	size_t n_profiles, n_contexts, n_metrics;
	/* output, grown with realloc (no GIL): row-major, 2 cells per metric
	 * (exclusive, inclusive) */
	uint32_t *ctx, *prof;
	uint64_t *bits;
	uint8_t *tags;
	size_t rows, cap;
	uint32_t bad_profile, bad_context, bad_metric;   /* where a failure was */
} scopes_job;

static int grow(scopes_job *j)
{
	size_t cap = j->cap ? 2 * j->cap : 1024, cells = 2 * j->n_metrics;
	uint32_t *ctx = realloc(j->ctx, cap * sizeof *ctx);
	if (ctx)
		j->ctx = ctx;
	uint32_t *prof = realloc(j->prof, cap * sizeof *prof);
	if (prof)
		j->prof = prof;
	uint64_t *bits = realloc(j->bits, cap * cells * sizeof *bits + 1);
	if (bits)
		j->bits = bits;
	uint8_t *tags = realloc(j->tags, cap * cells + 1);
	if (tags)
		j->tags = tags;
	if (!ctx || !prof || !bits || !tags)
		return -ENOMEM;
	j->cap = cap;
	return 0;
}

/* One cell: its bits and type tag; "nothing there" (0) and "the format
 * cannot say" (-ENOTSUP: no counterpart scope, a summary statistic of a
 * non-summary profile) both leave the cell empty (tag 0). */
static int cell(const scopes_job *j, int inclusive, uint32_t p, uint32_t c, uint32_t m,
                uint64_t *bits, uint8_t *tag)
{
	profdb_number n;
	int rc = inclusive ? profdb_inclusive(j->db, p, c, m, &n) : profdb_exclusive(j->db, p, c, m, &n);
	*bits = 0;
	*tag = 0;
	if (rc == -ENOTSUP || rc == 0)
		return 0;
	if (rc < 0)
		return rc;
	memcpy(bits, &n.as, sizeof *bits);
	*tag = (uint8_t)n.type;
	return 0;
}

static int scopes_pass(scopes_job *j)
{
	size_t cells = 2 * j->n_metrics;
	for (size_t ip = 0; ip < j->n_profiles; ip++)
		for (size_t ic = 0; ic < j->n_contexts; ic++) {
			if (j->rows == j->cap) {
				int rc = grow(j);
				if (rc < 0)
					return rc;
			}
			uint64_t *bits = j->bits + j->rows * cells;
			uint8_t *tags = j->tags + j->rows * cells;
			int any = 0;
			for (size_t k = 0; k < cells; k++) {
				uint32_t p = j->profiles[ip], c = j->contexts[ic], m = j->metrics[k / 2];
				int rc = cell(j, (int)(k & 1), p, c, m, &bits[k], &tags[k]);
				if (rc < 0) {
					j->bad_profile = p;
					j->bad_context = c;
					j->bad_metric = m;
					return rc;
				}
				any |= tags[k] != 0;
			}
			if (!any)
				continue;
			j->ctx[j->rows] = j->contexts[ic];
			j->prof[j->rows] = j->profiles[ip];
			j->rows++;
		}
	return 0;
}

/* A 1-D numpy copy of @p n items of @p size bytes. */
static PyObject *array_of(const void *src, npy_intp n, int type, size_t size)
{
	PyObject *a = PyArray_SimpleNew(1, &n, type);
	if (a && n)
		memcpy(PyArray_DATA((PyArrayObject *)a), src, (size_t)n * size);
	return a;
}

/* _scopes(profiles, contexts, metrics) -> (context, profile, bits, tags):
 * one row per (profile, context), profile order then the order of
 * `contexts`, kept when any cell holds a value; column 2k is the exclusive
 * value of metrics[k], 2k+1 its inclusive value: bits[col] the 64 bits,
 * tags[col] the profdb type (1 u64, 2 i64, 3 f64; 0 empty). */
static PyObject *db_scopes(DatabaseObject *self, PyObject *args)
{
	PyObject *prof_obj, *ctx_obj, *met_obj;
	if (!PyArg_ParseTuple(args, "OOO:_scopes", &prof_obj, &ctx_obj, &met_obj))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	scopes_job j = {.db = db};
	uint32_t *profiles = NULL, *contexts = NULL, *metrics = NULL;
	PyObject *out = NULL, *a_ctx = NULL, *a_prof = NULL, *a_bits = NULL, *a_tags = NULL;
	if (pd_u32_list(prof_obj, "profiles", &profiles, &j.n_profiles) < 0 ||
	    pd_u32_list(ctx_obj, "contexts", &contexts, &j.n_contexts) < 0 ||
	    pd_u32_list(met_obj, "metrics", &metrics, &j.n_metrics) < 0)
		goto done;
	j.profiles = profiles;
	j.contexts = contexts;
	j.metrics = metrics;
	int rc;
	PD_NOGIL(self, rc = scopes_pass(&j));
	if (rc < 0) {
		pd_raise_msg(rc, "scopes of profile %u, context %u, metric %u: %s", j.bad_profile,
		             j.bad_context, j.bad_metric, profdb_error_message());
		goto done;
	}
	/* The row-major cells become column-major [2M][rows] arrays. */
	npy_intp n = (npy_intp)j.rows, cells = (npy_intp)(2 * j.n_metrics), dims[2] = {cells, n};
	a_ctx = array_of(j.ctx, n, NPY_UINT32, sizeof(uint32_t));
	a_prof = array_of(j.prof, n, NPY_UINT32, sizeof(uint32_t));
	a_bits = PyArray_SimpleNew(2, dims, NPY_UINT64);
	a_tags = PyArray_SimpleNew(2, dims, NPY_UINT8);
	if (!a_ctx || !a_prof || !a_bits || !a_tags)
		goto done;
	uint64_t *bits = PyArray_DATA((PyArrayObject *)a_bits);
	uint8_t *tags = PyArray_DATA((PyArrayObject *)a_tags);
	for (npy_intp r = 0; r < n; r++)
		for (npy_intp k = 0; k < cells; k++) {
			bits[k * n + r] = j.bits[r * cells + k];
			tags[k * n + r] = j.tags[r * cells + k];
		}
	out = Py_BuildValue("(OOOO)", a_ctx, a_prof, a_bits, a_tags);
done:
	Py_XDECREF(a_ctx);
	Py_XDECREF(a_prof);
	Py_XDECREF(a_bits);
	Py_XDECREF(a_tags);
	free(j.ctx);
	free(j.prof);
	free(j.bits);
	free(j.tags);
	PyMem_Free(profiles);
	PyMem_Free(contexts);
	PyMem_Free(metrics);
	return out;
}

PyMethodDef pd_scopes_methods[] = {
	{"_scopes", (PyCFunction)db_scopes, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};
