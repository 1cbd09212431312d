/* Fuzz target: one Callgrind profile (text or gzip), opened from memory and
 * driven through the whole public API.
 *
 * The input is copied into an exact-size heap buffer so a read past its end
 * is caught by AddressSanitizer. Invariants checked (abort on violation):
 *  - a failed open returns a negative errno from the documented set, leaves
 *    the handle NULL and sets a message naming the input;
 *  - after a successful open every getter succeeds for every index below
 *    its count and fails with -ENOENT at the count;
 *  - the totals are the sum of the self costs, the line rows of a function
 *    add up to its self cost, every call edge names existing functions,
 *    and no inclusive cost is below the self cost or above the total. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "profdb/profdb.h"

#define CHECK(c)                                                                              \
	do {                                                                                  \
		if (!(c))                                                                     \
			abort();                                                              \
	} while (0)

static void quiet(const char *msg, void *ud)
{
	(void)msg;
	(void)ud;
}

static void drive(const profdb_cg *cg)
{
	int ne = profdb_cg_event_count(cg);
	CHECK(ne >= 0 && ne <= 256);
	CHECK(profdb_cg_part_count(cg) >= 0);
	for (int e = 0; e < ne; e++) {
		profdb_cg_event ev;
		CHECK(profdb_cg_event_get(cg, (uint32_t)e, &ev) == 0);
		CHECK(ev.name && ev.name_len > 0);
	}
	profdb_cg_event ev;
	CHECK(profdb_cg_event_get(cg, (uint32_t)ne, &ev) == -ENOENT);
	const uint64_t *tot, *s;
	CHECK(profdb_cg_totals(cg, &tot) == 0);
	CHECK(profdb_cg_summary(cg, PROFDB_CG_SUMMARY, &s) >= 0);
	CHECK(profdb_cg_summary(cg, PROFDB_CG_TOTALS, &s) >= 0);
	int64_t nf = profdb_cg_function_count(cg);
	CHECK(nf >= 0);
	if (ne == 0) {
		CHECK(nf == 0 && tot == NULL);
		return;
	}
	uint64_t *sum = calloc((size_t)ne, sizeof *sum);
	uint64_t *ls = calloc((size_t)ne, sizeof *ls);
	CHECK(sum && ls);
	for (int64_t i = 0; i < nf; i++) {
		profdb_cg_function f;
		CHECK(profdb_cg_function_get(cg, (uint32_t)i, &f) == 0);
		CHECK(f.name && f.object && f.file && f.self);
		const uint64_t *inc;
		CHECK(profdb_cg_inclusive(cg, (uint32_t)i, &inc) == 0);
		memset(ls, 0, (size_t)ne * sizeof *ls);
		for (uint32_t k = 0; k < f.n_lines; k++) {
			profdb_cg_line l;
			CHECK(profdb_cg_function_line(cg, (uint32_t)i, k, &l) == 0);
			CHECK(l.file && l.self);
			for (int e = 0; e < ne; e++)
				ls[e] += l.self[e];
		}
		profdb_cg_line l;
		CHECK(profdb_cg_function_line(cg, (uint32_t)i, f.n_lines, &l) == -ENOENT);
		for (int e = 0; e < ne; e++) {
			sum[e] += f.self[e];
			CHECK(inc[e] >= f.self[e] && inc[e] <= tot[e]);
			if (f.n_lines)
				CHECK(ls[e] == f.self[e]);
		}
	}
	for (int e = 0; e < ne; e++)
		CHECK(sum[e] == tot[e]);
	profdb_cg_function f;
	CHECK(profdb_cg_function_get(cg, (uint32_t)nf, &f) == -ENOENT);
	int64_t nc = profdb_cg_call_count(cg);
	CHECK(nc >= 0);
	for (int64_t i = 0; i < nc; i++) {
		profdb_cg_call c;
		CHECK(profdb_cg_call_get(cg, (uint32_t)i, &c) == 0);
		CHECK(c.caller < (uint64_t)nf && c.callee < (uint64_t)nf && c.inclusive);
	}
	profdb_cg_call c;
	CHECK(profdb_cg_call_get(cg, (uint32_t)nc, &c) == -ENOENT);
	free(sum);
	free(ls);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);
	CHECK(copy);
	if (size)
		memcpy(copy, data, size);
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.warn = quiet;
	profdb_cg *cg = (profdb_cg *)&o;  /* must be reset to NULL on failure */
	int r = profdb_cg_open_mem(&cg, copy, size, &o);
	if (r < 0) {
		CHECK(cg == NULL);
		CHECK(r == -EBADMSG || r == -ENODATA || r == -EPROTONOSUPPORT || r == -ENOMEM ||
		      r == -ENOTSUP || r == -EFBIG);
		CHECK(r == -ENOMEM || strstr(profdb_error_message(), "<memory>") != NULL);
	} else {
		CHECK(r == 0 && cg != NULL);
		drive(cg);
		profdb_cg_close(cg);
	}
	free(copy);
	return 0;
}
