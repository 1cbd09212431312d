#!/bin/sh
# Deep call chains through every command and converter: one line per case,
#   deep-chain format=F shape=S depth=N case=C wall=SECONDS cpu=SECONDS rss_kb=KB out_bytes=B exit=E
# with the wall time, CPU time (user + system: what a loaded machine changes
# least) and peak RSS of the whole `profdb` process
# (/usr/bin/time), the size of what it wrote and its exit status. The chains
# come from profdb-mkchain (tests/writer/chain.c): frame k calls frame k+1,
# self cost at the leaf only (shape leaf) or at every frame (shape every).
# A case that runs past TIMEOUT seconds is killed (exit=124).
#
# usage: bench/deep-chains.sh PROFDB PROFDB-MKCHAIN WORKDIR [DEPTH [SHAPES [FORMATS]]]
#   DEPTH   default 100000
#   SHAPES  default "leaf every"
#   FORMATS default "hpctk4 pre hpcrun cube callgrind"
# environment: TIMEOUT (default 60)
# doc/PERFORMANCE.md ("Deep call chains") has results and the command.
set -u
[ $# -ge 3 ] || { echo "usage: $0 PROFDB PROFDB-MKCHAIN WORKDIR [DEPTH [SHAPES [FORMATS]]]" >&2; exit 2; }
profdb=$1 mkchain=$2 work=$3
depth=${4:-100000}
shapes=${5:-leaf every}
formats=${6:-hpctk4 pre hpcrun cube callgrind}
timeout=${TIMEOUT:-60}
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$work" || exit 2

# run CASE-NAME ARGS...: one measured run of profdb ARGS, output to $work/out
run() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" timeout "$timeout" "$profdb" "$@" \
		>"$work/out" 2>"$work/err"
	rc=$?
	set -- $(tail -n 1 "$work/time")
	echo "deep-chain format=$fmt shape=$shape depth=$depth case=$name wall=$1 cpu=$(echo "$2 $3" | awk '{ printf "%.2f", $1 + $2 }') rss_kb=$4" \
	     "out_bytes=$(wc -c <"$work/out" | tr -d ' ') exit=$rc"
}

for fmt in $formats; do
	for shape in $shapes; do
		case $fmt in
		hpctk4|pre) in=$work/$fmt-$shape-$depth ;;
		hpcrun) in=$work/$fmt-$shape-$depth.hpcrun ;;
		cube) in=$work/$fmt-$shape-$depth.cubex ;;
		callgrind) in=$work/callgrind.out.$shape-$depth ;;
		*) echo "$0: unknown format $fmt" >&2; exit 2 ;;
		esac
		rm -rf "$in"
		"$mkchain" "$fmt" "$depth" "$shape" "$in" || exit 1
		echo "deep-chain format=$fmt shape=$shape depth=$depth case=input" \
		     "bytes=$(du -sb "$in" | cut -f1)"
		run top top "$in"
		run tree tree "$in"
		run bottom-up bottom-up "$in"
		run flat flat "$in"
		f0=f0 f1=f1
		[ "$fmt" = hpcrun ] && f0='#2' f1='#3'   # no names: frames 0 and 1 by context id
		run callers callers "$f1" "$in"
		run callees callees "$f0" "$in"
		for t in metrics contexts profiles values traces edges; do
			run "dump-csv-$t" dump --csv --table "$t" "$in"
		done
		run dump-json dump --json "$in"
		run stats stats "$in"
		for to in folded speedscope chrome callgrind pprof; do
			run "convert-$to" convert -t "$to" -o "$work/out" "$in"
		done
	done
done
