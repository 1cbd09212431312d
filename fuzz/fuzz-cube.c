/* Fuzz target: a whole Cube4 .cubex archive (plain or gzip-compressed tar),
 * opened with profdb_cube_open_mem() and driven through every public Cube
 * function.
 *
 * Invariants (a violation prints the invariant and aborts):
 *  - a failed call returns a documented negative errno and leaves a
 *    non-empty profdb_error_message();
 *  - the counts agree with profdb_cube_get_info(); every id below a count
 *    can be read; the root chain holds exactly the cnodes without a parent;
 *  - parent/child/sibling links point at valid ids;
 *  - profdb_cube_value() and profdb_cube_row() agree on presence, and on
 *    the bits of double-valued metrics;
 *  - with --strict (the committed seeds, which are valid archives), the
 *    archive opens and every value reads without an error.
 * The work per input is capped so one run stays fast whatever the counts
 * claim. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "profdb.h"

#define CHECK(cond, what)                                                            \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "fuzz-cube: invariant violated: %s (%s:%d)\n", \
			        what, __FILE__, __LINE__);                           \
			abort();                                                     \
		}                                                                    \
	} while (0)

static void check_fail(int r)
{
	CHECK(r == -EINVAL || r == -ENOENT || r == -EBADMSG || r == -ENODATA ||
	      r == -EPROTONOSUPPORT || r == -ENOTSUP || r == -ENOMEM || r == -EFBIG ||
	      r == -ERANGE, "documented error code");
	CHECK(profdb_error_message()[0] != 0, "error message set");
}

static void drive(const profdb_cube *c)
{
	profdb_cube_info info;
	CHECK(profdb_cube_get_info(c, &info) == 0, "info");
	CHECK(profdb_cube_metric_count(c) == (int)info.n_metrics, "metric count");
	CHECK(profdb_cube_cnode_count(c) == (int)info.n_cnodes, "cnode count");
	CHECK(profdb_cube_location_count(c) == (int)info.n_locations, "location count");
	CHECK(profdb_cube_region_count(c) == (int)info.n_regions, "region count");

	uint32_t roots = 0, chain = 0;
	for (uint32_t i = 0; i < info.n_cnodes; i++) {
		profdb_cube_cnode n;
		CHECK(profdb_cube_cnode_get(c, i, &n) == 0, "cnode get");
		CHECK(n.id == i && n.region < info.n_regions, "cnode fields");
		CHECK(n.parent == PROFDB_NONE || n.parent < info.n_cnodes, "cnode parent");
		CHECK(n.first_child == PROFDB_NONE || n.first_child < info.n_cnodes, "cnode child");
		CHECK(n.next_sibling == PROFDB_NONE || n.next_sibling < info.n_cnodes, "cnode sibling");
		roots += n.parent == PROFDB_NONE;
		for (uint32_t k = 0; k < n.n_params && k < 16; k++) {
			const char *key = NULL, *val = NULL;
			CHECK(profdb_cube_cnode_param(c, i, k, &key, &val, NULL) == 0 && key && val,
			      "param");
		}
	}
	for (uint32_t r = info.first_root; r != PROFDB_NONE && chain <= info.n_cnodes; chain++) {
		profdb_cube_cnode n;
		CHECK(profdb_cube_cnode_get(c, r, &n) == 0 && n.parent == PROFDB_NONE, "root chain");
		r = n.next_sibling;
	}
	CHECK(chain == roots, "root chain length");
	for (uint32_t i = 0; i < info.n_regions; i++) {
		profdb_cube_region g;
		CHECK(profdb_cube_region_get(c, i, &g) == 0 && g.name, "region");
	}
	for (uint32_t i = 0; i < info.n_locations; i++) {
		profdb_cube_location l;
		CHECK(profdb_cube_location_get(c, i, &l) == 0 && l.name && l.type, "location");
	}
	uint64_t budget = 200000;
	for (uint32_t m = 0; m < info.n_metrics; m++) {
		profdb_cube_metric mm;
		CHECK(profdb_cube_metric_get(c, m, &mm) == 0, "metric get");
		CHECK(mm.parent == PROFDB_NONE || mm.parent < info.n_metrics, "metric parent");
		size_t rb = (size_t)mm.value_size * info.n_locations;
		if (rb > (1u << 24))
			continue;
		unsigned char *row = malloc(rb ? rb : 1);
		CHECK(row != NULL, "malloc");
		for (uint32_t n = 0; n < info.n_cnodes && budget; n++) {
			int rr = profdb_cube_row(c, m, n, row, rb);
			if (rr < 0) {
				check_fail(rr);
				CHECK(!fuzz_hpctk_strict, "strict: row readable");
				continue;
			}
			for (uint32_t l = 0; l < info.n_locations && budget; l++, budget--) {
				double d;
				int r = profdb_cube_value(c, m, n, l, &d);
				if (r < 0) {
					check_fail(r);
					CHECK(r == -ENOTSUP || !fuzz_hpctk_strict, "strict: value readable");
					continue;
				}
				CHECK(r == rr, "value and row agree on presence");
				if (mm.dtype == PROFDB_CUBE_DOUBLE || mm.dtype == PROFDB_CUBE_MINDOUBLE ||
				    mm.dtype == PROFDB_CUBE_MAXDOUBLE)
					CHECK(memcmp(row + (size_t)l * 8, &d, 8) == 0, "row and value bits");
			}
		}
		free(row);
	}
	double d;
	CHECK(profdb_cube_value(c, info.n_metrics, 0, 0, &d) == -ENOENT, "metric out of range");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size private copy: a read past the end is an ASan report. */
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	profdb_cube *c = NULL;
	int r = profdb_cube_open_mem(&c, copy, size, NULL);
	if (r < 0) {
		check_fail(r);
		CHECK(c == NULL, "no handle on failure");
		if (fuzz_hpctk_strict) {
			fprintf(stderr, "fuzz-cube: strict input did not open: %s\n",
			        profdb_error_message());
			abort();
		}
	} else {
		drive(c);
		profdb_cube_close(c);
	}
	free(copy);
	return 0;
}
