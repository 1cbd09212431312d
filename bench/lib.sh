# Shared by the bench scripts (sourced): the best of N runs of a command.
#
# best_of N CMD...: runs CMD N times, its output discarded, and sets
#   best  the least wall time (ms),
#   cpu   the least user + system time (ms), which a loaded machine
#         inflates less than the wall time,
#   rss   the largest peak resident set (KiB).
best_of() {
	_n=$1; shift
	best=""; cpu=""; rss=0
	for _ in $(seq "$_n"); do
		_out=$( { /usr/bin/time -f '%e %M %U %S' "$@" >/dev/null; } 2>&1 | tail -1)
		_ms=$(echo "$_out" | awk '{printf "%d", $1 * 1000}')
		_kb=$(echo "$_out" | awk '{print $2}')
		_cms=$(echo "$_out" | awk '{printf "%d", ($3 + $4) * 1000}')
		{ [ -z "$best" ] || [ "$_ms" -lt "$best" ]; } && best=$_ms
		{ [ -z "$cpu" ] || [ "$_cms" -lt "$cpu" ]; } && cpu=$_cms
		[ "$_kb" -gt "$rss" ] && rss=$_kb
	done
	return 0
}

# timer DIR: builds bench/run-timed.c (wall to the microsecond, cpu and
# peak RSS of each run, with no process but the command's own between the
# clock readings) into DIR with the system's cc, and prints its path.
timer() {
	cc -O2 -o "$1/run-timed" "$(dirname "$0")/run-timed.c" || return 1
	echo "$1/run-timed"
}

# cache_as_read FILE PROFDB: leaves FILE in the page cache as any reader
# finds a file that was read from disk, whatever wrote it: written back,
# dropped from the cache (dd's nocache: no root needed), then read once,
# untimed, by `PROFDB info`, whose mapping asks for huge pages. A file just
# written stays cached in its writer's small folios, which costs profdb
# about 8 ms of CPU time per 66 MB (doc/PERFORMANCE.md, "The page cache").
# BENCH_CACHE=as-written leaves the file as it is.
cache_as_read() {
	[ "${BENCH_CACHE:-}" = as-written ] && return 0
	sync "$1"
	dd if="$1" iflag=nocache count=0 status=none
	"$2" info "$1" >/dev/null
}
