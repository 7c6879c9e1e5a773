#!/usr/bin/env bash
# Every option auto weighs for double (and float) on the mixed set's weak squares.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 100 $G tune --explain 256x256x256,512x512x512,1000x1000x1000,1024x1024x1024,2048x2048x2048,4095x4097x1023 --dtype f64 --op nn,nt > $OUT/f64.txt 2>&1; echo "f64 exit $? at $((SECONDS-t0)) s"
timeout 60 $G tune --explain 128x128x128,256x256x256,512x512x512 --dtype f32 --op nt > $OUT/f32.txt 2>&1; echo "f32 exit $? at $((SECONDS-t0)) s"
grep -E "^f|auto \(" $OUT/f64.txt $OUT/f32.txt | paste - - | sed 's/  */ /g' | cut -c1-180
