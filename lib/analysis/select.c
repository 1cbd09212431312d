/* profdb_profiles_select(): profile selections ("0-15,32", "rank=0-3,thread=0").
 *
 * The selection is parsed into conditions first (one for the bare indices,
 * one per kind; a kind named twice adds to its own condition), then every
 * profile is tested against all of them. A selection is short text, so the
 * conditions live in fixed arrays and the limits below are reported as
 * syntax errors rather than grown. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query/query-internal.h"

#define SEL_MAX_CONDS 16
#define SEL_MAX_RANGES 256

typedef struct sel_range {
	uint64_t lo, hi;   /* inclusive */
} sel_range;

typedef struct sel_cond {
	const char *kind;  /* NULL: profile indices */
	size_t kind_len;
	size_t first, n;   /* ranges[first .. first+n) once compacted */
	int seen;          /* a kind some profile has */
} sel_cond;

typedef struct sel {
	sel_cond conds[SEL_MAX_CONDS];
	size_t n_conds;
	sel_range ranges[SEL_MAX_RANGES];
	size_t cond_of[SEL_MAX_RANGES];   /* the condition of each range, in parse order */
	size_t n_ranges;
} sel;

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* A byte of a kind name as a selection can spell it: the bytes that
 * delimit a selection or a printed identity (blanks, control characters,
 * ',', '=', '"') read as '_', which is how `profdb profiles` prints them,
 * and letters compare without case. So every kind a profile has, stored
 * names included, can be selected by the name the listing shows. */
static int kind_char(unsigned char c)
{
	if (c < 0x21 || c == 0x7f || c == ',' || c == '=' || c == '"')
		return '_';
	return ascii_lower(c);
}

static int same_kind(const char *a, size_t na, const char *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (kind_char((unsigned char)a[i]) != kind_char((unsigned char)b[i]))
			return 0;
	return 1;
}

/* A decimal number of [p, end): 0, or -1 when empty, not digits or > 2^64-1. */
static int parse_num(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int syntax(const char *spec, const char *p, const char *why)
{
	return profdb__fail(-EINVAL, "profile selection \"%s\": %s at offset %td", spec, why,
	                    p - spec);
}

/* The condition of a kind, created on first use. */
static int cond_of_kind(sel *s, const char *spec, const char *kind, size_t len, size_t *out)
{
	for (size_t i = 0; i < s->n_conds; i++)
		if (s->conds[i].kind && same_kind(s->conds[i].kind, s->conds[i].kind_len, kind, len)) {
			*out = i;
			return 0;
		}
	if (s->n_conds == SEL_MAX_CONDS)
		return syntax(spec, kind, "more than 16 kinds");
	s->conds[s->n_conds] = (sel_cond){kind, len, 0, 0, 0};
	*out = s->n_conds++;
	return 0;
}

/* One item "N" or "A-B" of [p, end) into condition @p c. */
static int add_item(sel *s, const char *spec, const char *p, const char *end, size_t c)
{
	const char *dash = memchr(p, '-', (size_t)(end - p));
	sel_range r;
	if (parse_num(p, dash ? dash : end, &r.lo) < 0 ||
	    (dash && parse_num(dash + 1, end, &r.hi) < 0))
		return syntax(spec, p, "expected a number or a range A-B");
	if (!dash)
		r.hi = r.lo;
	if (r.hi < r.lo)
		return syntax(spec, p, "a range that goes down");
	if (s->n_ranges == SEL_MAX_RANGES)
		return syntax(spec, p, "more than 256 numbers and ranges");
	s->cond_of[s->n_ranges] = c;
	s->ranges[s->n_ranges++] = r;
	return 0;
}

static int parse(sel *s, const char *spec)
{
	size_t cur = SIZE_MAX;   /* the condition bare items go to */
	memset(s, 0, sizeof *s);
	for (const char *p = spec;;) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (end == p)
			return syntax(spec, p, "an empty term");
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (eq) {
			/* The kind is everything before '=' (dashes included: the
			 * library names "gpu-stream"); only ',' and '=' delimit it. */
			if (eq == p)
				return syntax(spec, p, "a kind without a name");
			int r = cond_of_kind(s, spec, p, (size_t)(eq - p), &cur);
			if (r < 0)
				return r;
			p = eq + 1;
		} else if (cur == SIZE_MAX) {
			if (s->n_conds == SEL_MAX_CONDS)
				return syntax(spec, p, "too many conditions");
			s->conds[s->n_conds] = (sel_cond){NULL, 0, 0, 0, 1};
			cur = s->n_conds++;
		}
		int r = add_item(s, spec, p, end, cur);
		if (r < 0)
			return r;
		if (!*end)
			break;
		p = end + 1;
	}
	/* Bare indices before a kind and after another kind's items would be
	 * ambiguous; the grammar gives them to the kind, so indices exist only
	 * as the leading items: nothing else to merge. Group ranges by
	 * condition (stable), so each condition owns one slice. */
	sel_range tmp[SEL_MAX_RANGES];
	size_t k = 0;
	for (size_t c = 0; c < s->n_conds; c++) {
		s->conds[c].first = k;
		for (size_t i = 0; i < s->n_ranges; i++)
			if (s->cond_of[i] == c)
				tmp[k++] = s->ranges[i];
		s->conds[c].n = k - s->conds[c].first;
	}
	memcpy(s->ranges, tmp, k * sizeof *tmp);
	return 0;
}

static int in_ranges(const sel *s, const sel_cond *c, uint64_t v)
{
	for (size_t i = 0; i < c->n; i++)
		if (v >= s->ranges[c->first + i].lo && v <= s->ranges[c->first + i].hi)
			return 1;
	return 0;
}

/* Does profile @p p meet kind condition @p c? 1 yes, 0 no, < 0 error. */
static int meets_kind(const profdb *db, sel *s, sel_cond *c, uint32_t p, uint32_t n_ids)
{
	int met = 0;
	for (uint32_t i = 0; i < n_ids; i++) {
		profdb_str kind;
		uint64_t value;
		int r = profdb_profile_identity(db, p, i, &kind, &value);
		if (r < 0)
			return r;
		if (!same_kind(kind.ptr, kind.len, c->kind, c->kind_len))
			continue;
		c->seen = 1;
		met |= in_ranges(s, c, value);
	}
	return met;
}

static int64_t select_all(const profdb *db, sel *s, int64_t n, uint32_t *out, size_t cap)
{
	const sel_cond *idx = NULL;
	int64_t count = 0;
	for (size_t c = 0; c < s->n_conds; c++)
		if (!s->conds[c].kind)
			idx = &s->conds[c];
	for (size_t i = 0; idx && i < idx->n; i++)
		if (s->ranges[idx->first + i].hi >= (uint64_t)n)
			return profdb__fail(-EINVAL, "profile selection: index %" PRIu64 " is past the "
			                    "last profile (%lld profiles)",
			                    s->ranges[idx->first + i].hi, (long long)n);
	for (int64_t p = 0; p < n; p++) {
		profdb_profile pr;
		int r = profdb_profile_at(db, (uint32_t)p, &pr);
		if (r < 0)
			return r;
		int ok = idx ? in_ranges(s, idx, (uint64_t)p) : !pr.is_summary;
		for (size_t c = 0; c < s->n_conds; c++) {
			if (!s->conds[c].kind)
				continue;
			/* evaluated even when already excluded, to know which kinds exist */
			if ((r = meets_kind(db, s, &s->conds[c], (uint32_t)p, pr.n_identity)) < 0)
				return r;
			ok &= r && !pr.is_summary;
		}
		if (!ok)
			continue;
		if ((size_t)count < cap)
			out[count] = (uint32_t)p;
		count++;
	}
	for (size_t c = 0; c < s->n_conds; c++)
		if (s->conds[c].kind && !s->conds[c].seen)
			return profdb__fail(-EINVAL, "profile selection: no profile has an identity of "
			                    "kind \"%.*s\"", (int)s->conds[c].kind_len, s->conds[c].kind);
	return count;
}

PROFDB_EXPORT int64_t profdb_profiles_select(const profdb *db, const char *spec, uint32_t *out,
                                             size_t cap)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_profiles_select: NULL database handle");
	if (cap && !out)
		return profdb__fail(-EINVAL, "profdb_profiles_select: NULL output with cap %zu", cap);
	int64_t n = profdb_profile_count(db);
	if (n < 0)
		return n;
	sel *s = malloc(sizeof *s);
	if (!s)
		return profdb__fail(-ENOMEM, "profdb_profiles_select: out of memory");
	int64_t r = 0;
	if (spec && *spec)
		r = parse(s, spec);
	else
		memset(s, 0, sizeof *s);
	if (r >= 0)
		r = select_all(db, s, n, out, cap);
	free(s);
	return r;
}
