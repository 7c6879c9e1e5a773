#!/usr/bin/env bash
# Session 2026-11-29l, call 5: l5 = 34914ac, this session's kernels (float's 32-bit split, the cp.async ring,
# needs_native from per-row and per-column terms), the whole build tree
# (scripts/pack-device-build.sh). Every ctest and `gemmlab verify` and the ozaki step
# (scripts/gpu-check.sh tests verify ozaki), memcheck over rung 31's GPU tests, cuBLAS, auto
# and rung 31 on `--inputs wide` (float only), and float 8192^3 beside SGEMM three more times.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); l5=$(cat build/carry.commit)"
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests verify ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
timeout 60 compute-sanitizer --tool memcheck build/device/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*:*Adversarial*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for dt in f32; do
timeout 45 build/device/gemmlab bench --dtype $dt --sizes 8192 --kernels cublas,auto,int8_emulation --inputs wide --reps 3 --min-time 0 > $OUT/bench-$dt-wide.log 2>&1; echo "bench $dt wide exit $? at $((SECONDS-t0)) s"
grep -E "^(0|-|31) " $OUT/bench-$dt-wide.log | cut -c1-100
done
# The card's clock and power every 50 ms over the three runs (nvidia-smi, settings untouched).
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 50 > $OUT/smi-f32-8192.csv 2>&1 &
SMI=$!
for r in 1 2 3; do
timeout 40 build/device/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$r.log 2>&1; echo "bench f32 8192 $r exit $?: $(grep -E '^(0|31) ' $OUT/bench-f32-8192-$r.log | awk '{print $4}' | tr '\n' ' ')"
done
kill $SMI; sleep 0.2
python3 - $OUT/smi-f32-8192.csv <<'PY'
import sys, statistics as st
rows=[l.split(', ') for l in open(sys.argv[1]) if l.count(',')>=4]
clk=[float(r[1].split()[0]) for r in rows]; pw=[float(r[2].split()[0]) for r in rows]
busy=[(c,p) for c,p in zip(clk,pw) if p>300]
print(f"smi: {len(rows)} samples; power>300 W: {len(busy)}, clock median {st.median([c for c,_ in busy]):.0f} MHz (min {min(c for c,_ in busy):.0f}), power median {st.median([p for _,p in busy]):.0f} W (max {max(p for _,p in busy):.0f})")
PY
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
