#!/usr/bin/env bash
# Session 2026-11-28i, call 3: i3 = i2 + the reconstruction's element loop in four copies (every
# element in range or not, beta zero or not) and float's unscale without the range check. The
# Ozaki GPU tests and memcheck on them; every rung-31 kernel's time (float 8192^3, double 4096^3)
# and the reconstruction's instruction count; gpu-check's ozaki step; float 8192^3 beside SGEMM
# twice more with bench's defaults.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=i3
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
$B/tests/test_ozaki 2>&1 | grep -E "^\[  (PASSED|FAILED) "
timeout 200 compute-sanitizer --tool memcheck $B/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 100 ncu --clock-control none -k "regex:reconstruct" --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread --print-metric-instances details $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-reconstruct.txt 2>&1
echo "reconstruct: $(grep -E 'gpu__time_duration|issue_active|inst_executed.sum' $OUT/ncu-reconstruct.txt | head -3 | awk '{print $NF}' | tr '\n' ' ') at $((SECONDS-t0)) s"
mkdir -p $OUT/ncu
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-f32-8192.csv 2>&1
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f64 --sizes 4096 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-f64-4096.csv 2>&1
echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
for r in 1 2; do timeout 120 $B/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$r.log 2>&1; grep -E "^ *(cublas|int8)" $OUT/bench-f32-8192-$r.log | tr -s ' ' | cut -c1-120; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
