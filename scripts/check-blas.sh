#!/usr/bin/env bash
# The drop-in BLAS on a GPU machine, with full logs under OUTDIR:
#   1. the netlib level-3 test programs (xblat3s, xblat3d, xscblat3, xdcblat3: SGEMM/DGEMM,
#      Fortran and CBLAS, error exits included) through libgemmlab_blas.so with LD_PRELOAD and
#      GEMMLAB_BLAS_THRESHOLD=0, so that every GEMM call reaches the GPU (the run fails if any
#      call took the CPU path); the programs, their input files and the libraries they need
#      come from the build folder (BUILD_DIR/netlib-blas, copied there at build time), so the
#      GPU machine needs no Debian package;
#   2. the library's own test (BUILD_DIR/tests/blas/test_blas_api) with threshold 0 and
#      48-column chunks, so the multi-chunk two-stream pipeline runs;
#   3. scripts/bench-numpy-blas.py: NumPy's a @ b, CPU BLAS vs LD_PRELOAD.
# Ends with the PASS lines of the programs and one summary line. Usage:
#   scripts/check-blas.sh OUTDIR [BUILD_DIR]      (BUILD_DIR default: $BUILD_DIR or build/device)
# PYTHON picks the interpreter for step 3 (default: /opt/torch/.venv/bin/python3 if present,
# else python3); NUMPY_BENCH_ARGS adds options to it (e.g. "--size 4096").
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: $0 OUTDIR [BUILD_DIR]}
build=${2:-${BUILD_DIR:-build/device}}
mkdir -p "$out"
out=$(realpath "$out")
export PATH="$PATH:/usr/local/cuda/bin"
lib="$build/src/blas/libgemmlab_blas.so"
progs="$build/netlib-blas"
api="$build/tests/blas/test_blas_api"
py=${PYTHON:-}
if [[ -z $py ]]; then
  for c in /opt/torch/.venv/bin/python3 python3; do
    if command -v "$c" >/dev/null 2>&1; then py=$(command -v "$c"); break; fi
  done
fi

for f in "$lib" "$progs/xblat3d" "$api"; do
  if [[ ! -e $f ]]; then
    echo "check-blas: $f not found; build first (cmake --build $build --target gemmlab_blas test_blas_api)" >&2
    exit 1
  fi
done

declare -A rc
step() { # name, log, command...
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  echo "== $name: $*"
  "$@" >"$log" 2>&1
  rc[$name]=$?
  echo "   exit ${rc[$name]} after $((SECONDS - t0)) s (log: $log)"
}

step netlib "$out/netlib-gpu.log" env GEMMLAB_BLAS_THRESHOLD=0 REQUIRE_GPU=1 \
  bash tests/blas/run_netlib.sh "$lib" "$progs" "$out/netlib-gpu"
step blas-api "$out/blas-api.log" env GEMMLAB_BLAS_THRESHOLD=0 GEMMLAB_BLAS_CHUNK=48 "$api"
# shellcheck disable=SC2086
step numpy "$out/bench-numpy-blas.log" "$py" scripts/bench-numpy-blas.py --lib "$lib" ${NUMPY_BENCH_ARGS:-}

echo
echo "---- netlib verdicts (GPU path, threshold 0) ----"
grep -hE '(S|D)GEMM +PASSED|cblas_(s|d)gemm +PASSED' "$out"/netlib-gpu/sblat3.out "$out"/netlib-gpu/dblat3.out \
  "$out"/netlib-gpu/xscblat3.out "$out"/netlib-gpu/xdcblat3.out 2>/dev/null | sed 's/^ */  /'
grep -h 'GEMM calls on the GPU' "$out"/netlib-gpu/*.stderr 2>/dev/null | sed 's/^/  /'
grep -E '^FAIL' "$out/netlib-gpu.log" | sed 's/^/  /'
echo "---- numpy ----"
grep -E 'NumPy|CPU BLAS|LD_PRELOAD|speed-up|gemmlab_blas:|difference' "$out/bench-numpy-blas.log" | sed 's/^ */  /'

netlib=$(grep -E '^netlib:' "$out/netlib-gpu.log" | tail -1)
gtest=$(grep -E '^\[  (PASSED|FAILED)  \]' "$out/blas-api.log" | tr '\n' ' ')
numpy=$(grep -E '^bench-numpy-blas:' "$out/bench-numpy-blas.log" | tail -1)
failed=0
for s in netlib blas-api numpy; do [[ ${rc[$s]} == 0 ]] || failed=1; done
echo "check-blas: $([[ $failed == 0 ]] && echo PASS || echo FAIL): ${netlib:-netlib: no verdict}; blas-api: ${gtest:-no verdict}(exit ${rc[blas-api]}); ${numpy:-bench-numpy-blas: no verdict (exit ${rc[numpy]})}"
exit $failed
