#!/usr/bin/env bash
# Session 2026-11-28b, call 6: rung 31 (Ozaki, on rung 30's INT8 GEMMs) after the staged int32
# store: its GPU tests on the submitted code (fin2: 05a0a41's kernels), and base (d7b637e) and
# fin2 timed one after the other against DGEMM / SGEMM.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in base fin2; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); fin2=$(cat .ab/run/fin2/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/fin2/bin
LD_LIBRARY_PATH=$B timeout 150 $B/test_ozaki_gpu > $OUT/ozaki.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki.log | tr '\n' ' ')"
grep -E "Failure" -A3 $OUT/ozaki.log | head
for v in base fin2; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f64 --sizes 4096,8192,16384 > $OUT/f64-$v.log 2>&1; echo "== $v f64 (exit $?)"
  LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --kernels cublas,auto,int8_emulation --dtype f32 --sizes 4096,8192 > $OUT/f32-$v.log 2>&1; echo "== $v f32 (exit $?)"
  grep -hE "int8_emulation|auto" $OUT/f64-$v.log $OUT/f32-$v.log | cut -c1-150
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
