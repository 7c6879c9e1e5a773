#!/usr/bin/env bash
# Session 2026-11-28e, call 8: e7's reconstruction kernel under ncu's sections (speed of light,
# compute workload, instruction statistics, occupancy, warp states): float 8192^3 and double
# 4096^3, clocks left alone.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e7 && tar -C .ab/run/e7 -xJf .ab/e7.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e7=$(cat .ab/run/e7/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e7/bin; export LD_LIBRARY_PATH=$B
for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 200 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy --section WarpStateStats --section LaunchStats -k 'regex:reconstruct' -c 1 $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-reconstruct-$1-$2.log 2>&1
  echo "ncu $1 $2 exit $? at $((SECONDS-t0)) s"
  grep -E "reconstruct|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Executed Ipc A|Pipe|Executed Instructions  |Warp Cycles Per Issued|Stall" $OUT/ncu-reconstruct-$1-$2.log | cut -c1-150 | head -40
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
