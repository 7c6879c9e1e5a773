#!/usr/bin/env bash
# Session 2026-11-28c, call 6: fin4 (the submitted code: abc7064 without its empty-asm pin of the
# block scales, which the SASS showed had no effect) beside fin3 (abc7064): whether the two
# block-wise FP8 kernels' SASS differ, the quantized and Ozaki tests and sanitizers on fin4,
# the 8-bit bench twice per build alternating, the 4096x7168x16384 block-wise row.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin3 fin4; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
for v in fin3 fin4; do
  cuobjdump -sass .ab/run/$v/bin/libgemmlab.so | awk '/Function : /{p = ($0 ~ /MmaFp8I13__nv_fp8_e4m3S._Li128ELb1EEE13__nv_bfloat16/)} p' | sed -E 's@/\*[0-9a-f]{4,}\*/@@; s@/\* 0x[0-9a-f]+ \*/@@' | grep -v "^\s*$" > $OUT/sass-block-$v.txt
done
echo "block-wise BF16 SASS lines: $(wc -l < $OUT/sass-block-fin3.txt) / $(wc -l < $OUT/sass-block-fin4.txt); differing lines: $(diff $OUT/sass-block-fin3.txt $OUT/sass-block-fin4.txt | grep -c '^[<>]')"
B=$PWD/.ab/run/fin4/bin
LD_LIBRARY_PATH=$B timeout 240 $B/test_quantized_gpu > $OUT/quant-fin4.log 2>&1; echo "test_quantized_gpu on fin4 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-fin4.log | tr '\n' ' ') at $((SECONDS-t0)) s"
LD_LIBRARY_PATH=$B timeout 200 $B/test_ozaki_gpu > $OUT/ozaki-fin4.log 2>&1; echo "test_ozaki_gpu on fin4 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki-fin4.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2; do for v in fin3 fin4; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?) at $((SECONDS-t0)) s"; grep -E "wgmma_" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-120
done; done
B=$PWD/.ab/run/fin4/bin; export LD_LIBRARY_PATH=$B
timeout 60 $B/gemmlab bench --dtype fp8-block --shapes 4096x7168x16384 > $OUT/bench-ds-fin4.log 2>&1; echo "== ds fin4 (exit $?)"; grep -E "wgmma_|cublaslt" $OUT/bench-ds-fin4.log | cut -c1-120
timeout 150 compute-sanitizer --tool memcheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWise*:Int8Gpu.RandomExactOnEveryLayout' > $OUT/memcheck-fin4.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-fin4.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 150 compute-sanitizer --tool racecheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWiseExactWithUnitScales' > $OUT/racecheck-fin4.log 2>&1; echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' $OUT/racecheck-fin4.log | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
