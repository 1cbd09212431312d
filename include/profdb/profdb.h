/* profdb — zero-copy readers for HPC performance-profile databases.
 *
 * The umbrella header: everything. A program may include only the parts it
 * uses instead; each compiles alone as C11 (-pedantic) and as C++:
 *
 *   profdb/common.h    version, errors, options, strings, numbers, views
 *   profdb/query.h     the common interface: one set of calls for every
 *                      format (start here)
 *   profdb/analysis.h  numbers combined: profile selections, statistics
 *                      over profiles, call edges, the three views
 *   profdb/convert.h   writing folded stacks, speedscope, Chrome trace,
 *                      Callgrind and pprof
 *   profdb/hpctk.h     HPCToolkit 4.0 databases
 *   profdb/hpctkpre.h  HPCToolkit pre-release databases, draft meta.db
 *   profdb/hpcrun.h    hpcrun measurement files
 *   profdb/cube.h      Cube4 .cubex profiles
 *   profdb/callgrind.h Callgrind profiles
 *
 * The conventions (return codes, threads, lifetimes, argument order) are at
 * the top of profdb/common.h and, in long form, in doc/CONVENTIONS.md.
 */
#ifndef PROFDB_PROFDB_H
#define PROFDB_PROFDB_H

#include "common.h"
#include "query.h"
#include "analysis.h"
#include "convert.h"
#include "hpctk.h"
#include "hpctkpre.h"
#include "hpcrun.h"
#include "cube.h"
#include "callgrind.h"

#endif /* PROFDB_PROFDB_H */
