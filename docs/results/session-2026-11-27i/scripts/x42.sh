#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
G=bin/gemmlab
for h in 100000 1000000 100000; do
  echo "hold $h"
  XHOLD=$h timeout 60 $G bench --kernels cublas,auto --dtype bf16 --layout row --op nt --shapes 128x8192x2048,128x4608x3584,1x4608x3584 2>&1 | grep -E "^(-|0) " | head -8
done
