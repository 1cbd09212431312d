/* convert.c — Database._convert(): profdb_convert() (include/profdb/convert.h)
 * written to an open file descriptor with the GIL released.
 *
 * The descriptor, not a Python file object, is the target so that the
 * whole conversion runs without the GIL: the writer streams in chunks of
 * up to 64 KiB and calling back into Python for each would hold the GIL
 * for most of the run. Choosing the file (a temporary one renamed on
 * success, as the tool does) is the package's part (profdb/__init__.py).
 */
#include "ext.h"

#include <profdb/convert.h>

#include <errno.h>
#include <unistd.h>

static int write_fd(const void *data, size_t len, void *userdata)
{
	int fd = *(const int *)userdata;
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w, len -= (size_t)w;
	}
	return 0;
}

/* _convert(fd, format, metrics, profiles, icicle, width, min_width, title,
 * color[, from_ns, to_ns, depth]) -> None. metrics and profiles: sequences
 * of ints or None (the format's default); title: str or None; color: 0
 * module, 1 file; the last three: the timeline's window and depth. */
static PyObject *db_convert(DatabaseObject *self, PyObject *args)
{
	int fd, icicle, color;
	const char *format, *title;
	PyObject *met_obj, *prof_obj;
	double width, min_width;
	unsigned long long from_ns = 0, to_ns = 0;
	unsigned int depth = 0;
	if (!PyArg_ParseTuple(args, "isOOpddzi|KKI:_convert", &fd, &format, &met_obj, &prof_obj,
	                      &icicle, &width, &min_width, &title, &color, &from_ns, &to_ns, &depth))
		return NULL;
	profdb *db = pd_db(self);
	if (!db)
		return NULL;
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	int rc = profdb_convert_format_find(format, &o.format);
	if (rc < 0)
		return pd_raise(rc);
	uint32_t *metrics = NULL, *profiles = NULL;
	if (pd_u32_list(met_obj, "metrics", &metrics, &o.n_metrics) < 0 ||
	    pd_u32_list(prof_obj, "profiles", &profiles, &o.n_profiles) < 0) {
		PyMem_Free(metrics);
		return NULL;
	}
	o.metrics = metrics;
	o.profiles = profiles;
	o.icicle = icicle;
	o.width = width;
	o.min_width = min_width;
	o.title = title;
	o.color = (profdb_svg_color)color;
	o.from_ns = from_ns, o.to_ns = to_ns, o.depth = depth;
	PD_NOGIL(self, rc = profdb_convert(db, &o, write_fd, &fd));
	PyMem_Free(metrics);
	PyMem_Free(profiles);
	if (rc < 0)
		return pd_raise(rc);
	Py_RETURN_NONE;
}

/* _time_parse(text) -> int: nanoseconds, as profdb_time_parse() reads
 * them ("1.5s", "200ms", "42"); ValueError otherwise. */
static PyObject *db_time_parse(DatabaseObject *self, PyObject *args)
{
	(void)self;
	const char *text;
	if (!PyArg_ParseTuple(args, "s:_time_parse", &text))
		return NULL;
	uint64_t ns;
	if (profdb_time_parse(text, &ns) < 0) {
		PyErr_SetString(PyExc_ValueError, profdb_error_message());
		return NULL;
	}
	return PyLong_FromUnsignedLongLong(ns);
}

PyMethodDef pd_convert_methods[] = {
	{"_convert", (PyCFunction)db_convert, METH_VARARGS, NULL},
	{"_time_parse", (PyCFunction)db_time_parse, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};
