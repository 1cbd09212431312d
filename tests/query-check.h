/* Invariants every database opened through the common query interface
 * must satisfy, whatever its format (shared by the query tests of every
 * backend): the counts agree with the enumerations, the three cursors agree
 * with each other and with point lookups, the tree links are consistent,
 * traces are sorted and seekable. */
#ifndef PROFDB_TESTS_QUERY_CHECK_H
#define PROFDB_TESTS_QUERY_CHECK_H

#include <stddef.h>
#include <profdb/profdb.h>

/* Does the view equal the C string? */
int qc_str_is(profdb_str s, const char *c);
/* Same type and same bits. */
int qc_same_number(profdb_number a, profdb_number b);
/* Every entry of a scan, into a malloc'ed array (*n entries). */
profdb_entry *qc_scan(const profdb *db, profdb_scan how, uint32_t key, size_t *n);
/* Orders entries by (context, profile, metric). */
/* Whether profile @p profile is a summary profile (asserts it exists). */
int qc_is_summary(const profdb *db, uint32_t profile);
int qc_cmp_by_context(const void *a, const void *b);
/* Every value and trace sample read through the views only
 * (examples/view-fingerprint.c) equals, as a count and an order-independent
 * hash, what profdb_values_next and profdb_trace_sample_at return. */
void qc_views_match_cursor(const profdb *db, const char *what);
/* Checks every invariant; returns the counts. */
profdb_counts qc_check_all(const profdb *db, const char *what);

#endif
