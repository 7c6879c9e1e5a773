#!/usr/bin/env bash
# Session 2026-11-29r, call 3, one H200: the packed build of build/carry.commit. tune --explain
# (every option the model weighs, timed beside cuBLAS and auto) over the LLM set's rows at 64,
# 128 and 512 tokens (row-major nt), warm and with L2 flushed, and the medium squares 1000^3 and
# 1024^3 in the four op pairs: where the model's pick is not the fastest option.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
S=64x3072x2048,64x2048x2048,64x8192x2048,64x2048x8192,64x4608x3584,64x3584x3584,64x18944x3584,64x3584x18944,64x6144x4096,64x4096x4096,64x14336x4096,64x4096x14336,64x10240x8192,64x8192x8192,64x28672x8192,64x8192x28672,128x3072x2048,128x2048x2048,128x8192x2048,128x2048x8192,128x4608x3584,128x3584x3584,128x18944x3584,128x3584x18944,128x6144x4096,128x4096x4096,128x14336x4096,128x4096x14336,128x10240x8192,128x8192x8192,128x28672x8192,128x8192x28672,512x3072x2048,512x2048x2048,512x8192x2048,512x2048x8192,512x4608x3584,512x3584x3584,512x18944x3584,512x3584x18944,512x6144x4096,512x4096x4096,512x14336x4096,512x4096x14336,512x10240x8192,512x8192x8192,512x28672x8192,512x8192x28672
timeout 200 $G tune --explain $S --op nt --layout row --dtype bf16 > $OUT/explain-llm.txt 2>&1; echo "explain llm exit $? at $((SECONDS-t0)) s"
timeout 200 $G tune --explain $S --op nt --layout row --dtype bf16 --cold > $OUT/explain-llm-cold.txt 2>&1; echo "explain llm cold exit $? at $((SECONDS-t0)) s"
timeout 100 $G tune --explain 1000x1000x1000,1024x1024x1024,1000x1000x4000 --op nn,nt,tn,tt --layout row --dtype bf16 > $OUT/explain-medium.txt 2>&1; echo "explain medium exit $? at $((SECONDS-t0)) s"
for f in explain-llm explain-llm-cold explain-medium; do echo "$f: $(grep -c "^bf16" $OUT/$f.txt) shapes, $(grep -c "model <- fastest" $OUT/$f.txt) with the model pick fastest"; done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
