#!/usr/bin/env bash
# Build e787a41 (packed): the two GPU test programs whole, racecheck over a batch of 64x64
# tiles, 64x64's rate at 4096^3, and the half mixed set warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 230 bin/test_gemm_gpu > $OUT/test_gemm_gpu.txt 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/test_gemm_gpu.txt | head
timeout 90 bin/test_tune_gpu > $OUT/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/test_tune_gpu.txt | head
timeout 60 compute-sanitizer --tool racecheck $G bench --kernels auto --dtype bf16 --shapes 64x64x64@64,56x40x72@33,512x64x64@16 --op nn,nt --reps 1 --min-time 0 > $OUT/racecheck.txt 2>&1; echo "racecheck exit $? at $((SECONDS-t0)) s"; grep -E "RACECHECK SUMMARY|PASS|FAIL" $OUT/racecheck.txt | head -8
timeout 30 $G tune --explain 4096x4096x4096 --op nn --dtype bf16 > $OUT/rate.txt 2>&1; echo "rate exit $? at $((SECONDS-t0)) s"; grep -E "cublas|64x64x64 ws" $OUT/rate.txt
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 200 bash scripts/gpu-check.sh $OUT/sets bench-half-mixed bench-half-mixed-cold > $OUT/gpu-check-mixed.log 2>&1; echo "gpu-check mixed exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-mixed.log | head -6
echo "total $((SECONDS-t0)) s"
