#!/usr/bin/env bash
# Session 2026-11-29o, call 9: the 4096^3 / 8192^3 rates (row-major NN) of rung 16's 32x32 and
# 64x32 tiles and rung 17's 32x32 tile, as auto's model takes its rates.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o8bin; rm -rf $B && mkdir -p $B && tar xJf build/o8.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
for only in "tf32X 32x32x32" "tf32X 64x32x32" "tf32x3X 32x32x32" "tf32 64x64x32 w32x32 s4" "tf32x3 64x32x32"; do
  timeout 100 $B/gemmlab_tile_sweep --only "$only" --sizes 4096,8192 --op nn --reps 5 >> $OUT/rates.txt 2>&1; echo "rates '$only' exit $? at $((SECONDS-t0)) s"
done
grep GFLOP $OUT/rates.txt | grep -v cublas
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
