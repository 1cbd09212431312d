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

# copy_build PROFDB DIR: when PROFDB is the tool of a build folder (a
# meson-info folder beside its tool/), copies it and the libprofdb.so
# beside it (../lib, which its RUNPATH $ORIGIN/../lib names) into
# DIR/tool and DIR/lib, as an installation copies them, and prints the
# copy's path; else (an installed profdb) prints PROFDB. On this machine
# a build's files as the linker wrote them ran `top --by line` about 7 %
# slower than a copy of the same bytes (doc/PERFORMANCE.md, "Machine and
# inputs"), so builds are timed as copies.
copy_build() {
	_p=$(command -v "$1") || { echo "$1"; return 0; }
	_b=$(dirname "$_p")/..
	if [ ! -d "$_b/meson-info" ]; then
		echo "$1"
		return 0
	fi
	mkdir -p "$2/tool" "$2/lib" && cp "$_p" "$2/tool/" || return 1
	for _f in "$_b"/lib/libprofdb.so*; do
		[ ! -e "$_f" ] || [ -d "$_f" ] || cp -P "$_f" "$2/lib/" || return 1
	done
	echo "$2/tool/$(basename "$_p")"
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
