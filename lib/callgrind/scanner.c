/* Callgrind scanner: the general line reader and the dispatch of a line
 * by its first character and key (scan-internal.h lists the files). A
 * line is a (start, length) window of the text found with memchr inside
 * the text's bounds and tokens are windows of the line: no pointer is
 * formed past the end. The common lines go through fast.c first. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-internal.h"

int perr(parser *ps, int code, const char *fmt, ...)
{
	char buf[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (ps->at.last_line && code == -EBADMSG)
		return profdb__fail(-ENODATA,
		                    "%s: line %" PRIu64 " (offset %" PRIu64 "): file truncated "
		                    "(last line has no newline and is incomplete): %s",
		                    ps->at.f->label, ps->at.lineno, ps->at.off, buf);
	return profdb__fail(code, "%s: line %" PRIu64 " (offset %" PRIu64 "): %s",
	                    ps->at.f->label, ps->at.lineno, ps->at.off, buf);
}

void pwarn(parser *ps, const char *fmt, ...)
{
	char buf[384];
	va_list ap;
	if (ps->spec.on) {
		/* a piece of the parallel scan: the sequential scan redoes it and
		 * warns in order (parallel.c) */
		ps->spec.unsafe = 1;
		return;
	}
	if (!ps->cg->opts.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	profdb__warn(&ps->cg->opts, "%s: line %" PRIu64 " (offset %" PRIu64 "): %s",
	             ps->at.f->label, ps->at.lineno, ps->at.off, buf);
}


int bad_number(parser *ps, int r, const char *what, const char *t, size_t n)
{
	if (r == -2)
		return perr(ps, -EBADMSG, "%s \"%.*s\" overflows 64 bits", what, SHOWN(n), t);
	if (r == -3)
		return perr(ps, -EBADMSG, "%s \"%.*s\" goes below 0", what, SHOWN(n), t);
	return perr(ps, -EBADMSG, "%s \"%.*s\" is not a number", what, SHOWN(n), t);
}


static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || cg_is_digit(c) || c == '_';
}

static int one_line(parser *ps, const char *p, const char *end)
{
	if (ps->cur.pending_call) {
		if (p == end || !(cg_is_digit(*p) || *p == '+' || *p == '-' || *p == '*'))
			return perr(ps, -EBADMSG, "calls= line not followed by its cost line");
		return cost_line(ps, p, end);
	}
	if (p == end || *p == '#')
		return 0;
	char c0 = *p;
	if (cg_is_digit(c0) || c0 == '+' || c0 == '-' || c0 == '*') {
		if (ps->part.prof == CG_EMPTY) {
			int r = need_part(ps);
			if (r < 0)
				return r;
		}
		return cost_line(ps, p, end);
	}
	const char *k = p;
	while (p < end && is_key_char(*p))
		p++;
	size_t kn = (size_t)(p - k);
	if (kn && p < end && *p == '=') {
		if (ps->part.prof == CG_EMPTY) {
			int r = need_part(ps);
			if (r < 0)
				return r;
		}
		return spec_line(ps, k, kn, p + 1, end);
	}
	if (ps->spec.on && ((kn && p < end && *p == ':') || (end - k >= 4 && memcmp(k, "====", 4) == 0)))
		return CG_STOP;  /* a new part, totals:, ...: left to the sequential scan */
	if (kn && p < end && *p == ':')
		return header_line(ps, k, kn, p + 1, end);
	if (end - k >= 4 && memcmp(k, "====", 4) == 0) {
		/* Xdebug's profiler_append: "==== NEW PROFILING FILE ====" starts
		 * a new profile with its own name ids (what they meant before
		 * is kept for the blocks before, names.c). */
		end_part(ps);
		int r = profdb__cgs_ids_retire(ps);
		ids_clear(&ps->ids, 0);
		return r;
	}
	for (const char *q = k; q < end; q++)
		if ((unsigned char)*q < 0x20 && *q != '\t')
			return perr(ps, -EBADMSG, "binary data (byte 0x%02x)", (unsigned char)*q);
	if (ps->at.last_line)
		return perr(ps, -EBADMSG, "unrecognised last line");
	if (once(&ps->warned.unknown))
		pwarn(ps, "unrecognised line skipped (further unknown lines silently)");
	return 0;
}

static int looks_like_callgrind(const char *s, uint64_t size)
{
	static const char *const first[] = {"# callgrind format", "# format callgrind"};
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(first[i]);
		if (size >= n && memcmp(s, first[i], n) == 0)
			return 1;
	}
	uint64_t lim = size < 2047 ? size : 2047;
	static const char *const keys[] = {"events:", "creator:", "version:"};
	for (uint64_t i = 0; i < lim; i++) {
		if (i > 0 && s[i - 1] != '\n')
			continue;
		for (int j = 0; j < 3; j++) {
			size_t n = strlen(keys[j]);
			if (size - i >= n && memcmp(s + i, keys[j], n) == 0)
				return 1;
		}
	}
	return 0;
}

int profdb__cgs_begin(parser *ps, profdb_cg *cg, uint32_t fi, cg_build *b)
{
	int r;
	memset(ps, 0, sizeof *ps);
	ps->cg = cg;
	ps->b = b;
	cg->rows_ahead = 1;   /* (not a piece's tables: parallel.c) */
	ps->at.f = &cg->files[fi];
	ps->at.file = fi;
	ps->cur.body = ps->cur.blk = CG_EMPTY;
	end_part(ps);

	if (cg->n_names == 0) {
		r = grow((void **)&cg->names, &cg->cap_names, 1, sizeof *cg->names);
		if (r < 0)
			return r;
		cg->names[0] = (cg_name){"", 0, 0};
		cg->n_names = 1;
	}
	const char *s = ps->at.f->text;
	uint64_t size = ps->at.f->size;
	/* A definition "fn=(N) x" takes at least 8 bytes: dense arrays of
	 * size/2 entries stay proportional to the text. */
	ps->ids.limit = size / 2 > 65536 ? size / 2 : 65536;
	if (ps->ids.limit > ((uint64_t)1 << 26))
		ps->ids.limit = (uint64_t)1 << 26;
	if (size && !looks_like_callgrind(s, size))
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: not a callgrind file (no \"# callgrind format\" first line, "
		                    "no events:/creator:/version: line in the first 2047 bytes)",
		                    ps->at.f->label);
	ps->at.safe_end = size;
	while (ps->at.safe_end > 0 && s[ps->at.safe_end - 1] != '\n')
		ps->at.safe_end--;
	ps->at.next_progress = (uint64_t)16 << 20;
	return 0;
}

/* The lines [off, stop) on the fast paths for '\n' line ends or, with
 * @p crlf, for "\r\n" ones too (fast.c), and on the general path. */
static inline __attribute__((always_inline)) int lines_with(parser *ps, uint64_t off,
                                                            uint64_t stop, const int crlf)
{
	const char *s = ps->at.f->text;
	uint64_t size = ps->at.f->size;
	profdb_cg *cg = ps->cg;
	profdb_progress_fn progress = ps->spec.on ? NULL : cg->opts.progress;  /* not reloaded per line */
	/* the fast paths read lines that start before fast_end: a run of cost
	 * lines stops there, so the progress hook is still called on time */
	uint64_t lim = stop < ps->at.safe_end ? stop : ps->at.safe_end;
	uint64_t fast_end = progress && ps->at.next_progress < lim ? ps->at.next_progress : lim;
	int r;
	while (off < stop) {
		if (progress && off >= ps->at.next_progress) {
			ps->at.next_progress = off + ((uint64_t)16 << 20);
			fast_end = ps->at.next_progress < lim ? ps->at.next_progress : lim;
			if (cg->opts.progress(off, size, cg->opts.progress_userdata))
				return profdb__fail(-ECANCELED, "%s: cancelled at offset %" PRIu64,
				                    ps->at.f->label, off);
		}
		if (off < fast_end) {
			int64_t to = crlf ? fast_lines_crlf(ps, off, fast_end) : fast_lines(ps, off, fast_end);
			if (to < 0)
				return (int)to;
			off = (uint64_t)to;
			if (off >= fast_end)
				continue;   /* the progress hook, or the lines after fast_end */
		}
		/* a line the fast paths leave to the general path */
		ps->at.lineno++;
		ps->at.off = off;
		uint64_t rest = size - off;
		size_t scan = (size_t)(rest < CG_MAX_LINE + 1 ? rest : CG_MAX_LINE + 1);
		const char *p = s + off;
		const char *nl = memchr(p, '\n', scan);
		size_t n;
		if (nl) {
			n = (size_t)(nl - p);
		} else if (rest > CG_MAX_LINE) {
			return perr(ps, -EBADMSG, "line longer than %" PRIu64 " bytes", CG_MAX_LINE);
		} else {
			n = (size_t)rest;
			ps->at.last_line = 1;
		}
		off += n + (nl ? 1 : 0);
		ps->at.next_off = off;
		if (n && p[n - 1] == '\r')
			n--;
		rstrip(p, &n);
		r = one_line(ps, p, p + n);
		if (r == CG_STOP) {
			ps->at.lineno--;   /* not read: ps->at.off is where the next scan starts */
			ps->at.last_line = 0;
			return CG_STOP;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int profdb__cgs_lines(parser *ps, uint64_t off, uint64_t stop)
{
	/* The first line tells the line ends (a writer uses one kind): "\r\n"
	 * ones are read on the fast paths that take them, '\n' ones on those
	 * that take nothing else, which run fewer instructions. A line of the
	 * other kind is read on the general path, with the same answers. */
	uint64_t lim = stop < ps->at.safe_end ? stop : ps->at.safe_end;
	const char *s = ps->at.f->text;
	const char *nl = off < lim ? memchr(s + off, '\n', (size_t)(lim - off)) : NULL;
	if (nl && nl > s + off && nl[-1] == '\r')
		return lines_with(ps, off, stop, 1);
	return lines_with(ps, off, stop, 0);
}

int profdb__cgs_end(parser *ps)
{
	ps->at.off = ps->at.f->size;
	profdb__cgs_close_blk(ps);
	if (ps->cur.pending_call) {
		ps->at.last_line = 0;
		return perr(ps, -ENODATA, "file ends after calls= without its cost line (truncated?)");
	}
	return 0;
}

int profdb__cg_parse(profdb_cg *cg, uint32_t fi, cg_build *b)
{
	parser ps;
	int r = profdb__cgs_begin(&ps, cg, fi, b);
	if (r >= 0) {
		unsigned threads = profdb__cgs_threads(cg, ps.at.f->size);
		if (cg_text_mapped(ps.at.f))
			profdb__input_read_through(&ps.at.f->in);
		if (threads > 1)
			r = profdb__cgs_parallel(&ps, threads);
		else {
			/* every byte is read: map them all at once (a no-op unless
			 * the text is the file's mapping) */
			cg_prefault(ps.at.f, 0, ps.at.f->size);
			r = profdb__cgs_lines(&ps, 0, ps.at.f->size);
		}
	}
	if (r >= 0)
		r = profdb__cgs_end(&ps);
	profdb__cgs_keep_ids(&ps, r);
	return r < 0 ? r : 0;
}

void profdb__cgs_keep_ids(parser *ps, int r)
{
	cg_file *f = ps->at.f;
	if (r >= 0 && f && ps->cg && !f->ids && (f->ids = malloc(sizeof *f->ids))) {
		*f->ids = ps->ids;
		memset(&ps->ids, 0, sizeof ps->ids);
		profdb__cgs_ids_trim(f->ids);
		return;
	}
	ids_clear(&ps->ids, 1);
}
