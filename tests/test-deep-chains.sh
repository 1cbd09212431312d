#!/bin/sh
# Deep call chains (tests/writer/chain.c) of every format through every
# command and converter: each must finish with the right answer (no crash,
# no stack overflow, no error). Not timed: bench/deep-chains.sh measures;
# what is checked instead is the size of what grows with the square of the
# depth when a view expands more than it shows.
#   test-deep-chains.sh PROFDB PROFDB-MKCHAIN WORKDIR [DEPTH]
# The bottom-up view shows the callers of the functions with a self cost:
# with cost at the leaf only, 2 x DEPTH nodes; with cost at every frame,
# DEPTH^2/2 by definition, so that shape runs on a chain of DEPTH/50 frames.
set -u
profdb=$1 mkchain=$2 work=$3
depth=${4:-10000}
small=$((depth / 50))
fail=0
mkdir -p "$work" || exit 1

bad() {
	echo "FAIL: $fmt $shape: $*"
	fail=1
}

# ok NAME ARGS...: profdb ARGS must exit 0; its output is in $work/out
ok() {
	name=$1
	shift
	if ! "$profdb" "$@" >"$work/out" 2>"$work/err"; then
		bad "$name exited $? ($(head -c 300 "$work/err"))"
		return 1
	fi
}

input() {  # input FORMAT SHAPE DEPTH: the path of a fresh chain
	case $1 in
	hpctk4|pre) p=$work/$1-$2-$3 ;;
	hpcrun) p=$work/$1-$2-$3.hpcrun ;;
	cube) p=$work/$1-$2-$3.cubex ;;
	callgrind) p=$work/callgrind.out.$2-$3 ;;
	esac
	rm -rf "$p"
	"$mkchain" "$1" "$3" "$2" "$p" || { echo "FAIL: profdb-mkchain $1 $3 $2"; exit 1; }
	echo "$p"
}

for fmt in hpctk4 pre hpcrun cube callgrind; do
	leaf=f$((depth - 1)) caller=f0 callee=f1 of_callee=f1 of_caller=f0 up=f0
	if [ "$fmt" = hpcrun ]; then
		# no names: module + offset, frame k is context k+2; the caller of
		# a call is the nearest function above it, here the root
		leaf=chain+0x$(printf '%x' $((0x1000 + 16 * (depth - 1))))
		caller=chain+0x1000 callee=chain+0x1010 of_callee='#3' of_caller='#2'
		up='<primary root>'
	fi
	# Callgrind's views fold what is below 0.1 % of the total into <other>
	# (doc/model.md), a few frames of the cost-at-every-frame chain
	most=$((depth - depth / 500))
	for shape in leaf every; do
		in=$(input "$fmt" "$shape" "$depth") || exit 1
		# top: with self cost at the leaf only, the leaf is the one function
		if ok top top -n 1 "$in" && [ "$shape" = leaf ] &&
		   ! tail -n 1 "$work/out" | grep -q " $leaf\$"; then
			bad "top does not name $leaf: $(tail -n 1 "$work/out")"
		fi
		ok tree tree "$in" && { grep -q " $caller\$" "$work/out" || bad "tree has no $caller"; }
		ok tree-all tree --min-percent 0 -n 0 --plain "$in" &&
			{ n=$(grep -c . "$work/out"); [ "$n" -gt "$most" ] || bad "tree --all: $n lines"; }
		ok flat flat "$in"
		ok callers callers "$of_callee" "$in" &&
			{ grep -qF "$up" "$work/out" || bad "callers of $callee miss $up"; }
		ok callees callees "$of_caller" "$in" &&
			{ grep -q "$callee" "$work/out" || bad "callees of $caller miss $callee"; }
		for t in metrics contexts profiles values traces; do
			ok "dump $t" dump --csv --table "$t" "$in"
		done
		# one edge per call (the hpcrun root calls frame 0 too), each listed
		# once with its cost over all profiles (empty profile column)
		if ok "dump edges" dump --csv --table edges "$in"; then
			n=$(awk -F, 'NR > 1 && $5 == "" { n++ } END { print n + 0 }' "$work/out")
			[ "$n" -ge $((depth - 1)) ] && [ "$n" -le "$depth" ] || bad "$n edges"
		fi
		ok "dump json" dump --json "$in"
		ok stats stats "$in"
		# folded: one stack per frame with self cost; leaf: the one whole
		if ok folded convert -t folded "$in"; then
			n=$(grep -c . "$work/out")
			if [ "$shape" = every ]; then
				[ "$n" -le "$depth" ] && [ "$n" -ge "$most" ] || bad "folded: $n stacks"
			else
				[ "$n" -eq 1 ] && grep -q "$caller;.*;$leaf 1\$" "$work/out" ||
					bad "folded: not the one whole stack"
			fi
		fi
		for to in speedscope callgrind pprof svg; do
			ok "convert $to" convert -t "$to" -o "$work/conv" "$in" &&
				{ [ -s "$work/conv" ] || bad "convert $to: empty"; }
		done
		# Chrome traces need traces, which the chains do not have
		"$profdb" convert -t chrome "$in" >/dev/null 2>"$work/err" &&
			bad "convert chrome: no traces, yet exit 0"
		grep -q trace "$work/err" || bad "convert chrome: $(cat "$work/err")"
		# bottom-up, every node: leaf: node 0, each function, the leaf's
		# callers (hpcrun: each frame's caller chain ends at its root too);
		# every: each function with its whole caller chain, n(n+1)/2 + 1
		n=$depth
		[ "$shape" = every ] && { in=$(input "$fmt" "$shape" "$small") || exit 1; n=$small; }
		if ok bottom-up bottom-up --min-percent 0 -n 0 --plain "$in"; then
			lines=$(grep -c . "$work/out")
			if [ "$shape" = leaf ]; then lo=$((2 * n)) hi=$((2 * n + 8))
			else lo=$((n * (n + 1) / 2)) hi=$((n * (n + 1) / 2 + n + 8)); fi
			[ "$lines" -ge "$lo" ] && [ "$lines" -le "$hi" ] ||
				bad "bottom-up of $n frames: $lines lines, not $lo to $hi"
		fi
	done
done
[ "$fail" = 0 ] && echo "deep chains of $depth frames: every format, every command"
exit "$fail"
