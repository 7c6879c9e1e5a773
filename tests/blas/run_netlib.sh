#!/usr/bin/env bash
# Runs the netlib level-3 BLAS test programs (Debian's libblas-test) for SGEMM and DGEMM, Fortran
# (xblat3s, xblat3d) and CBLAS (xscblat3, xdcblat3), through libgemmlab_blas.so with LD_PRELOAD,
# and checks their verdicts: every PASS line, no failure line, and the library's own report that
# it took the calls (a preload that did not happen would leave the reference BLAS to pass).
#
# Usage: run_netlib.sh LIB PROGRAM_DIR OUTDIR
#   LIB          libgemmlab_blas.so
#   PROGRAM_DIR  the programs and input files (the build's netlib-blas/, or Debian's
#                /usr/lib/<multiarch>/blas); a lib/ beside them (the copied reference BLAS and
#                gfortran runtime) is put on LD_LIBRARY_PATH
#   OUTDIR       where the programs run and leave their output
# Environment: the library's GEMMLAB_BLAS_* settings pass through (the ctest sets the threshold
# to 0); REQUIRE_GPU=1 also fails the run unless every call went to the GPU.
# Prints one line per check and ends with "netlib: N passed, M failed"; exit 0 when all passed.
set -uo pipefail

if (($# != 3)); then
  echo "usage: $0 LIB PROGRAM_DIR OUTDIR" >&2
  exit 2
fi
lib=$(realpath "$1")
progs=$(realpath "$2")
out=$3
mkdir -p "$out"
out=$(realpath "$out")
[[ -d $progs/lib ]] && export LD_LIBRARY_PATH="$progs/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GEMMLAB_BLAS_VERBOSE=1

passed=0
failed=0
check() { # description, command...
  local what=$1
  shift
  if "$@"; then
    echo "PASS  $what"
    passed=$((passed + 1))
  else
    echo "FAIL  $what"
    failed=$((failed + 1))
  fi
}

# Where the calls went, from the library's exit line: "gemmlab_blas: G GEMM calls on the GPU, C on the CPU".
calls_ok() { # stderr file
  local line gpu cpu
  line=$(grep -E '^gemmlab_blas: [0-9]+ GEMM calls on the GPU, [0-9]+ on the CPU' "$1" | tail -1)
  [[ -n $line ]] || { echo "      no report from libgemmlab_blas.so in $1: was it preloaded?"; return 1; }
  echo "      $line"
  gpu=$(sed -E 's/^gemmlab_blas: ([0-9]+) GEMM calls on the GPU, ([0-9]+) on the CPU.*/\1/' <<<"$line")
  cpu=$(sed -E 's/^gemmlab_blas: ([0-9]+) GEMM calls on the GPU, ([0-9]+) on the CPU.*/\2/' <<<"$line")
  ((gpu + cpu > 0)) || return 1
  if [[ ${REQUIRE_GPU:-0} == 1 ]] && ((gpu == 0 || cpu != 0)); then
    echo "      REQUIRE_GPU=1 but $cpu call(s) ran on the CPU and $gpu on the GPU"
    return 1
  fi
  return 0
}

cd "$out" || exit 1
for p in s d; do
  P=${p^^}
  # Fortran: only xGEMM is switched on (the others would test the CPU BLAS, not this library).
  sed -E "/^${P}GEMM /! s/^(${P}[A-Z0-9]+ +)T( PUT)/\\1F\\2/" "$progs/${p}blat3.in" > "${p}blat3.in"
  rm -f "${p}blat3.out"
  LD_PRELOAD="$lib" "$progs/xblat3$p" < "${p}blat3.in" > "xblat3$p.stdout" 2> "xblat3$p.stderr"
  rc=$?
  summary="${p}blat3.out"
  [[ -f $summary ]] || summary="xblat3$p.stdout"
  grep -E "${P}GEMM +PASSED" "$summary" | sed 's/^ */      /'
  check "xblat3$p exit status 0 (got $rc)" test "$rc" -eq 0
  check "xblat3$p: ${P}GEMM PASSED THE TESTS OF ERROR-EXITS" grep -q "${P}GEMM  PASSED THE TESTS OF ERROR-EXITS" "$summary"
  check "xblat3$p: ${P}GEMM PASSED THE COMPUTATIONAL TESTS" grep -q "${P}GEMM  PASSED THE COMPUTATIONAL TESTS" "$summary"
  check "xblat3$p: END OF TESTS, no failure lines" bash -c "grep -q 'END OF TESTS' '$summary' && ! grep -qE 'FAIL|\\*\\*\\*\\*\\*' '$summary'"
  check "xblat3$p: calls reached libgemmlab_blas.so" calls_ok "xblat3$p.stderr"

  # CBLAS, both layouts (the input file's default).
  sed -E "/^cblas_${p}gemm /! s/^(cblas_[a-z0-9]+ +)T( PUT)/\\1F\\2/" "$progs/${p}in3" > "${p}in3"
  LD_PRELOAD="$lib" "$progs/x${p}cblat3" < "${p}in3" > "x${p}cblat3.out" 2> "x${p}cblat3.stderr"
  rc=$?
  grep -E "cblas_${p}gemm +PASSED" "x${p}cblat3.out" | sed 's/^ */      /'
  check "x${p}cblat3 exit status 0 (got $rc)" test "$rc" -eq 0
  check "x${p}cblat3: cblas_${p}gemm PASSED THE TESTS OF ERROR-EXITS" grep -q "cblas_${p}gemm  PASSED THE TESTS OF ERROR-EXITS" "x${p}cblat3.out"
  check "x${p}cblat3: cblas_${p}gemm PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS" grep -q "cblas_${p}gemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS" "x${p}cblat3.out"
  check "x${p}cblat3: cblas_${p}gemm PASSED THE ROW-MAJOR COMPUTATIONAL TESTS" grep -qE "cblas_${p}gemm  PASSED THE ROW-MAJOR +COMPUTATIONAL TESTS" "x${p}cblat3.out"
  check "x${p}cblat3: END OF TESTS, no failure lines" bash -c "grep -q 'END OF TESTS' 'x${p}cblat3.out' && ! grep -qE 'FAIL|\\*\\*\\*\\*\\*' 'x${p}cblat3.out'"
  check "x${p}cblat3: calls reached libgemmlab_blas.so" calls_ok "x${p}cblat3.stderr"
done

echo "netlib: $passed passed, $failed failed (outputs in $out)"
((failed == 0))
