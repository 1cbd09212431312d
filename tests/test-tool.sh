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
# The real issue-233 database (when present) is checked for its normative counts.
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
contains top "55.81%   7  compute"
golden top-all top -n 0 "$db"
golden top-inclusive top --inclusive "$db"
golden top-function top --by function "$db"
golden top-function-inclusive top --by function --inclusive "$db"
golden top-profile top --profile 2 "$db"
golden top-metric-id top -m 3 --inclusive --by context "$db"

# ---- functions of one name in two modules or files: namesakes ----
# A function is (module, file, folded name): `top` ranks each one alone
# and names the rows that share a name "name (file) [module]"; the
# percentages still add up to 100 % at most. HPCToolkit: the tree walk;
# Callgrind: the function table, and the walk (--focus 0) alike.
percents_at_most_100() {   # percents_at_most_100 NAME: the JSON rows of $work/out
	sum=$(grep -o '"percent": [0-9.e+-]*' "$work/out" | awk '{s += $2} END {printf "%.9f", s}')
	awk -v s="$sum" 'BEGIN {exit !(s > 0 && s <= 100.000000001)}' ||
		fail "$1: the percentages add up to $sum"
}
ns="$work/namesakes.db"
"$mksample" namesakes "$ns" || fail "profdb-mksample namesakes"
golden top-namesakes top -n 0 "$ns"
contains top-namesakes "9  memcpy (util.h)"
contains top-namesakes "14  memcpy [libc.so.6]"
golden top-namesakes-json top --json -n 0 "$ns"
percents_at_most_100 top-namesakes-json
golden top-namesakes-inclusive top --inclusive -n 0 "$ns"
check top-namesakes-match 0 "$profdb" top -n 0 --match '^memcpy$' "$ns"
contains top-namesakes-match "memcpy (util.h)"
contains top-namesakes-match "memcpy [libc.so.6]"
nsc="$work/callgrind.out.4545"
cp "$golden_dir/namesakes.callgrind" "$nsc"
golden cg-top-namesakes top -n 0 "$nsc"
contains cg-top-namesakes "300   33.08%   2  strlen (strlen-sse2.S) [ld-linux-x86-64.so.2]"
contains cg-top-namesakes "207   22.82%   5  strlen (strlen.c) [libc.so.6]"
contains cg-top-namesakes "40    4.41%   3  strlen (ifunc-avx2.h) [libc.so.6]"
golden cg-top-namesakes-json top --json -n 0 "$nsc"
percents_at_most_100 cg-top-namesakes-json
check cg-top-namesakes-walk 0 "$profdb" top --json -n 0 --focus 0 "$nsc"
cmp -s "$work/out" "$golden_dir/cg-top-namesakes-json.out" ||
	fail "cg-top-namesakes-walk: the walk ranks otherwise than the function table"
golden cg-top-namesakes-inclusive top --inclusive -n 0 "$nsc"
# -n picks rows, not names: the form of a name is decided over every row
check cg-top-namesakes-n1 0 "$profdb" top -n 1 "$nsc"
contains cg-top-namesakes-n1 "strlen (strlen-sse2.S) [ld-linux-x86-64.so.2]"

# names that still print alike after " (file) [module]": one name in two
# files of the same base name, and two names that differ in a control
# byte (a tab and an ESC, both printed as '?'); each row then names its
# first context
alike="$work/alike.callgrind"
printf '%b' '# callgrind format\nevents: Ir\nob=/usr/bin/prog\nfl=/src/a.php\n' \
	'fn=g\tx\n1 10\nfn=g\033x\n2 4\n' \
	'fl=/a/x.c\nfn=f\n3 6\nfl=/b/x.c\nfn=f\n4 2\n' >"$alike"
check top-alike 0 "$profdb" top -n 0 "$alike"
[ -z "$(sed -n 's/^ *[0-9,]* *[0-9.]*% *[0-9]*  //p' "$work/out" | sort | uniq -d)" ] ||
	fail "top-alike: two rows print alike"
contains top-alike "g?x (a.php) [prog] #1"
contains top-alike "g?x (a.php) [prog] #2"
contains top-alike "f (x.c) [prog] #3"
contains top-alike "f (x.c) [prog] #4"
check top-alike-json 0 "$profdb" top -n 0 --json "$alike"
contains top-alike-json '"name": "g\tx (a.php) [prog] #1"'
contains top-alike-json '"name": "g\u001bx (a.php) [prog] #2"'

# ---- names with control bytes ----
# A name is every byte of it: a NUL (Xdebug's anonymous classes,
# "class@anonymous\0/src/x.php:3$0"), a tab, an ESC, in fn=, fl= and ob=
# names. Text shows each name whole with '?' for each control byte; JSON
# carries the bytes. Two anonymous classes differ after the NUL, so they
# print apart without more.
ctl="$work/control.callgrind"
printf '%b' '# callgrind format\nevents: Ir\nob=/usr/lib/a\0b\tc.so\nfl=/src/x\0y\033.php\n' \
	'fn=class@anonymous\0/src/x.php:3$0\n1 10\ncfn=k\0\tl\033m\ncalls=1 2\n2 5\n' \
	'fn=k\0\tl\033m\n2 5\nfn=class@anonymous\0/src/x.php:9$1\n3 1\n' >"$ctl"
check control-top 0 "$profdb" top "$ctl"
contains control-top "10   62.50%   1  class@anonymous?/src/x.php:3\$0"
contains control-top "5   31.25%   2  k??l?m"
contains control-top "1    6.25%   3  class@anonymous?/src/x.php:9\$1"
grep -q '#[0-9]' "$work/out" && fail "control-top: names that print apart told apart again"
check control-top-json 0 "$profdb" top --json "$ctl"
contains control-top-json '"name": "class@anonymous\u0000/src/x.php:3$0"'
contains control-top-json '"name": "k\u0000\tl\u001bm"'
check control-tree 0 "$profdb" tree "$ctl"
contains control-tree "  class@anonymous?/src/x.php:3\$0"
contains control-tree "    k??l?m"
check control-tree-json 0 "$profdb" tree --json "$ctl"
contains control-tree-json '"name": "class@anonymous\u0000/src/x.php:3$0"'
contains control-tree-json '"name": "k\u0000\tl\u001bm"'
check control-callers 0 "$profdb" callers '#2' "$ctl"
contains control-callers "callers of k??l?m (x?y?.php) [a?b?c.so] (context 2)"
contains control-callers "  class@anonymous?/src/x.php:3\$0 (x?y?.php) [a?b?c.so]"
check control-callers-json 0 "$profdb" callers --json '#2' "$ctl"
where='"file": "/src/x\u0000y\u001b.php", "module": "/usr/lib/a\u0000b\tc.so"'
contains control-callers-json "{\"name\": \"k\\u0000\\tl\\u001bm\", $where"
contains control-callers-json "{\"name\": \"class@anonymous\\u0000/src/x.php:3\$0\", $where"
for cmd in top 'top --by context' 'top --by line' tree bottom-up flat 'callers #2' \
		'callers --sites #2' 'callees #1' stats info "diff $ctl"; do
	# shellcheck disable=SC2086
	"$profdb" $cmd "$ctl" >"$work/out" 2>/dev/null || fail "control: $cmd fails"
	[ "$(tr -d '\n' <"$work/out" | tr -dc '\000-\037\177' | wc -c)" -eq 0 ] ||
		fail "control: $cmd prints a control byte"
done

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
golden value-absent value --profile 1 --context 16 --metric 2 "$db"
contains value-absent "no value stored"
golden trace trace "$db"
contains trace "trace start: 1700000000000001000 ns"
contains trace "0.000005000         13  sample+0x1248 in compute"
golden trace-window trace --profile 1 --absolute --from 1700000000000002000 --to 1700000000000005000 "$db"
golden top-json top --json --by function --inclusive "$db"
golden tree-json tree --json --depth 3 "$db"
golden value-json value --json --profile 1 --context 13 --metric 2 "$db"
golden value-absent-json value --json --profile 1 --context 16 --metric 2 "$db"
# -p, -c, -m are value's short forms; --json has none, in any command
check value-short 0 "$profdb" value -p 1 -c 13 -m 2 "$db"
cmp -s "$work/out" "$golden_dir/value-thread.out" || fail "value-short: not value-thread's output"
for cmd in info trace value; do
	check "$cmd-no-j" 2 "$profdb" "$cmd" -j "$db"
	err_contains "$cmd-no-j" "invalid option -- 'j'"
done
golden trace-json trace --json "$db"
golden dump-json dump --json "$db"
golden dump-csv dump --csv "$db"
golden dump-csv-values dump --csv --table values "$db"

# ---- views as commands, several metrics, profiles, filters ----
golden bottom-up bottom-up "$db"
golden flat flat "$db"
golden top-metrics-all top -m all "$db"
contains top-metrics-all "metric: cycles (id 3, inclusive)"
golden top-metrics-list top -m "CPUTIME (sec),cycles" --inclusive "$db"
# every context row kept (-n 0), each with a value per metric
golden top-context-metrics-all top --by context -m all -n 0 --inclusive "$db"
golden top-by-file top --by file "$db"
golden top-by-module top --by module "$db"
golden top-by-loop top --by loop --inclusive "$db"
golden top-profiles top --profiles 1-2 "$db"
contains top-profiles "sum over 2 profiles (--profiles 1-2)"
# the selection is named whole, however long, in text and JSON
sel=1-2
for _ in $(seq 199); do sel="$sel,1-2"; done
check top-profiles-long 0 "$profdb" top --profiles "$sel" "$db"
contains top-profiles-long "sum over 2 profiles (--profiles $sel)"
check top-profiles-long-json 0 "$profdb" top --json --profiles "$sel" "$db"
contains top-profiles-long-json "\"combined\": \"sum over 2 profiles (--profiles $sel)\""
golden top-stat top --stat max "$db"
contains top-stat "max over 2 profiles"
golden top-match top --match '^(c|h)' "$db"
golden top-exclude top --exclude 'main|helper' "$db"
golden top-focus top --focus 7 --by context "$db"
golden top-min-percent top --min-percent 10 "$db"
golden top-json-all top --json -m all "$db"
golden bottom-up-plain bottom-up -m all --plain "$db"
contains bottom-up-plain "6144"
golden bottom-up-all bottom-up -m all "$db"
contains bottom-up-all "6,144"
golden tree-n tree -n 3 "$db"
contains tree-n "nodes hidden (past 3 lines)"
# The note names the line limit only when it hid nodes: a screenful whose
# 1% cut leaves a few lines, and an -n above what --depth leaves.
awk 'BEGIN {
	printf "events: Ir\nfn=main\n1 1\ncfn=big\ncalls=1 1\n1 100000\n"
	for (i = 0; i < 200; i++) printf "cfn=small%d\ncalls=1 1\n1 500\n", i
	printf "fn=big\n1 100000\n"
	for (i = 0; i < 200; i++) printf "fn=small%d\n1 500\n", i
}' >"$work/wide.callgrind"
check tree-screen-cut 0 "$profdb" tree "$work/wide.callgrind"
contains tree-screen-cut "note: 200 nodes hidden (below 1%); --min-percent 0 -n 0 shows all"
check tree-n-uncut 0 "$profdb" tree -n 1000 --depth 0 "$work/wide.callgrind"
contains tree-n-uncut "note: 202 nodes hidden (deeper than 0)"
golden tree-match tree --match helper "$db"
golden tree-exclude tree --exclude compute "$db"
golden tree-focus tree --focus 7 "$db"
golden tree-profiles tree --profiles 1,2 "$db"
golden tree-json-all tree --json -m all --depth 2 "$db"
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
	contains cube-top-min "min over 3 profiles"
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
	golden cg-info-values info --values "$cg"
	golden cg-metrics metrics "$cg"
	golden cg-top top "$cg"
	golden cg-top-inclusive top --inclusive "$cg"
	golden cg-top-function top --by function --inclusive "$cg"
	golden cg-top-lines top --lines -n 5 "$cg"
	# Rows keep their names from the walk (a line's file and number, an
	# instruction's module and offset): each name must stay with its
	# values when a row of the best N gives its place to a better one (the
	# rows come in ascending cost here, so every one does), and every row
	# printed must read as the best N do.
	for pos in "instr line" line; do
		f="$work/rows-$(echo "$pos" | tr ' ' -).callgrind"
		{
			printf 'positions: %s\nevents: Ir\nob=libx.so\nfl=a.c\n' "$pos"
			for fn in 1 2 3 4; do
				printf 'fn=f%d\n' "$fn"
				for i in 1 2 3 4 5 6 7 8 9 10; do
					[ "$pos" = line ] || printf '0x%x ' $((fn * 256 + i * 4))
					printf '%d %d\n' $((fn * 100 + i)) $((fn * 10 + i))
				done
			done
		} >"$f"
		check "top-lines-3 $pos" 0 "$profdb" top --lines -n 3 "$f"
		if [ "$pos" = line ]; then
			contains "top-lines-3 $pos" "    50    4.10%  44  a.c:410"
			contains "top-lines-3 $pos" "    48    3.93%  42  a.c:408"
		else
			contains "top-lines-3 $pos" "    50    4.10%  44  libx.so+0x428"
			contains "top-lines-3 $pos" "    48    3.93%  42  libx.so+0x420"
		fi
		tail -n +3 "$work/out" >"$work/best3"
		check "top-lines-all $pos" 0 "$profdb" top --lines -n 0 "$f"
		contains "top-lines-all $pos" "all lines by exclusive Ir"
		[ "$(wc -l <"$work/out")" -eq 43 ] || fail "top-lines-all $pos: $(wc -l <"$work/out") lines"
		tail -n +3 "$work/out" | head -n 4 | cmp -s - "$work/best3" ||
			fail "top-lines-all $pos: the best rows differ from top -n 3's"
		# a count far above the rows: the best-N heap takes room as rows come
		tail -n +2 "$work/out" >"$work/all"
		check "top-lines-huge-n $pos" 0 "$profdb" top --lines -n 4611686018427387904 "$f"
		tail -n +2 "$work/out" | cmp -s - "$work/all" ||
			fail "top-lines-huge-n $pos: the rows differ from top -n 0's"
	done
	# Every row kept (-n 0, --min-percent) reads as the best N do, with
	# several metrics, two files, and lines and offsets past 32 bits.
	for pos in "instr line" line; do
		f="$work/big-$(echo "$pos" | tr ' ' -).callgrind"
		{
			printf 'positions: %s\nevents: Ir Dr\nob=libx.so\nfl=a.c\nfn=f1\n' "$pos"
			for i in 1 2 3 4 5 6; do
				[ "$pos" = line ] || printf '0x%x ' $((0x100000000 * (i % 3) + i * 4))
				printf '%d %d %d\n' $((4294967296 * (i % 2) + i)) $((i * 10)) $((7 - i))
			done
			printf 'fl=b.c\nfn=f2\n'
			for i in 1 2 3 4 5 6; do
				[ "$pos" = line ] || printf '0x%x ' $((0x200 + i * 4))
				printf '%d %d %d\n' "$i" $((i * 10 + 5)) "$i"
			done
		} >"$f"
		check "top-lines-best $pos" 0 "$profdb" top --lines -m all -n 100 "$f"
		tail -n +4 "$work/out" >"$work/best"
		[ "$(wc -l <"$work/best")" -eq 13 ] || fail "top-lines-best $pos: $(wc -l <"$work/best") lines"
		for opt in "-n 0" "--min-percent 0"; do
			# shellcheck disable=SC2086 # the option and its value
			check "top-lines-kept $pos $opt" 0 "$profdb" top --lines -m all $opt "$f"
			tail -n +4 "$work/out" | cmp -s - "$work/best" ||
				fail "top-lines-kept $pos $opt: the rows differ from top -n 100's"
		done
		if [ "$pos" = line ]; then
			contains "top-lines-kept $pos" "    50   11.11%       2   8  a.c:4294967301"
			contains "top-lines-kept $pos" "    65   14.44%       6  14  b.c:6"
		else
			contains "top-lines-kept $pos" "    50   11.11%       2   8  libx.so+0x200000014"
			contains "top-lines-kept $pos" "    10    2.22%       6   6  libx.so+0x100000004"
		fi
	done
	# The "???:0" rows are hidden by line; the note counts those that the
	# rows shown would hold with --unknown-lines (???:0 60, a.c:3 50, a.c:7
	# 30, a.c:4 10, ???:0 5 of a total of 155).
	f="$work/unknown.callgrind"
	printf 'events: Ir\nob=libx.so\nfl=a.c\nfn=f1\n3 50\n4 10\nfl=???\nfn=f2\n0 60\nfl=a.c\nfn=f3\n7 30\nfi=???\n0 5\n' >"$f"
	one="note: 1 line with no file and line 0 ('???:0') would rank here, hidden (--unknown-lines shows it)"
	check top-unknown-2 0 "$profdb" top --lines -n 2 "$f"
	contains top-unknown-2 "$one"
	contains top-unknown-2 "    30   19.35%   8  a.c:7"
	check top-unknown-1 0 "$profdb" top --lines -n 1 "$f"
	contains top-unknown-1 "$one"
	check top-unknown-all 0 "$profdb" top --lines -n 0 "$f"
	contains top-unknown-all "note: 2 lines with no file and line 0 ('???:0') would rank here"
	check top-unknown-cut 0 "$profdb" top --lines -n 0 --min-percent 10 "$f"
	contains top-unknown-cut "$one"
	check top-unknown-excluded 0 "$profdb" top --lines -n 2 --exclude '[?]' "$f"
	grep -q "note:" "$work/out" && fail "top-unknown-excluded: a note on rows --exclude drops"
	check top-unknown-shown 0 "$profdb" top --lines -n 2 --unknown-lines "$f"
	contains top-unknown-shown "    60   38.71%   6  ???:0"
	grep -q "note:" "$work/out" && fail "top-unknown-shown: a note with --unknown-lines"
	golden cg-tree tree "$cg"
	golden cg-tree-dr tree -m Dr "$cg"
	golden cg-tree-json tree --json "$cg"
	golden cg-tree-bottom-up tree --view bottom-up "$cg"
	golden cg-tree-flat tree --view flat "$cg"
	golden cg-top-by-file top --by file "$cg"
	golden cg-top-all top -m all "$cg"
	golden cg-bottom-up-all bottom-up -m Ir,Dr "$cg"
	golden cg-tree-focus tree --focus 2 "$cg"
	golden cg-dump-json dump --json "$cg"
	check cg-trace 1 "$profdb" trace "$cg"
	err_contains cg-trace "no traces"
else
	echo "SKIP callgrind goldens: profdb cannot read $cg yet: $(cat "$work/err")"
fi

# convert -o - writes to standard output, as convert without -o does (and
# no file named "-"); --separate needs a real prefix
check convert-stdout 0 "$profdb" convert -t folded "$cg"
cp "$work/out" "$work/folded.stdout"
abs=$(cd "$(dirname "$profdb")" && pwd)/$(basename "$profdb")
(cd "$work" && "$abs" convert -t folded -o - "$cg") >"$work/out" 2>"$work/err" ||
	fail "convert -o -: exit $?"
cmp -s "$work/out" "$work/folded.stdout" || fail "convert -o -: other bytes than without -o"
[ ! -e "$work/-" ] || fail "convert -o -: wrote a file named '-'"
check convert-separate-dash 2 "$profdb" convert -t callgrind --separate -o - "$cg"
err_contains convert-separate-dash "--separate needs -o PREFIX"

# -o over an existing file: the output replaces it whole, through a
# temporary file whose writeback starts as it is written (4 MiB at a
# time: a profile of 100 000 functions writes about 7 MiB), with the
# file's mode kept
awk 'BEGIN { print "events: Ir"; for (i = 0; i < 100000; i++) {
	print "fl=f" i % 97 ".c"; print "fn=a_function_with_a_longer_name_number_" i; print i % 1000 " " i * 7 } }' \
	>"$work/wide.out"
check convert-wide-stdout 0 "$profdb" convert -t callgrind "$work/wide.out"
cp "$work/out" "$work/wide.stdout"
[ "$(wc -c <"$work/wide.stdout")" -gt 4194304 ] || fail "convert-wide: the output is under 4 MiB"
echo old >"$work/wide.cg"
chmod 640 "$work/wide.cg"
for i in 1 2; do
	"$profdb" convert -t callgrind -o "$work/wide.cg" "$work/wide.out" 2>"$work/err" ||
		fail "convert -o over an existing file ($i): exit $?"
	cmp -s "$work/wide.cg" "$work/wide.stdout" ||
		fail "convert -o over an existing file ($i): other bytes than to standard output"
done
[ "$(ls -l "$work/wide.cg" | cut -c1-10)" = "-rw-r-----" ] || fail "convert -o over an existing file: mode changed"
[ -z "$(find "$work" -name '.wide.cg.*')" ] || fail "convert -o: a temporary file was left"
rm -f "$work/wide.out" "$work/wide.stdout" "$work/wide.cg"

# ---- profdb diff: a Callgrind pair and two profiles of the sample ----
# Relative paths (the header names the inputs) keep the goldens the same
# in every build directory.
if "$profdb" info "$cg" >/dev/null 2>&1; then
	cp "$golden_dir/sample-b.callgrind" "$work/callgrind.out.4343"
	here=$(pwd) profdb_given=$profdb
	case $profdb in /*) ;; *) profdb="$here/$profdb" ;; esac
	cd "$work" || exit 1
	golden cg-diff diff callgrind.out.4242 callgrind.out.4343
	contains cg-diff "- main > work > helper"
	contains cg-diff "+ main > fresh"
	golden cg-diff-inclusive diff --inclusive -n 3 callgrind.out.4242 callgrind.out.4343
	golden cg-diff-dr diff -m Dr:Dr --json callgrind.out.4242 callgrind.out.4343
	golden cg-diff-csv diff --csv callgrind.out.4242 callgrind.out.4343
	golden diff-profiles diff --profiles 1:2 -n 0 sample.db sample.db
	# one row per change: main's loop, line and call site carry main's
	# exclusive change again and are not ranked
	[ "$(grep -c -- ' -0.5 ' "$work/out")" = 2 ] || fail "diff-profiles: main's change listed twice"
	grep -q -- '-0.5 .*loop at sample.c:12$' "$work/out" && fail "diff-profiles: a loop ranked"
	golden diff-self diff -n 3 sample.db sample.db
	contains diff-self "15 in both, 0 only in A (-), 0 only in B (+)"
	check diff-bad-metric 2 "$profdb" diff -m nope callgrind.out.4242 callgrind.out.4343
	err_contains diff-bad-metric "'nope' names no metric of both"
	check diff-cross-metric 2 "$profdb" diff sample.db callgrind.out.4242
	err_contains diff-cross-metric "name both with -m A:B"
	# A's default metric is found in B by every byte of its name: a NUL in
	# it is no end (B's "Ir" is not A's "Ir\0x"), and the message shows the
	# name with '?' for each control byte
	printf '%b' '# callgrind format\nevents: Ir\0x\033y\nfn=main\n1 10\n' >nul-metric.cg
	printf '%b' '# callgrind format\nevents: Ir\033y\nfn=main\n1 10\n' >esc-metric.cg
	check diff-nul-metric 2 "$profdb" diff nul-metric.cg callgrind.out.4242
	err_contains diff-nul-metric "no metric named 'Ir?x?y' (the default metric of nul-metric.cg)"
	check diff-esc-metric 2 "$profdb" diff esc-metric.cg callgrind.out.4242
	err_contains diff-esc-metric "no metric named 'Ir?y' (the default metric of esc-metric.cg)"
	[ "$(tr -d '\n' <"$work/err" | tr -dc '\000-\037\177' | wc -c)" -eq 0 ] ||
		fail "diff-esc-metric: the message holds a control byte"
	check diff-bad-n 2 "$profdb" diff -n abc callgrind.out.4242 callgrind.out.4343
	err_contains diff-bad-n "profdb: -n: 'abc' is not"
	check diff-bad-profiles 2 "$profdb" diff --profiles 0-9 sample.db sample.db
	err_contains diff-bad-profiles "--profiles"
	# a long SA of SA:SB (profile 1 with 4 200 leading zeros) is A's alone
	long_sa=$(printf '%04200d' 1)
	check diff-long-profiles 0 "$profdb" diff --profiles "$long_sa:2" -n 0 sample.db sample.db
	tail -n +2 "$work/out" >"$work/long-sa"
	tail -n +2 "$golden_dir/diff-profiles.out" >"$work/short-sa"
	cmp -s "$work/long-sa" "$work/short-sa" ||
		fail "diff-long-profiles: not the ranking of --profiles 1:2"
	check diff-one-path 2 "$profdb" diff callgrind.out.4242
	check diff-bogus 2 "$profdb" diff --bogus callgrind.out.4242 callgrind.out.4343
	err_contains diff-bogus "profdb: diff: unrecognized option '--bogus'"
	check diff-help 0 "$profdb" diff --help
	contains diff-help "usage: profdb diff"
	cd "$here" || exit 1
	profdb=$profdb_given
fi
# ---- callers, callees, profiles and trace times ----
golden callers callers compute "$db"
contains callers "main (sample.c) [sample]"
golden callees callees main "$db"
golden callees-root callees '#1' "$db"
contains callees-root "callees of <main thread> (context 1)"
# #ID of a line or instruction: a section named by its label; its
# callees are the calls made at it (edges whose site it is), its callers
# the edges that end at it (none: a call site is not called)
golden callees-line callees '#8' "$db"
contains callees-line "callees of sample.c:32 (sample.c) (context 8): inclusive 0.5 (9.30%), exclusive 0"
contains callees-line "    -            0.5    9.30%   9  helper (util.h)"
golden callees-line-json callees --json '#8' "$db"
contains callees-line-json '{"name": "sample.c:32", "file": "/src/sample.c", "module": "", "contexts": [8]'
contains callees-line-json '{"name": "helper", "file": "src/util.h", "module": "", "contexts": [9]'
check callers-line 0 "$profdb" callers '#8' "$db"
contains callers-line "callers of sample.c:32 (sample.c) (context 8)"
contains callers-line "  (no callers recorded)"
check callers-line-json 0 "$profdb" callers --json '#8' "$db"
contains callers-line-json '"contexts": [8], "inclusive": 0.5, "exclusive": 0.0'
contains callers-line-json '"rows": [], "more": 0}'
check callees-instruction 0 "$profdb" callees '#5' "$db"
contains callees-instruction "callees of sample+0x1158 [sample] (context 5): inclusive 5.25"
contains callees-instruction "   7  compute (sample.c) [sample]"
golden callers-sites callers --sites helper "$db"
contains callers-sites "at sample.c:32"
golden callers-json callers --json compute "$db"
golden callers-profile callers --profile 1 compute "$db"
golden callers-profiles callers --profiles thread=1 compute "$db"
check callers-stat 2 "$profdb" callers --stat sum compute "$db"
err_contains callers-stat "--stat does not apply to call edges"
check info-check 0 "$profdb" info --check "$db"
contains info-check "profiles:"
golden profiles profiles "$db"
golden profiles-csv profiles --csv --values "$db"
golden profiles-json profiles --json --values "$db"
golden profiles-select profiles --profiles thread=1 "$db"
contains profiles-select "node 0 thread 1"
grep -q "thread 0" "$work/out" && fail "profiles-select: lists thread 0"
golden trace-relative-window trace --from 1us --to 4us "$db"
contains trace-relative-window "0.000003000"
golden trace-absolute trace --absolute "$db"
golden trace-n trace -n 2 --from 1.5us "$db"
check trace-units 0 "$profdb" trace --from 0.0000015s --to 0.004ms "$db"
cmp -s "$work/out" "$golden_dir/trace-n.out" || fail "trace: 0.0000015s/0.004ms differ from 1.5us/-n 2"
if "$profdb" info "$cg" >/dev/null 2>&1; then
	golden cg-callers callers work "$cg"
	contains cg-callers "    3     360   77.42%   1  main (sample.c)"
	golden cg-callees callees main "$cg"
	golden cg-callees-dr callees -m Dr -n 1 main "$cg"
	contains cg-callees-dr "1 more"
	golden cg-callers-json callers --json helper "$cg"
	golden cg-callees-metrics callees -m all main "$cg"
	contains cg-callees-metrics "    3     360   77.42%      70   2  work (sample.c)"
	golden cg-callees-exclude callees --exclude '^wo' main "$cg"
	grep -q "work" "$work/out" && fail "cg-callees-exclude: lists work"
	golden cg-callees-min-percent callees --min-percent 50 main "$cg"
	contains cg-callees-min-percent "1 more below 50%"
	golden cg-profiles profiles "$cg"
	# a profile without calls: no edges at all (lib/analysis/edges.c sorted
	# a NULL array then)
	printf '# callgrind format\nversion: 1\nevents: Ir\nfl=a.c\nfn=lonely\n1 5\n' \
		>"$work/callgrind.out.nocalls"
	check cg-no-calls 0 "$profdb" callees --sites lonely "$work/callgrind.out.nocalls"
	contains cg-no-calls "(no callees recorded)"
	# #ID of a line where a call is made: its own cost (the call is its
	# function's) and the call; the line contexts are there with --sites only
	printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n5 10\ncfn=f\ncalls=2 20\n5 30\nfn=f\n20 30\n' \
		>"$work/callgrind.out.site"
	check cg-callees-line 0 "$profdb" callees --sites '#3' "$work/callgrind.out.site"
	contains cg-callees-line "callees of a.c:5 (a.c) (context 3): inclusive 10 (25.00%), exclusive 10"
	contains cg-callees-line "    2      30   75.00%   2  f (a.c) at a.c:5"
	check cg-callees-line-json 0 "$profdb" callees --sites --json '#3' "$work/callgrind.out.site"
	contains cg-callees-line-json '{"name": "a.c:5", "file": "a.c", "module": "", "contexts": [3]'
	contains cg-callees-line-json '"site": {"context": 3, "label": "a.c:5"}, "calls": 2'
	check cg-callers-line 0 "$profdb" callers --sites '#3' "$work/callgrind.out.site"
	contains cg-callers-line "  (no callers recorded)"
	check cg-line-no-sites 2 "$profdb" callees '#3' "$work/callgrind.out.site"
	err_contains cg-line-no-sites "no context 3 in the tree (a line or instruction context: --sites reads those)"
	check cg-no-such-context 2 "$profdb" callees '#99' "$work/callgrind.out.site"
	err_contains cg-no-such-context "no context 99 in the tree"
	if grep -q "instruction context" "$work/err"; then fail "cg-no-such-context: a hint for no context"; fi
fi
if [ -n "$mkcube" ] && [ -f "$cube" ]; then
	golden cube-callees callees -m time main "$cube"
	contains cube-callees "  603   127.5   50.00%   0  foo (a.c)"
	golden cube-callers callers -m time bar "$cube"
	golden cube-profiles profiles --json "$cube"
fi
check callers-no-context 2 "$profdb" callers '#99999' "$db"
err_contains callers-no-context "no context 99999 in the tree"
if grep -q "instruction context" "$work/err"; then fail "callers-no-context: a hint for no context"; fi
check callers-unknown 2 "$profdb" callers nosuch "$db"
err_contains callers-unknown "no function named 'nosuch'"
check callers-suggest 2 "$profdb" callers comp "$db"
err_contains callers-suggest "compute"
check callers-no-context 2 "$profdb" callers '#999' "$db"
err_contains callers-no-context "no context 999"
check callers-bad-id 2 "$profdb" callers '#x' "$db"
err_contains callers-bad-id "profdb: FUNCTION: '#x' is not a name or #CONTEXT_ID"
check callers-bad-n 2 "$profdb" callers -n abc main "$db"
err_contains callers-bad-n "profdb: -n: 'abc' is not a non-negative"
grep -q "usage:" "$work/err" && fail "callers-bad-n: prints the usage"
check callers-no-function 2 "$profdb" callees "$db"
check callers-bad-profile 2 "$profdb" callers --profile 9 main "$db"
check profiles-bad-select 2 "$profdb" profiles --profiles rank=1 "$db"
err_contains profiles-bad-select "profdb: --profiles:"
check profiles-both 2 "$profdb" profiles --json --csv "$db"
check trace-fraction-no-unit 2 "$profdb" trace --from 1.5 "$db"
err_contains trace-fraction-no-unit "profdb: --from: '1.5' is not a time"
check trace-bad-unit 2 "$profdb" trace --to 3min "$db"
err_contains trace-bad-unit "profdb: --to: '3min'"
check trace-sub-ns 2 "$profdb" trace --from 0.5ns "$db"
check trace-overflow 2 "$profdb" trace --from 18446744073709551616 "$db"
check trace-bad-n 2 "$profdb" trace -n -1 "$db"
for cmd in callers callees profiles; do
	for h in -h --help; do
		check "$cmd $h" 0 "$profdb" "$cmd" "$h"
		contains "$cmd $h" "usage: profdb"
	done
	check "$cmd --bogus" 2 "$profdb" "$cmd" --bogus x "$db"
	err_contains "$cmd --bogus" "profdb: $cmd: unrecognized option '--bogus'"
done

# ---- exit codes: bad usage (2), bad input (1) ----
check no-args 2 "$profdb"
check unknown-command 2 "$profdb" frobnicate "$db"
err_contains unknown-command "profdb: unknown command 'frobnicate'"
check unknown-global-option 2 "$profdb" --bogus
err_contains unknown-global-option "profdb: unrecognized option '--bogus'"
check bad-metric 2 "$profdb" top -m "no such metric" "$db"
err_contains bad-metric "no such metric"
check bad-profile 2 "$profdb" tree --profile 99 "$db"
check bad-by 2 "$profdb" top --by sideways "$db"
err_contains bad-by "profdb: --by: 'sideways' is not"
check bad-percent 2 "$profdb" tree --min-percent 1,5 "$db"
check bad-view 2 "$profdb" tree --view sideways "$db"
check two-paths 2 "$profdb" info "$db" "$db"
check missing-path 1 "$profdb" info "$work/nonexistent"
err_contains missing-path "nonexistent"
printf 'HPCTOOLKITmeta\004\000garbage' >"$work/bad.db"
check bad-file 1 "$profdb" info "$work/bad.db"
err_contains bad-file "bad.db"
check version 0 "$profdb" --version
contains version "profdb "
check help 0 "$profdb" --help
contains help "dump"
contains help "--version"
contains help "--color"
check help-command 0 "$profdb" help value
contains help-command "usage: profdb value"
check commands 0 "$profdb" --commands
contains commands "stats"

# ---- option errors name the option; combinations that mean nothing ----
check top-bad-stat 2 "$profdb" top --stat median "$db"
err_contains top-bad-stat "profdb: --stat: 'median' is not"
check top-stat-function 2 "$profdb" top --stat mean --by function "$db"
err_contains top-stat-function "--stat ranks contexts"
check top-file-inclusive 2 "$profdb" top --by file --inclusive "$db"
check top-bad-regex 2 "$profdb" top --match '(' "$db"
err_contains top-bad-regex "profdb: --match: '(' is not a regular expression"
check top-bad-focus 2 "$profdb" top --focus 999999 "$db"
err_contains top-bad-focus "--focus: no context 999999"
check top-bad-profiles 2 "$profdb" top --profiles 2-1 "$db"
err_contains top-bad-profiles "profdb: --profiles:"
check top-profile-profiles 2 "$profdb" top --profile 1 --profiles 1 "$db"
check tree-stat 2 "$profdb" tree --stat mean "$db"
check tree-bad-n 2 "$profdb" tree -n abc "$db"
err_contains tree-bad-n "profdb: -n: 'abc' is not"
check tree-bad-depth 2 "$profdb" tree --depth -1 "$db"
err_contains tree-bad-depth "profdb: --depth: '-1' is not"
check bottom-up-view 2 "$profdb" bottom-up --view flat "$db"
err_contains bottom-up-view "profdb: bottom-up: unrecognized option '--view'"
check top-unknown-option 2 "$profdb" top --bogus "$db"
err_contains top-unknown-option "profdb: top: unrecognized option '--bogus'"
check tree-missing-value 2 "$profdb" tree "$db" --depth
err_contains tree-missing-value "profdb: tree: option '--depth' requires an argument"
# a database whose metrics have no non-zero value: one line, exit 1
printf 'events: Ir\nfn=main\n1 0\n' >"$work/zero.callgrind"
check no-values 1 "$profdb" top "$work/zero.callgrind"
err_contains no-values "no metric has a non-zero value"
# long names are shortened to fit 100 columns; --wide prints them whole
long="std::vector<std::pair<std::basic_string<char>, int>, std::allocator<std::pair<std::basic_string<char>, int> > >::_M_realloc_insert<std::pair<std::basic_string<char>, int> >(iterator, std::pair<std::basic_string<char>, int>&&)"
printf 'events: Ir\nfl=a.cc\nfn=%s\n1 100\n' "$long" >"$work/long.callgrind"
check long-name 0 "$profdb" top "$work/long.callgrind"
contains long-name "std::vector<...>::_M_realloc_insert<...>("
awk 'length($0) > 100 { exit 1 }' "$work/out" || fail "long-name: a line over 100 columns"
check long-name-wide 0 "$profdb" top --wide "$work/long.callgrind"
contains long-name-wide "$long"
# a name of more than 4 KiB is shortened from the whole of it: its
# template list elided, its parameters kept
awk 'BEGIN { printf "events: Ir\nfl=a.cc\nfn=ns::holder<"; for (i = 0; i < 4500; i++) printf "x";
             printf ">::run(int)\n1 100\n" }' >"$work/long5k.callgrind"
check long-name-5k 0 "$profdb" top "$work/long5k.callgrind"
contains long-name-5k "ns::holder<...>::run(int)"
# eliding short lists lengthens a name ("a<b>" becomes "a<...>") before
# its middle gives way
awk 'BEGIN { printf "events: Ir\nfl=a.cc\nfn=f<a<b>"; for (i = 0; i < 300; i++) printf ", a<b>";
             printf ">::run(int)\n1 100\n" }' >"$work/grow.callgrind"
check long-name-grows 0 "$profdb" top "$work/grow.callgrind"
contains long-name-grows "f<...>::run(int)"

# Usage errors name the problem in one line, exit 2, never print the usage
# text (errors() checks both): bad option values name option and value;
# getopt's messages carry the "profdb: CMD: " prefix.
errors() {  # errors NAME MESSAGE PROFDB-ARGS...
	name=$1 msg=$2
	shift 2
	check "$name" 2 "$profdb" "$@"
	err_contains "$name" "$msg"
	grep -q "usage:" "$work/err" && fail "$name: stderr has the usage text"
	[ "$(wc -l <"$work/err")" -eq 1 ] || { fail "$name: not one line"; cat "$work/err"; }
	[ -s "$work/out" ] && fail "$name: wrote to stdout"
	:
}
errors value-bad-number "profdb: --profile: 'x' is not a non-negative 32-bit integer" \
	value --profile x --context 1 --metric 1 "$db"
errors value-negative "profdb: --context: '-1' is not a non-negative 32-bit integer" \
	value --profile 0 --context -1 --metric 1 "$db"
errors value-missing-option "profdb: value: missing --context" value --profile 0 --metric 2 "$db"
errors value-missing-metric "profdb: value: missing --metric" value --profile 0 --context 1 "$db"
errors value-no-profile "no profile 99 (the database has 3 profiles: 0 to 2)" \
	value --profile 99 --context 1 --metric 2 "$db"
errors value-profile-5 "no profile 5" value --profile 5 --context 13 --metric 2 "$db"
errors value-no-context "no context 999999 (neither a tree node nor an id with stored values)" \
	value --profile 0 --context 999999 --metric 2 "$db"
# id 6 is unused in the sample: no node, no values; 11 is elided (values, no node)
errors value-unused-context "no context 6" value --profile 0 --context 6 --metric 2 "$db"
check value-elided-context 0 "$profdb" value --profile 1 --context 11 --metric 0 "$db"
contains value-elided-context "0.5"
errors value-no-metric "no metric named or numbered 'nope'" \
	value --profile 0 --context 13 --metric nope "$db"
errors value-unknown-option "profdb: value: unrecognized option '--bogus'" \
	value --bogus --profile 0 --context 13 --metric 2 "$db"
errors dump-no-format "profdb: dump: --json or --csv is required" dump "$db"
errors dump-both "profdb: dump: --json and --csv exclude each other" dump --json --csv "$db"
errors dump-bad-table \
	"profdb: --table: 'nonsense' is not one of metrics, contexts, profiles, values, traces, edges" \
	dump --csv --table nonsense "$db"
errors dump-table-missing "profdb: dump: option '--table' requires an argument" dump --csv --table
errors dump-no-path "profdb: dump: no PATH given" dump --csv
errors info-two-paths "profdb: info: unexpected argument" info "$db" "$db"
errors info-short "profdb: info: invalid option -- 'x'" info -x "$db"
errors info-json-arg "profdb: info: option '--json' doesn't allow an argument" info --json=yes "$db"
errors metrics-unknown "profdb: metrics: unrecognized option '--x'" metrics --x "$db"
errors stats-threads "profdb: --threads: 'many' is not a non-negative 32-bit integer" \
	stats --threads many "$db"
errors stats-json-csv "profdb: stats: --json and --csv exclude each other" stats --json --csv "$db"
errors stats-check-m "profdb: stats: --check-summary takes no -m" stats --check-summary -m 2 "$db"
errors stats-metric "no metric named or numbered 'nope'" stats -m nope "$db"
errors stats-profiles "profdb: stats: --profiles: profile selection" stats --profiles rank=x "$db"
errors stats-m-missing "profdb: stats: option requires an argument -- 'm'" stats "$db" -m
errors color-bad "profdb: --color: 'sometimes' is not one of auto, always, never" \
	--color=sometimes info "$db"

# The context check holds on every format (Cube, Callgrind as well).
for input in "$work/sample.cubex" "$cg"; do
	[ -f "$input" ] || continue
	"$profdb" info "$input" >/dev/null 2>&1 || continue
	errors "value-no-context $(basename "$input")" "no context 999999" \
		value --profile 0 --context 999999 --metric 0 "$input"
	errors "value-no-profile $(basename "$input")" "no profile 5" \
		value --profile 5 --context 0 --metric 0 "$input"
done

# -h and --help on every subcommand: usage on stdout, exit 0; a bad option: 2
# (each message with the profdb: prefix, as tool_getopt() prints it).
for cmd in $("$profdb" --commands); do
	for h in -h --help; do
		check "$cmd $h" 0 "$profdb" "$cmd" "$h"
		contains "$cmd $h" "usage: profdb $cmd"
	done
	check "$cmd --bogus" 2 "$profdb" "$cmd" --bogus "$db"
done
# Every command words its usage errors as getopt does (tool_getopt()).
for cmd in $("$profdb" --commands); do
	errors "$cmd --bogus" "profdb: $cmd: unrecognized option '--bogus'" "$cmd" --bogus "$db"
	errors "$cmd -Z" "profdb: $cmd: invalid option -- 'Z'" "$cmd" -Z "$db"
done
errors top-ambiguous "profdb: top: option '--pro' is ambiguous" top --pro 1 "$db"
errors info-check-callgrind "profdb: info: --check reads HPCToolkit databases only" \
	info --check "$work/wide.callgrind"
errors trace-missing-value "profdb: trace: option '--from' requires an argument" trace "$db" --from

# Colour: never into a pipe or file unless asked; --color=always colours the
# table headers, anywhere on the command line; NO_COLOR turns it off even
# against --color=always, and never/auto print none.
esc=$(printf '\033')
check color-auto 0 "$profdb" metrics "$db"
grep -q "$esc" "$work/out" && fail "color-auto: escape sequences into a file"
check color-always 0 "$profdb" metrics --color=always "$db"
grep -q "$esc\[1m" "$work/out" || fail "color-always: no bold header"
check color-always-first 0 "$profdb" --color metrics "$db"
grep -q "$esc\[1m" "$work/out" || fail "color-always-first: no bold header"
check color-never 0 "$profdb" metrics --color=always --color=never "$db"
grep -q "$esc" "$work/out" && fail "color-never: escape sequences"
check color-json 0 "$profdb" metrics --json --color=always "$db"
grep -q "$esc" "$work/out" && fail "color-json: escape sequences in JSON"
NO_COLOR=1 check color-no-color 0 "$profdb" metrics "$db"
grep -q "$esc" "$work/out" && fail "color-no-color: escape sequences"
NO_COLOR=1 check color-no-color-always 0 "$profdb" metrics --color=always "$db"
grep -q "$esc" "$work/out" && fail "color-no-color-always: escape sequences despite NO_COLOR"

# A plain Callgrind file cut at a line boundary opens (exit 0) with a warning
# naming the file and both numbers (doc/FORMATS.md, "summary: and totals:").
ls_out="${PROFDB_SAMPLE_DATA:-${PROFDB_SAMPLE_DATA_DEFAULT:-}}/callgrind/valgrind/01_default_ls.out"
if [ -f "$ls_out" ]; then
	head -n 3000 "$ls_out" >"$work/cut.out"
	check cg-cut 0 "$profdb" info "$work/cut.out"
	err_contains cg-cut "profdb: warning: $work/cut.out: profile 0: no totals: line"
	err_contains cg-cut "summary: of event Ir is 19220155 but the self costs add up to 1387337"
	check cg-whole 0 "$profdb" info "$ls_out"
	[ -s "$work/err" ] && fail "cg-whole: warns: $(cat "$work/err")"
else
	echo "SKIP cg-cut: no sample data at $ls_out"
fi

# ---- the real issue-233 database (its normative counts) ----
data=${PROFDB_SAMPLE_DATA:-${PROFDB_SAMPLE_DATA_DEFAULT:-}}
i233="$data/hpctoolkit/v4/hpcviewer-issue-233"
if [ -d "$i233" ]; then
	check issue-233 0 "$profdb" info --json "$i233"
	contains issue-233 '"profiles": 136, "contexts": 7477, "metrics": 3, "values": 231963, "traces": 135, "samples": 106197'
	check issue-233-top 0 "$profdb" top -n 5 "$i233"
	contains issue-233-top "summary profile"
	check issue-233-tree 0 "$profdb" tree --depth 2 "$i233"
	contains issue-233-tree "inclusive        %  exclusive        %"
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
	# the default metric is time with values (GPU counters no sample hit,
	# such as metric 0, GINS:BLK_EXEC_CNT, are skipped; time comes before
	# the first counter with values, GINS)
	check hpcrun-default 0 "$profdb" top "$data/hpctoolkit/hpcrun/hpctoolkit-tests-loops-cuda-nvidiapc-t.m"
	contains hpcrun-default "metric: GPUOP (sec) (id 30, point)"
else
	echo "SKIP hpcrun units: no sample data at $perf"
fi

[ "$fails" -eq 0 ] && echo "all tool checks passed"
exit $((fails > 0))
