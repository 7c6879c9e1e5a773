#!/usr/bin/env bash
# Session 2026-11-28e, call 1: e1 = Precision::Int8Emulation and GemmOptions::emulation_moduli.
# The GPU tests auto and rung 31 touch, `gemmlab verify --quick` of auto under both precisions
# and of rung 31, auto against cuBLAS at 1024-8192^3 under default and under int8_emulation,
# then scripts/check-python.sh (the new precision name through the module).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e1 && tar -C .ab/run/e1 -xJf .ab/e1.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e1=$(cat .ab/run/e1/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e1/bin; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki_gpu test_graph_gpu test_accuracy test_gemm_gpu; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
grep -E "moduli \(|adversarial" $OUT/test_ozaki_gpu.log | head -12
timeout 150 $B/gemmlab verify --quick --kernels auto,int8_emulation --precision default,int8_emulation --dtype f32,f64 --seed 7 > $OUT/verify.log 2>&1
echo "verify exit $? at $((SECONDS-t0)) s"; grep -E "^verify|auto|int8" $OUT/verify.log | tail -8
for p in default int8_emulation; do
  timeout 100 $B/gemmlab bench --kernels cublas,auto --dtype f64,f32 --sizes 1024,2048,4096,8192 --precision $p --seed 11 > $OUT/bench-$p.log 2>&1
  echo "bench $p exit $? at $((SECONDS-t0)) s"; grep -E "auto|cublas" $OUT/bench-$p.log | grep -vE "^#|^auto:" | cut -c1-150 | head -20
done
BUILD_DIR=$B timeout 300 scripts/check-python.sh $OUT/python > $OUT/python.out 2>&1; echo "python exit $? at $((SECONDS-t0)) s"
tail -3 $OUT/python.out | cut -c1-600; grep -E "passed|failed|int8" $OUT/python/pytest.log | tail -4
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
