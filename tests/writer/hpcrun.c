/* Test-data writer for hpcrun measurement files: .hpcrun 02.00 (with or
 * without the 2017 metric trailer), 03.00 and 04.00, and .hpctrace 01.01.
 * Big-endian, written byte by byte, so the output does not depend on the
 * host. Layout as ../shared/notes/hpctoolkit.md §8 describes the real
 * writer; writer.h describes the sample. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

typedef struct bbuf {
	unsigned char *d;
	size_t n, cap;
	int err;
} bbuf;

static unsigned char *grow(bbuf *b, size_t k)
{
	if (b->err)
		return NULL;
	if (b->n + k > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + k)
			cap *= 2;
		unsigned char *d = realloc(b->d, cap);
		if (!d) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->d = d;
		b->cap = cap;
	}
	unsigned char *p = b->d + b->n;
	memset(p, 0, k);
	b->n += k;
	return p;
}

static void be(bbuf *b, uint64_t v, unsigned bytes)
{
	unsigned char *p = grow(b, bytes);
	for (unsigned i = 0; p && i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
}

static void raw(bbuf *b, const void *s, size_t n)
{
	unsigned char *p = grow(b, n);
	if (p && n)
		memcpy(p, s, n);
}

static void str(bbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	be(b, n, 4);
	raw(b, s, n);
}

static void pad1k(bbuf *b)
{
	grow(b, (1024 - b->n % 1024) % 1024);
}

static void nvpairs(bbuf *b, const char *const *kv, uint32_t n)
{
	be(b, n, 4);
	for (uint32_t i = 0; i < 2 * n; i++)
		str(b, kv[i]);
}

static void metric_tbl(bbuf *b, const tw_hpcrun *d, int trailer)
{
	be(b, d->n_metrics, 4);
	for (uint32_t i = 0; i < d->n_metrics; i++) {
		const tw_hpcrun_metric *m = &d->metrics[i];
		unsigned char f[16] = {0};
		/* hpcrun's struct written raw: ty Raw, valFmt, partner LE 0, show,
		 * showPercent. */
		f[0] = 1;
		f[2] = m->is_real ? 2 : 1;
		f[6] = 1;
		f[7] = 1;
		if (m->raw_flags)
			memcpy(f, m->raw_flags, 16);
		str(b, m->name);
		str(b, m->description ? m->description : m->name);
		raw(b, f, 16);
		be(b, m->period, 8);
		str(b, m->formula);
		str(b, m->format);
		if (trailer) {
			be(b, m->is_frequency, 2);
			be(b, 0, 2);
			be(b, 0, 8);
			be(b, m->num_samples, 8);
		}
	}
}

static void loadmap(bbuf *b, const tw_hpcrun *d)
{
	be(b, d->n_modules, 4);
	for (uint32_t i = 0; i < d->n_modules; i++) {
		be(b, d->modules[i].id, 2);
		str(b, d->modules[i].name);
		be(b, d->modules[i].flags, 8);
	}
}

static int check(const tw_hpcrun *d)
{
	for (uint64_t i = 0; i < d->n_values; i++) {
		const tw_hpcrun_value *v = &d->values[i];
		if (v->node >= d->n_nodes || v->metric >= d->n_metrics)
			return -EINVAL;
		if (i && (v->node < d->values[i - 1].node ||
		          (v->node == d->values[i - 1].node && v->metric <= d->values[i - 1].metric)))
			return -EINVAL;
	}
	return d->version >= 2 && d->version <= 4 ? 0 : -EINVAL;
}

static void v2_epoch(bbuf *b, const tw_hpcrun *d, int trailer)
{
	static const char *const ep[] = {"TODO:epoch-name", "TODO:epoch-value"};
	raw(b, "EPOCH___", 8);
	be(b, d->lush ? 1 : 0, 8);
	be(b, 1, 8);
	be(b, 1, 4);
	nvpairs(b, ep, 1);
	metric_tbl(b, d, trailer);
	loadmap(b, d);
	be(b, d->n_nodes, 8);
	uint64_t k = 0;
	for (uint64_t i = 0; i < d->n_nodes; i++) {
		const tw_hpcrun_node *n = &d->nodes[i];
		be(b, (uint32_t)n->id, 4);
		be(b, n->parent_id, 4);
		if (d->lush)
			be(b, 0, 4);
		be(b, n->lm_id, 2);
		be(b, n->ip, 8);
		if (d->lush)
			grow(b, 16);
		for (uint32_t m = 0; m < d->n_metrics; m++) {
			uint64_t bits = 0;
			if (k < d->n_values && d->values[k].node == i && d->values[k].metric == m)
				bits = d->values[k++].bits;
			be(b, bits, 8);
		}
	}
}

static const char *const dict_names[8] = {
	"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE",
};

static void v4_body(bbuf *b, const tw_hpcrun *d)
{
	uint64_t ft[14];
	ft[0] = 0;
	ft[1] = b->n;
	pad1k(b);
	ft[2] = b->n;
	loadmap(b, d);
	ft[3] = b->n;
	pad1k(b);
	ft[4] = b->n;
	be(b, d->n_nodes, 8);
	for (uint64_t i = 0; i < d->n_nodes; i++) {
		const tw_hpcrun_node *n = &d->nodes[i];
		be(b, (uint32_t)n->id, 4);
		be(b, n->parent_id, 4);
		be(b, n->lm_id, 2);
		be(b, n->ip, 8);
		be(b, n->flags, 1);
	}
	ft[5] = b->n;
	pad1k(b);
	ft[6] = b->n;
	metric_tbl(b, d, 1);
	ft[7] = b->n;
	pad1k(b);
	ft[8] = b->n;
	be(b, 8, 2);
	for (unsigned k = 0; k < 8; k++) {
		be(b, k, 2);
		str(b, dict_names[k]);
	}
	ft[9] = b->n;
	pad1k(b);
	ft[10] = b->n;
	be(b, d->n_ids, 2);
	for (uint32_t i = 0; i < d->n_ids; i++) {
		be(b, d->ids[i].kind, 2);
		be(b, d->ids[i].physical, 8);
		be(b, d->ids[i].logical, 8);
	}
	uint32_t nz = 0;
	for (uint64_t i = 0; i < d->n_values; i++)
		nz += i == 0 || d->values[i].node != d->values[i - 1].node;
	be(b, d->n_values, 8);
	be(b, nz, 4);
	for (uint64_t i = 0; i < d->n_values; i++) {
		be(b, d->values[i].bits, 8);
		be(b, d->values[i].metric, 2);
	}
	for (uint64_t i = 0; i < d->n_values; i++)
		if (i == 0 || d->values[i].node != d->values[i - 1].node) {
			be(b, (uint32_t)d->nodes[d->values[i].node].id, 4);
			be(b, i, 8);
		}
	be(b, 0x656E6421u, 4); /* "end!" */
	be(b, d->n_values, 8);
	ft[11] = b->n;
	pad1k(b);
	ft[12] = b->n;
	ft[13] = UINT64_C(0x48504352554E736D); /* "HPCRUNsm" */
	for (unsigned k = 0; k < 14; k++)
		be(b, ft[k], 8);
}

int tw_hpcrun_write(const tw_hpcrun *d, tw_blob *out)
{
	bbuf b = {0};
	out->data = NULL;
	out->size = 0;
	int r = check(d);
	if (r < 0)
		return r;
	static const char *const ver[] = {"", "", "02.00", "03.00", "04.00"};
	raw(&b, "HPCRUN-profile____", 18);
	raw(&b, ver[d->version], 5);
	raw(&b, "b", 1);
	nvpairs(&b, d->attrs, d->n_attrs);
	if (d->version == 4) {
		v4_body(&b, d);
	} else {
		int trailer = d->version == 3 || d->trailer;
		for (uint32_t e = 0; e < (d->n_epochs ? d->n_epochs : 1); e++)
			v2_epoch(&b, d, trailer);
	}
	if (b.err) {
		free(b.d);
		return b.err;
	}
	out->data = b.d;
	out->size = b.n;
	return 0;
}

int tw_hpctrace_write(uint64_t flags, const tw_hpctrace_rec *recs, size_t n, tw_blob *out)
{
	bbuf b = {0};
	raw(&b, "HPCRUN-trace______01.01b", 24);
	be(&b, flags, 8);
	for (size_t i = 0; i < n; i++) {
		be(&b, recs[i].time, 8);
		be(&b, recs[i].cct_id, 4);
		if (flags & 1)
			be(&b, recs[i].metric_id, 4);
	}
	if (b.err) {
		free(b.d);
		out->data = NULL;
		out->size = 0;
		return b.err;
	}
	out->data = b.d;
	out->size = b.n;
	return 0;
}

/* ---- the sample ---------------------------------------------------------- */

static const char *const sample_attrs[] = {
	"program-name", "app", "mpi-rank", "0", "thread-id", "0", "host-id", "7f000101",
	"process-id", "4242",
};

static const tw_hpcrun_metric sample_metrics[] = {
	{"CPUTIME (sec)", "CPU time", 1, 1, NULL, NULL, NULL, 0, 0},
	{"cycles", NULL, 0, 1000, NULL, NULL, NULL, 1, 12},
	{"GPUOP (sec)", NULL, 1, 1, "#0/2", "%6.2f", NULL, 0, 0},
};

static const tw_hpcrun_module sample_modules[] = {
	{1, "/usr/bin/app", 1},
	{2, "/lib/x86_64-linux-gnu/libc.so.6", 0},
	{3, "[vdso]", 0},
};

#define PRIMARY UINT64_C(0x5e5072696d617279) /* "^Primary" */
static const tw_hpcrun_node sample_nodes_v4[] = {
	{1, 0, 0, PRIMARY, 1}, {3, 1, 1, 0x1000, 1}, {5, 3, 1, 0x1010, 1}, {7, 5, 2, 0x2000, 1},
	{9, 3, 1, 0x1020, 1},  {11, 9, 3, 0x3000, 0}, {13, 1, 2, 0x2100, 1},
};
/* 02.00/03.00 negate the ids of leaves. */
static const tw_hpcrun_node sample_nodes_v2[] = {
	{1, 0, 0, PRIMARY, 0}, {3, 1, 1, 0x1000, 0}, {5, 3, 1, 0x1010, 0}, {-7, 5, 2, 0x2000, 0},
	{9, 3, 1, 0x1020, 0},  {-11, 9, 3, 0x3000, 0}, {-13, 1, 2, 0x2100, 0},
};

#define F64(x) tw_hpcrun_f64(x)
static tw_hpcrun_value sample_values[7];

uint64_t tw_hpcrun_f64(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
}

static const tw_hpcrun_id sample_ids[] = {{0x4001, 0x7f000101, 0}, {0xC003, 0, 0}};

void tw_hpcrun_sample(tw_hpcrun *d, unsigned version, int trailer)
{
	const tw_hpcrun_value v[7] = {
		{1, 0, F64(1.5)}, {2, 2, F64(3.0)}, {3, 0, F64(2.0)}, {3, 1, 100},
		{5, 0, F64(0.25)}, {5, 1, 7}, {6, 1, 5},
	};
	memcpy(sample_values, v, sizeof v);
	memset(d, 0, sizeof *d);
	d->version = version;
	d->trailer = trailer;
	d->attrs = sample_attrs;
	d->n_attrs = 5;
	d->metrics = sample_metrics;
	d->n_metrics = 3;
	d->modules = sample_modules;
	d->n_modules = 3;
	d->nodes = version == 4 ? sample_nodes_v4 : sample_nodes_v2;
	d->n_nodes = 7;
	d->values = sample_values;
	d->n_values = 7;
	if (version == 4) {
		d->ids = sample_ids;
		d->n_ids = 2;
	}
}

static const tw_hpctrace_rec sample_trace[] = {
	{TW_HPCRUN_T0 + 1000, 7, 0}, {TW_HPCRUN_T0 + 2000, 11, 1}, {TW_HPCRUN_T0 + 2000, 13, 1},
	{TW_HPCRUN_T0 + 5000, 3, 0}, {TW_HPCRUN_T0 + 9000, 7, 2},
};

void tw_hpctrace_sample(const tw_hpctrace_rec **recs, size_t *n)
{
	*recs = sample_trace;
	*n = sizeof sample_trace / sizeof sample_trace[0];
}
