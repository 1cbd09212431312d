/* Cube4 .cubex reader: every real sample (structure counts, every value
 * readable), value-by-value comparison with CubeLib's cube_dump CSVs, the
 * writer's sample under each layout variant, hand-made bad archives, every
 * byte flip and truncation of the sample, and concurrent readers of
 * compressed rows. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "profdb.h"
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif

TestSuite(cube, .timeout = 300);

static double absd(double x)
{
	return x < 0 ? -x : x;
}

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

/* ---- helpers ----------------------------------------------------------------- */

static int documented(int r)
{
	return r == -EINVAL || r == -ENOENT || r == -EBADMSG || r == -ENODATA ||
	       r == -EPROTONOSUPPORT || r == -ENOTSUP || r == -ENOMEM || r == -EFBIG ||
	       r == -ERANGE;
}

static void check_failure(int r, const char *call)
{
	cr_assert(r < 0);
	cr_assert(documented(r), "%s returned undocumented %d", call, r);
	cr_assert(profdb_error_message()[0], "%s failed without a message", call);
}

/* Call every getter on every item and every value; returns the number of
 * stored values, checking value/row agreement. Failures must be documented. */
static uint64_t drive(const profdb_cube *c, int strict)
{
	profdb_cube_info info;
	uint64_t stored = 0;
	cr_assert_eq(profdb_cube_get_info(c, &info), 0);
	cr_assert_eq((uint32_t)profdb_cube_metric_count(c), info.n_metrics);
	cr_assert_eq((uint32_t)profdb_cube_cnode_count(c), info.n_cnodes);
	cr_assert_eq((uint32_t)profdb_cube_location_count(c), info.n_locations);
	cr_assert_eq((uint32_t)profdb_cube_region_count(c), info.n_regions);
	for (uint32_t i = 0; i < info.n_regions; i++) {
		profdb_cube_region g;
		cr_assert_eq(profdb_cube_region_get(c, i, &g), 0);
		cr_assert(g.name && g.module && g.role);
	}
	uint32_t roots = 0;
	for (uint32_t i = 0; i < info.n_cnodes; i++) {
		profdb_cube_cnode n;
		cr_assert_eq(profdb_cube_cnode_get(c, i, &n), 0);
		cr_assert(n.region < info.n_regions && n.region_name);
		roots += n.parent == PROFDB_NONE;
		for (uint32_t k = 0; k < n.n_params; k++) {
			const char *key, *val;
			int num;
			cr_assert_eq(profdb_cube_cnode_param(c, i, k, &key, &val, &num), 0);
		}
		cr_assert_eq(profdb_cube_cnode_param(c, i, n.n_params, NULL, NULL, NULL), -ENOENT);
	}
	uint32_t chain = 0;
	for (uint32_t r = info.first_root; r != PROFDB_NONE && chain <= info.n_cnodes; chain++) {
		profdb_cube_cnode n;
		cr_assert_eq(profdb_cube_cnode_get(c, r, &n), 0);
		cr_assert_eq(n.parent, PROFDB_NONE);
		r = n.next_sibling;
	}
	cr_assert_eq(chain, roots);
	for (uint32_t i = 0; i < info.n_locations; i++) {
		profdb_cube_location l;
		cr_assert_eq(profdb_cube_location_get(c, i, &l), 0);
		cr_assert(l.name && l.type && l.group_name && l.node_name);
	}
	cr_assert_eq(profdb_cube_metric_get(c, info.n_metrics, &(profdb_cube_metric){0}), -ENOENT);
	double *row = NULL;
	for (uint32_t m = 0; m < info.n_metrics; m++) {
		profdb_cube_metric mm;
		cr_assert_eq(profdb_cube_metric_get(c, m, &mm), 0);
		cr_assert(mm.name && mm.unit && mm.dtype_name);
		size_t rb = (size_t)mm.value_size * info.n_locations;
		unsigned char *rowb = malloc(rb + 1);
		cr_assert(rowb);
		for (uint32_t n = 0; n < info.n_cnodes; n++) {
			int rr = profdb_cube_row(c, m, n, rowb, rb);
			if (rr < 0) {
				if (strict)
					cr_assert_fail("row %u/%u: %s", m, n, profdb_error_message());
				check_failure(rr, "profdb_cube_row");
				continue;
			}
			if (rb && profdb_cube_row(c, m, n, rowb, rb - 1) != -ERANGE)
				cr_assert_fail("short buffer accepted");
			for (uint32_t l = 0; l < info.n_locations; l++) {
				double d;
				int r = profdb_cube_value(c, m, n, l, &d);
				if (r == -ENOTSUP && mm.dtype > PROFDB_CUBE_MAXDOUBLE)
					continue;
				if (r < 0) {
					if (strict)
						cr_assert_fail("value %u/%u/%u: %s", m, n, l, profdb_error_message());
					check_failure(r, "profdb_cube_value");
					continue;
				}
				cr_assert_eq(r, rr, "value and row disagree on presence");
				stored += r;
				if (mm.dtype == PROFDB_CUBE_DOUBLE || mm.dtype == PROFDB_CUBE_MINDOUBLE ||
				    mm.dtype == PROFDB_CUBE_MAXDOUBLE) {
					double e;
					memcpy(&e, rowb + (size_t)l * 8, 8);
					cr_assert(memcmp(&e, &d, 8) == 0, "row and value differ");
				}
			}
		}
		free(rowb);
	}
	free(row);
	double d;
	cr_assert_eq(profdb_cube_value(c, 0, 0, info.n_locations, &d),
	             info.n_metrics && info.n_cnodes ? -ENOENT : -ENOENT);
	return stored;
}

/* ---- real files ------------------------------------------------------------------ */

static const struct {
	const char *file;
	uint32_t metrics, cnodes, locations, roots;
} known[] = {
	{"MetaCG-001.cubex", 14, 7, 8, 1},
	{"MetaCG-444.namd.clang.cubex", 6, 159, 1, 1},
	{"MetaCG-circle.cubex", 4, 6, 1, 1},
	{"MetaCG-drops-filtered1.cubex", 6, 3150, 1, 21},
	{"MetaCG-exp4.cubex", 8, 10, 1, 1},
	{"Score-P-proxy.cubex", 2, 236, 1, 8},
	{"Score-P-summary.cubex", 80, 89, 64, 1},
	{"Score-P-test0.0.cubex", 3, 3, 2, 1},
	{"cupybe-profile-5m-nproc20-nsteps10.cubex", 12, 171, 20, 1},
	{"cupybe-profile.wsampling.cubex", 11, 241, 1, 1},
	{"cupybe-scorep_MaPFlowInstrumentedOpenMPIhomebrewed_40_c01.cubex", 14, 171, 40, 1},
	{"extrap-example.f1.cubex", 2, 5, 4, 1},
	{"extrap-example.f2.cubex", 2, 5, 4, 1},
	{"extrap-gpu.s128.cubex", 16, 5955, 3, 1},
	{"extrap-lulesh.p27.size25.r1.cubex", 14, 12, 27, 1},
	{"extrap-mm.x25y25z25.r1.cubex", 9, 4, 1, 1},
	{"hatchet-scorep-cpi-cubex.cubex", 11, 11, 4, 1},
	{"pycubexr-L2_DCM_negative.cubex", 15, 280, 128, 1},
	{"pycubexr-blast.p64.r1.cubex", 15, 32, 64, 1},
	{"pycubexr-call_tree_test.cubex", 8, 18, 1, 1},
	{"pycubexr-cube-values_example.cubex", 18, 3, 4, 1},
	{"pycubexr-cube4.8_with_checksum_bug.cubex", 10, 127, 8, 1},
	{"pycubexr-fastest.p16.size131072.r1.cubex", 12, 584, 16, 1},
	{"pycubexr-time.p4.n2000.x1.r0.cubex", 10, 46, 4, 1},
};

static int warnings;
static void count_warn(const char *msg, void *ud)
{
	(void)ud;
	cr_assert(msg && msg[0]);
	warnings++;
}

Test(cube, real_files)
{
	char *dir = tc_sample_path("cube");
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	cr_assert(n >= 0);
	int opened = 0;
	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);
		if (l < 6 || strcmp(nm + l - 6, ".cubex") != 0) {
			free(names[i]);
			continue;
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, nm);
		profdb_options o = {sizeof o, 0, count_warn, NULL};
		profdb_cube *c;
		int r = profdb_cube_open(&c, path, &o);
		cr_assert_eq(r, 0, "%s: %s", nm, profdb_error_message());
		profdb_cube_info info;
		cr_assert_eq(profdb_cube_get_info(c, &info), 0);
		int found = 0;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
			if (strcmp(known[k].file, nm) != 0)
				continue;
			found = 1;
			cr_expect_eq(info.n_metrics, known[k].metrics, "%s metrics", nm);
			cr_expect_eq(info.n_cnodes, known[k].cnodes, "%s cnodes", nm);
			cr_expect_eq(info.n_locations, known[k].locations, "%s locations", nm);
			uint32_t roots = 0;
			for (uint32_t id = 0; id < info.n_cnodes; id++) {
				profdb_cube_cnode cn;
				profdb_cube_cnode_get(c, id, &cn);
				roots += cn.parent == PROFDB_NONE;
			}
			cr_expect_eq(roots, known[k].roots, "%s roots", nm);
		}
		cr_expect(found, "%s: not in the table of known samples", nm);
		drive(c, 1);
		profdb_cube_close(c);
		opened++;
		free(names[i]);
	}
	free(names);
	free(dir);
	cr_assert(opened > 0);
}

/* Spot checks on files that exercise particular facts. */
Test(cube, real_details)
{
	char *path = tc_sample_path("cube/pycubexr-cube-values_example.cubex");
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	/* location Ids out of document order: ids still 0..3 */
	int seen_types = 0;
	for (uint32_t m = 0; m < 18; m++) {
		profdb_cube_metric mm;
		cr_assert_eq(profdb_cube_metric_get(c, m, &mm), 0);
		cr_assert(mm.has_data);
		if (mm.dtype == PROFDB_CUBE_TAU_ATOMIC) {
			cr_assert_eq(mm.value_size, 36);
			seen_types |= 1;
		}
		if (mm.dtype == PROFDB_CUBE_HISTOGRAM) {
			cr_assert_eq(mm.dtype_arg, 5);
			cr_assert_eq(mm.value_size, 56);
			seen_types |= 2;
		}
		if (mm.dtype == PROFDB_CUBE_NDOUBLES) {
			cr_assert_eq(mm.dtype_arg, 10);
			seen_types |= 4;
		}
		if (mm.dtype == PROFDB_CUBE_SCALE_FUNC)
			seen_types |= 8;
	}
	cr_assert_eq(seen_types, 15);
	profdb_cube_close(c);
	free(path);

	path = tc_sample_path("cube/extrap-gpu.s128.cubex");
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	uint32_t params = 0;
	int n = profdb_cube_cnode_count(c);
	for (int i = 0; i < n; i++) {
		profdb_cube_cnode cn;
		profdb_cube_cnode_get(c, (uint32_t)i, &cn);
		for (uint32_t k = 0; k < cn.n_params; k++) {
			int num;
			const char *key, *val;
			cr_assert_eq(profdb_cube_cnode_param(c, (uint32_t)i, k, &key, &val, &num), 0);
			params += num;
		}
	}
	cr_assert_eq(params, 41);
	profdb_cube_close(c);
	free(path);

	path = tc_sample_path("cube/Score-P-test0.0.cubex");
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	profdb_cube_location l;
	cr_assert_eq(profdb_cube_location_get(c, 0, &l), 0);
	cr_assert_str_eq(l.type, "thread");
	profdb_cube_close(c);
	free(path);
}

/* ---- reference CSVs ---------------------------------------------------------------- */

/* Call-tree exclusive or inclusive value of every (cnode, location), as
 * CubeLib computes it from stored values (doc/FORMATS.md, "Cube"). */
static void derive_values(const profdb_cube *c, uint32_t m, int want_incl, double *out)
{
	profdb_cube_metric mm;
	profdb_cube_metric_get(c, m, &mm);
	uint32_t nc = (uint32_t)profdb_cube_cnode_count(c), nl = (uint32_t)profdb_cube_location_count(c);
	double *own = calloc((size_t)nc * nl + 1, sizeof *own);
	cr_assert(own);
	for (uint32_t n = 0; n < nc; n++)
		for (uint32_t l = 0; l < nl; l++)
			cr_assert(profdb_cube_value(c, m, n, l, &own[(size_t)n * nl + l]) >= 0);
	int minmax = mm.dtype == PROFDB_CUBE_MINDOUBLE ? -1 : mm.dtype == PROFDB_CUBE_MAXDOUBLE;
	for (uint32_t n = 0; n < nc; n++) {
		profdb_cube_cnode cn;
		profdb_cube_cnode_get(c, n, &cn);
		for (uint32_t l = 0; l < nl; l++) {
			double v = own[(size_t)n * nl + l];
			if (mm.kind == PROFDB_CUBE_INCLUSIVE && !want_incl) {
				for (uint32_t ch = cn.first_child; ch != PROFDB_NONE;) {
					profdb_cube_cnode cc;
					profdb_cube_cnode_get(c, ch, &cc);
					v -= own[(size_t)ch * nl + l];
					ch = cc.next_sibling;
				}
			} else if (mm.kind != PROFDB_CUBE_INCLUSIVE && want_incl) {
				/* subtree aggregate: walk the subtree with an explicit stack */
				uint32_t *stack = malloc(sizeof *stack * (nc + 1));
				size_t sp = 0;
				cr_assert(stack);
				if (cn.first_child != PROFDB_NONE)
					stack[sp++] = cn.first_child;
				while (sp) {
					uint32_t x = stack[--sp];
					profdb_cube_cnode xc;
					profdb_cube_cnode_get(c, x, &xc);
					double w = own[(size_t)x * nl + l];
					if (minmax < 0)
						v = w < v ? w : v;
					else if (minmax > 0)
						v = w > v ? w : v;
					else
						v += w;
					if (xc.next_sibling != PROFDB_NONE)
						stack[sp++] = xc.next_sibling;
					if (xc.first_child != PROFDB_NONE)
						stack[sp++] = xc.first_child;
				}
				free(stack);
			}
			out[(size_t)n * nl + l] = v;
		}
	}
	free(own);
}

static void compare_csv(const char *cube_rel, const char *csv_rel, int incl)
{
	char *path = tc_sample_path(cube_rel), *csv = tc_sample_path(csv_rel);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	FILE *f = fopen(csv, "r");
	cr_assert(f);
	char line[65536];
	cr_assert(fgets(line, sizeof line, f));
	/* header: Cnode ID, Thread ID, metric names */
	uint32_t cols[256], ncols = 0, nm = (uint32_t)profdb_cube_metric_count(c);
	char *save, *tok = strtok_r(line, ",\r\n", &save);
	for (int k = 0; tok; k++, tok = strtok_r(NULL, ",\r\n", &save)) {
		while (*tok == ' ')
			tok++;
		if (k < 2)
			continue;
		uint32_t id = PROFDB_NONE;
		for (uint32_t m = 0; m < nm; m++) {
			profdb_cube_metric mm;
			profdb_cube_metric_get(c, m, &mm);
			if (strcmp(mm.name, tok) == 0)
				id = m;
		}
		cr_assert_neq(id, PROFDB_NONE, "CSV metric %s not in the anchor", tok);
		cr_assert(ncols < 256);
		cols[ncols++] = id;
	}
	uint32_t nc = (uint32_t)profdb_cube_cnode_count(c), nl = (uint32_t)profdb_cube_location_count(c);
	double **vals = calloc(ncols, sizeof *vals);
	cr_assert(vals);
	for (uint32_t k = 0; k < ncols; k++) {
		vals[k] = malloc(((size_t)nc * nl + 1) * sizeof **vals);
		cr_assert(vals[k]);
		derive_values(c, cols[k], incl, vals[k]);
	}
	uint64_t compared = 0, rows = 0;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		unsigned long cn = strtoul(p, &end, 10);
		cr_assert(*end == ',');
		unsigned long loc = strtoul(end + 1, &end, 10);
		cr_assert(cn < nc && loc < nl);
		rows++;
		for (uint32_t k = 0; k < ncols; k++) {
			cr_assert(*end == ',', "short CSV row");
			double want = strtod(end + 1, &end);
			double got = vals[k][cn * nl + loc];
			double tol = 2e-5 * maxd(absd(want), absd(got)) + 1e-9;
			cr_expect(absd(got - want) <= tol, "%s %s: cnode %lu loc %lu metric %u: got %.12g "
			          "want %.12g", cube_rel, incl ? "incl" : "excl", cn, loc, cols[k], got, want);
			compared++;
		}
	}
	cr_assert_eq(rows, (uint64_t)nc * nl, "CSV has one row per (cnode, location)");
	fclose(f);
	for (uint32_t k = 0; k < ncols; k++)
		free(vals[k]);
	free(vals);
	profdb_cube_close(c);
	free(path);
	free(csv);
	cr_assert(compared > 0);
}

Test(cube, csv_blast)
{
	compare_csv("cube/pycubexr-blast.p64.r1.cubex", "cube/reference-csv/blast.p64.r1/excl.csv", 0);
	compare_csv("cube/pycubexr-blast.p64.r1.cubex", "cube/reference-csv/blast.p64.r1/incl.csv", 1);
}

Test(cube, csv_call_tree_test)
{
	compare_csv("cube/pycubexr-call_tree_test.cubex",
	            "cube/reference-csv/call_tree_test/excl.csv", 0);
	compare_csv("cube/pycubexr-call_tree_test.cubex",
	            "cube/reference-csv/call_tree_test/incl.csv", 1);
}

Test(cube, csv_time)
{
	compare_csv("cube/pycubexr-time.p4.n2000.x1.r0.cubex",
	            "cube/reference-csv/time.p4.n2000.x1.r0/excl.csv", 0);
	compare_csv("cube/pycubexr-time.p4.n2000.x1.r0.cubex",
	            "cube/reference-csv/time.p4.n2000.x1.r0/incl.csv", 1);
}

#ifdef HAVE_TEST_WRITER
/* ---- the writer's sample ------------------------------------------------------------- */

static void check_sample(unsigned flags)
{
	tw_blob b;
	int w = tw_cube_write(&b, flags, NULL);
	if (w == -ENOTSUP)
		return;
	cr_assert_eq(w, 0);
	profdb_cube *c;
	warnings = 0;
	profdb_options o = {sizeof o, 0, count_warn, NULL};
	int r = profdb_cube_open_mem(&c, b.data, b.size, &o);
	cr_assert_eq(r, 0, "flags %#x: %s", flags, profdb_error_message());
	cr_assert_eq(warnings, (flags & TW_CUBE_BAD_CHECKSUM) ? 1 : 0, "flags %#x", flags);
	profdb_cube_info info;
	cr_assert_eq(profdb_cube_get_info(c, &info), 0);
	uint32_t nmet = TW_CUBE_METRICS + ((flags & TW_CUBE_DERIVED) ? 1 : 0);
	cr_assert_eq(info.n_metrics, nmet);
	cr_assert_eq(info.n_cnodes, TW_CUBE_CNODES);
	cr_assert_eq(info.n_locations, TW_CUBE_LOCATIONS);
	cr_assert_eq(info.n_regions, TW_CUBE_REGIONS);
	cr_assert_eq(info.n_location_groups, 2);
	cr_assert_eq(info.n_system_nodes, 2);
	cr_assert_eq(info.first_root, 3);
	cr_assert_eq(info.gzipped, (flags & TW_CUBE_GZIP_ARCHIVE) ? 1 : 0);
	cr_assert_str_eq(info.anchor_version, "4.4");
	cr_assert_str_eq(info.creator, "profdb test writer");

	profdb_cube_metric m;
	cr_assert_eq(profdb_cube_metric_get(c, 0, &m), 0);
	cr_assert_str_eq(m.name, "time");
	cr_assert_str_eq(m.display_name, "Time");
	cr_assert_str_eq(m.description, "Time & more");
	cr_assert_str_eq(m.unit, "sec");
	cr_assert_eq(m.first_child, 1);
	cr_assert_eq(m.next_sibling, 2);
	cr_assert_eq(profdb_cube_metric_get(c, 1, &m), 0);
	cr_assert_eq(m.parent, 0);
	cr_assert_eq(m.dtype, PROFDB_CUBE_MINDOUBLE);
	cr_assert_eq(profdb_cube_metric_get(c, 2, &m), 0);
	cr_assert_eq(m.kind, PROFDB_CUBE_INCLUSIVE);
	cr_assert_eq(m.dtype, PROFDB_CUBE_UINT64);
	cr_assert_eq(profdb_cube_metric_get(c, 3, &m), 0);
	cr_assert_eq(m.kind, PROFDB_CUBE_EXCLUSIVE);
	cr_assert_eq(m.has_data, 0);
	if (flags & TW_CUBE_DERIVED) {
		cr_assert_eq(profdb_cube_metric_get(c, 5, &m), 0);
		cr_assert_eq(m.kind, PROFDB_CUBE_POSTDERIVED);
		cr_assert_eq(m.has_data, 0);
		double d;
		cr_assert_eq(profdb_cube_value(c, 5, 0, 0, &d), 0);
	}

	profdb_cube_cnode n;
	cr_assert_eq(profdb_cube_cnode_get(c, 3, &n), 0);
	cr_assert_eq(n.first_child, 0);
	cr_assert_eq(n.next_sibling, 2);
	cr_assert_str_eq(n.region_name, "main");
	cr_assert_eq(profdb_cube_cnode_get(c, 0, &n), 0);
	cr_assert_eq(n.line, 12);
	cr_assert_str_eq(n.module, "a.c");
	cr_assert_eq(n.next_sibling, 1);
	cr_assert_eq(profdb_cube_cnode_get(c, 2, &n), 0);
	cr_assert_eq(n.n_params, 2);
	const char *key, *val;
	int num;
	cr_assert_eq(profdb_cube_cnode_param(c, 2, 1, &key, &val, &num), 0);
	cr_assert_str_eq(key, "mode");
	cr_assert_str_eq(val, "fast");
	cr_assert_eq(num, 0);

	profdb_cube_location l;
	cr_assert_eq(profdb_cube_location_get(c, 2, &l), 0);
	cr_assert_str_eq(l.name, "thread 1");
	cr_assert_eq(l.rank, 1);
	cr_assert_eq(l.process_rank, 0);
	cr_assert_str_eq(l.node_name, "node0");
	cr_assert_eq(profdb_cube_location_get(c, 1, &l), 0);
	cr_assert_eq(l.process_rank, 1);

	for (uint32_t mi = 0; mi < TW_CUBE_METRICS; mi++)
		for (uint32_t ci = 0; ci < TW_CUBE_CNODES; ci++) {
			unsigned char row[64];
			int rr = profdb_cube_row(c, mi, ci, row, sizeof row);
			for (uint32_t li = 0; li < TW_CUBE_LOCATIONS; li++) {
				double want, got;
				int e = tw_cube_expected(flags, mi, ci, li, &want);
				r = profdb_cube_value(c, mi, ci, li, &got);
				cr_assert_eq(r, e, "flags %#x m %u c %u l %u: %d (%s)", flags, mi, ci, li, r,
				             profdb_error_message());
				cr_assert_eq(rr, e);
				cr_assert(got == want, "flags %#x m %u c %u l %u: %g != %g", flags, mi, ci,
				          li, got, want);
				if (mi == 2) {
					uint64_t u;
					memcpy(&u, row + li * 8, 8);
					cr_assert_eq((double)u, want);
				} else if (mi == 4) {
					int16_t s;
					memcpy(&s, row + li * 2, 2);
					cr_assert_eq((double)s, want);
				} else if (mi != 3) {
					double d;
					memcpy(&d, row + li * 8, 8);
					cr_assert_eq(d, want);
				}
			}
		}
	drive(c, 1);
	profdb_cube_close(c);
	free(b.data);
}

Test(cube, sample_variants)
{
	static const unsigned variants[] = {
		0,
		TW_CUBE_BIG_ENDIAN,
		TW_CUBE_ZCUBEX,
		TW_CUBE_DENSE,
		TW_CUBE_BAD_CHECKSUM,
		TW_CUBE_CUBEW_PAD | TW_CUBE_EXACT_BLOCK,
		TW_CUBE_EXACT_BLOCK,
		TW_CUBE_DERIVED,
		TW_CUBE_SIMPLE,
		TW_CUBE_SIMPLE | TW_CUBE_DENSE | TW_CUBE_ZCUBEX,
		TW_CUBE_GZIP_ANCHOR,
		TW_CUBE_GZIP_ARCHIVE,
		TW_CUBE_BIG_ENDIAN | TW_CUBE_ZCUBEX | TW_CUBE_DENSE,
		TW_CUBE_BIG_ENDIAN | TW_CUBE_ZCUBEX | TW_CUBE_GZIP_ANCHOR | TW_CUBE_DERIVED |
			TW_CUBE_BAD_CHECKSUM | TW_CUBE_CUBEW_PAD | TW_CUBE_GZIP_ARCHIVE,
	};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
		check_sample(variants[i]);
}

/* ---- bad input ------------------------------------------------------------------------ */

static void expect_open_fail(const unsigned char *data, size_t size, int code,
                             const char *needle1, const char *needle2)
{
	profdb_cube *c = (profdb_cube *)1;
	int r = profdb_cube_open_mem(&c, data, size, NULL);
	cr_assert_eq(r, code, "expected %d, got %d (%s)", code, r, profdb_error_message());
	cr_assert_null(c);
	const char *msg = profdb_error_message();
	cr_assert(strstr(msg, "(memory)"), "message without the file: %s", msg);
	if (needle1)
		cr_assert(strstr(msg, needle1), "message without '%s': %s", needle1, msg);
	if (needle2)
		cr_assert(strstr(msg, needle2), "message without '%s': %s", needle2, msg);
}

static void write_flags(tw_blob *b, unsigned flags, const char *anchor)
{
	cr_assert_eq(tw_cube_write(b, flags, anchor), 0);
}

/* Offset of the header of member @p name (the writer's 512-aligned layout). */
static size_t header_of(const tw_blob *b, const char *name)
{
	for (size_t off = 0; off + 512 <= b->size; off += 512)
		if (strcmp((const char *)b->data + off, name) == 0 &&
		    memcmp(b->data + off + 257, "ustar", 5) == 0)
			return off;
	cr_assert_fail("no member %s", name);
	return 0;
}

Test(cube, bad_truncated)
{
	tw_blob b;
	write_flags(&b, 0, NULL);
	size_t anchor = header_of(&b, "anchor.xml");
	/* inside anchor.xml's data */
	expect_open_fail(b.data, anchor + 600, -ENODATA, "anchor.xml", "offset");
	/* inside a header */
	expect_open_fail(b.data, anchor + 100, -ENODATA, "offset", NULL);
	/* inside the first member */
	expect_open_fail(b.data, 520, -ENODATA, "1.data", "offset");
	/* before any member */
	profdb_cube *c;
	cr_assert_lt(profdb_cube_open_mem(&c, b.data, 0, NULL), 0);
	free(b.data);
}

Test(cube, bad_member_size)
{
	tw_blob b;
	write_flags(&b, 0, NULL);
	size_t h = header_of(&b, "4.data");
	memcpy(b.data + h + 124, "77777777777", 11); /* runs past the end */
	expect_open_fail(b.data, b.size, -ENODATA, "4.data", "offset");
	memcpy(b.data + h + 124, "0000000zzzz", 11); /* not a number */
	expect_open_fail(b.data, b.size, -EBADMSG, "4.data", "offset");
	free(b.data);
}

Test(cube, bad_no_anchor)
{
	tw_blob b;
	write_flags(&b, TW_CUBE_NO_ANCHOR, NULL);
	expect_open_fail(b.data, b.size, -ENOENT, "anchor.xml", NULL);
	free(b.data);
}

Test(cube, bad_not_tar)
{
	unsigned char junk[2048];
	memset(junk, 'j', sizeof junk);
	expect_open_fail(junk, sizeof junk, -EPROTONOSUPPORT, "offset 0", NULL);
	/* gzip magic, then garbage */
	junk[0] = 0x1f;
	junk[1] = 0x8b;
	profdb_cube *c;
	int r = profdb_cube_open_mem(&c, junk, sizeof junk, NULL);
	check_failure(r, "open");
}

static void bad_anchor(const char *xml, int code, const char *needle)
{
	tw_blob b;
	write_flags(&b, 0, xml);
	expect_open_fail(b.data, b.size, code, "anchor.xml", needle);
	free(b.data);
}

Test(cube, bad_xml)
{
	char *good = tw_cube_anchor(0);
	cr_assert(good);
	/* cut in the middle: not well-formed */
	good[strlen(good) / 2] = 0;
	bad_anchor(good, -EBADMSG, "line");
	free(good);
	/* an unquoted attribute outside <cubepl> is not repaired */
	bad_anchor("<?xml version=\"1.0\"?><cube version=\"4.4\"><metrics><metric id=0>"
	           "</metric></metrics></cube>", -EBADMSG, "line");
	bad_anchor("<?xml version=\"1.0\"?><cube version=\"9.9\"></cube>", -EPROTONOSUPPORT,
	           "version");
	bad_anchor("<?xml version=\"1.0\"?><!DOCTYPE cube [<!ENTITY a \"aaaa\">]><cube "
	           "version=\"4.4\"></cube>", -EBADMSG, "DOCTYPE");
	bad_anchor("<?xml version=\"1.0\"?><notcube/>", -EBADMSG, "cube");
	bad_anchor("<?xml version=\"1.0\"?><cube version=\"4.4\"><metrics><metric id=\"0\"/>"
	           "<metric id=\"0\"/></metrics></cube>", -EBADMSG, "repeated");
	bad_anchor("<?xml version=\"1.0\"?><cube version=\"4.4\"><program><region id=\"0\"/>"
	           "<cnode id=\"0\" calleeId=\"7\"/></program></cube>", -EBADMSG, "region");
	bad_anchor("<?xml version=\"1.0\"?><cube version=\"4.4\"><program>"
	           "<cnode id=\"x\" calleeId=\"0\"/></program></cube>", -EBADMSG, "id");
	bad_anchor("", -EBADMSG, "line");
}

Test(cube, bad_index)
{
	tw_blob b;
	write_flags(&b, TW_CUBE_BAD_POSITION, NULL);
	expect_open_fail(b.data, b.size, -EBADMSG, "0.index", "offset");
	free(b.data);
	write_flags(&b, TW_CUBE_ABSURD_COUNT, NULL);
	expect_open_fail(b.data, b.size, -EBADMSG, "0.index", "offset");
	free(b.data);
	write_flags(&b, TW_CUBE_SHORT_DATA, NULL);
	expect_open_fail(b.data, b.size, -EBADMSG, "2.data", "offset");
	free(b.data);
	/* a wrong endianness marker */
	write_flags(&b, 0, NULL);
	size_t h = header_of(&b, "2.index");
	b.data[h + 512 + 11] = 7;
	expect_open_fail(b.data, b.size, -EBADMSG, "2.index", "offset");
	free(b.data);
}

/* Every single-byte change and every truncation of the sample: whatever
 * opens must be fully readable without crashing; failures documented. */
static void mutate_all(unsigned flags)
{
	tw_blob b;
	if (tw_cube_write(&b, flags, NULL) == -ENOTSUP)
		return;
	unsigned char *copy = malloc(b.size);
	cr_assert(copy);
	uint64_t opened = 0;
	for (size_t i = 0; i < b.size; i++) {
		memcpy(copy, b.data, b.size);
		copy[i] ^= (unsigned char)(0x5a + i % 7);
		profdb_cube *c;
		int r = profdb_cube_open_mem(&c, copy, b.size, NULL);
		if (r == 0) {
			drive(c, 0);
			profdb_cube_close(c);
			opened++;
		} else {
			check_failure(r, "open");
		}
	}
	for (size_t len = 0; len < b.size; len += 1 + len / 64) {
		unsigned char *t = malloc(len ? len : 1);
		cr_assert(t);
		memcpy(t, b.data, len);
		profdb_cube *c;
		int r = profdb_cube_open_mem(&c, t, len, NULL);
		if (r == 0) {
			drive(c, 0);
			profdb_cube_close(c);
		} else {
			check_failure(r, "open");
		}
		free(t);
	}
	free(copy);
	free(b.data);
	cr_assert(opened > 0);
}

Test(cube, mutations)
{
	mutate_all(0);
	mutate_all(TW_CUBE_ZCUBEX | TW_CUBE_BIG_ENDIAN);
	mutate_all(TW_CUBE_DENSE | TW_CUBE_DERIVED | TW_CUBE_GZIP_ANCHOR);
}

/* ---- threads ------------------------------------------------------------------------- */

struct reader {
	const profdb_cube *c;
	unsigned flags;
	int bad;
};

static void *read_all(void *arg)
{
	struct reader *rd = arg;
	for (int rep = 0; rep < 50; rep++)
		for (uint32_t m = 0; m < TW_CUBE_METRICS; m++)
			for (uint32_t n = 0; n < TW_CUBE_CNODES; n++)
				for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++) {
					double want, got;
					int e = tw_cube_expected(rd->flags, m, n, l, &want);
					if (profdb_cube_value(rd->c, m, n, l, &got) != e || got != want)
						rd->bad++;
				}
	return NULL;
}

Test(cube, threads_zcubex)
{
	tw_blob b;
	unsigned flags = TW_CUBE_ZCUBEX;
	if (tw_cube_write(&b, flags, NULL) == -ENOTSUP)
		cr_skip_test("no zlib");
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0);
	pthread_t t[4];
	struct reader rd[4];
	for (int i = 0; i < 4; i++) {
		rd[i] = (struct reader){c, flags, 0};
		cr_assert_eq(pthread_create(&t[i], NULL, read_all, &rd[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(rd[i].bad, 0);
	}
	profdb_cube_close(c);
	free(b.data);
}
#endif

Test(cube, arguments)
{
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open(NULL, "x", NULL), -EINVAL);
	cr_assert_eq(profdb_cube_open(&c, "/nonexistent/file.cubex", NULL), -ENOENT);
	cr_assert_null(c);
	cr_assert_eq(profdb_cube_metric_count(NULL), -EINVAL);
	profdb_cube_close(NULL);
}

TC_MAIN
