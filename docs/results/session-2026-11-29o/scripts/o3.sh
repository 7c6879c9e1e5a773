#!/usr/bin/env bash
# Session 2026-11-29o, call 3: rung 15's new tiles (32x32 w16x16, 8-warp 128x64 rotating, now
# with the edge blocks' copy path) on odd and medium sizes, and their 4096^3 / 8192^3 rates.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o3bin; rm -rf $B && mkdir -p $B && tar xJf build/o3.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
S=200,300,500,640,700,1000,1200
for only in "w32x32 s4 k8 rotating" "w16x16" "64x64x16 w32x32 s4 k16" "32x64x16 w16x32 s4 k16"; do
  timeout 100 $B/gemmlab_tile_sweep --only "$only" --sizes $S --op nn,nt,tn --reps 20 >> $OUT/sweep-odd.txt 2>&1; echo "sweep odd '$only' exit $? at $((SECONDS-t0)) s"
done
for only in "w32x32 s4 k8 rotating" "w32x32 s3 k8 rotating" "w16x16 s5 k16" "128x64x16 w64x32 s4 g16 k8 rotating"; do
  timeout 100 $B/gemmlab_tile_sweep --only "$only" --sizes 4096,8192 --op nn --reps 5 >> $OUT/sweep-rates.txt 2>&1; echo "sweep rates '$only' exit $? at $((SECONDS-t0)) s"
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
