#!/usr/bin/env bash
# The candidate-list refactor (packed; the rung 24 candidates built by one helper, no change to
# what runs): both GPU test programs whole, the INT8 tests, and the LLM set warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
timeout 250 .ab/bin/test_gemm_gpu > $OUT/test_gemm_gpu.txt 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/test_gemm_gpu.txt | head
timeout 120 .ab/bin/test_tune_gpu > $OUT/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/test_tune_gpu.txt | head
timeout 60 .ab/bin/test_quantized_gpu --gtest_filter='Int8Gpu.*' > $OUT/test_quantized_gpu-int8.txt 2>&1; echo "int8 tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_quantized_gpu-int8.txt | tr '\n' ' ')"
BUILD_DIR=$PWD/.ab/bin timeout 240 bash scripts/gpu-check.sh $OUT/sets bench-llm > $OUT/gpu-check-llm.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check-llm.log | head -4
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log $OUT/sets/bench-llm.log
echo "total $((SECONDS-t0)) s"
