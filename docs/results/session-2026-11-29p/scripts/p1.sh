#!/usr/bin/env bash
# Session 2026-11-29p, call 1: rung 15's rotating tiles on copies of operands they cannot read
# in 16-byte units (new build p1, packed) beside the build before (o10). Tests, memcheck, and the
# odd rows of double against cuBLAS, warm and cold, both builds interleaved by call.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
for b in p1 o10; do mkdir -p build/${b}bin && tar -xJf build/$b.txz -C build/${b}bin; echo "$b: $(head -1 build/${b}bin/COMMIT)"; done
N=build/p1bin; O=build/o10bin
run() { LD_LIBRARY_PATH=$1 "$@"; }
export LD_LIBRARY_PATH=$PWD/$N
timeout 60 $N/tests/test_auto_model > $OUT/auto-model.log 2>&1; echo "auto_model exit $?: $(tail -1 $OUT/auto-model.log)"
timeout 200 $N/tests/test_tune_gpu --gtest_filter='TuneGpu.RotatingDmma*:TuneGpu.SmallAndMedium*:TuneGpu.EveryOption*:TuneGpu.Transposed*' > $OUT/tune-gpu.log 2>&1; echo "tune_gpu exit $? at $((SECONDS-t0)) s: $(grep -E 'PASSED|FAILED' $OUT/tune-gpu.log | tr '\n' ' ')"
timeout 150 $N/tests/test_gemm_gpu --gtest_filter='Repitch.*:Batched*:SplitK.*:*Unaligned*:*Odd*' > $OUT/gemm-gpu.log 2>&1; echo "gemm_gpu exit $? at $((SECONDS-t0)) s: $(grep -E 'PASSED|FAILED' $OUT/gemm-gpu.log | tr '\n' ' ')"
timeout 90 compute-sanitizer --tool memcheck $N/gemmlab bench --dtype f64 --kernels dmma,auto --layout row --op all --shapes 517x259x1029,130x97x520,4095x4097x1023 --reps 1 --min-time 0 > $OUT/memcheck.log 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log) rows PASS $(grep -c ' PASS' $OUT/memcheck.log) FAIL $(grep -c ' FAIL' $OUT/memcheck.log)"
S=4095x4097x1023,4096x4096x1024,2047x2047x2047,2048x2048x2048,1023x1025x1023,3001x2999x1021
for round in 1 2; do
 for b in o10 p1; do
  for c in "" "--cold"; do
   tag=$b-r$round${c:+-cold}
   LD_LIBRARY_PATH=$PWD/build/${b}bin timeout 60 build/${b}bin/gemmlab bench --dtype f64 --kernels cublas,auto --layout row --op all --reps 5 --min-time 50 --shapes $S $c --json $OUT/$tag.json > $OUT/$tag.log 2>&1; echo "$tag exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/$tag.json | grep geomean | cut -c1-200)"
  done
 done
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
