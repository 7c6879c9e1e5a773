#!/usr/bin/env bash
# Session 2026-11-29l, call 8: l8 = a72047b + the reconstruction's loads a pointer step apart, bounds tested once
# for a whole thread's elements (86 registers for float's eight moduli, from 80); l3 (= a72047b's kernels)
# beside it. The Ozaki GPU tests on l8, rung 31's passes under ncu for both builds twice,
# alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for N in l3 l8; do mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); l3=$(head -1 build/run/l3/COMMIT) l8=$(head -1 build/run/l8/COMMIT)"
B=$PWD/build/run/l8
LD_LIBRARY_PATH=$B timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2; do for N in l3 l8; do B=$PWD/build/run/$N; mkdir -p $OUT/ncu-$N-$r
for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$B timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|pingpong|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$N-$r/ncu-$1-$2.csv 2>&1
done; echo "ncu $N #$r: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$N-$r 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
