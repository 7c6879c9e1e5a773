#!/usr/bin/env bash
# Session 2026-11-29p, call 3: tune --explain (every option auto weighs, timed beside cuBLAS) on
# the batched attention rows that trail in BF16, warm and with the L2 flushed; the committed
# build (build/carry.commit).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); p3=$(cat build/carry.commit)"
G=build/device/gemmlab
S=512x64x128@256,64x64x64@1024,64x512x64@512,512x512x128@32,512x512x64@64,256x256x128@128
timeout 120 $G tune --explain $S --op nn,nt --layout row --dtype bf16 > $OUT/explain-batched.txt 2>&1; echo "explain warm exit $? at $((SECONDS-t0)) s"
timeout 120 $G tune --explain $S --op nn,nt --layout row --dtype bf16 --cold > $OUT/explain-batched-cold.txt 2>&1; echo "explain cold exit $? at $((SECONDS-t0)) s"
grep -hE "^bf16|auto \(" $OUT/explain-batched.txt $OUT/explain-batched-cold.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
