#!/usr/bin/env bash
# Session 2026-11-28, review commit: the packed build's GPU tests that the review touched.
set -u
mkdir -p .ab/run && tar -C .ab/run -xJf .ab/fin3.txz && B=$PWD/.ab/run/bin
mkdir -p build/device && ln -sf $B/gemmlab build/device/gemmlab
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); build $(cat $B/COMMIT)"
timeout 200 $B/test_gemm_gpu --gtest_filter='SmCountTarget.*:GemmApi.*:SplitK.*:NarrowTiles.*:SkinnySide.*' > $OUT/gemm.log 2>&1; echo "test_gemm_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm.log | tr '\n' ' ')"
timeout 120 $B/test_tune_gpu > $OUT/tune.log 2>&1; echo "test_tune_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tune.log | tr '\n' ' ')"
grep -E "Failure|on all" -A3 $OUT/gemm.log | head
