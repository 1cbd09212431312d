#!/bin/sh
# Golden output, exit codes and --help of the profdb command-line tool.
# usage: test-tool.sh PROFDB MKSAMPLE WORKDIR GOLDEN_DIR [MKCUBE]
#
# Every subcommand runs on the writer's sample database (HPCToolkit 4.0,
# tests/writer/writer.h documents every value), on the writer's Cube sample
# (MKCUBE, when the build has the Cube reader) and on the hand-written
# Callgrind profile tests/tool-golden/sample.callgrind; stdout must equal
# tests/tool-golden/NAME.out byte for byte. After a deliberate change of the
# output, regenerate with PROFDB_UPDATE_GOLDEN=1 and review the diff.
# The real issue-233 database (when present) is checked for issue 3's counts.
set -u
profdb=$1 mksample=$2 work=$3 golden_dir=$4 mkcube=${5:-}
fails=0
LC_ALL=C
export LC_ALL
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() {   # check NAME EXPECTED_STATUS COMMAND... ; output in $work/out, $work/err
	name=$1 want=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, want $want"; cat "$work/err"
	fi
}
contains() {  # contains NAME TEXT: $work/out must contain TEXT
	grep -qF -- "$2" "$work/out" || { fail "$1: output lacks '$2'"; cat "$work/out"; }
}
err_contains() {
	grep -qF -- "$2" "$work/err" || { fail "$1: stderr lacks '$2'"; cat "$work/err"; }
}
golden() {  # golden NAME PROFDB-ARGS... : exit 0 and stdout == GOLDEN_DIR/NAME.out
	name=$1
	shift
	check "$name" 0 "$profdb" "$@"
	g="$golden_dir/$name.out"
	if [ -n "${PROFDB_UPDATE_GOLDEN:-}" ]; then
		cp "$work/out" "$g"
	elif [ ! -f "$g" ]; then
		fail "$name: no golden file $g"
	elif ! cmp -s "$g" "$work/out"; then
		fail "$name: output differs from $g"; diff -u "$g" "$work/out" | head -40
	fi
}

rm -rf "$work" && mkdir -p "$work"
db="$work/sample.db"
"$mksample" sample "$db" || { echo "FAIL: profdb-mksample"; exit 1; }
cg="$work/callgrind.out.4242"
cp "$golden_dir/sample.callgrind" "$cg"

# ---- golden output on the generated HPCToolkit 4.0 sample ----
golden info info "$db"
golden info-json info --json "$db"
contains info-json '"profiles": 3, "contexts": 14, "metrics": 5, "values": 95, "traces": 2, "samples": 6'
golden metrics metrics "$db"
golden metrics-json metrics --json "$db"
golden top top -n 3 "$db"
contains top "55.81%  compute"
golden top-all top -n 0 "$db"
golden top-inclusive top --inclusive "$db"
golden top-function top --by function "$db"
golden top-function-inclusive top --by function --inclusive "$db"
golden top-profile top --profile 2 "$db"
golden top-metric-id top -m 3 --inclusive --by context "$db"
golden tree tree "$db"
contains tree "<main thread>"
contains tree "[I] helper"
golden tree-depth tree --depth 1 "$db"
grep -q "loop at" "$work/out" && fail "tree-depth: shows depth 2"
golden tree-min-percent tree --min-percent 50 "$db"
golden tree-profile tree --profile 1 "$db"
golden tree-bottom-up tree --view bottom-up "$db"
golden tree-flat tree --view flat "$db"
golden value value --profile 0 --context 13 --metric 2 "$db"
golden value-thread value --profile 1 --context 13 --metric 2 "$db"
contains value-thread "2.25"
golden value-absent value --profile 1 --context 6 --metric 2 "$db"
contains value-absent "no value stored"
golden trace trace "$db"
contains trace "1700000000000006000"
golden trace-window trace --profile 1 --from 1700000000000002000 --to 1700000000000005000 "$db"
golden top-json top --json --by function --inclusive "$db"
golden tree-json tree --json --depth 3 "$db"
golden value-json value --json --profile 1 --context 13 --metric 2 "$db"
golden value-absent-json value --json --profile 1 --context 6 --metric 2 "$db"
golden trace-json trace --json "$db"
golden dump-json dump --json "$db"
golden dump-csv dump --csv "$db"
golden dump-csv-values dump --csv --table values "$db"

# Exact numbers: NaN prints its bits in text, CSV and JSON (profdb-mksample
# nan; tests/test-tool-json.py reads every one back bit for bit).
nandb="$work/nan.db"
if "$mksample" nan "$nandb"; then
	check nan-value 0 "$profdb" value --profile 1 --context 13 --metric 3 "$nandb"
	contains nan-value "nan(0x7ff800000000beef)"
	check nan-negative 0 "$profdb" value --profile 1 --context 13 --metric 4 "$nandb"
	contains nan-negative "nan(0xfff8000000000000)"
	check nan-csv 0 "$profdb" dump --csv --table values "$nandb"
	contains nan-csv "2,0,3,nan(0x7ff0000000000001)"
	contains nan-csv "2,13,4,-0"
	check nan-json 0 "$profdb" dump --json --table values "$nandb"
	contains nan-json '[1, 13, 3, "nan(0x7ff800000000beef)"]'
	contains nan-json '[2, 13, 3, "inf"]'
else
	fail "profdb-mksample nan"
fi

# Numbers do not depend on the locale.
for loc in C.UTF-8 de_DE.UTF-8 fr_FR.UTF-8; do
	LC_ALL=$loc "$profdb" tree "$db" >"$work/loc.out" 2>/dev/null
	cmp -s "$work/loc.out" "$golden_dir/tree.out" || fail "tree differs under LC_ALL=$loc"
	LC_ALL= LC_NUMERIC=$loc "$profdb" dump --json "$db" >"$work/loc.out" 2>/dev/null
	cmp -s "$work/loc.out" "$golden_dir/dump-json.out" || fail "dump differs under LC_NUMERIC=$loc"
done

# ---- golden output on the writer's Cube sample ----
cube="$work/sample.cubex"
if [ -z "$mkcube" ]; then
	echo "SKIP cube goldens: this build has no Cube reader"
elif ! "$mkcube" "$cube"; then
	fail "profdb-tool-mkcube"
elif "$profdb" info "$cube" >/dev/null 2>"$work/err"; then
	golden cube-info info "$cube"
	golden cube-info-json info --json "$cube"
	golden cube-metrics metrics "$cube"
	golden cube-top top "$cube"
	golden cube-top-function top --by function --inclusive -m time "$cube"
	golden cube-tree tree -m time "$cube"
	golden cube-tree-visits tree -m visits --profile 1 "$cube"
	golden cube-tree-json tree --json -m time "$cube"
	# mintime is MINDOUBLE: the minimum over locations, no percentages
	golden cube-top-min top -m mintime "$cube"
	contains cube-top-min "min over all profiles"
	check cube-top-min-json 0 "$profdb" top --json -m mintime "$cube"
	contains cube-top-min-json '"combine": "min"'
	contains cube-top-min-json '"percent": null'
	golden cube-value value --profile 0 --context 4 --metric time "$cube"
	golden cube-dump-json dump --json "$cube"
	golden cube-dump-csv dump --csv "$cube"
	check cube-trace 1 "$profdb" trace "$cube"
	err_contains cube-trace "no traces"
else
	echo "SKIP cube goldens: profdb cannot read $cube yet: $(cat "$work/err")"
fi

# ---- golden output on the hand-written Callgrind profile ----
if "$profdb" info "$cg" >/dev/null 2>"$work/err"; then
	golden cg-info info "$cg"
	golden cg-info-json info --json "$cg"
	golden cg-metrics metrics "$cg"
	golden cg-top top "$cg"
	golden cg-top-inclusive top --inclusive "$cg"
	golden cg-top-function top --by function --inclusive "$cg"
	golden cg-top-lines top --lines -n 5 "$cg"
	golden cg-tree tree "$cg"
	golden cg-tree-dr tree -m Dr "$cg"
	golden cg-tree-json tree --json "$cg"
	golden cg-tree-bottom-up tree --view bottom-up "$cg"
	golden cg-tree-flat tree --view flat "$cg"
	golden cg-dump-json dump --json "$cg"
	check cg-trace 1 "$profdb" trace "$cg"
	err_contains cg-trace "no traces"
else
	echo "SKIP callgrind goldens: profdb cannot read $cg yet: $(cat "$work/err")"
fi

# ---- exit codes: bad usage (2), bad input (1) ----
check no-args 2 "$profdb"
check unknown-command 2 "$profdb" frobnicate "$db"
check value-missing-option 2 "$profdb" value --profile 0 "$db"
check value-bad-number 2 "$profdb" value --profile x --context 1 --metric 1 "$db"
check bad-metric 2 "$profdb" top -m "no such metric" "$db"
err_contains bad-metric "no such metric"
check bad-profile 2 "$profdb" tree --profile 99 "$db"
check bad-by 2 "$profdb" top --by file "$db"
check bad-percent 2 "$profdb" tree --min-percent 1,5 "$db"
check bad-view 2 "$profdb" tree --view sideways "$db"
check dump-no-format 2 "$profdb" dump "$db"
check dump-both 2 "$profdb" dump --json --csv "$db"
check dump-bad-table 2 "$profdb" dump --csv --table nope "$db"
check two-paths 2 "$profdb" info "$db" "$db"
check missing-path 1 "$profdb" info "$work/nonexistent"
err_contains missing-path "nonexistent"
printf 'HPCTOOLKITmeta\004\000garbage' >"$work/bad.db"
check bad-file 1 "$profdb" info "$work/bad.db"
err_contains bad-file "bad.db"
check value-no-profile 1 "$profdb" value --profile 99 --context 1 --metric 2 "$db"
check version 0 "$profdb" --version
contains version "profdb "
check help 0 "$profdb" --help
contains help "dump"

# -h and --help on every subcommand: usage on stdout, exit 0; a bad option: 2.
for cmd in info metrics top tree value trace dump; do
	for h in -h --help; do
		check "$cmd $h" 0 "$profdb" "$cmd" "$h"
		contains "$cmd $h" "usage: profdb $cmd"
	done
	check "$cmd --bogus" 2 "$profdb" "$cmd" --bogus "$db"
	err_contains "$cmd --bogus" "usage: profdb $cmd"
done

# ---- the real issue-233 database (issue 3's normative counts) ----
data=${PROFDB_SAMPLE_DATA:-${PROFDB_SAMPLE_DATA_DEFAULT:-}}
i233="$data/hpctoolkit/v4/hpcviewer-issue-233"
if [ -d "$i233" ]; then
	check issue-233 0 "$profdb" info --json "$i233"
	contains issue-233 '"profiles": 136, "contexts": 7477, "metrics": 3, "values": 231963, "traces": 135, "samples": 106197'
	check issue-233-top 0 "$profdb" top -n 5 "$i233"
	contains issue-233-top "summary profile"
	check issue-233-tree 0 "$profdb" tree --depth 2 "$i233"
	contains issue-233-tree "inclusive       %      exclusive"
	check issue-233-trace 0 "$profdb" trace --profile 1 "$i233"
else
	echo "SKIP issue-233: no sample data at $i233"
fi

# ---- hpcrun units: hpcprof's scaled values by default, the counts with --raw ----
perf="$data/hpctoolkit/hpcrun/hpctoolkit-tests-loops-perf.m"
if [ -d "$perf" ]; then
	check hpcrun-scaled 0 "$profdb" top --json -m perf::task-clock "$perf"
	contains hpcrun-scaled '"scale": 100000000.0}'
	contains hpcrun-scaled '"total": 3600000000.0'
	check hpcrun-raw 0 "$profdb" top --json --raw -m perf::task-clock "$perf"
	contains hpcrun-raw '"total": 36.0'
	check hpcrun-note 0 "$profdb" top -m perf::task-clock "$perf"
	contains hpcrun-note "the sampling period"
	# the default metric has values (GPU counters no sample hit are skipped)
	# (metric 0, GINS:BLK_EXEC_CNT, has none)
	check hpcrun-default 0 "$profdb" top "$data/hpctoolkit/hpcrun/hpctoolkit-tests-loops-cuda-nvidiapc-t.m"
	contains hpcrun-default "metric: GINS (id 3, point)"
else
	echo "SKIP hpcrun units: no sample data at $perf"
fi

[ "$fails" -eq 0 ] && echo "all tool checks passed"
exit $((fails > 0))
