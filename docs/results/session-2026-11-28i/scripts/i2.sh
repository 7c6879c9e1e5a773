#!/usr/bin/env bash
# Session 2026-11-28i, call 2: i2 = the reconstruction with K from a 32-bit fixed-point sum
# (float, up to 8 moduli) and two row blocks per thread. The Ozaki GPU tests; the float 8192^3
# reconstruction and split under ncu with their executed opcodes by name; every rung-31 kernel's
# time (float 8192^3, double 4096^3); gpu-check's ozaki step (bench and accuracy).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=i2
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
$B/tests/test_ozaki --gtest_filter='*Int64*' 2>&1 | grep -E "count 8|OK|FAILED"
for k in reconstruct split_kernel; do
  timeout 100 ncu --clock-control none -k "regex:$k" --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread --print-metric-instances details $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$k.txt 2>&1
  echo "$k: $(grep -E 'gpu__time_duration|issue_active' $OUT/ncu-$k.txt | head -4 | awk '{print $NF}' | tr '\n' ' ') at $((SECONDS-t0)) s"
done
mkdir -p $OUT/ncu
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-f32-8192.csv 2>&1
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f64 --sizes 4096 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-f64-4096.csv 2>&1
echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
grep -E "f32.*(8192|16384)|f64.*(4096|8192)" $OUT/gc/ozaki-bench.log | head -20
grep -A4 "f32, wide" $OUT/gc/ozaki-accuracy.log
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
