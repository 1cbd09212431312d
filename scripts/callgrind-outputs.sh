#!/bin/sh
# scripts/callgrind-outputs.sh — the output of every command that reads a
# Callgrind profile differently (open, call edges, context tree, line
# detail, converters), saved per sample file, so that two builds can be
# compared byte for byte when the reader's internals change:
#
#   scripts/callgrind-outputs.sh OLD_BUILD /tmp/cg-old
#   scripts/callgrind-outputs.sh NEW_BUILD /tmp/cg-new
#   diff -r /tmp/cg-old /tmp/cg-new && echo identical
#
# BUILD is a build directory (its tool/profdb is run). The files are every
# sample under $PROFDB_SAMPLE_DATA/callgrind (default ../shared/data next to
# the source tree) but its src/ folder and README files, and
# callgrind/big/py_full_sc5.out.gz unpacked into $TMPDIR (a text as large as
# that makes the scan run in parallel pieces, which small samples do not).
# `top --by line` and `info --values` decode every function's lines. Each
# output file ends with the command's exit status, so an error message that
# changes is a difference too. `callers` and `callers --sites` take the
# hottest function of `top` (by context id, so names that several functions
# share do not matter). Runs at the lowest priority: it is a check, not a
# benchmark.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 BUILD OUTDIR" >&2; exit 2; }
prof=$(cd "$1" && pwd)/tool/profdb
out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
data=${PROFDB_SAMPLE_DATA:-$src/../shared/data}/callgrind
big="${TMPDIR:-/tmp}/profdb-outputs-py_full_sc5.out"
[ -x "$prof" ] || { echo "$0: $prof not found" >&2; exit 1; }
[ -d "$data" ] || { echo "$0: $data not found" >&2; exit 1; }
if [ ! -f "$big" ]; then
	gzip -dc "$data/big/py_full_sc5.out.gz" >"$big.tmp" && mv "$big.tmp" "$big"
fi
mkdir -p "$out"

# run NAME TAG ARGS...: the output and exit status of `profdb ARGS`.
run() {
	name=$1 tag=$2
	shift 2
	rc=0
	nice -n 19 "$prof" "$@" >"$out/$name.$tag" 2>&1 || rc=$?
	echo "exit status $rc" >>"$out/$name.$tag"
}

{ find "$data" -type f ! -path "$data/src/*" ! -name 'README*' | sort; echo "$big"; } |
while read -r f; do
	name=$(echo "${f#"$data"/}" | tr / _)
	run "$name" info info "$f"
	run "$name" top top "$f"
	run "$name" top-inclusive top --inclusive "$f"
	run "$name" top-lines top --by line -n 50 "$f"
	run "$name" info-values info --values "$f"
	run "$name" tree tree "$f"
	run "$name" bottom-up bottom-up "$f"
	run "$name" dump-json dump --json "$f"
	for to in folded speedscope callgrind pprof; do
		run "$name" "convert-$to" convert -t "$to" "$f"
	done
	# the id column of top's first row
	id=$(nice -n 19 "$prof" top "$f" 2>/dev/null |
	     awk '$3 ~ /^[0-9]+$/ && $2 ~ /%$/ { print $3; exit }')
	if [ -n "$id" ]; then
		run "$name" callers callers "#$id" "$f"
		run "$name" callers-sites callers --sites "#$id" "$f"
	fi
done
