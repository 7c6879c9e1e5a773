#!/usr/bin/env bash
# Installs the Debian packages gemmlab builds and tests with, when any is missing.
# As root it runs apt-get; otherwise it prints the exact command and exits 1.
set -euo pipefail

packages=(cmake ninja-build g++ make libcli11-dev nlohmann-json3-dev libgtest-dev python3-matplotlib libblas-test python3-dev python3-pybind11 python3-pytest python3-numpy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "gemmlab: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "gemmlab: missing Debian packages: ${missing[*]}" >&2
    echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "gemmlab: the CUDA toolkit (nvcc, cuBLAS) is required; install CUDA 12.4 or newer" \
       "and put its bin/ on PATH" >&2
  exit 1
fi
