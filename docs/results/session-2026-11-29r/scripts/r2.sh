#!/usr/bin/env bash
# Session 2026-11-29r, call 2, one H200: 333c1a0 with the 64 x 128 tile allowed on strided
# batches (auto_select.cu's flat_limits without native_batch = false), packed. tune --explain
# (every option the model weighs, timed beside cuBLAS and auto) on batched shapes whose pick that
# moves to the tile: a 64-wide side (row-major n = 64) at batch 32 and 256, and 256 x 128 at
# batch 32; nn and nt.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 30 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_auto_model.log | tr '\n' ' ')"
timeout 250 $G tune --explain 512x64x128@256,4096x64x2048@32,1024x64x64@32,18944x64x1024@32,768x64x512@32,1280x64x128@32,8192x64x4096@32,256x128x1024@32,256x128x4096@32 --op nn,nt --layout row --dtype bf16 > $OUT/explain-batched.txt 2>&1; echo "explain batched exit $? at $((SECONDS-t0)) s"
grep -hE "^bf16|auto \(|<- " $OUT/explain-batched.txt | head -80
timeout 150 $G tune --explain 512x64x128@256,4096x64x2048@32,256x128x1024@32 --op nt --layout row --dtype bf16 --cold > $OUT/explain-batched-cold.txt 2>&1; echo "explain batched cold exit $? at $((SECONDS-t0)) s"
grep -hE "^bf16|auto \(|<- " $OUT/explain-batched-cold.txt | head -30
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
