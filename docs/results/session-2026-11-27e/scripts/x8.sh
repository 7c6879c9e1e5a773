#!/usr/bin/env bash
# TF32 mode with a fill cost for wgmma_tf32 in the model: every option on squares and a long-k product.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 120 $G tune --explain 128x128x128,256x256x256,384x384x384,512x512x512,768x768x768,1024x1024x1024,1536x1536x1536,2048x2048x2048,256x256x8192,4096x4096x4096 --dtype f32 --precision tf32 --op nt,nn > $OUT/tf32.txt 2>&1; echo "tf32 exit $? at $((SECONDS-t0)) s"
grep -E "^f32|auto \(|fastest" $OUT/tf32.txt | sed 's/  */ /g' | cut -c1-120
