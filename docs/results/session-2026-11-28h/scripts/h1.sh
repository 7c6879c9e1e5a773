#!/usr/bin/env bash
# Session 2026-11-28h, call 1: h1 = g7's tree with the row-range pass on 16-byte runs (no tile)
# and float's CRT in doubles in two parts. The GPU Ozaki tests; every rung-31 kernel under ncu
# (float 8192^3, double 4096^3); the row-range pass's DRAM reads; the float reconstruction's
# stalls and pipes; scripts/gpu-check.sh's ozaki step (bench and accuracy beside cuBLAS).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=h1
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(cat build/run/$N/COMMIT | tr '\n' ' ')"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
$B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki.log | tr '\n' ' ')"
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-$1-$2.csv 2>&1
done; echo "split: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
for c in "f32 8192" "f64 4096"; do set -- $c
timeout 60 ncu --clock-control none --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,gpu__time_duration.sum -k 'regex:row_range' -c 2 $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-row-range-$1-$2.log 2>&1
echo "row range $1 $2: $(grep -E 'dram__|duration' $OUT/ncu-row-range-$1-$2.log | awk '{print $1"="$(NF-1)$NF}' | tr '\n' ' ')"
done
timeout 90 ncu --clock-control none --metrics 'gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' -k 'regex:reconstruct' -c 1 $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-stalls-reconstruct-f32-8192.log 2>&1
echo "reconstruct f32: $(grep -E 'duration|inst_executed.sum|issue_active|pipe_(fp64|alu|fmaheavy|lsu)\.avg' $OUT/ncu-stalls-reconstruct-f32-8192.log | awk '{print $1"="$NF}' | sed 's/sm__inst_executed_pipe_//;s/.avg.pct_of_peak_sustained_active//' | tr '\n' ' ')"
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
grep -E "int8_emulation|cublas" $OUT/gc/ozaki-bench.log | head -30
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
