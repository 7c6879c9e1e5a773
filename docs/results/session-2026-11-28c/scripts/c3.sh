#!/usr/bin/env bash
# Session 2026-11-28c, call 3: fin2, d2 and d3 (d2 + the block scales held in ordinary registers
# until the promotion reads them, A's descriptor from a warp-uniform warpgroup index): the
# 8-bit bench twice per build alternating, the block-wise 4096x7168x16384 row, the FP8 layer set
# on fin2 and d3; on d3 the quantized, Ozaki and Hopper GEMM tests, memcheck and racecheck of
# the FP8 tests, and the FP8 SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin2 d2 d3; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
for r in 1 2; do for v in fin2 d2 d3; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?) at $((SECONDS-t0)) s"; grep -E "wgmma_" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-120
done; done
for v in fin2 d3; do B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 60 $B/gemmlab bench --dtype fp8-block --shapes 4096x7168x16384 > $OUT/bench-ds-$v.log 2>&1
  echo "== ds $v (exit $?)"; grep -E "wgmma_|cublaslt" $OUT/bench-ds-$v.log | cut -c1-120; done
L=64x2112x7168,64x24576x1536,64x32768x512,64x7168x16384,64x4096x7168,64x7168x2048,128x2112x7168,128x24576x1536,128x32768x512,128x7168x16384,128x4096x7168,128x7168x2048,4096x2112x7168,4096x24576x1536,4096x32768x512,4096x7168x16384,4096x4096x7168,4096x7168x2048
for v in fin2 d3; do B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --dtype fp8,fp8-block --shapes $L > $OUT/layers-$v.log 2>&1
  echo "== layers $v (exit $?) at $((SECONDS-t0)) s"; grep -E "wgmma_" $OUT/layers-$v.log | awk '{print $1, $2, $6}' | tr '\n' ';'; echo; done
B=$PWD/.ab/run/d3/bin; export LD_LIBRARY_PATH=$B
timeout 240 $B/test_quantized_gpu > $OUT/quant-d3.log 2>&1; echo "test_quantized_gpu on d3 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-d3.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 200 $B/test_ozaki_gpu > $OUT/ozaki-d3.log 2>&1; echo "test_ozaki_gpu on d3 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki-d3.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 150 compute-sanitizer --tool memcheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWise*:Fp8Gpu.StagedAndRegisterStoresGiveTheSameBits' > $OUT/memcheck-d3.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-d3.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 150 compute-sanitizer --tool racecheck $B/test_quantized_gpu --gtest_filter='Fp8Gpu.ManyTilesPerBlock:Fp8Gpu.BlockWiseExactWithUnitScales:Int8Gpu.RandomExactOnEveryLayout' > $OUT/racecheck-d3.log 2>&1; echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' $OUT/racecheck-d3.log | tr '\n' ' ') at $((SECONDS-t0)) s"
cuobjdump -sass $B/libgemmlab.so | awk '/Function : /{p = ($0 ~ /MmaFp8I13__nv_fp8_e4m3S._Li128ELb[01]EEE13__nv_bfloat16/)} p' > $OUT/sass-d3-fp8.txt 2>&1; wc -l $OUT/sass-d3-fp8.txt
timeout 280 $B/test_gemm_gpu --gtest_filter='*Half*:Tf32Mode.*:TailSplit.*:EveryRung.*:NarrowTiles.*:SkinnySide.*:Batched*' > $OUT/gemm-d3.log 2>&1; echo "test_gemm_gpu (Hopper filters) on d3 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm-d3.log | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
