#!/usr/bin/env bash
# Session 2026-11-28j, call 1: j1 = the practical allowance (kept elements within 32u of the estimated sum |a||b|).
# The Ozaki tests (GPU and CPU); rung 31's kernel times at float 8192^3 (ncu); gpu-check's ozaki step.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=j1
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 60 $B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(grep -E "^\[  (PASSED|FAILED) " $OUT/test_ozaki.log | tr "\n" " ")"; grep "wide range" $OUT/test_ozaki.log
mkdir -p $OUT/ncu
for r in 1; do
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-f32-8192-$r.csv 2>&1
done
echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
grep split_kernel $OUT/ncu/ncu-f32-8192-1.csv | grep issue_active | awk -F'","' '{print $NF}' | tr '\n' ' '; echo
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-900
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
