#!/usr/bin/env bash
# The model with fills and the 64-column tiles: their GPU test, memcheck and racecheck over it,
# the other tile tests, every option on LLM rows whose pick moved to 64x64, then the LLM set warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 200 bin/test_gemm_gpu --gtest_filter='SixtyFour*:*NarrowTiles*:*Batched*:TailSplit*:ClusterSplit*:Repitch*' > $OUT/tests.txt 2>&1; echo "tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout 100 bin/test_tune_gpu --gtest_filter='TuneGpu.EveryOption*' > $OUT/tests-tune.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests-tune.txt | head
for tool in memcheck racecheck; do
timeout 200 compute-sanitizer --tool $tool bin/test_gemm_gpu --gtest_filter='SixtyFour*' > $OUT/$tool.txt 2>&1; echo "$tool exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool.txt | head -3
done
L=128x4096x4096,64x8192x8192,128x2048x8192,64x2048x8192,128x14336x4096
timeout 100 $G tune --explain $L --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 300 bash scripts/gpu-check.sh $OUT/sets bench-llm > $OUT/gpu-check-llm.log 2>&1; echo "gpu-check llm exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-llm.log | head -6
echo "total $((SECONDS-t0)) s"
