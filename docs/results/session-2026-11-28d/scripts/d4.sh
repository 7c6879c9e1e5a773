#!/usr/bin/env bash
# Session 2026-11-28d, call 4: oz3 = oz2 with the reconstruction templated on the modulus count (CRT
# weights as immediates): its Ozaki tests, oz2 / oz3 timed one after the other, each kernel under ncu, the
# reconstruction's limits, verify and the accuracy table of rung 31 beside DGEMM / SGEMM,
# memcheck.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in oz2 oz3; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz3=$(cat .ab/run/oz3/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz3/bin
LD_LIBRARY_PATH=$B timeout 200 $B/test_ozaki_gpu > $OUT/ozaki.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "Failure" -A4 $OUT/ozaki.log | head -20
for v in oz3 oz2; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f64 --sizes 4096,8192,16384 > $OUT/f64-$v.log 2>&1; echo "== $v f64 (exit $?) at $((SECONDS-t0)) s"
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f32 --sizes 4096,8192,16384 > $OUT/f32-$v.log 2>&1; echo "== $v f32 (exit $?) at $((SECONDS-t0)) s"
  grep -hE "^f|int8_emulation|cublas" $OUT/f64-$v.log $OUT/f32-$v.log | cut -c1-120
done
B=$PWD/.ab/run/oz3/bin; export LD_LIBRARY_PATH=$B
K='regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel'
for t in f32 f64; do for s in 4096 8192; do
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k "$K" $B/gemmlab bench --kernels int8_emulation --dtype $t --sizes $s --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$t-$s.csv 2>&1
  echo "== ncu $t $s exit $? at $((SECONDS-t0)) s"
done; done
timeout 100 ncu --clock-control none -k regex:reconstruct -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section WarpStateStats $B/gemmlab bench --kernels int8_emulation --dtype f64 --sizes 4096 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-reconstruct.log 2>&1
echo "== ncu reconstruct exit $?"; grep -E "Duration|Throughput|Achieved Occupancy|Registers Per|Theoretical Occ|Issue Slots Busy|Executed Ipc A|Stall|Warp Cycles Per Issued" $OUT/ncu-reconstruct.log | head -24
timeout 150 compute-sanitizer --tool memcheck $B/test_ozaki_gpu --gtest_filter='*EveryOpLayoutAndOddShape*:*KOfOne*:*AdversarialSpreads*:*WideRange*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 120 $B/gemmlab verify --quick --kernels int8_emulation > $OUT/verify.log 2>&1; echo "verify exit $?: $(grep -iE 'pass|fail|worst' $OUT/verify.log | tail -4 | tr '\n' ' ')"
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 200 $B/gemmlab accuracy --dtype f64,f32 --kernels cublas,int8_emulation --k 256,4096,16384 > $OUT/accuracy.log 2>&1; echo "accuracy exit $? at $((SECONDS-t0)) s"; grep -E "int8_emulation|cublas|^f|k " $OUT/accuracy.log | head -60 | cut -c1-150
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
