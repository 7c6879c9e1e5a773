#!/usr/bin/env bash
# Build 9e42722 (packed): racecheck over the 192-row tiles (auto at 1536^3, the tall-tile test's
# kernels), then the LLM and half mixed sets with a cold L2.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 80 compute-sanitizer --tool racecheck $G bench --kernels auto --dtype bf16 --shapes 1536x1536x1536 --op nn,tn --reps 1 --min-time 0 > $OUT/racecheck-1536.txt 2>&1; echo "racecheck 1536 exit $? at $((SECONDS-t0)) s"; grep -E "RACECHECK SUMMARY" $OUT/racecheck-1536.txt | head -2; grep -cE " PASS$" $OUT/racecheck-1536.txt
timeout 130 compute-sanitizer --tool racecheck --kernel-regex kns=warp_specialized bin/test_tune_gpu --gtest_filter='TuneGpu.TallTiles*' > $OUT/racecheck-tall.txt 2>&1; echo "racecheck tall exit $? at $((SECONDS-t0)) s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $OUT/racecheck-tall.txt | head -3
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 300 bash scripts/gpu-check.sh $OUT/sets bench-llm-cold bench-half-mixed-cold > $OUT/gpu-check-cold.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check-cold.log | head -8
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log $OUT/sets/*.log
echo "total $((SECONDS-t0)) s"
