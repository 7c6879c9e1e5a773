#!/usr/bin/env bash
# What the HIP build (`cmake --preset hip`, docs/hip.md) needs beyond the CUDA build's own
# dependencies: Debian's HIP compiler and runtime (hipcc, libamdhip64-dev: HIP 5.2 on clang 15),
# CLI11 for the tool and GoogleTest for its tests, with CMake >= 3.25 and Ninja. Installs what is
# missing where apt works (root with apt-get); elsewhere prints the command and exits 1.
# GEMMLAB_NO_APT=1 never calls apt-get.
set -euo pipefail

packages=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
command -v hipcc >/dev/null 2>&1 || packages+=(hipcc)
have_pkg libamdhip64-dev || packages+=(libamdhip64-dev)
have_pkg libcli11-dev || packages+=(libcli11-dev)
have_pkg libgtest-dev || packages+=(libgtest-dev)
command -v cmake >/dev/null 2>&1 || packages+=(cmake)
command -v ninja >/dev/null 2>&1 || packages+=(ninja-build)

if [[ ${#packages[@]} -eq 0 ]]; then
  echo "install-hip-deps: everything the HIP build needs is installed ($(hipcc --version 2>/dev/null | grep -m1 -o 'HIP version: [0-9.]*' || true))"
  exit 0
fi
if [[ $(id -u) -eq 0 && -z "${GEMMLAB_NO_APT:-}" ]] && command -v apt-get >/dev/null 2>&1; then
  echo "install-hip-deps: installing ${packages[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
else
  echo "install-hip-deps: missing ${packages[*]}; install them with:" >&2
  echo "  sudo apt-get install --no-install-recommends ${packages[*]}" >&2
  echo "(Debian 12 and Ubuntu 23.04 or newer package HIP 5.2+; elsewhere use AMD's ROCm packages)" >&2
  exit 1
fi
