#!/usr/bin/env bash
# Build 2c699a7 (packed): tune --explain in double on the mixed set's weak squares (warm), and
# the float ones (for the 128-512 rows).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
timeout 200 $G tune --explain 256x256x256,512x512x512,1024x1024x1024,1000x1000x1000,2048x2048x2048 --op nn,nt --layout row --dtype f64 > $OUT/explain-f64.txt 2>&1; echo "f64 exit $? at $((SECONDS-t0)) s"
grep -E "^f64|auto \(|fastest" $OUT/explain-f64.txt
echo "total $((SECONDS-t0)) s"
