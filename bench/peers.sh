#!/bin/sh
# bench/peers.sh — profdb beside every other reader found on this machine,
# on the same files, in one run, with ratios.
#
#   bench/peers.sh [--runs N] [--quick] PROFDB
#
# PROFDB is the profdb program of a release build (meson setup
# --buildtype=release). The peers, each only when present:
#   callgrind_annotate (valgrind)       on PATH
#   cube_dump (CubeLib)                 on PATH
#   gprof2dot, pycubexr, hatchet, pipit importable by python3
# A missing peer prints "skipped" with the reason, never a number.
# --quick leaves out the 69 MB Callgrind profile for callgrind_annotate
# (about 30 s a run); profdb's own rows on it stay.
#
# One line per (case, reader):
#   peers-<case>: <reader> wall=<s> cpu=<s> rss=<MiB> runs=<N> [ratio=<x>]
# wall and cpu (user+sys) are medians over the runs, rss the peak, each
# run's taken by bench/run-timed.c (built here with cc); ratio is
# the peer's median wall over profdb's in the same case (> 1: profdb is
# faster). profdb-1-thread is profdb with PROFDB_THREADS=1 (the Callgrind
# scan on one thread), profdb-info `profdb info` on the same file (its
# ratio: info's wall over top's), wc-l `wc -l` on the same file (a floor
# that any reader of the text pays; its ratio, wc's wall over top's, holds
# on a busy machine where the peers' do not), profdb-json the values as JSON instead
# of CSV, profdb-all-tables `dump --csv` with every table (its ratio:
# over the values table alone). The first lines give the machine, the
# load average and the commit, for doc/PERFORMANCE.md.
#
# The unpacked profile is put in the page cache as a file read from disk
# is (bench/lib.sh, cache_as_read; BENCH_CACHE=as-written leaves it as
# gzip wrote it).
#
# Environment: PROFDB_SAMPLE_DATA (default ../shared/data next to the
# source tree); TMPDIR for the unpacked Callgrind profile.
set -eu
runs=5
quick=0
while [ $# -gt 1 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: $0 [--runs N] [--quick] PROFDB" >&2; exit 2; }
profdb=$1
src=$(cd "$(dirname "$0")/.." && pwd)
data=${PROFDB_SAMPLE_DATA:-$src/../shared/data}
[ -d "$data" ] || { echo "$0: sample data $data not found" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$src/bench/lib.sh"
timer=$(timer "$tmp")
profdb=$(copy_build "$profdb" "$tmp/build")   # timed as a copy (bench/lib.sh)
big="${TMPDIR:-/tmp}/profdb-peers-py_full_sc5.out"
if [ ! -f "$big" ]; then
	gzip -dc "$data/callgrind/big/py_full_sc5.out.gz" >"$big.tmp" && mv "$big.tmp" "$big"
fi
cache_as_read "$big" "$profdb"

echo "peers-machine: $(uname -m) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "peers-date: $(date -u '+%Y-%m-%d %H:%M UTC') commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "peers-load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"

med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# measure CASE READER N CMD...: N runs; prints the line; sets $wall.
measure() {
	case_=$1 reader=$2 n=$3
	shift 3
	if ! "$timer" "$n" "$tmp/out" "$tmp/err" "$@" >"$tmp/times" 2>"$tmp/terr"; then
		msg=$(tail -n 1 "$tmp/err")
		echo "peers-$case_: $reader FAILED: ${msg:-$(tail -n 1 "$tmp/terr")}"
		wall=
		return 0
	fi
	wall=$(awk '{ print $1 }' "$tmp/times" | med)
	cpu=$(awk '{ printf "%.2f\n", $2 }' "$tmp/times" | med)
	rss=$(awk '$3 > m { m = $3 } END { printf "%.1f", m / 1024 }' "$tmp/times")
	line="peers-$case_: $reader wall=${wall}s cpu=${cpu}s rss=${rss}MiB runs=$n"
	if [ -n "${base:-}" ] && [ "$reader" != profdb ]; then
		line="$line ratio=$(awk -v a="$wall" -v b="$base" 'BEGIN { r = (b > 0 ? a / b : 0); printf (r < 1 ? "%.2f" : "%.1f"), r }')"
	fi
	echo "$line"
}

skip() { echo "peers-$1: $2 skipped ($3)"; }

have_py() { python3 -c "import $1" 2>/dev/null; }

# ---- Callgrind: the 69 MB profile and a small one ----
for f in "$big" "$data/callgrind/valgrind/01_default_ls.out"; do
	c="cg-$(basename "$f" .out | sed 's/^profdb-peers-//')"
	[ -f "$f" ] || { skip "$c" all "file not found"; continue; }
	base=
	measure "$c" profdb "$runs" "$profdb" top "$f"
	base=$wall
	# the same with the scan on one thread (options.threads = 1)
	measure "$c" profdb-1-thread "$runs" env PROFDB_THREADS=1 "$profdb" top "$f"
	measure "$c" profdb-info "$runs" "$profdb" info "$f"
	measure "$c" wc-l "$runs" wc -l "$f"
	if ! command -v callgrind_annotate >/dev/null; then
		skip "$c" callgrind_annotate "not on PATH"
	elif [ "$quick" = 1 ] && [ "$f" = "$big" ]; then
		skip "$c" callgrind_annotate "--quick"
	else
		n=$runs
		[ "$f" = "$big" ] && n=1
		measure "$c" callgrind_annotate "$n" callgrind_annotate "$f"
	fi
	if have_py gprof2dot; then
		measure "$c" gprof2dot "$runs" python3 -m gprof2dot -f callgrind -o /dev/null "$f"
	else
		skip "$c" gprof2dot "python3 cannot import gprof2dot"
	fi
done

# ---- Callgrind: the commands and converters on the 69 MB profile ----
# profdb alone (no peer reads these views); the targets are in
# doc/PERFORMANCE.md, "Callgrind reader and the profdb commands on it".
if [ -f "$big" ]; then
	base=
	measure cg-big-tree profdb "$runs" "$profdb" tree "$big"
	measure cg-big-bottom-up profdb "$runs" "$profdb" bottom-up "$big"
	measure cg-big-top-inclusive profdb "$runs" "$profdb" top --inclusive "$big"
	measure cg-big-callers profdb "$runs" "$profdb" callers _Py_dict_lookup "$big"
	measure cg-big-folded profdb "$runs" "$profdb" convert -t folded "$big"
	measure cg-big-speedscope profdb "$runs" "$profdb" convert -t speedscope "$big"
	measure cg-big-callgrind profdb "$runs" "$profdb" convert -t callgrind "$big"
	measure cg-big-pprof profdb "$runs" "$profdb" convert -t pprof "$big"
fi

# ---- Cube: every stored value ----
for f in Score-P-summary extrap-gpu.s128 pycubexr-L2_DCM_negative; do
	path="$data/cube/$f.cubex"
	c="cube-$f"
	[ -f "$path" ] || { skip "$c" all "file not found"; continue; }
	base=
	measure "$c" profdb "$runs" "$profdb" dump --csv --table values "$path"
	base=$wall
	values=$(($(wc -l <"$tmp/out") - 1))
	echo "peers-$c: profdb values=$values rate=$(awk -v n="$values" -v w="$wall" 'BEGIN { printf "%.1f", (w > 0 ? n / w / 1e6 : 0) }')M/s"
	measure "$c" profdb-json "$runs" "$profdb" dump --json --table values "$path"
	# every table (its ratio: over the values table alone)
	measure "$c" profdb-all-tables "$runs" "$profdb" dump --csv "$path"
	if command -v cube_dump >/dev/null; then
		measure "$c" cube_dump "$runs" cube_dump -m all -c all -s csv2 "$path"
	else
		skip "$c" cube_dump "not on PATH"
	fi
	if have_py pycubexr; then
		cat >"$tmp/pycubexr.py" <<'EOF'
import sys
from pycubexr import CubexParser
with CubexParser(sys.argv[1]) as p:
    n = 0
    for m in p.get_metrics():
        try:
            n += len(p.get_metric_values(m).values)
        except Exception:
            pass
    print(n)
EOF
		measure "$c" pycubexr "$runs" python3 "$tmp/pycubexr.py" "$path"
	else
		skip "$c" pycubexr "python3 cannot import pycubexr"
	fi
done

# ---- HPCToolkit 4.0 database ----
db="$data/hpctoolkit/v4/hpcviewer-issue-233"
if [ -d "$db" ]; then
	base=
	measure hpctk-issue-233 profdb "$runs" "$profdb" top "$db"
	base=$wall
	if have_py hatchet; then
		measure hpctk-issue-233 hatchet "$runs" python3 -c \
			'import sys, hatchet; hatchet.GraphFrame.from_hpctoolkit_latest(sys.argv[1])' "$db"
	else
		skip hpctk-issue-233 hatchet "python3 cannot import hatchet"
	fi
	if have_py pipit; then
		measure hpctk-issue-233 pipit "$runs" python3 -c \
			'import sys, pipit; pipit.Trace.from_hpctoolkit(sys.argv[1])' "$db"
	else
		skip hpctk-issue-233 pipit "python3 cannot import pipit"
	fi
fi
echo "peers-load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the end"
