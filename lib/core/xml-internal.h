/* One wrapper around expat for the XML documents profdb reads (Cube's
 * anchor.xml, the pre-release experiment.xml): the parser is created, fed
 * the bytes in 1 MiB pieces and freed here; it keeps the stack of open
 * elements (one caller-defined frame per element), collects character data
 * on request into one growable buffer, and turns every expat error into
 * -EBADMSG with the document's name, line, column and byte offset.
 *
 * Untrusted XML: entity declarations are always refused (no
 * billion-laughs expansion: nothing can be declared to expand), external
 * entities are never loaded (expat's default, parameter entities off), a
 * document type declaration can be refused outright (refuse_doctype), and
 * the wrapper's own memory (the element stack, so the nesting depth, and
 * the text buffer) can be charged against a caller budget (-EFBIG);
 * without one both are bounded by the document's size.
 *
 * Without expat (PROFDB_HAVE_EXPAT undefined) profdb__xml_parse() answers
 * -ENOTSUP; the helpers still compile. */
#ifndef PROFDB_CORE_XML_INTERNAL_H
#define PROFDB_CORE_XML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core-internal.h"

typedef struct profdb__xml profdb__xml;

/* Called for every start tag after the element's frame was pushed (zeroed;
 * profdb__xml_top() is it, profdb__xml_parent() the enclosing one) and for
 * every end tag before its frame is popped. @p atts: name, value, ...,
 * NULL. Handlers report failure through profdb__xml_stop(). */
typedef void (*profdb__xml_start_fn)(profdb__xml *x, const char *el, const char **atts);
typedef void (*profdb__xml_end_fn)(profdb__xml *x, const char *el);

struct profdb__xml {
	/* set by profdb__xml_init(), the limits by the caller before parsing */
	const char *name;          /* names the document in messages */
	void *user;                /* the caller's state */
	profdb__xml_start_fn start;
	profdb__xml_end_fn end;    /* may be NULL */
	size_t frame_size;
	uint64_t *budget;          /* NULL, or bytes the wrapper may still allocate */
	bool refuse_doctype;       /* <!DOCTYPE ...> is an error */

	/* state */
	void *xp;                  /* the XML_Parser */
	int err;                   /* first failure (negative errno), 0 while fine */
	unsigned char *stack;
	size_t depth, stack_cap;
	bool collecting;
	char *text;
	size_t text_len, text_cap;
};

void profdb__xml_init(profdb__xml *x, const char *name, size_t frame_size,
                      profdb__xml_start_fn start, profdb__xml_end_fn end, void *user);

/* Parse @p size bytes. 0, the first code a handler passed to
 * profdb__xml_stop(), -EBADMSG (malformed XML, entity declaration, refused
 * DOCTYPE), -EFBIG (budget), -ENOMEM, -ENOTSUP (no expat). The
 * parser, stack and text buffer are freed before it returns. */
int profdb__xml_parse(profdb__xml *x, const void *data, uint64_t size);

/* Stop parsing with @p code; the message is "<name>: line L, column C,
 * byte offset B: <fmt>". Only the first stop counts. */
void profdb__xml_stop(profdb__xml *x, int code, const char *fmt, ...) PROFDB__PRINTF(3, 4);
void profdb__xml_oom(profdb__xml *x);

/* Where the parser is (for warnings). */
unsigned long profdb__xml_line(const profdb__xml *x);

/* The value of attribute @p name, or NULL. */
const char *profdb__xml_attr(const char **atts, const char *name);

/* Frames: the current element's, its parent's (NULL at the root), and
 * frame @p k counted from the root (k < depth). */
static inline void *profdb__xml_frame(const profdb__xml *x, size_t k)
{
	return x->stack + k * x->frame_size;
}

static inline void *profdb__xml_top(const profdb__xml *x)
{
	return x->depth ? profdb__xml_frame(x, x->depth - 1) : NULL;
}

static inline void *profdb__xml_parent(const profdb__xml *x)
{
	return x->depth > 1 ? profdb__xml_frame(x, x->depth - 2) : NULL;
}

/* Character data: collected from text_begin() (which empties the buffer)
 * until text_end(); profdb__xml_text() is NUL-terminated ("" when empty). */
void profdb__xml_text_begin(profdb__xml *x);
void profdb__xml_text_end(profdb__xml *x);
const char *profdb__xml_text(const profdb__xml *x, size_t *len);

#endif
