#!/usr/bin/env bash
# Session 2026-11-28c, call 5: fin3 (abc7064's kernels) and d5 (a unit's block-wise B scales
# copied into shared memory at its start, read from there in the k loop): the 8-bit bench twice
# per build alternating, the 4096x7168x16384 block-wise row; on d5 the quantized tests, memcheck
# and racecheck of the block-wise tests, and the FP8 accuracy table.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin3 d5; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
B=$PWD/.ab/run/d5/bin
LD_LIBRARY_PATH=$B timeout 240 $B/test_quantized_gpu > $OUT/quant-d5.log 2>&1; echo "test_quantized_gpu on d5 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-d5.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" $OUT/quant-d5.log | head -5
for r in 1 2; do for v in fin3 d5; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --dtype fp8,fp8-block --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?) at $((SECONDS-t0)) s"; grep -E "wgmma_" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-120
done; done
for v in fin3 d5; do B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 60 $B/gemmlab bench --dtype fp8-block --shapes 4096x7168x16384 > $OUT/bench-ds-$v.log 2>&1
  echo "== ds $v (exit $?)"; grep -E "wgmma_|cublaslt" $OUT/bench-ds-$v.log | cut -c1-120; done
B=$PWD/.ab/run/d5/bin; export LD_LIBRARY_PATH=$B
timeout 150 compute-sanitizer --tool memcheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWise*' > $OUT/memcheck-d5.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-d5.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 150 compute-sanitizer --tool racecheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWiseEveryLayoutOpAndOddSize' > $OUT/racecheck-d5.log 2>&1; echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' $OUT/racecheck-d5.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 100 $B/gemmlab accuracy --dtype fp8-block --k 4096,16384 --inputs signed,same-sign --seed 11 > $OUT/accuracy-d5.log 2>&1; echo "accuracy exit $?"; grep -E "^fp8" $OUT/accuracy-d5.log
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
