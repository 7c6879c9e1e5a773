#!/usr/bin/env bash
# Session 2026-11-29p, call 6: racecheck over rung 15's rotating tile (the registry's dmma row,
# 128x128) on copied operands (odd leading dimensions) and on aligned ones, one product each;
# the committed build (0ccb0d3's library).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); p6=$(cat build/carry.commit)"
G=build/device/gemmlab
for s in 259x131x520 260x130x520; do
  for op in nn tt; do
    timeout 100 compute-sanitizer --tool racecheck --kernel-name kns=mma_gemm_kernel $G bench --dtype f64 --kernels dmma --layout row --op $op --shapes $s --reps 1 --min-time 0 > $OUT/racecheck-$s-$op.log 2>&1
    echo "racecheck $s $op exit $? at $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|Internal' $OUT/racecheck-$s-$op.log | head -2) rows PASS $(grep -c ' PASS' $OUT/racecheck-$s-$op.log)"
  done
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
