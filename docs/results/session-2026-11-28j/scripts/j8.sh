#!/usr/bin/env bash
# Session 2026-11-28j, call 8: j8 = the submitted tree (j7's kernels), the whole build tree
# (scripts/pack-device-build.sh). Every ctest and `gemmlab verify` (scripts/gpu-check.sh tests
# verify) and its ozaki step (bench beside DGEMM / SGEMM, the accuracy table); compute-sanitizer
# memcheck over rung 31's GPU tests; cuBLAS, auto and rung 31 on `--inputs wide`; the native
# pass under ncu (time, DMMA, instructions by opcode); float 8192^3 beside SGEMM twice more.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); j8=$(cat build/carry.commit)"
CTEST_JOBS=4 timeout 420 scripts/gpu-check.sh $OUT/gc tests verify ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
timeout 60 compute-sanitizer --tool memcheck build/device/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*Adversarial*:*CallersModulus*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for dt in f32 f64; do
timeout 45 build/device/gemmlab bench --dtype $dt --sizes 4096,8192 --kernels cublas,auto,int8_emulation --inputs wide --reps 3 --min-time 0 > $OUT/bench-$dt-wide.log 2>&1; echo "bench $dt wide exit $? at $((SECONDS-t0)) s"
grep -E "^f(32|64) row|^(0|-|31) " $OUT/bench-$dt-wide.log | cut -c1-110
done
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 8192"; do set -- $c
  timeout 30 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' build/device/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 --inputs wide > $OUT/ncu/ncu-$1-$2-wide.csv 2>&1
done; echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 30 ncu --clock-control none -k "regex:native_kernel" --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,gpu__time_duration.sum,sm__inst_executed_pipe_tensor_op_dmma.sum --print-metric-instances details build/device/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 4096 --reps 1 --min-time 0 --seed 5 --inputs wide > $OUT/ncu-native.txt 2>&1
grep -E "gpu__time|dmma|inst_executed.sum" $OUT/ncu-native.txt | head -3 | cut -c1-200
for r in 1 2; do timeout 40 build/device/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$r.log 2>&1; grep -E "^ *(0|31) " $OUT/bench-f32-8192-$r.log | tr -s ' ' | cut -c1-100; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
