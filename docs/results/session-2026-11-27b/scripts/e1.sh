#!/usr/bin/env bash
# Model calibration: `gemmlab tune --explain` on LLM rows at 16-512 tokens, medium squares and the
# weak batched rows, warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/e1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
L=16x4608x3584,16x6144x4096,16x14336x4096,64x2048x2048,64x3072x2048,64x3584x3584,64x4608x3584,64x4096x4096,64x18944x3584,64x8192x8192,128x2048x2048,128x3584x3584,128x4608x3584,128x6144x4096,128x8192x2048,128x8192x8192,512x3072x2048,512x4608x3584,512x6144x4096,512x2048x8192,2048x4608x3584
for mode in warm cold; do
  c=""; [ $mode = cold ] && c="--cold"
  timeout 150 $G tune --explain $L --op nt $c > $OUT/llm-$mode.txt 2>&1; echo "llm $mode exit $? at $((SECONDS-t0)) s"
  timeout 60 $G tune --explain 1000x1000x1000,1024x1024x1024,1536x1536x1536,2047x2047x2047,3000x3000x3000,4096x1024x1000 --op nn $c > $OUT/medium-$mode.txt 2>&1; echo "medium $mode exit $? at $((SECONDS-t0)) s"
  timeout 60 $G tune --explain 64x512x64@512,64x64x64@1024,32x32x32@16384,512x64x128@256,128x128x64@1024,512x512x64@64 --op nn,nt $c > $OUT/batched-$mode.txt 2>&1; echo "batched $mode exit $? at $((SECONDS-t0)) s"
done
echo "total $((SECONDS-t0)) s"
