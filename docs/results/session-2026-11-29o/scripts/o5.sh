#!/usr/bin/env bash
# Session 2026-11-29o, call 5: rung 15, second round of tiles for 384^3-1536^3 (8-warp 32x64 and
# 64x64, 64x32, 64x128, 64x64 rotating) beside the listed ones; memcheck of auto's new tiles.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o5bin; rm -rf $B && mkdir -p $B && tar xJf build/o5.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
S=384,512,640,768,1200,1536
for only in dmmaX "dmma 32x32x32 w16x16 s5 k16" "dmma 128x64x16 w32x32" "dmma 32x64x16 w16x32 s4 k16" "dmma 64x64x16 w32x32 s4 k16"; do
  timeout 100 $B/gemmlab_tile_sweep --only "$only" --sizes $S --op nn,nt --reps 20 >> $OUT/sweep.txt 2>&1; echo "sweep '$only' exit $? at $((SECONDS-t0)) s"
done
timeout 150 compute-sanitizer --tool memcheck --kernel-name kns=mma_gemm_kernel $B/gemmlab bench --dtype f64 --kernels auto --shapes 1000x250x1000,66x198x334,200x300x200,1000x1000x1000 --op all --reps 1 --min-time 0 > $OUT/memcheck.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"
grep -E "ERROR SUMMARY" $OUT/memcheck.txt | sort | uniq -c; grep -cE " PASS" $OUT/memcheck.txt; grep -E "dmma|FAIL" $OUT/memcheck.txt | awk '{print $2,$3,$4}' | sort | uniq -c | head
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
