#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
G=bin/gemmlab
for s in 128x8192x2048 128x4608x3584 64x18944x3584; do
  timeout 60 $G bench --kernels cublas,auto --dtype bf16 --layout row --op nt --shapes $s 2>&1 | grep -E "auto|cublas" | head -4
done
timeout 60 $G bench --kernels cublas,auto --dtype bf16 --layout row --op nt --shapes 128x8192x2048,128x4608x3584,64x18944x3584 --json $OUT/three.json 2>&1 | grep -E "auto|cublas" | head -8
timeout 100 gap/gap 128x8192x2048 128x4608x3584 64x18944x3584 2>&1 | tee $OUT/gap.txt
