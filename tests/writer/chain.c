/* Deep call chains in every format (writer.h, "Deep call chains"): frame k
 * calls frame k+1, function f<k> at every level, so the call tree is one path
 * as deep as the file asks. The files are what a stress test needs, not what
 * a profiler would write beyond that: one metric, one thread. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

/* Frame k's exclusive cost and the inclusive cost of the call into frame k
 * (k = 0 .. depth-1): 1 at the leaf only, or 1 at every level. */
static double self_at(uint32_t depth, uint32_t k, int every)
{
	return every || k + 1 == depth ? 1.0 : 0.0;
}

static double incl_at(uint32_t depth, uint32_t k, int every)
{
	return every ? (double)(depth - k) : 1.0;
}

/* ---- Callgrind text ------------------------------------------------------------- */

int tw_chain_callgrind(const char *path, uint32_t depth, int every)
{
	if (depth == 0)
		return -EINVAL;
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# callgrind format\nversion: 1\ncreator: profdb tests/writer chain\n"
	        "cmd: chain\npositions: line\nevents: Ir\nfl=(1) chain.c\n");
	for (uint32_t k = 0; k < depth; k++) {
		/* compressed names: the first use defines (id) name, later ones (id) */
		fprintf(f, "fn=(%u)", k + 1);
		if (k == 0)
			fprintf(f, " f0");
		fputc('\n', f);
		if (self_at(depth, k, every) != 0)
			fprintf(f, "%u 1\n", k + 1);
		if (k + 1 < depth)
			fprintf(f, "cfn=(%u) f%u\ncalls=1 %u\n%u %.0f\n", k + 2, k + 1, k + 2, k + 1,
			        incl_at(depth, k + 1, every));
	}
	fprintf(f, "totals: %.0f\n", every ? (double)depth : 1.0);
	return fclose(f) == 0 ? 0 : -EIO;
}

/* ---- Cube4 .cubex ----------------------------------------------------------------- */

static int cube_member(FILE *f, const char *name, const tw_blob *b)
{
	tw_blob tar = {NULL, 0};
	int r = tw_tar_add(&tar, name, b->data, b->size, 0, 0);
	if (r == 0 && fwrite(tar.data, 1, tar.size, f) != tar.size)
		r = -EIO;
	tw_blob_free(&tar);
	return r;
}

/* Appends n bytes to b, whose buffer holds *cap bytes (doubling), and keeps
 * a NUL after them. */
static int blob_put(tw_blob *b, size_t *cap, const void *p, size_t n)
{
	if (b->size + n + 1 > *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		while (c < b->size + n + 1)
			c *= 2;
		unsigned char *d = realloc(b->data, c);
		if (!d)
			return -ENOMEM;
		b->data = d;
		*cap = c;
	}
	memcpy(b->data + b->size, p, n);
	b->size += n;
	b->data[b->size] = 0;
	return 0;
}

static int blob_printf(tw_blob *b, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int blob_printf(tw_blob *b, size_t *cap, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return -EINVAL;
	return blob_put(b, cap, tmp, (size_t)n);
}

/* @p s, @p times over: the closing tags of a chain of nested elements. */
static int blob_repeat(tw_blob *b, size_t *cap, const char *s, uint32_t times)
{
	int r = 0;
	for (uint32_t k = 0; k < times && r == 0; k++)
		r = blob_put(b, cap, s, strlen(s));
	return r;
}

static int cube_anchor(tw_blob *a, uint32_t depth)
{
	size_t cap = 0;
	int r = blob_printf(a, &cap, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                    "<cube version=\"4.4\">\n<metrics><metric id=\"0\" type=\"EXCLUSIVE\">"
	                    "<uniq_name>time</uniq_name><dtype>DOUBLE</dtype></metric></metrics>\n"
	                    "<program>\n");
	for (uint32_t k = 0; k < depth && r == 0; k++)
		r = blob_printf(a, &cap, "<region id=\"%u\" mod=\"chain.c\"><name>f%u</name>"
		                "</region>\n", k, k);
	for (uint32_t k = 0; k < depth && r == 0; k++)
		r = blob_printf(a, &cap, "<cnode id=\"%u\" calleeId=\"%u\">\n", k, k);
	if (r == 0)
		r = blob_repeat(a, &cap, "</cnode>\n", depth);
	if (r == 0)
		r = blob_printf(a, &cap, "</program>\n<system><systemtreenode Id=\"0\"><name>m</name>"
		                "<class>machine</class>\n<locationgroup Id=\"0\"><name>rank 0</name>"
		                "<rank>0</rank><type>process</type>\n<location Id=\"0\"><name>t</name>"
		                "<rank>0</rank><type>thread</type></location>\n</locationgroup>\n"
		                "</systemtreenode></system>\n</cube>\n");
	return r;
}

int tw_chain_cube(const char *path, uint32_t depth, int every)
{
	if (depth == 0)
		return -EINVAL;
	/* one DENSE row per cnode (the chain's deep order is its id order) */
	static const unsigned char idx[18] = {'C', 'U', 'B', 'E', 'X', '.', 'I', 'N', 'D',
	                                      'E', 'X', 1, 0, 0, 0, 0, 0, 3};
	tw_blob data = {malloc(10 + (size_t)depth * 8), 10 + (size_t)depth * 8};
	tw_blob index = {(unsigned char *)idx, sizeof idx}, anchor = {NULL, 0};
	if (!data.data)
		return -ENOMEM;
	memcpy(data.data, "CUBEX.DATA", 10);
	for (uint32_t k = 0; k < depth; k++) {
		double v = self_at(depth, k, every);
		uint64_t u;
		memcpy(&u, &v, 8);
		for (int b = 0; b < 8; b++)
			data.data[10 + (size_t)k * 8 + (size_t)b] = (unsigned char)(u >> (8 * b));
	}
	int r = cube_anchor(&anchor, depth);
	FILE *f = r == 0 ? fopen(path, "wb") : NULL;
	if (r == 0 && !f)
		r = -errno;
	if (r == 0)
		r = cube_member(f, "0.data", &data);
	if (r == 0)
		r = cube_member(f, "0.index", &index);
	if (r == 0)
		r = cube_member(f, "anchor.xml", &anchor);
	static const unsigned char end[1024];
	if (r == 0 && fwrite(end, 1, sizeof end, f) != sizeof end)
		r = -EIO;
	if (f && fclose(f) != 0 && r == 0)
		r = -EIO;
	tw_blob_free(&data);
	tw_blob_free(&anchor);
	return r;
}

/* ---- hpcrun 04.00 ------------------------------------------------------------------ */

int tw_chain_hpcrun(const char *path, uint32_t depth, int every)
{
	if (depth == 0 || depth > (UINT32_MAX - 3) / 2)
		return -EINVAL;
	static const tw_hpcrun_metric metric = {"CPUTIME (sec)", NULL, 1, 1, NULL, NULL, NULL, 0, 0};
	static const tw_hpcrun_module module = {1, "/usr/bin/chain", 1};
	static const tw_hpcrun_id ids[] = {{0x4001, 0x7f000101, 0}, {0xC003, 0, 0}};
	static const char *const attrs[] = {"program-name", "chain", "mpi-rank", "0",
	                                    "thread-id", "0"};
	/* node 0 is the "^Primary" root, node k+1 frame k */
	tw_hpcrun_node *nodes = calloc((size_t)depth + 1, sizeof *nodes);
	tw_hpcrun_value *values = calloc((size_t)depth, sizeof *values);
	if (!nodes || !values) {
		free(nodes);
		free(values);
		return -ENOMEM;
	}
	nodes[0] = (tw_hpcrun_node){1, 0, 0, UINT64_C(0x5e5072696d617279), 1};
	uint64_t nv = 0;
	for (uint32_t k = 0; k < depth; k++) {
		nodes[k + 1] = (tw_hpcrun_node){(int32_t)(2 * k + 3), 2 * k + 1, 1,
		                                0x1000 + 16 * (uint64_t)k, 1};
		if (self_at(depth, k, every) != 0)
			values[nv++] = (tw_hpcrun_value){k + 1, 0, tw_hpcrun_f64(1.0)};
	}
	tw_hpcrun d = {0};
	d.version = 4;
	d.attrs = attrs;
	d.n_attrs = 3;
	d.metrics = &metric;
	d.n_metrics = 1;
	d.modules = &module;
	d.n_modules = 1;
	d.nodes = nodes;
	d.n_nodes = (uint64_t)depth + 1;
	d.values = values;
	d.n_values = nv;
	d.ids = ids;
	d.n_ids = 2;
	tw_blob out = {NULL, 0};
	int r = tw_hpcrun_write(&d, &out);
	free(nodes);
	free(values);
	if (r == 0) {
		FILE *f = fopen(path, "wb");
		if (!f)
			r = -errno;
		else if (fwrite(out.data, 1, out.size, f) != out.size || fclose(f) != 0)
			r = -EIO;
		else
			f = NULL;
		if (f)
			fclose(f);
	}
	tw_blob_free(&out);
	return r;
}

/* ---- HPCToolkit 4.0 ------------------------------------------------------------------ */

/* Contexts: index 0 the "main thread" entry point (id 1), index k+1 frame k
 * (id k+2, a call to function k). Metric 0 stores point and function (prop
 * ids 0, 1: the self cost) and execution (2: inclusive, also at the entry
 * point and the global context 0), as hpcprof does; the summary profile
 * holds the same values under the same stat ids. */
int tw_chain_hpctk4(const char *dir, uint32_t depth, int every)
{
	if (depth == 0 || depth > UINT32_MAX / 4)
		return -EINVAL;
	static const tw_scope scopes[] = {{"point", 1, 255}, {"function", 3, 0},
	                                  {"execution", 2, 255}};
	static const tw_propagation props[] = {{0, 0}, {1, 1}, {2, 2}};
	static const tw_summary sums[] = {{0, "$$", 0, 0}, {1, "$$", 0, 1}, {2, "$$", 0, 2}};
	static const tw_metric metric = {"CPUTIME (sec)", 3, props, 3, sums};
	static const tw_module module = {"/usr/bin/chain"};
	static const tw_file file = {"/src/chain.c", 0};
	static const tw_id tuple[] = {{1, 1, 0, 0x7f000101}, {3, 0, 0, 0}};
	size_t n = (size_t)depth;
	tw_function *fn = calloc(n, sizeof *fn);
	tw_context *ctx = calloc(n + 1, sizeof *ctx);
	tw_value *val = calloc(3 * n + 2, sizeof *val);
	char *names = malloc(n * 12);
	int r = fn && ctx && val && names ? 0 : -ENOMEM;
	size_t nv = 0;
	for (uint32_t k = 0; k < depth && r == 0; k++) {
		snprintf(names + (size_t)k * 12, 12, "f%u", k);
		fn[k] = (tw_function){names + (size_t)k * 12, 0, 0x1000 + 16 * (uint64_t)k, 0, k + 1};
		ctx[k + 1] = (tw_context){k + 2, (int32_t)k, 1, 0, (int32_t)k, -1, 0, -1, 0, 0, 0,
		                          NULL};
		double s = self_at(depth, k, every);
		if (s != 0) {
			val[nv++] = (tw_value){k + 2, 0, s};
			val[nv++] = (tw_value){k + 2, 1, s};
		}
		val[nv++] = (tw_value){k + 2, 2, incl_at(depth, k, every)};
	}
	if (r == 0) {
		/* the global context (id 0) and the entry point hold the total */
		val[nv++] = (tw_value){0, 2, incl_at(depth, 0, every)};
		val[nv++] = (tw_value){1, 2, incl_at(depth, 0, every)};
		ctx[0] = (tw_context){1, -1, 0, 0, -1, -1, 0, -1, 0, 0, 1, NULL};
		tw_profile prof[2] = {{1, 0, NULL, nv, val}, {0, 2, tuple, nv, val}};
		tw_hpctk4 d = {0};
		d.title = "profdb deep chain";
		d.n_scopes = 3;
		d.scopes = scopes;
		d.n_metrics = 1;
		d.metrics = &metric;
		d.n_modules = 1;
		d.modules = &module;
		d.n_files = 1;
		d.files = &file;
		d.n_functions = n;
		d.functions = fn;
		d.n_contexts = n + 1;
		d.contexts = ctx;
		d.n_profiles = 2;
		d.profiles = prof;
		d.no_trace = 1;
		r = tw_hpctk4_write_dir(&d, dir);
	}
	free(fn);
	free(ctx);
	free(val);
	free(names);
	return r;
}

/* ---- HPCToolkit pre-release ---------------------------------------------------------- */

/* experiment.xml: frame k is a procedure frame <PF> (id 2k+1) inside the call
 * site <C> (id 2k) of its caller, frame 0 directly in the data section. */
static int pre_xml(tw_blob *x, uint32_t depth)
{
	const char *s = tw_pre_sample_xml();
	const char *procs = strstr(s, "<ProcedureTable>");
	const char *tail = strstr(s, "</SecCallPathProfileData>");
	if (!procs || !tail)
		return -EINVAL;
	size_t cap = 0;
	/* the sample's header up to its procedure table, then the chain's */
	int r = blob_put(x, &cap, s, (size_t)(procs - s));
	if (r == 0)
		r = blob_printf(x, &cap, "<ProcedureTable>\n");
	for (uint32_t k = 0; k < depth && r == 0; k++)
		r = blob_printf(x, &cap, "<Procedure i=\"%u\" n=\"f%u\" v=\"0x%x\"/>\n", k + 10, k,
		                0x1000 + 16 * k);
	if (r == 0)
		r = blob_printf(x, &cap, "</ProcedureTable>\n<Info/>\n</SecHeader>\n"
		                "<SecCallPathProfileData>\n");
	for (uint32_t k = 0; k < depth && r == 0; k++) {
		if (k > 0)
			r = blob_printf(x, &cap, "<C i=\"%u\" s=\"%u\" v=\"0x%x\" f=\"0\" l=\"%u\" "
			                "it=\"%u\">\n", 2 * k, 2 * k, 0x1000 + 16 * (k - 1) + 8, k,
			                2 * k);
		if (r == 0)
			r = blob_printf(x, &cap, "<PF i=\"%u\" n=\"%u\" s=\"%u\" v=\"0x%x\" f=\"0\" "
			                "l=\"%u\" lm=\"1\">\n", 2 * k + 1, k + 10, k + 10,
			                0x1000 + 16 * k, k + 1);
	}
	if (r == 0)   /* frame k > 0 closes its call site too */
		r = blob_repeat(x, &cap, "</PF>\n</C>\n", depth - 1);
	if (r == 0)
		r = blob_printf(x, &cap, "</PF>\n");
	return r == 0 ? blob_put(x, &cap, tail, strlen(tail)) : r;
}

int tw_chain_pre(const char *dir, uint32_t depth, int every)
{
	if (depth == 0 || depth > UINT32_MAX / 8)
		return -EINVAL;
	/* values sorted by (profile, ctx, metric): the summary (0) holds 256
	 * exclusive, 512 inclusive; the thread (1) holds 1 and 2 */
	tw_pre_value *v = calloc(6 * (size_t)depth, sizeof *v);   /* <= 3 per frame and profile */
	tw_blob xml = {NULL, 0};
	int r = v ? pre_xml(&xml, depth) : -ENOMEM;
	size_t nv = 0;
	for (uint32_t p = 0; p < 2 && r == 0; p++)
		for (uint32_t k = 0; k < depth; k++) {
			double s = self_at(depth, k, every), i = incl_at(depth, k, every);
			if (k > 0)   /* the call site holds the callee's inclusive cost */
				v[nv++] = (tw_pre_value){p, 2 * k, (uint16_t)(p ? 2 : 512), i};
			if (s != 0)
				v[nv++] = (tw_pre_value){p, 2 * k + 1, (uint16_t)(p ? 1 : 256), s};
			v[nv++] = (tw_pre_value){p, 2 * k + 1, (uint16_t)(p ? 2 : 512), i};
		}
	if (r == 0) {
		tw_pre d;
		tw_pre_sample(&d);
		d.n_profiles = 2;
		d.n_ctx = 2 * depth + 1;
		d.values = v;
		d.n_values = nv;
		d.traces = NULL;
		d.n_traces = 0;
		d.xml = (const char *)xml.data;
		r = tw_pre_write_dir(&d, dir);
	}
	free(v);
	tw_blob_free(&xml);
	return r;
}
