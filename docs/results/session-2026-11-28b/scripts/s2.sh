#!/usr/bin/env bash
# Session 2026-11-28b, call 2: new (dd4ed27: the staged epilogue), v8 (+ FP8 drains after 8 k
# tiles instead of 4) and rows (v8 + a row-major 16-bit C staged too: block-wise calls), timed
# alternately; the tests and sanitizers on rows; the FP8 layer set on new and rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in new v8 rows; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
RB=$PWD/.ab/run/rows/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); builds: $(for v in new v8 rows; do echo -n "$v=$(cat .ab/run/$v/bin/COMMIT | tr '\n' ' ') "; done)"
export LD_LIBRARY_PATH=$RB
timeout 150 $RB/test_quantized_gpu > $OUT/quant.log 2>&1; echo "test_quantized_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant.log | tr '\n' ' ')"
grep -E "Failure|FAILED  \]" -A3 $OUT/quant.log | head -20
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $RB/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Fp8Gpu.StagedAndRegisterStoresGiveTheSameBits:Fp8Gpu.BlockWiseExactWithUnitScales' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $RB/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Fp8Gpu.BlockWiseExactWithUnitScales:Int8Gpu.ExtremesExact' > $OUT/racecheck.log 2>&1; echo "racecheck exit $?: $(grep 'RACECHECK SUMMARY' $OUT/racecheck.log | tr '\n' ' ')"
timeout 150 $RB/test_gemm_gpu --gtest_filter='*Half*:EveryRung.*:TailSplit.*:NarrowTiles.*:Tf32Mode.*' > $OUT/gemm.log 2>&1; echo "test_gemm_gpu (Hopper filters) exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm.log | tr '\n' ' ')"
echo "tests done at $((SECONDS-t0)) s"
for r in 1 2; do for v in new v8 rows; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?)"; grep -E "wgmma_fp8|wgmma_int8" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-150
done; done
echo "bench done at $((SECONDS-t0)) s"
LAYERS=""
for m in 64 128 4096; do for nk in 2112x7168 24576x1536 32768x512 7168x16384 4096x7168 7168x2048; do LAYERS="$LAYERS${LAYERS:+,}${m}x$nk"; done; done
for v in new rows; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 120 $B/gemmlab bench --dtype fp8,fp8-block --shapes "$LAYERS" > $OUT/layers-$v.log 2>&1
  echo "== layers $v (exit $?, at $((SECONDS-t0)) s)"; grep -E "wgmma_fp8" $OUT/layers-$v.log | awk '{print $1, $2, $NF=="pass" ? $(NF-1) : $NF}' | tr '\n' ';' | cut -c1-1500; echo
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
