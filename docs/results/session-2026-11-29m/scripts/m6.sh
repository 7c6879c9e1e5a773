#!/usr/bin/env bash
# Session 2026-11-29m, call 6: `tune --explain` in BF16 on the half mixed set's weakest rows
# (1024^3, 1024 x 1024 x 8192, 1000^3, 512^3; row-major nn, nt, tn), build m5.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/m5bin; rm -rf $B && mkdir -p $B && tar xJf build/m5.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat $B/COMMIT | tr '\n' ' ')"
t0=$SECONDS
timeout 150 $B/gemmlab tune --explain 1024x1024x1024,1024x1024x8192,1000x1000x1000,512x512x512 --op nn,nt,tn --layout row --dtype bf16 > $OUT/explain-bf16.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|fastest" $OUT/explain-bf16.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
