#!/usr/bin/env bash
# Rung 28 k map (GEMMLAB_X_KMAP: 1 each warp a contiguous k range, 128 B of a row per turn, with
# L2::256B prefetch; 0 the interleaved map): skinny tests under both, sanitizers on the ring, then the decode rows cold and warm
# (warm samples behind the timing hold), alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/w3; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli test_gemm_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
if [ "${SKIPTEST:-0}" = 0 ]; then
for x in 1 0; do
GEMMLAB_X_KMAP=$x timeout 150 $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.*' > $OUT/tests-kmap$x.log 2>&1; echo "tests KMAP=$x exit $?"; grep -E "^\[  (PASSED|FAILED) |FAILED \]" $OUT/tests-kmap$x.log | head
done
for tool in racecheck memcheck; do
f='SkinnySide.*/bf16_row'; [ $tool = racecheck ] && f='SkinnySide.RandomInputsWithinTheBound/bf16_row'
GEMMLAB_X_KMAP=1 timeout 120 compute-sanitizer --tool $tool $B/tests/test_gemm_gpu --gtest_filter=$f > $OUT/$tool-kmap.log 2>&1; echo "$tool exit $?"; grep -E "SUMMARY|^\[  (PASSED|FAILED)" $OUT/$tool-kmap.log
done
fi
S=${SHAPES:-1x2048x2048,16x2048x2048,1x3072x2048,16x3072x2048,1x3584x3584,16x3584x3584,1x4608x3584,16x4608x3584,1x4096x4096,16x4096x4096,1x6144x4096,16x6144x4096,1x2048x8192,16x2048x8192,1x8192x2048,16x8192x2048,1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x3584x18944,16x3584x18944,1x18944x3584,16x18944x3584,8x18944x3584,1x10240x8192,16x10240x8192,1x8192x28672,16x8192x28672,1x28672x8192,16x28672x8192}
for round in ${ROUNDS:-cold:0,1 warm:0,1 cold:1,0 warm:1,0}; do
  mode=${round%%:*}; vs=${round#*:}; c=""; [ $mode = cold ] && c="--cold"
  for v in ${vs//,/ }; do
    f=$mode-k$v-$((SECONDS))
    GEMMLAB_X_KMAP=$v timeout 100 $G bench --dtype ${DT:-bf16} --kernels cublas,auto --layout row --op nt --shapes $S $c --reps 30 --min-time 60 --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"
  done
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf w3.tgz *.log *.json && rm -f *.log *.json
