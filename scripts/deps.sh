#!/bin/sh
# Install what building and testing profdb needs, when it is missing.
# Debian 12 / Ubuntu 24.04; runs apt-get as root, or through sudo.
# Usage: scripts/deps.sh [--tests]
set -eu
pkgs="meson ninja-build gcc pkg-config libexpat1-dev zlib1g-dev"
# --tests: the suite, and the real clients it checks the converters, the
# Python module and the MPI tool with (each is skipped when absent).
[ "${1:-}" = "--tests" ] && pkgs="$pkgs libcriterion-dev python3 g++ binutils
	python3-dev python3-numpy python3-pandas python3-pytest python3-mesonpy python3-venv
	python3-pip python3-jsonschema python3-mypy golang-go libopenmpi-dev openmpi-bin nodejs"
# --tests: a browser for the SVG flame graph's check, where the distribution
# packages one as a deb (Debian's chromium; Ubuntu's is a snap).
[ "${1:-}" = "--tests" ] && apt-cache show chromium >/dev/null 2>&1 && pkgs="$pkgs chromium"
# --tests: speedscope's file-format schema, from the npm package
# itself, into a gitignored folder; the converter test skips without it.
if [ "${1:-}" = "--tests" ] && command -v npm >/dev/null 2>&1; then
	npmdir="$(cd "$(dirname "$0")/.." && pwd)/.deps/npm"
	[ -f "$npmdir/node_modules/speedscope/dist/release/file-format-schema.json" ] ||
		npm install --silent --no-audit --no-fund --prefix "$npmdir" speedscope@1.25.0 >/dev/null ||
		echo "profdb: npm could not fetch speedscope 1.25.0 (its schema test will skip)" >&2
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "profdb: missing packages:$missing (run as root or install sudo)" >&2
	exit 1
fi
echo "profdb: installing$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
