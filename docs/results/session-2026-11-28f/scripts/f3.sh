#!/usr/bin/env bash
# Session 2026-11-28f, call 3: where rung 31's wall time goes beyond its kernels. nsys timelines
# of `gemmlab bench --kernels int8_emulation` (f2's build), double 4096^3 and float 8192^3: each
# kernel's duration in the running process (not serialized as under ncu) and the gaps between
# them, summed per call by scripts/nsys-gaps.py.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p build/run/f2 && tar -C build/run/f2 -xJf build/f2.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); f2=$(cat build/run/f2/COMMIT | head -1)"
B=$PWD/build/run/f2; export LD_LIBRARY_PATH=$B
NSYS=$(command -v nsys || find /opt/nvidia -name nsys -type f | head -1); echo "nsys: $NSYS"
for c in "f64 4096" "f32 8192"; do set -- $c
  timeout 120 $NSYS profile -t cuda -o $OUT/nsys-$1-$2 --force-overwrite true $B/gemmlab bench --kernels cublas,int8_emulation --dtype $1 --sizes $2 --reps 5 --min-time 0 --seed 5 > $OUT/bench-$1-$2.log 2>&1
  echo "nsys $1 $2 exit $? at $((SECONDS-t0)) s"
  timeout 120 $NSYS stats -r cuda_gpu_trace -f csv -o $OUT/trace-$1-$2 $OUT/nsys-$1-$2.nsys-rep > /dev/null 2>&1
  ls $OUT | grep trace-$1
  python3 docs/results/session-2026-11-28f/scripts/nsys-gaps.py $OUT/trace-$1-$2*.csv
done
rm -f $OUT/*.nsys-rep $OUT/*.sqlite
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
