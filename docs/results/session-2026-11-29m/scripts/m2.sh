#!/usr/bin/env bash
# Session 2026-11-29m, call 2: rung 25 (TF32 on wgmma) on 128 x 128 and 128 x 64 tiles and
# transposed for an MN-major op(B), plus 192 x 128 tiles and 128 x 128's rate refitted (packed
# build m2). The TF32 tests (every auto option, every f32 rung, TF32 rounding, split-K, the
# model's pins), `tune --explain` on the shapes the model's pins and rates rest on, the TF32
# mixed set (auto against cuBLAS's TF32), then memcheck over every auto option.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/m2bin; rm -rf $B && mkdir -p $B && tar xJf build/m2.txz -C $B
export LD_LIBRARY_PATH=$B
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat $B/COMMIT | tr '\n' ' ')"
t0=$SECONDS
timeout 150 $B/tests/test_tune_gpu --gtest_filter='TuneGpu.*' > $OUT/tune-test.log 2>&1; echo "tune test exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tune-test.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "Failure|FAILED|rror" $OUT/tune-test.log | head -10
timeout 150 $B/tests/test_gemm_gpu --gtest_filter='*EveryRung*f32*:Tf32Mode.*:SplitK.*:GemmApi.*' > $OUT/gemm-test.log 2>&1; echo "gemm test exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm-test.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "Failure|FAILED" $OUT/gemm-test.log | head -10
$B/tests/test_auto_model > $OUT/auto-model.log 2>&1; echo "auto model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/auto-model.log | tr '\n' ' ')"
timeout 100 $G tune --explain 6144x1536x2048,1536x1536x1536,3000x3000x3000,4096x4096x4096 --op nt,tn --layout row --dtype f32 --precision tf32 > $OUT/explain-tf32.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
timeout 100 $G tune --explain 128x128x128,256x256x256,512x512x512,256x256x8192,512x512x16384 --op nt,tn,nn --layout row --dtype f32 --precision tf32 > $OUT/explain-tf32-small.txt 2>&1; echo "explain small exit $? at $((SECONDS-t0)) s"
grep -E "^f32|auto \(|fastest" $OUT/explain-tf32-small.txt
grep -E "^f32|auto \(|fastest" $OUT/explain-tf32.txt
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 150 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed exit $? at $((SECONDS-t0)) s"
python3 scripts/geomean.py $OUT/mixed-tf32.json
timeout 220 compute-sanitizer --tool memcheck $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
