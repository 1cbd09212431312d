#!/bin/sh
# Packaging check: profdb as a Meson subproject of a tiny consumer project.
#
#   check-subproject.sh --source=PROFDB_SOURCE_ROOT --workdir=DIR
#       --meson=MESON --python=PYTHON --app=app.c --version=X.Y.Z
#       [--cc='CC [ARGS]'] [--ninja=NINJA] [--max-targets=N]
#
# Generates DIR/subproject.XXXXXX/consumer with subprojects/profdb a symlink
# to the source tree (no copy, no network), whose meson.build does
#   dependency('profdb', fallback: ['profdb', 'profdb_dep'])
# (configured with --force-fallback-for=profdb, so an installed profdb is
# never picked), builds and runs app.c against it, then checks that
#  - the default targets are the library (shared + static) and the consumer's
#    own program only: no tool, tests, writer, fuzz targets or benchmarks;
#  - a DESTDIR install holds only libprofdb.{so*,a}, include/profdb/*.h and
#    pkgconfig/profdb.pc: no bin/profdb, no man page.
# The work directory is removed on success and kept on failure.
set -u

src='' workdir='' meson='' python='' app='' version='' cc='' ninja='' max_targets=3
for arg; do
	case $arg in
	--source=*) src=${arg#*=} ;;
	--workdir=*) workdir=${arg#*=} ;;
	--meson=*) meson=${arg#*=} ;;
	--python=*) python=${arg#*=} ;;
	--app=*) app=${arg#*=} ;;
	--version=*) version=${arg#*=} ;;
	--cc=*) cc=${arg#*=} ;;
	--ninja=*) ninja=${arg#*=} ;;
	--max-targets=*) max_targets=${arg#*=} ;;
	*) echo "check-subproject: unknown argument $arg" >&2; exit 2 ;;
	esac
done
for v in src workdir python app version; do
	eval "val=\$$v"
	if [ -z "$val" ]; then
		echo "check-subproject: --$v is required" >&2
		exit 2
	fi
done
if [ -z "$meson" ]; then
	echo "SKIP: no meson program found to configure the consumer project"
	exit 77
fi

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

mkdir -p "$workdir" || exit 2
T=$(mktemp -d "$workdir/subproject.XXXXXX") || exit 2
T=$(cd "$T" && pwd) || exit 2
trap 'if [ "$failures" = 0 ]; then rm -rf "$T"; else echo "(files kept in $T)"; fi' EXIT
C=$T/consumer
B=$T/build
D=$T/stage
mkdir -p "$C/subprojects" || exit 2
ln -s "$(cd "$src" && pwd)" "$C/subprojects/profdb" || exit 2
cp "$app" "$C/app.c" || exit 2
cat >"$C/meson.build" <<'EOM'
project('profdb-consumer', 'c', meson_version: '>= 1.0.0')
profdb = dependency('profdb', fallback: ['profdb', 'profdb_dep'])
executable('app', 'app.c', dependencies: profdb)
EOM

# ---- 1. configure and build --------------------------------------------------
[ -n "$cc" ] && CC=$cc && export CC
# The consumer's build is independent of this build's flags: no sanitizer,
# no werror, a plain debugoptimized build of the library alone.
# shellcheck disable=SC2086 # $meson may be "python3 meson.py"
echo "+ $meson setup --force-fallback-for=profdb $B $C"
if ! $meson setup --force-fallback-for=profdb "$B" "$C" >"$T/setup.log" 2>&1; then
	cat "$T/setup.log"
	fail "meson setup of the consumer failed"
	exit 1
fi
sed -n '/^profdb /,$p' "$T/setup.log"
grep -q 'Executing subproject profdb' "$T/setup.log" \
	|| fail "profdb was not configured as a subproject"
if [ -n "$ninja" ]; then
	echo "+ $ninja -C $B -j2"
	"$ninja" -C "$B" -j2 >"$T/build.log" 2>&1
else
	echo "+ $meson compile -C $B -j 2"
	# shellcheck disable=SC2086
	$meson compile -C "$B" -j 2 >"$T/build.log" 2>&1
fi
status=$?
tail -n 3 "$T/build.log"
if [ $status != 0 ]; then
	cat "$T/build.log"
	fail "building the consumer failed ($status)"
	exit 1
fi
echo "+ $B/app"
"$B/app" "$T/no-such-dir/db" || fail "the consumer's app exited with $?"

# ---- 2. what gets built by default ----------------------------------------------
# shellcheck disable=SC2086
$meson introspect --targets "$B" >"$T/targets.json" || { fail "meson introspect --targets"; exit 1; }
targets=$("$python" -c '
import json, sys
for t in json.load(open(sys.argv[1])):
    if t.get("build_by_default", True):
        print("%s:%s:%s" % (t["subproject"] or "-", t["type"].replace(" ", "_"), t["name"]))
' "$T/targets.json") || { fail "cannot read the introspection data"; exit 1; }
echo "--- targets built by default:"
echo "$targets"
n=0
for t in $targets; do
	n=$((n + 1))
	case $t in
	profdb:shared_library:profdb | profdb:static_library:profdb | -:executable:app) ;;
	*) fail "the subproject builds $t by default" ;;
	esac
done
[ "$n" -le "$max_targets" ] || fail "$n default targets, expected at most $max_targets"

# ---- 3. what gets installed ----------------------------------------------------------
# shellcheck disable=SC2086
echo "+ $meson install -C $B --destdir $D --no-rebuild"
$meson install -C "$B" --destdir "$D" --no-rebuild >"$T/install.log" 2>&1 \
	|| { cat "$T/install.log"; fail "meson install failed"; exit 1; }
echo "--- installed files:"
files=$(cd "$D" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort)
echo "$files"
have_so=0 have_a=0 have_h=0 have_pc=0
for f in $files; do
	case $f in
	*/bin/*) fail "installed a program: $f" ;;
	*/man/*) fail "installed a man page: $f" ;;
	*/libprofdb.so*) have_so=1 ;;
	*/libprofdb.a) have_a=1 ;;
	*/include/profdb/*.h) have_h=1 ;;
	*/pkgconfig/profdb.pc)
		have_pc=1
		grep -q "^Version: $version\$" "$D$f" || fail "$f does not say Version: $version" ;;
	*) fail "installed something besides the library, headers and profdb.pc: $f" ;;
	esac
done
[ $have_so = 1 ] || fail "libprofdb.so not installed"
[ $have_a = 1 ] || fail "libprofdb.a not installed"
[ $have_h = 1 ] || fail "no header installed under include/profdb"
[ $have_pc = 1 ] || fail "profdb.pc not installed"

if [ "$failures" != 0 ]; then
	echo "FAILED ($failures)"
	exit 1
fi
echo "PASS"
exit 0
