#!/usr/bin/env bash
# Session 2026-11-28e, call 5: e3's split and reconstruction kernels under ncu's sections
# (speed of light, memory workload, occupancy, warp states, instruction statistics): float
# 8192^3 and double 4096^3, one call each, clocks left alone.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e3 && tar -C .ab/run/e3 -xJf .ab/e3.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e3=$(cat .ab/run/e3/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e3/bin; export LD_LIBRARY_PATH=$B
for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 200 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats -k 'regex:split_kernel|reconstruct|row_range' -c 4 $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-sections-$1-$2.log 2>&1
  echo "ncu $1 $2 exit $? at $((SECONDS-t0)) s"
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Stall|Warp Cycles Per Issued|Executed Ipc A" $OUT/ncu-sections-$1-$2.log | cut -c1-120 | head -60
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
