#!/bin/sh
# Install what building and testing profdb needs, when it is missing.
# Debian 12 / Ubuntu 24.04; runs apt-get as root, or through sudo.
# Usage: scripts/deps.sh [--tests | --python]
#   --tests   also the suite's packages and the real clients it checks the
#             converters, the Python module and the MPI tool with (each
#             test skips when its client is absent), and abigail-tools for
#             the ABI gate (doc/ABI.md)
#   --python  the Python module's packages, then print on stdout the one
#             interpreter that has them (Debian's /usr/bin/python3, whatever
#             `python3` is first on PATH): py=$(scripts/deps.sh --python)
# Messages go to stderr; stdout carries only what --python prints.
set -eu
mode=${1:-}
case $mode in
"" | --tests | --python) ;;
*) echo "usage: scripts/deps.sh [--tests | --python]" >&2; exit 2 ;;
esac
pkgs="meson ninja-build gcc pkg-config libexpat1-dev zlib1g-dev"
# The Python module: numpy (its only dependency), pandas for the frames,
# meson-python and venv + pip for `pip install`. doc/PYTHON.md lists them.
python_pkgs="python3-dev python3-numpy python3-pandas python3-venv python3-pip python3-mesonpy"
# Debian installs them for this interpreter only.
system_python=/usr/bin/python3
case $mode in
--tests) pkgs="$pkgs $python_pkgs libcriterion-dev python3 g++ binutils abigail-tools
	python3-pytest python3-jsonschema python3-mypy golang-go libopenmpi-dev openmpi-bin nodejs" ;;
--python) pkgs="$pkgs $python_pkgs" ;;
esac
# --tests: a browser for the SVG flame graph's check, where the distribution
# packages one as a deb (Debian's chromium; Ubuntu's is a snap).
[ "$mode" = --tests ] && apt-cache show chromium >/dev/null 2>&1 && pkgs="$pkgs chromium"
# --tests: speedscope's file-format schema, from the npm package
# itself, into a gitignored folder; the converter test skips without it.
if [ "$mode" = --tests ] && command -v npm >/dev/null 2>&1; then
	npmdir="$(cd "$(dirname "$0")/.." && pwd)/.deps/npm"
	[ -f "$npmdir/node_modules/speedscope/dist/release/file-format-schema.json" ] ||
		npm install --silent --no-audit --no-fund --prefix "$npmdir" speedscope@1.25.0 >/dev/null ||
		echo "profdb: npm could not fetch speedscope 1.25.0 (its schema test will skip)" >&2
fi

# The interpreter --python names, checked: it must import what the module
# needs to build (numpy and its headers, meson-python) and a venv with pip.
print_python() {
	if ! "$system_python" -c 'import numpy, mesonpy, venv, ensurepip, os, sysconfig
assert os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
		>/dev/null 2>&1; then
		echo "profdb: $system_python lacks numpy, meson-python, venv or Python.h ($python_pkgs)" >&2
		exit 1
	fi
	[ "$(command -v python3 || true)" = "$system_python" ] ||
		echo "profdb: python3 on PATH is $(command -v python3 || echo absent); use $system_python" >&2
	echo "$system_python"
}

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		echo "profdb: missing packages:$missing (run as root or install sudo)" >&2
		exit 1
	fi
	echo "profdb: installing$missing" >&2
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ "$mode" = --python ] && print_python
exit 0
