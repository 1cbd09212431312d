/* Test-data writer: old HPCToolkit databases, experiment.xml with one
 * .metric-db record per thread or the records packed into one
 * experiment-1.mdb (see writer.h, "HPCToolkit experiment.xml databases").
 * Big-endian, written byte by byte. Compiled into the executables that use
 * it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "writer.h"

static void put_be(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

int tw_mdb_record(tw_blob *out, uint32_t n_rows, uint32_t n_metrics, const double *values)
{
	size_t cells = (size_t)n_rows * n_metrics;
	out->size = 32 + 8 * cells;
	out->data = calloc(1, out->size);
	if (!out->data)
		return -ENOMEM;
	memcpy(out->data, "HPCPROF-metricdb__00.10b", 24);
	put_be(out->data + 24, n_rows, 4);
	put_be(out->data + 28, n_metrics, 4);
	for (size_t k = 0; k < cells; k++) {
		uint64_t bits;
		memcpy(&bits, &values[k], 8);
		put_be(out->data + 32 + 8 * k, bits, 8);
	}
	return 0;
}

int tw_mdb_packed(tw_blob *out, uint32_t n, const uint32_t *rank, const uint32_t *thread,
                  const tw_blob *records)
{
	size_t size = 8 + 16 * (size_t)n + 8;
	for (uint32_t i = 0; i < n; i++)
		size += records[i].size;
	out->data = calloc(1, size);
	if (!out->data)
		return -ENOMEM;
	out->size = size;
	put_be(out->data, 2, 4);   /* flags as hpcprof wrote them for threads */
	put_be(out->data + 4, n, 4);
	size_t at = 8 + 16 * (size_t)n;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = out->data + 8 + 16 * (size_t)i;
		put_be(e, rank[i], 4);
		put_be(e + 4, thread[i], 4);
		put_be(e + 8, at, 8);
		memcpy(out->data + at, records[i].data, records[i].size);
		at += records[i].size;
	}
	memcpy(out->data + at, "\xff\xff\xff\xff\xde\xad\xf0\x0d", 8);
	return 0;
}

/* The sample tree: ids 2..7 (row 0 is the experiment root, id 1).
 *   PF 2 main          C 3 line 5      PF 4 work (a loop 5 with S 6)
 *   S 7 main's line 9 */
static const char sample_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<HPCToolkitExperiment version=\"2.2\">\n"
	"<Header n=\"sample\"><Info/></Header>\n"
	"<SecCallPathProfile i=\"0\" n=\"sample\">\n<SecHeader>\n<MetricTable>\n"
	"<Metric i=\"2\" n=\"time:Sum (I)\" v=\"derived-incr\" t=\"inclusive\" partner=\"3\" "
	"show=\"1\" show-percent=\"1\">\n"
	"<MetricFormula t=\"combine\" frm=\"sum($2, $2)\"/><MetricFormula t=\"finalize\" "
	"frm=\"$2\"/>\n<Info><NV n=\"units\" v=\"events\"/></Info></Metric>\n"
	"<Metric i=\"3\" n=\"time:Sum (E)\" v=\"derived-incr\" t=\"exclusive\" partner=\"2\" "
	"show=\"1\" show-percent=\"1\">\n"
	"<MetricFormula t=\"combine\" frm=\"sum($3, $3)\"/><MetricFormula t=\"finalize\" "
	"frm=\"$3\"/>\n<Info><NV n=\"units\" v=\"events\"/></Info></Metric>\n"
	"</MetricTable>\n<MetricDBTable>\n"
	"<MetricDB i=\"0\" n=\"time (I)\" t=\"inclusive\" partner=\"1\" db-glob=\"*.metric-db\" "
	"db-id=\"0\" db-num-metrics=\"2\" db-header-sz=\"24\"/>\n"
	"<MetricDB i=\"1\" n=\"time (E)\" t=\"exclusive\" partner=\"0\" db-glob=\"*.metric-db\" "
	"db-id=\"1\" db-num-metrics=\"2\" db-header-sz=\"24\"/>\n"
	"</MetricDBTable>\n"
	"<LoadModuleTable><LoadModule i=\"10\" n=\"/bin/app\"/></LoadModuleTable>\n"
	"<FileTable><File i=\"11\" n=\"./src/app.c\"/></FileTable>\n"
	"<ProcedureTable><Procedure i=\"12\" n=\"main\"/><Procedure i=\"13\" n=\"work\"/>"
	"</ProcedureTable>\n<Info/>\n</SecHeader>\n<SecCallPathProfileData>\n"
	"<M n=\"2\" v=\"30\"/>\n"
	"<PF i=\"2\" s=\"12\" l=\"3\" lm=\"10\" f=\"11\" n=\"12\">\n"
	"<M n=\"2\" v=\"30\"/><M n=\"3\" v=\"7.5\"/>\n"
	"<C i=\"3\" s=\"20\" l=\"5\">\n<M n=\"2\" v=\"22.5\"/>\n"
	"<Pr i=\"4\" s=\"13\" l=\"20\" lm=\"10\" f=\"11\" n=\"13\" a=\"1\">\n<M n=\"2\" v=\"22.5\"/>\n"
	"<L i=\"5\" s=\"21\" l=\"21\" f=\"11\">\n<M n=\"2\" v=\"22.5\"/>\n"
	"<S i=\"6\" s=\"22\" l=\"22\">\n<M n=\"2\" v=\"22.5\"/><M n=\"3\" v=\"22.5\"/>\n</S>\n"
	"</L>\n</Pr>\n</C>\n"
	"<S i=\"7\" s=\"23\" l=\"9\">\n<M n=\"2\" v=\"7.5\"/><M n=\"3\" v=\"7.5\"/>\n</S>\n"
	"</PF>\n</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n";

const char *tw_xmldb_sample_xml(void)
{
	return sample_xml;
}

/* Thread t's value at row r (context r + 1), column k: the sample's
 * printed summary is the sum over the two threads. */
double tw_xmldb_value(uint32_t t, uint32_t r, uint32_t k)
{
	/* inclusive: root, main 10+20 = 30; call, work, loop, line 6: 22.5;
	 * line 7: 7.5. exclusive only at main (7.5), 6 (22.5), 7 (7.5). */
	static const double incl[TW_XMLDB_ROWS] = {10, 10, 7.5, 7.5, 7.5, 7.5, 2.5};
	static const double excl[TW_XMLDB_ROWS] = {0, 2.5, 0, 0, 0, 7.5, 2.5};
	double v = k == 0 ? incl[r] : excl[r];
	return t == 0 ? v : 2 * v;
}

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	int r = fwrite(data, 1, size, f) == size ? 0 : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

int tw_xmldb_write_dir(const char *dir, int packed)
{
	static const char *const names[2] = {"1.app-000000-000-7f000001-100-0.metric-db",
	                                     "1.app-000000-001-7f000001-100-0.metric-db"};
	double v[TW_XMLDB_ROWS * 2];
	tw_blob rec[2] = {{NULL, 0}, {NULL, 0}}, pack = {NULL, 0};
	int r = 0;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return -errno;
	for (uint32_t t = 0; t < 2 && r == 0; t++) {
		for (uint32_t row = 0; row < TW_XMLDB_ROWS; row++)
			for (uint32_t k = 0; k < 2; k++)
				v[row * 2 + k] = tw_xmldb_value(t, row, k);
		r = tw_mdb_record(&rec[t], TW_XMLDB_ROWS, 2, v);
	}
	if (r == 0)
		r = write_file(dir, "experiment.xml", sample_xml, sizeof sample_xml - 1);
	if (r == 0 && packed) {
		static const uint32_t rank[2] = {0, 0}, thread[2] = {0, 1};
		r = tw_mdb_packed(&pack, 2, rank, thread, rec);
		if (r == 0)
			r = write_file(dir, "experiment-1.mdb", pack.data, pack.size);
	}
	for (uint32_t t = 0; t < 2 && r == 0 && !packed; t++)
		r = write_file(dir, names[t], rec[t].data, rec[t].size);
	tw_blob_free(&rec[0]);
	tw_blob_free(&rec[1]);
	tw_blob_free(&pack);
	return r;
}
