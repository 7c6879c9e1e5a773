#!/usr/bin/env bash
# Session 2026-11-28b, call 1: the 8-bit rungs' staged (TMA) epilogue. Tests and sanitizers on
# the new build, then base (d7b637e, .ab/fin3) and new timed alternately, then ncu of the new
# FP8 kernel at 4096^3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in base new; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
NB=$PWD/.ab/run/new/bin; BB=$PWD/.ab/run/base/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); new $(cat $NB/COMMIT | tr '\n' ' '), base $(cat $BB/COMMIT)"
export LD_LIBRARY_PATH=$NB
timeout 150 $NB/test_quantized_gpu > $OUT/quant.log 2>&1; echo "test_quantized_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant.log | tr '\n' ' ')"
grep -E "Failure|FAILED  \]" -A3 $OUT/quant.log | head -20
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $NB/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Fp8Gpu.StagedAndRegisterStoresGiveTheSameBits' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tr '\n' ' ')"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 $NB/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Int8Gpu.ExtremesExact' > $OUT/racecheck.log 2>&1; echo "racecheck exit $?: $(grep 'RACECHECK SUMMARY' $OUT/racecheck.log | tr '\n' ' ')"
timeout 200 $NB/test_gemm_gpu --gtest_filter='*Half*:EveryRung.*:TailSplit.*:NarrowTiles.*:SixtyFourColumnTiles.*:SkinnySide.*:TallAndWide.*:Batched*' > $OUT/gemm.log 2>&1; echo "test_gemm_gpu (rung 24 filters) exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm.log | tr '\n' ' ')"
echo "tests done at $((SECONDS-t0)) s"
for r in 1 2; do for v in base new; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?)"; grep -E "wgmma_fp8|wgmma_int8" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-150
done; done
echo "bench done at $((SECONDS-t0)) s"
S="--section SpeedOfLight --section WarpStateStats --section InstructionStats"
M="--metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
timeout 100 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $M $NB/gemmlab bench --dtype fp8 --sizes 4096 > $OUT/ncu-fp8.log 2>&1; echo "ncu exit $?"
grep -E "Duration|gmma|Executed Instructions|Issued Instructions|Warp Cycles Per Issued|Stall|Eligible" $OUT/ncu-fp8.log | sed 's/  */ /g' | cut -c1-150 | head -20
cuobjdump -sass $NB/libgemmlab.so > /tmp/all.sass 2>/dev/null
awk '/Function :/ {p = ($3 ~ /WgmmaFp8Rung.*Li128ELb0EEE13__nv_bfloat16Lb1ELb0E/)} p' /tmp/all.sass > $OUT/fp8-bf16.sass
awk '/Function :/ {p = ($3 ~ /WgmmaInt8Rung.*MmaInt8EiLb1ELb0E/)} p' /tmp/all.sass > $OUT/int8-s32.sass
wc -l $OUT/*.sass
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
