#!/bin/sh
# bench/cube-dump.sh — the CPU time of `profdb dump` on a Cube archive, as
# values per second, for doc/PERFORMANCE.md ("Number output").
#
#   bench/cube-dump.sh [--runs N] PROFDB [FILE.cubex]
#
# PROFDB is the profdb program of a release build. FILE defaults to the
# Score-P-summary sample. CPU time is perf's task-clock (user + system of
# the whole process, open included), the median of N runs (default 7):
# on a shared machine it holds better than the wall time. Lines:
#   cube-dump: values cpu=<ms> values=<n> rate=<M values/s>
#   cube-dump: all-tables cpu=<ms> ratio=<all tables over values>
#   cube-dump: info cpu=<ms>             (the open alone)
# plus the load average before and after.
set -eu
runs=7
if [ "${1:-}" = --runs ]; then
	runs=$2
	shift 2
fi
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 [--runs N] PROFDB [FILE.cubex]" >&2; exit 2; }
profdb=$1
src=$(cd "$(dirname "$0")/.." && pwd)
data=${PROFDB_SAMPLE_DATA:-$src/../shared/data}
file=${2:-$data/cube/Score-P-summary.cubex}
[ -f "$file" ] || { echo "$0: $file not found" >&2; exit 1; }
command -v perf >/dev/null || { echo "$0: perf not on PATH" >&2; exit 1; }

# cpu ARGS...: the median task-clock in ms of $runs runs of profdb ARGS
cpu() {
	i=0
	while [ "$i" -lt "$runs" ]; do
		perf stat -x, -e task-clock "$profdb" "$@" "$file" 2>&1 >/dev/null |
			awk -F, '$3 == "task-clock" { print $1 }'
		i=$((i + 1))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] }'
}

echo "cube-dump: file $(basename "$file"), load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
n=$(($("$profdb" dump --csv --table values "$file" | wc -l) - 1))
v=$(cpu dump --csv --table values)
echo "cube-dump: values cpu=${v}ms values=$n rate=$(awk -v n="$n" -v t="$v" 'BEGIN { printf "%.1f", n / t / 1e3 }')M/s"
a=$(cpu dump --csv)
echo "cube-dump: all-tables cpu=${a}ms ratio=$(awk -v a="$a" -v v="$v" 'BEGIN { printf "%.2f", a / v }')"
echo "cube-dump: info cpu=$(cpu info)ms"
echo "cube-dump: load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
