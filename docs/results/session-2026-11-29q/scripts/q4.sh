#!/usr/bin/env bash
# Session 2026-11-29q, one H200: the packed build of build/carry.commit (repitch::launch_on_copies,
# one home for the copy-then-launch of both rung families). The tests on the copies, the odd
# double and half rows beside cuBLAS, and ncu on session p's two paths: rung 15's rotating tiles
# on copies (auto, 4095x4097x1023 double) and rung 24's two C stagings (auto, 64^3 x 4096 BF16).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(date -u); build $(cat build/carry.commit)"
timeout 200 $B/tests/test_gemm_gpu --gtest_filter='Repitch.*:GemmApi.*' > $OUT/test_gemm_gpu.log 2>&1; echo "test_gemm_gpu Repitch/GemmApi exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_gemm_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 150 $B/tests/test_tune_gpu > $OUT/test_tune_gpu.log 2>&1; echo "test_tune_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_tune_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 30 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_auto_model.log | tr '\n' ' ')"
timeout 60 $B/gemmlab bench --dtype f64 --kernels cublas,auto --layout row --op all --shapes 4095x4097x1023,2047x2047x2047,3001x2999x1021 --json $OUT/odd-f64.json > $OUT/odd-f64.log 2>&1; echo "odd f64 exit $?: $(grep -h geomean $OUT/odd-f64.log)"
timeout 60 $B/gemmlab bench --dtype bf16 --kernels cublas,auto --layout row --op all --shapes 4095x4097x1023,2047x2047x2047,3001x2999x1021 > $OUT/odd-bf16.log 2>&1; echo "odd bf16 exit $?: $(grep -h geomean $OUT/odd-bf16.log)"
mkdir -p $OUT/ncu
M=sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_dmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
timeout 90 ncu --clock-control none -k 'regex:mma_gemm_kernel|repitch' -c 3 --section SpeedOfLight --metrics $M $B/gemmlab bench --kernels auto --dtype f64 --shapes 4095x4097x1023 --reps 1 --min-time 0 > $OUT/ncu/rung15-copies.log 2>&1; echo "ncu rung 15 on copies exit $?"
grep -E "mma_gemm_kernel|repitch_kernel|dmma_cycles|time_duration|Compute \(SM\) Throughput|Memory Throughput" $OUT/ncu/rung15-copies.log | head -24
timeout 90 ncu --clock-control none -k 'regex:warp_specialized' -c 1 --section SpeedOfLight --metrics $M $B/gemmlab bench --kernels auto --dtype bf16 --shapes 64x64x64@4096 --reps 1 --min-time 0 > $OUT/ncu/rung24-two-stagings.log 2>&1; echo "ncu rung 24 two C stagings exit $?"
grep -E "warp_specialized|hmma_cycles|gmma.sum|time_duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|dram__bytes" $OUT/ncu/rung24-two-stagings.log | cut -c1-200 | head -14
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
