#!/bin/sh
# How `profdb top` scales with the size of a Callgrind text: prefixes of
# FILE cut at a function boundary (1/4, 1/2, all), and FILE twice over (the
# second copy's header lines start a second part). One line per size:
#   callgrind-scaling-<label>: bytes=... median=<s> (of RUNS) cpu=<s> peak_rss=<MiB>
# usage: bench/callgrind-scaling.sh PROFDB FILE [RUNS]   (temporary files in /tmp)
set -eu
tool=$1
file=$2
runs=${3:-5}
tmp=$(mktemp -d /tmp/cg-scaling.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
size=$(stat -c %s "$file")

# The first @2 bytes of the file, cut before the "fn=" line at or after it.
prefix() {
	head -c "$2" "$file" >"$tmp/head"
	# bytes up to the last "\nfn=" in the head: a function starts there
	cut=$(grep -b -a '^fn=' "$tmp/head" | tail -n 1 | cut -d: -f1)
	head -c "$cut" "$file" >"$1"
}

measure() {
	label=$1
	input=$2
	bytes=$(stat -c %s "$input")
	i=0
	: >"$tmp/times"
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -f '%e %U %S %M' -a -o "$tmp/times" "$tool" top -n 20 "$input" >/dev/null
		i=$((i + 1))
	done
	med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
	wall=$(awk '{ print $1 }' "$tmp/times" | med)
	cpu=$(awk '{ print $2 + $3 }' "$tmp/times" | med)
	rss=$(awk '$4 > m { m = $4 } END { printf "%.1f", m / 1024 }' "$tmp/times")
	echo "callgrind-scaling-$label: bytes=$bytes median=${wall}s cpu=${cpu}s peak_rss=${rss}MiB runs=$runs"
}

prefix "$tmp/quarter" $((size / 4))
prefix "$tmp/half" $((size / 2))
measure quarter "$tmp/quarter"
rm -f "$tmp/quarter"
measure half "$tmp/half"
rm -f "$tmp/half"
measure full "$file"
cat "$file" "$file" >"$tmp/double"
measure double "$tmp/double"
