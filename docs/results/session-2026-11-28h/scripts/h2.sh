#!/usr/bin/env bash
# Session 2026-11-28h, call 2: h2 = h1 with the float two-part CRT reverted, float's CRT in
# 64-bit integers (P < 2^64), and the row-range pass one row at a time (8 runs in flight, 4
# blocks per SM; GEMMLAB_ROW_RANGE=1: 16 runs, 2 blocks; =2: 4 runs, 5 blocks). The Ozaki
# tests; every rung-31 kernel under ncu (float 8192^3, double 4096^3) per variant; the
# reconstruction's stalls; scripts/gpu-check.sh's ozaki step.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=h2
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(cat build/run/$N/COMMIT | tr '\n' ' ')"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
$B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki.log | tr '\n' ' ')"
for v in 0 1 2; do
  mkdir -p $OUT/ncu-v$v; for c in "f32 8192" "f64 4096"; do set -- $c
    GEMMLAB_ROW_RANGE=$v timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-v$v/ncu-$1-$2.csv 2>&1
  done; echo "v$v: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-v$v 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
done
for c in "f32 8192" "f64 4096"; do set -- $c
timeout 60 ncu --clock-control none --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,gpu__time_duration.sum -k 'regex:row_range' -c 2 $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-row-range-$1-$2.log 2>&1
echo "row range $1 $2: $(grep -E 'dram__bytes|duration' $OUT/ncu-row-range-$1-$2.log | awk '{print $1"="$(NF-1)$NF}' | sed 's/dram__bytes_read.sum.per_second/read/;s/gpu__time_duration.sum/t/' | tr '\n' ' ')"
done
timeout 90 ncu --clock-control none --metrics 'gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' -k 'regex:reconstruct' -c 1 $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-stalls-reconstruct-f32-8192.log 2>&1
echo "reconstruct f32: $(grep -E 'duration|inst_executed.sum|issue_active|pipe_(fp64|alu|fmaheavy|lsu)\.avg|long_scoreboard|_wait_' $OUT/ncu-stalls-reconstruct-f32-8192.log | awk '{print $1"="$NF}' | sed 's/sm__inst_executed_pipe_//;s/.avg.pct_of_peak_sustained_active//;s/smsp__average_warps_issue_stalled_//;s/_per_issue_active.ratio//' | tr '\n' ' ')"
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
grep -E "^f(32|64) row|int8_emulation|cublas" $OUT/gc/ozaki-bench.log | head -30
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
