/* The expat wrapper (xml-internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table-internal.h"
#include "xml-arena-internal.h"
#include "xml-internal.h"

void profdb__xml_init(profdb__xml *x, const char *name, size_t frame_size,
                      profdb__xml_start_fn start, profdb__xml_end_fn end, void *user)
{
	memset(x, 0, sizeof *x);
	x->name = name;
	x->frame_size = frame_size ? frame_size : 1;
	x->start = start;
	x->end = end;
	x->user = user;
}

const char *profdb__xml_attr(const char **atts, const char *name)
{
	for (size_t i = 0; atts && atts[i]; i += 2)
		if (strcmp(atts[i], name) == 0)
			return atts[i + 1];
	return NULL;
}

const char *profdb__xml_text(const profdb__xml *x, size_t *len)
{
	if (len)
		*len = x->text_len;
	return x->text && x->text_len ? x->text : "";
}

void profdb__xml_text_begin(profdb__xml *x)
{
	x->collecting = true;
	x->text_len = 0;
	if (x->text)
		x->text[0] = 0;
}

void profdb__xml_text_end(profdb__xml *x)
{
	x->collecting = false;
}

#ifndef PROFDB_HAVE_EXPAT

void profdb__xml_stop(profdb__xml *x, int code, const char *fmt, ...)
{
	(void)fmt;
	if (!x->err)
		x->err = profdb__fail(code, "%s: XML error", x->name);
}

void profdb__xml_oom(profdb__xml *x)
{
	profdb__xml_stop(x, -ENOMEM, "out of memory");
}

unsigned long profdb__xml_line(const profdb__xml *x)
{
	(void)x;
	return 0;
}

int profdb__xml_parse(profdb__xml *x, const void *data, uint64_t size)
{
	(void)data, (void)size;
	return profdb__fail(-ENOTSUP, "%s: this build of profdb has no expat, so XML cannot be "
	                    "read", x->name);
}

#else
#include <expat.h>

void profdb__xml_stop(profdb__xml *x, int code, const char *fmt, ...)
{
	if (x->err)
		return;
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (!x->xp) {   /* before or after parsing */
		x->err = profdb__fail(code, "%s: %s", x->name, what);
		return;
	}
	x->err = profdb__fail(code, "%s: line %lu, column %lu, byte offset %lld: %s", x->name,
	                      (unsigned long)XML_GetCurrentLineNumber(x->xp),
	                      (unsigned long)XML_GetCurrentColumnNumber(x->xp),
	                      (long long)XML_GetCurrentByteIndex(x->xp), what);
	XML_StopParser(x->xp, XML_FALSE);
}

void profdb__xml_oom(profdb__xml *x)
{
	profdb__xml_stop(x, -ENOMEM, "out of memory");
}

unsigned long profdb__xml_line(const profdb__xml *x)
{
	return x->xp ? (unsigned long)XML_GetCurrentLineNumber(x->xp) : 0;
}

/* profdb__grow, charged against the budget when there is one. */
static int grow(profdb__xml *x, void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t old = *cap;
	if (profdb__grow(arr, cap, need, elem) < 0) {
		profdb__xml_oom(x);
		return -1;
	}
	if (x->budget) {
		uint64_t more = (uint64_t)(*cap - old) * elem;
		if (more > *x->budget) {
			profdb__xml_stop(x, -EFBIG, "the document needs more than "
			                 "profdb_options.max_memory");
			return -1;
		}
		*x->budget -= more;
	}
	return 0;
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **atts)
{
	profdb__xml *x = ud;
	if (x->err)
		return;
	if (grow(x, (void **)&x->stack, &x->stack_cap, x->depth + 1, x->frame_size) < 0)
		return;
	memset(profdb__xml_frame(x, x->depth), 0, x->frame_size);
	x->depth++;
	x->start(x, el, atts);
}

static void XMLCALL on_end(void *ud, const XML_Char *el)
{
	profdb__xml *x = ud;
	if (x->err || !x->depth)
		return;
	if (x->end)
		x->end(x, el);
	x->depth--;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	profdb__xml *x = ud;
	if (x->err || !x->collecting || len <= 0)
		return;
	if (grow(x, (void **)&x->text, &x->text_cap, x->text_len + (size_t)len + 1, 1) < 0)
		return;
	memcpy(x->text + x->text_len, s, (size_t)len);
	x->text_len += (size_t)len;
	x->text[x->text_len] = 0;
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal)
{
	profdb__xml *x = ud;
	(void)sysid, (void)pubid, (void)has_internal;
	if (x->refuse_doctype)
		profdb__xml_stop(x, -EBADMSG, "document type declaration <!DOCTYPE %.40s> not "
		                 "accepted", name);
}

static void XMLCALL on_entity(void *ud, const XML_Char *name, int is_param,
                              const XML_Char *value, int value_len, const XML_Char *base,
                              const XML_Char *sysid, const XML_Char *pubid,
                              const XML_Char *notation)
{
	(void)is_param, (void)value, (void)value_len, (void)base, (void)sysid, (void)pubid,
		(void)notation;
	profdb__xml_stop(ud, -EBADMSG, "entity declaration <!ENTITY %.40s> not accepted", name);
}

int profdb__xml_parse(profdb__xml *x, const void *data, uint64_t size)
{
	const XML_Memory_Handling_Suite mem = {profdb__xml_arena_fns.malloc_fcn,
	                                       profdb__xml_arena_fns.realloc_fcn,
	                                       profdb__xml_arena_fns.free_fcn};
	profdb__xml_arena arena, *saved;
	profdb__xml_arena_enter(&arena, &saved);
	XML_Parser xp = XML_ParserCreate_MM(NULL, &mem, NULL);
	if (!xp) {
		profdb__xml_arena_leave(&arena, saved);
		return profdb__fail(-ENOMEM, "%s: out of memory", x->name);
	}
	x->xp = xp;
	x->err = 0;
	XML_SetUserData(xp, x);
	XML_SetElementHandler(xp, on_start, on_end);
	XML_SetCharacterDataHandler(xp, on_text);
	XML_SetStartDoctypeDeclHandler(xp, on_doctype);
	XML_SetEntityDeclHandler(xp, on_entity);
	XML_SetParamEntityParsing(xp, XML_PARAM_ENTITY_PARSING_NEVER);
	int r = 0;
	uint64_t done = 0;
	/* In as few pieces as XML_Parse's int length allows: expat parses a
	 * piece in place, but copies every later one behind what the previous
	 * left unparsed. */
	const uint64_t chunk = 1u << 30;
	do {
		uint64_t len = size - done < chunk ? size - done : chunk;
		int last = done + len == size;
		if (XML_Parse(xp, (const char *)data + done, (int)len, last) != XML_STATUS_OK) {
			if (x->err)
				r = x->err;
			else
				r = profdb__fail(-EBADMSG, "%s: line %lu, column %lu, byte offset %lld: %s",
				                 x->name, (unsigned long)XML_GetCurrentLineNumber(xp),
				                 (unsigned long)XML_GetCurrentColumnNumber(xp),
				                 (long long)XML_GetCurrentByteIndex(xp),
				                 XML_ErrorString(XML_GetErrorCode(xp)));
			break;
		}
		done += len;
	} while (done < size);
	if (r == 0 && x->err)
		r = x->err;
	XML_ParserFree(xp);
	profdb__xml_arena_leave(&arena, saved);
	x->xp = NULL;
	free(x->stack);
	x->stack = NULL;
	x->depth = x->stack_cap = 0;
	free(x->text);
	x->text = NULL;
	x->text_len = x->text_cap = 0;
	return r;
}

#endif
