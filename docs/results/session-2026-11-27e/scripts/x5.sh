#!/usr/bin/env bash
# 256x8192x4096 (aligned, warm): auto's pick per op and the bench rows twice, in two orders.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
for op in nn nt tn tt; do timeout 60 $G tune --explain 256x8192x4096 --op $op > $OUT/explain-$op.txt 2>&1; grep "auto (" $OUT/explain-$op.txt | sed "s/^/$op /"; done
for rep in 1 2; do
timeout 100 $G bench --dtype bf16,f16 --kernels cublas,auto --reps 5 --min-time 50 --shapes 256x8192x4096,128x128x128,1000x1000x1000 --op all > $OUT/bench-$rep.txt 2>&1; grep -E "256x8192x4096|^ *auto|cublas" $OUT/bench-$rep.txt | grep -E "256x8192|x cuBLAS|%" | head -20
done
tar -C $OUT -czf $OUT/all.tgz $(cd $OUT && ls *.txt) && rm -f $OUT/*.txt
