/* Checks of the call edges and costs of any database opened through the common
 * query interface (edge-check.c): every cost stored once, and the call
 * edges of the tree formats against an independent reading of the tree. */
#ifndef PROFDB_TESTS_EDGE_CHECK_H
#define PROFDB_TESTS_EDGE_CHECK_H

#include <profdb/profdb.h>

/* Every cost stored once: for each metric of kind EXCLUSIVE or POINT whose
 * values sum (HPCToolkit formats: POINT only, against the summary
 * profile's sum statistic at context 0), the non-summary values of a
 * PROFDB_SCAN_ALL cursor add up to the metric's total: exactly for
 * integers, within 2*gamma(n)*sum|v| for floating point. The total is the
 * sum over non-summary profiles and over the roots of profdb_inclusive().
 * Returns how many metrics were checked. */
int ec_check_totals(const profdb *db, const char *what);

/* The call edges of a tree format against the tree read through the parent
 * links: one edge per CALL/INLINED context, caller = its nearest FUNCTION
 * ancestor (else its tree's root), site = its parent when that is a line or
 * instruction; sorted; the cost of the first @p max_cost edges equal to the
 * callee's inclusive value in every profile and combined (sum) over the
 * non-summary profiles within the float bound. Returns the edge count. */
int64_t ec_check_tree_edges(const profdb *db, int64_t max_cost, const char *what);

/* The edge sets of up to @p max_ctx contexts (the root, then the callers,
 * callees and sites of edges spread over the table), one by one and all
 * in one set, and of no context, on both
 * sides against the whole table filtered: the same edges in the same
 * order, and for the first and last metric in every profile (up to 8) and
 * combined the same answer, bit for bit. Returns the contexts checked. */
int ec_check_edge_sets(const profdb *db, int64_t max_ctx, const char *what);

#endif
