#!/usr/bin/env bash
# Build 5758d8a (packed, the submitted code): both GPU test programs whole.
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
