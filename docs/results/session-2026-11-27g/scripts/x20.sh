#!/usr/bin/env bash
# Build 9e42722 (packed): both GPU test programs whole, memcheck and racecheck over auto on
# products that take the 192-row tiles, then the batched set warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
timeout 200 .ab/bin/test_gemm_gpu > $OUT/test_gemm_gpu.txt 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/test_gemm_gpu.txt | head
timeout 100 .ab/bin/test_tune_gpu > $OUT/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/test_tune_gpu.txt | head
for tool in memcheck racecheck; do
timeout 100 compute-sanitizer --tool $tool $G bench --kernels auto --dtype bf16 --shapes 1536x1536x1536,3000x3000x3000 --op nn,tn --reps 1 --min-time 0 > $OUT/$tool.txt 2>&1; echo "$tool exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $OUT/$tool.txt | head -2; grep -cE " PASS$" $OUT/$tool.txt
done
BUILD_DIR=$PWD/.ab/bin timeout 230 bash scripts/gpu-check.sh $OUT/sets bench-batched bench-batched-cold > $OUT/gpu-check-batched.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check-batched.log | head -8
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log
echo "total $((SECONDS-t0)) s"
