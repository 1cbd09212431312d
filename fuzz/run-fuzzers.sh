#!/usr/bin/env bash
# Build the libFuzzer targets with clang + ASan/UBSan and run each of them
# from a scratch copy of its seed corpus.
#
# usage: fuzz/run-fuzzers.sh SECONDS_PER_TARGET [TARGET...]
#        fuzz/run-fuzzers.sh --total SECONDS [TARGET...]
#        fuzz/run-fuzzers.sh --build-only [TARGET...]
#
# --build-only configures and builds as a run does, then stops (CI builds
# the targets ahead, while other tests run).
# Without TARGETs, every <target>-fuzzer the build defines is run. With
# --total, SECONDS is the fuzzing time of the whole run, shared equally by
# the targets (times FUZZ_JOBS, which run at once), at least 10 s each, so
# CI's budget does not grow with the number of targets. Each target uses
# fuzz/<target>.dict if it exists, else the dictionary of its format:
# fuzz/<format>.dict for fuzz-<format>-* (hpctk, cube, callgrind, ...).
#
# Environment:
#   BUILD_DIR    build directory (default: build-fuzz in the source tree)
#   WORK_DIR     scratch corpora, logs and crash artifacts
#                (default: $BUILD_DIR/fuzz-work; wiped per run)
#   FUZZ_JOBS    number of fuzzers run at the same time (default 1)
#   FUZZ_ARGS    extra libFuzzer arguments
#
# Exit status: 0 when no fuzzer found anything, 1 on any finding (crash,
# leak, timeout, OOM, sanitizer report) or if a fuzzer could not run, 2 on
# a usage or build error. Crash inputs are left in
# $WORK_DIR/artifacts/<target>/; copy each one to
# fuzz/regressions/<target>/crash-<sha1> once it is fixed.
set -u -o pipefail

usage() {
	sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}
[ $# -ge 1 ] || usage
TOTAL=
BUILD_ONLY=
if [ "$1" = --build-only ]; then
	BUILD_ONLY=1
	SECONDS_PER_TARGET=
	shift
elif [ "$1" = --total ]; then
	[ $# -ge 2 ] || usage
	TOTAL=$2
	shift 2
	case $TOTAL in
		''|*[!0-9]*) usage ;;
	esac
	SECONDS_PER_TARGET=
else
	case $1 in
		''|*[!0-9]*) usage ;;
	esac
	SECONDS_PER_TARGET=$1
	shift
fi

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$SRC/build-fuzz}
WORK_DIR=${WORK_DIR:-$BUILD_DIR/fuzz-work}
FUZZ_JOBS=${FUZZ_JOBS:-1}
TARGETS=${*:-}

# ---- build -------------------------------------------------------------------
if ! command -v clang >/dev/null; then
	echo "run-fuzzers: clang is required (libFuzzer)" >&2
	exit 2
fi
mkdir -p "$BUILD_DIR"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
	# b_lundef=false: clang does not link the sanitizer runtimes into
	# shared libraries, so -Wl,--no-undefined would fail on libprofdb.so.
	CC=clang meson setup "$BUILD_DIR" "$SRC" \
		-Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dtests=disabled >"$BUILD_DIR/fuzz-setup.log" 2>&1 || {
		cat "$BUILD_DIR/fuzz-setup.log" >&2
		echo "run-fuzzers: meson setup failed" >&2
		exit 2
	}
else
	# An existing directory: make sure it is a clang fuzzing build.
	meson configure "$BUILD_DIR" -Dfuzzing=true -Db_sanitize=address,undefined \
		-Db_lundef=false >"$BUILD_DIR/fuzz-setup.log" 2>&1 || {
		cat "$BUILD_DIR/fuzz-setup.log" >&2
		echo "run-fuzzers: $BUILD_DIR cannot be configured for fuzzing (not a clang build?)" >&2
		exit 2
	}
fi
if [ -z "$TARGETS" ]; then
	# Every <target>-fuzzer this configuration defines (formats whose
	# dependencies are missing define none).
	TARGETS=$(meson introspect --targets "$BUILD_DIR" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    if t["type"] == "executable" and t["name"].endswith("-fuzzer"):
        print(t["name"][:-len("-fuzzer")])' | sort)
	if [ -z "$TARGETS" ]; then
		echo "run-fuzzers: no fuzz targets in $BUILD_DIR" >&2
		exit 2
	fi
fi
if [ -n "$TOTAL" ]; then
	n_targets=$(echo $TARGETS | wc -w)
	SECONDS_PER_TARGET=$((TOTAL * FUZZ_JOBS / n_targets))
	[ "$SECONDS_PER_TARGET" -ge 10 ] || SECONDS_PER_TARGET=10
	echo "run-fuzzers: $n_targets targets, ${SECONDS_PER_TARGET}s each (--total $TOTAL, FUZZ_JOBS=$FUZZ_JOBS)"
fi
build_targets=()
for t in $TARGETS; do
	build_targets+=("fuzz/$t-fuzzer")
done
meson compile -C "$BUILD_DIR" "${build_targets[@]}" >"$BUILD_DIR/fuzz-build.log" 2>&1 || {
	tail -50 "$BUILD_DIR/fuzz-build.log" >&2
	echo "run-fuzzers: build failed" >&2
	exit 2
}
[ -z "$BUILD_ONLY" ] || exit 0

# ---- run ---------------------------------------------------------------------
rm -rf "$WORK_DIR"
mkdir -p "$WORK_DIR"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}

run_one() {
	local t=$1
	local corpus=$WORK_DIR/corpus/$t art=$WORK_DIR/artifacts/$t/ log=$WORK_DIR/$t.log
	mkdir -p "$corpus" "$art"
	cp -r "$SRC/fuzz/corpus/$t/." "$corpus/" 2>/dev/null || true
	rm -f "$corpus/.gitkeep" "$corpus"/README*
	local seeds=()
	if [ -d "$SRC/fuzz/regressions/$t" ]; then
		seeds+=("$SRC/fuzz/regressions/$t")
	fi
	# The target's own dictionary, else the one of its format: the longest
	# fuzz/<prefix>.dict where fuzz-<prefix>-... is the target's name.
	local dict=() name=${t#fuzz-}
	while [ -n "$name" ]; do
		if [ -f "$SRC/fuzz/$name.dict" ]; then
			dict=(-dict="$SRC/fuzz/$name.dict")
			break
		fi
		[ "${name%-*}" = "$name" ] && break
		name=${name%-*}
	done
	# shellcheck disable=SC2086
	"$BUILD_DIR/fuzz/$t-fuzzer" \
		-max_total_time="$SECONDS_PER_TARGET" -timeout=2 -rss_limit_mb=2048 \
		"${dict[@]}" -print_final_stats=1 \
		-artifact_prefix="$art" ${FUZZ_ARGS:-} \
		"$corpus" "${seeds[@]}" >"$log" 2>&1
	echo $? >"$WORK_DIR/$t.status"
}

running=0
for t in $TARGETS; do
	echo "run-fuzzers: $t for ${SECONDS_PER_TARGET}s"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$FUZZ_JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

# ---- report ------------------------------------------------------------------
failed=0
printf '\n%-20s %6s %10s %10s %8s %8s %7s  %s\n' target status execs exec/s cov ft corpus result
for t in $TARGETS; do
	log=$WORK_DIR/$t.log
	status=$(cat "$WORK_DIR/$t.status" 2>/dev/null || echo '?')
	# The last status line, e.g. "#123 DONE cov: 456 ft: 789 corp: 10/2Kb ... exec/s: 1000 rss: ..."
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
	findings=$(find "$WORK_DIR/artifacts/$t" -type f 2>/dev/null | wc -l)
	result=ok
	if [ "$status" != 0 ] || [ "$findings" -gt 0 ]; then
		result="FINDING ($findings artifact(s), see $log)"
		failed=1
	fi
	printf '%-20s %6s %10s %10s %8s %8s %7s  %s\n' "$t" "$status" "${execs:-?}" "${eps:-?}" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
if [ "$failed" -ne 0 ]; then
	echo
	for t in $TARGETS; do
		for a in "$WORK_DIR/artifacts/$t"/*; do
			[ -f "$a" ] || continue
			echo "== $t: $a"
			grep -E 'ERROR|invariant violated|SUMMARY|runtime error' "$WORK_DIR/$t.log" | head -5
		done
	done
	exit 1
fi
exit 0
