/* Printing: strings for humans, JSON and CSV; exact numbers; context names.
 * Everything goes through stdio in the "C" locale (see tool.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/core/dtoa-internal.h"
#include "names.h"
#include "tool.h"

profdb_str str_of(const char *s)
{
	profdb_str r = {s ? s : "", s ? strlen(s) : 0};
	return r;
}

void put_text(FILE *f, profdb_str s)
{
	for (size_t i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.ptr[i];
		putc(names_control(c) ? '?' : c, f);
	}
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void put_json_str(FILE *f, profdb_str s)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	putc('"', f);
	for (size_t i = 0; i < s.len;) {
		/* a run of plain ASCII in one write (names are mostly that) */
		size_t run = i;
		while (run < s.len && p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' &&
		       p[run] != '\\')
			run++;
		if (run > i) {
			fwrite(p + i, 1, run - i, f);
			i = run;
			continue;
		}
		unsigned char c = p[i];
		size_t len = utf8_len(p + i, s.len - i);
		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f || len == 0) {
			/* Control bytes, and bytes that are not UTF-8 (read as Latin-1). */
			fprintf(f, "\\u%04x", c);
			len = 1;
		} else {
			fwrite(p + i, 1, len, f);
		}
		i += len ? len : 1;
	}
	putc('"', f);
}

void put_json_cstr(FILE *f, const char *s)
{
	put_json_str(f, str_of(s));
}

void put_csv_str(FILE *f, profdb_str s)
{
	int quote = 0;
	for (size_t i = 0; i < s.len && !quote; i++)
		quote = s.ptr[i] == ',' || s.ptr[i] == '"' || s.ptr[i] == '\n' || s.ptr[i] == '\r';
	if (!quote) {
		fwrite(s.ptr, 1, s.len, f);
		return;
	}
	putc('"', f);
	for (size_t i = 0; i < s.len; i++) {
		if (s.ptr[i] == '"')
			putc('"', f);
		putc(s.ptr[i], f);
	}
	putc('"', f);
}

size_t format_number(char *buf, profdb_number v, int json)
{
	char *p = buf;
	switch (v.type) {
	case PROFDB_TYPE_U64:
		return profdb__fmt_u64(buf, v.as.u64);
	case PROFDB_TYPE_I64:
		return profdb__fmt_i64(buf, v.as.i64);
	case PROFDB_TYPE_F64:
		break;
	default:
		if (json)
			memcpy(buf, "null", 4);
		return json ? 4 : 0;
	}
	double d = v.as.f64;
	if (isnan(d)) {
		/* The whole bit pattern, sign included, so that the stored
		 * NaN (payload, sign, quiet or signalling) can be rebuilt. */
		static const char hex[] = "0123456789abcdef";
		uint64_t bits;
		memcpy(&bits, &d, sizeof bits);
		if (json)
			*p++ = '"';
		memcpy(p, "nan(0x", 6);
		p += 6;
		for (int i = 60; i >= 0; i -= 4)
			*p++ = hex[(bits >> i) & 0xf];
		*p++ = ')';
		if (json)
			*p++ = '"';
		return (size_t)(p - buf);
	}
	if (json && isinf(d)) {
		memcpy(p, d > 0 ? "\"inf\"" : "\"-inf\"", d > 0 ? 5 : 6);
		return d > 0 ? 5 : 6;
	}
	/* The shortest digits that read back bit-for-bit ("inf", "-inf" too). */
	size_t n = profdb__fmt_double(buf, d);
	if (json && !memchr(buf, '.', n) && !memchr(buf, 'e', n)) {
		memcpy(buf + n, ".0", 2);
		n += 2;
	}
	return n;
}

void put_number(FILE *f, profdb_number v, int json)
{
	char buf[TOOL_NUMBER_MAX];
	fwrite(buf, 1, format_number(buf, v, json), f);
}

void put_table_value(FILE *f, double v, int w)
{
	/* Tables round: NaN is "nan" whatever its bits (the C library would
	 * print "-nan" for some); value, dump and --json give the bits. */
	if (isnan(v)) {
		fprintf(f, "%*s", w, "nan");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		/* integral: exact digits without printf's floating-point path */
		char buf[TOOL_NUMBER_MAX];
		size_t n = profdb__fmt_i64(buf, (int64_t)v);
		if (n == 1 && buf[0] == '0' && signbit(v))
			buf[0] = '-', buf[1] = '0', n = 2;   /* "%.0f" of -0.0 */
		fprintf(f, "%*.*s", w, (int)n, buf);
	} else {
		fprintf(f, "%*.6g", w, v);
	}
}

/* @p s, then ":" and @p v in decimal (@p hex 0) or "+0x" and @p v in hex
 * (@p hex 1), without a format string: lines and instructions are
 * labelled by the million. */
static void text_number(names_buf *b, profdb_str s, uint64_t v, int hex)
{
	char tmp[24], *d = tmp + sizeof tmp;
	do {
		*--d = hex ? "0123456789abcdef"[v & 15] : (char)('0' + v % 10);
		v = hex ? v >> 4 : v / 10;
	} while (v);
	if (hex) {
		*--d = 'x';
		*--d = '0';
		*--d = '+';
	} else {
		*--d = ':';
	}
	names_put_str(b, s);
	names_put(b, d, (size_t)(tmp + sizeof tmp - d));
}

/* "<context ID>": a context with nothing else to name it. */
static void put_context_id(names_buf *b, uint32_t id)
{
	char tmp[32];
	int l = snprintf(tmp, sizeof tmp, "<context %" PRIu32 ">", id);
	names_put(b, tmp, l > 0 ? (size_t)l : 0);
}

size_t context_label_bytes(const profdb_context *c, char *buf, size_t n)
{
	if (!n)
		return 0;
	names_buf b = {buf, n, 0};
	profdb_str file = names_base(c->file), module = names_base(c->module);
	profdb_str fs = file.len ? file : str_of("?"), ms = module.len ? module : str_of("?");
	buf[0] = '\0';
	switch (c->type) {
	case PROFDB_CTX_ROOT:
		if (c->function.len) {
			names_put(&b, "<", 1);
			names_put_str(&b, c->function);
			names_put(&b, ">", 1);
		} else {
			names_put_str(&b, str_of("<program root>"));
		}
		break;
	case PROFDB_CTX_FUNCTION:
		if (c->relation == PROFDB_RELATION_INLINED)
			names_put(&b, "[I] ", 4);
		if (c->function.len) {   /* "0x14cb0 [ls]" for an unnamed Callgrind function */
			b.len += names_function(c->function, c->module, buf + b.len, n - b.len);
		} else {
			names_put_str(&b, str_of("<unknown function>"));
			if (module.len && c->has_offset) {
				names_put(&b, " ", 1);
				text_number(&b, ms, c->offset, 1);
			}
		}
		break;
	case PROFDB_CTX_LOOP:
		names_put_str(&b, str_of("loop at "));
		text_number(&b, fs, c->line, 0);
		break;
	case PROFDB_CTX_LINE:
		text_number(&b, fs, c->line, 0);
		break;
	case PROFDB_CTX_INSTRUCTION:
		if (c->has_offset)
			text_number(&b, ms, c->offset, 1);
		else if (c->function.len)
			names_put_str(&b, c->function);
		else
			names_put_str(&b, str_of("<instruction>"));
		break;
	default:
		if (c->function.len)
			names_put_str(&b, c->function);
		else if (file.len)
			text_number(&b, fs, c->line, 0);
		else if (module.len && c->has_offset)
			text_number(&b, ms, c->offset, 1);
		else
			put_context_id(&b, c->id);
	}
	return b.len;
}

void context_label(const profdb_context *c, char *buf, size_t n)
{
	names_show(buf, context_label_bytes(c, buf, n));
}

size_t context_label_size(const profdb_context *c)
{
	/* every piece at most once, plus the fixed words and a 64-bit number */
	return c->function.len + c->file.len + c->module.len + 64;
}

char *context_label_bytes_new(const profdb_context *c, profdb_str *out)
{
	size_t n = context_label_size(c);
	char *buf = malloc(n);
	if (buf)
		*out = (profdb_str){buf, context_label_bytes(c, buf, n)};
	return buf;
}

char *context_label_new(const profdb_context *c)
{
	size_t n = context_label_size(c);
	char *buf = malloc(n);
	if (buf)
		context_label(c, buf, n);
	return buf;
}

const char *metric_kind_name(profdb_metric_kind k)
{
	switch (k) {
	case PROFDB_METRIC_POINT: return "point";
	case PROFDB_METRIC_EXCLUSIVE: return "exclusive";
	case PROFDB_METRIC_INCLUSIVE: return "inclusive";
	case PROFDB_METRIC_SUMMARY: return "summary";
	case PROFDB_METRIC_DERIVED: return "derived";
	default: return "other";
	}
}

const char *number_type_name(profdb_type t)
{
	switch (t) {
	case PROFDB_TYPE_U64: return "u64";
	case PROFDB_TYPE_I64: return "i64";
	case PROFDB_TYPE_F64: return "f64";
	default: return "none";
	}
}

const char *relation_name(profdb_relation r)
{
	switch (r) {
	case PROFDB_RELATION_NONE: return "none";
	case PROFDB_RELATION_LEXICAL: return "lexical";
	case PROFDB_RELATION_CALL: return "call";
	case PROFDB_RELATION_INLINED: return "inlined";
	default: return "unknown";
	}
}

const char *context_type_name(profdb_context_type t)
{
	switch (t) {
	case PROFDB_CTX_ROOT: return "root";
	case PROFDB_CTX_FUNCTION: return "function";
	case PROFDB_CTX_LOOP: return "loop";
	case PROFDB_CTX_LINE: return "line";
	case PROFDB_CTX_INSTRUCTION: return "instruction";
	default: return "unknown";
	}
}

size_t format_u64(char *buf, uint64_t v)
{
	return profdb__fmt_u64(buf, v);
}
