#!/usr/bin/env bash
# Paired 128x64 tiles: both GPU test programs whole, then the gap harness (the first GEMM of a
# process, and after a kernel with local memory).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf pr.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
timeout 150 .ab/bin/test_tune_gpu > $OUT/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|PairedSlim" $OUT/test_tune_gpu.txt | head
timeout 300 .ab/bin/test_gemm_gpu > $OUT/test_gemm_gpu.txt 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/test_gemm_gpu.txt | head
timeout 60 .ab/gap/gap 128x8192x2048 128x6144x4096 LMEM1 128x8192x2048 128x6144x4096 2>&1 | tee $OUT/gap.txt
echo "total $((SECONDS-t0)) s"
