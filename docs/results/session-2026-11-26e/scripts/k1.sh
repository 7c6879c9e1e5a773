#!/usr/bin/env bash
# Stream-K, first look: builds (working tree full, HEAD cli), the stream-K and split tests, then
# the LLM set and medium squares in BF16 with both builds, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/k1; G=$B/gemmlab; B0=$PWD/../build/k1old; G0=$B0/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j11 --target gemmlab_cli test_auto_model > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j5 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|C75" $OUT/build.log | head -20
true

timeout 30 $B/tests/test_auto_model > $OUT/auto_model.log 2>&1; echo "auto_model exit $?"; grep -E "FAILED|PASSED" $OUT/auto_model.log | head
echo "after tests $((SECONDS-t0)) s"
MED=512x512x512,768x768x768,1024x1024x1024,1536x1536x1536,2048x2048x2048,3000x3000x3000,2500x3500x1000,4095x4097x1023,1024x1024x8192,6144x1536x2048,4096x4096x4096,8192x8192x8192
for r in 1; do
  timeout 150 $G0 bench --preset llm --dtype bf16 --json $OUT/llm-old.json > $OUT/llm-old.log 2>&1; echo "llm old exit $? $((SECONDS-t0)) s"
  timeout 150 $G bench --preset llm --dtype bf16 --json $OUT/llm-new.json > $OUT/llm-new.log 2>&1; echo "llm new exit $? $((SECONDS-t0)) s"
  timeout 60 $G0 bench --dtype bf16 --kernels cublas,auto --shapes $MED --json $OUT/med-old.json > $OUT/med-old.log 2>&1; echo "med old exit $?"
  timeout 60 $G bench --dtype bf16 --kernels cublas,auto --shapes $MED --json $OUT/med-new.json > $OUT/med-new.log 2>&1; echo "med new exit $?"
done
for f in llm-old llm-new med-old med-new; do python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -3; done
echo "total $((SECONDS-t0)) s"
