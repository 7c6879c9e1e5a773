#!/usr/bin/env bash
# Session 2026-11-29k, call 5: k5 = 87bf9aa + the split reading by pointer steps and narrow residues by dp4a.
# The Ozaki GPU tests (CPU and GPU), memcheck over
# some, the issue's squares beside cuBLAS twice, and rung 31's passes under ncu.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=k5
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
$B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(tail -1 $OUT/test_ozaki.log)"
timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" $OUT/test_ozaki_gpu.log | head -8
timeout 60 compute-sanitizer --tool memcheck $B/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2; do
timeout 60 $B/gemmlab bench --dtype f32,f64 --sizes 4096,8192 --kernels cublas,int8_emulation > $OUT/bench-$r.log 2>&1; echo "bench $r exit $? at $((SECONDS-t0)) s"
grep -E "^f(32|64) row|^(0|-|31) " $OUT/bench-$r.log | cut -c1-100
done
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 4096"; do set -- $c
  timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|pingpong|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-$1-$2.csv 2>&1
done; echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
