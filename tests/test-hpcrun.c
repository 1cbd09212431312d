/* hpcrun .hpcrun / .hpctrace reader: the writer's sample in every version
 * (values, inclusive sums, trace searches), measurements directories,
 * hand-made bad structures, every byte flip and truncation of the small
 * samples, and every real file under hpctoolkit/hpcrun (skipped when the
 * sample data is absent). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "../fuzz/drive-hpcrun.h"
#include "profdb/profdb.h"
#include "writer.h"

TestSuite(hpcrun, .timeout = 300);

#define NAME "app-000000-000-7f000101-4242-0"

static int n_warn;
static char last_warn[512];
static void on_warn(const char *m, void *u)
{
	(void)u;
	n_warn++;
	snprintf(last_warn, sizeof last_warn, "%s", m);
}

static profdb_options opts_with(uint32_t flags)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	o.warn = on_warn;
	return o;
}

static tw_blob sample(unsigned version, int trailer)
{
	tw_hpcrun d;
	tw_blob b;
	tw_hpcrun_sample(&d, version, trailer);
	cr_assert_eq(tw_hpcrun_write(&d, &b), 0);
	return b;
}

static tw_blob sample_trace(uint64_t flags)
{
	const tw_hpctrace_rec *r;
	size_t n;
	tw_blob b;
	tw_hpctrace_sample(&r, &n);
	cr_assert_eq(tw_hpctrace_write(flags, r, n, &b), 0);
	return b;
}

static int open1(profdb_hpcrun **h, const tw_blob *b, const char *name, uint32_t flags)
{
	profdb_input in = {name, b->data, b->size};
	profdb_options o = opts_with(flags);
	return profdb_hpcrun_open_inputs(h, &in, 1, &o);
}

static double f64(uint64_t b)
{
	double d;
	memcpy(&d, &b, 8);
	return d;
}

static void drive_strict(const profdb_hpcrun *h)
{
	fuzz_hpcrun_stats st;
	memset(&st, 0, sizeof st);
	fuzz_hpcrun_drive(h, 1, &st);
	cr_assert_eq(st.failures, 0);
}

/* ---- the sample in every version ----------------------------------------- */

static void check_sample(unsigned version, int trailer)
{
	tw_blob b = sample(version, trailer), tb = sample_trace(1);
	profdb_input in[2] = {{NAME ".hpcrun", b.data, b.size}, {NAME ".hpctrace", tb.data, tb.size}};
	profdb_options o = opts_with(0);
	profdb_hpcrun *h;
	n_warn = 0;
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, in, 2, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(n_warn, 0, "%s", last_warn);
	uint8_t ma, mi;
	cr_assert_eq(profdb_hpcrun_version(h, &ma, &mi), 1);
	cr_assert_eq(ma, version);
	cr_assert_eq(mi, 0);
	cr_assert_eq(profdb_hpcrun_profile_count(h), 1);
	profdb_hpcrun_profile p;
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &p), 0);
	cr_assert_str_eq(p.name.ptr, NAME);
	cr_assert_eq(p.name.len, strlen(NAME));
	cr_assert(p.has_profile && p.has_trace);
	cr_assert_eq(p.rank, 0);
	cr_assert_eq(p.thread, 0);
	cr_assert_eq(p.host_id, 0x7f000101);
	cr_assert_eq(p.pid, 4242);
	cr_assert_eq(p.generation, 0);
	cr_assert_eq(p.n_attrs, 5);
	cr_assert_eq(p.n_metrics, 3);
	cr_assert_eq(p.n_modules, 3);
	cr_assert_eq(p.n_nodes, 7);
	cr_assert_eq(p.n_values, version == 4 ? 7 : 21);
	cr_assert_eq(p.has_metric_trailer, version > 2 || trailer);
	cr_assert_eq(p.n_ids, version == 4 ? 2 : 0);

	profdb_hpcrun_attr a;
	cr_assert_eq(profdb_hpcrun_attr_at(h, 0, 4, &a), 0);
	cr_assert(a.name.len == 10 && memcmp(a.name.ptr, "process-id", 10) == 0);
	cr_assert(a.value.len == 4 && memcmp(a.value.ptr, "4242", 4) == 0);
	cr_assert_eq(profdb_hpcrun_attr_at(h, 0, 5, &a), -ENOENT);

	profdb_hpcrun_metric m;
	cr_assert_eq(profdb_hpcrun_metric_at(h, 0, 1, &m), 0);
	cr_assert(m.name.len == 6 && memcmp(m.name.ptr, "cycles", 6) == 0);
	cr_assert(!m.is_real && m.value_format == 1 && m.type == 1 && m.period == 1000);
	cr_assert_eq(m.show, 1);
	cr_assert_eq(m.packed_flags, 0);
	if (m.has_trailer) {
		cr_assert_eq(m.num_samples, 12);
		cr_assert_eq(m.is_frequency, 1);
	}
	cr_assert_eq(profdb_hpcrun_metric_at(h, 0, 2, &m), 0);
	cr_assert(m.is_real && m.formula.len == 4 && memcmp(m.formula.ptr, "#0/2", 4) == 0);
	cr_assert(m.format.len == 5 && memcmp(m.format.ptr, "%6.2f", 5) == 0);

	profdb_hpcrun_module mod;
	cr_assert_eq(profdb_hpcrun_module_at(h, 0, 2, &mod), 0);
	cr_assert(mod.id == 3 && mod.name.len == 6 && memcmp(mod.name.ptr, "[vdso]", 6) == 0);

	cr_assert_eq(profdb_hpcrun_node_count(h, 0), 7);
	static const uint32_t ids[7] = {1, 3, 5, 7, 9, 11, 13}, par[7] = {
		PROFDB_NONE, 0, 1, 2, 1, 4, 0};
	for (uint32_t i = 0; i < 7; i++) {
		profdb_hpcrun_node n;
		cr_assert_eq(profdb_hpcrun_node_at(h, 0, i, &n), 0);
		cr_assert_eq(n.id, ids[i]);
		cr_assert_eq(n.parent, par[i]);
		uint32_t idx;
		cr_assert_eq(profdb_hpcrun_node_find(h, 0, ids[i], &idx), 1);
		cr_assert_eq(idx, i);
		if (version < 4 && (i == 3 || i == 5 || i == 6))
			cr_assert_eq(n.stored_id, -(int32_t)ids[i]);
	}
	profdb_hpcrun_node n;
	cr_assert_eq(profdb_hpcrun_node_at(h, 0, 0, &n), 0);
	cr_assert(n.lm_id == 0 && n.module == PROFDB_NONE && n.offset == 0x5e5072696d617279u);
	cr_assert_eq(n.first_child, 1);
	cr_assert_eq(profdb_hpcrun_node_at(h, 0, 1, &n), 0);
	cr_assert(n.lm_id == 1 && n.module == 0 && n.offset == 0x1000 && n.next_sibling == 6);
	cr_assert_eq(profdb_hpcrun_node_at(h, 0, 5, &n), 0);
	cr_assert_eq(n.module, 2);
	cr_assert_eq(n.flags, 0);
	cr_assert_eq(profdb_hpcrun_node_at(h, 0, 7, &n), -ENOENT);
	/* a NULL output is refused */
	cr_assert_eq(profdb_hpcrun_node_find(h, 0, 2, NULL), -EINVAL);
	uint32_t miss = 0;
	cr_assert_eq(profdb_hpcrun_node_find(h, 0, 999, &miss), 0);
	cr_assert_eq(miss, PROFDB_NONE, "a lookup that misses clears its output");

	uint64_t bits;
	cr_assert_eq(profdb_hpcrun_value(h, 0, 3, 1, &bits), 1);
	cr_assert_eq(bits, 100);
	cr_assert_eq(profdb_hpcrun_value(h, 0, 3, 0, &bits), 1);
	cr_assert_eq(f64(bits), 2.0);
	cr_assert_eq(profdb_hpcrun_value(h, 0, 0, 0, &bits), version == 4 ? 0 : 1);
	cr_assert_eq(bits, 0);
	cr_assert_eq(profdb_hpcrun_value(h, 0, 0, 3, &bits), -ENOENT);

	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 0, 0, &bits), 1);
	cr_assert_eq(f64(bits), 3.75);
	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 0, 1, &bits), 1);
	cr_assert_eq(bits, 112);
	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 1, 2, &bits), 1);
	cr_assert_eq(f64(bits), 3.0);
	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 4, 0, &bits), 1);
	cr_assert_eq(f64(bits), 0.25);
	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 6, 0, &bits), 0);

	if (version == 4) {
		profdb_hpcrun_id id;
		cr_assert_eq(profdb_hpcrun_id_at(h, 0, 0, &id), 0);
		cr_assert(id.kind == 1 && id.interpretation == 1 && id.physical == 0x7f000101);
		cr_assert(id.kind_name.len == 4 && memcmp(id.kind_name.ptr, "NODE", 4) == 0);
		cr_assert_eq(profdb_hpcrun_id_at(h, 0, 1, &id), 0);
		cr_assert(id.kind == 3 && id.interpretation == 3);
	}

	profdb_view t;
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &t), 1);
	cr_assert_eq(t.count, 5);
	cr_assert(t.stride == 16 && t.big_endian && t.key_type == PROFDB_FIELD_U64 &&
	          t.value_type == PROFDB_FIELD_U32);
	cr_assert_eq(p.trace_flags & 1, 1);
	uint64_t time, idx, first, last;
	uint32_t cid, mid;
	time = profdb_view_key(&t, 2);
	cid = (uint32_t)profdb_view_value(&t, 2).as.u64;
	mid = (uint32_t)profdb_load_uint(t.base + 2 * t.stride + 12, 4, 1);
	cr_assert(time == TW_HPCRUN_T0 + 2000 && cid == 13 && mid == 1);
	cr_assert_eq(profdb_view_in_effect(&t, TW_HPCRUN_T0 + 2500, &idx), 1);
	cr_assert_eq(idx, 2);
	cr_assert_eq(profdb_view_in_effect(&t, TW_HPCRUN_T0, &idx), 0);
	cr_assert_eq(profdb_view_seek(&t, TW_HPCRUN_T0 + 2500, &idx), 0);
	cr_assert_eq(idx, 3, "seek is the lower bound");
	cr_assert_eq(profdb_view_window(&t, TW_HPCRUN_T0 + 2000, TW_HPCRUN_T0 + 9000,
	                                &first, &last), 0);
	cr_assert(first == 1 && last == 4);
	drive_strict(h);
	profdb_hpcrun_close(h);
	tw_blob_free(&b);
	tw_blob_free(&tb);
}

Test(hpcrun, sample_v4) { check_sample(4, 1); }
Test(hpcrun, sample_v3) { check_sample(3, 1); }
Test(hpcrun, sample_v2_trailer) { check_sample(2, 1); }
Test(hpcrun, sample_v2_no_trailer) { check_sample(2, 0); }

Test(hpcrun, epochs_and_lush)
{
	tw_hpcrun d;
	tw_blob b;
	tw_hpcrun_sample(&d, 3, 1);
	d.n_epochs = 3;
	d.lush = 1;
	cr_assert_eq(tw_hpcrun_write(&d, &b), 0);
	tw_blob t = sample_trace(0);
	profdb_input in[2] = {{NAME ".hpcrun", b.data, b.size}, {NAME ".hpctrace", t.data, t.size}};
	profdb_hpcrun *h;
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, in, 2, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_hpcrun_profile_count(h), 3);
	for (uint32_t e = 0; e < 3; e++) {
		profdb_hpcrun_profile p;
		cr_assert_eq(profdb_hpcrun_profile_at(h, e, &p), 0);
		cr_assert(p.epoch == e && p.n_epochs == 3 && p.logical_unwind);
		cr_assert_eq(p.has_trace, e == 0, "the trace joins the first epoch");
		profdb_hpcrun_node n;
		cr_assert_eq(profdb_hpcrun_node_at(h, e, 3, &n), 0);
		cr_assert(n.lip != NULL && n.offset == 0x2000 && n.lm_id == 2);
		uint64_t bits;
		cr_assert_eq(profdb_hpcrun_inclusive(h, e, 0, 1, &bits), 1);
		cr_assert_eq(bits, 112);
	}
	profdb_view tr;
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &tr), 1);
	cr_assert_eq(tr.stride, 12, "no metric id without DATA_CENTRIC");
	drive_strict(h);
	profdb_hpcrun_close(h);
	tw_blob_free(&b);
	tw_blob_free(&t);
}

/* The old packed flag layout: type not Raw/Final in byte 0. */
Test(hpcrun, packed_flags)
{
	tw_hpcrun d;
	tw_blob b;
	tw_hpcrun_metric m[1] = {{"old", NULL, 0, 1, NULL, NULL, NULL, 0, 0}};
	/* big-endian u64: ty 1, valTy 2, valFmt 2, partner 5, show, showPercent */
	uint64_t w = 1 | 2u << 4 | 2u << 8 | 5u << 12 | 1u << 28 | 1u << 29;
	unsigned char raw[16] = {0};
	for (int i = 0; i < 8; i++)
		raw[i] = (unsigned char)(w >> (56 - 8 * i));
	m[0].raw_flags = raw;
	tw_hpcrun_sample(&d, 2, 0);
	d.metrics = m;
	d.n_metrics = 1;
	d.n_values = 1; /* (1, 0, 1.5) */
	cr_assert_eq(tw_hpcrun_write(&d, &b), 0);
	profdb_hpcrun *h;
	cr_assert_eq(open1(&h, &b, "x.hpcrun", 0), 0, "%s", profdb_error_message());
	profdb_hpcrun_metric mm;
	cr_assert_eq(profdb_hpcrun_metric_at(h, 0, 0, &mm), 0);
	cr_assert(mm.packed_flags && mm.type == 1 && mm.value_type == 2 && mm.value_format == 2);
	cr_assert(mm.partner == 5 && mm.show == 1 && mm.show_percent == 1 && mm.is_real);
	profdb_hpcrun_profile p;
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &p), 0);
	cr_assert_eq(p.rank, -1, "a name without the hpcrun pattern has no identity");
	profdb_hpcrun_close(h);
	tw_blob_free(&b);
}

/* ---- directories ---------------------------------------------------------- */

static void put_file(const char *dir, const char *name, const tw_blob *b)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	cr_assert(f != NULL);
	cr_assert_eq(fwrite(b->data, 1, b->size, f), b->size);
	cr_assert_eq(fclose(f), 0);
}

static char *make_dir(void)
{
	char *dir = strdup("/tmp/profdb-hpcrun-XXXXXX");
	cr_assert(mkdtemp(dir) != NULL);
	return dir;
}

static void remove_dir(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

Test(hpcrun, directory)
{
	char *dir = make_dir();
	tw_blob v4 = sample(4, 1), t = sample_trace(0);
	tw_blob lg = {(unsigned char *)"not profile data\n", 17};
	put_file(dir, "app-000000-001-7f000101-4242-0.hpcrun", &v4);
	put_file(dir, "app-000000-001-7f000101-4242-0.hpctrace", &t);
	put_file(dir, "app-000000-000-7f000101-4242-0.hpcrun", &v4);
	put_file(dir, "app-000001-000-7f000101-4243-0.hpctrace", &t);  /* trace only */
	put_file(dir, "app-000000-000-7f000101-4242-0.log", &lg);
	profdb_options o = opts_with(0);
	profdb_hpcrun *h;
	n_warn = 0;
	cr_assert_eq(profdb_hpcrun_open(&h, dir, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(n_warn, 1);
	cr_assert(strstr(last_warn, "trace-only"), "%s", last_warn);
	cr_assert_eq(profdb_hpcrun_profile_count(h), 3);
	profdb_hpcrun_profile p;
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &p), 0);
	cr_assert(p.thread == 0 && p.has_profile && !p.has_trace);
	cr_assert_eq(profdb_hpcrun_profile_at(h, 1, &p), 0);
	cr_assert(p.thread == 1 && p.has_profile && p.has_trace);
	cr_assert_eq(profdb_hpcrun_profile_at(h, 2, &p), 0);
	cr_assert(p.rank == 1 && p.pid == 4243 && !p.has_profile && p.has_trace);
	cr_assert_eq(profdb_hpcrun_node_count(h, 2), 0);
	profdb_view tr;
	cr_assert_eq(profdb_hpcrun_trace_at(h, 2, &tr), 1);
	cr_assert_eq(tr.count, 5);
	drive_strict(h);
	profdb_hpcrun_close(h);

	/* a single file of the directory */
	char path[4096];
	snprintf(path, sizeof path, "%s/app-000000-001-7f000101-4242-0.hpcrun", dir);
	cr_assert_eq(profdb_hpcrun_open(&h, path, &o), 0);
	cr_assert_eq(profdb_hpcrun_profile_count(h), 1);
	profdb_hpcrun_close(h);
	tw_blob_free(&v4);
	tw_blob_free(&t);
	remove_dir(dir);
}

Test(hpcrun, directory_mixed_versions)
{
	char *dir = make_dir();
	tw_blob v4 = sample(4, 1), v2 = sample(2, 0);
	put_file(dir, "a-000000-000-1-1-0.hpcrun", &v4);
	put_file(dir, "a-000000-001-1-1-0.hpcrun", &v2);
	profdb_options o = opts_with(0);
	profdb_hpcrun *h;
	n_warn = 0;
	cr_assert_eq(profdb_hpcrun_open(&h, dir, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(n_warn, 1);
	cr_assert(strstr(last_warn, "differs"), "%s", last_warn);
	uint8_t ma, mi;
	cr_assert_eq(profdb_hpcrun_version(h, &ma, &mi), 0);
	cr_assert_eq(ma, 4);
	drive_strict(h);
	profdb_hpcrun_close(h);
	tw_blob_free(&v4);
	tw_blob_free(&v2);
	remove_dir(dir);
}

Test(hpcrun, directory_errors)
{
	char *dir = make_dir();
	profdb_hpcrun *h;
	cr_assert_eq(profdb_hpcrun_open(&h, dir, NULL), -ENOENT);
	cr_assert_null(h);
	tw_blob junk = {(unsigned char *)"HPCPROF-profdb__ junk bytes", 27};
	put_file(dir, "bad.hpcrun", &junk);
	cr_assert_eq(profdb_hpcrun_open(&h, dir, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "bad.hpcrun"));
	remove_dir(dir);
	cr_assert_eq(profdb_hpcrun_open(&h, "/nonexistent/profdb", NULL), -ENOENT);
}

/* ---- hand-made bad structures --------------------------------------------- */

static void be_put(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t be_get(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Footer value k of a 04.00 blob. */
static uint64_t foot(const tw_blob *b, unsigned k)
{
	return be_get(b->data + b->size - 112 + 8 * k, 8);
}

static int expect_open(const tw_blob *b, int code)
{
	profdb_hpcrun *h = NULL;
	int r = open1(&h, b, "x.hpcrun", 0);
	cr_assert_eq(r, code, "got %d (%s), expected %d", r, profdb_error_message(), code);
	if (r < 0)
		cr_assert(strstr(profdb_error_message(), "x.hpcrun"), "%s", profdb_error_message());
	profdb_hpcrun_close(h);
	return r;
}

/* Open must succeed; node_count must fail with @p code. */
static void expect_tree(const tw_blob *b, int code, const char *what)
{
	profdb_hpcrun *h;
	cr_assert_eq(open1(&h, b, "x.hpcrun", 0), 0, "%s", profdb_error_message());
	int64_t r = profdb_hpcrun_node_count(h, 0);
	cr_assert_eq(r, code, "%s: got %lld (%s)", what, (long long)r, profdb_error_message());
	cr_assert(strstr(profdb_error_message(), what), "%s", profdb_error_message());
	/* the failure is remembered */
	cr_assert_eq(profdb_hpcrun_node_count(h, 0), code);
	profdb_hpcrun_node n;
	cr_assert_eq(profdb_hpcrun_node_at(h, 0, 0, &n), code);
	profdb_hpcrun_close(h);
}

Test(hpcrun, bad_magic_and_version)
{
	tw_blob b = sample(4, 1);
	b.data[0] = 'X';
	expect_open(&b, -EPROTONOSUPPORT);
	b.data[0] = 'H';
	memcpy(b.data + 18, "05.00", 5);
	expect_open(&b, -EPROTONOSUPPORT);
	memcpy(b.data + 18, "0x.00", 5);
	expect_open(&b, -EPROTONOSUPPORT);
	memcpy(b.data + 18, "04.00l", 6);
	expect_open(&b, -EPROTONOSUPPORT);
	memcpy(b.data + 18, "04.01b", 6);
	n_warn = 0;
	expect_open(&b, 0);
	cr_assert_eq(n_warn, 1);
	tw_blob_free(&b);
}

Test(hpcrun, bad_v4_footer)
{
	tw_blob b = sample(4, 1);
	size_t fo = b.size - 112;
	b.data[b.size - 1] ^= 1; /* magic */
	expect_open(&b, -ENODATA);
	b.data[b.size - 1] ^= 1;
	be_put(b.data + fo + 8 * 5, foot(&b, 12) + 1, 8); /* CCT end past the footer */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(b.data + b.size - 112 + 8 * 5, foot(&b, 5) + 1, 8); /* CCT end 1 too far */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(b.data + b.size - 112 + 8 * 12, 0, 8); /* footer start */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(b.data + b.size - 112 + 8 * 2, foot(&b, 3) + 1, 8); /* start > end */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
}

Test(hpcrun, bad_counts)
{
	tw_blob b = sample(4, 1);
	be_put(b.data + foot(&b, 4), UINT64_C(1) << 62, 8); /* CCT count overflows x19 */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(b.data + foot(&b, 6), 0xffffffffu, 4); /* metric count */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(b.data + foot(&b, 2), 0x7fffffffu, 4); /* load map count */
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
	b = sample(2, 0);
	/* 02.00: the CCT count sits 8 bytes before the first record, at the end */
	size_t cct = b.size - 7 * (18 + 3 * 8);
	be_put(b.data + cct - 8, UINT64_MAX, 8);
	expect_open(&b, -EBADMSG);
	tw_blob_free(&b);
}

/* Offset of node record i in a 04.00 sample. */
static unsigned char *v4_node(const tw_blob *b, unsigned i)
{
	return b->data + foot(b, 4) + 8 + 19 * i;
}

Test(hpcrun, bad_tree)
{
	tw_blob b = sample(4, 1);
	be_put(v4_node(&b, 0) + 4, 13, 4); /* root's parent = node 13, whose parent is 3 -> 1 */
	expect_tree(&b, -EBADMSG, "cycle");
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(v4_node(&b, 2) + 4, 5, 4); /* node 5 is its own parent */
	expect_tree(&b, -EBADMSG, "cycle");
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(v4_node(&b, 4), 3, 4); /* duplicate id 3 */
	expect_tree(&b, -EBADMSG, "same id");
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(v4_node(&b, 4) + 4, 99, 4); /* missing parent */
	expect_tree(&b, -EBADMSG, "does not exist");
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(v4_node(&b, 4), 0, 4); /* id 0 */
	expect_tree(&b, -EBADMSG, "has id 0");
	tw_blob_free(&b);
}

/* Sparse section of the 04.00 sample: tuple (2 + 2 x 18), u64, u32, values. */
static unsigned char *v4_values(const tw_blob *b)
{
	return b->data + foot(b, 10) + 2 + 2 * 18 + 12;
}

Test(hpcrun, bad_sparse)
{
	/* values of node 3 are (0, 2.0) (1, 100): swap the metric indices */
	tw_blob b = sample(4, 1);
	unsigned char *v = v4_values(&b);
	be_put(v + 2 * 10 + 8, 1, 2);
	be_put(v + 3 * 10 + 8, 0, 2);
	expect_tree(&b, -EBADMSG, "unsorted");
	tw_blob_free(&b);
	b = sample(4, 1);
	be_put(v4_values(&b) + 8, 3, 2); /* metric index past the table */
	expect_tree(&b, -EBADMSG, "past the metric table");
	tw_blob_free(&b);
	b = sample(4, 1);
	unsigned char *idx = v4_values(&b) + 7 * 10;
	be_put(idx, 99, 4); /* node id that does not exist */
	expect_tree(&b, -EBADMSG, "does not exist");
	tw_blob_free(&b);
	b = sample(4, 1);
	idx = v4_values(&b) + 7 * 10;
	be_put(idx + 12, 3, 4); /* two entries for node 3 */
	expect_tree(&b, -EBADMSG, "repeats");
	tw_blob_free(&b);
	b = sample(4, 1);
	idx = v4_values(&b) + 7 * 10;
	be_put(idx + 3 * 12 + 4, 1, 8); /* starts 0 1 2 1 6: node 3's run ends before it starts */
	expect_tree(&b, -EBADMSG, "not increasing");
	tw_blob_free(&b);
	b = sample(4, 1);
	idx = v4_values(&b) + 7 * 10;
	be_put(idx + 5 * 12, 0x656E6420u, 4); /* "end " instead of "end!" */
	expect_open(&b, -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "end marker"));
	tw_blob_free(&b);
}

Test(hpcrun, bad_v2)
{
	tw_blob b = sample(2, 1);
	/* a 03.00 file must have the trailer: relabel a 02.00 file without it */
	tw_blob_free(&b);
	b = sample(2, 0);
	memcpy(b.data + 18, "03.00", 5);
	profdb_hpcrun *h;
	int r = open1(&h, &b, "x.hpcrun", 0);
	cr_assert(r == -EBADMSG || r == -ENODATA, "%d", r);
	tw_blob_free(&b);
	b = sample(2, 0);
	char *ep = memmem(b.data, b.size, "EPOCH___", 8);
	cr_assert(ep);
	ep[0] = 'X';
	expect_open(&b, -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "EPOCH___"));
	tw_blob_free(&b);
	/* negative leaf with id INT32_MIN */
	b = sample(2, 0);
	size_t rec = b.size - 7 * (18 + 3 * 8);
	be_put(b.data + rec, 0x80000000u, 4);
	expect_tree(&b, -EBADMSG, "has id");
	tw_blob_free(&b);
}

Test(hpcrun, bad_traces)
{
	tw_blob t = sample_trace(0);
	profdb_hpcrun *h;
	/* a record cut short */
	t.size -= 5;
	cr_assert_eq(open1(&h, &t, "x.hpctrace", 0), -ENODATA);
	n_warn = 0;
	cr_assert_eq(open1(&h, &t, "x.hpctrace", PROFDB_OPEN_TOLERANT), 0);
	cr_assert_eq(n_warn, 2); /* cut record, trace-only profile */
	profdb_view tr;
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &tr), 1);
	cr_assert_eq(tr.count, 4);
	profdb_hpcrun_close(h);
	t.size += 5;
	/* out of order */
	be_put(t.data + 32 + 12 * 3, TW_HPCRUN_T0, 8);
	cr_assert_eq(open1(&h, &t, "x.hpctrace", 0), 0);
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &tr), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "not sorted"));
	profdb_hpcrun_close(h);
	n_warn = 0;
	cr_assert_eq(open1(&h, &t, "x.hpctrace", PROFDB_OPEN_TOLERANT), 0);
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &tr), 0);
	cr_assert_eq(n_warn, 2);
	profdb_hpcrun_close(h);
	/* major version 2 */
	memcpy(t.data + 18, "02.01", 5);
	cr_assert_eq(open1(&h, &t, "x.hpctrace", 0), -EPROTONOSUPPORT);
	/* 01.00 has no flags word: the 8 bytes become part of the records */
	memcpy(t.data + 18, "01.00", 5);
	cr_assert_eq(open1(&h, &t, "x.hpctrace", 0), -ENODATA);
	tw_blob_free(&t);
	/* empty trace: exactly the header */
	t = sample_trace(4);
	t.size = 32;
	cr_assert_eq(open1(&h, &t, "x.hpctrace", 0), 0);
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &tr), 1);
	cr_assert(tr.count == 0 && tr.base == NULL && tr.stride == 12);
	profdb_hpcrun_profile pr;
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &pr), 0);
	cr_assert_eq(pr.trace_flags, 4);
	uint64_t i;
	cr_assert_eq(profdb_view_in_effect(&tr, UINT64_MAX, &i), 0);
	profdb_hpcrun_close(h);
	tw_blob_free(&t);
}

Test(hpcrun, bad_arguments)
{
	profdb_hpcrun *h;
	cr_assert_eq(profdb_hpcrun_open(NULL, "x", NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, NULL, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(profdb_hpcrun_profile_count(NULL), -EINVAL);
	tw_blob b = sample(4, 1);
	profdb_input in[2] = {{"same.hpcrun", b.data, b.size}, {"same.hpcrun", b.data, b.size}};
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, in, 2, NULL), -EINVAL);
	cr_assert_eq(open1(&h, &b, "x.hpcrun", 0), 0);
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_metric_at(h, 1, 0, NULL), -ENOENT);
	profdb_options o = opts_with(0);
	o.max_memory = 16; /* the 7 x 3 inclusive table needs 168 bytes */
	profdb_hpcrun_close(h);
	profdb_input one = {NULL, b.data, b.size};
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, &one, 1, &o), 0);
	uint64_t bits;
	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 0, 0, &bits), -EFBIG);
	profdb_hpcrun_close(h);
	profdb_hpcrun_close(NULL);
	tw_blob_free(&b);
}

/* ---- views, lookups and the conventions of 0.9 ---------------------------- */

/* Call result @p r is the error @p code with the message @p message. */
static void expect_error(int r, int code, const char *message)
{
	cr_assert_eq(r, code, "%d (%s)", r, profdb_error_message());
	cr_assert_str_eq(profdb_error_message(), message);
}

/* An accessor refusing a NULL output names itself; an unknown profile is
 * refused first, whatever the output. */
static void check_output_messages(const profdb_hpcrun *h)
{
#define NULL_OUTPUT(fn, ...) expect_error(fn(__VA_ARGS__), -EINVAL, #fn ": NULL output")
	static const char no_profile[] = "hpcrun profile 9 does not exist (1 profiles)";
	uint32_t index;
	NULL_OUTPUT(profdb_hpcrun_profile_at, h, 0, NULL);
	NULL_OUTPUT(profdb_hpcrun_attr_at, h, 0, 0, NULL);
	NULL_OUTPUT(profdb_hpcrun_id_at, h, 0, 0, NULL);
	NULL_OUTPUT(profdb_hpcrun_metric_at, h, 0, 0, NULL);
	NULL_OUTPUT(profdb_hpcrun_module_at, h, 0, 0, NULL);
	NULL_OUTPUT(profdb_hpcrun_node_find, h, 0, 1, NULL);
#undef NULL_OUTPUT
	expect_error(profdb_hpcrun_metric_at(h, 9, 0, NULL), -ENOENT, no_profile);
	expect_error(profdb_hpcrun_node_find(h, 9, 1, &index), -ENOENT, no_profile);
}

static void check_views(unsigned version)
{
	tw_blob b = sample(version, 1), tb = sample_trace(1);
	profdb_input in[2] = {{NAME ".hpcrun", b.data, b.size}, {NAME ".hpctrace", tb.data, tb.size}};
	profdb_hpcrun *h;
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, in, 2, NULL), 0, "%s", profdb_error_message());
	profdb_hpcrun_profile pr;
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &pr), 0);

	/* node 3's values: metric 0 = 2.0, metric 1 = 100 */
	profdb_view v;
	cr_assert_eq(profdb_hpcrun_values(h, 0, 3, &v), 1);
	cr_assert(v.big_endian && v.value_type == PROFDB_FIELD_U64 && v.value_offset == 0);
	const unsigned char *lo = b.data, *hi = lo + b.size;
	if (version == 4) {
		cr_assert(v.stride == 10 && v.key_type == PROFDB_FIELD_U16 && v.key_offset == 8);
		cr_assert(v.base >= lo && v.base + v.count * v.stride <= hi, "zero-copy into the input");
	} else {
		cr_assert(v.stride == 12 && v.key_type == PROFDB_FIELD_U32 && v.key_offset == 8);
		cr_assert(v.base < lo || v.base >= hi, "dense values are copied");
		cr_assert_eq(v.count, pr.n_metrics, "dense: every metric, zeros included");
	}
	PROFDB_VIEW_FOREACH(&v, k)
		if (k)
			cr_assert(profdb_view_key(&v, k) > profdb_view_key(&v, k - 1));
	uint64_t k;
	cr_assert_eq(profdb_view_find(&v, 1, &k), 1);
	cr_assert_eq(profdb_view_value(&v, k).as.u64, 100);
	cr_assert_eq(profdb_view_find(&v, 0, &k), 1);
	cr_assert_eq(f64(profdb_view_value(&v, k).as.u64), 2.0);
	/* out of range and NULL outputs */
	cr_assert_eq(profdb_hpcrun_values(h, 0, 7, &v), -ENOENT);
	cr_assert_eq(profdb_hpcrun_values(h, 0, 3, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_values(NULL, 0, 3, &v), -EINVAL);
	/* a node without values (04.00 root): 0 and an empty view */
	if (version == 4) {
		memset(&v, 0xff, sizeof v);
		cr_assert_eq(profdb_hpcrun_values(h, 0, 0, &v), 0);
		cr_assert(v.count == 0 && v.base == NULL && v.stride == 0);
	}
	uint64_t bits = 7;
	cr_assert_eq(profdb_hpcrun_value(h, 0, 3, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_inclusive(h, 0, 3, 1, NULL), -EINVAL);
	if (version == 4) {
		cr_assert_eq(profdb_hpcrun_value(h, 0, 0, 0, &bits), 0);
		cr_assert_eq(bits, 0, "a missed lookup clears its output");
	}
	bits = 7;
	cr_assert_eq(profdb_hpcrun_value(h, 0, 3, 99, &bits), -ENOENT);
	uint8_t ma, mi;
	cr_assert_eq(profdb_hpcrun_version(h, NULL, &mi), -EINVAL);
	cr_assert_eq(profdb_hpcrun_version(h, &ma, NULL), -EINVAL);
	profdb_hpcrun_attr a;
	profdb_hpcrun_id id;
	profdb_hpcrun_module mod;
	profdb_hpcrun_metric met;
	profdb_hpcrun_node nd;
	cr_assert_eq(profdb_hpcrun_attr_at(h, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_attr_at(h, 0, pr.n_attrs, &a), -ENOENT);
	cr_assert_eq(profdb_hpcrun_id_at(h, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_id_at(h, 0, pr.n_ids, &id), -ENOENT);
	cr_assert_eq(profdb_hpcrun_module_at(h, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_module_at(h, 0, pr.n_modules, &mod), -ENOENT);
	cr_assert_eq(profdb_hpcrun_metric_at(h, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpcrun_node_at(h, 0, 0, NULL), -EINVAL);
	check_output_messages(h);
	cr_assert_eq(profdb_hpcrun_node_at(h, 1, 0, &nd), -ENOENT);
	cr_assert_eq(profdb_hpcrun_metric_at(h, 0, 0, &met), 0);
	cr_assert(met.name.ptr && met.description.ptr && met.formula.ptr && met.format.ptr,
	          "absent strings are {\"\", 0}, never NULL");
	if (version == 4) {
		cr_assert_eq(profdb_hpcrun_id_at(h, 0, 1, &id), 0);
		cr_assert(id.kind_name.ptr != NULL);
	}

	/* the trace: zero-copy, seek = lower bound, in_effect = last <= t */
	profdb_view t;
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &t), 1);
	cr_assert_eq(t.base, (const unsigned char *)tb.data + 32, "zero-copy into the input");
	cr_assert_eq(t.stride, 16);
	uint64_t i;
	cr_assert_eq(profdb_view_seek(&t, TW_HPCRUN_T0 + 2000, &i), 0);
	cr_assert_eq(i, 1);
	cr_assert_eq(profdb_view_seek(&t, UINT64_MAX, &i), 0);
	cr_assert_eq(i, t.count, "past the end: the length");
	cr_assert_eq(profdb_view_in_effect(&t, TW_HPCRUN_T0 + 2000, &i), 1);
	cr_assert_eq(i, 2, "ties: the last record at that time");
	cr_assert_eq(profdb_hpcrun_trace_at(h, 1, &t), -ENOENT);
	profdb_hpcrun_close(h);
	tw_blob_free(&b);
	tw_blob_free(&tb);
}

Test(hpcrun, views_v4) { check_views(4); }
Test(hpcrun, views_v2) { check_views(2); }

Test(hpcrun, dense_views_bounded)
{
	tw_blob b = sample(3, 1);
	profdb_input in = {"x.hpcrun", b.data, b.size};
	profdb_options o = opts_with(0);
	o.max_memory = 64; /* 7 nodes x 3 metrics x 12 bytes = 252 */
	profdb_hpcrun *h;
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, &in, 1, &o), 0);
	profdb_view v;
	cr_assert_eq(profdb_hpcrun_values(h, 0, 3, &v), -EFBIG);
	uint64_t bits;
	cr_assert_eq(profdb_hpcrun_value(h, 0, 3, 1, &bits), -EFBIG);
	profdb_hpcrun_close(h);
	tw_blob_free(&b);
}

/* PROFDB_OPEN_TOLERANT: a damaged file of a set warns and is left out; an
 * unsorted trace warns and reads as absent. Strict mode fails. */
Test(hpcrun, tolerant_set)
{
	tw_blob good = sample(4, 1), bad = sample(4, 1), badv2 = sample(2, 1);
	tw_blob tr = sample_trace(0), badtr = sample_trace(0);
	bad.size -= 40;                          /* footer cut: -ENODATA */
	memcpy(badv2.data + 24, "XXXX", 4);      /* header pairs count: nonsense */
	be_put(badtr.data + 32 + 12 * 3, TW_HPCRUN_T0, 8);   /* goes back in time */
	profdb_input in[5] = {
		{"a-000000-000-7f000101-1-0.hpcrun", good.data, good.size},
		{"a-000000-000-7f000101-1-0.hpctrace", badtr.data, badtr.size},
		{"a-000001-000-7f000101-2-0.hpcrun", bad.data, bad.size},
		{"a-000002-000-7f000101-3-0.hpcrun", badv2.data, badv2.size},
		{"a-000003-000-7f000101-4-0.hpctrace", tr.data, 20},   /* header cut */
	};
	profdb_options o = opts_with(0);
	profdb_hpcrun *h;
	cr_assert_lt(profdb_hpcrun_open_inputs(&h, in, 5, &o), 0);
	o = opts_with(PROFDB_OPEN_TOLERANT);
	n_warn = 0;
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, in, 5, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(n_warn, 3, "one warning per damaged file: %s", last_warn);
	cr_assert(strstr(last_warn, "left out"), "%s", last_warn);
	cr_assert_eq(profdb_hpcrun_profile_count(h), 1);
	profdb_hpcrun_profile p;
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &p), 0);
	cr_assert(p.has_profile && p.has_trace && p.rank == 0);
	profdb_view t;
	cr_assert_eq(profdb_hpcrun_trace_at(h, 0, &t), 0, "unsorted trace reads as absent");
	cr_assert_eq(n_warn, 4);
	cr_assert(t.count == 0 && t.base == NULL);
	cr_assert_eq(profdb_hpcrun_node_count(h, 0), 7);
	fuzz_hpcrun_stats st = {0};
	fuzz_hpcrun_drive(h, 0, &st);
	profdb_hpcrun_close(h);
	/* every file damaged: nothing left, -ENOENT */
	cr_assert_eq(profdb_hpcrun_open_inputs(&h, in + 2, 2, &o), -ENOENT);
	tw_blob_free(&good);
	tw_blob_free(&bad);
	tw_blob_free(&badv2);
	tw_blob_free(&tr);
	tw_blob_free(&badtr);
}

/* ---- every byte flip and truncation --------------------------------------- */

static void mutate_all(const tw_blob *b, const char *name)
{
	unsigned char *copy = malloc(b->size);
	cr_assert(copy);
	uint64_t opened = 0;
	for (size_t len = 0; len < b->size; len++) {
		/* exact-size copies so ASan sees reads past the end */
		unsigned char *cut = malloc(len ? len : 1);
		memcpy(cut, b->data, len);
		tw_blob t = {cut, len};
		profdb_hpcrun *h;
		int r = open1(&h, &t, name, 0);
		if (r == 0) {
			fuzz_hpcrun_stats st = {0};
			fuzz_hpcrun_drive(h, 0, &st);
			profdb_hpcrun_close(h);
		} else {
			cr_assert(fuzz_hpcrun_documented(r), "truncated to %zu: %d", len, r);
		}
		/* profiles cannot be cut anywhere and still open; traces can be
		 * cut at a record boundary (no footer) */
		if (strstr(name, ".hpcrun"))
			cr_assert(r < 0, "%s truncated to %zu bytes opened", name, len);
		free(cut);
	}
	static const unsigned char x[] = {0xff, 0x01, 0x80, 0x7f};
	for (size_t off = 0; off < b->size; off++)
		for (unsigned k = 0; k < sizeof x; k++) {
			memcpy(copy, b->data, b->size);
			copy[off] ^= x[k];
			tw_blob t = {copy, b->size};
			profdb_hpcrun *h;
			int r = open1(&h, &t, name, 0);
			if (r < 0) {
				cr_assert(fuzz_hpcrun_documented(r), "flip at %zu: %d", off, r);
				continue;
			}
			opened++;
			fuzz_hpcrun_stats st = {0};
			fuzz_hpcrun_drive(h, 0, &st);
			profdb_hpcrun_close(h);
		}
	cr_assert(opened > 0);
	free(copy);
}

Test(hpcrun, corrupt_v2_no_trailer) { tw_blob b = sample(2, 0); mutate_all(&b, "x.hpcrun"); tw_blob_free(&b); }
Test(hpcrun, corrupt_v2_trailer) { tw_blob b = sample(2, 1); mutate_all(&b, "x.hpcrun"); tw_blob_free(&b); }
Test(hpcrun, corrupt_v3) { tw_blob b = sample(3, 1); mutate_all(&b, "x.hpcrun"); tw_blob_free(&b); }
Test(hpcrun, corrupt_v4, .timeout = 600) { tw_blob b = sample(4, 1); mutate_all(&b, "x.hpcrun"); tw_blob_free(&b); }
Test(hpcrun, corrupt_trace) { tw_blob b = sample_trace(1); mutate_all(&b, "x.hpctrace"); tw_blob_free(&b); }

/* ---- real files ----------------------------------------------------------- */

/* Sum of raw values of metric m over a profile, and of inclusive values
 * over its roots: equal (exactly for integers; within 1e-9 for reals,
 * whose summation orders differ). */
static void check_sums(const profdb_hpcrun *h, uint32_t p, const profdb_hpcrun_profile *pr)
{
	for (uint32_t m = 0; m < pr->n_metrics; m++) {
		profdb_hpcrun_metric md;
		cr_assert_eq(profdb_hpcrun_metric_at(h, p, m, &md), 0);
		double raw = 0, incl = 0;
		uint64_t rawi = 0, incli = 0, bits;
		for (uint32_t n = 0; n < pr->n_nodes; n++) {
			profdb_hpcrun_node nd;
			cr_assert_eq(profdb_hpcrun_node_at(h, p, n, &nd), 0);
			if (profdb_hpcrun_value(h, p, n, m, &bits) == 1) {
				raw += f64(bits);
				rawi += bits;
			}
			if (nd.parent == PROFDB_NONE) {
				cr_assert(profdb_hpcrun_inclusive(h, p, n, m, &bits) >= 0);
				incl += f64(bits);
				incli += bits;
			}
		}
		if (md.is_real)
			cr_assert(fabs(raw - incl) <= 1e-9 * fabs(raw), "%.*s metric %u: %g vs %g",
			          (int)pr->name.len, pr->name.ptr, m, raw, incl);
		else
			cr_assert_eq(rawi, incli, "%.*s metric %u", (int)pr->name.len, pr->name.ptr,
			             m);
	}
}

Test(hpcrun, real_files)
{
	char *root = tc_sample_path("hpctoolkit/hpcrun");
	DIR *d = opendir(root);
	cr_assert(d);
	struct dirent *e;
	int dirs = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", root, e->d_name);
		profdb_hpcrun *h;
		profdb_options o = opts_with(0);
		n_warn = 0;
		cr_assert_eq(profdb_hpcrun_open(&h, path, &o), 0, "%s: %s", path,
		             profdb_error_message());
		int trace_only = strstr(e->d_name, "miniapp") != NULL;
		cr_assert_eq(n_warn, trace_only ? 3 : 0, "%s: %s", e->d_name, last_warn);
		fuzz_hpcrun_stats st = {0};
		fuzz_hpcrun_drive(h, 1, &st);
		cr_assert_eq(st.failures, 0);
		cr_assert_eq(st.unresolved, 0, "%s: trace ids without a CCT node", e->d_name);
		int64_t np = profdb_hpcrun_profile_count(h);
		for (uint32_t p = 0; p < np; p++) {
			profdb_hpcrun_profile pr;
			cr_assert_eq(profdb_hpcrun_profile_at(h, p, &pr), 0);
			cr_assert(pr.rank >= 0 && pr.thread >= 0 && pr.pid > 0, "%.*s",
			          (int)pr.name.len, pr.name.ptr);
			if (!pr.has_profile)
				continue;
			cr_assert_eq(pr.has_metric_trailer, pr.major != 2, "only the 02.00 file lacks it");
			if (pr.major == 4) {
				/* the id tuple agrees with the file name */
				profdb_hpcrun_id id;
				cr_assert_eq(profdb_hpcrun_id_at(h, p, 0, &id), 0);
				cr_assert(id.kind == 1 && (int64_t)id.physical == pr.host_id, "%.*s",
				          (int)pr.name.len, pr.name.ptr);
				cr_assert_eq(pr.n_epochs, 1);
			}
			check_sums(h, p, &pr);
		}
		profdb_hpcrun_close(h);
		dirs++;
	}
	closedir(d);
	cr_assert(dirs >= 9);
	free(root);
}

Test(hpcrun, real_v2_details)
{
	char *dir = tc_sample_path("hpctoolkit/hpcrun/hpctoolkit-testvdso-v02");
	profdb_hpcrun *h;
	cr_assert_eq(profdb_hpcrun_open(&h, dir, NULL), 0, "%s", profdb_error_message());
	profdb_hpcrun_profile p;
	cr_assert_eq(profdb_hpcrun_profile_count(h), 1);
	cr_assert_eq(profdb_hpcrun_profile_at(h, 0, &p), 0);
	cr_assert(p.major == 2 && !p.has_metric_trailer && p.n_metrics == 1 && p.n_nodes == 42);
	cr_assert(p.n_modules == 11 && p.pid == 19750 && p.host_id == 0x7f0101);
	profdb_hpcrun_metric m;
	cr_assert_eq(profdb_hpcrun_metric_at(h, 0, 0, &m), 0);
	cr_assert(!m.is_real && m.name.len == 14 && memcmp(m.name.ptr, "CPUTIME (usec)", 14) == 0);
	int neg = 0;
	for (uint32_t i = 0; i < p.n_nodes; i++) {
		profdb_hpcrun_node n;
		cr_assert_eq(profdb_hpcrun_node_at(h, 0, i, &n), 0);
		neg += n.stored_id < 0;
		cr_assert_eq(n.stored_id < 0, n.first_child == PROFDB_NONE, "negative ids are leaves");
	}
	cr_assert(neg > 0);
	profdb_hpcrun_close(h);
	free(dir);
}

TC_MAIN
