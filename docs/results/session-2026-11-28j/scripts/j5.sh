#!/usr/bin/env bash
# Session 2026-11-28j, call 5: j5 = the native pass on DMMA, float's practical allowance only,
# auto's automatic count. The Ozaki GPU tests (and memcheck over the wide-range, special and
# every-op ones); cuBLAS, auto and rung 31 on `--inputs wide` at 4096^3 and 8192^3 in float and
# double, and rung 31's kernels under ncu there.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=j5
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" -A4 $OUT/test_ozaki_gpu.log | head -30
timeout 150 compute-sanitizer --tool memcheck $B/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*Adversarial*:*CallersModulus*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for dt in f32 f64; do
timeout 100 $B/gemmlab bench --dtype $dt --sizes 4096,8192 --kernels cublas,auto,int8_emulation --inputs wide --reps 3 --min-time 0 > $OUT/bench-$dt-wide.log 2>&1; echo "bench $dt exit $? at $((SECONDS-t0)) s"
grep -E "^f(32|64) row|^(0|-|31) " $OUT/bench-$dt-wide.log | cut -c1-110
done
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 8192"; do set -- $c
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 --inputs wide > $OUT/ncu/ncu-$1-$2-wide.csv 2>&1
done; echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 60 ncu --clock-control none -k "regex:native_kernel" --metrics sass__inst_executed_per_opcode,gpu__time_duration.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_dmma.sum --print-metric-instances details $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 4096 --reps 1 --min-time 0 --seed 5 --inputs wide > $OUT/ncu-native.txt 2>&1
grep -E "DMMA|gpu__time|fp64|dmma" $OUT/ncu-native.txt | head -8 | cut -c1-200
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
