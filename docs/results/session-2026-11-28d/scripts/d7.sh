#!/usr/bin/env bash
# Session 2026-11-28d, call 7: oz6 = oz5 with ldexp by one multiplication in the reconstruction
# (times_pow2): the GPU tests rung 31 and auto touch, memcheck on the Ozaki tests, the
# reconstruction's time under ncu on oz5 and oz6, then scripts/gpu-check.sh's ozaki step on oz6.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in oz5 oz6; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz6=$(cat .ab/run/oz6/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz6/bin; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki_gpu test_graph_gpu test_accuracy test_tune_gpu test_gemm_gpu; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
timeout 100 compute-sanitizer --tool memcheck $B/test_ozaki_gpu --gtest_filter='*EveryOpLayoutAndOddShape*:*KOfOne*:*WideRange*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for v in oz5 oz6; do for t in f64 f32; do
  LD_LIBRARY_PATH=$PWD/.ab/run/$v/bin timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:reconstruct $PWD/.ab/run/$v/bin/gemmlab bench --kernels int8_emulation --dtype $t --sizes 4096 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-rec-$v-$t.log 2>&1
  echo "reconstruct $v $t (us): $(grep -E 'gpu__time_duration.sum' $OUT/ncu-rec-$v-$t.log | awk '{print $NF}' | tr '\n' ' ')"
done; done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -6 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
