#!/usr/bin/env bash
# Tail split with whole waves only and the partials' cost in the model: A/B against HEAD (LLM set
# and medium shapes, BF16, warm), rows alternating between the builds.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/k5; G=$B/gemmlab; B0=$PWD/../build/k5old; G0=$B0/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j10 --target gemmlab_cli test_auto_model test_gemm_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j6 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|C75" $OUT/build.log | head -20
timeout 100 $B/tests/test_gemm_gpu --gtest_filter='TailSplit.*:NarrowTiles.*:SplitK.*' > $OUT/tests.log 2>&1; echo "tests exit $?"
grep -E "^\[  (PASSED|FAILED) |FAILED \]|Failure" $OUT/tests.log | head -20
timeout 30 $B/tests/test_auto_model > $OUT/auto_model.log 2>&1; echo "auto_model exit $?"
echo "after tests $((SECONDS-t0)) s"
MED=512x512x512,768x768x768,1024x1024x1024,1536x1536x1536,2048x2048x2048,3000x3000x3000,2500x3500x1000,4095x4097x1023,1024x1024x8192,6144x1536x2048,4096x4096x4096,8192x8192x8192
timeout 130 $G0 bench --preset llm --dtype bf16 --json $OUT/llm-old.json > $OUT/llm-old.log 2>&1; echo "llm old exit $? $((SECONDS-t0)) s"
timeout 130 $G bench --preset llm --dtype bf16 --json $OUT/llm-new.json > $OUT/llm-new.log 2>&1; echo "llm new exit $? $((SECONDS-t0)) s"
for r in 1 2; do
timeout 40 $G0 bench --dtype bf16 --kernels cublas,auto --shapes $MED --json $OUT/med-old$r.json > $OUT/med-old$r.log 2>&1; echo "med old exit $?"
timeout 40 $G bench --dtype bf16 --kernels cublas,auto --shapes $MED --json $OUT/med-new$r.json > $OUT/med-new$r.log 2>&1; echo "med new exit $?"
done
for f in llm-old llm-new med-old1 med-new1 med-old2 med-new2; do echo "$f: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf k5.tgz *.log *.json && rm -f *.log *.json
