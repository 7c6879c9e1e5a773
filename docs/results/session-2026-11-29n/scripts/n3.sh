#!/usr/bin/env bash
# Session 2026-11-29n, call 3: build n3 (a third transposed tile, 128 x 96; the test's slices in
# powers of two): test_tune_gpu, then `tune --explain` on the rows whose pick the new tiles change
# (BF16, row-major nt and tt).
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/n3bin; rm -rf $B && mkdir -p $B && tar xJf build/n3.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
mkdir -p $OUT/logs
timeout 120 $B/tests/test_tune_gpu --gtest_filter='-TuneGpu.AShortTuneWritesACacheThatLoadsWithoutWarning' > $OUT/logs/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|OK \] TuneGpu.Transposed" $OUT/logs/test_tune_gpu.txt | head
grep -A4 Failure $OUT/logs/test_tune_gpu.txt | head -30
timeout 150 $B/gemmlab tune --explain 512x3072x2048,256x4608x3584,256x6144x4096,128x10240x8192,256x5120x5120,512x1536x2048,1024x1536x2048,777x1531x2049,1531x777x2049,128x18944x3584,512x4608x3584,1024x4608x3584,256x3072x2048 --op nt --layout row --dtype bf16 > $OUT/logs/explain.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
timeout 60 $B/gemmlab tune --explain 1536x1536x1536,2048x2048x2048,1024x1024x1024 --op nt,tt --layout row --dtype bf16 > $OUT/logs/explain-squares.txt 2>&1; echo "explain squares exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|fastest" $OUT/logs/explain.txt $OUT/logs/explain-squares.txt
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $OUT/logs
echo "total $((SECONDS-t0)) s"
