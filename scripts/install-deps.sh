#!/usr/bin/env bash
# Checks what building gemmlab needs, however it was installed (apt, pip, conda, a prefix on
# CMAKE_PREFIX_PATH), and installs only what is missing where apt works (root with apt-get).
# Elsewhere it prints what is missing and how to get it. Exits 1 only when something the
# target needs is still missing.
#   scripts/install-deps.sh [build|test]
#     build (default): CMake >= 3.25, Ninja or Make, a C++20 host compiler, the CUDA toolkit
#                      (nvcc), CLI11 and nlohmann-json: what `make bench/verify/probe` need.
#     test:            also GoogleTest (required), and for the Python, BLAS and plot tests
#                      pybind11, pytest, numpy, matplotlib and the netlib BLAS test programs
#                      (optional: those tests skip without them, except under CI=true).
# GEMMLAB_NO_APT=1 never calls apt-get, even as root.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-build}
case "$target" in build|test) ;; *) echo "usage: scripts/install-deps.sh [build|test]" >&2; exit 2 ;; esac

# A header-only prefix unpacked by scripts/fetch-header-deps.sh is found like an installed one.
if [[ -d build/deps/usr ]]; then
  export CMAKE_PREFIX_PATH="$PWD/build/deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi
export PATH="$PATH:/usr/local/cuda/bin"

missing=()    # "name|apt package|how to get it without apt", required by the target
optional=()   # the same, for what only some tests need

need() { missing+=("$1|$2|$3"); }
want() { optional+=("$1|$2|$3"); }

version_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]; }

check_tools() {
  missing=()
  optional=()
  if ! command -v cmake >/dev/null 2>&1; then
    need "CMake >= 3.25" cmake "python3 -m pip install cmake (or conda install cmake), then put its bin/ on PATH"
  else
    local v
    v=$(cmake --version | head -n1 | awk '{print $3}')
    version_ge "$v" 3.25 || need "CMake >= 3.25 (found $v at $(command -v cmake))" cmake \
      "python3 -m pip install 'cmake>=3.25' and put its bin/ first on PATH"
  fi
  if ! command -v ninja >/dev/null 2>&1 && ! command -v make >/dev/null 2>&1; then
    need "a build tool (Ninja or Make)" ninja-build "python3 -m pip install ninja"
  fi
  if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
    need "a C++20 compiler (GCC >= 10)" g++ "install GCC 10 or newer (conda install gxx)"
  fi
  if ! command -v nvcc >/dev/null 2>&1 && [[ -z "${CUDACXX:-}" ]]; then
    need "the CUDA toolkit (nvcc, cuBLAS)" "" \
      "install the CUDA toolkit 12.4 or newer and put its bin/ on PATH (or set CUDACXX=/path/to/nvcc)"
  fi
}

# Asks CMake itself whether it finds the packages, so that any install it can see counts.
check_cmake_packages() {
  command -v cmake >/dev/null 2>&1 || return 0
  local dir
  dir=$(mktemp -d)
  cat > "$dir/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(gemmlab_deps LANGUAGES NONE)
find_package(CLI11 CONFIG QUIET)
find_package(nlohmann_json 3 CONFIG QUIET)
if(WANT_TESTS)
  enable_language(CXX)
  find_package(GTest QUIET)
endif()
file(WRITE ${CMAKE_BINARY_DIR}/found "CLI11=${CLI11_FOUND}\nJSON=${nlohmann_json_FOUND}\nGTEST=${GTest_FOUND}\n")
EOF
  local want_tests=OFF
  [[ "$target" == test ]] && want_tests=ON
  local gen=()
  command -v ninja >/dev/null 2>&1 || gen=(-G "Unix Makefiles")
  if cmake -S "$dir" -B "$dir/b" "${gen[@]}" -DWANT_TESTS=$want_tests >"$dir/log" 2>&1; then
    local found
    found=$(cat "$dir/b/found")
    grep -Eq '^CLI11=(1|TRUE|ON)$' <<<"$found" || need "CLI11 (header-only command-line parser)" libcli11-dev \
      "conda install -c conda-forge cli11, or unpack Debian's libcli11-dev into a prefix (scripts/fetch-header-deps.sh on a machine with apt, then copy build/deps) and add it to CMAKE_PREFIX_PATH"
    grep -Eq '^JSON=(1|TRUE|ON)$' <<<"$found" || need "nlohmann-json >= 3 (header-only JSON)" nlohmann-json3-dev \
      "conda install -c conda-forge nlohmann_json, or unpack Debian's nlohmann-json3-dev into a prefix (scripts/fetch-header-deps.sh on a machine with apt, then copy build/deps) and add it to CMAKE_PREFIX_PATH"
    if [[ "$target" == test ]]; then
      grep -Eq '^GTEST=(1|TRUE|ON)$' <<<"$found" || need "GoogleTest (for the tests)" libgtest-dev \
        "conda install -c conda-forge gtest, or build GoogleTest and add its prefix to CMAKE_PREFIX_PATH"
    fi
  else
    echo "gemmlab: cmake could not run a trivial configure; its log:" >&2
    cat "$dir/log" >&2
  fi
  rm -rf "$dir"
}

check_python() {
  [[ "$target" == test ]] || return 0
  local py
  py=$(command -v python3 || true)
  if [[ -z "$py" ]]; then
    want "Python 3 (the module and its tests)" "python3-dev python3-pybind11 python3-pytest python3-numpy" "install Python 3"
    return 0
  fi
  # The module is built for the first interpreter that imports pybind11 (python/CMakeLists.txt).
  local ok=""
  for p in "$py" /usr/bin/python3; do
    [[ -x "$p" ]] && "$p" -c 'import pybind11' >/dev/null 2>&1 && { ok=$p; break; }
  done
  if [[ -z "$ok" ]]; then
    want "pybind11 (the Python module)" "python3-pybind11 python3-dev" "python3 -m pip install pybind11"
    ok=$py
  fi
  "$ok" -c 'import pytest' >/dev/null 2>&1 || want "pytest (the module's tests)" python3-pytest "python3 -m pip install pytest"
  "$ok" -c 'import numpy' >/dev/null 2>&1 || want "numpy (the module's tests)" python3-numpy "python3 -m pip install numpy"
  { "$py" -c 'import matplotlib' || { [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import matplotlib'; }; } >/dev/null 2>&1 || want "matplotlib (scripts/plot.py)" python3-matplotlib "python3 -m pip install matplotlib"
  local arch
  arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
  [[ -e /usr/lib/$arch/blas/xblat3s ]] ||
    want "the netlib BLAS test programs (the drop-in BLAS tests)" libblas-test "Debian/Ubuntu only: apt-get install libblas-test"
}

check_all() {
  check_tools
  check_cmake_packages
  check_python
}

apt_packages() {
  local entry pkg out=()
  for entry in "$@"; do
    pkg=$(cut -d'|' -f2 <<<"$entry")
    [[ -n "$pkg" ]] && out+=($pkg)
  done
  printf '%s\n' "${out[@]}" | sort -u | tr '\n' ' '
}

report() {
  local entry
  for entry in "$@"; do
    IFS='|' read -r name pkg how <<<"$entry"
    echo "  - $name: ${pkg:+apt-get install $pkg; }$how" >&2
  done
}

check_all
if ((${#missing[@]} + ${#optional[@]})) && [[ $(id -u) -eq 0 && -z "${GEMMLAB_NO_APT:-}" ]] &&
   command -v apt-get >/dev/null 2>&1; then
  pkgs=$(apt_packages "${missing[@]+"${missing[@]}"}" "${optional[@]+"${optional[@]}"}")
  if [[ -n "${pkgs// /}" ]]; then
    echo "gemmlab: installing with apt-get: $pkgs" >&2
    if apt-get update -qq >/dev/null 2>&1 &&
       DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null; then
      check_all
    else
      echo "gemmlab: apt-get could not install them (no network or no such packages here)" >&2
    fi
  fi
fi

if ((${#optional[@]})); then
  echo "gemmlab: optional for $target, missing (the tests that need them skip, or fail under CI=true):" >&2
  report "${optional[@]}"
fi
if ((${#missing[@]})); then
  echo "gemmlab: missing, needed to $([[ $target == test ]] && echo 'build and run the tests' || echo 'build gemmlab'):" >&2
  report "${missing[@]}"
  exit 1
fi
exit 0
