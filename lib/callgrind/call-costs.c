/* Callgrind: the count and cost of every call, recorded by the open's scan.
 *
 * The call rows (per profile and call edge, first-use.c) are made on first
 * use: most uses of a profile never need them, and they are large (in a
 * 69 MB profile 106 164 rows of 13 events, 13.5 MB with their index).
 * What the scan keeps instead, as it reads a calls= line and the cost
 * line after it, is that call's count and costs in a byte stream, in
 * text order (the order of cg->calls): the count, the number k of costs
 * that follow (by event, the trailing zeros left out), then the k costs,
 * each an unsigned LEB128 number (7 bits a byte, the low bits first).
 * Call costs are mostly small or zero: in that profile the 132 096 calls
 * take 2.2 MB, and making the rows decodes it instead of reading the
 * text again. A piece of the parallel scan keeps its own stream, appended
 * when the piece is merged, so the records stay in text order.
 *
 * The scan checks every value; the sums over calls are made with the
 * rows, where an overflow is reported with the line (first-use.c). */
#include <stdlib.h>
#include <string.h>

#include "core/bytes-internal.h"
#include "scan-internal.h"

/* The number at *p (before @p end), or 0 with *p set to NULL when the
 * stream ends inside it or it has more than 64 bits. */
static uint64_t get_u64(const unsigned char **p, const unsigned char *end)
{
	const unsigned char *q = *p;
	uint64_t v = 0;
	for (unsigned shift = 0; q < end && shift < 64; shift += 7) {
		unsigned char b = *q++;
		if (shift == 63 && b > 1)
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			return v;
		}
	}
	*p = NULL;
	return 0;
}

/* Room for @p n more bytes of records. */
static int room(parser *ps, size_t n)
{
	profdb_cg *cg = ps->cg;
	if (n <= cg->cap_ccost - cg->n_ccost)
		return 0;
	if (profdb__grow((void **)&cg->ccost, &cg->cap_ccost, cg->n_ccost + n, 1) < 0)
		return perr(ps, -ENOMEM, "out of memory");
	return 0;
}

int profdb__cgs_call_count(parser *ps, uint64_t count)
{
	/* the count now, the costs (10 bytes each at most, and their number)
	 * with the next line: room for both */
	int r = room(ps, ((size_t)ps->cg->n_events + 2) * 10);
	if (r == 0)
		ps->cg->n_ccost += profdb__leb128_put(ps->cg->ccost + ps->cg->n_ccost, count);
	return r;
}

int profdb__cgs_call_cost(parser *ps)
{
	profdb_cg *cg = ps->cg;
	uint32_t k = cg->n_events;
	while (k > 0 && ps->call_sink[k - 1] == 0)
		k--;
	int r = room(ps, ((size_t)k + 1) * 10);
	if (r < 0)
		return r;
	unsigned char *out = cg->ccost + cg->n_ccost;
	size_t n = profdb__leb128_put(out, k);
	for (uint32_t e = 0; e < k; e++)
		n += profdb__leb128_put(out + n, ps->call_sink[e]);
	cg->n_ccost += n;
	return 0;
}

int profdb__cg_call_costs_append(profdb_cg *cg, const profdb_cg *lc)
{
	if (lc->n_ccost == 0)
		return 0;
	size_t need = cg->n_ccost + lc->n_ccost;
	if (need > cg->cap_ccost) {
		/* Sized once for the calls the scan expects (parallel.c reserves
		 * cg->calls for them) at this piece's bytes per call, plus 1/16:
		 * growing by doubling would copy the stream, into new pages, a
		 * few times over. */
		double est = (double)lc->n_ccost / (lc->n_calls ? lc->n_calls : 1) *
		             (double)cg->cap_calls * (17.0 / 16.0);
		size_t want = est > (double)need && est < (double)(SIZE_MAX / 2) ? (size_t)est : need;
		unsigned char *q = want > need ? realloc(cg->ccost, want) : NULL;
		if (q) {
			cg->ccost = q;
			cg->cap_ccost = want;
		} else if (profdb__grow((void **)&cg->ccost, &cg->cap_ccost, need, 1) < 0) {
			return profdb__fail(-ENOMEM, "callgrind: out of memory");
		}
	}
	/* (fresh pages, written all over: mapped in by one call) */
	profdb__prefault_write(cg->ccost + cg->n_ccost, lc->n_ccost);
	memcpy(cg->ccost + cg->n_ccost, lc->ccost, lc->n_ccost);
	cg->n_ccost = need;
	return 0;
}

const unsigned char *profdb__cg_call_cost_next(const profdb_cg *cg, const unsigned char *p,
                                               uint64_t *count, uint64_t *costs, uint32_t *k)
{
	if (!cg->ccost)
		return NULL;
	const unsigned char *end = cg->ccost + cg->n_ccost;
	*count = get_u64(&p, end);
	uint64_t n = p ? get_u64(&p, end) : 0;
	if (!p || n > cg->n_stored)
		return NULL;
	for (uint32_t e = 0; e < n && p; e++)
		costs[e] = get_u64(&p, end);
	*k = (uint32_t)n;
	return p;
}
