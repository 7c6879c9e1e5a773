#!/usr/bin/env bash
# Cluster split: cluster capacity (cudaOccupancyMaxActiveClusters) and pieces capped at 2, 4, 8.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
t0=$SECONDS
L=16x3072x2048,16x4608x3584,64x2048x2048,64x3584x3584,64x4096x4096,128x2048x2048,128x3584x3584,128x4608x3584,128x4096x4096,512x2048x2048
GEMMLAB_X_PRINT=1 timeout 60 $G bench --dtype bf16 --kernels cublas --layout row --op nt --shapes 64x2048x2048 --reps 1 --min-time 0 > /dev/null 2>&1
for v in 8 4 2; do
GEMMLAB_X_PRINT=1 GEMMLAB_X_MAXPIECES=$v timeout 150 $G tune --explain $L --op nt > $OUT/llm-warm-$v.txt 2>&1; echo "warm $v exit $? at $((SECONDS-t0)) s"; grep XKNOB $OUT/llm-warm-$v.txt | head -12
done
