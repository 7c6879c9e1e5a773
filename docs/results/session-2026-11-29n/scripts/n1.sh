#!/usr/bin/env bash
# Session 2026-11-29n, call 1: rung 24's transposed tiles (64 x 96, 128 x 144) as auto options:
# the every-option test, then `tune --explain` on the LLM set's 64-512-token rows that trail
# (BF16 row-major nt), build n1 (uncommitted tree on 1d2... see COMMIT).
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/n1bin; rm -rf $B && mkdir -p $B && tar xJf build/n1.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
timeout 200 $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound' > $OUT/every-option.txt 2>&1; echo "every-option exit $? at $((SECONDS-t0)) s"
grep -E "PASSED|FAILED|Failure" $OUT/every-option.txt | head -20
timeout 330 $B/gemmlab tune --explain 128x4608x3584,128x6144x4096,128x3584x3584,128x8192x2048,128x3072x2048,128x8192x8192,512x4608x3584,512x3072x2048,512x2048x2048,512x10240x8192,64x3584x3584,64x10240x8192,64x18944x3584,256x3072x2048 --op nt --layout row --dtype bf16 > $OUT/explain-llm.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|fastest|transposed" $OUT/explain-llm.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
