#!/usr/bin/env bash
# Session 2026-11-29s, call 4, one H200: call 2's build plus rung 15's rotating mainloop on
# m16n8k16 DMMA (32-deep k tiles: two steps a tile), packed. Every DMMA tile beside cuBLAS on
# the double squares of s2.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
for so in "256x256x256:nn,nt" "512x512x512:nn,nt,tn,tt" "768x768x768:nn,nt" "1000x1000x1000:nn,nt,tn,tt" "1024x1024x1024:nn,nt" "1536x1536x1536:nn" "2048x2048x2048:nn" "6144x1536x2048:nn,nt" "4095x4097x1023:nn"; do
  s=${so%%:*}; o=${so##*:}
  timeout 120 $B/gemmlab_tile_sweep --shapes $s --op $o --reps 30 --only dmma > $OUT/sweep-$s.log 2>&1; echo "sweep $s exit $? at $((SECONDS-t0)) s"
  grep -hE "^cublas +f64|k16 rotating|32x32x32 w16x16 s5 k16 |64x64x16 w32x16 s4 k8 rotating|128x64x16 w32x32 s4 k8 rotating" $OUT/sweep-$s.log | sed -E 's/ +f64 +/ /; s/diff.*//; s/ +[0-9]+ +[0-9]+ +[0-9]+ x1 +/ /' | cut -c1-90
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
