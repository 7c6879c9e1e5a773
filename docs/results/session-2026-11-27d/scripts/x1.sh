#!/usr/bin/env bash
# Few-tile split (tail split with no whole wave) on the LLM rows: tune --explain, knob 4 and 8.
set -u
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
t0=$SECONDS
L=16x3072x2048,16x4608x3584,16x6144x4096,64x2048x2048,64x3072x2048,64x3584x3584,64x4608x3584,64x4096x4096,128x2048x2048,128x3584x3584,128x4608x3584,128x6144x4096,128x4096x4096,128x8192x8192,512x2048x2048,512x3072x2048,512x4608x3584,512x6144x4096,512x2048x8192
GEMMLAB_X_FEWMIN=4 timeout 200 $G tune --explain $L --op nt > $OUT/llm-warm-4.txt 2>&1; echo "warm 4 exit $? at $((SECONDS-t0)) s"
GEMMLAB_X_FEWMIN=8 timeout 200 $G tune --explain $L --op nt > $OUT/llm-warm-8.txt 2>&1; echo "warm 8 exit $? at $((SECONDS-t0)) s"
GEMMLAB_X_FEWMIN=4 timeout 170 $G tune --explain $L --op nt --cold > $OUT/llm-cold-4.txt 2>&1; echo "cold 4 exit $? at $((SECONDS-t0)) s"
