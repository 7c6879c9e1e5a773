#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
timeout 200 gap/gap 128x8192x2048 128x4608x3584 512x4608x3584 64x18944x3584 16x4608x3584 1x4608x3584 1x2048x2048 2048x4096x4096 2>&1 | tee $OUT/gap.txt
