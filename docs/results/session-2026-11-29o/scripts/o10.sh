#!/usr/bin/env bash
# Session 2026-11-29o, call 10: fill_k of rung 16's 64x32 and 32x32 tiles and rung 17's 32x32
# tile, measured as rung 17's 64x32 was: strided batches of short-k products (the batched
# preset's shapes with k >= 64), each tile's time against the model without a fill.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o10bin; rm -rf $B && mkdir -p $B && tar xJf build/o10.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
for sb in 64x64x64:1024 128x128x64:1024 256x256x64:256 512x512x64:64 512x512x128:32 128x128x128:512 256x256x128:128; do
  for only in "tf32x3 64x32x32" "tf32x3 32x32x32" "tf32 32x32x32" "tf32 64x32x32" "tf32 64x64x32 w32x32"; do
    timeout 60 $B/gemmlab_tile_sweep --only "$only" --shapes ${sb%%:*} --batch ${sb##*:} --op nn --reps 10 >> $OUT/batched.txt 2>&1
  done; echo "$sb at $((SECONDS-t0)) s"
done
grep GFLOP $OUT/batched.txt | grep -v cublas | sed -E 's/ +/ /g' | cut -d' ' -f1-12
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
