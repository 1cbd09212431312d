/* Files of two databases in one folder (doc/ROBUSTNESS.md, "Files of one
 * database"). For every ordered pair (A, B) of the shared sample databases
 * and every file kind, a folder holds A's files with B's file of that kind
 * (links to the shared files, which are only read). From each file alone
 * the test predicts, through the format's public API, whether the counts
 * and id ranges the open checks compare disagree, and (HPCToolkit 4.0)
 * whether the edges of a profile.db value block, compared at the block's
 * first use, disagree. Every swap disagreeing at open must fail the strict
 * open with -EBADMSG naming both files and warn in tolerant mode; every
 * swap disagreeing at first use must open, then fail the use of some
 * block the same way (warn once in tolerant mode); no other swap may do
 * either. The swaps that agree are listed, with whether the full check
 * (profdb_hpctk_check, profdb_hpctkpre_check) tells them apart. Skips
 * visibly without the shared data. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common.h"
#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "writer.h"

enum { KINDS = 4 };

static char dir[64];
static int warned;
static char warning[1024];

static void on_warn(const char *msg, void *ud)
{
	(void)ud;
	warned++;
	snprintf(warning, sizeof warning, "%s", msg);
}

static int readable(const char *db, const char *name)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/%s", db, name);
	return access(p, R_OK) == 0;
}

/* The target of each link in the folder ("" when there is none): a swap
 * changes only the links that differ from the swap before (making and
 * removing every link of every swap took a tenth of the test's time). */
static char linked[KINDS][4200];

/* The folder (made at the first call) with links to @p a's files, @p b's
 * for kind @p k. */
static void mix(const char *const *names, const char *a, const char *b, int k)
{
	char from[4200], to[128];
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/profdb-mix-XXXXXX");
		cr_assert_not_null(mkdtemp(dir));
	}
	for (int i = 0; i < KINDS; i++) {
		snprintf(from, sizeof from, "%s/%s", i == k ? b : a, names[i]);
		if (access(from, R_OK) != 0)
			from[0] = '\0';
		if (strcmp(from, linked[i]) == 0)
			continue;
		snprintf(to, sizeof to, "%s/%s", dir, names[i]);
		if (linked[i][0])
			cr_assert_eq(unlink(to), 0);
		if (from[0])
			cr_assert_eq(symlink(from, to), 0);
		snprintf(linked[i], sizeof linked[i], "%s", from);
	}
}

/* Removes the folder and its links. */
static void unmix(const char *const *names)
{
	char p[128];
	for (int i = 0; i < KINDS; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		if (linked[i][0])
			unlink(p);
		linked[i][0] = '\0';
	}
	rmdir(dir);
	dir[0] = '\0';
}

/* Whether @p msg names the swapped file and one it disagrees with. */
static int names_pair(const char *msg, const char *const *names, int k, unsigned others)
{
	if (!strstr(msg, names[k]))
		return 0;
	for (int i = 0; i < KINDS; i++)
		if ((others >> i & 1) && strstr(msg, names[i]))
			return 1;
	return 0;
}

/* The verdict of the strict open (or, @p use, of using every block after
 * it) on a swap that disagrees with the kinds @p others (bit i for kind
 * i): -EBADMSG naming the swapped file and one of those. */
static void expect_refused(int r, const char *const *names, int k, unsigned others,
                           const char *what, const char *when)
{
	cr_assert_eq(r, -EBADMSG, "%s: %s gave %d", what, when, r);
	cr_assert(names_pair(profdb_error_message(), names, k, others),
	          "%s: \"%s\" (%s) does not name %s and a file it disagrees with", what,
	          profdb_error_message(), when, names[k]);
}

/* The tolerant open's warnings so far against the prediction. */
static void expect_warned(const char *const *names, int k, unsigned others, const char *what,
                          const char *when)
{
	if (others)
		cr_assert(warned > 0 && names_pair(warning, names, k, others),
		          "tolerant, %s: no warning naming %s and a file it disagrees with %s "
		          "(\"%s\")", what, names[k], when, warning);
	else
		cr_assert_eq(warned, 0, "tolerant, %s: warned \"%s\" %s", what, warning, when);
}

/* The swap's verdict against the prediction, both modes. @p at_open: the
 * kinds the swapped one (@p names[k]) disagrees with in what the open
 * compares; @p at_use: in what the first use of a block compares, which
 * @p use_all (NULL: nothing is compared there) runs over every block.
 * Returns the full check's result on a swap that raised nothing. */
static int expect(const char *const *names, int k, unsigned at_open, unsigned at_use,
                  const char *what, int (*full_check)(const profdb *),
                  int (*use_all)(const profdb *))
{
	profdb *db;
	int r = profdb_open(&db, dir, NULL), full = 0;
	if (at_open) {
		expect_refused(r, names, k, at_open, what, "the open");
	} else {
		cr_assert_eq(r, 0, "%s: %s", what, profdb_error_message());
		r = use_all ? use_all(db) : 0;
		if (at_use)
			expect_refused(r, names, k, at_use, what, "the first use of the blocks");
		else
			cr_assert_eq(r, 0, "%s: %s", what, profdb_error_message());
		full = at_use ? 0 : full_check(db);
		profdb_close(db);
	}
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = PROFDB_OPEN_TOLERANT;
	o.warn = on_warn;
	warned = 0;
	r = profdb_open(&db, dir, &o);
	cr_assert_eq(r, 0, "tolerant, %s: %s", what, profdb_error_message());
	expect_warned(names, k, at_open, what, "at open");
	if (!at_open && use_all) {
		cr_assert_eq(use_all(db), 0, "tolerant, %s: %s", what, profdb_error_message());
		expect_warned(names, k, at_use, what, "at the first use of the blocks");
		cr_assert(warned <= 1, "tolerant, %s: %d warnings for the blocks", what, warned);
	}
	profdb_close(db);
	return full;
}

/* ---- HPCToolkit 4.0 ---------------------------------------------------------- */

enum { META, PROF, CCT, TRACE };
static const char *const v4_names[KINDS] = {"meta.db", "profile.db", "cct.db", "trace.db"};

typedef struct prof_fact {
	int summary;
	uint64_t n_values;
	int64_t last_ctx;           /* -1: no context */
	int32_t first_m, last_m;    /* -1: no value */
} prof_fact;

/* What each file of one database says on its own. */
typedef struct v4_facts {
	int has[KINDS];
	int metrics_ok;
	uint8_t prop[65536 / 8], stat[65536 / 8];
	uint32_t entries[256], n_entries;
	uint32_t n_prof;
	prof_fact *prof;
	uint32_t n_slots;
	uint64_t cct_values;
	uint32_t n_lines;
	uint32_t *line_profile;
} v4_facts;

static profdb_hpctk *open_one(const char *db, int k)
{
	char p[4200];
	profdb_hpctk *h;
	snprintf(p, sizeof p, "%s/%s", db, v4_names[k]);
	cr_assert_eq(profdb_hpctk_open(&h, p, NULL), 0, "%s: %s", p, profdb_error_message());
	return h;
}

static void set_bit(uint8_t *set, uint32_t id)
{
	set[id >> 3] |= (uint8_t)(1u << (id & 7));
}

static int has_bit(const uint8_t *set, int32_t id)
{
	return id < 0 || (set[id >> 3] >> (id & 7) & 1);
}

static void meta_facts(v4_facts *f, const char *db)
{
	profdb_hpctk *h = open_one(db, META);
	int64_t nm = profdb_hpctk_metric_count(h);
	f->metrics_ok = nm >= 0;
	for (uint32_t m = 0; m < (nm > 0 ? nm : 0); m++) {
		profdb_hpctk_metric md;
		cr_assert_eq(profdb_hpctk_metric_at(h, m, &md), 0);
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop pr;
			cr_assert_eq(profdb_hpctk_metric_prop_at(h, m, i, &pr), 0);
			set_bit(f->prop, pr.prop_metric_id);
		}
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary s;
			cr_assert_eq(profdb_hpctk_metric_summary_at(h, m, i, &s), 0);
			set_bit(f->stat, s.stat_metric_id);
		}
	}
	profdb_hpctk_context root, c;
	profdb_hpctk_children it;
	cr_assert_eq(profdb_hpctk_root(h, &root), 0);
	cr_assert_eq(profdb_hpctk_children_begin(h, &root, &it), 0);
	while (profdb_hpctk_children_next(&it, &c) == 1 && f->n_entries < 256)
		f->entries[f->n_entries++] = c.id;
	if (profdb_hpctk_get_layout(h) == PROFDB_HPCTK_DEVSTAGE)
		f->n_entries = 0;   /* roots, not entry points: not compared */
	profdb_hpctk_close(h);
}

static void profile_facts(v4_facts *f, const char *db)
{
	profdb_hpctk *h = open_one(db, PROF);
	f->n_prof = (uint32_t)profdb_hpctk_profile_count(h);
	f->prof = calloc(f->n_prof ? f->n_prof : 1, sizeof *f->prof);
	for (uint32_t p = 0; p < f->n_prof; p++) {
		profdb_hpctk_profile pr;
		profdb_view index, values;
		prof_fact *pf = &f->prof[p];
		cr_assert_eq(profdb_hpctk_profile_at(h, p, &pr), 0);
		cr_assert_eq(profdb_hpctk_profile_plane(h, p, &index, &values), 0);
		pf->summary = pr.is_summary;
		pf->n_values = pr.n_values;
		pf->last_ctx = index.count ? (int64_t)profdb_view_key(&index, index.count - 1) : -1;
		pf->first_m = values.count ? (int32_t)profdb_view_key(&values, 0) : -1;
		pf->last_m = values.count ? (int32_t)profdb_view_key(&values, values.count - 1) : -1;
	}
	profdb_hpctk_close(h);
}

static void cct_facts(v4_facts *f, const char *db)
{
	profdb_hpctk *h = open_one(db, CCT);
	f->n_slots = (uint32_t)profdb_hpctk_cct_slot_count(h);
	for (uint32_t c = 0; c < f->n_slots; c++) {
		profdb_view index, values;
		cr_assert_eq(profdb_hpctk_context_plane(h, c, &index, &values), 0);
		f->cct_values += values.count;
	}
	profdb_hpctk_close(h);
}

static void trace_facts(v4_facts *f, const char *db)
{
	profdb_hpctk *h = open_one(db, TRACE);
	f->n_lines = (uint32_t)profdb_hpctk_trace_count(h);
	f->line_profile = calloc(f->n_lines + 1, sizeof *f->line_profile);
	for (uint32_t t = 0; t < f->n_lines; t++) {
		profdb_hpctk_trace tr;
		cr_assert_eq(profdb_hpctk_trace_line_at(h, t, &tr), 0);
		f->line_profile[t] = tr.profile;
	}
	profdb_hpctk_close(h);
}

static void v4_facts_of(v4_facts *f, const char *db)
{
	memset(f, 0, sizeof *f);
	for (int k = 0; k < KINDS; k++)
		f->has[k] = readable(db, v4_names[k]);
	if (f->has[META])
		meta_facts(f, db);
	if (f->has[PROF])
		profile_facts(f, db);
	if (f->has[CCT])
		cct_facts(f, db);
	if (f->has[TRACE])
		trace_facts(f, db);
}

static void v4_facts_free(v4_facts *f)
{
	free(f->prof);
	free(f->line_profile);
}

/* The rules, from the facts: the pairs of kinds that disagree. */
static int trace_vs_profile(const v4_facts *t, const v4_facts *p)
{
	if (t->n_lines > p->n_prof)
		return 1;
	for (uint32_t i = 0; i < t->n_lines; i++)
		if (t->line_profile[i] >= p->n_prof || p->prof[t->line_profile[i]].summary)
			return 1;
	return 0;
}

static int counts_differ(const v4_facts *p, const v4_facts *c)
{
	uint64_t n_thread = 0;
	for (uint32_t i = 0; i < p->n_prof; i++)
		if (!p->prof[i].summary)
			n_thread += p->prof[i].n_values;
	return n_thread != c->cct_values;
}

/* First use of the profile blocks: a context past cct.db's slots. */
static int context_past_slots(const v4_facts *p, const v4_facts *c)
{
	for (uint32_t i = 0; i < p->n_prof; i++)
		if (p->prof[i].last_ctx >= (int64_t)c->n_slots)
			return 1;
	return 0;
}

/* First use of the profile blocks: an edge metric id meta.db lacks. */
static int profile_vs_meta(const v4_facts *p, const v4_facts *m)
{
	for (uint32_t i = 0; m->metrics_ok && i < p->n_prof; i++) {
		const uint8_t *ids = p->prof[i].summary ? m->stat : m->prop;
		if (!has_bit(ids, p->prof[i].first_m) || !has_bit(ids, p->prof[i].last_m))
			return 1;
	}
	return 0;
}

static int cct_vs_meta(const v4_facts *c, const v4_facts *m)
{
	for (uint32_t e = 0; e < m->n_entries; e++)
		if (m->entries[e] >= c->n_slots)
			return 1;
	return 0;
}

/* The kinds a swap of kind @p k disagrees with (bit i for kind i), in what
 * the open compares (@p use 0) or the first use of a profile block
 * (@p use 1). @p in: each kind's facts in the mixed folder. */
static unsigned v4_disagreement(const v4_facts *const in[KINDS], int k, int use)
{
	static const struct {
		int a, b, use;
		int (*differ)(const v4_facts *, const v4_facts *);
	} rules[] = {{TRACE, PROF, 0, trace_vs_profile}, {PROF, CCT, 0, counts_differ},
	             {CCT, META, 0, cct_vs_meta}, {PROF, CCT, 1, context_past_slots},
	             {PROF, META, 1, profile_vs_meta}};
	unsigned others = 0;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		int a = rules[i].a, b = rules[i].b;
		if (rules[i].use != use || (a != k && b != k) || !in[a]->has[a] || !in[b]->has[b])
			continue;
		if (rules[i].differ(in[a], in[b]))
			others |= 1u << (a == k ? b : a);
	}
	return others;
}

/* Every profile.db value block used once: the first error, or 0. */
static int v4_use_all(const profdb *db)
{
	const profdb_hpctk *h = profdb_get_hpctk(db);
	int64_t n = profdb_hpctk_profile_count(h);
	for (int64_t p = 0; p < n; p++) {
		profdb_view index, values;
		int r = profdb_hpctk_profile_plane(h, (uint32_t)p, &index, &values);
		if (r < 0)
			return r;
	}
	return 0;
}

static int v4_full_check(const profdb *db)
{
	return profdb_hpctk_check(profdb_get_hpctk(db));
}

Test(mixed_dbs, hpctk4_every_kind_between_every_pair)
{
	size_t n;
	char **dbs = tc_list_dbs("hpctoolkit/v4", &n);
	if (!dbs || n < 2)
		cr_skip_test("no HPCToolkit 4.0 sample databases (set PROFDB_SAMPLE_DATA)");
	v4_facts *f = calloc(n, sizeof *f);
	for (size_t i = 0; i < n; i++)
		v4_facts_of(&f[i], dbs[i]);
	int told[KINDS] = {0}, at_use[KINDS] = {0}, by_check[KINDS] = {0}, alike[KINDS] = {0};
	for (int k = 0; k < KINDS; k++)
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < n; b++) {
				if (a == b || !f[a].has[k] || !f[b].has[k] || !f[a].has[META])
					continue;
				const v4_facts *in[KINDS] = {&f[a], &f[a], &f[a], &f[a]};
				in[k] = &f[b];
				unsigned open = v4_disagreement(in, k, 0), use = v4_disagreement(in, k, 1);
				char what[512];
				snprintf(what, sizeof what, "%s with the %s of %s", tc_basename(dbs[a]),
				         v4_names[k], tc_basename(dbs[b]));
				mix(v4_names, dbs[a], dbs[b], k);
				int full = expect(v4_names, k, open, use, what, v4_full_check, v4_use_all);
				if (open) {
					told[k]++;
				} else if (use) {
					at_use[k]++;
				} else if (full < 0) {
					by_check[k]++;
					printf("agrees at open and at first use, profdb_hpctk_check() tells "
					       "apart: %s\n", what);
				} else {
					alike[k]++;
					printf("cannot be told apart: %s\n", what);
				}
			}
	unmix(v4_names);
	for (int k = 0; k < KINDS; k++) {
		printf("HPCToolkit 4.0, %s swapped: %d told apart at open, %d at the first use of "
		       "a profile block, %d agree there but not with profdb_hpctk_check(), %d "
		       "cannot be told apart\n", v4_names[k], told[k], at_use[k], by_check[k],
		       alike[k]);
		cr_assert_gt(told[k] + at_use[k], 0,
		             "no %s swap disagreed: the samples do not test the checks", v4_names[k]);
	}
	for (size_t i = 0; i < n; i++)
		v4_facts_free(&f[i]);
	free(f);
	tc_free_list(dbs);
}

/* The databases themselves raise nothing. */
Test(mixed_dbs, hpctk4_intact_databases_agree)
{
	size_t n;
	char **dbs = tc_list_dbs("hpctoolkit/v4", &n);
	if (!dbs)
		cr_skip_test("no HPCToolkit 4.0 sample databases (set PROFDB_SAMPLE_DATA)");
	for (size_t i = 0; i < n; i++) {
		mix(v4_names, dbs[i], dbs[i], META);
		cr_assert_eq(expect(v4_names, META, 0, 0, tc_basename(dbs[i]), v4_full_check,
		                    v4_use_all), 0,
		             "%s: %s", dbs[i], profdb_error_message());
	}
	unmix(v4_names);
	tc_free_list(dbs);
}

/* ---- pre-release ------------------------------------------------------------ */

enum { P_PROF = PROFDB_HPCTKPRE_PROFILE, P_CCT = PROFDB_HPCTKPRE_CCT,
       P_TRACE = PROFDB_HPCTKPRE_TRACE, P_META = PROFDB_HPCTKPRE_META };
static const char *const pre_names[KINDS] = {
	[P_PROF] = "profile.db", [P_CCT] = "cct.db", [P_TRACE] = "trace.db",
	[P_META] = "experiment.xml"};

typedef struct pre_facts {
	int has[KINDS];
	int64_t max_ctx_id;         /* the metadata's largest context id; -1: none */
	uint32_t n_metrics;
	uint8_t prop[65536 / 8], stat[65536 / 8];
	uint32_t n_prof;
	prof_fact *prof;
	uint32_t n_slots;
	uint32_t n_lines;
	uint32_t *line_profile;
} pre_facts;

/* One file alone, from memory (experiment.xml alone is refused by path:
 * it looks like an old database). *buf is freed with the handle. */
static profdb_hpctkpre *pre_open_one(const char *db, int k, unsigned char **buf)
{
	char p[4200];
	profdb_hpctkpre *h;
	profdb_input in[PROFDB_HPCTKPRE_NFILES];
	size_t size;
	snprintf(p, sizeof p, "%s/%s", db, pre_names[k]);
	memset(in, 0, sizeof in);
	*buf = tc_slurp(p, &size);
	cr_assert_not_null(*buf, "%s", p);
	in[k].name = p;
	in[k].data = *buf;
	in[k].size = size;
	cr_assert_eq(profdb_hpctkpre_open_mem(&h, in, NULL), 0, "%s: %s", p,
	             profdb_error_message());
	return h;
}

static void pre_facts_of(pre_facts *f, const char *db)
{
	profdb_hpctkpre *h;
	profdb_hpctkpre_info info;
	unsigned char *buf;
	memset(f, 0, sizeof *f);
	f->max_ctx_id = -1;
	for (int k = 0; k < KINDS; k++)
		f->has[k] = readable(db, pre_names[k]);
	if (f->has[P_META]) {
		h = pre_open_one(db, P_META, &buf);
		cr_assert_eq(profdb_hpctkpre_get_info(h, &info), 0);
		for (uint32_t i = 0; i < info.n_contexts; i++) {
			profdb_hpctkpre_context c;
			cr_assert_eq(profdb_hpctkpre_context_at(h, i, &c), 0);
			if (c.id > f->max_ctx_id)
				f->max_ctx_id = c.id;
		}
		f->n_metrics = info.n_metrics;
		for (uint32_t i = 0; i < info.n_metrics; i++) {
			profdb_hpctkpre_metric m;
			cr_assert_eq(profdb_hpctkpre_metric_at(h, i, &m), 0);
			if (m.id < 65536)
				set_bit(m.is_summary ? f->stat : f->prop, m.id);
		}
		profdb_hpctkpre_close(h);
		free(buf);
	}
	if (f->has[P_PROF]) {
		h = pre_open_one(db, P_PROF, &buf);
		cr_assert_eq(profdb_hpctkpre_get_info(h, &info), 0);
		f->n_prof = info.n_profiles;
		f->prof = calloc(f->n_prof + 1, sizeof *f->prof);
		for (uint32_t p = 0; p < f->n_prof; p++) {
			profdb_view index, values;
			prof_fact *pf = &f->prof[p];
			cr_assert_eq(profdb_hpctkpre_profile_view(h, p, &index, &values), 0);
			pf->summary = p == 0;
			pf->last_ctx = index.count ? (int64_t)profdb_view_key(&index, index.count - 1) : -1;
			pf->first_m = values.count ? (int32_t)profdb_view_key(&values, 0) : -1;
			pf->last_m = values.count ? (int32_t)profdb_view_key(&values, values.count - 1) : -1;
		}
		profdb_hpctkpre_close(h);
		free(buf);
	}
	if (f->has[P_CCT]) {
		h = pre_open_one(db, P_CCT, &buf);
		cr_assert_eq(profdb_hpctkpre_get_info(h, &info), 0);
		f->n_slots = info.n_ctx_slots;
		profdb_hpctkpre_close(h);
		free(buf);
	}
	if (f->has[P_TRACE]) {
		h = pre_open_one(db, P_TRACE, &buf);
		cr_assert_eq(profdb_hpctkpre_get_info(h, &info), 0);
		f->n_lines = info.n_traces;
		f->line_profile = calloc(f->n_lines + 1, sizeof *f->line_profile);
		for (uint32_t t = 0; t < f->n_lines; t++) {
			profdb_hpctkpre_trace tr;
			cr_assert_eq(profdb_hpctkpre_trace_line_at(h, t, &tr), 0);
			f->line_profile[t] = tr.profile;
		}
		profdb_hpctkpre_close(h);
		free(buf);
	}
}

static unsigned pre_disagreement(const pre_facts *const in[KINDS], int k)
{
	const pre_facts *m = in[P_META], *p = in[P_PROF], *c = in[P_CCT], *t = in[P_TRACE];
	unsigned bad[KINDS] = {0};   /* bad[i]: the kinds kind i disagrees with */
	if (m->has[P_META] && c->has[P_CCT] && m->max_ctx_id >= (int64_t)c->n_slots)
		bad[P_META] |= 1u << P_CCT, bad[P_CCT] |= 1u << P_META;
	if (t->has[P_TRACE] && p->has[P_PROF]) {
		int off = t->n_lines > p->n_prof;
		for (uint32_t i = 0; i < t->n_lines; i++)
			off |= t->line_profile[i] >= p->n_prof;
		if (off)
			bad[P_TRACE] |= 1u << P_PROF, bad[P_PROF] |= 1u << P_TRACE;
	}
	for (uint32_t i = 0; p->has[P_PROF] && i < p->n_prof; i++) {
		const prof_fact *pf = &p->prof[i];
		const uint8_t *ids = pf->summary ? m->stat : m->prop;
		if (c->has[P_CCT] && pf->last_ctx >= (int64_t)c->n_slots)
			bad[P_PROF] |= 1u << P_CCT, bad[P_CCT] |= 1u << P_PROF;
		if (m->has[P_META] && m->n_metrics &&
		    (!has_bit(ids, pf->first_m) || !has_bit(ids, pf->last_m)))
			bad[P_PROF] |= 1u << P_META, bad[P_META] |= 1u << P_PROF;
	}
	return bad[k];
}

static int pre_full_check(const profdb *db)
{
	return profdb_hpctkpre_check(profdb_get_hpctkpre(db));
}

Test(mixed_dbs, hpctkpre_every_kind_between_every_pair)
{
#ifndef PROFDB_HAVE_EXPAT
	cr_skip_test("built without expat: experiment.xml cannot be read");
#endif
	size_t n_shared;
	char **shared = tc_list_dbs("hpctoolkit/prerelease", &n_shared);
	if (!shared)
		cr_skip_test("no pre-release sample databases (set PROFDB_SAMPLE_DATA)");
	/* the writer's sample is a third database */
	char written[64];
	snprintf(written, sizeof written, "/tmp/profdb-mix-pre-XXXXXX");
	cr_assert_not_null(mkdtemp(written));
	tw_pre d;
	tw_pre_sample(&d);
	cr_assert_eq(tw_pre_write_dir(&d, written), 0);
	size_t n = n_shared + 1;
	const char **dbs = calloc(n, sizeof *dbs), **label = calloc(n, sizeof *label);
	for (size_t i = 0; i < n_shared; i++)
		label[i] = tc_basename(dbs[i] = shared[i]);
	dbs[n_shared] = written;
	label[n_shared] = "the writer's sample";
	pre_facts *f = calloc(n, sizeof *f);
	for (size_t i = 0; i < n; i++)
		pre_facts_of(&f[i], dbs[i]);
	int told = 0, by_check = 0, alike = 0;
	for (int k = 0; k < KINDS; k++)
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < n; b++) {
				if (a == b || !f[a].has[k] || !f[b].has[k])
					continue;
				const pre_facts *in[KINDS] = {&f[a], &f[a], &f[a], &f[a]};
				in[k] = &f[b];
				unsigned others = pre_disagreement(in, k);
				char what[512];
				snprintf(what, sizeof what, "%s with the %s of %s", label[a], pre_names[k],
				         label[b]);
				mix(pre_names, dbs[a], dbs[b], k);
				int full = expect(pre_names, k, others, 0, what, pre_full_check, NULL);
				if (others) {
					told++;
				} else if (full < 0) {
					by_check++;
					printf("agrees at open, profdb_hpctkpre_check() tells apart: %s\n", what);
				} else {
					alike++;
					printf("cannot be told apart: %s\n", what);
				}
			}
	unmix(pre_names);
	printf("pre-release: %d swaps told apart at open, %d agree at open but not with "
	       "profdb_hpctkpre_check(), %d cannot be told apart\n", told, by_check, alike);
	cr_assert_gt(told, 0, "no swap disagreed: the samples do not test the check");
	for (size_t i = 0; i < n; i++) {
		free(f[i].prof);
		free(f[i].line_profile);
	}
	free(f);
	for (int k = 0; k < KINDS; k++) {
		char p[128];
		snprintf(p, sizeof p, "%s/%s", written, pre_names[k]);
		unlink(p);
	}
	rmdir(written);
	free(dbs);
	free(label);
	tc_free_list(shared);
}

TC_MAIN
