#!/usr/bin/env bash
# Rung 28 wide blocks and one-wave slices, knobs in the device tree only: skinny tests under
# three knob settings, then decode rows cold and warm per variant, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/x1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
if [ ! -x $G ] || [ ! -x $B/tests/test_gemm_gpu ]; then
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli test_gemm_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
fi
if [ "${SKIPTEST:-0}" = 0 ]; then
for w in 16:0 0:0 1000:0 1000:4; do
GEMMLAB_X_WIDE=${w%:*} GEMMLAB_X_WK=${w#*:} timeout 150 $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.*' > $OUT/tests-w$w.log 2>&1; echo "tests WIDE:WK=$w exit $?"; grep -E "^\[  (PASSED|FAILED) |FAILED \]" $OUT/tests-w$w.log | head
done
fi
S=${SHAPES:-1x2048x2048,16x2048x2048,8x2048x2048,1x3072x2048,16x3072x2048,1x3584x3584,16x3584x3584,1x4608x3584,16x4608x3584,1x4096x4096,8x4096x4096,16x4096x4096,1x6144x4096,16x6144x4096,1x2048x8192,16x2048x8192,1x8192x2048,16x8192x2048,1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x3584x18944,16x3584x18944,1x18944x3584,16x18944x3584,1x10240x8192,16x10240x8192,16x8192x28672}
declare -A ENV=([A]="GEMMLAB_X_WIDE=0 GEMMLAB_X_OLDSLICE=1" [B]="GEMMLAB_X_WIDE=0" [C]="GEMMLAB_X_WIDE=16" [D]="GEMMLAB_X_WIDE=1000" [E]="GEMMLAB_X_WIDE=16 GEMMLAB_X_WK=16")
for round in ${ROUNDS:-cold:A,B,C,D,E warm:A,C,D}; do
  mode=${round%%:*}; vs=${round#*:}; c=""; [ $mode = cold ] && c="--cold"
  for v in ${vs//,/ }; do
    f=$mode-$v-$((SECONDS))
    env ${ENV[$v]} timeout 100 $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --reps 30 --min-time 60 --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"
  done
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf x1.tgz *.log *.json && rm -f *.log *.json
