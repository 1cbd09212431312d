#!/bin/sh
# How fast the analyst's commands answer on one profile (the figures
# use the 69 MB Callgrind profile callgrind/big/py_full_sc5.out.gz
# unpacked to a plain file): `profdb top` (< 0.3 s), `profdb tree` with its
# default screenful (< 200 lines, < 1 s), and `profdb bottom-up`. One line per
# case:
#   tool-<case>: lines=<N> median=<s> (of RUNS) cpu=<s> peak_rss=<MiB> runs=<RUNS>
# usage: bench/tool-views.sh PROFDB FILE [RUNS]
set -eu
tool=$1
file=$2
runs=${3:-5}
tmp=$(mktemp -d /tmp/tool-views.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

measure() {
	label=$1
	shift
	i=0
	: >"$tmp/times"
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -f '%e %U %S %M' -a -o "$tmp/times" "$tool" "$@" "$file" >"$tmp/out"
		i=$((i + 1))
	done
	lines=$(wc -l <"$tmp/out")
	med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
	wall=$(awk '{ print $1 }' "$tmp/times" | med)
	cpu=$(awk '{ print $2 + $3 }' "$tmp/times" | med)
	rss=$(awk '$4 > m { m = $4 } END { printf "%.1f", m / 1024 }' "$tmp/times")
	echo "tool-$label: lines=$lines median=${wall}s cpu=${cpu}s peak_rss=${rss}MiB runs=$runs"
}

measure top top
measure top-all-metrics top -m all
measure tree-default tree
measure bottom-up-default bottom-up
