#!/bin/sh
# The parallel Callgrind scan (lib/callgrind/parallel.c) gives what the
# sequential one gives: `profdb dump --json` of every real sample under
# callgrind/ (gzip included), with PROFDB_THREADS=1 and with 3
# threads, byte for byte: standard output, standard error (warnings,
# errors) and exit status.
# usage: cg-parallel-dump.sh PROFDB SAMPLE_DATA
set -u
tool=$1
data=${PROFDB_SAMPLE_DATA:-$2}
dir="$data/callgrind"
if [ ! -d "$dir" ]; then
	echo "SKIP: $dir not found"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cg-parallel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
bad=0
for f in $(find "$dir" -type f ! -name 'README*' ! -name '.*' | sort); do
	n=$((n + 1))
	PROFDB_THREADS=1 "$tool" dump --json "$f" >"$tmp/a.out" 2>"$tmp/a.err"
	ra=$?
	for t in 3; do
		PROFDB_THREADS=$t "$tool" dump --json "$f" >"$tmp/b.out" 2>"$tmp/b.err"
		rb=$?
		if [ "$ra" != "$rb" ] || ! cmp -s "$tmp/a.out" "$tmp/b.out" ||
		   ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
			echo "FAIL $f: $t threads differ from one (exit $rb vs $ra)"
			diff "$tmp/a.err" "$tmp/b.err" | head -5
			bad=$((bad + 1))
		fi
	done
done
echo "$n samples, each dumped with 1 and 3 threads: $bad differ"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
