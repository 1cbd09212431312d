/* Writes the seed corpora of the pre-release fuzz targets from the test-data
 * writer (tests/writer/hpctkpre.c):
 *   corpus/fuzz-hpctkpre-db/    whole databases, files joined by "#PDBSEP#"
 *   corpus/fuzz-hpctkpre-xml/   experiment.xml documents
 *   corpus/fuzz-hpctk-draft/    draft meta.db files
 *   corpus/fuzz-hpctkpre-mdb/   .metric-db records and a packed .mdb of the
 *                               sample of tests/writer/hpctkxml.c
 * usage: make-corpus-hpctkpre CORPUS-DIR   (meson compile fuzz-hpctkpre-corpus)
 * Every seed is a consistent input: the fuzz-regressions tests run them
 * with --strict. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "drive-hpctk.h"
#include "writer.h"

static const char *root;

static void put(const char *target, const char *name, const tw_blob *parts, int n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, target);
	mkdir(path, 0777);
	snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	for (int k = 0; k < n; k++) {
		if (k)
			fwrite(FUZZ_HPCTK_SEP, 1, FUZZ_HPCTK_SEP_LEN, f);
		if (parts[k].size)
			fwrite(parts[k].data, 1, parts[k].size, f);
	}
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void db_seed(const char *name, const tw_pre *d, int drop_meta, const tw_blob *meta)
{
	tw_blob b[4];
	if (tw_pre_write(d, b) < 0) {
		fprintf(stderr, "%s: writer failed\n", name);
		exit(1);
	}
	tw_blob parts[4] = {b[0], b[1], b[2], b[3]};
	if (drop_meta)
		parts[3] = (tw_blob){NULL, 0};
	if (meta)
		parts[3] = *meta;
	put("fuzz-hpctkpre-db", name, parts, 4);
	for (int k = 0; k < 4; k++)
		tw_blob_free(&b[k]);
}

static void xml_seed(const char *name, const char *text)
{
	tw_blob b = {(unsigned char *)(uintptr_t)text, strlen(text)};
	put("fuzz-hpctkpre-xml", name, &b, 1);
}

/* The records of the experiment.xml sample: each thread's, and both
 * packed (tw_xmldb_write_dir writes the same bytes into a folder). */
static void mdb_seeds(void)
{
	double v[TW_XMLDB_ROWS * 2];
	tw_blob rec[2], pack;
	static const uint32_t rank[2] = {0, 0}, thread[2] = {0, 1};
	static const char *const names[2] = {"thread0", "thread1"};
	for (uint32_t t = 0; t < 2; t++) {
		for (uint32_t r = 0; r < TW_XMLDB_ROWS; r++)
			for (uint32_t k = 0; k < 2; k++)
				v[r * 2 + k] = tw_xmldb_value(t, r, k);
		if (tw_mdb_record(&rec[t], TW_XMLDB_ROWS, 2, v) < 0)
			exit(1);
		put("fuzz-hpctkpre-mdb", names[t], &rec[t], 1);
	}
	if (tw_mdb_packed(&pack, 2, rank, thread, rec) < 0)
		exit(1);
	put("fuzz-hpctkpre-mdb", "packed", &pack, 1);
	tw_blob_free(&pack);
	/* the traces, loose and packed into experiment.mt */
	tw_blob tr[2];
	static const char *const trace_names[2] = {"trace0", "trace1"};
	for (uint32_t t = 0; t < 2; t++) {
		const tw_hpctrace_rec *recs;
		size_t n;
		tw_xmldb_trace(t, &recs, &n);
		if (tw_hpctrace_write(0, recs, n, &tr[t]) < 0)
			exit(1);
		put("fuzz-hpctkpre-mdb", trace_names[t], &tr[t], 1);
	}
	if (tw_mdb_packed(&pack, 2, rank, thread, tr) < 0)
		exit(1);
	put("fuzz-hpctkpre-mdb", "packed-traces", &pack, 1);
	tw_blob_free(&tr[0]);
	tw_blob_free(&tr[1]);
	tw_blob_free(&rec[0]);
	tw_blob_free(&rec[1]);
	tw_blob_free(&pack);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR\n", argv[0]);
		return 2;
	}
	root = argv[1];
	tw_pre d;
	tw_pre_sample(&d);
	db_seed("sample", &d, 0, NULL);
	db_seed("no-meta", &d, 1, NULL);
	tw_pre z = d;
	z.zero_cct = 1;
	z.zero_trace_bounds = 1;
	db_seed("zero-cct", &z, 0, NULL);
	tw_pre n = d;
	n.native_footer = 1;
	n.major = 4;
	db_seed("native-footer-v4", &n, 0, NULL);
	tw_pre e = d;
	e.n_traces = 0;
	e.n_values = 0;
	db_seed("empty", &e, 0, NULL);

	tw_blob draft;
	static const unsigned flags[3] = {0, TW_DRAFT_DOC7, TW_DRAFT_FOOTER};
	static const char *const names[3] = {"sample", "doc7", "footer"};
	for (int k = 0; k < 3; k++) {
		if (tw_draft_write(&draft, flags[k]) < 0)
			return 1;
		put("fuzz-hpctk-draft", names[k], &draft, 1);
		if (k == 0)
			db_seed("draft-meta", &d, 0, &draft);
		tw_blob_free(&draft);
	}

	mdb_seeds();
	xml_seed("sample", tw_pre_sample_xml());
	xml_seed("minimal", "<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"4.0\"/>\n");
	xml_seed("doctype",
	         "<?xml version=\"1.0\"?>\n<!DOCTYPE HPCToolkitExperiment [\n"
	         "<!ELEMENT HPCToolkitExperiment (Header)>\n]>\n"
	         "<HPCToolkitExperiment version=\"4.0\"><Header n=\"x\"/></HPCToolkitExperiment>\n");
	xml_seed("unknown-element",
	         "<HPCToolkitExperiment version=\"4.0\"><SecCallPathProfile><SecHeader>"
	         "<ProcedureTable><Procedure i=\"1\" n=\"f\"/></ProcedureTable></SecHeader>"
	         "<SecCallPathProfileData><PF i=\"1\" n=\"1\"><A i=\"2\"><S i=\"3\"/></A>"
	         "<S i=\"4\" l=\"7\"/></PF><PF i=\"5\" n=\"1\"/></SecCallPathProfileData>"
	         "</SecCallPathProfile></HPCToolkitExperiment>\n");
	return 0;
}
