#!/usr/bin/env bash
# Session 2026-11-28d, call 1: rung 31 with every modulus's INT8 GEMM in one launch whose
# epilogue writes the residues (oz1) beside the submitted code (fin4): the Ozaki GPU tests on
# oz1, both builds timed one after the other against DGEMM / SGEMM, the time split of oz1's
# kernels (nsys, where the machine has it), memcheck on the small Ozaki tests.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin4 oz1; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz1=$(cat .ab/run/oz1/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz1/bin
LD_LIBRARY_PATH=$B timeout 200 $B/test_ozaki_gpu > $OUT/ozaki.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "Failure" -A4 $OUT/ozaki.log | head -20
for v in fin4 oz1; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f64 --sizes 4096,8192,16384 > $OUT/f64-$v.log 2>&1; echo "== $v f64 (exit $?) at $((SECONDS-t0)) s"
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,auto,int8_emulation --dtype f32 --sizes 4096,8192,16384 > $OUT/f32-$v.log 2>&1; echo "== $v f32 (exit $?) at $((SECONDS-t0)) s"
  grep -hE "^f|int8_emulation|cublas|auto" $OUT/f64-$v.log $OUT/f32-$v.log | cut -c1-120
done
B=$PWD/.ab/run/oz1/bin; export LD_LIBRARY_PATH=$B
if command -v nsys > /dev/null; then
  for t in f64 f32; do
    timeout 90 nsys profile -o $OUT/split-$t --force-overwrite true $B/gemmlab bench --kernels int8_emulation --dtype $t --sizes 4096,8192 > $OUT/nsys-$t.log 2>&1
    timeout 60 nsys stats --report cuda_gpu_kern_sum --format csv $OUT/split-$t.nsys-rep > $OUT/split-$t.csv 2>&1
    echo "== nsys $t: "; cut -c1-200 $OUT/split-$t.csv | head -14
  done
else echo "no nsys on this machine"; fi
timeout 200 compute-sanitizer --tool memcheck $B/test_ozaki_gpu --gtest_filter='*EveryOpLayoutAndOddShape*:*KOfOne*:*AdversarialSpreads*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
rm -f $OUT/*.nsys-rep $OUT/*.sqlite
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
