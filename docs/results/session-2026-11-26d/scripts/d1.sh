#!/usr/bin/env bash
# wgmma descriptors as the tile's descriptor plus an offset (tree) against HEAD (tree0): ctest, A/B benches.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/d1; G=$B/gemmlab; B0=$PWD/../build/d1old; G0=$B0/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j10 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j6 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|C75" $OUT/build.log | head -20
(cd $B && timeout 200 ctest -j8 -E find_package_consumer --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest exit $?"); grep -E "tests passed|tests failed|Total Test|\(Failed\)|Timeout" $OUT/ctest.log | head -16
echo "after ctest $((SECONDS-t0)) s"
for r in 1 2; do for which in old new; do
  X=$G; [ $which = old ] && X=$G0
  timeout 50 $X bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/q-$which-$r.log 2>&1; echo "$which round $r:"; grep -E "wgmma_(fp8|int8)" $OUT/q-$which-$r.log
  timeout 40 $X bench --dtype f32 --kernels cublas,auto --layout row --op nn --sizes 4096,8192 --reps 10 --min-time 100 > $OUT/f32-$which-$r.log 2>&1; grep -E "^-   auto" $OUT/f32-$which-$r.log
  timeout 40 $X bench --dtype bf16 --kernels cublas,auto --layout row --op nn --sizes 4096,8192 --reps 10 --min-time 100 > $OUT/bf16-$which-$r.log 2>&1; grep -E "^-   auto" $OUT/bf16-$which-$r.log
done; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf d1.tgz *.log && rm -f *.log
