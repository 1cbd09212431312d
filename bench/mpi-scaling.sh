#!/bin/sh
# Strong and weak scaling of profdb-mpi (doc/SCALING.md). Never a test.
#   bench/mpi-scaling.sh BUILD_DIR WORK_DIR [all|ensemble]
# Makes the 1.37 GB synthetic database of doc/PERFORMANCE.md and an
# ensemble of 100 databases (one seed each) in WORK_DIR, prints one line per
# case: "mpi-scaling: case=... ranks=N seconds=S min=M cpu_seconds=C" (S:
# the wall time inside the program after MPI_Init, launcher start-up
# excluded, median of 3, M their minimum; C: the CPU time of all ranks in
# that time, summed, median of 3), and deletes WORK_DIR at the end.
#   ensemble             only the ensemble cases (no 1.37 GB database)
#   PROFDB_MPI=TOOL      time another profdb-mpi (an older build, say)
#   KEEP_WORK=1          keep WORK_DIR (the inputs) for the next series
set -eu
build=$1 work=$2 cases=${3:-all}
mk=$build/tests/writer/profdb-mksample
tool=${PROFDB_MPI:-$build/mpi/profdb-mpi}
launch="mpirun"
if mpirun --version 2>&1 | grep -q 'Open MPI'; then
	launch="mpirun --oversubscribe"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mkdir -p "$work"
[ "$cases" = ensemble ] || [ -d "$work/big" ] || "$mk" synth "$work/big" 2000 20000 4 0.1 1000 >/dev/null
i=1
while [ $i -le 100 ]; do
	[ -d "$work/run$i" ] || "$mk" synth "$work/run$i" 16 2000 4 0.3 10 "$i" >/dev/null
	echo "$work/run$i"
	i=$((i + 1))
done >"$work/list"
head -n 25 "$work/list" >"$work/list25"
head -n 50 "$work/list" >"$work/list50"

# median (and min) of 3 runs of: mpirun -n N profdb-mpi stats --time ARGS;
# each run's line of --time is "... seconds=S cpu_seconds=C"
run() {
	n=$1 name=$2
	shift 2
	for k in 1 2 3; do
		$launch -n "$n" "$tool" stats --time --threads 1 "$@" 2>&1 >/dev/null |
			sed -n 's/.* seconds=\([^ ]*\) cpu_seconds=\([^ ]*\).*/\1 \2/p'
	done | awk -v c="$name" -v n="$n" '
		{ w[NR] = $1; u[NR] = $2 }
		function median(a,   i, j, t) {   # of 3
			for (i = 1; i <= 3; i++) for (j = i + 1; j <= 3; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return a[2]
		}
		END {
			if (NR != 3) { print "mpi-scaling: case=" c " ranks=" n " FAILED"; exit 1 }
			m = median(w); lo = w[1]; cpu = median(u)
			print "mpi-scaling: case=" c " ranks=" n " seconds=" m " min=" lo " cpu_seconds=" cpu
		}'
}

if [ "$cases" != ensemble ]; then
	cat "$work"/big/*.db >/dev/null   # warm the page cache: measure compute, not the disk
	for n in 1 2 4; do run $n strong-1.37GB "$work/big"; done
	for n in 1 2 4; do run $n strong-1.37GB-fixed-order "$work/big" --fixed-order; done
	# weak: 500 profiles (about 340 MB of values) per rank
	run 1 weak-500-profiles-per-rank "$work/big" --profiles 1-500
	run 2 weak-500-profiles-per-rank "$work/big" --profiles 1-1000
	run 4 weak-500-profiles-per-rank "$work/big" --profiles 1-2000
fi
cat "$work"/run*/*.db >/dev/null
for n in 1 2 4; do run $n strong-ensemble-100 --ensemble "@$work/list"; done
run 1 weak-ensemble-25-per-rank --ensemble "@$work/list25"
run 2 weak-ensemble-25-per-rank --ensemble "@$work/list50"
run 4 weak-ensemble-25-per-rank --ensemble "@$work/list"
[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
