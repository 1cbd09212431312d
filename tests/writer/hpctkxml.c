/* Test-data writer: old HPCToolkit databases, experiment.xml with one
 * .metric-db record per thread or the records packed into one
 * experiment-1.mdb, and optionally one hpcrun trace per thread, loose
 * (*.hpctrace) or packed into experiment.mt (see writer.h, "HPCToolkit
 * experiment.xml databases").
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
	uint32_t kind = 0;
	for (uint32_t i = 0; i < n; i++) {
		size += records[i].size;
		kind |= (rank[i] != 0 ? 1u : 0u) | (thread[i] != 0 ? 2u : 0u);
	}
	out->data = calloc(1, size);
	if (!out->data)
		return -ENOMEM;
	out->size = size;
	put_be(out->data, kind, 4);   /* 1: several processes, 2: several threads */
	put_be(out->data + 4, n, 4);
	size_t at = 8 + 16 * (size_t)n;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = out->data + 8 + 16 * (size_t)i;
		put_be(e, rank[i], 4);
		put_be(e + 4, thread[i], 4);
		put_be(e + 8, at, 8);
		if (records[i].size)
			memcpy(out->data + at, records[i].data, records[i].size);
		at += records[i].size;
	}
	memcpy(out->data + at, "\xff\xff\xff\xff\xde\xad\xf0\x0d", 8);
	return 0;
}

/* The sample tree: ids 2..7 (row 0 is the experiment root, id 1).
 *   PF 2 main          C 3 line 5      PF 4 work (a loop 5 with S 6)
 *   S 7 main's line 9; trace ids (it) 60 on S 6, 70 on S 7 */
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
	"<TraceDBTable><TraceDB i=\"0\" u=\"1000000000\" db-glob=\"*.hpctrace\" "
	"db-header-sz=\"32\"/></TraceDBTable>\n"
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
	"<S i=\"6\" s=\"22\" l=\"22\" it=\"60\">\n<M n=\"2\" v=\"22.5\"/><M n=\"3\" v=\"22.5\"/>\n</S>\n"
	"</L>\n</Pr>\n</C>\n"
	"<S i=\"7\" s=\"23\" l=\"9\" it=\"70\">\n<M n=\"2\" v=\"7.5\"/><M n=\"3\" v=\"7.5\"/>\n</S>\n"
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

/* Thread t's trace: (time, it) pairs, times in ns. */
static const tw_hpctrace_rec trace0[] = {
	{TW_XMLDB_T0 + 1000, 60, 0}, {TW_XMLDB_T0 + 2000, 70, 0}, {TW_XMLDB_T0 + 2500, 60, 0},
};
static const tw_hpctrace_rec trace1[] = {
	{TW_XMLDB_T0 + 1500, 70, 0}, {TW_XMLDB_T0 + 1500, 70, 0}, {TW_XMLDB_T0 + 3000, 60, 0},
	{TW_XMLDB_T0 + 4000, 70, 0},
};

void tw_xmldb_trace(uint32_t t, const tw_hpctrace_rec **recs, size_t *n)
{
	*recs = t == 0 ? trace0 : trace1;
	*n = t == 0 ? sizeof trace0 / sizeof trace0[0] : sizeof trace1 / sizeof trace1[0];
}

void tw_xmldb_identity(uint32_t t, int flags, uint32_t *rank, uint32_t *thread)
{
	/* ranks: a hybrid run, rank 1 thread 2, so that a swapped field shows */
	*rank = flags & TW_XMLDB_RANKS ? t : 0;
	*thread = flags & TW_XMLDB_RANKS ? 2 * t : t;
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

/* The two threads' files, loose (named as hpcprof and hpcrun name them) or
 * packed into @p packed_name. */
static int write_pair(const char *dir, int flags, const tw_blob blob[2], const char *suffix,
                      const char *packed_name)
{
	uint32_t rank[2], thread[2];
	int r = 0;
	for (uint32_t t = 0; t < 2; t++)
		tw_xmldb_identity(t, flags, &rank[t], &thread[t]);
	if (flags & TW_XMLDB_PACKED) {
		tw_blob pack = {NULL, 0};
		r = tw_mdb_packed(&pack, 2, rank, thread, blob);
		if (r == 0)
			r = write_file(dir, packed_name, pack.data, pack.size);
		tw_blob_free(&pack);
		return r;
	}
	for (uint32_t t = 0; t < 2 && r == 0; t++) {
		char name[128];
		snprintf(name, sizeof name, "1.app-%06u-%03u-7f000001-%u-0%s", rank[t], thread[t],
		         100 + rank[t], suffix);
		r = write_file(dir, name, blob[t].data, blob[t].size);
	}
	return r;
}

int tw_xmldb_write_dir(const char *dir, int flags)
{
	double v[TW_XMLDB_ROWS * 2];
	tw_blob rec[2] = {{NULL, 0}, {NULL, 0}}, tr[2] = {{NULL, 0}, {NULL, 0}};
	int r = 0;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return -errno;
	for (uint32_t t = 0; t < 2 && r == 0; t++) {
		for (uint32_t row = 0; row < TW_XMLDB_ROWS; row++)
			for (uint32_t k = 0; k < 2; k++)
				v[row * 2 + k] = tw_xmldb_value(t, row, k);
		r = tw_mdb_record(&rec[t], TW_XMLDB_ROWS, 2, v);
		if (r == 0 && (flags & TW_XMLDB_TRACES)) {
			const tw_hpctrace_rec *recs;
			size_t n;
			tw_xmldb_trace(t, &recs, &n);
			r = tw_hpctrace_write(0, recs, n, &tr[t]);
		}
	}
	if (r == 0)
		r = write_file(dir, "experiment.xml", sample_xml, sizeof sample_xml - 1);
	if (r == 0 && !(flags & TW_XMLDB_NO_RECORDS))
		r = write_pair(dir, flags, rec, ".metric-db", "experiment-1.mdb");
	if (r == 0 && (flags & TW_XMLDB_TRACES))
		r = write_pair(dir, flags, tr, ".hpctrace", "experiment.mt");
	for (uint32_t t = 0; t < 2; t++) {
		tw_blob_free(&rec[t]);
		tw_blob_free(&tr[t]);
	}
	return r;
}
