#!/usr/bin/env bash
# Session 2026-11-29l, call 10: l10 = e9c4a7c + the split's narrow residues from one shared loop
# (double's narrow form through narrow_biased_residue as float's). The Ozaki CPU and GPU tests,
# memcheck over 17 of them, rung 31's passes under ncu beside l3 (= e9c4a7c's kernels).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for N in l3 l10; do mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); l3=$(head -1 build/run/l3/COMMIT) l10=$(head -1 build/run/l10/COMMIT)"
B=$PWD/build/run/l10
LD_LIBRARY_PATH=$B $B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(tail -1 $OUT/test_ozaki.log)"
LD_LIBRARY_PATH=$B timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
LD_LIBRARY_PATH=$B timeout 90 compute-sanitizer --tool memcheck $B/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*:*Adversarial*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for N in l3 l10; do B=$PWD/build/run/$N; mkdir -p $OUT/ncu-$N
for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$B timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|pingpong|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$N/ncu-$1-$2.csv 2>&1
done; echo "ncu $N: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$N 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
