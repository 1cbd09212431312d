/* errors.c — library errors as Python exceptions.
 *
 * profdb.Error subclasses OSError, so it carries .errno (positive, as
 * OSError does) and .strerror (the library's message naming the file, the
 * structure and the byte offset). The subclasses follow the error table of
 * doc/CONVENTIONS.md: NotFound (-ENOENT; also a LookupError), NotSupported
 * (-ENOTSUP, -EPROTONOSUPPORT), Corrupt (-EBADMSG, -ENODATA).
 */
#include "ext.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

PyObject *pd_Error, *pd_NotFound, *pd_NotSupported, *pd_Corrupt;

int pd_errors_init(PyObject *module)
{
	pd_Error = PyErr_NewExceptionWithDoc("profdb.Error",
		"A profdb library call failed: .errno is the error number, .strerror "
		"the library's message (file, structure, byte offset).",
		PyExc_OSError, NULL);
	if (!pd_Error)
		return -1;
	PyObject *lookup_bases = PyTuple_Pack(2, pd_Error, PyExc_LookupError);
	if (!lookup_bases)
		return -1;
	pd_NotFound = PyErr_NewExceptionWithDoc("profdb.NotFound",
		"No such file, or an id or index out of range (ENOENT).", lookup_bases, NULL);
	Py_DECREF(lookup_bases);
	pd_NotSupported = PyErr_NewExceptionWithDoc("profdb.NotSupported",
		"The format, or this build, cannot answer (ENOTSUP, EPROTONOSUPPORT).",
		pd_Error, NULL);
	pd_Corrupt = PyErr_NewExceptionWithDoc("profdb.Corrupt",
		"A corrupt or truncated structure (EBADMSG, ENODATA).", pd_Error, NULL);
	if (!pd_NotFound || !pd_NotSupported || !pd_Corrupt)
		return -1;
	if (PyModule_AddObjectRef(module, "Error", pd_Error) < 0 ||
	    PyModule_AddObjectRef(module, "NotFound", pd_NotFound) < 0 ||
	    PyModule_AddObjectRef(module, "NotSupported", pd_NotSupported) < 0 ||
	    PyModule_AddObjectRef(module, "Corrupt", pd_Corrupt) < 0)
		return -1;
	return 0;
}

static PyObject *class_of(int64_t rc)
{
	switch (-rc) {
	case ENOENT:
		return pd_NotFound;
	case ENOTSUP:
	case EPROTONOSUPPORT:
		return pd_NotSupported;
	case EBADMSG:
	case ENODATA:
		return pd_Corrupt;
	default:
		return pd_Error;
	}
}

static PyObject *raise_text(int64_t rc, const char *text)
{
	if (rc == -ENOMEM)
		return PyErr_NoMemory();
	PyObject *exc = PyObject_CallFunction(class_of(rc), "is", (int)-rc, text);
	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

PyObject *pd_raise(int64_t rc)
{
	const char *msg = profdb_error_message();
	return raise_text(rc, *msg ? msg : strerror((int)-rc));
}

PyObject *pd_raise_msg(int64_t rc, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return raise_text(rc, text);
}

/* An integer (an int, or what has __index__: numpy's) in [0, max], else
 * OverflowError (TypeError for a float or a non-number): never the value
 * modulo 2^32 that PyArg's "I" and "K" formats give. */
static int range_arg(PyObject *arg, const char *what, unsigned long long max,
                     unsigned long long *out)
{
	PyObject *index = PyNumber_Index(arg);
	if (!index)
		return -1;
	unsigned long long v = PyLong_AsUnsignedLongLong(index);
	Py_DECREF(index);
	if (PyErr_Occurred())
		return -1;   /* negative or past 64 bits: OverflowError */
	if (v > max) {
		PyErr_Format(PyExc_OverflowError, "%s %llu is out of range (0 to %llu)",
		             what ? what : "argument", v, max);
		return -1;
	}
	*out = v;
	return 0;
}

int pd_u32_arg(PyObject *arg, const char *what, uint32_t *out)
{
	unsigned long long v;
	if (range_arg(arg, what, UINT32_MAX, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int pd_u32_conv(PyObject *arg, void *out)
{
	return pd_u32_arg(arg, NULL, out) < 0 ? 0 : 1;
}

int pd_u64_conv(PyObject *arg, void *out)
{
	return range_arg(arg, NULL, UINT64_MAX, out) < 0 ? 0 : 1;
}
