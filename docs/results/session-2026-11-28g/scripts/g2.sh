#!/usr/bin/env bash
# Session 2026-11-28g, call 2: g2 = the split's residues from byte sums on u8 mma.sync. The CPU
# and GPU Ozaki tests; every rung-31 kernel under ncu on g0 (before) and g2, float 8192^3 and
# double 4096^3; the new split's stall reasons and pipes; then scripts/gpu-check.sh's ozaki step
# (bench beside DGEMM / SGEMM, accuracy table) on g2.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in g0 g2; do mkdir -p build/run/$v && tar -C build/run/$v -xJf build/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); g2=$(cat build/run/g2/COMMIT | tr '\n' ' ')"
B=$PWD/build/run/g2; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki test_ozaki_gpu; do
  timeout 240 $B/tests/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
for v in g0 g2; do mkdir -p $OUT/ncu-$v; for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$PWD/build/run/$v timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $PWD/build/run/$v/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$v/ncu-$1-$2.csv 2>&1
done; echo "$v split: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$v 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,launch__registers_per_thread,smsp__inst_executed.sum'
for c in "f64 4096" "f32 8192"; do set -- $c
timeout 100 ncu --clock-control none --metrics "$M" -k 'regex:split_kernel' -c 1 $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-stalls-$1-$2.log 2>&1
echo "ncu $1 $2 exit $? at $((SECONDS-t0)) s: $(grep -E 'stalled_(math|wait|not_sel|long|short|mio|lg)|pipe_(alu|fmaheavy|fma|tensor.*|uniform|lsu)\.avg|issue_active|dram__|duration|inst_executed.sum ' $OUT/ncu-stalls-$1-$2.log | awk '{print $1"="$NF}' | sed 's/smsp__average_warps_issue_stalled_/st:/;s/_per_issue_active.ratio//;s/sm__inst_executed_pipe_/p:/;s/.avg.pct_of_peak_sustained_active//' | tr '\n' ' ')"
done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
