#!/usr/bin/env bash
# Session 2026-11-29s, call 5, one H200: call 4's build plus 32 x 64 tiles of eight 16 x 16
# warps (rotating and not), packed. The rate of rung 15's 128 x 64 tiles of eight warps with
# 32-deep k tiles on m16n8k16 (what auto's model reads: the lower of 4096^3 and 8192^3) beside
# the m16n8k8 tiles auto runs now; and the small squares with the eight-warp 32 x 64 tiles.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
for only in "dmma 128x64x32 w32x32 s3 k16 rotating" "dmma 128x64x16 w32x32 s4 k8 rotating"; do
  for rep in 1 2; do
    timeout 120 $B/gemmlab_tile_sweep --sizes 4096,8192 --reps 10 --only "$only" > $OUT/rate-$(echo $only | tr ' ' '_')-$rep.log 2>&1; echo "rate $only ($rep) exit $? at $((SECONDS-t0)) s"
    grep -hE "^dmma" $OUT/rate-$(echo $only | tr ' ' '_')-$rep.log | sed -E 's/ +f64 +/ /; s/diff.*//' | cut -c1-120
  done
done
for so in "256x256x256:nn,nt,tn,tt" "512x512x512:nn,nt,tn,tt" "384x384x384:nn,nt" "640x640x640:nn,nt" "6144x1536x2048:tn,tt" "1000x1000x1000:nn,nt"; do
  s=${so%%:*}; o=${so##*:}
  timeout 120 $B/gemmlab_tile_sweep --shapes $s --op $o --reps 30 --only dmma > $OUT/sweep-$s.log 2>&1; echo "sweep $s exit $? at $((SECONDS-t0)) s"
  grep -hE "^cublas +f64|32x64x32 w16x16|32x32x32 w16x16 s5 k16 |128x64x32 w32x32 s3 k16 rotating|64x64x16 w32x16 s4 k8 rotating|128x64x16 w32x32 s4 k8 rotating|128x64x16 w64x32 s3 g16 k8 rotating" $OUT/sweep-$s.log | sed -E 's/ +f64 +/ /; s/diff.*//; s/ +[0-9]+ +[0-9]+ +[0-9]+ x1 +/ /; s/GFLOP.s//' | cut -c1-90
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
