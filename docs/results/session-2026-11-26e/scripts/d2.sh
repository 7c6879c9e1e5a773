#!/usr/bin/env bash
# Rung 28 with four k steps in flight for one row group: skinny tests, then decode rows cold and
# warm, HEAD and the change alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/d2; G=$B/gemmlab; B0=$PWD/../build/d2old; G0=$B0/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j9 --target gemmlab_cli test_gemm_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j7 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|spill" $OUT/build.log | head
timeout 120 $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.*' > $OUT/tests.log 2>&1; echo "tests exit $?"; grep -E "^\[  (PASSED|FAILED) |FAILED \]" $OUT/tests.log | head
S=1x2048x2048,8x2048x2048,1x3072x2048,8x3072x2048,1x3584x3584,8x3584x3584,1x4096x4096,8x4096x4096,1x14336x4096,8x14336x4096,1x28672x8192,8x28672x8192,1x4608x3584,1x4096x14336
for r in 1 2; do
for c in "" "--cold"; do
timeout 40 $G0 bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --json $OUT/old$r$c.json > $OUT/old$r$c.log 2>&1; echo "old $r $c exit $?"
timeout 40 $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --json $OUT/new$r$c.json > $OUT/new$r$c.log 2>&1; echo "new $r $c exit $?"
done; done
for f in old1 new1 old2 new2 old1--cold new1--cold old2--cold new2--cold; do echo "$f: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf d2.tgz *.log *.json && rm -f *.log *.json
