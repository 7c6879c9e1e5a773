#!/usr/bin/env bash
# The LLM set's weak rows (16-128 tokens) and the batched set's weakest: every option, warm and
# cold, and ncu of the batched 64^3 x 1024 under cuBLAS, auto and rung 24's slim tile.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
L=16x4608x3584,16x6144x4096,64x4096x4096,64x4608x3584,128x3072x2048,128x8192x2048,128x4608x3584,128x2048x2048
timeout 150 $G tune --explain $L --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
timeout 150 $G tune --explain $L --op nt --dtype bf16 --cold > $OUT/llm-cold.txt 2>&1; echo "llm cold exit $? at $((SECONDS-t0)) s"
B=64x64x64@1024,512x64x128@256,64x512x64@512,256x256x64@256
timeout 100 $G tune --explain $B --op nn,nt --dtype bf16 > $OUT/batched.txt 2>&1; echo "batched exit $? at $((SECONDS-t0)) s"
timeout 90 ncu --clock-control none --set full -k regex:'nvjet|warp_specialized|mma_sync|small' --launch-count 6 $G bench --kernels cublas,24,auto --dtype bf16 --shapes 64x64x64@1024 --op nt --reps 1 --min-time 0 > $OUT/ncu-batched.txt 2>&1; echo "ncu exit $? at $((SECONDS-t0)) s"
echo "total $((SECONDS-t0)) s"
