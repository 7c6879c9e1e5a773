#!/usr/bin/env bash
# Session 2026-11-28e, call 9: e9 = e7 with the CRT reduction in crt_limbs(count) limbs. The
# Ozaki and graph tests on e9; the reconstruction (and every kernel) under ncu on e7 and e9,
# float 8192^3 and double 4096^3; then scripts/gpu-check.sh's ozaki step on e9.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in e7 e9; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e9=$(cat .ab/run/e9/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e9/bin; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki_gpu test_graph_gpu; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
for v in e7 e9; do mkdir -p $OUT/ncu-$v; for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$PWD/.ab/run/$v/bin timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $PWD/.ab/run/$v/bin/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$v/ncu-$1-$2.csv 2>&1
done; echo "$v: $(python3 docs/results/session-2026-11-28d/scripts/ncu-split.py $OUT/ncu-$v 2>&1 | tr '\n' ' ')"; done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
