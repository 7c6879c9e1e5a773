#!/usr/bin/env bash
# Phase stamps (globaltimer) of the Hopper kernel on few-tile rows: every option tune --explain runs.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
t0=$SECONDS
for s in 64x2048x2048 128x3584x3584 512x4608x3584 4096x4096x4096; do
GEMMLAB_X_MAXPIECES=4 GEMMLAB_X_TRACE=1 timeout 100 $G tune --explain $s --op nt > $OUT/trace-$s.txt 2>&1; echo "$s exit $? at $((SECONDS-t0)) s"
done
cd $OUT && tar czf traces.tgz trace-*.txt && rm trace-*.txt
