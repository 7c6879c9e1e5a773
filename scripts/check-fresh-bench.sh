#!/usr/bin/env bash
# Proves that `make bench` works from a fresh copy of this tree with CMake and Ninja from pip
# and no apt: copies the tree without build/ and .git into a new folder, puts the pip packages'
# cmake and ninja first on PATH and an apt-get/apt/dpkg that only record that they were called
# before everything else, then runs `make build-tool` (timed: the build) and `make bench` (timed:
# the default bench on a built tree). CLI11 and nlohmann-json, which the tool builds with and
# which the GPU machine's image lacks, come from build/deps of this tree when it holds them
# (scripts/fetch-header-deps.sh, run where apt works, and carried), through CMAKE_PREFIX_PATH.
# Ends with one line: "fresh-bench: PASS ..." or "fresh-bench: FAIL (why)"; exit 0 on PASS.
#   scripts/check-fresh-bench.sh [OUTDIR]     (default: $OUT/fresh-bench where OUT is set)
#   FRESH_DIR=/tmp/gemmlab-fresh.XXXXXX/gemmlab scripts/check-fresh-bench.sh   (reuse a copy)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-/tmp}/fresh-bench}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/fresh-bench.log
exec > >(tee "$log") 2>&1

fail() { echo "fresh-bench: FAIL ($*)"; exit 1; }

# pip's cmake and ninja, first on PATH.
py=$(command -v python3) || fail "no python3"
# The packages name their binaries' folder; else the wrappers pip put beside the interpreter.
pip_bin() { # module, attribute
  local dir
  dir=$("$py" -c "import $1; print($1.$2)" 2>/dev/null) && [[ -x "$dir/$1" ]] && { echo "$dir"; return; }
  "$py" -c "import $1" 2>/dev/null || return 1
  dir=$("$py" -c 'import sys, os; print(os.path.dirname(sys.executable))')
  [[ -x "$dir/$1" ]] && echo "$dir"
}
cmake_bin=$(pip_bin cmake CMAKE_BIN_DIR) || fail "python3 ($py) has no pip cmake package"
ninja_bin=$(pip_bin ninja BIN_DIR) || fail "python3 ($py) has no pip ninja package"
# apt must not be used: these stand-ins record any call and fail it.
stubs=$out/no-apt-bin
mkdir -p "$stubs"
: > "$out/apt-calls.txt"
for tool in apt-get apt dpkg dpkg-query; do
  printf '#!/bin/sh\necho "%s $*" >> "%s"\nexit 100\n' "$tool" "$out/apt-calls.txt" > "$stubs/$tool"
  chmod +x "$stubs/$tool"
done
export PATH="$stubs:$cmake_bin:$ninja_bin:$PATH"
export GEMMLAB_NO_APT=1
if [[ -d "$src/build/deps/usr" ]]; then
  export CMAKE_PREFIX_PATH="$src/build/deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi

# A fresh copy: the tree without its build folders and git metadata. FRESH_DIR names one an
# earlier call made (its last line says where), to finish a build that ran out of time there.
if [[ -n "${FRESH_DIR:-}" ]]; then
  [[ -f "$FRESH_DIR/Makefile" ]] || fail "FRESH_DIR=$FRESH_DIR holds no copy of the tree"
  fresh=$FRESH_DIR
else
  fresh=$(mktemp -d /tmp/gemmlab-fresh.XXXXXX)/gemmlab
  mkdir -p "$fresh"
  tar -C "$src" --exclude=./build --exclude=./.git --exclude=./.whl --exclude='./build-*' -cf - . |
    tar -C "$fresh" -xf - || fail "could not copy the tree"
fi
trap 'echo "fresh copy: $fresh (FRESH_DIR=$fresh reuses it)"' EXIT

echo "fresh copy: $fresh ($(du -sh "$fresh" | cut -f1))"
echo "python3:    $py"
echo "cmake:      $(command -v cmake) ($(cmake --version | head -n1))"
echo "ninja:      $(command -v ninja) ($(ninja --version))"
echo "nvcc:       $(command -v nvcc || echo /usr/local/cuda/bin/nvcc) ($( (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -n1))"
echo "CMAKE_PREFIX_PATH: ${CMAKE_PREFIX_PATH:-(unset)}"
nvidia-smi -L 2>&1 | head -n 4
[[ "$(command -v cmake)" == "$cmake_bin/cmake" ]] || fail "cmake on PATH is not pip's"

cd "$fresh"
t0=$SECONDS
make build-tool 2>&1 | tail -n 25
rc=${PIPESTATUS[0]}
build_s=$((SECONDS - t0))
echo "make build-tool: exit $rc after $build_s s"
[[ $rc -eq 0 ]] || fail "make build-tool exited $rc"
grep -q '^CMAKE_MAKE_PROGRAM:FILEPATH=.*ninja' build/release/CMakeCache.txt || echo "note: the build did not use Ninja"
grep '^CMAKE_COMMAND:INTERNAL=' build/release/CMakeCache.txt

t0=$SECONDS
make bench > "$out/bench.log" 2>&1
rc=$?
bench_s=$((SECONDS - t0))
cat "$out/bench.log"
echo "make bench: exit $rc after $bench_s s"
[[ -s "$out/apt-calls.txt" ]] && fail "apt was called: $(tr '\n' ';' < "$out/apt-calls.txt")"
[[ $rc -eq 0 ]] || fail "make bench exited $rc"
pass=$(grep -c ' PASS$' "$out/bench.log")
bad=$(grep -cE ' (FAIL|ERROR)$' "$out/bench.log")
f32=$(grep -c '^f32 ' "$out/bench.log")
bf16=$(grep -c '^bf16 ' "$out/bench.log")
((pass > 0 && bad == 0)) || fail "$pass rows PASS, $bad FAIL or ERROR"
((f32 > 0 && bf16 > 0)) || fail "expected f32 and bf16 cases, found $f32 and $bf16 case lines"
echo "fresh-bench: PASS ($pass rows PASS, 0 FAIL; $f32 f32 and $bf16 bf16 cases; build ${build_s} s, bench ${bench_s} s; no apt call; cmake and ninja from pip)"
