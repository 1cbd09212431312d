/* The hpcrun backend: profile names and identities (from the 04.00 id
 * tuple or the file name) and the database's version and title. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"
#include "../core/table-internal.h"

/* ---- profile names and identity (at open) -------------------------------------------- */

typedef struct hq_text {
	char *p;
	size_t len, cap;
} hq_text;

static int text_add(hq_text *b, const char *s, size_t n)
{
	int r = profdb__grow((void **)&b->p, &b->cap, b->len + n + 1, 1);
	if (r < 0)
		return r;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

typedef struct ident_build {
	hq_ident *v;
	size_t n, cap;
} ident_build;

static int ident_add(ident_build *b, profdb_str kind, uint64_t value)
{
	int r = profdb__grow((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v);
	if (r < 0)
		return r;
	b->v[b->n].kind = kind;
	b->v[b->n++].value = value;
	return 0;
}

/* The 04.00 id-tuple kinds (hpcrun's IDTUPLE_* numbering). */
static profdb_str kind_word(const profdb_hpcrun_id *id)
{
	static const char *const words[8] = {"summary", "node", "rank", "thread", "gpu-device",
	                                     "gpu-context", "gpu-stream", "core"};
	if (id->kind < 8)
		return profdb__str(words[id->kind]);
	if (id->kind_name.len)
		return id->kind_name;
	return profdb__str("unknown");
}

/* One "kind value" word pair of a profile name; the value in decimal, as
 * the identity (and so `profdb profiles` and --profiles) gives it. */
static int name_word(hq_text *t, int first, const char *kind, size_t klen, uint64_t v)
{
	char num[32];
	int n = snprintf(num, sizeof num, " %" PRIu64, v);
	int r = 0;
	if (!first)
		r = text_add(t, " ", 1);
	if (r == 0)
		r = text_add(t, kind, klen);
	return r < 0 ? r : text_add(t, num, (size_t)n);
}

/* Identity from the 04.00 id tuple: the logical index when the element's
 * interpretation says it is valid (bit 15: logic-global or logic-only),
 * else the physical one (a NODE's host id). */
static int tuple_identity(hq *q, uint32_t p, uint32_t n_ids, ident_build *ib, hq_text *t)
{
	for (uint32_t i = 0; i < n_ids; i++) {
		profdb_hpcrun_id id;
		int r = profdb_hpcrun_id_at(q->h, p, i, &id);
		if (r < 0)
			return r;
		uint64_t v = (id.interpretation & 2) ? id.logical : id.physical;
		profdb_str kind = kind_word(&id);
		if ((r = ident_add(ib, kind, v)) < 0 ||
		    (r = name_word(t, i == 0, kind.ptr, kind.len, v)) < 0)
			return r;
	}
	return 0;
}

/* Identity from the file name fields that are present (not -1). The name
 * says rank and thread only: node and pid rarely tell threads apart. */
static int name_identity(const profdb_hpcrun_profile *pr, ident_build *ib, hq_text *t)
{
	static const char *const kinds[4] = {"rank", "thread", "node", "pid"};
	const int64_t v[4] = {pr->rank, pr->thread, pr->host_id, pr->pid};
	int words = 0, r;
	for (int k = 0; k < 4; k++) {
		if (v[k] < 0)
			continue;
		if ((r = ident_add(ib, profdb__str(kinds[k]), (uint64_t)v[k])) < 0)
			return r;
		if (k < 2 &&
		    (r = name_word(t, !words++, kinds[k], strlen(kinds[k]), (uint64_t)v[k])) < 0)
			return r;
	}
	return 0;
}

static int profile_identity(hq *q, uint32_t p, ident_build *ib, hq_text *t)
{
	profdb_hpcrun_profile pr;
	hq_profile *hp = &q->prof[p];
	int r = profdb_hpcrun_profile_at(q->h, p, &pr);
	if (r < 0)
		return r;
	size_t start = t->len;
	hp->ident_at = ib->n;
	r = pr.n_ids ? tuple_identity(q, p, pr.n_ids, ib, t) : name_identity(&pr, ib, t);
	if (r == 0 && pr.n_epochs > 1) {
		r = ident_add(ib, profdb__str("epoch"), pr.epoch);
		if (r == 0)
			r = name_word(t, t->len == start, "epoch", 5, pr.epoch);
	}
	if (r == 0 && t->len == start) {
		/* nothing to say who it is: the file name */
		profdb_str stem = pr.name.len ? pr.name : profdb__str("profile");
		r = text_add(t, stem.ptr, stem.len);
	}
	if (r < 0)
		return r;
	hp->n_ident = (uint32_t)(ib->n - hp->ident_at);
	hp->name_at = start;
	hp->name_len = t->len - start;
	return 0;
}

int profdb__hq_build_identities(hq *q)
{
	ident_build ib = {NULL, 0, 0};
	hq_text t = {NULL, 0, 0};
	int r = 0;
	for (uint32_t p = 0; r == 0 && p < q->n_profiles; p++)
		r = profile_identity(q, p, &ib, &t);
	q->ident = ib.v;
	q->names = t.p;
	return r;
}

/* Version of the .hpcrun files ("" for trace files only) and the program
 * name from the first profile's header as the title. */
void profdb__hq_describe(hq *q)
{
	uint8_t ma, mi;
	if (profdb_hpcrun_version(q->h, &ma, &mi) >= 0)
		snprintf(q->version, sizeof q->version, "%02u.%02u", ma, mi);
	q->title = profdb__hq_str(NULL, 0);
	for (uint32_t p = 0; p < q->n_profiles; p++) {
		profdb_hpcrun_profile pr;
		if (!q->prof[p].has_file || profdb_hpcrun_profile_at(q->h, p, &pr) < 0)
			continue;
		profdb_hpcrun_attr a;
		for (uint32_t i = 0; i < pr.n_attrs; i++)
			if (profdb_hpcrun_attr_at(q->h, p, i, &a) == 0 &&
			    profdb__hq_str_eq(a.name, profdb__str("program-name"))) {
				q->title = a.value;
				return;
			}
		return;
	}
}

