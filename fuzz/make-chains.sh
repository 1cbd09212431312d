#!/bin/sh
# Deep call chains as fuzz inputs: profdb-mkchain (tests/writer/chain.c)
# writes a chain of DEPTH frames (default 100 000) of every format, with self
# cost at the leaf only and at every frame, into OUT/<target>/ for the
# single-file targets (fuzz-callgrind, fuzz-cube, fuzz-hpcrun, and
# fuzz-hpctk-meta/-profile/-cct with the 4.0 database's files, and
# fuzz-hpctkpre-xml with the pre-release experiment.xml). Run a target
# on them with `fuzz-<target> --strict OUT/<target>` (standalone) or give the
# directory to the libFuzzer binary as a seed corpus. Too big to commit.
#   make-chains.sh PROFDB-MKCHAIN OUT [DEPTH]
#   (meson compile -C BUILD fuzz-chains writes BUILD/fuzz/chains)
set -eu
mkchain=$1 out=$2 depth=${3:-100000}
mkdir -p "$out/fuzz-callgrind" "$out/fuzz-cube" "$out/fuzz-hpcrun" \
	"$out/fuzz-hpctk-meta" "$out/fuzz-hpctk-profile" "$out/fuzz-hpctk-cct" \
	"$out/fuzz-hpctkpre-xml" "$out/tmp"
for shape in leaf every; do
	"$mkchain" callgrind "$depth" "$shape" "$out/fuzz-callgrind/chain-$shape-$depth"
	"$mkchain" cube "$depth" "$shape" "$out/fuzz-cube/chain-$shape-$depth"
	"$mkchain" hpcrun "$depth" "$shape" "$out/fuzz-hpcrun/chain-$shape-$depth"
	rm -rf "$out/tmp/db"
	"$mkchain" hpctk4 "$depth" "$shape" "$out/tmp/db"
	for f in meta profile cct; do
		mv "$out/tmp/db/$f.db" "$out/fuzz-hpctk-$f/chain-$shape-$depth"
	done
	rm -rf "$out/tmp/pre"
	"$mkchain" pre "$depth" "$shape" "$out/tmp/pre"
	mv "$out/tmp/pre/experiment.xml" "$out/fuzz-hpctkpre-xml/chain-$shape-$depth"
done
rm -rf "$out/tmp"
