#!/usr/bin/env bash
# Session 2026-11-29n, call 8: build n8 (92d3985 + the transposed tiles in 2-block clusters that
# share the tokens' tile by multicast, listed as options the model never picks): the every-option
# test, then `tune --explain` warm and cold on the LLM rows the transposed tiles take.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/n8bin; rm -rf $B && mkdir -p $B && tar xJf build/n8.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
timeout 120 $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound:TuneGpu.TransposedTilesMeetTheBound' > $OUT/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/test_tune_gpu.txt | head
S=128x4608x3584,128x6144x4096,256x4608x3584,256x6144x4096,512x4608x3584,512x3072x2048,128x10240x8192,128x18944x3584,64x10240x8192,1024x4608x3584
timeout 120 $B/gemmlab tune --explain $S --op nt --layout row --dtype bf16 > $OUT/explain.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
timeout 150 $B/gemmlab tune --explain $S --op nt --layout row --dtype bf16 --cold > $OUT/explain-cold.txt 2>&1; echo "explain cold exit $? at $((SECONDS-t0)) s"
for f in explain explain-cold; do echo "== $f"; grep -E "^bf16|cublas|transposed  .*  1  " $OUT/$f.txt | sed 's/alpha=1 beta=0//; s/persistent //; s/ ws transposed/ t/' | awk '{$1=$1; print}' | paste -sd' ' | sed 's/bf16 row nt/\n/g'; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
