/* Test-data writer for Cube4 .cubex archives: a minimal ustar writer and one
 * sample archive whose every value is known (writer.h describes it). Written
 * byte by byte, so the output does not depend on the host. */
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "writer.h"
#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif

/* ---- bytes ------------------------------------------------------------------ */

static int put(tw_blob *b, const void *p, size_t n)
{
	unsigned char *d = realloc(b->data, b->size + n + 1);
	if (!d)
		return -ENOMEM;
	b->data = d;
	if (n)
		memcpy(d + b->size, p, n);
	b->size += n;
	return 0;
}

static int put_zero(tw_blob *b, size_t n)
{
	unsigned char *d = realloc(b->data, b->size + n + 1);
	if (!d)
		return -ENOMEM;
	b->data = d;
	memset(d + b->size, 0, n);
	b->size += n;
	return 0;
}

static int put_u(tw_blob *b, uint64_t v, int bytes, int be)
{
	unsigned char t[8];
	for (int i = 0; i < bytes; i++)
		t[be ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
	return put(b, t, (size_t)bytes);
}

static int put_f64(tw_blob *b, double d, int be)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	return put_u(b, v, 8, be);
}

static int putf(tw_blob *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(tw_blob *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf)
		return -EINVAL;
	return put(b, buf, (size_t)n);
}

/* ---- tar --------------------------------------------------------------------- */

int tw_tar_add(tw_blob *tar, const char *name, const void *data, size_t size, int cubew_pad,
               int bad_checksum)
{
	unsigned char h[512];
	memset(h, 0, sizeof h);
	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000600", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	memcpy(h + 136, "14500000000", 12);
	h[156] = bad_checksum ? 0 : '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "nouser", 7);
	memcpy(h + 297, "users", 6);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	if (bad_checksum)
		sum -= 32;
	char ck[8];
	snprintf(ck, sizeof ck, "%06o", sum);
	memcpy(h + 148, ck, 7); /* six digits, NUL, and the space already there */
	int r;
	if ((r = put(tar, h, 512)) < 0 || (r = put(tar, data, size)) < 0)
		return r;
	size_t pad = (512 - size % 512) % 512;
	if (cubew_pad && size % 512 == 0)
		pad = 512;
	return put_zero(tar, pad);
}

int tw_tar_end(tw_blob *tar)
{
	return put_zero(tar, 1024);
}

/* ---- the sample ------------------------------------------------------------------ */

static const uint32_t deep_order[TW_CUBE_CNODES] = {3, 0, 4, 1, 2};
static const uint32_t wide_order[TW_CUBE_CNODES] = {3, 0, 1, 4, 2};
static const uint32_t id_order[TW_CUBE_CNODES] = {0, 1, 2, 3, 4};

/* Per metric: dtype size, kind (1 inclusive), the cnode without a row in
 * sparse mode (UINT32_MAX: none), whether it has data. */
static const struct {
	int vsize, inclusive, has_data;
	uint32_t missing;
} spec[TW_CUBE_METRICS] = {
	{8, 0, 1, 2}, {8, 0, 1, 4}, {8, 1, 1, UINT32_MAX}, {4, 0, 0, UINT32_MAX}, {2, 0, 1, 1},
};

static double neutral_of(uint32_t m)
{
	return m == 1 ? DBL_MAX : 0.0;
}

static double raw_value(uint32_t m, uint32_t c, uint32_t l)
{
	double base = (double)(c * 10 + l);
	switch (m) {
	case 0: return base + 0.25;
	case 1: return 100 + base + 0.5;
	case 2: return 200 + base;
	case 4: return -base;
	default: return 0;
	}
}

int tw_cube_expected(unsigned flags, uint32_t m, uint32_t c, uint32_t l, double *value)
{
	*value = m < TW_CUBE_METRICS ? neutral_of(m) : 0;
	if (m >= TW_CUBE_METRICS || c >= TW_CUBE_CNODES || l >= TW_CUBE_LOCATIONS ||
	    !spec[m].has_data)
		return 0;
	if (c == spec[m].missing) {
		if (!(flags & TW_CUBE_DENSE))
			return 0;
		return 1; /* a dense index stores the neutral value */
	}
	if ((flags & TW_CUBE_SHORT_DATA) && m == 2 && !(flags & TW_CUBE_DENSE) &&
	    c == wide_order[TW_CUBE_CNODES - 1])
		return 0;
	*value = raw_value(m, c, l);
	return 1;
}

char *tw_cube_anchor(unsigned flags)
{
	tw_blob b = {NULL, 0};
	int r = 0;
	r |= putf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n");
	r |= putf(&b, "<attr key=\"Creator\" value=\"profdb test writer\"/>\n");
	r |= putf(&b, "<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n");
	r |= putf(&b, "<doc><mirrors><murl>http://example.org/</murl></mirrors></doc>\n<metrics>\n");
	r |= putf(&b, "<metric id=\"0\" type=\"EXCLUSIVE\"><disp_name>Time</disp_name>"
	              "<uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></url>"
	              "<descr>Time &amp; more</descr>\n");
	r |= putf(&b, "  <metric id=\"1\" type=\"EXCLUSIVE\"><disp_name>Minimum time</disp_name>"
	              "<uniq_name>mintime</uniq_name><dtype>MINDOUBLE</dtype><uom>sec</uom>"
	              "<descr>min</descr></metric>\n</metric>\n");
	r |= putf(&b, "<metric id=\"2\" type=\"INCLUSIVE\"><disp_name>Visits</disp_name>"
	              "<uniq_name>visits</uniq_name><dtype>UINT64</dtype><uom>occ</uom>"
	              "<descr>v</descr></metric>\n");
	r |= putf(&b, "<metric id=\"3\"><disp_name>Bytes</disp_name><uniq_name>bytes</uniq_name>"
	              "<dtype>INT32</dtype><uom>bytes</uom><descr>b</descr></metric>\n");
	r |= putf(&b, "<metric id=\"4\" type=\"%s\"><disp_name>Small</disp_name>"
	              "<uniq_name>small</uniq_name><dtype>INT16</dtype><uom></uom>"
	              "<descr>s</descr></metric>\n",
	          (flags & TW_CUBE_SIMPLE) ? "SIMPLE" : "EXCLUSIVE");
	if (flags & TW_CUBE_DERIVED)
		r |= putf(&b, "<metric id=\"5\" type=\"POSTDERIVED\"><disp_name>Ratio</disp_name>"
		              "<uniq_name>ratio</uniq_name><dtype>DOUBLE</dtype><uom></uom>"
		              "<descr>r</descr><cubepl rowwise=false>metric::time()/"
		              "metric::visits()</cubepl><cubeplaggr cubeplaggrtype=plus>arg1 + "
		              "arg2</cubeplaggr></metric>\n");
	r |= putf(&b, "</metrics>\n<program>\n");
	static const char *const rn[TW_CUBE_REGIONS] = {"main", "foo", "bar", "init"};
	for (int i = 0; i < TW_CUBE_REGIONS; i++)
		r |= putf(&b, "<region id=\"%d\" mod=\"a.c\" begin=\"%d\" end=\"%d\"><name>%s</name>"
		              "<mangled_name>%s</mangled_name><paradigm>user</paradigm>"
		              "<role>function</role><url></url><descr></descr></region>\n",
		          i, 10 * i + 1, 10 * i + 9, rn[i], rn[i]);
	r |= putf(&b, "<cnode id=\"3\" calleeId=\"0\">\n <cnode id=\"0\" calleeId=\"1\" line=\"12\" "
	              "mod=\"a.c\">\n  <cnode id=\"4\" calleeId=\"2\"/>\n </cnode>\n"
	              " <cnode id=\"1\" calleeId=\"2\"/>\n</cnode>\n");
	r |= putf(&b, "<cnode id=\"2\" calleeId=\"3\"><parameter partype=\"numeric\" parkey=\"n\" "
	              "parvalue=\"128\"/><parameter partype=\"string\" parkey=\"mode\" "
	              "parvalue=\"fast\"/><attr key=\"note\" value=\"init &amp; setup\"/></cnode>\n"
	              "</program>\n");
	r |= putf(&b, "<system>\n<systemtreenode Id=\"0\"><name>cluster</name><class>machine</class>\n"
	              "<systemtreenode Id=\"1\"><name>node0</name><class>node</class>\n");
	r |= putf(&b, "<locationgroup Id=\"0\"><name>rank 0</name><rank>0</rank><type>process</type>\n"
	              "<location Id=\"0\"><name>thread 0</name><rank>0</rank><type>thread</type>"
	              "</location>\n<location Id=\"2\"><name>thread 1</name><rank>1</rank>"
	              "<type>thread</type></location>\n</locationgroup>\n");
	r |= putf(&b, "<locationgroup Id=\"1\"><name>rank 1</name><rank>1</rank><type>process</type>\n"
	              "<location Id=\"1\"><name>thread 0</name><rank>0</rank><type>thread</type>"
	              "<attr key=\"gpu\" value=\"no\"/></location>\n</locationgroup>\n"
	              "</systemtreenode>\n</systemtreenode>\n");
	r |= putf(&b, "<topologies><cart name=\"Process x Thread\" ndims=\"2\">"
	              "<dim name=\"Process\" size=\"2\" periodic=\"false\"/>"
	              "<dim name=\"Thread\" size=\"2\" periodic=\"true\"/>"
	              "<coord locId=\"0\">0 0</coord><coord locId=\"2\">0 1</coord>"
	              "<coord locId=\"1\">1 0</coord></cart>\n"
	              "<cart ndims=\"1\"><dim size=\"2\"/><coord lgId=\"1\">1</coord>"
	              "<coord stnId=\"1\">0</coord></cart></topologies>\n");
	r |= putf(&b, "</system>\n</cube>\n");
	r |= put(&b, "", 1);
	if (r) {
		free(b.data);
		return NULL;
	}
	return (char *)b.data;
}

#ifdef PROFDB_HAVE_ZLIB
static int gzip_blob(const unsigned char *p, size_t n, tw_blob *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	size_t cap = deflateBound(&z, (uLong)n) + 32;
	out->data = malloc(cap);
	out->size = 0;
	if (!out->data) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = out->data;
	z.avail_out = (uInt)cap;
	int zr = deflate(&z, Z_FINISH);
	out->size = cap - z.avail_out;
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}
#endif

/* The rows of metric m in position order, for the chosen index. */
static int metric_members(unsigned flags, uint32_t m, tw_blob *index, tw_blob *data)
{
	int be = (flags & TW_CUBE_BIG_ENDIAN) != 0;
	const uint32_t *order = spec[m].inclusive ? wide_order : deep_order;
	if ((flags & TW_CUBE_SIMPLE) && m == 4)
		order = id_order;
	uint32_t rows[TW_CUBE_CNODES], nrows = 0;
	int r = 0;
	for (uint32_t p = 0; p < TW_CUBE_CNODES; p++) {
		if (!(flags & TW_CUBE_DENSE) && order[p] == spec[m].missing)
			continue;
		rows[nrows++] = p;
	}
	r |= put(index, "CUBEX.INDEX", 11);
	r |= put_u(index, 1, 4, be);
	r |= put_u(index, 0, 2, be);
	if (flags & TW_CUBE_DENSE) {
		r |= put_u(index, 3, 1, be);
	} else {
		r |= put_u(index, 1, 1, be);
		r |= put_u(index, (flags & TW_CUBE_ABSURD_COUNT) && m == 0 ? 0x7fffffffu : nrows, 4, be);
		for (uint32_t k = 0; k < nrows; k++)
			r |= put_u(index, (flags & TW_CUBE_BAD_POSITION) && m == 0 && k == nrows - 1
			                      ? TW_CUBE_CNODES : rows[k], 4, be);
	}
	/* rows */
	tw_blob rowbuf[TW_CUBE_CNODES];
	memset(rowbuf, 0, sizeof rowbuf);
	for (uint32_t k = 0; k < nrows; k++) {
		uint32_t c = order[rows[k]];
		for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++) {
			double v = c == spec[m].missing ? neutral_of(m) : raw_value(m, c, l);
			if (m == 2)
				r |= put_u(&rowbuf[k], (uint64_t)v, 8, be);
			else if (m == 4)
				r |= put_u(&rowbuf[k], (uint64_t)(int64_t)v, 2, be);
			else
				r |= put_f64(&rowbuf[k], v, be);
		}
	}
	if ((flags & TW_CUBE_SHORT_DATA) && m == 2 && !(flags & TW_CUBE_DENSE))
		nrows--; /* the index still names the row */
	if (flags & TW_CUBE_ZCUBEX) {
#ifdef PROFDB_HAVE_ZLIB
		tw_blob blocks = {NULL, 0};
		uint64_t so[TW_CUBE_CNODES], ss[TW_CUBE_CNODES];
		for (uint32_t k = nrows; k-- > 0;) { /* reverse order: offsets matter */
			uLongf cl = compressBound((uLong)rowbuf[k].size);
			unsigned char *tmp = malloc(cl);
			if (!tmp || compress2(tmp, &cl, rowbuf[k].data, (uLong)rowbuf[k].size, 6) != Z_OK)
				r |= -EIO;
			so[k] = blocks.size;
			ss[k] = cl;
			if (tmp)
				r |= put(&blocks, tmp, cl);
			free(tmp);
		}
		r |= put(data, "ZCUBEX.DATA", 11);
		r |= put_u(data, nrows, 8, be);
		for (uint32_t k = 0; k < nrows; k++) {
			r |= put_u(data, (uint64_t)k * rowbuf[k].size, 8, be);
			r |= put_u(data, so[k], 8, be);
			r |= put_u(data, ss[k], 8, be);
		}
		r |= put(data, blocks.data, blocks.size);
		free(blocks.data);
#else
		r = -ENOTSUP;
#endif
	} else {
		r |= put(data, "CUBEX.DATA", 10);
		for (uint32_t k = 0; k < nrows; k++)
			r |= put(data, rowbuf[k].data, rowbuf[k].size);
	}
	for (uint32_t k = 0; k < TW_CUBE_CNODES; k++)
		free(rowbuf[k].data);
	return r < 0 ? (r == -ENOTSUP ? r : -ENOMEM) : 0;
}

int tw_cube_write(tw_blob *out, unsigned flags, const char *anchor)
{
	tw_blob tar = {NULL, 0};
	int pad = (flags & TW_CUBE_CUBEW_PAD) != 0, bad = (flags & TW_CUBE_BAD_CHECKSUM) != 0;
	int r = 0;
	out->data = NULL;
	out->size = 0;
#ifndef PROFDB_HAVE_ZLIB
	if (flags & (TW_CUBE_ZCUBEX | TW_CUBE_GZIP_ANCHOR | TW_CUBE_GZIP_ARCHIVE))
		return -ENOTSUP;
#endif
	if (flags & TW_CUBE_EXACT_BLOCK) {
		unsigned char blk[512];
		memset(blk, 'x', sizeof blk);
		r = tw_tar_add(&tar, "padding.bin", blk, sizeof blk, pad, bad);
	}
	static const uint32_t member_order[] = {1, 4, 2, 0, 3};
	for (size_t i = 0; r == 0 && i < sizeof member_order / sizeof member_order[0]; i++) {
		uint32_t m = member_order[i];
		if (!spec[m].has_data)
			continue;
		tw_blob idx = {NULL, 0}, dat = {NULL, 0};
		char name[32];
		r = metric_members(flags, m, &idx, &dat);
		if (r == 0) {
			snprintf(name, sizeof name, "%u.data", m);
			r = tw_tar_add(&tar, name, dat.data, dat.size, pad, bad);
		}
		if (r == 0) {
			snprintf(name, sizeof name, "%u.index", m);
			r = tw_tar_add(&tar, name, idx.data, idx.size, pad, bad);
		}
		free(idx.data);
		free(dat.data);
	}
	if (r == 0 && !(flags & TW_CUBE_NO_ANCHOR)) {
		char *own = anchor ? NULL : tw_cube_anchor(flags);
		const char *text = anchor ? anchor : own;
		if (!text) {
			r = -ENOMEM;
		} else if (flags & TW_CUBE_GZIP_ANCHOR) {
#ifdef PROFDB_HAVE_ZLIB
			tw_blob gz = {NULL, 0};
			r = gzip_blob((const unsigned char *)text, strlen(text), &gz);
			if (r == 0)
				r = tw_tar_add(&tar, "anchor.xml", gz.data, gz.size, pad, bad);
			free(gz.data);
#endif
		} else {
			r = tw_tar_add(&tar, "anchor.xml", text, strlen(text), pad, bad);
		}
		free(own);
	}
	if (r == 0)
		r = tw_tar_end(&tar);
	if (r == 0 && (flags & TW_CUBE_GZIP_ARCHIVE)) {
#ifdef PROFDB_HAVE_ZLIB
		tw_blob gz = {NULL, 0};
		r = gzip_blob(tar.data, tar.size, &gz);
		free(tar.data);
		tar = gz;
#endif
	}
	if (r < 0) {
		free(tar.data);
		return r;
	}
	*out = tar;
	return 0;
}

/* ---- the structured-dtype sample (writer.h) ------------------------------------------- */

/* Metric m: dtype text, 1 if INCLUSIVE, doubles per cell (TAU_ATOMIC: its
 * five fields, the first written as u32), and the cnode without a row
 * (UINT32_MAX: none). */
static const struct {
	const char *dtype;
	int inclusive, fields;
	uint32_t missing;
} dt_spec[TW_CUBE_DT_METRICS] = {
	{"COMPLEX", 0, 2, UINT32_MAX},      {"RATE", 0, 2, 2},
	{"TAU_ATOMIC", 0, 5, UINT32_MAX},   {"HISTOGRAM(4)", 0, 6, UINT32_MAX},
	{"NDOUBLES(3)", 0, 3, 2},           {"RATE", 1, 2, UINT32_MAX},
	{"TAU_ATOMIC", 1, 5, UINT32_MAX},   {"SCALE_FUNC", 0, 0, UINT32_MAX},
	{"HISTOGRAM(4)", 1, 6, UINT32_MAX},
};

#define NO_MIN DBL_MAX
#define NO_MAX (-DBL_MAX)

/* dt_cells[metric][cnode][location]: the stored fields (tests/test-cube.c
 * derives its expected aggregates from these by hand). */
static const double dt_cells[TW_CUBE_DT_METRICS][TW_CUBE_DT_CNODES][TW_CUBE_DT_LOCATIONS][6] = {
	{{{1, 2}, {3, 4}}, {{0.5, -1}, {2, 0}}, {{1, 1}, {0, 0}}},
	{{{6, 2}, {1, 4}}, {{3, 3}, {2, 1}}, {{0}, {0}}},
	{{{2, 1, 3, 4, 10}, {1, 5, 5, 5, 25}}, {{3, 0.5, 2, 3.5, 5.25}, {0, 0, 0, 0, 0}},
	 {{1, 7, 7, 7, 49}, {2, -1, 1, 0, 2}}},
	{{{0, 4, 1, 1, 1, 1}, {0, 2, 1, 2, 3, 4}}, {{0, 8, 2, 0, 0, 2}, {1, 3, 4, 0, 0, 0}},
	 {{NO_MIN, NO_MAX, 5, 5, 5, 5}, {2, 6, 0, 0, 8, 0}}},
	{{{1, 2, 3}, {4, 5, 6}}, {{10, 20, 30}, {0, 0, 0}}, {{0}, {0}}},
	{{{10, 2}, {8, 4}}, {{3, 1}, {2, 2}}, {{1, 4}, {1, 1}}},
	{{{5, 0.5, 9, 20, 100}, {1, 1, 1, 1, 1}}, {{2, 1, 9, 12, 80}, {3, 1, 1, 3, 3}},
	 {{1, 2, 2, 2, 4}, {0, 0, 0, 0, 0}}},
	{{{0}}},
	{{{0, 4, 1, 2, 3, 4}, {0, 4, 1, 2, 3, 4}}, {{0, 4, 1, 2, 3, 4}, {0, 4, 1, 2, 3, 4}},
	 {{0, 4, 1, 2, 3, 4}, {0, 4, 1, 2, 3, 4}}},
};

static int dt_cell(tw_blob *b, uint32_t m, uint32_t c, uint32_t l, int be)
{
	const double *v = dt_cells[m][c][l];
	if (dt_spec[m].fields == 0)
		return put_zero(b, 848); /* SCALE_FUNC: opaque */
	int r = 0, first = 0;
	if (!strcmp(dt_spec[m].dtype, "TAU_ATOMIC")) {
		r |= put_u(b, (uint64_t)v[0], 4, be); /* packed: u32 N, then doubles */
		first = 1;
	}
	for (int f = first; f < dt_spec[m].fields; f++)
		r |= put_f64(b, v[f], be);
	return r;
}

static char *dt_anchor(void)
{
	tw_blob b = {NULL, 0};
	int r = putf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
	                 "<metrics>\n");
	for (uint32_t m = 0; m < TW_CUBE_DT_METRICS; m++)
		r |= putf(&b, "<metric id=\"%u\" type=\"%s\"><disp_name>m%u</disp_name>"
		              "<uniq_name>m%u</uniq_name><dtype>%s</dtype><uom></uom><descr></descr>"
		              "</metric>\n", m, dt_spec[m].inclusive ? "INCLUSIVE" : "EXCLUSIVE", m,
		          m, dt_spec[m].dtype);
	r |= putf(&b, "</metrics>\n<program>\n");
	for (int i = 0; i < TW_CUBE_DT_CNODES; i++)
		r |= putf(&b, "<region id=\"%d\" mod=\"d.c\"><name>r%d</name></region>\n", i, i);
	r |= putf(&b, "<cnode id=\"0\" calleeId=\"0\"><cnode id=\"1\" calleeId=\"1\"/>"
	              "<cnode id=\"2\" calleeId=\"2\"/></cnode>\n</program>\n<system>\n"
	              "<systemtreenode Id=\"0\"><name>m</name><class>machine</class>\n"
	              "<locationgroup Id=\"0\"><name>p</name><rank>0</rank><type>process</type>\n"
	              "<location Id=\"0\"><name>t0</name><rank>0</rank><type>thread</type>"
	              "</location>\n<location Id=\"1\"><name>t1</name><rank>1</rank>"
	              "<type>thread</type></location>\n</locationgroup>\n</systemtreenode>\n"
	              "</system>\n</cube>\n");
	r |= put(&b, "", 1);
	if (r) {
		free(b.data);
		return NULL;
	}
	return (char *)b.data;
}

int tw_cube_write_dtypes(tw_blob *out, unsigned flags)
{
	int be = (flags & TW_CUBE_BIG_ENDIAN) != 0, r = 0;
	tw_blob tar = {NULL, 0};
	out->data = NULL;
	out->size = 0;
	/* a root with two leaves: deep and wide order are both 0, 1, 2 */
	for (uint32_t m = 0; m < TW_CUBE_DT_METRICS && r == 0; m++) {
		tw_blob idx = {NULL, 0}, dat = {NULL, 0};
		uint32_t n = 0;
		for (uint32_t c = 0; c < TW_CUBE_DT_CNODES; c++)
			n += c != dt_spec[m].missing;
		r |= put(&idx, "CUBEX.INDEX", 11);
		r |= put_u(&idx, 1, 4, be);
		r |= put_u(&idx, 0, 2, be);
		r |= put_u(&idx, 1, 1, be);
		r |= put_u(&idx, n, 4, be);
		r |= put(&dat, "CUBEX.DATA", 10);
		for (uint32_t c = 0; c < TW_CUBE_DT_CNODES; c++) {
			if (c == dt_spec[m].missing)
				continue;
			r |= put_u(&idx, c, 4, be);
			for (uint32_t l = 0; l < TW_CUBE_DT_LOCATIONS; l++)
				r |= dt_cell(&dat, m, c, l, be);
		}
		char name[32];
		snprintf(name, sizeof name, "%u.data", m);
		if (r == 0)
			r = tw_tar_add(&tar, name, dat.data, dat.size, 0, 0);
		snprintf(name, sizeof name, "%u.index", m);
		if (r == 0)
			r = tw_tar_add(&tar, name, idx.data, idx.size, 0, 0);
		free(idx.data);
		free(dat.data);
	}
	char *anchor = r == 0 ? dt_anchor() : NULL;
	if (r == 0 && !anchor)
		r = -ENOMEM;
	if (r == 0)
		r = tw_tar_add(&tar, "anchor.xml", anchor, strlen(anchor), 0, 0);
	free(anchor);
	if (r == 0)
		r = tw_tar_end(&tar);
	if (r < 0) {
		free(tar.data);
		return r < 0 ? r : -ENOMEM;
	}
	*out = tar;
	return 0;
}

/* ---- a large synthetic archive, streamed to a file (writer.h) ------------------------- */

static int big_header(FILE *f, const char *name, uint64_t size)
{
	tw_blob h = {NULL, 0};
	/* tw_tar_add with no data writes the header alone (and no padding) */
	int r = tw_tar_add(&h, name, NULL, 0, 0, 0);
	if (r == 0) {
		snprintf((char *)h.data + 124, 12, "%011llo", (unsigned long long)size);
		memset(h.data + 148, ' ', 8);
		unsigned sum = 0;
		for (int i = 0; i < 512; i++)
			sum += h.data[i];
		char ck[8];
		snprintf(ck, sizeof ck, "%06o", sum);
		memcpy(h.data + 148, ck, 7);
		r = fwrite(h.data, 1, 512, f) == 512 ? 0 : -EIO;
	}
	free(h.data);
	return r;
}

static int big_pad(FILE *f, uint64_t size)
{
	static const unsigned char zero[512];
	size_t pad = (size_t)((512 - size % 512) % 512);
	return fwrite(zero, 1, pad, f) == pad ? 0 : -EIO;
}

double tw_cube_big_value(uint32_t metric, uint32_t cnode, uint32_t location)
{
	double v = (double)cnode * 0.5 + (double)location * 0.001;
	return metric == 0 ? v : (double)(uint64_t)(v * 2);
}

/* Cnode i's children are 8i+1 .. 8i+8: the XML depth first, and the deep
 * (document) order that addresses the rows. */
static void big_tree(FILE *f, uint32_t i, uint32_t n, uint32_t *deep, uint32_t *k)
{
	deep[(*k)++] = i;
	if (f)
		fprintf(f, "<cnode id=\"%u\" calleeId=\"%u\">", i, i % 64);
	for (uint32_t ch = 8 * i + 1; ch <= 8 * i + 8 && ch < n; ch++)
		big_tree(f, ch, n, deep, k);
	if (f)
		fprintf(f, "</cnode>\n");
}

static void big_row(uint32_t m, uint32_t cnode, uint32_t nl, unsigned char *row)
{
	for (uint32_t l = 0; l < nl; l++) {
		double v = tw_cube_big_value(m, cnode, l);
		uint64_t u;
		if (m == 0)
			memcpy(&u, &v, 8);
		else
			u = (uint64_t)v;
		for (int b = 0; b < 8; b++) /* little-endian, whatever the host */
			row[(size_t)l * 8 + (size_t)b] = (unsigned char)(u >> (8 * b));
	}
}

static int big_copy(FILE *from, FILE *to)
{
	char buf[1 << 16];
	size_t got;
	rewind(from);
	while ((got = fread(buf, 1, sizeof buf, from)) > 0)
		if (fwrite(buf, 1, got, to) != got)
			return -EIO;
	return ferror(from) ? -EIO : 0;
}

/* Metric m's data member: plain rows, or ZCUBEX (one zlib block per row,
 * staged in a temporary file to learn the member size). */
static int big_data(FILE *f, uint32_t m, uint32_t nc, uint32_t nl, const uint32_t *deep,
                    int zipped, unsigned char *row)
{
	size_t rb = (size_t)nl * 8;
	char name[32];
	snprintf(name, sizeof name, "%u.data", m);
	int r = 0;
	if (!zipped) {
		uint64_t size = 10 + (uint64_t)nc * rb;
		r |= big_header(f, name, size);
		r |= fwrite("CUBEX.DATA", 1, 10, f) != 10 ? -EIO : 0;
		for (uint32_t p = 0; p < nc && r == 0; p++) {
			big_row(m, deep[p], nl, row);
			r |= fwrite(row, 1, rb, f) != rb ? -EIO : 0;
		}
		return r ? r : big_pad(f, size);
	}
#ifdef PROFDB_HAVE_ZLIB
	FILE *blocks = tmpfile();
	uint64_t *size = calloc((size_t)nc + 1, sizeof *size), pos = 0;
	uLongf cap = compressBound((uLong)rb);
	unsigned char *z = malloc(cap);
	if (!blocks || !size || !z)
		r = -ENOMEM;
	for (uint32_t p = 0; p < nc && r == 0; p++) {
		uLongf cl = cap;
		big_row(m, deep[p], nl, row);
		if (compress2(z, &cl, row, (uLong)rb, Z_BEST_SPEED) != Z_OK ||
		    fwrite(z, 1, cl, blocks) != cl)
			r = -EIO;
		size[p] = cl;
	}
	tw_blob head = {NULL, 0};
	r |= put(&head, "ZCUBEX.DATA", 11);
	r |= put_u(&head, nc, 8, 0);
	for (uint32_t p = 0; p < nc && r == 0; p++) {
		r |= put_u(&head, (uint64_t)p * rb, 8, 0);
		r |= put_u(&head, pos, 8, 0);
		r |= put_u(&head, size[p], 8, 0);
		pos += size[p];
	}
	uint64_t total = head.size + pos;
	if (r == 0)
		r = big_header(f, name, total);
	if (r == 0)
		r = fwrite(head.data, 1, head.size, f) == head.size ? 0 : -EIO;
	if (r == 0)
		r = big_copy(blocks, f);
	if (r == 0)
		r = big_pad(f, total);
	free(head.data);
	free(z);
	free(size);
	if (blocks)
		fclose(blocks);
	return r;
#else
	(void)deep, (void)row;
	return -ENOTSUP;
#endif
}

static int big_anchor(FILE *f, uint32_t nc, uint32_t nl, uint32_t *deep)
{
	FILE *a = tmpfile();
	if (!a)
		return -EIO;
	fprintf(a, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
	        "<metrics><metric id=\"0\" type=\"EXCLUSIVE\"><uniq_name>time</uniq_name>"
	        "<dtype>DOUBLE</dtype></metric><metric id=\"1\" type=\"EXCLUSIVE\">"
	        "<uniq_name>visits</uniq_name><dtype>UINT64</dtype></metric></metrics>\n"
	        "<program>\n");
	for (uint32_t g = 0; g < 64; g++)
		fprintf(a, "<region id=\"%u\" mod=\"s.c\"><name>f%u</name></region>\n", g, g);
	uint32_t k = 0;
	big_tree(a, 0, nc, deep, &k);
	fprintf(a, "</program>\n<system><systemtreenode Id=\"0\"><name>m</name><class>machine"
	        "</class>\n");
	for (uint32_t l = 0; l < nl; l++) {
		if (l % 16 == 0)
			fprintf(a, "<locationgroup Id=\"%u\"><name>rank %u</name><rank>%u</rank>"
			        "<type>process</type>\n", l / 16, l / 16, l / 16);
		fprintf(a, "<location Id=\"%u\"><name>t</name><rank>%u</rank><type>thread</type>"
		        "</location>\n", l, l % 16);
		if (l % 16 == 15 || l + 1 == nl)
			fprintf(a, "</locationgroup>\n");
	}
	fprintf(a, "</systemtreenode></system>\n</cube>\n");
	long asz = ftell(a);
	int r = asz < 0 || ferror(a) ? -EIO : big_header(f, "anchor.xml", (uint64_t)asz);
	if (r == 0)
		r = big_copy(a, f);
	if (r == 0)
		r = big_pad(f, (uint64_t)asz);
	fclose(a);
	return r;
}

int tw_cube_write_big(const char *path, uint32_t nc, uint32_t nl, unsigned flags)
{
	if (nc == 0 || nl == 0)
		return -EINVAL;
#ifndef PROFDB_HAVE_ZLIB
	if (flags & TW_CUBE_ZCUBEX)
		return -ENOTSUP;
#endif
	FILE *f = fopen(path, "wb");
	uint32_t *deep = malloc((size_t)nc * sizeof *deep), k = 0;
	unsigned char *row = malloc((size_t)nl * 8);
	int r = f && deep && row ? 0 : -ENOMEM;
	if (r == 0)
		big_tree(NULL, 0, nc, deep, &k);
	static const unsigned char idx[18] = {'C', 'U', 'B', 'E', 'X', '.', 'I', 'N', 'D',
	                                      'E', 'X', 1, 0, 0, 0, 0, 0, 3}; /* DENSE */
	for (uint32_t m = 0; m < 2 && r == 0; m++) {
		r = big_data(f, m, nc, nl, deep, (flags & TW_CUBE_ZCUBEX) != 0, row);
		char name[32];
		snprintf(name, sizeof name, "%u.index", m);
		if (r == 0)
			r = big_header(f, name, sizeof idx);
		if (r == 0)
			r = fwrite(idx, 1, sizeof idx, f) == sizeof idx ? 0 : -EIO;
		if (r == 0)
			r = big_pad(f, sizeof idx);
	}
	if (r == 0)
		r = big_anchor(f, nc, nl, deep);
	static const unsigned char end[1024];
	if (r == 0)
		r = fwrite(end, 1, sizeof end, f) == sizeof end ? 0 : -EIO;
	if (f && fclose(f) != 0 && r == 0)
		r = -EIO;
	free(deep);
	free(row);
	return r;
}
