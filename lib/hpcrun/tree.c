/* The CCT of one profile: the node index, built and validated on first use
 * (thread-safe once), and the inclusive table built from it.
 *
 * Records are fixed-size (19 bytes in 04.00; in 02.00/03.00 the size
 * follows from the metric count and the logical-unwinding flag), so node i
 * is found by arithmetic; only what cannot be computed is stored: the
 * parent/child/sibling indices, the module index, the id index and, for
 * 04.00, which sparse index entry holds the node's values. About 28 bytes
 * per node, for records of at least 19 bytes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpcrun-internal.h"

int profdb__hpcrun_node_at(const hr_profile *p, uint64_t i, const unsigned char **rec)
{
	return profdb__range(&p->file->in, p->cct_off + i * p->node_size, p->node_size,
	                     "CCT record", rec);
}

int32_t profdb__hpcrun_node_sid(const hr_profile *p, const unsigned char *rec)
{
	(void)p;
	return hr_node_sid(rec);
}

int profdb__hpcrun_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The array seen as a view in host byte order: key = the high half of each
 * u64, value = the low half. */
uint32_t profdb__hpcrun_search(const uint64_t *v, uint64_t n, uint32_t key)
{
	static const union {
		uint16_t u;
		unsigned char b[2];
	} one = {1};
	const int le = one.b[0] == 1;
	profdb_view w;
	uint64_t i;
	memset(&w, 0, sizeof w);
	w.base = n ? (const unsigned char *)v : NULL;
	w.count = n;
	w.stride = sizeof *v;
	w.key_offset = le ? 4 : 0;
	w.key_type = PROFDB_FIELD_U32;
	w.value_offset = le ? 0 : 4;
	w.value_type = PROFDB_FIELD_U32;
	w.big_endian = (uint8_t)!le;
	if (profdb_view_find(&w, key, &i) != 1)
		return PROFDB_NONE;
	return (uint32_t)v[i];
}

uint32_t profdb__hpcrun_find_id(const hr_profile *p, uint32_t id)
{
	return profdb__hpcrun_search(p->tree.by_id, p->n_nodes, id);
}

static uint64_t rec_pos(const hr_profile *p, uint64_t i)
{
	return p->cct_off + i * p->node_size;
}

static int sparse_index(hr_profile *p)
{
	const profdb__input *in = &p->file->in;
	hr_tree *t = &p->tree;
	const unsigned char *e, *v;
	uint64_t prev_start = 0;
	for (uint32_t j = 0; j < p->n_nz; j++) {
		uint64_t at = p->sidx_off + (uint64_t)j * HR_SIDX_SIZE;
		int r = profdb__range(in, at, 2 * HR_SIDX_SIZE, "sparse node index entry", &e);
		if (r < 0)
			return r;
		uint32_t id = hr_sidx_cct(e);
		uint64_t start = hr_sidx_start(e), end = hr_sidx_start(e + HR_SIDX_SIZE);
		if (j == 0 && start != 0)
			return profdb__fail(-EBADMSG, "%s: sparse node index at 0x%" PRIx64 ": the first "
			                    "node's values start at %" PRIu64 ", not 0 (values without a "
			                    "node)", in->name, at, start);
		if (start < prev_start || end < start || end > p->n_vals)
			return profdb__fail(-EBADMSG, "%s: sparse node index entry %" PRIu32 " at 0x%"
			                    PRIx64 ": value range [%" PRIu64 ", %" PRIu64 ") is not "
			                    "increasing inside [0, %" PRIu64 ")", in->name, j, at, start,
			                    end, p->n_vals);
		prev_start = start;
		uint32_t node = id > INT32_MAX ? PROFDB_NONE : profdb__hpcrun_find_id(p, id);
		if (node == PROFDB_NONE)
			return profdb__fail(-EBADMSG, "%s: sparse node index entry %" PRIu32 " at 0x%"
			                    PRIx64 " names CCT node %" PRIu32 ", which does not exist",
			                    in->name, j, at, id);
		if (t->run[node] != PROFDB_NONE)
			return profdb__fail(-EBADMSG, "%s: sparse node index entry %" PRIu32 " at 0x%"
			                    PRIx64 " repeats CCT node %" PRIu32, in->name, j, at, id);
		t->run[node] = j;
		uint32_t last = 0;
		for (uint64_t k = start; k < end; k++) {
			uint64_t vat = p->vals_off + k * HR_SVAL_SIZE;
			if ((r = profdb__range(in, vat, HR_SVAL_SIZE, "sparse value", &v)) < 0)
				return r;
			uint32_t m = hr_sval_metric(v);
			if (m >= p->n_metrics || (k > start && m <= last))
				return profdb__fail(-EBADMSG, "%s: sparse value %" PRIu64 " at 0x%" PRIx64
				                    " (node %" PRIu32 "): metric index %" PRIu32 " is %s",
				                    in->name, k, vat, id, m,
				                    m >= p->n_metrics ? "past the metric table"
				                                      : "not above the previous one (unsorted)");
			last = m;
		}
	}
	return 0;
}

static int build(void *arg)
{
	hr_profile *p = arg;
	hr_tree *t = &p->tree;
	const profdb__input *in = &p->file->in;
	uint64_t n = p->n_nodes;
	const unsigned char *rec;
	int r;
	if (n >= PROFDB_NONE)
		return profdb__fail(-EBADMSG, "%s: %" PRIu64 " CCT nodes is more than this reader "
		                    "indexes", in->name, n);
	size_t nn = n ? (size_t)n : 1;
	t->parent = malloc(nn * sizeof *t->parent);
	t->first_child = malloc(nn * sizeof *t->first_child);
	t->next_sibling = malloc(nn * sizeof *t->next_sibling);
	t->module = malloc(nn * sizeof *t->module);
	t->by_id = malloc(nn * sizeof *t->by_id);
	t->run = malloc(nn * sizeof *t->run);
	if (!t->parent || !t->first_child || !t->next_sibling || !t->module || !t->by_id || !t->run)
		return profdb__fail(-ENOMEM, "%s: cannot index %" PRIu64 " CCT nodes", in->name, n);
	for (uint64_t i = 0; i < n; i++) {
		if ((r = profdb__hpcrun_node_at(p, i, &rec)) < 0)
			return r;
		int32_t sid = profdb__hpcrun_node_sid(p, rec);
		if (sid == 0 || sid == INT32_MIN)
			return profdb__fail(-EBADMSG, "%s: CCT record at 0x%" PRIx64 " has id %" PRId32
			                    " (0 means \"no parent\")", in->name, rec_pos(p, i), sid);
		uint32_t id = (uint32_t)(sid < 0 ? -sid : sid);
		t->by_id[i] = (uint64_t)id << 32 | i;
		t->first_child[i] = t->next_sibling[i] = t->run[i] = PROFDB_NONE;
		uint16_t lm = hr_node_lm(rec, p->lush);
		t->module[i] = profdb__hpcrun_search(p->mod_sorted, p->n_modules, lm);
	}
	qsort(t->by_id, n, sizeof *t->by_id, profdb__hpcrun_cmp_u64);
	for (uint64_t i = 1; i < n; i++)
		if (t->by_id[i] >> 32 == t->by_id[i - 1] >> 32)
			return profdb__fail(-EBADMSG, "%s: CCT records at 0x%" PRIx64 " and 0x%" PRIx64
			                    " have the same id %" PRIu32, in->name,
			                    rec_pos(p, (uint32_t)t->by_id[i - 1]),
			                    rec_pos(p, (uint32_t)t->by_id[i]),
			                    (uint32_t)(t->by_id[i] >> 32));
	for (uint64_t i = 0; i < n; i++) {
		if ((r = profdb__hpcrun_node_at(p, i, &rec)) < 0)
			return r;
		uint32_t pid = hr_node_parent(rec);
		t->parent[i] = pid == 0 ? PROFDB_NONE : profdb__hpcrun_find_id(p, pid);
		if (pid != 0 && t->parent[i] == PROFDB_NONE)
			return profdb__fail(-EBADMSG, "%s: CCT record at 0x%" PRIx64 ": parent id %"
			                    PRIu32 " does not exist", in->name, rec_pos(p, i) + HR_NODE_PARENT, pid);
	}
	/* Children and roots in file order: prepend while walking backwards. */
	t->first_root = PROFDB_NONE;
	for (uint64_t k = n; k-- > 0;) {
		uint32_t i = (uint32_t)k, *head = t->parent[i] == PROFDB_NONE
		                                      ? &t->first_root
		                                      : &t->first_child[t->parent[i]];
		t->next_sibling[i] = *head;
		*head = i;
	}
	/* Walk the forest from the roots without a stack (parent links lead
	 * back up). A node on a parent cycle is never reached: fewer visits
	 * than nodes means a cycle. */
	uint64_t seen = 0;
	for (uint32_t i = t->first_root; i != PROFDB_NONE;) {
		seen++;
		if (t->first_child[i] != PROFDB_NONE) {
			i = t->first_child[i];
			continue;
		}
		while (i != PROFDB_NONE && t->next_sibling[i] == PROFDB_NONE)
			i = t->parent[i];
		if (i != PROFDB_NONE)
			i = t->next_sibling[i];
	}
	if (seen != n) {
		uint64_t bad = 0;
		/* Report the first node whose ancestry does not end at a root. */
		for (uint64_t i = 0; i < n && !bad; i++) {
			uint32_t a = (uint32_t)i;
			for (uint64_t steps = 0; a != PROFDB_NONE && steps <= n; steps++)
				a = t->parent[a];
			if (a != PROFDB_NONE)
				bad = i + 1;
		}
		return profdb__fail(-EBADMSG, "%s: CCT parent links form a cycle (%" PRIu64 " of %"
		                    PRIu64 " nodes reach no root; record at 0x%" PRIx64 ")",
		                    in->name, n - seen, n, rec_pos(p, bad ? bad - 1 : 0));
	}
	if (p->node_size == 19 && (r = sparse_index(p)) < 0)
		return r;
	return 0;
}

int profdb__hpcrun_tree(const profdb_hpcrun *h, const hr_profile *p)
{
	(void)h;
	if (!p->file)
		return 0; /* trace-only: no nodes */
	return profdb__once_run((profdb__once *)&p->tree_once, build, (void *)p);
}

int profdb__hpcrun_table_bytes(const profdb_hpcrun *h, const hr_profile *p, uint64_t elem,
                               const char *what, uint64_t *bytes)
{
	uint64_t cells, limit = h->opts.max_memory ? h->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	if (profdb__mul(&p->file->in, p->n_nodes, p->n_metrics, what, &cells) < 0 ||
	    profdb__mul(&p->file->in, cells, elem, what, bytes) < 0)
		return -EBADMSG;
	if (*bytes > limit || *bytes > SIZE_MAX)
		return profdb__fail(-EFBIG, "%s: the %s (%" PRIu64 " nodes x %" PRIu32 " metrics) "
		                    "needs %" PRIu64 " bytes, above max_memory %" PRIu64,
		                    p->file->in.name, what, p->n_nodes, p->n_metrics, *bytes, limit);
	return 0;
}

typedef struct incl_arg {
	const profdb_hpcrun *h;
	hr_profile *p;
} incl_arg;

static int build_incl(void *arg)
{
	incl_arg *a = arg;
	hr_profile *p = a->p;
	const hr_tree *t = &p->tree;
	uint64_t bytes, n = p->n_nodes, nm = p->n_metrics;
	int r = profdb__hpcrun_table_bytes(a->h, p, 8, "inclusive table", &bytes);
	if (r < 0)
		return r;
	uint64_t *v = calloc(bytes ? (size_t)bytes : 1, 1);
	if (!v)
		return profdb__fail(-ENOMEM, "%s: cannot allocate the inclusive table (%" PRIu64
		                    " bytes)", p->file->in.name, bytes);
	for (uint64_t i = 0; i < n; i++) {
		r = profdb__hpcrun_raw_row(a->h, p, (uint32_t)i, v + i * nm);
		if (r < 0) {
			free(v);
			return r;
		}
	}
	/* Post-order: when a node is finished its inclusive values are added
	 * to its parent's. The parent therefore sums its raw value first, then
	 * its children's inclusive values in file order. */
	char *real = malloc(nm ? (size_t)nm : 1);
	if (!real) {
		free(v);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	for (uint64_t m = 0; m < nm; m++)
		real[m] = (char)profdb__hpcrun_is_real(&p->metrics[m]);
	uint32_t i = t->first_root;
	while (i != PROFDB_NONE) {
		while (t->first_child[i] != PROFDB_NONE)
			i = t->first_child[i];
		for (;;) {
			uint32_t up = t->parent[i];
			if (up != PROFDB_NONE)
				for (uint64_t m = 0; m < nm; m++) {
					uint64_t *d = &v[up * nm + m], s = v[i * nm + m];
					if (real[m]) {
						double x = profdb__f64_bits(*d) + profdb__f64_bits(s);
						memcpy(d, &x, 8);
					} else {
						*d += s;
					}
				}
			if (t->next_sibling[i] != PROFDB_NONE) {
				i = t->next_sibling[i];
				break;
			}
			i = up;
			if (i == PROFDB_NONE)
				break;
		}
	}
	free(real);
	p->incl = v;
	return 0;
}

int profdb__hpcrun_inclusive_table(const profdb_hpcrun *h, const hr_profile *p)
{
	int r = profdb__hpcrun_tree(h, p);
	if (r < 0)
		return r;
	incl_arg a = {h, (hr_profile *)p};
	return profdb__once_run((profdb__once *)&p->incl_once, build_incl, &a);
}

void profdb__hpcrun_profile_free(hr_profile *p)
{
	free(p->epoch_attrs);
	free(p->metrics);
	free(p->modules);
	free(p->mod_sorted);
	free(p->tree.parent);
	free(p->tree.first_child);
	free(p->tree.next_sibling);
	free(p->tree.module);
	free(p->tree.by_id);
	free(p->tree.run);
	free(p->incl);
	free(p->dense);
	free(p->stem);
	memset(p, 0, sizeof *p);
}
