#!/usr/bin/env bash
# Session 2026-11-28c, call 4: fin3 (the kernels of d3 = abc7064, and `gemmlab accuracy --dtype
# fp8,fp8-block`): the FP8 accuracy table against cuBLASLt (k to 16384, signed and same-sign
# inputs, 512 x 512), the accuracy CLI tests, ncu of rung 29 (per-tensor, block-wise) and of
# cuBLASLt's block-scaled kernel at 4096^3, and the 8-bit bench once.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/fin3 && tar -C .ab/run/fin3 -xJf .ab/fin3.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
B=$PWD/.ab/run/fin3/bin; export LD_LIBRARY_PATH=$B
timeout 200 $B/gemmlab accuracy --dtype fp8,fp8-block --k 256,1024,4096,16384 --inputs signed,same-sign --seed 11 > $OUT/accuracy-fp8.log 2>&1; echo "accuracy exit $? at $((SECONDS-t0)) s"; cat $OUT/accuracy-fp8.log
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 120 $B/test_accuracy --gtest_filter='AccuracyCli.*:AccuracyGpu.Fp8RowsBesideCublasLt' > $OUT/test-accuracy.log 2>&1; echo "test_accuracy exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/test-accuracy.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 100 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-fin3.log 2>&1; echo "bench exit $?"; grep -E "wgmma_|cublaslt" $OUT/bench-fin3.log | cut -c1-110
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats"
for d in fp8 fp8-block; do
  timeout 90 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $B/gemmlab bench --dtype $d --sizes 4096 > $OUT/ncu-$d.log 2>&1
  echo "ncu $d exit $?: $(grep -E 'Duration|highest-utilized|Issued Instructions  ' $OUT/ncu-$d.log | sed 's/  */ /g' | cut -c1-90 | tr '\n' ';')"
done
timeout 90 ncu --clock-control none -k regex:'nvjet|sm90' -c 1 $S $B/gemmlab bench --dtype fp8-block --sizes 4096 > $OUT/ncu-lt-fp8-block.log 2>&1
echo "ncu lt fp8-block exit $?: $(grep -E '^  [a-z_].*\(|Duration|highest-utilized|Issued Instructions  ' $OUT/ncu-lt-fp8-block.log | sed 's/  */ /g' | cut -c1-120 | tr '\n' ';')"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
