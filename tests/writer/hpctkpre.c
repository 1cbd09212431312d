/* Test-data writer: pre-release HPCPROF-* databases with experiment.xml, and
 * the draft HPCTOOLKIT_expmt meta.db (see writer.h, "HPCToolkit pre-release").
 * Everything big-endian, written byte by byte; headers padded to 128 bytes
 * as the real writer did. Compiled into the executables that use it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "writer.h"

/* ---- a tiny big-endian buffer (sticky error) ------------------------------ */

typedef struct bb {
	unsigned char *p;
	size_t len, cap;
	int err;
} bb;

static unsigned char *bb_grow(bb *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 256;
		while (c < b->len + n)
			c *= 2;
		unsigned char *q = realloc(b->p, c);
		if (!q) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = q;
		b->cap = c;
	}
	unsigned char *r = b->p + b->len;
	memset(r, 0, n);
	b->len += n;
	return r;
}

static void put_be(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static void bb_be(bb *b, uint64_t v, unsigned n)
{
	unsigned char *p = bb_grow(b, n);
	if (p)
		put_be(p, v, n);
}

static void bb_f64(bb *b, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	bb_be(b, u, 8);
}

static void bb_raw(bb *b, const void *s, size_t n)
{
	unsigned char *p = bb_grow(b, n);
	if (p)
		memcpy(p, s, n);
}

static void bb_set(bb *b, size_t at, uint64_t v, unsigned n)
{
	if (!b->err && at + n <= b->len)
		put_be(b->p + at, v, n);
}

static int bb_done(bb *b, tw_blob *out)
{
	if (b->err) {
		free(b->p);
		return b->err;
	}
	out->data = b->p;
	out->size = b->len;
	return 0;
}

/* ---- the sample ----------------------------------------------------------- */

static const char sample_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<HPCToolkitExperiment version=\"4.0\">\n"
	"<Header n=\"tw-sample\"><Info/></Header>\n"
	"<SecCallPathProfile i=\"0\" n=\"tw-sample\">\n"
	"<SecHeader>\n"
	"<IdentifierNameTable>\n"
	"<Identifier i=\"0\" n=\"SUMMARY\"/><Identifier i=\"1\" n=\"NODE\"/>\n"
	"<Identifier i=\"2\" n=\"RANK\"/><Identifier i=\"3\" n=\"THREAD\"/>\n"
	"</IdentifierNameTable>\n"
	"<MetricTable>\n"
	"<Metric i=\"512\" o=\"512\" n=\"time:Sum (I)\" md=\"time\" v=\"derived-incr\" t=\"inclusive\""
	" partner=\"256\" show=\"1\" show-percent=\"1\">\n"
	"<MetricFormula t=\"combine\" frm=\"sum($512, $512)\"/>\n"
	"<Info><NV n=\"units\" v=\"seconds\"/></Info>\n"
	"</Metric>\n"
	"<Metric i=\"256\" o=\"256\" n=\"time:Sum (E)\" md=\"time\" v=\"derived-incr\" t=\"exclusive\""
	" partner=\"512\" show=\"1\" show-percent=\"1\">\n"
	"<MetricFormula t=\"combine\" frm=\"sum($256, $256)\"/>\n"
	"<Info><NV n=\"units\" v=\"seconds\"/></Info>\n"
	"</Metric>\n"
	"<Metric i=\"767\" o=\"767\" n=\"time:View (I)\" t=\"inclusive\" partner=\"511\" show=\"0\">\n"
	"<MetricFormula t=\"view\" frm=\"$512\"/>\n"
	"</Metric>\n"
	"</MetricTable>\n"
	"<MetricDBTable>\n"
	"<MetricDB i=\"2\" n=\"time (I)\"/>\n"
	"<MetricDB i=\"1\" n=\"time (E)\"/>\n"
	"</MetricDBTable>\n"
	"<TraceDBTable>\n</TraceDBTable>\n"
	"<LoadModuleTable>\n"
	"<LoadModule i=\"1\" n=\"/usr/bin/app\"/>\n"
	"<LoadModule i=\"2\" n=\"/lib/libc.so.6\"/>\n"
	"</LoadModuleTable>\n"
	"<FileTable>\n"
	"<File i=\"0\" n=\"main.c\"/>\n"
	"<File i=\"1\" n=\"util.h\"/>\n"
	"<File i=\"2147483647\" n=\"&lt;unknown file&gt;\"/>\n"
	"</FileTable>\n"
	"<ProcedureTable>\n"
	"<Procedure i=\"10\" n=\"main\" v=\"0x1000\"/>\n"
	"<Procedure i=\"11\" n=\"foo\" v=\"0x1100\"/>\n"
	"<Procedure i=\"12\" n=\"memcpy\" v=\"0x2000\"/>\n"
	"</ProcedureTable>\n"
	"<Info/>\n"
	"</SecHeader>\n"
	"<SecCallPathProfileData>\n"
	"<PF i=\"1\" n=\"10\" s=\"10\" v=\"0x1000\" f=\"0\" l=\"3\" lm=\"1\">\n"
	"<L i=\"2\" s=\"2\" v=\"0\" f=\"0\" l=\"5\">\n"
	"<S i=\"3\" it=\"3\" f=\"0\" l=\"6\" s=\"3\" v=\"0\"/>\n"
	"<C i=\"4\" s=\"4\" v=\"0x1010\" f=\"0\" l=\"7\" it=\"4\">\n"
	"<PF i=\"5\" n=\"11\" s=\"11\" v=\"0x1100\" f=\"1\" l=\"20\" lm=\"1\">\n"
	"<S i=\"6\" it=\"6\" f=\"1\" l=\"21\" s=\"6\" v=\"0\"/>\n"
	"</PF>\n"
	"</C>\n"
	"</L>\n"
	"<C i=\"-8\" s=\"8\" v=\"0x1020\" f=\"0\" l=\"9\" it=\"8\">\n"
	"<PF i=\"8\" n=\"12\" s=\"12\" v=\"0x2000\" f=\"2147483647\" l=\"0\" lm=\"2\">\n"
	"<S i=\"9\" it=\"9\" f=\"2147483647\" l=\"0\" s=\"9\" v=\"0\"/>\n"
	"</PF>\n"
	"</C>\n"
	"</PF>\n"
	"</SecCallPathProfileData>\n"
	"</SecCallPathProfile>\n"
	"</HPCToolkitExperiment>\n";

const char *tw_pre_sample_xml(void)
{
	return sample_xml;
}

/* Thread values: exclusive (metric 1) at the statements, inclusive
 * (metric 2) up the tree; the summary (256, 512) is their sum. */
static const uint32_t ctx_ids[] = {0, 1, 2, 3, 4, 5, 6, 8, 9};
static double incl(uint32_t p, uint32_t c)
{
	double e3 = 1.5 * p, e6 = 0.25 * p, e9 = 2.0 * p;
	switch (c) {
	case 3: return e3;
	case 6: case 5: case 4: return e6;
	case 2: return e3 + e6;
	case 9: case 8: return e9;
	default: return e3 + e6 + e9;   /* 0 and 1 */
	}
}

static int leaf(uint32_t c)
{
	return c == 3 || c == 6 || c == 9;
}

static tw_pre_value sample_values[TW_PRE_SAMPLE_VALUES];
static const tw_pre_tsample trace1[] = {
	{TW_PRE_T0 + 1000, 3}, {TW_PRE_T0 + 2000, 6}, {TW_PRE_T0 + 2000, 9}, {TW_PRE_T0 + 5000, 0},
};
static const tw_pre_trace sample_traces[] = {
	{1, 0, trace1, sizeof trace1 / sizeof *trace1},
	{2, 0, NULL, 0},
};

void tw_pre_sample(tw_pre *d)
{
	size_t n = 0;
	for (uint32_t p = 0; p < 3; p++)
		for (size_t k = 0; k < sizeof ctx_ids / sizeof *ctx_ids; k++) {
			uint32_t c = ctx_ids[k];
			double i = p ? incl(p, c) : incl(1, c) + incl(2, c);
			uint16_t me = p ? 1 : 256, mi = p ? 2 : 512;
			if (leaf(c))
				sample_values[n++] = (tw_pre_value){p, c, me, i};
			sample_values[n++] = (tw_pre_value){p, c, mi, i};
		}
	memset(d, 0, sizeof *d);
	d->n_profiles = 3;
	d->n_ctx = 10;
	d->values = sample_values;
	d->n_values = n;
	d->traces = sample_traces;
	d->n_traces = sizeof sample_traces / sizeof *sample_traces;
	d->xml = sample_xml;
}

/* ---- the three .db files -------------------------------------------------- */

static void header(bb *b, const char *magic, const tw_pre *d, uint32_t count, uint16_t nsec)
{
	bb_raw(b, magic, 16);
	bb_be(b, d->major ? d->major : 1, 1);
	bb_be(b, d->minor, 1);
	bb_be(b, count, 4);
	bb_be(b, nsec, 2);
	bb_grow(b, 0x80 - 0x18);   /* section table then padding to 128 bytes */
}

static void footer(bb *b, const tw_pre *d, const char *reversed, const char *native)
{
	if (!d->no_footer)
		bb_raw(b, d->native_footer ? native : reversed, 8);
}

static int check_sorted(const tw_pre *d)
{
	for (size_t i = 0; i < d->n_values; i++) {
		const tw_pre_value *v = &d->values[i];
		if (v->profile >= d->n_profiles || v->ctx >= d->n_ctx)
			return -EINVAL;
		if (i) {
			const tw_pre_value *u = &d->values[i - 1];
			if (u->profile > v->profile || (u->profile == v->profile &&
			    (u->ctx > v->ctx || (u->ctx == v->ctx && u->metric >= v->metric))))
				return -EINVAL;
		}
	}
	return 0;
}

static int write_profile(const tw_pre *d, tw_blob *out)
{
	bb b = {0};
	header(&b, "HPCPROF-profdb__", d, d->n_profiles, 2);
	size_t pi = b.len;
	bb_grow(&b, 52 * (size_t)d->n_profiles);
	size_t idt = b.len;
	for (uint32_t p = 0; p < d->n_profiles; p++) {
		bb_set(&b, pi + 52 * (size_t)p, b.len, 8);
		if (p == 0) {
			bb_be(&b, 1, 2);
			bb_be(&b, 0, 2);   /* SUMMARY */
			bb_be(&b, 0, 8);
			bb_be(&b, 0, 8);
		} else {
			bb_be(&b, 2, 2);
			bb_be(&b, 1, 2);   /* NODE */
			bb_be(&b, 0x7f000001, 8);
			bb_be(&b, 0, 8);
			bb_be(&b, 0xC003, 2);   /* THREAD, logical */
			bb_be(&b, 0, 8);
			bb_be(&b, p - 1, 8);
		}
	}
	bb_set(&b, 0x18, 52 * (uint64_t)d->n_profiles, 8);
	bb_set(&b, 0x20, pi, 8);
	bb_set(&b, 0x28, b.len - idt, 8);
	bb_set(&b, 0x30, idt, 8);
	size_t v = 0;
	for (uint32_t p = 0; p < d->n_profiles; p++) {
		size_t first = v;
		while (v < d->n_values && d->values[v].profile == p)
			v++;
		size_t at = b.len;
		uint32_t nctx = 0;
		for (size_t k = first; k < v; k++)
			bb_f64(&b, d->values[k].value), bb_be(&b, d->values[k].metric, 2);
		for (size_t k = first; k < v; k++)
			if (k == first || d->values[k].ctx != d->values[k - 1].ctx) {
				bb_be(&b, d->values[k].ctx, 4);
				bb_be(&b, k - first, 8);
				nctx++;
			}
		bb_be(&b, 0x656E6421, 4);
		bb_be(&b, v - first, 8);
		size_t r = pi + 52 * (size_t)p;
		bb_set(&b, r + 0x20, v - first, 8);
		bb_set(&b, r + 0x28, nctx, 4);
		bb_set(&b, r + 0x2c, at, 8);
	}
	footer(&b, d, "tfBDFORP", "PROFDBft");
	return bb_done(&b, out);
}

static int cmp_cct(const void *a, const void *b)
{
	const tw_pre_value *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return (x->profile > y->profile) - (x->profile < y->profile);
}

static int write_cct(const tw_pre *d, tw_blob *out)
{
	/* cct.db holds the thread profiles only (the real file's counts say
	 * so): regroup those values by (context, metric, profile). */
	tw_pre_value *s = malloc((d->n_values ? d->n_values : 1) * sizeof *s);
	if (!s)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < d->n_values; i++)
		if (d->values[i].profile != 0)
			s[n++] = d->values[i];
	qsort(s, n, sizeof *s, cmp_cct);
	bb b = {0};
	header(&b, "HPCPROF-cctdb___", d, d->n_ctx, 1);
	size_t ci = b.len;
	bb_grow(&b, 22 * (size_t)d->n_ctx);
	bb_set(&b, 0x18, 22 * (uint64_t)d->n_ctx, 8);
	bb_set(&b, 0x20, ci, 8);
	size_t v = 0;
	for (uint32_t c = 0; c < d->n_ctx; c++) {
		size_t first = v;
		while (v < n && s[v].ctx == c)
			v++;
		size_t at = b.len, r = ci + 22 * (size_t)c;
		uint16_t nm = 0;
		bb_set(&b, r, c, 4);
		bb_set(&b, r + 4, v - first, 8);
		bb_set(&b, r + 0x0e, at, 8);
		if (v == first)
			continue;   /* empty: no block, the pointer is the next block's */
		for (size_t k = first; k < v; k++)
			bb_f64(&b, d->zero_cct ? 0.0 : s[k].value), bb_be(&b, d->zero_cct ? 0 : s[k].profile, 4);
		for (size_t k = first; k < v; k++)
			if (k == first || s[k].metric != s[k - 1].metric) {
				bb_be(&b, d->zero_cct ? 0 : s[k].metric, 2);
				bb_be(&b, d->zero_cct ? 0 : k - first, 8);
				nm++;
			}
		bb_be(&b, d->zero_cct ? 0 : 0x6564, 2);
		bb_be(&b, d->zero_cct ? 0 : v - first, 8);
		bb_set(&b, r + 0x0c, nm, 2);
	}
	free(s);
	footer(&b, d, "rtfBDTCC", "CCTDBftr");
	return bb_done(&b, out);
}

static int write_trace(const tw_pre *d, tw_blob *out)
{
	bb b = {0};
	header(&b, "HPCPROF-tracedb_", d, (uint32_t)d->n_traces, 1);
	size_t th = b.len;
	bb_grow(&b, 22 * d->n_traces);
	bb_set(&b, 0x18, 22 * (uint64_t)d->n_traces, 8);
	bb_set(&b, 0x20, th, 8);
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t t = 0; t < d->n_traces; t++) {
		const tw_pre_trace *tr = &d->traces[t];
		size_t r = th + 22 * t;
		bb_set(&b, r, tr->profile, 4);
		bb_set(&b, r + 4, tr->type, 2);
		if (tr->n == 0) {
			/* as the real writer: an empty line's pointers lie past the end */
			bb_set(&b, r + 6, 0xffff0, 8);
			bb_set(&b, r + 0x0e, 0xffff0, 8);
			continue;
		}
		bb_set(&b, r + 6, b.len, 8);
		for (size_t k = 0; k < tr->n; k++) {
			bb_be(&b, tr->samples[k].time, 8);
			bb_be(&b, tr->samples[k].ctx, 4);
			lo = tr->samples[k].time < lo ? tr->samples[k].time : lo;
			hi = tr->samples[k].time > hi ? tr->samples[k].time : hi;
		}
		bb_set(&b, r + 0x0e, b.len, 8);
	}
	if (lo <= hi && !d->zero_trace_bounds) {
		bb_set(&b, 0x28, lo, 8);
		bb_set(&b, 0x30, hi, 8);
	}
	return bb_done(&b, out);
}

int tw_pre_write(const tw_pre *d, tw_blob out[4])
{
	int r;
	memset(out, 0, 4 * sizeof *out);
	if (!d || d->n_profiles == 0 || (r = check_sorted(d)) < 0)
		return -EINVAL;
	const char *xml = d->xml ? d->xml : sample_xml;
	if ((r = write_profile(d, &out[0])) < 0 || (r = write_cct(d, &out[1])) < 0 ||
	    (r = write_trace(d, &out[2])) < 0)
		goto fail;
	out[3].size = strlen(xml);
	out[3].data = malloc(out[3].size + 1);
	if (!out[3].data) {
		r = -ENOMEM;
		goto fail;
	}
	memcpy(out[3].data, xml, out[3].size + 1);
	return 0;
fail:
	for (int k = 0; k < 4; k++)
		tw_blob_free(&out[k]);
	return r;
}

static int write_file(const char *dir, const char *name, const tw_blob *b)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	size_t n = b->size ? fwrite(b->data, 1, b->size, f) : 0;
	int bad = n != b->size;
	if (fclose(f) != 0 || bad)
		return -EIO;
	return 0;
}

int tw_pre_write_dir(const tw_pre *d, const char *dir)
{
	static const char *const names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};
	tw_blob out[4];
	int r = tw_pre_write(d, out);
	if (r < 0)
		return r;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		r = -errno;
	for (int k = 0; k < 4 && r >= 0; k++)
		r = write_file(dir, names[k], &out[k]);
	for (int k = 0; k < 4; k++)
		tw_blob_free(&out[k]);
	return r;
}

/* ---- the draft meta.db ---------------------------------------------------- */

int tw_draft_write(tw_blob *out, unsigned flags)
{
	bb b = {0};
	int doc7 = (flags & TW_DRAFT_DOC7) != 0;
	unsigned nsec = doc7 ? 7 : 8;
	bb_raw(&b, "HPCTOOLKIT_expmt", 16);
	bb_be(&b, 4, 1);
	bb_be(&b, 0, 1);
	bb_be(&b, nsec, 2);
	bb_grow(&b, 4 + 16 * nsec);
	/* sections in table order: general, [idtable], metric, ctree, str,
	 * modules, files, funcs; written in that order too. */
	size_t sec[8][2];   /* off, size, indexed by the draft code's order */
	static const char *const kinds[] = {"SUMMARY", "NODE", "RANK", "THREAD"};
	/* General */
	sec[0][0] = b.len;
	bb_raw(&b, "tw-draft", 9);
	if (doc7) {
		bb_be(&b, 4, 2);
		for (int k = 0; k < 4; k++)
			bb_raw(&b, kinds[k], strlen(kinds[k]) + 1);
	}
	sec[0][1] = b.len - sec[0][0];
	/* idtable */
	sec[1][0] = b.len;
	if (!doc7) {
		bb_be(&b, 4, 2);
		for (int k = 0; k < 4; k++)
			bb_raw(&b, kinds[k], strlen(kinds[k]) + 1);
	}
	sec[1][1] = b.len - sec[1][0];
	/* Metric: "time" {execution raw 2 {512 sum "$$"}, function raw 1 {256 sum "$$"}} */
	sec[2][0] = b.len;
	bb_be(&b, 1, 4);
	bb_be(&b, 2, 2);
	bb_raw(&b, "time", 5);
	bb_be(&b, 2, 2), bb_be(&b, 1, 2), bb_raw(&b, "execution", 10);
	bb_be(&b, 512, 2), bb_be(&b, 0, 1), bb_raw(&b, "$$", 3);
	bb_be(&b, 1, 2), bb_be(&b, 1, 2), bb_raw(&b, "function", 9);
	bb_be(&b, 256, 2), bb_be(&b, 0, 1), bb_raw(&b, "$$", 3);
	sec[2][1] = b.len - sec[2][0];
	/* Strings */
	sec[4][0] = b.len;
	size_t s_app = b.len;
	bb_raw(&b, "/usr/bin/app", 13);
	size_t s_main_c = b.len;
	bb_raw(&b, "main.c", 7);
	size_t s_main = b.len;
	bb_raw(&b, "main", 5);
	size_t s_foo = b.len;
	bb_raw(&b, "foo", 4);
	sec[4][1] = b.len - sec[4][0];
	/* Binaries: 1 x 12 */
	sec[5][0] = b.len;
	bb_be(&b, 1, 4), bb_be(&b, 12, 2);
	size_t bin0 = b.len;
	bb_be(&b, 0, 4), bb_be(&b, s_app, 8);
	sec[5][1] = b.len - sec[5][0];
	/* Files: 1 x 12 */
	sec[6][0] = b.len;
	bb_be(&b, 1, 4), bb_be(&b, 12, 2);
	size_t file0 = b.len;
	bb_be(&b, 1, 4), bb_be(&b, s_main_c, 8);
	sec[6][1] = b.len - sec[6][0];
	/* Functions: main, foo x 40 */
	sec[7][0] = b.len;
	bb_be(&b, 2, 4), bb_be(&b, 40, 2);
	size_t fmain = b.len;
	bb_be(&b, 0, 4), bb_be(&b, s_main, 8), bb_be(&b, bin0, 8), bb_be(&b, 0x1000, 8);
	bb_be(&b, file0, 8), bb_be(&b, 3, 4);
	size_t ffoo = b.len;
	bb_be(&b, 0, 4), bb_be(&b, s_foo, 8), bb_be(&b, bin0, 8), bb_be(&b, UINT64_MAX, 8);
	bb_be(&b, 0, 8), bb_be(&b, 0, 4);
	sec[7][1] = b.len - sec[7][0];
	/* Context tree: root block { 1 main { 2 loop { 3 line }, 4 call foo { 5 point } } } */
	sec[3][0] = b.len;
	bb_be(&b, 0, 8);   /* root block size, patched */
	size_t root = b.len;
	/* node 1: function main, children block patched */
	size_t n1 = b.len;
	bb_be(&b, 1, 4), bb_be(&b, 0, 8), bb_be(&b, 0, 8), bb_be(&b, 0, 1), bb_be(&b, 11, 1);
	bb_be(&b, 0, 1), bb_be(&b, 1, 2), bb_be(&b, fmain, 8);
	size_t root_end = b.len;
	size_t blk1 = b.len;
	size_t n2 = b.len;   /* loop main.c:5 */
	bb_be(&b, 2, 4), bb_be(&b, 0, 8), bb_be(&b, 0, 8), bb_be(&b, 0, 1), bb_be(&b, 15, 1);
	bb_be(&b, 1, 1), bb_be(&b, 2, 2), bb_be(&b, file0, 8), bb_be(&b, 5, 4);
	size_t n4 = b.len;   /* call foo from main.c:7 */
	bb_be(&b, 4, 4), bb_be(&b, 0, 8), bb_be(&b, 0, 8), bb_be(&b, 14, 1), bb_be(&b, 11, 1);
	bb_be(&b, 0, 1), bb_be(&b, 1, 1), bb_be(&b, file0, 8), bb_be(&b, 7, 4);
	bb_be(&b, 0, 1), bb_be(&b, 1, 2), bb_be(&b, ffoo, 8);
	size_t blk1_end = b.len;
	size_t blk2 = b.len;   /* line main.c:6 */
	bb_be(&b, 3, 4), bb_be(&b, 0, 8), bb_be(&b, 0, 8), bb_be(&b, 0, 1), bb_be(&b, 15, 1);
	bb_be(&b, 2, 1), bb_be(&b, 2, 2), bb_be(&b, file0, 8), bb_be(&b, 6, 4);
	size_t blk2_end = b.len;
	size_t blk4 = b.len;   /* point in /usr/bin/app + 0x1010 */
	bb_be(&b, 5, 4), bb_be(&b, 0, 8), bb_be(&b, 0, 8), bb_be(&b, 0, 1), bb_be(&b, 19, 1);
	bb_be(&b, 3, 1), bb_be(&b, 4, 2), bb_be(&b, bin0, 8), bb_be(&b, 0x1010, 8);
	size_t blk4_end = b.len;
	bb_set(&b, sec[3][0], root_end - root, 8);
	bb_set(&b, n1 + 4, blk1, 8), bb_set(&b, n1 + 12, blk1_end - blk1, 8);
	bb_set(&b, n2 + 4, blk2, 8), bb_set(&b, n2 + 12, blk2_end - blk2, 8);
	bb_set(&b, n4 + 4, blk4, 8), bb_set(&b, n4 + 12, blk4_end - blk4, 8);
	if (flags & TW_DRAFT_CYCLE) {
		/* the line context's children are the root block again */
		bb_set(&b, blk2 + 4, root, 8);
		bb_set(&b, blk2 + 12, root_end - root, 8);
	}
	sec[3][1] = b.len - sec[3][0];
	static const int doc_order[7] = {0, 2, 3, 4, 5, 6, 7};
	for (unsigned k = 0; k < nsec; k++) {
		int which = doc7 ? doc_order[k] : (int)k;
		bb_set(&b, 0x18 + 16 * k, sec[which][1], 8);
		bb_set(&b, 0x20 + 16 * k, sec[which][0], 8);
	}
	if (flags & TW_DRAFT_FOOTER)
		bb_raw(&b, "nmBDFORP", 8);
	return bb_done(&b, out);
}
