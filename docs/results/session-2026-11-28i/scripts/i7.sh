#!/usr/bin/env bash
# Session 2026-11-28i, call 7: i7 = the submitted tree (c34e780: i5 with float's narrow split at four
# blocks per SM, as i6), the whole build tree
# (scripts/pack-device-build.sh). Every ctest and `gemmlab verify` (scripts/gpu-check.sh tests
# verify) and its ozaki step (bench beside DGEMM / SGEMM, the accuracy table); compute-sanitizer
# memcheck over rung 31's GPU tests of every op and layout, k = 1 and the wide-range and special
# inputs; every rung-31 kernel's time under ncu; float 8192^3 and double 4096^3 beside cuBLAS
# for 3 s a row; float 8192^3 beside SGEMM twice more with bench's defaults; the reconstruction's
# executed instructions by opcode.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); i7=$(cat build/carry.commit)"
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests verify ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
timeout 100 compute-sanitizer --tool memcheck build/device/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 50 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' build/device/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-$1-$2.csv 2>&1
done; echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 40 build/device/gemmlab bench --dtype $1 --sizes $2 --kernels cublas,int8_emulation --min-time 3000 > $OUT/bench-$1-$2-3s.log 2>&1; grep -E "cublas|int8" $OUT/bench-$1-$2-3s.log
done
for r in 1 2; do timeout 60 build/device/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$r.log 2>&1; grep -E "^ *(0|31) " $OUT/bench-f32-8192-$r.log | tr -s ' ' | cut -c1-100; done
timeout 60 ncu --clock-control none -k "regex:reconstruct" --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread --print-metric-instances details build/device/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-reconstruct.txt 2>&1
echo "reconstruct: $(grep -E 'gpu__time_duration|issue_active|inst_executed.sum' $OUT/ncu-reconstruct.txt | head -3 | awk '{print $NF}' | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
