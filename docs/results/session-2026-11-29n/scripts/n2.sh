#!/usr/bin/env bash
# Session 2026-11-29n, call 2: build n2 (the transposed tiles in auto; the model's 128 x 144 rate
# lowered; TransposedTilesMeetTheBound): test_tune_gpu, memcheck over auto on three shapes that
# take the transposed tiles, `tune --explain` on 1536^3 nt / tt and two 256-token rows, then the
# LLM set warm and cold (gpu-check).
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/n2bin; rm -rf $B && mkdir -p $B && tar xJf build/n2.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
mkdir -p $OUT/logs $OUT/sets
timeout 90 $B/tests/test_tune_gpu --gtest_filter='-TuneGpu.AShortTuneWritesACacheThatLoadsWithoutWarning' > $OUT/logs/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \] TuneGpu.Transposed" $OUT/logs/test_tune_gpu.txt | head
timeout 120 compute-sanitizer --tool memcheck --kernel-regex kns=warp_specialized $B/gemmlab bench --kernels auto --dtype bf16,f16 --layout row --op nt --shapes 128x4571x3584,500x4571x3584,1536x1536x1536 --reps 1 --min-time 0 > $OUT/logs/memcheck-transposed.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"
grep -E "ERROR SUMMARY|PASS|FAIL|rror" $OUT/logs/memcheck-transposed.txt | head -8
timeout 60 $B/gemmlab tune --explain 1536x1536x1536,256x4608x3584,256x18944x3584 --op nt,tt --layout row --dtype bf16 > $OUT/logs/explain.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|fastest" $OUT/logs/explain.txt
BUILD_DIR=$B timeout 300 bash scripts/gpu-check.sh $OUT/sets bench-llm bench-llm-cold > $OUT/logs/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/logs/gpu-check.log | head -4
tar -C $OUT -czf $OUT/logs.tgz logs sets && rm -rf $OUT/logs $OUT/sets
echo "total $((SECONDS-t0)) s"
