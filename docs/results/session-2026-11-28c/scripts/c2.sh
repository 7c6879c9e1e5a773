#!/usr/bin/env bash
# Session 2026-11-28c, call 2: fin2 (submitted kernels), de (call 1) and d2 (de, with the block
# scales multiplied only where the promotion reads them, each k step's wgmma descriptor one add
# from the tile's, FP8 and INT8; rung 30 back on single blocks): quantized and Ozaki tests on
# d2, the 8-bit bench twice per build alternating, the 4096x7168x16384 block-wise row, ncu of
# d2's rung 29/30 kernels at 4096^3, and d2's FP8 SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin2 de d2; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
B=$PWD/.ab/run/d2/bin
LD_LIBRARY_PATH=$B timeout 240 $B/test_quantized_gpu > $OUT/quant-d2.log 2>&1; echo "test_quantized_gpu on d2 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-d2.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" $OUT/quant-d2.log | head -5
LD_LIBRARY_PATH=$B timeout 240 $B/test_ozaki_gpu > $OUT/ozaki-d2.log 2>&1; echo "test_ozaki_gpu on d2 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/ozaki-d2.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2; do for v in fin2 de d2; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?) at $((SECONDS-t0)) s"; grep -E "wgmma_" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-120
done; done
for v in fin2 d2; do B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 60 $B/gemmlab bench --dtype fp8-block --shapes 4096x7168x16384 > $OUT/bench-ds-$v.log 2>&1
  echo "== ds $v (exit $?)"; grep -E "wgmma_|cublaslt" $OUT/bench-ds-$v.log | cut -c1-120; done
B=$PWD/.ab/run/d2/bin; export LD_LIBRARY_PATH=$B
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats"
for d in fp8 fp8-block int8; do
  timeout 90 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $B/gemmlab bench --dtype $d --sizes 4096 > $OUT/ncu-$d.log 2>&1
  echo "ncu $d exit $?: $(grep -E 'Duration|highest-utilized|Issued Instructions  |Stall (Wait|Dispatch|Long)' $OUT/ncu-$d.log | sed 's/  */ /g' | cut -c1-90 | tr '\n' ';')"
done
cuobjdump -sass $B/libgemmlab.so | awk '/Function : /{p = ($0 ~ /MmaFp8I13__nv_fp8_e4m3S._Li128ELb[01]EEE13__nv_bfloat16/)} p' > $OUT/sass-d2-fp8.txt 2>&1; wc -l $OUT/sass-d2-fp8.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
