#!/usr/bin/env bash
# Everything a GPU run checks, in one call, with full logs under OUTDIR:
#   ctest (GPU tests included), gemmlab verify, compute-sanitizer memcheck and racecheck over
#   gemmlab verify --quick, the default bench (f32 and f64) with --json, the host-overhead
#   benchmark, and the probe suite.
# Ends with one summary block. Usage:
#   scripts/gpu-check.sh [OUTDIR] [STEP...]
#   STEP: tests verify memcheck racecheck synccheck memcheck-half racecheck-half synccheck-half
#         bench bench-large bench-tf32 bench-mixed bench-half bench-half-mixed bench-batched
#         bench-llm bench-llm-cold bench-batched-cold bench-mixed-cold bench-half-mixed-cold sweep
#         overhead probe tensor-evidence hopper-evidence python blas presets evidence tune accuracy
#         quantized ozaki
#         fresh-bench (scripts/check-fresh-bench.sh: `make bench` from a fresh copy, pip's cmake
#         and ninja, no apt; needs no build, so it may run alone)
#   (default: tests verify memcheck racecheck bench bench-large bench-tf32 bench-mixed sweep
#    overhead probe tensor-evidence python blas quantized ozaki).
#   ozaki: rung 31 (INT8 emulation) beside cuBLAS DGEMM / SGEMM and auto, `gemmlab bench` at
#   4096-16384^3 in f64 and f32, and `gemmlab accuracy --dtype f64,f32` (k 256-16384, every
#   input kind); the summary gives each ratio and the worst error ratios against cuBLAS.
#   quantized: the 8-bit rungs beside cuBLASLt, `gemmlab bench --dtype fp8,fp8-block,int8` at
#   4096^3 and 8192^3 and `gemmlab accuracy --dtype fp8,fp8-block` (k 256-16384, signed and
#   same-sign); the summary gives each ratio and the accuracy rows within their bound.
#   overhead: `gemmlab overhead` in f32, f64 and bf16 (OVERHEAD_DTYPES), OVERHEAD_ARGS added: host
#   cost per call at 1x1x1 beside an empty-kernel launch and cuBLAS, synchronized latency at
#   16^3..512^3 beside cuBLAS; the summary line counts issue 10's targets met.
#   bench-large: the fast rungs at 8192^3, f32 and f64. bench-llm: `bench --preset llm`
#   (LLM_DTYPES, default bf16); bench-llm-cold, bench-batched-cold, bench-mixed-cold,
#   bench-half-mixed-cold: those sets with --cold (the L2 flushed before every sample).
#   bench-tf32: float at 4096/8192, all four op combinations, with --precision tf32 (cuBLAS runs
#   FAST_TF32) beside the default-precision rungs. bench-batched: `bench --preset batched` (auto against cuBLAS strided
#   batched) with geomeans. bench-mixed: the published mixed-shape set (docs/ladder.md) in f64
#   and f32, auto against cuBLAS, with the geometric mean. sweep: every tile configuration of
#   rungs 13-17 (gemmlab_tile_sweep), where auto's rates come from. tensor-evidence: ncu
#   counters (tensor pipe, bank conflicts, occupancy, stalls) and SASS instruction counts of
#   rungs 15-17. bench-half / bench-half-mixed: BF16/FP16 (C in the type or float) rungs beside
#   cublasGemmEx, and the mixed-shape set in bf16 and f16. hopper-evidence: ncu counters and SASS
#   instruction counts (HGMMA, UTMALDG, STSM, ...) of rungs 19-26 (HOPPER_EVIDENCE_RUNGS, as
#   rung:dtype words, picks some). *-half: the sanitizers over
#   verify --quick in the four half types (SANITIZER_HALF_KERNELS picks the rungs).
#   python / blas: scripts/check-python.sh and scripts/check-blas.sh.
#   tune: `gemmlab tune` (TUNE_DTYPES, default f32,bf16; TUNE_BUDGET s, default 90) into
#   OUTDIR/tune.json, then the mixed-shape set in those types, auto beside cuBLAS, once on the
#   model alone (GEMMLAB_TUNE_CACHE=off) and once with the new cache; the summary line gives
#   both geometric means.
#   accuracy: `gemmlab accuracy` (ACCURACY_ARGS added): every rung, auto and cuBLAS against the
#   double-double product, k 256..65536, four input distributions, every type, into
#   OUTDIR/accuracy.{json,log} and OUTDIR/accuracy-<type>.png; the summary gives issue 28's targets.
#   presets: the three seed presets of `gemmlab bench`. evidence: the ncu counters and SASS lines
#   quoted in docs/ladder.md (shared-memory bank conflicts of rungs 5, 6, 10, 11; global load
#   efficiency of rungs 1 and 2; 128-bit global loads of rung 8). BUILD_DIR (default build/device) may point at a carried build;
#   BENCH_ARGS adds options to the bench step; SANITIZER_TIMEOUT (s) bounds each sanitizer run and
#   SANITIZER_KERNELS (default all) picks the rungs it checks; CTEST_JOBS (default 1) runs tests side by side;
#   CTEST_REGEX picks tests by name (ctest -R).
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:-gpu-check-out}
shift || true
steps=("$@")
((${#steps[@]})) || steps=(tests verify memcheck racecheck bench bench-large bench-tf32 bench-mixed sweep overhead probe tensor-evidence python blas quantized ozaki)
build=${BUILD_DIR:-build/device}
mkdir -p "$out"
gemmlab="$build/gemmlab"
export PATH="$PATH:/usr/local/cuda/bin"

# A build made on another machine records its absolute source path; ctest needs it to exist.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [[ -n "$src" && ! -e "$src" ]]; then
  mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"
fi
if [[ ! -x "$gemmlab" && "${steps[*]}" != fresh-bench ]]; then
  echo "gpu-check: $gemmlab not found; build first (cmake --preset device && cmake --build build/device)" >&2
  exit 1
fi

# The mixed-shape set of docs/ladder.md: squares 128-8192, odd sizes, skinny, large k, each in
# the four op combinations (MIXED_OPS).
MIXED_OPS=${MIXED_OPS:-all}
MIXED_SHAPES=${MIXED_SHAPES:-128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192}

declare -A result
summary_lines=()
run_step() { # name, log file, command...
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  echo "== $name: $*" | tee -a "$out/gpu-check.log"
  "$@" >"$log" 2>&1
  local rc=$?
  result[$name]=$rc
  echo "   exit $rc after $((SECONDS - t0)) s (log: $log)" | tee -a "$out/gpu-check.log"
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$out/gpu.txt"

for step in "${steps[@]}"; do
  case $step in
    tests)
      # The find_package consumer test re-runs the CMake that configured the build; a build
      # carried from another machine may not have it at the same path (CI runs that test).
      exclude=()
      cmake_cmd=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
      if [[ -n "$cmake_cmd" && ! -x "$cmake_cmd" ]]; then
        echo "   (skipping find_package_consumer: $cmake_cmd is not on this machine)" | tee -a "$out/gpu-check.log"
        exclude=(-E find_package_consumer)
      fi
      # CTEST_REGEX (default: every test) narrows the run to the tests a change touches.
      run_step tests "$out/ctest.log" ctest --test-dir "$build" --output-on-failure -j"${CTEST_JOBS:-1}" \
        "${exclude[@]}" ${CTEST_REGEX:+-R "$CTEST_REGEX"}
      summary_lines+=("tests:     $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)")
      ;;
    fresh-bench)
      # `make bench` from a fresh copy of the tree, pip's cmake and ninja, no apt (needs no build).
      run_step fresh-bench "$out/fresh-bench.log" scripts/check-fresh-bench.sh "$out/fresh-bench"
      summary_lines+=("fresh-bench: $(grep -E '^fresh-bench:' "$out/fresh-bench.log" | tail -1)")
      ;;
    verify)
      run_step verify "$out/verify.log" "$gemmlab" verify
      summary_lines+=("verify:    $(grep -E '^verify:' "$out/verify.log" | tail -1)")
      ;;
    memcheck|racecheck|synccheck)
      run_step "$step" "$out/$step.log" timeout "${SANITIZER_TIMEOUT:-1800}" \
        compute-sanitizer --tool "$step" --error-exitcode 9 \
        "$gemmlab" verify --quick --kernels "${SANITIZER_KERNELS:-all}"
      summary_lines+=("$(printf '%-10s' "$step:") $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$step.log" | tail -1); $(grep -E '^verify:' "$out/$step.log" | tail -1)")
      ;;
    memcheck-half|racecheck-half|synccheck-half)
      # The half-precision rungs under each tool (verify --quick over bf16/f16, both C types).
      tool=${step%-half}
      run_step "$step" "$out/$step.log" timeout "${SANITIZER_TIMEOUT:-1800}" \
        compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$gemmlab" verify --quick --dtype bf16,f16,bf16-f32,f16-f32 --kernels "${SANITIZER_HALF_KERNELS:-all}"
      summary_lines+=("$(printf '%-15s' "$step:") $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$step.log" | tail -1); $(grep -E '^verify:' "$out/$step.log" | tail -1)")
      ;;
    bench)
      run_step bench "$out/bench.log" "$gemmlab" bench --dtype f32,f64 --json "$out/bench.json" ${BENCH_ARGS:-}
      summary_lines+=("bench:     $(grep -c ' PASS$' "$out/bench.log") rows PASS, $(grep -cE ' (FAIL|ERROR)$' "$out/bench.log") FAIL (table in $out/bench.log)")
      ;;
    quantized)
      # Rungs 29-30 against cuBLASLt in the same process, and rung 29's error beside cuBLASLt's.
      run_step quantized-bench "$out/quantized-bench.log" "$gemmlab" bench --dtype fp8,fp8-block,int8 \
        --sizes 4096,8192
      run_step quantized-accuracy "$out/quantized-accuracy.log" "$gemmlab" accuracy \
        --dtype fp8,fp8-block --k 256,1024,4096,16384 --inputs signed,same-sign
      result[quantized]=$((result[quantized-bench] | result[quantized-accuracy]))
      summary_lines+=("quantized: $(awk '$3 ~ /^wgmma_/ {printf "%s %s %s; ", $1, $2, $6}' "$out/quantized-bench.log")")
      summary_lines+=("quantized-accuracy: $(grep -cE '^fp8.* yes$' "$out/quantized-accuracy.log") rows within bound, $(grep -cE '^fp8.* NO$' "$out/quantized-accuracy.log") past it; largest gemmlab/cuBLASLt error $(awk '/^fp8/ && $9 > m {m = $9} END {print m}' "$out/quantized-accuracy.log")")
      ;;
    ozaki)
      # Rung 31 against DGEMM / SGEMM (and auto) in the same process, and its error beside theirs.
      run_step ozaki-bench "$out/ozaki-bench.log" "$gemmlab" bench --dtype f64,f32 \
        --kernels cublas,auto,int8_emulation --sizes 4096,8192,16384
      run_step ozaki-accuracy "$out/ozaki-accuracy.log" "$gemmlab" accuracy --dtype f64,f32 \
        --kernels cublas,int8_emulation --k 256,1024,4096,16384
      result[ozaki]=$((result[ozaki-bench] | result[ozaki-accuracy]))
      summary_lines+=("ozaki: $(awk '/^f(32|64) row/ {shape = $1 " " $4} $2 ~ /^(int8_emulation|auto)$/ {printf "%s %s %.3fx; ", shape, $2, $7 / 100}' "$out/ozaki-bench.log")")
      summary_lines+=("ozaki-accuracy: rung 31's largest error / cuBLAS's over k: $(awk '/^f(32|64), / {split($0, part, ":"); t = part[1]; sub(/ inputs$/, "", t); kind = ($0 ~ /median/) ? "median" : "max"} /^int8_emulation/ {r = 0; for (i = 3; i <= NF; i += 2) {x = $i; sub(/x$/, "", x); if (x + 0 > r) r = x + 0}; printf "%s %s %.2f; ", t, kind, r}' "$out/ozaki-accuracy.log")")
      ;;
    bench-large)
      run_step bench-large "$out/bench-large.log" "$gemmlab" bench --dtype f32,f64 \
        --kernels cublas,warp_tile,async_pipeline,dmma,tf32x3,wgmma_tf32x3,auto --sizes 8192 --json "$out/bench-large.json"
      summary_lines+=("bench-large: $(grep -c ' PASS$' "$out/bench-large.log") rows PASS, $(grep -cE ' (FAIL|ERROR)$' "$out/bench-large.log") FAIL (table in $out/bench-large.log)")
      ;;
    bench-half)
      # BF16/FP16 inputs, C in the same type or in float, every half rung beside cublasGemmEx.
      run_step bench-half "$out/bench-half.log" "$gemmlab" bench --dtype bf16,f16,bf16-f32,f16-f32 \
        --kernels cublas,half_simt,mma_sync_f16,wgmma,tma,warp_specialized,cluster_multicast,persistent,auto \
        --sizes 1024,4096,8192 --json "$out/bench-half.json"
      summary_lines+=("bench-half: $(grep -c ' PASS$' "$out/bench-half.log") rows PASS, $(grep -cE ' (FAIL|ERROR)$' "$out/bench-half.log") FAIL (table in $out/bench-half.log)")
      ;;
    bench-half-mixed)
      run_step bench-half-mixed "$out/bench-half-mixed.log" bash -c "\
        $gemmlab bench --dtype bf16,f16 --kernels cublas,auto --reps 5 --min-time 50 \
          --shapes $MIXED_SHAPES --op $MIXED_OPS --json $out/bench-half-mixed.json \
        && python3 scripts/geomean.py $out/bench-half-mixed.json"
      summary_lines+=("bench-half-mixed: $(grep -E '^geomean' "$out/bench-half-mixed.log" | tr '\n' ';')")
      ;;
    hopper-evidence)
      # One profiled launch per rung on the wgmma kernel (the bench's check run, 4096^3 row-major
      # nn: bf16 for rungs 19-24, f32 for 25-26), and the instructions in each rung's SASS.
      run_step hopper-evidence "$out/hopper-evidence.log" bash -c "\
        for kt in ${HOPPER_EVIDENCE_RUNGS:-mma_sync_f16:bf16 wgmma:bf16 tma:bf16 warp_specialized:bf16 \
                  cluster_multicast:bf16 persistent:bf16 wgmma_tf32:f32 wgmma_tf32x3:f32}; do \
          k=\${kt%%:*}; t=\${kt##*:}; \
          echo \"== ncu: rung \$k, first launch (the check run), 4096^3 \$t row-major nn\"; \
          ncu --clock-control none -k regex:'mma_sync_f16|wgmma_cp_async_kernel|tma_kernel|warp_specialized_kernel' -c 1 \
            --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
            --metrics sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio \
            $gemmlab bench --kernels \$k --dtype \$t --sizes 4096 --reps 1 --min-time 0 || exit 1; \
        done \
        && cuobjdump -sass $build/libgemmlab.so > $out/sass-all.txt \
        && for f in mma_sync_f16 wgmma_cp_async_kernel 'hopper::tma_kernel' WarpSpecializedRung ClusterMulticastRung PersistentRung WgmmaTf32Rung WgmmaTf32x3Rung; do \
             c++filt < $out/sass-all.txt | awk -v re=\"\$f\" '/Function : /{g=index(\$0, re)>0} g' > $out/sass-one.txt; \
             echo \"SASS \$f: HGMMA \$(grep -c HGMMA $out/sass-one.txt) HMMA \$(grep -c HMMA $out/sass-one.txt) LDSM \$(grep -c LDSM $out/sass-one.txt) STSM \$(grep -c STSM $out/sass-one.txt) UTMALDG \$(grep -c UTMALDG $out/sass-one.txt) UTMASTG \$(grep -c UTMASTG $out/sass-one.txt) LDGSTS \$(grep -c LDGSTS $out/sass-one.txt) LDL/STL \$(grep -cE 'LDL|STL' $out/sass-one.txt)\"; \
           done; rm -f $out/sass-all.txt $out/sass-one.txt"
      summary_lines+=("hopper-evidence: $(grep -c 'gmma.sum' "$out/hopper-evidence.log") gmma counters; $(grep -c '^SASS' "$out/hopper-evidence.log") SASS lines")
      ;;
    bench-tf32)
      run_step bench-tf32 "$out/bench-tf32.log" "$gemmlab" bench --dtype f32 --precision tf32 \
        --kernels cublas,tf32,wgmma_tf32,tf32x3,wgmma_tf32x3,warp_tile,auto --sizes 4096,8192 --op all \
        --json "$out/bench-tf32.json"
      summary_lines+=("bench-tf32: $(grep -c ' PASS$' "$out/bench-tf32.log") rows PASS, $(grep -cE ' (FAIL|ERROR)$' "$out/bench-tf32.log") FAIL (table in $out/bench-tf32.log)")
      ;;
    bench-mixed)
      run_step bench-mixed "$out/bench-mixed.log" bash -c "\
        $gemmlab bench --dtype f64,f32 --kernels cublas,auto --reps 5 --min-time 50 \
          --shapes $MIXED_SHAPES --op $MIXED_OPS --json $out/bench-mixed.json \
        && python3 scripts/geomean.py $out/bench-mixed.json"
      summary_lines+=("bench-mixed: $(grep -E '^geomean' "$out/bench-mixed.log" | tr '\n' ';')")
      ;;
    bench-batched)
      # Strided batched GEMM (attention-like and many small squares) in every type, auto beside
      # cuBLAS's strided batched form, with the geometric mean per type.
      run_step bench-batched "$out/bench-batched.log" bash -c "\
        $gemmlab bench --preset batched --json $out/bench-batched.json \
        && python3 scripts/geomean.py $out/bench-batched.json"
      summary_lines+=("bench-batched: $(grep -E '^geomean' "$out/bench-batched.log" | tr '\n' ';')")
      ;;
    bench-llm | bench-llm-cold | bench-batched-cold | bench-mixed-cold | bench-half-mixed-cold)
      # The workload sets with the L2 flushed before every sample (--cold), and the LLM set
      # (docs/workloads.md) warm: auto beside cuBLAS, geometric mean and worst row per type.
      case $step in
        bench-llm | bench-llm-cold) args="--preset llm --dtype ${LLM_DTYPES:-bf16}" ;;
        bench-batched-cold) args="--preset batched" ;;
        bench-mixed-cold) args="--dtype f64,f32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $MIXED_SHAPES --op $MIXED_OPS" ;;
        bench-half-mixed-cold) args="--dtype bf16,f16 --kernels cublas,auto --reps 5 --min-time 50 --shapes $MIXED_SHAPES --op $MIXED_OPS" ;;
      esac
      [[ $step == *-cold ]] && args+=" --cold"
      run_step "$step" "$out/$step.log" bash -c "\
        $gemmlab bench $args --json $out/$step.json && python3 scripts/geomean.py $out/$step.json"
      summary_lines+=("$step: $(grep -E '^geomean' "$out/$step.log" | tr '\n' ';')")
      ;;
    sweep)
      run_step sweep "$out/sweep.log" "$build/gemmlab_tile_sweep" --sizes 4096,8192 --reps 5
      summary_lines+=("sweep:     $(grep -c GFLOP "$out/sweep.log") configuration rows (in $out/sweep.log)")
      ;;
    tensor-evidence)
      # One profiled launch per tensor-core rung (the bench's check run, 4096^3 row-major nn).
      run_step tensor-evidence "$out/tensor-evidence.log" bash -c "\
        for k in dmma:f64 tf32:f32 tf32x3:f32; do \
          echo \"== ncu: rung \${k%%:*}, first launch (the check run), 4096^3 \${k##*:} row-major nn\"; \
          ncu --clock-control none -k regex:mma_gemm_kernel -c 1 \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section LaunchStats \
            --metrics sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_dmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
            $gemmlab bench --kernels \${k%%:*} --dtype \${k##*:} --sizes 4096 --reps 1 --min-time 0 || exit 1; \
        done \
        && cuobjdump -sass $build/libgemmlab.so > $out/sass-all.txt \
        && for m in DmmaMathILi16ELb0E DmmaMathILi8ELb0E DmmaMathILi8ELb1E Tf32Math Tf32x3Math; do \
             awk -v re=\"mma_gemm_kernel.*\$m\" '/Function : /{f=(\$0 ~ re)} f' $out/sass-all.txt > $out/sass-one.txt; \
             echo \"SASS \$m: DMMA \$(grep -c DMMA $out/sass-one.txt) HMMA \$(grep -c HMMA $out/sass-one.txt) LDS \$(grep -c 'LDS' $out/sass-one.txt) LDGSTS \$(grep -c LDGSTS $out/sass-one.txt) LDL/STL \$(grep -cE 'LDL|STL' $out/sass-one.txt)\"; \
           done; rm -f $out/sass-all.txt $out/sass-one.txt"
      summary_lines+=("tensor-evidence: $(grep -c 'bank_conflicts' "$out/tensor-evidence.log") bank-conflict counters; $(grep -c '^SASS' "$out/tensor-evidence.log") SASS lines")
      ;;
    python)
      run_step python "$out/python.log" scripts/check-python.sh "$out/python"
      summary_lines+=("python:    $(tail -1 "$out/python.log")")
      ;;
    blas)
      run_step blas "$out/blas.log" scripts/check-blas.sh "$out/blas" "$build"
      summary_lines+=("blas:      $(tail -1 "$out/blas.log")")
      ;;
    overhead)
      # Issue 10's host-overhead benchmark; the targets it states are counted from its JSON.
      run_step overhead "$out/overhead.log" "$gemmlab" overhead --dtype "${OVERHEAD_DTYPES:-f32,f64,bf16}" \
        --json "$out/overhead.json" --csv "$out/overhead.csv" ${OVERHEAD_ARGS:-}
      summary_lines+=("overhead:  $(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["targets"]
missed = [x[len("target: "):] for x in t if not x.endswith(": met")]
print(len(t) - len(missed), "of", len(t), "targets met" + ("; missed: " + "; ".join(missed) if missed else ""))' \
        "$out/overhead.json" 2>/dev/null || echo "no JSON written") (tables in $out/overhead.log)")
      ;;
    accuracy)
      # Issue 28: the error of each rung, auto and cuBLAS in one run (table and JSON), then the
      # plots of error against k; the targets it states are counted from its JSON.
      run_step accuracy "$out/accuracy.log" bash -c "\
        $gemmlab accuracy --json $out/accuracy.json ${ACCURACY_ARGS:-}; rc=\$?; \
        python3 scripts/plot_accuracy.py $out/accuracy.json $out/accuracy || exit 1; exit \$rc"
      summary_lines+=("accuracy:  $(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["targets"]
missed = [x[len("target: "):] for x in t if not x.endswith(": met")]
print(len(t) - len(missed), "of", len(t), "targets met" + ("; missed: " + "; ".join(missed) if missed else ""))' \
        "$out/accuracy.json" 2>/dev/null || echo "no JSON written") (tables in $out/accuracy.log)")
      ;;
    tune)
      # The tuner, then auto on the mixed-shape set without the cache and with it (the same
      # shapes in one process each, cuBLAS beside in both runs).
      tune_dtypes=${TUNE_DTYPES:-f32,bf16}
      run_step tune "$out/tune.log" bash -c "\
        $gemmlab tune --dtype $tune_dtypes --budget ${TUNE_BUDGET:-90} --cache $out/tune.json \
        && for mode in model cached; do \
             cache=off; [[ \$mode == cached ]] && cache=$out/tune.json; \
             echo \"== auto on the \$mode (GEMMLAB_TUNE_CACHE=\$cache)\"; \
             GEMMLAB_TUNE_CACHE=\$cache $gemmlab bench --dtype $tune_dtypes --kernels cublas,auto \
               --reps 5 --min-time 50 --shapes $MIXED_SHAPES --json $out/tune-\$mode.json || exit 1; \
             python3 scripts/geomean.py $out/tune-\$mode.json | sed \"s/^/\$mode: /\" || exit 1; \
           done"
      summary_lines+=("tune:      $(grep -E '^wrote|^tuned' "$out/tune.log" | tr '\n' ';') $(grep -E '^(model|cached): geomean' "$out/tune.log" | tr '\n' ';')")
      ;;
    probe)
      run_step probe "$out/probe.log" "$gemmlab" probe --json "$out/probe.json"
      summary_lines+=("probe:     $(grep -c '^  -> ' "$out/probe.log") headline lines (in $out/probe.log)")
      ;;
    presets)
      run_step presets "$out/presets.log" bash -c "for p in dcu sgemm-v thread-tile; do \
        echo \"== gemmlab bench --preset \$p\"; $gemmlab bench --preset \$p --json $out/preset-\$p.json || exit 1; done"
      summary_lines+=("presets:   $(grep -c ' PASS$' "$out/presets.log") rows PASS, $(grep -cE ' (FAIL|ERROR)$' "$out/presets.log") FAIL")
      ;;
    evidence)
      # One profiled launch per rung of interest (1024^3 f32 row-major nn, the bench's check run).
      run_step evidence "$out/evidence.log" bash -c "\
        for k in naive coalesced smem_tile smem_conflict_free thread_tile_8x8 smem_interleaved_reads; do \
          echo \"== ncu: rung \$k, first launch (the check run), 1024^3 f32 row-major nn\"; \
          ncu --clock-control none -k regex:\"\${k}_kernel\" -c 1 \
            --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
            $gemmlab bench --kernels \$k --sizes 1024 --reps 1 --min-time 0 || exit 1; \
        done \
        && cuobjdump -sass $build/libgemmlab.so > $out/sass-all.txt \
        && awk '/Function : /{f=/vectorized_kernel/} f' $out/sass-all.txt > $out/sass-vectorized.txt \
        && echo 'LDG.E.128 in vectorized_kernel:' \$(grep -c 'LDG.E.128' $out/sass-vectorized.txt) \
        && echo 'LDG.E (any width) in vectorized_kernel:' \$(grep -c 'LDG.E' $out/sass-vectorized.txt) \
        && rm $out/sass-all.txt"
      summary_lines+=("evidence:  $(grep -c 'bank_conflicts' "$out/evidence.log") bank-conflict counters, $(grep 'LDG.E.128 in' "$out/evidence.log")")
      ;;
    *) echo "gpu-check: unknown step '$step'" >&2; exit 2 ;;
  esac
done

failed=0
echo
echo "================ gpu-check summary ================"
for line in "${summary_lines[@]}"; do echo "$line"; done
for step in "${steps[@]}"; do
  rc=${result[$step]:-?}
  [[ $rc == 0 ]] || failed=1
  printf '%-10s %s\n' "$step" "$([[ $rc == 0 ]] && echo PASS || echo "FAIL (exit $rc)")"
done
echo "==================================================="
exit $failed
