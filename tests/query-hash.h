/* A fingerprint of a database as the common query interface answers it:
 * the tree walked through its links (ids, depths, names), every context's
 * inclusive and exclusive value of every metric in every profile, return
 * codes included, and every entry of a PROFDB_SCAN_ALL cursor. Two handles
 * that answer alike have the same fingerprint. */
#ifndef PROFDB_TESTS_QUERY_HASH_H
#define PROFDB_TESTS_QUERY_HASH_H

#include <stdint.h>
#include <profdb/profdb.h>

/* The fingerprint, or 0 when a walk or cursor call failed. */
uint64_t qh_hash(const profdb *db);

#endif
