#!/bin/sh
# `profdb diff` of a profile against a copy of itself (the 69 MB
# Callgrind profile must take < 1.5 s). Both sides are opened, both
# top-down views built and every call path paired, as for two real runs;
# the copy is a second file, so nothing is shared between the two handles.
# One line:
#   diff-self: bytes=... median=<s> (of RUNS) cpu=<s> peak_rss=<MiB> rows=<call paths> runs=N
# usage: bench/diff.sh PROFDB FILE [RUNS]   (FILE may be .gz; temporary files in /tmp)
set -eu
tool=$1
file=$2
runs=${3:-5}
tmp=$(mktemp -d /tmp/profdb-diff-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
case $file in
*.gz) zcat "$file" >"$tmp/a" ;;
*) cp "$file" "$tmp/a" ;;
esac
cp "$tmp/a" "$tmp/b"
bytes=$(stat -c %s "$tmp/a")
rows=$("$tool" diff --csv -n 0 "$tmp/a" "$tmp/b" | tail -n +2 | wc -l)
i=0
: >"$tmp/times"
while [ "$i" -lt "$runs" ]; do
	/usr/bin/time -f '%e %U %S %M' -a -o "$tmp/times" "$tool" diff -n 20 "$tmp/a" "$tmp/b" >/dev/null
	i=$((i + 1))
done
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
wall=$(awk '{ print $1 }' "$tmp/times" | med)
cpu=$(awk '{ print $2 + $3 }' "$tmp/times" | med)
rss=$(awk '$4 > m { m = $4 } END { printf "%.1f", m / 1024 }' "$tmp/times")
echo "diff-self: bytes=$bytes median=${wall}s cpu=${cpu}s peak_rss=${rss}MiB rows=$rows runs=$runs"
