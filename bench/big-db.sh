#!/bin/sh
# Commands on a synthetic HPCToolkit 4.0 database larger than the page
# cache can hold, each from a cold cache: one line per case,
#   big-db size=S case=C wall=SECONDS cpu=SECONDS rss_kb=KB anon_kb=KB exit=E cache=HOW
# with the wall and CPU time (user + system) of the whole `profdb` process,
# its peak resident set (file pages of the mappings included) and its peak
# anonymous memory (RssAnon of /proc/PID/status, sampled every 2 ms). Before
# every case the page cache is emptied: `echo 3 > /proc/sys/vm/drop_caches`
# as root (cache=dropped), else posix_fadvise(POSIX_FADV_DONTNEED) on every
# file of the database (cache=fadvise; pages other processes hold mapped
# stay). Not part of the test suite: the large size takes minutes and tens
# of GB of disk.
#
# usage: bench/big-db.sh PROFDB-MKSAMPLE PROFDB WORKDIR [SIZE]
#   SIZE  large: synth 40000 profiles x 20000 contexts x 4 metrics, density
#                0.1, 200 trace samples (26.9 GB)
#         small: the same with 4000 profiles (2.7 GB; the default)
# environment: KEEP=1 keeps the database in WORKDIR (it is deleted at the end
# otherwise; an existing one of the same size is reused).
# doc/PERFORMANCE.md ("Cold caches at scale") has results and the command.
set -u
[ $# -ge 3 ] || { echo "usage: $0 PROFDB-MKSAMPLE PROFDB WORKDIR [large|small]" >&2; exit 2; }
mksample=$1 profdb=$2 work=$3 size=${4:-small}
case $size in
large) params="40000 20000 4 0.1 200" ;;
small) params="4000 20000 4 0.1 200" ;;
*) echo "$0: SIZE is large or small, not $size" >&2; exit 2 ;;
esac
command -v python3 >/dev/null || { echo "$0: needs python3 (the measuring harness)" >&2; exit 2; }
mkdir -p "$work" || exit 2
db=$work/synth-$size
if [ ! -f "$db/.params" ] || [ "$(cat "$db/.params")" != "$params" ]; then
	rm -rf "$db"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$mksample" synth "$db" $params >/dev/null || exit 1
	echo "$params" >"$db/.params"
	echo "big-db size=$size case=write seconds=$(($(date +%s) - start))" \
	     "bytes=$(du -sb "$db" | cut -f1)"
fi

# Empty the page cache of the database; prints how.
cold() {
	sync
	if { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
		echo dropped
		return
	fi
	python3 - "$db" <<'PY'
import os, sys
for name in os.listdir(sys.argv[1]):
    fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
print("fadvise")
PY
}

# run CASE ARGS...: one measured cold run of profdb ARGS, output discarded.
run() {
	name=$1
	shift
	how=$(cold)
	python3 - "$profdb" "$@" <<'PY' >"$work/measure" 2>/dev/null
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = 0
while True:
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    anon = max(anon, int(line.split()[1]))
    except (OSError, ValueError):
        pass
    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
    if pid:
        break
    time.sleep(0.002)
wall = time.monotonic() - t0
print("%.3f %.3f %d %d %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, anon,
                             os.waitstatus_to_exitcode(status)))
PY
	# shellcheck disable=SC2046 # five numbers, split on purpose
	set -- $(cat "$work/measure")
	echo "big-db size=$size case=$name wall=$1 cpu=$2 rss_kb=$3 anon_kb=$4 exit=$5 cache=$how"
}

run info info "$db"
run top-profile-1 top --profile 1 "$db"
run value value --profile 1 --context 1 --metric 0 "$db"
run trace-profile-1 trace --profile 1 "$db"
run stats-m0 stats -m 0 "$db"
[ "${KEEP:-0}" = 1 ] || rm -rf "$db"
