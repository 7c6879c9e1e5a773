#!/usr/bin/env bash
# Session 2026-11-29r, call 4, one H200: the packed build of build/carry.commit (04a4e58).
# tune --explain over the batched set's shapes (bf16, nn and nt), warm and with L2 flushed:
# where the model's pick is not the fastest option.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
S=64x64x64@1024,128x128x64@1024,256x256x64@256,512x512x64@64,512x512x128@32,128x128x128@512,256x256x128@128,512x64x128@256,64x512x64@512,64x64x64@4096,128x128x128@1024,256x256x256@256
timeout 150 $G tune --explain $S --op nn,nt --layout row --dtype bf16 > $OUT/explain-batched.txt 2>&1; echo "explain batched exit $? at $((SECONDS-t0)) s"
timeout 150 $G tune --explain $S --op nn,nt --layout row --dtype bf16 --cold > $OUT/explain-batched-cold.txt 2>&1; echo "explain batched cold exit $? at $((SECONDS-t0)) s"
for f in explain-batched explain-batched-cold; do echo "$f: $(grep -c "^bf16" $OUT/$f.txt) shapes, $(grep -c "model <- fastest" $OUT/$f.txt) with the model pick fastest"; done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
