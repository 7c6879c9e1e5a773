#!/usr/bin/env bash
# Rung 28, 9-16 columns: the narrow blocks capped at 128 registers (GEMMLAB_X_CAP=1), one row
# group instead of two (GEMMLAB_X_RG16=1), both, or neither; skinny tests under each, then the
# decode rows cold and warm, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/v3; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli test_gemm_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
for x in "1 0" "0 1"; do set -- $x
GEMMLAB_X_CAP=$1 GEMMLAB_X_RG16=$2 timeout 100 $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.*' > $OUT/tests-$1$2.log 2>&1; echo "tests CAP=$1 RG16=$2 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-$1$2.log | tr '\n' ' ')"
done
S=1x2048x2048,16x2048x2048,1x3072x2048,16x3072x2048,1x3584x3584,16x3584x3584,1x4608x3584,16x4608x3584,1x4096x4096,16x4096x4096,1x6144x4096,16x6144x4096,1x2048x8192,16x2048x8192,1x8192x2048,16x8192x2048,1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x3584x18944,16x3584x18944,1x18944x3584,16x18944x3584,8x18944x3584,1x10240x8192,16x10240x8192,1x8192x28672,16x8192x28672,1x28672x8192,16x28672x8192
for round in cold:00,10,01,11 warm:00,10,01,11 cold:11,01,10,00 warm:11,01,10,00; do
  mode=${round%%:*}; vs=${round#*:}; c=""; [ $mode = cold ] && c="--cold"
  for v in ${vs//,/ }; do
    f=$mode-v$v-$((SECONDS))
    GEMMLAB_X_CAP=${v:0:1} GEMMLAB_X_RG16=${v:1:1} timeout 100 $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --reps 30 --min-time 60 --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $?: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"
  done
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf v3.tgz *.log *.json && rm -f *.log *.json
