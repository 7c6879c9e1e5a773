#!/usr/bin/env bash
# Session 2026-11-29o, call 6: rung 15's 64x64 tile as eight 32x16 warps on the rotating mainloop:
# its 4096^3 / 8192^3 rate, medium squares beside the tiles auto lists, and strided batches.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o5bin; rm -rf $B && mkdir -p $B && tar xJf build/o5.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
X="dmmaX 64x64x16 w32x16 s4 k8 rotating"
timeout 100 $B/gemmlab_tile_sweep --only "$X" --sizes 4096,8192 --op nn --reps 5 >> $OUT/rates.txt 2>&1; echo "rates exit $? at $((SECONDS-t0)) s"
for only in "$X" "dmma 64x64x16 w32x32 s4 k16" "dmma 128x64x16 w32x32" "dmma 128x128x16 w64x32 s4 g16" "dmma 128x64x16 w64x32 s4 g16 k8 rotating" "dmma 32x64x16 w16x32 s4 k16"; do
  timeout 100 $B/gemmlab_tile_sweep --only "$only" --sizes 1000,1024,1200,2048,3000 --op nn,nt --reps 10 >> $OUT/medium.txt 2>&1; echo "medium '$only' exit $? at $((SECONDS-t0)) s"
done
for only in "$X" "dmma 64x64x16 w32x32 s4 k16" "dmma 32x32x32" "dmma 128x128x16 w64x32 s4 g16"; do
  for sb in 64x64x64:1024 128x128x64:512 256x256x128:128 512x512x64:64; do
    timeout 60 $B/gemmlab_tile_sweep --only "$only" --shapes ${sb%%:*} --batch ${sb##*:} --op nn,nt --reps 10 >> $OUT/batched.txt 2>&1
  done; echo "batched '$only' at $((SECONDS-t0)) s"
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
