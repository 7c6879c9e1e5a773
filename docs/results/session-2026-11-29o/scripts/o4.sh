#!/usr/bin/env bash
# Session 2026-11-29o, call 4: rung 15's new auto options (32x32 w16x16, 8-warp 128x64 rotating):
# their test, the every-option test, `tune --explain` on small and medium f64 products, memcheck,
# then the f64 mixed set warm and cold and the f64 batched set.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o4bin; rm -rf $B && mkdir -p $B && tar xJf build/o4.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
timeout 200 $B/tests/test_tune_gpu --gtest_filter='TuneGpu.DmmaMediumTilesMeetTheBound:TuneGpu.EveryOptionMeetsTheBound' > $OUT/tests-tune.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED) |Failure|OK \]" $OUT/tests-tune.txt | head -20
timeout 150 $B/tests/test_gemm_gpu --gtest_filter='*f64*:SplitK.*:BatchedApi.*:GemmApi.*' > $OUT/tests-gemm.txt 2>&1; echo "gemm tests exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests-gemm.txt | head -20
timeout 100 compute-sanitizer --tool memcheck --kernel-name regex:mma_gemm_kernel $B/gemmlab bench --dtype f64 --kernels auto --shapes 1000x250x1000,66x198x334,200x300x200,1000x1000x1000 --op all --reps 1 --min-time 0 > $OUT/memcheck.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"
grep -E "ERROR SUMMARY|PASS|FAIL" $OUT/memcheck.txt | sort | uniq -c | head
timeout 120 $B/gemmlab tune --explain 128x128x128,256x256x256,384x384x384,512x512x512,640x640x640,768x768x768,1000x1000x1000,1024x1024x1024,1200x1200x1200,1536x1536x1536,256x256x8192,16x8192x8192,64x4096x4096,777x1531x2049,64x64x64@64 --op nt --layout row --dtype f64 > $OUT/explain-f64.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^f64|auto \(" $OUT/explain-f64.txt
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
for c in "" "--cold"; do
  timeout 200 $B/gemmlab bench --dtype f64 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all $c --json $OUT/mixed-f64$c.json > $OUT/mixed-f64$c.log 2>&1; echo "mixed f64 $c exit $? at $((SECONDS-t0)) s"
  python3 scripts/geomean.py $OUT/mixed-f64$c.json | grep -E "^geomean"
done
timeout 100 $B/gemmlab bench --preset batched --dtype f64 --json $OUT/batched-f64.json > $OUT/batched-f64.log 2>&1; echo "batched f64 exit $? at $((SECONDS-t0)) s"
python3 scripts/geomean.py $OUT/batched-f64.json | grep -E "^geomean"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
