#!/usr/bin/env bash
# Session 2026-11-28c, call 1: builds base (fin2: the submitted kernels), de (block-wise factors
# loaded two intervals ahead, and the FP8 epilogue deferred behind the next unit's first
# k tile) and i8p (de + rung 30 on rung 23's block pairs): the quantized tests on de and i8p,
# memcheck/racecheck of the deferred store, the 8-bit bench twice per build alternating, the
# block-wise 4096x7168x16384 row, and the SASS of de's FP8 per-tensor kernel.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin2 de i8p; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
B=$PWD/.ab/run/de/bin
LD_LIBRARY_PATH=$B timeout 240 $B/test_quantized_gpu > $OUT/quant-de.log 2>&1; echo "test_quantized_gpu on de exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-de.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" $OUT/quant-de.log | head -5
B=$PWD/.ab/run/i8p/bin
LD_LIBRARY_PATH=$B timeout 120 $B/test_quantized_gpu --gtest_filter='Int8Gpu.*' > $OUT/quant-i8p.log 2>&1; echo "Int8Gpu on i8p exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-i8p.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2; do for v in fin2 de i8p; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?) at $((SECONDS-t0)) s"; grep -E "wgmma_|cublaslt" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-120
done; done
for v in fin2 de; do B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 60 $B/gemmlab bench --dtype fp8-block --shapes 4096x7168x16384 > $OUT/bench-ds-$v.log 2>&1
  echo "== ds $v (exit $?)"; grep -E "wgmma_|cublaslt" $OUT/bench-ds-$v.log | cut -c1-120; done
B=$PWD/.ab/run/de/bin
LD_LIBRARY_PATH=$B timeout 150 compute-sanitizer --tool memcheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWiseEveryLayoutOpAndOddSize' > $OUT/memcheck-de.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-de.log | tr '\n' ' ') at $((SECONDS-t0)) s"
LD_LIBRARY_PATH=$B timeout 150 compute-sanitizer --tool racecheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock' > $OUT/racecheck-de.log 2>&1; echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' $OUT/racecheck-de.log | tr '\n' ' ') at $((SECONDS-t0)) s"
cuobjdump -sass $B/libgemmlab.so | awk '/Function : /{p = ($0 ~ /MmaFp8I13__nv_fp8_e4m3S._Li128ELb[01]EEE13__nv_bfloat16/)} p' > $OUT/sass-de-fp8.txt 2>&1; wc -l $OUT/sass-de-fp8.txt
ls -la $OUT
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
