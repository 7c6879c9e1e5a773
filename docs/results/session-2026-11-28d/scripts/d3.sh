#!/usr/bin/env bash
# Session 2026-11-28d, call 3: oz2 = oz1 with the split passes on blocks of rows by chunks of k
# (a row-range pass, the residue pass, a row-scale pass) and the CRT quotient from 1/P: its
# Ozaki tests, fin4 / oz2 timed one after the other against DGEMM / SGEMM, each kernel's time
# under ncu, the reconstruction's limits (ncu sections), memcheck and racecheck.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin4 oz2; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz2=$(cat .ab/run/oz2/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz2/bin
LD_LIBRARY_PATH=$B timeout 200 $B/test_ozaki_gpu > $OUT/ozaki.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "Failure" -A4 $OUT/ozaki.log | head -20
for v in oz2 fin4; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f64 --sizes 4096,8192,16384 > $OUT/f64-$v.log 2>&1; echo "== $v f64 (exit $?) at $((SECONDS-t0)) s"
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f32 --sizes 4096,8192,16384 > $OUT/f32-$v.log 2>&1; echo "== $v f32 (exit $?) at $((SECONDS-t0)) s"
  grep -hE "^f|int8_emulation|cublas" $OUT/f64-$v.log $OUT/f32-$v.log | cut -c1-120
done
B=$PWD/.ab/run/oz2/bin; export LD_LIBRARY_PATH=$B
K='regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel'
for t in f32 f64; do for s in 4096 8192; do
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k "$K" $B/gemmlab bench --kernels int8_emulation --dtype $t --sizes $s --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$t-$s.csv 2>&1
  echo "== ncu $t $s exit $? at $((SECONDS-t0)) s"
done; done
timeout 100 ncu --clock-control none -k regex:reconstruct -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section WarpStateStats $B/gemmlab bench --kernels int8_emulation --dtype f64 --sizes 4096 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-reconstruct.log 2>&1
echo "== ncu reconstruct exit $?"; grep -E "Duration|Throughput|Achieved Occupancy|Registers Per|Theoretical Occ|Issue Slots Busy|Executed Ipc A|Stall|Warp Cycles Per Issued" $OUT/ncu-reconstruct.log | head -24
timeout 150 compute-sanitizer --tool memcheck $B/test_ozaki_gpu --gtest_filter='*EveryOpLayoutAndOddShape*:*KOfOne*:*AdversarialSpreads*:*WideRange*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 120 compute-sanitizer --tool racecheck $B/test_ozaki_gpu --gtest_filter='*EveryOpLayoutAndOddShape*:*KOfOne*' > $OUT/racecheck.log 2>&1; echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' $OUT/racecheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
