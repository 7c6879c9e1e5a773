#!/usr/bin/env bash
# The 192 x 128 tile beside 192 x 192: the tall-tile test, every option, tune --explain on the
# lone waves it is for (warm and cold), then the LLM and half mixed sets warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 120 bin/test_tune_gpu --gtest_filter='TuneGpu.TallTiles*:TuneGpu.EveryOption*' > $OUT/tests-tune.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests-tune.txt | head
timeout 60 $G tune --explain 512x4608x3584,512x6144x4096,512x10240x8192 --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
timeout 60 $G tune --explain 512x4608x3584,512x6144x4096 --op nt --dtype bf16 --cold > $OUT/llm-cold.txt 2>&1; echo "llm cold exit $? at $((SECONDS-t0)) s"
timeout 60 $G tune --explain 1536x1536x1536,1000x1000x1000,2048x2048x2048,1536x1536x1536 --op nn --dtype bf16 > $OUT/squares.txt 2>&1; echo "squares exit $? at $((SECONDS-t0)) s"
timeout 60 $G tune --explain 1536x1536x1536 --op nn --dtype bf16 --cold > $OUT/squares-cold.txt 2>&1; echo "squares cold exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|192x128x64 ws  +1 " $OUT/llm.txt $OUT/llm-cold.txt $OUT/squares.txt $OUT/squares-cold.txt
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 300 bash scripts/gpu-check.sh $OUT/sets bench-llm bench-half-mixed > $OUT/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check.log | head -8
echo "total $((SECONDS-t0)) s"
