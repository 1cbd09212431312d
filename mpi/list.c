/* Sorted lists of keyed accumulators: what the ranks exchange. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-internal.h"

void pm_list_free(pm_list *l)
{
	free(l->buf);
	memset(l, 0, sizeof *l);
}

int pm_list_append(pm_list *l, const void *key, uint32_t klen, const profdb_stats_acc *acc)
{
	size_t need = sizeof klen + klen + sizeof *acc;
	if (l->cap - l->len < need) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		while (cap - l->len < need)
			cap *= 2;
		unsigned char *b = realloc(l->buf, cap);
		if (!b)
			return pm_fail(-ENOMEM, "out of memory for %zu bytes of partial results", cap);
		l->buf = b;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, &klen, sizeof klen);
	memcpy(l->buf + l->len + sizeof klen, key, klen);
	memcpy(l->buf + l->len + sizeof klen + klen, acc, sizeof *acc);
	l->len += need;
	l->n++;
	return 0;
}

int pm_list_next(const pm_list *l, size_t *pos, pm_rec *out)
{
	if (*pos >= l->len)
		return 0;
	memcpy(&out->klen, l->buf + *pos, sizeof out->klen);
	out->key = l->buf + *pos + sizeof out->klen;
	memcpy(&out->acc, out->key + out->klen, sizeof out->acc);
	*pos += sizeof out->klen + out->klen + sizeof out->acc;
	return 1;
}

int pm_key_cmp(const void *a, uint32_t na, const void *b, uint32_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	return c ? c : (na > nb) - (na < nb);
}

int pm_list_merge(pm_list *a, const pm_list *b)
{
	pm_list out = {0};
	pm_rec x, y;
	size_t pa = 0, pb = 0;
	int hx = pm_list_next(a, &pa, &x), hy = pm_list_next(b, &pb, &y), e = 0;
	while (e == 0 && (hx || hy)) {
		int c = !hx ? 1 : !hy ? -1 : pm_key_cmp(x.key, x.klen, y.key, y.klen);
		if (c < 0) {
			e = pm_list_append(&out, x.key, x.klen, &x.acc);
			hx = pm_list_next(a, &pa, &x);
		} else if (c > 0) {
			e = pm_list_append(&out, y.key, y.klen, &y.acc);
			hy = pm_list_next(b, &pb, &y);
		} else {
			profdb_stats_acc m = x.acc;
			if ((e = profdb_stats_acc_merge(&m, &y.acc)) < 0)
				e = pm_fail(e, "%s", profdb_error_message());
			else
				e = pm_list_append(&out, x.key, x.klen, &m);
			hx = pm_list_next(a, &pa, &x);
			hy = pm_list_next(b, &pb, &y);
		}
	}
	if (e < 0) {
		pm_list_free(&out);
		return e;
	}
	pm_list_free(a);
	*a = out;
	return 0;
}

void pm_stats_key(unsigned char key[8], uint32_t metric, uint32_t context)
{
	for (int i = 0; i < 4; i++) {
		key[i] = (unsigned char)(metric >> (24 - 8 * i));
		key[4 + i] = (unsigned char)(context >> (24 - 8 * i));
	}
}

void pm_partition(const uint64_t *w, size_t n, int rank, int size, size_t *lo, size_t *hi)
{
	if (!w) {
		*lo = n * (size_t)rank / (size_t)size;
		*hi = n * (size_t)(rank + 1) / (size_t)size;
		return;
	}
	/* Item i goes to the rank whose share of the total holds the middle of
	 * its weight: contiguous, and every rank's bytes within one item of
	 * total / size. */
	long double total = 0, before = 0;
	for (size_t i = 0; i < n; i++)
		total += (long double)w[i];
	*lo = *hi = n;
	int found = 0;
	for (size_t i = 0; i < n; i++) {
		long double mid = before + (long double)w[i] / 2;
		int owner = total > 0 ? (int)(mid * size / total) : (int)(i * (size_t)size / n);
		if (owner >= size)
			owner = size - 1;
		if (owner == rank && !found) {
			*lo = i;
			found = 1;
		}
		if (owner > rank) {
			if (!found)
				*lo = i;
			*hi = i;
			return;
		}
		before += (long double)w[i];
	}
	if (!found)
		*lo = n;
}
