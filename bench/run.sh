#!/bin/sh
# bench/run.sh — build profdb in release mode and run the HPCToolkit 4.0
# benchmarks on (1) the real issue-233 database and (2) a synthetic database
# of at least 1 GiB. Results: one line per case on stdout, also saved to
# $BUILD/bench-results.txt. doc/PERFORMANCE.md explains every number.
#
#   bench/run.sh [--clean] [--no-real] [--no-synth] [--no-cold]
#
#   --clean     delete the synthetic database at the end (it is kept, and
#               reused by the next run with the same parameters, otherwise)
#   --no-real   skip issue-233;  --no-synth  skip the synthetic database
#   --no-cold   skip open_close_cold (it drops the files from the page cache)
#
# Environment (all optional):
#   PROFDB_SAMPLE_DATA         sample data root (default: ../shared/data next
#                              to the source tree)
#   PROFDB_BENCH_BUILDDIR      build directory (default: build-bench in the
#                              source tree)
#   PROFDB_BENCH_SYNTH_DIR     where the synthetic database goes (default:
#                              ${TMPDIR:-/tmp}/profdb-bench-synth-<params>)
#   PROFDB_BENCH_PROFILES, _CONTEXTS, _METRICS, _DENSITY, _SAMPLES
#                              synthetic parameters (default 2000 20000 4 0.1
#                              1000: profile.db + cct.db about 1.2 GB)
#   PROFDB_MKSAMPLE            path of profdb-mksample (default: the one the
#                              build produces from tests/writer)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${PROFDB_BENCH_BUILDDIR:-$src/build-bench}
data=${PROFDB_SAMPLE_DATA:-$src/../shared/data}
profiles=${PROFDB_BENCH_PROFILES:-2000}
contexts=${PROFDB_BENCH_CONTEXTS:-20000}
metrics=${PROFDB_BENCH_METRICS:-4}
density=${PROFDB_BENCH_DENSITY:-0.1}
samples=${PROFDB_BENCH_SAMPLES:-1000}
synth=${PROFDB_BENCH_SYNTH_DIR:-${TMPDIR:-/tmp}/profdb-bench-synth-$profiles-$contexts-$metrics-$density-$samples}

clean=0 real=1 do_synth=1 cold=
for arg in "$@"; do
	case $arg in
	--clean) clean=1 ;;
	--no-real) real=0 ;;
	--no-synth) do_synth=0 ;;
	--no-cold) cold=--no-cold ;;
	*) echo "usage: $0 [--clean] [--no-real] [--no-synth] [--no-cold]" >&2; exit 2 ;;
	esac
done

# (a) release build in its own directory. The Criterion tests are not
# needed; the test-data writer (profdb-mksample) is built regardless.
if [ ! -f "$build/build.ninja" ]; then
	meson setup --buildtype=release -Dtests=disabled "$build" "$src" >/dev/null
fi
meson compile -C "$build" bench-hpctk4 walk-all bench-stats >/dev/null

bench="$build/bench/bench-hpctk4"
walk="$build/bench/walk-all"
results="$build/bench-results.txt"
: >"$results"

say() {
	echo "$*" | tee -a "$results"
}

say "# machine: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), kernel $(uname -r)"
say "# compiler: $(cc --version | head -n 1); profdb $(git -C "$src" describe --always --dirty 2>/dev/null || echo '?')"
say "# build: $build (--buildtype=release)"

# (b) the real database
issue233="$data/hpctoolkit/v4/hpcviewer-issue-233"
if [ "$real" = 1 ]; then
	if [ -d "$issue233" ]; then
		say "# database: $issue233"
		# (d) walk_all_process: walk-all under /usr/bin/time -v, fresh process
		"$bench" $cold --walk-all "$walk" "$issue233" | tee -a "$results"
	else
		say "# skipped issue-233: $issue233 not found (set PROFDB_SAMPLE_DATA)"
	fi
fi

# (e) profdb diff of the 69 MB Callgrind profile against a copy (< 1.5 s)
bigcg="$data/callgrind/big/py_full_sc5.out.gz"
if [ "$real" = 1 ] && [ -f "$bigcg" ]; then
	meson compile -C "$build" profdb >/dev/null
	say "# profdb diff: $bigcg (unpacked) against a copy of itself"
	"$src/bench/diff.sh" "$build/tool/profdb" "$bigcg" 5 | tee -a "$results"
fi

# (c) the synthetic database
if [ "$do_synth" = 1 ]; then
	mk=${PROFDB_MKSAMPLE:-}
	if [ -z "$mk" ]; then
		if meson compile -C "$build" profdb-mksample >/dev/null 2>&1; then
			mk=$(find "$build" -type f -name profdb-mksample -perm -u+x | head -n 1)
		fi
	fi
	params="$profiles $contexts $metrics $density $samples"
	if [ -f "$synth/.params" ] && [ "$(cat "$synth/.params")" = "$params" ]; then
		say "# synthetic database reused: $synth ($params)"
	elif [ -z "$mk" ] || [ ! -x "$mk" ]; then
		say "# skipped synthetic database: profdb-mksample is not built (tests/writer)"
		do_synth=0
	else
		rm -rf "$synth" "$synth.tmp"
		say "# generating synthetic database: profdb-mksample synth $synth $params"
		start=$(date +%s)
		"$mk" synth "$synth.tmp" $params
		echo "$params" >"$synth.tmp/.params"
		mv "$synth.tmp" "$synth"
		say "# generated in $(( $(date +%s) - start )) s"
	fi
	if [ "$do_synth" = 1 ]; then
		size() { stat -c %s "$synth/$1" 2>/dev/null || echo 0; }
		values=$(( $(size profile.db) + $(size cct.db) ))
		say "# database: $synth: profiles=$profiles contexts=$contexts metrics=$metrics" \
		    "density=$density samples=$samples; meta.db=$(size meta.db) profile.db=$(size profile.db)" \
		    "cct.db=$(size cct.db) trace.db=$(size trace.db) bytes"
		if [ "$values" -lt 1073741824 ]; then
			say "# warning: profile.db + cct.db = $values bytes, below 1 GiB"
		fi
		"$bench" $cold --walk-all "$walk" "$synth" | tee -a "$results"
		# statistics over every profile, 1 and 2 threads, 3 runs each
		"$build/bench/bench-stats" --threads 1,2 --reps 3 "$synth" | tee -a "$results"
		if [ "$clean" = 1 ]; then
			rm -rf "$synth"
			say "# deleted $synth"
		else
			say "# kept $synth for the next run (bench/run.sh --clean deletes it)"
		fi
	fi
fi
echo "# results saved to $results" >&2
