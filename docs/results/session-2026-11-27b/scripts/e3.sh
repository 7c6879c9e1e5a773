#!/usr/bin/env bash
# Rung 27 mma.sync, double-buffered cp.async: gemmlab only, tiny batched rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/e2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
S=${S:-16x16x16@100000,32x32x32@16384,32x32x128@8192,32x32x512@2048,64x64x64@1024,64x64x64@4096,128x128x64@1024,64x512x64@512,512x64x128@256,48x48x64@4096,96x96x64@1024}
for mode in warm cold; do
  c=""; [ $mode = cold ] && c="--cold"
  timeout 140 stdbuf -oL $G bench --dtype bf16 --kernels cublas,small,auto --layout row --op nn,nt --shapes $S $c > $OUT/tiny-$mode.log 2>&1; echo "tiny $mode exit $? at $((SECONDS-t0)) s"
done
echo "total $((SECONDS-t0)) s"
