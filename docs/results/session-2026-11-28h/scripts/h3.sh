#!/usr/bin/env bash
# Session 2026-11-28h, call 3: h3 = h2 with the row-range pass settled (8 runs, 4 blocks per SM),
# the reconstruction loading its scales and sums first, the split's narrow residues by a
# multiply-high. The Ozaki tests; every rung-31 kernel under ncu (float 8192^3, double 4096^3);
# the float split's and reconstruction's stalls; scripts/gpu-check.sh's ozaki step.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=h3
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
$B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki.log | tr '\n' ' ')"
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-$1-$2.csv 2>&1
done; echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
for k in split reconstruct; do
timeout 90 ncu --clock-control none --metrics 'gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' -k "regex:$k" -c 1 $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-stalls-$k-f32-8192.log 2>&1
echo "$k f32: $(grep -E 'duration|inst_executed.sum|issue_active|pipe_(fp64|alu|fmaheavy|lsu|xu)\.avg|long_scoreboard|_wait_|not_selected|math_pipe|dram__' $OUT/ncu-stalls-$k-f32-8192.log | awk '{print $1"="$NF}' | sed 's/sm__inst_executed_pipe_//;s/.avg.pct_of_peak_sustained_active//;s/smsp__average_warps_issue_stalled_//;s/_per_issue_active.ratio//;s/.pct_of_peak_sustained_elapsed//' | tr '\n' ' ')"
done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
grep -E "^f(32|64) row|int8_emulation|cublas" $OUT/gc/ozaki-bench.log | head -30
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
