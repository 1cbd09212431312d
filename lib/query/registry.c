/* The backends of the common query interface, and what their inputs look
 * like (for detection messages).
 *
 * A backend is compiled in when lib/meson.build lists its lib/<x>/query.c
 * and sets PROFDB_HAVE_<X>_BACKEND in the generated profdb-config.h, so a
 * format module can add its backend without touching this file. The order
 * is the detection order: the first backend whose sniff() accepts an input
 * opens it. The binary formats with exact magic numbers come first; the
 * Callgrind sniffer, which has to look at text, comes last. */
#include <stdio.h>
#include <string.h>

#include "query-internal.h"

static const profdb__backend *const backends[] = {
#ifdef PROFDB_HAVE_HPCTK4_BACKEND
	&profdb__hpctk4_backend,
#endif
#ifdef PROFDB_HAVE_HPCTKPRE_BACKEND
	&profdb__hpctkpre_backend,
#endif
#ifdef PROFDB_HAVE_HPCRUN_BACKEND
	&profdb__hpcrun_backend,
#endif
#ifdef PROFDB_HAVE_CUBE_BACKEND
	&profdb__cube_backend,
#endif
#ifdef PROFDB_HAVE_CALLGRIND_BACKEND
	&profdb__cg_backend,
#endif
	NULL
};

const profdb__backend *profdb__query_xml_backend(void)
{
	for (const profdb__backend *const *be = backends; *be; be++)
		if ((*be)->format == PROFDB_FORMAT_HPCTK_PRE)
			return *be;
	return NULL;
}

const profdb__backend *const *profdb__query_backends(size_t *n)
{
	if (n)
		*n = sizeof backends / sizeof backends[0] - 1;
	return backends;
}

const char profdb__query_expected[] =
	"an HPCToolkit database (4.0, pre-release or draft), hpcrun .hpcrun/.hpctrace "
	"files, a Cube4 .cubex archive or a Callgrind profile";

const char profdb__query_expected_dir[] =
	"meta.db (HPCToolkit 4.0 or draft), HPCPROF-* .db files with experiment.xml "
	"(pre-release) or .hpcrun/.hpctrace files (hpcrun measurements)";

static int has_prefix(const unsigned char *head, size_t n, const char *magic)
{
	size_t m = strlen(magic);
	return n >= m && memcmp(head, magic, m) == 0;
}

static int is_tar(const unsigned char *head, size_t n)
{
	return n >= 262 && memcmp(head + 257, "ustar", 5) == 0;
}

/* The format a magic number belongs to even when this build has no backend
 * for it (PROFDB_FORMAT_UNKNOWN when not recognised), for messages. */
static profdb_format guess(const unsigned char *head, size_t n, const char *name)
{
	if (has_prefix(head, n, "HPCTOOLKIT_expmt"))
		return PROFDB_FORMAT_HPCTK_DRAFT;
	if (has_prefix(head, n, "HPCTOOLKIT"))
		return PROFDB_FORMAT_HPCTK4;
	if (has_prefix(head, n, "HPCPROF-"))
		return PROFDB_FORMAT_HPCTK_PRE;
	if (has_prefix(head, n, "HPCRUN-"))
		return PROFDB_FORMAT_HPCRUN;
	if (is_tar(head, n) || (name && profdb__ends_with(name, ".cubex")))
		return PROFDB_FORMAT_CUBE;
	if (name && (strncmp(name, "callgrind.out", 13) == 0 ||
	             strstr(name, "/callgrind.out") != NULL))
		return PROFDB_FORMAT_CALLGRIND;
	/* A Callgrind file starts with optional "# ..." comments and header
	 * lines; "events:" within the first few KiB is a strong hint. */
	for (size_t i = 0; i + 7 <= n; i++)
		if ((i == 0 || head[i - 1] == '\n') && memcmp(head + i, "events:", 7) == 0)
			return PROFDB_FORMAT_CALLGRIND;
	return PROFDB_FORMAT_UNKNOWN;
}

const char *profdb__query_resembles(const unsigned char *head, size_t n, const char *name,
                                   int *readable)
{
	profdb_format f = guess(head, n, name);
	*readable = 0;
	if (f == PROFDB_FORMAT_UNKNOWN)
		return NULL;
	/* The draft meta.db is read by the pre-release backend. */
	profdb_format reader = f == PROFDB_FORMAT_HPCTK_DRAFT ? PROFDB_FORMAT_HPCTK_PRE : f;
	for (const profdb__backend *const *be = backends; *be; be++)
		if ((*be)->format == reader)
			*readable = 1;
	return profdb_format_name(f);
}

void profdb__query_describe(const unsigned char *head, size_t n, char *buf, size_t cap)
{
	static const struct {
		const char *magic, *what;
	} magics[] = {
		{"HPCTOOLKITmeta", "an HPCToolkit 4.0 meta.db"},
		{"HPCTOOLKITprof", "an HPCToolkit 4.0 profile.db"},
		{"HPCTOOLKITctxt", "an HPCToolkit 4.0 cct.db"},
		{"HPCTOOLKITtrce", "an HPCToolkit 4.0 trace.db"},
		{"HPCTOOLKIT_expmt", "a draft HPCToolkit meta.db"},
		{"HPCPROF-profdb__", "a pre-release HPCToolkit profile.db"},
		{"HPCPROF-cctdb___", "a pre-release HPCToolkit cct.db"},
		{"HPCPROF-tracedb_", "a pre-release HPCToolkit trace.db"},
		{"HPCRUN-profile", "an hpcrun profile"},
		{"HPCRUN-trace", "an hpcrun trace"},
	};
	if (n == 0) {
		snprintf(buf, cap, "an empty file");
		return;
	}
	for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
		if (has_prefix(head, n, magics[i].magic)) {
			snprintf(buf, cap, "%s (magic \"%s\")", magics[i].what, magics[i].magic);
			return;
		}
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		snprintf(buf, cap, "gzip-compressed data");
		return;
	}
	if (is_tar(head, n)) {
		snprintf(buf, cap, "a tar archive");
		return;
	}
	/* Text: quote the first line (printable ASCII only). */
	size_t len = 0, printable = 1;
	while (len < n && len < 48 && head[len] != '\n') {
		unsigned char c = head[len];
		if (c != '\t' && c != '\r' && (c < 0x20 || c > 0x7e))
			printable = 0;
		len++;
	}
	if (printable) {
		char line[49];
		size_t k = 0;
		for (size_t i = 0; i < len; i++)
			line[k++] = head[i] == '\t' || head[i] == '\r' ? ' ' : (char)head[i];
		line[k] = 0;
		snprintf(buf, cap, "text beginning \"%s%s\"", line,
		         len == 48 && len < n && head[len] != '\n' ? "..." : "");
		return;
	}
	char hex[3 * 16 + 1];
	size_t k = 0;
	for (size_t i = 0; i < n && i < 16; i++)
		k += (size_t)snprintf(hex + k, sizeof hex - k, "%s%02x", i ? " " : "", head[i]);
	hex[k] = 0;
	snprintf(buf, cap, "binary data beginning %s", hex);
}
