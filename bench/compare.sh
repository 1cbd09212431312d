#!/bin/sh
# bench/compare.sh — the same benchmarks from two release builds, run in
# alternation on the same machine, as one old/new table.
#
#   bench/compare.sh [--rounds N] OLD_BUILD NEW_BUILD
#
# OLD_BUILD and NEW_BUILD are build directories configured with
# --buildtype=release (bench/run.sh's build-bench, or one of an older
# checkout: git worktree add ../old REV && meson setup --buildtype=release
# -Dtests=disabled ../old/build-bench ../old && ninja -C ../old/build-bench).
# Each round runs, for old then new: bench-hpctk4 and bench-query on
# issue-233 (open, point lookups, scans, trace seek) and `profdb top` on the
# unpacked 69 MB Callgrind profile. The table gives, per case, the median
# over the rounds of each run's median, and new/old - 1.
#
# Environment: PROFDB_SAMPLE_DATA (default ../shared/data next to the
# source tree); TMPDIR for the unpacked Callgrind profile.
set -eu
rounds=5
if [ "${1:-}" = "--rounds" ]; then
	rounds=$2
	shift 2
fi
[ $# -eq 2 ] || { echo "usage: $0 [--rounds N] OLD_BUILD NEW_BUILD" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
data=${PROFDB_SAMPLE_DATA:-$src/../shared/data}
db="$data/hpctoolkit/v4/hpcviewer-issue-233"
cg="${TMPDIR:-/tmp}/profdb-compare-py_full_sc5.out"
[ -d "$db" ] || { echo "$0: $db not found" >&2; exit 1; }
if [ ! -f "$cg" ]; then
	gzip -dc "$data/callgrind/big/py_full_sc5.out.gz" >"$cg.tmp" && mv "$cg.tmp" "$cg"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run of one build: "case median_ns" lines.
run_one() {
	b=$1
	"$b/bench/bench-hpctk4" --no-cold "$db" 2>/dev/null |
		sed -n 's|^hpctk4/[^/]*/\([a-z_]*\): median=\([0-9.e+]*\) ns/op.*|\1 \2|p'
	"$b/bench/bench-query" "$db" 2>/dev/null |
		sed -n 's|^[^/]*/\(query_[a-z_]*\): median=\([0-9.e+]*\) ns/op.*|\1 \2|p'
	# profdb top: whole process, median of 5 wall times
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$b/tool/profdb" top -n 10 "$cg" >/dev/null
		echo $(( $(date +%s%N) - s ))
	done | sort -n | sed -n 3p | sed 's/^/profdb_top_callgrind_69MB /'
}

for r in $(seq "$rounds"); do
	run_one "$1" >>"$out/old"
	run_one "$2" >>"$out/new"
	echo "round $r of $rounds done" >&2
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-34s %14s %14s %8s\n' case old_ns new_ns change
for c in $(cut -d' ' -f1 "$out/new" | awk '!seen[$0]++'); do
	o=$(awk -v c="$c" '$1 == c { print $2 }' "$out/old" | median)
	n=$(awk -v c="$c" '$1 == c { print $2 }' "$out/new" | median)
	[ -n "$o" ] && [ -n "$n" ] || continue
	awk -v c="$c" -v o="$o" -v n="$n" 'BEGIN { printf "%-34s %14.4g %14.4g %+7.1f%%\n", c, o, n, (o > 0 ? (n / o - 1) * 100 : 0) }'
done
