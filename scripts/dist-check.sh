#!/usr/bin/env bash
# The distributed layer's GPU run (issue 32), on a host with 2 or more GPUs; builds nothing.
#   scripts/dist-check.sh OUTDIR [STEP...]
#   STEP: cpu tests faults big scaling summa tp mpi   (default: all of them, in that order)
#   cpu      test_dist_cpu (index math, checks, agreement; no GPU)
#   tests    test_dist_gpu without the fault and big tests: dist::gemm on every type, grid,
#            distribution and layout bitwise against single-GPU gemmlab (integers) and within the
#            bound of a CPU reference (uniform), both tensor-parallel patterns, mismatches, the
#            single-process form
#   faults   a rank that dies, a rank that aborts: the others fail within their timeout
#   big      a double product whose operands exceed one GPU, across all GPUs, sampled vs the CPU
#   scaling  32768^3 BF16 and double: single-GPU gemmlab, then dist::gemm on 2..N GPUs, row
#            panels (a P x 1 grid: whole-k products on gathered panels of B)
#   summa    32768^3 BF16 on N GPUs on the squarest grid (SUMMA), beside the scaling rows
#   tp       all-gather+GEMM and GEMM+reduce-scatter, 8192 tokens, hidden 8192, MLP 28672, TP = N,
#            on the copy engines and then on NCCL (the bench runs a process per rank)
#   mpi      one row through mpirun -np N gemmlab_dist_bench_mpi (skipped without mpirun)
# BUILD_DIR (default build/device) holds the build (tests/dist, tools/dist_bench); GPUS (default
# all visible) the GPU count N; SCALING_SIZE (32768), SCALING_DTYPES (bf16,f64), SCALING_GPUS
# (2,4,8 up to N), TP_DTYPES (bf16) change the rows. Every step runs under `timeout` with its own
# limit, and the limits add up to less than DIST_CHECK_BUDGET seconds (540, for one 10-minute
# device call), so a slow step is cut, never a later one. The log of each step is in OUTDIR
# (NCCL_DEBUG=WARN unless set: NCCL's warnings land beside our errors); a step that fails or
# times out prints its last lines, and the summary at the end lists each step's exit code, the
# errors, and the lines the issue's targets read. NVLink multicast stays off:
# NCCL_NVLS_ENABLE=0 for everything started here.
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: scripts/dist-check.sh OUTDIR [STEP...]}
shift
steps=("$@")
((${#steps[@]})) || steps=(cpu tests faults big scaling summa tp mpi)
build=${BUILD_DIR:-build/device}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
export NCCL_NVLS_ENABLE=0
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

# A build made on another machine records its absolute source path; ctest-style tools need it.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [[ -n "$src" && ! -e "$src" ]]; then
  mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"
fi

cpu_test="$build/tests/dist/test_dist_cpu"
gpu_test="$build/tests/dist/test_dist_gpu"
bench="$build/tools/dist_bench/gemmlab_dist_bench"
bench_mpi="$build/tools/dist_bench/gemmlab_dist_bench_mpi"

ngpu=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
N=${GPUS:-$ngpu}
# The single-GPU gemmlab row is the scaling's baseline; dist::gemm on one GPU adds nothing to it.
gpu_list=""
for p in 2 4 8; do ((p <= N)) && gpu_list+="${gpu_list:+,}$p"; done
gpu_list=${SCALING_GPUS:-${gpu_list:-1}}
export GEMMLAB_DIST_TEST_RANKS=$N

{
  echo "dist-check: $(date -u +%FT%TZ) on $(hostname), $ngpu GPUs visible, using N=$N"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -20
  echo "build: $build ($(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files)"
  echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE NCCL_DEBUG=$NCCL_DEBUG GEMMLAB_DIST_OVERLAP_CTAS=${GEMMLAB_DIST_OVERLAP_CTAS:-16 (default)}"
  echo "DIST_CHECK_BUDGET=${DIST_CHECK_BUDGET:-540}"
} | tee "$out/environment.txt"

# The whole run stays inside DIST_CHECK_BUDGET seconds (default 540: one 10-minute device call).
# Each step's limit is its share of the budget (the shares below add up to 530 of 540, each
# step's `timeout -k 10` included); a step is also cut to what is left, and skipped when less
# than 20 s is.
budget=${DIST_CHECK_BUDGET:-540}
declare -A share=([cpu]=20 [tests]=120 [faults]=60 [big]=100 [scaling]=120 [summa]=30 [tp]=45 [mpi]=35)
declare -A result
run_step() { # name, log, command...
  local name=$1 log=$2
  shift 2
  local limit=$((share[$name] * budget / 540 - 10))
  local t0=$SECONDS left=$((budget - SECONDS - 15))
  if ((left < 20)); then
    echo "== $name: skipped, the ${budget}s budget is spent" | tee -a "$out/dist-check.log"
    result[$name]=125
    return
  fi
  ((limit > left)) && limit=$left
  echo "== $name (timeout ${limit}s, at ${SECONDS}s of ${budget}s): $*" | tee -a "$out/dist-check.log"
  timeout -k 10 "$limit" "$@" >"$log" 2>&1
  local rc=$?
  result[$name]=$rc
  ((rc == 124 || rc == 137)) && echo "   TIMED OUT" | tee -a "$out/dist-check.log"
  echo "   exit $rc after $((SECONDS - t0)) s (log: $log)" | tee -a "$out/dist-check.log"
  if ((rc != 0)); then
    tail -n 8 "$log" | sed 's/^/   | /' | tee -a "$out/dist-check.log"
  fi
}

need() { # file
  if [[ ! -x "$1" ]]; then
    echo "dist-check: $1 not found (configure with NCCL present and build the dist targets)" | tee -a "$out/dist-check.log"
    return 1
  fi
}

for step in "${steps[@]}"; do
  case $step in
    cpu)
      need "$cpu_test" && run_step cpu "$out/cpu.log" "$cpu_test" ;;
    tests)
      need "$gpu_test" && run_step tests "$out/tests.log" "$gpu_test" \
        --gtest_filter='-*DeadRank*:*AbortedRank*:*LargerThanOneGpu*' ;;
    faults)
      need "$gpu_test" && run_step faults "$out/faults.log" "$gpu_test" \
        --gtest_filter='*DeadRank*:*AbortedRank*' ;;
    big)
      need "$gpu_test" && run_step big "$out/big.log" env GEMMLAB_DIST_BIG=1 "$gpu_test" \
        --gtest_filter='*LargerThanOneGpu*' ;;
    scaling)
      need "$bench" && run_step scaling "$out/scaling.log" "$bench" --case gemm \
        --dtype "${SCALING_DTYPES:-bf16,f64}" --size "${SCALING_SIZE:-32768}" --gpus "$gpu_list" \
        --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 60 ;;
    summa)
      need "$bench" && run_step summa "$out/summa.log" "$bench" --case gemm --dtype bf16 \
        --size "${SCALING_SIZE:-32768}" --gpus "$N" --grid square --no-single --reps 3 --warmup 1 \
        --check-samples 8 --timeout 15 ;;
    tp)
      # The copy engines (the default where each rank is a process), then NCCL, for comparison.
      need "$bench" && run_step tp "$out/tp.log" bash -c 'for t in auto nccl; do
          GEMMLAB_DIST_TRANSPORT=$t "$0" --case tp --dtype "$1" --tokens 8192 --hidden 8192 \
            --mlp 28672 --gpus "$2" --reps 5 --warmup 2 --timeout 30 || exit; done' \
        "$bench" "${TP_DTYPES:-bf16}" "$N" ;;
    mpi)
      if command -v mpirun >/dev/null && [[ -x "$bench_mpi" ]]; then
        run_step mpi "$out/mpi.log" mpirun --allow-run-as-root --oversubscribe -np "$N" \
          -x NCCL_NVLS_ENABLE=0 -x NCCL_DEBUG "$bench_mpi" --case gemm --dtype bf16 --size 8192 \
          --reps 3 --warmup 1 --check-samples 8 --timeout 20
      else
        echo "== mpi: skipped (mpirun or $bench_mpi absent)" | tee -a "$out/dist-check.log"
      fi ;;
    *) echo "dist-check: unknown step $step" >&2 ;;
  esac
  # A GPU step whose tests all skipped (no GPUs seen) did not check anything: say so.
  if [[ $step == tests || $step == faults || $step == big ]] && [[ -f "$out/$step.log" ]] &&
     grep -q '^\[  SKIPPED \]' "$out/$step.log" && ((${result[$step]:-1} == 0)); then
    echo "   $step: tests skipped (fewer than two GPUs seen): marked exit 3" | tee -a "$out/dist-check.log"
    result[$step]=3
  fi
done

{
  echo
  echo "== summary ($(date -u +%FT%TZ), N=$N)"
  for step in "${steps[@]}"; do
    [[ -n "${result[$step]+x}" ]] && printf '  %-8s exit %s\n' "$step" "${result[$step]}"
  done
  for f in cpu tests faults big; do
    [[ -f "$out/$f.log" ]] && grep -hE '^\[  (PASSED|FAILED|SKIPPED) +\]|test suites? ran' "$out/$f.log" | sed "s/^/  $f: /"
  done
  [[ -f "$out/tests.log" ]] && grep -hE 'cases .* entries compared|tensor parallel:|-> .*(Mismatch|InvalidArgument)' "$out/tests.log" | sort -u | head -12 | sed 's/^/  tests: /'
  [[ -f "$out/faults.log" ]] && grep -hE 'a peer (died|aborted) ->|(dead|aborted) rank:' "$out/faults.log" | sed 's/^/  faults: /'
  [[ -f "$out/big.log" ]] && grep -hE 'GB together|sampled entries|cudaMalloc failed|rank [0-9]+: [A-Za-z]+ after' "$out/big.log" | sed 's/^/  big: /'
  for f in scaling summa tp mpi; do
    [[ -f "$out/$f.log" ]] && grep -hE 'dist-bench NCCL|single_gpu_gemmlab|rank=all.*schedule=overlapped|summary|check_all' "$out/$f.log" | sed "s/^/  $f: /"
  done
  # What went wrong, step by step: our errors and NCCL's warnings (the first few of each).
  for f in cpu tests faults big scaling summa tp mpi; do
    [[ -f "$out/$f.log" ]] || continue
    grep -hE 'NCCL WARN|gemmlab_dist_bench: |rank [0-9]+: .*(Error|Timeout|Aborted|failed|FAIL)|Failure$' "$out/$f.log" |
      grep -vE 'a peer (died|aborted) ->|a later call ->|exiting without|ncclCommAbort on its|[^0-9]0 failed' | sort | uniq -c | sort -rn |
      head -6 | sed "s/^/  $f errors: /"
  done
} | tee "$out/summary.txt"
fail=0
for step in "${!result[@]}"; do ((result[$step] != 0)) && fail=1; done
exit $fail
