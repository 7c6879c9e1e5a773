#!/usr/bin/env bash
# Session 2026-11-29o, call 8: rung 16 (TF32 mode, beside cuBLAS in TF32 mode) and rung 17
# (3xTF32, beside SGEMM) on tiles for small and medium squares (32x32, 32x64, 64x32, 8-warp
# 64x64 and 128x64), all four op pairs.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o8bin; rm -rf $B && mkdir -p $B && tar xJf build/o8.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
for only in "tf32 64x64x32 w32x32 s4" "tf32X"; do
  timeout 120 $B/gemmlab_tile_sweep --only "$only" --sizes 128,256,384,512,768,1024 --op nn,nt,tn,tt --reps 20 --cublas-tf32 1 >> $OUT/sweep-tf32.txt 2>&1; echo "tf32 '$only' exit $? at $((SECONDS-t0)) s"
done
for only in "tf32x3 64x32x32" "tf32x3 64x64x32" "tf32x3X"; do
  timeout 100 $B/gemmlab_tile_sweep --only "$only" --sizes 128,256,384,512 --op nn,nt,tn,tt --reps 20 >> $OUT/sweep-tf32x3.txt 2>&1; echo "tf32x3 '$only' exit $? at $((SECONDS-t0)) s"
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
