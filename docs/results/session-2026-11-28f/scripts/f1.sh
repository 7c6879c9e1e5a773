#!/usr/bin/env bash
# Session 2026-11-28f, call 1: f1 = rung 31 with the CRT in doubles (crt_value_fast). The CPU
# and GPU Ozaki tests; every rung-31 kernel's time under ncu, float 8192^3 and double 4096^3;
# the reconstruction's SASS (instruction mix) and its ncu sections; then scripts/gpu-check.sh's
# ozaki step (bench beside DGEMM / SGEMM, accuracy table).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p build/run/f1 && tar -C build/run/f1 -xJf build/f1.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); f1=$(cat build/run/f1/COMMIT | tr '\n' ' ')"
B=$PWD/build/run/f1; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki test_ozaki_gpu; do
  timeout 240 $B/tests/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-$1-$2.csv 2>&1
done; echo "split: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
cuobjdump -sass $B/libgemmlab.so > $OUT/all.sass 2>&1
for fn in IdLi16E IfLi8E; do
  awk -v f="reconstruct_kernel$fn" '/Function : /{p = index($0, f) > 0} p' $OUT/all.sass > $OUT/reconstruct-$fn.sass
  echo "reconstruct $fn: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' $OUT/reconstruct-$fn.sass) instructions; $(grep -oE '^ +/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z0-9_]+' $OUT/reconstruct-$fn.sass | awk '{print $NF}' | sort | uniq -c | sort -rn | head -12 | awk '{printf "%s %s, ", $2, $1}')"
done
awk '/Function : /{p = index($0, "split_kernelIdLb0E") > 0} p' $OUT/all.sass > $OUT/split-d.sass
echo "split double: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' $OUT/split-d.sass) instructions; $(grep -oE '^ +/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z0-9_]+' $OUT/split-d.sass | awk '{print $NF}' | sort | uniq -c | sort -rn | head -14 | awk '{printf "%s %s, ", $2, $1}')"
rm -f $OUT/all.sass
for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats -k 'regex:split_kernel|reconstruct' -c 3 $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-sections-$1-$2.log 2>&1
  echo "ncu sections $1 $2 exit $? at $((SECONDS-t0)) s"
  grep -E "^  [a-z_ ]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Instructions  " $OUT/ncu-sections-$1-$2.log | cut -c1-110 | head -24
done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
