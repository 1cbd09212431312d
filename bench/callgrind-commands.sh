#!/bin/sh
# Every profdb command that reads a Callgrind profile in its own way, as
# whole processes, for one or two builds side by side (each command of each
# build in turn, so both see the same load): CPU time (user + system, from
# `perf stat -x, -e task-clock`), wall time and peak RSS (bench/run-timed.c,
# built here with cc), medians of RUNS. The file is first put in the page
# cache as a file read from disk is (bench/lib.sh, cache_as_read;
# BENCH_CACHE=as-written leaves it as it is). `top` is the yardstick: on
# a busy machine compare the CPU times and the ratio to `top` of the same
# build. `wc -l` on the same file, once a round, is the yardstick across
# hours (the machine's speed drifts): each wall time's ratio to its median.
#   wc -l: cpu=<s> wall=<s>
#   <build> <command>: cpu=<s> wall=<s> peak_rss=<MiB> cpu/top=<x> wall/wc=<x>
# usage: bench/callgrind-commands.sh FILE RUNS PROFDB [PROFDB2]
#   e.g. bench/callgrind-commands.sh /tmp/py_full_sc5.out 5 build-rel/tool/profdb
set -eu
[ $# -ge 3 ] || { echo "usage: $0 FILE RUNS PROFDB [PROFDB2]" >&2; exit 2; }
file=$1
runs=$2
shift 2
tmp=$(mktemp -d /tmp/cg-commands.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/lib.sh"
timer=$(timer "$tmp")
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# the builds timed as copies (bench/lib.sh, copy_build); named as given
nb=0
for p in "$@"; do
	nb=$((nb + 1))
	eval "name_$nb=\$p"
	eval "tool_$nb=\$(copy_build \"\$p\" \"\$tmp/build$nb\")"
done
cache_as_read "$file" "$tool_1"
# the hottest function's context id (the first row of top)
hot=$("$tool_1" top "$file" | awk '$3 ~ /^[0-9]+$/ && $2 ~ /%$/ { print $3; exit }')

# one run of build $1 (index $2), command $3..., into $tmp/<index>.<case>
once() {
	tool=$1 b=$2 case=$3
	shift 3
	perf stat -x, -e task-clock -o "$tmp/perf" "$tool" "$@" "$file" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	awk -F, '$3 == "task-clock" || $3 ~ /task-clock/ { printf "%.4f\n", $1 / 1000 }' \
		"$tmp/perf" >>"$tmp/$b.$case.cpu"
	"$timer" 1 /dev/null "$tmp/err" "$tool" "$@" "$file" >>"$tmp/$b.$case.time"
}

cases() {
	printf '%s\n' 'top|top' 'info|info' 'inclusive|top --inclusive' 'by-line|top --by line' \
		"callers|callers #$hot" "callers-sites|callers --sites #$hot" \
		"callees-sites|callees --sites #$hot" 'tree|tree' 'bottom-up|bottom-up' \
		"pprof|convert -t pprof -o $tmp/out.pb.gz" "callgrind|convert -t callgrind -o $tmp/out.cg" \
		"folded|convert -t folded -o $tmp/out.fd" "speedscope|convert -t speedscope -o $tmp/out.json"
}
i=0
while [ "$i" -lt "$runs" ]; do
	once wc w wc -l
	cases | while IFS='|' read -r case cmd; do
		b=0
		while [ "$b" -lt "$nb" ]; do
			b=$((b + 1))
			eval "tool=\$tool_$b"
			# shellcheck disable=SC2086 # the command's words
			once "$tool" "$b" "$case" $cmd
		done
	done
	i=$((i + 1))
done
wc=$(awk '{ print $1 }' "$tmp/w.wc.time" | med)
echo "wc -l: cpu=$(med <"$tmp/w.wc.cpu")s wall=${wc}s"
b=0
while [ "$b" -lt "$nb" ]; do
	b=$((b + 1))
	eval "tool=\$name_$b"
	top=$(med <"$tmp/$b.top.cpu")
	cases | while IFS='|' read -r case cmd; do
		cpu=$(med <"$tmp/$b.$case.cpu")
		wall=$(awk '{ print $1 }' "$tmp/$b.$case.time" | med)
		rss=$(awk '{ print $3 }' "$tmp/$b.$case.time" | med | awk '{ printf "%.1f", $1 / 1024 }')
		ratio=$(awk -v a="$cpu" -v t="$top" 'BEGIN { printf "%.2f", a / t }')
		per_wc=$(awk -v a="$wall" -v w="$wc" 'BEGIN { printf "%.1f", a / w }')
		echo "$tool $case (${cmd%% -o *}): cpu=${cpu}s wall=${wall}s peak_rss=${rss}MiB cpu/top=$ratio wall/wc=$per_wc"
	done
done
