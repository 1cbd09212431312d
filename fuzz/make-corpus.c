/* Writes the seed corpus of the HPCToolkit fuzz targets from the test-data
 * writer (tests/writer): the writer's sample database in several layouts,
 * plus an empty database and a deep one with special float values.
 *
 * usage: make-corpus CORPUS-DIR     (meson compile -C BUILD fuzz-corpus)
 *
 * For each variant V it writes CORPUS-DIR/fuzz-hpctk-{meta,profile,cct,trace}/V
 * (the single files; a file identical to one already written for that target
 * is skipped) and CORPUS-DIR/fuzz-hpctk-db/V (the files joined with the
 * separator of fuzz-hpctk-db.c). The output is committed; rerun this after a
 * change of the writer's layout. Every database written here is consistent
 * (cct.db is the transposition of profile.db), which the fuzz-regressions
 * tests rely on (--strict). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "writer.h"
#include "drive-hpctk.h"

static const char *const targets[TW_NFILES] = {
	"fuzz-hpctk-meta", "fuzz-hpctk-profile", "fuzz-hpctk-cct", "fuzz-hpctk-trace",
};

/* Contents already written per single-file target, to skip duplicates. */
#define MAX_SEEN 64
static tw_blob seen[TW_NFILES][MAX_SEEN];
static int n_seen[TW_NFILES];

static void die(const char *what, int err)
{
	fprintf(stderr, "make-corpus: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void write_file(const char *dir, const char *target, const char *name,
                       const void *data, size_t size)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, target);
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		die(path, errno);
	snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		die(path, errno);
	printf("%s (%zu bytes)\n", path, size);
}

static int duplicate(int f, const tw_blob *b)
{
	for (int i = 0; i < n_seen[f]; i++)
		if (seen[f][i].size == b->size && memcmp(seen[f][i].data, b->data, b->size) == 0)
			return 1;
	return 0;
}

static void emit(const char *dir, const char *name, const tw_hpctk4 *desc)
{
	tw_blob out[TW_NFILES];
	int r = tw_hpctk4_write(desc, out);
	if (r < 0)
		die(name, r);

	size_t total = 0;
	for (int f = 0; f < TW_NFILES; f++)
		total += out[f].size + FUZZ_HPCTK_SEP_LEN;
	unsigned char *joined = malloc(total), *p = joined;
	if (!joined)
		die("joined database", ENOMEM);
	for (int f = 0; f < TW_NFILES; f++) {
		if (f > 0) {
			memcpy(p, FUZZ_HPCTK_SEP, FUZZ_HPCTK_SEP_LEN);
			p += FUZZ_HPCTK_SEP_LEN;
		}
		if (out[f].size)
			memcpy(p, out[f].data, out[f].size);
		p += out[f].size;
	}
	/* Trailing separators of absent last files are not needed. */
	size_t len = (size_t)(p - joined);
	while (len >= FUZZ_HPCTK_SEP_LEN &&
	       memcmp(joined + len - FUZZ_HPCTK_SEP_LEN, FUZZ_HPCTK_SEP, FUZZ_HPCTK_SEP_LEN) == 0)
		len -= FUZZ_HPCTK_SEP_LEN;
	write_file(dir, "fuzz-hpctk-db", name, joined, len);
	free(joined);

	for (int f = 0; f < TW_NFILES; f++) {
		if (!out[f].data)
			continue;
		if (duplicate(f, &out[f]) || n_seen[f] == MAX_SEEN) {
			tw_blob_free(&out[f]);
			continue;
		}
		write_file(dir, targets[f], name, out[f].data, out[f].size);
		seen[f][n_seen[f]++] = out[f];
	}
}

/* A chain of contexts deeper than the reader's initial stacks (64), with
 * values that must come back bit for bit: NaN with a payload, -0.0, a
 * denormal, infinities. */
#define DEEP 70
static void deep_desc(tw_hpctk4 *d, const tw_hpctk4 *sample)
{
	static tw_context ctx[DEEP];
	static tw_value v1[DEEP], v2[DEEP / 2], vs[DEEP];
	static tw_profile prof[3];
	static tw_sample samples[DEEP];
	static tw_trace traces[2];
	static const tw_id ids1[2] = {{1, 1, 0, 0x7f000001}, {3, 0, 0, 0}};
	static const tw_id ids2[2] = {{1, 1, 0, 0x7f000001}, {3, 0, 1, 1}};
	uint64_t nan_bits = UINT64_C(0x7ff8000000c0ffee);
	double special[6] = {-0.0, 4.9406564584124654e-324, INFINITY, -INFINITY, 0, 1.5};
	memcpy(&special[4], &nan_bits, 8);

	*d = *sample;
	for (uint32_t i = 0; i < DEEP; i++) {
		tw_context *c = &ctx[i];
		memset(c, 0, sizeof *c);
		c->id = 2 * i + 1;     /* sparse ids */
		c->parent = (int32_t)i - 1;
		c->relation = i % 3 == 0 ? 1 : 0;
		c->lexical_type = (uint8_t)(i % 4);
		c->function = i % 3 == 0 ? (int32_t)(i % sample->n_functions) : -1;
		c->file = i % 2 ? (int32_t)(i % sample->n_files) : -1;
		c->line = i;
		c->module = i % 5 == 1 ? 0 : -1;
		c->offset = 0x1000 + i;
		c->propagation = c->relation == 0;
		c->entry_point = 1;
		v1[i] = (tw_value){c->id, (uint16_t)(i % 5), special[i % 6]};
		vs[i] = (tw_value){c->id, (uint16_t)(i % 5), special[(i + 1) % 6]};
		if (i % 2 == 0)
			v2[i / 2] = (tw_value){c->id, 3, (double)i};
		samples[i] = (tw_sample){TW_SAMPLE_T0 + 7 * (uint64_t)i + (i % 3 == 0), c->id};
	}
	ctx[0].pretty_name = "deep entry";
	prof[0] = (tw_profile){1, 0, NULL, DEEP, vs};
	prof[1] = (tw_profile){0, 2, ids1, DEEP, v1};
	prof[2] = (tw_profile){0, 2, ids2, DEEP / 2, v2};
	traces[0] = (tw_trace){1, DEEP, samples};
	traces[1] = (tw_trace){2, DEEP / 3, samples};
	d->title = "deep";
	d->description = "";
	d->n_contexts = DEEP;
	d->contexts = ctx;
	d->n_profiles = 3;
	d->profiles = prof;
	d->n_traces = 2;
	d->traces = traces;
	d->trace_min = d->trace_max = 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		die(dir, errno);

	tw_hpctk4 sample, d;
	tw_hpctk4_sample(&sample);

	emit(dir, "sample", &sample);
	d = sample;
	d.devstage = 1;
	emit(dir, "devstage", &d);
	d = sample;
	d.extra = 8;
	emit(dir, "extra-strides", &d);
	d = sample;
	d.minor = 1;
	emit(dir, "minor-1", &d);
	d = sample;
	d.no_trace = 1;
	emit(dir, "no-trace", &d);
	d = sample;
	d.no_cct = 1;
	emit(dir, "no-cct", &d);
	d = sample;
	d.unaligned = 1;
	emit(dir, "unaligned", &d);
	/* Not with extra: dev-stage is recognised by szMetric == 24 exactly. */
	d = sample;
	d.devstage = 1;
	d.unaligned = 1;
	emit(dir, "devstage-unaligned", &d);

	/* Nothing but a summary profile with no values. */
	static const tw_profile summary_only = {1, 0, NULL, 0, NULL};
	memset(&d, 0, sizeof d);
	d.title = "empty";
	d.n_profiles = 1;
	d.profiles = &summary_only;
	emit(dir, "empty", &d);

	deep_desc(&d, &sample);
	emit(dir, "deep-special-values", &d);
	d.devstage = 1;
	emit(dir, "deep-special-values-devstage", &d);

	for (int f = 0; f < TW_NFILES; f++)
		for (int i = 0; i < n_seen[f]; i++)
			tw_blob_free(&seen[f][i]);
	return 0;
}
