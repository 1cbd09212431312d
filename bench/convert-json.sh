#!/bin/sh
# The folded, speedscope, Chrome and SVG writers: wall time and peak
# RSS of `profdb convert` per case, best of N runs, output to /dev/null.
# One line per case: "convert-json: CASE: best=...ms cpu=...ms maxrss=...KiB"
# (cpu: the least user+system time of the runs, which a loaded machine
# inflates less than the wall time).
# usage: bench/convert-json.sh PROFDB DATA_DIR [BIG_CALLGRIND] [N]
set -eu
. "$(dirname "$0")/lib.sh"
profdb=$1 data=$2 big=${3:-/tmp/py_full_sc5.out} n=${4:-5}
db233=$data/hpctoolkit/v4/hpcviewer-issue-233
run() {  # name, args...
	name=$1; shift
	best_of "$n" "$profdb" convert "$@"
	echo "convert-json: $name: best=${best}ms cpu=${cpu}ms maxrss=${rss}KiB runs=$n"
}
if [ -d "$db233" ]; then
	for f in folded speedscope chrome svg; do run "issue-233 $f" -t "$f" "$db233"; done
fi
[ -f "$big" ] || { [ -f "$data/callgrind/big/py_full_sc5.out.gz" ] &&
	zcat "$data/callgrind/big/py_full_sc5.out.gz" > "$big"; } || true
if [ -f "$big" ]; then
	run "py_full_sc5 folded" -t folded "$big"
	run "py_full_sc5 speedscope" -t speedscope "$big"
	run "py_full_sc5 svg" -t svg "$big"
	"$profdb" convert -t svg -o "$big.svg" "$big" &&
		echo "convert-json: py_full_sc5 svg: bytes=$(wc -c < "$big.svg") (target < 3 MB)"
fi
