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
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "profdb/profdb.h"
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
		cr_assert(g.name.ptr && g.module.ptr && g.role.ptr);
	}
	uint32_t roots = 0;
	for (uint32_t i = 0; i < info.n_cnodes; i++) {
		profdb_cube_cnode n;
		cr_assert_eq(profdb_cube_cnode_get(c, i, &n), 0);
		cr_assert(n.region < info.n_regions && n.region_name.ptr);
		roots += n.parent == PROFDB_NONE;
		for (uint32_t k = 0; k < n.n_params; k++) {
			profdb_cube_param pa;
			cr_assert_eq(profdb_cube_cnode_param_at(c, i, k, &pa), 0);
			cr_assert(pa.key.ptr && pa.value.ptr);
		}
		profdb_cube_param pa;
		cr_assert_eq(profdb_cube_cnode_param_at(c, i, n.n_params, &pa), -ENOENT);
		cr_assert(pa.key.ptr && pa.key.len == 0, "cleared on -ENOENT");
		cr_assert_eq(profdb_cube_cnode_param_at(c, i, 0, NULL), -EINVAL);
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
		cr_assert(l.name.ptr && l.type.ptr && l.group_name.ptr && l.node_name.ptr);
	}
	cr_assert_eq(profdb_cube_metric_get(c, info.n_metrics, &(profdb_cube_metric){0}), -ENOENT);
	for (uint32_t i = 0; i < info.n_location_groups; i++) {
		profdb_cube_location_group g;
		cr_assert_eq(profdb_cube_location_group_at(c, i, &g), 0);
		cr_assert(g.name.ptr && g.type.ptr && (g.node == PROFDB_NONE || g.node < info.n_system_nodes));
	}
	for (uint32_t i = 0; i < info.n_system_nodes; i++) {
		profdb_cube_system_node sn;
		cr_assert_eq(profdb_cube_system_node_at(c, i, &sn), 0);
		cr_assert(sn.name.ptr && sn.klass.ptr && (sn.parent == PROFDB_NONE || sn.parent < i));
	}
	for (uint32_t i = 0; i < info.n_attrs; i++) {
		profdb_cube_attr a;
		cr_assert_eq(profdb_cube_attr_at(c, i, &a), 0);
		cr_assert(a.key.ptr && a.value.ptr);
	}
	cr_assert_eq(profdb_cube_attr_at(c, info.n_attrs, &(profdb_cube_attr){0}), -ENOENT);
	for (uint32_t k = 0; k < info.n_carts; k++) {
		profdb_cube_cart ct;
		cr_assert_eq(profdb_cube_cart_at(c, k, &ct), 0);
		for (uint32_t d = 0; d < ct.ndims; d++)
			cr_assert_eq(profdb_cube_cart_dim_at(c, k, d, &(profdb_cube_dim){0}), 0);
		cr_assert_eq(profdb_cube_cart_dim_at(c, k, ct.ndims, &(profdb_cube_dim){0}), -ENOENT);
		for (uint32_t i = 0; i < ct.n_coords; i++) {
			profdb_cube_coord co;
			cr_assert_eq(profdb_cube_cart_coord_at(c, k, i, &co), 0);
			cr_assert(co.values);
			uint32_t lim = co.kind == PROFDB_CUBE_ITEM_LOCATION ? info.n_locations
			               : co.kind == PROFDB_CUBE_ITEM_LOCATION_GROUP ? info.n_location_groups
			                                                             : info.n_system_nodes;
			cr_assert_lt(co.item, lim);
		}
	}
	double *row = NULL;
	for (uint32_t m = 0; m < info.n_metrics; m++) {
		profdb_cube_metric mm;
		cr_assert_eq(profdb_cube_metric_get(c, m, &mm), 0);
		cr_assert(mm.name.ptr && mm.unit.ptr && mm.dtype_name.ptr);
		size_t rb = (size_t)mm.value_size * info.n_locations;
		unsigned char *rowb = malloc(rb + 1);
		cr_assert(rowb);
		for (uint32_t n = 0; n < info.n_cnodes; n++) {
			int rr = profdb_cube_row_get(c, n, m, rowb, rb);
			if (rr < 0) {
				if (strict)
					cr_assert_fail("row %u/%u: %s", m, n, profdb_error_message());
				check_failure(rr, "profdb_cube_row_get");
				continue;
			}
			stored += rr ? info.n_locations : 0;
			for (unsigned fl = 0; fl < 4; fl++) {
				double sev;
				int sr = profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, n, m, fl, &sev);
				if (sr == -ENOTSUP && (mm.dtype > PROFDB_CUBE_MAXDOUBLE ||
				                       mm.kind >= PROFDB_CUBE_POSTDERIVED || (fl & 2)))
					continue;
				if (sr < 0 && strict)
					cr_assert_fail("severity %u/%u: %s", m, n, profdb_error_message());
				if (sr < 0)
					check_failure(sr, "profdb_cube_severity_get");
			}
			if (rb && profdb_cube_row_get(c, n, m, rowb, rb - 1) != -ERANGE)
				cr_assert_fail("short buffer accepted");
			for (uint32_t l = 0; l < info.n_locations; l++) {
				double d;
				int r = profdb_cube_value_get(c, l, n, m, &d);
				if (r == -ENOTSUP && mm.dtype > PROFDB_CUBE_MAXDOUBLE)
					continue;
				if (r < 0) {
					if (strict)
						cr_assert_fail("value %u/%u/%u: %s", m, n, l, profdb_error_message());
					check_failure(r, "profdb_cube_value_get");
					continue;
				}
				cr_assert_eq(r, rr, "value and row disagree on presence");
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
	cr_assert_eq(profdb_cube_value_get(c, info.n_locations, 0, 0, &d),
	             info.n_metrics && info.n_cnodes ? -ENOENT : -ENOENT);
	return stored;
}

/* ---- real files ------------------------------------------------------------------ */

static const struct {
	const char *file;
	uint32_t metrics, cnodes, locations, roots;
	uint32_t with_data;  /* metrics with .index/.data members */
	uint64_t cells;      /* rows present in the indexes x locations, over those metrics */
} known[] = {
	/* counts checked independently with a Python tar/XML/index reader */
	{"MetaCG-001.cubex", 14, 7, 8, 1, 4, 224},
	{"MetaCG-444.namd.clang.cubex", 6, 159, 1, 1, 4, 636},
	{"MetaCG-circle.cubex", 4, 6, 1, 1, 4, 24},
	{"MetaCG-drops-filtered1.cubex", 6, 3150, 1, 21, 4, 12600},
	{"MetaCG-exp4.cubex", 8, 10, 1, 1, 4, 40},
	{"Score-P-proxy.cubex", 2, 236, 1, 8, 2, 472},
	{"Score-P-summary.cubex", 80, 89, 64, 1, 78, 444288},
	{"Score-P-test0.0.cubex", 3, 3, 2, 1, 3, 10},
	{"cupybe-profile-5m-nproc20-nsteps10.cubex", 12, 171, 20, 1, 6, 14280},
	{"cupybe-profile.wsampling.cubex", 11, 241, 1, 1, 5, 1205},
	{"cupybe-scorep_MaPFlowInstrumentedOpenMPIhomebrewed_40_c01.cubex", 14, 171, 40, 1, 8,
	 42240},
	{"extrap-example.f1.cubex", 2, 5, 4, 1, 2, 36},
	{"extrap-example.f2.cubex", 2, 5, 4, 1, 2, 36},
	{"extrap-gpu.s128.cubex", 16, 5955, 3, 1, 13, 71790},
	{"extrap-lulesh.p27.size25.r1.cubex", 14, 12, 27, 1, 3, 972},
	{"extrap-mm.x25y25z25.r1.cubex", 9, 4, 1, 1, 7, 28},
	{"hatchet-scorep-cpi-cubex.cubex", 11, 11, 4, 1, 7, 236},
	{"pycubexr-L2_DCM_negative.cubex", 15, 280, 128, 1, 11, 325120},
	{"pycubexr-blast.p64.r1.cubex", 15, 32, 64, 1, 11, 20032},
	{"pycubexr-call_tree_test.cubex", 8, 18, 1, 1, 4, 72},
	{"pycubexr-cube-values_example.cubex", 18, 3, 4, 1, 18, 216},
	{"pycubexr-cube4.8_with_checksum_bug.cubex", 10, 127, 8, 1, 6, 4160},
	{"pycubexr-fastest.p16.size131072.r1.cubex", 12, 584, 16, 1, 6, 39104},
	{"pycubexr-time.p4.n2000.x1.r0.cubex", 10, 46, 4, 1, 6, 816},
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
		uint64_t cells = drive(c, 1);
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
			uint32_t with_data = 0;
			for (uint32_t m = 0; m < info.n_metrics; m++) {
				profdb_cube_metric mm;
				profdb_cube_metric_get(c, m, &mm);
				with_data += mm.has_data;
			}
			cr_expect_eq(with_data, known[k].with_data, "%s metrics with data", nm);
			cr_expect_eq(cells, known[k].cells, "%s stored cells", nm);
		}
		cr_expect(found, "%s: not in the table of known samples", nm);
		profdb_cube_close(c);
		opened++;
		free(names[i]);
	}
	free(names);
	free(dir);
	cr_expect_eq(opened, 24, "all 24 samples (found %d)", opened);
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
			profdb_cube_param pa;
			cr_assert_eq(profdb_cube_cnode_param_at(c, (uint32_t)i, k, &pa), 0);
			params += pa.numeric;
		}
	}
	cr_assert_eq(params, 41);
	profdb_cube_close(c);
	free(path);

	/* UINT64 values CubeLib turns into 0: stored exactly, 0 in severities */
	path = tc_sample_path("cube/pycubexr-L2_DCM_negative.cubex");
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	uint32_t dcm = PROFDB_NONE, huge = 0;
	for (uint32_t m = 0; m < (uint32_t)profdb_cube_metric_count(c); m++) {
		profdb_cube_metric mm;
		profdb_cube_metric_get(c, m, &mm);
		if (!strcmp(mm.name.ptr, "PAPI_L2_DCM"))
			dcm = m;
	}
	cr_assert_neq(dcm, PROFDB_NONE);
	uint32_t nl = (uint32_t)profdb_cube_location_count(c);
	uint64_t *row = malloc(nl * sizeof *row);
	cr_assert(row);
	for (uint32_t k = 0; k < (uint32_t)profdb_cube_cnode_count(c); k++) {
		if (profdb_cube_row_get(c, k, dcm, row, nl * sizeof *row) != 1)
			continue;
		for (uint32_t l = 0; l < nl; l++) {
			if (row[l] <= UINT64_C(0xFFFFFFFFFFFFFBFF))
				continue;
			huge++;
			double v, s;
			cr_assert_eq(profdb_cube_value_get(c, l, k, dcm, &v), 1);
			cr_assert(v == (double)row[l]);
			cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_LOCATION, l, k, dcm, 0, &s), 0);
			cr_assert(s == 0.0, "cnode %u location %u: %g", k, l, s);
		}
	}
	cr_assert_eq(huge, 28);
	free(row);
	profdb_cube_close(c);
	free(path);

	path = tc_sample_path("cube/Score-P-test0.0.cubex");
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	profdb_cube_location l;
	cr_assert_eq(profdb_cube_location_get(c, 0, &l), 0);
	cr_assert_str_eq(l.type.ptr, "thread");
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
			cr_assert(profdb_cube_value_get(c, l, n, m, &own[(size_t)n * nl + l]) >= 0);
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

/* A value printed the way cube_dump's CSV prints it: integers in full,
 * DOUBLE with 6 significant digits, MIN/MAXDOUBLE with 12, exponents with
 * three digits (the reference was written on Windows). */
static void csv_format(const profdb_cube_metric *m, double v, char *buf, size_t n)
{
	if (m->dtype <= PROFDB_CUBE_UINT64)
		snprintf(buf, n, "%.0f", v);
	else if (m->dtype == PROFDB_CUBE_MINDOUBLE || m->dtype == PROFDB_CUBE_MAXDOUBLE)
		snprintf(buf, n, "%.12g", v);
	else
		snprintf(buf, n, "%g", v);
	char *e = strchr(buf, 'e');
	if (e) {
		char sign = e[1];
		int x = atoi(e + 2);
		snprintf(e, n - (size_t)(e - buf), "e%c%03d", sign, x);
	}
}

/* Every cell of a reference CSV, compared as text with the library's
 * call-tree view (profdb_cube_severity_get per location, metric dimension as
 * stored), and with an independent re-derivation to a relative 2e-5. */
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
			if (strcmp(mm.name.ptr, tok) == 0)
				id = m;
		}
		cr_assert_neq(id, PROFDB_NONE, "CSV metric %s not in the anchor", tok);
		cr_assert(ncols < 256);
		cols[ncols++] = id;
	}
	cr_assert_eq(ncols, nm, "one column per metric, in anchor order");
	uint32_t nc = (uint32_t)profdb_cube_cnode_count(c), nl = (uint32_t)profdb_cube_location_count(c);
	double **vals = calloc(ncols, sizeof *vals);
	cr_assert(vals);
	for (uint32_t k = 0; k < ncols; k++) {
		vals[k] = malloc(((size_t)nc * nl + 1) * sizeof **vals);
		cr_assert(vals[k]);
		derive_values(c, cols[k], incl, vals[k]);
	}
	uint64_t compared = 0, rows = 0, differ = 0;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		unsigned long cn = strtoul(p, &end, 10);
		cr_assert(*end == ',');
		unsigned long loc = strtoul(end + 1, &end, 10);
		cr_assert(cn < nc && loc < nl);
		rows++;
		for (uint32_t k = 0; k < ncols; k++) {
			cr_assert(*end == ',', "short CSV row");
			char want[64], got[64];
			size_t j = 0;
			for (p = end + 1; *p && *p != ',' && *p != '\r' && *p != '\n' && j < 63; p++)
				want[j++] = *p;
			want[j] = 0;
			end = p;
			profdb_cube_metric mm;
			profdb_cube_metric_get(c, cols[k], &mm);
			double v;
			cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_LOCATION, (uint32_t)loc, (uint32_t)cn,
			                                  cols[k],
			                                  incl ? PROFDB_CUBE_CALL_INCLUSIVE : 0, &v), 0,
			             "%s", profdb_error_message());
			csv_format(&mm, v, got, sizeof got);
			if (strcmp(got, want) != 0 && differ++ < 10)
				cr_log_error("%s %s: cnode %lu loc %lu metric %s: got %s want %s", cube_rel,
				             incl ? "incl" : "excl", cn, loc, mm.name.ptr, got, want);
			double alt = vals[k][cn * nl + loc], w = strtod(want, NULL);
			double tol = 2e-5 * maxd(absd(w), absd(alt)) + 1e-9;
			cr_expect(absd(alt - w) <= tol, "re-derivation: cnode %lu loc %lu metric %u: "
			          "%.12g vs %s", cn, loc, cols[k], alt, want);
			compared++;
		}
	}
	cr_assert_eq(differ, 0, "%s %s: %" PRIu64 " of %" PRIu64 " cells differ", cube_rel,
	             incl ? "incl" : "excl", differ, compared);
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
	cr_assert_str_eq(info.anchor_version.ptr, "4.4");
	cr_assert_str_eq(info.creator.ptr, "profdb test writer");

	profdb_cube_metric m;
	cr_assert_eq(profdb_cube_metric_get(c, 0, &m), 0);
	cr_assert_str_eq(m.name.ptr, "time");
	cr_assert_str_eq(m.display_name.ptr, "Time");
	cr_assert_str_eq(m.description.ptr, "Time & more");
	cr_assert_str_eq(m.unit.ptr, "sec");
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
		cr_assert_eq(profdb_cube_value_get(c, 0, 0, 5, &d), 0);
	}

	profdb_cube_cnode n;
	cr_assert_eq(profdb_cube_cnode_get(c, 3, &n), 0);
	cr_assert_eq(n.first_child, 0);
	cr_assert_eq(n.next_sibling, 2);
	cr_assert_str_eq(n.region_name.ptr, "main");
	cr_assert_eq(profdb_cube_cnode_get(c, 0, &n), 0);
	cr_assert_eq(n.line, 12);
	cr_assert_str_eq(n.module.ptr, "a.c");
	cr_assert_eq(n.next_sibling, 1);
	cr_assert_eq(profdb_cube_cnode_get(c, 2, &n), 0);
	cr_assert_eq(n.n_params, 2);
	profdb_cube_param pa;
	cr_assert_eq(profdb_cube_cnode_param_at(c, 2, 1, &pa), 0);
	cr_assert_str_eq(pa.key.ptr, "mode");
	cr_assert_eq(pa.key.len, 4);
	cr_assert_str_eq(pa.value.ptr, "fast");
	cr_assert_eq(pa.numeric, 0);

	profdb_cube_location l;
	cr_assert_eq(profdb_cube_location_get(c, 2, &l), 0);
	cr_assert_str_eq(l.name.ptr, "thread 1");
	cr_assert_eq(l.rank, 1);
	cr_assert_eq(l.process_rank, 0);
	cr_assert_str_eq(l.node_name.ptr, "node0");
	cr_assert_eq(profdb_cube_location_get(c, 1, &l), 0);
	cr_assert_eq(l.process_rank, 1);

	for (uint32_t mi = 0; mi < TW_CUBE_METRICS; mi++)
		for (uint32_t ci = 0; ci < TW_CUBE_CNODES; ci++) {
			unsigned char row[64];
			int rr = profdb_cube_row_get(c, ci, mi, row, sizeof row);
			for (uint32_t li = 0; li < TW_CUBE_LOCATIONS; li++) {
				double want, got;
				int e = tw_cube_expected(flags, mi, ci, li, &want);
				r = profdb_cube_value_get(c, li, ci, mi, &got);
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

static void write_flags(tw_blob *b, unsigned flags, const char *anchor);
static void bad_anchor(const char *xml, int code, const char *needle);

/* ---- semantics: severity on the sample ---------------------------------------------- */

/* The sample's call tree (writer.h): 3 { 0 { 4 }, 1 }, 2. */
static const uint32_t sample_children[TW_CUBE_CNODES][3] = {
	{4, PROFDB_NONE}, {PROFDB_NONE}, {PROFDB_NONE}, {0, 1, PROFDB_NONE}, {PROFDB_NONE},
};

static double own_of(unsigned flags, uint32_t m, uint32_t c, uint32_t l)
{
	double v;
	tw_cube_expected(flags, m, c, l, &v);
	return v;
}

/* Written from the rules in doc/FORMATS.md, recursively, for comparison. */
static double sample_view(unsigned flags, uint32_t m, uint32_t c, uint32_t l, int incl)
{
	int inclusive_metric = m == 2, min = m == 1;
	double v = own_of(flags, m, c, l);
	if (incl && !inclusive_metric) {
		for (const uint32_t *k = sample_children[c]; *k != PROFDB_NONE; k++) {
			double w = sample_view(flags, m, *k, l, 1);
			v = min ? (w < v ? w : v) : v + w;
		}
	} else if (!incl && inclusive_metric) {
		for (const uint32_t *k = sample_children[c]; *k != PROFDB_NONE; k++)
			v -= own_of(flags, m, *k, l);
	}
	return v;
}

static double sample_sum(unsigned flags, uint32_t m, uint32_t c, const int *locs, int incl)
{
	double v = m == 1 ? DBL_MAX : 0.0;
	for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++)
		if (locs[l]) {
			double w = sample_view(flags, m, c, l, incl);
			v = m == 1 ? (w < v ? w : v) : v + w;
		}
	return v;
}

static void check_severity(unsigned flags)
{
	tw_blob b;
	if (tw_cube_write(&b, flags, NULL) == -ENOTSUP)
		return;
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0, "%s",
	             profdb_error_message());
	/* system items: location 2, group 0 (locations 0 and 2), node 1 and the
	 * whole system (all three) */
	static const struct {
		profdb_cube_item kind;
		uint32_t id;
		int locs[TW_CUBE_LOCATIONS];
	} where[] = {
		{PROFDB_CUBE_ITEM_LOCATION, 2, {0, 0, 1}},
		{PROFDB_CUBE_ITEM_LOCATION_GROUP, 0, {1, 0, 1}},
		{PROFDB_CUBE_ITEM_LOCATION_GROUP, 1, {0, 1, 0}},
		{PROFDB_CUBE_ITEM_SYSTEM_NODE, 1, {1, 1, 1}},
		{PROFDB_CUBE_ITEM_SYSTEM_NODE, 0, {1, 1, 1}},
		{PROFDB_CUBE_ITEM_CUBE, 0, {1, 1, 1}},
	};
	for (uint32_t m = 0; m < TW_CUBE_METRICS; m++)
		for (uint32_t n = 0; n < TW_CUBE_CNODES; n++)
			for (size_t w = 0; w < sizeof where / sizeof where[0]; w++)
				for (int incl = 0; incl < 2; incl++) {
					double got, want = sample_sum(flags, m, n, where[w].locs, incl);
					unsigned fl = incl ? PROFDB_CUBE_CALL_INCLUSIVE : 0;
					cr_assert_eq(profdb_cube_severity_get(c, where[w].kind, where[w].id, n, m, fl,
					                                  &got), 0, "%s", profdb_error_message());
					cr_assert(got == want, "flags %#x m %u c %u where %zu incl %d: %.17g != "
					          "%.17g", flags, m, n, w, incl, got, want);
					/* metric-exclusive: time minus its child mintime */
					double mx;
					cr_assert_eq(profdb_cube_severity_get(c, where[w].kind, where[w].id, n, m,
					                                  fl | PROFDB_CUBE_METRIC_EXCLUSIVE, &mx), 0);
					double wmx = m == 0 ? want - sample_sum(flags, 1, n, where[w].locs, incl)
					                    : want;
					cr_assert(mx == wmx, "metric-exclusive m %u c %u: %.17g != %.17g", m, n,
					          mx, wmx);
				}
	double d;
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_LOCATION, 3, 0, 0, 0, &d), -ENOENT);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_LOCATION_GROUP, 2, 0, 0, 0, &d),
	             -ENOENT);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_SYSTEM_NODE, 2, 0, 0, 0, &d), -ENOENT);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CNODE, 0, 0, 0, 0, &d), -EINVAL);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 0, 4, &d), -EINVAL);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 5, 0, 0, &d), -ENOENT);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 9, 0, &d), -ENOENT);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 0, 0, NULL), -EINVAL);
	profdb_cube_close(c);
	free(b.data);
}

Test(cube, severity)
{
	check_severity(0);
	check_severity(TW_CUBE_BIG_ENDIAN | TW_CUBE_ZCUBEX);
	check_severity(TW_CUBE_DENSE | TW_CUBE_GZIP_ARCHIVE);
	/* a derived metric is listed, not evaluated */
	tw_blob b;
	write_flags(&b, TW_CUBE_DERIVED, NULL);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0);
	profdb_cube_metric m;
	cr_assert_eq(profdb_cube_metric_get(c, 5, &m), 0);
	cr_assert_str_eq(m.expression.ptr, "metric::time()/metric::visits()");
	cr_assert_str_eq(m.aggr_plus.ptr, "arg1 + arg2");
	cr_assert_str_eq(m.init_expression.ptr, "");
	double d;
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 5, 0, &d), -ENOTSUP);
	cr_assert(strstr(profdb_error_message(), "derived"));
	profdb_cube_close(c);
	free(b.data);
}

/* ---- anchor extras: attributes, topologies, system tree, Cube3 form ------------------ */

Test(cube, anchor_extras)
{
	tw_blob b;
	write_flags(&b, 0, NULL);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0, "%s", profdb_error_message());
	profdb_cube_info info;
	cr_assert_eq(profdb_cube_get_info(c, &info), 0);
	cr_assert_eq(info.n_attrs, 4);
	cr_assert_eq(info.n_carts, 2);
	profdb_cube_attr a;
	cr_assert_eq(profdb_cube_attr_at(c, 1, &a), 0);
	cr_assert_eq(a.owner, PROFDB_CUBE_ITEM_CUBE);
	cr_assert_str_eq(a.key.ptr, "CUBE_CT_AGGR");
	cr_assert_str_eq(a.value.ptr, "SUM");
	cr_assert_eq(profdb_cube_attr_at(c, 2, &a), 0);
	cr_assert_eq(a.owner, PROFDB_CUBE_ITEM_CNODE);
	cr_assert_eq(a.owner_id, 2);
	cr_assert_str_eq(a.value.ptr, "init & setup");
	cr_assert_eq(profdb_cube_attr_at(c, 3, &a), 0);
	cr_assert_eq(a.owner, PROFDB_CUBE_ITEM_LOCATION);
	cr_assert_eq(a.owner_id, 1);
	profdb_cube_cart ct;
	cr_assert_eq(profdb_cube_cart_at(c, 0, &ct), 0);
	cr_assert_str_eq(ct.name.ptr, "Process x Thread");
	cr_assert_eq(ct.ndims, 2);
	cr_assert_eq(ct.n_coords, 3);
	profdb_cube_dim dim;
	cr_assert_eq(profdb_cube_cart_dim_at(c, 0, 1, &dim), 0);
	cr_assert_str_eq(dim.name.ptr, "Thread");
	cr_assert_eq(dim.size, 2);
	cr_assert_eq(dim.periodic, 1);
	profdb_cube_coord co;
	cr_assert_eq(profdb_cube_cart_coord_at(c, 0, 1, &co), 0);
	cr_assert_eq(co.kind, PROFDB_CUBE_ITEM_LOCATION);
	cr_assert_eq(co.item, 2);
	cr_assert_eq(co.values[0], 0);
	cr_assert_eq(co.values[1], 1);
	cr_assert_eq(profdb_cube_cart_coord_at(c, 0, 3, &co), -ENOENT);
	cr_assert_eq(profdb_cube_cart_at(c, 1, &ct), 0);
	cr_assert_str_eq(ct.name.ptr, "");
	cr_assert_eq(profdb_cube_cart_coord_at(c, 1, 0, &co), 0);
	cr_assert_eq(co.kind, PROFDB_CUBE_ITEM_LOCATION_GROUP);
	cr_assert_eq(co.item, 1);
	cr_assert_eq(profdb_cube_cart_coord_at(c, 1, 1, &co), 0);
	cr_assert_eq(co.kind, PROFDB_CUBE_ITEM_SYSTEM_NODE);
	cr_assert_eq(co.item, 1);
	profdb_cube_system_node sn;
	cr_assert_eq(profdb_cube_system_node_at(c, 1, &sn), 0);
	cr_assert_str_eq(sn.name.ptr, "node0");
	cr_assert_str_eq(sn.klass.ptr, "node");
	cr_assert_eq(sn.parent, 0);
	profdb_cube_location_group g;
	cr_assert_eq(profdb_cube_location_group_at(c, 1, &g), 0);
	cr_assert_str_eq(g.name.ptr, "rank 1");
	cr_assert_eq(g.rank, 1);
	cr_assert_eq(g.node, 1);
	profdb_cube_location l;
	cr_assert_eq(profdb_cube_location_get(c, 2, &l), 0);
	cr_assert_eq(l.group, 0);
	profdb_cube_region r;
	cr_assert_eq(profdb_cube_region_get(c, 1, &r), 0);
	cr_assert_str_eq(r.name.ptr, "foo");
	cr_assert_str_eq(r.url.ptr, "");
	profdb_cube_close(c);
	free(b.data);
}

/* The anchor with its <system> replaced. */
static char *with_system(const char *system)
{
	char *a = tw_cube_anchor(0);
	cr_assert(a);
	char *s = strstr(a, "<system>"), *e = strstr(a, "</system>");
	cr_assert(s && e);
	size_t n = (size_t)(s - a) + strlen(system) + strlen(e + 9) + 1;
	char *o = malloc(n);
	cr_assert(o);
	snprintf(o, n, "%.*s%s%s", (int)(s - a), a, system, e + 9);
	free(a);
	return o;
}

#define CUBE3_SYSTEM \
	"<system><machine Id=\"0\"><name>M</name><node Id=\"0\"><name>N</name>" \
	"<process Id=\"0\"><name>P0</name><rank>0</rank><thread Id=\"0\"><name>T0</name>" \
	"<rank>0</rank></thread><thread Id=\"2\"><name>T1</name><rank>1</rank></thread></process>" \
	"<process Id=\"1\"><name>P1</name><rank>1</rank><thread Id=\"1\"><name>T0</name>" \
	"<rank>0</rank></thread></process></node></machine><topologies><cart ndims=\"2\">" \
	"<dim size=\"2\" periodic=\"true\"/><dim size=\"2\" periodic=\"false\"/>" \
	"%s</cart></topologies></system>"

Test(cube, cube3_system)
{
	char sys[2048];
	snprintf(sys, sizeof sys, CUBE3_SYSTEM, "<coord thrdId=\"1\">1 0</coord><coord procId=\"1\">"
	         "1 0</coord><coord machId=\"0\">0 0</coord><coord nodeId=\"0\">0 1</coord>");
	char *anchor = with_system(sys);
	tw_blob b;
	write_flags(&b, 0, anchor);
	free(anchor);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0, "%s", profdb_error_message());
	profdb_cube_info info;
	cr_assert_eq(profdb_cube_get_info(c, &info), 0);
	cr_assert_eq(info.n_system_nodes, 2);
	cr_assert_eq(info.n_location_groups, 2);
	cr_assert_eq(info.n_locations, 3);
	profdb_cube_system_node sn;
	cr_assert_eq(profdb_cube_system_node_at(c, 0, &sn), 0);
	cr_assert_str_eq(sn.klass.ptr, "machine");
	cr_assert_eq(profdb_cube_system_node_at(c, 1, &sn), 0);
	cr_assert_str_eq(sn.klass.ptr, "node");
	cr_assert_eq(sn.parent, 0);
	profdb_cube_location l;
	cr_assert_eq(profdb_cube_location_get(c, 2, &l), 0);
	cr_assert_str_eq(l.type.ptr, "thread");
	cr_assert_str_eq(l.group_name.ptr, "P0");
	cr_assert_eq(l.process_rank, 0);
	cr_assert_eq(l.rank, 1);
	static const profdb_cube_item kinds[] = {PROFDB_CUBE_ITEM_LOCATION,
	                                         PROFDB_CUBE_ITEM_LOCATION_GROUP,
	                                         PROFDB_CUBE_ITEM_SYSTEM_NODE,
	                                         PROFDB_CUBE_ITEM_SYSTEM_NODE};
	static const uint32_t items[] = {1, 1, 0, 1};
	for (uint32_t i = 0; i < 4; i++) {
		profdb_cube_coord co;
		cr_assert_eq(profdb_cube_cart_coord_at(c, 0, i, &co), 0);
		cr_assert_eq(co.kind, kinds[i]);
		cr_assert_eq(co.item, items[i], "coord %u", i);
	}
	/* the data is read as with the Score-P form */
	for (uint32_t m = 0; m < TW_CUBE_METRICS; m++)
		for (uint32_t n = 0; n < TW_CUBE_CNODES; n++)
			for (uint32_t k = 0; k < TW_CUBE_LOCATIONS; k++) {
				double want, got;
				int e = tw_cube_expected(0, m, n, k, &want);
				cr_assert_eq(profdb_cube_value_get(c, k, n, m, &got), e);
				cr_assert(got == want);
			}
	double d;
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_SYSTEM_NODE, 0, 3, 0,
	                                  PROFDB_CUBE_CALL_INCLUSIVE, &d), 0);
	int all[TW_CUBE_LOCATIONS] = {1, 1, 1};
	cr_assert(d == sample_sum(0, 0, 3, all, 1));
	profdb_cube_close(c);
	free(b.data);
}

Test(cube, bad_topology)
{
	static const char *const bad[] = {
		"<coord thrdId=\"7\">1 0</coord>",        /* no such location */
		"<coord procId=\"5\">1 0</coord>",        /* no such process */
		"<coord machId=\"1\">1 0</coord>",        /* no such machine */
		"<coord thrdId=\"1\">1 0 3</coord>",      /* too many values */
		"<coord thrdId=\"1\">1</coord>",          /* too few */
		"<coord thrdId=\"1\">1 x</coord>",        /* not a number */
		"<coord>1 0</coord>",                     /* names nothing */
		"<dim size=\"1\"/>",                      /* a third dimension */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char sys[2048];
		snprintf(sys, sizeof sys, CUBE3_SYSTEM, bad[i]);
		char *anchor = with_system(sys);
		bad_anchor(anchor, -EBADMSG, NULL);
		free(anchor);
	}
}

/* Deep nesting, many attributes, a huge attribute value: bounded work,
 * a clean result. */
Test(cube, anchor_stress)
{
	size_t depth = 200000, big = 8u << 20;
	size_t n = depth * 7 + big + 4096;
	char *x = malloc(n), *p = x;
	cr_assert(x);
	p += sprintf(p, "<?xml version=\"1.0\"?><cube version=\"4.4\"><program>"
	             "<region id=\"0\" mod=\"");
	memset(p, 'm', big);
	p += big;
	p += sprintf(p, "\"><name>r</name></region><cnode id=\"0\" calleeId=\"0\"/></program>");
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "<x>");
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "</x>");
	sprintf(p, "</cube>");
	tw_blob b;
	write_flags(&b, TW_CUBE_NO_ANCHOR, NULL);
	free(b.data);
	b.data = NULL;
	b.size = 0;
	cr_assert_eq(tw_tar_add(&b, "anchor.xml", x, strlen(x), 0, 0), 0);
	cr_assert_eq(tw_tar_end(&b), 0);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0, "%s", profdb_error_message());
	profdb_cube_region r;
	cr_assert_eq(profdb_cube_region_get(c, 0, &r), 0);
	cr_assert_eq(strlen(r.module.ptr), big);
	profdb_cube_close(c);
	free(b.data);
	free(x);
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
					if (profdb_cube_value_get(rd->c, l, n, m, &got) != e || got != want)
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

/* The return-code conventions of profdb/common.h: NULL handle or output
 * -EINVAL, out of range -ENOENT with the output cleared, int64_t counts,
 * strings as profdb_str with their length. */
Test(cube, conventions)
{
	tw_blob b;
	write_flags(&b, 0, NULL);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0);

	int64_t (*const counts[])(const profdb_cube *) = {
		profdb_cube_metric_count, profdb_cube_region_count, profdb_cube_cnode_count,
		profdb_cube_location_count, profdb_cube_location_group_count,
		profdb_cube_system_node_count, profdb_cube_attr_count, profdb_cube_cart_count,
	};
	const int64_t want[] = {TW_CUBE_METRICS, TW_CUBE_REGIONS, TW_CUBE_CNODES,
	                        TW_CUBE_LOCATIONS, 2, 2, 4, 2};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		cr_assert_eq(counts[i](c), want[i], "count %zu", i);
		cr_assert_eq(counts[i](NULL), -EINVAL);
	}

	/* -ENOENT clears the output: every string {"", 0}, numbers 0 */
	profdb_cube_metric m;
	memset(&m, 0xab, sizeof m);
	cr_assert_eq(profdb_cube_metric_get(c, TW_CUBE_METRICS, &m), -ENOENT);
	cr_assert_str_eq(m.name.ptr, "");
	cr_assert_eq(m.name.len, 0);
	cr_assert_eq(m.aggr_aggr.len, 0);
	cr_assert_eq(m.id, 0);
	cr_assert_eq(profdb_cube_metric_get(c, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cube_metric_get(NULL, 0, &m), -EINVAL);
	cr_assert_eq(m.name.len, 0, "cleared for a NULL handle too");
	cr_assert_eq(profdb_cube_metric_get(c, 0, &m), 0);
	cr_assert_eq(m.name.len, strlen("time"));
	cr_assert_eq(m.unit.len, strlen(m.unit.ptr));

	profdb_cube_location_group g;
	memset(&g, 0xab, sizeof g);
	cr_assert_eq(profdb_cube_location_group_at(c, 2, &g), -ENOENT);
	cr_assert_eq(g.name.len, 0);
	cr_assert_str_eq(g.type.ptr, "");
	cr_assert_eq(profdb_cube_location_group_at(c, 0, NULL), -EINVAL);
	profdb_cube_system_node sn;
	cr_assert_eq(profdb_cube_system_node_at(c, 2, &sn), -ENOENT);
	cr_assert_eq(sn.klass.len, 0);
	profdb_cube_attr at;
	cr_assert_eq(profdb_cube_attr_at(c, 99, &at), -ENOENT);
	cr_assert_eq(at.key.len, 0);
	cr_assert_eq(profdb_cube_attr_at(c, 0, NULL), -EINVAL);
	profdb_cube_cart ct;
	cr_assert_eq(profdb_cube_cart_at(c, 2, &ct), -ENOENT);
	cr_assert_eq(ct.name.len, 0);
	profdb_cube_dim dim;
	memset(&dim, 0xab, sizeof dim);
	cr_assert_eq(profdb_cube_cart_dim_at(c, 0, 2, &dim), -ENOENT);
	cr_assert_eq(dim.name.len, 0);
	cr_assert_eq(dim.size, 0);
	cr_assert_eq(profdb_cube_cart_dim_at(c, 0, 0, NULL), -EINVAL);
	profdb_cube_coord co;
	memset(&co, 0xab, sizeof co);
	cr_assert_eq(profdb_cube_cart_coord_at(c, 0, 99, &co), -ENOENT);
	cr_assert_null(co.values);
	cr_assert_eq(profdb_cube_cart_coord_at(c, 0, 0, NULL), -EINVAL);
	profdb_cube_param pa;
	cr_assert_eq(profdb_cube_cnode_param_at(c, TW_CUBE_CNODES, 0, &pa), -ENOENT);
	cr_assert_eq(pa.value.len, 0);
	profdb_cube_info info;
	cr_assert_eq(profdb_cube_get_info(c, NULL), -EINVAL);
	cr_assert_eq(profdb_cube_get_info(NULL, &info), -EINVAL);
	cr_assert_eq(info.creator.len, 0);

	/* values: NULL output first, out of range clears, absent = neutral */
	double v = 42.0;
	cr_assert_eq(profdb_cube_value_get(c, 0, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cube_value_get(NULL, 0, 0, 0, &v), -EINVAL);
	v = 42.0;
	cr_assert_eq(profdb_cube_value_get(c, 0, 0, TW_CUBE_METRICS, &v), -ENOENT);
	cr_assert_eq(v, 0.0);
	v = 42.0;
	cr_assert_eq(profdb_cube_value_get(c, TW_CUBE_LOCATIONS, 0, 0, &v), -ENOENT);
	cr_assert_eq(v, 0.0);
	for (uint32_t n = 0; n < TW_CUBE_CNODES; n++) {
		double want_v;
		int stored = tw_cube_expected(0, 1, n, 0, &want_v);
		v = 42.0;
		cr_assert_eq(profdb_cube_value_get(c, 0, n, 1, &v), stored);
		if (!stored)
			cr_assert_eq(v, DBL_MAX, "an absent MINDOUBLE cell reads as its neutral value");
	}
	unsigned char row[64];
	cr_assert_eq(profdb_cube_row_get(c, 0, 0, NULL, sizeof row), -EINVAL);
	cr_assert_eq(profdb_cube_row_get(c, TW_CUBE_CNODES, 0, row, sizeof row), -ENOENT);
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 0, 0, NULL), -EINVAL);
	v = 42.0;
	cr_assert_eq(profdb_cube_severity_get(c, PROFDB_CUBE_ITEM_CUBE, 0, TW_CUBE_CNODES, 0, 0, &v),
	             -ENOENT);
	cr_assert_eq(v, 0.0);
	cr_assert_eq(profdb_cube_severity_fields_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 0, 0, NULL, 1),
	             -EINVAL);
	double f[2];
	cr_assert_eq(profdb_cube_severity_fields_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 0, 0, f, 2), 1);
	profdb_cube_close(c);
	free(b.data);
}

TC_MAIN

/* The common query interface over a Cube archive: counts, a cursor over
 * every stored value, typed values and the scoped (CubeLib) views. */
Test(cube, query_backend)
{
	tw_blob b;
	write_flags(&b, TW_CUBE_BIG_ENDIAN, NULL);
	profdb_input in = {"sample.cubex", b.data, b.size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	profdb_about ab;
	cr_assert_eq(profdb_get_about(db, &ab), 0);
	cr_assert_eq(ab.format, PROFDB_FORMAT_CUBE);
	profdb_counts n;
	cr_assert_eq(profdb_get_counts(db, &n), 0);
	cr_assert_eq(n.profiles, TW_CUBE_LOCATIONS);
	cr_assert_eq(n.contexts, TW_CUBE_CNODES);
	cr_assert_eq(n.metrics, TW_CUBE_METRICS);
	int64_t want = 0;
	for (uint32_t m = 0; m < TW_CUBE_METRICS; m++)
		for (uint32_t c = 0; c < TW_CUBE_CNODES; c++)
			for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++) {
				double v;
				want += tw_cube_expected(TW_CUBE_BIG_ENDIAN, m, c, l, &v);
			}
	cr_assert_eq(n.values, want);
	profdb_values *it;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
	profdb_entry e;
	int64_t seen = 0;
	int r;
	while ((r = profdb_values_next(it, &e)) == 1) {
		double v;
		cr_assert_eq(tw_cube_expected(TW_CUBE_BIG_ENDIAN, e.metric, e.context, e.profile, &v), 1);
		cr_assert(profdb_number_to_double(e.value) == v);
		seen++;
	}
	cr_assert_eq(r, 0);
	cr_assert_eq(seen, want);
	profdb_values_free(it);
	profdb_number num;
	cr_assert_eq(profdb_value(db, 2, 3, 2, &num), 1); /* visits: UINT64 */
	cr_assert_eq(num.type, PROFDB_TYPE_U64);
	cr_assert_eq(num.as.u64, 232);
	cr_assert_eq(profdb_value(db, 1, 3, 4, &num), 1); /* small: INT16 */
	cr_assert_eq(num.type, PROFDB_TYPE_I64);
	cr_assert_eq(num.as.i64, -31);
	cr_assert_eq(profdb_value(db, 0, 2, 0, &num), 0); /* no row */
	cr_assert_eq(num.type, PROFDB_TYPE_NONE);
	cr_assert_geq(profdb_inclusive(db, 0, 3, 0, &num), 0);
	double sev;
	cr_assert_eq(profdb_cube_severity_get(profdb_get_cube(db), PROFDB_CUBE_ITEM_LOCATION, 0, 3, 0,
	                                  PROFDB_CUBE_CALL_INCLUSIVE, &sev), 0);
	cr_assert(num.as.f64 == sev);
	profdb_close(db);
	free(b.data);
}

/* Every entry of a scan, one profdb_values_next() at a time (*n entries,
 * malloc'ed), and the code it ended with. */
static profdb_entry *scan_one_by_one(profdb *db, profdb_scan scan, uint32_t key, size_t *n,
                                     int *end)
{
	profdb_values *it;
	cr_assert_eq(profdb_values_new(&it, db, scan, key), 0);
	size_t cap = 64;
	profdb_entry *all = malloc(cap * sizeof *all);
	cr_assert(all);
	*n = 0;
	while ((*end = profdb_values_next(it, &all[*n])) == 1)
		if (++*n == cap)
			cr_assert((all = realloc(all, (cap *= 2) * sizeof *all)));
	profdb_values_free(it);
	return all;
}

/* profdb_values_next_block() with blocks of @p block gives @p n entries
 * byte for byte as @p want, then 0 (or the error @p end) and keeps it. */
static void expect_blocks(profdb *db, profdb_scan scan, uint32_t key, size_t block,
                          const profdb_entry *want, size_t n, int end)
{
	profdb_values *it;
	cr_assert_eq(profdb_values_new(&it, db, scan, key), 0);
	profdb_entry *got = malloc(block * sizeof *got);
	cr_assert(got);
	size_t seen = 0;
	int64_t r;
	while ((r = profdb_values_next_block(it, got, block)) > 0) {
		cr_assert_leq((size_t)r, block);
		cr_assert_leq(seen + (size_t)r, n, "scan %d block %zu: more entries than one by one",
		              (int)scan, block);
		/* fewer than asked only at the end or before an error */
		if ((size_t)r < block)
			cr_assert_eq(seen + (size_t)r, n);
		cr_assert_eq(memcmp(got, want + seen, (size_t)r * sizeof *got), 0,
		             "scan %d block %zu: entries from %zu differ", (int)scan, block, seen);
		seen += (size_t)r;
	}
	cr_assert_eq(seen, n, "scan %d block %zu: %zu of %zu entries", (int)scan, block, seen, n);
	cr_assert_eq(r, end);
	cr_assert_eq(profdb_values_next_block(it, got, block), end, "the end is kept");
	free(got);
	profdb_values_free(it);
}

/* Blocks of several sizes against the one-by-one cursor, on every scan. */
static void check_blocks(profdb *db, int64_t profiles, int64_t contexts)
{
	static const size_t blocks[] = {1, 2, 7, 64, 100000};
	for (int s = 0; s < 3; s++) {
		profdb_scan scan = s == 0 ? PROFDB_SCAN_ALL : s == 1 ? PROFDB_SCAN_PROFILE
		                                               : PROFDB_SCAN_CONTEXT;
		int64_t keys = s == 0 ? 1 : s == 1 ? profiles : contexts;
		for (int64_t key = 0; key < keys; key++) {
			size_t n;
			int end;
			profdb_entry *want = scan_one_by_one(db, scan, (uint32_t)key, &n, &end);
			for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
				expect_blocks(db, scan, (uint32_t)key, blocks[b], want, n, end);
			free(want);
		}
	}
}

/* A block cursor gives what the one-by-one cursor gives, every byte of
 * every entry, in every layout variant of the sample. */
Test(cube, values_next_block)
{
	static const unsigned variants[] = {0, TW_CUBE_BIG_ENDIAN, TW_CUBE_ZCUBEX | TW_CUBE_DENSE,
	                                    TW_CUBE_SIMPLE | TW_CUBE_DERIVED};
	for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
		tw_blob b;
		if (tw_cube_write(&b, variants[v], NULL) == -ENOTSUP)
			continue;
		profdb_input in = {"sample.cubex", b.data, b.size};
		profdb *db;
		cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
		size_t n;
		int end;
		profdb_entry *all = scan_one_by_one(db, PROFDB_SCAN_ALL, 0, &n, &end);
		cr_assert_eq(end, 0);
		size_t k = 0;   /* the full scan's order: profile, context, metric */
		for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++)
			for (uint32_t c = 0; c < TW_CUBE_CNODES; c++)
				for (uint32_t m = 0; m < TW_CUBE_METRICS; m++) {
					double want;
					if (!tw_cube_expected(variants[v], m, c, l, &want))
						continue;
					cr_assert_lt(k, n);
					cr_assert(all[k].profile == l && all[k].context == c &&
					          all[k].metric == m, "entry %zu", k);
					cr_assert(profdb_number_to_double(all[k].value) == want);
					k++;
				}
		cr_assert_eq(k, n);
		free(all);
		check_blocks(db, TW_CUBE_LOCATIONS, TW_CUBE_CNODES);
		profdb_entry e[2];
		profdb_values *it;
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
		cr_assert_eq(profdb_values_next_block(it, e, 0), -EINVAL);
		cr_assert_eq(profdb_values_next_block(it, NULL, 2), -EINVAL);
		cr_assert_eq(profdb_values_next_block(NULL, e, 2), -EINVAL);
		/* mixed with profdb_values_next on one cursor: one sequence */
		cr_assert_eq(profdb_values_next(it, &e[0]), 1);
		cr_assert_eq(profdb_values_next_block(it, e, 2), 2);
		profdb_values_free(it);
		profdb_close(db);
		free(b.data);
	}
}

/* More locations than a block of the full scan decodes at once (the
 * Cube backend decodes a few locations of each row at a time), plain and
 * ZCUBEX: every value where it belongs. */
Test(cube, values_next_block_many_locations)
{
	enum { CNODES = 37, LOCS = 21 };
	for (int z = 0; z < 2; z++) {
		char path[] = "/tmp/profdb-cube-block-XXXXXX";
		int fd = mkstemp(path);
		cr_assert_geq(fd, 0);
		close(fd);
		int w = tw_cube_write_big(path, CNODES, LOCS, z ? TW_CUBE_ZCUBEX : 0);
		if (w == -ENOTSUP) {
			unlink(path);
			continue;
		}
		cr_assert_eq(w, 0);
		profdb *db;
		cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
		profdb_values *it;
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
		profdb_entry e[13];
		size_t k = 0;
		int64_t r;
		while ((r = profdb_values_next_block(it, e, 13)) > 0)
			for (int64_t i = 0; i < r; i++, k++) {
				uint32_t m = (uint32_t)(k % 2), c = (uint32_t)(k / 2 % CNODES),
				         l = (uint32_t)(k / 2 / CNODES);
				cr_assert(e[i].profile == l && e[i].context == c && e[i].metric == m,
				          "entry %zu: %u %u %u", k, e[i].profile, e[i].context, e[i].metric);
				cr_assert_eq(e[i].value.type, m ? PROFDB_TYPE_U64 : PROFDB_TYPE_F64);
				cr_assert(profdb_number_to_double(e[i].value) ==
				          tw_cube_big_value(m, c, l), "entry %zu", k);
			}
		cr_assert_eq(r, 0);
		cr_assert_eq(k, (size_t)2 * CNODES * LOCS);
		profdb_values_free(it);
		check_blocks(db, LOCS, CNODES);
		profdb_close(db);
		unlink(path);
	}
}

/* A damaged row ends a full scan where the one-by-one reading of cells
 * meets it: the entries before it first, then the error. */
Test(cube, values_next_block_damaged_row)
{
	tw_blob b;
	if (tw_cube_write(&b, TW_CUBE_ZCUBEX, NULL) == -ENOTSUP)
		return;
	size_t h = header_of(&b, "0.data");
	unsigned char *d = b.data + h + 512;
	size_t size = (size_t)strtoull((const char *)b.data + h + 124, NULL, 8);
	uint64_t cnt = 0;
	for (int i = 7; i >= 0; i--)
		cnt = cnt << 8 | d[11 + i];
	for (size_t i = 19 + 24 * cnt; i < size; i++)
		d[i] ^= 0x5a;   /* every compressed block of metric 0 */
	profdb_input in = {"sample.cubex", b.data, b.size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0);
	size_t before = 0;   /* cells stored before the first one of metric 0 */
	for (uint32_t c = 0; c < TW_CUBE_CNODES; c++) {
		double v;
		if (tw_cube_expected(TW_CUBE_ZCUBEX, 0, c, 0, &v))
			break;
		for (uint32_t m = 1; m < TW_CUBE_METRICS; m++)
			before += (size_t)tw_cube_expected(TW_CUBE_ZCUBEX, m, c, 0, &v);
	}
	size_t n;
	int end;
	profdb_entry *want = scan_one_by_one(db, PROFDB_SCAN_ALL, 0, &n, &end);
	cr_assert_eq(end, -EBADMSG);
	cr_assert_eq(n, before);
	for (size_t blk = 1; blk <= 8; blk++)
		expect_blocks(db, PROFDB_SCAN_ALL, 0, blk, want, n, -EBADMSG);
	free(want);
	profdb_close(db);
	free(b.data);
}

/* ---- structured dtypes: CubeLib's value arithmetic ------------------------------------ */
/* Expected values are worked out by hand from the fields tw_cube_write_dtypes stores
 * (tests/writer/cube.c, dt_cells) with the rules of lib/cube/severity.c. */

static void expect_fields(const profdb_cube *c, uint32_t m, uint32_t cnode,
                          profdb_cube_item where, uint32_t id, unsigned flags,
                          const double *want, int n)
{
	double got[16];
	int r = profdb_cube_severity_fields_get(c, where, id, cnode, m, flags, got, 16);
	cr_assert_eq(r, n, "metric %u cnode %u: %d fields (%s)", m, cnode, r,
	             profdb_error_message());
	for (int i = 0; i < n; i++)
		cr_assert(absd(got[i] - want[i]) <= 1e-12 * maxd(1, absd(want[i])),
		          "metric %u cnode %u field %d: %.17g, want %.17g", m, cnode, i, got[i],
		          want[i]);
}

static double sev_of(const profdb_cube *c, uint32_t m, uint32_t cnode, profdb_cube_item where,
                     uint32_t id, unsigned flags)
{
	double d;
	cr_assert_eq(profdb_cube_severity_get(c, where, id, cnode, m, flags, &d), 0, "%s",
	             profdb_error_message());
	return d;
}

static void check_dtypes(unsigned flags)
{
	const unsigned I = PROFDB_CUBE_CALL_INCLUSIVE;
	const profdb_cube_item L = PROFDB_CUBE_ITEM_LOCATION, ALL = PROFDB_CUBE_ITEM_CUBE;
	tw_blob b;
	cr_assert_eq(tw_cube_write_dtypes(&b, flags), 0);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0, "%s", profdb_error_message());
	static const uint32_t vsize[TW_CUBE_DT_METRICS] = {16, 16, 36, 48, 24, 16, 36, 848, 48};
	for (uint32_t m = 0; m < TW_CUBE_DT_METRICS; m++) {
		profdb_cube_metric mm;
		cr_assert_eq(profdb_cube_metric_get(c, m, &mm), 0);
		cr_assert_eq(mm.value_size, vsize[m], "metric %u", m);
	}
	double d;
	/* stored cells as one number (getDouble) */
	cr_assert_eq(profdb_cube_value_get(c, 0, 0, 0, &d), 1);
	cr_assert(absd(d - sqrt(5)) < 1e-15);
	cr_assert_eq(profdb_cube_value_get(c, 1, 0, 1, &d), 1);
	cr_assert(d == 0.25);
	cr_assert_eq(profdb_cube_value_get(c, 0, 2, 1, &d), 0); /* no row: neutral */
	cr_assert(d == 0);
	cr_assert_eq(profdb_cube_value_get(c, 0, 0, 2, &d), 1);
	cr_assert(d == 2);
	cr_assert_eq(profdb_cube_value_get(c, 1, 1, 2, &d), 1); /* N = 0, sum 0 */
	cr_assert(d == 0);
	cr_assert_eq(profdb_cube_value_get(c, 0, 0, 3, &d), 1);
	cr_assert(d == 4);
	cr_assert_eq(profdb_cube_value_get(c, 1, 0, 4, &d), 1);
	cr_assert(d == 15);
	cr_assert_eq(profdb_cube_value_get(c, 0, 0, 7, &d), -ENOTSUP);

	/* COMPLEX: component-wise */
	expect_fields(c, 0, 0, L, 0, I, (double[]){2.5, 2}, 2);
	expect_fields(c, 0, 0, ALL, 0, I, (double[]){7.5, 6}, 2);
	cr_assert(absd(sev_of(c, 0, 0, ALL, 0, I) - sqrt(92.25)) < 1e-14);
	/* RATE: a/b (+) c/d = (ad + cb) / bd; the missing row is 0/1 */
	expect_fields(c, 1, 0, L, 0, I, (double[]){24, 6}, 2);
	expect_fields(c, 1, 0, L, 1, I, (double[]){9, 4}, 2);
	expect_fields(c, 1, 0, ALL, 0, I, (double[]){150, 24}, 2);
	cr_assert(sev_of(c, 1, 0, ALL, 0, I) == 6.25);
	expect_fields(c, 1, 2, ALL, 0, 0, (double[]){0, 1}, 2);
	/* TAU_ATOMIC: N and sums add, min of mins, max of maxes; a stored 0 counts */
	expect_fields(c, 2, 0, L, 0, I, (double[]){6, 0.5, 7, 14.5, 64.25}, 5);
	expect_fields(c, 2, 0, ALL, 0, I, (double[]){9, -1, 7, 19.5, 91.25}, 5);
	cr_assert(sev_of(c, 2, 0, ALL, 0, I) == 19.5 / 9);
	cr_assert(sev_of(c, 2, 1, L, 1, 0) == 0);
	/* HISTOGRAM: the left bins stay, the right ones are spread over the merged range */
	expect_fields(c, 3, 0, L, 0, I, (double[]){0, 8, 3, 1, 1, 3}, 6);
	expect_fields(c, 3, 0, L, 1, I, (double[]){0, 6, 1, 6, 7, 8}, 6);
	expect_fields(c, 3, 0, ALL, 0, I, (double[]){0, 8, 6, 1 + 4 + 14.0 / 3, 1 + 7.0 / 3 + 8, 3},
	              6);
	cr_assert(absd(sev_of(c, 3, 0, ALL, 0, I) - 30) < 1e-12);
	expect_fields(c, 3, 0, ALL, 0, 0, (double[]){0, 4, 4, 8, 1, 1}, 6);
	/* an invalid histogram (min +DBL_MAX) still sums its bins, but adds nothing */
	cr_assert(sev_of(c, 3, 2, L, 0, 0) == 20);
	expect_fields(c, 3, 2, ALL, 0, 0, (double[]){2, 6, 0, 0, 8, 0}, 6);
	/* NDOUBLES: element-wise */
	expect_fields(c, 4, 0, ALL, 0, I, (double[]){15, 27, 39}, 3);
	cr_assert(sev_of(c, 4, 0, ALL, 0, I) == 81);
	/* INCLUSIVE RATE: exclusive = own (-) children */
	expect_fields(c, 5, 0, L, 0, 0, (double[]){14, 8}, 2);
	expect_fields(c, 5, 0, L, 1, 0, (double[]){0, 8}, 2);
	expect_fields(c, 5, 0, ALL, 0, 0, (double[]){112, 64}, 2);
	cr_assert(sev_of(c, 5, 0, ALL, 0, 0) == 1.75);
	expect_fields(c, 5, 0, ALL, 0, I, (double[]){56, 8}, 2);
	/* INCLUSIVE TAU_ATOMIC: N wraps as a uint32; min (-) is max, max (-) is min */
	expect_fields(c, 6, 0, L, 0, 0, (double[]){2, 2, 2, 6, 16}, 5);
	cr_assert(sev_of(c, 6, 0, L, 0, 0) == 3);
	expect_fields(c, 6, 0, L, 1, 0, (double[]){4294967294.0, 1, 0, -2, -2}, 5);
	cr_assert(sev_of(c, 6, 0, L, 1, 0) == -2 / 4294967294.0);
	/* SCALE_FUNC: rows only */
	cr_assert_eq(profdb_cube_severity_get(c, ALL, 0, 0, 7, 0, &d), -ENOTSUP);
	cr_assert(strstr(profdb_error_message(), "SCALE_FUNC"));
	unsigned char row[2 * 848];
	cr_assert_eq(profdb_cube_row_get(c, 0, 7, row, sizeof row), 1);
	/* INCLUSIVE HISTOGRAM: CubeLib's (-) does nothing */
	expect_fields(c, 8, 0, L, 0, 0, (double[]){0, 4, 1, 2, 3, 4}, 6);
	/* argument checks */
	double few[1];
	cr_assert_eq(profdb_cube_severity_fields_get(c, ALL, 0, 0, 0, 0, few, 1), -ERANGE);
	cr_assert_eq(profdb_cube_severity_fields_get(c, ALL, 0, 0, 0, PROFDB_CUBE_METRIC_EXCLUSIVE, few,
	                                         1), -EINVAL);
	cr_assert_eq(profdb_cube_severity_fields_get(c, ALL, 0, 0, 0, 0, NULL, 0), -EINVAL);
	cr_assert_eq(profdb_cube_severity_fields_get(c, ALL, 0, 0, 9, 0, few, 1), -ENOENT);
	profdb_cube_close(c);

	/* the query interface: scoped values are the single numbers */
	profdb_input in = {"dtypes.cubex", b.data, b.size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	profdb_number num;
	cr_assert_eq(profdb_inclusive(db, 0, 0, 1, &num), 1);
	cr_assert(num.as.f64 == 4);
	cr_assert_eq(profdb_exclusive(db, 0, 0, 5, &num), 1);
	cr_assert(num.as.f64 == 1.75);
	cr_assert_eq(profdb_value(db, 0, 0, 0, &num), 1);
	cr_assert(absd(num.as.f64 - sqrt(5)) < 1e-15);
	profdb_close(db);
	free(b.data);
}

Test(cube, dtypes)
{
	check_dtypes(0);
	check_dtypes(TW_CUBE_BIG_ENDIAN);
}

/* The real file with every dtype: aggregates checked by hand against its stored cells
 * (sums of the per-cnode values; a histogram keeps its mass). */
Test(cube, real_dtypes)
{
	char *path = tc_sample_path("cube/pycubexr-cube-values_example.cubex");
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open(&c, path, NULL), 0, "%s", profdb_error_message());
	const unsigned I = PROFDB_CUBE_CALL_INCLUSIVE;
	const profdb_cube_item ALL = PROFDB_CUBE_ITEM_CUBE;
	/* TAU_ATOMIC (EXCLUSIVE): 11 + 21 + 42 samples; a stored all-zero cell gives min 0 */
	expect_fields(c, 12, 0, ALL, 0, I, (double[]){74, 0, 37, 796, 14338}, 5);
	cr_assert(sev_of(c, 12, 0, ALL, 0, I) == 796.0 / 74);
	/* COMPLEX (INCLUSIVE): root (4, 10) minus children (4, 26) and (34, 12.6) */
	expect_fields(c, 16, 0, ALL, 0, 0, (double[]){-34, -28.6}, 2);
	expect_fields(c, 16, 0, ALL, 0, I, (double[]){4, 10}, 2);
	/* NDOUBLES(10) (INCLUSIVE): stored root sums */
	expect_fields(c, 14, 0, ALL, 0, I, (double[]){6, 10, 14, 18, 22, 26, 30, 34, 38, 42}, 10);
	cr_assert(sev_of(c, 14, 0, ALL, 0, I) == 240);
	/* HISTOGRAM(5) (EXCLUSIVE): three cnodes of 40 each, range 1 .. 41 */
	double h[7];
	cr_assert_eq(profdb_cube_severity_fields_get(c, ALL, 0, 0, 13, I, h, 7), 7);
	cr_assert(h[0] == 1 && h[1] == 41);
	cr_assert(absd(sev_of(c, 13, 0, ALL, 0, I) - 120) < 1e-9);
	/* SCALE_FUNC: rows only */
	double d;
	cr_assert_eq(profdb_cube_severity_get(c, ALL, 0, 0, 15, 0, &d), -ENOTSUP);
	profdb_cube_close(c);
	free(path);
}

/* A call tree 100 000 levels deep: parsed, enumerated and aggregated without
 * recursion (a metric without data members reads as neutral everywhere). */
Test(cube, deep_call_tree)
{
	const size_t depth = 100000;
	size_t cap = depth * 48 + 4096;
	char *x = malloc(cap), *p = x;
	cr_assert(x);
	p += sprintf(p, "<?xml version=\"1.0\"?><cube version=\"4.4\"><metrics><metric id=\"0\" "
	             "type=\"EXCLUSIVE\"><uniq_name>t</uniq_name><dtype>RATE</dtype></metric>"
	             "</metrics><program><region id=\"0\"><name>r</name></region>");
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "<cnode id=\"%zu\" calleeId=\"0\">", i);
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "</cnode>");
	sprintf(p, "</program><system><systemtreenode Id=\"0\"><name>m</name><locationgroup "
	        "Id=\"0\"><name>p</name><type>process</type><location Id=\"0\"><name>t</name>"
	        "<type>thread</type></location></locationgroup></systemtreenode></system></cube>");
	tw_blob b = {NULL, 0};
	cr_assert_eq(tw_tar_add(&b, "anchor.xml", x, strlen(x), 0, 0), 0);
	cr_assert_eq(tw_tar_end(&b), 0);
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0, "%s", profdb_error_message());
	profdb_cube_cnode cn;
	cr_assert_eq(profdb_cube_cnode_get(c, (uint32_t)depth - 1, &cn), 0);
	cr_assert_eq(cn.parent, depth - 2);
	double f[2];
	cr_assert_eq(profdb_cube_severity_fields_get(c, PROFDB_CUBE_ITEM_CUBE, 0, 0, 0,
	                                         PROFDB_CUBE_CALL_INCLUSIVE, f, 2), 2);
	cr_assert(f[0] == 0 && f[1] == 1); /* 0/1, the neutral RATE */
	profdb_cube_close(c);
	free(b.data);
	free(x);
}

/* ---- PROFDB_OPEN_TOLERANT ---------------------------------------------------------------- */

static profdb_cube *open_tolerant(const tw_blob *b)
{
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = PROFDB_OPEN_TOLERANT;
	o.warn = count_warn;
	profdb_cube *c = NULL;
	cr_assert_eq(profdb_cube_open_mem(&c, b->data, b->size, &o), 0, "%s",
	             profdb_error_message());
	return c;
}

/* Every cell of the sample reads as written (@p flags), except the cells of
 * (metric @p bad_m, every cnode when @p bad_c is PROFDB_NONE, else cnode
 * @p bad_c), which read as absent. */
static void expect_sample_except(const profdb_cube *c, unsigned flags, uint32_t bad_m,
                                 uint32_t bad_c)
{
	for (uint32_t m = 0; m < TW_CUBE_METRICS; m++)
		for (uint32_t n = 0; n < TW_CUBE_CNODES; n++)
			for (uint32_t l = 0; l < TW_CUBE_LOCATIONS; l++) {
				double want, got;
				int stored = tw_cube_expected(flags, m, n, l, &want);
				int damaged = m == bad_m && (bad_c == PROFDB_NONE || n == bad_c);
				int r = profdb_cube_value_get(c, l, n, m, &got);
				cr_assert_eq(r, damaged ? 0 : stored, "metric %u cnode %u location %u: %d",
				             m, n, l, r);
				if (r == 1)
					cr_assert_eq(got, want);
			}
}

Test(cube, tolerant_index_and_short_data)
{
	tw_blob b;
	/* metric 0's index names a position past the call tree: its rows are absent */
	write_flags(&b, TW_CUBE_BAD_POSITION, NULL);
	warnings = 0;
	profdb_cube *c = open_tolerant(&b);
	cr_assert_geq(warnings, 1);
	expect_sample_except(c, TW_CUBE_BAD_POSITION, 0, PROFDB_NONE);
	profdb_cube_close(c);
	free(b.data);
	/* metric 2's data member lacks its last row: that row is absent */
	write_flags(&b, TW_CUBE_SHORT_DATA, NULL);
	warnings = 0;
	c = open_tolerant(&b);
	cr_assert_eq(warnings, 1);
	int absent = 0;
	for (uint32_t n = 0; n < TW_CUBE_CNODES; n++) {
		double want, got;
		int stored = tw_cube_expected(0, 2, n, 0, &want);
		int r = profdb_cube_value_get(c, 0, n, 2, &got);
		cr_assert(r == stored || (stored == 1 && r == 0), "cnode %u: %d", n, r);
		absent += r != stored;
	}
	cr_assert_eq(absent, 1, "exactly the missing row reads as absent");
	profdb_cube_close(c);
	free(b.data);
	/* a broken anchor.xml still fails */
	write_flags(&b, 0, "<cube version=\"4.4\"><metric");
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = PROFDB_OPEN_TOLERANT;
	c = (profdb_cube *)1;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, &o), -EBADMSG);
	cr_assert_null(c);
	free(b.data);
}

Test(cube, tolerant_zcubex_rows)
{
	tw_blob b;
	if (tw_cube_write(&b, TW_CUBE_ZCUBEX, NULL) == -ENOTSUP)
		return;
	/* spoil every compressed block of metric 0 (the table stays intact) */
	size_t h = header_of(&b, "0.data");
	unsigned char *d = b.data + h + 512;
	size_t size = (size_t)strtoull((const char *)b.data + h + 124, NULL, 8);
	cr_assert_eq(memcmp(d, "ZCUBEX.DATA", 11), 0);
	uint64_t cnt = 0;
	for (int i = 7; i >= 0; i--)
		cnt = cnt << 8 | d[11 + i];
	for (size_t i = 19 + 24 * cnt; i < size; i++)
		d[i] ^= 0x5a;

	/* strict: the call fails */
	profdb_cube *c;
	cr_assert_eq(profdb_cube_open_mem(&c, b.data, b.size, NULL), 0);
	double v;
	cr_assert_eq(profdb_cube_value_get(c, 0, 3, 0, &v), -EBADMSG);
	profdb_cube_close(c);

	/* tolerant: one warning, the rows read as absent, the rest as written */
	warnings = 0;
	c = open_tolerant(&b);
	expect_sample_except(c, TW_CUBE_ZCUBEX, 0, PROFDB_NONE);
	cr_assert_eq(warnings, 1, "one warning per damaged metric, not per row");
	profdb_cube_close(c);

	/* the common interface: strict fails, tolerant reads absent */
	profdb_input in = {"sample.cubex", b.data, b.size};
	profdb *db;
	profdb_number num;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0);
	cr_assert_eq(profdb_value(db, 0, 3, 0, &num), -EBADMSG);
	profdb_close(db);
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = PROFDB_OPEN_TOLERANT;
	o.warn = count_warn;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, &o), 0);
	cr_assert_eq(profdb_value(db, 0, 3, 0, &num), 0);
	cr_assert_eq(num.type, PROFDB_TYPE_NONE);
	cr_assert_eq(profdb_value(db, 0, 3, 2, &num), 1, "metric 2 is intact");
	profdb_close(db);
	free(b.data);
}
