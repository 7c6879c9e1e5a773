#!/usr/bin/env bash
# Build 907370f (packed): tune --explain for float in TF32 mode on the mixed set's weak rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
timeout 200 $G tune --explain 1024x1024x1024,512x512x512,8192x256x4096,6144x1536x2048 --op nt,tt --layout row --dtype f32 --precision tf32 > $OUT/explain-tf32.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^f32|auto \(|fastest" $OUT/explain-tf32.txt
