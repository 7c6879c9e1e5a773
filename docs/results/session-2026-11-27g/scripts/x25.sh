#!/usr/bin/env bash
# 192 x 192 in 2-block clusters sharing A by multicast ("pair"), beside the plain tile: the
# every-option test, and every option where 192 x 192 is picked, warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 100 bin/test_tune_gpu --gtest_filter='TuneGpu.EveryOption*' > $OUT/tests-tune.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests-tune.txt | head
timeout 60 $G tune --explain 3000x3000x3000,3072x3072x3072,4096x4096x4096 --op nn --dtype bf16 > $OUT/squares.txt 2>&1; echo "squares exit $? at $((SECONDS-t0)) s"
timeout 60 $G tune --explain 2048x4608x3584,6144x1536x2048,8192x4608x3584 --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
timeout 60 $G tune --explain 3000x3000x3000 --op nn --dtype bf16 --cold > $OUT/squares-cold.txt 2>&1; echo "cold exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|192x192x64 ws  +1 |192x192x64 ws pair" $OUT/squares.txt $OUT/llm.txt $OUT/squares-cold.txt
echo "total $((SECONDS-t0)) s"
