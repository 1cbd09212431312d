#!/bin/sh
# Smoke and golden checks of the profdb command-line tool.
# usage: test-tool.sh PROFDB MKSAMPLE WORKDIR
set -u
profdb=$1 mksample=$2 work=$3
fails=0
check() {   # check NAME EXPECTED_STATUS COMMAND... ; output in $work/out
	name=$1 want=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, want $want"; cat "$work/err"; fails=$((fails + 1))
	fi
}
contains() {  # contains NAME TEXT: $work/out must contain TEXT
	grep -qF -- "$2" "$work/out" || { echo "FAIL $1: output lacks '$2'"; cat "$work/out"; fails=$((fails + 1)); }
}

rm -rf "$work" && mkdir -p "$work"
db="$work/sample.db"
"$mksample" sample "$db" || { echo "FAIL: profdb-mksample"; exit 1; }

check info 0 "$profdb" info "$db"
contains info "contexts:  14"
check info-json 0 "$profdb" info --json "$db"
contains info-json '"schema": "profdb-info/1"'
contains info-json '"profiles": 3, "contexts": 14, "metrics": 5, "values": 95, "traces": 2, "samples": 6'
check metrics 0 "$profdb" metrics "$db"
contains metrics "cycles"
check top 0 "$profdb" top -n 3 "$db"
contains top "55.81%  compute"
check top-function 0 "$profdb" top --by function --inclusive "$db"
contains top-function "main"
check tree 0 "$profdb" tree "$db"
contains tree "<program root>"
contains tree "[I] helper"
check tree-depth 0 "$profdb" tree --depth 1 "$db"
grep -q " main$" "$work/out" && { echo "FAIL tree-depth: shows depth 2"; fails=$((fails + 1)); }
check value 0 "$profdb" value --profile 0 --context 13 --metric 2 "$db"
contains value "3.25"
check value-absent 0 "$profdb" value --profile 1 --context 6 --metric 2 "$db"
contains value-absent "no value stored"
check trace 0 "$profdb" trace --profile 1 "$db"
contains trace "1700000000000006000"

# bad usage (2) and bad input (1)
check no-args 2 "$profdb"
check unknown-command 2 "$profdb" frobnicate "$db"
check value-missing-option 2 "$profdb" value --profile 0 "$db"
check bad-metric 2 "$profdb" top -m "no such metric" "$db"
check missing-path 1 "$profdb" info "$work/nonexistent"
printf 'HPCTOOLKITmeta\004\000garbage' >"$work/bad.db"
check bad-file 1 "$profdb" info "$work/bad.db"
grep -q "bad.db" "$work/err" || { echo "FAIL bad-file: message does not name the file"; fails=$((fails + 1)); }
check help 0 "$profdb" top --help

# Real sample (issue 3's normative counts), when present.
data=${PROFDB_SAMPLE_DATA:-${PROFDB_SAMPLE_DATA_DEFAULT:-}}
i233="$data/hpctoolkit/v4/hpcviewer-issue-233"
if [ -d "$i233" ]; then
	check issue-233 0 "$profdb" info --json "$i233"
	contains issue-233 '"profiles": 136, "contexts": 7477, "metrics": 3, "values": 231963, "traces": 135, "samples": 106197'
else
	echo "SKIP issue-233: no sample data at $i233"
fi

[ "$fails" -eq 0 ] && echo "all tool checks passed"
exit $((fails > 0))
