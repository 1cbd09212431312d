#!/bin/sh
# The SVG timeline (`profdb convert -t timeline`, doc/PERFORMANCE.md
# "Timeline"): wall time, CPU time and peak RSS of each case, best of N
# runs, output to a file in WORK (its size reported).
#   1. hpcviewer-issue-233 (135 trace lines) at 1600 columns: target < 0.3 s;
#   2. a synthetic HPCToolkit 4.0 database of 1 000 trace lines of 10 000
#      samples each (10 M samples, random contexts every millisecond, so
#      almost every column differs: the most rects a picture can have),
#      written once by profdb-mksample into WORK, at 1600 columns:
#      target < 2 s.
# One line per case: "timeline: CASE: best=...ms cpu=...ms maxrss=...KiB
# bytes=... runs=N".
# usage: bench/timeline.sh PROFDB MKSAMPLE DATA_DIR WORK [N]
set -eu
. "$(dirname "$0")/lib.sh"
profdb=$1 mksample=$2 data=$3 work=$4 n=${5:-5}
mkdir -p "$work"
run() {  # name, args...
	name=$1; shift
	best_of "$n" "$profdb" convert -t timeline -o "$work/out.svg" "$@"
	echo "timeline: $name: best=${best}ms cpu=${cpu}ms maxrss=${rss}KiB" \
		"bytes=$(wc -c < "$work/out.svg") runs=$n"
}
db233=$data/hpctoolkit/v4/hpcviewer-issue-233
if [ -d "$db233" ]; then
	run "issue-233 135 lines 1600 px (target < 300 ms)" --width 1600 "$db233"
else
	echo "timeline: issue-233: skipped (no $db233)"
fi
synth=$work/synth-1000x10000
[ -f "$synth/trace.db" ] || "$mksample" synth "$synth" 1000 500 1 0.01 10000 1
run "synthetic 1000 lines 10M samples 1600 px (target < 2000 ms)" --width 1600 "$synth"
