#!/usr/bin/env bash
# Session 2026-11-29s, call 2, one H200: 73dd977 with six more rung 15 tiles in the tile sweep
# (32-deep k tiles in three stages, the shapes cuBLAS runs at 512^3 and 1000^3 per s1's ncu:
# 32 x 64 of 2 x 2 warps and 128 x 64 of 4 x 2 warps, m16n8k16; and the rotating mainloop on
# 32-deep k tiles), packed. Every DMMA tile beside cuBLAS on the mixed set's double squares that
# read under 0.95x, and a few more.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
for so in "256x256x256:nn,nt" "512x512x512:nn,nt,tn,tt" "768x768x768:nn,nt" "1000x1000x1000:nn,nt,tn,tt" "1024x1024x1024:nn,nt" "1536x1536x1536:nn" "2048x2048x2048:nn" "6144x1536x2048:nn,nt" "4095x4097x1023:nn"; do
  s=${so%%:*}; o=${so##*:}
  timeout 120 $B/gemmlab_tile_sweep --shapes $s --op $o --reps 30 --only dmma > $OUT/sweep-$s.log 2>&1; echo "sweep $s exit $? at $((SECONDS-t0)) s"
  grep -hE "^cublas +f64|^dmma" $OUT/sweep-$s.log | cut -c1-125
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
