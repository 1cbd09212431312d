#!/bin/sh
# How the line paths scale with the number of parts of a Callgrind text:
# texts of P parts (250, 500, 1000, 2000 by default), each part with the
# same 10 functions of 10 lines, as valgrind writes a dump per thread or
# per interval. A walk over the lines decodes each function part by part
# and reads each row in every part: what it costs per line must not grow
# with P. One line per text:
#   callgrind-parts-<P>: bytes=... by_line=<s> info_values=<s> pprof=<s> peak_rss=<MiB> (medians of RUNS)
# usage: bench/callgrind-parts.sh PROFDB [RUNS [P...]]   (temporary files in /tmp)
set -eu
tool=$1
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- 250 500 1000 2000
tmp=$(mktemp -d /tmp/cg-parts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# A text of @1 parts: function fN named in the first, by id after.
text() {
	awk -v parts="$1" 'BEGIN {
		print "# callgrind format"; print "version: 1"; print "positions: line"; print "events: A"
		for (p = 1; p <= parts; p++) {
			if (p > 1) print "part: " p
			for (f = 1; f <= 10; f++) {
				print "fn=(" f ")" (p == 1 ? " f" f : "")
				for (l = 1; l <= 10; l++) print l " " p * 100 + f * 10 + l
			}
		}
	}'
}

med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# The median wall time of @2... (RUNS runs), and the peak RSS into $tmp/rss.
timed() {
	: >"$tmp/times"
	i=0
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -f '%e %M' -a -o "$tmp/times" "$@" >/dev/null
		i=$((i + 1))
	done
	awk '$2 > m { m = $2 } END { print m }' "$tmp/times" >>"$tmp/rss"
	awk '{ print $1 }' "$tmp/times" | med
}

for parts in "$@"; do
	f=$tmp/parts-$parts.out
	text "$parts" >"$f"
	: >"$tmp/rss"
	line=$(timed "$tool" top --by line "$f")
	values=$(timed "$tool" info --values "$f")
	pprof=$(timed "$tool" convert -t pprof -o "$tmp/out.pb.gz" "$f")
	rss=$(sort -n "$tmp/rss" | tail -n 1 | awk '{ printf "%.1f", $1 / 1024 }')
	echo "callgrind-parts-$parts: bytes=$(stat -c %s "$f") by_line=${line}s info_values=${values}s pprof=${pprof}s peak_rss=${rss}MiB runs=$runs"
done
