#!/usr/bin/env bash
# Unpacks the two header-only libraries the gemmlab tool builds with, CLI11 and nlohmann-json,
# from Debian's packages into a prefix (default build/deps), for a machine that has CMake and
# the CUDA toolkit but neither of these and no package manager it can use (the GPU machine).
# Run it where apt works (no root needed: `apt-get download` writes to the current folder), then
# carry the folder; the Makefile and scripts/install-deps.sh add build/deps/usr to
# CMAKE_PREFIX_PATH when it exists, or set CMAKE_PREFIX_PATH=<prefix>/usr yourself. Both
# packages install relocatable CMake configs (their paths are relative to the config file).
#   scripts/fetch-header-deps.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-build/deps}
packages=(libcli11-dev nlohmann-json3-dev)

command -v apt-get >/dev/null 2>&1 || { echo "fetch-header-deps: needs apt-get (Debian/Ubuntu)" >&2; exit 1; }
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
work=$(mktemp -d)
chmod 777 "$work" # apt-get download writes as user _apt where it can
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${packages[@]}" >/dev/null)
for deb in "$work"/*.deb; do
  dpkg-deb -x "$deb" "$prefix"
  echo "unpacked $(basename "$deb")"
done
ls -d "$prefix"/usr/share/cmake/CLI11 "$prefix"/usr/share/cmake/nlohmann_json
du -sh "$prefix"
echo "use: CMAKE_PREFIX_PATH=$prefix/usr (found by default when it is build/deps)"
