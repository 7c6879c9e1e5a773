#!/usr/bin/env bash
# Session 2026-11-29n, call 7: racecheck stopped on n6's first kernel (an internal sanitizer
# error). Racecheck over auto one shape at a time: a row on an untransposed rung 24 tile first
# (does racecheck run this skeleton here at all), then each transposed tile alone.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); n7=$(cat build/carry.commit)"
G=build/device/gemmlab
for s in 128x3072x2048 512x4608x3584:nn 128x4571x3584 512x3000x2048 500x4571x3584; do
  shape=${s%%:*}; op=nt; [ "$s" != "$shape" ] && op=${s#*:}
  timeout 60 compute-sanitizer --tool racecheck --kernel-name kns=warp_specialized $G bench --kernels auto --dtype bf16 --layout row --op $op --shapes $shape --reps 1 --min-time 0 > $OUT/racecheck-$shape-$op.txt 2>&1
  echo "racecheck $shape $op exit $? at $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|Internal|PASS|FAIL' $OUT/racecheck-$shape-$op.txt | tr '\n' ' ' | cut -c1-300)"
  timeout 20 $G tune --explain $shape --op $op --layout row --dtype bf16 2>&1 | grep "auto ("
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
