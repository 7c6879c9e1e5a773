#!/usr/bin/env bash
# Session 2026-11-29p, call 5: rung 15's rotating tiles (gemmlab_tile_sweep --only "k8 rotating",
# each beside cuBLAS DGEMM in the same invocation) on products whose 128x64 tiles make about one
# wave: the class where auto takes 128x64 in eight warps, against 64x64 in eight warps.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); p5=$(cat build/carry.commit)"
B=build/device
S=1000x1000x1000,1024x1024x1024,896x1024x512,1024x896x2048,640x1536x1024,1536x640x256,512x2048x256,2048x512x1024,256x4096x1024,4096x256x512,128x8192x512,8192x128x1024,768x1280x2048,1152x768x128,960x960x1000
timeout 200 $B/gemmlab_tile_sweep --only "k8 rotating" --shapes $S --op nn,nt --reps 10 > $OUT/single.txt 2>&1; echo "single exit $? at $((SECONDS-t0)) s"
for sb in 128x128x1024:64 128x1024x512:8 256x512x256:8; do
  timeout 60 $B/gemmlab_tile_sweep --only "k8 rotating" --shapes ${sb%%:*} --batch ${sb##*:} --op nn,nt --reps 10 >> $OUT/batched.txt 2>&1; echo "batched $sb exit $? at $((SECONDS-t0)) s"
done
grep -c GFLOP $OUT/single.txt $OUT/batched.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
