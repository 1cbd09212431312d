#!/bin/sh
# The Callgrind/pprof conversion benchmarks of doc/PERFORMANCE.md:
#   bench/convert-cg.sh BUILD_DIR [DATA_DIR]
# issue-233 to Callgrind and pprof, then the 69 MB Callgrind profile
# (unpacked to /tmp/py_full_sc5.out once) to Callgrind and pprof, each in its own
# process so the peak memory is the case's own.
set -e
build=${1:?usage: convert-cg.sh BUILD_DIR [DATA_DIR]}
data=${2:-$(dirname "$0")/../../shared/data}
bench=$build/bench/bench-convert-cg
"$bench" "$data/hpctoolkit/v4/hpcviewer-issue-233" callgrind
"$bench" "$data/hpctoolkit/v4/hpcviewer-issue-233" pprof
big=/tmp/py_full_sc5.out
[ -s "$big" ] || zcat "$data/callgrind/big/py_full_sc5.out.gz" > "$big"
"$bench" "$big" callgrind
"$bench" "$big" pprof
